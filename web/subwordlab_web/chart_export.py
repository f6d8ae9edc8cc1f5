"""Charts as files for slides: every chart downloads as a standalone SVG and as a PNG.

A chart on the page is styled by app.css, so its SVG alone would render unstyled (or not
at all) elsewhere. ``standalone_svg`` writes the chart as a document of its own:

1. the root carries ``xmlns``, its size and viewBox;
2. a white rectangle comes first (slides and dark viewers get a white background);
3. every element's computed style (fill, stroke, font...) is written into its ``style``
   attribute, so no stylesheet, font file or other external reference is needed;
4. user text (token labels, file names) is XML-escaped; classes, tab stops and any
   ``url(...)`` or ``href`` are left out.

The PNG is that SVG drawn onto a canvas by the browser (``port.download_png``).

A tree is ``(tag, attrs, styles, children)``, children being trees or text (what
``port.svg_tree`` reads from the page).

>>> tree = ("svg", {"width": "40", "height": "20", "class": "chart"}, {"font-family": "sans-serif"},
...         [("text", {"x": "2", "y": "12"}, {"fill": "rgb(28, 35, 51)"}, ["<b> & co"])])
>>> print(standalone_svg(tree))  # doctest: +NORMALIZE_WHITESPACE
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" viewBox="0 0 40 20" style="font-family: sans-serif"><rect x="0" y="0" width="40" height="20" fill="#ffffff"/><text x="2" y="12" style="fill: rgb(28, 35, 51)">&lt;b&gt; &amp; co</text></svg>
"""

from __future__ import annotations

import re
from typing import Any

# subtle: xml.sax.saxutils imports urllib.request, http.client and email (~0.2 s of the page's
# start in Pyodide, for a download nobody has asked for yet), so it is imported on first use

SVG_NS = "http://www.w3.org/2000/svg"
SVG_MIME = "image/svg+xml"
PNG_SCALE = 2  # PNG pixels per SVG unit: sharp on slides and high-density screens

# the computed style properties a chart uses, and the values that need not be written
STYLE_PROPS = {
    "fill": None, "fill-opacity": "1", "stroke": "none", "stroke-width": "1px", "stroke-opacity": "1",
    "stroke-dasharray": "none", "stroke-linecap": "butt", "stroke-linejoin": "miter", "opacity": "1",
    "font-family": None, "font-size": None, "font-weight": "400", "font-style": "normal",
    "text-anchor": "start", "dominant-baseline": "auto", "visibility": "visible",
}
_DROPPED_ATTRS = {"class", "style", "tabindex", "id"}  # page-only: styles are inlined, no focus stops
_NAME = re.compile(r"^[A-Za-z_][\w.:-]*$")

# the page's charts: container id -> what the download buttons call it
CHARTS = {
    "candidates-chart": "candidates chart",
    "curve-chart": "training curve",
    "cmp-parity": "tokens-per-language chart",
    "cmp-curve": "compression curve",
}


def _style(styles: dict[str, str], inherited: dict[str, str]) -> str:
    """The declarations worth writing: not a default, not what the parent already says,
    never a ``url(...)``. Example: {'fill': 'red', 'opacity': '1'} -> 'fill: red'."""
    out = []
    for prop, value in styles.items():
        value = (value or "").strip()
        if prop not in STYLE_PROPS or not value or "url(" in value:
            continue
        if value == STYLE_PROPS[prop] or inherited.get(prop) == value:
            continue
        out.append(f"{prop}: {value}")
    return "; ".join(out)


def _attrs(attrs: dict[str, str]) -> str:
    """Attributes as XML, escaped; page-only ones, event handlers and links left out."""
    from xml.sax.saxutils import quoteattr

    out = []
    for name, value in attrs.items():
        low = name.lower()
        if low in _DROPPED_ATTRS or low.startswith("on") or "href" in low or not _NAME.match(name):
            continue
        if "url(" in value or "javascript:" in value.lower():
            continue
        out.append(f" {name}={quoteattr(value)}")
    return "".join(out)


def _element(tree: Any, inherited: dict[str, str], out: list[str]) -> None:
    from xml.sax.saxutils import escape, quoteattr

    if isinstance(tree, str):
        out.append(escape(tree))
        return
    tag, attrs, styles, children = tree
    if (styles or {}).get("display") == "none" or tag in ("script", "foreignObject", "style"):
        return  # hidden, or no part of a picture
    style = _style(styles or {}, inherited)
    own = dict(inherited, **{p: v for p, v in (styles or {}).items() if p in STYLE_PROPS and v})
    out.append(f"<{tag}{_attrs(attrs)}" + (f" style={quoteattr(style)}" if style else ""))
    if not children:
        out.append("/>")
        return
    out.append(">")
    for child in children:
        _element(child, own, out)
    out.append(f"</{tag}>")


def standalone_svg(tree: Any) -> str:
    """The chart ``tree`` as an SVG document that renders anywhere (see the module doc)."""
    from xml.sax.saxutils import quoteattr

    tag, attrs, styles, children = tree
    if tag != "svg":
        raise ValueError(f"a chart export needs an <svg> element, not <{tag}>")
    # step 1: the root, with its namespace, size and viewBox
    width, height = attrs.get("width", "640"), attrs.get("height", "360")
    root = {"width": width, "height": height, "viewBox": attrs.get("viewBox") or f"0 0 {width} {height}"}
    if attrs.get("aria-label"):
        root.update({"role": "img", "aria-label": attrs["aria-label"]})
    style = _style(styles or {}, {})
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n', f'<svg xmlns="{SVG_NS}"{_attrs(root)}']
    out.append((f" style={quoteattr(style)}" if style else "") + ">")
    # step 2: a white background under everything
    x, y, w, h = (root["viewBox"].split() + ["0"] * 4)[:4]
    out.append(f'<rect x={quoteattr(x)} y={quoteattr(y)} width={quoteattr(w)} height={quoteattr(h)} fill="#ffffff"/>')
    # steps 3-4: the chart, styles inlined, text escaped
    inherited = {p: v for p, v in (styles or {}).items() if p in STYLE_PROPS and v}
    for child in children:
        _element(child, inherited, out)
    out.append("</svg>")
    return "".join(out)


LEGEND_ROW = 22.0  # SVG units per legend row
LEGEND_CHAR = 7.2  # a rough width per character of a legend label, for wrapping
LEGEND_FONT = "system-ui, -apple-system, \"Segoe UI\", Roboto, \"Noto Sans\", \"DejaVu Sans\", Arial, sans-serif"


def with_legend(tree: Any, entries: list[tuple[str, str]]) -> Any:
    """``tree`` taller by a legend band under the chart: one colour swatch and label per
    ``(label, colour)``, wrapped into rows (a Compare chart on a slide needs its colours
    named; on the page the legend is HTML beside the SVG). No entries: ``tree`` itself.

    Example: a 300×100 chart with two entries -> 300×(100 + 22 + 8), labels as <text>.
    """
    if not entries:
        return tree
    tag, attrs, styles, children = tree
    width, height = size_of(tree)
    x, y = 8.0, height + 8.0
    items: list[tuple[str, dict[str, str], dict[str, str], list[str]]] = []  # trees with text children
    for label, colour in entries:
        # step 1: wrap: a label that would pass the right edge starts a new row
        need = 22 + LEGEND_CHAR * len(label)
        if x > 8 and x + need > width:
            x, y = 8.0, y + LEGEND_ROW
        # step 2: a swatch in the series colour and the label beside it
        items.append(("rect", {"x": f"{x:g}", "y": f"{y + 5:g}", "width": "14", "height": "10", "rx": "2"},
                      {"fill": colour or "#5a6478"}, []))
        items.append(("text", {"x": f"{x + 20:g}", "y": f"{y + 14:g}"},
                      {"fill": "#1c2333", "font-size": "13px", "font-family": LEGEND_FONT}, [label]))
        x += need + 12
    total = y + LEGEND_ROW
    attrs = dict(attrs, height=f"{total:g}", width=f"{width:g}", viewBox=f"0 0 {width:g} {total:g}")
    return (tag, attrs, styles, list(children) + [("g", {"aria-label": "Legend"}, {}, items)])


def file_name(chart_id: str, fmt: str, context: str = "") -> str:
    """Example: ('cmp-curve', 'png', 'bpe-step12') -> 'subwordlab-bpe-step12-cmp-curve.png'."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", f"subwordlab-{context}-{chart_id}" if context else f"subwordlab-{chart_id}")
    return f"{stem.strip('-')}.{fmt}"


def size_of(tree: Any) -> tuple[float, float]:
    """The chart's size in SVG units (its width and height attributes, else its viewBox)."""
    _, attrs, _, _ = tree
    box = (attrs.get("viewBox") or "0 0 640 360").split()
    try:
        return float(attrs.get("width") or box[2]), float(attrs.get("height") or box[3])
    except (ValueError, IndexError):
        return 640.0, 360.0


class ChartDownloads:
    """The SVG and PNG buttons under every chart (``[data-chart-download]`` in index.html):
    a click exports the chart in that container, or says there is none yet."""

    def __init__(self, port: Any, app: Any = None) -> None:
        self.port, self.app = port, app
        for button in port.query_all("[data-chart-download]"):
            chart_id, fmt = port.get_attr(button, "data-chart"), port.get_attr(button, "data-chart-download")
            port.on(button, "click", lambda _e, c=chart_id, f=fmt: self.download(c, f))

    def context(self) -> str:
        """The preset and step, for the file name. Example: 'bpe-step12'."""
        state = getattr(self.app, "state", None)
        spec = getattr(state, "spec", None)
        if state is None or spec is None or not getattr(state, "recording", None):
            return ""
        return f"{spec.preset}-step{state.step}"

    def legend(self) -> list[tuple[str, str]]:
        """Compare's legend as ``(label, colour)``: the colour is its swatch's computed one."""
        port, out = self.port, []
        for item in port.query_all("#cmp-legend li"):
            swatches = port.query_all(".swatch", item)
            styles = port.svg_tree(swatches[0], ["background-color"])[2] if swatches else {}
            out.append((port.text(item).strip(), styles.get("background-color", "")))
        return out

    def download(self, chart_id: str, fmt: str) -> Any:
        port = self.port
        svgs = port.query_all(f"#{chart_id} svg")
        svg = svgs[0] if svgs else None
        note = port.query(f'[data-chart-note="{chart_id}"]')
        if svg is None:
            port.set_text(note, f"No {CHARTS.get(chart_id, 'chart')} to download yet: it appears once there is "
                                "something to draw.")
            port.set_hidden(note, False)
            return None
        port.set_hidden(note, True)
        tree = port.svg_tree(svg, list(STYLE_PROPS) + ["display"])
        if chart_id.startswith("cmp-"):
            tree = with_legend(tree, self.legend())
        text = standalone_svg(tree)
        name = file_name(chart_id, fmt, self.context())
        if fmt == "svg":
            port.download(name, text, SVG_MIME)
            return None
        width, height = size_of(tree)
        return port.spawn(port.download_png(name, text, width, height, PNG_SCALE))
