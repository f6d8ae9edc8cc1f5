"""The public entry points: ``train`` and ``iter_train``.

>>> from subwordlab import train
>>> tok = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> tok.tokenize("lowest")
['low', 'est</w>']
"""

from .events import Done
from .presets import TRAINERS, resolve_options


def iter_train(corpus, preset="bpe", *, vocab_size=None, num_merges=None, progress=False, **options):
    """Train step by step: yields ``AlphabetReady``, then one event per merge (or EM/prune
    round), then ``Done`` whose ``tokenizer`` is the result.

    ``corpus``: raw text (a str or an iterable of documents) or a word-frequency dict.
    ``progress=True`` adds ``Progress`` events before ``AlphabetReady``, one per slice of a
    long preparation (counting a big corpus, indexing its pairs), each a few milliseconds
    apart, so a caller can yield to a browser between them. The other events are the same.
    """
    spec = resolve_options(preset, vocab_size, num_merges, options)
    events = TRAINERS[preset](corpus, spec)
    return events if progress else (e for e in events if e.kind != "progress")


def train(corpus, preset="bpe", *, vocab_size=None, num_merges=None, **options):
    """Train a tokenizer: ``iter_train`` drained; returns the ``Tokenizer``."""
    last = None
    for last in iter_train(corpus, preset, vocab_size=vocab_size, num_merges=num_merges, **options):
        pass
    assert isinstance(last, Done)
    return last.tokenizer
