"""Import a Hugging Face ``tokenizer.json``: ``from_hf_json(text)`` -> Tokenizer.

(Why one module: one small reader per HF component type, each registered
beside the others so the list of what imports is one page; the export is hf_export.py.)

Each tokenizer.json component type has a reader here, registered with
``@hf_reader(stage, type, ...)`` in the one component registry (``registry.py``): it gets
the importer, a ``jsonio.Fields`` reader of the object and its path, and returns our
component (or None where the HF component does nothing). Anything not registered is
refused with a message that names it and lists what is supported; see ``hf_json.py``
for the whole list. Regexes come through ``hf_onig.translate_regex``.

>>> tok = from_hf_json('{"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1, "##b": 2}}}')
>>> tok.tokenize("ab")
['a', '##b']
"""

import hashlib
import itertools
import json
import operator
from types import GeneratorType
from typing import Any

from ..base.events import Progressing, drain, in_chunks, scaled
from ..base.jsonio import MAX_FILE_BYTES, Fields, ModelFileError, kind_name, parse_json
from ..base.registry import find_hf_reader, hf_reader, hf_reader_tags
from ..models.hf_bpe import HFBPE
from ..models.hf_unigram import HFUnigram
from ..models.vocab import check_id, index_vocab_steps, read_scored_pieces
from ..models.wordpiece import WordPiece
from ..pipeline import decoders as D
from ..pipeline import normalizers as N
from ..pipeline import pre_tokenizers as P
from ..pipeline.added_vocab import AddedToken, AddedVocabulary, first_scheme
from ..text.hf_onig import translate_regex
from ..text.patterns import PATTERNS
from ..tokenizer import Tokenizer

HF_VERSION = "1.0"
TOP_LEVEL = ("version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer",
             "post_processor", "decoder", "model")


def from_onig(pattern, path):
    """An Oniguruma regex (from a tokenizer.json) as a Python regex."""
    try:
        return translate_regex(pattern, False)
    except (ValueError, IndexError) as exc:
        raise ModelFileError(f"{path}: the regex {pattern!r} is not supported: {exc}") from None


class _Import:
    """One import in progress: what the model reader needs to know of the other stages."""

    def __init__(self, added):
        self.added = added  # the file's added_tokens (dicts)
        self.normalizer = self.pre_tokenizer = None

    def component(self, stage, value, path):
        """Our component for the tokenizer.json object ``value`` of ``stage`` (None for null)."""
        return drain(self.component_steps(stage, value, path))

    def component_steps(self, stage, value, path):
        """``component`` with the progress of a reader that has some (a generator: the BPE
        model's, ``(done, total)`` merges)."""
        if value is None and stage != "model":
            return None
        f = Fields(value, path)
        tag = self.model_type(f) if stage == "model" else f.get("type", "str")
        read = find_hf_reader(stage, tag)
        if read is None:
            raise ModelFileError(f"{path}.type: {stage} type {tag!r} is not supported; "
                                 f"supported: {', '.join(hf_reader_tags(stage))}")
        obj = read(self, f, path)
        if isinstance(obj, GeneratorType):
            obj = yield from obj
        f.done()
        return obj

    @staticmethod
    def model_type(f):
        mtype = f.get("type", "str", None)
        if mtype is None:  # very old files have no model type: guess it as HF does
            mtype = "BPE" if "merges" in f.obj else "WordPiece" if "max_input_chars_per_word" in f.obj else "Unigram"
        return mtype


def _pattern(f, key="pattern"):
    """A HF pattern ``{"String": s}`` or ``{"Regex": r}`` -> (python_pattern, is_regex)."""
    p = f.get(key, "dict")
    keys = list(p)
    if keys == ["String"] and isinstance(p["String"], str):
        return p["String"], False
    if keys == ["Regex"] and isinstance(p["Regex"], str):
        return from_onig(p["Regex"], f"{f.path}.{key}.Regex"), True
    raise f.error(key, 'expected {"String": "..."} or {"Regex": "..."}')


def _replacement(f):
    r = f.get("replacement", "str", "\u2581")
    if len(r) != 1:
        raise f.error("replacement", f"expected one character, got {r!r}")
    return r


def _prepend_scheme(f):
    scheme = f.get("prepend_scheme", "str", None, nullable=True)
    legacy = f.get("add_prefix_space", "bool", None, nullable=True)
    if scheme is None:
        scheme = "always" if legacy in (None, True) else "never"
    if scheme not in ("always", "first", "never"):
        raise f.error("prepend_scheme", f"expected 'always', 'first' or 'never', got {scheme!r}")
    return scheme


def _behavior(f, default=None):
    behavior = f.get("behavior", "str") if default is None else f.get("behavior", "str", default)
    if behavior not in P.BEHAVIORS:
        raise f.error("behavior", f"unknown behavior {behavior!r}; one of {', '.join(P.BEHAVIORS)}")
    return behavior


# -- normalizers -------------------------------------------------------------------------

@hf_reader("normalizer", "NFC", "NFD", "NFKC", "NFKD")
def _unicode(imp, f, path):
    return N.Unicode(f.obj["type"])


@hf_reader("normalizer", "Precompiled")
def _precompiled(imp, f, path):
    # applied as SentencePiece applies it (longest key first); tokenizers applies it per
    # grapheme and parts on a few sequences (README, "Where they still part")
    return N.precompiled_from(f)


@hf_reader("normalizer", "Lowercase")
def _lowercase(imp, f, path):
    return N.Lowercase()


@hf_reader("normalizer", "Strip")
def _strip(imp, f, path):
    return N.Strip(f.get("strip_left", "bool"), f.get("strip_right", "bool"))


@hf_reader("normalizer", "StripAccents")
def _strip_accents(imp, f, path):
    return N.StripAccents(all_marks=True)


@hf_reader("normalizer", "Replace")
def _replace(imp, f, path):
    pattern, is_regex = _pattern(f)
    content = f.get("content", "str")
    if is_regex:
        return N.RegexReplace(pattern, content)
    if not pattern:
        return None  # HF: an empty string pattern matches nothing
    return N.Replace(pattern, content)


@hf_reader("normalizer", "Prepend")
def _prepend(imp, f, path):
    return N.Prepend(f.get("prepend", "str"))


@hf_reader("normalizer", "BertNormalizer")
def _bert_normalizer(imp, f, path):
    return N.BertNormalizer(f.get("clean_text", "bool", True), f.get("handle_chinese_chars", "bool", True),
                            f.get("strip_accents", "bool", None, nullable=True), f.get("lowercase", "bool", True))


@hf_reader("normalizer", "Sequence")
def _normalizer_sequence(imp, f, path):
    items = [imp.component("normalizer", v, f"{path}.normalizers[{i}]") for i, v in enumerate(f.get("normalizers", "list"))]
    return N.Sequence([x for x in items if x is not None])


# -- pre-tokenizers ----------------------------------------------------------------------

@hf_reader("pre_tokenizer", "ByteLevel")
def _byte_level(imp, f, path):
    aps = f.get("add_prefix_space", "bool", True)
    f.get("trim_offsets", "bool", True)
    use_regex = f.get("use_regex", "bool", True)
    return P.ByteLevel("gpt2" if use_regex else None, aps)


@hf_reader("pre_tokenizer", "Metaspace")
def _metaspace(imp, f, path):
    p = P.Metaspace(replacement=_replacement(f), prepend_scheme=_prepend_scheme(f), split=f.get("split", "bool", True))
    f.raw("str_rep", None)
    return p


@hf_reader("pre_tokenizer", "Split")
def _split(imp, f, path):
    pattern, is_regex = _pattern(f)
    behavior = _behavior(f)
    return P.Split(pattern, behavior, f.get("invert", "bool"), is_regex)


@hf_reader("pre_tokenizer", "Whitespace")
def _whitespace(imp, f, path):
    return P.Whitespace()


@hf_reader("pre_tokenizer", "WhitespaceSplit")
def _whitespace_split(imp, f, path):
    return P.WhitespaceSplit()


@hf_reader("pre_tokenizer", "BertPreTokenizer")
def _bert_pre_tokenizer(imp, f, path):
    return P.BertPreTokenizer(handle_chinese_chars=False)


@hf_reader("pre_tokenizer", "Digits")
def _digits(imp, f, path):
    return P.Digits(f.get("individual_digits", "bool", False))


@hf_reader("pre_tokenizer", "Punctuation")
def _punctuation(imp, f, path):
    return P.Punctuation(_behavior(f, "Isolated"))


@hf_reader("pre_tokenizer", "CharDelimiterSplit")
def _char_delimiter_split(imp, f, path):
    d = f.get("delimiter", "str")
    if len(d) != 1:
        raise f.error("delimiter", f"expected one character, got {d!r}")
    return P.CharDelimiterSplit(d)


@hf_reader("pre_tokenizer", "Sequence")
def _pre_tokenizer_sequence(imp, f, path):
    raw = f.get("pretokenizers", "list")
    items = [imp.component("pre_tokenizer", v, f"{path}.pretokenizers[{i}]") for i, v in enumerate(raw)]
    items = [x for x in items if x is not None]
    # subtle: Split(regex) + ByteLevel(no regex) is our byte-level pre-tokenizer when the
    # split keeps exactly the regex's matches: inverted Removed, or Isolated with a
    # built-in pattern (those match every character)
    first, name = (items[0] if items else None), None
    byte_level = (len(items) == 2 and type(first) is P.Split and first.is_regex and type(items[1]) is P.ByteLevel
                  and items[1].pattern is None and not items[1].add_prefix_space)
    if byte_level:
        name = next((k for k, v in PATTERNS.items() if from_onig(translate_regex(v, True), path) == first.pattern), None)
    if byte_level and name and first.behavior == "Isolated" and not first.invert:
        return P.ByteLevel(name)
    if byte_level and first.behavior == "Removed" and first.invert:
        return P.ByteLevel(name or first.pattern)
    return P.Sequence(items)


# -- decoders ----------------------------------------------------------------------------

@hf_reader("decoder", "ByteLevel")
def _byte_level_decoder(imp, f, path):
    for k in ("add_prefix_space", "trim_offsets", "use_regex"):
        f.get(k, "bool", None)
    return D.ByteLevelDecoder()


@hf_reader("decoder", "Metaspace")
def _metaspace_decoder(imp, f, path):
    scheme = _prepend_scheme(f)
    f.get("split", "bool", True)
    f.raw("str_rep", None)
    return D.MetaspaceDecoder(scheme != "never", replacement=_replacement(f), byte_tokens=False)


@hf_reader("decoder", "WordPiece")
def _wordpiece_decoder(imp, f, path):
    return D.SequenceDecoder([D.WordPieceDecoder(f.get("prefix", "str", "##"), f.get("cleanup", "bool", True))])


@hf_reader("decoder", "BPEDecoder")
def _bpe_decoder(imp, f, path):
    return D.SequenceDecoder([D.SuffixDecoder(f.get("suffix", "str", "</w>"))])


@hf_reader("decoder", "ByteFallback")
def _byte_fallback_decoder(imp, f, path):
    return D.ByteFallbackDecoder()


@hf_reader("decoder", "Fuse")
def _fuse_decoder(imp, f, path):
    return D.FuseDecoder()


@hf_reader("decoder", "Strip")
def _strip_decoder(imp, f, path):
    content = f.get("content", "str")
    if len(content) != 1:
        raise f.error("content", f"expected one character, got {content!r}")
    return D.StripDecoder(content, f.get("start", "nat"), f.get("stop", "nat"))


@hf_reader("decoder", "Replace")
def _replace_decoder(imp, f, path):
    pattern, is_regex = _pattern(f)
    content = f.get("content", "str")
    return D.ReplaceDecoder(pattern, content, is_regex) if (pattern or is_regex) else D.SequenceDecoder([])


@hf_reader("decoder", "Sequence")
def _decoder_sequence(imp, f, path):
    items = [imp.component("decoder", v, f"{path}.decoders[{i}]") for i, v in enumerate(f.get("decoders", "list"))]
    return D.SequenceDecoder([x for x in items if x is not None])


# -- models (the vocabulary also holds the file's added tokens) --------------------------

@hf_reader("model", "BPE")
def _bpe(imp, mf, path):
    """The BPE model (a generator: its bulk steps and the merges' chunks yield ``(done,
    total)``, so a 446,000-merge file never holds a page for long)."""
    n = len(mf.obj.get("merges") or ())
    # the vocabulary, a chunk at a time (the progress counts merges: read, then indexed)
    by_id = yield from scaled(_vocab_map_steps(mf), 0, 0, 2 * n)
    vocab = yield from scaled(_dense_steps(by_id, imp.added, "model.vocab"), 0, 0, 2 * n)
    model_ids = set(by_id)
    if len(model_ids) == len(vocab):
        t2i = yield from scaled(index_vocab_steps(vocab), 0, 0, 2 * n)
    else:  # (the model's tokens only: an added token beyond its ids is not merged)
        t2i = {}
        yield from scaled(in_chunks(len(vocab), lambda lo, hi: t2i.update(
            (vocab[i], i) for i in range(lo, hi) if i in model_ids), _BULK_CHUNK), 0, 0, 2 * n)
    yield 0, 2 * n
    # the merges read (the first half of the progress), then the rank table built (the second)
    merges = yield from scaled(_hf_merges(mf, t2i), 0, n, 2 * n)
    dropout = mf.get("dropout", "num", None, nullable=True)
    if dropout not in (None, 0, 0.0):
        raise mf.error("dropout", f"BPE-dropout ({dropout}) is not supported in imported models; set \"dropout\": null")
    model = yield from scaled(HFBPE.building(
        vocab, merges, mf.get("unk_token", "str", None, nullable=True),
        continuing_subword_prefix=mf.get("continuing_subword_prefix", "str", None, nullable=True),
        end_of_word_suffix=mf.get("end_of_word_suffix", "str", None, nullable=True),
        fuse_unk=mf.get("fuse_unk", "bool", False), byte_fallback=mf.get("byte_fallback", "bool", False),
        ignore_merges=mf.get("ignore_merges", "bool", False)), n, n, 2 * n)
    if model.unk_token is not None and model.unk_token not in t2i:
        raise mf.error("unk_token", f"{model.unk_token!r} is not in the model's vocabulary")
    model.byte_level = type(imp.pre_tokenizer) is P.ByteLevel and model.byte_ids is not None and imp.normalizer is None
    return model


@hf_reader("model", "WordPiece")
def _wordpiece(imp, mf, path):
    by_id = _vocab_map(mf)
    vocab = _dense(by_id, imp.added, "model.vocab")
    unk = mf.get("unk_token", "str")
    prefix = mf.get("continuing_subword_prefix", "str", "##")
    max_chars = mf.get("max_input_chars_per_word", "nat", 100)
    if max_chars < 1:
        raise mf.error("max_input_chars_per_word", "must be at least 1")
    return WordPiece(vocab, unk if unk in vocab else None, prefix, max_chars)


@hf_reader("model", "Unigram")
def _unigram(imp, mf, path):
    vocab, scores = read_scored_pieces(mf, strict=False)
    full = _dense(dict(enumerate(vocab)), imp.added, "model.vocab")
    hidden = list(range(len(vocab), len(full)))
    unk_id = mf.get("unk_id", "nat", None, nullable=True)
    check_id(mf, "unk_id", unk_id, len(vocab))
    return HFUnigram(full, scores + [0.0] * len(hidden), unk_id, mf.get("byte_fallback", "bool", False), hidden)


# -- the vocabulary, merges and added tokens ---------------------------------------------

def _vocab_map(f, key="vocab"):
    """A ``{token: id}`` object -> ``{id: token}``, ids checked."""
    return drain(_vocab_map_steps(f, key))


def _vocab_map_steps(f, key="vocab"):
    """``_vocab_map`` a chunk of ``_BULK_CHUNK`` entries at a time, yielding ``(done, total)``."""
    v = f.get(key, "dict")
    # the common case at C speed: every id a distinct non-negative int (the loop below names a problem)
    items = list(v.items())
    yield 0, len(items)
    by_id, kinds = {}, set()

    def chunk(lo, hi):
        part = items[lo:hi]
        ids = list(map(operator.itemgetter(1), part))
        kinds.update(map(type, ids))
        by_id.update(zip(ids, map(operator.itemgetter(0), part)))

    yield from in_chunks(len(items), chunk, _BULK_CHUNK)
    if len(by_id) == len(v) and kinds <= {int} and min(by_id, default=0) >= 0:
        return by_id
    by_id = {}
    for tok, i in items:
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise f.error(f"{key}[{json.dumps(tok, ensure_ascii=False)}]", f"expected a non-negative integer id, got {kind_name(i)}")
        if i in by_id:
            raise f.error(key, f"the id {i} is given to both {by_id[i]!r} and {tok!r}")
        by_id[i] = tok
    return by_id


def _dense(by_id, added, path):
    """The vocabulary as a list (ids 0..n-1), with added tokens beyond the model's ids."""
    return drain(_dense_steps(by_id, added, path))


def _dense_steps(by_id, added, path):
    """``_dense`` a chunk of ``_BULK_CHUNK`` ids at a time, yielding ``(done, total)``."""
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
    yield 0, n
    vocab = []
    yield from in_chunks(n, lambda lo, hi: vocab.extend(map(table.__getitem__, range(lo, hi))), _BULK_CHUNK)
    yield n, n
    if len(set(vocab)) == n:  # (C speed; the loop below names a token with two ids)
        return vocab
    seen = {}
    for i, tok in enumerate(vocab):
        if tok in seen:
            raise ModelFileError(f"{path}: the token {tok!r} has two ids ({seen[tok]} and {i})")
        seen[tok] = i
    return vocab


def _hf_merges(f, token_to_id):
    """The model's merges as id pairs (a generator: yields ``(done, total)`` after each chunk)."""
    raw = f.get("merges", "list")
    kinds = set(map(type, raw))
    if str in kinds and len(kinds) > 1:
        raise f.error("merges", "mixes 'left right' strings and [left, right] pairs; use one form (HF refuses a mix too)")
    fast = []

    def chunk(lo, hi):
        if fast[-1:] != [None]:  # (None: a chunk was not well formed; the loop below names it)
            part = _merges_at_c_speed(raw[lo:hi], token_to_id)
            fast.extend(part) if part is not None else fast.append(None)

    yield from in_chunks(len(raw), chunk, _MERGES_CHUNK)
    if None not in fast:
        return fast
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


_MERGES_CHUNK = 1 << 13  # merges read at C speed between two yields (~6 ms of CPython, ~15 in the page)
_BULK_CHUNK = 1 << 15  # vocabulary entries between two yields (~3-5 ms of CPython)


def _merges_at_c_speed(raw, token_to_id):
    """The common case of ``_hf_merges`` without a Python loop (a 446,000-merge file: 3 s ->
    0.3 s): every merge 'left right' with one space, or every one a [left, right] pair of
    strings, and every part in the vocabulary. None when any is not: the loop then names it."""
    types = set(map(type, raw))
    if types == {str}:
        if set(map(operator.methodcaller("count", " "), raw)) != {1}:
            return None
        parts = " ".join(raw).split(" ")
    elif types == {list} and set(map(len, raw)) == {2}:
        parts = list(itertools.chain.from_iterable(raw))
        if set(map(type, parts)) != {str}:
            return None
    else:
        return None
    ids = list(map(token_to_id.get, parts))
    if None in ids:
        return None
    return list(zip(ids[0::2], ids[1::2]))


def _added_tokens(value):
    if value is None:
        return []
    if not isinstance(value, list):
        raise ModelFileError(f"added_tokens: expected an array, got {kind_name(value)}")
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


def from_hf_dict(doc: Any, source_sha256: str | None = None, drop_post_processing: bool = False) -> Tokenizer:
    """A Tokenizer from a parsed tokenizer.json (see ``from_hf_json``)."""
    return drain(from_hf_dict_steps(doc, source_sha256, drop_post_processing))


def from_hf_dict_steps(doc: Any, source_sha256: str | None = None, drop_post_processing: bool = False
                       ) -> Progressing[Tokenizer]:
    """``from_hf_dict`` with its progress: yields ``(done, total)`` while a BPE model's merges
    are read and indexed; returns the Tokenizer."""
    if isinstance(doc, dict) and doc.get("format") == "subwordlab":
        raise ModelFileError("this is a Subword Lab model file, not a tokenizer.json; load it with subwordlab.from_json()")
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
    imp = _Import(_added_tokens(top.raw("added_tokens", [])))
    added = imp.added
    yield 0, 1  # (thousands of added tokens read: a page may paint)

    def stage(name):
        try:
            return (yield from imp.component_steps(name, top.raw(name, None) if name != "model" else top.raw(name), name))
        except ModelFileError:
            raise
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            raise ModelFileError(f"{name}: {exc}") from None

    normalizer = imp.normalizer = yield from stage("normalizer")
    pre_tokenizer = imp.pre_tokenizer = yield from stage("pre_tokenizer")
    yield 0, 1  # (its pattern compiled: tens of ms for o200k's character classes)
    decoder = yield from stage("decoder")
    model = yield from stage("model")
    top.done()

    # added tokens: plain special tokens use our special-token policy; anything else is
    # cut out of the text HF's way (added_vocab.py)
    specials = {t["content"]: t["id"] for t in added if t["special"]}

    # subtle: a Metaspace "first" needs to know where each segment starts in the original text
    plain = (all(t["special"] and not (t["normalized"] or t["lstrip"] or t["rstrip"] or t["single_word"]) for t in added)
             and not first_scheme(pre_tokenizer))
    added_vocab = None if plain else AddedVocabulary([
        AddedToken(t["content"], t["id"], t["special"], t["normalized"], t["lstrip"], t["rstrip"], t["single_word"])
        for t in added])
    if decoder is None:
        decoder = D.JoinDecoder()
    spec: dict[str, Any] = {"source": "tokenizer.json"}
    if source_sha256:
        spec["source_sha256"] = source_sha256
    if dropped:
        spec["dropped"] = dropped  # provenance: what of the file this tokenizer does not do
    try:
        return Tokenizer(model, normalizer, pre_tokenizer, decoder, specials, spec, added_vocab=added_vocab)
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"tokenizer.json: {exc}") from None


def from_hf_json(text: str | bytes, drop_post_processing: bool = False) -> Tokenizer:
    """A Tokenizer from a Hugging Face tokenizer.json (str or bytes); raises ``ModelFileError``.

    A post-processor (tokens such as [CLS]/[SEP] added around the text), truncation or
    padding is refused, unless ``drop_post_processing=True``: then the tokenizer encodes
    like HF's ``encode(text, add_special_tokens=False)`` and ``spec["dropped"]`` says what
    was left out."""
    raw = text.encode("utf-8") if isinstance(text, str) else bytes(text) if isinstance(text, (bytes, bytearray)) else None
    doc = parse_json(text, "tokenizer.json")
    return from_hf_dict(doc, hashlib.sha256(raw).hexdigest() if raw is not None and len(raw) <= MAX_FILE_BYTES else None,
                        drop_post_processing)
