r"""Read an Oniguruma regex (a tokenizer.json's) as a Python regex that matches exactly the same.

HF tokenizers runs its regexes in Oniguruma (Ruby syntax, UTF-8). ``from_oniguruma``
rewrites one so that ``regex_compat.compile_pattern`` (stdlib ``re``, or ``regex``)
finds the same matches, or raises ``RegexSyntaxError`` naming the construct it cannot
translate exactly and what to write instead. Rewritten: POSIX brackets and Oniguruma's
``\w \s \d \h \b`` become explicit sets (``onig_sets.py``); ``[a-z&&[^aeiou]]`` and
nested classes become lookaheads; ``(?i)`` is spelled out as classes (``k`` -> ``[kK\u212a]``:
Oniguruma folds the Kelvin sign and long s onto ASCII, Python's ``re`` also folds ``İ``);
``(?m)`` is Ruby's dot-all; an isolated ``a(?i)b|c`` applies to the rest of its group
(``a(?i:b|c)``); ``^``/``$``/``\Z`` are Ruby's line anchors; ``{n}?`` is optional and
``{n,m}+`` repeats.

>>> from_oniguruma(r"[[:digit:]]+|(?i)x")
'[\\p{Nd}]+|(?:[xX])'
>>> from_oniguruma(r"[a-z&&[^aeiou]]")
'(?:(?=[a-z])[^aeiou])'
"""

import re

from . import onig_sets, regex_compat
from .onig_classes import ANY, ASCII_PARTNERS, caseless, esc, read_class, set_text
from .regex_syntax import RegexSyntaxError, read_escape

# One-letter escapes that stand for one character.
_CHAR_ESCAPES = {"t": 0x09, "n": 0x0A, "r": 0x0D, "f": 0x0C, "v": 0x0B, "a": 0x07, "e": 0x1B}
# Oniguruma's \d \s \w \h (Unicode) as (body, negated) sets; the upper-case forms negate them.
_TYPE_SETS = {"d": (r"\p{Nd}", False), "s": onig_sets.ONIG_SPACE, "w": onig_sets.ONIG_WORD, "h": ("0-9A-Fa-f", False)}
# Escapes that have no exact equivalent, with what to do instead.
_REFUSED_ESCAPES = {
    "X": "\\X (an extended grapheme cluster) follows Unicode segmentation rules that stdlib re lacks; "
         "match the characters with a class instead",
    "K": "\\K (keep: drop what was matched so far) has no Python equivalent; use a lookbehind (?<=...)",
    "G": "\\G (where the search started) has no stdlib re equivalent; anchor with \\A or drop it",
    "y": "\\y (a text segment boundary) has no Python equivalent; remove it",
    "Y": "\\Y (not a text segment boundary) has no Python equivalent; remove it",
    "g": "\\g<...> (a subexpression call) has no Python equivalent; repeat the group's pattern instead",
}
# Letter pairs that Oniguruma's (?i) matches as one character too ("ss" matches "ß", "fi" "ﬁ"...).
_MULTI_FOLDS = {"ss", "st", "ff", "fi", "fl"}
_INTERVAL = re.compile(r"\{(\d+)?(?:(,)(\d+)?)?\}")
_GROUP_FLAGS = re.compile(r"\(\?([imx]*)(?:-([imx]*))?([:)])")


class _Reader:
    """One pattern being read left to right; each method returns Python regex text."""

    def __init__(self, pattern):
        self.p, self.i = pattern, 0
        self.named = False
        # the (?i) ASCII letter just read, if nothing but a (?:, a comment, a flag or a quantifier
        # came since: Oniguruma joins such letters into one string, and "ss" also matches "ß"
        self.prev_letter = None

    def fail(self, what):
        raise RegexSyntaxError(f"{what} (at position {self.i})")

    def alternation(self, flags, split=False):
        """Alternatives up to the closing ')' or the end (not consumed); a list of them if ``split``."""
        parts = [self.sequence(flags)]
        while self.p.startswith("|", self.i):
            self.i += 1
            self.prev_letter = None
            parts.append(self.sequence(flags))
        return parts if split else "|".join(parts)

    def sequence(self, flags):
        """Atoms and their quantifiers up to '|', ')' or the end."""
        out = []
        while self.i < len(self.p) and self.p[self.i] not in "|)":
            m = _GROUP_FLAGS.match(self.p, self.i)
            if m and m.group(3) == ")":
                # an isolated (?i): Oniguruma applies it to the rest of the enclosing group, alternatives too
                self.i = m.end()
                out.append("(?:" + self.alternation(self.flags(m, flags)) + ")")
                break
            if self.p.startswith("(?#", self.i):
                # a comment: nothing (a quantifier after it applies to the atom before)
                end = self.p.find(")", self.i)
                if end < 0:
                    self.fail("an unterminated comment (?#")
                self.i = end + 1
                continue
            atom, _ = self.atom(flags)
            out.append(self.quantifier(atom))
        return "".join(out)

    def flags(self, m, flags):
        """Inline flags (?i-m...) applied to ``flags``; (?x) is refused."""
        on, off = m.group(1), m.group(2) or ""
        if "x" in on + off:
            self.fail("extended mode (?x) is not translated; remove the spaces and # comments and the x")
        new = dict(flags)
        new.update({f: True for f in on})
        new.update({f: False for f in off})
        return new

    def quantifier(self, atom):
        """The atom with the quantifier that follows it, if any ({n}? optional and {n,m}+ repeated, as in Ruby)."""
        p, i = self.p, self.i
        if i < len(p) and p[i] in "*+?":
            q, i = p[i], i + 1
            if i < len(p) and p[i] in "?+":
                q, i = q + p[i], i + 1
            text = atom + q
        elif (m := _INTERVAL.match(p, i)) and (m.group(1) or m.group(3)):
            i = m.end()
            low, comma, high = m.group(1) or "0", m.group(2), m.group(3)
            q = "{" + low + (("," + (high or "")) if comma else "") + "}"
            mod = p[i] if i < len(p) and p[i] in "?+" else ""
            i += len(mod)
            if mod == "+" or (mod == "?" and not comma):
                text = f"(?:{atom}{q}){mod}"  # Ruby: {n,m}+ repeats, {n}? is optional
            else:
                text = atom + q + mod
        else:
            return atom
        if atom is None:
            self.fail("a quantifier with nothing to repeat")
        self.i = i
        if i < len(p) and (p[i] in "*+?" or _INTERVAL.match(p, i)):
            self.fail("a quantifier after a quantifier (a** or a+*) is not translated; write one quantifier")
        return text

    def atom(self, flags):
        """One atom: (text, the letter it is if a case-insensitive ASCII letter)."""
        if self.p[self.i] == "(":
            return self.group(flags), None
        text, letter = self.single(flags)
        self.prev_letter = letter
        return text, letter

    def single(self, flags):
        """One atom that is not a group."""
        c = self.p[self.i]
        if c == "[":
            return read_class(self, flags), None
        if c == "\\":
            return self.escape(flags)
        self.i += 1
        if c == ".":
            return (ANY if flags.get("m") else "."), None
        if c == "^":
            return r"(?:\A|(?<=\n)(?!\Z))", None  # Ruby: after a newline, but not at the very end
        if c == "$":
            return r"(?m:$)", None
        if c in "*+?":
            self.i -= 1
            self.fail("a quantifier with nothing to repeat")
        if c == "{" and _INTERVAL.match(self.p, self.i - 1):
            self.i -= 1
            self.fail("a quantifier with nothing to repeat")
        return self.literal(ord(c), flags)

    def literal(self, cp, flags):
        """One character, spelled out with its case partners under (?i)."""
        ch = chr(cp)
        if flags.get("i") and cp < 0x80 and ch.isalpha():
            if self.prev_letter and (self.prev_letter + ch).lower() in _MULTI_FOLDS:
                self.fail(f"case-insensitive {self.prev_letter + ch!r}: Oniguruma's (?i) also matches it to one "
                          "character (\"ss\" to \"ß\", \"fi\" to \"ﬁ\"); spell the cases out, e.g. [sS][sS]")
            partner = ASCII_PARTNERS.get(ch.lower(), "")
            return f"[{ch}{ch.swapcase()}{partner}]", ch
        if flags.get("i") and not caseless(cp):
            self.i -= 1
            self.fail(f"case-insensitive {ch!r}: Oniguruma's (?i) folds non-ASCII letters by its own Unicode "
                      "case-folding rules, which Python's do not follow; spell the cases out as a class (e.g. "
                      "[éÉ]) and drop (?i)")
        if cp < 0x80 and ch.isprintable():
            return (ch if ch.isalnum() or ch == " " else "\\" + ch), None
        return esc(cp), None

    def group(self, flags):
        """A group: capturing, named, non-capturing, lookaround, atomic or scoped flags."""
        p, i = self.p, self.i
        m = _GROUP_FLAGS.match(p, i)
        named = re.compile(r"\(\?(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')").match(p, i)
        if m:
            head, inner = "(?:", self.flags(m, flags)
        elif named:
            head, inner = f"(?P<{named.group(1) or named.group(2)}>", flags
            self.named = True
        elif p.startswith(("(?:", "(?=", "(?!", "(?>"), i) or p.startswith(("(?<=", "(?<!"), i):
            head, inner = p[i:i + (4 if p.startswith("(?<", i) else 3)], flags
        elif p.startswith("(?", i):
            self.fail(f"the group {p[i:i + 3]}... (absent operator, condition or option) is not translated; "
                      "rewrite it with (...), (?:...), lookarounds or (?i:...)")
        else:
            head, inner = "(", flags
        self.i = m.end() if m else named.end() if named else i + len(head)
        joins = m is not None  # (?: and (?i: groups: Oniguruma may join the letters around and inside them
        if not joins:
            self.prev_letter = None
        parts = self.alternation(inner, split=True)
        if not p.startswith(")", self.i):
            self.fail("an unterminated group: add the closing ')'")
        self.i += 1
        if not joins:
            self.prev_letter = None
        if head in ("(?<=", "(?<!") and len(parts) > 1 and len({_width(part) for part in parts}) > 1:
            # alternatives of different lengths: one lookbehind each (stdlib re wants one length)
            return ("(?:" + "|".join(f"(?<={part})" for part in parts) + ")" if head == "(?<=" else
                    "".join(f"(?<!{part})" for part in parts))
        return head + "|".join(parts) + ")"

    def escape(self, flags, in_class=False):
        """An escape: (text, letter) outside a class; inside one, a code point (int) or a (body, negated) set."""
        start = self.i
        p = self.p
        if start + 1 >= len(p):
            self.fail("the pattern ends with a lone backslash")
        c = p[start + 1]
        if c in "pP":
            return self.property(flags, in_class)
        if c.lower() in _TYPE_SETS:
            self.i += 2
            # (inside a class Oniguruma's \w is [[:word:]], without "²³¹¼½¾")
            body, negated = onig_sets.posix_set("word") if in_class and c in "wW" else _TYPE_SETS[c.lower()]
            found = (body, negated != c.isupper())
            return found if in_class else (set_text(found), None)
        cp = self.code_point(in_class)
        if cp is not None:
            return cp if in_class else self.literal(cp, flags)
        if in_class:
            self.fail(f"{p[start:start + 2]} inside a class is not translated; move it out of the class")
        self.i = start + 2
        if c in "bB":
            w = set_text(onig_sets.ONIG_WORD)
            form = "(?:(?<={0})(?!{0})|(?<!{0})(?={0}))" if c == "b" else "(?:(?<={0})(?={0})|(?<!{0})(?!{0}))"
            return form.format(w), None
        simple = {"A": r"\A", "z": r"\Z", "Z": r"(?=\n?\Z)", "N": r"[^\n]", "O": ANY,
                  "R": "(?>\\x0d\\x0a|[\\x0a-\\x0d\\x85\\u2028\\u2029])"}
        if c in simple:
            return simple[c], None
        if c == "k" or c.isdigit():
            return self.backref(flags), None
        self.i = start
        self.fail(_REFUSED_ESCAPES.get(c, f"the escape \\{c} is not translated; write the character it stands for"))

    def code_point(self, in_class=False):
        """The code point of a character escape at self.i (\\t, \\x{..}, \\o{..}, \\101, \\cA, \\.), else None."""
        p, i = self.p, self.i
        c = p[i + 1]
        if c in _CHAR_ESCAPES or (in_class and c == "b"):
            self.i = i + 2
            return _CHAR_ESCAPES.get(c, 0x08)  # \\b is a backspace inside a class
        if c == "x" or c == "u":
            m = re.compile(r"\\x\{([0-9a-fA-F]{1,8})\}|\\x([0-9a-fA-F]{1,2})|\\u([0-9a-fA-F]{4})").match(p, i)
            if not m and re.compile(r"\\x\{[0-9a-fA-F ]+\}").match(p, i):
                self.fail("a code point sequence \\x{H H ...} is not translated; write one \\x{H} per character")
            if not m:
                self.fail(f"{p[i:i + 6]}... is not translated; write a code point as \\x{{H}}")
            cp = int(m.group(1) or m.group(2) or m.group(3), 16)
            if m.group(2) and cp >= 0x80:
                self.fail(f"{m.group()} is a byte in Oniguruma, not U+{cp:04X}; write \\x{{{cp:X}}}")
            if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
                self.fail(f"{m.group()} is not a character")
            self.i = m.end()
            return cp
        if c == "o" and p.startswith("{", i + 2):
            m = re.compile(r"\\o\{([0-7]+)\}").match(p, i)
            if not m:
                self.fail("\\o{...} takes one octal code point")
            self.i = m.end()
            return int(m.group(1), 8)
        m = re.compile(r"\\(0[0-7]{0,2}|[1-7][0-7]{2})").match(p, i)
        if m:
            cp = int(m.group(1), 8)
            if cp >= 0x80:
                self.fail(f"{m.group()} is a byte in Oniguruma; write \\x{{{cp:X}}}")
            self.i = m.end()
            return cp
        if c == "c" and i + 2 < len(p) and p[i + 2].isalpha() and p[i + 2] < "\x80":
            self.i = i + 3
            return ord(p[i + 2]) & 0x1F
        if not (c.isalnum() and c < "\x80"):
            self.i = i + 2
            return ord(c)  # an escaped punctuation or non-ASCII character: itself
        return None

    def backref(self, flags):
        r"""\1..\9 or \k<name> (the escape's first two characters already read)."""
        if flags.get("i"):
            self.fail("a backreference under (?i) compares case-insensitively in Oniguruma; not translated: "
                      "drop (?i) around it, or write the alternatives out")
        p, i = self.p, self.i - 2
        m = re.compile(r"\\([1-9])(?![0-9])|\\k<([A-Za-z_]\w*)>|\\k<([1-9][0-9]*)>").match(p, i)
        if not m:
            self.i = i
            self.fail(f"the backreference {p[i:i + 4]}... is not translated; use \\1..\\9 or \\k<name>")
        self.i = m.end()
        number = m.group(1) or m.group(3)
        if number and self.named:
            self.fail("a numbered backreference in a pattern with named groups (Oniguruma refuses it too)")
        return f"(?:\\{number})" if number else f"(?P={m.group(2)})"

    def property(self, flags, in_class):
        r"""\p{Name}, \p{^Name}, \P{Name}: a general category or a POSIX-like name; others are refused."""
        esc, end = read_escape(self.p, self.i)
        if not esc.startswith("{", 2):
            self.fail(f"{esc} without braces is not translated; write \\p{{...}}")
        name = esc[3:-1]
        negated = (esc[1] == "P") != name.startswith("^")
        name = name.lstrip("^")
        found = onig_sets.property_set(name, in_class)
        if found is None:
            try:
                regex_compat._categories(name)
            except ValueError:
                self.fail(f"the property {esc}: only general categories (\\p{{L}}, \\p{{Lu}}, \\p{{Nd}}...) and "
                          "Alphabetic, White_Space, Word and the POSIX names are translated exactly (Python's script "
                          "tables follow another Unicode version than Oniguruma's); spell the characters out as ranges")
            found = (f"\\p{{{name}}}", False)
        if flags.get("i") and in_class:
            self.fail(f"{esc} inside a case-insensitive class: Oniguruma folds its members' cases; "
                      "move it out of the class or drop (?i)")
        self.i = end
        found = (found[0], found[1] != negated)
        return found if in_class else (set_text(found), None)

def _width(part):
    """The (shortest, longest) match of a translated alternative, or None if stdlib re cannot read it."""
    try:
        return re._parser.parse(regex_compat.translate(part)).getwidth()
    except (re.error, ValueError, RecursionError, OverflowError):
        return None


def from_oniguruma(pattern):
    """The Python regex (``regex_compat`` syntax) matching what Oniguruma matches with ``pattern``.

    Raises RegexSyntaxError for a construct without an exact translation; the message names it
    and says what to write instead. Example: r'(?i)k' -> '(?:[kK\u212a])'.
    """
    reader = _Reader(pattern)
    out = reader.alternation({})
    if reader.i < len(pattern):
        reader.fail("an unbalanced ')'")
    return out
