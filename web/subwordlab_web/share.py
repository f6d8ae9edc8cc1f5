"""The share-link codec: a whole experiment in a URL fragment, compressed and versioned.

(Why one module: the link's format, its writer and its checking reader must
agree field by field, so a reader sees them side by side; the checks take the option
kinds from the schema, options.py.)

A link looks like ``https://…/index.html#v1.<payload>``. The payload is the experiment
as canonical JSON (sorted keys, no spaces), compressed with zlib (level 9) and written in
base64url without padding. Pure Python (stdlib only), so it runs under CPython tests and
inside Pyodide alike; the page reads and writes ``location.hash`` through the DOM port.

>>> exp = Experiment(corpus=CorpusRef.inline("low low lower newest widest"),
...                  train=Config("bpe", {"num_merges": 8}), step=3, panel="train")
>>> link = encode_fragment(exp)
>>> link[:3]
'v1.'
>>> decode_fragment(link) == exp.normalized()
True

What a link carries (``Experiment``):

- ``corpus``: the text itself when the whole payload still compresses to at most
  ``INLINE_LIMIT_BYTES`` (16 KiB, about 37,000 characters of English prose; one UDHR
  translation fits, the Shakespeare sample does not); otherwise the name of the bundled
  sample it came from; otherwise a note that the user must supply the file, with its
  name, size and SHA-256 so the page can check the file the user picks.
- ``train``: the algorithm (preset) and every one of its options, defaults filled in, so
  the link keeps meaning the same experiment if a default changes later; the training
  step shown; the panel shown.
- ``compare``: the 1–4 configurations of the Compare panel, its text and reference, and
  its other columns: ``current`` (true: the current tokenizer is a column) and
  ``well_known`` (a list of well-known tokenizers' keys, e.g. ["cl100k_base"]; a single key
  as text, as links before 2026-12 wrote it, is read too); both are left out
  when unused, so a link without them (older ones too) opens with neither.
- ``inspect``: the inspector text and its seeds (BPE-dropout / Unigram sampling).
- optional: the corpus's ``title`` (the name the page shows, e.g. a file's name or
  "UDHR: English"); ``running`` (the page was reloaded while a run was still going: the
  page restores the settings and offers to run again rather than starting a long run by
  itself); ``imported`` (the name of a model file replayed on Files, which a reload asks
  for again); ``tokenizer`` (the tokenizer Inspect and Compare used when it was loaded, not
  trained: ``{"well_known": key}``, which the page fetches again by name, or ``{"name",
  "sha256"}`` of the user's file, which the page asks for, as for a big corpus); ``exercise``
  (the Train tab's exercise, ``{"id", "code"}``: the code, at most 8,000 characters of plain
  text, is put in the box and runs only when the learner presses Run); ``lesson``
  (a lesson file opened from a file or a link, at most ``MAX_LESSON_CHARS``, read with
  lesson_format.parse_lesson when the link is checked; opening the link opens the lesson).

Reading a link never trusts it. Each problem raises one ``ShareLinkError`` whose message
says what is wrong, and the page then shows that message over its default state:

- longer than ``MAX_LINK_CHARS`` → refused before decoding anything;
- not base64url, a truncated or corrupt zlib stream (its Adler-32 check catches edits),
  bytes after the stream → "damaged";
- a stream that inflates past ``MAX_JSON_BYTES`` (a decompression bomb) → refused after
  inflating at most that much (``decompressobj().decompress(data, max_length)``);
- an unknown version (``v2.…``) → "made by a newer Subword Lab";
- not UTF-8, not JSON, nesting too deep, a field of the wrong type or out of range, an
  unknown preset or option → the message names the field.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import math
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from subwordlab.base.events import Progressing, drain
from subwordlab.base.jsonio import STRING_TOKENS, Fields, ModelFileError, parse_json
from subwordlab.base.sha256 import sha256_steps

from .languages import DEFAULT_SET, LANGUAGE_SETS
from .well_known import WELL_KNOWN

VERSION = 1
PREFIX = f"v{VERSION}."
INLINE_LIMIT_BYTES = 16 * 1024  # compressed payload with the corpus inline, at most
MAX_LINK_CHARS = 32 * 1024  # longest payload (after "v1.") a link may have
MAX_JSON_BYTES = 1024 * 1024  # most a payload may inflate to (decompression-bomb guard)
MAX_CONFIGS = 4  # the Compare panel trains 1-4 configurations (plus the current and a well-known tokenizer)
MAX_STEP = 10_000_000
MAX_DEPTH = 8  # deepest JSON nesting a valid payload has is 4
MAX_TITLE_CHARS = 200  # a corpus's or an imported file's name
MAX_LESSON_CHARS = 16 * 1024  # a lesson file inside a link (a bigger one goes by its site address)

PANELS = ("corpus", "train", "inspect", "compare", "files", "share")
SPECIAL_POLICIES = ("disallowed", "allowed", "plain")
CORPUS_KINDS = ("inline", "sample", "file")
CORPUS_FORMATS = ("text", "word_counts", "counts")  # (state.FORMATS)
WELL_KNOWN_KEYS = tuple(v.key for v in WELL_KNOWN)  # what compare.well_known may name
MAX_WELL_KNOWN_COLUMNS = 3  # compare.well_known's length at most (compare.MAX_WELL_KNOWN)
_NAME = re.compile(r"[\w.\- ()\[\]+,'&]{1,200}")  # a sample id or a file name
_SHA256 = re.compile(r"[0-9a-f]{64}")
_VERSION_PREFIX = re.compile(r"v(\d{1,6})\.")
_B64URL = re.compile(r"[A-Za-z0-9_-]*")


class ShareLinkError(ValueError):
    """A share link cannot be read (or an experiment cannot become one); the message
    says what is wrong in words a user can act on."""


# -- the experiment ----------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")


def check_unicode(what: str, text: str) -> None:
    """Raise ShareLinkError if ``text`` holds a lone surrogate (half of a character, e.g. an
    emoji cut in two by a paste), which no link, file or hash can hold: it says where.

    Example: check_unicode("the corpus", "ok") -> None."""
    bad = _SURROGATE.search(text or "")
    if bad is not None:
        raise ShareLinkError(f"{what} holds half of a character (the lone surrogate U+{ord(bad.group()):04X}) at "
                             f"character {bad.start() + 1:,}, which is not valid Unicode text; delete it (it is often "
                             "half of an emoji cut in two) and copy the link again")


def sha256_text(text: str) -> str:
    """Example: sha256_text('') -> 'e3b0c442…' (the SHA-256 of the UTF-8 bytes). The last
    few texts' digests are remembered (a 30 MB corpus takes ~0.2 s to hash in the page;
    ``sha256_text_steps`` hashes one in slices first)."""
    for known, digest in _DIGESTS:
        if known is text:
            return digest
    return drain(sha256_text_steps(text))


_DIGESTS: list[tuple[str, str]] = []  # (text, its SHA-256): the most recent first


def sha256_text_steps(text: str) -> Progressing[str]:
    """``sha256_text`` in slices: yields ``(done, total)`` characters, returns the digest
    and remembers it (so ``sha256_text(text)`` answers at once after)."""
    digest = yield from sha256_steps(text)
    _DIGESTS[:] = [(text, digest)] + [kd for kd in _DIGESTS if kd[0] is not text][:2]
    return digest


@dataclass(frozen=True)
class CorpusRef:
    """Where the experiment's corpus comes from.

    ``kind``: "inline" (``text`` is the corpus), "sample" (``name`` is a bundled sample's
    id) or "file" (``name`` is the file name the user must supply again). ``format``:
    "text", "word_counts" (``word count`` lines) or "counts" (a counts file's JSON). ``sha256``/``chars``: the corpus's
    SHA-256 (of its UTF-8 bytes) and length in characters, to check what the page loads.
    ``title``: the name the page shows for it (an inline corpus may also give, in ``name``,
    the bundled sample it is a copy of).
    """

    kind: str
    format: str = "text"
    text: str | None = None
    name: str | None = None
    sha256: str | None = None
    chars: int | None = None
    title: str | None = None

    @classmethod
    def inline(cls, text: str, format: str = "text", *, name: str | None = None,
               title: str | None = None, sha256: str | None = None) -> CorpusRef:
        return cls("inline", format, text=text, name=name, sha256=sha256 or sha256_text(text), chars=len(text),
                   title=title)

    @classmethod
    def sample(cls, name: str, text: str, format: str = "text", *, title: str | None = None,
               sha256: str | None = None) -> CorpusRef:
        return cls("sample", format, name=name, sha256=sha256 or sha256_text(text), chars=len(text), title=title)

    @classmethod
    def file(cls, name: str, text: str, format: str = "text", *, title: str | None = None,
             sha256: str | None = None) -> CorpusRef:
        return cls("file", format, name=name, sha256=sha256 or sha256_text(text), chars=len(text), title=title)

    def matches(self, text: str) -> bool:
        """Is ``text`` the corpus this reference names? (by SHA-256; inline: equality)"""
        if self.kind == "inline":
            return text == self.text
        return self.sha256 is None or sha256_text(text) == self.sha256

    def to_json(self) -> dict:
        out: dict[str, Any] = {"kind": self.kind, "format": self.format}
        for key in ("text", "name", "sha256", "chars", "title"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class Config:
    """One training configuration: a preset and its options.

    ``options`` holds ``vocab_size`` / ``num_merges`` like any other option. ``normalized()``
    fills in every default (so a link records every option explicitly).
    """

    preset: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def normalized(self) -> Config:
        from subwordlab.options import PRESETS, OptionError

        schema = PRESETS.get(self.preset)
        if schema is None:
            raise ShareLinkError(f"unknown algorithm {self.preset!r}; this page knows {', '.join(PRESETS)}")
        unknown = sorted(set(self.options) - set(schema.names))
        if unknown:
            raise ShareLinkError(f"the {self.preset} algorithm has no option {unknown[0]!r}")
        opts = {name: _plain(default) for name, default in schema.defaults().items()}
        for name, value in self.options.items():
            try:
                schema.option(name).check(value)
            except OptionError as exc:
                raise ShareLinkError(f"the link cannot hold this setting: {exc}") from None
            opts[name] = _plain(value)
        return Config(self.preset, opts)

    def train_kwargs(self) -> dict:
        """Keyword arguments for ``subwordlab.train`` / ``Recording`` (lists as given)."""
        return dict(self.options)

    def to_json(self) -> dict:
        return {"preset": self.preset, "options": dict(self.options)}


@dataclass(frozen=True)
class TokenizerRef:
    """A tokenizer that was loaded, not trained: a well-known one by its key (the page
    fetches it again), or the user's file by its name and SHA-256 (the page asks for it).

    >>> TokenizerRef(well_known="cl100k_base").to_json()
    {'well_known': 'cl100k_base'}
    """

    well_known: str = ""
    name: str = ""
    sha256: str = ""

    def to_json(self) -> dict:
        if self.well_known:
            return {"well_known": self.well_known}
        return {"name": self.name, "sha256": self.sha256}


@dataclass(frozen=True)
class ExerciseRef:
    """An exercise of the Train tab (exercises.py) and the learner's code in its box (""
    for the starter). A link's code is put in the box and runs only when the learner
    presses Run.

    >>> ExerciseRef("bpe_merge", "def merge(ids, pair, idx): return ids").to_json()["id"]
    'bpe_merge'
    """

    id: str
    code: str = ""

    def to_json(self) -> dict:
        return {"id": self.id, "code": self.code}


@dataclass(frozen=True)
class Experiment:
    """Everything a share link reproduces. ``step`` None means "the end of training"."""

    corpus: CorpusRef
    train: Config
    step: int | None = None
    panel: str = "train"
    inspect_text: str = ""
    seed: int = 0  # the inspector's BPE-dropout / Unigram-sampling seed
    alpha: float = 0.1  # the inspector's Unigram sampling alpha (BPE: dropout probability)
    sampled: bool = False  # the inspector shows a sampled segmentation (with seed and alpha)
    nbest: int = 5  # Unigram: how many best segmentations the inspector lists
    special_policy: str = "disallowed"  # special tokens in the inspector's text: disallowed, allowed, plain
    compare: tuple[Config, ...] = ()
    compare_text: str = ""
    compare_reference: str | None = None
    compare_heldout: str | None = None  # the held-out text of the compression curve
    compare_current: bool = False  # the current tokenizer is a Compare column
    compare_well_known: tuple[str, ...] = ()  # the keys of the well-known tokenizers that are Compare columns
    compare_languages: str = DEFAULT_SET  # the premium view's languages (a key of languages.LANGUAGE_SETS)
    running: bool = False  # saved while a run was going (a reload offers to run again)
    imported: str = ""  # the name of a model file replayed on Files (a reload asks for it again)
    tokenizer: TokenizerRef | None = None  # the loaded tokenizer Inspect and Compare used, if any
    exercise: ExerciseRef | None = None  # the Train tab's exercise and its code (never run by opening the link)
    lesson: str = ""  # a lesson file opened from a file or a link (lesson_format.py), which the link carries

    def normalized(self) -> Experiment:
        """Every option of every configuration spelled out (what a link carries)."""
        return replace(self, train=self.train.normalized(), compare=tuple(c.normalized() for c in self.compare))

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "corpus": self.corpus.to_json(),
            "train": self.train.to_json(),
            "step": self.step,
            "panel": self.panel,
            "inspect": {"text": self.inspect_text, "seed": self.seed, "alpha": self.alpha,
                        "sampled": self.sampled, "nbest": self.nbest, "special": self.special_policy},
        }
        if self.running:
            out["running"] = True
        if self.imported:
            out["imported"] = self.imported
        if self.tokenizer is not None:
            out["tokenizer"] = self.tokenizer.to_json()
        if self.exercise is not None:
            out["exercise"] = self.exercise.to_json()
        if self.lesson:
            out["lesson"] = self.lesson
        if self.has_compare:
            out["compare"] = {
                "configs": [c.to_json() for c in self.compare],
                "text": self.compare_text,
                "reference": self.compare_reference,
                "heldout": self.compare_heldout,
            }
            if self.compare_current:
                out["compare"]["current"] = True
            if self.compare_well_known:
                out["compare"]["well_known"] = list(self.compare_well_known)
            if self.compare_languages != DEFAULT_SET:
                out["compare"]["languages"] = self.compare_languages
        return out

    @property
    def has_compare(self) -> bool:
        """Does the link hold a Compare setup (trained columns, or only the current and
        well-known tokenizers, as Train's "Measure it against real tokenizers" makes)?"""
        return bool(self.compare or self.compare_current or self.compare_well_known)


def _plain(value: Any) -> Any:
    """Option values as JSON has them. Example: ('<s>', '</s>') -> ['<s>', '</s>']"""
    return list(value) if isinstance(value, tuple) else value


# -- encoding ------------------------------------------------------------------------------

def _pack(doc: dict) -> bytes:
    try:
        raw = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        data = raw.encode("utf-8")
    except UnicodeEncodeError:
        raise ShareLinkError("the experiment holds text that is not valid Unicode (a lone surrogate); "
                             "remove it from the corpus or the text boxes") from None
    except ValueError:
        raise ShareLinkError("an option is not a finite number (NaN or infinity); links need finite numbers") from None
    if len(data) > MAX_JSON_BYTES:
        raise ShareLinkError(f"the experiment is {len(data):,} bytes of JSON; a link holds at most "
                             f"{MAX_JSON_BYTES:,}: shorten the inspector or compare text")
    return zlib.compress(data, 9)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def encode_fragment(exp: Experiment, *, fallback: CorpusRef | None = None) -> str:
    """The link fragment (without ``#``) for ``exp``: ``"v1." + base64url(zlib(json))``.

    An inline corpus stays inline when the compressed payload is at most
    ``INLINE_LIMIT_BYTES``; otherwise ``fallback`` (a sample or file reference to the same
    corpus) replaces it. Raises ``ShareLinkError`` when even that does not fit.
    """
    exp = exp.normalized()
    if exp.corpus.kind == "inline":
        try:
            packed = _pack(exp.to_json())
            fits = len(packed) <= INLINE_LIMIT_BYTES
        except ShareLinkError:
            if fallback is None:
                raise
            fits = False
        if not fits:
            if fallback is None:
                raise ShareLinkError(f"the corpus is too big to travel inside a link (the link's data may be "
                                     f"{INLINE_LIMIT_BYTES:,} bytes compressed)")
            exp = replace(exp, corpus=fallback)
    if exp.corpus.kind != "inline":
        packed = _pack(exp.to_json())
    payload = _b64(packed)
    if len(payload) > MAX_LINK_CHARS:
        raise ShareLinkError(f"the link would be {len(payload):,} characters long; the limit is {MAX_LINK_CHARS:,}: "
                             "shorten the inspector or compare text")
    _check(exp.to_json())  # every link we write must read back
    return PREFIX + payload


def corpus_ref_for(text: str, format: str = "text", *, sample: str | None = None,
                   file_name: str | None = None) -> tuple[CorpusRef, CorpusRef | None]:
    """The corpus reference to try first and the fallback if it does not fit inline.

    Example: corpus_ref_for(shakespeare, sample="tinyshakespeare") -> (inline, sample ref).
    A sample is always preferred over a long inline copy; a file is the last resort.
    """
    inline = CorpusRef.inline(text, format)
    if sample is not None:
        return inline, CorpusRef.sample(sample, text, format)
    return inline, CorpusRef.file(file_name or "corpus.txt", text, format)


# -- decoding --------------------------------------------------------------------------------
# Decoding is a sliced generator (the core's style, subwordlab.base.events: it yields ``(done,
# total)`` after each piece of work and returns the Experiment), so the page hands the
# browser back between pieces (tasks.drive, by the clock): a link of 32 KB may inflate to
# 1 MB, and that must not be one long task. ``decode_fragment`` runs it to the end
# (events.drain) for every other caller.

B64_CHUNK_CHARS = 4096  # base64url characters decoded per piece (a multiple of 4)
INFLATE_CHUNK_BYTES = 1024  # compressed bytes fed to the inflater per piece
INFLATE_PIECE_BYTES = 64 * 1024  # most bytes one inflate call may produce
# the most values (commas outside strings, plus one) a valid link's JSON holds: lists of at
# most 1,000 texts (special tokens, user-defined symbols: two per preset) in at most five
# configurations, plus ~150 scalars. More is refused before ``json.loads``, which would spend
# ~1 s building the 340,000 objects of a 1 MB "[{},{},…]" (a link of a few hundred characters).
MAX_JSON_VALUES = 16_384


def decode_fragment(fragment: str) -> Experiment:
    """The experiment in a link fragment (with or without the leading ``#``).

    Raises ``ShareLinkError`` for anything but a well-formed link of a known version.
    The same as running ``decode_fragment_steps(fragment)`` to its end.
    """
    return drain(decode_fragment_steps(fragment))


def decode_fragment_steps(fragment: str) -> Progressing[Experiment]:
    """``decode_fragment`` in pieces: a generator that yields ``(done, total)`` between
    pieces of work (each well under a few milliseconds of CPython) and returns the
    Experiment; raises ``ShareLinkError`` as ``decode_fragment`` does.

    >>> steps = decode_fragment_steps(encode_fragment(Experiment(CorpusRef.inline("low"), Config("bpe", {"num_merges": 1}))))
    >>> drain(steps).corpus.text
    'low'
    """
    payload = _payload(fragment)
    # 1. base64url, a chunk at a time (a multiple of 4 characters decodes on its own)
    packed = yield from _unbase64(payload)
    # 2. inflate in pieces, refusing as soon as the output passes MAX_JSON_BYTES
    text = yield from _inflate_text(packed)
    yield len(text), len(text)
    # 3. JSON: bounded first (size, depth, number of values), then parsed by the core's reader
    yield from _check_value_count(text)
    yield len(text), len(text)
    try:
        # the core's safe parser: size and depth checked on the text first (no nesting reaches
        # the recursive parser), duplicate keys and NaN refused
        doc = parse_json(text, "link's content", MAX_JSON_BYTES, MAX_DEPTH)
    except ModelFileError as exc:
        raise ShareLinkError(f"this link is damaged: {exc}") from None
    yield len(text), len(text)
    # 4. every field checked (and an inline corpus's SHA-256)
    return _check(doc)


# ASCII white space (HTML's: tab, line feed, form feed, carriage return, space)
_ASCII_SPACE = str.maketrans("", "", "\t\n\f\r ")
_PERCENT_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_LINK_SHAPE = re.compile(r"v\d{1,6}\.[A-Za-z0-9_-]*")  # what a link fragment is made of (after '#')
# a link a mail client percent-encoded (3 characters for each) or broke into lines is longer
# than the link itself: this much is read and repaired; more is refused before any work
MAX_RAW_LINK_CHARS = 4 * (MAX_LINK_CHARS + len(PREFIX))


def repair_fragment(fragment: str) -> str:
    """A link fragment (without ``#``) as it was before a chat app or a mail client mangled it.

    1. ASCII white space anywhere is dropped: a link broken across lines or at spaces (the
       base64url alphabet has none, so nothing of the link is lost).
    2. If it then holds %XX escapes and the text they decode to has a link's shape
       (``v<digits>.`` then base64url characters only; white space decoded from ``%20`` is
       dropped too), that text is the link: a pasted link whose ``-``, ``_`` or ``.`` were
       percent-encoded (``%2D``, ``%5F``, ``%2E``). Otherwise the escapes stay, and the
       reader refuses the link with its usual message.

    One pass each (``str.translate``, one regular expression without repetition inside a
    repetition): linear in the fragment's length.

    >>> repair_fragment("v1.eNo%2DAb%5Fc")
    'v1.eNo-Ab_c'
    >>> repair_fragment("v1.eNo-A\\n  b_c")
    'v1.eNo-Ab_c'
    >>> repair_fragment("v1%2EeNo%2%20DAb")  # a space inside an escape, as the address bar keeps it
    'v1.eNo-Ab'
    >>> repair_fragment("v1.eNo%20Ab%2Fc")  # '/' is no base64url character: left as it was
    'v1.eNo%20Ab%2Fc'
    """
    cut = fragment.translate(_ASCII_SPACE)
    if "%" not in cut:
        return cut
    # (the address bar writes a space as %20, also one that broke an escape: "%2%20D" is "%2D")
    decoded = _PERCENT_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), cut.replace("%20", "")).translate(_ASCII_SPACE)
    return decoded if _LINK_SHAPE.fullmatch(decoded) else cut


def _payload(fragment: str) -> str:
    """The base64url payload of a fragment, after the cheap checks (length, version, alphabet);
    a mangled link is repaired first (``repair_fragment``)."""
    if not isinstance(fragment, str):
        raise ShareLinkError("a link fragment must be text")
    fragment = fragment[1:] if fragment.startswith("#") else fragment
    if len(fragment) <= MAX_RAW_LINK_CHARS:
        fragment = repair_fragment(fragment)
    if len(fragment) > MAX_LINK_CHARS + len(PREFIX):
        raise ShareLinkError(f"this link is too long ({len(fragment):,} characters; a Subword Lab link "
                             f"has at most {MAX_LINK_CHARS:,}), so it was not opened")
    m = _VERSION_PREFIX.match(fragment)
    if not m:
        raise ShareLinkError("this link does not hold a Subword Lab experiment (it should start with #v1.)")
    version = int(m.group(1))
    if version != VERSION:
        newer = "a newer" if version > VERSION else "an older, unsupported"
        raise ShareLinkError(f"this link was made by {newer} version of Subword Lab (link format v{version}); "
                             f"this page reads v{VERSION} links")
    payload = fragment[m.end():]
    if not payload:
        raise ShareLinkError("this link is empty after #v1. (was it cut off when copied?)")
    if not _B64URL.fullmatch(payload) or len(payload) % 4 == 1:
        raise ShareLinkError("this link is damaged: its data is not valid base64url (was it cut or edited?)")
    return payload


def _unbase64(payload: str) -> Progressing[bytes]:
    """base64url-decode ``payload`` (without padding), a chunk of B64_CHUNK_CHARS at a time
    (a multiple of 4 characters decodes on its own)."""
    padded = payload + "=" * (-len(payload) % 4)
    chunks: list[bytes] = []
    for start in range(0, len(padded), B64_CHUNK_CHARS):
        try:
            chunks.append(base64.urlsafe_b64decode(padded[start:start + B64_CHUNK_CHARS]))
        except (binascii.Error, ValueError):
            raise ShareLinkError("this link is damaged: its data is not valid base64url "
                                 "(was it cut or edited?)") from None
        yield start + B64_CHUNK_CHARS, len(padded)
    return b"".join(chunks)


def _inflate_text(packed: bytes) -> Progressing[str]:
    """zlib-decompress and UTF-8-decode ``packed``, yielding after each piece of at most
    INFLATE_PIECE_BYTES: never more than MAX_JSON_BYTES + 1 bytes are inflated (a
    decompression bomb is refused as soon as its output passes the limit); truncated,
    corrupt or trailing data is refused."""
    inflater = zlib.decompressobj()
    utf8 = codecs.getincrementaldecoder("utf-8")()
    pieces: list[str] = []
    size = 0
    not_utf8: UnicodeDecodeError | None = None
    for start in range(0, len(packed), INFLATE_CHUNK_BYTES):
        if inflater.eof:  # the stream ended in an earlier chunk
            raise ShareLinkError("this link is damaged: it has extra data after its content (was it edited?)")
        data = packed[start:start + INFLATE_CHUNK_BYTES]
        while data and not inflater.eof:
            try:
                # subtle: max_length bounds this call's output; the input it could not use yet
                # waits in unconsumed_tail and is fed again (at most one byte past the limit)
                out = inflater.decompress(data, min(INFLATE_PIECE_BYTES, MAX_JSON_BYTES + 1 - size))
            except zlib.error:
                raise ShareLinkError("this link is damaged: its compressed data is corrupt (was it edited?)") from None
            data = inflater.unconsumed_tail
            size += len(out)
            if size > MAX_JSON_BYTES:
                raise ShareLinkError(f"this link's data expands to more than {MAX_JSON_BYTES:,} bytes; "
                                     "it was not opened (a valid link is never that big)")
            if not_utf8 is None:
                # (said only once the stream is whole: a corrupt stream is "corrupt", not "not UTF-8")
                try:
                    pieces.append(utf8.decode(out))
                except UnicodeDecodeError as exc:
                    not_utf8 = exc
            yield start, len(packed)
    if inflater.unused_data:
        raise ShareLinkError("this link is damaged: it has extra data after its content (was it edited?)")
    if not inflater.eof:
        raise ShareLinkError("this link is damaged: its compressed data is truncated (was it cut off when copied?)")
    try:
        if not_utf8 is not None:
            raise not_utf8
        pieces.append(utf8.decode(b"", final=True))
    except UnicodeDecodeError:
        raise ShareLinkError("this link is damaged: its content is not UTF-8 text") from None
    return "".join(pieces)


def _count_items(text: str) -> Progressing[int]:
    """How many items (members and elements) the JSON ``text``'s containers hold, at most:
    one more than its commas outside strings; the count stops once it passes MAX_JSON_VALUES.
    Yields every 256 strings (a text of many short strings is many regex matches).

    Example: drain(_count_items('{"a": [1, 2], "b": "x,y"}')) -> 3
    """
    commas, end = 0, 0
    for i, m in enumerate(STRING_TOKENS.finditer(text)):
        commas += text.count(",", end, m.start())  # the commas between two strings
        end = m.end()
        if commas > MAX_JSON_VALUES:
            break
        if i % 256 == 255:
            yield end, len(text)
    else:
        commas += text.count(",", end)
    return commas + 1


def _check_value_count(text: str) -> Progressing[None]:
    """Refuse JSON holding more values than any valid link (see MAX_JSON_VALUES)."""
    if (yield from _count_items(text)) > MAX_JSON_VALUES:
        raise ShareLinkError(f"this link is damaged: its content holds more than {MAX_JSON_VALUES:,} values, "
                             "more than any Subword Lab experiment (was it edited?)")


# -- checking a decoded document -------------------------------------------------------------

def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "true/false", int: "a whole number", float: "a number", str: "text",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


class _Reader(Fields):
    """The core's JSON reader (``jsonio.Fields``) in a link's voice: every error is a
    ``ShareLinkError`` that names the field's path; typed getters with ranges and choices."""

    def not_an_object(self, obj: Any) -> ShareLinkError:
        return ShareLinkError(f"this link is damaged: {self.path or 'its content'} must be an object, "
                              f"not {_type_name(obj)}")

    def missing(self, key: str) -> ShareLinkError:
        return self.error(key, "is missing")

    def error(self, key: str, problem: str) -> ShareLinkError:
        return ShareLinkError(f"this link is damaged: {self.where(key)} {problem}")

    def where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def typed(self, key: str, kinds: tuple, *, required: bool = True, default: Any = None) -> Any:
        """The value at ``key``, one of the types ``kinds`` (``default`` if absent and not required)."""
        value = self.raw(key) if required else self.raw(key, default)
        if key not in self.obj:
            return value
        if value is None and type(None) in kinds:
            return None
        if isinstance(value, bool) and bool not in kinds:
            raise self.error(key, f"must be {_type_name(kinds[0]())}, not {_type_name(value)}")
        if not isinstance(value, kinds):
            expected = " or ".join(dict.fromkeys(_type_name(k()) for k in kinds if k is not int or float not in kinds))
            raise self.error(key, f"must be {expected}, not {_type_name(value)}")
        return value

    def text(self, key: str, *, required: bool = True, default: str | None = None, nullable: bool = False) -> Any:
        return self.typed(key, (str, type(None)) if nullable else (str,), required=required, default=default)

    def int(self, key: str, lo: int, hi: int, *, required: bool = True, nullable: bool = False) -> Any:
        value = self.typed(key, (int, type(None)) if nullable else (int,), required=required)
        if value is not None and not lo <= value <= hi:
            raise self.error(key, f"must be between {lo:,} and {hi:,}, not {value:,}")
        return value

    def number(self, key: str, lo: float, hi: float, *, required: bool = True) -> Any:
        value = self.typed(key, (float, int), required=required)
        if value is not None and not (math.isfinite(value) and lo <= value <= hi):
            raise self.error(key, f"must be a number between {lo} and {hi}, not {value!r}")
        return value

    def choice(self, key: str, choices: tuple, *, required: bool = True, default: Any = None) -> Any:
        value = self.text(key, required=required, default=default)
        if value is not None and value not in choices:
            raise self.error(key, f"must be one of {', '.join(choices)}, not {value[:40]!r}")
        return value

    def only(self, *keys: str) -> None:
        extra = sorted(set(self.obj) - set(keys))
        if extra:
            raise self.error(extra[0][:40], "is not a field of a v1 link")


def _depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """Nesting depth without recursion. Example: {'a': [1, [2]]} -> 3."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, d = stack.pop()
        if isinstance(node, (list, dict)):
            deepest = max(deepest, d)
            if deepest > limit:
                return deepest
            stack.extend((child, d + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _check(doc: Any) -> Experiment:
    """Validate a decoded document and build its Experiment (all checks, then build)."""
    if _depth(doc) > MAX_DEPTH:
        raise ShareLinkError("this link is damaged: its content is nested too deeply")
    top = _Reader(doc, "")
    top.only("corpus", "train", "step", "panel", "inspect", "compare", "running", "imported", "tokenizer", "exercise",
             "lesson")
    corpus = _check_corpus(_Reader(top.typed("corpus", (dict,)), "corpus"))
    train = _check_config(_Reader(top.typed("train", (dict,)), "train"))
    step = top.int("step", 0, MAX_STEP, nullable=True)
    panel = top.choice("panel", PANELS)
    ins = _Reader(top.typed("inspect", (dict,)), "inspect")
    ins.only("text", "seed", "alpha", "sampled", "nbest", "special")
    inspect_text = ins.text("text")
    seed = ins.int("seed", 0, 2**63 - 1)
    alpha = ins.number("alpha", 0.0, 1000.0)
    sampled = ins.typed("sampled", (bool,))
    nbest = ins.int("nbest", 1, 100)
    special = ins.choice("special", SPECIAL_POLICIES)
    compare: tuple[Config, ...] = ()
    compare_text, reference, heldout, current = "", None, None, False
    well_known: tuple[str, ...] = ()
    languages = DEFAULT_SET
    if "compare" in top.obj:
        cmp = _Reader(top.typed("compare", (dict,)), "compare")
        cmp.only("configs", "text", "reference", "heldout", "current", "well_known", "languages")
        configs = cmp.typed("configs", (list,))
        if not 0 <= len(configs) <= MAX_CONFIGS:
            raise cmp.error("configs", f"must list 1 to {MAX_CONFIGS} configurations, not {len(configs)}")
        current = cmp.typed("current", (bool,), required=False, default=False)
        well_known = _well_known_columns(cmp)
        if not configs and not (current or well_known):  # (no column at all)
            raise cmp.error("configs", f"must list 1 to {MAX_CONFIGS} configurations, not 0")
        compare = tuple(_check_config(_Reader(c, f"compare.configs[{i}]")) for i, c in enumerate(configs))
        compare_text = cmp.text("text")
        reference = cmp.text("reference", nullable=True)
        heldout = cmp.text("heldout", nullable=True)
        for key, value in (("reference", reference), ("heldout", heldout)):
            if value is not None and not _NAME.fullmatch(value):
                raise cmp.error(key, "is not a valid text name")
        languages = cmp.choice("languages", tuple(LANGUAGE_SETS), required=False) or DEFAULT_SET
    running = top.typed("running", (bool,), required=False, default=False)
    imported = _title(top, "imported")
    tokenizer = _check_tokenizer(_Reader(top.typed("tokenizer", (dict,)), "tokenizer")) \
        if "tokenizer" in top.obj else None
    exercise = _check_exercise(_Reader(top.typed("exercise", (dict,)), "exercise")) if "exercise" in top.obj else None
    lesson = _check_lesson(top) if "lesson" in top.obj else ""
    return Experiment(corpus, train, step, panel, inspect_text, seed, float(alpha), sampled, nbest, special,
                      compare, compare_text, reference, heldout, current, well_known, compare_languages=languages,
                      running=running, imported=imported or "", tokenizer=tokenizer, exercise=exercise, lesson=lesson)


# characters a link's code may not hold: control characters but tab, line feed and carriage
# return, and the invisible ones that change the direction of text (they can make code look
# other than it runs: "Trojan Source", CVE-2021-42574)
_HIDDEN_IN_CODE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _check_exercise(r: _Reader) -> ExerciseRef:
    """A link's exercise: ``{"id": one of exercises.EXERCISE_IDS, "code": text}``, the code at
    most ``exercises.MAX_CODE_CHARS`` characters of plain text (no control or direction-changing
    characters)."""
    from .exercises import EXERCISE_IDS, MAX_CODE_CHARS

    r.only("id", "code")
    exercise_id = r.choice("id", EXERCISE_IDS)
    code = r.text("code")
    if len(code) > MAX_CODE_CHARS:
        raise r.error("code", f"is {len(code):,} characters long; a link carries at most {MAX_CODE_CHARS:,}")
    hidden = _HIDDEN_IN_CODE.search(code)
    if hidden is not None:
        line = code.count("\n", 0, hidden.start()) + 1
        raise r.error("code", f"holds the invisible character U+{ord(hidden.group()):04X} on line {line}, which can make "
                              "code look other than it runs; the link was refused so that it cannot trick you")
    if _SURROGATE.search(code):
        raise r.error("code", "holds half of a character (a lone surrogate), which is not valid Unicode text")
    return ExerciseRef(exercise_id, code)


def _well_known_columns(r: _Reader) -> tuple[str, ...]:
    """compare.well_known: a list of distinct well-known keys (or one key as text, as older
    links wrote it); absent: none."""
    if "well_known" not in r.obj:
        return ()
    value = r.obj["well_known"]
    if isinstance(value, str):
        return (r.choice("well_known", WELL_KNOWN_KEYS),)
    if not isinstance(value, list) or len(value) > MAX_WELL_KNOWN_COLUMNS:
        raise r.error("well_known", f"must be a list of at most {MAX_WELL_KNOWN_COLUMNS} well-known tokenizers "
                                    f"({', '.join(WELL_KNOWN_KEYS)})")
    for k, key in enumerate(value):
        if not isinstance(key, str) or key not in WELL_KNOWN_KEYS:
            raise r.error(f"well_known[{k}]", f"must be one of {', '.join(WELL_KNOWN_KEYS)}")
    if len(set(value)) != len(value):
        raise r.error("well_known", "names a tokenizer twice")
    return tuple(value)


def _check_lesson(r: _Reader) -> str:
    """A link's lesson file: text of at most MAX_LESSON_CHARS that reads as a lesson
    (lesson_format.parse_lesson); the message names the lesson's line otherwise."""
    text = r.text("lesson")
    if not 0 < len(text) <= MAX_LESSON_CHARS:
        raise r.error("lesson", f"must be a lesson file of 1 to {MAX_LESSON_CHARS:,} characters")
    from .lesson_format import LessonFileError, parse_lesson

    try:
        parse_lesson(text, origin="link")
    except LessonFileError as exc:
        raise ShareLinkError(f"this link's lesson cannot be read: {exc}") from None
    return text


def _check_tokenizer(r: _Reader) -> TokenizerRef:
    """A link's loaded tokenizer: ``{"well_known": key}`` or ``{"name": ..., "sha256": ...}``."""
    if "well_known" in r.obj:
        r.only("well_known")
        return TokenizerRef(well_known=r.choice("well_known", WELL_KNOWN_KEYS))
    r.only("name", "sha256")
    name = _title(r, "name")
    if name is None:
        raise r.error("name", "is missing (a loaded tokenizer is named by well_known, or by name and sha256)")
    sha = r.text("sha256")
    if not _SHA256.fullmatch(sha):
        raise r.error("sha256", "must be 64 lower-case hexadecimal digits")
    return TokenizerRef(name=name, sha256=sha)


def _title(r: _Reader, key: str) -> str | None:
    """An optional display name: text of 1-200 characters without control characters."""
    value = r.text(key, required=False, default=None)
    if value is not None and not (0 < len(value) <= MAX_TITLE_CHARS and value.isprintable()):
        raise r.error(key, f"must be a name of 1 to {MAX_TITLE_CHARS} printable characters")
    return value


def _check_corpus(r: _Reader) -> CorpusRef:
    r.only("kind", "format", "text", "name", "sha256", "chars", "title")
    kind = r.choice("kind", CORPUS_KINDS)
    fmt = r.choice("format", CORPUS_FORMATS)
    text = r.text("text", required=kind == "inline") if kind == "inline" else None
    if kind != "inline" and "text" in r.obj:
        raise r.error("text", f"must be absent for a {kind} corpus")
    name = r.text("name", required=kind != "inline", default=None)
    if name is not None and not _NAME.fullmatch(name):
        raise r.error("name", "is not a valid sample or file name")
    sha = r.text("sha256", required=kind == "file", default=None)
    if sha is not None and not _SHA256.fullmatch(sha):
        raise r.error("sha256", "must be 64 lower-case hexadecimal digits")
    chars = r.int("chars", 0, 10**10, required=False)
    if text is not None and sha is not None and sha256_text(text) != sha:  # (text: an inline corpus's)
        raise r.error("text", "does not match its SHA-256 (was the link edited?)")
    return CorpusRef(kind, fmt, text=text, name=name, sha256=sha, chars=chars, title=_title(r, "title"))


def _check_config(r: _Reader) -> Config:
    from subwordlab.options import PRESETS
    from subwordlab.presets import NEW_OPTIONS

    r.only("preset", "options")
    preset = r.text("preset")
    schema = PRESETS.get(preset)
    if schema is None:
        raise r.error("preset", f"names no algorithm this page knows ({preset[:40]!r}; "
                                f"known: {', '.join(PRESETS)})")
    opts = _Reader(r.typed("options", (dict,)), r.where("options"))
    unknown = sorted(set(opts.obj) - set(schema.names))
    if unknown:
        raise opts.error(unknown[0][:40], f"is not an option of the {preset} algorithm")
    for name in opts.obj:
        _check_option(opts, schema.option(name))
    if opts.obj.get("vocab_size") is None and opts.obj.get("num_merges") is None:
        raise r.error("options", "must give vocab_size or num_merges")
    # a link made before an option existed trained as the option's old value says
    # (e.g. sentence_per_line, now on by default, was off): it reproduces what its sender saw
    before = {name: value for name, value in NEW_OPTIONS.items() if schema.has(name) and name not in opts.obj}
    return Config(preset, {**opts.obj, **before})


def _check_option(r: _Reader, option: Any) -> None:
    """The value's JSON type must fit the option's kind, and the value the option's range
    (both from the core's schema, ``subwordlab.options``)."""
    from subwordlab.options import OptionError

    name, kind = option.name, option.kind
    if kind == "bool":
        r.typed(name, (bool,))
    elif kind == "int":
        r.int(name, option.range.low, option.range.high, nullable=option.nullable)
    elif kind == "float":
        r.typed(name, (float, int))
    elif kind == "list":
        items = r.typed(name, (list,))
        if len(items) > 1000 or not all(isinstance(s, str) for s in items):
            raise r.error(name, "must be a list of at most 1,000 texts")
    else:  # text or choice: text, or null where the option allows none (e.g. end_of_word, unk_token)
        r.text(name, nullable=option.nullable)
    try:
        option.check(r.obj[name])
    except OptionError as exc:
        raise r.error(name, exc.problem) from None
