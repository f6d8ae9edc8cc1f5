"""Pre-tokenizers: the second pipeline stage, text -> pieces with offsets.

``pre_tokenize_str(text)`` returns ``[(piece, (start, end)), ...]`` where ``start:end`` is
the piece's span in ``text``. Models never see anything larger than one piece, so merges
never cross a piece boundary.

>>> WhitespaceSplit().pre_tokenize_str("low  lower")
[('low', (0, 3)), ('lower', (5, 10))]
>>> ByteLevel("gpt2").pre_tokenize_str("Hi there")
[('Hi', (0, 2)), ('Ġthere', (2, 8))]
>>> Metaspace().pre_tokenize_str("Hi there")
[('▁Hi', (0, 2)), ('▁there', (2, 8))]

Why one module: it is one pipeline stage, like normalizers.py and
decoders.py; its classes are small, share the base class's ``split_pieces`` and each
carries its own serialization (``dump``/``load``, see registry.py). Split by origin
(GPT, SentencePiece, BERT, HF) a reader would meet the same ideas in four files.
"""

import re

from ..base.registry import component, dump_component
from ..text.bytes_map import bytes_to_text
from ..text.patterns import PATTERNS
from ..text.regex_compat import compile_pattern, onig_spans, translate
from ..text.unicode_data import SPM_DIGITS, category

SPACE_MARK = "\u2581"  # ▁, SentencePiece's visible space
_NUMERIC = ("Nd", "Nl", "No")  # what Rust's char::is_numeric accepts (HF's Digits)
# Unicode White_Space (Rust's char::is_whitespace, which HF's WhitespaceSplit uses);
# subtle: Python's str.split() and re's \s also split at U+001C..U+001F, which are not.
_SEPARATORS = "\x1c\x1d\x1e\x1f"
_NON_SPACE = re.compile("[^\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")


# A custom pattern is refused if it can match an empty string: such a pattern cuts nothing, and
# an empty piece is no token (a*, \b, (?=x), the empty pattern). The answer is read from the
# parsed pattern (its shortest match), not by running it on a sample: running a user's regex on
# the page's main thread, even on 40 characters, can backtrack for hours ('([^@]|[^@])+@').
# Only a pattern the stdlib cannot parse (a `regex`-only syntax, CPython with `regex` only) is
# tried on the short probes below, each a few characters, so no backtracking can grow far.
_EMPTY_PROBES = ("Hi,", " 42", "\u00e9t\u00e9", "\n\t ", "x_y-z", "\u4e2d\u6587", "\U0001F600.", "it's")


def covering_spans(regex, text, gaps=None):
    r"""Spans that cover ``text``: the pattern's whole matches (``m.span()``, whatever groups
    the pattern has) and, as pieces of their own, the runs of text between them. Empty
    matches cut nothing. Pre-tokenization therefore never loses text. ``gaps``, a list,
    receives the length of each run the pattern left unmatched.

    >>> import re
    >>> covering_spans(re.compile(r"(\w+)"), "hi, you")
    [(0, 2), (2, 4), (4, 7)]
    """
    spans, prev = [], 0
    for m in regex.finditer(text):
        s, e = m.span()
        if s == e:
            continue  # an empty match cuts nothing
        if s > prev:
            spans.append((prev, s))  # text the pattern left unmatched: a piece of its own
            if gaps is not None:
                gaps.append(s - prev)
        spans.append((s, e))
        prev = e
    if prev < len(text):
        spans.append((prev, len(text)))
        if gaps is not None:
            gaps.append(len(text) - prev)
    return spans


def unmatched_count(regex, text):
    """How many characters of ``text`` no (non-empty) match of ``regex`` covers.

    >>> import re
    >>> unmatched_count(re.compile(r"[a-z]+"), "ab, cd!")
    3
    """
    return len(text) - sum(e - s for s, e in (m.span() for m in regex.finditer(text)))


def can_match_empty(regex, pattern):
    r"""Whether ``pattern`` can match an empty string somewhere. Read from the stdlib's parse of
    the pattern (the shortest width it can match: linear in the pattern, the text never runs);
    a `regex`-only pattern is tried on a few probes of a few characters instead.

    >>> import re
    >>> [can_match_empty(re.compile(p), p) for p in ("a*", r"\b", r"\w+|\s+", r"(a)?(?(1)a|)")]
    [True, True, False, True]
    """
    try:
        return re._parser.parse(translate(pattern)).getwidth()[0] == 0
    except (re.error, ValueError, RecursionError, OverflowError):
        pass  # a pattern only the `regex` module compiles
    return regex.fullmatch("") is not None or any(
        m.start() == m.end() for probe in _EMPTY_PROBES for m in regex.finditer(probe))


def check_not_empty_matching(regex, pattern):
    """Refuse a pattern that matches an empty string: it would cut the text nowhere (or
    into nothing), and an empty piece is no token. Raises ValueError saying what to write."""
    if can_match_empty(regex, pattern):
        raise ValueError(
            f"the pre-tokenization pattern {pattern!r} matches an empty string, so it cannot cut text into "
            f"pieces; make every alternative match at least one character (e.g. '+' instead of '*', no bare "
            f"\\b or lookaround), or use 'gpt2', 'cl100k' or 'o200k'")


def split_white_space(text):
    """Words between runs of Unicode White_Space. Example: 'a \x1fb  c' -> ['a', '\x1fb', 'c']."""
    if not any(c in text for c in _SEPARATORS):
        return text.split()
    return _NON_SPACE.findall(text)


class PreTokenizer:
    type = "PreTokenizer"

    def pre_tokenize_str(self, text):
        raise NotImplementedError

    def words(self, text):
        """Just the pieces (the fast path used to count a training corpus)."""
        return [p for p, _ in self.pre_tokenize_str(text)]

    def split_pieces(self, pieces):
        """Apply this stage to every piece of an earlier one (inside a ``Sequence``).

        Example (WhitespaceSplit): [('a b', (4, 7))] -> [('a', (4, 5)), ('b', (6, 7))].
        """
        out = []
        for piece, (s, e) in pieces:
            # subtle: a piece changed by an earlier stage (bytes, ▁) no longer lines up with
            # the text; its sub-pieces then all point at the whole piece's span
            exact = len(piece) == e - s
            for sub, (a, b) in self.pre_tokenize_str(piece):
                out.append((sub, (s + a, s + b) if exact else (s, e)))
        return out

    def dump(self):
        """Its fields for our model file (``registry.py``); none by default."""
        return {}

    @classmethod
    def load(cls, f, ctx):
        """The inverse of ``dump`` (``f``: a ``jsonio.Fields`` reader)."""
        return cls()


@component("pre_tokenizer", "WhitespaceSplit")
class WhitespaceSplit(PreTokenizer):
    """Split on white space (Unicode White_Space); each maximal run of other characters is a word."""

    type = "WhitespaceSplit"
    _WORD = _NON_SPACE

    def pre_tokenize_str(self, text):
        return [(m.group(), m.span()) for m in self._WORD.finditer(text)]

    def words(self, text):
        return split_white_space(text)


# Runs of text that the built-in patterns cut into the same chunks alone as inside the
# whole text (ByteLevel.segments): each run ends where a chunk must end.
# - gpt2: white space then non-space; no chunk goes from a non-space to a space.
# - cl100k: also the line breaks after punctuation (its punctuation chunk takes them).
# - o200k: a combining mark counts as a letter or as punctuation depending on what precedes
#   it, so a line break after a non-space may belong to the chunk before it or to the white
#   space after it ('\u0300\n \n' -> ['\u0300', '\n \n']): no cut there. A run ends only
#   before white space that starts with no line break (no chunk crosses a non-space then a
#   space or tab), or after line breaks followed by a non-space other than '/' (punctuation
#   chunks take '[\r\n/]*'); it continues over line breaks otherwise. Measured (warm cache,
#   udhr_many): o200k encodes at the speed of gpt2, about 17 MB/s CPU, against 11 per chunk.
_SEGMENTERS = {
    "gpt2": r"\s*\S+|\s+",
    "cl100k": r"\s*\S+(?:(?<=[^\s\p{L}\p{N}])[\r\n]+)?|\s+",
    "o200k": r"\s*\S+(?:[\r\n]\s*(?:[^\S\r\n]|(?=/))\S+)*(?:[\r\n]\s*(?:(?<=[\r\n])(?=[^\s/])|\Z))?|\s+",
}


@component("pre_tokenizer", "ByteLevel")
class ByteLevel(PreTokenizer):
    """Cut text with a GPT-style regex, then show each chunk's UTF-8 bytes as GPT-2
    characters. ``pattern`` is "gpt2", "cl100k", "o200k" or a regex of your own, or None
    for no cutting (the whole text is one chunk; HF's ``use_regex: false``).
    ``add_prefix_space``: put a space before text that does not start with one (HF's
    option of the same name, GPT-2-style models imported from tokenizer.json)."""

    type = "ByteLevel"

    def __init__(self, pattern="gpt2", add_prefix_space=False):
        self.pattern_name = pattern if pattern in PATTERNS else None
        self.pattern = PATTERNS.get(pattern, pattern)
        self.add_prefix_space = bool(add_prefix_space)
        self.regex = None
        if self.pattern_name:
            self._segmenter = compile_pattern(_SEGMENTERS[pattern])
        if self.pattern is not None:
            try:
                self.regex = compile_pattern(self.pattern)
            except Exception as exc:  # noqa: BLE001 - re.error or regex.error (regex is optional)
                raise ValueError(f"the pre-tokenization pattern does not compile: {exc}; fix the regex or use 'gpt2', 'cl100k' or 'o200k'") from None
            if not self.pattern_name:
                check_not_empty_matching(self.regex, self.pattern)

    def _prefixed(self, text):
        """The text with the prefix space, and how many characters were added (0 or 1)."""
        if self.add_prefix_space and text and text[0] != " ":
            return " " + text, 1
        return text, 0

    def chunks(self, text):
        """The regex chunks as plain strings. Example: 'Hi there' -> ['Hi', ' there']."""
        text = self._prefixed(text)[0]
        if self.regex is None:
            return [text] if text else []
        if not self.regex.groups:
            # fast path: without groups findall gives the whole matches; if they add up to the
            # text, nothing was left unmatched (always so for the built-in patterns)
            found = self.regex.findall(text)
            if sum(map(len, found)) == len(text):
                return found
        return [text[s:e] for s, e in covering_spans(self.regex, text)]

    def unmatched(self, text):
        """How many characters of ``text`` the pattern left unmatched (kept as pieces of
        their own). Example (pattern '[a-z]+'): 'ab, cd!' -> 3."""
        if self.regex is None:
            return 0
        return unmatched_count(self.regex, self._prefixed(text)[0])

    def chunks_and_unmatched(self, text):
        """``(chunks(text), unmatched(text))`` in one pass of the pattern (training counts
        what a custom pattern leaves unmatched). Example (pattern '[a-z]+'): 'ab, cd!' ->
        (['ab', ', ', 'cd', '!'], 3)."""
        text = self._prefixed(text)[0]
        if self.regex is None:
            return ([text] if text else []), 0
        if not self.regex.groups:
            found = self.regex.findall(text)  # (the fast path of ``chunks``)
            if sum(map(len, found)) == len(text):
                return found, 0
        gaps = []
        spans = covering_spans(self.regex, text, gaps)
        return [text[s:e] for s, e in spans], sum(gaps)

    def segments(self, text):
        """Cut text into runs that the pattern chunks independently, or None if unknown.

        For the built-in patterns a chunk never goes from a non-space to a space, except a
        run of punctuation that takes the line breaks after it (cl100k ".\n\n", o200k also
        "/"), so such runs can be chunked (and their ids cached) one by one: a fast path for
        encoding. Example: 'Hi there' -> ['Hi', ' there']. See ``_SEGMENTERS``.
        """
        ok = self.pattern_name is not None and not self.add_prefix_space
        return self._segmenter.findall(text) if ok else None

    def pre_tokenize_str(self, text):
        text, added = self._prefixed(text)
        spans = covering_spans(self.regex, text) if self.regex is not None else ([(0, len(text))] if text else [])
        # subtle: the prefix space is zero-width in the original text
        return [(bytes_to_text(text[s:e].encode("utf-8")), (max(0, s - added), e - added)) for s, e in spans]

    def words(self, text):
        return [bytes_to_text(c.encode("utf-8")) for c in self.chunks(text)]

    def dump(self):
        return {"pattern": self.pattern_name or self.pattern, "add_prefix_space": self.add_prefix_space}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("pattern", "str", nullable=True), f.get("add_prefix_space", "bool"))


@component("pre_tokenizer", "Metaspace")
class Metaspace(PreTokenizer):
    """SentencePiece-style: spaces become ▁, a ▁ is prepended (``add_dummy_prefix``), and a
    new piece starts at every ▁; with ``split_digits`` every digit is a piece of its own.

    A ▁ already in the text counts as a space, as in SentencePiece and HF (the decoder
    turns every ▁ into a space anyway). The keyword options mirror HF's Metaspace for
    imported tokenizers: ``replacement`` (the mark), ``prepend_scheme`` ("always",
    "first": only a piece that starts the text, "never"; default from
    ``add_dummy_prefix``) and ``split`` (False: one piece, spaces only replaced).
    """

    type = "Metaspace"

    def __init__(self, add_dummy_prefix=True, split_digits=False, *, replacement=SPACE_MARK,
                 prepend_scheme=None, split=True, prefix_before_space=False, spm_digits=False):
        if prepend_scheme is None:
            prepend_scheme = "always" if add_dummy_prefix else "never"
        if prepend_scheme not in ("always", "first", "never"):
            raise ValueError(f"prepend_scheme must be 'always', 'first' or 'never', not {prepend_scheme!r}")
        if not isinstance(replacement, str) or len(replacement) != 1:
            raise ValueError(f"the Metaspace replacement must be one character, not {replacement!r}")
        self.add_dummy_prefix = prepend_scheme != "never"
        self.split_digits = split_digits
        # which characters split_digits cuts apart: any Unicode number (HF's Digits), or with
        # spm_digits only SentencePiece's digits (0-9, ０-９), as spm_train's models encode
        self.spm_digits = bool(spm_digits)
        self.replacement, self.prepend_scheme, self.split = replacement, prepend_scheme, bool(split)
        # SentencePiece's rule: the dummy ▁ is added even before a leading space, so decoding
        # (which drops one leading space) gives the leading spaces back
        self.prefix_before_space = bool(prefix_before_space)

    def split_pieces(self, pieces):
        if self.prepend_scheme != "first":
            return super().split_pieces(pieces)
        # "first": only the piece at the start of the text gets the dummy prefix
        out = []
        for piece, (s, e) in pieces:
            exact = len(piece) == e - s
            for sub, (a, b) in self._pieces(piece, s == 0):
                out.append((sub, (s + a, s + b) if exact else (s, e)))
        return out

    def pre_tokenize_str(self, text):
        return self._pieces(text, self.add_dummy_prefix)

    def _pieces(self, text, prepend):
        out, mark, split = [], self.replacement, self.split
        # step 1: the dummy prefix is a zero-width ▁ at the very start (subtle: as in HF's
        # Metaspace, not when the text already starts with a space or a ▁)
        prefix = prepend and text and (self.prefix_before_space or (text[0] != " " and text[0] != mark))
        piece, start = (mark, 0) if prefix else ("", 0)
        for i, ch in enumerate(text):
            if ch == " " or ch == mark:
                # step 2: a space (or ▁) starts a new piece, shown as ▁
                if not split:
                    if not piece:
                        start = i
                    piece += mark
                    continue
                if piece:
                    out.append((piece, (start, i)))
                piece, start = mark, i
            elif self.split_digits and (ch in SPM_DIGITS if self.spm_digits else category(ch) in _NUMERIC):
                # step 3: a digit is a piece of its own
                if piece:
                    out.append((piece, (start, i)))
                out.append((ch, (i, i + 1)))
                piece, start = "", i + 1
            else:
                if not piece:
                    start = i
                piece += ch
        if piece:
            out.append((piece, (start, len(text))))
        return out

    def dump(self):
        return {"add_dummy_prefix": self.add_dummy_prefix, "split_digits": self.split_digits, "replacement": self.replacement,
                "prepend_scheme": self.prepend_scheme, "split": self.split,
                **({"prefix_before_space": True} if self.prefix_before_space else {}),
                **({"spm_digits": True} if self.spm_digits else {})}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("add_dummy_prefix", "bool"), f.get("split_digits", "bool"),
                   replacement=f.get("replacement", "str"), prepend_scheme=f.get("prepend_scheme", "str"),
                   split=f.get("split", "bool"), prefix_before_space=f.get("prefix_before_space", "bool", False),
                   spm_digits=f.get("spm_digits", "bool", False))


# -- general-purpose stages (for tokenizer.json files imported from HF tokenizers) ---------

BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


@component("pre_tokenizer", "Split")
class Split(PreTokenizer):
    """Split on a pattern (a regex, or a literal string with ``regex=False``) like HF's
    ``Split``: ``behavior`` says what happens to each match — "Removed", "Isolated" (a
    piece of its own), "MergedWithPrevious", "MergedWithNext", "Contiguous" (adjacent
    matches form one piece); ``invert`` splits on what does *not* match instead.

    >>> Split(r"-", "MergedWithPrevious").pre_tokenize_str("a-b-c")
    [('a-', (0, 2)), ('b-', (2, 4)), ('c', (4, 5))]
    """

    type = "Split"

    def __init__(self, pattern, behavior="Isolated", invert=False, regex=True):
        if behavior not in BEHAVIORS:
            raise ValueError(f"Split behavior must be one of {', '.join(BEHAVIORS)}, not {behavior!r}")
        if not isinstance(pattern, str):
            raise ValueError(f"a Split pattern must be a string, not {type(pattern).__name__}")
        self.pattern, self.behavior, self.invert, self.is_regex = pattern, behavior, bool(invert), bool(regex)
        if not regex:
            self._regex = re.compile(re.escape(pattern)) if pattern else None
        else:
            try:
                self._regex = compile_pattern(pattern)
            except Exception as exc:  # noqa: BLE001 - re.error or regex.error (regex is optional)
                raise ValueError(f"the Split pattern {pattern!r} does not compile: {exc}") from None

    def _matches(self, text):
        """``[(start, end, is_match)]`` covering the text. Example ('-' on 'a-b'):
        [(0, 1, False), (1, 2, True), (2, 3, False)]."""
        if not text:
            return [(0, 0, False)]
        out, prev = [], 0
        if self._regex is not None:
            for s, e in onig_spans(self._regex, text):  # (empty matches as HF finds them)
                if s != prev:
                    out.append((prev, s, False))
                out.append((s, e, True))
                prev = e
        if prev != len(text):
            out.append((prev, len(text), False))
        if self.invert:
            out = [(s, e, not m) for s, e, m in out]
        return out

    def pre_tokenize_str(self, text):
        splits = self._matches(text)
        behavior = self.behavior
        # step 1: decide which ranges are kept, merging as the behaviour says (HF's rules)
        if behavior == "Removed":
            kept = [[s, e] for s, e, m in splits if not m]
        elif behavior == "Isolated":
            kept = [[s, e] for s, e, _ in splits]
        elif behavior == "Contiguous":
            kept, previous = [], False
            for s, e, m in splits:
                if m == previous and kept:
                    kept[-1][1] = e
                else:
                    kept.append([s, e])
                previous = m
        elif behavior == "MergedWithPrevious":
            kept, previous = [], False
            for s, e, m in splits:
                if m and not previous and kept:
                    kept[-1][1] = e
                else:
                    kept.append([s, e])
                previous = m
        else:  # MergedWithNext
            kept, previous = [], False
            for s, e, m in reversed(splits):
                if m and not previous and kept:
                    kept[-1][0] = s
                else:
                    kept.append([s, e])
                previous = m
            kept.reverse()
        # step 2: empty pieces are dropped
        return [(text[s:e], (s, e)) for s, e in kept if e > s]

    def dump(self):
        return {"pattern": self.pattern, "regex": self.is_regex, "behavior": self.behavior, "invert": self.invert}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("pattern", "str"), f.get("behavior", "str"), f.get("invert", "bool"), f.get("regex", "bool"))


@component("pre_tokenizer", "Whitespace")
class Whitespace(PreTokenizer):
    r"""HF's ``Whitespace``: runs of word characters, and runs of other non-space
    characters (``\w+|[^\w\s]+``, Unicode classes).

    >>> Whitespace().pre_tokenize_str("Hi, you!")
    [('Hi', (0, 2)), (',', (2, 3)), ('you', (4, 7)), ('!', (7, 8))]
    """

    type = "Whitespace"

    def __init__(self):
        self.regex = compile_pattern(r"\w+|[^\w\s]+")

    def pre_tokenize_str(self, text):
        return [(m.group(), m.span()) for m in self.regex.finditer(text)]

    def words(self, text):
        return self.regex.findall(text)


@component("pre_tokenizer", "Digits")
class Digits(PreTokenizer):
    """Digits (Unicode Nd, Nl, No) apart from the rest: each digit a piece
    (``individual_digits``) or each run of digits.

    >>> Digits(True).pre_tokenize_str("ab12")
    [('ab', (0, 2)), ('1', (2, 3)), ('2', (3, 4))]
    """

    type = "Digits"

    def __init__(self, individual_digits=False):
        self.individual_digits = bool(individual_digits)
        self.regex = compile_pattern(r"\p{N}|[^\p{N}]+" if individual_digits else r"\p{N}+|[^\p{N}]+")

    def pre_tokenize_str(self, text):
        return [(m.group(), m.span()) for m in self.regex.finditer(text)]

    def dump(self):
        return {"individual_digits": self.individual_digits}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("individual_digits", "bool"))


@component("pre_tokenizer", "Punctuation")
class Punctuation(Split):
    """Punctuation (Unicode P* and ASCII symbols) apart from the rest, with a ``Split``
    behaviour. Example (Isolated): 'a.b' -> ['a', '.', 'b']."""

    type = "Punctuation"

    def __init__(self, behavior="Isolated"):
        super().__init__(r"[\p{P}!-/:-@\[-`{-~]", behavior)

    def dump(self):
        return {"behavior": self.behavior}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("behavior", "str"))


@component("pre_tokenizer", "CharDelimiterSplit")
class CharDelimiterSplit(Split):
    """Split on one character, which is removed. Example ('-'): 'a-b' -> ['a', 'b']."""

    type = "CharDelimiterSplit"

    def __init__(self, delimiter):
        if not isinstance(delimiter, str) or len(delimiter) != 1:
            raise ValueError(f"the delimiter must be one character, not {delimiter!r}")
        super().__init__(delimiter, "Removed", regex=False)
        self.delimiter = delimiter

    def dump(self):
        return {"delimiter": self.delimiter}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("delimiter", "str"))


@component("pre_tokenizer", "Sequence")
class Sequence(PreTokenizer):
    """Several pre-tokenizers, each applied to the pieces of the previous one.

    >>> Sequence([WhitespaceSplit(), Digits(True)]).pre_tokenize_str("ab12 c")
    [('ab', (0, 2)), ('1', (2, 3)), ('2', (3, 4)), ('c', (5, 6))]
    """

    type = "Sequence"

    def __init__(self, pre_tokenizers):
        self.pre_tokenizers = list(pre_tokenizers)

    def pre_tokenize_str(self, text):
        return self.split_pieces([(text, (0, len(text)))] if text else [])

    def split_pieces(self, pieces):
        for p in self.pre_tokenizers:
            pieces = p.split_pieces(pieces)
        return pieces

    def dump(self):
        return {"pre_tokenizers": [dump_component("pre_tokenizer", p) for p in self.pre_tokenizers]}

    @classmethod
    def load(cls, f, ctx):
        return cls(ctx.components("pre_tokenizer", f, "pre_tokenizers"))


# -- WordPiece (BERT) and Unigram additions ------------------------------------------------

# BERT's punctuation: every Unicode P* character plus the ASCII symbol ranges !-/ :-@ [-` {-~
# (BERT's BasicTokenizer and HF's BertPreTokenizer both count "$", "+", "^", "`"... as punctuation).
_BERT_PUNCT = r"\p{P}!-/:-@\[-`{-~"
# The CJK ideograph blocks BERT's BasicTokenizer puts spaces around (``_is_chinese_char``).
_CJK = (r"\u4E00-\u9FFF\u3400-\u4DBF\U00020000-\U0002A6DF\U0002A700-\U0002B73F"
        r"\U0002B740-\U0002B81F\U0002B820-\U0002CEAF\uF900-\uFAFF\U0002F800-\U0002FA1F")


@component("pre_tokenizer", "BertPreTokenizer")
class BertPreTokenizer(PreTokenizer):
    """BERT's pre-tokenization: split on white space and make every punctuation character
    (Unicode P* and the ASCII symbols) a piece of its own; with ``handle_chinese_chars``
    every CJK ideograph is a piece of its own too, as BERT's BasicTokenizer does.

    >>> BertPreTokenizer().pre_tokenize_str("Hey, you!")
    [('Hey', (0, 3)), (',', (3, 4)), ('you', (5, 8)), ('!', (8, 9))]
    """

    type = "BertPreTokenizer"

    def __init__(self, handle_chinese_chars=True):
        self.handle_chinese_chars = handle_chinese_chars
        single = _BERT_PUNCT + (_CJK if handle_chinese_chars else "")
        # (possessive: re then keeps no backtracking state per character; a 2 MB word would
        # otherwise cost ~300 MB, the translated class being an alternation)
        self.regex = compile_pattern(f"[{single}]|[^\\s{single}]++")

    def pre_tokenize_str(self, text):
        return [(m.group(), m.span()) for m in self.regex.finditer(text)]

    def words(self, text):
        return self.regex.findall(text)

    def dump(self):
        return {"handle_chinese_chars": self.handle_chinese_chars}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("handle_chinese_chars", "bool"))


@component("pre_tokenizer", "WhitespaceMetaspace")
class WhitespaceMetaspace(Metaspace):
    """Split on white space like ``WhitespaceSplit``, then mark the start of every word with
    a zero-width ▁ (the Metaspace convention, so a decoder can put the spaces back). The
    ``unigram`` preset uses it: words are trained on, and decoding joins them with one space.

    >>> WhitespaceMetaspace().pre_tokenize_str("low\\n lower")
    [('▁low', (0, 3)), ('▁lower', (5, 10))]
    """

    type = "WhitespaceMetaspace"
    _WORD = _NON_SPACE  # Unicode White_Space, as WhitespaceSplit

    def __init__(self):
        super().__init__(add_dummy_prefix=True, split_digits=False)

    def pre_tokenize_str(self, text):
        return [(SPACE_MARK + m.group(), m.span()) for m in self._WORD.finditer(text)]

    def words(self, text):
        return [SPACE_MARK + w for w in split_white_space(text)]

    def dump(self):
        return {}

    @classmethod
    def load(cls, f, ctx):
        return cls()


@component("pre_tokenizer", "MetaspaceWithSymbols")
class MetaspaceWithSymbols(Metaspace):
    """``Metaspace`` that also keeps user-defined symbols whole: every occurrence of one
    (leftmost, longest first) is a piece of its own, and the text around it is split as
    usual, the dummy ▁ only at the very start (SentencePiece's ``user_defined_symbols``).

    >>> MetaspaceWithSymbols(user_defined_symbols=["<sep>"]).pre_tokenize_str("a<sep>b c")
    [('▁a', (0, 1)), ('<sep>', (1, 6)), ('b', (6, 7)), ('▁c', (7, 9))]
    """

    def __init__(self, add_dummy_prefix=True, split_digits=False, user_defined_symbols=(), prefix_before_space=False,
                 spm_digits=False):
        super().__init__(add_dummy_prefix, split_digits, prefix_before_space=prefix_before_space, spm_digits=spm_digits)
        symbols = list(dict.fromkeys(user_defined_symbols))
        for s in symbols:
            if not isinstance(s, str) or not s or any(c.isspace() for c in s):
                raise ValueError(f"a user-defined symbol must be a non-empty string without white space, not {s!r}")
        self.user_defined_symbols = symbols
        self._cut = re.compile("|".join(re.escape(s) for s in sorted(symbols, key=lambda s: (-len(s), s)))) if symbols else None
        self._rest = Metaspace(False, split_digits, spm_digits=spm_digits)  # the text after a symbol: no dummy prefix

    def pre_tokenize_str(self, text):
        if self._cut is None:
            return super().pre_tokenize_str(text)
        out, pos = [], 0
        for m in self._cut.finditer(text):
            out.extend(self._segment(text, pos, m.start()))
            if m.start() == 0 and self.add_dummy_prefix:
                # subtle: a symbol at the very start still gets the dummy ▁ before it (zero-width)
                out.append((SPACE_MARK, (0, 0)))
            out.append((m.group(), m.span()))
            pos = m.end()
        out.extend(self._segment(text, pos, len(text)))
        return out

    def _segment(self, text, start, end):
        """The plain Metaspace pieces of ``text[start:end]``, offsets into ``text``."""
        if start >= end:
            return []
        split = super().pre_tokenize_str if start == 0 else self._rest.pre_tokenize_str
        return [(p, (s + start, e + start)) for p, (s, e) in split(text[start:end])]

    def dump(self):
        return {"add_dummy_prefix": self.add_dummy_prefix, "split_digits": self.split_digits,
                "user_defined_symbols": list(self.user_defined_symbols),
                **({"prefix_before_space": True} if self.prefix_before_space else {}),
                **({"spm_digits": True} if self.spm_digits else {})}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("add_dummy_prefix", "bool"), f.get("split_digits", "bool"), f.str_list("user_defined_symbols"),
                   prefix_before_space=f.get("prefix_before_space", "bool", False),
                   spm_digits=f.get("spm_digits", "bool", False))
