"""Unigram training on units: every word trains as its *units*, the spans of its lattice no
piece crosses (``unit_spans``), repeated units (of any words) merged, and re-cut as pieces die.
The units must give the E-step the same expected counts and log-likelihood, and the pruning
the same best splits, as the whole words' lattices."""

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_pathological_corpora import _reference_log_space, corpora

from subwordlab.trainers.lattice import Lattices, unit_spans, viterbi
from subwordlab.trainers.unigram import e_step, unigram_steps


def lattice(word, pieces):
    """Every occurrence of every piece in ``word``: ``(start, end, id)`` sorted by start, end."""
    return sorted((s, s + len(p), k) for s in range(len(word)) for k, p in enumerate(pieces) if word.startswith(p, s))


def test_units_of_a_small_lattice():
    pieces = ["a", "b", "c", "ab"]
    edges = lattice("abc", pieces)
    assert unit_spans(edges, 3) == [(0, 2, 0, 3), (2, 3, 3, 4)]
    assert unit_spans(lattice("abab", pieces), 4) == [(0, 2, 0, 3), (2, 4, 3, 6)]
    assert unit_spans(lattice("abab", pieces + ["bab"]), 4) == [(0, 4, 0, 7)]


@settings(max_examples=examples(200), deadline=None)
@given(st.text("abc", min_size=1, max_size=40), st.lists(st.text("abc", min_size=2, max_size=4), max_size=6))
def test_units_cover_the_word_and_no_edge_crosses_a_cut(word, extra):
    pieces = ["a", "b", "c"] + sorted(set(extra))
    edges = lattice(word, pieces)
    units = unit_spans(edges, len(word))
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


def builtunit_spans(words, extra, rng=None):
    """The pieces a, b, c plus `extra`, the distinct `words` (random counts 1-5 from `rng`,
    else 1 each) and their units. Returns (pieces, words, freqs, lattices)."""
    pieces = ["a", "b", "c"] + sorted(set(extra))
    words = list(dict.fromkeys(words))
    freqs = [rng.randint(1, 5) if rng else 1 for _ in words]
    lat = Lattices(5)
    lat.build(pieces, words, freqs)
    return pieces, words, freqs, lat


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.text("abc", min_size=1, max_size=200), min_size=1, max_size=5),
       st.lists(st.text("abc", min_size=2, max_size=5), max_size=8), st.randoms(use_true_random=False))
def test_units_give_the_whole_words_expected_counts_and_best_splits(words, extra, rng):
    pieces, words, freqs, lat = builtunit_spans(words, extra, rng)
    probs = [rng.uniform(0.05, 1.0) for _ in pieces]
    # every word is cut where nothing crosses, repeated units merged: each text once, and
    # every character of the corpus in one unit
    assert sum(f * n for f, n in zip(lat.freqs, lat.lengths)) == sum(f * len(w) for f, w in zip(freqs, words))
    assert len(set(lat.texts)) == len(lat.texts)
    assert all(unit_spans(e, n) == [(0, n, 0, len(e))] for e, n in zip(lat.edges, lat.lengths))
    # E-step: the same expected counts and log-likelihood as the whole words
    scores = [math.log(p) for p in probs]
    got, got_loglik = e_step(lat, scores, [True] * len(pieces))
    want, want_loglik = whole_word_e_step(words, freqs, pieces, probs)
    # (abs_tol: the product of the Z is kept as mantissa and exponent, and its log is
    # log(mantissa) + exponent x log 2, with portable_math's 40 bits: near 0 in all, as
    # exact in absolute terms only, ~1e-11)
    assert math.isclose(got_loglik, want_loglik, rel_tol=1e-9, abs_tol=1e-9)
    assert all(math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9) for a, b in zip(got, want))
    # best splits: the units' best paths, put together, score as the whole word's best path
    best = sum(f * viterbi(e, n, scores)[1] for e, n, f in zip(lat.edges, lat.lengths, lat.freqs))
    whole = sum(f * viterbi(lattice(w, pieces), len(w), scores)[1] for w, f in zip(words, freqs))
    assert math.isclose(best, whole, rel_tol=1e-9)
    # pieces die: the filtered units are the units of the filtered whole words
    alive = [k < 3 or rng.random() < 0.5 for k in range(len(pieces))]
    lat.filter(alive)
    live = [p if a else "\0" for p, a in zip(pieces, alive)]  # (a dead piece matches nothing)
    again = Lattices(5)
    again.build(live, words, freqs)
    # (an entry that fell apart is left empty, text '' and weight 0, until many are)
    assert all(t or (f == 0 and not e) for t, f, e in zip(lat.texts, lat.freqs, lat.edges))
    assert (sorted(u for u in zip(lat.texts, lat.freqs, lat.edges) if u[0])
            == sorted(zip(again.texts, again.freqs, again.edges)))


def whole_word_log_likelihood(counts, pieces):
    """sum of count x log Z over the whole words, each lattice over ``pieces`` ({piece: score})."""
    longest = max(map(len, pieces))
    total = 0.0
    for word, f in counts.items():
        edges = [(s, e, word[s:e]) for s in range(len(word)) for e in range(s + 1, min(len(word), s + longest) + 1)
                 if word[s:e] in pieces]
        names = sorted(pieces)
        ids = {p: k for k, p in enumerate(names)}
        _, log_z = _reference_log_space([(s, e, ids[p]) for s, e, p in edges], len(word),
                                        [pieces[p] for p in names], f)
        total += f * log_z
    return total


@pytest.mark.parametrize("name", ["no_spaces", "random"])
def test_training_on_units_keeps_the_whole_words_log_likelihood_at_every_em_step(name):
    # pathological text (a line without spaces, random bytes), each word whole (no byte
    # bound): at every EM iteration the log-likelihood the units give is the whole words'
    # under the pieces before it, through the pruning rounds, re-cuts and merges of units
    text = corpora()[name][:2500]
    counts = Counter("▁" + w for w in text.split())
    chars = len(set("".join(counts)))
    events = [e for e in unigram_steps(counts, vocab_size=chars + 150, max_sentence_length=None)
              if e.kind != "progress"]
    assert events[0].kind == "alphabet" and sum(e.kind == "prune" for e in events) >= 2
    for before, event in zip(events, events[1:]):
        if event.kind == "em":
            want = whole_word_log_likelihood(counts, dict(before.pieces))
            assert math.isclose(event.log_likelihood, want, rel_tol=1e-9), (event.round, event.iteration)


@pytest.mark.parametrize("name", ["no_spaces", "random"])
@pytest.mark.parametrize("preset", ["unigram", "sentencepiece_unigram"])
def test_each_unigram_preset_trains_a_whole_pathological_corpus_to_its_exact_size(preset, name):
    # the small corpora of test_pathological_corpora with the bound raised: every word
    # trains whole (a 12,000-character line, random bytes), as units
    import subwordlab

    text = corpora()[name]
    vocab = len(set(text)) + 100
    events = list(subwordlab.iter_train(text, preset, vocab_size=vocab, max_sentence_length=10**8))
    assert events[0].notes == ()  # (nothing was limited)
    tok = events[-1].tokenizer
    assert tok.vocab_size == vocab  # (the corpora have substrings enough to fill it)
    assert max(map(len, tok.model.vocab)) > 4  # (longer pieces were learned, not only characters)
    assert tok.decode(tok.encode(text)).split() == tok.normalize_str(text).split()


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.text("abc", min_size=1, max_size=30), min_size=1, max_size=4),
       st.lists(st.text("abc", min_size=2, max_size=5), max_size=8), st.randoms(use_true_random=False))
def test_a_pieces_alternative_cut_from_any_unit_it_occurs_in_equals_its_own_lattice(words, extra, rng):
    # (the first pruning cuts each piece's alternative from a unit where a best split used it)
    pieces, words, _, lat = builtunit_spans(words, extra)
    alive = [k < 3 or rng.random() < 0.7 for k in range(len(pieces))]
    for unit in lat.edges:
        for s, _, i in unit:
            if i < 3 or not alive[i]:
                continue
            want = Lattices(5)
            want.build(pieces, [], [])
            assert (lat.alternatives(i, pieces[i], alive, (unit, s))
                    == want.alternatives(i, pieces[i], alive) == tuple(t for t in lattice(pieces[i], pieces)
                                                                      if t[2] != i and alive[t[2]]))
            lat._own.clear()


@settings(max_examples=examples(100), deadline=None)
@given(st.floats(-1e6, 0.0), st.lists(st.tuples(st.integers(2, 10**6), st.floats(1e-300, 1.0, exclude_min=True)),
                                      max_size=40))
def test_plus_logs_adds_in_the_order_of_a_loop_with_the_same_bits(total, items):
    from subwordlab.base.portable_math import log
    from subwordlab.trainers.lattice import _plus_logs
    want = total
    for f, z in items:
        want += f * log(z)
    counts, zs = [f for f, _ in items], [z for _, z in items]
    assert _plus_logs(total, counts, zs) == want and counts == zs == []
