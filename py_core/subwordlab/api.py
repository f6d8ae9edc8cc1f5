"""The public entry points: ``train`` and ``iter_train``.

>>> from subwordlab import train
>>> tok = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> tok.tokenize("lowest")
['low', 'est</w>']
"""

from .events import Done
from .presets import TRAINERS, resolve_options


def iter_train(corpus, preset="bpe", *, vocab_size=None, num_merges=None, **options):
    """Train step by step: yields ``AlphabetReady``, then one event per merge (or EM/prune
    round), then ``Done`` whose ``tokenizer`` is the result.

    ``corpus``: raw text (a str or an iterable of documents) or a word-frequency dict.
    """
    spec = resolve_options(preset, vocab_size, num_merges, options)
    return TRAINERS[preset](corpus, spec)


def train(corpus, preset="bpe", *, vocab_size=None, num_merges=None, **options):
    """Train a tokenizer: ``iter_train`` drained; returns the ``Tokenizer``."""
    last = None
    for last in iter_train(corpus, preset, vocab_size=vocab_size, num_merges=num_merges, **options):
        pass
    assert isinstance(last, Done)
    return last.tokenizer
