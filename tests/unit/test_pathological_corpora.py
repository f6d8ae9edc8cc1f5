"""Pathological corpora train with every algorithm (small sizes here; full sizes, time and
peak memory against SentencePiece in bench/bench_pathological.py): one repeated character
(a single huge word), a long line without spaces, random bytes decoded leniently. A huge
word trains as runs of at most MAX_WORD_SYMBOLS symbols, so its cost is that of many
ordinary words; a training that would learn no token is refused with a message."""

import random

import pytest

import subwordlab
from subwordlab.corpus import MAX_WORD_SYMBOLS, CorpusError, cut_long

from corpora import read

PRESETS = ["bpe", "byte_bpe", "wordpiece", "unigram", "sentencepiece_bpe", "sentencepiece_unigram"]


def corpora():
    rng = random.Random(13)
    return {
        "repeated": "a" * (3 * MAX_WORD_SYMBOLS + 17),
        "no_spaces": "".join(read("tinyshakespeare.txt")[:12_000].split()),
        "random": bytes(rng.randrange(256) for _ in range(3_000)).decode("utf-8", "replace"),
    }


@pytest.mark.parametrize("name", ["repeated", "no_spaces", "random"])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_algorithm_trains_on_pathological_corpora(preset, name):
    text = corpora()[name]
    options = {"max_input_chars_per_word": 20_000} if preset == "wordpiece" else {}
    tok = subwordlab.train(text, preset, vocab_size=3000 if name == "random" else 400, **options)
    assert tok.vocab_size > len(tok.special_tokens)
    sample = text[:300]
    if preset == "wordpiece":
        assert tok.encode(sample)  # (WordPiece's decoder does not restore every character)
    else:
        # every character comes back (white space as the preset's decoder writes it)
        assert tok.decode(tok.encode(sample)).split() == tok.normalize_str(sample).split()


def test_a_huge_word_trains_as_runs_of_bounded_length():
    assert cut_long("abcde", 2) == ["ab", "cd", "e"] and cut_long("ab", 2) == ["ab"]
    # Unigram: the identical runs of a repeated character are one distinct word
    events = list(subwordlab.iter_train("a" * (5 * MAX_WORD_SYMBOLS), "unigram", vocab_size=30))
    assert events[0].distinct_words == 1  # (the counted word, before cutting)
    tok = events[-1].tokenizer
    assert max(len(p) for p in tok.model.vocab) <= 17  # pieces stay within max_piece_length (+ ▁)
    # BPE: merges never cross a cut, so no token is longer than a run
    bpe = subwordlab.train("ab" * MAX_WORD_SYMBOLS, "bpe", num_merges=30, end_of_word=None)
    assert max(map(len, bpe.model.vocab)) <= MAX_WORD_SYMBOLS


def test_a_training_that_would_learn_no_token_is_refused():
    with pytest.raises(CorpusError, match="every word of the corpus is longer than max_input_chars_per_word=100"):
        subwordlab.train("a" * 300, "wordpiece", vocab_size=100)
    with pytest.raises(CorpusError, match="empty"):
        subwordlab.train("<s>", "bpe", vocab_size=100, special_tokens=["<s>"])


def _reference_log_space(edges, n, scores, f):
    """The textbook forward-backward in log space: (expected counts by piece, log Z)."""
    import math

    def logaddexp(a, b):
        a, b = max(a, b), min(a, b)
        return a if b == -math.inf else a + math.log1p(math.exp(b - a))

    fwd = [-math.inf] * (n + 1)
    fwd[0] = 0.0
    for s, e, i in edges:
        fwd[e] = logaddexp(fwd[e], fwd[s] + scores[i])
    bwd = [-math.inf] * (n + 1)
    bwd[n] = 0.0
    expected = [0.0] * len(scores)
    for s, e, i in reversed(edges):
        v = scores[i] + bwd[e]
        bwd[s] = logaddexp(bwd[s], v)
        expected[i] += f * math.exp(fwd[s] + v - fwd[n])
    return expected, fwd[n]


@pytest.mark.parametrize("scale", [1.0, 1e-30])
def test_the_scaled_forward_backward_of_a_long_word_equals_the_log_space_one(scale):
    import math

    from subwordlab.trainers.unigram import _forward_backward_scaled

    rng = random.Random(5)
    pieces = ["a", "b", "ab", "ba", "aab", "abab", "bbbbbbbb"]
    probs = [rng.uniform(0.01, 0.3) * scale for _ in pieces]  # 1e-30: underflows within a dozen characters
    word = "".join(rng.choice("ab") for _ in range(600))
    edges = sorted((s, s + len(p), k) for s in range(len(word)) for k, p in enumerate(pieces) if word.startswith(p, s))
    expected = [0.0] * len(pieces)
    log_z = _forward_backward_scaled(edges, len(word), probs, 3, expected)
    want, want_z = _reference_log_space(edges, len(word), [math.log(p) for p in probs], 3)
    assert math.isclose(log_z, want_z, rel_tol=1e-9)
    assert all(math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9) for a, b in zip(expected, want))
