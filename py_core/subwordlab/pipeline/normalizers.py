"""Normalizers: the first pipeline stage, text -> text, with offsets kept.

Each normalizer has ``normalize_str(text) -> str`` (the fast path used for training and
plain encoding) and ``normalize_aligned(text) -> (str, starts, ends)`` where, for every
character of the result, ``starts[i]:ends[i]`` is the span of the original text it came
from (used by the inspector and ``encode_full`` to report offsets into the input).

>>> Sequence([Unicode("NFKC"), Lowercase()]).normalize_str("Ｈｉ")
'hi'
>>> Collapse().normalize_str("  a   b ")
'a b'
"""

import base64
import binascii
import functools
import re

from ..base.registry import component, dump_component
from ..text import unicode_data  # the core's pinned Unicode tables, never the runtime's
from ..text.charsmap import CharsMap, spm_nfkc
from ..text.regex_compat import compile_pattern, onig_spans, onig_sub
from ..text.regex_syntax import WHITE_SPACE  # Rust's char::is_whitespace, which HF's Strip uses


def _units(text):
    """Explode text into (char, start, end) units. Example: 'ab' -> [('a',0,1),('b',1,2)]."""
    return [(ch, i, i + 1) for i, ch in enumerate(text)]


def _pack(units):
    """Units back to (text, starts, ends)."""
    return "".join(u[0] for u in units), [u[1] for u in units], [u[2] for u in units]


class Normalizer:
    """Base class: subclasses implement ``normalize_str`` and ``apply`` (on units)."""

    type = "Normalizer"

    def normalize_str(self, text: str) -> str:
        return "".join(u[0] for u in self.apply(_units(text)))

    def normalize_aligned(self, text: str):
        return _pack(self.apply(_units(text)))

    def apply(self, units):
        raise NotImplementedError

    def dump(self):
        """Its fields for our model file (``registry.py``); none by default."""
        return {}

    @classmethod
    def load(cls, f, ctx):
        """The inverse of ``dump`` (``f``: a ``jsonio.Fields`` reader)."""
        return cls()


@component("normalizer", "Unicode")
class Unicode(Normalizer):
    """Unicode normalization form NFC, NFD, NFKC or NFKD. Example (NFKC): 'ﬁ' -> 'fi'."""

    type = "Unicode"
    FORMS = ("NFC", "NFD", "NFKC", "NFKD")

    def __init__(self, form: str):
        form = form.upper()
        if form not in self.FORMS:
            raise ValueError(f"unknown Unicode normalization {form!r}; use one of {', '.join(self.FORMS)}")
        self.form = form

    def normalize_str(self, text):
        return unicode_data.normalize(self.form, text)

    def apply(self, units):
        text = "".join(u[0] for u in units)
        expected = unicode_data.normalize(self.form, text)
        if expected == text:
            return units
        # step 1: cut the text into runs that normalize independently (a starter and the
        # combining marks after it); subtle: some starters compose with the previous one
        # (Hangul jamo, a few Indic vowel signs), so we check the result below.
        runs, start = [], 0
        for i in range(1, len(units) + 1):
            if i == len(units) or unicode_data.combining(units[i][0]) == 0 and not 0x1160 <= ord(units[i][0]) <= 0x11FF:
                runs.append(units[start:i])
                start = i
        # step 2: join a run to the one before where they do not normalize apart (a vowel
        # sign that composes with the vowel before it: Bengali U+09C7 U+09BE -> U+09CB)
        normalize = unicode_data.normalize
        joined, done = [], None
        for run in runs:
            text = "".join(u[0] for u in run)
            if done is not None:
                both = normalize(self.form, done[1] + text)
                if both != done[2] + normalize(self.form, text):
                    done = (done[0] + run, done[1] + text, both)
                    continue
                joined.append(done)
            done = (run, text, normalize(self.form, text))
        if done is not None:
            joined.append(done)
        out = []
        for run, text, normalized in joined:
            if normalized == text:  # step 3: a run left as it is keeps its characters' spans
                out.extend(run)
                continue
            # ... a changed one: its characters aligned as the tokenizers library aligns them
            # (``_aligned_run``); where that does not give the run's normalization, every
            # character points at the whole run
            aligned = _aligned_run(self.form, run)
            if "".join(u[0] for u in aligned) == normalized:
                out.extend(aligned)
                continue
            span_start, span_end = run[0][1], run[-1][2]
            out.extend((ch, span_start, span_end) for ch in normalized)
        # step 4: if run-wise normalization still differs from the whole text's, fall back
        # to one run (offsets become coarse, the text stays exact)
        if "".join(u[0] for u in out) != expected:
            lo, hi = units[0][1], units[-1][2]
            out = [(ch, lo, hi) for ch in expected]
        return out

    def dump(self):
        return {"form": self.form}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("form", "str"))


def _aligned_run(form, run):
    """A run of units (a starter and what follows it) normalized with its characters aligned
    as the tokenizers library (``unicode-normalization-alignments``) aligns them: each output
    character is counted as a change (0: it takes the next input character; +1: it is added
    after the one before; -n: it takes the next input character and n more vanish) and then
    takes the span of the input character it takes. Decomposing gives 0, +1, +1...; marks are
    reordered with their counts; composing adds the mark's count, minus 1, to its starter's.

    Example (NFC): 'ê' + U+0301 -> 'ế', which takes the span of 'ê' (the mark vanishes);
    Devanagari U+095E -> U+092B U+093C, both with the span of U+095E.
    """
    compat = form in ("NFKC", "NFKD")
    # step 1: each character decomposed on its own, with its counts
    stream = []
    for ch, _s, _e in run:
        parts = unicode_data.normalize("NFKD" if compat else "NFD", ch)
        stream.extend([part, 0 if k == 0 else 1] for k, part in enumerate(parts))
    # step 2: the canonical order (a stable sort of each run of marks by combining class)
    i = 0
    while i < len(stream):
        j = i
        while j < len(stream) and unicode_data.combining(stream[j][0]) != 0:
            j += 1
        stream[i:j] = sorted(stream[i:j], key=lambda c: unicode_data.combining(c[0]))
        i = max(j, i + 1)
    # step 3: canonical composition (NFC, NFKC): a character joins the last starter unless
    # something between them blocks it
    if form in ("NFC", "NFKC"):
        out, starter = [], None
        for ch, change in stream:
            cc = unicode_data.combining(ch)
            if starter is not None:
                between = unicode_data.combining(out[-1][0]) if len(out) - 1 > starter else None
                if between is None or between != 0 and between < cc:
                    both = _compose(out[starter][0], ch)
                    if both is not None:
                        out[starter] = [both, out[starter][1] + change - 1]
                        continue
            if cc == 0:
                starter = len(out)
            out.append([ch, change])
        stream = out
    # step 4: the spans, taking input characters in order
    aligned, k = [], 0
    for ch, change in stream:
        if change > 0 and aligned:
            aligned.append((ch, aligned[-1][1], aligned[-1][2]))
            continue
        unit = run[min(k, len(run) - 1)]
        aligned.append((ch, unit[1], unit[2]))
        k += 1 + max(0, -change)
    return aligned


@functools.lru_cache(maxsize=4096)
def _compose(a, b):
    """The canonical composite of two characters (never an excluded one), or None."""
    both = unicode_data.normalize("NFC", a + b)
    return both if len(both) == 1 else None


@component("normalizer", "Lowercase")
class Lowercase(Normalizer):
    """Lower-case every character. Example: 'ABC' -> 'abc'."""

    type = "Lowercase"

    def normalize_str(self, text):
        # subtle: str.lower() maps a word-final 'Σ' to 'ς' (Final_Sigma); per character,
        # as ``apply`` and HF's Lowercase do, it is always 'σ'
        return unicode_data.lower(text) if "\u03a3" not in text else "".join(unicode_data.lower(c) for c in text)

    def apply(self, units):
        return [(ch, s, e) for c, s, e in units for ch in unicode_data.lower(c)]


@component("normalizer", "StripAccents")
class StripAccents(Normalizer):
    """Remove combining marks (run after NFD). Example: NFD('é') 'é' -> 'e'.

    ``all_marks=False`` removes non-spacing marks (Mn) only, as BERT does;
    ``all_marks=True`` also spacing and enclosing marks (Mc, Me), as HF's ``StripAccents``
    normalizer does (it also strips Hindi vowel signs such as 'ि').
    """

    type = "StripAccents"

    def __init__(self, all_marks=False):
        self.all_marks = bool(all_marks)
        self._drop = ("Mn", "Mc", "Me") if all_marks else ("Mn",)

    def normalize_str(self, text):
        drop = self._drop
        return "".join(c for c in text if unicode_data.category(c) not in drop)

    def apply(self, units):
        drop = self._drop
        return [u for u in units if unicode_data.category(u[0]) not in drop]

    def dump(self):
        return {"all_marks": self.all_marks}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("all_marks", "bool"))


@component("normalizer", "Strip")
class Strip(Normalizer):
    """Remove Unicode white space at the start and/or end. Example: ' a ' -> 'a'."""

    type = "Strip"

    def __init__(self, left=True, right=True):
        self.left, self.right = left, right

    def apply(self, units):
        lo, hi = 0, len(units)
        while self.left and lo < hi and units[lo][0] in WHITE_SPACE:
            lo += 1
        while self.right and hi > lo and units[hi - 1][0] in WHITE_SPACE:
            hi -= 1
        return units[lo:hi]

    def dump(self):
        return {"left": self.left, "right": self.right}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("left", "bool"), f.get("right", "bool"))


@component("normalizer", "Collapse")
class Collapse(Normalizer):
    """SentencePiece's ``remove_extra_whitespaces``: strip white space at both ends and
    collapse every run of spaces into one. Example: '  a   b ' -> 'a b'.

    ``spaces_only``: strip only spaces, as spm_train does (a tab at a line's end stays:
    '\ta ' -> '\ta'); by default any Unicode white space, as the tokenizers library's
    ``Strip`` (what the exported file says) does."""

    type = "Collapse"
    _RUNS = re.compile(" {2,}")
    _WHITE_SPACE = "".join(sorted(WHITE_SPACE))

    def __init__(self, spaces_only=False):
        self.spaces_only = bool(spaces_only)

    def normalize_str(self, text):
        # the text alone (no offsets) at C speed, any script: what ``apply`` keeps of a run
        # of spaces is one space, and str.strip drops the same white space as ``Strip``
        # (measured, 1 MB of random bytes: 0.35 s through ``apply``'s units, 0.01 s)
        return self._RUNS.sub(" ", text).strip(" " if self.spaces_only else self._WHITE_SPACE)

    def apply(self, units):
        # step 1: collapse runs of ' ' (keep the last space of each run: its offsets are the
        # ones the tokenizers library gives for Replace(' {2,}', ' '))
        last = len(units) - 1
        kept = [u for i, u in enumerate(units) if not (u[0] == " " and i < last and units[i + 1][0] == " ")]
        # step 2: strip white space (or only the space: one at most, after step 1) at both ends
        if not self.spaces_only:
            return Strip().apply(kept)
        lo, hi = int(bool(kept) and kept[0][0] == " "), len(kept)
        if hi > lo and kept[hi - 1][0] == " ":
            hi -= 1
        return kept[lo:hi]

    def dump(self):
        return {"spaces_only": True} if self.spaces_only else {}  # (a file from before has none)

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("spaces_only", "bool", default=False))


class _PatternContent(Normalizer):
    """Saved as its ``pattern`` and ``content`` (Replace, RegexReplace)."""

    pattern: str
    content: str

    def dump(self):
        return {"pattern": self.pattern, "content": self.content}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("pattern", "str"), f.get("content", "str"))


@component("normalizer", "Replace")
class Replace(_PatternContent):
    """Replace every occurrence of a literal string. Example: Replace(' ', '▁'): 'a b' -> 'a▁b'."""

    type = "Replace"

    def __init__(self, pattern: str, content: str):
        if not pattern:
            raise ValueError("Replace needs a non-empty pattern")
        self.pattern, self.content = pattern, content

    def normalize_str(self, text):
        return text.replace(self.pattern, self.content)

    def apply(self, units):
        out, i, n, p = [], 0, len(units), self.pattern
        while i < n:
            if units[i][0] == p[0] and "".join(u[0] for u in units[i:i + len(p)]) == p:
                # the replacement covers the match's last character, as in the tokenizers library
                _last, s, e = units[i + len(p) - 1]
                out.extend((ch, s, e) for ch in self.content)
                i += len(p)
            else:
                out.append(units[i])
                i += 1
        return out


@component("normalizer", "Precompiled")
class Precompiled(Normalizer):
    """A precompiled charsmap (SentencePiece's table of replacements), applied as SentencePiece
    applies it: the longest key at each position (``text/charsmap.py``). ``Precompiled()`` is
    sentencepiece's own ``nfkc`` table, what ``rules="sentencepiece"`` normalizes with.
    Example: 'ｈｉ ﬁ' -> 'hi fi'."""

    type = "Precompiled"
    BUILT_IN = "sentencepiece nfkc"  # our model file names the built-in table instead of holding it

    def __init__(self, charsmap: bytes | None = None):
        self.table = spm_nfkc() if charsmap is None else CharsMap(charsmap)
        self.built_in = charsmap is None or self.table.blob == spm_nfkc().blob

    def normalize_str(self, text):
        return self.table.normalize(text)

    def apply(self, units):
        return self.table.apply(units)

    def charsmap_base64(self) -> str:
        """The table's bytes in base64, as a tokenizer.json holds them."""
        return base64.b64encode(self.table.blob).decode("ascii")

    def dump(self):
        return {"table": self.BUILT_IN} if self.built_in else {"precompiled_charsmap": self.charsmap_base64()}

    @classmethod
    def load(cls, f, ctx):
        if "table" in f.obj:
            if f.get("table", "str") != cls.BUILT_IN:
                raise f.error("table", f"the only built-in table is {cls.BUILT_IN!r}")
            return cls()
        return precompiled_from(f)


def precompiled_from(f):
    """A ``Precompiled`` of a file's ``precompiled_charsmap`` field (base64), or the field's error."""
    text = f.get("precompiled_charsmap", "str")
    try:
        return Precompiled(base64.b64decode(text, validate=True))
    except (ValueError, binascii.Error) as exc:
        raise f.error("precompiled_charsmap", f"not a precompiled charsmap ({exc})") from None


@component("normalizer", "Sequence")
class Sequence(Normalizer):
    """Several normalizers, applied in order."""

    type = "Sequence"

    def __init__(self, normalizers):
        self.normalizers = list(normalizers)

    def normalize_str(self, text):
        for n in self.normalizers:
            text = n.normalize_str(text)
        return text

    def apply(self, units):
        for n in self.normalizers:
            units = n.apply(units)
        return units

    def dump(self):
        return {"normalizers": [dump_component("normalizer", n) for n in self.normalizers]}

    @classmethod
    def load(cls, f, ctx):
        return cls(ctx.components("normalizer", f, "normalizers"))


# -- general-purpose normalizers (for tokenizer.json files imported from HF tokenizers) ----

@component("normalizer", "RegexReplace")
class RegexReplace(_PatternContent):
    """Replace every match of a regex with a literal string (no group references); an
    empty match inserts it. Example (r" {2,}" -> " "): 'a   b' -> 'a b'."""

    type = "RegexReplace"

    def __init__(self, pattern: str, content: str):
        self.pattern, self.content = pattern, content
        try:
            self.regex = compile_pattern(pattern)
        except Exception as exc:  # noqa: BLE001 - re.error or regex.error (regex is optional)
            raise ValueError(f"the Replace pattern {pattern!r} does not compile: {exc}") from None

    def normalize_str(self, text):
        # the matches as HF finds them (an empty match right after a match is skipped)
        return onig_sub(self.regex, self.content, text)

    def apply(self, units):
        text = "".join(u[0] for u in units)
        out, pos = [], 0
        for s, e in onig_spans(self.regex, text):
            out.extend(units[pos:s])
            if e > s:  # (the replacement covers the match's last character, as in tokenizers)
                lo, hi = units[e - 1][1], units[e - 1][2]
            else:  # subtle: an insertion is zero-width, at the start of the next character
                lo = hi = units[s][1] if s < len(units) else (units[-1][2] if units else 0)
            out.extend((ch, lo, hi) for ch in self.content)
            pos = e
        out.extend(units[pos:])
        return out


@component("normalizer", "Prepend")
class Prepend(Normalizer):
    """Put a string before any non-empty text. Example ('▁'): 'ab' -> '▁ab', '' -> ''."""

    type = "Prepend"

    def __init__(self, prepend: str):
        self.prepend = prepend

    def normalize_str(self, text):
        return self.prepend + text if text else text

    def apply(self, units):
        if not units:
            return units
        # what is put before the text covers the text's first character, as in the
        # tokenizers library (NormalizedString::prepend aligns it with that character)
        _first, s, e = units[0]
        return [(ch, s, e) for ch in self.prepend] + list(units)

    def dump(self):
        return {"prepend": self.prepend}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("prepend", "str"))


# BERT's CJK ideograph blocks (HF tokenizers' is_chinese_char)
_CJK_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
               (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def _is_cjk(ch):
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


@component("normalizer", "BertNormalizer")
class BertNormalizer(Normalizer):
    """HF's ``BertNormalizer``: ``clean_text`` drops control characters (and U+0000,
    U+FFFD) and turns white space into ' '; ``handle_chinese_chars`` puts spaces around
    CJK ideographs; ``strip_accents`` (default: same as ``lowercase``) decomposes (NFD) and
    drops non-spacing marks; ``lowercase``. Example: 'Héllo\\t中' -> 'hello  中 '."""

    type = "BertNormalizer"

    def __init__(self, clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True):
        self.clean_text, self.handle_chinese_chars = bool(clean_text), bool(handle_chinese_chars)
        self.strip_accents, self.lowercase = strip_accents, bool(lowercase)
        steps = []
        if self.strip_accents if self.strip_accents is not None else self.lowercase:
            steps += [Unicode("NFD"), StripAccents()]
        if self.lowercase:
            steps.append(Lowercase())
        self._then = Sequence(steps)

    @staticmethod
    def _keep(ch):
        # subtle: tab, newline and carriage return are white space, not control characters
        return ch in "\t\n\r" or not (ch == "\x00" or ch == "\ufffd" or unicode_data.category(ch)[0] == "C")

    def apply(self, units):
        if self.clean_text:
            units = [(" " if c in WHITE_SPACE else c, s, e) for c, s, e in units if self._keep(c)]
        if self.handle_chinese_chars:
            units = [v for c, s, e in units for v in ([(" ", s, s), (c, s, e), (" ", e, e)] if _is_cjk(c) else [(c, s, e)])]
        return self._then.apply(units)

    def dump(self):
        return {"clean_text": self.clean_text, "handle_chinese_chars": self.handle_chinese_chars,
                "strip_accents": self.strip_accents, "lowercase": self.lowercase}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("clean_text", "bool"), f.get("handle_chinese_chars", "bool"),
                   f.get("strip_accents", "bool", nullable=True), f.get("lowercase", "bool"))


def identity_aligned(text):
    """No normalizer: every character maps to itself."""
    return text, list(range(len(text))), list(range(1, len(text) + 1))
