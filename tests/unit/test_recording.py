"""Recording: any step of a finished run can be revisited without retraining."""

import pytest

import subwordlab
from subwordlab.recording import Recording

SEED0 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def test_bpe_steps_replay_the_textbook_tables():
    rec = Recording(SEED0, preset="bpe", num_merges=8)
    assert rec.advance(2) == 2 and not rec.done and rec.alphabet.vocab_size == 11
    rec.run()
    assert [s.new_token for s in rec.steps][:3] == ["es", "est", "est</w>"]
    assert rec.tokenizer_at(0).tokenize("lowest") == ["l", "o", "w", "e", "s", "t", "</w>"]
    assert rec.tokenizer_at(3).tokenize("newest") == ["n", "e", "w", "est</w>"]
    assert rec.tokenizer_at(3).vocab_size == 14
    assert rec.tokenizer_at(8) is rec.tokenizer
    # ids are the final ones at every step
    assert rec.tokenizer_at(4).token_to_id("lo") == rec.tokenizer.token_to_id("lo")


def test_wordpiece_steps_use_a_prefix_of_the_vocabulary():
    rec = Recording("token tokens tokenize stem stems stemming", preset="wordpiece", num_merges=6).run()
    sizes = [rec.tokenizer_at(k).vocab_size for k in range(7)]
    assert sizes == sorted(sizes) and sizes[-1] == rec.tokenizer.vocab_size
    assert rec.tokenizer_at(0).tokenize("stem") == ["s", "##t", "##e", "##m"]


def test_out_of_range_and_unfinished():
    rec = Recording(SEED0, preset="bpe", num_merges=3)
    with pytest.raises(RuntimeError, match="still running"):
        rec.tokenizer_at(0)
    rec.run()
    with pytest.raises(ValueError, match="between 0 and 3"):
        rec.tokenizer_at(4)


def test_byte_level_steps_encode_like_the_final_model_truncated():
    text = "the cat sat on the mat with the hat " * 10
    rec = Recording(text, preset="byte_bpe", vocab_size=270).run()
    full = subwordlab.train(text, preset="byte_bpe", vocab_size=270)
    assert rec.tokenizer.merges == full.merges
    assert rec.tokenizer_at(5).decode(rec.tokenizer_at(5).encode("the hat")) == "the hat"
    assert len(rec.tokenizer_at(5).encode(text)) > len(full.encode(text))


def test_unigram_steps_come_from_snapshots_and_keep_specials_special():
    from corpora import read

    text = read("udhr/udhr_eng.txt")
    rec = Recording(text, preset="sentencepiece_unigram", vocab_size=300, special_tokens=["<s>", "</s>"]).run()
    kinds = {s.kind for s in rec.steps}
    assert "prune" in kinds
    early, final = rec.tokenizer_at(1), rec.tokenizer_at(len(rec.steps))
    assert early.vocab_size >= final.vocab_size
    assert early.decode(early.encode("lowest tokens")) == "lowest tokens"
    # a control token is never matched inside ordinary text, at any step
    for k in (1, len(rec.steps) // 2):
        tok = rec.tokenizer_at(k)
        assert tok.token_to_id("<s>") not in tok.encode("<s>", disallowed_special=())
