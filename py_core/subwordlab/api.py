"""The public entry points: ``train`` and ``iter_train``.

>>> from subwordlab import train
>>> tok = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> tok.tokenize("lowest")
['low', 'est</w>']
"""

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from .base.events import Done, Event
from .base.gc_pause import no_cyclic_gc
from .options import PRESETS
from .presets import TRAINERS, resolve_options
from .text.corpus import Counted
from .tokenizer import Tokenizer

# raw text, documents, word counts, or pre-token counts made by counts.py (a counts file)
Corpus = str | Iterable[str] | dict[str, int] | Counted


def iter_train(corpus: Corpus, preset: str = "bpe", *, vocab_size: int | None = None, num_merges: int | None = None,
               progress: bool = False, **options: Any) -> Iterator[Event]:
    """Train step by step: yields ``AlphabetReady``, then one event per merge (or EM/prune
    round), then ``Done`` whose ``tokenizer`` is the result.

    ``corpus``: raw text (a str or an iterable of documents), a word-frequency dict, or a
    ``corpus.Counted`` (pre-token counts from ``counts.py``: trains as the text they were
    counted from, if counted with this preset's pipeline).
    ``progress=True`` adds ``Progress`` events at the natural boundaries of the work: one per
    chunk of a big corpus counted, and one as each phase starts (indexing the pairs, Unigram's
    seed, lattices and rounds, the final model's build before ``Done``), so a progress bar
    can say what runs. The other events are the same.
    """
    spec = resolve_options(preset, vocab_size, num_merges, options)
    events = TRAINERS[preset](corpus, spec)
    return events if progress else (e for e in events if e.kind != "progress")


def train(corpus: Corpus, preset: str = "bpe", *, vocab_size: int | None = None, num_merges: int | None = None,
          **options: Any) -> Tokenizer:
    """Train a tokenizer: ``iter_train`` drained; returns the ``Tokenizer``."""
    # the last event (a deque of length 1 keeps only it), the cycle collector paused throughout:
    # the trainers make no reference cycles, and its passes over their young lattices and
    # snapshots were 8-12% of a reference-exact Unigram training (base/gc_pause.py). (Not in
    # iter_train: a caller holding its generator half-read would keep the collector off.)
    with no_cyclic_gc():
        last = deque(iter_train(corpus, preset, vocab_size=vocab_size, num_merges=num_merges, **options),
                     maxlen=1).pop()
    assert isinstance(last, Done)
    return last.tokenizer


def shortfall(tokenizer: Tokenizer, merges: int | None = None) -> str | None:
    """Why a trained tokenizer is smaller than its spec asked, or None when it is not.

    Training stops early when the corpus has nothing left to learn: no pair occurs twice
    more (BPE, WordPiece), or no more pieces are worth keeping (Unigram, on a tiny corpus).
    ``merges``: how many merges the training made, for a ``num_merges`` target when the
    model keeps no merge list (WordPiece); without it that case gives None.

    >>> shortfall(train("the cat sat on the mat", preset="bpe", num_merges=100))
    'stopped after 10 of the 100 merges asked: no pair is left to merge in this corpus; use a bigger corpus or fewer merges'
    """
    spec = tokenizer.spec
    if spec.get("num_merges") is not None:
        if merges is None and not hasattr(tokenizer.model, "merges"):
            return None
        done = len(tokenizer.merges) if merges is None else merges
        asked, what = spec["num_merges"], "merges"
    elif spec.get("vocab_size") is not None:
        done, asked, what = tokenizer.vocab_size, spec["vocab_size"], "tokens"
    else:
        return None
    if done >= asked:
        return None
    preset = PRESETS.get(spec.get("preset", ""))  # None: an imported tokenizer
    unigram = preset is not None and preset.is_unigram
    reason = "no more pieces are worth keeping" if unigram else "no pair is left to merge"
    fewer = "fewer merges" if what == "merges" else "a smaller vocabulary"
    return (f"stopped after {done:,} of the {asked:,} {what} asked: {reason} in this corpus; "
            f"use a bigger corpus or {fewer}")
