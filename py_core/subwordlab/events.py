"""The events a trainer yields, one per step, so any consumer (the CLI's progress bar,
the web page's player, a test) can watch training without the core printing anything.

A trainer is a generator: ``AlphabetReady`` first, then one ``MergeStep`` per merge
(BPE, WordPiece) or ``EmStep``/``PruneStep`` per round (Unigram), and finally ``Done``
whose ``tokenizer`` is the trained tokenizer.

Asked for with ``iter_train(..., progress=True)``, a trainer also yields ``Progress``
events between slices of its preparation (counting a big corpus, indexing its pairs), so a
caller such as a web page can hand control back to the browser between them.

>>> MergeStep(rank=0, pair=("e", "s"), count=9, new_token="es", candidates=[(("e", "s"), 9)], vocab_size=12).new_token
'es'
"""

from dataclasses import dataclass, field
from typing import Any, List, Optional, Tuple


@dataclass(frozen=True)
class AlphabetReady:
    """The starting vocabulary is known. ``alphabet`` lists its token strings by id.
    Unigram also sets ``pieces``: the whole seed vocabulary as ``[(piece, log_prob), ...]``
    in id order (reserved pieces first), enough to build the model of step 0."""

    alphabet: List[str]
    vocab_size: int
    distinct_words: int
    pieces: Optional[List[Tuple[str, float]]] = None
    kind: str = "alphabet"


@dataclass(frozen=True)
class MergeStep:
    """One merge: ``pair`` (two token strings) became ``new_token`` with rank ``rank``.

    ``count`` is the pair's frequency-weighted count; ``candidates`` the top pairs before
    the merge as ``((left, right), count)`` (WordPiece: ``((left, right), count, score)``),
    the chosen pair first. ``vocab_size`` is the size after the merge. WordPiece also sets
    ``score`` and ``part_counts`` (the counts of the two parts).
    """

    rank: int
    pair: Tuple[str, str]
    count: int
    new_token: str
    candidates: List[tuple]
    vocab_size: int
    score: Optional[float] = None
    part_counts: Optional[Tuple[int, int]] = None
    kind: str = "merge"


@dataclass(frozen=True)
class EmStep:
    """One EM iteration of Unigram training: the corpus log-likelihood after it, and
    ``pieces``, the vocabulary after its M-step as ``[(piece, log_prob), ...]`` in id order."""

    round: int
    iteration: int
    log_likelihood: float
    vocab_size: int
    pieces: Optional[List[Tuple[str, float]]] = None
    kind: str = "em"


@dataclass(frozen=True)
class PruneStep:
    """One pruning round of Unigram: ``dropped`` lists ``(piece, loss)``, least useful first;
    ``pieces`` is the vocabulary after it, ``[(piece, log_prob), ...]`` in id order."""

    round: int
    dropped: List[Tuple[str, float]]
    vocab_size: int
    pieces: Optional[List[Tuple[str, float]]] = None
    kind: str = "prune"


@dataclass(frozen=True)
class Done:
    """Training finished; ``tokenizer`` is the result and ``steps`` the number of steps."""

    tokenizer: Any
    steps: int
    kind: str = "done"


@dataclass(frozen=True)
class Progress:
    """Preparation in slices (only with ``iter_train(..., progress=True)``): ``phase`` is
    ``"count"`` (``done``/``total`` in characters of the corpus; ``total`` is 0 when the
    corpus is a stream of unknown length), ``"words"`` (distinct words turned into symbols)
    or ``"index"`` (words whose pairs are counted)."""

    phase: str
    done: int
    total: int
    kind: str = "progress"


def progress_events(phase, steps):
    """Turn a sliced generator's ``(done, total)`` into ``Progress`` events; return its value.

    Example: ``value = yield from progress_events("count", counting())``.
    """
    while True:
        try:
            done, total = next(steps)
        except StopIteration as stop:
            return stop.value
        yield Progress(phase, done, total)


def drain(steps):
    """Run a sliced generator to its end; return its value (for callers that need not yield).

    Example: ``model = drain(BPE.in_slices(vocab, merges))``.
    """
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value
