"""Long pieces (a run of one letter, a line without spaces) are merged through the queue of
models/merge_queue.py, in O(n log n); short ones by list merging. Both must give the same
tokens: every model is checked here with the queue forced on every piece (LONG_PIECE = 2)
against list merging (LONG_PIECE out of reach), on trained models and random rank tables."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from subwordlab.models import bpe as bpe_module
from subwordlab.models import hf_bpe as hf_bpe_module
from subwordlab.models import rank_bpe as rank_module
from subwordlab.models.merge_queue import queue_merge
from subwordlab.models.rank_bpe import RankBPE

_SINGLE = [bytes([b]) for b in range(256)]


def both_ways(monkeypatch, run):
    """``run()`` with list merging, then with the queue on every piece of two symbols or more."""
    for module in (bpe_module, rank_module, hf_bpe_module):
        monkeypatch.setattr(module, "LONG_PIECE", 10**9)
    by_list = run()
    for module in (bpe_module, rank_module, hf_bpe_module):
        monkeypatch.setattr(module, "LONG_PIECE", 2)
    return by_list, run()


def fresh(tok):
    tok._cache.clear(), tok._chunk_cache.clear()
    return tok


@pytest.mark.parametrize("preset, options", [
    ("bpe", {"num_merges": 40}), ("byte_bpe", {"vocab_size": 300}), ("sentencepiece_bpe", {"vocab_size": 60})])
@settings(max_examples=examples(25), deadline=None)
@given(corpus=st.text(alphabet="ab c\u00e9", min_size=10, max_size=200), texts=st.lists(st.text(alphabet="ab cd\u00e9", max_size=80), max_size=4))
def test_queue_and_list_merging_give_the_same_tokens(preset, options, corpus, texts):
    with pytest.MonkeyPatch.context() as mp:
        tok = subwordlab.train(corpus, preset=preset, **options)
        for text in texts + [corpus, "ab" * 200 + "a" * 301]:
            def run(text=text):
                enc = fresh(tok).encode_full(text, keep_unknown=True)
                ids = fresh(tok).encode(text) if preset != "bpe" or all(c in corpus for c in text) else None
                return ids, enc.ids, enc.offsets
            by_list, by_queue = both_ways(mp, run)
            assert by_queue == by_list, text


def test_rank_model_queue_follows_tiktokens_rule_on_random_tables(monkeypatch):
    # random tokens in a random rank order: a merge can make a pair of lower rank than the
    # current one, where tiktoken's one-at-a-time rule and batch merging part ways
    rng = random.Random(11)
    for trial in range(40):
        ranks = {b: i for i, b in enumerate(_SINGLE)}
        while len(ranks) < 256 + 40:
            ranks.setdefault(bytes(rng.choice(b"ab c") for _ in range(rng.randint(2, 5))), len(ranks))
        model = RankBPE.from_ranks(list(ranks))
        for _ in range(10):
            data = bytes(rng.choice(b"ab c") for _ in range(rng.randint(2, 60)))
            syms = [(b, i, i + 1) for i, b in enumerate(data)]
            by_list, by_queue = both_ways(monkeypatch, lambda m=model, d=data, s=syms: (m.encode_bytes(d), m.merge_spans(s)))
            assert by_queue == by_list, (trial, data)


def test_hf_bpe_list_merging_follows_hf_s_queue_on_random_merge_lists(monkeypatch):
    # random merges in a random order (a merge may make a pair of lower rank than the current
    # one; a symbol may pair both ways): HF's queue (lowest rank, then leftmost, one
    # occurrence at a time) against the list merging of short pieces, spans included
    rng = random.Random(5)
    for trial in range(40):
        vocab = {c: i for i, c in enumerate("abc ")}
        merges = []
        while len(merges) < 30:
            a, b = rng.choice(list(vocab)), rng.choice(list(vocab))
            if a + b not in vocab and len(a + b) <= 6:
                vocab[a + b] = len(vocab)
                merges.append((vocab[a], vocab[b]))
        model = hf_bpe_module.HFBPE(list(vocab), merges)
        for _ in range(10):
            piece = "".join(rng.choice("abc ") for _ in range(rng.randint(2, 60)))
            by_list, by_queue = both_ways(monkeypatch, lambda m=model, p=piece: m.tokenize_piece(p))
            assert by_queue == by_list, (trial, piece)
            assert "".join(model.vocab[t] for t, _, _ in by_list) == piece


@pytest.mark.cpython_only
def test_a_long_run_encodes_as_tiktoken():
    import tiktoken

    from subwordlab.formats.openai_files import from_tiktoken
    from subwordlab.text.patterns import PATTERNS

    ranks = {b: i for i, b in enumerate(_SINGLE)}
    for token in (b"aa", b"aaaa", b"ab", b"aab", b"ba", b"aaaaaaaa", b"bab"):
        ranks[token] = len(ranks)
    lines = "".join(f"{__import__('base64').b64encode(t).decode()} {r}\n" for t, r in ranks.items())
    tok = from_tiktoken(lines, pattern="gpt2")
    enc = tiktoken.Encoding("long", pat_str=PATTERNS["gpt2"], mergeable_ranks=ranks, special_tokens={})
    rng = random.Random(5)
    for text in ("a" * 5001, "ab" * 3000 + "a", "".join(rng.choice("ab") for _ in range(4000))):
        assert fresh(tok).encode(text) == enc.encode_ordinary(text)
        assert fresh(tok).encode_full(text).ids == enc.encode_ordinary(text)


def test_rounds_merge_every_occurrence_before_the_pairs_they_make():
    # our BPE's textbook order: every (a, a) first, then the lowest pair present
    ranks = {("a", "a"): (0, "aa"), ("aa", "a"): (1, "aaa"), ("aa", "aa"): (2, "aaaa")}

    def rank_of(a, b):
        return ranks.get((a, b))

    assert queue_merge(list("aaaaa"), rank_of, rounds=True)[0] == ["aa", "aaa"]
    assert queue_merge(list("aaaa"), rank_of, rounds=True)[0] == ["aaaa"]
    # a pair made by a merge outranks the current one: HF's queue merges it at once,
    # the textbook round first finishes every (a, a)
    ranks[("aa", "a")] = (-1, "aaa")
    assert queue_merge(list("aaaaa"), rank_of, rounds=True)[0] == ["aa", "aaa"]
    assert queue_merge(list("aaaaa"), rank_of, rounds=False)[0] == ["aaa", "aa"]
    assert queue_merge(list("aaaa"), rank_of, rounds=True)[0] == ["aaaa"]
    assert queue_merge(list("aaaa"), rank_of, rounds=False)[0] == ["aaa", "a"]
