"""The SHA-256 of a file's bytes or of a text's UTF-8, hashed a slice at a time.

A 33 MB model file or a 30 MB corpus takes ~0.2 s to hash in one call in WebAssembly: long
enough to hold the page. ``sha256_steps`` yields between slices, so the page can paint and
answer in between; everywhere else ``drain`` runs it in one go.

>>> from subwordlab.base.events import drain
>>> drain(sha256_steps(b"abc"))[:16], drain(sha256_steps("abc"))[:16]
('ba7816bf8f01cfea', 'ba7816bf8f01cfea')
>>> list(sha256_steps("abcde", chunk=2))[:2]
[(2, 5), (4, 5)]
"""

from __future__ import annotations

import hashlib
from collections.abc import Generator

BYTES_A_SLICE = 1 << 22  # bytes hashed between two yields
CHARS_A_SLICE = 1 << 21  # characters encoded and hashed between two yields


def sha256_steps(data: bytes | bytearray | memoryview | str, chunk: int | None = None
                 ) -> Generator[tuple[int, int], None, str]:
    """The SHA-256 (hex) of ``data``'s bytes, or of a text's UTF-8, ``chunk`` bytes (or
    characters) at a time, yielding ``(done, total)`` between slices.

    A text's UTF-8 is its slices' UTF-8 one after the other, so the digest is the whole's; a
    lone surrogate is hashed as ``surrogatepass`` writes it (no file or link can hold one,
    and hashing never fails on one)."""
    h = hashlib.sha256()
    whole: str | memoryview = data if isinstance(data, str) else memoryview(data)
    step = chunk or (CHARS_A_SLICE if isinstance(whole, str) else BYTES_A_SLICE)
    for lo in range(0, len(whole), step):
        part = whole[lo:lo + step]
        h.update(part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part)
        if lo + step < len(whole):
            yield lo + step, len(whole)
    return h.hexdigest()
