"""The fast trainers against the textbook ones (trainers/textbook.py): on generated
corpora, every merge (pair, count, new token) is the same, for every tie-break rule."""

from hypothesis import given, settings, strategies as st

import subwordlab
from subwordlab.trainers import textbook

corpora = st.dictionaries(st.text(alphabet="abcde", min_size=1, max_size=7), st.integers(1, 9), min_size=1, max_size=9)
tie_breaks = st.sampled_from(["first", "lex_min", "lex_max"])


def fast(corpus, preset, n, **options):
    events = subwordlab.iter_train(corpus, preset=preset, num_merges=n, **options)
    return [(e.pair, e.count, e.new_token) for e in events if e.kind == "merge"]


@settings(max_examples=150, deadline=None)
@given(corpora, st.integers(0, 14), tie_breaks, st.sampled_from(["</w>", "_", None]))
def test_bpe_equals_the_textbook_loop(corpus, n, tie_break, end_of_word):
    expected = textbook.bpe(corpus, n, end_of_word=end_of_word, tie_break=tie_break)
    assert fast(corpus, "bpe", n, tie_break=tie_break, end_of_word=end_of_word) == expected


@settings(max_examples=150, deadline=None)
@given(corpora, st.integers(0, 14), tie_breaks)
def test_wordpiece_equals_the_textbook_loop(corpus, n, tie_break):
    expected = textbook.wordpiece(corpus, n, tie_break=tie_break)
    assert fast(corpus, "wordpiece", n, tie_break=tie_break, special_tokens=["[UNK]"]) == expected


@settings(max_examples=150, deadline=None)
@given(corpora, st.integers(0, 14), tie_breaks)
def test_frequency_wordpiece_equals_the_textbook_loop(corpus, n, tie_break):
    expected = textbook.wordpiece(corpus, n, tie_break=tie_break, scoring="frequency")
    assert fast(corpus, "wordpiece", n, tie_break=tie_break, special_tokens=["[UNK]"], scoring="frequency") == expected


def test_the_textbook_loops_stop_when_nothing_is_left():
    assert textbook.bpe({"ab": 1}, 5) == [(("a", "b"), 1, "ab")]
    assert textbook.wordpiece({"a": 3}, 5) == []
    assert textbook.wordpiece({"a": 3}, 5, scoring="frequency") == []
