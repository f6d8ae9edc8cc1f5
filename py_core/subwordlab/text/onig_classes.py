r"""Oniguruma's character classes ``[...]`` read for ``onig_import``: items, ranges, POSIX
brackets, nested classes, ``&&`` and case-insensitive classes, as one-character regexes.

A class with sets or nested classes becomes an alternation, ``&&`` a chain of lookaheads
(``[a-z&&[^aeiou]]`` -> ``(?:(?=[a-z])[^aeiou])``), a negated one "not that, then any
character". Under (?i) a class of ASCII letters gets Oniguruma's case partners, and only
those: ``[a-z]`` also matches "K" (Kelvin sign) and "ſ" (long s), never "İ".

>>> _Class().empty(), esc(0x41), esc(0x2D), set_text((r"\p{L}", True))
(True, 'A', '\\x2d', '\\P{L}')
"""

import functools
import re

from . import onig_sets, unicode_data

# Non-ASCII general categories without case: under (?i) such characters match only themselves;
# So and Nl too, but for the circled letters and Roman numerals (Ⓐ/ⓐ, Ⅻ/ⅻ have cases).
_CASELESS = {"Lo", "Nd", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "Zs", "Zl", "Zp",
             "Cc", "Cf", "Co", "Mc", "Me", "So", "Nl"}
_CASED_EXCEPTIONS = ((0x2160, 0x217F), (0x24B6, 0x24E9))
# ASCII letters that Oniguruma also folds onto a non-ASCII letter: the Kelvin sign and long s.
ASCII_PARTNERS = {"k": "\u212a", "s": "\u017f"}
_POSIX = re.compile(r"\[:(\^?)([a-z]+):\]")
ANY = "(?s:.)"


def esc(cp):
    """One code point as class or pattern text: itself if alphanumeric ASCII or above U+00A0, else an escape."""
    if (cp < 0x80 and chr(cp).isalnum()) or (cp > 0xA0 and not 0xD800 <= cp <= 0xDFFF):
        return chr(cp)
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def set_text(body_negated):
    """A (body, negated) set as a one-character regex."""
    body, negated = body_negated
    if re.fullmatch(r"\\p\{\w+\}", body):
        return ("\\P" if negated else "\\p") + body[2:]  # one property: as it is
    return f"[{'^' if negated else ''}{body}]"


def caseless(cp):
    """True if Oniguruma's (?i) leaves this non-letter or non-ASCII code point alone."""
    if cp < 0x80:
        return not chr(cp).isalpha()
    return _rangecaseless(cp, cp)


class _Class:
    """One side of a class's && being read: code point ranges, set bodies and one-char regexes."""

    def __init__(self):
        self.ranges, self.bodies, self.frags = [], [], []

    def empty(self):
        return not (self.ranges or self.bodies or self.frags)

    def text(self, fold):
        """The union as a one-character regex (``fold``: with Oniguruma's ASCII case partners)."""
        ranges = self.ranges + (_fold_partners(self) if fold else [])
        parts = [f"[{''.join(esc(a) + ('-' + esc(b) if b > a else '') for a, b in ranges)}{''.join(self.bodies)}]"]
        parts = (parts if ranges or self.bodies else []) + self.frags
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def _fold_partners(side):
    """The case partners Oniguruma's (?i) adds to a class of ASCII letters (and caseless others)."""
    letters = {chr(c) for a, b in side.ranges for c in range(a, min(b, 0x7F) + 1) if chr(c).isalpha()}
    letters |= {c for body in side.bodies for c in _BODY_LETTERS[body]}
    extra = {c.swapcase() for c in letters} | {ASCII_PARTNERS[c.lower()] for c in letters if c.lower() in ASCII_PARTNERS}
    return [(ord(c), ord(c)) for c in sorted(extra - letters)]


# Set bodies a case-insensitive class may hold: none has cased characters beyond ASCII letters.
_BODY_LETTERS: dict[str, set[str]] = {onig_sets.posix_set(name)[0]: set() for name in ("digit", "space", "blank", "cntrl")}
_BODY_LETTERS.update({"0-9A-Fa-f": set("abcdefABCDEF"), r"\x00-\x7f": set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")})


def read_class(reader, flags):
    """The class [...] at ``reader.i`` of a pattern reader (``onig_import._Reader``) as a one-character
    regex: items, ranges, POSIX brackets, nested classes and && intersections."""
    start = reader.i
    p = reader.p
    reader.i += 1
    negated = p.startswith("^", reader.i)
    reader.i += negated
    sides, side = [], _Class()
    first = True
    while True:
        if reader.i >= len(p):
            reader.i = start
            reader.fail("an unterminated class: add the closing ']'")
        c = p[reader.i]
        if c == "]" and not first:
            reader.i += 1
            break
        first = False
        if p.startswith("&&", reader.i):
            if side.empty():
                reader.fail("an empty side of && is not translated; write both sides")
            sides.append(side)
            side = _Class()
            reader.i += 2
            continue
        posix = _POSIX.match(p, reader.i)
        if posix:
            found = onig_sets.posix_set(posix.group(2))
            if found is None:
                reader.fail(f"[:{posix.group(2)}:] is not a POSIX bracket; Oniguruma has alnum, alpha, ascii, blank, "
                          "cntrl, digit, graph, lower, print, punct, space, upper, xdigit and word")
            reader.i = posix.end()
            _add_set(reader, side, (found[0], found[1] != bool(posix.group(1))), flags)
            continue
        if c == "[":
            if flags.get("i"):
                reader.fail("a nested class under (?i) is not translated; list its characters in one class")
            side.frags.append(read_class(reader, flags))
            continue
        item = reader.escape(flags, True) if c == "\\" else _class_char(reader)
        if isinstance(item, tuple):
            if p.startswith("-", reader.i) and not p.startswith("-]", reader.i):
                reader.fail("a range from a set (\\d-z) is not allowed")
            _add_set(reader, side, item, flags)
            continue
        low = high = item
        if p.startswith("-", reader.i) and not p.startswith("-]", reader.i) and not p.startswith("-&&", reader.i):
            reader.i += 1
            if p.startswith("[", reader.i):
                reader.fail("a range to a class ([a-[b]]) is not allowed")
            high = reader.escape(flags, True) if p[reader.i] == "\\" else _class_char(reader)
            if isinstance(high, tuple):
                reader.fail("a range to a set or class ([a-\\d]) is not allowed")
            if high < low:
                reader.fail("a range out of order ([z-a])")
        if flags.get("i") and not _rangecaseless(low, high):
            reader.fail(f"case-insensitive class with {chr(low)!r}..{chr(high)!r}: Oniguruma's (?i) folds non-ASCII "
                      "letters by its own rules; list the cases yourself and drop (?i)")
        side.ranges.append((low, high))
    if side.empty():
        reader.fail("an empty side of && is not translated; write both sides")
    sides.append(side)
    fold = bool(flags.get("i"))
    if fold and len(sides) > 1:
        reader.fail("&& in a case-insensitive class is not translated; write the intersection out and drop (?i)")
    texts = [s.text(fold) for s in sides]
    if len(sides) == 1 and not side.frags:
        # a plain class: negate it in place
        body = texts[0]
        return ("[^" + body[1:]) if negated else body
    positive = "(?:" + "".join(f"(?={t})" for t in texts[:-1]) + texts[-1] + ")" if len(texts) > 1 else texts[0]
    return f"(?:(?!{positive}){ANY})" if negated else positive

def _add_set(reader, side, found, flags):
    """Put a (body, negated) set into a class side."""
    if flags.get("i") and (found[1] or found[0] not in _BODY_LETTERS):
        reader.fail("a set such as [:alpha:] or \\w inside a case-insensitive class: Oniguruma folds its members' "
                  "cases (\"ß\" then also matches \"ss\"); move it out of the class or drop (?i)")
    if found[1]:
        side.frags.append(set_text(found))
    else:
        side.bodies.append(found[0])

def _class_char(reader):
    """One literal character inside a class."""
    c = reader.p[reader.i]
    reader.i += 1
    return ord(c)


@functools.cache
def _cased_ranges():
    """The non-ASCII code points that Oniguruma's (?i) may fold, as ranges."""
    table = unicode_data.category_ranges()
    return [r for cat, ranges in table.items() if cat not in _CASELESS for r in ranges] + list(_CASED_EXCEPTIONS)


def _rangecaseless(low, high):
    """True if (?i) leaves every non-ASCII code point of low..high alone."""
    low = max(low, 0x80)
    return low > high or not any(a <= high and low <= b for a, b in _cased_ranges())
