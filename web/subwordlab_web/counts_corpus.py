"""A counts file (``subwordlab count -o counts.json``) as the page's corpus. No DOM.

A corpus counted on the command line (gigabytes, many machines) is a JSON file of its
pre-tokens and their counts, with the pipeline that cut them (subwordlab/counts.py). The
page recognises one by its content (a JSON object whose ``format`` is
``"subwordlab-counts"``), whatever its name, and trains from it exactly as ``subwordlab
train --counts`` does: the core reads it as a ``corpus.Counted`` and refuses it, saying
why, under a pipeline it was not counted with (``mismatch`` says so before training).

>>> from subwordlab.counts import count_texts, to_json
>>> from subwordlab.text.corpus import Counted
>>> from subwordlab.presets import counting_spec, pipeline_record
>>> spec = counting_spec("byte_bpe", {})
>>> text = to_json(Counted(count_texts([" low low er"], spec)[0], pipeline_record(spec), []))
>>> is_counts_file(text), is_counts_file("low 5\\nlower 2")
(True, False)
>>> readable_words(read_counts(text))
{' low': 2, ' er': 1}
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Any

from subwordlab.text.corpus import Counted

from .joined_texts import cut, joined

# A corpus up to this long is counted, and a word-count list or counts file parsed whole to
# check it, on the page itself (tens of ms at most); a longer one in the compute session
# (corpus_data.STATS_OP), where its statistics and its training say which line breaks it.
CHECK_IN_PAGE_CHARS = 300_000
COUNTS_TAG = re.compile(r'"format"\s*:\s*"subwordlab-counts"')
_METASPACE = ("Metaspace", "MetaspaceWithSymbols", "WhitespaceMetaspace")


def is_counts_file(text: str) -> bool:
    """Is this uploaded text a counts file? By its content, not its name: a JSON object
    that carries the counts format tag (anywhere: a tool may re-save it with sorted keys).
    A JSON corpus without the tag (code, a dataset) stays running text."""
    return text[:64].lstrip()[:1] == "{" and COUNTS_TAG.search(text) is not None


@lru_cache(maxsize=1)
def _parsed(text: str) -> Counted:
    from subwordlab.counts import from_json

    return from_json(text)


def read_counts(text: str) -> Counted:
    """The ``Counted`` of a counts file's text, parsed once (in time linear in its size) and
    handed out as a fresh copy each time (training may not change the page's copy). Raises
    ``subwordlab.counts.CountsFileError`` naming the field that is wrong and what to do.

    Example: read_counts(open("counts.json").read()).distinct -> 12345."""
    c = _parsed(text)
    return Counted(dict(c.counts), c.pipeline, list(c.inputs), c.unmatched)


@dataclass(frozen=True)
class CountsHead:
    """What the page says about a counts file before training: its pipeline, inputs, and
    how many pre-tokens (distinct, and in all)."""

    pipeline: dict[str, Any]
    inputs: list[dict[str, Any]]
    distinct: int
    total: int


# the header fields `subwordlab count` writes before its rows (counts.to_json)
_HEAD_FIELDS = {"format", "version", "core_version", "pipeline", "inputs", "unmatched_chars", "distinct", "total"}
_ROWS_START = '\n  "counts": [\n'


@lru_cache(maxsize=4)
def counts_head(text: str) -> CountsHead:
    """The header of a counts file. One up to ``CHECK_IN_PAGE_CHARS`` is read whole (every
    row checked, on the page); a longer one in ``subwordlab count``'s own layout only up to
    its rows, which are read in the compute session (its statistics say what is wrong with
    a row, and so would its training). Raises CorpusError (counts.CountsFileError) for a
    header that is wrong, or a shorter file that is.

    Example: counts_head(open("counts.json").read()).distinct -> 12345."""
    if len(text) > CHECK_IN_PAGE_CHARS:
        head = _head_only(text)
        if head is not None:
            return head
    c = read_counts(text)
    return CountsHead(c.pipeline, c.inputs, c.distinct, sum(c.counts.values()))


def _head_only(text: str) -> CountsHead | None:
    """The header of a file written as ``counts.to_json`` writes one (every header field
    before the rows), checked as ``counts.from_json`` checks it; None for another layout."""
    from subwordlab.counts import read_head

    cut = text.find(_ROWS_START)
    if cut < 0:
        return None
    try:
        doc = json.loads(text[:cut].rstrip().rstrip(",") + "\n}")
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or set(doc) != _HEAD_FIELDS:
        return None
    distinct, total = doc["distinct"], doc["total"]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (distinct, total)):
        return None
    head = read_head(doc)
    return CountsHead(head.pipeline, head.inputs, distinct, total)


def first_rows(text: str, n: int) -> dict[str, int] | None:
    """The first ``n`` rows of a counts file in ``counts.to_json``'s layout (a row a line),
    read without the rest; None for another layout or a row that is not ``[word, count]``."""
    cut = text.find(_ROWS_START)
    if cut < 0:
        return None
    rows: dict[str, int] = {}
    for line in islice(text[cut + len(_ROWS_START):cut + len(_ROWS_START) + 200 * n].splitlines(), n):
        try:
            word, count = json.loads(line.strip().rstrip(","))
        except (ValueError, TypeError):
            return None
        rows[str(word)] = int(count)
    return rows


def readable_words(counted: Counted) -> dict[str, int]:
    """The pre-tokens as a person reads them, with their counts (for the statistics and
    the words the Train tab segments): byte-level ones ("Ġthe") as their text (" the"), a
    SentencePiece-style "▁" as a space; pre-tokens that read alike are added together.

    Example: {'▁the': 3, 'the': 1} counted for sentencepiece_bpe -> {'the': 4}."""
    kind = (counted.pipeline.get("pre_tokenizer") or {}).get("type")
    if kind == "ByteLevel":
        from subwordlab.text.bytes_map import CHAR_TO_BYTE

        def read(w: str) -> str:
            return bytes(CHAR_TO_BYTE.get(ch, 63) for ch in w).decode("utf-8", "replace")
    elif kind in _METASPACE:
        def read(w: str) -> str:
            return w.replace("\u2581", " ").strip() or w
    else:
        return dict(counted.counts)
    out: dict[str, int] = {}
    for w, n in counted.counts.items():
        r = read(w)
        out[r] = out.get(r, 0) + n
    return out


def describe(head: CountsHead) -> str:
    """What the counts are, in a phrase. Example: '12,345 distinct pre-tokens (1,234,567 in
    all) from 2 inputs, counted for Byte-level BPE'."""
    from .wording import PRESET_SHORT, plural

    preset = head.pipeline.get("preset", "?")
    n = len(head.inputs)
    source = f" from {plural(n, 'input')}" if n else ""
    return (f"{plural(head.distinct, 'distinct pre-token')} ({head.total:,} in all){source}, "
            f"counted for {PRESET_SHORT.get(preset, preset)}")


def mismatch(counted: Counted | CountsHead, spec: Any) -> str:
    """One sentence for the Corpus panel when the Train tab's algorithm and options (a
    ``state.TrainSpec``) cut text into other pre-tokens than these counts were made with,
    saying what to do; "" when they match (training then reads them as the command line).

    Example: counts of byte_bpe, spec bpe -> 'These counts were made for Byte-level BPE ...'."""
    from subwordlab.presets import pipeline_difference, resolve_options

    from .wording import PRESET_SHORT

    options = dict(spec.kwargs())
    try:
        full = resolve_options(spec.preset, options.pop("vocab_size", None), options.pop("num_merges", None), options)
    except ValueError:
        return ""  # (the Train tab says what is wrong with its own settings)
    why = pipeline_difference(counted.pipeline, full)
    if why is None:
        return ""
    made = counted.pipeline.get("preset", "?")
    title = PRESET_SHORT.get(made, made)
    return (f"These counts were made for {title}, and the Train tab's {spec.schema.short} with its options cuts text "
            f"another way ({why}), so they cannot train it: choose {title} on the Train tab with the options they were "
            f"counted with, or count your text again with “subwordlab count --preset {spec.preset}” and this tab's options.")


def first_words(text: str, n: int = 12) -> str:
    """The counts file's first ``n`` pre-tokens read as text (``readable_words``; white space
    alone left out), joined by spaces: a default sentence to compare tokenizers on; "" if the file cannot be read.
    Example: counts of 'low lower low' -> 'low lower'."""
    from subwordlab.text.corpus import CorpusError

    rows = first_rows(text, 4 * n)
    if rows is None and len(text) > CHECK_IN_PAGE_CHARS:
        return ""  # (not parsed whole on the page)
    try:
        counted = read_counts(text) if rows is None else Counted(rows, counts_head(text).pipeline)
        words = readable_words(counted)
    except CorpusError:
        return ""
    return " ".join(islice(filter(None, (" ".join(w.split()) for w in words)), n))


# -- several counts files as one corpus ------------------------------------------------------

MERGE_OP = "merge_counts"  # the compute session's request: several long counts files merged there
_UNCHANGED = "Nothing was loaded; your corpus is unchanged."


def file_problem(name: str, head: CountsHead | Counted) -> str:
    """What the page says of a counts file that holds no pre-tokens ("" when it has some)."""
    if head.distinct:
        return ""
    return f"“{name}” is a counts file with no pre-tokens: count a text that has some words. {_UNCHANGED}"


def _unreadable(name: str, exc: Exception) -> str:
    return f"“{name}” is a counts file but cannot be read: {exc}. {_UNCHANGED}"


def head_problem(name: str, text: str) -> str:
    """What the page says of one counts file, judged by ``counts_head`` ("" when it can be
    used): its header unreadable, or no pre-tokens."""
    from subwordlab.text.corpus import CorpusError

    try:
        return file_problem(name, counts_head(text))
    except CorpusError as exc:  # (counts.CountsFileError: the field and what to do)
        return _unreadable(name, exc)


def merge_files(names: list[str], texts: list[str]) -> tuple[str, str]:
    """Counts files (``texts``, named ``names``) merged in the order given, as ``subwordlab
    count --merge`` merges them: ``(the merged file's text, "")``, or ``("", what the page
    says)`` for a file that cannot be read or files that cannot be merged (the first problem).
    Runs on the page for short files, in the compute session (``merge_replies``) for long ones.

    Example: merge_files(["a.json", "b.json"], [counts of "low", counts of "low er"])
    -> (counts of "low low er", "")."""
    from subwordlab.counts import merge_counted, to_json
    from subwordlab.text.corpus import CorpusError

    parts = []
    for name, text in zip(names, texts):
        try:
            counted = read_counts(text)
        except CorpusError as exc:  # (counts.CountsFileError: the field and what to do)
            return "", _unreadable(name, exc)
        if problem := file_problem(name, counted):
            return "", problem
        parts.append(counted)
    try:
        return to_json(merge_counted(parts)), ""
    except CorpusError as exc:
        return "", f"These counts files cannot be merged: {exc}. {_UNCHANGED}"


def merge_request(names: list[str], texts: list[str]) -> tuple[str, str]:
    """The compute session's request to merge ``texts`` and the corpus it is sent with (the
    texts one after another: they cross as one string, their lengths in the request)."""
    lengths, text = joined(texts)
    return json.dumps({"op": MERGE_OP, "names": names, "lengths": lengths}), text


MERGE_REPLY_CHARS = 1_000_000  # the merged file crosses back in parts of this many characters


def merge_replies(request: dict[str, Any], text: str) -> Iterator[dict[str, Any]]:
    """``merge_files`` in the compute session, on the texts of ``merge_request``: the merged
    file in parts, ``{"counts": part}`` (a message each: the page reads each in a task of its
    own; the whole 12.6 MB in one reply was one task of 0.25 s), then ``{"problem": "" or
    what the page says}``."""
    names = [str(n) for n in request["names"]]
    texts = cut(text, request["lengths"], "the page sent counts files that do not add up: load them again")
    if len(names) != len(texts):
        raise ValueError("the page sent counts files that do not add up: load them again")
    merged, problem = merge_files(names, texts)
    for at in range(0, len(merged), MERGE_REPLY_CHARS):
        yield {"counts": merged[at:at + MERGE_REPLY_CHARS]}
    yield {"problem": problem}
