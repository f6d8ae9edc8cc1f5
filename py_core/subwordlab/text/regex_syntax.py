r"""What both regex translators share: the escape scanner and the Unicode sets.

``regex_compat.py`` rewrites a ``regex``-module pattern for the stdlib ``re``;
``hf_onig.py`` rewrites it for Oniguruma (HF tokenizers' engine) and back. Both read a
pattern escape by escape with ``read_escape`` and mean the same sets by ``\s`` and ``\w``:

>>> read_escape(r"a\p{L}+", 1)
('\\p{L}', 6)
>>> read_escape(r"\x{1F600}", 0), read_escape(r"\u00e9!", 0)
(('\\x{1F600}', 9), ('\\u00e9', 6))
>>> chr(0x3000) in WHITE_SPACE, "\x1c" in WHITE_SPACE
(True, False)
"""

# Unicode White_Space (unchanged since Unicode 6.3): the ``regex`` module's \s, Rust's
# char::is_whitespace (HF's Strip), and what our normalizers strip. Python's str.isspace()
# also accepts U+001C..U+001F, so the set is spelled out.
WHITE_SPACE_RANGES = ((0x09, 0x0D), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
                      (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000))
WHITE_SPACE = frozenset(chr(c) for first, last in WHITE_SPACE_RANGES for c in range(first, last + 1))

# The ``regex`` module's \w is [\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}], where
# Alphabetic = letters + Nl + marks + the circled/squared letters below (So; stable since
# Unicode 6.1). The stdlib fallback expands it from general categories plus WORD_EXTRA;
# Oniguruma has the properties, so there it is written as REGEX_WORD_ONIG.
WORD_EXTRA = ((0x200C, 0x200D), (0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))
REGEX_WORD_ONIG = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}"


class RegexSyntaxError(ValueError):
    """A pattern that cannot be read or translated; the message says what and where."""


def _closing(p, i, close, what):
    """The index of ``close`` after the escape at ``p[i]`` that opened with ``what``."""
    j = p.find(close, i + 3)
    if j < 0:
        raise RegexSyntaxError(f"unterminated {what} at position {i} in {p!r}: add the closing {close!r}")
    return j


def read_escape(p, i):
    r"""The escape sequence starting at ``p[i] == '\\'`` and the index after it.

    Whole units: ``\p{Name}``/``\pL``, ``\x{HHHH}``/``\xHH``, ``\uHHHH``, ``\UHHHHHHHH``,
    ``\N{name}``, ``\k<name>``; any other escape is two characters (a lone backslash at the
    end is one: the caller's engine reports it).
    """
    c = p[i + 1:i + 2]
    if c in ("p", "P"):
        if p.startswith("{", i + 2):
            j = _closing(p, i, "}", f"\\{c}{{")
            return p[i:j + 1], j + 1
        return p[i:i + 3], i + 3
    if c == "x" and p.startswith("{", i + 2):
        j = _closing(p, i, "}", "\\x{")
        return p[i:j + 1], j + 1
    width = {"x": 4, "u": 6, "U": 10}.get(c)
    if width:
        return p[i:i + width], i + width
    if c in ("N", "k") and p[i + 2:i + 3] in ("{", "<"):
        j = _closing(p, i, "}" if p[i + 2] == "{" else ">", f"\\{c}{p[i + 2]}")
        return p[i:j + 1], j + 1
    return p[i:i + 2], i + 2


def code_of(escape):
    r"""The code point of ``\xHH``, ``\x{H..}``, ``\uHHHH`` or ``\UHHHHHHHH``. Example: '\x{41}' -> 65."""
    return int(escape[2:].strip("{}"), 16)
