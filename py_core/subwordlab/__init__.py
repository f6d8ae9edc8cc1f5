"""Subword Lab: train and inspect subword tokenizers, merge by merge.

>>> import subwordlab
>>> tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> tok.tokenize("lowest")
['low', 'est</w>']
"""

from .api import iter_train, shortfall, train
from .text.corpus import CorpusError, parse_word_counts
from .base.events import AlphabetReady, Done, EmStep, MergeStep, PruneStep
from .formats.hf_export import HFExportError, HFExportWarning
from .base.jsonio import ModelFileError
from .presets import OPTIONS
from .tokenizer import Encoding, Tokenizer
from .version import __version__

__all__ = [
    "__version__", "train", "iter_train", "shortfall", "Tokenizer", "Encoding", "parse_word_counts", "CorpusError",
    "AlphabetReady", "MergeStep", "EmStep", "PruneStep", "Done", "OPTIONS",
    "ModelFileError", "HFExportError", "HFExportWarning",
]
