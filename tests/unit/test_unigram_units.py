"""Unigram training on long words: a word longer than ``_WHOLE_MAX`` characters trains
as its *units*, the spans of its lattice no piece crosses (``_units``), repeated units
merged. The units must give the E-step the same expected counts and log-likelihood, and the
pruning the same best splits, as the whole word's lattice."""

import math

from hypothesis import given, settings, strategies as st

from subwordlab.events import drain
from test_pathological_corpora import _reference_log_space
from subwordlab.trainers.unigram import _WHOLE_MAX, _Lattices, _e_step, _units, _viterbi


def lattice(word, pieces):
    """Every occurrence of every piece in ``word``: ``(start, end, id)`` sorted by start, end."""
    return sorted((s, s + len(p), k) for s in range(len(word)) for k, p in enumerate(pieces) if word.startswith(p, s))


def test_units_of_a_small_lattice():
    pieces = ["a", "b", "c", "ab"]
    edges = lattice("abc", pieces)
    assert _units(edges, 3) == [(0, 2, 0, 3), (2, 3, 3, 4)]
    assert _units(lattice("abab", pieces), 4) == [(0, 2, 0, 3), (2, 4, 3, 6)]
    assert _units(lattice("abab", pieces + ["bab"]), 4) == [(0, 4, 0, 7)]


@settings(max_examples=200, deadline=None)
@given(st.text("abc", min_size=1, max_size=40), st.lists(st.text("abc", min_size=2, max_size=4), max_size=6))
def test_units_cover_the_word_and_no_edge_crosses_a_cut(word, extra):
    pieces = ["a", "b", "c"] + sorted(set(extra))
    edges = lattice(word, pieces)
    units = _units(edges, len(word))
    # the spans follow each other from 0 to n, and so do their edge ranges
    assert units[0][0] == 0 and units[-1][1] == len(word) and units[-1][3] == len(edges)
    for (_a, b, _first, last), (a2, _, first2, _) in zip(units, units[1:]):
        assert b == a2 and last == first2
    for a, b, first, last in units:
        assert a < b and all(a <= s and e <= b for s, e, _ in edges[first:last])
        # a cut is only where nothing crosses: every position inside a span is crossed
        assert all(any(s < p < e for s, e, _ in edges[first:last]) for p in range(a + 1, b))


def whole_word_e_step(words, freqs, pieces, probs):
    """Expected counts and log-likelihood, each word's lattice whole, in log space (reference)."""
    expected, total = [0.0] * len(pieces), 0.0
    for word, f in zip(words, freqs):
        got, log_z = _reference_log_space(lattice(word, pieces), len(word), [math.log(p) for p in probs], f)
        expected = [a + b for a, b in zip(expected, got)]
        total += f * log_z
    return expected, total


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("abc", min_size=1, max_size=200), min_size=1, max_size=5),
       st.lists(st.text("abc", min_size=2, max_size=5), max_size=8), st.randoms(use_true_random=False))
def test_units_give_the_whole_words_expected_counts_and_best_splits(words, extra, rng):
    pieces = ["a", "b", "c"] + sorted(set(extra))
    words = list(dict.fromkeys(words))
    freqs = [rng.randint(1, 5) for _ in words]
    probs = [rng.uniform(0.05, 1.0) for _ in pieces]
    lat = _Lattices(5)
    drain(lat.build(pieces, words, freqs))
    # a short word is one entry; a long one is cut where nothing crosses, repeats merged
    assert all(n <= _WHOLE_MAX or not split for n, split in zip(lat.lengths, lat.splits))
    assert sum(f * n for f, n in zip(lat.freqs, lat.lengths)) == sum(f * len(w) for f, w in zip(freqs, words))
    assert len(set(t for t, s in zip(lat.texts, lat.splits) if s)) == sum(lat.splits)
    # E-step: the same expected counts and log-likelihood as the whole words
    scores = [math.log(p) for p in probs]
    got, got_loglik = drain(_e_step(lat.edges, lat.lengths, lat.freqs, scores, [True] * len(pieces)))
    want, want_loglik = whole_word_e_step(words, freqs, pieces, probs)
    assert math.isclose(got_loglik, want_loglik, rel_tol=1e-9)
    assert all(math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9) for a, b in zip(got, want))
    # best splits: the units' best paths, put together, score as the whole word's best path
    best = sum(f * _viterbi(e, n, scores)[1] for e, n, f in zip(lat.edges, lat.lengths, lat.freqs))
    whole = sum(f * _viterbi(lattice(w, pieces), len(w), scores)[1] for w, f in zip(words, freqs))
    assert math.isclose(best, whole, rel_tol=1e-9)
    # pieces die: the filtered units are the units of the filtered whole words
    alive = [k < 3 or rng.random() < 0.5 for k in range(len(pieces))]
    drain(lat.filter(alive))
    live = [p if a else "\0" for p, a in zip(pieces, alive)]  # (a dead piece matches nothing)
    again = _Lattices(5)
    drain(again.build(live, words, freqs))
    assert sorted(zip(lat.texts, lat.freqs, lat.edges)) == sorted(zip(again.texts, again.freqs, again.edges))
