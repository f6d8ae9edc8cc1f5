"""Inspect's "Decode ids" box: ids typed by the learner -> their tokens and the text.

>>> parse_ids("15, 27 3", 100)
[15, 27, 3]
>>> parse_ids("[1, 2]", 10)
[1, 2]
>>> parse_ids("7 x", 10)
Traceback (most recent call last):
...
ValueError: “x” is not a token id: type whole numbers from 0 to 9, separated by spaces or commas
"""

from __future__ import annotations

import re
from typing import Any

from .tokens import is_byte_level, token_label, visible

_SEPARATORS = re.compile(r"[\s,;]+")


def parse_ids(raw: str, vocab_size: int) -> list[int]:
    """Whole numbers separated by spaces, commas or semicolons (brackets allowed around
    them, as Python or JSON print a list). Raises ValueError saying what to type."""
    parts = [p for p in _SEPARATORS.split(raw.strip().strip("[]()")) if p]
    ids = []
    for part in parts:
        if not part.isdigit():
            raise ValueError(f"“{part}” is not a token id: type whole numbers from 0 to {vocab_size - 1:,}, "
                             "separated by spaces or commas")
        value = int(part)
        if value >= vocab_size:
            raise ValueError(f"{value:,} is not in this vocabulary: its ids go from 0 to {vocab_size - 1:,}")
        ids.append(value)
    return ids


def decode_view(tok: Any, raw: str) -> tuple[list[str], str]:
    """(each id's token as a chip shows it, the decoded text with white space visible).

    Raises ValueError (the message for the learner) for text that is not a list of ids.
    """
    ids = parse_ids(raw, tok.vocab_size)
    byte_level = is_byte_level(tok)
    labels = [token_label(tok.id_to_token(i), byte_level) for i in ids]
    return labels, visible(tok.decode(ids))
