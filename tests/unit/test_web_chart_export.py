"""Chart downloads for course authors: the standalone SVG (parses as XML, has xmlns, a
white background, styles inlined, no external reference, user text escaped) and the SVG
and PNG buttons under every chart, on the real index.html through the fake port."""

from __future__ import annotations

import doctest
import xml.etree.ElementTree as ET

from test_web_train import INDEX_HTML, click, started, use

from subwordlab_web import chart_export
from subwordlab_web.chart_export import CHARTS, file_name, standalone_svg
from subwordlab_web.state import Corpus, TrainSpec

NS = "{http://www.w3.org/2000/svg}"
EVIL = '<script>alert("x")</script> & "q" \'s'


def chart_tree(label=EVIL):
    return ("svg", {"class": "chart", "viewBox": "0 0 300 100", "width": "300", "height": "100", "role": "group",
                    "aria-label": f"Chart of {label}", "tabindex": "0", "onclick": "alert(1)"},
            {"font-family": "system-ui, sans-serif", "font-size": "12px", "display": "inline"},
            [("title", {}, {}, [f"Candidates: {label}"]),
             ("g", {"class": "bar", "tabindex": "-1"}, {"fill": "rgb(79, 70, 229)", "stroke": "none"},
              [("rect", {"x": "10", "y": "10", "width": "50", "height": "20", "rx": "4"},
                {"fill": "rgb(79, 70, 229)", "fill-opacity": "0.5"}, []),
               ("text", {"x": "5", "y": "25", "text-anchor": "end"},
                {"fill": "rgb(28, 35, 51)", "font-family": "system-ui, sans-serif"}, [label]),
               ("image", {"href": "https://example.org/x.png", "x": "0", "y": "0"}, {"fill": "url(#pattern)"}, []),
               ("rect", {"class": "hidden-bit"}, {"display": "none"}, [])])])


def test_the_standalone_svg_parses_with_xmlns_white_background_and_inline_styles():
    text = standalone_svg(chart_tree())
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == NS + "svg" and text.split("\n", 1)[1].startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert root.get("viewBox") == "0 0 300 100" and root.get("width") == "300" and root.get("role") == "img"
    background = root[0]
    assert background.tag == NS + "rect" and background.get("fill") == "#ffffff" and background.get("width") == "300"
    assert "font-family: system-ui, sans-serif" in root.get("style")
    bar = root.find(f"{NS}g")
    rect = bar.find(f"{NS}rect")
    assert rect.get("style") == "fill-opacity: 0.5" and rect.get("rx") == "4"  # the parent's fill is inherited
    assert bar.find(f"{NS}text").get("style") == "fill: rgb(28, 35, 51)"  # the font is the root's
    assert len(bar.findall(f"{NS}rect")) == 1  # display: none is left out


def test_user_text_is_escaped_and_nothing_refers_outside_the_file():
    text = standalone_svg(chart_tree())
    root = ET.fromstring(text.encode("utf-8"))
    assert not list(root.iter(NS + "script"))  # '<script>' in a token stays text
    assert root.find(f"{NS}g/{NS}text").text == EVIL and root.find(f"{NS}title").text == f"Candidates: {EVIL}"
    assert root.get("aria-label") == f"Chart of {EVIL}"
    for el in root.iter():
        for name, value in el.attrib.items():
            assert "href" not in name and not name.startswith("on") and name not in ("class", "tabindex")
            assert "url(" not in value and "http" not in value.replace("http://www.w3.org/2000/svg", "")
    assert "<script" not in text and "@import" not in text


def test_a_chart_export_needs_an_svg_and_file_names_are_safe():
    try:
        standalone_svg(("div", {}, {}, []))
    except ValueError as exc:
        assert "<svg>" in str(exc)
    else:
        raise AssertionError("a <div> was exported")
    assert file_name("cmp-curve", "png", "bpe-step12") == "subwordlab-bpe-step12-cmp-curve.png"
    assert file_name("curve-chart", "svg", "a/b c") == "subwordlab-a-b-c-curve-chart.svg"
    assert doctest.testmod(chart_export).failed == 0


def test_every_chart_has_labelled_svg_and_png_buttons():
    from fakedom import FakePort

    port = FakePort.from_html(INDEX_HTML)
    buttons = port.query_all("[data-chart-download]")
    assert {(port.get_attr(b, "data-chart"), port.get_attr(b, "data-chart-download")) for b in buttons} == \
        {(c, f) for c in CHARTS for f in ("svg", "png")}
    for b in buttons:
        label = port.get_attr(b, "aria-label")
        assert label.startswith("Download the ") and label.endswith(" as " + port.text(b))
        assert port.query("#" + port.get_attr(b, "data-chart")) is not None


def test_a_chart_not_drawn_yet_says_so_and_downloads_nothing():
    from fakedom import FakePort

    port = FakePort.from_html(INDEX_HTML)
    chart_export.ChartDownloads(port)
    click(port, "[data-chart-download='png'][data-chart='cmp-curve']")
    note = port.query('[data-chart-note="cmp-curve"]')
    assert port.downloads == [] and "hidden" not in note.attrs
    assert port.text(note).startswith("No compression curve to download yet")


def test_the_candidates_chart_downloads_as_svg_and_png_with_a_token_like_script():
    port, app = started()
    corpus = "<script> " * 6 + "<b>old</b> " * 3
    use(app, port, Corpus(corpus, name="evil"), TrainSpec("bpe", "num_merges", 4))
    click(port, "#train-step")
    before = len(port.downloads)
    click(port, "[data-chart-download='svg'][data-chart='candidates-chart']")
    click(port, "[data-chart-download='png'][data-chart='candidates-chart']")
    (svg_name, svg_text, svg_mime), (png_name, png_svg, png_mime) = port.downloads[before:]
    assert (svg_name, svg_mime) == ("subwordlab-bpe-step1-candidates-chart.svg", "image/svg+xml")
    assert (png_name, png_mime) == ("subwordlab-bpe-step1-candidates-chart.png", "image/png") and png_svg == svg_text
    root = ET.fromstring(svg_text.encode("utf-8"))
    assert not list(root.iter(NS + "script"))
    labels = [t.text for t in root.iter(NS + "text")]
    assert any("<" in (t or "") for t in labels), labels  # the pair '< + s' is text, escaped in the file
    assert "&lt; + " in svg_text and any((t or "").startswith("< + ") for t in labels)


def test_a_compare_chart_carries_its_legend_below_it():
    from subwordlab_web.chart_export import with_legend

    tree = with_legend(chart_tree("x"), [("BPE", "rgb(79, 70, 229)"), (EVIL, "rgb(217, 119, 6)"), ("Unigram", "")])
    root = ET.fromstring(standalone_svg(tree).encode("utf-8"))
    assert float(root.get("height")) > 100 and root.get("viewBox").endswith(root.get("height"))
    assert float(root[0].get("height")) == float(root.get("height"))  # the white background covers the legend
    legend = root.findall(f"{NS}g")[-1]
    assert [t.text for t in legend.iter(NS + "text")] == ["BPE", EVIL, "Unigram"]
    fills = [r.get("style") for r in legend.iter(NS + "rect")]
    assert fills == ["fill: rgb(79, 70, 229)", "fill: rgb(217, 119, 6)", "fill: #5a6478"]
    assert with_legend(chart_tree("x"), []) == chart_tree("x")


def test_the_compare_charts_download_with_the_configurations_named():
    from test_web_share_panels import compared

    port, app = compared()
    labels = [port.text(li) for li in port.query_all("#cmp-legend li")]
    assert len(labels) >= 2
    for chart_id in ("cmp-curve", "cmp-parity"):
        before = len(port.downloads)
        click(port, f"[data-chart-download='svg'][data-chart='{chart_id}']")
        name, text, mime = port.downloads[before]
        root = ET.fromstring(text.encode("utf-8"))
        assert mime == "image/svg+xml" and name.endswith(f"{chart_id}.svg")
        assert [t.text for t in root.findall(f"{NS}g")[-1].iter(NS + "text")] == labels
