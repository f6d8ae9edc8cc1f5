"""Chart geometry and the SVG specs the charts become (plain data, no browser needed)."""

from __future__ import annotations

import math

import pytest
from fakedom import FakePort
from hypothesis import given
from hypothesis import strategies as st

from subwordlab_web import charts
from subwordlab_web.build import el, svg

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@given(finite, finite)
def test_nice_ticks_cover_the_range_with_round_steps(a, b):
    lo, hi = min(a, b), max(a, b)
    ticks = charts.nice_ticks(lo, hi)
    tolerance = (ticks[1] - ticks[0]) * 1e-6  # relative to the step
    assert ticks[0] <= lo + tolerance and ticks[-1] >= hi - tolerance
    steps = {round(y - x, 9) for x, y in zip(ticks, ticks[1:])}
    assert len(steps) <= 1 or max(steps) - min(steps) < 1e-6 * max(1, abs(max(steps)))
    step = ticks[1] - ticks[0]
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert round(mantissa, 6) in (1, 2, 5, 10)
    assert 2 <= len(ticks) <= 14


def test_nice_ticks_examples():
    assert charts.nice_ticks(0, 97) == [0, 20, 40, 60, 80, 100]
    assert charts.nice_ticks(1, 3744, integer=True) == [0, 1000, 2000, 3000, 4000]
    assert charts.nice_ticks(1, 3, integer=True) == [1, 2, 3]
    assert charts.nice_ticks(-3.2, -1.1) == [-3.5, -3.0, -2.5, -2.0, -1.5, -1.0]
    assert charts.nice_ticks(5, 5) == [5.0, 5.2, 5.4, 5.6, 5.8, 6.0]  # a flat line: a unit range


def test_short_numbers():
    assert [charts.short_number(v) for v in (9, 1234, 0.142857, 1.5e-05, -1234.5, 12.5, 3.0)] == [
        "9", "1,234", "0.1429", "1.5e-05", "-1,234.5", "12.5", "3"]


def test_bar_layout_scales_to_the_largest_value():
    layout = charts.bar_layout([9, 6, 3, 0, -2], width=400, label_width=100)
    widths = [b.width for b in layout.bars]
    assert widths[0] == 400 - 108 - charts.VALUE_W
    assert widths[1] == pytest.approx(widths[0] * 6 / 9) and widths[2] == pytest.approx(widths[0] / 3)
    assert widths[3] == 0 and widths[4] == 0  # zero and negative: empty bars
    ys = [b.y for b in layout.bars]
    assert ys == sorted(ys) and len(set(ys)) == 5
    assert layout.height == 2 * charts.PAD + 5 * (charts.BAR_H + charts.BAR_GAP) - charts.BAR_GAP
    assert all(b.x == 108 and b.value_x == b.x + b.width + 6 for b in layout.bars)
    tiny = charts.bar_layout([1000, 1], width=400, label_width=100).bars[1]
    assert tiny.width == 2.0  # a non-zero value stays visible


def test_label_width_and_truncation():
    assert charts.label_width_for(["ab"], 600) == pytest.approx(2 * charts.CHAR_W + 8)
    assert charts.label_width_for(["x" * 200], 600) == pytest.approx(600 * 0.42)
    assert charts.truncate("abcdefgh", 5) == "abcd…" and charts.truncate("abc", 5) == "abc"


def test_line_layout_maps_data_into_the_plot_area():
    layout = charts.line_layout([1, 2, 3], [10, 20, 30], 300, 200)
    (x0, y0), (_, _), (x2, y2) = layout.points
    assert (x0, x2) == (layout.left, layout.right)  # the ticks are exactly 1..3
    assert y0 == layout.bottom and y2 == layout.top  # y grows upwards
    assert [t for _, t in layout.x_ticks] == ["1", "2", "3"]
    assert layout.path.startswith(f"M{x0:.1f} {y0:.1f} L")
    part = charts.line_layout([1, 2, 3], [10, 20, 30], 300, 200, only=[2])
    assert part.points == [(x2, y2)] and part.project(1, 10) == (x0, y0)
    with pytest.raises(ValueError, match="3 x values but 2 y values"):
        charts.line_layout([1, 2, 3], [1, 2], 300, 200)


def test_decimate_keeps_first_last_and_at_most_the_limit():
    assert charts.decimate(10, 4) == [0, 3, 6, 9]
    assert charts.decimate(3, 10) == [0, 1, 2]
    picked = charts.decimate(3744, 60)
    assert picked[0] == 0 and picked[-1] == 3743 and len(picked) <= 60


def _find(spec, tag):
    """All sub-specs with this tag, depth first."""
    out = []
    if isinstance(spec, list):
        if spec[0] == tag:
            out.append(spec)
        for child in spec[2:]:
            out.extend(_find(child, tag))
    return out


def _text(spec):
    return "".join(c if isinstance(c, str) else _text(c) for c in spec[2:]) if isinstance(spec, list) else spec


def test_bar_chart_marks_the_chosen_bar_and_titles_every_bar():
    bars = [charts.Bar("e + s", 9, "e + s: count 9 (chosen)", chosen=True), charts.Bar("l + o", 7, "l + o: count 7")]
    spec = charts.bar_chart(bars, 500, "Merge 1")
    assert spec[0] == "svg:svg" and spec[1]["aria-label"] == "Merge 1" and spec[1]["viewBox"].startswith("0 0 500 ")
    groups = _find(spec, "svg:g")
    assert [g[1]["class"] for g in groups] == ["bar chosen", "bar"]
    # one Tab stop per chart: the first bar; the arrow keys reach the others (roving.py)
    assert [g[1]["tabindex"] for g in groups] == ["0", "-1"] and all(g[1]["role"] == "img" for g in groups)
    assert [_text(_find(g, "svg:title")[0]) for g in groups] == ["e + s: count 9 (chosen)", "l + o: count 7"]
    values = [_text(t) for g in groups for t in _find(g, "svg:text") if t[1]["class"] == "bar-value"]
    assert values == ["★ 9", "7"]


def test_line_chart_has_axes_focusable_dots_and_the_current_marker():
    xs = list(range(1, 1001))
    ys = [1000 - x for x in xs]
    asked = []

    def detail(i):
        asked.append(i)
        return f"merge {xs[i]}: count {ys[i]}"

    spec = charts.line_chart(xs, ys, detail, 600, 240, "Counts", "merge", "count", current=499, focusable_limit=20)
    dots = _find(spec, "svg:circle")
    focusable = [d for d in dots if "tabindex" in d[1]]
    assert len(focusable) <= 20 and [d for d in dots if d[1]["class"] == "current"]
    # one Tab stop for all the dots (the first), each still named with its numbers
    assert [d[1]["tabindex"] for d in focusable] == ["0"] + ["-1"] * (len(focusable) - 1)
    assert all(d[1]["aria-label"].startswith("merge ") for d in focusable)
    assert len(asked) <= 21  # details only for what is drawn
    assert _find(spec, "svg:path")[0][1]["d"].count("L") <= 599
    assert "merge" in [_text(t) for t in _find(spec, "svg:text")]


def test_specs_build_into_elements_with_text_never_markup():
    port = FakePort.from_html("<div id='box'></div>")
    box = port.query("#box")
    port.build_into(box, [el("p", "x", "<img src=x onerror=alert(1)>"), svg("svg", "chart", svg("title", None, "t"))])
    p, chart = box.element_children
    assert p.tag == "p" and port.text(p) == "<img src=x onerror=alert(1)>" and p.element_children == []
    assert chart.svg and chart.tag == "svg" and port.query("title", chart).svg
    assert port.query_all("img") == []


def test_values_fit_inside_the_chart():
    bars = [charts.Bar("##i + ##z", 0.142857, "d", chosen=True, value_text="0.1429 · n=5"),
            charts.Bar("s + ##t", 0.1111, "d", value_text="0.1111 · n=9")]
    spec = charts.bar_chart(bars, 400, "WordPiece")
    for text in _find(spec, "svg:text"):
        if text[1]["class"] == "bar-value":
            assert float(text[1]["x"]) + len(_text(text)) * 7.0 <= 400


def test_the_plot_leaves_room_for_the_widest_y_label():
    # a Unigram run's log-likelihood: labels like '-2,400,000' must not be cut at the left
    layout = charts.line_layout([1, 2, 3], [-2_380_000, -1_950_000, -2_050_000], 600, 200)
    widest = max(len(label) for _, label in layout.y_ticks)
    assert any(label.startswith("-2,") for _, label in layout.y_ticks)
    assert layout.left - 6 >= widest * charts.CHAR_W
    assert charts.line_layout([1, 2], [10, 20], 600, 200).left == 62  # short labels: the usual margin
