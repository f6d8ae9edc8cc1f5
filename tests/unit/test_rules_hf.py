"""``rules="hf"`` against the Hugging Face ``tokenizers`` trainers themselves.

Each case trains ours, exports it to tokenizer.json, loads that file into ``tokenizers``
(so HF runs exactly the pipeline the export declares), retrains it there with the
reference trainer and the same settings, and compares: byte-level BPE must give the same
vocabulary (same ids) and the same merges in the same order; character-level BPE with
``end_of_word_suffix`` the same too; WordPiece the same vocabulary with the same ids.

WordPiece and the suffix: HF numbers the ``##x`` (``x</w>``) characters in the order of a randomly seeded hash map
(its vocabulary, and ties that depend on those ids, change from run to run), so the
comparison replays HF's order (``decorated_order``, read off HF's vocabulary). Everything
after that order is compared exactly.

Corpora we did not design: the UDHR in six scripts, Shakespeare, Wikipedia text (Taylor
Swift's article), Python source from the standard library; and Hypothesis' small
tie-heavy corpora.
"""

import json
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from corpora import UDHR, read
from subwordlab.base.events import drain
from subwordlab.formats.hf_export import to_hf_json
from subwordlab.presets import bpe_pipeline, corpus_word_counts, resolve_options, wordpiece_pipeline
from subwordlab.trainers import hf_rules

pytestmark = pytest.mark.cpython_only

WP_SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]


def stdlib_source(size=200_000):
    """Python source from the standard library (a few modules, ``size`` characters)."""
    import dataclasses
    import inspect
    import json as json_module
    import typing

    text = "".join(Path(m.__file__).read_text(encoding="utf-8") for m in (inspect, typing, dataclasses, json_module))
    return text[:size]


CORPORA = {
    **{p.stem: (lambda p=p: p.read_text(encoding="utf-8")) for p in UDHR},
    "shakespeare": lambda: read("tinyshakespeare.txt"),
    "shakespeare_300k": lambda: read("tinyshakespeare.txt")[:300_000],
    "wikipedia": lambda: read("taylorswift.txt"),
    "stdlib": stdlib_source,
}


def hf_retrained(tok, text, trainer):
    """``tok`` exported, loaded into tokenizers, retrained there on ``text``: its model (JSON)."""
    from tokenizers import Tokenizer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = Tokenizer.from_str(to_hf_json(tok))
    hf.train_from_iterator([text], trainer)
    return json.loads(hf.to_str())["model"]


def by_id(vocab):
    return [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]


def first_difference(a, b):
    """The first index where two lists differ (or where the shorter ends), None if equal."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None if len(a) == len(b) else min(len(a), len(b)))


# -- byte-level BPE -----------------------------------------------------------------------

def check_byte_bpe(text, vocab_size, special_tokens=(), min_frequency=1, pattern="gpt2"):
    from tokenizers import pre_tokenizers, trainers

    tok = subwordlab.train(text, preset="byte_bpe", vocab_size=vocab_size, rules="hf", pattern=pattern,
                           special_tokens=list(special_tokens), min_frequency=min_frequency)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False,
                                  special_tokens=list(special_tokens),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    hf = hf_retrained(tok, text, trainer)
    assert tok.model.vocab == by_id(hf["vocab"]), first_difference(tok.model.vocab, by_id(hf["vocab"]))
    ours = [[tok.model.vocab[a], tok.model.vocab[b]] for a, b in tok.model.merges]
    assert ours == hf["merges"], f"first different merge: #{first_difference(ours, hf['merges'])}"


@pytest.mark.parametrize("name", [p.stem for p in UDHR])
@pytest.mark.parametrize("vocab_size", [257, 300, 1000])
def test_byte_bpe_equals_bpe_trainer_on_udhr(name, vocab_size):
    check_byte_bpe(CORPORA[name](), vocab_size)


@pytest.mark.parametrize("name, vocab_size", [("shakespeare", 8000), ("wikipedia", 2000),
                                              ("stdlib", 3000), ("shakespeare", 32000)])
def test_byte_bpe_equals_bpe_trainer(name, vocab_size):
    check_byte_bpe(CORPORA[name](), vocab_size)


def test_byte_bpe_with_special_tokens_min_frequency_and_another_pattern():
    check_byte_bpe(CORPORA["wikipedia"](), 1500, special_tokens=["<|endoftext|>", "<pad>"], min_frequency=5,
                   pattern="cl100k")


def test_the_issue_case_no_longer_parts_at_merge_96():
    """Issue 30: byte-level BPE at 1,000 on Shakespeare left BpeTrainer at merge 96 whatever the tie_break."""
    check_byte_bpe(CORPORA["shakespeare"](), 1000)


# -- character-level BPE with an end-of-word suffix (the bpe preset's rules="hf") ----------

def check_char_bpe(text, vocab_size, unk_token=None, lowercase=False, initial_alphabet="", min_frequency=1):
    """The ``bpe`` preset under ``rules="hf"`` (``hf_rules.train_char_bpe``) against ``BpeTrainer(
    end_of_word_suffix='</w>')`` retraining our exported tokenizer.json (optional lower-casing,
    white-space words). As check_wordpiece: HF numbers the 'x</w>' characters in hash order,
    which is replayed (ours: first appearance; where ties meet, HF's own runs differ too)."""
    from tokenizers import trainers

    tok = subwordlab.train(text, preset="bpe", vocab_size=vocab_size, rules="hf", unk_token=unk_token,
                           lowercase=lowercase, initial_alphabet=initial_alphabet, min_frequency=min_frequency)
    hf = hf_retrained(tok, text, trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False,
        special_tokens=[unk_token] if unk_token else [], end_of_word_suffix="</w>",
        initial_alphabet=list(initial_alphabet)))
    hf_vocab = by_id(hf["vocab"])
    spec = resolve_options("bpe", vocab_size, None, dict(unk_token=unk_token, lowercase=lowercase))
    counts, _ = corpus_word_counts(text, spec, *bpe_pipeline(spec)[:2])
    mine, _, _ = drain(hf_rules.train_char_bpe(counts, unk_token=unk_token, initial_alphabet=initial_alphabet,
                                               vocab_size=vocab_size, min_frequency=min_frequency))
    assert tok.model.vocab == mine.vocab  # (the preset trains with this trainer, in first-appearance order)
    decorated = [t for t in hf_vocab if t.endswith("</w>") and len(t) == 5]
    model, _, merges = drain(hf_rules.train_char_bpe(
        counts, unk_token=unk_token, initial_alphabet=initial_alphabet, vocab_size=vocab_size,
        min_frequency=min_frequency, decorated_order=decorated))
    assert model.vocab == hf_vocab, f"first different id: {first_difference(model.vocab, hf_vocab)}"
    ours = [[model.vocab[a], model.vocab[b]] for a, b in merges]
    assert ours == hf["merges"], f"first different merge: #{first_difference(ours, hf['merges'])}"


@pytest.mark.parametrize("name, vocab_size", [("udhr_eng", 400), ("udhr_rus", 500), ("udhr_kor", 1500),
                                              ("shakespeare_300k", 2000), ("stdlib", 1500)])
def test_char_bpe_with_suffix_equals_bpe_trainer(name, vocab_size):
    check_char_bpe(CORPORA[name](), vocab_size)


def test_char_bpe_with_unk_lowercase_initial_alphabet_and_min_frequency():
    check_char_bpe(CORPORA["wikipedia"](), 1200, unk_token="<unk>", lowercase=True, initial_alphabet="xyzäöü",
                   min_frequency=3)


# -- WordPiece ----------------------------------------------------------------------------

def check_wordpiece(text, vocab_size, special_tokens=WP_SPECIALS, min_frequency=1, lowercase=False):
    from tokenizers import trainers

    tok = subwordlab.train(text, preset="wordpiece", vocab_size=vocab_size, rules="hf", lowercase=lowercase,
                           special_tokens=list(special_tokens), min_frequency=min_frequency)
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, min_frequency=min_frequency, show_progress=False,
                                        special_tokens=list(special_tokens))
    hf = by_id(hf_retrained(tok, text, trainer)["vocab"])
    # replay HF's hash order of the ## characters (the one thing it draws at random)
    spec = resolve_options("wordpiece", vocab_size, None, {"rules": "hf", "lowercase": lowercase,
                                                            "special_tokens": list(special_tokens)})
    counts, _ = corpus_word_counts(text, spec, *wordpiece_pipeline(spec)[:2])
    decorated = [t for t in hf if t.startswith("##") and len(t) == 3]
    model, _, _ = drain(hf_rules.train_wordpiece(counts, special_tokens=spec["special_tokens"], vocab_size=vocab_size,
                                                 min_frequency=min_frequency, decorated_order=decorated))
    assert model.vocab == hf, f"first different id: {first_difference(model.vocab, hf)}"


@pytest.mark.parametrize("name", [p.stem for p in UDHR])
def test_wordpiece_equals_wordpiece_trainer_on_udhr(name):
    check_wordpiece(CORPORA[name](), 400)


@pytest.mark.parametrize("name, vocab_size", [("shakespeare", 2000), ("wikipedia", 1000), ("stdlib", 1500)])
def test_wordpiece_equals_wordpiece_trainer(name, vocab_size):
    check_wordpiece(CORPORA[name](), vocab_size)


def test_wordpiece_lowercase_min_frequency_and_other_specials():
    check_wordpiece(CORPORA["wikipedia"](), 800, special_tokens=["[UNK]", "[X]"], min_frequency=4, lowercase=True)


# -- special tokens typed into the text ---------------------------------------------------

def test_special_tokens_in_the_text_are_words_of_their_own_as_in_tokenizers():
    """``Tokenizer.train`` cuts each special token (an added token of the tokenizer.json) out
    of the text before it normalizes and pre-tokenizes, and still counts it as one word, its
    text as it is: BpeTrainer learns pairs inside '<|endoftext|>' ('nd', '<|'). Ours cut the
    special tokens out and dropped them (merge 6 differed on the English UDHR)."""
    text = CORPORA["udhr_eng"]()
    check_byte_bpe(text.replace("the ", "the <|endoftext|>", 40).replace("of", "of<pad>", 20), 800,
                   special_tokens=["<|endoftext|>", "<pad>"])
    check_wordpiece(text.replace("the ", "the [MASK] ", 30).replace("and", "a[SEP]nd", 10), 500)
    check_char_bpe(text.replace("the ", "the <unk>", 30), 500, unk_token="<unk>")


# -- tie-heavy corpora (Hypothesis) -------------------------------------------------------

words = st.lists(st.text(alphabet="abcé", min_size=1, max_size=6), min_size=1, max_size=30)


@settings(max_examples=examples(60), deadline=None)
@given(words, st.integers(257, 300))
def test_byte_bpe_ties_as_bpe_trainer(ws, vocab_size):
    check_byte_bpe(" ".join(ws), vocab_size)


@settings(max_examples=examples(60), deadline=None)
@given(words, st.integers(0, 30))
def test_wordpiece_ties_as_wordpiece_trainer(ws, extra):
    text = " ".join(ws)
    check_wordpiece(text, 5 + 2 * len(set(text)) + extra, special_tokens=["[UNK]"])


@settings(max_examples=examples(40), deadline=None)
@given(words, st.integers(0, 30))
def test_char_bpe_ties_as_bpe_trainer(ws, extra):
    text = " ".join(ws)
    check_char_bpe(text, 2 * len(set(text)) + extra)
