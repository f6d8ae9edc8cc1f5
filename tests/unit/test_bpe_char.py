"""Char-level BPE: corpus input, tie-breaks, merging rules, unknowns, dropout."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from subwordlab import CorpusError, parse_word_counts
from subwordlab.trainers import textbook


def test_word_count_text_and_dict_give_the_same_model():
    text = "low 5\nlower 2\n\nnewest 6\nwidest 3\n"
    a = subwordlab.train(parse_word_counts(text), num_merges=8)
    b = subwordlab.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=8)
    assert a.merges == b.merges


@pytest.mark.parametrize("bad, message", [
    ({}, "empty"),
    ({"low": 0}, "positive integer"),
    ({"low": 2.5}, "positive integer"),
    ({"low": True}, "positive integer"),
    ({"lo w": 3}, "white space"),
    ({"low</w>": 3}, "end-of-word marker"),
    ({"": 3}, "non-empty"),
])
def test_bad_word_counts_say_what_to_fix(bad, message):
    with pytest.raises(CorpusError, match=message):
        subwordlab.train(bad, num_merges=3)


@pytest.mark.parametrize("text, message", [
    ("low five", "positive integer written with the digits 0-9"), ("low 5 6", "expected 'word count'"), ("\n\n", "empty"),
    ("a 1\nlow \u00b2", r"^line 2: the count '\u00b2' of 'low' must be a positive integer written with the digits 0-9, "
                       r"from 1 to 1,000,000,000,000 \(e.g. 'low 5'\)$"),
    ("low \u0665", "digits 0-9"),  # an Arabic-Indic five: int() would read it as 5
    ("low -3", "^line 1: the count '-3' of 'low' must be a positive integer written with the digits 0-9"),
    ("low 0", "^line 1: the count of 'low' is 0; give a count of at least 1, or remove the line$"),
    ("low 000", "is 0"),
    ("low " + "9" * 5000, r"^line 1: the count '99999999… \(5,000 characters\)' of 'low' is too large; counts go up to "
                          r"1,000,000,000,000"),
    ("low 1000000000001", "too large"),
    ("low 5\nlower 2\nlow 3", r"^line 3: 'low' is already on line 1; list each word once \(with the counts added: 'low 8'\)$"),
])
def test_bad_word_count_lines(text, message):
    with pytest.raises(CorpusError, match=message):
        parse_word_counts(text)


def test_empty_and_binary_raw_corpus():
    with pytest.raises(CorpusError, match="empty"):
        subwordlab.train("   \n ", num_merges=3)
    with pytest.raises(CorpusError, match="decode it first"):
        subwordlab.train(b"low lower", num_merges=3)


def test_exactly_one_of_vocab_size_and_num_merges():
    with pytest.raises(ValueError, match="exactly one"):
        subwordlab.train({"low": 1})
    with pytest.raises(ValueError, match="exactly one"):
        subwordlab.train({"low": 1}, vocab_size=10, num_merges=2)


def test_unknown_option_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown option 'dropuot'.*end_of_word"):
        subwordlab.train({"low": 1}, num_merges=1, dropuot=0.1)


def test_merging_is_left_to_right_without_overlap():
    tok = subwordlab.train({"aaa": 1}, num_merges=1, end_of_word=None)
    assert tok.tokenize("aaa") == ["aa", "a"]
    assert tok.tokenize("aaaa") == ["aa", "aa"]


def test_tie_break_rules():
    corpus = {"xy": 1, "ab": 1}
    first = subwordlab.train(corpus, num_merges=1, end_of_word=None)
    lex_min = subwordlab.train(corpus, num_merges=1, end_of_word=None, tie_break="lex_min")
    lex_max = subwordlab.train(corpus, num_merges=1, end_of_word=None, tie_break="lex_max")
    assert [first.id_to_token(i) for i in first.merges[0]] == ["x", "y"]  # met first
    assert [lex_min.id_to_token(i) for i in lex_min.merges[0]] == ["a", "b"]
    assert [lex_max.id_to_token(i) for i in lex_max.merges[0]] == ["x", "y"]
    with pytest.raises(ValueError, match="tie_break"):
        subwordlab.train(corpus, num_merges=1, tie_break="random")


def test_lex_max_prefers_the_largest_pair():
    tok = subwordlab.train({"ab": 1, "xy": 1, "xz": 1, "ay": 1}, num_merges=1, end_of_word=None, tie_break="lex_max")
    assert [tok.id_to_token(i) for i in tok.merges[0]] == ["x", "z"]


def test_vocab_size_counts_every_token_and_min_frequency_stops():
    corpus = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    tok = subwordlab.train(corpus, vocab_size=15)
    assert tok.vocab_size == 15
    stopped = subwordlab.train(corpus, vocab_size=100, min_frequency=6)
    steps = [e for e in subwordlab.iter_train(corpus, vocab_size=100, min_frequency=6) if e.kind == "merge"]
    assert all(e.count >= 6 for e in steps) and len(stopped.merges) == len(steps)
    with pytest.raises(ValueError, match="smaller than the starting vocabulary"):
        subwordlab.train(corpus, vocab_size=3)


def test_unknown_character_error_or_unk():
    tok = subwordlab.train({"low": 5}, num_merges=2)
    with pytest.raises(ValueError, match=r"'q' \(U\+0071\) is not in the vocabulary.*unk_token"):
        tok.encode("lowq")
    tok = subwordlab.train({"low": 5}, num_merges=2, unk_token="<unk>")
    assert tok.tokenize("lqw") == ["l", "<unk>", "w", "</w>"]


def test_events_have_candidates_and_vocab_sizes():
    events = list(subwordlab.iter_train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3, top_k=3))
    assert events[0].kind == "alphabet" and events[0].vocab_size == 11
    merges = [e for e in events if e.kind == "merge"]
    assert [e.rank for e in merges] == [0, 1, 2]
    assert [e.vocab_size for e in merges] == [12, 13, 14]
    assert merges[0].candidates == [(("e", "s"), 9), (("s", "t"), 9), (("t", "</w>"), 9)]
    assert events[-1].kind == "done" and events[-1].steps == 3


def test_dropout_is_reproducible_by_seed_and_zero_means_plain():
    from subwordlab.models.bpe import make_rng

    tok = subwordlab.train("the quick brown fox jumps over the lazy dog " * 20, num_merges=40)
    m = tok.model
    word = "jumps"
    plain = m.encode_piece(word)
    assert m.encode_piece(word, dropout=0.0, rng=make_rng(1)) == plain
    a = [m.encode_piece(word, dropout=0.5, rng=make_rng(7)) for _ in range(3)]
    b = [m.encode_piece(word, dropout=0.5, rng=make_rng(7)) for _ in range(3)]
    assert a == b
    everything = m.encode_piece(word, dropout=1.0, rng=make_rng(3))
    assert len(everything) == len(word) + 1  # p = 1: single characters and the marker


@settings(max_examples=examples(60))
@given(st.dictionaries(st.text(alphabet="abcde", min_size=1, max_size=6), st.integers(1, 9), min_size=1, max_size=8),
       st.integers(0, 12))
def test_incremental_training_equals_the_textbook_loop(corpus, n):
    """Our incremental trainer gives the merges of seed 000's full-recount loop (trainers/textbook.py)."""
    book = textbook.bpe(corpus, n, end_of_word="</w>")
    expected = [(pair, count) for pair, count, _ in book]
    words = [tuple(w) + ("</w>",) for w in corpus]
    for pair, _, new in book:  # the training words' final segmentation
        words = [tuple(textbook.merge_pair(list(w), pair, new)) for w in words]
    got = [(e.pair, e.count) for e in subwordlab.iter_train(corpus, num_merges=n) if e.kind == "merge"]
    assert got == expected
    tok = subwordlab.train(corpus, num_merges=n)
    for symbols in words:  # encoding replays the merges: the training words' final segmentation
        assert tuple(tok.tokenize("".join(symbols).replace("</w>", ""))) == symbols


def test_offsets_point_into_the_original_text():
    tok = subwordlab.train("lower newest widest lowest", num_merges=12)
    text = "  lowest\tnewer "
    enc = tok.encode_full(text)
    assert [text[s:e] for s, e in enc.offsets if e > s] == [t.replace("</w>", "") for t in enc.tokens if t != "</w>"]
    assert tok.decode(enc.ids) == "lowest newer"


def test_counts_up_to_the_documented_bound_train_with_every_algorithm():
    from subwordlab.text.corpus import MAX_COUNT

    text = f"low {MAX_COUNT}\nlower 2\nnewest {MAX_COUNT - 1}\nwidest 3\n" + "".join(f"w{i}x 7\n" for i in range(30))
    counts = parse_word_counts(text)
    assert parse_word_counts("low 0001000000000000") == {"low": MAX_COUNT}
    for preset, size in [("bpe", 60), ("byte_bpe", 270), ("wordpiece", 60), ("unigram", 40),
                         ("sentencepiece_bpe", 60), ("sentencepiece_unigram", 40)]:
        tok = subwordlab.train(counts, preset, vocab_size=size)
        assert tok.decode(tok.encode("low newest")).split() == ["low", "newest"], preset
    with pytest.raises(CorpusError, match="too large"):
        subwordlab.train({"low": MAX_COUNT + 1}, num_merges=2)
    with pytest.raises(CorpusError, match=r"too large \(401 digits\)"):  # (once an OverflowError in Unigram)
        subwordlab.train({"low": 10**400, "lower": 2}, "unigram", vocab_size=10)
