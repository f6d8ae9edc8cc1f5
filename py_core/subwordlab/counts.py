"""Pre-token counts as a first-class artifact: count a corpus once (in pieces, in worker
processes, on many machines), merge the pieces, save them, and train from them.

Training only ever needs the corpus's pre-token counts (the words its pipeline cuts the text
into, with their counts, in order of first appearance). ``count_texts`` is the one counting
function: the trainers' own (``presets.iter_corpus_word_counts``) on some documents, a plain
top-level function that one process, ``parallel.py``'s worker processes and Dask
(``dask_counts.py``) all call alike. ``text_chunks`` cuts a long text where counting its
parts apart gives exactly the counts of the whole (``presets.corpus_cuts``);
``count_inputs`` counts files chunk by chunk with any ``map``; ``merge_counted`` adds counts
made apart, in order. The result, a ``corpus.Counted``, trains exactly as its text does.

>>> from subwordlab.presets import counting_spec
>>> spec = counting_spec("bpe", {})
>>> counts, unmatched = count_texts(["low lower low"], spec)
>>> counts
{'low': 2, 'lower': 1}

The counts file (``to_json`` / ``from_json``), version 1, is JSON::

    {
      "format": "subwordlab-counts",   always this string
      "version": 1,                    the format version (a newer one is refused)
      "core_version": "0.1.0",         the subwordlab that wrote it
      "pipeline": {"preset", "normalizer", "pre_tokenizer", "special_tokens"},
                                       what made the pre-tokens (presets.pipeline_record)
      "inputs": [{"name", "sha256", "chars", "bytes"}, ...],
                                       each input's text: SHA-256 and size as UTF-8
      "unmatched_chars": 0,            characters a custom byte_bpe pattern left unmatched
      "distinct": 2, "total": 3,       number of pre-tokens, sum of their counts
      "counts": [["low", 2], ["lower", 1]]
                                       in order of first appearance; byte_bpe's pre-tokens
                                       as GPT-2 byte characters ("Ġthe"), as it trains on them
    }
"""

import hashlib
import io
import json
from collections import Counter, deque

from .presets import corpus_cuts, iter_corpus_word_counts, pipeline_of, pipeline_record
from .text.corpus import MAX_COUNT, CorpusError, Counted, _spacelike, text_encoding
from .text.special import alternation
from .version import __version__

FORMAT = "subwordlab-counts"
VERSION = 1
CHUNK_CHARS = 1 << 20  # characters read (and counted by one task) at a time: 1 Mi


class CountsFileError(CorpusError):
    """A counts file that cannot be read; the message names the field and what to do."""


# -- counting ---------------------------------------------------------------------------

_PIPELINES: dict = {}  # one built pipeline per spec in each process (a worker builds it once)


def count_texts(texts, spec):
    """The pre-token counts of documents ``texts`` (a list of str) under ``spec``'s pipeline:
    ``(counts, unmatched)``, counts in order of first appearance (possibly empty), as the
    trainers count them (byte_bpe: GPT-2 byte characters). A plain top-level function, so
    worker processes and Dask can run it.

    Example: count_texts(["a b a"], counting_spec("bpe", {})) -> ({'a': 2, 'b': 1}, 0)."""
    # step 1: the pipeline, built once per process and spec
    key = json.dumps(spec, sort_keys=True, default=str)
    if key not in _PIPELINES:
        _PIPELINES.clear()
        _PIPELINES[key] = pipeline_of(spec)
    normalizer, pre_tokenizer = _PIPELINES[key]
    # step 2: the trainers' own counting, run to its end
    unmatched = [0]
    steps = iter_corpus_word_counts(list(texts), spec, normalizer, pre_tokenizer, unmatched, allow_empty=True)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            counts, _ = stop.value
            return counts, unmatched[0]


def merge_counted(parts):
    """Counts made apart (``Counted``, in the order of their inputs) as one: counts added,
    first appearances kept in order (a word first seen in an earlier part stays before),
    inputs listed in order. All parts must come from the same pipeline.

    Example: merge_counted([Counted({'a': 1}, p, [ia]), Counted({'b': 2, 'a': 1}, p, [ib])])
    -> Counted({'a': 2, 'b': 2}, p, [ia, ib])."""
    parts = list(parts)
    if not parts:
        raise CorpusError("nothing to merge: give counts files made by 'subwordlab count'")
    total, inputs, unmatched = Counter(), [], 0
    pipeline = parts[0].pipeline
    for k, part in enumerate(parts):
        # step 1: one pipeline for all (else the words would not be the same words)
        if _same_pipeline(part.pipeline) != _same_pipeline(pipeline):
            raise CorpusError(f"part {k + 1} was counted with another pipeline than part 1 ({part.pipeline.get('preset')!r} "
                              f"vs {pipeline.get('preset')!r}); count every shard with the same preset and options")
        # step 2: add, in order (Counter.update keeps first appearances first)
        total.update(part.counts)
        inputs += part.inputs
        unmatched += part.unmatched
    return Counted(dict(total), pipeline, inputs, unmatched)


def _same_pipeline(pipeline):
    """A pipeline record without its preset name (two presets with one pipeline count alike)."""
    return {k: v for k, v in pipeline.items() if k != "preset"}


# -- cutting a long text ------------------------------------------------------------------

def safe_cut(text, spec, pre_tokenizer=None, lo=0):
    """The largest position ``p`` (0 < p < len(text)) where ``text[:p]`` and ``text[p:]``,
    counted apart, give exactly the words of ``text`` whatever follows it, or 0 if none:
    just after a special token, after a line feed or before a lone space (``presets.corpus_cuts``),
    never inside a special token or within the last characters that could still become one.
    ``lo``: look for line feeds and spaces after this position only.

    >>> from subwordlab.presets import counting_spec
    >>> safe_cut("one two\\nthree fo", counting_spec("bpe", {}))
    13
    """
    lines, spaces = corpus_cuts(spec, pre_tokenizer if pre_tokenizer is not None else pipeline_of(spec)[1])
    specials = spec.get("special_tokens") or []
    longest = max((len(t) for t in specials), default=1)
    limit = len(text) - (longest - 1)  # a special token may still end beyond the text
    # step 1: the ends of special tokens (the text is cut there anyway), and their spans
    spans, best = [], 0
    if specials:
        for m in alternation(specials).finditer(text):
            spans.append((m.start(), m.end()))
            if m.end() <= limit:
                best = m.end()

    def inside(p):
        return any(s < p < e for s, e in spans if s < p)

    # step 2: the last line feed or lone space after it, outside every special token
    for char, on in (("\n", lines), (" ", spaces)):
        if not on:
            continue
        at = text.rfind(char, 0, max(0, min(limit, len(text) - 1)))
        while at > max(best, lo - 1):
            p = at + 1 if char == "\n" else at  # (after a line feed, before a space)
            if at >= 1 and p + 1 <= len(text) and not _spacelike(text[at - 1]) and not _spacelike(text[at + 1]) \
                    and p <= limit and not inside(p):
                best = p
                break
            at = text.rfind(char, 0, at)
    return best


def text_chunks(stream, spec, size=CHUNK_CHARS, digest=None):
    """A text stream (``read(n)`` gives str) as chunks of about ``size`` characters, each cut
    where ``safe_cut`` allows (a text without such a place stays whole until one comes), so
    counting the chunks apart gives the counts of the whole text. ``digest``, a dict, gets
    the text's ``sha256``, ``chars`` and ``bytes`` (as UTF-8) when the stream is read.

    >>> import io; from subwordlab.presets import counting_spec
    >>> list(text_chunks(io.StringIO("ab cd\\nef gh"), counting_spec("bpe", {}), size=4))
    ['ab', ' cd\\n', 'ef', ' gh']
    """
    for chunk, _ in _sized_chunks(stream, spec, size, digest):
        yield chunk


def _sized_chunks(stream, spec, size, digest):
    """``text_chunks`` as ``(chunk, its size in UTF-8 bytes)``."""
    _, pre_tokenizer = pipeline_of(spec)
    longest = max((len(t) for t in spec.get("special_tokens") or []), default=1)
    sha, chars, size_bytes, carry = hashlib.sha256(), 0, 0, ""
    while True:
        # step 1: read a block onto what is left of the last one
        block = stream.read(size)
        carry += block
        # step 2: the text up to the last safe cut (all of it at the end), looking for a cut
        # only where the new block can have made one (so a text without any stays linear)
        lo = max(0, len(carry) - len(block) - longest - 2)
        cut = safe_cut(carry, spec, pre_tokenizer, lo) if block else len(carry)
        if cut:
            chunk, carry = carry[:cut], carry[cut:]
            data = chunk.encode("utf-8", "surrogatepass")
            sha.update(data)  # (its SHA-256 and sizes: the chunks in order are the text)
            chars, size_bytes = chars + len(chunk), size_bytes + len(data)
            yield chunk, len(data)
        if not block:
            break
    if digest is not None:
        digest.update(sha256=sha.hexdigest(), chars=chars, bytes=size_bytes)


def count_inputs(inputs, spec, mapper=map, on_done=None, size=None):
    """Count named text streams ``inputs`` (``[(name, stream), ...]``; each stream is one
    document) chunk by chunk: ``mapper(func, chunks)`` runs ``count_texts`` on each chunk and
    gives the results in order (``map``: here; ``parallel.ordered_map``: worker processes).
    ``on_done(nbytes)`` is called as each chunk's counts come back (its size in UTF-8 bytes).
    Returns a ``Counted`` equal to counting the streams' whole text. ``size``: characters
    per chunk (default ``CHUNK_CHARS``, read when called).

    Example: count_inputs([("a.txt", open("a.txt", newline=""))], spec) -> Counted(...)."""
    records, sizes = [], deque()
    size = size or CHUNK_CHARS

    def chunks():
        # step 1: the chunks of every input in order; an input's record once it is read
        for name, stream in inputs:
            digest = {}
            for chunk, nbytes in _sized_chunks(stream, spec, size, digest):
                sizes.append(nbytes)
                yield chunk
            records.append({"name": name, **digest})

    # step 2: count the chunks (mapper's order is the chunks' order) and add the counts in order
    total, unmatched = Counter(), 0
    for counts, missed in mapper(ChunkCounter(spec), chunks()):
        total.update(counts)
        unmatched += missed
        if on_done is not None:
            on_done(sizes.popleft())
    return Counted(dict(total), pipeline_record(spec), records, unmatched)


class ChunkCounter:
    """``count_texts`` of one chunk with a fixed spec: a picklable callable for ``map``-like functions.
    Example: ChunkCounter(spec)("a b a") -> ({'a': 2, 'b': 1}, 0)."""

    def __init__(self, spec):
        self.spec = spec

    def __call__(self, chunk):
        return count_texts([chunk], self.spec)


def open_text(path):
    """A text file as a stream read as the page and the command line read it: UTF-8 unless a
    UTF-16/32 byte-order mark says otherwise, a UTF-8 mark dropped, line ends kept (CRLF too).

    Example: ``with open_text("corpus.txt") as fh: fh.read(10)``."""
    raw = open(path, "rb")
    encoding = text_encoding(raw.peek(4)[:4])
    return io.TextIOWrapper(raw, encoding="utf-8-sig" if encoding == "utf-8" else encoding, newline="")


def count_files(paths, spec, mapper=map):
    """``count_inputs`` of files, each one document, named by their paths (``open_text``).

    Example: count_files(["a.txt", "b.txt"], counting_spec("byte_bpe", {})) -> Counted(...)."""

    def inputs():
        for path in paths:
            with open_text(path) as fh:
                yield str(path), fh

    return count_inputs(inputs(), spec, mapper)


# -- the counts file ----------------------------------------------------------------------

def to_json(counted):
    """The counts file's text: the header fields, then one ``[word, count]`` per line.

    >>> print(to_json(Counted({"low": 2}, {"preset": "bpe"}, [])).splitlines()[-4])
      "counts": [
    """
    head = {"format": FORMAT, "version": VERSION, "core_version": __version__, "pipeline": counted.pipeline,
            "inputs": counted.inputs, "unmatched_chars": counted.unmatched, "distinct": len(counted.counts),
            "total": sum(counted.counts.values())}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False, sort_keys=True)}," for k, v in head.items()]
    rows = [json.dumps([w, n], ensure_ascii=False) for w, n in counted.counts.items()]
    lines.append('  "counts": [')
    lines += [f"    {row}," for row in rows[:-1]] + ([f"    {rows[-1]}"] if rows else [])
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def from_json(text):
    """A ``Counted`` from a counts file's text; CountsFileError names what is wrong.

    >>> from_json(to_json(Counted({"low": 2}, {"preset": "bpe"}, []))).counts
    {'low': 2}
    >>> from_json('{"format": "subwordlab"}')
    Traceback (most recent call last):
    ...
    subwordlab.counts.CountsFileError: not a counts file (format is 'subwordlab', not 'subwordlab-counts'); give a file written by 'subwordlab count -o'
    """
    # step 1: JSON
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise CountsFileError(f"not valid JSON ({str(exc).splitlines()[0]}); give a file written by 'subwordlab count -o'") from None
    # step 2: the header, then every [pre-token, count] row checked
    head = read_head(doc)
    rows = doc.get("counts")
    if not isinstance(rows, list):
        raise CountsFileError("counts must be a list of [pre-token, count] pairs")
    counts = {}
    for k, row in enumerate(rows):
        if not (isinstance(row, list) and len(row) == 2 and isinstance(row[0], str) and row[0]):
            raise CountsFileError(f"counts[{k}] must be a [pre-token, count] pair with a non-empty pre-token, not {str(row)[:80]}")
        word, n = row
        if not _is_nat(n) or n == 0 or n > MAX_COUNT * 1000:
            raise CountsFileError(f"counts[{k}]: the count of {word!r} must be a positive integer, not {n!r}")
        if word in counts:
            raise CountsFileError(f"counts[{k}]: {word!r} is listed twice; each pre-token appears once")
        counts[word] = n
    return Counted(counts, head.pipeline, head.inputs, head.unmatched)


def read_head(doc):
    """A counts file's header fields checked (``doc``: the file's JSON object, its counts
    not needed): a ``Counted`` without counts. CountsFileError names a field that is wrong.

    >>> read_head({"format": FORMAT, "version": 1, "pipeline": {"preset": "bpe"}, "inputs": []}).pipeline
    {'preset': 'bpe'}
    """
    # step 1: our format, and a version we read
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise CountsFileError(f"not a counts file (format is {got!r}, not {FORMAT!r}); give a file written by 'subwordlab count -o'")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CountsFileError(f"version must be a positive integer, not {version!r}")
    if version > VERSION:
        raise CountsFileError(f"version {version} is newer than this subwordlab reads ({VERSION}); upgrade subwordlab")
    # step 2: every field checked
    pipeline = doc.get("pipeline")
    if not isinstance(pipeline, dict) or not isinstance(pipeline.get("preset"), str):
        raise CountsFileError("pipeline must be an object with the preset's name (as 'subwordlab count' writes it)")
    inputs = doc.get("inputs")
    if not isinstance(inputs, list):
        raise CountsFileError("inputs must be a list of {name, sha256, chars, bytes}")
    for k, item in enumerate(inputs):
        ok = isinstance(item, dict) and isinstance(item.get("name"), str) and _is_sha256(item.get("sha256")) \
            and all(_is_nat(item.get(f)) for f in ("chars", "bytes"))
        if not ok:
            raise CountsFileError(f"inputs[{k}] must be {{name, sha256 (64 hex digits), chars, bytes}}, not {str(item)[:80]}")
    unmatched = doc.get("unmatched_chars", 0)
    if not _is_nat(unmatched):
        raise CountsFileError(f"unmatched_chars must be a count (0 or more), not {unmatched!r}")
    return Counted({}, pipeline, inputs, unmatched)


def _is_nat(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_sha256(value):
    return isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
