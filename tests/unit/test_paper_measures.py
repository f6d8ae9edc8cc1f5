"""The research papers' tokenization measures in ``subwordlab.stats``, measured the way the
papers measure them: the Shannon and Rényi efficiencies (Zouhar et al. 2023) against the
``tokenization-scorer`` package (1.1.8, the paper's own code) to 1e-9, on its test vectors,
on generated frequency distributions and on real tokenizations; the tokenization premium
(Petrov et al. 2023), the proportion of continued words (Ács 2019, Rust et al. 2021) and the
byte-fallback rate on hand-checkable texts; and ``subwordlab stats`` with them.

tokenization-scorer counts whitespace-separated strings, so a distribution is handed to it as
a text in which token ``i`` appears as the word ``t<i>`` as many times as it is counted.
"""

import json
import math
from collections import Counter

import pytest
import tokenization_scorer
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from corpora import UDHR
from subwordlab.cli.parser import main
from subwordlab.stats import (
    RENYI_ALPHA,
    compare_corpus,
    compare_texts,
    renyi_efficiency,
    shannon_efficiency,
    text_stats,
)

pytestmark = pytest.mark.cpython_only  # tokenization-scorer needs numpy

TOLERANCE = 1e-9
SEED = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
TINY_CORPUS = "low lower newest widest\nlow low"


def as_words(counts):
    """A text in which distribution ``counts`` (one count per token) is the word counts."""
    return " ".join(f"t{i}" for i, c in enumerate(counts) for _ in range(c))


def scorer(text, metric, **params):
    """tokenization-scorer's value of ``metric`` on a text of whitespace-separated tokens."""
    return float(tokenization_scorer.score(text, metric=metric, **params))


def reference_efficiencies(text, alpha):
    """(Shannon, Rényi of order alpha) by tokenization-scorer. Its 'renyi' at power 1 returns
    0.0 (1.1.8 reads the text twice from one generator), so at α = 1 its Shannon efficiency is
    the Rényi one, as in the paper."""
    shannon = scorer(text, "shannon_efficiency")
    return shannon, shannon if alpha == 1 else scorer(text, "renyi", power=alpha)


def ids_as_words(ids):
    return " ".join(f"t{i}" for i in ids)


# -- the efficiencies --------------------------------------------------------------------------

TEXT1 = "pick @@ed pick @@l @@ed pick @@les"  # tokenization-scorer's tests/test.py vectors
TEXT2 = "pick @@e @@d pick @@l @@e @@d pick @@l @@e @@s"


@pytest.mark.parametrize("text, renyi, shannon", [
    (TEXT1, 0.8265064834225245, 0.9211854965885544),
    (TEXT2, 0.9204840242168808, 0.9609557933859342),
])
def test_the_reference_packages_own_vectors(text, renyi, shannon):
    counts = Counter(text.split())
    assert renyi_efficiency(counts, 2.5) == pytest.approx(renyi, abs=TOLERANCE)
    assert shannon_efficiency(counts) == pytest.approx(shannon, abs=TOLERANCE)
    # and the package itself, as installed, still says so
    assert reference_efficiencies(text, 2.5) == (pytest.approx(shannon, abs=TOLERANCE), pytest.approx(renyi, abs=TOLERANCE))


ALPHAS = st.one_of(st.sampled_from([1.0, 2.5, 0.5, 2.0, 3.0, 10.0]), st.floats(0.05, 0.9), st.floats(1.1, 20.0))


@settings(max_examples=examples(100))
@given(counts=st.lists(st.integers(0, 300), min_size=1, max_size=40), alpha=ALPHAS)
@example(counts=[1, 1, 1], alpha=0.5)  # (uniform: it came out 1.0000000000016558 before the bound)
def test_efficiencies_equal_tokenization_scorers_on_generated_distributions(counts, alpha):
    observed = [c for c in counts if c > 0]
    ours = shannon_efficiency(counts), renyi_efficiency(dict(enumerate(counts)), alpha)
    if len(observed) < 2:
        # one distinct token: 0 / log 1 (the package says nan); no token: nothing to measure
        assert ours == (None, None)
        return
    # zero counts are tokens never seen: the reference never sees them either
    shannon, renyi = reference_efficiencies(as_words(counts), alpha)
    assert ours == (pytest.approx(shannon, abs=TOLERANCE), pytest.approx(renyi, abs=TOLERANCE))
    assert 0.0 <= ours[0] <= 1.0 and 0.0 <= ours[1] <= 1.0


def test_alpha_1_is_shannon_and_2_5_is_the_default():
    counts = Counter(TEXT2.split())
    assert renyi_efficiency(counts, 1) == shannon_efficiency(counts)
    assert renyi_efficiency(counts) == renyi_efficiency(counts, 2.5) and RENYI_ALPHA == 2.5
    # Rényi entropy falls as α grows (strictly, for a non-uniform distribution)
    assert renyi_efficiency(counts, 0.5) > shannon_efficiency(counts) > renyi_efficiency(counts, 2.5) > renyi_efficiency(counts, 3)


def test_the_normaliser_is_log_of_the_observed_distinct_tokens():
    # counts 2, 1, 1: p = 1/2, 1/4, 1/4; Shannon entropy 1.5 bits; V = 3 -> 1.5 / log2 3
    counts = {"a": 2, "b": 1, "c": 1}
    assert shannon_efficiency(counts) == pytest.approx(1.5 / math.log2(3), abs=1e-12)
    # Rényi α = 2: Σ p² = 1/4 + 1/16 + 1/16 = 3/8, entropy -log2(3/8), over log2 3
    assert renyi_efficiency(counts, 2) == pytest.approx(-math.log2(3 / 8) / math.log2(3), abs=1e-12)
    # not log of the tokens (4), nor of a vocabulary: a token counted 0 times is not observed
    assert shannon_efficiency(counts) != pytest.approx(1.5 / math.log2(4))
    assert shannon_efficiency({**counts, "never": 0}) == shannon_efficiency(counts)
    assert shannon_efficiency({**counts, "once": 1}) != shannon_efficiency(counts)
    # a uniform distribution is as efficient as can be, whatever V
    for v in (2, 3, 7, 100):
        assert renyi_efficiency([5] * v) == pytest.approx(1.0, abs=1e-11)
        assert shannon_efficiency([5] * v) == pytest.approx(1.0, abs=1e-11)


def test_text_stats_normalises_by_the_texts_distinct_tokens_not_the_vocabulary():
    tok = subwordlab.train(SEED, preset="bpe", num_merges=8)
    assert tok.vocab_size > 10
    # 'low low lowest': low, </w>, low, </w>, low, est</w> -> counts 3, 2, 1 over V = 3
    assert tok.tokenize("low low lowest") == ["low", "</w>", "low", "</w>", "low", "est</w>"]
    row = text_stats(tok, "low low lowest")
    p = [3 / 6, 2 / 6, 1 / 6]
    assert row["distinct_tokens"] == 3
    assert row["shannon_efficiency"] == pytest.approx(-sum(x * math.log(x) for x in p) / math.log(3), abs=1e-12)
    assert row["renyi_efficiency"] == pytest.approx(math.log(sum(x ** 2.5 for x in p)) / (1 - 2.5) / math.log(3), abs=1e-12)


def test_efficiency_errors_say_what_to_pass():
    with pytest.raises(ValueError, match="positive number such as 2.5"):
        renyi_efficiency([1, 2], 0)
    for bad in (-1, float("nan"), float("inf"), True, "2.5"):
        with pytest.raises(ValueError, match="alpha"):
            renyi_efficiency([1, 2], bad)
    with pytest.raises(ValueError, match="counts"):
        shannon_efficiency({"a": -1, "b": 2})
    assert shannon_efficiency({}) is None and renyi_efficiency(Counter("aaa")) is None


# -- on real tokenizations, per text and pooled ----------------------------------------------------

@pytest.fixture(scope="module")
def fallback_tok():
    """A SentencePiece BPE with byte fallback, trained on the first English UDHR article."""
    english = next(p for p in UDHR if p.name == "udhr_eng.txt").read_text(encoding="utf-8")[:3000]
    return subwordlab.train(english, preset="sentencepiece_bpe", byte_fallback=True, vocab_size=400)


@pytest.fixture(scope="module")
def parallel():
    """The first 1,500 characters of six UDHR translations (several scripts)."""
    return {p.stem: p.read_text(encoding="utf-8")[:1500] for p in UDHR[:6]}


def test_per_text_and_pooled_efficiencies_equal_tokenization_scorers(fallback_tok, parallel):
    measured = compare_corpus(fallback_tok, parallel, alpha=3.0)
    ids = {name: fallback_tok.encode(text, disallowed_special=()) for name, text in parallel.items()}
    for name, row in measured["texts"].items():
        shannon, renyi = reference_efficiencies(ids_as_words(ids[name]), 3.0)
        assert (row["shannon_efficiency"], row["renyi_efficiency"]) == (pytest.approx(shannon, abs=TOLERANCE),
                                                                        pytest.approx(renyi, abs=TOLERANCE)), name
    # pooled: one distribution of all texts' tokens (one line per text for the package)
    pooled = measured["all_texts"]
    shannon, renyi = reference_efficiencies("\n".join(ids_as_words(i) for i in ids.values()), 3.0)
    assert (pooled["shannon_efficiency"], pooled["renyi_efficiency"]) == (pytest.approx(shannon, abs=TOLERANCE),
                                                                          pytest.approx(renyi, abs=TOLERANCE))
    assert pooled["alpha"] == 3.0 and pooled["texts"] == len(parallel) and pooled["skipped"] == []
    assert pooled["distinct_tokens"] == len({i for seq in ids.values() for i in seq})
    # the pooled ratios are ratios of sums (a longer text weighs more), not means of ratios
    rows = measured["texts"].values()
    assert pooled["tokens"] == sum(len(i) for i in ids.values())
    assert pooled["tokens_per_word"] == pooled["tokens"] / sum(r["words"] for r in rows)
    continued = sum(round(r["continued_words"] * r["words"]) for r in rows)
    assert pooled["continued_words"] == continued / sum(r["words"] for r in rows)


def test_pooled_measures_skip_a_text_that_cannot_be_encoded():
    tok = subwordlab.train(SEED, preset="bpe", num_merges=8)  # no unk token: 'q' cannot be encoded
    measured = compare_corpus(tok, {"a": "low", "b": "lowq", "c": "lowest"})
    assert "error" in measured["texts"]["b"] and measured["all_texts"]["skipped"] == ["b"]
    # 'low' -> low, </w>; 'lowest' -> low, est</w>: 4 tokens over 2 words
    assert measured["all_texts"]["texts"] == 2 and measured["all_texts"]["tokens"] == 4
    assert measured["all_texts"]["tokens_per_word"] == 2.0


# -- premium, continued words, byte fallback ---------------------------------------------------

def test_premium_is_parity_and_the_references_is_1(fallback_tok, parallel):
    ref = "udhr_eng"  # the English original, as in Petrov et al. (not the first text)
    assert ref in parallel and next(iter(parallel)) != ref
    rows = compare_texts(fallback_tok, parallel, reference=ref)
    assert rows[ref]["premium"] == 1.0
    for name, row in rows.items():
        assert row["premium"] == row["parity"]
        assert row["premium"] == len(fallback_tok.encode(parallel[name], disallowed_special=())) / rows[ref]["tokens"]
    # compare_corpus gives the same rows
    assert compare_corpus(fallback_tok, parallel, reference=ref)["texts"] == rows


def test_continued_words_by_hand():
    tok = subwordlab.train(SEED, preset="bpe", num_merges=8)
    # lowest -> low|est</w> (continued); newest -> newest</w> (one token); lower -> low|e|r|</w>
    assert tok.tokenize("lowest newest lower") == ["low", "est</w>", "newest</w>", "low", "e", "r", "</w>"]
    row = text_stats(tok, "lowest newest lower")
    assert row["continued_words"] == row["split_words"] == 2 / 3
    assert row["tokens_per_word"] == 7 / 3  # fertility
    # words are white-space runs: 'newest,' stays one word (two tokens here: continued)
    tok_punct = subwordlab.train({"newest": 5, ",": 1}, preset="sentencepiece_bpe", vocab_size=30)
    assert len(tok_punct.tokenize("newest,")) >= 2
    assert text_stats(tok_punct, "newest,")["words"] == 1 and text_stats(tok_punct, "newest,")["continued_words"] == 1.0


def test_byte_fallback_rate(fallback_tok):
    tok = subwordlab.train(TINY_CORPUS, preset="sentencepiece_bpe", byte_fallback=True, vocab_size=300)
    # 'é' was never seen: its two UTF-8 bytes become <0xC3> <0xA9>; 2 of 4 tokens
    assert tok.tokenize("low é") == ["▁low", "▁", "<0xC3>", "<0xA9>"]
    assert text_stats(tok, "low é")["byte_fallback_rate"] == 0.5
    assert text_stats(tok, "low low")["byte_fallback_rate"] == 0.0
    assert text_stats(tok, "")["byte_fallback_rate"] is None  # no tokens
    # a Unigram model falls back the same way
    uni = subwordlab.train(TINY_CORPUS, preset="sentencepiece_unigram", byte_fallback=True, vocab_size=300)
    assert uni.tokenize("low é")[-2:] == ["<0xC3>", "<0xA9>"]
    assert text_stats(uni, "low é")["byte_fallback_rate"] == 2 / len(uni.tokenize("low é"))
    # without byte fallback: the unknown token, no fallback
    plain = subwordlab.train(TINY_CORPUS, preset="sentencepiece_bpe", vocab_size=300)
    assert plain.tokenize("low é") == ["▁low", "▁", "<unk>"]
    assert text_stats(plain, "low é")["byte_fallback_rate"] == 0.0 and text_stats(plain, "low é")["unknown_rate"] == 1 / 3
    # byte-level BPE: bytes are its alphabet, not a fallback
    byte_level = subwordlab.train(TINY_CORPUS, preset="byte_bpe", vocab_size=260)
    assert text_stats(byte_level, "low é")["byte_fallback_rate"] == 0.0
    # pooled: 2 fallback tokens of 4 + 2 tokens
    pooled = compare_corpus(tok, {"a": "low é", "b": "low low"})["all_texts"]
    assert len(tok.tokenize("low low")) == 2 and pooled["byte_fallback_rate"] == 2 / 6


# -- subwordlab stats ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("measures") / "model.json"
    subwordlab.save(subwordlab.train(TINY_CORPUS, preset="sentencepiece_bpe", byte_fallback=True, vocab_size=300), path)
    return str(path)


def stats_json(capsys, model_file, *extra):
    assert main(["stats", "-m", model_file, "--text", "en=low lower", "--text", "fr=low é newest", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_stats_json_has_the_measures_and_alpha_changes_renyi(capsys, model_file):
    data = stats_json(capsys, model_file)
    for row in data["texts"].values():
        assert {"premium", "parity", "continued_words", "byte_fallback_rate", "distinct_tokens",
                "shannon_efficiency", "renyi_efficiency"} <= set(row)
    assert data["texts"]["en"]["premium"] == 1.0 and data["texts"]["fr"]["byte_fallback_rate"] > 0
    pooled = data["all_texts"]
    assert pooled["alpha"] == 2.5 and pooled["tokens"] == sum(r["tokens"] for r in data["texts"].values())
    tok = subwordlab.load(model_file)
    frequencies = Counter(tok.encode("low lower") + tok.encode("low é newest"))
    assert pooled["renyi_efficiency"] == renyi_efficiency(frequencies, 2.5)
    # --alpha: the Rényi efficiency's order (Shannon's unchanged); 1 is Shannon's
    at3 = stats_json(capsys, model_file, "--alpha", "3")["all_texts"]
    assert at3["alpha"] == 3.0 and at3["renyi_efficiency"] == renyi_efficiency(frequencies, 3)
    assert at3["renyi_efficiency"] != pooled["renyi_efficiency"] and at3["shannon_efficiency"] == pooled["shannon_efficiency"]
    at1 = stats_json(capsys, model_file, "--alpha", "1")["all_texts"]
    assert at1["renyi_efficiency"] == at1["shannon_efficiency"]


def test_cli_stats_table_and_a_wrong_alpha(capsys, model_file):
    assert main(["stats", "-m", model_file, "--text", "en=low lower", "--text", "fr=low é newest"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = lines[0].split()
    assert {"premium", "continued", "fb", "renyi"} <= set(head) and "parity" not in head
    assert lines[3].startswith("all texts ") and "alpha=2.5" in lines[4]
    with pytest.raises(SystemExit) as stop:
        main(["stats", "-m", model_file, "--text", "en=low", "--alpha", "0"])
    assert stop.value.code == 2 and "--alpha: takes a positive number such as 2.5" in capsys.readouterr().err
