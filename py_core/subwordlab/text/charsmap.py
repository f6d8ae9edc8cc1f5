"""A precompiled charsmap: SentencePiece's normalization table, read as SentencePiece reads it.

SentencePiece does not normalize with Unicode's algorithm: ``spm_train`` and the models it
writes carry a table of replacements (UTF-8 key -> UTF-8 text) compiled into a double-array
trie (``darts-clone``) followed by the replacement texts, each ended by a NUL byte. The
normalizer walks the text from the left; at each position it takes the *longest* key that
starts there and writes its replacement, else copies one character (``Normalizer::
NormalizePrefix`` in sentencepiece's normalizer.cc). The table of the ``nfkc`` rule was made
from an older Unicode's NFKC, and as a table it neither reorders combining marks (Burmese
``့`` and ``်`` stay in the order written) nor composes what no key lists, so on real text
it parts from Unicode's NFKC (124 of 10,136 lines of the UDHR in 47 languages), and
``rules="sentencepiece"`` uses it (``spm_nfkc()``). The same bytes are what a
``tokenizer.json`` calls ``Precompiled`` (base64 in ``precompiled_charsmap``).

The trie, one 32-bit unit per node (darts-clone's layout): bit 8 says the node ends a key
(its value sits in the unit at ``offset``), bits 0-7 and 31 are the label the parent reached
it by (a byte; a value unit has bit 31 set, so no byte matches it), bits 10-31 the offset to
the children (shifted 8 more bits if bit 9 is set); a child by byte ``b`` sits at
``node ^ offset ^ b``.

>>> table = spm_nfkc()
>>> table.normalize("ｈｅｌｌｏ ﬁ ①")
'hello fi 1'
>>> table.normalize("e\\u0301") == "\\u00e9", table.normalize("\\u1000\\u103a\\u1037") == "\\u1000\\u103a\\u1037"
(True, True)
"""

from __future__ import annotations

import base64
import functools
import re
import sys
import zlib
from array import array

_LEAF = 1 << 8  # the node ends a key
_LABEL = 0x800000FF  # the byte a node is reached by (bit 31: a value unit, reached by none)
_VALUE = 0x7FFFFFFF


def _offset(unit: int) -> int:
    """Where a node's children start, relative to the node (XOR)."""
    return (unit >> 10) << ((unit & 512) >> 6)


class CharsMap:
    """A precompiled charsmap (``blob``: its bytes). Raises ValueError if the bytes are not one.

    >>> CharsMap(b"\\x00\\x00")
    Traceback (most recent call last):
    ...
    ValueError: a precompiled charsmap starts with its trie's size in 4 bytes; this one has 2 bytes in all
    """

    def __init__(self, blob: bytes):
        # step 1: the trie's size, the trie (32-bit little-endian units), the replacement texts
        blob = bytes(blob)
        if len(blob) < 4:
            raise ValueError(f"a precompiled charsmap starts with its trie's size in 4 bytes; this one has {len(blob)} bytes in all")
        size = int.from_bytes(blob[:4], "little")
        if size % 4 or size > len(blob) - 4 or size == 0:
            raise ValueError(f"this precompiled charsmap says its trie has {size:,} bytes, but it has {len(blob) - 4:,} "
                             "after the size (a whole number of 4-byte units is needed): the file is damaged")
        units = array("I")
        units.frombytes(blob[4:4 + size])
        if sys.byteorder == "big":
            units.byteswap()
        self.units = units.tolist()
        self.texts = blob[4 + size:]
        self.blob = blob
        # step 2: which characters can start a key (a first byte the root has a child by),
        # so a text is walked only where a replacement can begin (``_starts``)
        root = _offset(self.units[0])
        firsts = [b for b in range(256) if self._child(root, b) is not None]
        self._starts = _start_pattern(self, firsts)
        self._from_root: dict[str, tuple[int, int]] = {}  # char -> (node after it or -1, value or -1)

    def _child(self, node: int, byte: int) -> int | None:
        """The node reached from ``node`` (an offset already applied) by ``byte``, or None."""
        pos = node ^ byte
        if pos >= len(self.units) or self.units[pos] & _LABEL != byte:
            return None
        return pos

    def _walk(self, node: int, ch: str) -> tuple[int, int]:
        """From ``node`` (the children's base) through the UTF-8 bytes of ``ch``: the base of
        the node reached (-1 if the walk falls off the trie) and the value of the key that
        ends with ``ch`` (-1 if none)."""
        value = -1
        for b in ch.encode("utf-8", "surrogatepass"):
            pos = self._child(node, b)
            if pos is None:
                return -1, -1
            unit = self.units[pos]
            node = pos ^ _offset(unit)
            value = self.units[node] & _VALUE if unit & _LEAF and node < len(self.units) else -1
        return node, value

    def longest_match(self, text: str, i: int) -> tuple[int, str]:
        """The longest key starting at ``text[i]``: (its length in characters, its
        replacement), or (0, ''). SentencePiece's rule: the longest wins."""
        first = self._from_root.get(text[i])
        if first is None:
            first = self._from_root[text[i]] = self._walk(_offset(self.units[0]), text[i])
        node, value = first
        best = (1, value) if value >= 0 else (0, -1)
        j = i + 1
        while node >= 0 and j < len(text):
            node, value = self._walk(node, text[j])
            j += 1
            if value >= 0:
                best = (j - i, value)
        length, value = best
        if not length or value >= len(self.texts):  # (a damaged table: the character is kept)
            return 0, ""
        end = self.texts.find(b"\0", value)
        return length, self.texts[value:end if end >= 0 else len(self.texts)].decode("utf-8", "replace")

    def _replacements(self, text: str):
        """(start, length, replacement) of each key replaced, left to right."""
        done = 0
        for m in self._starts.finditer(text):
            i = m.start()
            if i < done:  # (inside the last replaced key)
                continue
            length, replacement = self.longest_match(text, i)
            if length:
                yield i, length, replacement
                done = i + length

    def normalize(self, text: str) -> str:
        """The text with every longest key replaced, left to right."""
        out, done = [], 0
        for i, length, replacement in self._replacements(text):
            out += [text[done:i], replacement]
            done = i + length
        return "".join(out) + text[done:] if out else text

    def apply(self, units: list) -> list:
        """``normalize`` on (char, start, end) units: the k-th character of a replacement
        comes from the k-th character of its key (the last one for any beyond), as the
        tokenizers library aligns its ``Precompiled`` normalizer's output."""
        out, done = [], 0
        for i, length, replacement in self._replacements("".join(u[0] for u in units)):
            key = units[i:i + length]
            out += units[done:i]
            out += [(ch, key[min(k, length - 1)][1], key[min(k, length - 1)][2]) for k, ch in enumerate(replacement)]
            done = i + length
        return out + units[done:]


def _start_pattern(table: CharsMap, firsts: list[int]) -> re.Pattern:
    """A regular expression that finds every place a key may start (it may find more):
    a character whose first UTF-8 byte starts a key; an ASCII one only if it is a key alone
    or the character after it may continue one."""
    ranges, ascii_keys, ascii_continued = [], [], False
    root = _offset(table.units[0])
    for b in firsts:
        if b < 0x80:
            pos = table._child(root, b)
            unit = table.units[pos]  # type: ignore[index]
            node = pos ^ _offset(unit)  # type: ignore[operator]
            if unit & _LEAF:
                ascii_keys.append(chr(b))
            ascii_continued |= any(table._child(node, c) is not None for c in range(1, 0x80))
            continue
        # every character whose UTF-8 form starts with byte b
        if 0xC2 <= b <= 0xDF:
            lo = (b - 0xC0) << 6
            ranges.append((lo, lo + 0x3F))
        elif 0xE0 <= b <= 0xEF:
            lo = (b - 0xE0) << 12
            ranges.append((max(lo, 0x800), lo + 0xFFF))
        elif 0xF0 <= b <= 0xF4:
            lo = (b - 0xF0) << 18
            ranges.append((max(lo, 0x10000), min(lo + 0x3FFFF, 0x10FFFF)))
    wide = "".join(f"\\U{a:08x}-\\U{z:08x}" for a, z in ranges)
    ascii_firsts = "".join(re.escape(chr(b)) for b in firsts if b < 0x80)
    parts = [f"[{wide}]"] if wide else []
    if ascii_keys or ascii_continued:
        parts.append(f"[{ascii_firsts}]")  # (the next character cannot rule a key out)
    elif ascii_firsts:
        parts.append(f"[{ascii_firsts}](?=[^\\x00-\\x7f])")
    return re.compile("|".join(parts) or "(?!)")


@functools.lru_cache(maxsize=1)
def spm_nfkc() -> CharsMap:
    """sentencepiece 0.2.3's ``nfkc`` table (``text/spm_nfkc_table.py``), read once."""
    from .spm_nfkc_table import PACKED

    return CharsMap(zlib.decompress(base64.b64decode("".join(PACKED))))
