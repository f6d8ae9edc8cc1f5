"""Charts drawn by Python as SVG: pure geometry first, then thin renderers over the port.

Single-series charts (`bar_chart`, `line_chart`: Train) and several series side by side
(`grouped_bars` + `grouped_bar_chart`, `series_lines` + `series_line_chart`: Compare).
The geometry functions return plain numbers; the renderers turn them into element specs
(plain data, see build.py) that the port builds in one call (`port.build`): all of it is
tested on CPython. Every mark that carries a number is focusable (`tabindex=0`) and has a
`<title>`, so the number shows on hover and is read out on keyboard focus; the chart as a
whole has a role and a label. A chart's marks are one Tab stop: the first has `tabindex=0`,
the others -1, and the panel moves focus between them with the arrow keys (roving.py).

>>> nice_ticks(0, 97)
[0, 20, 40, 60, 80, 100]
>>> [round(b.width) for b in bar_layout([9, 6, 3], width=300, label_width=100).bars]
[128, 85, 43]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .build import svg
from .roving import roving_tabindex

CHAR_W = 7.4  # width of one monospace character at the charts' 12.5px label size
BAR_H = 22
BAR_GAP = 6
PAD = 8
VALUE_W = 64  # room right of a bar for its value


# --- geometry ----------------------------------------------------------------------
def nice_step(span: float, target_ticks: int = 5) -> float:
    """A round tick step (1, 2 or 5 × 10^k) for a span. Example: nice_step(97) -> 20."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(1, target_ticks)
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def nice_ticks(lo: float, hi: float, target_ticks: int = 5, integer: bool = False) -> list[float]:
    """Round tick values covering [lo, hi] (whole numbers only if `integer`).
    Example: nice_ticks(-3.2, -1.1) -> [-3.5, -3.0, …, -1.0]; nice_ticks(1, 3, integer=True) -> [1, 2, 3]."""
    if hi < lo:
        lo, hi = hi, lo
    if hi - lo <= 1e-9 * max(1.0, abs(lo), abs(hi)):
        hi = lo + 1  # a flat line: show a unit range
    step = nice_step(hi - lo, target_ticks)
    if integer:
        step = max(1.0, step)
    digits = max(0, 1 - math.floor(math.log10(step)))  # enough decimals for the step

    def tick(i: int) -> float:
        v = (math.floor(lo / step) + i) * step
        return round(v, digits) if step < 1 else int(round(v))

    ticks = [tick(0)]
    while ticks[-1] < hi - step * 1e-9:
        ticks.append(tick(len(ticks)))
    return ticks


def short_number(v: float) -> str:
    """Example: 1234 -> '1,234'; 0.142857 -> '0.1429'; 1.5e-05 -> '1.5e-05'; -1234.5 -> '-1,234.5'."""
    if isinstance(v, int) or (float(v).is_integer() and abs(v) < 1e15):
        return f"{int(v):,}"
    if v != 0 and abs(v) < 1e-3:
        return f"{v:.2g}"
    if abs(v) >= 100:
        return f"{v:,.1f}"
    return f"{v:.4g}" if abs(v) < 1 else f"{v:,.3f}".rstrip("0").rstrip(".")


def truncate(label: str, max_chars: int) -> str:
    """Example: truncate('abcdefgh', 5) -> 'abcd…'."""
    return label if len(label) <= max_chars else label[: max(1, max_chars - 1)] + "…"


@dataclass(frozen=True)
class BarGeom:
    x: float
    y: float
    width: float
    height: float
    value_x: float  # where the value label starts
    label_y: float  # text baseline of the bar's labels


@dataclass(frozen=True)
class BarLayout:
    width: float
    height: float
    label_width: float
    bars: list[BarGeom]


def bar_layout(values: Sequence[float], width: float, label_width: float,
               bar_h: float = BAR_H, gap: float = BAR_GAP, value_w: float = VALUE_W) -> BarLayout:
    """Horizontal bars from a zero baseline at `label_width + PAD`, longest = the largest
    value, leaving `value_w` on the right for the values; negative values draw as empty
    bars. Bars are at least 2 px wide if non-zero."""
    x0 = label_width + PAD
    usable = max(20.0, width - x0 - value_w)
    top = max((v for v in values if v > 0), default=0) or 1
    bars = []
    for i, v in enumerate(values):
        w = usable * max(0.0, v) / top
        if v > 0:
            w = max(w, 2.0)
        y = PAD + i * (bar_h + gap)
        bars.append(BarGeom(x0, y, w, bar_h, x0 + w + 6, y + bar_h / 2 + 4.5))
    height = PAD * 2 + len(values) * (bar_h + gap) - (gap if values else 0)
    return BarLayout(width, height, label_width, bars)


def label_width_for(labels: Sequence[str], width: float, max_share: float = 0.42) -> float:
    """Room for the longest label, at most `max_share` of the chart. Example: ['ab'] -> 22.8."""
    longest = max((len(x) for x in labels), default=1)
    return min(longest * CHAR_W + 8, width * max_share)


@dataclass(frozen=True)
class LineLayout:
    width: float
    height: float
    left: float
    right: float
    top: float
    bottom: float
    points: list[tuple[float, float]]  # in pixels (of the points asked for)
    x_ticks: list[tuple[float, str]]  # (pixel x, label)
    y_ticks: list[tuple[float, str]]
    x_range: tuple[float, float] = (0.0, 1.0)  # data values at the plot's edges
    y_range: tuple[float, float] = (0.0, 1.0)  # (log10 of them on a log axis)
    log_y: bool = False

    def point(self, x: float, y: float) -> tuple[float, float]:
        """A data point to pixels, on this layout's y scale."""
        return self.project(x, math.log10(y) if self.log_y else y)

    def project(self, x: float, y: float) -> tuple[float, float]:
        """Data to pixels (y grows upwards; `y` already on the axis's scale)."""
        (x_lo, x_hi), (y_lo, y_hi) = self.x_range, self.y_range
        return (self.left + (x - x_lo) / ((x_hi - x_lo) or 1) * (self.right - self.left),
                self.bottom - (y - y_lo) / ((y_hi - y_lo) or 1) * (self.bottom - self.top))

    @property
    def path(self) -> str:
        """SVG path data. Example: 'M10.0 90.0 L50.0 10.0'."""
        return " ".join(f"{'M' if i == 0 else 'L'}{x:.1f} {y:.1f}" for i, (x, y) in enumerate(self.points))


def log_ticks(lo: float, hi: float, max_ticks: int = 6) -> list[int]:
    """Exponents of the powers of ten covering [lo, hi] (both > 0).

    Example: log_ticks(3, 25000) -> [0, 1, 2, 3, 4, 5] (1 … 100,000).
    """
    e_lo, e_hi = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if e_hi == e_lo:
        e_hi += 1
    step = max(1, math.ceil((e_hi - e_lo) / (max_ticks - 1)))
    return list(range(e_lo, e_hi + step, step))[: max_ticks + 1]


def wants_log_scale(ys: Sequence[float], ratio: float = 50.0) -> bool:
    """A log y axis when all values are positive and span more than `ratio` (merge
    counts: thousands at first, a handful at the end). Example: [25000, 13] -> True."""
    return bool(ys) and min(ys) > 0 and max(ys) / min(ys) > ratio


def ticks_ending_at(ticks: Sequence[float], end: float) -> list[float]:
    """Round ticks cut so that `end` is the last one (a round tick within a third of a
    step before it is dropped, so their labels cannot collide).

    Example: ticks_ending_at([0, 2, 4, 6, 8, 10], 9) -> [0, 2, 4, 6, 8, 9];
    ticks_ending_at([0, 1000, 2000, 3000, 4000], 3744) -> [0, 1000, 2000, 3000, 3744].
    """
    step = (ticks[1] - ticks[0]) if len(ticks) > 1 else 1
    return [t for t in ticks if t < end - step / 3] + [end]


def line_layout(xs: Sequence[float], ys: Sequence[float], width: float, height: float,
                left: float = 62, right: float = 14, top: float = 26, bottom: float = 30,
                only: Sequence[int] | None = None, log_y: bool = False, x_end: float | None = None) -> LineLayout:
    """Scale points into a plot area with round ticks on both axes (y grows upwards; with
    `log_y` a base-10 log axis, values must be > 0). `only`: the indices of the points to
    project (the ticks still cover all of them). `x_end`: where the x axis ends, labelled
    (a run's last step, even when the last points come earlier: Unigram's pruning steps
    have no log-likelihood)."""
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} x values but {len(ys)} y values")
    if not xs:
        return LineLayout(width, height, left, width - right, top, height - bottom, [], [], [])
    integer = all(float(x).is_integer() for x in (xs[0], xs[-1]))
    x_hi = max(xs) if x_end is None else max(max(xs), x_end)
    xt = nice_ticks(min(xs), x_hi, 5, integer=integer)
    if x_end is not None:
        xt = ticks_ending_at(xt, x_hi)
    if log_y:
        exps = log_ticks(min(ys), max(ys))
        y_ticks = [(float(e), short_number(10 ** e if e >= 0 else 10.0 ** e)) for e in exps]
        ty = [math.log10(y) for y in ys]
    else:
        y_ticks = [(t, short_number(t)) for t in nice_ticks(min(ys), max(ys), 4)]
        ty = list(ys)
    # room for the widest y label (drawn right-aligned 6 px left of the plot), e.g. '-2,400,000'
    left = max(left, max(len(label) for _, label in y_ticks) * CHAR_W + 10)
    base = LineLayout(width, height, left, width - right, top, height - bottom, [], [], [],
                      (xt[0], xt[-1]), (y_ticks[0][0], y_ticks[-1][0]))
    indices = range(len(xs)) if only is None else only
    return LineLayout(base.width, base.height, base.left, base.right, base.top, base.bottom,
                      [base.project(xs[i], ty[i]) for i in indices],
                      [(base.project(t, y_ticks[0][0])[0], short_number(t)) for t in xt],
                      [(base.project(xt[0], t)[1], label) for t, label in y_ticks], base.x_range, base.y_range,
                      log_y)


def decimate(n: int, limit: int) -> list[int]:
    """At most `limit` indices of range(n), evenly spread, first and last included.

    Example: decimate(10, 4) -> [0, 3, 6, 9]
    """
    if n <= limit:
        return list(range(n))
    if limit < 2:
        return [n - 1]
    return sorted({round(i * (n - 1) / (limit - 1)) for i in range(limit)})


# --- rendering: element specs (see build.py), built by the port in one call ----------
@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    detail: str  # the <title>: the full numbers
    chosen: bool = False
    value_text: str | None = None
    tie: bool = False  # ties the chosen bar's value (the tie-break rule decided)


def _frame(width: float, height: float, label: str) -> list[Any]:
    return svg("svg", "chart", svg("title", None, label), viewBox=f"0 0 {width:.0f} {height:.0f}",
               width=f"{width:.0f}", height=f"{height:.0f}", role="group", aria_label=label)


def bar_chart(bars: Sequence[Bar], width: float, label: str, max_label_chars: int = 24) -> list[Any]:
    """A horizontal bar chart (an SVG spec); the chosen bar is marked (class `chosen`, ★),
    bars that tie with it too (class `tie`, =). Each bar is focusable and titled with its numbers."""
    width = max(260.0, width)
    labels = [truncate(b.label, max_label_chars) for b in bars]
    values = [("★ " if b.chosen else "= " if b.tie else "") + (b.value_text if b.value_text is not None else short_number(b.value))
              for b in bars]
    value_w = max(VALUE_W, max((len(v) for v in values), default=0) * 7.0 + 12)
    layout = bar_layout([b.value for b in bars], width, label_width_for(labels, width), value_w=value_w)
    chart = _frame(width, layout.height, label)
    for k, (bar, text, g, value) in enumerate(zip(bars, labels, layout.bars, values)):
        chart.append(svg(
            "g", "bar chosen" if bar.chosen else "bar tie" if bar.tie else "bar",
            svg("title", None, bar.detail),
            svg("rect", "bar-hit", x=0.0, y=g.y - 3, width=width, height=g.height + 6),
            svg("rect", "bar-track", x=g.x, y=g.y, width=layout.width - g.x - value_w, height=g.height, rx=4),
            svg("rect", "bar-fill", x=g.x, y=g.y, width=g.width, height=g.height, rx=4),
            svg("text", "bar-label", text, x=g.x - 8, y=g.label_y, text_anchor="end"),
            svg("text", "bar-value", value, x=g.value_x, y=g.label_y),
            tabindex=roving_tabindex(k), role="img", aria_label=bar.detail))
    return chart


def line_chart(xs: Sequence[float], ys: Sequence[float], detail: Callable[[int], str], width: float,
               height: float, label: str, x_label: str, y_label: str, current: int | None = None,
               focusable_limit: int = 60, log_y: bool = False, x_end: float | None = None) -> list[Any]:
    """A line chart (an SVG spec) with axes, round ticks and a marker at point `current`
    (an index); the x axis ends at `x_end` if given (see `line_layout`). Up to
    `focusable_limit` evenly spread points are focusable dots titled `detail(i)` (computed
    only for those), so long runs stay cheap to draw."""
    width = max(260.0, width)
    keep = decimate(len(xs), 600)  # the path: at most 600 points, whatever the run's length
    layout = line_layout(xs, ys, width, height, only=keep, log_y=log_y, x_end=x_end)
    chart = _frame(width, height, label)
    axis: list[Any] = []
    for y, text in layout.y_ticks:
        axis.append(svg("rect", "gridline", x=layout.left, y=y, width=layout.right - layout.left, height=0.8))
        axis.append(svg("text", "tick", text, x=layout.left - 6, y=y + 4, text_anchor="end"))
    for x, text in layout.x_ticks:
        axis.append(svg("text", "tick", text, x=x, y=layout.bottom + 16, text_anchor="middle"))
    axis.append(svg("text", "axis-label", x_label, x=layout.right, y=layout.bottom + 28, text_anchor="end"))
    axis.append(svg("text", "axis-label", y_label + (" (log scale)" if log_y else ""), x=layout.left - 56, y=layout.top - 14))
    chart.append(svg("g", "axis", *axis))
    if layout.points:
        chart.append(svg("path", "line", d=layout.path))
        for k, i in enumerate(decimate(len(xs), focusable_limit)):
            x, y = layout.point(xs[i], ys[i])
            text = detail(i)
            chart.append(svg("circle", "dot", svg("title", None, text), cx=x, cy=y, r=3.5,
                             tabindex=roving_tabindex(k), role="img", aria_label=text))
    if current is not None and 0 <= current < len(xs):
        x, y = layout.point(xs[current], ys[current])
        chart.append(svg("rect", "cursor", x=x - 0.75, y=layout.top, width=1.5, height=layout.bottom - layout.top))
        chart.append(svg("circle", "current", svg("title", None, detail(current)), cx=x, cy=y, r=5.5))
    return chart


# --- several series: grouped bars and lines (the Compare panel) -------------------


@dataclass(frozen=True)
class GroupBar:
    x: float
    y: float
    w: float
    h: float
    series: int  # which configuration (colour)
    group: str  # which language
    value: float
    label: str  # the value as shown on hover/focus


@dataclass(frozen=True)
class Tick:
    pos: float
    label: str


@dataclass
class GroupedBars:
    width: float
    height: float
    plot: tuple[float, float, float, float]  # left, top, right, bottom of the plot area
    bars: list[GroupBar] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    groups: list[Tick] = field(default_factory=list)  # group label centres
    reference_y: float | None = None  # y of the value 1.0 (parity) line


def tick_label(v: float) -> str:
    """Example: 2.5 -> '2.5'; 250000 -> '250,000'."""
    return f"{v:g}" if abs(v) < 1e5 else f"{v:,.0f}"


def grouped_bars(groups: Sequence[str], series: int, values: Sequence[Sequence[float | None]], *,
                 width: float = 640, height: float = 260, value_fmt: Callable[[float], str] = lambda v: f"{v:.2f}",
                 reference: float | None = 1.0) -> GroupedBars:
    """Geometry of a grouped bar chart: ``values[g][s]`` is group g's bar for series s."""
    left, top, right, bottom = 44.0, 12.0, width - 8.0, height - 28.0
    chart = GroupedBars(width, height, (left, top, right, bottom))
    finite = [v for row in values for v in row if v is not None]
    hi = max(finite + ([reference] if reference else []) + [0.0001])
    ticks = nice_ticks(0, hi)
    top_value = ticks[-1]

    def y_of(v: float) -> float:
        return bottom - (bottom - top) * (v / top_value)

    chart.y_ticks = [Tick(y_of(t), tick_label(t)) for t in ticks]
    if reference is not None:
        chart.reference_y = y_of(reference)
    if not groups:
        return chart
    group_w = (right - left) / len(groups)
    inner = group_w * 0.78
    bar_w = inner / max(1, series)
    for g, name in enumerate(groups):
        x0 = left + g * group_w + (group_w - inner) / 2
        chart.groups.append(Tick(left + (g + 0.5) * group_w, name))
        for s in range(series):
            v = values[g][s] if s < len(values[g]) else None
            if v is None:
                continue
            y = y_of(v)
            chart.bars.append(GroupBar(x0 + s * bar_w + 1, y, max(1.0, bar_w - 2), bottom - y, s, name, v, value_fmt(v)))
    return chart


@dataclass
class SeriesLines:
    width: float
    height: float
    plot: tuple[float, float, float, float]
    lines: list[list[tuple[float, float, float, float]]] = field(default_factory=list)  # per series: (px, py, x, y)
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    log_x: bool = True


def series_lines(series: Sequence[Sequence[tuple[float, float]]], *, width: float = 640, height: float = 260,
               log_x: bool = True) -> SeriesLines:
    """Geometry of a line chart with a log-scale x axis (vocabulary size) by default.

    ``series[s]`` is a list of ``(x, y)`` points; every point keeps its data values for hover.
    """
    left, top, right, bottom = 52.0, 26.0, width - 12.0, height - 30.0
    chart = SeriesLines(width, height, (left, top, right, bottom), log_x=log_x)
    points = [p for s in series for p in s]
    if not points:
        return chart
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    fx = (lambda v: math.log10(max(v, 1e-9))) if log_x else (lambda v: v)
    x_lo, x_hi = fx(min(xs)), fx(max(xs))
    if x_hi - x_lo < 1e-9:
        x_lo, x_hi = x_lo - 0.5, x_hi + 0.5
    y_ticks = nice_ticks(min(0.0, min(ys)) if min(ys) < 0 else max(0.0, min(ys) * 0.9), max(ys))
    y_lo, y_hi = y_ticks[0], y_ticks[-1]

    def px(v: float) -> float:
        return left + (right - left) * (fx(v) - x_lo) / (x_hi - x_lo)

    def py(v: float) -> float:
        return bottom - (bottom - top) * (v - y_lo) / ((y_hi - y_lo) or 1)

    chart.lines = [[(px(x), py(y), x, y) for x, y in s] for s in series]
    chart.y_ticks = [Tick(py(t), tick_label(t)) for t in y_ticks]
    if log_x:
        ticks = [m * 10 ** e for e in range(math.floor(x_lo), math.ceil(x_hi) + 1) for m in (1, 2, 5)]
        chart.x_ticks = [Tick(px(t), f"{t:,}") for t in ticks if x_lo - 1e-9 <= math.log10(t) <= x_hi + 1e-9]
        if len(chart.x_ticks) < 2:
            chart.x_ticks = [Tick(px(v), f"{v:,.0f}") for v in (min(xs), max(xs))]
    else:
        chart.x_ticks = [Tick(px(t), tick_label(t)) for t in nice_ticks(min(xs), max(xs))]
    return chart


def _group_svg(width: float, height: float, label: str) -> list[Any]:
    return svg("svg", "chart cmp-chart", svg("title", None, label), viewBox=f"0 0 {width:.0f} {height:.0f}",
               width=f"{width:.0f}", height=f"{height:.0f}", role="group", aria_label=label)


def _focusable(tag: str, cls: str, detail: str, index: int, **attrs: Any) -> list[Any]:
    """Mark `index` of its chart: focusable (one Tab stop per chart, roving.py), titled."""
    return svg(tag, cls, svg("title", None, detail), tabindex=roving_tabindex(index), role="img",
               aria_label=detail, **attrs)


def grouped_bar_chart(chart: GroupedBars, details: Sequence[Sequence[str]], label: str, y_suffix: str = "",
                      unknown: Sequence[Sequence[float | None]] = (),
                      shade: Callable[[float], float] = lambda unk: 1.0) -> list[Any]:
    """The SVG spec of ``grouped_bars``: gridlines, group labels, one focusable bar per
    value (class ``cmp-bar``, ``data-series``), the reference line; ``details[g][s]`` is
    each bar's hover text and ``unknown[g][s]`` its share of unknown tokens (the bar's
    opacity is ``shade(unknown)``)."""
    out = _group_svg(chart.width, chart.height, label)
    left, top, right, bottom = chart.plot
    axis: list[Any] = []
    for tick in chart.y_ticks:
        axis.append(svg("line", "gridline", x1=left, y1=tick.pos, x2=right, y2=tick.pos))
        axis.append(svg("text", "tick", tick.label + y_suffix, x=left - 6, y=tick.pos + 4, text_anchor="end"))
    axis.append(svg("line", "baseline", x1=left, y1=bottom, x2=right, y2=bottom))
    for tick in chart.groups:
        axis.append(svg("text", "tick group-label", tick.label, x=tick.pos, y=bottom + 18, text_anchor="middle"))
    out.append(svg("g", "axis", *axis))
    group_index = {t.label: gi for gi, t in enumerate(chart.groups)}
    for k, bar in enumerate(chart.bars):
        gi = group_index[bar.group]
        unk = unknown[gi][bar.series] if unknown else None
        detail = (details[gi][bar.series] if details else "") or bar.label
        out.append(_focusable("rect", "cmp-bar", detail, k, x=bar.x, y=bar.y, width=bar.w, height=max(0.5, bar.h),
                              rx=2, data_series=bar.series, fill_opacity=f"{shade(unk):.2f}" if unk else None,
                              data_unk=f"{unk:.3f}" if unk else None))
    if chart.reference_y is not None:
        out.append(svg("line", "reference-line", x1=left, y1=chart.reference_y, x2=right, y2=chart.reference_y))
    return out


def series_line_chart(chart: SeriesLines, details: Sequence[Sequence[str]], label: str, x_label: str,
                      y_label: str) -> list[Any]:
    """The SVG spec of ``series_lines``: a path and focusable dots per series (class
    ``cmp-series``, ``data-series``); ``details[s][k]`` is each dot's hover text."""
    out = _group_svg(chart.width, chart.height, label)
    left, top, right, bottom = chart.plot
    axis: list[Any] = []
    for tick in chart.y_ticks:
        axis.append(svg("line", "gridline", x1=left, y1=tick.pos, x2=right, y2=tick.pos))
        axis.append(svg("text", "tick", tick.label, x=left - 6, y=tick.pos + 4, text_anchor="end"))
    for tick in chart.x_ticks:
        axis.append(svg("line", "baseline", x1=tick.pos, y1=bottom, x2=tick.pos, y2=bottom + 4))
        axis.append(svg("text", "tick", tick.label, x=tick.pos, y=bottom + 17, text_anchor="middle"))
    axis.append(svg("line", "baseline", x1=left, y1=bottom, x2=right, y2=bottom))
    axis.append(svg("text", "axis-label", x_label, x=right, y=bottom + 29, text_anchor="end"))
    axis.append(svg("text", "axis-label", y_label, x=left - 44, y=top - 14))
    out.append(svg("g", "axis", *axis))
    n_dots = 0  # the dots of every series are one group (one Tab stop)
    for s, points in enumerate(chart.lines):
        if not points:
            continue
        path = svg("path", "cmp-line", d="M" + " L".join(f"{px:.1f},{py:.1f}" for px, py, _, _ in points))
        dots = []
        for k, (px, py, _, _) in enumerate(points):
            dots.append(_focusable("circle", "cmp-dot", details[s][k] if details and details[s] else "", n_dots,
                                   cx=px, cy=py, r=3.5))
            n_dots += 1
        out.append(svg("g", "cmp-series", path, *dots, data_series=s))
    return out
