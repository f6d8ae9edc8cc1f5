"""WordPiece with ``scoring="frequency"``: the Hugging Face ``tokenizers`` WordPieceTrainer's
algorithm (BPE by pair count with ``##`` pieces, then a WordPiece model), next to the
papers' ``"likelihood"`` score.

What is equal to HF and what cannot be:

- the starting vocabulary (special tokens, every character, every ``##`` continuing
  character) and the vocabulary size: always equal;
- the learned tokens and their order: equal whenever no two pairs tie for the highest
  count. On ties HF keeps the pair with the smallest token ids, and it numbers the
  ``##`` characters in the iteration order of a randomly seeded hash map, so HF itself
  learns different vocabularies from one process to the next on the same text (English
  UDHR, vocab_size=300: four different vocabularies in five runs). So with ties the test
  replays HF's merges on the textbook recount and checks that each one is a pair of the
  highest count: the only freedom HF uses is the tie order.
- HF also trains on words longer than ``max_input_chars_per_word`` (that is a model
  option it does not know while training); ours leaves them out (they are always unk).
  The corpora here have no such word.
"""

from collections import Counter

import pytest

import subwordlab
from corpora import read
from subwordlab.pipeline.pre_tokenizers import BertPreTokenizer
from subwordlab.trainers import textbook

SPECIALS = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]


def ours(text, **options):
    """The merges (events) and the tokenizer, trained with frequency scoring."""
    events = list(subwordlab.iter_train(text, preset="wordpiece", scoring="frequency", special_tokens=SPECIALS,
                                        top_k=2, **options))
    return [e for e in events if e.kind == "merge"], events[-1].tokenizer


def hf_vocab(text, vocab_size):
    """HF's WordPieceTrainer on the same pre-tokenizer: the vocabulary in id order."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    # subtle: ours makes each CJK character a word; HF does it in BertNormalizer, not the pre-tokenizer
    tok.normalizer = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=True, strip_accents=False,
                                                lowercase=False)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator([text], trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=SPECIALS,
                                                              show_progress=False))
    vocab = tok.get_vocab()
    return sorted(vocab, key=vocab.get)


def first_tie(steps):
    """The index of the first merge whose best count is tied, or None."""
    return next((i for i, s in enumerate(steps) if len(s.candidates) > 1 and s.candidates[1][1] == s.count), None)


# -- the option ----------------------------------------------------------------------------
def test_frequency_merges_the_most_frequent_pair_and_likelihood_the_best_score():
    corpus = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    text = " ".join(" ".join([w] * n) for w, n in corpus.items())
    by_count, tok = ours(text, num_merges=2)
    assert [(s.pair, s.count) for s in by_count] == [(("##u", "##g"), 20), (("##u", "##n"), 16)]
    assert by_count[0].score is None and by_count[0].candidates[1] == (("p", "##u"), 17)
    by_score = [e for e in subwordlab.iter_train(text, preset="wordpiece", num_merges=2) if e.kind == "merge"]
    assert by_score[0].pair == ("##g", "##s") and by_score[0].score == 5 / (20 * 5)
    # HF's alphabet: 'u', 'g', 's' and 'n' never start a word but are tokens too
    assert {"u", "g", "s", "n"} <= set(tok.model.vocab)
    assert tok.spec["scoring"] == "frequency"


def test_the_default_is_likelihood_and_a_wrong_value_says_what_to_use():
    assert subwordlab.OPTIONS["wordpiece"]["scoring"][0] == "likelihood"
    with pytest.raises(ValueError, match="likelihood, frequency"):
        subwordlab.train("a b", preset="wordpiece", scoring="count")


def test_frequency_training_is_recorded_step_by_step():
    from subwordlab.recording import Recording

    rec = Recording(read("udhr/udhr_eng.txt"), "wordpiece", vocab_size=200, scoring="frequency").run()
    assert rec.tokenizer.spec["scoring"] == "frequency"
    assert [s.count for s in rec.steps] == sorted((s.count for s in rec.steps), reverse=True)  # BPE-like: counts fall
    assert len(rec.tokenizer_at(10).model.vocab) == rec.steps[9].vocab_size


@pytest.mark.cpython_only
def test_frequency_trained_tokenizer_exports_to_hf_tokenizer_json():
    from tokenizers import Tokenizer as HFTokenizer

    from subwordlab.formats.hf_export import export_hf

    text = read("udhr/udhr_eng.txt")
    _, tok = ours(text, vocab_size=400)
    hf = HFTokenizer.from_str(export_hf(tok).text)
    sample = read("tinyshakespeare.txt")[:20000]
    assert hf.encode(sample).ids == tok.encode(sample)
    assert hf.get_vocab_size() == 400


# -- against Hugging Face tokenizers -------------------------------------------------------
@pytest.mark.cpython_only
@pytest.mark.parametrize("name", ["toy", "tinyshakespeare.txt", "udhr/udhr_rus.txt", "udhr/udhr_arb.txt"])
def test_the_vocabulary_equals_hf_wordpiece_trainer_where_no_count_ties(name):
    text = ("hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5) if name == "toy" else read(name)
    steps, _ = ours(text, num_merges=400)
    # the largest vocabulary reached before the first tie (all merges when there is none)
    n = first_tie(steps)
    n = len(steps) if n is None else n
    _, tok = ours(text, num_merges=n)
    mine = tok.model.vocab
    start = steps[0].vocab_size - 1  # the starting vocabulary's size
    theirs = hf_vocab(text, len(mine))
    # the same starting vocabulary (HF orders it differently: characters, then ## ones)
    assert theirs[:len(SPECIALS)] == SPECIALS and set(theirs[:start]) == set(mine[:start])
    # the same learned tokens, in the same order
    assert theirs[start:] == mine[start:] and len(mine) > start
    assert n >= (4 if name == "toy" else 13), n  # the comparison covers a real run


@pytest.mark.cpython_only
@pytest.mark.parametrize("name,vocab_size", [("udhr/udhr_eng.txt", 300), ("udhr/udhr_eng.txt", 800),
                                             ("udhr/udhr_rus.txt", 600), ("udhr/udhr_cmn_hans.txt", 900)])
def test_with_ties_hf_merges_are_always_a_most_frequent_pair(name, vocab_size):
    text = read(name)
    steps, tok = ours(text, vocab_size=vocab_size)
    start = steps[0].vocab_size - 1
    theirs = hf_vocab(text, vocab_size)
    assert set(theirs[:start]) == set(tok.model.vocab[:start])
    assert first_tie(steps) is not None  # ties decide this run: HF's vocabulary may differ from ours
    # replay HF's merges on the textbook recount: each must be a pair of the highest count
    counts = Counter(BertPreTokenizer().words(text))
    words = [([w[0]] + ["##" + c for c in w[1:]], n) for w, n in counts.items()]
    for new in theirs[start:]:
        pairs = {}
        for symbols, n in words:
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] = pairs.get(pair, 0) + n
        top = max(pairs.values())
        chosen = [p for p, c in pairs.items() if c == top and p[0] + p[1][2:] == new]
        assert chosen, f"HF's {new!r} is not one of the pairs counted {top}"
        words = [(textbook.merge_pair(symbols, chosen[0], new), n) for symbols, n in words]
    # HF stops at vocab_size, or when no pair is left (as ours; the tie order can change where that is)
    assert len(theirs) == vocab_size or all(len(symbols) == 1 for symbols, _ in words)
