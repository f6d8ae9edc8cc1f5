"""Embed mode as a course author shapes it: cards, lock, auto-height, and "Back to the
author's setup". The query is parsed by embed.py; `SharePanel.enter_embed` makes one
`EmbedView`, and `SharePanel._applied` calls `remember()` once the embed's experiment is set.

- ``cards=player,candidates``: every other card of the shown panel gets ``data-card-off``
  (app.css hides it in embed mode), and a grid that lost a card becomes one column
  (``data-cards-trimmed``), so what is left uses the iframe's width.
- ``lock=1``: every ``.lock-scope`` fieldset (index.html: the Algorithm form, Compare's
  setup, Inspect's knobs) is disabled, which disables each control inside it, including
  controls a panel re-creates later; the player, the scrubber and the text boxes stay live.
- Auto-height: the page posts ``{type: "subwordlab:height", height: px}`` to its parent each
  time its content height changes (`port.watch_height`), and the same as Canvas's
  ``lti.frameResize``; the snippet's script listens.
- ``api=ORIGIN``: events out to that page and its commands in (host_api.py).
- The author's setup: what the embed showed when its experiment was applied (corpus,
  algorithm, step, the inspector's settings, the Compare setup). As soon as the learner
  changes any of it (a state change, or an edit in a field) the "↺ Back to the author's
  setup" button appears; it restores that setup in place: no reload, and no retraining when
  the corpus and algorithm are unchanged (the recorded run is reused, only the step moves).

>>> Setup(corpus="c", spec="s", step=3, inspect="i", compare=None).differs(
...     Setup(corpus="c", spec="s", step=4, inspect="i", compare=None))
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .embed import DEFAULT_PANEL, HEIGHT_MESSAGE, EmbedParams
from .host_api import HostBridge, lti_resize


@dataclass(frozen=True)
class Setup:
    """What "Back to the author's setup" restores (and compares to see whether anything changed)."""

    corpus: Any  # state.Corpus
    spec: Any  # state.TrainSpec
    step: int | None  # None: nothing was trained
    inspect: Any  # state.InspectSettings
    compare: Any  # ComparePanel.setup(), or None without a Compare panel

    def differs(self, other: Setup) -> bool:
        return self != other


class EmbedView:
    """Applies ``cards=`` and ``lock=1`` to the page, posts its height, offers the restore."""

    def __init__(self, port: Any, state: Any, app: Any, share_panel: Any, params: EmbedParams) -> None:
        self.port, self.state, self.app, self.share_panel = port, state, app, share_panel
        self.params = params
        self.body = port.query("body")
        self.restore_button = port.query("#embed-restore")
        self.author: Setup | None = None  # set by remember()
        self.task: Any = None
        self.last_height: int | None = None
        self.apply_cards(params.panel or DEFAULT_PANEL, params.cards)
        if params.lock:
            self.apply_lock()
        port.watch_height(self._on_height)
        # api=ORIGIN: the embedding page follows the learner and steers the widget (host_api.py)
        self.bridge = HostBridge(port, state, app, self, params.api) if params.api else None
        port.on(self.restore_button, "click", lambda _e: self.restore())
        # an edit in any field counts as a change, even one the state does not hold (the Compare text)
        main = port.query("#app")
        port.on(main, "input", lambda _e: self.refresh())
        port.on(main, "change", lambda _e: self.refresh())
        state.subscribe(lambda _topic: self.refresh())

    # --- cards and lock -------------------------------------------------------------------------
    def apply_cards(self, panel: str, cards: tuple[str, ...] | None) -> None:
        """Hide the cards of `panel` that `cards` does not name (None: show them all)."""
        port = self.port
        section = port.query(f"section[data-panel={panel}]")
        for card in port.query_all("[data-card]", section):
            off = cards is not None and port.get_attr(card, "data-card") not in cards
            if off:
                port.set_attr(card, "data-card-off", "")
                grid = port.closest(card, ".grid")
                if grid is not None:
                    port.set_attr(grid, "data-cards-trimmed", "")
            else:
                port.remove_attr(card, "data-card-off")

    def apply_lock(self) -> None:
        """Make the settings read-only: disable every lock scope, say so in the embed's bar."""
        port = self.port
        for scope in port.query_all(".lock-scope"):
            port.set_disabled(scope, True)
        port.set_attr(self.body, "data-locked", "1")
        port.set_hidden(port.query("#embed-locked"), False)

    # --- auto-height ------------------------------------------------------------------------------
    def _on_height(self, height: int) -> None:
        if height > 0 and height != self.last_height:
            self.last_height = height
            self.port.post_to_parent({"type": HEIGHT_MESSAGE, "height": height})
            self.port.post_to_parent(lti_resize(height))  # (the same, as Canvas and other LMSs read it)

    # --- the author's setup ------------------------------------------------------------------------
    def current(self) -> Setup:
        st = self.state
        cmp = self.app.panels.get("compare") if self.app is not None else None
        return Setup(corpus=st.corpus, spec=st.spec, step=st.step if st.recording is not None else None,
                     inspect=st.inspect, compare=cmp.setup() if cmp is not None else None)

    def remember(self) -> None:
        """The embed's experiment is applied: this is the author's setup (once; a later link
        applied in the same page does not replace it)."""
        if self.author is None:
            self.author = self.current()
        self.refresh()
        if self.bridge is not None:
            self.bridge.announce_ready()

    def refresh(self) -> None:
        """Show the restore button while the page differs from the author's setup."""
        if self.author is None or self.restoring:
            return
        changed = self.author.differs(self.current())
        self.port.set_hidden(self.restore_button, not changed)

    @property
    def restoring(self) -> bool:
        return self.task is not None and not self.task.done()

    def restore(self) -> Any:
        if self.author is None or self.restoring:
            return None
        self.task = self.port.spawn(self._restore(self.author))
        return self.task

    async def _restore(self, author: Setup) -> None:
        """Put the author's setup back: corpus, algorithm, inspector, Compare, then the step
        (retraining only if the corpus or the algorithm changed)."""
        port, st, app = self.port, self.state, self.app
        st.player.pause()
        if st.corpus != author.corpus:
            st.set_corpus(author.corpus)
        st.set_spec(author.spec)
        if st.inspect != author.inspect:
            st.set_inspect(**asdict(author.inspect))
        cmp = app.panels.get("compare") if app is not None else None
        if cmp is not None:
            now = cmp.setup()
            if author.compare is not None and now != author.compare:
                cmp.apply_setup(*author.compare)
                # (configurations, text, parity reference, held-out text): redo what differs
                # (the configurations, or the other columns: the current tokenizer, a well-known one)
                if (now[0], now[4:]) != (author.compare[0], author.compare[4:]) and cmp.run_state is not None:
                    await cmp.run()  # other configurations: train them again
                else:
                    if now[1] != author.compare[1]:
                        cmp.on_text_edited()
                    if now[2] != author.compare[2]:
                        cmp.render_parity()
                    if now[3] != author.compare[3]:
                        cmp.schedule_curves(0.0)
        if author.step is not None:
            if st.recording is None or not st.recording.done:
                await self.share_panel._train_and_seek(author.step)
            else:
                st.seek(author.step)
                st.notify("step")
        port.set_hidden(self.restore_button, True)
        self.task = None
        self.refresh()
