"""The Train panel: the algorithm and its options, the player (step, back, play/pause,
run to end, reset, scrub), a progress bar with cancel, and what training looks like at the
current step: candidates, merges so far, vocabulary, the most frequent words' segmentation,
and a curve over the whole run (merge counts, WordPiece scores, Unigram log-likelihood).

The view models (`merge_rows`, `vocabulary_at`, `candidate_bars`, `now_text`, ...) are pure
functions of the recording and are tested on CPython; the view only draws them.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import subwordlab
from subwordlab.events import EmStep, MergeStep, PruneStep
from subwordlab.options import Preset

from . import charts, tasks
from .build import el
from .options_form import changed_options, option_field, preset_items, read_field, schema
from .player import SPEEDS
from .roving import RovingFocus, roving_tabindex
from .state import AppState, TrainingStatus, TrainSpec
from .tokens import assign_colors, is_byte_level, token_label, visible
from .wording import plural

AUTO_TRAIN_CHARS = 200_000  # smaller corpora train as soon as they (or the settings) change
AUTO_TRAIN_DELAY = 0.25  # seconds of quiet before an automatic run (typing)
MERGE_ROWS = 40  # merges table: this many rows up to the current step
VOCAB_ITEMS = 160
SEGMENT_WORDS = 12
CANDIDATE_BARS = 12
HEAVY_RENDER_SECONDS = 0.6  # while a long run is followed, redraw tables and charts this often


# --- view models (pure) --------------------------------------------------------------
def pair_label(pair: Sequence[str], byte_level: bool) -> str:
    """Example: ('e', 's') -> 'e + s'."""
    return f"{token_label(pair[0], byte_level)} + {token_label(pair[1], byte_level)}"


@dataclass(frozen=True)
class Row:
    cells: tuple[str, ...]
    current: bool = False


def merge_header(preset: str | Preset) -> tuple[str, ...]:
    preset = schema(preset)
    if preset.is_unigram:
        return ("Step", "What happened", "Vocabulary")
    if preset.family == "wordpiece":
        return ("Step", "Pair", "Count", "Score", "New token")
    return ("Step", "Pair", "Count", "New token")


def merge_rows(steps: Sequence[Any], position: int, preset: str | Preset, limit: int = MERGE_ROWS) -> list[Row]:
    """The table rows of steps 1..position, the newest (current) first, at most `limit`."""
    preset = schema(preset)
    byte_level = preset.byte_level
    rows = []
    for k in range(position, max(0, position - limit), -1):
        e = steps[k - 1]
        if isinstance(e, MergeStep):
            cells = [f"{k:,}", pair_label(e.pair, byte_level), f"{e.count:,}"]
            if preset.family == "wordpiece":
                cells.append(charts.short_number(e.score) if e.score is not None else "–")
            cells.append(token_label(e.new_token, byte_level))
        else:
            cells = [f"{k:,}", unigram_event_text(e), f"{e.vocab_size:,}"]
        rows.append(Row(tuple(cells), current=k == position))
    return rows


def csv_text(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Rows as CSV (RFC 4180, quoted where needed), for slides and spreadsheets.

    Example: csv_text(("a", "b"), [(1, "x,y")]) -> 'a,b\\r\\n1,"x,y"\\r\\n'
    """
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def merges_csv(steps: Sequence[Any], position: int, preset: str | Preset) -> str:
    """Every step up to `position`, oldest first, as the merge table shows it."""
    rows = merge_rows(steps, position, preset, limit=max(1, position))
    return csv_text(merge_header(preset), [r.cells for r in reversed(rows)])


def vocabulary_csv(tokenizer: Any) -> str:
    """id, the token as stored, and as a chip shows it (white space and bytes visible)."""
    byte_level = is_byte_level(tokenizer)
    vocab = tokenizer.model.vocab
    return csv_text(("id", "token", "shown as"), [(i, t, token_label(t, byte_level)) for i, t in enumerate(vocab)])


def unigram_event_text(e: Any) -> str:
    if isinstance(e, EmStep):
        return f"EM round {e.round + 1}, iteration {e.iteration + 1}: log-likelihood {charts.short_number(e.log_likelihood)}"
    if isinstance(e, PruneStep):
        return f"Pruning round {e.round + 1}: {plural(len(e.dropped), 'piece')} dropped"
    return type(e).__name__


def vocabulary_at(recording: Any, position: int) -> list[str]:
    """The vocabulary (by id) after `position` merges, from the events alone (BPE, WordPiece):
    the starting alphabet, then each merge's new token (a merge whose token already
    existed adds none)."""
    vocab = list(recording.alphabet.alphabet)
    for e in recording.steps[:position]:
        if isinstance(e, MergeStep) and e.vocab_size > len(vocab):
            vocab.append(e.new_token)
    return vocab


@dataclass(frozen=True)
class VocabItem:
    id: int
    label: str
    raw: str
    new: bool  # made by the current step


def vocab_items(vocab: Sequence[str], byte_level: bool, query: str = "", newest_first: bool = True,
                newest_id: int | None = None, limit: int = VOCAB_ITEMS,
                labels: dict[str, str] | None = None) -> tuple[list[VocabItem], int]:
    """The vocabulary list to show (filtered by `query`: a substring of the token as shown
    or as stored, or an id) and how many items match in all. `labels` caches token_label."""
    labels = {} if labels is None else labels

    def label_of(raw: str) -> str:
        got = labels.get(raw)
        if got is None:
            got = labels[raw] = token_label(raw, byte_level)
        return got

    q = query.strip()
    ids = range(len(vocab) - 1, -1, -1) if newest_first else range(len(vocab))
    if not q:
        # subtle: no filter: only the shown tokens need a label
        shown = list(ids)[:limit]
        return [VocabItem(i, label_of(vocab[i]), vocab[i], new=i == newest_id) for i in shown], len(vocab)
    q_fold = q.casefold()
    out, matched = [], 0
    for i in ids:
        raw = vocab[i]
        label = label_of(raw)
        if not (q_fold in label.casefold() or q_fold in raw.casefold() or q == str(i)):
            continue
        matched += 1
        if len(out) < limit:
            out.append(VocabItem(i, label, raw, new=i == newest_id))
    return out, matched


TIE_RULES = {"first": "the pair met first in the corpus wins", "lex_min": "the alphabetically smallest pair wins",
             "lex_max": "the alphabetically largest pair wins"}


def tie_note(values: Sequence[float], tie_break: str = "first", what: str = "pairs") -> str:
    """The sentence about a tie at the top (values best first), or "".

    Example: tie_note([6, 6, 6, 6, 5]) -> '4 pairs tie at 6: the pair met first in the corpus wins.'
    """
    if len(values) < 2 or values[1] != values[0]:
        return ""
    n = sum(1 for v in values if v == values[0])
    at_least = "at least " if n == len(values) else ""  # more may tie below the shown ones
    return f"{at_least.capitalize()}{n} {what} tie at {charts.short_number(values[0])}: {TIE_RULES.get(tie_break, TIE_RULES['first'])}."


def _with_ties(bars: list[charts.Bar]) -> list[charts.Bar]:
    """Mark the bars that tie with the chosen one."""
    top = next((b.value for b in bars if b.chosen), None)
    return [charts.Bar(b.label, b.value, b.detail + (" (tied with the winner)" if not b.chosen and b.value == top else ""),
                       b.chosen, b.value_text, tie=not b.chosen and b.value == top) for b in bars]


def candidate_bars(steps: Sequence[Any], position: int, preset: str | Preset, limit: int = CANDIDATE_BARS,
                   tie_break: str = "first") -> tuple[str, str, list[charts.Bar]]:
    """(title, help, bars) for the candidates chart at `position`.

    BPE/WordPiece: the pairs that competed for merge `position` (for merge 1 at step 0),
    the chosen one marked, and any tie at the top named with its tie-break rule. Unigram:
    the pieces dropped by the latest pruning round.
    """
    if not steps:
        return "Candidates", "", []
    preset = schema(preset)
    byte_level = preset.byte_level
    if preset.is_unigram:
        prune = next((e for e in reversed(steps[:position]) if isinstance(e, PruneStep)), None)
        if prune is None:
            return ("Pieces pruned", "No pruning yet: EM first re-estimates the seed pieces' probabilities. "
                    "Step on to the first pruning round.", [])
        bars = [charts.Bar(token_label(p, byte_level=False), loss,
                           f"{visible(p)}: removing it loses {charts.short_number(loss)} of log-likelihood")
                for p, loss in prune.dropped[:limit]]
        more = len(prune.dropped) - len(bars)
        return (f"Pieces pruned in round {prune.round + 1}",
                "The least useful pieces, by how much corpus log-likelihood is lost without them"
                + (f" (the first {len(bars)} of {len(prune.dropped):,})." if more > 0 else "."), bars)
    k = max(1, position)
    e = steps[k - 1]
    before = "Before merge 1: the pairs competing" if position == 0 else f"Merge {k:,}: the winner and its competitors"
    bars = []
    if preset.family == "wordpiece" and e.score is not None:  # scoring="frequency" ranks by count, as BPE
        for pair, count, score in e.candidates[:limit]:
            chosen = pair == e.pair
            detail = f"{pair_label(pair, False)}: score {charts.short_number(score)}, count {count:,}"
            if chosen and e.part_counts:
                detail += f" = {count:,} / ({e.part_counts[0]:,} × {e.part_counts[1]:,})"
            bars.append(charts.Bar(pair_label(pair, False), score, detail + (" (chosen)" if chosen else ""), chosen,
                                   f"{charts.short_number(score)} · n={count:,}"))
        ties = tie_note([score for _, _, score in e.candidates], tie_break)
        return (before, "WordPiece picks the highest score count(ab) / (count(a) × count(b)), not the highest count."
                + (" " + ties if ties else ""), _with_ties(bars))
    for pair, count in e.candidates[:limit]:
        chosen = tuple(pair) == tuple(e.pair)
        label = pair_label(pair, byte_level)
        bars.append(charts.Bar(label, count, f"{label}: count {count:,}" + (" (chosen)" if chosen else ""), chosen))
    ties = tie_note([count for _, count in e.candidates], tie_break)
    how = ("WordPiece scoring 'frequency' (as HF tokenizers trains it) picks the most frequent pair, not the highest "
           "count(ab) / (count(a) × count(b)). " if preset.family == "wordpiece" else "")
    return (before, how + "The most frequent adjacent pairs (counts weighted by word frequency); the winner is starred."
            + (" " + ties if ties else ""), _with_ties(bars))


def now_text(recording: Any, position: int, preset: str | Preset) -> tuple[str, str]:
    """(kicker, main line) describing the current step."""
    if recording is None or recording.alphabet is None:
        return "", ""
    preset = schema(preset)
    byte_level = preset.byte_level
    if position == 0:
        n = recording.alphabet.vocab_size
        what = "pieces in the seed vocabulary" if preset.is_unigram else "symbols"
        return "Step 0 · the starting vocabulary", f"{n:,} {what}, from {recording.alphabet.distinct_words:,} distinct words"
    e = recording.steps[position - 1]
    if isinstance(e, MergeStep):
        main = f"{token_label(e.pair[0], byte_level)}  +  {token_label(e.pair[1], byte_level)}  →  {token_label(e.new_token, byte_level)}"
        tail = f"count {e.count:,}" + (f" · score {charts.short_number(e.score)}" if e.score is not None else "")
        return f"Merge {position:,} · {tail} · vocabulary {e.vocab_size:,}", main
    return f"Step {position:,} · vocabulary {e.vocab_size:,}", unigram_event_text(e)


@dataclass(frozen=True)
class Curve:
    title: str
    x_label: str
    y_label: str
    xs: list[float]
    ys: list[float]
    at: list[int]  # the step of each point
    detail: Callable[[int], str]  # the numbers of point i (computed only for the points shown)


def curve_of(steps: Sequence[Any], preset: str | Preset) -> Curve:
    """The whole-run curve: Unigram's log-likelihood after each EM iteration, WordPiece's
    score of each merge, BPE's count of each merge."""
    preset = schema(preset)
    if preset.is_unigram:
        em = [(k, e) for k, e in enumerate(steps, 1) if isinstance(e, EmStep)]
        return Curve("Corpus log-likelihood", "step", "log-likelihood", [k for k, _ in em],
                     [e.log_likelihood for _, e in em], [k for k, _ in em],
                     lambda i: (f"step {em[i][0]}: EM round {em[i][1].round + 1}.{em[i][1].iteration + 1}, log-likelihood "
                                f"{charts.short_number(em[i][1].log_likelihood)}, vocabulary {em[i][1].vocab_size:,}"))
    at = list(range(1, len(steps) + 1))
    if preset.family == "wordpiece" and steps and steps[0].score is not None:
        return Curve("Score of each merge", "merge", "score", at, [e.score or 0.0 for e in steps], at,
                     lambda i: (f"merge {i + 1}: {pair_label(steps[i].pair, False)} score "
                                f"{charts.short_number(steps[i].score or 0.0)}, count {steps[i].count:,}"))
    byte_level = preset.byte_level
    return Curve("Count of each merge", "merge", "count", at, [e.count for e in steps], at,
                 lambda i: f"merge {i + 1}: {pair_label(steps[i].pair, byte_level)} count {steps[i].count:,}")


def rate_text(steps_per_second: float, recorded: int) -> str:
    """The speed shown during a run, once it means something (two steps, at least one a
    second). Example: (12.4, 30) -> '12 steps/s'; (0.3, 1) -> ''."""
    if recorded < 2 or steps_per_second < 1:
        return ""
    return f"{steps_per_second:,.0f} {plural(round(steps_per_second), 'step', number=False)}/s"


def current_point(at: Sequence[int], position: int) -> int | None:
    """Index of the last point at or before `position`. Example: ([2, 4, 6], 5) -> 1."""
    best = None
    for i, k in enumerate(at):
        if k <= position:
            best = i
        else:
            break
    return best


def segment_words(top_words: Sequence[tuple[str, int]], byte_level_text: bool) -> list[tuple[str, str, int]]:
    """(shown word, text to tokenize, count): byte-level running text tokenizes words as
    they appear mid-sentence, with their leading space."""
    return [(w, (" " + w) if byte_level_text else w, n) for w, n in top_words[:SEGMENT_WORDS]]


# --- the view ------------------------------------------------------------------------
class TrainPanel:
    id = "train"

    def __init__(self, port: Any, state: AppState, app: Any = None) -> None:
        self.port, self.state, self.app = port, state, app
        q = port.query
        self.root = q("#panel-train")
        self.form = q("#train-form")
        self.corpus_line = q("#train-corpus-line")
        self.preset = q("#train-preset")
        self.target_vocab = q("#train-target-vocab")
        self.target_merges = q("#train-target-merges")
        self.size = q("#train-size")
        self.target_help = q("#train-target-help")
        self.preset_help = q("#train-preset-help")
        self.options = q("#train-options")
        self.options_note = q("#train-options-note")
        self.form_error = q("#train-form-error")
        self.status = q("#train-status")
        self.b_reset, self.b_back, self.b_play = q("#train-reset"), q("#train-back"), q("#train-play")
        self.b_step, self.b_end, self.speed = q("#train-step"), q("#train-end"), q("#train-speed")
        self.scrubber, self.step_now, self.step_total = q("#train-scrubber"), q("#train-step-now"), q("#train-step-total")
        self.progress, self.progress_fill = q("#train-progress"), q("#train-progress-fill")
        self.progress_bar, self.progress_label = q("#train-progress-bar"), q("#train-progress-label")
        self.rate, self.cancel = q("#train-rate"), q("#train-cancel")
        self.error = q("#train-error")
        self.resume, self.resume_text, self.resume_run = q("#train-resume"), q("#train-resume-text"), q("#train-resume-run")
        self.now_kicker, self.now_main = q("#train-now-kicker"), q("#train-now-main")
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
        port.clone_template("tpl-option")
        # one Tab stop each for the chips of the segmentations and the marks of each chart
        RovingFocus(port, self.seg_rows, ".mini-chip")
        RovingFocus(port, self.cand_chart, "[tabindex]")
        RovingFocus(port, self.curve_chart, "[tabindex]")

        self.train_task: Any = None
        self.play_task: Any = None
        self.auto_task: Any = None
        self.pending_step = False
        self._form_busy = False  # the form is the source of the change: do not rebuild it
        self._heavy_at = -1.0  # when tables and charts were last drawn
        self._heavy_key: Any = None
        self._draw_task: Any = None
        self._labels: dict[str, str] = {}  # token -> label, for the vocabulary of one recording
        self._labels_for: Any = None
        self.visible = True

        for name, title in preset_items(lambda p: p.title):
            option = port.create("option", text=title)
            port.set_attr(option, "value", name)
            port.append(self.preset, option)
        for speed in SPEEDS:
            option = port.create("option", text=f"{speed:g} step{'s' if speed != 1 else ''}/s")
            port.set_attr(option, "value", f"{speed:g}")
            port.append(self.speed, option)
        port.set_value(self.speed, f"{state.player.speed:g}")

        port.on(self.preset, "change", self._on_preset)
        port.on(self.target_vocab, "change", self._on_form)
        port.on(self.target_merges, "change", self._on_form)
        port.on(self.size, "change", self._on_form)
        port.on(self.form, "submit", self._on_submit)
        port.on(self.b_reset, "click", lambda _e: self._move(state.player.reset()))
        port.on(self.b_back, "click", lambda _e: self._move(state.player.back()))
        port.on(self.b_step, "click", self._on_step)
        port.on(self.b_play, "click", self._on_play)
        port.on(self.b_end, "click", self._on_end)
        port.on(self.scrubber, "input", self._on_scrub)
        port.on(self.speed, "change", self._on_speed)
        port.on(self.cancel, "click", self._on_cancel)
        port.on(self.resume_run, "click", self._on_rerun)
        port.on(self.vocab_search, "input", lambda _e: self._render_vocab())
        state.subscribe(self._on_state)
        self._build_options()

    # --- state changes --------------------------------------------------------------
    def _on_state(self, topic: str) -> None:
        if topic == "spec":
            if not self._form_busy:
                self._build_options()
        elif topic == "recording":
            if self.state.recording is None and self.train_task is not None and not self.train_task.done():
                self.train_task.cancel()  # its run was discarded
            if self.state.recording is not None:
                self.port.set_hidden(self.resume, True)  # a run started: the offer is answered
            self._heavy_key = None
            self.render()
            self._maybe_auto_train()
        elif topic in ("progress", "step", "stats", "corpus", "pending"):
            self.render()

    def _move(self, moved: bool) -> None:
        self.state.notify("step")

    # --- the form -------------------------------------------------------------------
    def _build_options(self) -> None:
        port, spec = self.port, self.state.spec
        port.set_value(self.preset, spec.preset)
        port.set_text(self.preset_help, spec.schema.help)
        port.set_checked(self.target_vocab if spec.target == "vocab_size" else self.target_merges, True)
        port.set_disabled(self.target_merges, spec.is_unigram)
        port.set_value(self.size, str(spec.size))
        fields = []
        for option in spec.schema.form_options():
            name = option.name
            row = port.clone_template("tpl-option")
            label = port.query(".option-label", row)
            port.set_text(port.query(".option-name", row), name)
            port.set_text(port.query(".option-help", row), option.help)
            field = option_field(port, option, spec.options.get(name, option.default), f"opt-{name}")
            port.append(label, field)
            port.set_attr(row, "data-option", name)
            port.on(field, "change", self._on_form)
            fields.append(row)
        port.replace_children(self.options, fields)
        n = len(spec.options)
        port.set_text(self.options_note, f"({n} changed)" if n else "(the core's defaults)")
        port.set_text(self.target_help, "Unigram prunes a big seed vocabulary down to this size."
                      if spec.is_unigram else "The vocabulary counts every token: base symbols, special tokens and merges.")
        port.set_hidden(self.form_error, True)

    def read_form(self) -> TrainSpec:
        """The spec the form describes; ValueError naming the field if it is not valid."""
        port = self.port
        preset = port.value(self.preset)
        target = "vocab_size" if port.checked(self.target_vocab) else "num_merges"
        raw = port.value(self.size).strip()
        if not raw.isdigit():
            raise ValueError(f"the target must be a whole number, not {raw!r}")
        values = {}
        preset_schema = schema(preset)
        for row in port.query_all("#train-options .option"):
            name = port.get_attr(row, "data-option")
            values[name] = read_field(port, preset_schema.option(name), port.query(f"#opt-{name}", row))
        return TrainSpec(preset, target, int(raw), changed_options(preset, values))

    def _on_preset(self, _event: Any) -> None:
        spec = self.state.spec.with_preset(self.port.value(self.preset))
        self.state.set_spec(spec)

    def _on_form(self, _event: Any) -> None:
        try:
            spec = self.read_form()
        except ValueError as exc:
            self.port.set_text(self.form_error, str(exc))
            self.port.set_hidden(self.form_error, False)
            return
        self.port.set_hidden(self.form_error, True)
        self._form_busy = True
        try:
            self.state.set_spec(spec)
        finally:
            self._form_busy = False
        self.port.set_text(self.options_note, f"({len(spec.options)} changed)" if spec.options else "(the core's defaults)")

    def _on_submit(self, event: Any) -> None:
        self.port.prevent_default(event)
        self._on_form(event)

    # --- training -------------------------------------------------------------------
    def _small_corpus(self) -> bool:
        c = self.state.corpus
        return c.format == "word_counts" or len(c.text) <= AUTO_TRAIN_CHARS

    def _maybe_auto_train(self) -> None:
        st = self.state
        if st.recording is not None or st.training.phase in ("cancelled", "failed") or st.corpus.is_empty:
            if self.auto_task is not None:
                self.auto_task.cancel()
                self.auto_task = None
            return
        if self.auto_task is not None:
            self.auto_task.cancel()
            self.auto_task = None
        if self._small_corpus():
            self.auto_task = self.port.spawn(self._auto_train())

    async def _auto_train(self) -> None:
        await self.port.sleep(AUTO_TRAIN_DELAY)
        self.auto_task = None
        st = self.state
        # subtle: a tokenizer imported on the Files tab stays current until the user trains
        if (st.recording is None and st.training.phase not in ("cancelled", "failed") and self._small_corpus()
                and getattr(st, "imported", None) is None):
            self.start_training()

    def start_training(self) -> bool:
        """Start recording a run of the current corpus and spec; False (with a message) if
        the core refuses them."""
        st = self.state
        if self.train_task is not None and not self.train_task.done():
            self.train_task.cancel()
        try:
            st.start_recording()
        except Exception as exc:  # noqa: BLE001 - CorpusError and bad options (messages for the user), or anything else
            st.recording = None
            st.training = TrainingStatus(phase="failed", message=tasks.failure_message(exc))
            st.notify("recording")
            return False
        self.train_task = self.port.spawn(tasks.train(self.port, st, st.recording))
        return True

    def _ensure_training(self) -> bool:
        if self.state.recording is not None:
            return True
        if self.auto_task is not None:
            self.auto_task.cancel()
            self.auto_task = None
        return self.start_training()

    def _on_step(self, _event: Any) -> None:
        if not self._ensure_training():
            return
        player = self.state.player
        player.pause()
        if not player.step() and not player.final:
            self.pending_step = True  # the first steps are still being recorded
        self.state.notify("step")

    def _on_play(self, _event: Any) -> None:
        player = self.state.player
        if player.playing:
            player.pause()
            self.state.notify("step")
            return
        if not self._ensure_training():
            return
        player.play()
        if self.play_task is None or self.play_task.done():
            self.play_task = self.port.spawn(self._play_loop())
        self.state.notify("step")

    async def _play_loop(self) -> None:
        port, player = self.port, self.state.player
        last = port.now()
        while player.playing:
            await port.sleep(player.interval)
            now = port.now()
            moved = player.advance_time(now - last)
            last = now
            if moved or not player.playing:
                self.state.notify("step")

    def _on_end(self, _event: Any) -> None:
        if not self._ensure_training():
            return
        self.state.player.to_end()
        self.state.notify("step")

    def _on_scrub(self, _event: Any) -> None:
        raw = self.port.value(self.scrubber)
        self.state.player.pause()
        self.state.seek(int(float(raw or 0)))
        self.render()

    def _on_speed(self, _event: Any) -> None:
        self.state.player.set_speed(float(self.port.value(self.speed)))

    def offer_rerun(self, step: int | None = None) -> None:
        """After a reload during a run: the settings are back; say so and offer to run again
        (a long run never restarts by itself). `step`: where the run had got to."""
        st = self.state
        where = f" (it had got to step {step:,})" if step else ""
        self.port.set_text(self.resume_text, f"The page was reloaded while {st.spec.describe()} was training on "
                           f"“{st.corpus.name}”{where}. The settings are restored; the run was not.")
        self.port.set_hidden(self.resume, False)

    def _on_rerun(self, _event: Any) -> None:
        self.port.set_hidden(self.resume, True)
        self._on_end(_event)

    def _on_cancel(self, _event: Any) -> None:
        if self.train_task is not None and not self.train_task.done():
            self.train_task.cancel()
            self.state.player.pause()

    # --- drawing --------------------------------------------------------------------
    def on_show(self) -> None:
        self.visible = True
        self._heavy_key = None
        self.render()

    def on_hide(self) -> None:
        self.visible = False

    def render(self) -> None:
        st, port = self.state, self.port
        rec, player, status = st.recording, st.player, st.training
        if self.pending_step and player.recorded > player.position:
            self.pending_step = False
            player.step()
        port.set_attr(self.root, "data-status", status.phase)
        port.set_text(self.corpus_line, f"Corpus: {st.corpus_pending or st.corpus.name} · "
                      f"{plural(len(st.corpus.text), 'character')}"
                      + (" (word counts)" if st.corpus.format == "word_counts" else ""))
        # controls
        port.set_disabled(self.b_back, player.position == 0)
        port.set_disabled(self.b_reset, player.position == 0)
        port.set_disabled(self.b_step, player.at_end)
        port.set_attr(self.b_play, "aria-pressed", "true" if player.playing else "false")
        port.set_text(port.query(".play-text", self.b_play), "Pause" if player.playing else "Play")
        port.set_text(port.query(".play-icon", self.b_play), "⏸" if player.playing else "▶")
        port.set_attr(self.scrubber, "max", str(player.recorded))
        port.set_value(self.scrubber, str(player.position))
        port.set_disabled(self.scrubber, player.recorded == 0)
        port.set_text(self.step_now, f"{player.position:,}")
        # subtle: the same words as the header's step pill (state.step_text), never "1 of 1…"
        port.set_text(self.step_total, f"{player.recorded:,}" + ("" if player.final or rec is None else " so far"))
        # status, progress, errors
        port.set_text(self.status, self._status_text())
        running = status.running
        port.set_hidden(self.progress, not running)
        if running and rec is not None:
            view = tasks.progress_view(rec, st.spec)
            pct = 100 * view.fraction if view.fraction is not None else 0
            port.set_style(self.progress_fill, "width", f"{pct:.1f}%")
            port.toggle_class(self.progress, "indeterminate", view.fraction is None)
            if view.fraction is not None:
                port.set_attr(self.progress_bar, "aria-valuenow", f"{pct:.0f}")
            port.set_text(self.progress_label, view.label)
            port.set_text(self.rate, rate_text(status.steps_per_second, player.recorded))
        port.set_hidden(self.error, status.phase != "failed")
        if status.phase == "failed":
            port.set_text(self.error, status.message)
        kicker, main = now_text(rec, player.position, st.spec.schema)
        if rec is None:
            kicker, main = "Not trained yet", ("Press Step, Play or Run to end to train " + st.spec.describe() + ".")
        port.set_text(self.now_kicker, kicker)
        port.set_text(self.now_main, main)
        self._render_heavy()

    def _status_text(self) -> str:
        st = self.state
        rec, status = st.recording, st.training
        if status.phase in ("cancelled", "failed"):
            return status.message if status.phase == "cancelled" else "Training could not start."
        if rec is None:
            return f"{st.spec.describe()} · not trained yet" + (
                f" · Inspect and Compare use {st.imported_name} (loaded on Files)" if st.imported is not None else "")
        if rec.done:
            short = subwordlab.shortfall(rec.tokenizer, merges=None if st.spec.is_unigram else len(rec.steps))
            text = (f"{st.spec.describe()} · trained: {plural(len(rec.steps), 'step')} in {status.elapsed:.2f} s"
                    + (f" · {short}" if short else ""))
        else:
            text = f"{st.spec.describe()} · " + ("training…" if rec.alphabet is not None else "preparing the run…")
        if st.imported is not None:
            text += f" · Inspect and Compare use {st.imported_name} (loaded on Files) until you train again"
        return text

    def _render_heavy(self) -> None:
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
        sections = [self._render_candidates, self._render_merges]
        if not following:
            sections += [self._render_vocab, self._render_segmentation, self._render_curve]
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

    def _render_candidates(self) -> None:
        port, st = self.port, self.state
        title, help_text, bars = candidate_bars(st.steps, st.step, st.spec.schema,
                                                tie_break=st.spec.kwargs().get("tie_break", "first"))
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

    def _render_merges(self) -> None:
        port, st = self.port, self.state
        preset = st.spec.schema
        header = merge_header(preset)
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

    def _vocab_list(self) -> tuple[list[str], bool, int | None]:
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

    def _render_vocab(self) -> None:
        port, st = self.port, self.state
        vocab, newest_first, newest = self._vocab_list()
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

    def _render_segmentation(self) -> None:
        port, st = self.port, self.state
        stats = st.corpus_stats
        tok, why = st.tokenizer_at_step()
        if st.recording is None:  # on Train itself: say what to press, not "open Train"
            why = "Not trained yet: press Step, Play or Run to end to see how the tokenizer splits these words."
        rows = []
        if tok is not None and stats is not None and stats.top_words:
            byte_text = st.spec.schema.byte_level and st.corpus.format == "text"
            port.set_text(self.seg_help, "How the tokenizer at this step splits the corpus's most frequent words"
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

    def _render_curve(self) -> None:
        port, st = self.port, self.state
        curve = curve_of(st.steps, st.spec.schema)
        port.set_text(self.curve_title, curve.title)
        if len(curve.xs) < 2:
            port.clear(self.curve_chart)
            port.set_hidden(self.curve_empty, False)
            port.set_text(self.curve_empty, "The curve appears once training has made a few steps.")
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
