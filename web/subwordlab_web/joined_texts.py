"""Several texts sent to the compute session as one string (a corpus crosses as one buffer),
their lengths in the request: ``joined`` and ``cut`` are each other's inverse.

>>> lengths, text = joined(["ab", "", "cde"])
>>> lengths, text, cut(text, lengths, "resend them")
([2, 0, 3], 'abcde', ['ab', '', 'cde'])
"""

from __future__ import annotations

from typing import Any


def joined(texts: list[str]) -> tuple[list[int], str]:
    """The texts' lengths and the texts one after another."""
    return [len(t) for t in texts], "".join(texts)


def cut(text: str, lengths: Any, problem: str) -> list[str]:
    """``text`` cut back into texts of ``lengths``; a ValueError saying ``problem`` when the
    lengths are not whole numbers that add up to the text's length (a request not the page's)."""
    if not isinstance(lengths, list) or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in lengths) \
            or sum(lengths) != len(text):
        raise ValueError(problem)
    parts, at = [], 0
    for n in lengths:
        parts.append(text[at:at + n])
        at += n
    return parts
