"""Our own model document: one versioned JSON file that reproduces a tokenizer exactly.

>>> import subwordlab
>>> tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> text = to_json(tok)
>>> text.splitlines()[:3]
['{', '  "format": "subwordlab",', '  "version": 1,']
>>> again = from_json(text)
>>> again.tokenize("lowest"), to_json(again) == text
(['low', 'est</w>'], True)

The document (``version`` 1)::

    {
      "format": "subwordlab",          always this string
      "version": 1,                    the format version (a newer one is refused)
      "core_version": "0.1.0",         the subwordlab that wrote it
      "spec": {...},                   the full training spec: preset, every option and,
                                       under "corpus", the corpus's kind, SHA-256, chars, bytes
      "special_tokens": {"type": "SpecialTokens", "policy": "tiktoken", "tokens": [{"content", "id"}]},
      "added_tokens": null | {"type": "AddedTokens", "tokens": [...]},   (imported tokenizer.json only)
      "normalizer": null | {"type": ...},
      "pre_tokenizer": null | {"type": ...},
      "decoder": null | {"type": ...},
      "model": {"type": "BPE", <small fields>, "vocab": [...], "merges": [[left, right], ...]}
    }

Every component carries a ``"type"`` tag; loading dispatches on it. Writing is canonical:
a fixed key order (small fields first, the vocabulary and merges last, merges in rank
order), ``spec`` keys sorted, UTF-8 text (``ensure_ascii=False``), fixed indentation and
separators, floats (Unigram scores) as Python's shortest round-trip ``repr`` — the same
digits in CPython and Pyodide. So ``to_json(from_json(s)) == s`` byte for byte, and the
same spec and corpus give the same document in every runtime.

Loading never trusts the file: the size is checked before parsing (``MAX_FILE_BYTES``),
so is the nesting depth, and every field is checked; any problem raises one
``ModelFileError`` naming the field, and nothing is half-loaded (the tokenizer is built
only when everything is valid).

To add a component (e.g. a new model), register it with ``register(stage, tag, cls,
dump, load)``: ``dump(obj) -> dict of fields`` (in output order) and ``load(fields, ctx)
-> obj``, where ``fields`` is a ``Fields`` reader that checks types and names the path.
"""

import json
import math
import re

from . import __version__

FORMAT = "subwordlab"
VERSION = 1
MAX_FILE_BYTES = 50 * 1024 * 1024  # 50 MB: larger files are refused before parsing
MAX_DEPTH = 64  # deepest nesting of arrays/objects accepted (ours is about 8)


class ModelFileError(ValueError):
    """A model file (ours or a tokenizer.json) cannot be loaded: the message names the
    field and the problem. Example: "model.merges[3]: 'ab' + 'c' gives 'abc', which is
    not in the vocabulary"."""


# -- reading JSON safely ----------------------------------------------------------------

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_EMPTY_PAIR = re.compile(r"\[\]|\{\}")


def check_size_and_depth(text, what="model file", max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH):
    """Refuse a text that is too big or nested too deeply, before any parsing.

    Example: '[[[[1]]]]' has depth 4. The depth is found without recursion: strings are
    cut out, then innermost bracket pairs are removed pass by pass (one pass per level).
    """
    size = len(text.encode("utf-8")) if isinstance(text, str) and not text.isascii() else len(text)
    if size > max_bytes:
        raise ModelFileError(f"the {what} is {size:,} bytes; the limit is {max_bytes:,} bytes ({max_bytes // 2**20} MB)")
    if isinstance(text, (bytes, bytearray)):
        return  # (bytes are decoded, then checked again as text)
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(max_depth):
        if not brackets:
            return
        shorter = _EMPTY_PAIR.sub("", brackets)
        if shorter == brackets:
            break
        brackets = shorter
    # left: brackets nested deeper than the limit, or ones that do not balance; a few
    # unbalanced ones are the JSON parser's to report (with a position)
    if _EMPTY_PAIR.search(brackets) or len(brackets) > max_depth:
        raise ModelFileError(f"the {what} is nested more than {max_depth} levels deep (or its brackets do not balance); "
                             "it is not a valid model file")


def _no_duplicates(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ModelFileError(f"the key {k!r} appears twice in one JSON object")
        out[k] = v
    return out


def _no_constant(name):
    raise ModelFileError(f"{name} is not a number JSON allows; every score must be finite")


def parse_json(text, what="model file"):
    """``json.loads`` with the checks above; bytes are decoded as UTF-8."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_FILE_BYTES:
            check_size_and_depth(text, what)
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ModelFileError(f"the {what} is not UTF-8 text (byte {exc.start}): {exc.reason}") from None
    if not isinstance(text, str):
        raise ModelFileError(f"a {what} is JSON text, not {type(text).__name__}")
    check_size_and_depth(text, what)
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except ModelFileError:
        raise
    except RecursionError:
        raise ModelFileError(f"the {what} is nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError, huge integers
        raise ModelFileError(f"the {what} is not valid JSON: {exc}") from None


# -- checked field access ---------------------------------------------------------------

_REQUIRED = object()


def _kind_name(value):
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
            dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)


class Fields:
    """A JSON object being read: typed getters that raise ``ModelFileError`` naming the
    path (``model.vocab[3]``). Unknown keys are an error when ``done()`` is called."""

    def __init__(self, obj, path):
        if not isinstance(obj, dict):
            raise ModelFileError(f"{path}: expected an object, got {_kind_name(obj)}")
        self.obj, self.path, self.seen = obj, path, set()

    def error(self, key, problem):
        return ModelFileError(f"{self.path}.{key}: {problem}" if key else f"{self.path}: {problem}")

    def raw(self, key, default=_REQUIRED):
        self.seen.add(key)
        if key not in self.obj:
            if default is _REQUIRED:
                raise ModelFileError(f"{self.path}: the field {key!r} is missing")
            return default
        return self.obj[key]

    def get(self, key, kind, default=_REQUIRED, nullable=False):
        """``kind``: 'str', 'bool', 'int' (not bool), 'nat' (int >= 0), 'num', 'list', 'dict'."""
        value = self.raw(key, default)
        if value is default and key not in self.obj:
            return value
        if value is None and nullable:
            return None
        ok = {
            "str": isinstance(value, str),
            "bool": isinstance(value, bool),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "nat": isinstance(value, int) and not isinstance(value, bool) and value >= 0,
            "num": isinstance(value, (int, float)) and not isinstance(value, bool),
            "list": isinstance(value, list),
            "dict": isinstance(value, dict),
        }[kind]
        if not ok:
            want = {"str": "a string", "bool": "true or false", "int": "an integer", "nat": "a non-negative integer",
                    "num": "a number", "list": "an array", "dict": "an object"}[kind]
            raise self.error(key, f"expected {want}{' or null' if nullable else ''}, got {_kind_name(value)} {_short(value)}")
        if kind == "num" and not math.isfinite(float(value)):
            raise self.error(key, "the number must be finite")
        return value

    def str_list(self, key, default=_REQUIRED):
        value = self.get(key, "list", default)
        for i, s in enumerate(value or ()):
            if not isinstance(s, str):
                raise self.error(f"{key}[{i}]", f"expected a string, got {_kind_name(s)} {_short(s)}")
        return value

    def nat_list(self, key, default=_REQUIRED):
        value = self.get(key, "list", default)
        for i, s in enumerate(value or ()):
            if not isinstance(s, int) or isinstance(s, bool) or s < 0:
                raise self.error(f"{key}[{i}]", f"expected a non-negative integer, got {_kind_name(s)} {_short(s)}")
        return value

    def done(self):
        extra = sorted(set(self.obj) - self.seen)
        if extra:
            raise ModelFileError(f"{self.path}: unknown field {extra[0]!r}")


def _short(value):
    s = json.dumps(value, ensure_ascii=False)[:40] if not isinstance(value, (dict, list)) else ""
    return s


# -- the component registry -------------------------------------------------------------

STAGES = ("normalizer", "pre_tokenizer", "model", "decoder")
_BY_TAG = {stage: {} for stage in STAGES}
_BY_CLASS = {stage: {} for stage in STAGES}


def register(stage, tag, cls, dump, load):
    """Make a component class serializable: ``dump(obj) -> {field: value}`` (output order)
    and ``load(fields: Fields, ctx) -> obj`` (``ctx.component(stage, value, path)`` reads a
    nested component)."""
    _BY_TAG[stage][tag] = (cls, dump, load)
    _BY_CLASS[stage][cls] = (tag, dump)


def dump_component(stage, obj):
    """``{"type": tag, **fields}`` of a pipeline component; None for None."""
    if obj is None:
        return None
    entry = _BY_CLASS[stage].get(type(obj))
    if entry is None:
        raise TypeError(f"the {stage} {type(obj).__name__} cannot be saved; register it with subwordlab.serialize.register()")
    tag, dump = entry
    return {"type": tag, **dump(obj)}


class _Context:
    def component(self, stage, value, path, nullable=True):
        if value is None and nullable:
            return None
        f = Fields(value, path)
        tag = f.get("type", "str")
        entry = _BY_TAG[stage].get(tag)
        if entry is None:
            known = ", ".join(sorted(_BY_TAG[stage]))
            raise ModelFileError(f"{path}.type: unknown {stage.replace('_', '-')} type {tag!r}; known types: {known}")
        cls, _, load = entry
        try:
            obj = load(f, self)
        except ModelFileError:
            raise
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            raise ModelFileError(f"{path}: {exc}") from None
        f.done()
        return obj

    def components(self, stage, f, key):
        return [self.component(stage, v, f"{f.path}.{key}[{i}]", nullable=False) for i, v in enumerate(f.get(key, "list"))]


def _register_builtins():
    from . import decoders as D
    from . import normalizers as N
    from . import pre_tokenizers as P
    from .models.bpe import BPE
    from .models.hf_bpe import HFBPE

    # normalizers
    register("normalizer", "Unicode", N.Unicode, lambda o: {"form": o.form}, lambda f, c: N.Unicode(f.get("form", "str")))
    register("normalizer", "Lowercase", N.Lowercase, lambda o: {}, lambda f, c: N.Lowercase())
    register("normalizer", "StripAccents", N.StripAccents, lambda o: {"all_marks": o.all_marks},
             lambda f, c: N.StripAccents(f.get("all_marks", "bool")))
    register("normalizer", "Strip", N.Strip, lambda o: {"left": o.left, "right": o.right},
             lambda f, c: N.Strip(f.get("left", "bool"), f.get("right", "bool")))
    register("normalizer", "Collapse", N.Collapse, lambda o: {}, lambda f, c: N.Collapse())
    register("normalizer", "Replace", N.Replace, lambda o: {"pattern": o.pattern, "content": o.content},
             lambda f, c: N.Replace(f.get("pattern", "str"), f.get("content", "str")))
    register("normalizer", "RegexReplace", N.RegexReplace, lambda o: {"pattern": o.pattern, "content": o.content},
             lambda f, c: N.RegexReplace(f.get("pattern", "str"), f.get("content", "str")))
    register("normalizer", "Prepend", N.Prepend, lambda o: {"prepend": o.prepend}, lambda f, c: N.Prepend(f.get("prepend", "str")))
    register("normalizer", "BertNormalizer", N.BertNormalizer,
             lambda o: {"clean_text": o.clean_text, "handle_chinese_chars": o.handle_chinese_chars,
                        "strip_accents": o.strip_accents, "lowercase": o.lowercase},
             lambda f, c: N.BertNormalizer(f.get("clean_text", "bool"), f.get("handle_chinese_chars", "bool"),
                                           f.get("strip_accents", "bool", nullable=True), f.get("lowercase", "bool")))
    register("normalizer", "Sequence", N.Sequence, lambda o: {"normalizers": [dump_component("normalizer", n) for n in o.normalizers]},
             lambda f, c: N.Sequence(c.components("normalizer", f, "normalizers")))

    # pre-tokenizers
    register("pre_tokenizer", "WhitespaceSplit", P.WhitespaceSplit, lambda o: {}, lambda f, c: P.WhitespaceSplit())
    register("pre_tokenizer", "ByteLevel", P.ByteLevel,
             lambda o: {"pattern": o.pattern_name or o.pattern, "add_prefix_space": o.add_prefix_space},
             lambda f, c: P.ByteLevel(f.get("pattern", "str", nullable=True), f.get("add_prefix_space", "bool")))
    register("pre_tokenizer", "Metaspace", P.Metaspace,
             lambda o: {"add_dummy_prefix": o.add_dummy_prefix, "split_digits": o.split_digits, "replacement": o.replacement,
                        "prepend_scheme": o.prepend_scheme, "split": o.split,
                        **({"prefix_before_space": True} if o.prefix_before_space else {})},
             lambda f, c: P.Metaspace(f.get("add_dummy_prefix", "bool"), f.get("split_digits", "bool"),
                                      replacement=f.get("replacement", "str"), prepend_scheme=f.get("prepend_scheme", "str"),
                                      split=f.get("split", "bool"),
                                      prefix_before_space=f.get("prefix_before_space", "bool", False)))
    register("pre_tokenizer", "Split", P.Split,
             lambda o: {"pattern": o.pattern, "regex": o.is_regex, "behavior": o.behavior, "invert": o.invert},
             lambda f, c: P.Split(f.get("pattern", "str"), f.get("behavior", "str"), f.get("invert", "bool"), f.get("regex", "bool")))
    register("pre_tokenizer", "Whitespace", P.Whitespace, lambda o: {}, lambda f, c: P.Whitespace())
    register("pre_tokenizer", "Digits", P.Digits, lambda o: {"individual_digits": o.individual_digits},
             lambda f, c: P.Digits(f.get("individual_digits", "bool")))
    register("pre_tokenizer", "Punctuation", P.Punctuation, lambda o: {"behavior": o.behavior},
             lambda f, c: P.Punctuation(f.get("behavior", "str")))
    register("pre_tokenizer", "CharDelimiterSplit", P.CharDelimiterSplit, lambda o: {"delimiter": o.delimiter},
             lambda f, c: P.CharDelimiterSplit(f.get("delimiter", "str")))
    register("pre_tokenizer", "Sequence", P.Sequence,
             lambda o: {"pre_tokenizers": [dump_component("pre_tokenizer", p) for p in o.pre_tokenizers]},
             lambda f, c: P.Sequence(c.components("pre_tokenizer", f, "pre_tokenizers")))
    if hasattr(P, "BertPreTokenizer"):
        register("pre_tokenizer", "BertPreTokenizer", P.BertPreTokenizer,
                 lambda o: {"handle_chinese_chars": o.handle_chinese_chars},
                 lambda f, c: P.BertPreTokenizer(f.get("handle_chinese_chars", "bool")))
    if hasattr(P, "WhitespaceMetaspace"):
        register("pre_tokenizer", "WhitespaceMetaspace", P.WhitespaceMetaspace, lambda o: {}, lambda f, c: P.WhitespaceMetaspace())
    if hasattr(P, "MetaspaceWithSymbols"):
        register("pre_tokenizer", "MetaspaceWithSymbols", P.MetaspaceWithSymbols,
                 lambda o: {"add_dummy_prefix": o.add_dummy_prefix, "split_digits": o.split_digits,
                            "user_defined_symbols": list(o.user_defined_symbols),
                            **({"prefix_before_space": True} if o.prefix_before_space else {})},
                 lambda f, c: P.MetaspaceWithSymbols(f.get("add_dummy_prefix", "bool"), f.get("split_digits", "bool"),
                                                     f.str_list("user_defined_symbols"),
                                                     prefix_before_space=f.get("prefix_before_space", "bool", False)))

    # decoders
    register("decoder", "Concat", D.ConcatDecoder, lambda o: {}, lambda f, c: D.ConcatDecoder())
    register("decoder", "ByteLevel", D.ByteLevelDecoder, lambda o: {}, lambda f, c: D.ByteLevelDecoder())
    register("decoder", "Suffix", D.SuffixDecoder, lambda o: {"suffix": o.suffix}, lambda f, c: D.SuffixDecoder(f.get("suffix", "str")))
    register("decoder", "Metaspace", D.MetaspaceDecoder,
             lambda o: {"add_dummy_prefix": o.add_dummy_prefix, "replacement": o.replacement, "byte_tokens": o.byte_tokens},
             lambda f, c: D.MetaspaceDecoder(f.get("add_dummy_prefix", "bool"), replacement=f.get("replacement", "str"),
                                             byte_tokens=f.get("byte_tokens", "bool")))
    register("decoder", "WordPiece", D.WordPieceDecoder, lambda o: {"prefix": o.prefix, "cleanup": o.cleanup},
             lambda f, c: D.WordPieceDecoder(f.get("prefix", "str"), f.get("cleanup", "bool")))
    register("decoder", "Join", D.JoinDecoder, lambda o: {}, lambda f, c: D.JoinDecoder())
    register("decoder", "Fuse", D.FuseDecoder, lambda o: {}, lambda f, c: D.FuseDecoder())
    register("decoder", "ByteFallback", D.ByteFallbackDecoder, lambda o: {}, lambda f, c: D.ByteFallbackDecoder())
    register("decoder", "Strip", D.StripDecoder, lambda o: {"content": o.content, "start": o.start, "stop": o.stop},
             lambda f, c: D.StripDecoder(f.get("content", "str"), f.get("start", "nat"), f.get("stop", "nat")))
    register("decoder", "Replace", D.ReplaceDecoder, lambda o: {"pattern": o.pattern, "content": o.content, "regex": o.is_regex},
             lambda f, c: D.ReplaceDecoder(f.get("pattern", "str"), f.get("content", "str"), f.get("regex", "bool")))
    register("decoder", "Sequence", D.SequenceDecoder, lambda o: {"decoders": [dump_component("decoder", d) for d in o.decoders]},
             lambda f, c: D.SequenceDecoder(c.components("decoder", f, "decoders")))

    # models
    register("model", "BPE", BPE,
             lambda o: {"unk_token": o.unk_token, "end_of_word": o.end_of_word, "byte_level": o.byte_level,
                        "byte_fallback": o.byte_fallback, "vocab": o.vocab, "merges": o.merges},
             _load_bpe)
    register("model", "HFBPE", HFBPE,
             lambda o: {"unk_token": o.unk_token, "continuing_subword_prefix": o.prefix, "end_of_word_suffix": o.suffix,
                        "fuse_unk": o.fuse_unk, "byte_fallback": o.byte_fallback, "ignore_merges": o.ignore_merges,
                        "byte_level": o.byte_level, "vocab": o.vocab, "merges": o.merges},
             _load_hfbpe)
    try:
        from .models.wordpiece import WordPiece
    except ImportError:  # pragma: no cover - the WordPiece model is part of the core
        WordPiece = None
    if WordPiece is not None:
        register("model", "WordPiece", WordPiece,
                 lambda o: {"unk_token": o.unk_token, "continuing_subword_prefix": o.prefix,
                            "max_input_chars_per_word": o.max_input_chars_per_word, "vocab": o.vocab},
                 lambda f, c: WordPiece(_vocab(f), f.get("unk_token", "str", nullable=True),
                                        f.get("continuing_subword_prefix", "str"), f.get("max_input_chars_per_word", "int")))
    try:
        from .models.unigram import Unigram
    except ImportError:  # pragma: no cover
        Unigram = None
    if Unigram is not None:
        register("model", "Unigram", Unigram, _dump_unigram, lambda f, c: _load_unigram(Unigram, f))
        from .models.hf_unigram import HFUnigram

        register("model", "HFUnigram", HFUnigram, _dump_unigram, lambda f, c: _load_unigram(HFUnigram, f))


def _vocab(f):
    vocab = f.str_list("vocab")
    seen = {}
    for i, tok in enumerate(vocab):
        if tok in seen:
            raise f.error(f"vocab[{i}]", f"the token {tok!r} is also id {seen[tok]}; every token must be unique")
        seen[tok] = i
    return vocab


def _merges(f, size):
    merges = f.get("merges", "list")
    out = []
    for r, m in enumerate(merges):
        if (not isinstance(m, list) or len(m) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < size for x in m)):
            raise f.error(f"merges[{r}]", f"expected a pair of ids between 0 and {size - 1}, got {json.dumps(m)[:60]}")
        out.append((m[0], m[1]))
    return out


def _load_bpe(f, c):
    from .models.bpe import BPE

    vocab = _vocab(f)
    merges = _merges(f, len(vocab))
    _check_merge_results(f, vocab, merges)
    return BPE(vocab, merges, f.get("unk_token", "str", nullable=True), f.get("end_of_word", "str", nullable=True),
               f.get("byte_level", "bool"), f.get("byte_fallback", "bool"))


def _load_hfbpe(f, c):
    from .models.hf_bpe import HFBPE

    vocab = _vocab(f)
    merges = _merges(f, len(vocab))
    m = HFBPE(vocab, merges, f.get("unk_token", "str", nullable=True),
              continuing_subword_prefix=f.get("continuing_subword_prefix", "str", nullable=True),
              end_of_word_suffix=f.get("end_of_word_suffix", "str", nullable=True), fuse_unk=f.get("fuse_unk", "bool"),
              byte_fallback=f.get("byte_fallback", "bool"), ignore_merges=f.get("ignore_merges", "bool"))
    m.byte_level = f.get("byte_level", "bool") and m.byte_ids is not None
    return m


def _check_merge_results(f, vocab, merges):
    index = {t: i for i, t in enumerate(vocab)}
    for r, (a, b) in enumerate(merges):
        if vocab[a] + vocab[b] not in index:
            raise f.error(f"merges[{r}]", f"{vocab[a]!r} + {vocab[b]!r} gives {vocab[a] + vocab[b]!r}, which is not in the vocabulary")


def _dump_unigram(o):
    return {"unk_id": o.unk_id, "byte_fallback": o.byte_fallback, "control_ids": list(o.control_ids),
            "user_defined_ids": list(o.user_defined_ids), "vocab": [[p, s] for p, s in zip(o.vocab, o.scores)]}


def _load_unigram(cls, f):
    pieces = f.get("vocab", "list")
    vocab, scores, seen = [], [], {}
    for i, entry in enumerate(pieces):
        if (not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str)
                or not isinstance(entry[1], (int, float)) or isinstance(entry[1], bool)):
            raise f.error(f"vocab[{i}]", f"expected [piece, score], got {json.dumps(entry, ensure_ascii=False)[:60]}")
        if entry[0] in seen:
            raise f.error(f"vocab[{i}]", f"the piece {entry[0]!r} is also id {seen[entry[0]]}; every piece must be unique")
        if not math.isfinite(float(entry[1])):
            raise f.error(f"vocab[{i}]", "the score must be a finite number")
        seen[entry[0]] = i
        vocab.append(entry[0])
        scores.append(float(entry[1]))
    size = len(vocab)
    unk_id = f.get("unk_id", "nat", nullable=True)
    if unk_id is not None and unk_id >= size:
        raise f.error("unk_id", f"{unk_id} is not an id of the vocabulary (0..{size - 1})")
    control, user = f.nat_list("control_ids"), f.nat_list("user_defined_ids")
    for key, ids in (("control_ids", control), ("user_defined_ids", user)):
        bad = [i for i in ids if i >= size]
        if bad:
            raise f.error(key, f"{bad[0]} is not an id of the vocabulary (0..{size - 1})")
    return cls(vocab, scores, unk_id, f.get("byte_fallback", "bool"), control, user)


# -- the document -----------------------------------------------------------------------

def to_dict(tok):
    """The document as a dict, keys in output order."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "core_version": __version__,
        "spec": _sorted(tok.spec),
        "special_tokens": {"type": "SpecialTokens", "policy": "tiktoken",
                           "tokens": [{"content": t, "id": i} for t, i in sorted(tok.special_tokens.items(), key=lambda kv: kv[1])]},
        "added_tokens": _dump_added(getattr(tok, "added_vocab", None)),
        "normalizer": dump_component("normalizer", tok.normalizer),
        "pre_tokenizer": dump_component("pre_tokenizer", tok.pre_tokenizer),
        "decoder": dump_component("decoder", tok.decoder),
        "model": dump_component("model", tok.model),
    }
    return doc


def _sorted(value):
    """Spec values with dict keys sorted at every level, tuples as lists."""
    if isinstance(value, dict):
        return {str(k): _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [_sorted(v) for v in value]
    return value


def _dump_added(added):
    if added is None:
        return None
    return {"type": "AddedTokens", "tokens": [
        {"content": t.content, "id": t.id, "special": t.special, "normalized": t.normalized,
         "lstrip": t.lstrip, "rstrip": t.rstrip, "single_word": t.single_word} for t in added.tokens]}


def to_json(tok):
    """The canonical JSON text of a tokenizer (see the module docstring)."""
    return _emit(to_dict(tok), 0) + "\n"


def _scalar(v):
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError(f"cannot save the number {v!r}: JSON has no infinity or NaN")
    return json.dumps(v, ensure_ascii=False)


def _is_scalar(v):
    return v is None or isinstance(v, (str, int, float, bool))


def _emit(value, level):
    """Canonical, human-friendly JSON: objects one key per line; a short array of scalars
    inline; a long array one element per line, pairs like ``[12, 34]`` inline."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {_emit(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if all(_is_scalar(v) for v in value) and len(value) <= 8 and sum(len(_scalar(v)) for v in value) <= 60:
            return "[" + ", ".join(_scalar(v) for v in value) + "]"
        items = []
        for v in value:
            if isinstance(v, (list, tuple)) and all(_is_scalar(x) for x in v):
                items.append(inner + "[" + ", ".join(_scalar(x) for x in v) + "]")
            else:
                items.append(inner + _emit(v, level + 1))
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return _scalar(value)


def from_dict(doc):
    """A Tokenizer from a parsed document (see ``from_json``)."""
    from .tokenizer import Tokenizer

    top = Fields(doc, "document")
    fmt = top.raw("format", None)
    if fmt != FORMAT:
        if isinstance(doc, dict) and "model" in doc and "added_tokens" in doc and "format" not in doc:
            raise ModelFileError("this looks like a Hugging Face tokenizer.json; load it with Tokenizer.from_hf_json()")
        raise ModelFileError(f"document.format: expected {FORMAT!r}, got {_short(fmt) or fmt!r}; this is not a Subword Lab model file")
    version = top.get("version", "int")
    if version != VERSION:
        newer = " (written by a newer subwordlab: upgrade to load it)" if version > VERSION else ""
        raise ModelFileError(f"document.version: version {version} is not supported{newer}; this subwordlab reads version {VERSION}")
    top.get("core_version", "str")
    spec = top.get("spec", "dict")
    ctx = _Context()
    normalizer = ctx.component("normalizer", top.raw("normalizer"), "normalizer")
    pre_tokenizer = ctx.component("pre_tokenizer", top.raw("pre_tokenizer"), "pre_tokenizer")
    decoder = ctx.component("decoder", top.raw("decoder"), "decoder")
    model = ctx.component("model", top.raw("model"), "model", nullable=False)
    specials = _load_specials(top.raw("special_tokens"), model)
    added = _load_added(top.raw("added_tokens", None), model)
    top.done()
    try:
        tok = Tokenizer(model, normalizer, pre_tokenizer, decoder, specials, spec, **({"added_vocab": added} if added else {}))
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"document: {exc}") from None
    return tok


def _load_specials(value, model):
    f = Fields(value, "special_tokens")
    if f.get("type", "str") != "SpecialTokens":
        raise f.error("type", f"expected 'SpecialTokens', got {f.obj['type']!r}")
    if f.get("policy", "str") != "tiktoken":
        raise f.error("policy", f"unknown policy {f.obj['policy']!r}; known: 'tiktoken'")
    out, ids = {}, set()
    for i, entry in enumerate(f.get("tokens", "list")):
        e = Fields(entry, f"special_tokens.tokens[{i}]")
        content, tid = e.get("content", "str"), e.get("id", "nat")
        e.done()
        if not content:
            raise e.error("content", "a special token cannot be empty")
        if tid >= len(model.vocab) or model.vocab[tid] != content:
            raise e.error("id", f"{content!r} is not in the vocabulary at id {tid}")
        if content in out or tid in ids:
            raise e.error("", f"{content!r} (id {tid}) is listed twice")
        out[content] = tid
        ids.add(tid)
    f.done()
    return out


def _load_added(value, model):
    if value is None:
        return None
    from .added_vocab import AddedToken, AddedVocabulary

    f = Fields(value, "added_tokens")
    if f.get("type", "str") != "AddedTokens":
        raise f.error("type", f"expected 'AddedTokens', got {f.obj['type']!r}")
    tokens = []
    for i, entry in enumerate(f.get("tokens", "list")):
        e = Fields(entry, f"added_tokens.tokens[{i}]")
        t = AddedToken(e.get("content", "str"), e.get("id", "nat"), e.get("special", "bool"), e.get("normalized", "bool"),
                       e.get("lstrip", "bool"), e.get("rstrip", "bool"), e.get("single_word", "bool"))
        e.done()
        if not t.content:
            raise e.error("content", "an added token cannot be empty")
        if t.id >= len(model.vocab) or model.vocab[t.id] != t.content:
            raise e.error("id", f"{t.content!r} is not in the vocabulary at id {t.id}")
        tokens.append(t)
    f.done()
    return AddedVocabulary(tokens)


def from_json(text):
    """A Tokenizer from our JSON document (str or bytes). Raises ``ModelFileError``."""
    return from_dict(parse_json(text))


def save(tok, path):
    """Write ``to_json(tok)`` to ``path`` atomically (a temporary file, then a rename)."""
    import os

    data = to_json(tok).encode("utf-8")
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load(path):
    """A Tokenizer from a file written by ``save`` (size checked before reading it all)."""
    import os

    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise ModelFileError(f"the model file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,} bytes ({MAX_FILE_BYTES // 2**20} MB)")
    with open(path, "rb") as fh:
        return from_json(fh.read())


# -- the human-readable vocabulary view (display only) ----------------------------------

def vocab_table(tok):
    """One row per id: ``{"id", "token", "bytes", "merge", "rank", "special"}``.

    ``bytes``: what the token stands for (``tok.token_bytes``); ``merge``: for BPE, the
    two tokens whose merge made it (the first merge that did) and its ``rank``, else None.
    Example (seed 000 after 8 merges): the row of 'est</w>' has merge ('est', '</w>'), rank 2.
    """
    model, rows = tok.model, []
    made = {}
    ranks = getattr(model, "ranks", None)
    if ranks is not None:
        for (a, b), (rank, new) in sorted(ranks.items(), key=lambda kv: kv[1][0]):
            made.setdefault(new, (model.vocab[a], model.vocab[b], rank))
    special = set(tok.special_tokens.values())
    for i, token in enumerate(model.vocab):
        try:
            data = tok.token_bytes(i)
        except ValueError:
            data = token.encode("utf-8")
        m = made.get(i)
        rows.append({"id": i, "token": token, "bytes": data, "merge": (m[0], m[1]) if m else None,
                     "rank": m[2] if m else None, "special": i in special})
    return rows


def format_vocab_table(rows, limit=None):
    """The rows of ``vocab_table`` as aligned text:

        id  token      bytes           merge (rank)
         7  'est</w>'  b'est '         'est' + '</w>' (#2)
    """
    rows = rows if limit is None else rows[:limit]
    cells = [("id", "token", "bytes", "merge (rank)")]
    for r in rows:
        merge = f"{r['merge'][0]!r} + {r['merge'][1]!r} (#{r['rank']})" if r["merge"] else ("special" if r["special"] else "")
        cells.append((str(r["id"]), repr(r["token"]), repr(r["bytes"]), merge))
    widths = [max(len(c[k]) for c in cells) for k in range(4)]
    return "\n".join(f"{c[0]:>{widths[0]}}  {c[1]:<{widths[1]}}  {c[2]:<{widths[2]}}  {c[3]}".rstrip() for c in cells)


_register_builtins()
