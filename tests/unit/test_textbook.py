"""The fast trainers against the textbook ones (trainers/textbook.py): on generated
corpora, every merge (pair, count, new token) is the same, for every tie-break rule."""

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from subwordlab.trainers import textbook

corpora = st.dictionaries(st.text(alphabet="abcde", min_size=1, max_size=7), st.integers(1, 9), min_size=1, max_size=9)
tie_breaks = st.sampled_from(["first", "lex_min", "lex_max"])


def fast(corpus, preset, n, **options):
    events = subwordlab.iter_train(corpus, preset=preset, num_merges=n, **options)
    return [(e.pair, e.count, e.new_token) for e in events if e.kind == "merge"]


@settings(max_examples=examples(150), deadline=None)
@given(corpora, st.integers(0, 14), tie_breaks, st.sampled_from(["</w>", "_", None]))
def test_bpe_equals_the_textbook_loop(corpus, n, tie_break, end_of_word):
    expected = textbook.bpe(corpus, n, end_of_word=end_of_word, tie_break=tie_break)
    assert fast(corpus, "bpe", n, tie_break=tie_break, end_of_word=end_of_word) == expected


# long words over two or three letters: a pair occurs many times in one word, so the
# incremental bookkeeping of where each pair first occurs is put to the test
long_word_corpora = st.dictionaries(st.text(alphabet="abc", min_size=1, max_size=60), st.integers(1, 3), min_size=1,
                                    max_size=4)


@settings(max_examples=examples(300), deadline=None)
@given(long_word_corpora, st.integers(0, 30), st.sampled_from(["</w>", None]))
def test_bpe_on_long_words_equals_the_textbook_loop(corpus, n, end_of_word):
    expected = textbook.bpe(corpus, n, end_of_word=end_of_word)
    assert fast(corpus, "bpe", n, end_of_word=end_of_word) == expected


def _fresh_first(words, sym_len, pair):
    """Where ``pair`` first occurs, by a scan of every word from the start, as PairIndex.first
    writes it: the slot of its left symbol, the words laid out one after another, one slot
    per base symbol, each word after a separator slot (the index's base symbols span one each)."""
    start = 1
    for syms in words:
        off = 0
        for x, y in zip(syms, syms[1:]):
            if (x, y) == pair:
                return start + off
            off += sym_len[x]
        start += sum(sym_len[s] for s in syms) + 1
    return None


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(alphabet="abc", min_size=1, max_size=40), min_size=1, max_size=4), st.data())
def test_the_pair_index_keeps_first_occurrences_exact_through_merges(texts, data):
    # the cached first occurrences, kept up to date merge by merge, equal a scan from scratch
    from subwordlab.trainers.pairs import PairIndex, slots_of

    index = PairIndex([tuple("abc".index(ch) for ch in t) for t in texts], [1] * len(texts), [1, 1, 1])
    for _ in range(data.draw(st.integers(1, 12))):
        if not index.counts:
            break
        a, b = data.draw(st.sampled_from(sorted(index.counts)))
        for pair in data.draw(st.lists(st.sampled_from(sorted(index.counts)), max_size=4)):
            index.first_occurrence(pair)  # (cached from now on)
        # the merged token is new, or one of the same length that exists (BPE reuses the id of a
        # token built twice, 'ab'+'c' and 'a'+'bc'): then its pairs may be cached already
        size = index.sym_len[a] + index.sym_len[b]
        new = data.draw(st.sampled_from([len(index.sym_len)] + [t for t, n in enumerate(index.sym_len) if n == size]))
        if new == len(index.sym_len):
            index.sym_len.append(size)
        index.merge((a, b), new)
        for pair, at in index.first.items():
            assert at == _fresh_first(index.words, index.sym_len, pair), (pair, at)
        assert all(list(slots_of(ws)) == sorted(slots_of(ws)) for ws in index.where.values())  # (a reused id too)


def test_first_occurrences_stay_exact_through_overlapping_merges():
    # a, a, a, a, a merged by (a, a): the (aa, a) the first occurrence makes is gone at the
    # second, and made again after it; its first occurrence moves on
    from subwordlab.trainers.pairs import PairIndex

    for texts in (["aaaaa"], ["baaaaab", "aaa"], ["aaaaaaa", "aaaaa"]):
        index = PairIndex([tuple("ab".index(ch) for ch in t) for t in texts], [1] * len(texts), [1, 1])
        for a, b in [(0, 0), (2, 0), (2, 2)]:
            if (a, b) in index.counts:
                index.sym_len.append(index.sym_len[a] + index.sym_len[b])
                index.merge((a, b), len(index.sym_len) - 1)
            for pair in index.counts:
                assert index.first_occurrence(pair) == _fresh_first(index.words, index.sym_len, pair), (texts, pair)


@settings(max_examples=examples(150), deadline=None)
@given(corpora, st.integers(0, 14), tie_breaks)
def test_wordpiece_equals_the_textbook_loop(corpus, n, tie_break):
    expected = textbook.wordpiece(corpus, n, tie_break=tie_break)
    assert fast(corpus, "wordpiece", n, tie_break=tie_break, special_tokens=["[UNK]"]) == expected


@settings(max_examples=examples(150), deadline=None)
@given(corpora, st.integers(0, 14), tie_breaks)
def test_frequency_wordpiece_equals_the_textbook_loop(corpus, n, tie_break):
    expected = textbook.wordpiece(corpus, n, tie_break=tie_break, scoring="frequency")
    assert fast(corpus, "wordpiece", n, tie_break=tie_break, special_tokens=["[UNK]"], scoring="frequency") == expected


def test_the_textbook_loops_stop_when_nothing_is_left():
    assert textbook.bpe({"ab": 1}, 5) == [(("a", "b"), 1, "ab")]
    assert textbook.wordpiece({"a": 3}, 5) == []
    assert textbook.wordpiece({"a": 3}, 5, scoring="frequency") == []


def _merged_words(words, pair, new):
    """Every word with ``pair`` merged into ``new``, left to right, as the textbook does."""
    return [tuple(textbook.merge_pair(syms, pair, new)) for syms in words]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.text(alphabet="abc", min_size=1, max_size=40), min_size=1, max_size=5),
       st.lists(st.integers(1, 5), min_size=5, max_size=5), st.data())
def test_the_pair_index_keeps_words_and_counts_exact_through_merges(texts, freqs, data):
    # the linked slots and the counts added up per neighbour symbol equal the textbook's
    # words and a recount from scratch after every merge, and every live occurrence of a
    # pair is among its slots in ``where`` (which may hold slots that lost it)
    from collections import Counter

    from subwordlab.trainers.pairs import PairIndex, slots_of

    words = [tuple("abc".index(ch) for ch in t) for t in texts]
    freqs = freqs[:len(words)]
    index = PairIndex(list(words), freqs, [1, 1, 1])
    for _ in range(data.draw(st.integers(1, 12))):
        if not index.counts:
            break
        a, b = data.draw(st.sampled_from(sorted(index.counts)))
        new = len(index.sym_len)
        index.sym_len.append(index.sym_len[a] + index.sym_len[b])
        before = dict(index.counts)
        gained, shrunk, merged = index.merge((a, b), new)
        # every pair whose count rose is among the gained (each holds the new token), every
        # pair whose count fell among the shrunk: the ranking re-keys exactly those
        after = index.counts
        assert all(new in p for p in gained)
        assert {p for p in after if after[p] > before.get(p, 0)} <= set(gained)
        assert {p for p in before if p != (a, b) and after.get(p, 0) < before[p]} <= set(shrunk)
        expected = _merged_words(words, (a, b), new)
        assert merged == sum(f * (len(w) - len(m)) for w, m, f in zip(words, expected, freqs))
        words = expected
        assert index.words == words
        recount = Counter()
        for syms, f in zip(words, freqs):
            for p in zip(syms, syms[1:]):
                recount[p] += f
        assert index.counts == dict(recount)
        slots = {}  # each live pair's slots: a symbol and the next one in its word
        for i, x in enumerate(index.sym):
            if x >= 0 and index.sym[index.nxt[i]] >= 0:
                slots.setdefault((x, index.sym[index.nxt[i]]), set()).add(i)
        for p, live in slots.items():
            assert live <= set(slots_of(index.where[p])), p
        # in slot order: merges and first-occurrence searches go through it left to right
        assert all(list(slots_of(ws)) == sorted(slots_of(ws)) for ws in index.where.values())


def _ranked_pairs(words, tie_break):
    """Every pair of ``words`` ([(symbols, count)]) with its count, best first (a recount)."""
    _, pairs = textbook.count_units_and_pairs(words)
    return [(p, pairs[p]) for p in textbook.ranked_pairs(pairs, tie_break)]


@settings(max_examples=examples(150), deadline=None)
@given(corpora, st.integers(1, 14), tie_breaks, st.integers(1, 6))
def test_bpe_candidates_are_the_best_pairs_of_a_full_recount(corpus, n, tie_break, k):
    # each step's candidates are the k best pairs of a recount from scratch, the chosen one
    # first: the ranking's parked pairs (below its floor) are never left out of them
    words = [(list(w), c) for w, c in corpus.items()]
    events = subwordlab.iter_train(corpus, preset="bpe", num_merges=n, tie_break=tie_break, top_k=k, end_of_word=None)
    for step in (e for e in events if e.kind == "merge"):
        assert step.candidates == _ranked_pairs(words, tie_break)[:k]
        words = [(textbook.merge_pair(symbols, step.pair, step.new_token), c) for symbols, c in words]


def test_the_ranking_parks_rare_pairs_and_brings_them_back_when_needed():
    # a pair occurring 50 times and many rare ones: the rare ones wait outside the heap until
    # the best ones are merged away, and come back in full-recount order
    from subwordlab.trainers.bpe import Ranking, merge_steps
    from subwordlab.trainers.pairs import PairIndex

    vocab = list("abcdefgh")
    words = [(0, 1)] + [(x, y) for x in range(2, 8) for y in range(2, 8) if x != y]
    index = PairIndex(words, [50] + [1 + (x + y) % 3 for x in range(2, 8) for y in range(2, 8) if x != y], [1] * 8)
    ranking = Ranking(index, list(vocab), "first", None)
    assert ranking.floor == 16 and sum(map(len, ranking.parked.values())) == len(words) - 1  # (a power of two)
    assert len(ranking.heap) == 1
    steps = [s for s in merge_steps(index, vocab, num_merges=3, top_k=4) if s.kind == "merge"]
    expected = _ranked_pairs([(tuple(vocab[i] for i in w), f) for w, f in zip(words, index.freqs)], "first")
    assert steps[0].candidates == expected[:4] and steps[0].pair == ("a", "b")
    assert [s.pair for s in steps[1:]] == [p for p, _ in expected[1:3]]


@settings(max_examples=examples(150), deadline=None)
@given(corpora, st.integers(1, 14), tie_breaks, st.integers(1, 6))
def test_wordpiece_candidates_are_the_best_scores_of_a_full_recount(corpus, n, tie_break, k):
    # by score too, each step's candidates are the k best pairs of a recount from scratch
    # (exact fractions), however many the ranking parked below its floor
    from fractions import Fraction

    words = [([w[0]] + ["##" + c for c in w[1:]], c) for w, c in corpus.items()]
    events = subwordlab.iter_train(corpus, preset="wordpiece", num_merges=n, tie_break=tie_break, top_k=k,
                                   special_tokens=["[UNK]"])
    for step in (e for e in events if e.kind == "merge"):
        units, pairs = textbook.count_units_and_pairs(words)
        ranked = textbook.ranked_pairs({p: Fraction(c, units[p[0]] * units[p[1]]) for p, c in pairs.items()}, tie_break)
        assert [(p, c) for p, c, _ in step.candidates] == [(p, pairs[p]) for p in ranked[:k]]
        words = [(textbook.merge_pair(symbols, step.pair, step.new_token), c) for symbols, c in words]
