"""Hugging Face ``tokenizer.json``, both ways: the public names of ``hf_export.py``
(our tokenizer -> tokenizer.json), ``hf_import.py`` (back) and ``hf_onig.py`` (regexes
between Python's syntax and Oniguruma's), which hold the code.

Export (``to_hf_json(tok)``, ``export_hf(tok)``): a document that ``tokenizers``'
``Tokenizer.from_str`` loads and that encodes text to the same ids and tokens as ``tok``.
Where our pipeline has no exact equivalent in HF's component set the export raises
``HFExportError`` naming the problem and the fix; where HF differs only on input our
tokenizer refuses (an unknown character without an unk token, a special token in the
text) ``export_hf`` returns the difference as a warning. Every merge is checked before
writing (a merge whose parts or result are not in the vocabulary crashes the Rust side).

What has no exact HF construction (``HFExportError``):

- ``bpe`` with a multi-character ``end_of_word`` such as ``</w>``: our marker is a base
  symbol of its own that merges like any other; HF's ``end_of_word_suffix`` glues it to the
  last character ("t</w>" is one initial symbol), which segments differently. A
  one-character marker ("_") is exported exactly (a normalizer inserts it after every
  word). Fix: retrain with ``end_of_word=None`` or a one-character marker.
- a BPE merge list where a merge creates a token that an *earlier* merge already uses
  (possible when two merges make the same string): HF's merge queue would apply that
  earlier merge first and segment differently.
- a custom pre-tokenization regex using a construct Oniguruma (HF's regex engine) reads
  differently and that cannot be rewritten: inline flags other than ``i``, ``\\N{...}``,
  conditionals.

Import (``from_hf_json(text)``): BPE, WordPiece and Unigram models; the normalizers
NFC/NFD/NFKC/NFKD, Lowercase, Strip, StripAccents, Replace (String and Regex), Prepend,
BertNormalizer, Sequence; the pre-tokenizers ByteLevel, Metaspace, Split, Whitespace,
WhitespaceSplit, BertPreTokenizer, Digits, Punctuation, CharDelimiterSplit, Sequence; the
decoders ByteLevel, Metaspace, WordPiece, BPEDecoder, ByteFallback, Fuse, Strip, Replace,
Sequence; ``added_tokens`` (special and not). Anything else is refused with a message
naming it. Regexes are translated from Oniguruma's syntax (``$`` is end of *line* there,
``{n,m}+`` a repetition, ``\\w`` includes all numbers).

>>> import subwordlab
>>> tok = subwordlab.train("low lower newest widest " * 20, preset="byte_bpe", vocab_size=270)
>>> again = from_hf_json(to_hf_json(tok))
>>> again.encode("lowest") == tok.encode("lowest")
True
"""

from ..text.hf_onig import translate_regex
from .hf_export import HF_VERSION, HFExport, HFExportError, HFExportWarning, export_hf, to_hf_json, to_onig
from .hf_import import TOP_LEVEL, from_hf_dict, from_hf_json, from_onig

__all__ = ["HF_VERSION", "TOP_LEVEL", "HFExport", "HFExportError", "HFExportWarning", "export_hf", "to_hf_json",
           "from_hf_dict", "from_hf_json", "to_onig", "from_onig", "translate_regex"]
