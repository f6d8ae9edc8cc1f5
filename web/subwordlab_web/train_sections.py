"""The Train panel's tables and charts at the current step: the candidates, the merges so
far, the vocabulary, the segmentation of the corpus's most frequent words and the curve
over the run; and their CSV downloads. The panel (train_panel.py) owns the form and the
player and asks this module to draw; the view models are in train_views.py.

Example: ``TrainSections(port, state).render()`` draws what changed since the last call,
one section per browser turn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from subwordlab.base.events import MergeStep

from . import charts, replay_view
from .build import el
from .roving import RovingFocus, roving_tabindex
from .state import AppState
from .tokens import assign_colors, is_byte_level, token_label
from .train_views import (
    candidate_bars,
    current_point,
    curve_of,
    merge_header,
    merge_rows,
    merges_csv,
    segment_words,
    tie_rule,
    vocab_items,
    vocabulary_at,
    vocabulary_csv,
)

HEAVY_RENDER_SECONDS = 0.6  # while a long run is followed, redraw tables and charts this often


class TrainSections:
    """Draws the sections of #panel-train below the player; `visible` is the panel's."""

    def __init__(self, port: Any, state: AppState) -> None:
        self.port, self.state = port, state
        q = port.query
        self.cand_title, self.cand_help = q("#candidates-title"), q("#candidates-help")
        self.cand_chart, self.cand_empty = q("#candidates-chart"), q("#candidates-empty")
        self.seg_rows, self.seg_empty, self.seg_help = q("#segmentation-rows"), q("#segmentation-empty"), q("#segmentation-help")
        self.merges_title, self.merges_help = q("#merges-title"), q("#merges-help")
        self.merges_head, self.merges_rows, self.merges_empty = q("#merges-head"), q("#merges-rows"), q("#merges-empty")
        port.on(q("#merges-csv"), "click", lambda _e: self.download_csv("merges"))
        port.on(q("#vocab-csv"), "click", lambda _e: self.download_csv("vocabulary"))
        self.vocab_count, self.vocab_search = q("#vocab-count"), q("#vocab-search")
        self.vocab_list, self.vocab_more = q("#vocab-list"), q("#vocab-more")
        self.vocab_help = q("#vocab-help")
        self.curve_title, self.curve_help = q("#curve-title"), q("#curve-help")
        self.curve_chart, self.curve_empty = q("#curve-chart"), q("#curve-empty")
        port.on(self.vocab_search, "input", lambda _e: self.vocabulary())
        # one Tab stop each for the chips of the segmentations and the marks of each chart
        RovingFocus(port, self.seg_rows, ".mini-chip")
        RovingFocus(port, self.cand_chart, "[tabindex]")
        RovingFocus(port, self.curve_chart, "[tabindex]")
        self.visible = True
        self._heavy_at = -1.0  # when tables and charts were last drawn
        self._heavy_key: Any = None
        self._draw_task: Any = None
        self._labels: dict[str, str] = {}  # token -> label, for the vocabulary of one recording
        self._labels_for: Any = None

    def invalidate(self) -> None:
        """The next render draws every section again (a new run, the panel shown again)."""
        self._heavy_key = None

    def render(self) -> None:
        """Tables and charts, drawn one section per browser turn (a task), only when what
        they show changed. While a long run is followed, only the candidates and the merges
        are redrawn, at most every HEAVY_RENDER_SECONDS; the rest when it stops."""
        st = self.state
        rec = st.recording
        following = rec is not None and not rec.done and st.player.following
        key = (id(rec), st.player.position, st.player.recorded if following else -1,
               st.corpus_stats is not None, rec.done if rec else None, st.spec)
        if key == self._heavy_key or not self.visible:
            return
        now = self.port.now()
        if following and now - self._heavy_at < HEAVY_RENDER_SECONDS:
            return
        self._heavy_key, self._heavy_at = key, now
        sections = [self.candidates, self.merges]
        if not following:
            sections += [self.vocabulary, self.segmentation, self.curve]
        if self._draw_task is not None and not self._draw_task.done():
            self._draw_task.cancel()
        self._draw_task = self.port.spawn(self._draw(sections))

    async def _draw(self, sections: list[Callable[[], None]]) -> None:
        for i, section in enumerate(sections):
            if i:
                await self.port.sleep(0)
            section()

    def _chart_width(self, node: Any) -> float:
        return self.port.width(node) or 640.0

    def candidates(self) -> None:
        port, st = self.port, self.state
        title, help_text, bars = candidate_bars(st.steps, st.step, st.spec.schema,
                                                tie_break=tie_rule(st.spec.kwargs()))
        port.set_text(self.cand_title, title)
        port.set_text(self.cand_help, help_text)
        if bars:
            port.build_into(self.cand_chart, [charts.bar_chart(bars, self._chart_width(self.cand_chart), title)])
            port.set_hidden(self.cand_empty, True)
            return
        port.clear(self.cand_chart)
        port.set_hidden(self.cand_empty, False)
        port.set_text(self.cand_empty, help_text or ("Train to see which pairs compete at each step." if st.recording is None
                                                     else "No candidates: training made no steps (is the target already reached?)."))
        if help_text:
            port.set_text(self.cand_help, "")

    def download_csv(self, what: str) -> None:
        """The merge table (every step so far) or the vocabulary at this step, as CSV."""
        port, st = self.port, self.state
        tok, why = st.tokenizer_at_step()
        if st.recording is None or tok is None:
            port.set_text(self.merges_help if what == "merges" else self.vocab_help,
                          f"Nothing to download yet: {why or 'train first'}.")
            return
        name = f"subwordlab-{st.spec.preset}-step{st.step}-{what}.csv"
        text = merges_csv(st.steps, st.step, st.spec.schema) if what == "merges" else vocabulary_csv(tok)
        port.download(name, text, "text/csv")

    def merges(self) -> None:
        port, st = self.port, self.state
        preset = st.spec.schema
        header = merge_header(preset, st.steps)
        numeric = ("Step", "Count", "Score", "Vocabulary")
        port.build_into(self.merges_head, [el("th", "num" if h in numeric else None, h, {"scope": "col"}) for h in header])
        port.set_text(self.merges_title, "Training steps so far" if preset.is_unigram else "Merges so far")
        rows = merge_rows(st.steps, st.step, preset)
        port.build_into(self.merges_rows, [
            el("tr", "current" if row.current else None, children=[
                el("td", "num" if name in numeric else ("mono" if name in ("Pair", "New token") else None), text)
                for text, name in zip(row.cells, header)])
            for row in rows])
        port.set_hidden(self.merges_empty, bool(rows))
        port.set_text(self.merges_empty, "Step 0: nothing merged yet." if st.recording is not None else "Not trained yet.")
        shown = len(rows)
        port.set_text(self.merges_help, (f"Steps {st.step - shown + 1:,}–{st.step:,}, newest first" + (
            f" (the last {shown} of {st.step:,})" if st.step > shown else "")) if shown else "")

    def _vocabulary_list(self) -> tuple[list[str], bool, int | None]:
        st = self.state
        rec = st.recording
        if rec is None or rec.alphabet is None:
            return [], False, None
        if st.spec.is_unigram:
            tok, _ = st.tokenizer_at_step()
            return (list(tok.model.vocab) if tok is not None else []), False, None
        vocab = vocabulary_at(rec, st.step)
        newest = None
        if st.step and isinstance(rec.steps[st.step - 1], MergeStep):
            token = rec.steps[st.step - 1].new_token
            newest = len(vocab) - 1 - vocab[::-1].index(token) if token in vocab else None
        return vocab, True, newest

    def vocabulary(self) -> None:
        port, st = self.port, self.state
        vocab, newest_first, newest = self._vocabulary_list()
        if self._labels_for is not st.recording:
            self._labels, self._labels_for = {}, st.recording
        items, matched = vocab_items(vocab, st.spec.schema.byte_level, port.value(self.vocab_search),
                                     newest_first=newest_first, newest_id=newest, labels=self._labels)
        port.set_text(self.vocab_count, f"{len(vocab):,}")
        port.set_text(self.vocab_help, ("Newest first" if newest_first else "By id") + ". Search by token or id."
                      + (" The newest token is highlighted." if newest is not None else ""))
        port.build_into(self.vocab_list, [
            el("li", "vocab-item", attrs={"title": f"id {item.id}: {item.raw!r}", "data-new": "" if item.new else None},
               children=[el("span", "vocab-id", str(item.id)), el("span", "vocab-token", item.label)])
            for item in items])
        more = matched - len(items)
        if matched == 0 and vocab:
            port.set_text(self.vocab_more, "No token matches this search.")
        elif more > 0:
            port.set_text(self.vocab_more, f"…and {more:,} more; search to find them.")
        port.set_hidden(self.vocab_more, not ((matched == 0 and vocab) or more > 0))

    def segmentation(self) -> None:
        port, st = self.port, self.state
        stats = st.corpus_stats
        tok, why = st.tokenizer_at_step()
        if st.recording is None:  # on Train itself: say what to press, not "open Train"
            why = "Not trained yet: press Step, Play or Run to end to see how the tokenizer splits these words."
        rows = []
        if tok is not None and stats is not None and stats.top_words:
            byte_text = st.spec.schema.byte_level and st.corpus.format == "text"
            port.set_text(self.seg_help, replay_view.segmentation_help(st) if replay_view.is_replay(st.recording) else
                          "How the tokenizer at this step splits the corpus's most frequent words"
                          + (" (byte-level: as they appear mid-sentence, after a space ·)." if byte_text else "."))
            byte_level = is_byte_level(tok)
            n_chips = 0  # every chip of the table is one group: one Tab stop, arrows inside
            for shown, text, count in segment_words(stats.top_words, byte_text):
                try:
                    enc = tok.encode_full(text)
                    ids, tokens, chips = enc.ids, enc.tokens, []
                    for token_id, token, color in zip(ids, tokens, assign_colors(ids)):
                        label = token_label(token, byte_level)
                        chips.append(el("span", "mini-chip", label,
                                        {"data-color": color, "title": f"id {token_id}", "role": "img",
                                         "aria-label": f"{label} in {shown}: id {token_id}",
                                         "tabindex": roving_tabindex(n_chips)}))
                        n_chips += 1
                except ValueError as exc:  # e.g. a character the vocabulary lacks, without unk
                    ids, chips = [], [el("span", "seg-error", str(exc))]
                rows.append(el("tr", children=[el("td", "mono", shown), el("td", "num", f"{count:,}"),
                                               el("td", None, children=[el("div", "seg-cell", children=chips)]),
                                               el("td", "num", str(len(ids)))]))
        port.build_into(self.seg_rows, rows)
        port.set_hidden(self.seg_empty, bool(rows))
        if not rows:
            port.set_text(self.seg_empty, why or ("Counting the corpus's words…" if stats is None else "The corpus has no words."))

    def curve(self) -> None:
        port, st = self.port, self.state
        curve = curve_of(st.steps, st.spec.schema)
        port.set_text(self.curve_title, curve.title)
        if len(curve.xs) < 2:
            port.clear(self.curve_chart)
            port.set_hidden(self.curve_empty, False)
            port.set_text(self.curve_empty, replay_view.CURVE_UNKNOWN if replay_view.is_replay(st.recording)
                          else "The curve appears once training has made a few steps.")
            port.set_text(self.curve_help, "")
            return
        port.set_hidden(self.curve_empty, True)
        port.set_text(self.curve_help, "Over the whole run; the marker is the current step. Hover or focus a dot for its numbers.")
        log_y = curve.y_label == "count" and charts.wants_log_scale(curve.ys)
        spec = charts.line_chart(curve.xs, curve.ys, curve.detail, self._chart_width(self.curve_chart), 250,
                                 f"{curve.title} over the run", curve.x_label, curve.y_label,
                                 current_point(curve.at, st.step), log_y=log_y,
                                 x_end=len(st.steps))  # the axis ends at the run's last step
        port.build_into(self.curve_chart, [spec])
