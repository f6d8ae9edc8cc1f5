"""Statistics: the seed's UTF-8 baseline and vocabulary-size calculator, and hand-computed
values of every per-text statistic."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import subwordlab
from subwordlab.models.bpe import BPE
from subwordlab.pipeline.decoders import ConcatDecoder
from subwordlab.pipeline.pre_tokenizers import WhitespaceSplit
from subwordlab.stats import (
    compare_texts,
    embedding_parameters,
    first_difference,
    format_table,
    text_stats,
    tokenization_stats,
    vocab_size_calculator,
)
from subwordlab.tokenizer import Tokenizer

SEED = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def seed_tokenizer():
    # seed 000: 8 merges -> es, est, est</w>, lo, low, ne, new, newest</w>
    return subwordlab.train(SEED, preset="bpe", num_merges=8)


def test_seed_utf8_byte_baseline():
    samples = {"en": "cat", "ko": "고양이", "digits": "1234", "empty": ""}
    report = tokenization_stats(lambda text: list(text.encode("utf-8")), samples)
    assert report == {
        "en": {"tokens": 3, "code_points": 3, "tokens_per_code_point": 1.0},
        "ko": {"tokens": 9, "code_points": 3, "tokens_per_code_point": 3.0},
        "digits": {"tokens": 4, "code_points": 4, "tokens_per_code_point": 1.0},
        "empty": {"tokens": 0, "code_points": 0, "tokens_per_code_point": None},
    }


def test_vocab_size_calculator():
    assert embedding_parameters(32_000, 1_024) == 32_768_000
    assert embedding_parameters(32_000, 1_024, separate_output=True) == 65_536_000
    assert vocab_size_calculator(32_000, 1_024) == {"vocab_size": 32_000, "d_model": 1_024, "embedding": 32_768_000,
                                                    "tied": 32_768_000, "untied": 65_536_000}
    with pytest.raises(ValueError, match="vocab_size must be a non-negative integer"):
        embedding_parameters(-1, 8)


def test_text_stats_by_hand():
    tok = seed_tokenizer()
    assert tok.tokenize("lowest newest") == ["low", "est</w>", "newest</w>"]
    row = text_stats(tok, "lowest newest")
    # three distinct tokens, once each: a uniform distribution, efficiency 1 (to 12 digits)
    efficiencies = row.pop("shannon_efficiency"), row.pop("renyi_efficiency")
    assert efficiencies == (pytest.approx(1.0, abs=1e-12), pytest.approx(1.0, abs=1e-12))
    assert row == {
        "tokens": 3, "code_points": 13, "bytes": 13, "words": 2,
        "tokens_per_word": 1.5, "chars_per_token": 13 / 3, "bytes_per_token": 13 / 3,
        "split_words": 0.5, "continued_words": 0.5,  # 'lowest' is two tokens, 'newest' one
        "unknown_rate": 0.0, "byte_fallback_rate": 0.0, "distinct_tokens": 3,
        "round_trip": True, "round_trip_kind": "exact", "round_trip_difference": None,
    }


def test_zero_width_marker_tokens_count_for_their_word_and_round_trip_difference():
    tok = seed_tokenizer()
    assert tok.tokenize("low  low") == ["low", "</w>", "low", "</w>"]
    row = text_stats(tok, "low  low")
    assert row["tokens"] == 4 and row["words"] == 2 and row["tokens_per_word"] == 2.0
    assert row["split_words"] == 1.0
    # the decoder puts back one space between words: the round trip fails at the double space
    assert row["round_trip"] is False and row["round_trip_kind"] == "by_design"  # promised: words, one space between
    assert row["round_trip_difference"] == {"index": 4, "expected": "low  low", "got": "low low"}


def test_unknown_rate_and_byte_counts():
    model = BPE(["<unk>", "l", "o", "w", "é", "lo", "low"], [(1, 2), (5, 3)], unk_token="<unk>")
    tok = Tokenizer(model, None, WhitespaceSplit(), ConcatDecoder())
    assert tok.tokenize("lowé xw") == ["low", "é", "<unk>", "w"]
    row = text_stats(tok, "lowé xw")
    assert (row["tokens"], row["code_points"], row["bytes"], row["words"]) == (4, 7, 8, 2)
    assert row["unknown_rate"] == 0.25 and row["bytes_per_token"] == 2.0 and row["chars_per_token"] == 1.75
    assert row["split_words"] == 1.0
    assert row["round_trip"] is False and row["round_trip_difference"]["index"] == 4


def test_words_are_runs_between_unicode_white_space():
    tok = subwordlab.train("a b c \x1f", preset="byte_bpe", vocab_size=256)
    assert text_stats(tok, "a\x1fb c\u3000d")["words"] == 3  # U+001F is not white space, U+3000 is


def test_a_text_the_tokenizer_refuses_gives_an_error_row():
    row = text_stats(seed_tokenizer(), "lowq")
    assert row["tokens"] is None and "not in the vocabulary" in row["error"]
    assert row["code_points"] == 4 and row["words"] == 1


def test_round_trip_is_against_the_normalized_text():
    tok = subwordlab.train("Hello World " * 20, preset="sentencepiece_bpe", vocab_size=40)
    row = text_stats(tok, "  Hello   World ")
    assert tok.normalize_str("  Hello   World ") == "Hello World"
    assert row["round_trip"] is True


def test_parity_relative_to_a_reference_text():
    tok = seed_tokenizer()
    rows = compare_texts(tok, {"a": "lowest newest", "b": "low  low", "c": "lowq"})
    assert rows["a"]["parity"] == 1.0 and rows["b"]["parity"] == 4 / 3 and rows["c"]["parity"] is None
    assert [row["premium"] for row in rows.values()] == [row["parity"] for row in rows.values()]  # two names
    rows = compare_texts(tok, {"a": "lowest newest", "b": "low  low"}, reference="b")
    assert rows["a"]["parity"] == 0.75
    with pytest.raises(ValueError, match="reference text 'z'"):
        compare_texts(tok, {"a": "low"}, reference="z")
    table = format_table(compare_texts(tok, {"a": "lowest newest", "b": "low  low", "c": "lowq"}))
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["text", "tokens", "chars"]
    assert "premium" in lines[0].split() and "parity" not in lines[0]  # the paper's name in the header
    assert lines[1].split()[:5] == ["a", "3", "13", "13", "2"]
    assert "b: round trip differs at character 4" in table and "c: the character 'q'" in table


def test_first_difference():
    assert first_difference("abc", "abc") is None
    assert first_difference("abc", "abd") == {"index": 2, "expected": "abc", "got": "abd"}
    assert first_difference("ab", "abc")["index"] == 2


def test_round_trip_compares_with_the_normalized_text_as_shown():
    import subwordlab
    from subwordlab.stats import pipeline_promise, round_trip, shown_normalized

    assert shown_normalized("de la", "\u2581de\u2581la") == "de la"
    assert shown_normalized(" de", "\u2581\u2581de") == "  de"  # the text's own leading space stays
    assert shown_normalized("a\u2581b", "a\u2581b") == "a\u2581b"  # a ▁ the text had is not a marker
    corpus = "de la liberté et de la justice, la paix dans le monde. " * 20
    for preset in ("unigram", "sentencepiece_unigram", "sentencepiece_bpe", "wordpiece", "byte_bpe"):
        trained = subwordlab.train(corpus, preset=preset, vocab_size=60 if preset != "byte_bpe" else 262)
        imported = subwordlab.from_hf_json(subwordlab.to_hf_json(trained))
        for tok in (trained, imported):
            trip = round_trip(tok, "de la liberté", tok.encode("de la liberté"))
            assert trip["kind"] == "exact", (preset, tok is imported, trip)
            text = "de  la liberté "  # two spaces, a trailing one: kept (byte-level) or dropped by design
            trip = round_trip(tok, text, tok.encode(text))
            assert trip["kind"] in ("exact", "by_design"), (preset, trip)
            if trip["kind"] == "by_design":
                assert trip["decoded"] == pipeline_promise(tok, tok.normalize_str(text)) and trip["reason"]
        assert round_trip(trained, "de  la", trained.encode("de  la"))["kind"] == \
            round_trip(imported, "de  la", imported.encode("de  la"))["kind"]


def test_design_losses_name_what_the_pipeline_changes_on_purpose():
    from subwordlab.stats import design_losses

    assert design_losses("a  b", "a b") == ("this pipeline keeps one space between words (runs of spaces, tabs and "
                                           "newlines are not kept)")
    assert design_losses("hi, you", "hi , you") == ("this pipeline puts a space around punctuation (each mark is a "
                                                   "word of its own)")
    assert design_losses(" a ", "a") == "this pipeline drops leading and trailing white space"
    assert "drops characters such as 'x'" in design_losses("axb", "a b")


def test_normalizer_changes_name_only_the_steps_that_change_the_text():
    from subwordlab.pipeline import normalizers as N
    from subwordlab.stats import normalizer_changes

    bert_uncased = N.Sequence([N.Lowercase(), N.Unicode("NFD"), N.StripAccents()])
    assert normalizer_changes(bert_uncased, "Café") == "the normalizer lower-cases, strips accents"
    assert normalizer_changes(bert_uncased, "Cafe") == "the normalizer lower-cases"
    assert normalizer_changes(bert_uncased, "cafe") == ""
    assert normalizer_changes(N.Unicode("NFKC"), "ﬁne") == "the normalizer applies Unicode NFKC"
    assert normalizer_changes(N.BertNormalizer(), "Hé\t中") == ("the normalizer cleans white space and control "
                                                              "characters, puts spaces around CJK characters, "
                                                              "strips accents, lower-cases")
    assert normalizer_changes(None, "x") == ""


def test_wordpiece_round_trip_by_design_and_a_real_loss_located_against_the_promise():
    from subwordlab.stats import round_trip

    tok = subwordlab.train("the right to life , liberty and security " * 5, preset="wordpiece", vocab_size=60)
    trip = round_trip(tok, "the right, to  life", tok.encode("the right, to  life"))
    assert trip["kind"] == "by_design" and trip["decoded"] == "the right , to life"
    assert "space around punctuation" in trip["reason"] and "one space between words" in trip["reason"]
    trip = round_trip(tok, "the right, to  xife", tok.encode("the right, to  xife"))  # x is unknown
    assert trip["kind"] == "lossy" and trip["decoded"] == "the right , to [UNK]"
    assert trip["difference"]["index"] == len("the right , to ")  # the unknown word, not the spaces before it


def test_design_losses_reads_a_long_text_in_one_pass():
    """A WordPiece-style promise of a 600 KB text (spaced punctuation, runs of white space
    made one) is explained in one pass; difflib's diff, used before, took 8 s on 12 KB of
    the UDHR and grew with the square of the length (hours here)."""
    from subwordlab.stats import _edits, design_losses

    expected = "Article 1.  All human beings,\tare born free; and equal!\n" * 10_000
    promised = "Article 1 . All human beings , are born free ; and equal !" + " Article 1 . All human beings , are " \
        "born free ; and equal !" * 9_999
    assert design_losses(expected, promised) == (
        "this pipeline puts a space around punctuation (each mark is a word of its own) and keeps one space between "
        "words (runs of spaces, tabs and newlines are not kept) and drops leading and trailing white space")
    assert sum(1 for _ in _edits(expected, promised)) == 10_000 * 7  # per line: four spaced marks, two runs of white space, the line break


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 4)), max_size=12),
       st.lists(st.tuples(st.integers(0, 40), st.integers(0, 6)), max_size=30))
def test_tokens_per_word_counts_what_the_direct_loop_counts(gaps, tokens):
    """The difference-array count equals the plain definition (every word a token's span
    overlaps; a zero-width token the word it is in or ends), for any spans, coarse ones too."""
    from subwordlab.stats import tokens_per_word

    words, pos = [], 0
    for gap, length in gaps:
        words.append((pos + gap + 1 if words else pos + gap, pos + gap + 1 + length if words else pos + gap + length))
        pos = words[-1][1]
    offsets = [(s, s + n) for s, n in tokens]
    want = [sum(1 for s, e in offsets if (e > s and s < b and e > a) or (e == s and a <= s <= b)) for a, b in words]
    assert tokens_per_word(words, offsets) == want


@pytest.mark.parametrize("preset, options", [
    ("bpe", {"num_merges": 60}),  # no unk: a character it never saw cannot be encoded
    ("wordpiece", {"vocab_size": 200}),  # [UNK]
    ("unigram", {"vocab_size": 120}),
    ("byte_bpe", {"num_merges": 60}),
    ("sentencepiece_bpe", {"vocab_size": 400, "byte_fallback": True}),
])
def test_token_count_is_text_stats_tokens_and_unknown_rate(preset, options):
    """The premium chart's counts (``token_count``, ids only) are exactly ``text_stats``'
    on texts the tokenizer never saw: other scripts (unknown tokens, byte fallback, or a
    character that cannot be encoded at all), an empty text, a special token typed in."""
    from corpora import UDHR
    from subwordlab.stats import token_count

    train_on = UDHR[0].read_text(encoding="utf-8")[:3000]
    tok = subwordlab.train(train_on, preset=preset, **options)
    texts = [p.read_text(encoding="utf-8")[:800] for p in UDHR] + ["", "   ", "a <unk> [UNK] b"]
    seen_error = False
    for text in texts:
        want = text_stats(tok, text)
        got = token_count(tok, text)
        assert got["tokens"] == want["tokens"], (preset, text[:30])
        if want["tokens"] is None:
            seen_error = True
            assert got["error"] == want["error"]
        else:
            assert got["unknown_rate"] == want["unknown_rate"], (preset, text[:30])
    assert seen_error == (preset == "bpe")


def test_text_stats_of_a_given_encoding_are_those_it_would_compute():
    """Compare passes the encoding its column shows (``encoding=``): the same statistics,
    and the text is not encoded again."""
    tok = subwordlab.train(SEED, preset="bpe", num_merges=8)
    text = "low lowest newest wider"
    enc = tok.encode_full(text, disallowed_special=())
    assert text_stats(tok, text, encoding=enc) == text_stats(tok, text)
    calls = []
    real = tok.encode_full
    tok.encode_full = lambda *a, **k: calls.append(a) or real(*a, **k)
    text_stats(tok, text, encoding=enc)
    assert calls == []
