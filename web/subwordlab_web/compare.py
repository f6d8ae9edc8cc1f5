"""The Compare panel's view model: pure Python, no DOM, testable on CPython and in Pyodide.

Several configurations are trained on the same corpus at the same vocabulary size, then
shown side by side. This module computes everything the panel draws:

- ``boundary_disagreement``: where the columns cut the text differently — each token
  is reduced to the characters it covers (its space marker ``·``/``▁``/a prepended space
  left out; ``##`` and ``</w>`` are not in the text anyway), and a range disagrees only
  where the sets of cut positions differ; plus how many word boundaries and inner cuts
  agree;
- ``STAT_ROWS`` / ``stats_rows``: the statistics table, one column per configuration;
- ``parity``: per-language token counts relative to a reference language (parallel texts
  such as the UDHR translations; charts.py draws them as grouped bars);
- ``curve_candidates`` / ``curve_points``: the compression curve (tokens per character of a
  held-out text against vocabulary size), read from the recorded steps of each run
  (``Recording.tokenizer_at``), never by retraining;
- ``CompareRun``: trains the columns in small slices, round robin, with progress per
  column and cancellation; the panel runs ``run.work()`` (a generator) with ``tasks.drive``,
  which yields to the browser between slices.

>>> boundary_disagreement("a des", [[(0, 1), (1, 5)], [(0, 1), (2, 5)]]).regions  # ·des and des agree
[]
>>> boundary_disagreement("abcde", [[(0, 3), (3, 5)], [(0, 3), (3, 4), (4, 5)]]).regions
[(3, 5)]
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .wording import plural

MIN_COLUMNS = 2
MAX_CONFIGS = 4  # configurations trained side by side
MAX_WELL_KNOWN = 3  # well-known tokenizers as columns at once
MAX_COLUMNS = MAX_CONFIGS + 1 + MAX_WELL_KNOWN  # ... plus the current tokenizer and those; each its own colour
CURVE_POINTS = 24  # most points per compression curve
CURVE_TEXT_CHARS = 20_000  # held-out text used for the curve, at most

Span = tuple[int, int]
_WORD = re.compile(r"\S+")  # a word: a run of non-space characters


# -- disagreement, by where the columns cut the text ---------------------------------------

@dataclass(frozen=True)
class Disagreement:
    """Where 2+ columns cut one text differently (see ``boundary_disagreement``).

    ``flags[c][t]``: is column c's token t inside a disagreeing range; ``regions``: those
    ranges, merged, as ``[start, end)`` in the text; ``chars``: characters in them (white
    space at a region's ends not counted); ``boundaries``: (agreeing, all) word boundaries;
    ``inner``: (agreeing, all) cuts inside words.
    """

    flags: list[list[bool]]
    regions: list[Span]
    chars: int
    boundaries: tuple[int, int]
    inner: tuple[int, int]


def covered_span(text: str, span: Span) -> Span | None:
    """The characters a token covers, white space at its ends left out (so the space marker
    of ``·des``, ``▁des`` or a prepended space does not count); None if it covers nothing
    but white space, or nothing at all (``</w>``, a lone ``▁``).

    Example: covered_span("a des", (1, 5)) -> (2, 5); covered_span("a des", (1, 2)) -> None
    """
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def cut_positions(text: str, spans: Sequence[Span]) -> set[int]:
    """Where a column cuts ``text``: the start and end of every token's covered span.

    Example: cut_positions("un des", [(0, 2), (2, 6)]) -> {0, 2, 3, 6}
    """
    cuts: set[int] = set()
    for span in spans:
        covered = covered_span(text, span)
        if covered is not None:
            cuts.update(covered)
    return cuts


def boundary_disagreement(text: str, columns: Sequence[Sequence[Span]]) -> Disagreement:
    """Compare columns (token spans in ``text``) by where they cut, not by token strings.

    Two columns that cut a text at the same places agree, whatever their markers (``·``,
    ``▁``, ``##``, ``</w>``). A range disagrees when some column cuts inside it and another
    does not: it runs between the nearest cuts every column makes.

    >>> d = boundary_disagreement("lowest newer", [[(0, 3), (3, 6), (6, 6), (6, 10), (10, 12)],
    ...                                             [(0, 3), (3, 4), (4, 6), (7, 10), (10, 12)]])
    >>> d.regions, d.chars, d.flags
    ([(3, 6)], 3, [[False, True, False, False, False], [False, True, True, False, False]])
    """
    if not columns:
        return Disagreement([], [], 0, (0, 0), (0, 0))
    # 1. each column's cut positions, markers and white space ignored
    cuts = [cut_positions(text, spans) for spans in columns]
    union, common = set().union(*cuts), set.intersection(*cuts)
    # 2. a cut some columns make and others don't disagrees; its range runs between the
    #    nearest positions every column cuts (or the text's ends)
    anchors = sorted(common | {0, len(text)})
    regions: list[Span] = []
    for p in sorted(union - common):
        i = bisect.bisect_right(anchors, p)
        start, end = anchors[i - 1], anchors[i] if i < len(anchors) else len(text)
        if regions and start < regions[-1][1]:
            regions[-1] = (regions[-1][0], max(regions[-1][1], end))
        else:
            regions.append((start, end))
    # 3. a token is marked when the characters it covers overlap a disagreeing range
    flags = []
    for spans in columns:
        row = []
        for span in spans:
            covered = covered_span(text, span)
            row.append(covered is not None and any(covered[0] < e and s < covered[1] for s, e in regions))
        flags.append(row)
    chars = sum(c[1] - c[0] for c in (covered_span(text, r) for r in regions) if c is not None)
    # 4. word boundaries (ends of runs of non-space characters) and cuts inside words
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    edges = {p for w in words for p in w}
    inside = {p for s, e in words for p in range(s + 1, e)}
    boundaries = (sum(1 for p in edges if all((p in c) == (p in cuts[0]) for c in cuts)), len(edges))
    inner_union = union & inside
    inner = (len(common & inside), len(inner_union))
    return Disagreement(flags, regions, chars, boundaries, inner)


def disagreement_note(d: Disagreement, length: int, who: str = "The columns") -> str:
    """The line under the columns (``who``: which columns were compared). Example: 5 of
    12 characters in 2 places -> 'The columns split 5 of 12 characters differently
    (41.7%), in 2 places. ...'"""
    n = len(d.regions)
    agree_b, all_b = d.boundaries
    agree_i, all_i = d.inner
    inner = (f"{agree_i:,} of {all_i:,} cuts inside words ({100 * agree_i / all_i:.0f}%)" if all_i
             else "no cuts inside words")
    return (f"{who} split {d.chars:,} of {length:,} characters differently "
            f"({100 * d.chars / max(1, length):.1f}%), in {plural(n, 'place')}. "
            f"They agree on {agree_b:,} of {all_b:,} word boundaries and {inner}.")


# -- the compare text: a sentence of the corpus -----------------------------------------------

_SENTENCE_END = re.compile(r"[.!?。！？।]")
SENTENCE_SCAN_CHARS = 50_000  # look for a sentence in the corpus's start only


def corpus_sentence(text: str, word_counts: bool = False, lo: int = 40, hi: int = 200) -> str:
    """A sentence of the corpus to compare on (its language, its style), or "" if none fits.

    Running text: the first sentence of ``lo``-``hi`` characters (a line cut at a word if no
    sentence fits); word counts (``word count`` lines): the first dozen words.

    >>> corpus_sentence("Title\\nTous les êtres humains naissent libres et égaux en dignité. Ils sont doués.")
    'Tous les êtres humains naissent libres et égaux en dignité.'
    >>> corpus_sentence("low 5\\nlower 2\\nnewest 6", word_counts=True)
    'low lower newest'
    """
    head = text[:SENTENCE_SCAN_CHARS]
    if word_counts:
        return " ".join(line.split()[0] for line in head.splitlines()[:12] if line.split())
    # 1. a whole sentence of a readable length (the first line may be a title: no end mark)
    # (a sentence is a line's text from its start or the last end mark to the next end mark:
    # found from the end marks, in one pass; a regex for "no end mark, then one" retried
    # from every position was quadratic: 16 s on a 200,000-character line without one)
    for line in head.split("\n"):
        start = 0
        for m in _SENTENCE_END.finditer(line):
            sentence = " ".join(line[start:m.end()].split())
            start = m.end()
            if lo <= len(sentence) <= hi:
                return sentence
    # 2. else the first line long enough, cut at a word before ``hi``
    for line in head.splitlines():
        line = " ".join(line.split())
        if len(line) >= lo // 2:
            return line if len(line) <= hi else line[:hi].rsplit(" ", 1)[0]
    return " ".join(head.split())[:hi]


# -- statistics table ----------------------------------------------------------------------

def _num(digits: int) -> Callable[[Any], str]:
    def fmt(v: Any) -> str:
        if v is None:
            return "–"
        return f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else f"{v:,.{digits}f}"
    return fmt


def _pct(v: Any) -> str:
    return "–" if v is None else f"{100 * v:.1f}%"


@dataclass(frozen=True)
class StatRow:
    key: str
    label: str
    help: str
    fmt: Callable[[Any], str]
    better: str = ""  # "low" / "high": which way is better, for the cell's hint ("" = neither)


STAT_ROWS = (
    StatRow("tokens", "Tokens", "tokens the text becomes", _num(0), "low"),
    StatRow("chars_per_token", "Chars / token", "characters (code points) per token", _num(2), "high"),
    StatRow("bytes_per_token", "Bytes / token", "UTF-8 bytes per token", _num(2), "high"),
    StatRow("tokens_per_word", "Tokens / word", "tokens per word (fertility); words are runs of non-space characters", _num(2), "low"),
    StatRow("split_words", "Words split", "share of words cut into more than one token", _pct, "low"),
    StatRow("unknown_rate", "Unknown tokens", "share of tokens that are the unknown token", _pct, "low"),
)


def stats_rows(columns: Sequence[dict | None]) -> list[tuple[StatRow, list[str], list[bool]]]:
    """Rows of the statistics table: (row, cell texts per column, which cells are best).

    ``columns``: per column a dict of statistic values (keys as in ``STAT_ROWS``) or None
    when that column has none (still training, or failed).
    """
    rows = []
    for row in STAT_ROWS:
        values = [None if c is None else c.get(row.key) for c in columns]
        cells = [row.fmt(v) for v in values]
        numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        best = [False] * len(values)
        if row.better and len(numbers) >= 2 and min(numbers) != max(numbers):
            target = min(numbers) if row.better == "low" else max(numbers)
            best = [v == target for v in values]
        rows.append((row, cells, best))
    return rows


def round_trip_cell(result: Any) -> tuple[str, bool]:
    """(text, ok) for the round-trip row, from a ``subwordlab.stats.text_stats`` row
    (``round_trip``, ``round_trip_kind`` and ``round_trip_difference`` {"index", ...}); a
    pipeline lossy by design (WordPiece drops runs of spaces, spaces out punctuation) is ok; None while unknown.

    Example: {"round_trip": False, "round_trip_difference": {"index": 12}} -> ("differs at char 12", False)
    """
    if result is None or result.get("round_trip") is None:
        return "–", True
    if result["round_trip"]:
        return "exact", True
    diff = result.get("round_trip_difference") or {}
    at = f" at char {diff['index']:,}" if "index" in diff else ""
    if result.get("round_trip_kind") == "by_design":
        return "lossy by design" + at, True
    return "differs" + at, False


# -- parity --------------------------------------------------------------------------------

def parity(counts: dict[str, int | None], reference: str) -> dict[str, float | None]:
    """Each text's token count relative to the reference text's.

    Example: parity({"eng": 100, "hin": 250}, "eng") -> {"eng": 1.0, "hin": 2.5}
    """
    ref = counts.get(reference)
    return {name: (None if n is None or not ref else n / ref) for name, n in counts.items()}


def premium_order(names: Sequence[str], values: Sequence[Sequence[float | None]], column: int,
                  descending: bool = False) -> list[int]:
    """The rows of the premium table in the order asked for: as given (``column`` -2), by
    name (-1) or by one column's premium; a missing value goes last either way, ties keep
    the given order.

    >>> premium_order(["en", "hi", "zh"], [[1.0], [2.5], [None]], 0, descending=True)
    [1, 0, 2]
    >>> premium_order(["en", "hi", "zh"], [[1.0], [2.5], [None]], -1, descending=True)
    [2, 1, 0]
    """
    rows = range(len(names))
    if column == -2:
        return list(rows)
    if column < 0:
        return sorted(rows, key=lambda r: names[r].casefold(), reverse=descending)
    present = [r for r in rows if values[r][column] is not None]
    missing = [r for r in rows if values[r][column] is None]
    return sorted(present, key=lambda r: values[r][column] or 0.0, reverse=descending) + missing


def premium_csv(languages: Sequence[tuple[str, str]], labels: Sequence[str],
                counts: Sequence[Sequence[int | None]], values: Sequence[Sequence[float | None]]) -> str:
    """The premium table as CSV: a row per language (its name and script), and for each
    tokenizer its token count and premium (blank where the text could not be encoded).

    >>> print(premium_csv([("English", "Latin"), ("Hindi", "Devanagari")], ["GPT-4"], [[10], [25]], [[1.0], [2.5]]),
    ...       end="")
    language,script,GPT-4 tokens,GPT-4 premium
    English,Latin,10,1.0000
    Hindi,Devanagari,25,2.5000
    """
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["language", "script"] + [f"{label} {what}" for label in labels for what in ("tokens", "premium")])
    for (name, script), row_counts, row_values in zip(languages, counts, values):
        cells: list[str] = []
        for n, v in zip(row_counts, row_values):
            cells += ["" if n is None else str(n), "" if v is None else f"{v:.4f}"]
        writer.writerow([name, script] + cells)
    return out.getvalue()


def unknown_shade(unknown: float) -> float:
    """A bar's opacity from its share of unknown tokens: full colour with none, pale when
    most of the text was lost. Example: unknown_shade(0.0) -> 1.0; unknown_shade(0.9) -> 0.28"""
    return round(max(0.2, 1.0 - 0.8 * max(0.0, min(1.0, unknown))), 2)


# -- the compression curve, from recorded steps ------------------------------------------------

def curve_candidates(start_size: int, step_sizes: Sequence[int], max_points: int = CURVE_POINTS) -> list[tuple[int, int]]:
    """Which recorded steps to measure: ``[(step, vocab_size)]``, at most ``max_points``.

    ``step_sizes[k-1]`` is the vocabulary size after step k. A size reached by several
    steps (Unigram's EM rounds change no vocabulary) is measured once, at its last step.
    Points are spread evenly over log(vocabulary size), always with the first and last.

    Example: curve_candidates(10, [11, 12, 13, 14], 3) -> [(0, 10), (2, 12), (4, 14)]
    """
    last_of: dict[int, int] = {start_size: 0}
    for k, size in enumerate(step_sizes, 1):
        last_of[size] = k
    cands = sorted(((k, s) for s, k in last_of.items()), key=lambda ks: ks[0])
    if len(cands) <= max_points:
        return cands
    logs = [math.log(max(1, s)) for _, s in cands]
    lo, hi = min(logs), max(logs)
    chosen = {0, len(cands) - 1}
    for i in range(1, max_points - 1):
        target = lo + (hi - lo) * i / (max_points - 1)
        best = min(range(len(cands)), key=lambda j: (abs(logs[j] - target), j))
        chosen.add(best)
    return [cands[j] for j in sorted(chosen)]


def curve_points(recording: Any, text: str, max_points: int = CURVE_POINTS) -> Iterator[tuple[int, int, float]]:
    """``(step, vocab_size, tokens_per_char)`` of ``text`` at sampled steps of a finished
    ``Recording`` (one point per ``next``, so a caller can yield between points)."""
    text = text[:CURVE_TEXT_CHARS]
    if not text:
        return
    start = recording.alphabet.vocab_size if recording.alphabet is not None else recording.tokenizer.vocab_size
    sizes = [getattr(s, "vocab_size", start) for s in recording.steps]
    for step, size in curve_candidates(start, sizes, max_points):
        tok = recording.tokenizer_at(step)
        yield step, size, len(tok.encode(text)) / len(text)


# -- the run: train 2-4 columns in slices ------------------------------------------------------

@dataclass
class ColumnState:
    """One column of the comparison while and after it trains."""

    label: str
    preset: str | None = None
    options: dict = field(default_factory=dict)
    tokenizer: Any = None  # set when done (or from the start for a fixed tokenizer)
    recording: Any = None
    error: str | None = None
    fraction: float = 0.0
    status: str = "waiting"

    @property
    def done(self) -> bool:
        return self.tokenizer is not None or self.error is not None


def progress_fraction(recording: Any, target: int | None) -> float:
    """How far a recording is, 0..1: steps made over steps needed (BPE/WordPiece: from the
    alphabet to the target size; Unigram: the shrinking vocabulary, on a log scale)."""
    if recording.tokenizer is not None:
        return 1.0
    alpha = recording.alphabet
    if alpha is None:
        prog = getattr(recording, "progress", None)
        total: int = getattr(prog, "total", 0)  # (0: no progress event yet, or a corpus of unknown length)
        if prog is not None and total:
            return min(0.1, 0.1 * prog.done / total)
        return 0.0
    start = alpha.vocab_size
    now = recording.steps[-1].vocab_size if recording.steps else start
    if not target or target == start:
        return 0.1
    if target > start:  # growing: merges
        return 0.1 + 0.9 * max(0.0, min(1.0, (now - start) / (target - start)))
    ratio = math.log(start / max(now, 1)) / math.log(start / target)  # shrinking: Unigram
    return 0.1 + 0.9 * max(0.0, min(1.0, ratio))


class CompareRun:
    """Trains ``configs`` (``(label, preset, options)``) on one corpus in the compute
    session, one column after another (``train``). ``fixed`` adds columns whose tokenizer is
    already there (the current or an imported tokenizer).

    >>> run = CompareRun([("BPE", "bpe", {"num_merges": 3}), ("WordPiece", "wordpiece", {"num_merges": 3})])
    >>> [c.status for c in run.columns], run.done
    (['waiting', 'waiting'], False)
    """

    def __init__(self, configs: Sequence[tuple[str, str, dict]], fixed: Sequence[tuple[str, Any]] = ()) -> None:
        self.columns = [ColumnState(label, preset, dict(opts)) for label, preset, opts in configs]
        self.columns += [ColumnState(label, tokenizer=tok, fraction=1.0, status="ready") for label, tok in fixed]
        self.cancelled = False

    @property
    def done(self) -> bool:
        return self.cancelled or all(c.done for c in self.columns)

    def cancel(self) -> None:
        self.cancelled = True
        for c in self.columns:
            if not c.done:
                c.status = "cancelled"

    def _target(self, c: ColumnState) -> int | None:
        if c.options.get("vocab_size") is not None:
            return c.options["vocab_size"]
        if c.options.get("num_merges") is not None and c.recording is not None and c.recording.alphabet is not None:
            return c.recording.alphabet.vocab_size + c.options["num_merges"]
        return None

    def _follow(self, c: ColumnState) -> None:
        """A column's bar and status after a batch of its run's events."""
        c.fraction = progress_fraction(c.recording, self._target(c))
        c.status = f"step {len(c.recording.steps):,}" if c.recording.alphabet is not None else "preparing"

    async def train(self, port: Any, corpus: str, corpus_format: str, between: Callable[[int], Any] | None = None) -> None:
        """Train every column still waiting, in turn, in the compute session (`port.compute`),
        on ``corpus`` (the corpus text, read as ``corpus_format``); ``between(column)`` after
        each batch of events (e.g. to repaint). A column whose run fails shows the message;
        the others go on. Cancelling the task stops the column in training at once."""
        from subwordlab.recording import Recording

        from .session import TaskFailed
        from .tasks import record_in_session

        for i, c in enumerate(self.columns):
            if c.done or self.cancelled:
                continue
            # step 1: a mirror of the run, fed by the session's replies
            c.status = "preparing"
            c.recording = Recording.mirror(c.preset)
            request = json.dumps({"op": "train", "preset": c.preset, "kwargs": c.options, "format": corpus_format})

            def on_batch(_reply: dict[str, Any], c: ColumnState = c, i: int = i) -> None:
                self._follow(c)
                if between is not None:
                    between(i)

            # step 2: the run; a failed column says why, the next one trains
            try:
                c.tokenizer = await record_in_session(port, c.recording, request, corpus, on_batch,
                                                      lambda: not self.cancelled)
            except (TaskFailed, OSError) as exc:
                c.error, c.status = str(exc) or type(exc).__name__, "failed"
                continue
            if c.tokenizer is not None:
                c.fraction, c.status = 1.0, f"done: {plural(len(c.recording.steps), 'step')}"
