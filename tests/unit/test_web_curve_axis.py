"""The Train curve's x axis ends at the run's last step, labelled — also for Unigram, whose
last steps (pruning) have no log-likelihood point (the issue: "the Unigram log-likelihood
x-axis ends at 8 for a 9-step run")."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakedom import FakePort

from subwordlab.base.events import EmStep
from subwordlab_web import charts
from subwordlab_web.app import App
from subwordlab_web.state import Corpus, TrainSpec

INDEX_HTML = (Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("ticks, end, expected", [
    ([0, 2, 4, 6, 8, 10], 9, [0, 2, 4, 6, 8, 9]),
    ([0, 2, 4, 6, 8], 8, [0, 2, 4, 6, 8]),
    ([0, 1000, 2000, 3000, 4000], 3744, [0, 1000, 2000, 3000, 3744]),
    ([0, 1000, 2000, 3000, 4000], 3100, [0, 1000, 2000, 3100]),  # 3000 would sit on 3,100's label
    ([1], 1, [1]),
])
def test_ticks_ending_at(ticks, end, expected):
    assert charts.ticks_ending_at(ticks, end) == expected


def test_line_layout_ends_the_x_axis_at_x_end():
    # points at steps 1..8 of a 9-step run: the axis still runs to 9, and 9 is labelled
    layout = charts.line_layout(list(range(1, 9)), [float(-k) for k in range(8, 0, -1)], 600, 250, x_end=9)
    assert [label for _, label in layout.x_ticks][-1] == "9"
    assert layout.x_range[1] == 9
    assert layout.x_ticks[-1][0] == pytest.approx(layout.right)  # at the plot's right edge
    assert layout.points[-1][0] < layout.right  # the last point (step 8) comes before it
    # without x_end: round ticks, as before
    assert [label for _, label in charts.line_layout([1, 2, 3], [1, 2, 3], 300, 200).x_ticks] == ["1", "2", "3"]


def test_the_unigram_curve_axis_ends_at_the_last_step():
    port = FakePort.from_html(INDEX_HTML)
    app = App(port, warm=False)
    app.start()
    port.settle()
    app.state.set_corpus(Corpus("the cat sat on the mat the cat sat"))
    app.state.set_spec(TrainSpec("unigram", "vocab_size", 16))
    port.settle()
    steps = app.state.recording.steps
    last_em = max(k for k, e in enumerate(steps, 1) if isinstance(e, EmStep))
    assert last_em < len(steps)  # the run ends with a step that has no point on the curve
    app.state.seek(len(steps))
    port.settle()
    x_labels = [port.text(t) for t in port.query_all("#curve-chart text.tick") if t.attrs.get("text-anchor") == "middle"]
    assert x_labels[-1] == str(len(steps)), x_labels
