"""The fast Unigram trainer (trainers/unigram.py) against the textbook loop (trainers/textbook.py):
on generated word counts and on a snippet of real text, the same final vocabulary, and scores
equal to within 1e-9.

Why not bit for bit: the fast trainer runs forward-backward over *units* (spans of words no
piece crosses, equal spans merged and their counts added, re-cut as pieces die, at moments its
speed heuristics pick), the textbook over whole words; the expected counts then differ in the
last bits, and the M-step's digamma (SentencePiece's: a recurrence up to 7, then a series) jumps
by about 4e-11 where its argument crosses an integer below 7 (digamma(5) and digamma of the
double just below 5 take one more step of the recurrence). The scores stay within 1e-9 (4e-11
at most over 1,500 random runs); the pieces, which the pruning and the finish choose by losses
computed from integer counts and best splits, are the same. The seed vocabulary, before any
E-step, is equal bit for bit.

Near-ties: where the textbook's run comes within 1e-9 of deciding otherwise (a piece expected
0.5 times, two pieces' losses or scores at the pruning's or the finish's cut), the two may
decide differently (a tie in one is a last-bit difference in the other); the property tests
leave those runs out (``assume``, about 3% of them).

Subset covered: ``character_coverage`` 1.0, no byte fallback, no user-defined symbols, words
of at most 30 characters (the fast E-step's plain products; longer words take its rescaled
pass) and within ``max_sentence_length``, and no reserved piece's name inside the words.
"""

from collections import Counter
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from subwordlab.base.events import drain
from subwordlab.trainers import textbook, unigram

RESERVED = ("<unk>", "<s>", "</s>")  # the unigram preset's unk and special tokens
TOLERANCE = 1e-9  # (why not 0.0: the module docstring)

# (up to 16 words of up to 14 letters, a vocabulary of up to 12 pieces beyond the characters:
# about 40% of the runs go through pruning rounds before the finish trims)
word_counts = st.dictionaries(st.text(alphabet="abcde", min_size=1, max_size=14), st.integers(1, 9), min_size=1,
                              max_size=16)
options = st.fixed_dictionaries({
    "shrinking_factor": st.sampled_from([0.5, 0.75, 0.9]), "n_sub_iterations": st.integers(1, 3),
    "seed_size": st.sampled_from([3, 10, 1_000_000]), "max_piece_length": st.sampled_from([2, 3, 16])})


def assert_same_vocabulary(fast, book):
    """Same pieces, reserved ones first, scores within TOLERANCE (the order of pieces whose
    scores are that close may differ)."""
    assert [p for p, _ in fast[:len(RESERVED)]] == [p for p, _ in book[:len(RESERVED)]] == list(RESERVED)
    fast, book = dict(fast), dict(book)
    assert fast.keys() == book.keys()
    for piece, score in fast.items():
        assert abs(score - book[piece]) <= TOLERANCE, (piece, score, book[piece])


def fast_preset(counts, n, **opts):
    tok = subwordlab.train(counts, preset="unigram", vocab_size=n, **opts)
    return list(zip(tok.model.vocab, tok.model.scores))


def marked(counts):
    """The words as the unigram preset trains on them: each with its leading ▁."""
    return {"\u2581" + w: n for w, n in counts.items()}


@settings(max_examples=examples(300), deadline=None)
@given(word_counts, st.integers(1, 12), options)
def test_unigram_equals_the_textbook_loop(counts, extra, opts):
    n = len(set("".join(counts))) + 1 + len(RESERVED) + extra  # (room for every character and ▁)
    margins = []
    book = textbook.unigram(marked(counts), n, RESERVED, margins=margins, **opts)
    assume(min(margins, default=1.0) > TOLERANCE)  # (no near-tie: the module docstring)
    assert_same_vocabulary(fast_preset(counts, n, **opts), book)


# words mixing scripts and digits: the seed's validity rules (no piece mixes a letter with
# punctuation or a digit; with split_digits, no digit in a longer piece), through the trainer itself
mixed_counts = st.dictionaries(st.text(alphabet="aé,1", min_size=1, max_size=10), st.integers(1, 9), min_size=1,
                               max_size=10)


@settings(max_examples=examples(100), deadline=None)
@given(mixed_counts, st.integers(1, 12), st.booleans(), options)
def test_unigram_with_script_rules_equals_the_textbook_loop(counts, extra, split_digits, opts):
    n = len(set("".join(counts))) + 1 + len(RESERVED) + extra
    model, _, _ = drain(unigram.train(marked(counts), vocab_size=n, special_tokens=RESERVED[1:],
                                      split_digits=split_digits, **opts))
    margins = []
    book = textbook.unigram(marked(counts), n, RESERVED, split_digits=split_digits, margins=margins, **opts)
    assume(min(margins, default=1.0) > TOLERANCE)
    assert_same_vocabulary(list(zip(model.vocab, model.scores)), book)


@settings(max_examples=examples(100), deadline=None)
@given(mixed_counts, options)
def test_the_seed_equals_the_textbook_seed_bit_for_bit(counts, opts):
    opts.pop("shrinking_factor"), opts.pop("n_sub_iterations")
    events = unigram.unigram_steps(marked(counts), vocab_size=10_000, meta=["<unk>"], **opts)
    seed = next(e for e in events if e.kind == "alphabet")
    pieces, scores = textbook.unigram_seed(marked(counts), opts["seed_size"], opts["max_piece_length"], False)
    book = sorted(zip(pieces, scores), key=lambda t: (-t[1], t[0]))
    assert seed.pieces == [("<unk>", 0.0)] + book


def test_unigram_on_tinyshakespeare_equals_the_textbook_loop():
    # the first 2,000 characters, counted into words at white space, pruned to three sizes
    text = (Path(__file__).resolve().parents[2] / "corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")
    counts = dict(Counter(text[:2000].split()))
    for n in (60, 120, 250):
        assert_same_vocabulary(fast_preset(counts, n), textbook.unigram(marked(counts), n, RESERVED))
    # and with a smaller seed, a harder shrink and one EM iteration a round
    opts = {"seed_size": 200, "shrinking_factor": 0.5, "n_sub_iterations": 1, "max_piece_length": 8}
    assert_same_vocabulary(fast_preset(counts, 80, **opts), textbook.unigram(marked(counts), 80, RESERVED, **opts))
