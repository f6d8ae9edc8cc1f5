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

import time
from dataclasses import dataclass
from typing import Any, Callable, Generator, Iterator, List, Optional, Tuple, TypeVar, Union


@dataclass(frozen=True)
class AlphabetReady:
    """The starting vocabulary is known. ``alphabet`` lists its token strings by id.
    Unigram also sets ``pieces``: the whole seed vocabulary as ``[(piece, log_prob), ...]``
    in id order (reserved pieces first), enough to build the model of step 0. ``notes``:
    what the run limited or left out and how to change it, one sentence each (e.g. words
    longer than Unigram's ``max_sentence_length``), for the log or the page's status."""

    alphabet: List[str]
    vocab_size: int
    distinct_words: int
    pieces: Optional[List[Tuple[str, float]]] = None
    notes: Tuple[str, ...] = ()
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
Event = Union[AlphabetReady, MergeStep, EmStep, PruneStep, Done, "Progress"]


# -- slicing for the browser's main thread -----------------------------------------------
# A long computation on the page's main thread (loading a model file: ``loaders.py`` and
# the models' ``in_slices``) is a generator that yields ``(done, total)`` now and then and
# returns its result; the page hands control back between two yields, a plain caller uses
# ``drain``. ``sliced`` makes such a generator from any loop over 0..total. (Training runs
# in a Web Worker: the trainers are plain loops.)

SLICE_SECONDS = 0.008  # hand back after this much work (the page's frames stay smooth)
_CHECK_EVERY = 64  # items between two looks at the clock

T = TypeVar("T")
Sliced = Generator[Tuple[int, int], None, T]


def sliced(total: int, work: Callable[[int, int], None], seconds: float = SLICE_SECONDS,
           clock: Callable[[], float] = time.perf_counter, every: int = _CHECK_EVERY) -> Sliced[None]:
    """Run ``work(lo, hi)`` over ``0..total`` in small ranges, yielding ``(done, total)``
    each time ``seconds`` of work have passed (by the clock, not by a count of items).
    ``every``: items per range, between two looks at the clock (1 for items of very
    different sizes, such as buckets to sort).

    >>> seen = []
    >>> list(sliced(3, lambda lo, hi: seen.extend(range(lo, hi)))), seen
    ([], [0, 1, 2])
    >>> ticks = iter(range(1000))
    >>> list(sliced(200, lambda lo, hi: None, seconds=1, clock=lambda: next(ticks)))
    [(64, 200), (128, 200), (192, 200)]
    """
    done, deadline = 0, clock() + seconds
    while done < total:
        hi = min(done + every, total)
        work(done, hi)
        done = hi
        if done < total and clock() >= deadline:
            yield done, total
            deadline = clock() + seconds


def drain(steps: Iterator[Any]) -> Any:
    """Run a sliced generator to its end; return its value (for callers that need not yield):
    the one run-to-end helper.

    Example: ``model = drain(BPE.in_slices(vocab, merges))``.
    """
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value
