"""The WordPiece and Unigram worked examples of the lessons in lessons/, reproduced exactly."""

import math
import random

import pytest

import subwordlab
from subwordlab.models.unigram import Unigram
from subwordlab.models.wordpiece import WordPiece

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)


def first_merge(corpus, **options):
    events = subwordlab.iter_train(corpus, preset="wordpiece", num_merges=1, top_k=1000, **options)
    return next(e for e in events if e.kind == "merge")


# -- seed 004: BPE's choice vs WordPiece's choice on token/stem --------------------------
SEED4 = {"token": 6, "tokens": 4, "tokenize": 3, "tokenizer": 2, "stem": 4, "stems": 3, "stemming": 2}


def test_seed004_wordpiece_chooses_by_score_not_by_count():
    step = first_merge(SEED4)
    # best WordPiece pair: ('##i', '##z') count 5 score 0.1429
    assert (step.pair, step.count, round(step.score, 4)) == (("##i", "##z"), 5, 0.1429)
    assert step.part_counts == (7, 5)  # ##i: tokenize, tokenizer, stemming; ##z: tokenize, tokenizer
    assert step.candidates[0] == (("##i", "##z"), 5, step.score)
    # most frequent pair: ('t', '##o') count 15 score 0.0667 -- the first by count (first on a tie)
    by_count = max(step.candidates, key=lambda c: c[1])
    assert (by_count[0], by_count[1], round(by_count[2], 4)) == (("t", "##o"), 15, 0.0667)
    # every candidate's score is its count over the product of its parts' counts
    scores = [c[2] for c in step.candidates]
    assert scores == sorted(scores, reverse=True)


def test_seed004_words_start_as_characters_with_continuation_prefix():
    events = list(subwordlab.iter_train(SEED4, preset="wordpiece", num_merges=0))
    alphabet = events[0].alphabet
    assert {"s", "t", "##t", "##e", "##m", "##i", "##n", "##g"} <= set(alphabet)
    assert "##s" in alphabet and "e" not in alphabet  # no word starts with e
    tok = events[-1].tokenizer
    assert tok.tokenize("stemming") == ["s", "##t", "##e", "##m", "##m", "##i", "##n", "##g"]


# -- seed 002: hug/pug/pun/bun/hugs: WordPiece merges ##g ##s, BPE merges u g ------------
SEED2 = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def test_seed002_wordpiece_merges_g_s_because_s_only_follows_g():
    step = first_merge(SEED2)
    assert step.pair == ("##g", "##s") and step.new_token == "##gs"
    assert step.count == 5 and step.part_counts == (20, 5) and step.score == 5 / (20 * 5)
    bpe = next(e for e in subwordlab.iter_train(SEED2, preset="bpe", num_merges=1, end_of_word=None) if e.kind == "merge")
    assert bpe.pair == ("u", "g")


# -- seed 000: wordpiece_word -------------------------------------------------------------
def test_seed000_wordpiece_word_examples():
    m = WordPiece(["[UNK]", "play", "##ing", "##s"])
    tokens = {w: [m.vocab[i] for i in m.encode_piece(w)] for w in ("playing", "plays", "playz")}
    assert tokens == {"playing": ["play", "##ing"], "plays": ["play", "##s"], "playz": ["[UNK]"]}


# -- seed 000 / 002: the Unigram toy: P(a)=0.4, P(b)=0.3, P(ab)=0.1 -----------------------
def toy():
    return Unigram.from_pieces([("<unk>", 0.0), ("a", math.log(0.4)), ("b", math.log(0.3)), ("ab", math.log(0.1))])


def test_unigram_toy_best_path_is_a_b():
    m = toy()
    assert [m.vocab[i] for i in m.encode_piece("ab")] == ["a", "b"]  # 0.12 > 0.1


def test_unigram_toy_nbest_and_conditional_probabilities():
    m = toy()
    best = m.nbest(["ab"], 5)
    assert [[m.vocab[i] for i in ids] for ids, _ in best] == [["a", "b"], ["ab"]]
    assert math.exp(best[0][1]) == pytest.approx(0.12) and math.exp(best[1][1]) == pytest.approx(0.1)
    z = sum(math.exp(lp) for _, lp in best)
    assert [round(math.exp(lp) / z, 3) for _, lp in best] == [0.545, 0.455]


def test_unigram_toy_sampling_converges_and_is_reproducible():
    m = toy()
    rng = random.Random(7)
    draws = [tuple(m.sample_piece("ab", 1.0, rng)) for _ in range(4000)]
    share = draws.count((m.token_to_id["a"], m.token_to_id["b"])) / len(draws)
    assert abs(share - 0.12 / 0.22) < 0.03
    assert set(draws) == {(1, 2), (3,)}
    again = random.Random(7)
    assert [tuple(m.sample_piece("ab", 1.0, again)) for _ in range(4000)] == draws


def test_unigram_toy_through_the_tokenizer():
    tok = subwordlab.Tokenizer(toy())
    assert tok.tokenize("ab") == ["a", "b"]
    assert [ids for ids, _ in tok.encode_nbest("ab", 2)] == [[1, 2], [3]]
    assert tok.sample_encode("ab" , 1.0, seed=3) == tok.sample_encode("ab", 1.0, seed=3)


# -- seed 002: SentencePiece decodes back to the normalized text, spaces included ---------
def test_seed002_sentencepiece_unigram_round_trip_after_normalization():
    text = "This is a test. Ａ full-width letter, ﬁ ligature,  two  spaces."
    tok = subwordlab.train(text * 3, preset="sentencepiece_unigram", vocab_size=60, byte_fallback=False)
    assert tok.normalize_str("Ａ ﬁ") == "A fi"  # NFKC: decoding gives back the rewritten text
    assert tok.decode(tok.encode(text)) == tok.normalize_str(text)
