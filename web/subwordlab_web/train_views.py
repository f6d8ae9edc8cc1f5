"""What the Train panel shows at a step, as pure functions of the recording: the merge
table and its CSV, the vocabulary at a step, the candidate bars and their ties, the
sentence above the player, the curve over the run and the words to segment.

They are tested on CPython without a page; `train_sections.py` draws them.
Example: ``pair_label(('e', 's'), byte_level=False)`` -> ``'e + s'``.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from subwordlab.base.events import EmStep, MergeStep, PruneStep
from subwordlab.options import Preset

from . import charts
from .options_form import schema
from .tokens import is_byte_level, token_label, visible
from .wording import plural

MERGE_ROWS = 40  # merges table: this many rows up to the current step
VOCAB_ITEMS = 160
SEGMENT_WORDS = 12
CANDIDATE_BARS = 12


def pair_label(pair: Sequence[str] | None, byte_level: bool) -> str:
    """Example: ('e', 's') -> 'e + s'; None (a WordPiece model replayed from its file, which
    keeps the new tokens, not the pairs) -> '–'."""
    if pair is None:
        return "–"
    return f"{token_label(pair[0], byte_level)} + {token_label(pair[1], byte_level)}"


def count_text(count: int | None) -> str:
    """Example: 1234 -> '1,234'; None (a model replayed from its file: not recorded) -> '–'."""
    return "–" if count is None else f"{count:,}"


def counts_known(steps: Sequence[Any]) -> bool:
    """Do the merges carry their counts? Not when replayed from a model file (replay_view.py)."""
    return not steps or not isinstance(steps[0], MergeStep) or steps[0].count is not None


@dataclass(frozen=True)
class Row:
    cells: tuple[str, ...]
    current: bool = False


def scored(preset: Preset, steps: Sequence[Any] = ()) -> bool:
    """Do the merges carry a score? WordPiece's do, unless trained with scoring
    'frequency' (HF tokenizers' way: by count, as BPE). Example: (wordpiece, []) -> True."""
    return preset.family == "wordpiece" and (not steps or getattr(steps[0], "score", None) is not None)


def merge_header(preset: str | Preset, steps: Sequence[Any] = ()) -> tuple[str, ...]:
    preset = schema(preset)
    if preset.is_unigram:
        return ("Step", "What happened", "Vocabulary")
    if scored(preset, steps):
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
            cells = [f"{k:,}", pair_label(e.pair, byte_level), count_text(e.count)]
            if scored(preset, steps):
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
    import csv  # on first use: the page starts ~15 ms sooner without compiling it

    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def merges_csv(steps: Sequence[Any], position: int, preset: str | Preset) -> str:
    """Every step up to `position`, oldest first, as the merge table shows it."""
    rows = merge_rows(steps, position, preset, limit=max(1, position))
    return csv_text(merge_header(preset, steps), [r.cells for r in reversed(rows)])


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
    out: list[VocabItem] = []
    matched = 0
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
             "lex_max": "the alphabetically largest pair wins",
             "hf": "the pair with the smaller ids wins, as in tokenizers",
             "sentencepiece": "the shorter piece wins, then the smaller string, as in spm_train"}


def tie_rule(options: Mapping[str, Any]) -> str:
    """How a run breaks ties (a key of TIE_RULES): its reference rules, else its tie_break.

    >>> tie_rule({"rules": "hf", "tie_break": "first"}), tie_rule({"tie_break": "lex_min"})
    ('hf', 'lex_min')
    """
    rules = options.get("rules", "textbook")
    return rules if rules != "textbook" else options.get("tie_break", "first")


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
    if not counts_known(steps):
        from .replay_view import CANDIDATES_UNKNOWN

        return f"Merge {k:,}: the pairs it beat", CANDIDATES_UNKNOWN, []
    before = "Before merge 1: the pairs competing" if position == 0 else f"Merge {k:,}: the winner and its competitors"
    bars = []
    if scored(preset, steps):  # scoring="frequency" ranks by count, as BPE
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
        if getattr(recording, "replayed", False):
            return "Step 0 · the starting vocabulary", f"{n:,} {what}, as the model file lists them"
        return "Step 0 · the starting vocabulary", f"{n:,} {what}, from {recording.alphabet.distinct_words:,} distinct words"
    e = recording.steps[position - 1]
    if isinstance(e, MergeStep):
        new = token_label(e.new_token, byte_level)
        main = f"{token_label(e.pair[0], byte_level)}  +  {token_label(e.pair[1], byte_level)}  →  {new}" if e.pair else f"→  {new}"
        tail = ("count not in the file" if e.count is None else f"count {e.count:,}") + (f" · score {charts.short_number(e.score)}" if e.score is not None else "")
        return f"Merge {position:,} · {tail} · vocabulary {e.vocab_size:,}", main
    return f"Step {position:,} · vocabulary {e.vocab_size:,}", unigram_event_text(e)


@dataclass(frozen=True)
class Curve:
    title: str
    x_label: str
    y_label: str
    xs: Sequence[float]
    ys: Sequence[float]
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
    if not counts_known(steps):  # (replayed from a model file: no counts to draw)
        return Curve("Count of each merge", "merge", "count", [], [], [], lambda i: "")
    if scored(preset, steps) and steps:
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


SEGMENT_WORD_CHARS = 60  # a longer word (1 MB of 'a' from a link) is shown and split by its start only


def segment_words(top_words: Sequence[tuple[str, int]], byte_level_text: bool) -> list[tuple[str, str, int]]:
    """(shown word, text to tokenize, count): byte-level running text tokenizes words as
    they appear mid-sentence, with their leading space. A word longer than
    ``SEGMENT_WORD_CHARS`` is cut there ("…" shown): each chip names its word, so a 1 MB word
    would make gigabytes of labels. Example: segment_words([("ab", 2)], True) -> [('ab', ' ab', 2)]."""
    out = []
    for w, n in top_words[:SEGMENT_WORDS]:
        cut = w[:SEGMENT_WORD_CHARS]
        out.append((cut + ("…" if len(w) > SEGMENT_WORD_CHARS else ""), (" " + cut) if byte_level_text else cut, n))
    return out
