"""Unigram: the model (Viterbi, n-best, sampling, unknowns, byte fallback), the trainer
(seeds, EM, pruning, events, determinism) and the two presets; SentencePiece differentials
(quality and Viterbi on SentencePiece's own vocabulary) run on CPython only."""

import hashlib
import io
import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from corpora import UDHR, read
from subwordlab.base.registry import dump_component
from subwordlab.models.unigram import Unigram
from subwordlab.trainers.unigram import digamma
from subwordlab.trainers.unigram_seed import frequent_substrings, is_valid_piece

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)

ENG = read("udhr/udhr_eng.txt")


def model(pieces, **kw):
    """A model with <unk> at id 0 and the given {piece: probability}."""
    return Unigram.from_pieces([("<unk>", 0.0)] + [(p, math.log(q)) for p, q in pieces.items()], **kw)


def segmentations(text, vocab):
    """Every way to write ``text`` as a sequence of vocabulary pieces (brute force)."""
    if not text:
        return [[]]
    out = []
    for k in range(1, len(text) + 1):
        if text[:k] in vocab:
            out += [[text[:k]] + rest for rest in segmentations(text[k:], vocab)]
    return out


def strings(m, ids):
    return [m.vocab[i] for i in ids]


# -- the model ----------------------------------------------------------------------------
vocabularies = st.dictionaries(st.text("abc", min_size=2, max_size=4), st.floats(0.01, 1.0), max_size=8).map(
    lambda d: {**{c: p for c, p in zip("abc", (0.3, 0.2, 0.1))}, **d})


@settings(max_examples=examples(150))
@given(vocabularies, st.text("abc", min_size=1, max_size=9))
def test_viterbi_equals_brute_force(probs, text):
    m = model(probs)
    logp = {p: math.log(q) for p, q in probs.items()}
    scored = sorted((sum(logp[p] for p in seg), seg) for seg in segmentations(text, probs))
    best_score, best = scored[-1]
    got = strings(m, m.encode_piece(text))
    assert "".join(got) == text
    assert sum(logp[p] for p in got) == pytest.approx(best_score, abs=1e-9)
    if len(scored) == 1 or scored[-2][0] < best_score - 1e-9:
        assert got == best


@settings(max_examples=examples(100))
@given(vocabularies, st.text("abc", min_size=1, max_size=8), st.integers(1, 12))
def test_nbest_is_the_brute_force_top_n_descending_and_distinct(probs, text, n):
    m = model(probs)
    logp = {p: math.log(q) for p, q in probs.items()}
    truth = sorted((sum(logp[p] for p in seg) for seg in segmentations(text, probs)), reverse=True)[:n]
    got = m.nbest([text], n)
    scores = [lp for _, lp in got]
    assert scores == pytest.approx(truth, abs=1e-9)
    assert scores == sorted(scores, reverse=True)
    assert len({tuple(ids) for ids, _ in got}) == len(got)
    for ids, lp in got:
        assert "".join(strings(m, ids)) == text
        assert sum(logp[p] for p in strings(m, ids)) == pytest.approx(lp)


def test_nbest_over_several_pieces_combines_them():
    m = model({"a": 0.4, "b": 0.3, "ab": 0.1})
    got = m.nbest(["ab", "ab"], 4)
    assert [round(math.exp(lp), 4) for _, lp in got] == [0.0144, 0.012, 0.012, 0.01]
    assert strings(m, got[0][0]) == ["a", "b", "a", "b"] and strings(m, got[-1][0]) == ["ab", "ab"]
    with pytest.raises(ValueError, match="positive integer"):
        m.nbest(["ab"], 0)


def test_sampling_follows_the_exact_distribution():
    m = model({"a": 0.3, "b": 0.2, "c": 0.1, "ab": 0.05, "bc": 0.1, "abc": 0.01})
    segs = segmentations("abc", {"a", "b", "c", "ab", "bc", "abc"})
    for alpha in (1.0, 0.5, 0.0):
        weights = {tuple(s): math.exp(alpha * sum(m.scores[m.token_to_id[p]] for p in s)) for s in segs}
        z = sum(weights.values())
        rng = random.Random(11)
        n = 4000
        counts = {}
        for _ in range(n):
            seg = tuple(strings(m, m.sample_piece("abc", alpha, rng)))
            counts[seg] = counts.get(seg, 0) + 1
        assert set(counts) <= set(weights)
        for seg, w in weights.items():
            assert abs(counts.get(seg, 0) / n - w / z) < 0.03, (alpha, seg)


def test_sampling_is_reproducible_by_seed_and_validates_alpha():
    tok = subwordlab.train(ENG, preset="sentencepiece_unigram", vocab_size=400)
    text = "Everyone has the right to life, liberty and security of person."
    a = tok.sample_encode(text, 0.1, seed=5)
    assert a == tok.sample_encode(text, 0.1, seed=5)
    assert tok.decode(a) == text
    assert any(tok.sample_encode(text, 0.1, seed=s) != tok.encode(text) for s in range(5))
    with pytest.raises(ValueError, match="alpha"):
        tok.sample_encode(text, -1.0)


def test_unknown_characters_fuse_into_one_unk_or_become_bytes():
    m = model({"a": 0.5, "b": 0.5})
    assert m.tokenize_piece("axyb") == [(1, 0, 1), (0, 1, 3), (2, 3, 4)]
    pieces = [("<unk>", 0.0)] + [(f"<0x{b:02X}>", 0.0) for b in range(256)] + [("a", -1.0)]
    fb = Unigram.from_pieces(pieces, byte_fallback=True)
    assert strings(fb, fb.encode_piece("aé")) == ["a", "<0xC3>", "<0xA9>"]
    assert [s for _, s, _ in fb.tokenize_piece("aé")] == [0, 1, 1]  # both bytes span the é
    no_unk = Unigram.from_pieces([("a", -1.0)], unk_id=None)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        no_unk.encode_piece("ab")


def test_reserved_pieces_never_match_text_and_user_defined_are_whole():
    m = Unigram.from_pieces([("<unk>", 0.0), ("<s>", 0.0), ("<sep>", 0.0), ("<", -1.0), ("s", -1.0), (">", -1.0)],
                            control_ids=[1], user_defined_ids=[2])
    assert strings(m, m.encode_piece("<s>")) == ["<", "s", ">"]
    assert strings(m, m.encode_piece("<sep>")) == ["<sep>"]
    assert m.dump()["vocab"][3] == ["<", -1.0]
    with pytest.raises(ValueError, match="twice"):
        Unigram.from_pieces([("a", 0.0), ("a", -1.0)])


def test_tokenizer_methods_need_a_unigram_model():
    wp = subwordlab.train({"hug": 3, "pug": 2}, preset="wordpiece", num_merges=1)
    with pytest.raises(TypeError, match="Unigram"):
        wp.encode_nbest("hug", 2)
    with pytest.raises(TypeError):
        wp.sample_encode("hug", 0.1)


# -- the trainer's parts -------------------------------------------------------------------
def test_digamma_matches_known_values():
    assert digamma(1.0) == pytest.approx(-0.5772156649, abs=1e-9)
    assert digamma(0.5) == pytest.approx(-1.9635100260, abs=1e-9)
    assert digamma(10.0) == pytest.approx(2.2517525891, abs=1e-9)


def test_valid_pieces_follow_sentencepiece_rules():
    assert is_valid_piece("▁the") and is_valid_piece(',"') and is_valid_piece("▁") and is_valid_piece("ét")
    assert not is_valid_piece("he▁") and not is_valid_piece("d,") and not is_valid_piece("a1")
    assert not is_valid_piece("x" * 17) and is_valid_piece("x" * 17, max_piece_length=20)
    assert is_valid_piece("12") and not is_valid_piece("12", split_digits=True)
    assert is_valid_piece("▁नमस्ते") and not is_valid_piece("aж")  # marks join their letters; scripts do not mix


def naive_nodes(words, freqs, max_len):
    """Right-maximal substrings (end of word = a continuation), or ending a repeated word."""
    count, nxt = {}, {}
    for w, f in zip(words, freqs):
        for i in range(len(w)):
            for j in range(i + 2, min(len(w), i + max_len) + 1):
                s = w[i:j]
                count[s] = count.get(s, 0) + f
                nxt.setdefault(s, set()).add(w[j] if j < len(w) else None)
    out = {}
    for s, c in count.items():
        if len(nxt[s]) > 1 or (None in nxt[s] and c >= 2) or len(s) == max_len and c >= 2:
            out[s] = c
    return out


@settings(max_examples=examples(150))
@given(st.lists(st.tuples(st.text("abc", min_size=1, max_size=7), st.integers(1, 3)), min_size=1, max_size=6))
def test_suffix_array_seeds_equal_a_naive_count(entries):
    counts = {}
    for w, f in entries:
        counts[w] = counts.get(w, 0) + f
    words, freqs = list(counts), list(counts.values())
    got = dict(frequent_substrings(words, freqs, 4))
    assert len(got) == len(frequent_substrings(words, freqs, 4))  # no substring twice
    want = {s: c for s, c in naive_nodes(words, freqs, 4).items() if c >= 2}
    assert got == want
    # leaving out the substrings that start with some pairs: the others are as they were
    keep = lambda head: head not in ("ab", "ca")
    assert dict(frequent_substrings(words, freqs, 4, keep)) == {s: c for s, c in want.items() if keep(s[:2])}


# -- training -----------------------------------------------------------------------------
def train_events(corpus, **options):
    return list(subwordlab.iter_train(corpus, **options))


def test_events_order_vocab_size_and_characters_kept():
    events = train_events(ENG, preset="sentencepiece_unigram", vocab_size=300)
    kinds = [e.kind for e in events]
    assert kinds[0] == "alphabet" and kinds[-1] == "done" and "em" in kinds and "prune" in kinds
    tok = events[-1].tokenizer
    assert tok.vocab_size == 300
    assert set(events[0].alphabet) - {"<unk>", "<s>", "</s>"} <= set(tok.model.vocab)  # characters never dropped
    ems = [e for e in events if e.kind == "em"]
    assert all(math.isfinite(e.log_likelihood) and e.log_likelihood < 0 for e in ems)
    assert [(e.round, e.iteration) for e in ems[:2]] == [(0, 0), (0, 1)]
    prunes = [e for e in events if e.kind == "prune"]
    assert prunes[-1].vocab_size == 300
    sizes = [e.vocab_size for e in events if e.kind in ("em", "prune")]
    assert sizes == sorted(sizes, reverse=True)
    for p in prunes:
        losses = [loss for _, loss in p.dropped]
        assert p.dropped and losses == sorted(losses)  # least useful first
        assert all(len(piece) > 1 for piece, _ in p.dropped)
    # pieces are sorted by probability after the reserved ones
    scores = tok.model.scores[3:]
    assert scores == sorted(scores, reverse=True)
    assert events[-1].steps == len(ems) + len(prunes)


def test_seed_size_and_max_piece_length_bound_the_seed_vocabulary():
    events = train_events(ENG, preset="unigram", vocab_size=200, seed_size=500, max_piece_length=5)
    alphabet = events[0]
    assert alphabet.vocab_size <= len(alphabet.alphabet) + 500
    assert max(len(p) for p in events[-1].tokenizer.model.vocab[3:]) <= 5


def test_training_is_deterministic_and_stable_across_runtimes():
    spec = dict(preset="sentencepiece_unigram", vocab_size=400, byte_fallback=True)
    a = dump_component("model", subwordlab.train(ENG, **spec).model)
    b = dump_component("model", subwordlab.train(ENG, **spec).model)
    assert a == b
    # subtle: a golden hash of the exported pieces and scores, the same in CPython and in
    # Pyodide (wasm32). If the trainer changes on purpose, update it (print the digest).
    digest = hashlib.sha256(json.dumps(a, sort_keys=True).encode()).hexdigest()
    assert digest == "2c061787b33872ae1c0293890e1075469ebb7bf0b728d6a979458148e237e495", digest


def test_unigram_preset_on_words_and_word_counts():
    tok = subwordlab.train(ENG, preset="unigram", vocab_size=300)
    text = "Everyone  has\tthe right\nto life."
    assert tok.tokenize(text)[0].startswith("\u2581")
    assert tok.decode(tok.encode(text)) == "Everyone has the right to life."  # words joined by one space
    counts = subwordlab.train({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, preset="unigram", vocab_size=16)
    assert counts.decode(counts.encode("hugs pun")) == "hugs pun"
    assert counts.tokenize("hug")[0].startswith("\u2581")


def test_option_errors_say_how_to_fix_them():
    with pytest.raises(ValueError, match="no merges"):
        subwordlab.train(ENG, preset="unigram", num_merges=10)
    with pytest.raises(ValueError, match="use at least"):
        subwordlab.train(ENG, preset="sentencepiece_unigram", vocab_size=20)
    with pytest.raises(ValueError, match="shrinking_factor"):
        subwordlab.train(ENG, preset="unigram", vocab_size=300, shrinking_factor=1.5)


def test_user_defined_symbols_stay_whole_in_both_sentencepiece_presets():
    for preset in ("sentencepiece_unigram", "sentencepiece_bpe"):
        text = ENG[:3000] + " <sep> " + ENG[3000:6000]
        tok = subwordlab.train(text, preset=preset, vocab_size=300, user_defined_symbols=["<sep>"])
        assert tok.tokenize("a<sep>b")[1] == "<sep>", preset
        assert tok.tokenize("right <sep> of")[1:3] == ["\u2581", "<sep>"], preset
        assert tok.decode(tok.encode("a <sep>b")) == "a <sep>b"
        enc = tok.encode_full("x<sep>")
        assert enc.tokens[-1] == "<sep>" and enc.offsets[-1] == (1, 6)
        assert tok.token_to_id("<sep>") == 3  # after <unk>, <s>, </s>


@settings(max_examples=examples(60))
@given(st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\u2581"), max_size=40))
def test_round_trip_with_byte_fallback_on_any_unicode(text):
    # subtle: a literal ▁ in the input stands for a space (as in SentencePiece), so it is
    # the one character that cannot come back as itself; test_bpe_sentencepiece checks it
    tok = _byte_fallback_tokenizer()
    assert tok.decode(tok.encode(text, disallowed_special=())) == tok.normalize_str(text)


_CACHE = {}


def _byte_fallback_tokenizer():
    if "fb" not in _CACHE:
        _CACHE["fb"] = subwordlab.train(ENG, preset="sentencepiece_unigram", vocab_size=500, byte_fallback=True)
    return _CACHE["fb"]


def test_offsets_point_into_the_original_text():
    tok = subwordlab.train(ENG, preset="sentencepiece_unigram", vocab_size=300)
    text = "Everyone  ＨＡＳ rights."
    enc = tok.encode_full(text)
    assert "".join(text[s:e] for s, e in enc.offsets).replace(" ", "") == text.replace(" ", "")


# -- against SentencePiece (CPython only) ---------------------------------------------------
def sp_train(lines, vocab_size, **options):
    import sentencepiece as spm

    m = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=m, vocab_size=vocab_size,
                                   model_type="unigram", character_coverage=1.0, normalization_rule_name="identity",
                                   num_threads=1, minloglevel=2, **options)
    return spm.SentencePieceProcessor(model_proto=m.getvalue())


def tokens_per_char(encode, lines):
    return sum(len(encode(line)) for line in lines) / sum(len(line) for line in lines)


@pytest.mark.cpython_only
def test_quality_matches_sentencepiece_on_tinyshakespeare():
    lines = read("tinyshakespeare.txt").splitlines()
    cut = int(len(lines) * 0.9)
    train, test = lines[:cut], lines[cut:]
    sp = sp_train(train, 2000)
    ours = subwordlab.train(train, preset="sentencepiece_unigram", vocab_size=2000, normalization="none")
    theirs, mine = tokens_per_char(sp.encode, test), tokens_per_char(ours.encode, test)
    print(f"tinyshakespeare held-out tokens/char: sentencepiece {theirs:.4f}, ours {mine:.4f}")
    assert abs(mine / theirs - 1) <= 0.03


# vocabulary sizes per translation, below what SentencePiece can fill on these small texts
UDHR_SIZES = {"udhr_arb": 450, "udhr_cmn_hans": 700, "udhr_eng": 400, "udhr_hin": 300, "udhr_kor": 450, "udhr_rus": 500}


@pytest.mark.cpython_only
def test_quality_on_udhr_is_never_worse_than_sentencepiece():
    # one model per translation on 90% of its lines, held-out tokens/char on the rest.
    # SentencePiece 0.2 seeds only substrings whose suffix-tree node is right-maximal in the
    # running text, on UTF-8 bytes: a frequent word always followed by a space (Hindi के,
    # Korean 사람은) is never a seed, and neither is a substring that branches only inside a
    # multi-byte character. Our character-level seeds keep them, so on these small texts we
    # are much better for Hindi and Korean; we must never be more than 3% worse anywhere.
    for path in UDHR:
        lines = [line for line in path.read_text(encoding="utf-8").split("---", 1)[1].splitlines() if line.strip()]
        cut = int(len(lines) * 0.9)
        size = UDHR_SIZES[path.stem]
        sp = sp_train(lines[:cut], size)
        ours = subwordlab.train(lines[:cut], preset="sentencepiece_unigram", vocab_size=size, normalization="none")
        theirs, mine = tokens_per_char(sp.encode, lines[cut:]), tokens_per_char(ours.encode, lines[cut:])
        print(f"{path.stem} V={size} held-out tokens/char: sentencepiece {theirs:.4f}, ours {mine:.4f}")
        assert mine <= theirs * 1.03, path.stem


@pytest.mark.cpython_only
@pytest.mark.parametrize("remove_extra_whitespaces", [True, False])
def test_our_viterbi_on_a_sentencepiece_vocabulary_gives_its_segmentation(remove_extra_whitespaces):
    from subwordlab.presets import resolve_options, sentencepiece_pipeline

    lines = read("tinyshakespeare.txt").splitlines()
    sp = sp_train(lines[:20000], 1000, remove_extra_whitespaces=remove_extra_whitespaces)
    pieces = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    controls = [i for i in range(sp.get_piece_size()) if sp.is_control(i)]
    model = Unigram.from_pieces(pieces, unk_id=sp.unk_id(), control_ids=controls)
    # (sentence_per_line off: sp.encode reads a line break in a string as a character, where
    # our default reads it as spm_encode reads a file, a sentence per line)
    spec = resolve_options("sentencepiece_unigram", 1000, None,
                           {"normalization": "none", "remove_extra_whitespaces": remove_extra_whitespaces,
                            "sentence_per_line": False})
    tok = subwordlab.Tokenizer(model, *sentencepiece_pipeline(spec))
    test = lines[20000:24000] + [read("udhr/udhr_eng.txt")[:3000], "Ｕnknown ☃ chars  here"]
    # leading, trailing and repeated spaces (kept as they are without remove_extra_whitespaces)
    test += [" the king", "   the  king  ", " ", "  ", "", "a ", " a  "]
    if not remove_extra_whitespaces:
        # a literal ▁ in the input: equal here; with remove_extra_whitespaces SentencePiece
        # strips a trailing literal ▁ and prepends its dummy ▁ before a leading one, where we
        # follow HF's Metaspace; see the README, "Where we differ"
        test += ["\u2581x", " \u2581 x", "x \u2581"]
    # (ids, not strings: SentencePiece shows an unknown piece as its surface text)
    differ = [line for line in test if tok.encode(line) != sp.encode(line)]
    assert not differ, differ[:3]
    assert tok.tokenize("3 KING HENRY VI")[:2] == ["\u2581", "<unk>"]  # '3' never occurs in the training lines
    for line in test:
        assert tok.decode(tok.encode(line)) == sp.decode(sp.encode(line)).replace(" \u2047 ", "<unk>"), line


# -- snapshots and progress (the web page's player and its responsiveness) -----------------
def test_every_step_carries_the_vocabulary_then_and_the_last_is_the_final_model():
    from subwordlab.recording import Recording

    rec = Recording(ENG, "sentencepiece_unigram", vocab_size=300).run()
    final = rec.tokenizer.model
    assert rec.alphabet.pieces[:3] == [("<unk>", 0.0), ("<s>", 0.0), ("</s>", 0.0)]
    assert len(rec.alphabet.pieces) == rec.alphabet.vocab_size
    for step in rec.steps:
        assert len(step.pieces) == step.vocab_size
    assert rec.steps[-1].pieces == list(zip(final.vocab, final.scores))
    text = "Everyone has the right to life."
    lengths = [len(rec.tokenizer_at(k).encode(text)) for k in (0, len(rec.steps) // 2, len(rec.steps))]
    assert lengths[-1] == len(rec.tokenizer.encode(text))
    assert all(rec.tokenizer_at(k).decode(rec.tokenizer_at(k).encode(text)) == text for k in (0, 3))


def test_phases_report_progress_only_when_asked():
    events = list(subwordlab.iter_train(ENG, preset="sentencepiece_unigram", vocab_size=300, progress=True))
    phases = {e.phase for e in events if e.kind == "progress"}
    assert {"seed", "lattice", "em", "prune", "model"} <= phases
    assert all(0 <= e.done <= e.total for e in events if e.kind == "progress" and e.phase != "count")
    quiet = [e.kind for e in subwordlab.iter_train(ENG, preset="sentencepiece_unigram", vocab_size=300)]
    assert "progress" not in quiet
    assert events[-1].steps == quiet.count("em") + quiet.count("prune")


