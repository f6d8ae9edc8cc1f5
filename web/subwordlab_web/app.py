"""The page shell: tabs over panels that share one `state.AppState`.

Views talk to a DOM port (`dom.BrowserPort` in the page, `FakePort` of tests/unit/fakedom.py in tests) and
never import `js`. Each panel is a class built as `Panel(port, state, app)`; it reads and
changes `app.state` (see state.py: the corpus, the spec, the Recording, the player's
step, the inspector's settings) and subscribes to its change topics.

How to add a panel (e.g. "compare"):

1. index.html: a tab button in `#panel-tabs`
   `<button type="button" class="tab" role="tab" id="tab-compare" data-tab="compare"
   aria-controls="panel-compare" aria-selected="false" tabindex="-1">Compare</button>`
   and a section `<section id="panel-compare" class="panel-page" role="tabpanel"
   aria-labelledby="tab-compare" data-panel="compare" hidden>…</section>` in `.panels`.
2. A module with the view class: `__init__(self, port, state, app)` queries its elements
   (raise early if one is missing: `port.query` does), wires events with `port.on`, and
   `state.subscribe(...)`; optional `on_show()` / `on_hide()` run when its tab is
   selected or left (draw charts there: a hidden panel has no width).
3. Register it: `register_panel("compare", "Compare", ComparePanel)` — in this module's
   PANELS list below, or from your module at import time (then import it in `_panels()`).

`App.show_panel(id)` switches tabs (also from code, e.g. a share link); `App.panels[id]`
is the live view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import subwordlab

from . import session
from .chart_export import ChartDownloads
from .exercise_view import ExerciseCard
from .lesson_view import LessonCard
from .pattern_guard import PatternGuard
from .persist import Persist
from .samples import DEFAULT_SAMPLE
from .shortcuts import Shortcuts
from .state import AppState
from .tokens import PALETTE_SIZE, assign_colors  # noqa: F401 - part of this module's API since the first screen

START_PANEL = "train"


@dataclass(frozen=True)
class PanelDef:
    id: str  # matches data-tab / data-panel / #panel-ID in index.html
    title: str
    factory: Callable[[Any, AppState, App], Any]


PANELS: list[PanelDef] = []


def register_panel(panel_id: str, title: str, factory: Callable[[Any, AppState, App], Any]) -> None:
    """Add (or replace) a panel; the page must have its tab and section (see above)."""
    PANELS[:] = [p for p in PANELS if p.id != panel_id]
    PANELS.append(PanelDef(panel_id, title, factory))


def _panels() -> list[PanelDef]:
    from .compare_panel import ComparePanel
    from .corpus_panel import CorpusPanel
    from .files_panel import FilesPanel
    from .inspect_panel import InspectPanel
    from .share_panel import SharePanel
    from .train_panel import TrainPanel

    for panel_id, title, factory in (("corpus", "Corpus", CorpusPanel), ("train", "Train", TrainPanel),
                                     ("inspect", "Inspect", InspectPanel), ("compare", "Compare", ComparePanel),
                                     ("files", "Files", FilesPanel), ("share", "Share", SharePanel)):
        if not any(p.id == panel_id for p in PANELS):
            register_panel(panel_id, title, factory)
    return list(PANELS)


WARM_UP_AFTER = 0.3  # seconds after start(): the first screen is painted, the default sample trained


def warm_up() -> None:
    """Build the regular-expression tables of the GPT-style patterns once, while the page
    has started (~0.15 s in Pyodide, after the first paint), not during the first training run."""
    from subwordlab.pipeline.pre_tokenizers import BertPreTokenizer, ByteLevel

    ByteLevel("gpt2")
    BertPreTokenizer()


class App:
    """Fills the page once the runtime is up; `start()` is called by the bootstrap."""

    def __init__(self, port: Any, state: AppState | None = None, warm: bool = True) -> None:
        self.port = port
        self.state = state or AppState()
        self.panels: dict[str, Any] = {}
        self.current: str | None = None
        self.work_panel = START_PANEL  # the last panel shown other than Share: where a share link lands
        self.warm = warm
        self.opened_link = False  # a share link or an embed's query took over the first load (start)
        self.guard = PatternGuard(port)  # custom regexes are tried in a worker first (pattern_guard.py)

    def start(self, sample: str | None = DEFAULT_SAMPLE) -> None:
        port = self.port
        self.error_box = port.query("#app-error")
        port.set_error_sink(self.show_error)
        port.set_text(port.query("#core-version"), f"core v{subwordlab.__version__}")
        if self.warm:
            port.spawn(self._warm_up_after_first_paint())

        self.tabs = {port.get_attr(t, "data-tab"): t for t in port.query_all("#panel-tabs [data-tab]")}
        self.sections = {port.get_attr(s, "data-panel"): s for s in port.query_all("section[data-panel]")}
        for panel in _panels():
            if panel.id not in self.tabs or panel.id not in self.sections:
                raise LookupError(f"panel {panel.id!r} needs a tab [data-tab={panel.id}] and a "
                                  f"section[data-panel={panel.id}] in index.html")
            self.panels[panel.id] = panel.factory(port, self.state, self)
        for panel_id, tab in self.tabs.items():
            port.on(tab, "click", lambda _e, pid=panel_id: self.show_panel(pid))
            port.on(tab, "keydown", self._on_tab_key)

        self.ctx_corpus = port.query("#context-corpus")
        self.ctx_spec = port.query("#context-spec")
        self.ctx_step = port.query("#context-step")
        self.state.subscribe(self._on_state)
        self.lessons = LessonCard(port, self.state, self)  # guided lessons on Train (lesson_view.py)
        self.exercises = ExerciseCard(port, self.state, self)  # exercises in Python on Train (exercise_view.py)
        self.persist = Persist(port, self.state, self)  # the address keeps the experiment (persist.py)
        self.shortcuts = Shortcuts(port, self)  # Space, ←/→, Home/End drive the step player (shortcuts.py)
        self.chart_downloads = ChartDownloads(port, self)  # SVG and PNG under every chart (chart_export.py)
        self.render_header()
        self.show_panel(START_PANEL)
        # a share link (#v1.…) or an embed's query may take over the first load
        share = self.panels.get("share")
        self.opened_link = share is not None and share.boot(sample)  # a link or an embed's query took over
        if self.opened_link:
            return
        if sample is not None:
            port.spawn(self.panels["corpus"].load_sample(sample))

    async def _warm_up_after_first_paint(self) -> None:
        """``warm_up`` once the page has shown itself: it is ~0.15 s that the first screen
        does not need (and cannot be sliced: it is a few regular-expression compiles)."""
        await self.port.sleep(WARM_UP_AFTER)
        warm_up()

    # --- tabs -------------------------------------------------------------------------
    def show_panel(self, panel_id: str, focus: bool = False) -> None:
        if panel_id not in self.tabs:
            raise ValueError(f"there is no panel {panel_id!r}; the panels are {', '.join(self.tabs)}")
        port = self.port
        previous, self.current = self.current, panel_id
        if panel_id != "share":
            self.work_panel = panel_id
        for pid, tab in self.tabs.items():
            selected = pid == panel_id
            port.set_attr(tab, "aria-selected", "true" if selected else "false")
            port.set_attr(tab, "tabindex", "0" if selected else "-1")
            port.set_hidden(self.sections[pid], not selected)
        if previous and previous != panel_id:
            hide = getattr(self.panels.get(previous), "on_hide", None)
            if hide:
                hide()
        show = getattr(self.panels.get(panel_id), "on_show", None)
        if show:
            show()
        # on a phone the tab bar scrolls sideways: the selected tab must be on screen
        port.scroll_into_view(self.tabs[panel_id])
        if focus:
            port.focus(self.tabs[panel_id])
        self.state.notify("panel")

    def _on_tab_key(self, event: Any) -> None:
        key = self.port.key(event)
        order = list(self.tabs)
        i = order.index(self.current) if self.current in order else 0
        target = {"ArrowRight": (i + 1) % len(order), "ArrowLeft": (i - 1) % len(order),
                  "Home": 0, "End": len(order) - 1}.get(key)
        if target is None:
            return
        self.port.prevent_default(event)
        self.show_panel(order[target], focus=True)

    # --- the context strip ------------------------------------------------------------
    def _on_state(self, topic: str) -> None:
        if topic == "corpus" and not session.in_page(self.state.corpus.text):
            self.port.warm_compute()  # a corpus the worker will train: it boots while the learner looks
        if topic not in ("corpus", "spec", "recording", "progress", "step", "tokenizer", "pending"):
            return
        self.render_header()

    def render_header(self) -> None:
        """The pills say what `state.header()` says (the corpus, the tokenizer in use, the step)."""
        port = self.port
        corpus, spec, step = self.state.header()
        port.set_text(self.ctx_corpus, corpus)
        port.set_text(self.ctx_spec, spec)
        port.set_attr(self.ctx_spec, "title", "The tokenizer Inspect and Compare use (loaded on Files)"
                      if self.state.imported is not None else "The algorithm and its target")
        port.set_text(self.ctx_step, step)

    def show_error(self, exc: BaseException) -> None:
        """Show an error message as is (the core's messages say how to fix the problem)."""
        self.port.set_text(self.error_box, f"{type(exc).__name__}: {exc}")
        self.port.set_hidden(self.error_box, False)

    def teardown(self) -> None:
        self.port.teardown()
