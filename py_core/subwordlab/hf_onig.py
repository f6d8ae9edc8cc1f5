r"""Regular expressions between Python's ``regex`` syntax and Oniguruma's (HF tokenizers' engine).

A tokenizer.json stores its regexes for Oniguruma, which reads some constructs
differently: ``$`` is the end of a *line* there, ``{n,m}+`` is a repetition (not a
possessive one), ``\w`` includes all numbers, ``\h`` is a hexadecimal digit, and a ``[``
inside a class opens a nested class. ``translate_regex`` rewrites a pattern one way or
the other so that it matches the same text; it reads escapes with the scanner and uses
the Unicode sets that ``regex_compat.py`` uses too (``regex_syntax.py``).

>>> translate_regex(r"\p{N}{1,3}+", onig=True)
'(?>\\p{N}{1,3})'
>>> translate_regex(r"a$", onig=True), translate_regex(r"a$", onig=False)
('a\\Z', 'a(?m:$)')
"""

import re

from .onig_import import from_oniguruma
from .regex_syntax import (ONIG_WORD_REGEX, REGEX_WORD_ONIG, WHITE_SPACE_RANGES, RegexSyntaxError, code_of,
                           read_escape)


def _class_body(onig):
    """Unicode White_Space as a class body in Oniguruma's (``\\x{H}``) or Python's escapes."""
    def esc(cp):
        return f"\\x{{{cp:X}}}" if onig else (f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}")
    return "".join(esc(a) if a == b else f"{esc(a)}-{esc(b)}" for a, b in WHITE_SPACE_RANGES)


WHITE_SPACE_ONIG = _class_body(True)  # a class body: "[" + WHITE_SPACE_ONIG + "]" is \s
WHITE_SPACE_REGEX = _class_body(False)


def _tr_escape(esc, onig, in_class):
    """Translate one escape (``onig``: Python -> Oniguruma; else Oniguruma -> Python)."""
    if len(esc) < 2:
        raise RegexSyntaxError("the pattern ends with a lone backslash")
    c = esc[1]
    if onig:
        if c == "u" or c == "U" or (c == "x" and not esc.startswith("\\x{")):
            return f"\\x{{{code_of(esc):X}}}"
        if c == "N":
            raise RegexSyntaxError("\\N{...} (a character by name) has no Oniguruma equivalent; write the character itself")
        table = {"d": r"\p{Nd}", "D": r"\P{Nd}", "Z": r"\z"}
        if c in table and len(esc) == 2:
            return table[c]
        if c in "wWsS" and len(esc) == 2:
            body = REGEX_WORD_ONIG if c in "wW" else WHITE_SPACE_ONIG
            neg = c in "WS"
            if in_class:
                return f"[^{body}]" if neg else body
            return f"[^{body}]" if neg else f"[{body}]"
        return esc
    # Oniguruma -> Python
    if c == "x" and esc.startswith("\\x{"):
        cp = code_of(esc)
        return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"
    if c in "hH" and len(esc) == 2:
        # Oniguruma's \h is a hexadecimal digit
        if in_class:
            if c == "H":
                raise RegexSyntaxError("\\H inside a character class is not supported; spell the class out")
            return "0-9a-fA-F"
        return "[0-9a-fA-F]" if c == "h" else "[^0-9a-fA-F]"
    if c == "k" and esc.startswith("\\k<"):
        return f"(?P={esc[3:-1]})"
    if c in "KRGgy" and len(esc) == 2 and not in_class:
        raise RegexSyntaxError(f"the escape {esc} has no equivalent in Python's regex syntax")
    table = {"d": r"\p{Nd}", "D": r"\P{Nd}", "z": r"\Z", "Z": r"(?=\n?\Z)"}
    if c in table and len(esc) == 2:
        if in_class and c in "zZ":
            raise RegexSyntaxError(f"{esc} inside a character class")
        return table[c]
    if c in "wWsS" and len(esc) == 2:
        body = ONIG_WORD_REGEX if c in "wW" else WHITE_SPACE_REGEX
        neg = c in "WS"
        if in_class:
            if neg:
                raise RegexSyntaxError(f"{esc} inside a character class is not supported; spell the class out")
            return body
        return f"[^{body}]" if neg else f"[{body}]"
    return esc


def _read_class(p, i, onig):
    """Translate the character class starting at p[i] == '['; returns (text, next index)."""
    out = ["["]
    j = i + 1
    if j < len(p) and p[j] == "^":
        out.append("^")
        j += 1
    first = True
    while j < len(p):
        c = p[j]
        if c == "]" and not first:
            out.append("]")
            return "".join(out), j + 1
        first = False
        if c == "\\":
            esc, j = read_escape(p, j)
            t = _tr_escape(esc, onig, True)
            if t is None:
                raise RegexSyntaxError(f"{esc} inside a negated class is not supported")
            out.append(t)
            continue
        if c == "[":
            if p.startswith("[:", j):
                k = p.find(":]", j + 2)
                if k >= 0:
                    out.append(p[j:k + 2])
                    j = k + 2
                    continue
            if onig:
                out.append("\\[")  # subtle: a '[' in a class opens a nested class in Oniguruma
                j += 1
                continue
            raise RegexSyntaxError("nested character classes ([a[b]]) are not supported")
        if c == "&" and p.startswith("&&", j):
            if onig:
                out.append("\\&\\&")
                j += 2
                continue
            raise RegexSyntaxError("class intersection (&&) is not supported")
        out.append(c)
        j += 1
    raise RegexSyntaxError("an unterminated character class [")


_INTERVAL = re.compile(r"\{(\d*)(?:,(\d*))?\}")


def translate_regex(p, onig):
    """Python (``regex`` module) pattern -> Oniguruma (``onig=True``), or back.

    Example (to Oniguruma): r'\\p{N}{1,3}+' -> r'(?>\\p{N}{1,3})' (Oniguruma reads
    ``{1,3}+`` as "one or more times {1,3}"); '$' -> r'\\Z'. Back (``onig=False``) is
    ``onig_import.from_oniguruma``: exact, or refused with a RegexSyntaxError.
    """
    if not onig:
        return from_oniguruma(p)
    out, groups = [], []
    last = None
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            esc, i = read_escape(p, i)
            last = len(out)
            out.append(_tr_escape(esc, onig, False))
        elif c == "[":
            text, i = _read_class(p, i, onig)
            last = len(out)
            out.append(text)
        elif c == "(":
            if p.startswith("(?#", i):
                j = p.find(")", i)
                if j < 0:
                    raise RegexSyntaxError("an unterminated comment group")
                i = j + 1
                continue
            m = re.compile(r"\(\?(?:[:=!>]|<[=!]|P?<[A-Za-z_]\w*>|P=[A-Za-z_]\w*\)|[a-zA-Z]*(?:-[a-zA-Z]*)?[:)])|\(").match(p, i)
            head = m.group()
            i = m.end()
            if head.startswith("(?P="):
                last = len(out)
                out.append(f"\\k<{head[4:-1]}>" if onig else head)
                continue
            if head.startswith("(?P<") and onig:
                head = "(?<" + head[4:]
            elif head.startswith("(?<") and head[3] not in "=!" and not onig:
                head = "(?P<" + head[3:]
            elif re.fullmatch(r"\(\?[a-zA-Z]*(?:-[a-zA-Z]*)?[:)]", head):
                flags = set(head[2:-1].replace("-", ""))
                if onig and flags - {"i"}:
                    raise RegexSyntaxError(f"the inline flags {head} have no exact Oniguruma equivalent; only (?i) is supported")
                if not onig:
                    if flags - {"i", "m"}:
                        raise RegexSyntaxError(f"the inline flags {head} are not supported")
                    head = head.replace("m", "s")  # Ruby's (?m) is dot-all
            elif head == "(" or head[2] in ":=!>" or head[2:4] in ("<=", "<!") or head.startswith(("(?<", "(?P<")):
                pass
            else:
                raise RegexSyntaxError(f"the group {head} is not supported")
            if head.endswith(")"):  # a flag group such as (?i): applies from here on
                out.append(head)
                continue
            groups.append(len(out))
            out.append(head)
        elif c == ")":
            if not groups:
                raise RegexSyntaxError("an unbalanced ')'")
            last = groups.pop()
            out.append(")")
            i += 1
        elif c in "*+?":
            q = c
            i += 1
            if i < n and p[i] in "?+":
                q += p[i]
                i += 1
            out.append(q)
        elif c == "{" and _INTERVAL.match(p, i):
            m = _INTERVAL.match(p, i)
            q = m.group()
            i = m.end()
            mod = ""
            if i < n and p[i] in "?+":
                mod = p[i]
                i += 1
            if mod == "+" and last is not None:
                atom = "".join(out[last:])
                del out[last:]
                # possessive interval: an atomic group; Oniguruma's "{n,m}+" is a repetition
                out.append(f"(?>{atom}{q})" if onig else f"(?:{atom}{q})+")
            else:
                out.append(q + mod)
        elif c == "$":
            last = len(out)
            out.append(r"\Z" if onig else r"(?m:$)")
            i += 1
        elif c == "^":
            last = len(out)
            out.append(r"\A" if onig else r"(?m:^)")
            i += 1
        elif c == "|":
            last = None
            out.append(c)
            i += 1
        else:
            last = len(out)
            out.append(c)
            i += 1
    if groups:
        raise RegexSyntaxError("an unbalanced '('")
    return "".join(out)
