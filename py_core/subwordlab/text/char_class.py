r"""A set of code points written as a stdlib ``re`` class that is fast on every script.

Both the stdlib translation of ``regex`` patterns (``regex_compat``) and the Unicode data's
sets (``unicode_data``) write their character sets with ``set_regex``; it is its own module
so that neither imports the other for it.

>>> union([(0x61, 0x63)], [(0x62, 0x66)]), complement([(0, 0x60), (0x7B, 0x10FFFF)])
([(97, 102)], [(97, 122)])
>>> set_regex([(0x61, 0x7A)])
'[a-z]'
"""

import itertools

MAX = 0x10FFFF
BMP_END = 0xFFFF


def union(*range_lists):
    """Sorted, merged union of (first, last) range lists."""
    merged = []
    for first, last in sorted(itertools.chain(*range_lists)):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]))
        else:
            merged.append((first, last))
    return merged


def complement(ranges):
    """Ranges of 0..0x10FFFF not covered by the sorted, merged `ranges`."""
    gaps, nxt = [], 0
    for first, last in ranges:
        if first > nxt:
            gaps.append((nxt, first - 1))
        nxt = last + 1
    if nxt <= MAX:
        gaps.append((nxt, MAX))
    return gaps


def esc(cp):
    """One code point as class text: itself (re parses that 3x faster than an escape), or an escape
    for ASCII punctuation, controls and surrogates (keeps the output printable and UTF-8 safe)."""
    if (cp < 0x80 and chr(cp).isalnum()) or (cp > 0xA0 and not 0xD800 <= cp <= 0xDFFF):
        return chr(cp)
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def body(ranges):
    """Class body text for sorted ranges, e.g. 'a-z\\xaa'."""
    return "".join(esc(a) if a == b else esc(a) + ("-" if b > a + 1 else "") + esc(b) for a, b in ranges)


def set_regex(ranges, literal="", negated=False, ignore_case=False):
    """A regex matching one char in (or, if negated, not in) the union of `literal` class text and `ranges`.

    Speed: sre checks a class's astral (>U+FFFF) ranges one by one after its BMP bitmap,
    so a plain class would scan hundreds of ranges for every BMP char it rejects (3-10x
    slower on English). The set is split into a BMP class and an astral class behind a
    cheap astral-only lookahead, so every BMP char is settled by one bitmap lookup.
    re.compile's cost grows with the BMP code points listed (a Python loop over each),
    so a large BMP part is written as the negation of its complement - except where
    IGNORECASE may apply: re folds the case of a class's members before negating it, so
    "not in the complement" would then differ from "in the set".
    """
    if negated and not literal and not ignore_case:
        ranges, negated = complement(ranges), False
    bmp = [(a, min(b, BMP_END)) for a, b in ranges if a <= BMP_END]
    astral = [(max(a, BMP_END + 1), b) for a, b in ranges if b > BMP_END]
    big = not (literal or ignore_case) and sum(b - a + 1 for a, b in bmp) > 0x8000
    if not astral or astral == [(BMP_END + 1, MAX)]:
        # No astral ranges to scan: one class, written as "not in the complement" if big.
        gaps = complement(ranges)
        if big and gaps:
            return f"[^{body(gaps)}]"
        if literal or ranges:
            return f"[{'^' if negated else ''}{literal}{body(ranges)}]"
        return f"[{'' if negated else '^'}{esc(0)}-{esc(MAX)}]"  # (not) in the empty set
    only_astral = f"(?=[{esc(BMP_END + 1)}-{esc(MAX)}])"
    if negated:
        # BMP chars: not in literal or bmp part; astral chars: not in literal or astral part.
        alts = [f"[^{literal}{body(bmp)}{esc(BMP_END + 1)}-{esc(MAX)}]",
                f"{only_astral}[^{literal}{body(astral)}]"]
    else:
        # BMP part (listed, or as "not in its complement" if big); astral part behind the lookahead.
        alts = [f"[^{body(complement(bmp))}]"] if big else [f"[{literal}{body(bmp)}]"] if literal or bmp else []
        alts.append(f"{only_astral}[{body(astral)}]")
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
