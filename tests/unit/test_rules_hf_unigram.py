"""``rules="hf"`` for Unigram against ``tokenizers.trainers.UnigramTrainer`` itself.

Each case trains ours, exports it to tokenizer.json, loads that file into ``tokenizers``
(so HF runs exactly the pipeline the export declares), retrains it there with
``UnigramTrainer`` and the same settings, and compares the vocabularies (pieces, scores, ids).

What HF itself draws at random, and how the comparison allows for it:

- the order of the words (a hash map): the E-step adds each word's expected counts in that
  order, and float addition is not associative. On hand corpora of a few words the
  comparison trains ours under **every** order of the words (``word_order``): each HF run
  must be bit for bit one of them. On real text (thousands of words) the pieces must be
  the same and the scores equal within 1e-9 relative (observed: up to 6e-12, as far as two
  HF runs are from each other: Shakespeare 300 KB at 2,000 pieces, 504 scores differ
  between two HF runs, by up to 4.0e-12);
- the order of the required characters (a hash set): it decides which missing character
  gets which ``lowest + 0.0001 x k`` score, and the order of characters of equal score.
  A missing character (one the last M-step dropped) is compared by the set of scores.

HF runs in a worker process with one thread (``RAYON_NUM_THREADS=1``): with more, it adds
the per-thread expected counts in an order rayon's work stealing decides.
"""

import itertools
import json
import math
import os
import subprocess
import sys
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from corpora import read
from subwordlab.base.portable_math import exp as portable_exp
from subwordlab.base.portable_math import log as portable_log
from subwordlab.formats.hf_export import to_hf_json
from subwordlab.presets import corpus_word_counts, resolve_options, unigram_pipeline
from subwordlab.trainers.hf_unigram import train_hf_unigram

pytestmark = pytest.mark.cpython_only

WORKER = r"""
import json, sys
from tokenizers import Tokenizer, trainers
for line in sys.stdin:
    job = json.loads(line)
    runs = []
    for _ in range(job["repeat"]):
        hf = Tokenizer.from_str(job["tokenizer"])
        hf.train_from_iterator([job["text"]], trainers.UnigramTrainer(show_progress=False, **job["trainer"]))
        runs.append({"vocab": json.loads(hf.to_str())["model"]["vocab"],
                     "encoded": [hf.encode(t, add_special_tokens=False).ids for t in job["encode"]]})
    print(json.dumps(runs), flush=True)
"""


@pytest.fixture(scope="module")
def hf_worker():
    """A process that trains ``tokenizers`` with one thread: ``call(job) -> [run, ...]``."""
    env = dict(os.environ, RAYON_NUM_THREADS="1", TOKENIZERS_PARALLELISM="false")
    proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=env, text=True, encoding="utf-8")

    def call(tok, text, trainer, repeat=1, encode=()):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the export's notes on what HF does differently)
            exported = to_hf_json(tok)
        job = {"tokenizer": exported, "text": text, "trainer": trainer, "repeat": repeat,
               "encode": list(encode)}
        proc.stdin.write(json.dumps(job) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        assert line, "the tokenizers worker died (see its stderr above)"
        return json.loads(line)

    yield call
    proc.stdin.close()
    proc.wait(timeout=30)


def hf_trainer(vocab_size, unk="<unk>", specials=("<s>", "</s>"), initial_alphabet=""):
    """The UnigramTrainer settings our preset's options mean: the unk first among the special tokens."""
    return {"vocab_size": vocab_size, "unk_token": unk, "initial_alphabet": list(initial_alphabet),
            "special_tokens": ([unk] if unk else []) + list(specials)}


def ours(text, vocab_size, word_order=None, **options):
    """Our tokenizer, and the characters the last M-step dropped (finalize put them back)."""
    events = list(subwordlab.iter_train(text, preset="unigram", vocab_size=vocab_size, rules="hf", **options))
    tok = events[-1].tokenizer
    live = {p for p, _ in [e for e in events if e.kind == "em"][-1].pieces}
    return tok, {p for p in tok.model.vocab if len(p) == 1 and p not in live}


def ours_in_every_order(text, vocab_size, unk="<unk>", specials=("<s>", "</s>")):
    """{canonical vocabulary: word order} over every order of the words of ``text``."""
    spec = resolve_options("unigram", vocab_size, None, {"rules": "hf", "special_tokens": list(specials)})
    counts, _ = corpus_word_counts(text, spec, *unigram_pipeline(spec)[:2])
    assert len(counts) <= 6, "too many orders"
    found = {}
    for order in itertools.permutations(counts):
        steps = train_hf_unigram(counts, vocab_size=vocab_size, unk_token=unk,
                                 special_tokens=([unk] if unk else []) + list(specials), word_order=order)
        last_em = None
        while True:
            try:
                event = next(steps)
            except StopIteration as stop:
                model = stop.value[0]
                break
            last_em = event if event.kind == "em" else last_em
        live = {p for p, _ in last_em.pieces}
        missing = {p for p in model.vocab if len(p) == 1 and p not in live}
        found.setdefault(canonical(list(zip(model.vocab, model.scores)), missing), order)
    return found, missing


def canonical(vocab, missing):
    """A vocabulary up to what HF's hash set of required characters draws: the scores by id,
    every piece's score but the missing characters', and their scores as a set."""
    vocab = [tuple(v) for v in vocab]
    return (tuple(s for _, s in vocab), tuple(sorted(v for v in vocab if v[0] not in missing)),
            tuple(sorted(p for p, _ in vocab if p in missing)), tuple(sorted(s for p, s in vocab if p in missing)))


def assert_close(hf_vocab, tok, missing, rel=1e-9):
    """Same pieces; scores (by id, and piece by piece but the missing characters') within ``rel``."""
    hf_vocab = [tuple(v) for v in hf_vocab]
    mine = list(zip(tok.model.vocab, tok.model.scores))
    assert len(mine) == len(hf_vocab)
    theirs, ours_ = dict(hf_vocab), dict(mine)
    assert set(theirs) == set(ours_), (sorted(set(theirs) - set(ours_))[:5], sorted(set(ours_) - set(theirs))[:5])
    for (_, a), (_, b) in zip(hf_vocab, mine):
        assert abs(a - b) <= rel * abs(a)
    for p, a in theirs.items():
        if p not in missing:
            assert abs(a - ours_[p]) <= rel * abs(a), (p, a, ours_[p])
    got = sorted(ours_[p] for p in missing)
    want = sorted(theirs[p] for p in missing)
    assert all(abs(a - b) <= rel * abs(a) for a, b in zip(want, got))


# -- hand corpora: bit for bit ------------------------------------------------------------

HAND = [
    ("hug pug pun bun hugs hug hug pug bun", 12),
    ("hug pug pun bun hugs hug hug pug bun", 9),  # fewer than the characters + specials: HF keeps them all
    ("ab ab ab ba ba abab", 7),
    ("aaaa aa a aaa aaaa aa", 6),
    ("low lower lowest newer wider", 16),
    ("мама мыла раму мама", 10),
    ("ab\0c ab\0c abc xa\0 ab", 12),  # (NUL, HF's word separator, is never a piece: unk nodes, then put back)
]


@pytest.fixture
def libm(monkeypatch):
    """The C library's exp and log, as Rust's f64::exp and ln are, in place of the portable
    ones the trainer uses (the same bits in the page): the bits are then HF's own."""
    from subwordlab.trainers import hf_unigram

    monkeypatch.setattr(hf_unigram, "exp", math.exp)
    monkeypatch.setattr(hf_unigram, "log", math.log)


@pytest.mark.parametrize("text, vocab_size", HAND)
def test_with_the_portable_math_the_pieces_are_hf_s_and_the_scores_within_1e_10(hf_worker, text, vocab_size):
    """As trained (portable exp and log: the page gives the same bits), HF's pieces, and its
    scores to 10 digits (40-bit exp and log; HF's own runs differ by up to 6e-12)."""
    tok, missing = ours(text, vocab_size)
    for run in hf_worker(tok, text, hf_trainer(vocab_size), repeat=2):
        assert_close(run["vocab"], tok, missing, rel=1e-10)


@pytest.mark.usefixtures("libm")
@pytest.mark.parametrize("text, vocab_size", HAND)
def test_bit_for_bit_on_hand_corpora(hf_worker, text, vocab_size):
    found, _ = ours_in_every_order(text, vocab_size)
    tok, missing = ours(text, vocab_size)
    for run in hf_worker(tok, text, hf_trainer(vocab_size), repeat=4):
        assert canonical(run["vocab"], missing) in found, run["vocab"]
    # (ours, in the order of first appearance, is one of them too)
    assert canonical(list(zip(tok.model.vocab, tok.model.scores)), missing) in found


@pytest.mark.usefixtures("libm")
def test_one_word_order_means_one_result_the_same_as_hf_every_time(hf_worker):
    """Two words, no piece twice in one: every expected count is a sum of at most two terms,
    so the order cannot matter: HF gives one result but for its required characters'
    hash order, and ours is it."""
    text = "hugs bank hugs hugs bank"
    found, _ = ours_in_every_order(text, 12)
    assert len(found) == 1
    tok, missing = ours(text, 12)
    for run in hf_worker(tok, text, hf_trainer(12), repeat=4):
        assert canonical(run["vocab"], missing) == canonical(list(zip(tok.model.vocab, tok.model.scores)), missing)


# -- real text: the same pieces, scores within 1e-9 -------------------------------------------

SHAKESPEARE = read("tinyshakespeare.txt")[:60_000]


@pytest.mark.parametrize("vocab_size", [100, 500, 2000])
def test_shakespeare(hf_worker, vocab_size):
    tok, missing = ours(SHAKESPEARE, vocab_size)
    (run,) = hf_worker(tok, SHAKESPEARE, hf_trainer(vocab_size))
    assert_close(run["vocab"], tok, missing)


@pytest.mark.parametrize("name, vocab_size", [("udhr_rus", 300), ("udhr_rus", 1000), ("udhr_hin", 400),
                                              ("udhr_cmn_hans", 1200), ("udhr_arb", 500)])
def test_udhr(hf_worker, name, vocab_size):
    text = read(f"udhr/{name}.txt")
    tok, missing = ours(text, vocab_size)
    (run,) = hf_worker(tok, text, hf_trainer(vocab_size))
    assert_close(run["vocab"], tok, missing)
    if name == "udhr_cmn_hans":
        assert len(missing) > 50  # (many characters are dropped and put back: their scores compare as a set)


@pytest.mark.usefixtures("libm")
@pytest.mark.parametrize("name, vocab_size", [("udhr_amh", 367), ("udhr_bod", 260), ("udhr_guj", 270),
                                              ("udhr_khm", 284), ("udhr_mya", 266), ("udhr_nld", 261)])
def test_near_ties_go_as_hf_s_with_the_c_library_s_math(hf_worker, name, vocab_size):
    """The six runs of a sweep over the 41 languages of corpora/udhr_more (each at its
    characters + 200 and + 1,500 pieces) whose pieces part from HF's with the portable math
    (76 of 82 are HF's; all 41 at + 1,500): somewhere two pruning losses (or scores) differ
    only in the last bit or two of a double, and HF orders them by those bits; the portable
    math (40-bit exp and log, the same in the page) makes them equal and ours keeps id order
    (e.g. 33 words of the Finnish UDHR at 67 pieces: 'aan' and 'il', 0.12536969669307643
    both; with the C library's 0.12536969669308234 and ...824, as HF's), and from there the
    pieces part (README, rules).
    With the C library's exp and log, all six are HF's: pieces, ids and scores."""
    from subwordlab_web.samples import strip_udhr_header

    text = strip_udhr_header(read(f"udhr_more/{name}.txt"))[0]
    tok, missing = ours(text, vocab_size)
    (run,) = hf_worker(tok, text, hf_trainer(vocab_size))
    assert_close(run["vocab"], tok, missing)


def test_special_tokens_lowercase_and_initial_alphabet(hf_worker):
    text = read("taylorswift.txt")[:40_000]
    options = dict(special_tokens=["<pad>", "[MASK]", "<s>"], lowercase=True, initial_alphabet="xyzäöü€")
    tok, missing = ours(text, 700, **options)
    probes = [text[5000:6000], "Zürich? ÄÖÜ € x-y-z [MASK] <pad>", "Shake it off, shake it off!"]
    (run,) = hf_worker(tok, text, hf_trainer(700, specials=options["special_tokens"],
                                             initial_alphabet=options["initial_alphabet"]), encode=probes)
    assert_close(run["vocab"], tok, missing)
    assert {"ä", "ö", "ü", "€"} <= set(tok.model.vocab)  # (not in the lower-cased text: added by finalize)
    assert tok.model.vocab[:4] == ["<unk>", "<pad>", "[MASK]", "<s>"]
    # the model HF trained and ours split alike (the ids of pieces whose scores differ in the
    # last bits may be swapped: both sort by score)
    for text_, ids in zip(probes, run["encoded"]):
        assert tok.tokenize(text_, allowed_special="all") == [run["vocab"][i][0] for i in ids], text_


def test_special_tokens_typed_into_the_text_are_words_of_their_own_as_in_hf(hf_worker):
    """HF cuts a special token out of the text before it pre-tokenizes, and still counts it:
    one word, its text as it is (ours cut it and dropped it: other expected counts)."""
    text = read("udhr/udhr_eng.txt").replace("the ", "the <s> ", 40).replace("of", "of</s>", 20)
    tok, missing = ours(text, 400)
    (run,) = hf_worker(tok, text, hf_trainer(400))
    assert_close(run["vocab"], tok, missing)


@pytest.mark.parametrize("unk, specials", [("<unk>", ["<s>"]), (None, ["<s>", "</s>"])])
def test_unk_not_among_the_special_tokens_or_none(hf_worker, unk, specials):
    """HF puts an unk the special tokens lack first (one more reserved piece); without one, none."""
    text = read("udhr/udhr_eng.txt")
    spec = resolve_options("unigram", 400, None, {"special_tokens": specials})
    counts, _ = corpus_word_counts(text, spec, *unigram_pipeline(spec)[:2])
    tok = subwordlab.train(text, preset="unigram", vocab_size=400, special_tokens=specials)
    steps = train_hf_unigram(counts, vocab_size=400, unk_token=unk, special_tokens=specials)
    last_em = None
    while True:
        try:
            event = next(steps)
        except StopIteration as stop:
            model = stop.value[0]
            break
        last_em = event if event.kind == "em" else last_em
    missing = {p for p in model.vocab if len(p) == 1 and p not in {p for p, _ in last_em.pieces}}
    (run,) = hf_worker(tok, text, {"vocab_size": 400, "unk_token": unk, "special_tokens": specials})
    tok.model = model
    assert_close(run["vocab"], tok, missing)
    assert model.unk_id == (0 if unk else None)


def test_a_vocabulary_smaller_than_the_alphabet_fails_as_hf_says_how_to_fix():
    with pytest.raises(ValueError, match="use at least"):
        subwordlab.train(read("udhr/udhr_cmn_hans.txt"), preset="unigram", vocab_size=300, rules="hf")


def test_where_hf_would_loop_forever_ours_says_what_size_to_use():
    """UnigramTrainer(vocab_size=4) on these words never returns (its loop has no exit when a
    pruning round removes nothing); ours stops there with the fix."""
    with pytest.raises(ValueError, match="would never stop; use vocab_size=5 or more"):
        subwordlab.train("bbb bbb bbb ééa ééa ba a", preset="unigram", vocab_size=4, rules="hf", special_tokens=[])


def test_initial_alphabet_needs_hf_rules():
    with pytest.raises(ValueError, match="rules='hf' only"):
        subwordlab.train("a b", preset="unigram", vocab_size=10, initial_alphabet="xyz")


# -- tie-heavy corpora (Hypothesis) -------------------------------------------------------

@settings(max_examples=examples(45), deadline=None)
@given(st.lists(st.text(alphabet="abé", min_size=1, max_size=5), min_size=1, max_size=4, unique=True),
       st.lists(st.integers(1, 3), min_size=4, max_size=4), st.integers(0, 8))
def test_tie_heavy_corpora_bit_for_bit(hf_worker, words, repeats, extra):
    from subwordlab.trainers import hf_unigram

    # (the C library's exp and log, as in the libm fixture: Hypothesis runs this many times)
    hf_unigram.exp, hf_unigram.log = math.exp, math.log
    try:
        _tie_heavy(hf_worker, words, repeats, extra)
    finally:
        hf_unigram.exp, hf_unigram.log = portable_exp, portable_log


def _tie_heavy(hf_worker, words, repeats, extra):
    text = " ".join(w for w, n in zip(words, repeats) for _ in range(n))
    vocab_size = len(set(text) - {" "}) + 1 + extra  # (the ▁ too; from below the specials to a few pieces more)
    try:
        found, _ = ours_in_every_order(text, vocab_size)
    except ValueError as e:
        assert "would never stop" in str(e)  # (where HF loops forever: not asked)
        return
    tok, missing = ours(text, vocab_size)
    (run,) = hf_worker(tok, text, hf_trainer(vocab_size))
    assert canonical(run["vocab"], missing) in found, (text, vocab_size)


def test_the_events_are_the_textbook_ones_so_the_player_works_unchanged():
    """AlphabetReady with the seed, an EmStep per EM iteration and a PruneStep per pruning round,
    each with the whole vocabulary; Done's steps count them, as the textbook rules do."""
    text = read("udhr/udhr_eng.txt")[:4000]
    for rules in ("textbook", "hf"):
        events = list(subwordlab.iter_train(text, preset="unigram", vocab_size=200, rules=rules))
        kinds = [e.kind for e in events]
        assert kinds[0] == "alphabet" and kinds[-1] == "done" and set(kinds[1:-1]) == {"em", "prune"}
        assert all(e.pieces and e.pieces[0] == ("<unk>", 0.0) for e in events[:-1])
        assert [e.vocab_size for e in events[:-1]] == [len(e.pieces) for e in events[:-1]]
        assert events[-1].steps == len(events) - 2
        if rules == "hf":  # (the last step shows the model's vocabulary, in its order)
            assert events[-2].pieces == list(zip(events[-1].tokenizer.model.vocab, events[-1].tokenizer.model.scores))
        assert [(e.round, e.iteration) for e in events if e.kind == "em"][:3] == [(0, 0), (0, 1), (1, 0)]
