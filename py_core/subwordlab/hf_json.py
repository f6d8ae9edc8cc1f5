"""Hugging Face ``tokenizer.json``, both ways.

Export (``to_hf_json(tok)``, ``export_hf(tok)``): a document that ``tokenizers``' 
``Tokenizer.from_str`` loads and that encodes text to the same ids and tokens as ``tok``.
Where our pipeline has no exact equivalent in HF's component set the export raises
``HFExportError`` naming the problem and the fix; where HF differs only on input our
tokenizer refuses (an unknown character without an unk token, a special token in the
text) ``export_hf`` returns the difference as a warning. Every merge is checked before
writing (a merge whose parts or result are not in the vocabulary crashes the Rust side).

What has no exact HF construction (``HFExportError``):

- ``bpe`` with a multi-character ``end_of_word`` such as ``</w>``: our marker is a base
  symbol of its own that merges like any other; HF's ``end_of_word_suffix`` glues it to the
  last character ("t</w>" is one initial symbol), which segments differently. A
  one-character marker ("_") is exported exactly (a normalizer inserts it after every
  word). Fix: retrain with ``end_of_word=None`` or a one-character marker.
- a BPE merge list where a merge creates a token that an *earlier* merge already uses
  (possible when two merges make the same string): HF's merge queue would apply that
  earlier merge first and segment differently.
- a custom pre-tokenization regex using a construct Oniguruma (HF's regex engine) reads
  differently and that cannot be rewritten: inline flags other than ``i``, ``\\N{...}``,
  conditionals.

Import (``from_hf_json(text)``): BPE, WordPiece and Unigram models; the normalizers
NFC/NFD/NFKC/NFKD, Lowercase, Strip, StripAccents, Replace (String and Regex), Prepend,
BertNormalizer, Sequence; the pre-tokenizers ByteLevel, Metaspace, Split, Whitespace,
WhitespaceSplit, BertPreTokenizer, Digits, Punctuation, CharDelimiterSplit, Sequence; the
decoders ByteLevel, Metaspace, WordPiece, BPEDecoder, ByteFallback, Fuse, Strip, Replace,
Sequence; ``added_tokens`` (special and not). Anything else is refused with a message
naming it. Regexes are translated from Oniguruma's syntax (``$`` is end of *line* there,
``{n,m}+`` a repetition, ``\\w`` includes all numbers).

>>> import subwordlab
>>> tok = subwordlab.train("low lower newest widest " * 20, preset="byte_bpe", vocab_size=270)
>>> again = from_hf_json(to_hf_json(tok))
>>> again.encode("lowest") == tok.encode("lowest")
True
"""

import json
import re
import warnings as _warnings
from dataclasses import dataclass, field
from typing import List

from .serialize import MAX_FILE_BYTES, ModelFileError, _emit, _kind_name, parse_json  # noqa: F401

HF_VERSION = "1.0"
TOP_LEVEL = ("version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer",
             "post_processor", "decoder", "model")


class HFExportError(ValueError):
    """The tokenizer has no exact tokenizer.json equivalent; the message says why and how to fix it."""


class HFExportWarning(UserWarning):
    """The exported tokenizer.json differs from ours only where ours raises an error."""


@dataclass
class HFExport:
    """The result of ``export_hf``: the JSON text and the differences worth knowing."""

    text: str
    warnings: List[str] = field(default_factory=list)


# -- regular expressions: Python (regex module) <-> Oniguruma ----------------------------

# Unicode White_Space, as a class body in each syntax
_WS_CODES = ((0x09, 0x0D), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
             (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000))


def _ws_body(onig):
    def esc(cp):
        return f"\\x{{{cp:X}}}" if onig else (f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}")
    return "".join(esc(a) if a == b else f"{esc(a)}-{esc(b)}" for a, b in _WS_CODES)


# \w of the regex module (Alphabetic, marks, decimal digits, connectors, join controls)
_PY_WORD_ONIG = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}"
# \w of Oniguruma (letters, marks, all numbers, connectors)
_ONIG_WORD_PY = r"\p{L}\p{M}\p{N}\p{Pc}"


class _RegexSyntaxError(ValueError):
    pass


def _read_escape(p, i):
    """The escape sequence starting at p[i] == '\\' and the index after it."""
    if i + 1 >= len(p):
        raise _RegexSyntaxError("the pattern ends with a lone backslash")
    c = p[i + 1]
    if c in "pP" and i + 2 < len(p) and p[i + 2] == "{":
        j = p.find("}", i + 3)
        if j < 0:
            raise _RegexSyntaxError("an unterminated \\p{...}")
        return p[i:j + 1], j + 1
    if c == "x" and i + 2 < len(p) and p[i + 2] == "{":
        j = p.find("}", i + 3)
        if j < 0:
            raise _RegexSyntaxError("an unterminated \\x{...}")
        return p[i:j + 1], j + 1
    if c == "x":
        return p[i:i + 4], i + 4
    if c == "u":
        return p[i:i + 6], i + 6
    if c == "U":
        return p[i:i + 10], i + 10
    if c in "Nk" and i + 2 < len(p) and p[i + 2] in "{<":
        j = p.find("}" if p[i + 2] == "{" else ">", i + 3)
        if j < 0:
            raise _RegexSyntaxError(f"an unterminated \\{c}")
        return p[i:j + 1], j + 1
    return p[i:i + 2], i + 2


def _code_of(esc):
    body = esc[2:].strip("{}")
    return int(body, 16)


def _tr_escape(esc, onig, in_class):
    """Translate one escape (``onig``: Python -> Oniguruma; else Oniguruma -> Python)."""
    c = esc[1]
    if onig:
        if c == "u" or c == "U" or (c == "x" and not esc.startswith("\\x{")):
            return f"\\x{{{_code_of(esc):X}}}"
        if c == "N":
            raise _RegexSyntaxError("\\N{...} (a character by name) has no Oniguruma equivalent; write the character itself")
        table = {"d": r"\p{Nd}", "D": r"\P{Nd}", "Z": r"\z"}
        if c in table and len(esc) == 2:
            return table[c]
        if c in "wWsS" and len(esc) == 2:
            body = _PY_WORD_ONIG if c in "wW" else _ws_body(True)
            neg = c in "WS"
            if in_class:
                return f"[^{body}]" if neg else body
            return f"[^{body}]" if neg else f"[{body}]"
        return esc
    # Oniguruma -> Python
    if c == "x" and esc.startswith("\\x{"):
        cp = _code_of(esc)
        return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"
    if c in "hH" and len(esc) == 2:
        # Oniguruma's \h is a hexadecimal digit
        if in_class:
            if c == "H":
                raise _RegexSyntaxError("\\H inside a character class is not supported; spell the class out")
            return "0-9a-fA-F"
        return "[0-9a-fA-F]" if c == "h" else "[^0-9a-fA-F]"
    if c == "k" and esc.startswith("\\k<"):
        return f"(?P={esc[3:-1]})"
    if c in "KRGgy" and len(esc) == 2 and not in_class:
        raise _RegexSyntaxError(f"the escape {esc} has no equivalent in Python's regex syntax")
    table = {"d": r"\p{Nd}", "D": r"\P{Nd}", "z": r"\Z", "Z": r"(?=\n?\Z)"}
    if c in table and len(esc) == 2:
        if in_class and c in "zZ":
            raise _RegexSyntaxError(f"{esc} inside a character class")
        return table[c]
    if c in "wWsS" and len(esc) == 2:
        body = _ONIG_WORD_PY if c in "wW" else _ws_body(False)
        neg = c in "WS"
        if in_class:
            if neg:
                raise _RegexSyntaxError(f"{esc} inside a character class is not supported; spell the class out")
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
            esc, j = _read_escape(p, j)
            t = _tr_escape(esc, onig, True)
            if t is None:
                raise _RegexSyntaxError(f"{esc} inside a negated class is not supported")
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
            raise _RegexSyntaxError("nested character classes ([a[b]]) are not supported")
        if c == "&" and p.startswith("&&", j):
            if onig:
                out.append("\\&\\&")
                j += 2
                continue
            raise _RegexSyntaxError("class intersection (&&) is not supported")
        out.append(c)
        j += 1
    raise _RegexSyntaxError("an unterminated character class [")


_INTERVAL = re.compile(r"\{(\d*)(?:,(\d*))?\}")


def translate_regex(p, onig):
    """Python (``regex`` module) pattern -> Oniguruma (``onig=True``), or back.

    Example (to Oniguruma): r'\\p{N}{1,3}+' -> r'(?>\\p{N}{1,3})' (Oniguruma reads
    ``{1,3}+`` as "one or more times {1,3}"); '$' -> r'\\Z'.
    """
    out, atoms, groups = [], [], []  # atoms: start index in `out` of the last atom
    last = None
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            esc, i = _read_escape(p, i)
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
                    raise _RegexSyntaxError("an unterminated comment group")
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
                    raise _RegexSyntaxError(f"the inline flags {head} have no exact Oniguruma equivalent; only (?i) is supported")
                if not onig:
                    if flags - {"i", "m"}:
                        raise _RegexSyntaxError(f"the inline flags {head} are not supported")
                    head = head.replace("m", "s")  # Ruby's (?m) is dot-all
            elif head == "(" or head[2] in ":=!>" or head[2:4] in ("<=", "<!") or head.startswith(("(?<", "(?P<")):
                pass
            else:
                raise _RegexSyntaxError(f"the group {head} is not supported")
            if head.endswith(")"):  # a flag group such as (?i): applies from here on
                out.append(head)
                continue
            groups.append(len(out))
            out.append(head)
        elif c == ")":
            if not groups:
                raise _RegexSyntaxError("an unbalanced ')'")
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
        raise _RegexSyntaxError("an unbalanced '('")
    return "".join(out)


def to_onig(pattern):
    """A Python regex as Oniguruma reads it the same way (raises ``HFExportError``)."""
    try:
        return translate_regex(pattern, True)
    except (ValueError, IndexError) as exc:
        raise HFExportError(f"the regex {pattern!r} cannot be written for HF tokenizers (Oniguruma): {exc}") from None


def from_onig(pattern, path):
    """An Oniguruma regex (from a tokenizer.json) as a Python regex."""
    try:
        return translate_regex(pattern, False)
    except (ValueError, IndexError) as exc:
        raise ModelFileError(f"{path}: the regex {pattern!r} is not supported: {exc}") from None


# -- export ---------------------------------------------------------------------------

_WS_CLASS_ONIG = "[" + _ws_body(True) + "]"
_NON_WS_ONIG = "[^" + _ws_body(True) + "]"


class _Export:
    def __init__(self, tok):
        self.tok = tok
        self.warnings = []
        self.extra_normalizers = []  # steps a pre-tokenizer needs at the end of the normalizer
        self.added = []  # extra added tokens (user-defined symbols)

    # normalizers
    def normalizer_steps(self, n):
        from . import normalizers as N

        if n is None:
            return []
        t = type(n)
        if t is N.Sequence:
            return [s for x in n.normalizers for s in self.normalizer_steps(x)]
        if t is N.Unicode:
            return [{"type": n.form}]
        if t is N.Lowercase:
            return [{"type": "Lowercase"}]
        if t is N.StripAccents:
            # HF's StripAccents drops every mark (Mn, Mc, Me); ours by default only Mn
            return [{"type": "StripAccents"}] if n.all_marks else [_replace_regex(r"\p{Mn}", "")]
        if t is N.Strip:
            return [{"type": "Strip", "strip_left": n.left, "strip_right": n.right}]
        if t is N.Collapse:
            return [_replace_regex(" {2,}", " "), {"type": "Strip", "strip_left": True, "strip_right": True}]
        if t is N.Replace:
            return [{"type": "Replace", "pattern": {"String": n.pattern}, "content": n.content}]
        if t is N.RegexReplace:
            return [_replace_regex(to_onig(n.pattern), n.content)]
        if t is N.Prepend:
            return [{"type": "Prepend", "prepend": n.prepend}]
        if t is N.BertNormalizer:
            return [{"type": "BertNormalizer", "clean_text": n.clean_text, "handle_chinese_chars": n.handle_chinese_chars,
                     "strip_accents": n.strip_accents, "lowercase": n.lowercase}]
        raise HFExportError(f"the normalizer {type(n).__name__} has no tokenizer.json equivalent")

    # pre-tokenizers
    def pre_tokenizer(self, p, top=True):
        from . import pre_tokenizers as P
        from .patterns import GPT2

        if p is None:
            return None
        t = type(p)
        if t is P.WhitespaceSplit:
            return {"type": "WhitespaceSplit"}
        if t is P.ByteLevel:
            if p.pattern is None:
                return _byte_level(p.add_prefix_space, False)
            if p.pattern_name == "gpt2" or p.pattern == GPT2:
                return _byte_level(p.add_prefix_space, True)
            if p.add_prefix_space:
                if not top:
                    raise HFExportError("ByteLevel with add_prefix_space and a custom pattern inside a Sequence has no tokenizer.json equivalent")
                self.extra_normalizers.append(_replace_regex(r"\A(?=[^ ])", " "))
            if p.pattern_name:
                # the built-in patterns match every character: Isolated keeps exactly the matches
                split = _split(to_onig(p.pattern), "Isolated")
            else:
                # subtle: like tiktoken we drop text a custom pattern does not match; HF's
                # Isolated would keep it, so the matches are kept by inverting a removal
                split = dict(_split(to_onig(p.pattern), "Removed"), invert=True)
            return {"type": "Sequence", "pretokenizers": [split, _byte_level(False, False)]}
        if t is P.Metaspace or (hasattr(P, "MetaspaceWithSymbols") and t is P.MetaspaceWithSymbols):
            symbols = list(getattr(p, "user_defined_symbols", ()))
            if not symbols and getattr(p, "prefix_before_space", False) and p.add_dummy_prefix:
                if not top:
                    raise HFExportError("a dummy prefix before leading spaces inside a Sequence has no tokenizer.json equivalent")
                # SentencePiece's rule (▁ even before a leading space): HF's Prepend, then no prepending
                self.extra_normalizers.append({"type": "Prepend", "prepend": p.replacement})
                meta = {"type": "Metaspace", "replacement": p.replacement, "prepend_scheme": "never", "split": p.split}
            elif not symbols:
                meta = {"type": "Metaspace", "replacement": p.replacement, "prepend_scheme": p.prepend_scheme, "split": p.split}
            else:
                if not top:
                    raise HFExportError("user-defined symbols inside a Sequence have no tokenizer.json equivalent")
                # the dummy ▁ is inserted by the normalizer, so the text after a symbol gets none
                # (the symbols are added tokens, cut out of the normalized text)
                if p.add_dummy_prefix:
                    alts = "|".join(re.escape(s) for s in sorted(symbols, key=lambda s: (-len(s), s)))
                    start = "(?!\\Z)" if getattr(p, "prefix_before_space", False) else f"(?=[^ {p.replacement}])"
                    self.extra_normalizers.append(_replace_regex(to_onig(f"^{start}(?!(?:{alts})\\Z)"),
                                                                 p.replacement))
                    self.warnings.append(
                        "a text that is exactly one user-defined symbol (nothing else) encodes without the dummy "
                        f"{p.replacement!r} piece in tokenizer.json; any longer text encodes the same")
                meta = {"type": "Metaspace", "replacement": p.replacement, "prepend_scheme": "never", "split": p.split}
                tok = self.tok
                for s in symbols:
                    self.added.append({"id": tok.model.token_to_id[s], "content": s, "single_word": False, "lstrip": False,
                                       "rstrip": False, "normalized": True, "special": False})
            if p.split_digits:
                return {"type": "Sequence", "pretokenizers": [meta, {"type": "Digits", "individual_digits": True}]}
            return meta
        if hasattr(P, "WhitespaceMetaspace") and t is P.WhitespaceMetaspace:
            if not top:
                raise HFExportError("WhitespaceMetaspace inside a Sequence has no tokenizer.json equivalent")
            # a ▁ inserted before every word by the normalizer, then white-space splitting
            self.extra_normalizers.append(_replace_regex(f"(?<!{_NON_WS_ONIG})(?={_NON_WS_ONIG})", "\u2581"))
            return {"type": "WhitespaceSplit"}
        if t is P.Split:
            pattern = {"Regex": to_onig(p.pattern)} if p.is_regex else {"String": p.pattern}
            return {"type": "Split", "pattern": pattern, "behavior": p.behavior, "invert": p.invert}
        if t is P.Whitespace:
            return {"type": "Whitespace"}
        if t is P.Digits:
            return {"type": "Digits", "individual_digits": p.individual_digits}
        if t is P.Punctuation:
            return {"type": "Punctuation", "behavior": p.behavior}
        if t is P.CharDelimiterSplit:
            return {"type": "CharDelimiterSplit", "delimiter": p.delimiter}
        if t is P.Sequence:
            return {"type": "Sequence", "pretokenizers": [self.pre_tokenizer(x, top=False) for x in p.pre_tokenizers]}
        if hasattr(P, "BertPreTokenizer") and t is P.BertPreTokenizer:
            bert = {"type": "BertPreTokenizer"}
            if not p.handle_chinese_chars:
                return bert
            ranges = _bert_cjk_ranges()
            if not ranges:
                raise HFExportError("cannot read the CJK ranges of BertPreTokenizer(handle_chinese_chars=True)")
            cjk = "".join(f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges)
            return {"type": "Sequence", "pretokenizers": [bert, _split(f"[{cjk}]", "Isolated")]}
        raise HFExportError(f"the pre-tokenizer {type(p).__name__} has no tokenizer.json equivalent")

    # decoders
    def decoder(self, d):
        from . import decoders as D

        if d is None:
            return None
        t = type(d)
        if t is D.ConcatDecoder or t is D.FuseDecoder:
            return {"type": "Fuse"}
        if t is D.ByteLevelDecoder:
            return _byte_level(True, True)
        if t is D.SuffixDecoder:
            return {"type": "BPEDecoder", "suffix": d.suffix}
        if t is D.MetaspaceDecoder:
            if not d.byte_tokens:
                return {"type": "Metaspace", "replacement": d.replacement,
                        "prepend_scheme": "always" if d.add_dummy_prefix else "never", "split": True}
            steps = [{"type": "Replace", "pattern": {"String": d.replacement}, "content": " "},
                     {"type": "ByteFallback"}, {"type": "Fuse"}]
            if d.add_dummy_prefix:
                steps.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
            return {"type": "Sequence", "decoders": steps}
        if t is D.WordPieceDecoder:
            return {"type": "WordPiece", "prefix": d.prefix, "cleanup": d.cleanup}
        if t is D.JoinDecoder:
            return None
        if t is D.ByteFallbackDecoder:
            return {"type": "ByteFallback"}
        if t is D.StripDecoder:
            return {"type": "Strip", "content": d.content, "start": d.start, "stop": d.stop}
        if t is D.ReplaceDecoder:
            pattern = {"Regex": to_onig(d.pattern)} if d.is_regex else {"String": d.pattern}
            return {"type": "Replace", "pattern": pattern, "content": d.content}
        if t is D.SequenceDecoder:
            return {"type": "Sequence", "decoders": [self.decoder(x) or {"type": "Fuse"} for x in d.decoders]}
        raise HFExportError(f"the decoder {type(d).__name__} has no tokenizer.json equivalent")

    # models
    def model(self, m):
        from .models.bpe import BPE
        from .models.hf_bpe import HFBPE

        t = type(m)
        vocab = {tok: i for i, tok in enumerate(m.vocab)}
        if t is BPE:
            return self.bpe(m, vocab)
        if t is HFBPE:
            merges = [[m.vocab[a], m.vocab[b]] for a, b in m.merges]
            _check_merges(merges, vocab, m.prefix)
            return {"type": "BPE", "dropout": None, "unk_token": m.unk_token, "continuing_subword_prefix": m.prefix,
                    "end_of_word_suffix": m.suffix, "fuse_unk": m.fuse_unk, "byte_fallback": m.byte_fallback,
                    "ignore_merges": m.ignore_merges, "vocab": vocab, "merges": merges}
        if m.type == "WordPiece":
            unk = m.unk_token
            if unk is None:
                unk = "[UNK]" if "[UNK]" not in vocab else "<unk>"
                self.warnings.append("the WordPiece model has no unk token: a word it cannot spell is an error in both "
                                     "(ours raises ValueError, HF fails with a missing-unk error)")
            return {"type": "WordPiece", "unk_token": unk, "continuing_subword_prefix": m.prefix,
                    "max_input_chars_per_word": m.max_input_chars_per_word, "vocab": vocab}
        if m.type == "Unigram":
            return self.unigram(m)
        raise HFExportError(f"the model {type(m).__name__} has no tokenizer.json equivalent")

    def bpe(self, m, vocab):
        tok = self.tok
        # step 1: the end-of-word marker
        if m.end_of_word:
            if len(m.end_of_word) != 1:
                raise HFExportError(
                    f"this BPE model appends the end-of-word marker {m.end_of_word!r} to every word as a symbol of its own, "
                    "which tokenizer.json cannot express: HF's end_of_word_suffix glues the marker to the last character "
                    f"('t{m.end_of_word}' is one starting symbol), so words would split differently. Retrain with "
                    "end_of_word=None (or a one-character marker such as '_') to export")
            from .pre_tokenizers import WhitespaceSplit

            if type(tok.pre_tokenizer) is not WhitespaceSplit:
                raise HFExportError("an end-of-word marker is only exported with the WhitespaceSplit pre-tokenizer")
            # a normalizer inserts the marker after every word: exactly our extra symbol
            self.extra_normalizers.append(_replace_regex(f"(?<={_NON_WS_ONIG})(?!{_NON_WS_ONIG})", m.end_of_word))
            self.warnings.append(f"the end-of-word marker {m.end_of_word!r} is inserted into the text by the normalizer; "
                                 "the tokenizer.json's offsets of word-final tokens include it")
        # step 2: merges: the first occurrence of a pair counts (ours), no merge may jump the queue (HF)
        merges, seen = [], set()
        for a, b in m.merges:
            if (a, b) not in seen:
                seen.add((a, b))
                merges.append((a, b))
        _check_no_queue_jumps(m, merges)
        strings = [[m.vocab[a], m.vocab[b]] for a, b in merges]
        _check_merges(strings, vocab, None)
        # step 3: unknown characters
        if not m.byte_level and m.unk_token is None and not m.byte_fallback:
            self.warnings.append("no unk_token: a character outside the vocabulary raises an error in our tokenizer but is "
                                 "silently dropped by HF tokenizers (retrain with unk_token='<unk>' to make both keep a token)")
        if m.byte_fallback and m.unk_token is None:
            pass  # every character has its bytes: nothing is ever unknown
        return {"type": "BPE", "dropout": None, "unk_token": m.unk_token, "continuing_subword_prefix": None,
                "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": bool(m.byte_fallback),
                "ignore_merges": False, "vocab": vocab, "merges": strings}

    def unigram(self, m):
        from .models.hf_unigram import HFUnigram

        if type(m) is not HFUnigram:
            reserved = [m.unk_id] if m.unk_id is not None else []
            reserved += list(m.byte_ids or [])
            specials = set(self.tok.special_tokens.values())
            reserved += [i for i in m.control_ids if i not in specials]
            if reserved:
                names = ", ".join(repr(m.vocab[i]) for i in reserved[:3]) + (", ..." if len(reserved) > 3 else "")
                self.warnings.append(
                    f"our Unigram never matches its reserved pieces ({names}) in text; HF's does, so a text that contains "
                    "such a piece's string literally (e.g. '<unk>') may encode differently")
        size = len(m.vocab)
        if type(m) is HFUnigram and m.control_ids:
            size = min(m.control_ids)  # added tokens beyond the model's own pieces are not in its vocab
        return {"type": "Unigram", "unk_id": m.unk_id,
                "vocab": [[p, s] for p, s in zip(m.vocab[:size], m.scores[:size])], "byte_fallback": bool(m.byte_fallback)}

    def added_tokens(self):
        tok, out = self.tok, []
        added = getattr(tok, "added_vocab", None)
        if added is not None:
            for t in added.tokens:
                out.append({"id": t.id, "content": t.content, "single_word": t.single_word, "lstrip": t.lstrip,
                            "rstrip": t.rstrip, "normalized": t.normalized, "special": t.special})
        else:
            for content, i in sorted(tok.special_tokens.items(), key=lambda kv: kv[1]):
                out.append({"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
                            "normalized": False, "special": True})
        known = {e["id"] for e in out}
        out += [e for e in self.added if e["id"] not in known]
        if tok.special_tokens:
            self.warnings.append("HF tokenizers always encode a special token found in the text as that token; ours does "
                                 "only with allowed_special='all' (by default it raises an error)")
        return sorted(out, key=lambda e: e["id"])


def _bert_cjk_ranges():
    """The CJK ranges the WordPiece preset's BertPreTokenizer isolates."""
    from . import pre_tokenizers as P

    ranges = []
    for m in re.finditer(r"\\[uU]([0-9A-Fa-f]+)-\\[uU]([0-9A-Fa-f]+)", getattr(P, "_CJK", "")):
        ranges.append((int(m.group(1), 16), int(m.group(2), 16)))
    return ranges


def _replace_regex(pattern, content):
    return {"type": "Replace", "pattern": {"Regex": pattern}, "content": content}


def _split(pattern, behavior):
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": False}


def _byte_level(add_prefix_space, use_regex):
    return {"type": "ByteLevel", "add_prefix_space": bool(add_prefix_space), "trim_offsets": True, "use_regex": bool(use_regex)}


def _check_merges(merges, vocab, prefix):
    """Every merge's parts and result must be in the vocabulary (HF's Rust side panics otherwise)."""
    plen = len(prefix.encode("utf-8")) if prefix else 0
    for r, (a, b) in enumerate(merges):
        for part in (a, b):
            if part not in vocab:
                raise HFExportError(f"merge #{r} ({a!r}, {b!r}): {part!r} is not in the vocabulary")
        right = b.encode("utf-8")[plen:].decode("utf-8", errors="replace") if plen else b
        if a + right not in vocab:
            raise HFExportError(f"merge #{r} ({a!r}, {b!r}): the result {a + right!r} is not in the vocabulary")


def _check_no_queue_jumps(m, merges):
    """HF merges one occurrence at a time from a queue ordered by rank, so a pair formed
    by a merge is applied at once if its rank is lower than the current one; ours merges
    all occurrences of a rank first. The two agree unless a merge creates a token that an
    earlier merge already uses."""
    first_use = {}
    for r, (a, b) in enumerate(merges):
        first_use.setdefault(a, r)
        first_use.setdefault(b, r)
    for r, (a, b) in enumerate(merges):
        new = m.ranks[(a, b)][1]
        if first_use.get(new, r + 1) < r:
            q = first_use[new]
            raise HFExportError(
                f"merge #{r} ({m.vocab[a]!r} + {m.vocab[b]!r}) makes {m.vocab[new]!r}, which merge #{q} already uses; HF "
                f"tokenizers would then apply merge #{q} before the remaining #{r} merges and split some words differently. "
                "This happens when two merges make the same token (for a tokenizer trained here: retrain with another "
                "tie_break or vocabulary size), and can happen with merges derived from a tiktoken rank file; such a "
                "tokenizer has no exact tokenizer.json")


def export_hf(tok):
    """``HFExport(text, warnings)``: the tokenizer.json text and the differences to know.

    Raises ``HFExportError`` when there is no exact equivalent (see the module docstring).
    """
    ex = _Export(tok)
    model = ex.model(tok.model)
    pre = ex.pre_tokenizer(tok.pre_tokenizer)
    steps = ex.normalizer_steps(tok.normalizer) + ex.extra_normalizers
    normalizer = None if not steps else steps[0] if len(steps) == 1 else {"type": "Sequence", "normalizers": steps}
    decoder = ex.decoder(tok.decoder)
    doc = {
        "version": HF_VERSION,
        "truncation": None,
        "padding": None,
        "added_tokens": ex.added_tokens(),
        "normalizer": normalizer,
        "pre_tokenizer": pre,
        "post_processor": None,
        "decoder": decoder,
        "model": model,
    }
    return HFExport(_emit(doc, 0) + "\n", ex.warnings)


def to_hf_json(tok):
    """The tokenizer.json text; the differences of ``export_hf`` are issued as ``HFExportWarning``s."""
    result = export_hf(tok)
    for w in result.warnings:
        _warnings.warn(w, HFExportWarning, stacklevel=3)
    return result.text


# -- import ---------------------------------------------------------------------------

class _Import:
    def __init__(self):
        from .serialize import Fields

        self.Fields = Fields

    def fields(self, obj, path):
        return self.Fields(obj, path)

    def unsupported(self, stage, tag, path, supported):
        return ModelFileError(f"{path}.type: {stage} type {tag!r} is not supported; supported: {', '.join(supported)}")

    def pattern(self, f, key="pattern"):
        """A HF pattern ``{"String": s}`` or ``{"Regex": r}`` -> (python_pattern, is_regex)."""
        p = f.get(key, "dict")
        keys = list(p)
        if keys == ["String"] and isinstance(p["String"], str):
            return p["String"], False
        if keys == ["Regex"] and isinstance(p["Regex"], str):
            return from_onig(p["Regex"], f"{f.path}.{key}.Regex"), True
        raise f.error(key, 'expected {"String": "..."} or {"Regex": "..."}')

    # normalizers
    NORMALIZERS = ("NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Strip", "StripAccents", "Replace", "Prepend",
                   "BertNormalizer", "Sequence")

    def normalizer(self, value, path):
        from . import normalizers as N

        if value is None:
            return None
        f = self.fields(value, path)
        tag = f.get("type", "str")
        if tag in ("NFC", "NFD", "NFKC", "NFKD"):
            n = N.Unicode(tag)
        elif tag == "Lowercase":
            n = N.Lowercase()
        elif tag == "Strip":
            n = N.Strip(f.get("strip_left", "bool"), f.get("strip_right", "bool"))
        elif tag == "StripAccents":
            n = N.StripAccents(all_marks=True)
        elif tag == "Replace":
            pattern, is_regex = self.pattern(f)
            content = f.get("content", "str")
            if is_regex:
                n = N.RegexReplace(pattern, content)
            elif not pattern:
                n = None  # HF: an empty string pattern matches nothing
            else:
                n = N.Replace(pattern, content)
        elif tag == "Prepend":
            n = N.Prepend(f.get("prepend", "str"))
        elif tag == "BertNormalizer":
            n = N.BertNormalizer(f.get("clean_text", "bool", True), f.get("handle_chinese_chars", "bool", True),
                                 f.get("strip_accents", "bool", None, nullable=True), f.get("lowercase", "bool", True))
        elif tag == "Sequence":
            items = [self.normalizer(v, f"{path}.normalizers[{i}]") for i, v in enumerate(f.get("normalizers", "list"))]
            n = N.Sequence([x for x in items if x is not None])
        else:
            raise self.unsupported("normalizer", tag, path, self.NORMALIZERS)
        f.done()
        return n

    # pre-tokenizers
    PRE_TOKENIZERS = ("ByteLevel", "Metaspace", "Split", "Whitespace", "WhitespaceSplit", "BertPreTokenizer", "Digits",
                      "Punctuation", "CharDelimiterSplit", "Sequence")

    def pre_tokenizer(self, value, path):
        from . import pre_tokenizers as P
        from .patterns import PATTERNS

        if value is None:
            return None
        f = self.fields(value, path)
        tag = f.get("type", "str")
        if tag == "ByteLevel":
            aps = f.get("add_prefix_space", "bool", True)
            f.get("trim_offsets", "bool", True)
            use_regex = f.get("use_regex", "bool", True)
            p = P.ByteLevel("gpt2" if use_regex else None, aps)
        elif tag == "Metaspace":
            p = P.Metaspace(replacement=self.replacement(f), prepend_scheme=self.prepend_scheme(f),
                            split=f.get("split", "bool", True))
            f.raw("str_rep", None)
        elif tag == "Split":
            pattern, is_regex = self.pattern(f)
            behavior = f.get("behavior", "str")
            if behavior not in P._BEHAVIORS:
                raise f.error("behavior", f"unknown behavior {behavior!r}; one of {', '.join(P._BEHAVIORS)}")
            p = P.Split(pattern, behavior, f.get("invert", "bool"), is_regex)
        elif tag == "Whitespace":
            p = P.Whitespace()
        elif tag == "WhitespaceSplit":
            p = P.WhitespaceSplit()
        elif tag == "BertPreTokenizer":
            p = P.BertPreTokenizer(handle_chinese_chars=False)
        elif tag == "Digits":
            p = P.Digits(f.get("individual_digits", "bool", False))
        elif tag == "Punctuation":
            behavior = f.get("behavior", "str", "Isolated")
            if behavior not in P._BEHAVIORS:
                raise f.error("behavior", f"unknown behavior {behavior!r}; one of {', '.join(P._BEHAVIORS)}")
            p = P.Punctuation(behavior)
        elif tag == "CharDelimiterSplit":
            d = f.get("delimiter", "str")
            if len(d) != 1:
                raise f.error("delimiter", f"expected one character, got {d!r}")
            p = P.CharDelimiterSplit(d)
        elif tag == "Sequence":
            raw = f.get("pretokenizers", "list")
            items = [self.pre_tokenizer(v, f"{path}.pretokenizers[{i}]") for i, v in enumerate(raw)]
            items = [x for x in items if x is not None]
            # subtle: Split(regex) + ByteLevel(no regex) is our byte-level pre-tokenizer when the
            # split keeps exactly the regex's matches: inverted Removed, or Isolated with a
            # built-in pattern (those match every character)
            first, name = (items[0] if items else None), None
            byte_level = (len(items) == 2 and type(first) is P.Split and first.is_regex and type(items[1]) is P.ByteLevel
                          and items[1].pattern is None and not items[1].add_prefix_space)
            if byte_level:
                name = next((k for k, v in PATTERNS.items() if from_onig(to_onig(v), path) == first.pattern), None)
            if byte_level and name and first.behavior == "Isolated" and not first.invert:
                p = P.ByteLevel(name)
            elif byte_level and first.behavior == "Removed" and first.invert:
                p = P.ByteLevel(name or first.pattern)
            else:
                p = P.Sequence(items)
        else:
            raise self.unsupported("pre_tokenizer", tag, path, self.PRE_TOKENIZERS)
        f.done()
        return p

    def replacement(self, f):
        r = f.get("replacement", "str", "\u2581")
        if len(r) != 1:
            raise f.error("replacement", f"expected one character, got {r!r}")
        return r

    def prepend_scheme(self, f):
        scheme = f.get("prepend_scheme", "str", None, nullable=True)
        legacy = f.get("add_prefix_space", "bool", None, nullable=True)
        if scheme is None:
            scheme = "always" if legacy in (None, True) else "never"
        if scheme not in ("always", "first", "never"):
            raise f.error("prepend_scheme", f"expected 'always', 'first' or 'never', got {scheme!r}")
        return scheme

    # decoders
    DECODERS = ("ByteLevel", "Metaspace", "WordPiece", "BPEDecoder", "ByteFallback", "Fuse", "Strip", "Replace", "Sequence")

    def decoder(self, value, path):
        from . import decoders as D

        if value is None:
            return None
        f = self.fields(value, path)
        tag = f.get("type", "str")
        if tag == "ByteLevel":
            for k in ("add_prefix_space", "trim_offsets", "use_regex"):
                f.get(k, "bool", None)
            d = D.ByteLevelDecoder()
        elif tag == "Metaspace":
            scheme = self.prepend_scheme(f)
            f.get("split", "bool", True)
            f.raw("str_rep", None)
            d = D.MetaspaceDecoder(scheme != "never", replacement=self.replacement(f), byte_tokens=False)
        elif tag == "WordPiece":
            d = D.SequenceDecoder([D.WordPieceDecoder(f.get("prefix", "str", "##"), f.get("cleanup", "bool", True))])
        elif tag == "BPEDecoder":
            d = D.SequenceDecoder([D.SuffixDecoder(f.get("suffix", "str", "</w>"))])
        elif tag == "ByteFallback":
            d = D.ByteFallbackDecoder()
        elif tag == "Fuse":
            d = D.FuseDecoder()
        elif tag == "Strip":
            content = f.get("content", "str")
            if len(content) != 1:
                raise f.error("content", f"expected one character, got {content!r}")
            d = D.StripDecoder(content, f.get("start", "nat"), f.get("stop", "nat"))
        elif tag == "Replace":
            pattern, is_regex = self.pattern(f)
            content = f.get("content", "str")
            d = D.ReplaceDecoder(pattern, content, is_regex) if (pattern or is_regex) else D.SequenceDecoder([])
        elif tag == "Sequence":
            items = [self.decoder(v, f"{path}.decoders[{i}]") for i, v in enumerate(f.get("decoders", "list"))]
            d = D.SequenceDecoder([x for x in items if x is not None])
        else:
            raise self.unsupported("decoder", tag, path, self.DECODERS)
        f.done()
        return d


def _vocab_map(f, key="vocab"):
    """A ``{token: id}`` object -> ``{id: token}``, ids checked."""
    v = f.get(key, "dict")
    by_id = {}
    for tok, i in v.items():
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise f.error(f"{key}[{json.dumps(tok, ensure_ascii=False)}]", f"expected a non-negative integer id, got {_kind_name(i)}")
        if i in by_id:
            raise f.error(key, f"the id {i} is given to both {by_id[i]!r} and {tok!r}")
        by_id[i] = tok
    return by_id


def _dense(by_id, added, path):
    """The vocabulary as a list (ids 0..n-1), with added tokens beyond the model's ids."""
    table = dict(by_id)
    for t in added:
        if t["id"] in table:
            if table[t["id"]] != t["content"]:
                raise ModelFileError(f"added_tokens: id {t['id']} is {t['content']!r} but the model's vocabulary has "
                                     f"{table[t['id']]!r} at that id")
        else:
            table[t["id"]] = t["content"]
    n = len(table)
    if n and max(table) != n - 1:
        missing = next(i for i in range(max(table) + 1) if i not in table)
        raise ModelFileError(f"{path}: the ids are not 0..{max(table)}: id {missing} is missing")
    vocab = [table[i] for i in range(n)]
    seen = {}
    for i, tok in enumerate(vocab):
        if tok in seen:
            raise ModelFileError(f"{path}: the token {tok!r} has two ids ({seen[tok]} and {i})")
        seen[tok] = i
    return vocab


def _hf_merges(f, token_to_id):
    raw = f.get("merges", "list")
    if any(isinstance(m, str) for m in raw) and not all(isinstance(m, str) for m in raw):
        raise f.error("merges", "mixes 'left right' strings and [left, right] pairs; use one form (HF refuses a mix too)")
    out = []
    for r, m in enumerate(raw):
        if isinstance(m, str):
            parts = m.split(" ")
            if len(parts) != 2:
                raise f.error(f"merges[{r}]", f"expected 'left right', got {m!r}")
        elif isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m):
            parts = m
        else:
            raise f.error(f"merges[{r}]", f"expected a pair of strings, got {json.dumps(m, ensure_ascii=False)[:60]}")
        ids = []
        for part in parts:
            i = token_to_id.get(part)
            if i is None:
                raise f.error(f"merges[{r}]", f"{part!r} is not in the vocabulary")
            ids.append(i)
        out.append((ids[0], ids[1]))
    return out


def _added_tokens(value):
    from .serialize import Fields

    if value is None:
        return []
    if not isinstance(value, list):
        raise ModelFileError(f"added_tokens: expected an array, got {_kind_name(value)}")
    out, seen = [], {}
    for i, entry in enumerate(value):
        f = Fields(entry, f"added_tokens[{i}]")
        t = {"id": f.get("id", "nat"), "content": f.get("content", "str"),
             "single_word": f.get("single_word", "bool", False), "lstrip": f.get("lstrip", "bool", False),
             "rstrip": f.get("rstrip", "bool", False), "special": f.get("special", "bool", False)}
        t["normalized"] = f.get("normalized", "bool", not t["special"])
        f.done()
        if not t["content"]:
            raise f.error("content", "an added token cannot be empty")
        if t["content"] in seen and seen[t["content"]] != t["id"]:
            raise f.error("content", f"{t['content']!r} is also added with id {seen[t['content']]}")
        seen[t["content"]] = t["id"]
        out.append(t)
    return out


def from_hf_dict(doc, source_sha256=None, drop_post_processing=False):
    """A Tokenizer from a parsed tokenizer.json (see ``from_hf_json``)."""
    from .added_vocab import AddedToken, AddedVocabulary
    from .models.hf_bpe import HFBPE
    from .models.hf_unigram import HFUnigram
    from .pre_tokenizers import ByteLevel
    from .serialize import Fields
    from .tokenizer import Tokenizer

    if isinstance(doc, dict) and doc.get("format") == "subwordlab":
        raise ModelFileError("this is a Subword Lab model file, not a tokenizer.json; load it with Tokenizer.from_json()")
    top = Fields(doc, "tokenizer.json")
    unknown = sorted(set(doc) - set(TOP_LEVEL))
    if unknown:
        raise ModelFileError(f"tokenizer.json: unknown top-level key {unknown[0]!r} (HF tokenizers refuses it too)")
    version = top.get("version", "str", HF_VERSION)
    if version != HF_VERSION:
        raise ModelFileError(f"tokenizer.json.version: {version!r} is not supported; this reads version {HF_VERSION!r}")
    dropped = []
    for key in ("truncation", "padding"):
        if top.raw(key, None) is not None:
            if drop_post_processing:
                dropped.append(key)
                continue
            raise ModelFileError(f"tokenizer.json.{key}: {key} is not supported (it changes the length of the output); "
                                 f"set \"{key}\": null, or import with drop_post_processing=True (CLI: "
                                 "--drop-post-processing) to import the tokenizer without it")
    post = top.raw("post_processor", None)
    if post is not None:
        pf = Fields(post, "post_processor")
        tag = pf.get("type", "str")
        if tag != "ByteLevel":  # ByteLevel only trims offsets: ids are unchanged
            if not drop_post_processing:
                raise ModelFileError(f"post_processor.type: post_processor type {tag!r} is not supported (it adds tokens "
                                     "such as [CLS]/[SEP] or <s> around the text); set \"post_processor\": null, or import "
                                     "with drop_post_processing=True (CLI: --drop-post-processing) to import the "
                                     "tokenizer without it")
            dropped.append(f"post_processor ({tag})")
    imp = _Import()
    added = _added_tokens(top.raw("added_tokens", []))

    def stage(name, build):
        try:
            return build(top.raw(name, None), name)
        except ModelFileError:
            raise
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            raise ModelFileError(f"{name}: {exc}") from None

    normalizer = stage("normalizer", imp.normalizer)
    pre_tokenizer = stage("pre_tokenizer", imp.pre_tokenizer)
    decoder = stage("decoder", imp.decoder)

    # the model
    mf = Fields(top.raw("model"), "model")
    mtype = mf.get("type", "str", None)
    if mtype is None:  # very old files have no model type: guess it as HF does
        mtype = "BPE" if "merges" in mf.obj else "WordPiece" if "max_input_chars_per_word" in mf.obj else "Unigram"
    try:
        if mtype == "BPE":
            by_id = _vocab_map(mf)
            vocab = _dense(by_id, added, "model.vocab")
            model_ids = set(by_id)
            t2i = {t: i for i, t in enumerate(vocab) if i in model_ids}
            merges = _hf_merges(mf, t2i)
            dropout = mf.get("dropout", "num", None, nullable=True)
            if dropout not in (None, 0, 0.0):
                raise mf.error("dropout", f"BPE-dropout ({dropout}) is not supported in imported models; set \"dropout\": null")
            model = HFBPE(vocab, merges, mf.get("unk_token", "str", None, nullable=True),
                          continuing_subword_prefix=mf.get("continuing_subword_prefix", "str", None, nullable=True),
                          end_of_word_suffix=mf.get("end_of_word_suffix", "str", None, nullable=True),
                          fuse_unk=mf.get("fuse_unk", "bool", False), byte_fallback=mf.get("byte_fallback", "bool", False),
                          ignore_merges=mf.get("ignore_merges", "bool", False))
            if model.unk_token is not None and model.unk_token not in t2i:
                raise mf.error("unk_token", f"{model.unk_token!r} is not in the model's vocabulary")
            model.byte_level = type(pre_tokenizer) is ByteLevel and model.byte_ids is not None and normalizer is None
        elif mtype == "WordPiece":
            from .models.wordpiece import WordPiece

            by_id = _vocab_map(mf)
            vocab = _dense(by_id, added, "model.vocab")
            unk = mf.get("unk_token", "str")
            prefix = mf.get("continuing_subword_prefix", "str", "##")
            max_chars = mf.get("max_input_chars_per_word", "nat", 100)
            if max_chars < 1:
                raise mf.error("max_input_chars_per_word", "must be at least 1")
            model = WordPiece(vocab, unk if unk in vocab else None, prefix, max_chars)
        elif mtype == "Unigram":
            pieces = mf.get("vocab", "list")
            vocab, scores = [], []
            for i, entry in enumerate(pieces):
                if (not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str)
                        or not isinstance(entry[1], (int, float)) or isinstance(entry[1], bool)):
                    raise mf.error(f"vocab[{i}]", f"expected [piece, score], got {json.dumps(entry, ensure_ascii=False)[:60]}")
                vocab.append(entry[0])
                scores.append(float(entry[1]))
            by_id = dict(enumerate(vocab))
            full = _dense(by_id, added, "model.vocab")
            hidden = list(range(len(vocab), len(full)))
            unk_id = mf.get("unk_id", "nat", None, nullable=True)
            if unk_id is not None and unk_id >= len(vocab):
                raise mf.error("unk_id", f"{unk_id} is not an id of the vocabulary (0..{len(vocab) - 1})")
            model = HFUnigram(full, scores + [0.0] * len(hidden), unk_id, mf.get("byte_fallback", "bool", False), hidden)
        else:
            raise mf.error("type", f"model type {mtype!r} is not supported; supported: BPE, WordPiece, Unigram")
        mf.done()
    except ModelFileError:
        raise
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise ModelFileError(f"model: {exc}") from None
    top.done()

    # added tokens: plain special tokens use our special-token policy; anything else is
    # cut out of the text HF's way (added_vocab.py)
    specials = {t["content"]: t["id"] for t in added if t["special"]}
    from .added_vocab import first_scheme

    # subtle: a Metaspace "first" needs to know where each segment starts in the original text
    plain = (all(t["special"] and not (t["normalized"] or t["lstrip"] or t["rstrip"] or t["single_word"]) for t in added)
             and not first_scheme(pre_tokenizer))
    added_vocab = None if plain else AddedVocabulary([
        AddedToken(t["content"], t["id"], t["special"], t["normalized"], t["lstrip"], t["rstrip"], t["single_word"])
        for t in added])
    if decoder is None:
        from .decoders import JoinDecoder

        decoder = JoinDecoder()
    spec = {"source": "tokenizer.json"}
    if source_sha256:
        spec["source_sha256"] = source_sha256
    if dropped:
        spec["dropped"] = dropped  # provenance: what of the file this tokenizer does not do
    try:
        return Tokenizer(model, normalizer, pre_tokenizer, decoder, specials, spec, added_vocab=added_vocab)
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"tokenizer.json: {exc}") from None


def from_hf_json(text, drop_post_processing=False):
    """A Tokenizer from a Hugging Face tokenizer.json (str or bytes); raises ``ModelFileError``.

    A post-processor (tokens such as [CLS]/[SEP] added around the text), truncation or
    padding is refused, unless ``drop_post_processing=True``: then the tokenizer encodes
    like HF's ``encode(text, add_special_tokens=False)`` and ``spec["dropped"]`` says what
    was left out."""
    import hashlib

    raw = text.encode("utf-8") if isinstance(text, str) else bytes(text) if isinstance(text, (bytes, bytearray)) else None
    doc = parse_json(text, "tokenizer.json")
    return from_hf_dict(doc, hashlib.sha256(raw).hexdigest() if raw is not None and len(raw) <= MAX_FILE_BYTES else None,
                        drop_post_processing)
