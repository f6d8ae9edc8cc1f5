"""Export to Hugging Face ``tokenizer.json``: ``export_hf(tok)`` and ``to_hf_json(tok)``.

The document is one that ``tokenizers``' ``Tokenizer.from_str`` loads and that encodes
text to the same ids and tokens as ``tok``. Each component class has a writer here,
registered with ``@hf_writer(cls)`` in the one component registry (``registry.py``):

- a normalizer's writer returns a list of HF normalizer steps (joined into one Sequence);
- a pre-tokenizer's, decoder's and model's writer returns one HF object (None: none).

A writer may add steps the normalizer must end with (``ex.extra_normalizers``: HF has
no pre-tokenizer for some of ours, so the text is prepared instead), added tokens
(``ex.added``) and warnings (``ex.warnings``). What has no exact construction raises
``HFExportError`` naming the problem and the fix (see ``hf_json.py`` for the list).

A tokenizer trained here names its preset and options (``tok.spec``); before any writer
runs, the export asks the option schema (``Option.hf`` in options.py) what each option
means for the file and refuses a value the schema says it cannot express, naming the
option and what to change.

Why one module: it is the writers of every component class, one short
function each beside its registration, as hf_import.py holds their readers; split by stage
a reader would lose the one place that says what tokenizer.json can and cannot carry.

>>> import subwordlab
>>> tok = subwordlab.train("low lower newest widest " * 20, preset="byte_bpe", vocab_size=270)
>>> export_hf(tok).text.splitlines()[:3]
['{', '  "version": "1.0",', '  "truncation": null,']
"""

import re
import warnings as _warnings
from dataclasses import dataclass, field

from ..base.jsonio import emit
from ..base.registry import find_hf_writer, hf_writer
from ..models.bpe import BPE
from ..models.hf_bpe import HFBPE
from ..models.hf_unigram import HFUnigram
from ..models.unigram import Unigram
from ..models.wordpiece import WordPiece
from ..options import PRESETS
from ..pipeline import decoders as D
from ..pipeline import normalizers as N
from ..pipeline import pre_tokenizers as P
from ..text.hf_onig import WHITE_SPACE_ONIG, translate_regex
from ..text.patterns import GPT2
from ..tokenizer import Tokenizer

HF_VERSION = "1.0"
NON_WHITE_SPACE = "[^" + WHITE_SPACE_ONIG + "]"


class HFExportError(ValueError):
    """The tokenizer has no exact tokenizer.json equivalent; the message says why and how to fix it."""


class HFExportWarning(UserWarning):
    """The exported tokenizer.json differs from ours only where ours raises an error."""


@dataclass
class HFExport:
    """The result of ``export_hf``: the JSON text and the differences worth knowing."""

    text: str
    warnings: list[str] = field(default_factory=list)


def to_onig(pattern):
    """A Python regex as Oniguruma reads it the same way (raises ``HFExportError``)."""
    try:
        return translate_regex(pattern, True)
    except (ValueError, IndexError) as exc:
        raise HFExportError(f"the regex {pattern!r} cannot be written for HF tokenizers (Oniguruma): {exc}") from None


class _Export:
    """One export in progress: dispatches each component to its registered writer."""

    def __init__(self, tok):
        self.tok = tok
        self.warnings = []
        self.extra_normalizers = []  # steps a pre-tokenizer needs at the end of the normalizer
        self.added = []  # extra added tokens (user-defined symbols)

    def _writer(self, stage, obj):
        write = find_hf_writer(obj)
        if write is None:
            raise HFExportError(f"the {stage} {type(obj).__name__} has no tokenizer.json equivalent")
        return write

    def normalizer_steps(self, n):
        return [] if n is None else self._writer("normalizer", n)(self, n)

    def pre_tokenizer(self, p, top=True):
        """``top``: not inside a Sequence (only there can a writer add normalizer steps)."""
        return None if p is None else self._writer("pre-tokenizer", p)(self, p, top)

    def decoder(self, d):
        return None if d is None else self._writer("decoder", d)(self, d)

    def model(self, m):
        return self._writer("model", m)(self, m)

    def added_tokens(self):
        """The added_tokens list: special tokens (or an imported file's added tokens) and ``self.added``."""
        tok, out = self.tok, []
        added = getattr(tok, "added_vocab", None)
        if added is not None:
            for t in added.tokens:
                out.append({"id": t.id, "content": t.content, "single_word": t.single_word, "lstrip": t.lstrip,
                            "rstrip": t.rstrip, "normalized": t.normalized, "special": t.special})
        else:
            for content, i in sorted(tok.special_tokens.items(), key=lambda kv: kv[1]):
                out.append({"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
                            "normalized": False, "special": True})
        known = {e["id"] for e in out}
        out += [e for e in self.added if e["id"] not in known]
        if tok.special_tokens:
            self.warnings.append("HF tokenizers always encode a special token found in the text as that token; ours does "
                                 "only with allowed_special='all' (by default it raises an error)")
        return sorted(out, key=lambda e: e["id"])


# -- normalizers: each writes a list of HF normalizer steps -----------------------------

@hf_writer(N.Sequence)
def _normalizer_sequence(ex, n):
    return [s for x in n.normalizers for s in ex.normalizer_steps(x)]


@hf_writer(N.Unicode)
def _unicode(ex, n):
    return [{"type": n.form}]


@hf_writer(N.Precompiled)
def _precompiled(ex, n):
    # what HF's converter writes for a SentencePiece model; tokenizers applies it per grapheme
    # (README: where it parts from SentencePiece)
    return [{"type": "Precompiled", "precompiled_charsmap": n.charsmap_base64()}]


@hf_writer(N.Lowercase)
def _lowercase(ex, n):
    return [{"type": "Lowercase"}]


@hf_writer(N.StripAccents)
def _strip_accents(ex, n):
    # HF's StripAccents drops every mark (Mn, Mc, Me); ours by default only Mn
    return [{"type": "StripAccents"}] if n.all_marks else [_replace_regex(r"\p{Mn}", "")]


@hf_writer(N.Strip)
def _strip(ex, n):
    return [{"type": "Strip", "strip_left": n.left, "strip_right": n.right}]


@hf_writer(N.Collapse)
def _collapse(ex, n):
    if n.spaces_only:  # (one space at most at either end once runs are collapsed)
        return [_replace_regex(" {2,}", " "), _replace_regex(r"\A | \z", "")]
    return [_replace_regex(" {2,}", " "), {"type": "Strip", "strip_left": True, "strip_right": True}]


@hf_writer(N.Replace)
def _replace(ex, n):
    return [{"type": "Replace", "pattern": {"String": n.pattern}, "content": n.content}]


@hf_writer(N.RegexReplace)
def _regex_replace(ex, n):
    return [_replace_regex(to_onig(n.pattern), n.content)]


@hf_writer(N.Prepend)
def _prepend(ex, n):
    return [{"type": "Prepend", "prepend": n.prepend}]


@hf_writer(N.BertNormalizer)
def _bert_normalizer(ex, n):
    return [{"type": "BertNormalizer", "clean_text": n.clean_text, "handle_chinese_chars": n.handle_chinese_chars,
             "strip_accents": n.strip_accents, "lowercase": n.lowercase}]


# -- pre-tokenizers ----------------------------------------------------------------------

@hf_writer(P.WhitespaceSplit)
def _whitespace_split(ex, p, top):
    return {"type": "WhitespaceSplit"}


@hf_writer(P.ByteLevel)
def _byte_level_pre(ex, p, top):
    if p.pattern is None:
        return _byte_level(p.add_prefix_space, False)
    if p.pattern_name == "gpt2" or p.pattern == GPT2:
        return _byte_level(p.add_prefix_space, True)
    if p.add_prefix_space:
        if not top:
            raise HFExportError("ByteLevel with add_prefix_space and a custom pattern inside a Sequence has no tokenizer.json equivalent")
        ex.extra_normalizers.append(_replace_regex(r"\A(?=[^ ])", " "))
    # Isolated: each match a piece, and text between matches a piece of its own (as ours)
    split = _split(to_onig(p.pattern), "Isolated")
    return {"type": "Sequence", "pretokenizers": [split, _byte_level(False, False)]}


@hf_writer(P.Metaspace, P.MetaspaceWithSymbols)
def _metaspace(ex, p, top):
    symbols = list(getattr(p, "user_defined_symbols", ()))
    if not symbols and getattr(p, "prefix_before_space", False) and p.add_dummy_prefix:
        if not top:
            raise HFExportError("a dummy prefix before leading spaces inside a Sequence has no tokenizer.json equivalent")
        # SentencePiece's rule (▁ even before a leading space): HF's Prepend, then no prepending
        ex.extra_normalizers.append({"type": "Prepend", "prepend": p.replacement})
        meta = {"type": "Metaspace", "replacement": p.replacement, "prepend_scheme": "never", "split": p.split}
    elif not symbols:
        meta = {"type": "Metaspace", "replacement": p.replacement, "prepend_scheme": p.prepend_scheme, "split": p.split}
    else:
        if not top:
            raise HFExportError("user-defined symbols inside a Sequence have no tokenizer.json equivalent")
        # the dummy ▁ is inserted by the normalizer, so the text after a symbol gets none
        # (the symbols are added tokens, cut out of the normalized text)
        if p.add_dummy_prefix:
            alts = "|".join(re.escape(s) for s in sorted(symbols, key=lambda s: (-len(s), s)))
            start = "(?!\\Z)" if getattr(p, "prefix_before_space", False) else f"(?=[^ {p.replacement}])"
            ex.extra_normalizers.append(_replace_regex(to_onig(f"^{start}(?!(?:{alts})\\Z)"), p.replacement))
            ex.warnings.append(
                "a text that is exactly one user-defined symbol (nothing else) encodes without the dummy "
                f"{p.replacement!r} piece in tokenizer.json; any longer text encodes the same")
        meta = {"type": "Metaspace", "replacement": p.replacement, "prepend_scheme": "never", "split": p.split}
        for s in symbols:
            ex.added.append({"id": ex.tok.model.token_to_id[s], "content": s, "single_word": False, "lstrip": False,
                             "rstrip": False, "normalized": True, "special": False})
    if p.split_digits:
        # (spm_digits: only 0-9 and ０-９ apart, as spm does; Digits cuts every Unicode number)
        digits = (_split("[0-9\uff10-\uff19]", "Isolated") if getattr(p, "spm_digits", False)
                  else {"type": "Digits", "individual_digits": True})
        return {"type": "Sequence", "pretokenizers": [meta, digits]}
    return meta


@hf_writer(P.WhitespaceMetaspace)
def _whitespace_metaspace(ex, p, top):
    if not top:
        raise HFExportError("WhitespaceMetaspace inside a Sequence has no tokenizer.json equivalent")
    # a ▁ inserted before every word by the normalizer, then white-space splitting
    ex.extra_normalizers.append(_replace_regex(f"(?<!{NON_WHITE_SPACE})(?={NON_WHITE_SPACE})", "\u2581"))
    return {"type": "WhitespaceSplit"}


@hf_writer(P.Split)
def _split_pre(ex, p, top):
    pattern = {"Regex": to_onig(p.pattern)} if p.is_regex else {"String": p.pattern}
    return {"type": "Split", "pattern": pattern, "behavior": p.behavior, "invert": p.invert}


@hf_writer(P.Whitespace)
def _whitespace(ex, p, top):
    return {"type": "Whitespace"}


@hf_writer(P.Digits)
def _digits(ex, p, top):
    return {"type": "Digits", "individual_digits": p.individual_digits}


@hf_writer(P.Punctuation)
def _punctuation(ex, p, top):
    return {"type": "Punctuation", "behavior": p.behavior}


@hf_writer(P.CharDelimiterSplit)
def _char_delimiter_split(ex, p, top):
    return {"type": "CharDelimiterSplit", "delimiter": p.delimiter}


@hf_writer(P.Sequence)
def _pre_tokenizer_sequence(ex, p, top):
    return {"type": "Sequence", "pretokenizers": [ex.pre_tokenizer(x, top=False) for x in p.pre_tokenizers]}


@hf_writer(P.BertPreTokenizer)
def _bert_pre_tokenizer(ex, p, top):
    bert = {"type": "BertPreTokenizer"}
    if not p.handle_chinese_chars:
        return bert
    ranges = _bert_cjk_ranges()
    if not ranges:
        raise HFExportError("cannot read the CJK ranges of BertPreTokenizer(handle_chinese_chars=True)")
    cjk = "".join(f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in ranges)
    return {"type": "Sequence", "pretokenizers": [bert, _split(f"[{cjk}]", "Isolated")]}


# -- decoders ----------------------------------------------------------------------------

@hf_writer(D.ConcatDecoder, D.FuseDecoder)
def _fuse(ex, d):
    return {"type": "Fuse"}


@hf_writer(D.ByteLevelDecoder)
def _byte_level_decoder(ex, d):
    return _byte_level(True, True)


@hf_writer(D.SuffixDecoder)
def _suffix_decoder(ex, d):
    return {"type": "BPEDecoder", "suffix": d.suffix}


@hf_writer(D.MetaspaceDecoder)
def _metaspace_decoder(ex, d):
    if not d.byte_tokens:
        return {"type": "Metaspace", "replacement": d.replacement,
                "prepend_scheme": "always" if d.add_dummy_prefix else "never", "split": True}
    steps = [{"type": "Replace", "pattern": {"String": d.replacement}, "content": " "},
             {"type": "ByteFallback"}, {"type": "Fuse"}]
    if d.add_dummy_prefix:
        steps.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    return {"type": "Sequence", "decoders": steps}


@hf_writer(D.WordPieceDecoder)
def _wordpiece_decoder(ex, d):
    return {"type": "WordPiece", "prefix": d.prefix, "cleanup": d.cleanup}


@hf_writer(D.JoinDecoder)
def _join_decoder(ex, d):
    return None


@hf_writer(D.ByteFallbackDecoder)
def _byte_fallback_decoder(ex, d):
    return {"type": "ByteFallback"}


@hf_writer(D.StripDecoder)
def _strip_decoder(ex, d):
    return {"type": "Strip", "content": d.content, "start": d.start, "stop": d.stop}


@hf_writer(D.ReplaceDecoder)
def _replace_decoder(ex, d):
    pattern = {"Regex": to_onig(d.pattern)} if d.is_regex else {"String": d.pattern}
    return {"type": "Replace", "pattern": pattern, "content": d.content}


@hf_writer(D.SequenceDecoder)
def _decoder_sequence(ex, d):
    return {"type": "Sequence", "decoders": [ex.decoder(x) or {"type": "Fuse"} for x in d.decoders]}


# -- models ------------------------------------------------------------------------------

@hf_writer(HFBPE)
def _hf_bpe(ex, m):
    vocab = {tok: i for i, tok in enumerate(m.vocab)}
    merges = [[m.vocab[a], m.vocab[b]] for a, b in m.merges]
    _check_merges(merges, vocab, m.prefix)
    return {"type": "BPE", "dropout": None, "unk_token": m.unk_token, "continuing_subword_prefix": m.prefix,
            "end_of_word_suffix": m.suffix, "fuse_unk": m.fuse_unk, "byte_fallback": m.byte_fallback,
            "ignore_merges": m.ignore_merges, "vocab": vocab, "merges": merges}


@hf_writer(WordPiece)
def _wordpiece(ex, m):
    vocab = {tok: i for i, tok in enumerate(m.vocab)}
    unk = m.unk_token
    if unk is None:
        unk = "[UNK]" if "[UNK]" not in vocab else "<unk>"
        ex.warnings.append("the WordPiece model has no unk token: a word it cannot spell is an error in both "
                           "(ours raises ValueError, HF fails with a missing-unk error)")
    return {"type": "WordPiece", "unk_token": unk, "continuing_subword_prefix": m.prefix,
            "max_input_chars_per_word": m.max_input_chars_per_word, "vocab": vocab}


@hf_writer(Unigram, HFUnigram)
def _unigram(ex, m):
    if type(m) is not HFUnigram:
        reserved = [m.unk_id] if m.unk_id is not None else []
        reserved += list(m.byte_ids or [])
        specials = set(ex.tok.special_tokens.values())
        reserved += [i for i in m.control_ids if i not in specials]
        if reserved:
            names = ", ".join(repr(m.vocab[i]) for i in reserved[:3]) + (", ..." if len(reserved) > 3 else "")
            ex.warnings.append(
                f"our Unigram never matches its reserved pieces ({names}) in text; HF's does, so a text that contains "
                "such a piece's string literally (e.g. '<unk>') may encode differently")
    size = len(m.vocab)
    if type(m) is HFUnigram and m.control_ids:
        size = min(m.control_ids)  # added tokens beyond the model's own pieces are not in its vocab
    return {"type": "Unigram", "unk_id": m.unk_id,
            "vocab": [[p, s] for p, s in zip(m.vocab[:size], m.scores[:size])], "byte_fallback": bool(m.byte_fallback)}


@hf_writer(BPE)
def _bpe(ex, m):
    """Our BPE: its end-of-word marker, its merge order and its unknown characters."""
    tok, vocab = ex.tok, {t: i for i, t in enumerate(m.vocab)}
    # step 1: the end-of-word marker
    if m.end_of_word:
        refusal = PRESETS["bpe"].option("end_of_word").hf_refusal(m.end_of_word)  # the schema's rule
        if refusal:
            raise HFExportError(refusal)
        if type(tok.pre_tokenizer) is not P.WhitespaceSplit:
            raise HFExportError("an end-of-word marker is only exported with the WhitespaceSplit pre-tokenizer")
        # a normalizer inserts the marker after every word: exactly our extra symbol
        ex.extra_normalizers.append(_replace_regex(f"(?<={NON_WHITE_SPACE})(?!{NON_WHITE_SPACE})", m.end_of_word))
        ex.warnings.append(f"the end-of-word marker {m.end_of_word!r} is inserted into the text by the normalizer; "
                           "the tokenizer.json's offsets of word-final tokens include it")
    # step 2: merges: the first occurrence of a pair counts (ours), no merge may jump the queue (HF)
    merges, seen = [], set()
    for a, b in m.merges:
        if (a, b) not in seen:
            seen.add((a, b))
            merges.append((a, b))
    _check_no_queue_jumps(m, merges)
    strings = [[m.vocab[a], m.vocab[b]] for a, b in merges]
    _check_merges(strings, vocab, None)
    # step 3: unknown characters
    if not m.byte_level and m.unk_token is None and not m.byte_fallback:
        ex.warnings.append("no unk_token: a character outside the vocabulary raises an error in our tokenizer but is "
                           "silently dropped by HF tokenizers (retrain with unk_token='<unk>' to make both keep a token)")
    return {"type": "BPE", "dropout": None, "unk_token": m.unk_token, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": m.fuse_unk, "byte_fallback": bool(m.byte_fallback),
            "ignore_merges": False, "vocab": vocab, "merges": strings}


# -- helpers -------------------------------------------------------------------------

def _bert_cjk_ranges():
    """The CJK ranges the WordPiece preset's BertPreTokenizer isolates."""
    ranges = []
    for m in re.finditer(r"\\[uU]([0-9A-Fa-f]+)-\\[uU]([0-9A-Fa-f]+)", getattr(P, "_CJK", "")):
        ranges.append((int(m.group(1), 16), int(m.group(2), 16)))
    return ranges


def _replace_regex(pattern, content):
    return {"type": "Replace", "pattern": {"Regex": pattern}, "content": content}


def _split(pattern, behavior):
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": False}


def _byte_level(add_prefix_space, use_regex):
    return {"type": "ByteLevel", "add_prefix_space": bool(add_prefix_space), "trim_offsets": True, "use_regex": bool(use_regex)}


def _check_merges(merges, vocab, prefix):
    """Every merge's parts and result must be in the vocabulary (HF's Rust side panics otherwise)."""
    plen = len(prefix.encode("utf-8")) if prefix else 0
    for r, (a, b) in enumerate(merges):
        for part in (a, b):
            if part not in vocab:
                raise HFExportError(f"merge #{r} ({a!r}, {b!r}): {part!r} is not in the vocabulary")
        right = b.encode("utf-8")[plen:].decode("utf-8", errors="replace") if plen else b
        if a + right not in vocab:
            raise HFExportError(f"merge #{r} ({a!r}, {b!r}): the result {a + right!r} is not in the vocabulary")


def _check_no_queue_jumps(m, merges):
    """HF merges one occurrence at a time from a queue ordered by rank, so a pair formed
    by a merge is applied at once if its rank is lower than the current one; ours merges
    all occurrences of a rank first. The two agree unless a merge creates a token that an
    earlier merge already uses."""
    first_use = {}
    for r, (a, b) in enumerate(merges):
        first_use.setdefault(a, r)
        first_use.setdefault(b, r)
    for r, (a, b) in enumerate(merges):
        new = m.ranks[(a, b)][1]
        if first_use.get(new, r + 1) < r:
            q = first_use[new]
            raise HFExportError(
                f"merge #{r} ({m.vocab[a]!r} + {m.vocab[b]!r}) makes {m.vocab[new]!r}, which merge #{q} already uses; HF "
                f"tokenizers would then apply merge #{q} before the remaining #{r} merges and split some words differently. "
                "This happens when two merges make the same token (for a tokenizer trained here: retrain with another "
                "tie_break or vocabulary size), and can happen with merges derived from a tiktoken rank file; such a "
                "tokenizer has no exact tokenizer.json")


def check_trained_options(tok):
    """Ask the option schema about each option ``tok`` was trained with; ``HFExportError``
    with the schema's message for the first value tokenizer.json cannot express. Imported
    and hand-built tokenizers name no preset: their components' writers decide alone.

    Example: a BPE trained with end_of_word='</w>' -> "end_of_word='</w>' cannot be written
    to tokenizer.json: ... retrain with end_of_word=None ...".
    """
    preset = PRESETS.get(tok.spec.get("preset"))
    if preset is None:
        return
    for option in preset.options:
        if option.name == "end_of_word" and tok.spec.get("rules") == "hf":
            continue  # (BpeTrainer's rules: the marker is glued to the last character, as tokenizer.json's suffix is)
        if option.name in tok.spec:
            refusal = option.hf_refusal(tok.spec[option.name])
            if refusal:
                raise HFExportError(refusal)


def export_hf(tok: Tokenizer) -> HFExport:
    """``HFExport(text, warnings)``: the tokenizer.json text and the differences to know.

    Raises ``HFExportError`` when there is no exact equivalent (see the module docstring).
    """
    check_trained_options(tok)
    ex = _Export(tok)
    model = ex.model(tok.model)
    pre = ex.pre_tokenizer(tok.pre_tokenizer)
    steps = ex.normalizer_steps(tok.normalizer) + ex.extra_normalizers
    normalizer = None if not steps else steps[0] if len(steps) == 1 else {"type": "Sequence", "normalizers": steps}
    decoder = ex.decoder(tok.decoder)
    doc = {
        "version": HF_VERSION,
        "truncation": None,
        "padding": None,
        "added_tokens": ex.added_tokens(),
        "normalizer": normalizer,
        "pre_tokenizer": pre,
        "post_processor": None,
        "decoder": decoder,
        "model": model,
    }
    return HFExport(emit(doc, 0) + "\n", ex.warnings)


def to_hf_json(tok: Tokenizer) -> str:
    """The tokenizer.json text; the differences of ``export_hf`` are issued as ``HFExportWarning``s."""
    result = export_hf(tok)
    for w in result.warnings:
        _warnings.warn(w, HFExportWarning, stacklevel=3)
    return result.text
