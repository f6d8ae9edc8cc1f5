"""What kind of model file some bytes are, and the tokenizer they hold.

One reader for every door a model file comes through (the page's upload and the command
line's ``-m``/``import``): our JSON (``"format": "subwordlab"``), a Hugging Face
``tokenizer.json``, or a tiktoken rank file (``<base64 token> <rank>`` lines). The file's
name is only for messages; what the file is comes from its content.

>>> import subwordlab
>>> tok = subwordlab.train({"low": 5, "lower": 2}, preset="bpe", num_merges=2)
>>> kind_of(subwordlab.to_json(tok).encode()), kind_of(b"IQ== 0\\nIg== 1\\n")
('ours', 'tiktoken')
>>> read_model(subwordlab.to_json(tok).encode()).kind
'ours'
>>> read_model(b"", "m.json")
Traceback (most recent call last):
subwordlab.base.jsonio.ModelFileError: m.json is empty: choose a Subword Lab .json, a tokenizer.json or a .tiktoken file
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from ..base.events import drain, scaled
from ..base.json_slices import parse_json_steps
from ..base.jsonio import ModelFileError, parse_json
from ..base.sha256 import sha256_steps
from ..tokenizer import Tokenizer
from .hf_import import from_hf_dict_steps
from .openai_files import iter_from_tiktoken
from .our_json import from_dict_steps

KINDS = {"ours": "Subword Lab JSON", "hf": "Hugging Face tokenizer.json", "tiktoken": "tiktoken rank file"}

# progress of a JSON file: parsing is the first _PARSED of _WHOLE, building the tokenizer the rest
_PARSED, _WHOLE = 500, 1000
_RANK_LINE = re.compile(rb"[A-Za-z0-9+/]+={0,2} [0-9]+\r?\n")


@dataclass
class Loaded:
    """A tokenizer read from a model file, and which kind of file it was (a key of ``KINDS``)."""

    tokenizer: Tokenizer
    kind: str


def looks_like_rank_file(data: bytes | str) -> bool:
    """A tiktoken rank file starts with ``<base64 token> <rank>`` lines.

    >>> looks_like_rank_file(b"IQ== 0\\nIg== 1\\n"), looks_like_rank_file(b'{"model": 1}')
    (True, False)
    """
    head = (data[:200].encode("utf-8", errors="replace") if isinstance(data, str) else bytes(data[:200]))[:200]
    return _RANK_LINE.match(head) is not None


def kind_of_document(doc: Any) -> str | None:
    """``"ours"`` or ``"hf"`` for a parsed JSON document, ``None`` for any other JSON."""
    if not isinstance(doc, dict):
        return None
    if doc.get("format") == "subwordlab":
        return "ours"
    if "model" in doc and ("added_tokens" in doc or "normalizer" in doc or "pre_tokenizer" in doc):
        return "hf"
    return None


def kind_of(data: bytes | str) -> str | None:
    """``"ours"``, ``"hf"`` or ``"tiktoken"``, or ``None`` when the bytes are none of them
    (parses a JSON file whole: ``read_model`` does it once when it also loads it)."""
    if looks_like_rank_file(data):
        return "tiktoken"
    try:
        return kind_of_document(parse_json(data, "file"))
    except ModelFileError:
        return None


def read_model(data: bytes | str, name: str = "the file", drop_post_processing: bool = True,
               pattern: str | None = None, special_tokens: dict[str, int] | None = None,
               json_kind: str | None = None, sha256: str | None = None) -> Loaded:
    """The tokenizer a model file holds, whatever its kind. Raises ``ModelFileError`` with one
    sentence that names the file (``name``) and what to do.

    ``drop_post_processing``: a tokenizer.json's post-processor, truncation and padding are
    left out (``spec["dropped"]`` says which) rather than the file refused, as most published
    files add [CLS]/[SEP] or <s> around a text. ``pattern`` and ``special_tokens`` are for a
    tiktoken rank file that is not one of OpenAI's (see ``openai_files.from_tiktoken``).
    ``json_kind="hf"``: a JSON object that is not ours is read as a tokenizer.json even if it
    lacks the keys that tell one (the caller was told so, e.g. ``subwordlab import --hf``).
    ``sha256``: the file's SHA-256 when the caller has it already (a tokenizer.json's import
    records it as ``spec["source_sha256"]``; it is hashed otherwise)."""
    return drain(read_model_steps(data, name, drop_post_processing, pattern, special_tokens, json_kind, sha256))


def read_model_steps(data: bytes | str, name: str = "the file", drop_post_processing: bool = True,
                     pattern: str | None = None, special_tokens: dict[str, int] | None = None,
                     json_kind: str | None = None, sha256: str | None = None
                     ) -> Generator[tuple[int, int], None, Loaded]:
    """``read_model`` with its progress: yields ``(done, total)`` while a big rank file loads
    (a few seconds for o200k_base in the page) and returns the ``Loaded``."""
    # step 1: nothing to read, or a rank file (told by its first line)
    if len(data) == 0:
        raise ModelFileError(f"{name} is empty: choose a Subword Lab .json, a tokenizer.json or a .tiktoken file")
    if looks_like_rank_file(data):
        return Loaded((yield from _rank_file(data, name, pattern, special_tokens)), "tiktoken")
    # step 2: a JSON document, once parsed (in slices), says which of the two JSON kinds it is
    try:
        doc = yield from scaled(parse_json_steps(data, "file"), 0, _PARSED, _WHOLE)
    except ModelFileError as exc:
        raise ModelFileError(f"{name} cannot be loaded: {exc}") from None
    kind = kind_of_document(doc)
    if kind is None and json_kind == "hf" and isinstance(doc, dict):
        kind = "hf"
    if kind is None:
        if not isinstance(doc, dict):
            raise ModelFileError(f"{name} is JSON but not a model file (its top level is not an object)")
        raise ModelFileError(f"{name} is JSON but neither a Subword Lab model (\"format\": \"subwordlab\") "
                             "nor a Hugging Face tokenizer.json (\"model\", \"added_tokens\", ...)")
    # step 3: build the tokenizer from the document parsed above (not parsed again)
    try:
        if kind == "ours":
            return Loaded((yield from scaled(from_dict_steps(doc), _PARSED, _WHOLE - _PARSED, _WHOLE)), kind)
        digest = sha256 or (yield from scaled(sha256_steps(data), _PARSED, 0, _WHOLE))
        tok = yield from scaled(from_hf_dict_steps(doc, digest, drop_post_processing), _PARSED, _WHOLE - _PARSED, _WHOLE)
        return Loaded(tok, kind)
    except (ModelFileError, ValueError, TypeError, KeyError) as exc:
        raise ModelFileError(f"{name} cannot be loaded: {exc}") from None
    except RecursionError:
        raise ModelFileError(f"{name} cannot be loaded: it is nested too deeply") from None


def _rank_file(data: bytes | str, name: str, pattern: str | None, special_tokens: dict[str, int] | None
               ) -> Generator[tuple[int, int], None, Tokenizer]:
    try:
        return (yield from iter_from_tiktoken(data, pattern, special_tokens))
    except ModelFileError as exc:
        raise ModelFileError(f"{name} cannot be loaded: {exc}") from None
