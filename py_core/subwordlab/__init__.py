"""Subword Lab: train and inspect subword tokenizers, merge by merge.

>>> import subwordlab
>>> tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> tok.tokenize("lowest")
['low', 'est</w>']
>>> subwordlab.from_json(subwordlab.to_json(tok)).tokenize("lowest")
['low', 'est</w>']

The package's face: training (``train``, ``iter_train``), the ``Tokenizer`` and its events,
and the model files as module functions (``formats/``), as tiktoken's ``get_encoding`` is:
``save``/``load`` and ``to_json``/``from_json`` (our JSON), ``to_hf_json``/``from_hf_json``
(Hugging Face), ``from_gpt2_files``/``from_tiktoken`` (OpenAI's files), and ``read_model``
for a model file of any of those kinds.
"""

from .api import iter_train, shortfall, train
from .base.events import AlphabetReady, Done, EmStep, MergeStep, PruneStep
from .base.jsonio import ModelFileError
from .formats.detect import read_model
from .formats.hf_export import HFExportError, HFExportWarning, to_hf_json
from .formats.hf_import import from_hf_json
from .formats.openai_files import from_gpt2_files, from_tiktoken
from .formats.our_json import from_json, load, save, to_json
from .presets import OPTIONS
from .text.corpus import CorpusError, parse_word_counts
from .tokenizer import Encoding, Tokenizer
from .version import __version__

__all__ = [
    "__version__", "train", "iter_train", "shortfall", "Tokenizer", "Encoding", "parse_word_counts", "CorpusError",
    "AlphabetReady", "MergeStep", "EmStep", "PruneStep", "Done", "OPTIONS",
    "save", "load", "to_json", "from_json", "to_hf_json", "from_hf_json", "from_gpt2_files", "from_tiktoken",
    "read_model", "ModelFileError", "HFExportError", "HFExportWarning",
]
