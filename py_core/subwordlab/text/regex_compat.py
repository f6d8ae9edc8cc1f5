r"""Compile GPT-style pre-tokenization regexes with or without the ``regex`` module.

The built-in patterns use Unicode properties (``\p{L}``, ``\p{N}``, ``[^\s\p{L}\p{N}]``)
that the stdlib ``re`` lacks. :func:`compile_pattern` compiles :func:`translate`'s output
with ``re`` (``regex`` only for what the translation cannot express, when importable):
every ``\p{..}``/``\P{..}`` general category becomes an explicit code point class read
from the core's pinned Unicode tables (``subwordlab.text.unicode_data``), and ``\s \S \w \W
\b \B`` become classes/lookarounds with ``regex``'s meaning (``re``'s ``\s`` also matches U+001C..U+001F; ``re``'s ``\w`` lacks
combining marks and has No digits such as "²"). Everything else is passed through;
``re`` has possessive quantifiers and atomic groups since Python 3.11.

>>> from subwordlab.text.regex_compat import compile_pattern, compile_stdlib, translate
>>> compile_pattern(r" ?\p{L}+| ?\p{N}+").findall("Hello world 42")
['Hello', ' world', ' 42']
>>> compile_stdlib(r"\p{Lu}\p{Ll}+").findall("Grüße aus Köln")
['Grüße', 'Köln']
>>> translate(r"\p{Zl}|[\p{Zp}\r]+")
'[\u2028]|[\\x0d\u2029]+'

Unicode versions and determinism: the classes come from the core's tables for one pinned
Unicode version (``UNICODE_VERSION``, 16.0), never from the runtime: ``unicodedata`` is
14.0 in CPython 3.11, 15.0 in 3.12, 15.1 in 3.13 and 16.0 in 3.14 (Pyodide), and ``regex``
carries its own (18.0 in regex 2026.11.19; they differ from 16.0 on the code points
assigned since, plus U+0295, Ll -> Lo in 17.0). So the same pattern splits the same text
identically in every Python, with or without ``regex``; ``regex`` itself only compiles what
the translation cannot express.

Case-insensitive patterns (``(?i)``, ``(?i:...)``) are Unicode-stable too: re folds case
with the runtime's tables, so in CPython 3.11 (Unicode 14) ``(?i)ɤ`` would not match
U+A7CB (its capital since Unicode 16.0) while the page's Pyodide would. The translation
writes the case pairs formed since Unicode 14.0 out as classes from the pinned tables
(``ɤ`` -> ``[ɤꟌ]``; a class gets the partners of its members), so every Python from 3.11
to 3.14 folds as Unicode 16.0 does; all older pairs are the same in every runtime (case
pairs are stable once formed). Bound: a runtime newer than the pinned Unicode (17.0 in a
future Python) would also fold the pairs it adds.

Not translated exactly: under IGNORECASE, re's case folding also lets U+0345 match
letter classes and "i" match U+0131 (the built-in patterns only fold "'s", "'ll"...),
and a negated property inside a class (``[\P{Ll}x]``) folds differently.

Cost: the category table is read from the pinned tables on the first translation and
cached (a few ms); re.compile of a
translated built-in pattern takes 6-50 ms. The translated patterns run at about the
speed of ``regex`` on English and on the six-script UDHR (7-21 MB/s for ``findall``);
astral code points (emoji, historic scripts) cost ~1 us per class test, so emoji-heavy
text splits 2-3x slower than with ``regex``.
"""

import bisect
import functools
import re
import sys
import warnings

from . import unicode_data
from .char_class import complement, esc, set_regex, union
from .regex_syntax import WHITE_SPACE_RANGES, WORD_EXTRA, code_of, read_escape

try:
    import regex as _regex

    HAVE_REGEX = True
except ImportError:
    _regex = None
    HAVE_REGEX = False

__all__ = ["HAVE_REGEX", "UNICODE_VERSION", "compile_pattern", "compile_stdlib", "onig_spans", "onig_sub", "translate"]

UNICODE_VERSION = unicode_data.UNICODE_VERSION

_CATEGORIES = "Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No Pc Pd Ps Pe Pi Pf Po Sm Sc Sk So Zs Zl Zp Cc Cf Cs Co Cn".split()
_LONG_NAMES = {
    "letter": "L", "casedletter": "LC", "uppercaseletter": "Lu", "lowercaseletter": "Ll",
    "titlecaseletter": "Lt", "modifierletter": "Lm", "otherletter": "Lo",
    "mark": "M", "combiningmark": "M", "nonspacingmark": "Mn", "spacingmark": "Mc", "enclosingmark": "Me",
    "number": "N", "decimalnumber": "Nd", "letternumber": "Nl", "othernumber": "No",
    "punctuation": "P", "connectorpunctuation": "Pc", "dashpunctuation": "Pd", "openpunctuation": "Ps",
    "closepunctuation": "Pe", "initialpunctuation": "Pi", "finalpunctuation": "Pf", "otherpunctuation": "Po",
    "symbol": "S", "mathsymbol": "Sm", "currencysymbol": "Sc", "modifiersymbol": "Sk", "othersymbol": "So",
    "separator": "Z", "spaceseparator": "Zs", "lineseparator": "Zl", "paragraphseparator": "Zp",
    "other": "C", "control": "Cc", "format": "Cf", "surrogate": "Cs", "privateuse": "Co", "unassigned": "Cn",
}
# One-letter escapes that stand for one character inside a class (\b is a backspace there).
_CLASS_ESCAPES = {"a": 0x07, "b": 0x08, "t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
# What an error may suggest besides rewriting the pattern: the 'regex' module can be
# installed for the command line, never in the page (Pyodide has no build of it).
_REGEX_ADVICE = ("" if sys.platform == "emscripten" else
                 ", or install the 'regex' module (pip install regex; the web page cannot use it)")
# Inline flags that switch IGNORECASE on for the whole pattern, or on or off for one group.
_GLOBAL_I = re.compile(r"\(\?[a-zA-Z]*i[a-zA-Z]*\)")
_GROUP_I = re.compile(r"\(\?[a-zA-Z]*i[a-zA-Z]*(?:-[a-zA-Z]*)?:")
_GROUP_NOT_I = re.compile(r"\(\?[a-zA-Z]*-[a-zA-Z]*i[a-zA-Z]*:")
# A single-character escape outside a class whose code point can be read: \xHH, \x{H..}, \uHHHH, \UHHHHHHHH.
_CODE_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]{2}|x\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})\Z")


def _category_table():
    """{two-letter category: [(first, last), ...]}: the core's pinned Unicode tables."""
    table = {name: [] for name in _CATEGORIES}
    table.update(unicode_data.category_ranges())
    return table


def _categories(name):
    """Two-letter categories for a general-category name as regex spells it (loose: case, spaces, '_' and '-' ignored)."""
    key = re.sub(r"[\s_\-]", "", name).lower()
    key = re.sub(r"^(?:gc|generalcategory)[=:]", "", key)
    key = _LONG_NAMES.get(key, key).lower()
    if key == "lc":
        wanted = ["Lu", "Ll", "Lt"]
    else:
        wanted = [cat for cat in _CATEGORIES if cat.lower() == key or (len(key) == 1 and cat[0].lower() == key)]
    if not wanted:
        supported = "L, Lu, Ll, Lt, Lm, Lo, LC, M, Mn, Mc, Me, N, Nd, Nl, No, P, Pc, Pd, Ps, Pe, Pi, Pf, Po, " \
                    "S, Sm, Sc, Sk, So, Z, Zs, Zl, Zp, C, Cc, Cf, Cs, Co, Cn (or long names such as Letter)"
        raise ValueError(
            f"unsupported Unicode property \\p{{{name}}}: the stdlib fallback knows only general "
            f"categories: {supported}. Rewrite the pattern with those{_REGEX_ADVICE}.")
    return tuple(wanted)


@functools.cache
def _property_ranges(categories):
    """Merged ranges of a tuple of two-letter categories."""
    table = _category_table()
    return tuple(union(*(table[cat] for cat in categories)))


@functools.cache
def _word_ranges():
    """regex's \\w: letters, marks, Nd, Nl, Pc, joiners and the alphabetic So letters."""
    return tuple(union(*(_property_ranges(_categories(c)) for c in ("L", "M", "Nd", "Nl", "Pc")), WORD_EXTRA))


def _with_partners(ranges):
    """``ranges`` plus the case partners of their members among the case pairs formed since
    the oldest supported Unicode (a case-insensitive set then matches them in any runtime).
    Example: [(0x264, 0x264)] -> [(0x264, 0x264), (0xA7CB, 0xA7CB)]."""
    starts = [a for a, _ in ranges]
    extra = []
    for cp, partners in unicode_data.newer_case_partners().items():
        k = bisect.bisect_right(starts, cp) - 1
        if k >= 0 and cp <= ranges[k][1]:
            extra += [(q, q) for q in partners]
    return union(ranges, extra) if extra else ranges


def _literal_members(class_text):
    """The code points with newer case partners that a class written as plain text (no
    sets, e.g. '[a-zɤ]') contains, tested by re itself (no flags: code points only)."""
    test = re.compile(class_text).fullmatch
    return [(cp, cp) for cp in unicode_data.newer_case_partners() if test(chr(cp))]


def _folded_literal(cp, text):
    """A literal character under IGNORECASE: ``text`` itself, or a class with its newer case
    partners. Example: ɤ -> '[ɤꟌ]'."""
    partners = unicode_data.newer_case_partners().get(cp)
    return f"[{text}{''.join(map(esc, partners))}]" if partners else text


def _escape(pattern, i, in_class, ignore_case=False):
    """Read the escape at pattern[i] ('\\'): returns ((ranges, negated) or verbatim text, next index)."""
    text, nxt = read_escape(pattern, i)
    code = text[1:2]
    if code in ("p", "P"):
        # \p{Name}, \pL, \P{Name}, \p{^Name}
        name = text[3:-1] if text.startswith("{", 2) else text[2:]
        negate = (code == "P") != name.startswith("^")
        categories = _categories(name.lstrip("^"))
        if ignore_case and categories in (("Lu",), ("Ll",), ("Lt",)):
            categories = ("Lu", "Ll", "Lt")  # as regex does: case-insensitive Lu, Ll and Lt are all LC
        return (_property_ranges(categories), negate), nxt
    if code and code in "dD":
        # decimal digits from the pinned tables (re's \d reads the runtime's Unicode)
        return (_property_ranges(("Nd",)), code == "D"), nxt
    if code and code in "sSwW":
        # regex's whitespace / word sets, complemented for the upper-case forms.
        return (WHITE_SPACE_RANGES if code in "sS" else _word_ranges(), code.isupper()), nxt
    if code and code in "bB" and not in_class:
        # Word boundary defined by regex's \w (inside a class \b is a backspace: left alone).
        w = set_regex(_word_ranges(), ignore_case=ignore_case)
        form = "(?:(?<={0})(?!{0})|(?<!{0})(?={0}))" if code == "b" else "(?:(?<={0})(?={0})|(?<!{0})(?!{0}))"
        return form.format(w), nxt
    return text, nxt


def _class(pattern, i, ignore_case):
    """Translate the character class starting at pattern[i] ('['): returns (text, next index)."""
    j = i + 1
    negated = pattern.startswith("^", j)
    j += negated
    items = []  # verbatim class items (str) and expanded sets (list of ranges), in order
    while True:
        if j >= len(pattern):
            raise ValueError(f"unterminated character class at position {i} in {pattern!r}: add the closing ']'")
        if pattern[j] == "]" and items:
            break
        if pattern[j] == "\\":
            item, j = _escape(pattern, j, True, ignore_case)
            if isinstance(item, tuple):
                item = complement(item[0]) if item[1] else list(item[0])
        else:
            item, j = pattern[j], j + 1
        items.append(item)
    if all(isinstance(item, str) for item in items):
        if ignore_case:
            # the partners of its members, as a class beside it (inserting them into the
            # text could turn an edge '-' or ']' into a range)
            body = pattern[i + 1 + negated:j]
            members = _literal_members(f"[{body}]")
            if members:
                folded = set_regex(_with_partners(members))
                return (f"(?:(?!{folded})[^{body}])" if negated else f"(?:[{body}]|{folded})"), j + 1
        return pattern[i:j + 1], j + 1
    # Sets are moved out of the literal text, so make every literal item self-contained:
    # a '-' at an edge or next to a set is literal (as in regex), and ']', '[', '^' get escaped.
    literal = []
    for k, item in enumerate(items):
        if isinstance(item, list):
            continue
        edge = k in (0, len(items) - 1) or isinstance(items[k - 1], list) or isinstance(items[k + 1], list)
        literal.append("\\" + item if item in "[]^" or (item == "-" and edge) else item)
    ranges = union(*(item for item in items if isinstance(item, list)))
    # When every literal item is one character (x, \n, \-), fold it into the ranges.
    points = [_code_point(text) for text in literal]
    if None not in points:
        ranges = union(ranges, [(p, p) for p in points])
        return set_regex(_with_partners(ranges) if ignore_case else ranges, "", negated, ignore_case), j + 1
    if ignore_case:
        ranges = _with_partners(union(ranges, _literal_members("[" + "".join(literal) + "]")))
    return set_regex(ranges, "".join(literal), negated, ignore_case), j + 1


def _code_point(text):
    """Code point of a one-character class item ('x', '\\n', '\\.'), None for '-' ranges and longer escapes."""
    if len(text) == 1:
        return None if text == "-" else ord(text)
    if text[1] in _CLASS_ESCAPES:
        return _CLASS_ESCAPES[text[1]]
    return None if text[1].isalnum() else ord(text[1])


@functools.lru_cache(maxsize=256)
def translate(pattern: str) -> str:
    r"""Rewrite a ``regex``-syntax pattern into stdlib ``re`` syntax with the same matches.

    Expands ``\p{..}``/``\P{..}`` general categories (outside and inside classes, negated
    or not) and ``\s \S \w \W \b \B``; copies everything else unchanged. Raises
    ValueError for a property that is not a general category.
    """
    out, i = [], 0
    # Track where IGNORECASE may be on: a global (?i) anywhere, or inside (?i:...) groups.
    global_i = _GLOBAL_I.search(pattern) is not None
    groups: list[bool | None] = []  # per open group: does it turn IGNORECASE on (True), off (False)?
    while i < len(pattern):
        ignore_case = next((g for g in reversed(groups) if g is not None), global_i)
        if pattern[i] == "\\":
            # An escape: a set becomes a class (under IGNORECASE with the newer case partners
            # of its members), a character with newer case partners a class, the rest is copied.
            item, i = _escape(pattern, i, False, ignore_case)
            if isinstance(item, str):
                out.append(_folded_literal(code_of(item), item) if ignore_case and _CODE_ESCAPE.match(item) else item)
            else:
                ranges = _with_partners(list(item[0])) if ignore_case else item[0]
                out.append(set_regex(ranges, "", item[1], ignore_case))
        elif pattern[i] == "[":
            # A character class: expand the sets inside it.
            text, i = _class(pattern, i, ignore_case)
            out.append(text)
        elif pattern[i] in "()":
            # A group opens or closes (escaped and in-class parentheses never get here).
            if pattern[i] == "(":
                groups.append(True if _GROUP_I.match(pattern, i) else False if _GROUP_NOT_I.match(pattern, i) else None)
            elif groups:
                groups.pop()
            out.append(pattern[i])
            i += 1
        else:
            out.append(_folded_literal(ord(pattern[i]), pattern[i]) if ignore_case else pattern[i])
            i += 1
    return "".join(out)


@functools.lru_cache(maxsize=64)
def compile_stdlib(pattern: str):
    """Compile `pattern` with the stdlib ``re`` via :func:`translate`, even when ``regex`` is installed."""
    try:
        with warnings.catch_warnings():
            # (``[[``, ``&&``, ``||`` or ``--`` in a class make ``re`` warn that a future
            # Python may read them as set operations; today's reading is the one meant)
            warnings.simplefilter("ignore", FutureWarning)
            return re.compile(translate(pattern))
    except re.error as exc:
        raise ValueError(
            f"pattern {pattern!r} uses syntax the stdlib 're' fallback cannot compile ({exc}); "
            f"simplify the pattern{_REGEX_ADVICE}") from exc


@functools.lru_cache(maxsize=64)
def compile_pattern(pattern: str):
    r"""Compile a pre-tokenization pattern with the stdlib ``re`` via :func:`translate`, so its
    Unicode classes come from the core's pinned tables and a model is the same in every
    Python (the ``regex`` module carries its own, newer Unicode: splits would differ on
    characters assigned since). Only a pattern the translation cannot express (a script
    property such as ``\p{Greek}``, ``\X``...) is compiled with ``regex`` when it is
    importable; its splits then follow that module's Unicode version.

    The result has ``.finditer(text)`` and ``.findall(text)``.
    """
    try:
        return compile_stdlib(pattern)
    except ValueError:
        if not HAVE_REGEX:
            raise
        return _regex.compile(pattern)


def onig_spans(regex, text):
    r"""The (start, end) of every match of a compiled ``regex`` in ``text``, found as HF
    tokenizers finds them (Oniguruma's search, repeated): an empty match where the previous
    match ended is skipped and the search goes on one character later, where Python's
    ``finditer`` would also try a longer match at that place; an empty text has no match.

    >>> onig_spans(re.compile(r"x*|b+"), "bb"), [m.span() for m in re.finditer(r"x*|b+", "bb")]
    ([(0, 0), (1, 1), (2, 2)], [(0, 0), (0, 2), (2, 2)])
    """
    if not text:
        return []  # HF does not search an empty text
    # up to the first empty match both searches agree: keep finditer's speed
    out = []
    for m in regex.finditer(text):
        if m.start() == m.end():
            break
        out.append(m.span())
    else:
        return out
    # from there on, one search at a time
    pos, last = m.start(), (out[-1][1] if out else None)
    while pos <= len(text):
        m = regex.search(text, pos)
        if m is None:
            break
        start, end = m.span()
        if start == end == last:
            pos = end + 1
            continue
        out.append((start, end))
        pos = last = end
    return out


def onig_sub(regex, content, text):
    """``text`` with every match of ``regex`` replaced by ``content`` (literally), the
    matches found as HF finds them (``onig_spans``): HF's Replace.

    >>> onig_sub(re.compile(r"x*"), "-", "ab")
    '-a-b-'
    """
    out, pos = [], 0
    for s, e in onig_spans(regex, text):
        out += (text[pos:s], content)
        pos = e
    return "".join(out) + text[pos:]
