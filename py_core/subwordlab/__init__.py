"""Subword Lab: train and inspect subword tokenizers, merge by merge.

>>> import subwordlab
>>> tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> tok.tokenize("lowest")
['low', 'est</w>']
"""

__version__ = "0.1.0"

from .api import iter_train, shortfall, train  # noqa: E402
from .corpus import CorpusError, parse_word_counts  # noqa: E402
from .events import AlphabetReady, Done, EmStep, MergeStep, PruneStep  # noqa: E402
from .presets import OPTIONS  # noqa: E402
from .tokenizer import Encoding, Tokenizer  # noqa: E402
from .serialize import ModelFileError  # noqa: E402
from .hf_json import HFExportError, HFExportWarning  # noqa: E402

__all__ = [
    "__version__", "train", "iter_train", "shortfall", "Tokenizer", "Encoding", "parse_word_counts", "CorpusError",
    "AlphabetReady", "MergeStep", "EmStep", "PruneStep", "Done", "OPTIONS",
    "ModelFileError", "HFExportError", "HFExportWarning",
]
