"""Corpus helpers with no DOM: statistics (a long corpus's in the compute session), reading
uploaded files.

>>> stats, problem = corpus_stats("low lower low", "text")
>>> stats.chars, stats.words, stats.distinct_words, stats.distinct_chars, stats.top_words[0], problem
(13, 3, 2, 6, ('low', 2), '')
>>> decode_upload("a.txt", "héllo".encode()).text
'héllo'
>>> decode_upload("b.bin", b"\\xffabc").problem
'not_utf8'
"""

from __future__ import annotations

import codecs
import heapq
from collections import Counter
from collections.abc import Generator
from dataclasses import asdict, dataclass, field
from operator import itemgetter, mul
from typing import Any

from subwordlab.base.events import drain
from subwordlab.text.corpus import text_encoding, utf16_advice, why_not_text

from .counts_corpus import CHECK_IN_PAGE_CHARS, read_counts, readable_words

MAX_CORPUS_BYTES = 32 * 1024 * 1024  # the largest corpus the page accepts (files together)
STATS_OP = "corpus_stats"
DECODE_SLICE_BYTES = 1 << 20
TOP_WORDS = 12


@dataclass
class CorpusStats:
    chars: int = 0
    bytes: int = 0
    words: int = 0
    distinct_words: int = 0
    distinct_chars: int = 0
    top_words: list[tuple[str, int]] = field(default_factory=list)

    def rows(self) -> list[tuple[str, str]]:
        """(label, value) pairs as the page shows them. Example: ('Characters', '1,115,394')."""
        return [("Characters", f"{self.chars:,}"), ("Bytes (UTF-8)", f"{self.bytes:,}"),
                ("Words", f"{self.words:,}"), ("Distinct words", f"{self.distinct_words:,}"),
                ("Distinct characters", f"{self.distinct_chars:,}")]


def text_stats(text: str) -> CorpusStats:
    """Statistics of running text (words = white-space separated).

    Example: 'low lower low' -> 13 characters, 3 words, 2 distinct, ('low', 2) first."""
    words = Counter(text.split())
    return CorpusStats(len(text), len(text.encode("utf-8", errors="surrogatepass")), words.total(), len(words),
                       len(set(text)), words.most_common(TOP_WORDS))


def stats_of_counts(counts: dict[str, int]) -> CorpusStats:
    """Statistics of a word-frequency list, as if each word appeared `count` times (the most
    frequent words first, a tie in the list's order).

    Example: {'low': 5, 'lower': 2} -> 25 characters, 7 words, 2 distinct words.
    """
    def utf8_len(word: str) -> int:
        return len(word.encode("utf-8", errors="surrogatepass"))

    return CorpusStats(
        chars=sum(map(mul, map(len, counts), counts.values())),
        bytes=sum(map(mul, map(utf8_len, counts), counts.values())),
        words=sum(counts.values()), distinct_words=len(counts), distinct_chars=len(set("".join(counts))),
        # (nlargest is sorted(..., reverse=True)[:n], which keeps the list's order among ties)
        top_words=heapq.nlargest(TOP_WORDS, counts.items(), key=itemgetter(1)))


def corpus_stats(text: str, fmt: str) -> tuple[CorpusStats, str]:
    """The statistics of a corpus read as ``fmt`` ("text", "word_counts" or "counts"), and
    "" or why the list or counts file cannot be used (a message for the user; its
    statistics are then empty). What the compute session answers to ``STATS_OP``.

    Example: ('low 5\nlower x', 'word_counts') -> (no statistics, "This word-count list
    cannot be used yet: line 2: ...")."""
    import subwordlab

    if fmt == "counts":
        try:
            return stats_of_counts(readable_words(read_counts(text))), ""
        except subwordlab.CorpusError as exc:
            return CorpusStats(), f"This counts file cannot be used: {exc}."
    if fmt == "word_counts":
        try:
            return stats_of_counts(subwordlab.parse_word_counts(text)), ""
        except subwordlab.CorpusError as exc:
            return CorpusStats(), f"This word-count list cannot be used yet: {exc}"
    return text_stats(text), ""


def stats_reply(text: str, fmt: str) -> dict[str, Any]:
    """``corpus_stats`` as the compute session's reply (plain data)."""
    stats, problem = corpus_stats(text, fmt)
    return {"stats": asdict(stats), "problem": problem}


def stats_from_reply(reply: dict[str, Any]) -> tuple[CorpusStats, str]:
    """The inverse of ``stats_reply``. Example: {"stats": {"chars": 3}, "problem": ""} -> 3 characters."""
    stats = dict(reply["stats"])
    stats["top_words"] = [(str(w), int(n)) for w, n in stats.get("top_words", ())]
    return CorpusStats(**stats), str(reply.get("problem", ""))


@dataclass(frozen=True)
class Upload:
    """One uploaded file read as text, or why it could not be. `problem`: None, "binary"
    (NUL bytes: not a text file), "utf16" (UTF-16 without a byte-order mark, `detail` its
    byte order: subwordlab.text.corpus.utf16_without_mark), "not_utf8" (`detail` says where),
    "too_big", "empty"."""

    name: str
    size: int
    text: str = ""
    problem: str | None = None
    detail: str = ""
    encoding: str = "UTF-8"  # what the file was decoded from (a UTF-16/32 byte-order mark says so)

    def message(self) -> str:
        """What the page says about a problem, naming the file."""
        name = f"“{self.name}”"
        if self.problem == "binary":
            return (f"{name} looks like a binary file, not text ({self.detail}). Nothing was loaded; "
                    "your corpus is unchanged. If it is text in UTF-16 without a byte-order mark, save it as "
                    "UTF-8; or decode it leniently anyway (invalid bytes become �).")
        if self.problem == "utf16":
            return (f"{utf16_advice(name, self.detail)} (e.g. in Notepad: Save as, Encoding “UTF-8”). Nothing "
                    "was loaded; your corpus is unchanged. Or decode it leniently anyway, as UTF-8 (its NUL bytes "
                    "stay).")
        if self.problem == "not_utf8":
            return (f"{name} is not UTF-8 text ({self.detail}). Nothing was loaded; your corpus is unchanged. "
                    "Decode it leniently to load it anyway (invalid bytes become �), or save it as UTF-8.")
        if self.problem == "too_big":
            return (f"{name} is {format_size(self.size)}; the limit is {format_size(MAX_CORPUS_BYTES)} "
                    "for the whole corpus. Nothing was loaded; your corpus is unchanged. "
                    "For bigger corpora use the command line (python -m subwordlab).")
        if self.problem == "empty":
            return f"{name} is empty. Nothing was loaded; your corpus is unchanged."
        return ""


def format_size(n: int) -> str:
    """Example: 1536 -> '1.5 KB'; 33554432 -> '32 MB'."""
    if n < 1024:
        return f"{n} bytes"
    size = float(n)
    for unit in ("KB", "MB", "GB"):
        size /= 1024
        if size < 1024 or unit == "GB":
            return f"{size:.1f} {unit}".replace(".0 ", " ")
    raise AssertionError("unreachable")


def decode_slices(name: str, data: bytes, lenient: bool = False) -> Generator[float, None, Upload]:
    """Decode an uploaded file as UTF-8 in slices (a generator yielding the share done,
    returning an `Upload`). A UTF-8 byte-order mark is dropped; a UTF-16 or UTF-32 one
    says the file is in that encoding (it is decoded as such). Binary files (NUL bytes
    in the first 8 KB) and invalid UTF-8 come back with a problem, unless `lenient`."""
    size = len(data)
    if size == 0:
        return Upload(name, 0, problem="empty")
    if size > MAX_CORPUS_BYTES:
        return Upload(name, size, problem="too_big")
    # a UTF-16/32 byte-order mark says how the file is encoded (Windows Notepad's "Unicode");
    # the decoder drops the mark itself
    encoding = text_encoding(data[:4])
    refused = None if lenient else why_not_text(data)  # (the command line's rule too)
    if refused is not None:
        problem, what = refused
        return Upload(name, size, problem=problem, detail=what if problem == "utf16" else f"a NUL byte at position {what:,}")
    decoder = codecs.getincrementaldecoder(encoding)("replace" if lenient else "strict")
    parts, view = [], memoryview(data)
    for start in range(0, size, DECODE_SLICE_BYTES):
        chunk = bytes(view[start:start + DECODE_SLICE_BYTES])
        final = start + DECODE_SLICE_BYTES >= size
        try:
            parts.append(decoder.decode(chunk, final))
        except UnicodeDecodeError as exc:
            at = start + exc.start
            bad = data[at:at + 1].hex().upper()
            label = encoding.upper()
            return Upload(name, size, problem="not_utf8", detail=f"byte 0x{bad} at position {at:,} is not valid {label}")
        if not final:
            yield (start + DECODE_SLICE_BYTES) / size
    text = "".join(parts)
    if text.startswith("\ufeff"):
        text = text[1:]
    return Upload(name, size, text=text, encoding=encoding.upper())


def decode_upload(name: str, data: bytes, lenient: bool = False) -> Upload:
    return drain(decode_slices(name, data, lenient))


def join_texts(texts: list[str]) -> str:
    """Files put together as one corpus: the files' own text, nothing added at the end (a
    file without a final line break trains exactly as on the command line); between two
    files a line break only where the first lacks one, so words never fuse across files.

    Example: ['a', 'b'] -> 'a\\nb'; ['a\\r\\n', 'b'] -> 'a\\r\\nb'; ['b'] -> 'b'
    """
    texts = [t for t in texts if t]
    return "".join(t if k == len(texts) - 1 or t.endswith(("\n", "\r")) else t + "\n" for k, t in enumerate(texts))


YOUR_TEXT = "Your text"


def edited_name(name: str, old: str, new: str) -> str:
    """The corpus's name after the user edits its text: "<name> (edited)" while at least
    half of the old text is kept (as a common start and end), "Your text" once it is
    replaced (a paste over a sample is not that sample any more).

    Example: ('Textbook', 'low 5\nlower 2', 'low 5\nlower 3') -> 'Textbook (edited)';
    ('Textbook', 'low 5\nlower 2', 'Article 1. All human beings') -> 'Your text'.
    """
    base = name.removesuffix(" (edited)")
    if base == YOUR_TEXT or not old:
        return YOUR_TEXT
    limit = min(len(old), len(new))
    start = 0  # step 1: the common start
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0  # step 2: the common end, not overlapping the start
    while end < limit - start and old[-1 - end] == new[-1 - end]:
        end += 1
    return f"{base} (edited)" if 2 * (start + end) >= len(old) else YOUR_TEXT


def first_line(text: str, window: int = 1 << 12) -> str | None:
    """The first line of ``text`` that is not blank (lines as ``str.splitlines`` cuts them),
    or None; reads only as far as it must (a 30 MB corpus is not split whole to find it).

    Example: first_line("\n  \nlow 5\nlower 2") -> 'low 5'
    """
    while True:
        lines = text[:window].splitlines()
        whole = window >= len(text)
        for line in lines if whole else lines[:-1]:  # (the window's last line may be cut short)
            if line.strip():
                return line
        if whole:
            return None
        window *= 4


def detect_format(text: str) -> tuple[str, str]:
    """How typed or loaded text is read: ("word_counts", "") if it parses as a `word count`
    list, else ("text", hint). The hint says why a text that starts like a list is not one
    (so someone editing a list sees which line breaks it).

    Example: 'low 5\nlower 2' -> ('word_counts', ''); 'the cat sat' -> ('text', '');
    'low 5\nlower two' -> ('text', "line 2: the count 'two' of 'lower' must be ...").
    A list longer than CHECK_IN_PAGE_CHARS is judged by the lines of its first part.
    """
    import subwordlab

    line = first_line(text)
    first = line.split() if line is not None else None
    if first is None or len(first) != 2 or not first[1].isdigit():
        return "text", ""  # step 1: the first line is not `word count`: running text
    # step 2: every line must parse, not just the first few; of a long text, the lines in its
    # first CHECK_IN_PAGE_CHARS (the rest is checked in the compute session, off the page:
    # its statistics say which line breaks the list, and so would its training)
    if len(text) > CHECK_IN_PAGE_CHARS:
        text = text[:max(text.rfind("\n", 0, CHECK_IN_PAGE_CHARS), 0)]
    try:
        subwordlab.parse_word_counts(text)
    except subwordlab.CorpusError as exc:
        return "text", str(exc)
    return "word_counts", ""
