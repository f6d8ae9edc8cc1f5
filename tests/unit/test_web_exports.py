"""Downloads and uploads of model files (subwordlab_web.exports), without a DOM."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from subwordlab_web import exports
from subwordlab_web.exports import ImportFailed, downloads, import_model

CORPUS = "the lowest newest widest low lower tokens tokenizer " * 8
TEXT = "the newest tokenizer, lower and wider"


@pytest.fixture(scope="module")
def toks():
    return {
        "bpe": subwordlab.train(CORPUS, preset="bpe", num_merges=20, unk_token="<unk>"),
        "byte_bpe": subwordlab.train(CORPUS, preset="byte_bpe", vocab_size=280),
        "wordpiece": subwordlab.train(CORPUS, preset="wordpiece", vocab_size=60),
        "unigram": subwordlab.train(CORPUS, preset="unigram", vocab_size=40),
    }


def test_three_downloads_with_names_and_types(toks):
    files = downloads(toks["byte_bpe"])
    assert list(files) == ["ours", "hf", "vocab"]
    assert files["ours"].name == "subwordlab-byte_bpe-280.json" and files["ours"].mime == "application/json"
    assert files["hf"].name == "tokenizer.json" and files["hf"].available
    assert files["vocab"].name == "subwordlab-byte_bpe-280-vocab.txt" and files["vocab"].mime.startswith("text/plain")
    assert all(f.size > 0 for f in files.values())


def test_our_json_round_trips_byte_identically(toks):
    for tok in toks.values():
        text = downloads(tok)["ours"].text
        back = import_model("model.json", text.encode())
        assert back.kind == "ours" and subwordlab.to_json(back.tokenizer) == text
        assert back.tokenizer.encode(TEXT) == tok.encode(TEXT)


@pytest.mark.parametrize("preset", ["byte_bpe", "wordpiece", "unigram"])
def test_hf_json_imports_back_to_the_same_encodings(toks, preset):
    hf = downloads(toks[preset])["hf"]
    assert hf.available, hf.reason
    back = import_model("tokenizer.json", hf.text.encode())
    assert back.kind == "hf"
    assert back.tokenizer.encode(TEXT) == toks[preset].encode(TEXT)
    assert back.summary.startswith("Loaded tokenizer.json (Hugging Face tokenizer.json, ")


def test_hf_json_unavailable_says_why(toks):
    hf = downloads(toks["bpe"])["hf"]
    assert not hf.available and hf.text == ""
    assert hf.reason.startswith("Hugging Face tokenizer.json is not available for this tokenizer: ")
    assert "end_of_word" in hf.reason


def test_vocab_file_lists_every_id_and_the_merges(toks):
    tok = toks["bpe"]
    text = downloads(tok)["vocab"].text
    assert text.startswith("# Subword Lab vocabulary: bpe tokenizer, ")
    assert f"SHA-256 {tok.spec['corpus']['sha256']}" in text
    table, merges = text.split("# merges in rank order")
    assert len([ln for ln in table.splitlines() if ln[:1] == " " or ln[:1].isdigit()]) == tok.vocab_size
    assert len(merges.strip().splitlines()) - 1 == len(tok.merges)
    first = tok.model.merges[0]
    a, b = tok.id_to_token(first[0]), tok.id_to_token(first[1])
    assert f"     0  {a!r} + {b!r} -> {a + b!r}" in merges


def test_base_name_is_safe_for_a_file_name():
    class Tok:
        spec = {"preset": "../we ird/<x>"}
        vocab_size = 7

    assert exports.base_name(Tok()) == "subwordlab-we-ird-x-7"
    Tok.spec = {}
    assert exports.base_name(Tok()) == "subwordlab-tokenizer-7"


# -- bad uploads: one clear message naming the file and the problem ---------------------------

@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "'bad.json' is empty"),
        (b"\xff\xfe\x00{", "'bad.json' cannot be loaded: the file is not UTF-8 text"),
        (b"{not json", "'bad.json' cannot be loaded: the file is not valid JSON"),
        (b"[1, 2, 3]", "'bad.json' is JSON but not a model file"),
        (b'{"name": "package", "version": "1.0"}', "neither a Subword Lab model"),
        (b"[" * 1000 + b"]" * 1000, "nested more than"),
        (b'{"format": "subwordlab", "version": 99}', "version 99 is not supported"),
        (b'{"format": "subwordlab", "version": 1, "core_version": "0", "spec": {}, "model": {"type": "Nope"}}',
         "'bad.json' cannot be loaded: "),
        (b'{"version": "1.0", "added_tokens": [], "model": {"type": "WordLevel", "vocab": {}}}', "WordLevel"),
    ],
)
def test_bad_files_are_refused_with_one_message(data, message):
    with pytest.raises(ImportFailed, match=message.replace("[", r"\[")):
        import_model("bad.json", data)


def test_a_broken_merge_in_a_tokenizer_json_names_the_field(toks):
    doc = json.loads(downloads(toks["byte_bpe"])["hf"].text)
    doc["model"]["merges"][0] = ["zzz", "qqq"]
    with pytest.raises(ImportFailed, match="model.merges"):
        import_model("tokenizer.json", json.dumps(doc).encode())


def test_too_big_is_refused_before_parsing(monkeypatch):
    monkeypatch.setattr(exports, "MAX_IMPORT_BYTES", 100)
    with pytest.raises(ImportFailed, match="'big.json' is 101 bytes; model files up to"):
        import_model("big.json", b" " * 101)


@pytest.mark.cpython_only
def test_a_tokenizer_json_written_by_the_tokenizers_library():
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    hf = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.train_from_iterator([CORPUS], trainers.WordPieceTrainer(vocab_size=60, special_tokens=["[UNK]"]))
    loaded = import_model("tokenizer.json", hf.to_str().encode())
    enc = loaded.tokenizer.encode_full(TEXT)
    assert enc.tokens == hf.encode(TEXT).tokens and enc.ids == hf.encode(TEXT).ids


def _rank_file(extra=()):
    import base64

    tokens = [bytes([b]) for b in range(256)] + list(extra)
    return "".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(tokens)).encode()


def test_a_rank_file_that_is_not_openais_says_how_to_import_it():
    data = _rank_file([b"hi"])
    assert exports.looks_like_rank_file(data) and not exports.looks_like_rank_file(b'{"model": {}}')
    with pytest.raises(ImportFailed, match="'my.tiktoken' is a tiktoken rank file but not one of OpenAI's .* "
                                           "'subwordlab import FILE --pattern"):
        import_model("my.tiktoken", data)
    with pytest.raises(ImportFailed, match="'bad.tiktoken' cannot be loaded: rank file line 258: rank 5 is also"):
        import_model("bad.tiktoken", data + b"QUI= 5\n")


@pytest.mark.cpython_only
def test_openais_o200k_rank_file_imports_with_its_pattern_and_specials():
    from test_real_vocabularies import _load_builder

    data = (_load_builder().ensure() / "o200k_base.tiktoken").read_bytes()
    loaded = import_model("o200k_base.tiktoken", data)
    assert loaded.kind == "tiktoken" and loaded.tokenizer.vocab_size == 200_019
    assert loaded.summary == "Loaded o200k_base.tiktoken (tiktoken rank file, o200k_base (GPT-4o), BPE, 200,019 tokens)."
    assert loaded.tokenizer.encode("untokenizable") == [2202, 2488, 12243]
    assert loaded.tokenizer.encode("<|endoftext|>", allowed_special="all") == [199_999]


@settings(max_examples=examples(150), deadline=None)
@given(st.one_of(
    st.binary(max_size=300),
    # rank-file look-alikes: base64-ish tokens, ranks, stray spaces and lines
    st.lists(st.tuples(st.text("QUIabc+/=!", min_size=0, max_size=6), st.sampled_from([" ", "  ", "\t", ""]),
                       st.text("0123456789x-", max_size=4)), max_size=30)
    .map(lambda rows: "".join(f"{a}{sep}{b}\n" for a, sep, b in rows).encode()),
))
def test_any_upload_gives_a_tokenizer_or_one_import_failed(data):
    try:
        imported = import_model("upload.bin", data)
    except ImportFailed as exc:
        assert str(exc).startswith("'upload.bin' ") and "\n" not in str(exc)
    else:
        assert imported.tokenizer.vocab_size > 0


def test_a_tokenizer_json_with_a_post_processor_loads_without_it_and_says_so(toks):
    """Most published tokenizer.json files (BERT, RoBERTa, T5...) add [CLS]/[SEP] or <s>
    around a text. The page refused them all, pointing at a Python argument and a CLI flag
    a page user does not have; it now loads the tokenizer, leaves that part out and says so."""
    plain = downloads(toks["wordpiece"])["hf"].text
    doc = json.loads(plain)
    ids = {t["content"]: t["id"] for t in doc["added_tokens"]}
    cls, sep = "[CLS]" if "[CLS]" in ids else doc["model"]["unk_token"], doc["model"]["unk_token"]
    doc["post_processor"] = {"type": "TemplateProcessing",
                             "single": [{"SpecialToken": {"id": cls, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                        {"SpecialToken": {"id": sep, "type_id": 0}}],
                             "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
                             "special_tokens": {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in {cls, sep}}}
    doc["truncation"] = {"direction": "Right", "max_length": 512, "strategy": "LongestFirst", "stride": 0}
    loaded = import_model("bert-like.json", json.dumps(doc).encode())
    assert loaded.kind == "hf"
    assert loaded.tokenizer.encode(TEXT) == import_model("tokenizer.json", plain.encode()).tokenizer.encode(TEXT)
    assert loaded.summary.startswith("Loaded bert-like.json (Hugging Face tokenizer.json, WordPiece, ")
    assert "Left out: its truncation, post_processor (TemplateProcessing). Inspect and Compare show the text's own " \
           "tokens, as HF's encode(text, add_special_tokens=False)" in loaded.summary
    assert import_model("tokenizer.json", plain.encode()).notes == []  # (nothing left out: nothing said)


@pytest.mark.cpython_only
def test_bert_style_tokenizer_json_encodes_as_the_library_without_special_tokens():
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

    hf = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    hf.normalizer = normalizers.BertNormalizer(lowercase=True)
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.train_from_iterator([CORPUS], trainers.WordPieceTrainer(vocab_size=60, special_tokens=["[UNK]", "[CLS]", "[SEP]"]))
    hf.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", hf.token_to_id("[CLS]")), ("[SEP]", hf.token_to_id("[SEP]"))])
    loaded = import_model("tokenizer.json", hf.to_str().encode())
    assert "Left out: its post_processor (TemplateProcessing)" in loaded.summary
    text = "The NEWEST Tokenizer, lower — wider ünïcode"
    assert loaded.tokenizer.encode(text) == hf.encode(text, add_special_tokens=False).ids
