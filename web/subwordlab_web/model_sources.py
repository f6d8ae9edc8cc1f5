"""The model file each tokenizer on the page was read from, so that the compute session can
read its own copy of it: only plain data crosses to the worker, never a live tokenizer.

The page remembers a source when it loads a model (the Files tab's uploads and well-known
tokenizers, a trained tokenizer's JSON as the session sent it); a tokenizer made on the page
itself (the one at an earlier training step) has none, and is used on the page.
A source is forgotten with its tokenizer (a weak reference).

>>> class Tok: ...
>>> tok = Tok()
>>> remember(tok, "model.json", b'{"format": "subwordlab"}')
>>> source_of(tok)
('model.json', b'{"format": "subwordlab"}')
>>> source_of(Tok()) is None
True
"""

from __future__ import annotations

import weakref
from typing import Any

_SOURCES: dict[int, tuple[weakref.ref, str, bytes | str]] = {}


def remember(tok: Any, name: str, data: bytes | str) -> None:
    """Remember that ``tok`` was read from the model file ``name`` holding ``data``."""
    key = id(tok)

    def gone(ref: weakref.ref) -> None:  # (the tokenizer was freed: its id may be reused)
        if _SOURCES.get(key, (None,))[0] is ref:
            del _SOURCES[key]

    _SOURCES[key] = (weakref.ref(tok, gone), name, data)


def source_of(tok: Any) -> tuple[str, bytes | str] | None:
    """``(file name, its bytes or text)`` that ``tok`` was read from, or None."""
    entry = _SOURCES.get(id(tok))
    if entry is None or entry[0]() is not tok:
        return None
    return entry[1], entry[2]

