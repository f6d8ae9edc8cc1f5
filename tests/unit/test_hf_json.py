"""Hugging Face tokenizer.json: export for every preset (loaded by the tokenizers library,
same ids and tokens on every UDHR language, emoji, digits, white-space runs), import of
files the tokenizers library wrote itself, round trips, the combinations that cannot be
exported, and the regex translation to and from Oniguruma."""

import itertools
import json
import random
import warnings

import pytest

import subwordlab
from corpora import UDHR, read
from subwordlab.formats.hf_json import HFExportError, export_hf, from_hf_json, to_hf_json, to_onig, translate_regex
from subwordlab.formats.our_json import ModelFileError
from subwordlab.models.unigram import Unigram

TRAIN = read("tinyshakespeare.txt")[:150_000]
EXTRA = [
    "emoji 👨‍👩‍👧 🎉🎉 ok 🇺🇳", "digits 1234567 ٣٤٥ ²³ 0.5 10,000", "  spaces   runs \t\t tabs\n\n\nnewlines  \n", "", " ",
    "▁lit▁eral ▁ marks", "ΣΑΣ İstanbul ǅ ﬁ Ｈｅｌｌｏ", "a\x1fb\x1cc", "Don't STOP—it's 'quoted' (x) [y] {z}!?",
    "中文字符 日本語 한국어", "Zwei\u00a0Wörter\u3000x\u2028y", "<|endoftext|> <s> </s> <unk> [UNK] [CLS] <sep>",
]
TEXTS = [p.read_text(encoding="utf-8") for p in UDHR] + EXTRA

CONFIGS = {
    "bpe": ("bpe", {"vocab_size": 600, "end_of_word": None, "unk_token": "<unk>"}),
    "bpe_marker_char": ("bpe", {"vocab_size": 600, "end_of_word": "_", "unk_token": "<unk>", "lowercase": True,
                                "special_tokens": ["<s>"]}),
    "byte_bpe": ("byte_bpe", {"vocab_size": 700, "special_tokens": ["<|endoftext|>"]}),
    "byte_bpe_cl100k": ("byte_bpe", {"vocab_size": 700, "pattern": "cl100k"}),
    "byte_bpe_o200k": ("byte_bpe", {"vocab_size": 700, "pattern": "o200k"}),
    "sentencepiece_bpe": ("sentencepiece_bpe", {"vocab_size": 600}),
    "sentencepiece_bpe_bytes": ("sentencepiece_bpe", {"vocab_size": 900, "byte_fallback": True, "split_digits": True,
                                                      "lowercase": True}),
    "sentencepiece_bpe_symbols": ("sentencepiece_bpe", {"vocab_size": 600, "user_defined_symbols": ["<sep>", "[MASK]"],
                                                        "normalization": "nfc", "add_dummy_prefix": False}),
    "sentencepiece_bpe_raw": ("sentencepiece_bpe", {"vocab_size": 600, "remove_extra_whitespaces": False,
                                                    "user_defined_symbols": ["<sep>"]}),
    "wordpiece": ("wordpiece", {"vocab_size": 600}),
    "wordpiece_uncased": ("wordpiece", {"vocab_size": 600, "lowercase": True, "strip_accents": True}),
    "unigram": ("unigram", {"vocab_size": 600}),
    "unigram_hf": ("unigram", {"vocab_size": 600, "rules": "hf"}),
    "unigram_hf_alphabet": ("unigram", {"vocab_size": 600, "rules": "hf", "lowercase": True, "initial_alphabet": "äöü€",
                                        "special_tokens": ["<pad>"]}),
    "sentencepiece_unigram": ("sentencepiece_unigram", {"vocab_size": 900, "byte_fallback": True}),
    "sentencepiece_unigram_raw": ("sentencepiece_unigram", {"vocab_size": 700, "split_digits": True,
                                                            "remove_extra_whitespaces": False, "normalization": "none",
                                                            "user_defined_symbols": ["<sep>"]}),
}

_CACHE = {}


def trained(name):
    if name not in _CACHE:
        preset, options = CONFIGS[name]
        _CACHE[name] = subwordlab.train(TRAIN, preset=preset, **options)
    return _CACHE[name]


def literal_unk(tok, text):
    """Does ``text`` spell the unk piece of our own Unigram (which never matches it; HF's does)?
    A model trained with rules='hf' is HF's Unigram: it matches it as HF does."""
    return type(tok.model) is Unigram and "<unk>" in text


def ours_ids(tok, text):
    """Our ids with HF's special-token behaviour (always special), or None if ours refuses."""
    try:
        return tok.encode(text, allowed_special="all")
    except ValueError:
        return None


def quiet_export(tok):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return to_hf_json(tok)


@pytest.mark.cpython_only
@pytest.mark.parametrize("name", CONFIGS)
def test_export_loads_in_tokenizers_and_encodes_the_same(name):
    from tokenizers import Tokenizer as HF

    tok = trained(name)
    result = export_hf(tok)
    hf = HF.from_str(result.text)
    refused = 0
    for text in TEXTS:
        if literal_unk(tok, text):
            # the one documented difference: HF's Unigram matches its unk piece in the text
            assert any("literally" in w for w in result.warnings)
            continue
        ours = ours_ids(tok, text)
        if ours is None:
            refused += 1
            continue
        enc = hf.encode(text, add_special_tokens=False)
        assert enc.ids == ours, (name, text[:40])
        assert [hf.id_to_token(i) for i in enc.ids] == tok.tokenize(text, allowed_special="all")
        if tok.model.type != "Unigram":  # (HF's Unigram reports the covered text as an unk's token)
            assert enc.tokens == tok.tokenize(text, allowed_special="all")
    assert refused <= 1  # only a text with a character no vocabulary covers (bpe without unk never occurs here)


MARKED = ("\u2581", "\u0120", " ")  # ▁, byte-level Ġ, a plain prepended space


@pytest.mark.cpython_only
@pytest.mark.parametrize("name", CONFIGS)
def test_offsets_of_space_markers_equal_tokenizers(name):
    """A token that starts with ▁ (a replaced space, the dummy prefix, a word marker) or a
    prepended space covers the characters the tokenizers library says it does."""
    from tokenizers import Tokenizer as HF

    tok = trained(name)
    hf = HF.from_str(quiet_export(tok))
    checked = 0
    for text in TEXTS:
        if literal_unk(tok, text):
            continue  # the documented difference (see the test above)
        try:
            ours = tok.encode_full(text, allowed_special="all")
        except ValueError:
            continue
        enc = hf.encode(text, add_special_tokens=False)
        assert enc.ids == list(ours.ids), (name, text[:40])
        for token, theirs, mine in zip(enc.tokens, enc.offsets, ours.offsets):
            if token.startswith(MARKED):
                assert tuple(theirs) == tuple(mine), (name, token, text[max(0, theirs[0] - 5):theirs[1] + 5])
                checked += 1
    assert checked or CONFIGS[name][0] in ("bpe", "wordpiece")


@pytest.mark.cpython_only
@pytest.mark.parametrize("name", ["byte_bpe", "sentencepiece_bpe_bytes", "wordpiece", "sentencepiece_unigram"])
def test_exported_decoder_gives_our_text(name):
    from tokenizers import Tokenizer as HF

    tok = trained(name)
    hf = HF.from_str(quiet_export(tok))
    unk = getattr(tok.model, "unk_id", None)
    checked = 0
    for text in [read("udhr/udhr_eng.txt")[:3000], "Everyone has the right to life, liberty and security of person.",
                 "  spaces   runs \t\t tabs\n\n\nnewlines  \n"] + TEXTS[:6]:
        ids = tok.encode(text, disallowed_special=())
        if unk in ids:
            continue  # (our decoder leaves special tokens such as an unk out of its spacing rules)
        assert hf.decode(ids, skip_special_tokens=False) == tok.decode(ids)
        checked += 1
    assert checked >= 2


@pytest.mark.parametrize("name", CONFIGS)
def test_from_hf_json_of_to_hf_json_encodes_identically(name):
    tok = trained(name)
    again = from_hf_json(quiet_export(tok))
    for text in TEXTS:
        if literal_unk(tok, text):
            continue  # HF's Unigram (so the import) matches its unk piece in text; see the export warnings
        assert ours_ids(again, text) == ours_ids(tok, text), (name, text[:40])
    # and it survives our own format
    assert subwordlab.from_json(subwordlab.to_json(again)).encode(TEXTS[2][:500]) == again.encode(TEXTS[2][:500])


def test_all_nine_top_level_keys_and_special_tokens():
    doc = json.loads(quiet_export(trained("byte_bpe")))
    assert list(doc) == ["version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer",
                         "post_processor", "decoder", "model"]
    assert doc["added_tokens"] == [{"id": 0, "content": "<|endoftext|>", "single_word": False, "lstrip": False,
                                    "rstrip": False, "normalized": False, "special": True}]
    assert doc["model"]["vocab"]["<|endoftext|>"] == 0
    assert doc["pre_tokenizer"] == {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    cl = json.loads(quiet_export(trained("byte_bpe_cl100k")))
    assert [p["type"] for p in cl["pre_tokenizer"]["pretokenizers"]] == ["Split", "ByteLevel"]
    assert cl["pre_tokenizer"]["pretokenizers"][1]["use_regex"] is False


def test_sentencepiece_bpe_export_shape():
    doc = json.loads(quiet_export(trained("sentencepiece_bpe_bytes")))
    # a sentence per line: a line break reads as a space (two Replace), then NFKC, lower case, collapse
    assert [n["type"] for n in doc["normalizer"]["normalizers"]] == ["Replace", "Replace", "NFKC", "Lowercase",
                                                                     "Replace", "Strip"]
    assert [(n["pattern"]["String"], n["content"]) for n in doc["normalizer"]["normalizers"][:2]] == [
        ("\r\n", " "), ("\n", " ")]
    assert doc["pre_tokenizer"]["pretokenizers"] == [
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
        {"type": "Digits", "individual_digits": True}]
    assert [d["type"] for d in doc["decoder"]["decoders"]] == ["Replace", "ByteFallback", "Fuse", "Strip"]
    assert doc["model"]["byte_fallback"] is True and doc["model"]["unk_token"] == "<unk>"


def test_multi_character_end_of_word_marker_is_refused_with_the_fix():
    tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
    with pytest.raises(HFExportError, match="end_of_word=None") as info:
        export_hf(tok)
    assert "end_of_word_suffix" in str(info.value) and "'</w>'" in str(info.value)


def test_merges_that_would_jump_hf_s_queue_are_refused():
    from subwordlab.models.bpe import BPE
    from subwordlab.pipeline.decoders import ConcatDecoder
    from subwordlab.pipeline.pre_tokenizers import WhitespaceSplit
    from subwordlab.tokenizer import Tokenizer

    # 'xy' exists from the start; merge #0 uses it, merge #1 makes it again
    model = BPE(["x", "y", "xy", "xyx"], [(2, 0), (0, 1)], unk_token=None)
    tok = Tokenizer(model, None, WhitespaceSplit(), ConcatDecoder())
    assert tok.tokenize("xyxy") == ["xy", "xy"]
    with pytest.raises(HFExportError, match="merge #0 already uses") as caught:
        export_hf(tok)
    message = str(caught.value)
    assert "apply merge #0 before the remaining #1 merges" in message and "{" not in message


def test_warnings_for_differences_on_input_ours_refuses():
    tok = subwordlab.train({"hug": 10, "pug": 5, "pun": 12}, preset="bpe", num_merges=3, end_of_word=None)
    result = export_hf(tok)
    assert any("silently dropped" in w for w in result.warnings)
    with pytest.warns(subwordlab.HFExportWarning, match="silently dropped"):
        to_hf_json(tok)
    assert any("allowed_special" in w for w in export_hf(trained("byte_bpe")).warnings)


@pytest.mark.cpython_only
def test_no_unk_export_differs_only_where_ours_raises():
    from tokenizers import Tokenizer as HF

    tok = subwordlab.train({"hug": 10, "pug": 5, "pun": 12}, preset="bpe", num_merges=3, end_of_word=None)
    hf = HF.from_str(quiet_export(tok))
    assert hf.encode("hug pun", add_special_tokens=False).ids == tok.encode("hug pun")
    with pytest.raises(ValueError, match="not in the vocabulary"):
        tok.encode("hugx")
    assert hf.encode("hugx", add_special_tokens=False).ids == hf.encode("hug", add_special_tokens=False).ids  # 'x' dropped


# -- import of files written by the tokenizers library ------------------------------------

def _hf_trained(kind):
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    lines = TRAIN.splitlines()
    if kind == "bpe":
        hf = Tokenizer(models.BPE(unk_token="<unk>"))
        hf.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.BpeTrainer(vocab_size=700, special_tokens=["<unk>", "<s>", "</s>"], show_progress=False)
    elif kind == "bpe_affixes":
        hf = Tokenizer(models.BPE(unk_token="<unk>", continuing_subword_prefix="##", end_of_word_suffix="</w>", fuse_unk=True))
        hf.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()])
        hf.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation(),
                                                    pre_tokenizers.Digits(individual_digits=False)])
        hf.decoder = decoders.BPEDecoder(suffix="</w>")
        trainer = trainers.BpeTrainer(vocab_size=700, special_tokens=["<unk>"], continuing_subword_prefix="##",
                                      end_of_word_suffix="</w>", show_progress=False)
    elif kind == "gpt2":
        hf = Tokenizer(models.BPE())
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
        hf.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=800, special_tokens=["<|endoftext|>"], show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    elif kind == "wordpiece":
        hf = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        hf.normalizer = normalizers.BertNormalizer(lowercase=True)
        hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        hf.decoder = decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(vocab_size=700, special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"],
                                            show_progress=False)
    elif kind == "unigram":
        hf = Tokenizer(models.Unigram())
        hf.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(" {2,}", " ")])
        hf.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
        hf.decoder = decoders.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=700, special_tokens=["<unk>", "<s>", "</s>"], unk_token="<unk>",
                                          show_progress=False)
    else:  # unigram with a Split sequence and byte fallback, no decoder
        hf = Tokenizer(models.Unigram())
        hf.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(" ", "merged_with_next"),
                                                    pre_tokenizers.Digits(individual_digits=True)])
        trainer = trainers.UnigramTrainer(vocab_size=700, special_tokens=["<unk>"], unk_token="<unk>", show_progress=False)
    hf.train_from_iterator(lines, trainer)
    if kind == "gpt2":
        hf.add_tokens([AddedToken("thee", single_word=True), "xyz", AddedToken(" thou", normalized=True)])
        hf.add_special_tokens([AddedToken("<mask>", lstrip=True)])
    return hf


@pytest.mark.cpython_only
@pytest.mark.parametrize("kind", ["bpe", "bpe_affixes", "gpt2", "wordpiece", "unigram", "unigram_split"])
def test_import_of_files_written_by_tokenizers(kind):
    hf = _hf_trained(kind)
    tok = from_hf_json(hf.to_str())
    for text in TEXTS + ["thee thee-thou xyzthee <mask> a<mask>"]:
        enc = hf.encode(text, add_special_tokens=False)
        ids = tok.encode(text, allowed_special="all")
        assert ids == enc.ids, (kind, text[:40])
        assert [tok.id_to_token(i) for i in ids] == [hf.id_to_token(i) for i in enc.ids]
        assert tok.decode(ids) == hf.decode(enc.ids, skip_special_tokens=False)
    # and it saves in our format, and exports back to an equivalent tokenizer.json
    again = subwordlab.from_json(subwordlab.to_json(tok))
    back = type(hf).from_str(quiet_export(again))
    for text in TEXTS[:6] + EXTRA:
        assert back.encode(text, add_special_tokens=False).ids == hf.encode(text, add_special_tokens=False).ids


@pytest.mark.cpython_only
def test_import_gpt2_like_byte_level_uses_the_fast_path():
    tok = from_hf_json(_hf_trained("gpt2").to_str())
    assert type(tok.pre_tokenizer).__name__ == "ByteLevel" and tok.pre_tokenizer.add_prefix_space


def test_import_rejects_unsupported_components_by_name():
    base = json.loads(quiet_export(trained("wordpiece")))

    def bad(key, value, match):
        doc = dict(base, **{key: value})
        with pytest.raises(ModelFileError, match=match):
            from_hf_json(json.dumps(doc))

    bad("pre_tokenizer", {"type": "UnicodeScripts"}, r"pre_tokenizer type 'UnicodeScripts' is not supported; supported: ByteLevel")
    bad("normalizer", {"type": "Precompiled", "precompiled_charsmap": "AA=="}, "not a precompiled charsmap .*4 bytes")
    bad("normalizer", {"type": "Precompiled", "precompiled_charsmap": "not base64!"}, "not a precompiled charsmap")
    bad("normalizer", {"type": "Sequence", "normalizers": [{"type": "Nmt"}]}, r"normalizer.normalizers\[0\].type: normalizer type 'Nmt'")
    bad("decoder", {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True}, "decoder type 'CTC'")
    bad("post_processor", {"type": "TemplateProcessing", "single": [], "pair": [], "special_tokens": {}},
        "post_processor type 'TemplateProcessing' is not supported")
    bad("truncation", {"max_length": 5}, "truncation is not supported")
    bad("model", {"type": "WordLevel", "vocab": {}, "unk_token": "x"}, "model type 'WordLevel' is not supported")
    with pytest.raises(ModelFileError, match="unknown top-level key 'extra'"):
        from_hf_json(json.dumps(dict(base, extra=1)))


def test_import_of_hand_written_components():
    """Prepend, Replace (string and regex), Strip, Split behaviours, CharDelimiterSplit, decoders."""
    vocab = {t: i for i, t in enumerate(["<unk>", "▁", "a", "b", "c", "-", "▁a", "ab", "1", "2"])}
    doc = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Strip", "strip_left": True, "strip_right": True},
            {"type": "Replace", "pattern": {"String": "x"}, "content": "a"},
            {"type": "Replace", "pattern": {"Regex": "y+$"}, "content": "b"},
            {"type": "Prepend", "prepend": "▁"}]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious", "invert": False},
            {"type": "Digits", "individual_digits": True}]},
        "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                                                     {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": [["▁", "a"], ["a", "b"]]},
    }
    legacy = json.loads(json.dumps(doc))
    legacy["model"]["merges"] = ["▁ a", "a b"]
    assert from_hf_json(json.dumps(legacy)).tokenize("ab-c12") == from_hf_json(json.dumps(doc)).tokenize("ab-c12")
    legacy["model"]["merges"] = [["▁", "a"], "a b"]
    with pytest.raises(ModelFileError, match="one form"):
        from_hf_json(json.dumps(legacy))
    tok = from_hf_json(json.dumps(doc))
    assert tok.normalize_str("  xbyy\nyy ") == "▁abb\nb"  # Oniguruma's $ is also the end of a line
    assert tok.tokenize("ab-c12") == ["▁a", "b", "-", "c", "1", "2"]  # '▁a' (rank 0) wins over 'ab'
    assert tok.decode(tok.encode("ab-c")) == "ab-c"
    try:
        from tokenizers import Tokenizer as HF
    except ImportError:  # Pyodide
        return
    hf = HF.from_str(json.dumps(doc))
    assert hf.normalizer.normalize_str("  xbyy\nyy ") == tok.normalize_str("  xbyy\nyy ")
    for text in ["ab-c12", "xab-ab-1yy", " a-b-c "]:
        assert hf.encode(text).ids == tok.encode(text)
        assert hf.decode(hf.encode(text).ids) == tok.decode(tok.encode(text))


# -- regular expressions -------------------------------------------------------------------

@pytest.mark.parametrize("python, onig", [
    (r"\p{N}{1,3}+", r"(?>\p{N}{1,3})"),
    (r"a$", r"a\Z"),
    (r"^a", r"\Aa"),
    (r"a\Z", r"a\z"),
    (r"\u00e9\U0001F600", r"\x{E9}\x{1F600}"),
    (r"(?P<w>a)(?P=w)", r"(?<w>a)\k<w>"),
    (r"(?i:'s|'t)", r"(?i:'s|'t)"),
    (r"\d", r"\p{Nd}"),
])
def test_regex_to_oniguruma(python, onig):
    assert translate_regex(python, True) == onig


@pytest.mark.parametrize("onig, python", [
    (r"\p{N}{1,3}+", r"(?:\p{N}{1,3})+"),
    (r"a$", r"a(?m:$)"),
    (r"a\z", r"a\Z"),
    (r"\x{1F600}", "\U0001f600"),
    (r"\h+", r"[0-9A-Fa-f]+"),
    (r"(?<w>a)\k<w>", r"(?P<w>a)(?P=w)"),
    (r"(?m:.)", r"(?:(?s:.))"),
])
def test_regex_from_oniguruma(onig, python):
    assert translate_regex(onig, False) == python


def test_regex_constructs_without_equivalent_are_refused():
    with pytest.raises(HFExportError, match="inline flags"):
        to_onig(r"(?s).")
    with pytest.raises(HFExportError, match="by name"):
        to_onig(r"\N{BULLET}")
    tok = subwordlab.train(TRAIN[:5000], preset="byte_bpe", vocab_size=260, pattern=r"(?x) \w+ | \s+")
    with pytest.raises(HFExportError, match="Oniguruma"):
        export_hf(tok)


@pytest.mark.cpython_only
@pytest.mark.parametrize("pattern", [
    r"\w+|[^\w\s]+|\s+", r"\p{N}{1,2}+|\p{L}+|[^\p{L}\p{N}]+", r"\S+\s*$|\S+|\s+", r"(?i:ab|cd)+|.", r"\d+|\D+",
    r"[\w\-]+|\s+|.", r"^\s*\S+|\S+|\s+",
])
def test_custom_patterns_split_the_same_in_oniguruma(pattern):
    from tokenizers import Tokenizer as HF

    tok = subwordlab.train(TRAIN[:20000], preset="byte_bpe", vocab_size=300, pattern=pattern)
    hf = HF.from_str(quiet_export(tok))
    for text in TEXTS:
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text), (pattern, text[:30])


@pytest.mark.cpython_only
@pytest.mark.parametrize("scheme", ["first", "always", "never"])
def test_import_metaspace_prepend_schemes_with_strip_and_specials(scheme):
    """HF's "first" prepends ▁ only to a segment at original offset 0 (not after a special
    token, not when a normalizer stripped leading spaces)."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    hf = Tokenizer(models.Unigram())
    hf.normalizer = normalizers.Strip()
    hf.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme=scheme)
    hf.decoder = decoders.Metaspace(prepend_scheme=scheme)
    hf.train_from_iterator(TRAIN[:60_000].splitlines(), trainers.UnigramTrainer(
        vocab_size=400, special_tokens=["<unk>", "<s>"], unk_token="<unk>", show_progress=False))
    tok = from_hf_json(hf.to_str())
    for text in ["  hello there", "<s>hello", "a<s>b", " <s> x", "hello <s>  world", "<s>", "", "  <s>x  "]:
        ids = hf.encode(text, add_special_tokens=False).ids
        assert tok.encode(text, allowed_special="all") == ids == tok.encode_full(text, allowed_special="all").ids
        assert tok.decode(ids) == hf.decode(ids, skip_special_tokens=False)


@pytest.mark.cpython_only
def test_bert_with_post_processor_imports_only_when_asked():
    from tokenizers.processors import TemplateProcessing

    hf = _hf_trained("wordpiece")
    hf.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    hf.enable_truncation(max_length=512)
    with pytest.raises(ModelFileError, match="post_processor type 'TemplateProcessing' is not supported|truncation"):
        from_hf_json(hf.to_str())
    tok = from_hf_json(hf.to_str(), drop_post_processing=True)
    assert tok.spec["dropped"] == ["truncation", "post_processor (TemplateProcessing)"]
    hf.no_truncation()
    text = TEXTS[2][:3000]
    assert tok.encode(text, allowed_special="all") == hf.encode(text, add_special_tokens=False).ids


# -- SentencePiece options, combined: our ids equal the tokenizers library's on awkward texts --
_SP_OPTIONS = [  # (remove_extra_whitespaces, add_dummy_prefix, user symbol, split_digits, byte_fallback, normalization)
    (rew, adp, sym, k % 2 == 0, k % 3 == 0, ("none", "nfkc")[k % 2])
    for k, (rew, adp, sym) in enumerate(itertools.product([False, True], [True, False], [False, True]))
]


@pytest.mark.cpython_only
@pytest.mark.parametrize("preset", ["sentencepiece_bpe", "sentencepiece_unigram"])
@pytest.mark.parametrize("rew, adp, sym, sd, bf, norm", _SP_OPTIONS)
def test_sentencepiece_options_in_combination_export_exactly(preset, rew, adp, sym, sd, bf, norm):
    from tokenizers import Tokenizer as HF

    opts = dict(remove_extra_whitespaces=rew, add_dummy_prefix=adp, split_digits=sd, byte_fallback=bf, normalization=norm)
    if sym:
        opts["user_defined_symbols"] = ["<sep>"]
    tok = subwordlab.train(read("taylorswift.txt")[:15_000], preset=preset, vocab_size=400, **opts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = HF.from_str(subwordlab.to_hf_json(tok))
    rng = random.Random(len(_SP_OPTIONS))
    alphabet = list(" \t\nTaylorSwift12 ,.!語é") + ["<sep>", "▁", "  "]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 15))) for _ in range(150)]
    texts += [" Taylor", "  ", " ", "", " <sep> x", "<sep> y", "12 34", " 語", "ｔａｙｌｏｒ"]
    for text in texts:
        if sym and tok.normalize_str(text) == "<sep>":
            continue  # the export warns: a text that is exactly one user-defined symbol gets no dummy ▁ in HF
        try:
            ours = tok.encode(text)
        except ValueError:
            continue  # an unknown character with no unk and no byte fallback: ours raises, HF drops it (warned)
        assert ours == hf.encode(text).ids, (text, opts)
        if bf and not rew and "▁" not in text:
            assert tok.decode(ours) == tok.normalize_str(text), (text, opts)


@pytest.mark.parametrize("form", ["strings", "pairs"])
def test_the_merge_table_read_at_c_speed_is_the_one_the_loop_reads(form):
    """Big files take the C-speed paths (formats/hf_import._merges_at_c_speed, HFBPE's
    _ranks_at_c_speed); the loops remain for what they must name. Both give one table,
    a repeated merge taking its last rank (as in HF), in either merge form."""
    from subwordlab.formats import hf_import
    from subwordlab.models.hf_bpe import HFBPE

    vocab = ["a", "b", "c", "ab", "abc", "bc"]
    merges = [("a", "b"), ("b", "c"), ("ab", "c"), ("a", "b")]
    raw = [" ".join(m) for m in merges] if form == "strings" else [list(m) for m in merges]
    t2i = {t: i for i, t in enumerate(vocab)}
    fast = hf_import._merges_at_c_speed(raw, t2i)
    assert fast == [(0, 1), (1, 2), (3, 2), (0, 1)]
    model = HFBPE(vocab, fast)
    slow = dict(model.ranks)
    model.ranks = {}
    for rank, (a, b) in enumerate(model.merges):  # the loop's rule, written out
        model.ranks[(a, b)] = (rank, vocab.index(vocab[a] + vocab[b]))
    assert slow == model.ranks == {(0, 1): (3, 3), (1, 2): (1, 5), (3, 2): (2, 4)}
    # what the fast path cannot vouch for goes to the loop, which names it
    assert hf_import._merges_at_c_speed(["a b", "a  b"] if form == "strings" else [["a", "b"], ["a", 1]], t2i) is None
    assert hf_import._merges_at_c_speed(["a z"] if form == "strings" else [["a", "z"]], t2i) is None
    with pytest.raises(ValueError, match="the result 'ca' is not in the vocabulary"):
        HFBPE(vocab, [(2, 0)])
