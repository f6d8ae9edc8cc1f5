"""Corpus input: raw text or word-frequency lists, reduced to word counts for training.

A corpus is either raw text (a ``str``, or an iterable of documents/lines) or a
word-frequency list: a dict ``{"low": 5, "lower": 2}`` or text with one ``word count`` per
line (``parse_word_counts``). Trainers only ever see word counts, in order of first
appearance.

>>> parse_word_counts("low 5\\nlower 2")
{'low': 5, 'lower': 2}
>>> validate_word_counts({"low": 0})
Traceback (most recent call last):
...
subwordlab.text.corpus.CorpusError: the count of 'low' is 0; every count must be a positive integer (e.g. "low": 5)
"""

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


class CorpusError(ValueError):
    """The corpus cannot be used; the message says what to fix."""


# byte-order marks of the encodings read besides UTF-8 (UTF-32 first: its LE mark starts like UTF-16's)
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def text_encoding(head):
    """The encoding a text file's first bytes announce: ``'utf-32'`` or ``'utf-16'`` for their
    byte-order marks (Windows Notepad's "Unicode"; Python's codecs of those names read the
    mark and drop it), else ``'utf-8'``. The page and the command line read files alike.

    >>> text_encoding(b"\\xff\\xfeh\\x00"), text_encoding(b"hello")
    ('utf-16', 'utf-8')
    """
    return next((enc for bom, enc in _BOMS if head.startswith(bom)), "utf-8")


UTF16_SNIFF_BYTES = 8192  # how much of a file ``utf16_without_mark`` looks at
# characters no text file holds (C0 controls but tab, line feed, form feed and carriage
# return; DEL; C1 controls)
_CONTROLS = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def utf16_without_mark(data, whole=True):
    """``'UTF-16LE'`` or ``'UTF-16BE'`` if ``data`` is almost surely UTF-16 text saved
    without a byte-order mark, else None. It is still not read as UTF-16 (the corpus is the
    file's bytes: UTF-8 unless a mark says otherwise), but its refusal can say what the file
    is and how to fix it, instead of "binary" (its NUL bytes) or "not UTF-8".

    The rule, on the first ``UTF16_SNIFF_BYTES`` bytes (``data`` may be only those: then
    ``whole=False``) taken as two-byte units: no byte-order mark; a NUL byte in the high
    half of at least half of the units (the text is mostly ASCII or Latin-1, whose UTF-16
    has a zero high byte) and never in the low half (no other encoding puts NULs in only one
    half); the bytes decode as strict UTF-16 of that byte order, to text without control
    characters but tab, line feed, form feed and carriage return; and a whole file has an
    even length. So text in other scripts (no NUL bytes: CJK in UTF-16 stays "not UTF-8"),
    UTF-32, and binary data (NULs in both halves) are never called UTF-16.

    >>> utf16_without_mark("hello\\r\\n".encode("utf-16-le")), utf16_without_mark("héllo".encode("utf-16-be"))
    ('UTF-16LE', 'UTF-16BE')
    >>> utf16_without_mark(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00\\x00\\rIHDR") is None  # binary: NULs in both halves
    True
    """
    import codecs

    if whole and len(data) % 2 or text_encoding(data[:4]) != "utf-8":
        return None
    head = bytes(data[:UTF16_SNIFF_BYTES])
    head = head[:len(head) - len(head) % 2]
    units = len(head) // 2
    for order, high, low in (("UTF-16LE", head[1::2], head[0::2]), ("UTF-16BE", head[0::2], head[1::2])):
        if units and 0 not in low and 2 * high.count(0) >= units:
            try:
                text = codecs.getincrementaldecoder(order)("strict").decode(head, whole and len(data) == len(head))
            except UnicodeDecodeError:
                return None
            return order if _CONTROLS.search(text) is None else None
    return None


def why_not_text(data, whole=True):
    """Why the page and the command line refuse a file before decoding it, or None: the
    one rule both use. ``("utf16", "UTF-16LE" or "UTF-16BE")``: UTF-16 saved without a
    byte-order mark (``utf16_without_mark``); ``("binary", position)``: any other file with
    a NUL byte in its first ``UTF16_SNIFF_BYTES`` bytes (no UTF-8 text has one), at that
    position. A file with a UTF-16/32 byte-order mark is decoded as the mark says: None.
    ``data``: the file, or only its first bytes (a stream's head): then ``whole=False``.

    >>> why_not_text(b"\\x7fELF\\x02\\x01\\x01\\x00"), why_not_text("hi".encode("utf-16-le")), why_not_text(b"hi")
    (('binary', 7), ('utf16', 'UTF-16LE'), None)
    """
    nul = data.find(b"\x00", 0, UTF16_SNIFF_BYTES)
    if nul < 0 or text_encoding(data[:4]) != "utf-8":
        return None
    order = utf16_without_mark(data, whole)
    return ("utf16", order) if order is not None else ("binary", nul)


def utf16_advice(name, order):
    """What to say of a file ``utf16_without_mark`` recognised (the page and the command line
    add how to convert it). Example: utf16_advice('a.txt', 'UTF-16LE') -> 'a.txt looks like
    UTF-16 (little-endian, as Windows writes it) without a byte-order mark, not UTF-8 text; ...'."""
    endian = "little-endian, as Windows writes it" if order == "UTF-16LE" else "big-endian"
    return (f"{name} looks like UTF-16 ({endian}) without a byte-order mark, not UTF-8 text; save it as "
            "UTF-8, or as UTF-16 with a byte-order mark (which is read as UTF-16)")


# A word longer than this many symbols trains as consecutive runs of at most this length
# (no merge or piece crosses a cut), so one huge "word" (a megabyte without a space) costs
# what many ordinary words cost. SentencePiece skips such input altogether (lines longer than
# its max_sentence_length, 4192 bytes). Encoding is unaffected: it always sees whole words.
MAX_WORD_SYMBOLS = 4096


def cut_long(run, limit=MAX_WORD_SYMBOLS):
    """A sequence as consecutive parts of at most ``limit`` items. Example (limit 2): 'abcde' -> ['ab', 'cd', 'e']."""
    if len(run) <= limit:
        return [run]
    return [run[i:i + limit] for i in range(0, len(run), limit)]


# SentencePiece bounds its training input by length: a line longer than max_sentence_length
# bytes (4192 by default) is skipped ("Too long lines are skipped in the training. The maximum
# length can be changed with --max_sentence_length=<size> flag.": LoadSentences in
# sentencepiece/src/trainer_interface.cc), and no piece is longer than max_sentencepiece_length
# (16). Every trainer does the same to words (the runs between white space, or a pattern's
# pre-tokens), except that a longer word is not skipped but trained on its first
# max_sentence_length bytes (so a corpus that is one long line still trains), and every
# character of the whole word still counts for the alphabet. Then a megabyte without a space
# costs what 4 KB of text costs, and training says so (``long_words_note``).
MAX_SENTENCE_LENGTH = 4192


def head_bytes(word, limit):
    """The longest start of ``word`` whose UTF-8 encoding has at most ``limit`` bytes (a
    character is never cut). Example: ('▁abc', 4) -> '▁a' (▁ takes 3 bytes)."""
    return word.encode("utf-8")[:limit].decode("utf-8", "ignore")


def long_words_note(count, longest, limit):
    """What training says when ``count`` words were longer than ``limit`` bytes.

    >>> long_words_note(1, 1_000_000, 4192)[:80]
    '1 word was longer than max_sentence_length=4,192 bytes (the longest: 1,000,000 b'
    """
    what = "1 word was" if count == 1 else f"{count:,} words were"
    return (f"{what} longer than max_sentence_length={limit:,} bytes (the longest: {longest:,} bytes); "
            f"{'it was' if count == 1 else 'each was'} trained on its first {limit:,} bytes only, as SentencePiece "
            f"bounds training (it skips such lines). Every character still has a piece. To train on more of "
            f"{'it' if count == 1 else 'them'}, raise max_sentence_length (training time and memory grow with it) "
            f"or put spaces or line breaks in the text.")


def check_max_sentence_length(limit):
    """Refuse a ``max_sentence_length`` that is not None or a positive integer."""
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ValueError(f"max_sentence_length must be a positive integer (SentencePiece uses 4192), not {limit!r}")


# The largest count a word-frequency list may give (every algorithm computes exactly up to it).
MAX_COUNT = 10**12


def _count_value(count):
    """The number a count field holds, without converting a huge one: None unless it is all
    ASCII digits; MAX_COUNT + 1 for anything longer than MAX_COUNT's digits (zeros aside)."""
    if not (count.isascii() and count.isdigit()):
        return None
    digits = count.lstrip("0") or "0"
    return MAX_COUNT + 1 if len(digits) > len(str(MAX_COUNT)) else int(digits)


def _count_error(n, word, count, value, first_line, counts):
    """The one CorpusError that says what is wrong with line ``n`` and what to write."""
    shown = count if len(count) <= 20 else f"{count[:8]}… ({len(count):,} characters)"
    if value is None:
        return CorpusError(f"line {n}: the count {shown!r} of {word!r} must be a positive integer written with the digits "
                           f"0-9, from 1 to {MAX_COUNT:,} (e.g. '{word} 5')")
    if value > MAX_COUNT:
        return CorpusError(f"line {n}: the count {shown!r} of {word!r} is too large; counts go up to {MAX_COUNT:,} "
                           f"(scale all counts down alike to keep their proportions)")
    if value == 0:
        return CorpusError(f"line {n}: the count of {word!r} is 0; give a count of at least 1, or remove the line")
    return CorpusError(f"line {n}: {word!r} is already on line {first_line[word]}; list each word once "
                       f"(with the counts added: '{word} {counts[word] + value}')")


# Well-formed word-count lines: a word and a count of ASCII digits (at most 13, so int() is
# cheap and safe) separated by spaces or tabs, ended by \n or \r\n; or blank lines. Possessive
# quantifiers: a line that is not one of these fails at once, whatever its length.
_GOOD_LINES = re.compile(r"(?:[ \t]*+(?:\S++[ \t]++[0-9]{1,13}+[ \t]*+)?(?:\r?\n|\Z))*+")


class _LazyLines(dict):
    """{word: line number} of the well-formed start of a word-count list, found only when
    a message needs one (a word listed again later)."""

    def __init__(self, text):
        super().__init__()
        self.text = text

    def __missing__(self, word):
        for n, line in enumerate(self.text.splitlines(), 1):
            if line.split()[:1] == [word]:
                return n
        raise KeyError(word)


def parse_word_counts(text: str) -> dict[str, int]:
    """Parse a word-frequency list, one ``word count`` per line (blank lines are skipped).

    A count is written with the digits 0-9, from 1 to ``MAX_COUNT`` (10**12); each word is
    listed once. Any other line raises CorpusError naming the line and what to write.

    >>> parse_word_counts("low ²")
    Traceback (most recent call last):
    ...
    subwordlab.text.corpus.CorpusError: line 1: the count '²' of 'low' must be a positive integer written with the digits 0-9, from 1 to 1,000,000,000,000 (e.g. 'low 5')
    """
    # step 1 (fast, C speed): the well-formed lines at the start, all at once; a
    # problem among them (a duplicate, a count out of range) is left to step 2 to name
    match = _GOOD_LINES.match(text)
    good = match.end() if match else 0  # (it always matches, if only an empty start)
    tokens = text[:good].split()
    words, values = tokens[0::2], list(map(int, tokens[1::2]))
    counts = dict(zip(words, values))
    if len(counts) == len(words) and (not values or (min(values) > 0 and max(values) <= MAX_COUNT)):
        first_line, start, rest = _LazyLines(text[:good]), text.count("\n", 0, good), text[good:]
    else:
        counts, first_line, start, rest = {}, _LazyLines(""), 0, text
    # step 2: line by line from the first line step 1 did not take, naming any problem
    return _read_lines(rest, start, counts, first_line)


def _read_lines(text, start=0, counts=None, first_line=None):
    """Word-count lines read one by one, numbered from ``start + 1``, added to ``counts``
    ({word: count}; ``first_line``: {word: line number}): ``parse_word_counts``'s step 2,
    and alone the reference its fast step 1 must agree with. Example: 'low 5' -> {'low': 5}."""
    counts = {} if counts is None else counts
    first_line = {} if first_line is None else first_line
    for n, line in enumerate(text.splitlines(), start + 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise CorpusError(f"line {n}: expected 'word count' (e.g. 'low 5'), got {line.strip()[:60]!r}")
        word, count = parts
        # subtle: str.isdigit() also accepts '²' and other digits that int() refuses or reads
        # as another number: only ASCII 0-9, and the length is checked before any conversion
        value = _count_value(count)
        if value is None or not 0 < value <= MAX_COUNT or word in counts:
            raise _count_error(n, word, count, value, first_line, counts)
        counts[word], first_line[word] = value, n
    if not counts:
        raise CorpusError("the word-frequency list is empty: write one 'word count' per line, e.g. 'low 5'")
    return counts


def validate_word_counts(counts, end_of_word=None):
    """Check a word-frequency dict: non-empty words without white space (or the end-of-word
    marker) and positive integer counts. Returns it as an ordered dict."""
    if not isinstance(counts, dict):
        raise CorpusError(f"a word-frequency list must be a dict of word -> count, not {type(counts).__name__}")
    if not counts:
        raise CorpusError("the corpus is empty: give some text or a word-frequency list such as {'low': 5}")
    for word, n in counts.items():
        if not isinstance(word, str) or not word:
            raise CorpusError(f"every word must be a non-empty string, got {word!r}")
        if word.split() != [word]:  # (str.split's white space is str.isspace's: one C loop, not one per character)
            raise CorpusError(f"the word {word!r} contains white space; give one word per entry")
        if end_of_word and end_of_word in word:
            raise CorpusError(f"the word {word!r} contains the end-of-word marker {end_of_word!r}; choose another marker (end_of_word=...) or remove it")
        if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            raise CorpusError(f'the count of {word!r} is {n!r}; every count must be a positive integer (e.g. "low": 5)')
        if n > MAX_COUNT:
            raise CorpusError(f"the count of {word!r} is too large ({len(str(n)):,} digits); counts go up to {MAX_COUNT:,} "
                              "(scale all counts down alike to keep their proportions)")
    return dict(counts)


class CorpusStats:
    """Provenance of a corpus: SHA-256 of its content, characters and bytes."""

    def __init__(self):
        self._sha = hashlib.sha256()
        self.chars = 0
        self.bytes = 0

    def add(self, text):
        data = text.encode("utf-8")
        self._sha.update(data)
        self.chars += len(text)
        self.bytes += len(data)

    def to_dict(self, kind):
        return {"kind": kind, "sha256": self._sha.hexdigest(), "chars": self.chars, "bytes": self.bytes}


def documents(corpus):
    """The documents of a raw-text corpus. A ``str`` is one document."""
    if isinstance(corpus, (bytes, bytearray)):
        raise CorpusError("the corpus is bytes; decode it first (e.g. data.decode('utf-8'))")
    if isinstance(corpus, str):
        return [corpus]
    try:
        return iter(corpus)
    except TypeError:
        raise CorpusError(f"a corpus is text, an iterable of texts, or a dict of word counts, not {type(corpus).__name__}") from None


def count_words(corpus, split_words, remove_specials=None):
    """Count the pre-tokenized words of a raw-text corpus, in order of first appearance.

    ``split_words(text) -> list of words`` is the normalizer + pre-tokenizer;
    ``remove_specials(text) -> list of texts`` cuts out special tokens first.
    Returns ``(Counter, provenance dict)``.
    """
    steps = iter_count_words(corpus, split_words, remove_specials)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


SLICE_CHARS = 1 << 14  # characters counted between two progress reports (a few ms of work in Pyodide)


def iter_count_words(corpus, split_words, remove_specials=None, slicer=None, allow_empty=False):
    """``count_words`` in slices: a generator that yields ``(chars_done, chars_total)``
    each time about ``SLICE_CHARS`` more characters are counted and returns what
    ``count_words`` returns (the same counts, in the same order).

    ``slicer(text) -> list of texts`` cuts one long text into slices that split into the
    same words as the whole text (see ``slices_at_spaces``); None counts each text at once.
    ``chars_total`` is 0 when the corpus is a stream of unknown length. ``allow_empty``:
    a corpus without words gives empty counts (one part of a corpus, ``counts.count_texts``)
    instead of the error.
    """
    counts, stats = Counter(), CorpusStats()
    if isinstance(corpus, str):
        total = len(corpus)
    elif isinstance(corpus, (list, tuple)):
        total = sum(len(d) for d in corpus if isinstance(d, str))
    else:
        total = 0
    done = pending = 0
    for doc in documents(corpus):
        if not isinstance(doc, str):
            raise CorpusError(f"every document must be a str, got {type(doc).__name__}")
        # its provenance (SHA-256, sizes) in parts of SLICE_CHARS, a hand-back after each:
        # hashing megabytes at once is tens of ms in a browser
        for k in range(0, len(doc), SLICE_CHARS):
            stats.add(doc[k:k + SLICE_CHARS])
            if len(doc) > SLICE_CHARS:
                yield done, total
        for part in (remove_specials(doc) if remove_specials else [doc]):
            pieces = slicer(part) if slicer and len(part) > SLICE_CHARS else [part]
            if len(pieces) > 1:
                yield done, total  # (a hand-back: cutting a big text into slices is ms of work)
            for piece in pieces:
                counts.update(split_words(piece))
                pending += len(piece)
                if pending >= SLICE_CHARS:
                    done, pending = done + pending, 0
                    yield done, total
    if not counts and not allow_empty:
        raise CorpusError(EMPTY_CORPUS)
    return counts, stats.to_dict("text")


EMPTY_CORPUS = "the corpus is empty (no words after pre-tokenization): give some text"


def slices_at_spaces(text, size=None):
    """Cut ``text`` into slices of about ``size`` characters, each cut just before a space
    with a non-space character on both sides (where every pre-tokenizer of the presets
    starts a new word; a literal ▁ counts as a space, as Metaspace reads it). Text without
    such a space stays whole.

    Example (size 2): 'ab cd ef  gh' -> ['ab', ' cd', ' ef  gh']
    """
    size = SLICE_CHARS if size is None else size
    out, start, n = [], 0, len(text)
    while n - start > size:
        p = text.find(" ", start + max(1, size))
        # subtle: a space next to other white space may be collapsed or stripped by a
        # normalizer, or glued to a neighbouring run by a pattern: only cut at a lone one
        while p != -1 and not (p + 1 < n and not _spacelike(text[p - 1]) and not _spacelike(text[p + 1])):
            p = text.find(" ", p + 1)
        if p == -1:
            break
        out.append(text[start:p])
        start = p
    out.append(text[start:])
    return out


def inputs_provenance(inputs):
    """The provenance of a corpus read from inputs (files, counted apart, maybe on other
    machines), each ``{"sha256", "chars", "bytes"}`` of its text (as UTF-8): for one input
    exactly what training on its text records; for several, SHA-256 cannot be combined, so
    ``sha256`` is the SHA-256 of the inputs' hex digests, one per line, and ``inputs`` lists
    them in order (kind ``"texts"``). Training on the files, on their counts, or on counts
    merged from shards records the same.

    >>> inputs_provenance([{"sha256": "ab", "chars": 2, "bytes": 3}])
    {'kind': 'text', 'sha256': 'ab', 'chars': 2, 'bytes': 3}
    >>> sorted(inputs_provenance([{"sha256": "ab", "chars": 2, "bytes": 3}] * 2))
    ['bytes', 'chars', 'inputs', 'kind', 'sha256']
    """
    parts = [{"sha256": i["sha256"], "chars": i["chars"], "bytes": i["bytes"]} for i in inputs]
    chars, size = sum(i["chars"] for i in parts), sum(i["bytes"] for i in parts)
    if len(parts) == 1:
        return {"kind": "text", **parts[0]}
    digest = hashlib.sha256("".join(i["sha256"] + "\n" for i in parts).encode("ascii")).hexdigest()
    return {"kind": "texts", "sha256": digest, "chars": chars, "bytes": size, "inputs": parts}


@dataclass
class Counted:
    """A corpus already counted: its pre-tokens under one pipeline, with their counts in order
    of first appearance (the form the trainers take: GPT-2 byte characters for byte_bpe), and
    the inputs they were counted from. Training on it is training on those inputs' text;
    ``counts.py`` makes, merges, saves and reads them.

    >>> c = Counted({"low": 5}, {"preset": "bpe"}, [{"name": "a.txt", "sha256": "ab", "chars": 9, "bytes": 9}])
    >>> c.provenance()["kind"], c.distinct
    ('text', 1)
    """

    counts: dict[str, int]
    pipeline: dict[str, Any]  # presets.pipeline_record: what made the pre-tokens
    inputs: list[dict[str, Any]] = field(default_factory=list)  # [{"name", "sha256", "chars", "bytes"}]
    unmatched: int = 0  # characters a custom byte_bpe pattern left unmatched

    @property
    def distinct(self):
        return len(self.counts)

    def provenance(self):
        """What a model trained on these counts records as its corpus (``inputs_provenance``)."""
        return inputs_provenance(self.inputs)


def word_counts_provenance(counts):
    """Provenance of a word-frequency list: hash of its canonical JSON."""
    stats = CorpusStats()
    stats.add(json.dumps(list(counts.items()), ensure_ascii=False, separators=(",", ":")))
    out = stats.to_dict("word_counts")
    out["chars"] = sum(len(w) * n for w, n in counts.items())
    out["bytes"] = sum(len(w.encode("utf-8")) * n for w, n in counts.items())
    return out


def _spacelike(ch):
    """White space, or the ▁ that SentencePiece-style pipelines read as a space."""
    return ch.isspace() or ch == "\u2581"
