"""SentencePiece-style BPE: ▁ for spaces, normalization, byte fallback, digits, coverage,
and BPE-dropout through the Tokenizer."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from corpora import UDHR, read

TEXT = read("taylorswift.txt")[:40_000]


def sp(**options):
    return subwordlab.train(TEXT, preset="sentencepiece_bpe", vocab_size=options.pop("vocab_size", 600), **options)


def test_spaces_become_the_visible_mark_and_decode_restores_them():
    tok = sp()
    assert tok.tokenize("Taylor Swift")[0].startswith("\u2581")
    assert tok.decode(tok.encode("Taylor  Swift  sings ")) == "Taylor Swift sings"  # extra spaces removed
    kept = sp(remove_extra_whitespaces=False)
    assert kept.decode(kept.encode("Taylor  Swift")) == "Taylor  Swift"


def test_nfkc_normalization_and_none():
    tok = sp()
    assert tok.normalize_str("Ｔａｙｌｏｒ ﬁ") == "Taylor fi"
    assert tok.decode(tok.encode("Ｔａｙｌｏｒ")) == "Taylor"
    raw = sp(normalization="none", unk_token="<unk>")
    assert raw.normalize_str("Ｔａｙｌｏｒ") == "Ｔａｙｌｏｒ"


def test_unknown_characters_become_unk_or_bytes():
    tok = sp()
    assert "<unk>" in tok.tokenize("Taylor 語")
    fb = sp(byte_fallback=True)
    assert fb.tokenize("語")[-3:] == ["<0xE8>", "<0xAA>", "<0x9E>"]
    assert fb.decode(fb.encode("Taylor 語")) == "Taylor 語"
    assert all(fb.token_to_id(f"<0x{b:02X}>") is not None for b in range(256))


@settings(max_examples=examples(100))
@given(st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\u2581")))
def test_byte_fallback_round_trips_to_the_normalized_text(text):
    tok = _fallback()
    assert tok.decode(tok.encode(text)) == tok.normalize_str(text)


def test_a_literal_space_mark_stands_for_a_space():
    tok = _fallback()
    assert tok.decode(tok.encode("a\u2581b")) == "a b"


_cache = {}


def _fallback():
    if "t" not in _cache:
        _cache["t"] = sp(byte_fallback=True, vocab_size=500)
    return _cache["t"]


def test_split_digits():
    tok = sp(split_digits=True)
    assert [t for t in tok.tokenize("in 2014") if t.strip("\u2581")][-4:] == ["2", "0", "1", "4"]
    assert all(not any(c.isdigit() for c in t) or len(t) == 1 for t in tok.model.vocab)


def test_character_coverage_drops_rare_characters():
    corpus = "aaaa bbbb aaaa bbbb q"
    full = subwordlab.train(corpus, preset="sentencepiece_bpe", num_merges=2)
    assert full.token_to_id("q") is not None
    partial = subwordlab.train(corpus, preset="sentencepiece_bpe", num_merges=2, character_coverage=0.9)
    assert partial.token_to_id("q") is None and partial.tokenize("q") == ["\u2581", "<unk>"]


def test_max_piece_length():
    tok = sp(max_piece_length=3)
    assert max(len(t) for t in tok.model.vocab if not t.startswith("<")) <= 3


def test_dummy_prefix_off():
    tok = sp(add_dummy_prefix=False)
    assert not tok.tokenize("Taylor")[0].startswith("\u2581")
    assert tok.decode(tok.encode("Taylor Swift")) == "Taylor Swift"


def test_multilingual_corpus_trains_and_round_trips():
    text = "\n".join(p.read_text(encoding="utf-8") for p in UDHR)
    tok = subwordlab.train(text, preset="sentencepiece_bpe", vocab_size=2000)
    for p in UDHR:
        sample = p.read_text(encoding="utf-8")[-500:]
        assert tok.decode(tok.encode(sample)) == tok.normalize_str(sample)


def test_bpe_dropout_through_sample_encode():
    tok = sp()
    text = "Taylor Swift released her album"
    assert tok.sample_encode(text, 0.0, seed=1) == tok.encode(text)
    a, b = tok.sample_encode(text, 0.3, seed=5), tok.sample_encode(text, 0.3, seed=5)
    assert a == b and tok.decode(a) == text
    assert len(tok.sample_encode(text, 1.0, seed=2)) == len(tok.normalize_str(text).replace(" ", "")) + 5
    with pytest.raises(ValueError, match="between 0 and 1"):
        tok.sample_encode(text, 1.5)


@pytest.mark.parametrize("preset", ["sentencepiece_bpe", "sentencepiece_unigram"])
def test_leading_spaces_come_back_without_remove_extra_whitespaces(preset):
    tok = subwordlab.train(TEXT[:20_000], preset=preset, vocab_size=300, remove_extra_whitespaces=False)
    for text in [" Taylor", "   Swift  sings ", "Taylor", " ", ""]:
        assert tok.decode(tok.encode(text)) == tok.normalize_str(text)
    assert subwordlab.from_json(subwordlab.to_json(tok)).encode("  Taylor") == tok.encode("  Taylor")


_KEPT = {}


@settings(max_examples=examples(80), deadline=None)
@given(st.sampled_from(["sentencepiece_bpe", "sentencepiece_unigram"]),
       st.text(st.sampled_from(" \tTaylorSwift語é,"), max_size=20))
def test_decode_gives_back_the_normalized_text_with_every_space(preset, text):
    # (any text without a literal ▁, which stands for a space; byte fallback covers 語)
    if preset not in _KEPT:
        _KEPT[preset] = subwordlab.train(TEXT[:20_000], preset=preset, vocab_size=400, byte_fallback=True,
                                         remove_extra_whitespaces=False, normalization="none")
    tok = _KEPT[preset]
    assert tok.decode(tok.encode(text)) == text


@pytest.mark.cpython_only
@pytest.mark.parametrize("preset", ["sentencepiece_bpe", "sentencepiece_unigram"])
def test_leading_spaces_export_to_tokenizer_json_exactly(preset):
    from tokenizers import Tokenizer as HF

    tok = subwordlab.train(TEXT[:20_000], preset=preset, vocab_size=300, remove_extra_whitespaces=False)
    hf = HF.from_str(subwordlab.to_hf_json(tok))
    for text in [" Taylor", "   Swift  sings ", "Taylor Swift", "  a  b  "]:
        assert hf.encode(text).ids == tok.encode(text), text


@pytest.mark.parametrize("preset, special", [("sentencepiece_bpe", "▁the"), ("bpe", "the</w>")])
def test_a_special_token_the_merges_would_build_is_refused(preset, special):
    # before: training succeeded and "the" encoded as the unk token's id
    corpus = "the cat the dog the end " * 20
    with pytest.raises(ValueError, match=r"is a piece the merges build from the corpus .*choose a special token"):
        subwordlab.train(corpus, preset=preset, vocab_size=60, unk_token=special)


def test_a_special_token_the_corpus_never_builds_is_kept():
    tok = subwordlab.train("the cat the dog the end " * 20, preset="sentencepiece_bpe", vocab_size=40,
                           unk_token="<unk>")
    assert tok.encode("the") != tok.encode("zzz")[:1]


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet=" a\u00e9\t\n\u3000\u2028\u00a0\u0085\u200b", max_size=30))
def test_collapse_on_text_alone_equals_collapse_on_units(text):
    # remove_extra_whitespaces: the C-speed text path (any script) gives what the offset
    # path keeps, character for character (U+200B is not white space: it stays)
    from subwordlab.pipeline.normalizers import Collapse, _pack, _units

    assert Collapse().normalize_str(text) == _pack(Collapse().apply(_units(text)))[0]
