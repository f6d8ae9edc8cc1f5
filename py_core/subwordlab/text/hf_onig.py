r"""Regular expressions between Python's ``regex`` syntax and Oniguruma's (HF tokenizers' engine).

A tokenizer.json stores its regexes for Oniguruma, which reads some constructs
differently: ``$`` is the end of a *line* there, ``{n,m}+`` is a repetition (not a
possessive one), ``\w`` is another set, ``\h`` is a hexadecimal digit, and a ``[``
inside a class opens a nested class. ``translate_regex`` rewrites a pattern one way or
the other so that it matches the same text: to Oniguruma here (it reads escapes with the
scanner and uses the Unicode sets of ``regex_syntax.py``), back in ``onig_import.py``.

>>> translate_regex(r"\p{N}{1,3}+", onig=True)
'(?>\\p{N}{1,3})'
>>> translate_regex(r"a$", onig=True), translate_regex(r"a$", onig=False)
('a\\Z', 'a(?m:$)')
"""

import re

from .onig_import import from_oniguruma
from .regex_syntax import REGEX_WORD_ONIG, WHITE_SPACE_RANGES, RegexSyntaxError, code_of, read_escape


def _class_body():
    """Unicode White_Space as a class body in Oniguruma's escapes (``\\x{H}``)."""
    def esc(cp):
        return f"\\x{{{cp:X}}}"
    return "".join(esc(a) if a == b else f"{esc(a)}-{esc(b)}" for a, b in WHITE_SPACE_RANGES)


WHITE_SPACE_ONIG = _class_body()  # a class body: "[" + WHITE_SPACE_ONIG + "]" is \s


def _tr_escape(esc, in_class):
    """Translate one escape from Python's syntax to Oniguruma's."""
    if len(esc) < 2:
        raise RegexSyntaxError("the pattern ends with a lone backslash")
    c = esc[1]
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


def _read_class(p, i):
    """Translate the character class starting at p[i] == '[' for Oniguruma; returns (text, next index)."""
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
            out.append(_tr_escape(esc, True))
            continue
        if c == "[":
            if p.startswith("[:", j):
                k = p.find(":]", j + 2)
                if k >= 0:
                    out.append(p[j:k + 2])
                    j = k + 2
                    continue
            out.append("\\[")  # subtle: a '[' in a class opens a nested class in Oniguruma
            j += 1
            continue
        if c == "&" and p.startswith("&&", j):
            out.append("\\&\\&")
            j += 2
            continue
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
            out.append(_tr_escape(esc, False))
        elif c == "[":
            text, i = _read_class(p, i)
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
                out.append(f"\\k<{head[4:-1]}>")
                continue
            if head.startswith("(?P<"):
                head = "(?<" + head[4:]
            elif re.fullmatch(r"\(\?[a-zA-Z]*(?:-[a-zA-Z]*)?[:)]", head):
                if set(head[2:-1].replace("-", "")) - {"i"}:
                    raise RegexSyntaxError(f"the inline flags {head} have no exact Oniguruma equivalent; only (?i) is supported")
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
                out.append(f"(?>{atom}{q})")
            else:
                out.append(q + mod)
        elif c == "$":
            last = len(out)
            out.append(r"\Z")
            i += 1
        elif c == "^":
            last = len(out)
            out.append(r"\A")
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
