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
"""

import re
import unicodedata

from .bytes_map import bytes_to_text
from .patterns import PATTERNS
from .regex_compat import compile_pattern

SPACE_MARK = "\u2581"  # ▁, SentencePiece's visible space
_NUMERIC = ("Nd", "Nl", "No")  # what Rust's char::is_numeric accepts (HF's Digits)


class PreTokenizer:
    type = "PreTokenizer"

    def pre_tokenize_str(self, text):
        raise NotImplementedError

    def words(self, text):
        """Just the pieces (the fast path used to count a training corpus)."""
        return [p for p, _ in self.pre_tokenize_str(text)]

    def to_dict(self):
        return {"type": self.type}


class WhitespaceSplit(PreTokenizer):
    """Split on white space; each maximal run of non-space characters is a word."""

    type = "WhitespaceSplit"
    _WORD = re.compile(r"\S+")

    def pre_tokenize_str(self, text):
        return [(m.group(), m.span()) for m in self._WORD.finditer(text)]

    def words(self, text):
        return text.split()


class ByteLevel(PreTokenizer):
    """Cut text with a GPT-style regex, then show each chunk's UTF-8 bytes as GPT-2
    characters. ``pattern`` is "gpt2", "cl100k", "o200k" or a regex of your own."""

    type = "ByteLevel"

    def __init__(self, pattern="gpt2"):
        self.pattern_name = pattern if pattern in PATTERNS else None
        self.pattern = PATTERNS.get(pattern, pattern)
        self._segmenter = compile_pattern(
            r"\s*\S+|\s+" if pattern == "gpt2" else r"\s*\S+(?:(?<=[^\s\p{L}\p{N}])[\r\n]+)?|\s+")
        try:
            self.regex = compile_pattern(self.pattern)
        except Exception as exc:  # re.error / regex.error
            raise ValueError(f"the pre-tokenization pattern does not compile: {exc}; fix the regex or use 'gpt2', 'cl100k' or 'o200k'") from None

    def chunks(self, text):
        """The regex chunks as plain strings. Example: 'Hi there' -> ['Hi', ' there']."""
        return self.regex.findall(text)

    def segments(self, text):
        """Cut text into runs that the pattern chunks independently, or None if unknown.

        For the built-in patterns no chunk crosses from a non-space to a space, except that
        cl100k/o200k glue line breaks to a run of punctuation (".\n\n"), so ``white space +
        non-space (+ line breaks after punctuation)`` runs can be chunked (and their ids
        cached) one by one: a fast path for encoding. Example: 'Hi there' -> ['Hi', ' there'].
        """
        return self._segmenter.findall(text) if self.pattern_name else None

    def pre_tokenize_str(self, text):
        return [(bytes_to_text(m.group().encode("utf-8")), m.span()) for m in self.regex.finditer(text)]

    def words(self, text):
        return [bytes_to_text(c.encode("utf-8")) for c in self.regex.findall(text)]

    def to_dict(self):
        return {"type": "ByteLevel", "pattern": self.pattern_name or self.pattern}


class Metaspace(PreTokenizer):
    """SentencePiece-style: spaces become ▁, a ▁ is prepended (``add_dummy_prefix``), and a
    new piece starts at every ▁; with ``split_digits`` every digit is a piece of its own."""

    type = "Metaspace"

    def __init__(self, add_dummy_prefix=True, split_digits=False):
        self.add_dummy_prefix = add_dummy_prefix
        self.split_digits = split_digits

    def pre_tokenize_str(self, text):
        out = []
        # step 1: the dummy prefix is a zero-width ▁ at the very start (subtle: as in HF's
        # Metaspace, not when the text already starts with a space)
        prefix = self.add_dummy_prefix and text and text[0] != " "
        piece, start = (SPACE_MARK, 0) if prefix else ("", 0)
        for i, ch in enumerate(text):
            if ch == " ":
                # step 2: a space starts a new piece, shown as ▁
                if piece:
                    out.append((piece, (start, i)))
                piece, start = SPACE_MARK, i
            elif self.split_digits and unicodedata.category(ch) in _NUMERIC:
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

    def to_dict(self):
        return {"type": "Metaspace", "add_dummy_prefix": self.add_dummy_prefix, "split_digits": self.split_digits}


# -- WordPiece (BERT) and Unigram additions ------------------------------------------------

# BERT's punctuation: every Unicode P* character plus the ASCII symbol ranges !-/ :-@ [-` {-~
# (BERT's BasicTokenizer and HF's BertPreTokenizer both count "$", "+", "^", "`"... as punctuation).
_BERT_PUNCT = r"\p{P}!-/:-@\[-`{-~"
# The CJK ideograph blocks BERT's BasicTokenizer puts spaces around (``_is_chinese_char``).
_CJK = (r"\u4E00-\u9FFF\u3400-\u4DBF\U00020000-\U0002A6DF\U0002A700-\U0002B73F"
        r"\U0002B740-\U0002B81F\U0002B820-\U0002CEAF\uF900-\uFAFF\U0002F800-\U0002FA1F")


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
        self.regex = compile_pattern(f"[{single}]|[^\\s{single}]+")

    def pre_tokenize_str(self, text):
        return [(m.group(), m.span()) for m in self.regex.finditer(text)]

    def words(self, text):
        return self.regex.findall(text)

    def to_dict(self):
        return {"type": "BertPreTokenizer", "handle_chinese_chars": self.handle_chinese_chars}

class WhitespaceMetaspace(Metaspace):
    """Split on white space like ``WhitespaceSplit``, then mark the start of every word with
    a zero-width ▁ (the Metaspace convention, so a decoder can put the spaces back). The
    ``unigram`` preset uses it: words are trained on, and decoding joins them with one space.

    >>> WhitespaceMetaspace().pre_tokenize_str("low\\n lower")
    [('▁low', (0, 3)), ('▁lower', (5, 10))]
    """

    type = "WhitespaceMetaspace"
    _WORD = re.compile(r"\S+")

    def __init__(self):
        super().__init__(add_dummy_prefix=True, split_digits=False)

    def pre_tokenize_str(self, text):
        return [(SPACE_MARK + m.group(), m.span()) for m in self._WORD.finditer(text)]

    def words(self, text):
        return [SPACE_MARK + w for w in text.split()]

    def to_dict(self):
        return {"type": "WhitespaceMetaspace"}


class MetaspaceWithSymbols(Metaspace):
    """``Metaspace`` that also keeps user-defined symbols whole: every occurrence of one
    (leftmost, longest first) is a piece of its own, and the text around it is split as
    usual, the dummy ▁ only at the very start (SentencePiece's ``user_defined_symbols``).

    >>> MetaspaceWithSymbols(user_defined_symbols=["<sep>"]).pre_tokenize_str("a<sep>b c")
    [('▁a', (0, 1)), ('<sep>', (1, 6)), ('b', (6, 7)), ('▁c', (7, 9))]
    """

    def __init__(self, add_dummy_prefix=True, split_digits=False, user_defined_symbols=()):
        super().__init__(add_dummy_prefix, split_digits)
        symbols = list(dict.fromkeys(user_defined_symbols))
        for s in symbols:
            if not isinstance(s, str) or not s or any(c.isspace() for c in s):
                raise ValueError(f"a user-defined symbol must be a non-empty string without white space, not {s!r}")
        self.user_defined_symbols = symbols
        self._cut = re.compile("|".join(re.escape(s) for s in sorted(symbols, key=lambda s: (-len(s), s)))) if symbols else None
        self._rest = Metaspace(False, split_digits)  # the text after a symbol: no dummy prefix

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

    def to_dict(self):
        return dict(super().to_dict(), user_defined_symbols=list(self.user_defined_symbols))
