"""Character properties from the core's own Unicode tables (one pinned version), so the same
spec and corpus give the same model in every Python: CPython 3.11 has Unicode 14.0, 3.12
15.0, 3.13 15.1, the page's Pyodide (3.14) 16.0, and reading the runtime's ``unicodedata``
would make models differ on text with newer characters (CJK Extension H, Kawi, Garay...).

- ``category(ch)`` and ``category_ranges()``: general categories (Unicode ``UNICODE_VERSION``);
- ``script(ch)``: the ISO 15924 script (``Latn``, ``Zyyy`` for Common, ``Zinh`` Inherited);
- ``normalize(form, text)``, ``combining(ch)`` and ``lower(text)``: NFC/NFD/NFKC/NFKD and
  lower-casing as Unicode ``UNICODE_VERSION`` defines them.

How normalization and case stay pinned without carrying every table (the decomposition and
composition data would be ~100 KB more): Unicode's stability policy freezes a character's
normalization once it is assigned, so for characters every supported Python knows (Unicode
14.0 and older) the runtime's ``unicodedata`` is exact. The few characters assigned since
that normalize, combine or have a lower-case form come with the tables (``NEWER_*``); a
character a newer runtime knows but the pinned version does not is left alone, as the
pinned version would. Bound: a change an newer Unicode makes to an *old* character's case
mapping (none in 15.0-17.0) would show in a runtime that has it.

>>> category("a"), category("\\U00010D50"), script("\\U00031350"), script(",")
('Ll', 'Lu', 'Hani', 'Zyyy')
>>> lower("\\U00010D50A")  # GARAY CAPITAL LETTER A (Unicode 16.0) in any Python
'\\U00010d70a'
"""

import bisect
import functools
import re
import unicodedata

from . import unicode_tables as _t
from .char_class import set_regex

UNICODE_VERSION = _t.UNICODE_VERSION
RUNTIME_VERSION = unicodedata.unidata_version
# the digits SentencePiece knows as digits (its is_unicode_decimal_number): 0-9 and the fullwidth
# ０-９; any other Unicode digit (Khmer ១, Devanagari १) is a letter to its split_digits
SPM_DIGITS = frozenset("0123456789\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19")


def _version(text):
    return tuple(int(x) for x in text.split("."))


_RUNTIME, _PINNED = _version(RUNTIME_VERSION), _version(UNICODE_VERSION)


@functools.cache
def _runs(name):
    """(starts, values) of a run table: 'CATEGORY_RUNS' (2 letters) or 'SCRIPT_RUNS' (4)."""
    width = 2 if name == "CATEGORY_RUNS" else 4
    starts, values = [], []
    for m in re.finditer(r"([0-9a-f]+)([A-Z][a-z]{%d})" % (width - 1), getattr(_t, name)):
        starts.append(int(m.group(1), 16))
        values.append(m.group(2))
    return starts, values


_CATEGORY_CACHE: dict[str, str] = {}


def category(ch):
    """The general category of one character (two letters, 'Cn' unassigned). Example: 'a' -> 'Ll'."""
    got = _CATEGORY_CACHE.get(ch)
    if got is None:
        starts, values = _runs("CATEGORY_RUNS")
        got = _CATEGORY_CACHE[ch] = values[bisect.bisect_right(starts, ord(ch)) - 1]
    return got


def script(ch):
    """The ISO 15924 script of one character: 'Latn', 'Hani', 'Zyyy' (Common), 'Zinh'
    (Inherited), 'Zzzz' (unassigned). Example: 'é' -> 'Latn'."""
    starts, values = _runs("SCRIPT_RUNS")
    return values[bisect.bisect_right(starts, ord(ch)) - 1]


@functools.cache
def category_ranges():
    """{two-letter category: [(first, last), ...]} over all code points."""
    starts, values = _runs("CATEGORY_RUNS")
    table = {}
    for k, (start, cat) in enumerate(zip(starts, values)):
        end = starts[k + 1] - 1 if k + 1 < len(starts) else 0x10FFFF
        table.setdefault(cat, []).append((start, end))
    return table


# -- characters the runtime and the pinned version see differently -------------------------

@functools.cache
def _foreign():
    """A regex of the characters whose normalization or case the runtime gets wrong for
    the pinned version, or None: those assigned since the runtime's Unicode that normalize,
    combine or lower-case (runtime older), or those the runtime knows and the pinned
    version leaves unassigned (runtime newer)."""
    if _RUNTIME == _PINNED:
        return None
    if _RUNTIME < _PINNED:
        points = [cp for cp in list(_t.NEWER_NORMALIZATION) + list(_t.NEWER_LOWER)
                  if unicodedata.category(chr(cp)) == "Cn"]
    else:
        points = [cp for first, last in category_ranges().get("Cn", []) for cp in range(first, last + 1)
                  if unicodedata.category(chr(cp)) != "Cn"]
    if not points:
        return None
    # subtle: the stdlib re tests a class's characters above U+FFFF one by one after its
    # bitmap (the old class of ~180 astral letters cost 0.57 us a character: 1.1 s to search
    # 2 MB of "a"); char_class writes the set as ranges with the astral ones behind one
    # range test (0.06 us a character), as it does for the pattern classes
    runs = []
    for cp in sorted(set(points)):
        if runs and runs[-1][1] == cp - 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    return re.compile(set_regex([tuple(r) for r in runs]))


def _has_foreign(text):
    """Whether `text` holds a character the runtime sees differently from the pinned version
    (never an ASCII one: all of those are Unicode 1.1's)."""
    foreign = _foreign()
    return foreign is not None and not text.isascii() and foreign.search(text) is not None


def combining(ch):
    """The canonical combining class of one character (0 for starters). Example: '\\u0301' -> 230."""
    newer = _t.NEWER_NORMALIZATION.get(ord(ch))
    if newer is not None:
        return newer[0]
    if _RUNTIME > _PINNED and category(ch) == "Cn":
        return 0
    return unicodedata.combining(ch)


def normalize(form, text):
    """``unicodedata.normalize(form, text)`` as Unicode ``UNICODE_VERSION`` defines it.

    Example: normalize('NFKC', 'ﬁ') -> 'fi'."""
    if not _has_foreign(text):
        return unicodedata.normalize(form, text)
    foreign = _foreign()
    if _RUNTIME > _PINNED:
        # characters the pinned version does not have are starters that nothing composes
        # with: normalize the text between them
        out, pos = [], 0
        for m in foreign.finditer(text):
            out += [unicodedata.normalize(form, text[pos:m.start()]), m.group()]
            pos = m.end()
        return "".join(out) + unicodedata.normalize(form, text[pos:])
    return _normalize_with_newer(form, text)


@functools.cache
def newer_case_partners():
    """{code point: its case partners} for the case pairs formed after the oldest supported
    Unicode (a capital assigned since, and its small letter, which may be older: U+A7CB
    LATIN CAPITAL LETTER RAMS HORN and U+0264 ɤ). A runtime with an older Unicode does not
    pair them (case-insensitive patterns add them: ``regex_compat``).

    >>> newer_case_partners()[0x264], newer_case_partners()[0xA7CB]
    ((42955,), (612,))
    """
    pairs = {}
    for capital, small in sorted(_t.NEWER_LOWER.items()):
        pairs.setdefault(capital, []).append(small)
        pairs.setdefault(small, []).append(capital)
    return {cp: tuple(sorted(set(p))) for cp, p in pairs.items()}


def lower(text):
    """``text.lower()`` as Unicode ``UNICODE_VERSION`` defines it. Example: 'ÄB' -> 'äb'."""
    if not _has_foreign(text):
        return text.lower()
    foreign = _foreign()
    if _RUNTIME > _PINNED:
        out, pos = [], 0
        for m in foreign.finditer(text):
            out += [text[pos:m.start()].lower(), m.group()]
            pos = m.end()
        return "".join(out) + text[pos:].lower()
    return text.translate(_t.NEWER_LOWER).lower()


# -- the normalization algorithm, for text with characters newer than the runtime ----------

def _decompose(ch, compat):
    """The full decomposition of one character (canonical, or compatibility too)."""
    newer = _t.NEWER_NORMALIZATION.get(ord(ch))
    if newer is None:
        if unicodedata.category(ch) == "Cn":
            return [ch]  # newer than the runtime and inert (no decomposition, class 0)
        return list(unicodedata.normalize("NFKD" if compat else "NFD", ch))
    mapping = newer[1]
    if not mapping or (mapping.startswith("<") and not compat):
        return [ch]
    parts = mapping.split(" ")
    if parts[0].startswith("<"):
        parts = parts[1:]
    return [d for cp in parts for d in _decompose(chr(int(cp, 16)), compat)]


@functools.lru_cache(maxsize=4096)
def _compose_pair(a, b):
    """The primary composite of two characters, or None."""
    for cp, (_, mapping) in _t.NEWER_NORMALIZATION.items():
        if mapping and not mapping.startswith("<") and mapping.split(" ") == [f"{ord(a):04X}", f"{ord(b):04X}"]:
            return chr(cp) if chr(cp) not in _EXCLUDED else None
    if unicodedata.category(a) == "Cn" or unicodedata.category(b) == "Cn":
        return None
    both = unicodedata.normalize("NFC", a + b)
    return both if len(both) == 1 else None


# Canonical composites among the newer characters that NFC never produces (none in 15.0-16.0).
_EXCLUDED: frozenset[str] = frozenset()


def _normalize_with_newer(form, text):
    """Decompose, order the marks by combining class, compose (NFC/NFKC): UAX #15."""
    compat = form in ("NFKC", "NFKD")
    chars = [d for ch in text for d in _decompose(ch, compat)]
    # canonical ordering: a stable sort of each run of non-starters by combining class
    i = 0
    while i < len(chars):
        if combining(chars[i]) == 0:
            i += 1
            continue
        j = i
        while j < len(chars) and combining(chars[j]) != 0:
            j += 1
        chars[i:j] = sorted(chars[i:j], key=combining)
        i = j
    if form in ("NFD", "NFKD"):
        return "".join(chars)
    # composition: each character joins the last starter unless something between blocks it
    out, starter = [], None
    for ch in chars:
        cc = combining(ch)
        if starter is not None:
            last = combining(out[-1]) if len(out) - 1 > starter else None
            if last is None or (last != 0 and last < cc):
                composite = _compose_pair(out[starter], ch)
                if composite is not None:
                    out[starter] = composite
                    continue
        if cc == 0:
            starter = len(out)
        out.append(ch)
    return "".join(out)
