"""replay.py: a BPE or WordPiece model (as the command line saves it) stepped through merge
by merge without its corpus; each step's tokenizer is the model trained to that step."""

from __future__ import annotations

import pytest

import subwordlab
from corpora import read
from subwordlab.base.registry import dump_component
from subwordlab.formats.our_json import from_json
from subwordlab.recording import Recording
from subwordlab.replay import ReplayError, replay

CORPUS = "the lowest newest widest low lower tokens tokenizer stemming stems " * 6 + "héllo wörld ünïcode"
BPE_PRESETS = [("bpe", {}), ("byte_bpe", {}), ("sentencepiece_bpe", {}), ("bpe", {"end_of_word": None})]


def model_of(tok):
    return dump_component("model", tok.model)


def saved_and_loaded(tok):
    """The tokenizer as the page gets it: written to our JSON, read back."""
    return from_json(subwordlab.to_json(tok))


@pytest.mark.parametrize("preset,options", BPE_PRESETS)
def test_bpe_steps_are_the_models_merges_in_order(preset, options):
    tok = saved_and_loaded(subwordlab.train(CORPUS, preset, num_merges=30, **options))
    rec = replay(tok, "model.json")
    m = tok.model
    assert [s.pair for s in rec.steps] == [(m.vocab[a], m.vocab[b]) for a, b in m.merges]
    assert [s.new_token for s in rec.steps] == [m.vocab[m.ranks[p][1]] for p in m.merges]
    assert [s.rank for s in rec.steps] == list(range(len(m.merges)))
    # what only the corpus knew is not made up
    assert all(s.count is None and s.candidates == [] for s in rec.steps)
    assert rec.done and rec.replayed and rec.source == "model.json" and rec.tokenizer is tok
    assert rec.alphabet.alphabet == m.vocab[:m.base_size]


@pytest.mark.parametrize("preset,options", BPE_PRESETS)
def test_the_bpe_tokenizer_at_step_k_is_the_model_trained_to_k_merges(preset, options):
    final = subwordlab.train(CORPUS, preset, num_merges=30, **options)
    rec = replay(saved_and_loaded(final))
    words = CORPUS.split()
    for k in (0, 1, 3, 17, 30):
        trained = subwordlab.train(CORPUS, preset, num_merges=k, **options)
        at = rec.tokenizer_at(k)
        assert model_of(at) == model_of(trained), k
        assert [at.encode(w) for w in words] == [trained.encode(w) for w in words]
        # and its vocabulary size is the one the run reported at that step
        assert (rec.steps[k - 1].vocab_size if k else rec.alphabet.vocab_size) == trained.vocab_size


def test_a_replay_steps_like_the_recording_of_the_run():
    run = Recording(read("udhr/udhr_eng.txt")[:20_000], "byte_bpe", vocab_size=400).run()
    rec = replay(saved_and_loaded(run.tokenizer))
    assert len(rec.steps) == len(run.steps)
    assert [(s.pair, s.new_token, s.vocab_size) for s in rec.steps] == [(s.pair, s.new_token, s.vocab_size) for s in run.steps]
    for k in (0, 5, 77, len(run.steps)):
        assert model_of(rec.tokenizer_at(k)) == model_of(run.tokenizer_at(k))


@pytest.mark.parametrize("scoring", ["likelihood", "frequency"])
def test_wordpiece_steps_are_its_vocabulary_after_the_alphabet(scoring):
    run = Recording(CORPUS, "wordpiece", vocab_size=70, scoring=scoring).run()
    rec = replay(saved_and_loaded(run.tokenizer))
    # the run's merges that added a token, in order; the file keeps their tokens, not their pairs
    added = [s for k, s in enumerate(run.steps) if s.vocab_size > (run.steps[k - 1].vocab_size if k else run.alphabet.vocab_size)]
    assert [(s.new_token, s.vocab_size) for s in rec.steps] == [(s.new_token, s.vocab_size) for s in added]
    assert all(s.pair is None and s.count is None for s in rec.steps)
    assert rec.alphabet.alphabet == run.alphabet.alphabet
    for j in (0, 1, 10, len(rec.steps)):
        size = rec.steps[j - 1].vocab_size if j else rec.alphabet.vocab_size
        trained = subwordlab.train(CORPUS, "wordpiece", vocab_size=size, scoring=scoring)
        assert model_of(rec.tokenizer_at(j)) == model_of(trained)


def test_unigram_is_refused_saying_what_can_be_shown():
    tok = subwordlab.train(CORPUS, "unigram", vocab_size=40)
    with pytest.raises(ReplayError, match="can be inspected as it is, but not stepped through"):
        replay(tok)


def test_a_wordpiece_vocabulary_out_of_training_order_is_refused():
    from subwordlab.models.wordpiece import WordPiece
    from subwordlab.tokenizer import Tokenizer

    tok = Tokenizer(WordPiece(["[UNK]", "a", "b", "ab", "c"], "[UNK]"), special_tokens={"[UNK]": 0}, spec={"preset": "wordpiece"})
    with pytest.raises(ReplayError, match=r"not in training order \(the single character 'c' comes at id 4"):
        replay(tok)
