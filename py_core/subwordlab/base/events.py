"""The events a trainer yields, one per step, so any consumer (the CLI's progress bar,
the web page's player, a test) can watch training without the core printing anything.

A trainer is a generator: ``AlphabetReady`` first, then one ``MergeStep`` per merge
(BPE, WordPiece) or ``EmStep``/``PruneStep`` per round (Unigram), and finally ``Done``
whose ``tokenizer`` is the trained tokenizer.

Asked for with ``iter_train(..., progress=True)``, a trainer also yields ``Progress``
events at the natural boundaries of its work: one as each phase starts (indexing the pairs,
building the lattices, an EM or pruning round, the final model), and one per chunk of a
big corpus counted, so a progress bar can say what runs and how far counting got.

>>> MergeStep(rank=0, pair=("e", "s"), count=9, new_token="es", candidates=[(("e", "s"), 9)], vocab_size=12).new_token
'es'
"""

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar


@dataclass(frozen=True)
class AlphabetReady:
    """The starting vocabulary is known. ``alphabet`` lists its token strings by id.
    Unigram also sets ``pieces``: the whole seed vocabulary as ``[(piece, log_prob), ...]``
    in id order (reserved pieces first), enough to build the model of step 0. ``notes``:
    what the run limited or left out and how to change it, one sentence each (e.g. words
    longer than Unigram's ``max_sentence_length``), for the log or the page's status."""

    alphabet: list[str]
    vocab_size: int
    distinct_words: int
    pieces: list[tuple[str, float]] | None = None
    notes: tuple[str, ...] = ()
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
    pair: tuple[str, str]
    count: int
    new_token: str
    candidates: list[tuple]
    vocab_size: int
    score: float | None = None
    part_counts: tuple[int, int] | None = None
    kind: str = "merge"


@dataclass(frozen=True)
class EmStep:
    """One EM iteration of Unigram training: the corpus log-likelihood after it, and
    ``pieces``, the vocabulary after its M-step as ``[(piece, log_prob), ...]`` in id order."""

    round: int
    iteration: int
    log_likelihood: float
    vocab_size: int
    pieces: list[tuple[str, float]] | None = None
    kind: str = "em"


@dataclass(frozen=True)
class PruneStep:
    """One pruning round of Unigram: ``dropped`` lists ``(piece, loss)``, least useful first;
    ``pieces`` is the vocabulary after it, ``[(piece, log_prob), ...]`` in id order."""

    round: int
    dropped: list[tuple[str, float]]
    vocab_size: int
    pieces: list[tuple[str, float]] | None = None
    kind: str = "prune"


@dataclass(frozen=True)
class Done:
    """Training finished; ``tokenizer`` is the result and ``steps`` the number of steps."""

    tokenizer: Any
    steps: int
    kind: str = "done"


@dataclass(frozen=True)
class Progress:
    """A phase of training starts, or counting got further (only with
    ``iter_train(..., progress=True)``). ``phase``:

    - ``"count"``, every trainer: one event per chunk of a long corpus counted,
      ``done``/``total`` in characters of the corpus (``total`` is 0 when the corpus is a
      stream of unknown length);
    - BPE: ``"words"`` (distinct words turned into symbols; ``total``: the distinct words);
      BPE and WordPiece: ``"index"`` (the pair index; ``total``: the words);
    - Unigram: ``"seed"`` (the seed pieces), ``"lattice"`` (every word's lattice), ``"em"``
      (each EM iteration), ``"prune"`` (each pruning round);
    - BPE and Unigram: ``"model"``, after the last step, before ``Done`` (the final model
      built).

    Except for ``"count"``, a phase yields one event as it starts, ``done`` 0.
    """

    phase: str
    done: int
    total: int
    kind: str = "progress"


# each phase of ``Progress`` in words (the CLI's progress lines, the page's progress bar)
PHASES = {
    "count": "Counting the corpus's words",
    "words": "Splitting words into symbols",
    "index": "Counting adjacent pairs",
    "seed": "Finding frequent substrings (the seed vocabulary)",
    "lattice": "Building each word's lattice of pieces",
    "em": "EM: expected piece counts",
    "prune": "Measuring how useful each piece is",
    "model": "Building the final model",
}

# what a trainer yields
Event = AlphabetReady | MergeStep | EmStep | PruneStep | Done | Progress


# -- progress while a big model loads -----------------------------------------------------
# Building a model from a big file (``formats/openai_files.py``, the models' ``building``) is a generator
# that yields ``(done, total)`` after each chunk of its items and returns the model: the
# natural progress of a loop over 0..total, as counting yields one per chunk of corpus. The
# caller decides what to do between two chunks (the page shows the progress; a plain caller
# uses ``drain``). No clock here: when to hand the browser back is the page's business.

CHUNK = 1024  # items per chunk (a few milliseconds of the loaders' loops)

T = TypeVar("T")
Progressing = Generator[tuple[int, int], None, T]


def in_chunks(total: int, work: Callable[[int, int], None], size: int = CHUNK) -> Progressing[None]:
    """Run ``work(lo, hi)`` over ``0..total`` in ranges of ``size`` items, yielding
    ``(done, total)`` after each range but the last.

    >>> seen = []
    >>> list(in_chunks(5, lambda lo, hi: seen.append((lo, hi)), size=2)), seen
    ([(2, 5), (4, 5)], [(0, 2), (2, 4), (4, 5)])
    """
    for lo in range(0, total, size):
        hi = min(lo + size, total)
        work(lo, hi)
        if hi < total:
            yield hi, total


def scaled(steps: Progressing[T], start: int, width: int, total: int) -> Progressing[T]:
    """Re-express a progress generator's ``(done, total)`` as ``start + width * fraction`` of
    ``total`` (one phase of a longer task); returns its value.

    >>> list(scaled(in_chunks(4, lambda lo, hi: None, size=2), 50, 50, 100))
    [(75, 100)]
    """
    while True:
        try:
            done, of = next(steps)
        except StopIteration as stop:
            return stop.value
        yield start + (width * done // of if of else 0), total


def drain(steps: Iterator[Any]) -> Any:
    """Run a progress generator (``in_chunks``' kind) to its end; return its value (for
    callers that need not watch): the one run-to-end helper.

    Example: ``model = drain(BPE.building(vocab, merges))``.
    """
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value
