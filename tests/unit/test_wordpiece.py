"""WordPiece: the greedy longest-match model, the score-based trainer (against a naive
exact-fraction reference), tie-breaks, events, the BERT pre-tokenizer and pipeline; HF
tokenizers differentials run on CPython only."""

import hashlib
import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from corpora import read
from subwordlab.base.registry import dump_component
from subwordlab.models.wordpiece import WordPiece
from subwordlab.pipeline.pre_tokenizers import BertPreTokenizer
from subwordlab.trainers import textbook
from subwordlab.trainers.wordpiece import exact_score_key

ENG = read("udhr/udhr_eng.txt")


def merges(corpus, n=None, **options):
    events = list(subwordlab.iter_train(corpus, preset="wordpiece", num_merges=n, **options))
    return [e for e in events if e.kind == "merge"], events[-1].tokenizer


# -- the trainer --------------------------------------------------------------------------
corpora = st.dictionaries(st.text("abcd", min_size=1, max_size=6), st.integers(1, 5), min_size=1, max_size=7)


@settings(max_examples=examples(200))
@given(corpora, st.sampled_from(["first", "lex_min", "lex_max"]))
def test_incremental_trainer_equals_naive_recount(corpus, tie_break):
    steps, _ = merges(corpus, 12, tie_break=tie_break)
    assert [(s.pair, s.count, s.new_token) for s in steps] == textbook.wordpiece(corpus, 12, tie_break=tie_break)


def test_tie_breaks_on_equal_scores():
    corpus = {"cd": 1, "ab": 1}  # (c, ##d) and (a, ##b) both score 1/(1*1)
    assert merges(corpus, 1)[0][0].pair == ("c", "##d")  # met first
    assert merges(corpus, 1, tie_break="lex_min")[0][0].pair == ("a", "##b")
    assert merges(corpus, 1, tie_break="lex_max")[0][0].pair == ("c", "##d")
    with pytest.raises(ValueError, match="tie_break"):
        merges(corpus, 1, tie_break="random")


@settings(max_examples=examples(300))
@given(st.integers(1, 10**12), st.integers(1, 10**7), st.integers(1, 10**7),
       st.integers(1, 10**12), st.integers(1, 10**7), st.integers(1, 10**7))
def test_score_keys_order_exactly_like_fractions(c1, l1, r1, c2, l2, r2):
    f1, f2 = Fraction(c1, l1 * r1), Fraction(c2, l2 * r2)
    shift = (l1 * r1 * l2 * r2).bit_length()  # 2**shift >= the product of the denominators
    k1, k2 = exact_score_key(c1, l1, r1, shift), exact_score_key(c2, l2, r2, shift)
    assert (k1 < k2) == (f1 < f2) and (k1 == k2) == (f1 == f2)


def test_score_keys_separate_fractions_that_round_to_the_same_float():
    k = 10**15
    assert k / (3 * k + 1) == (k + 1) / (3 * k + 4)  # the same float ...
    shift = ((3 * k + 1) * (3 * k + 4)).bit_length()
    a, b = exact_score_key(k, 3 * k + 1, 1, shift), exact_score_key(k + 1, 3 * k + 4, 1, shift)
    assert (a < b) == (Fraction(k, 3 * k + 1) < Fraction(k + 1, 3 * k + 4))  # ... ordered exactly


def test_events_carry_scores_part_counts_and_candidates():
    steps, tok = merges({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, 4, top_k=3)
    for s in steps:
        a, b = s.part_counts
        assert s.score == s.count / (a * b)
        assert len(s.candidates) <= 3 and s.candidates[0] == (s.pair, s.count, s.score)
        assert [c[2] for c in s.candidates] == sorted((c[2] for c in s.candidates), reverse=True)
    assert [s.vocab_size for s in steps] == list(range(steps[0].vocab_size, steps[0].vocab_size + 4))


def test_stops_at_vocab_size_and_respects_min_frequency():
    _, tok = merges(ENG, vocab_size=300)
    assert tok.vocab_size == 300
    steps, _ = merges({"xq": 1, "the": 5, "then": 4}, 10, min_frequency=2)
    assert all(s.count >= 2 for s in steps) and ("x", "##q") not in [s.pair for s in steps]
    with pytest.raises(ValueError, match="use at least"):
        merges(ENG, vocab_size=10)


def test_training_is_deterministic_and_stable_across_runtimes():
    a = dump_component("model", subwordlab.train(ENG, preset="wordpiece", vocab_size=400).model)
    assert a == dump_component("model", subwordlab.train(ENG, preset="wordpiece", vocab_size=400).model)
    # subtle: a golden hash, the same in CPython and Pyodide (update it if the trainer changes)
    digest = hashlib.sha256(json.dumps(a, sort_keys=True).encode()).hexdigest()
    assert digest == "d0face12ea7ae14a29c417a7966939b400b54467d59bdd1636d6f2e90f13026e", digest


def test_the_rule_is_stated_in_the_option_help():
    help_text = subwordlab.OPTIONS["wordpiece"]["num_merges"][1]
    assert "count(ab)/(count(a)*count(b))" in help_text and "not the HF tokenizers library" in help_text


# -- the model ----------------------------------------------------------------------------
def test_longest_match_first_with_continuations_and_whole_word_unk():
    m = WordPiece(["[UNK]", "un", "una", "##ff", "##able", "##a", "##ble", "a"])
    assert [m.vocab[i] for i in m.encode_piece("unaffable")] == ["una", "##ff", "##able"]
    assert [m.vocab[i] for i in m.encode_piece("unable")] == ["una", "##ble"]
    assert m.tokenize_piece("unaffablez") == [(0, 0, 10)]  # the whole word, not just the z
    assert m.tokenize_piece("una") == [(2, 0, 3)]


def test_max_input_chars_per_word():
    m = WordPiece(["[UNK]", "a", "##a"], max_input_chars_per_word=5)
    assert m.encode_piece("aaaaa") == [1, 2, 2, 2, 2]
    assert m.encode_piece("aaaaaa") == [0]
    _, tok = merges({"aaaaaa": 3, "ab": 1}, 2, max_input_chars_per_word=5)
    assert "##a" not in tok.model.vocab  # the long word is not trained on: it is always unk
    assert tok.tokenize("aaaaaa ab") == ["[UNK]", "ab"]


def test_unknown_word_without_unk_token_is_an_error():
    m = WordPiece(["a", "##b"], unk_token=None)
    with pytest.raises(ValueError, match="unk_token"):
        m.encode_piece("ac")
    with pytest.raises(ValueError, match="not in the vocabulary"):
        WordPiece(["a"], unk_token="[UNK]")


# -- the pipeline ---------------------------------------------------------------------------
def test_bert_pre_tokenizer_isolates_punctuation_and_cjk():
    pre = BertPreTokenizer()
    assert pre.pre_tokenize_str("Hi,there! $5") == [("Hi", (0, 2)), (",", (2, 3)), ("there", (3, 8)),
                                                    ("!", (8, 9)), ("$", (10, 11)), ("5", (11, 12))]
    assert pre.words("人人生而自由。«ok»") == ["人", "人", "生", "而", "自", "由", "。", "«", "ok", "»"]
    assert BertPreTokenizer(handle_chinese_chars=False).words("人人 ok") == ["人人", "ok"]


def test_lowercase_and_strip_accents_and_special_tokens_first():
    _, tok = merges("Café naïve CAFÉ", 3, lowercase=True, strip_accents=True)
    assert tok.model.vocab[:5] == ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    assert tok.normalize_str("Café NAÏVE") == "cafe naive"
    assert "".join(t.lstrip("#") for t in tok.tokenize("CAFÉ")) == "cafe"
    enc = tok.encode_full("Café!")
    assert enc.offsets[-1] == (4, 5) and enc.tokens[-1] == "[UNK]"


def test_decoder_glues_continuations():
    _, tok = merges(ENG, vocab_size=400)
    text = "everyone has the right to life , liberty and security of person ."
    assert tok.decode(tok.encode(text)) == text


@pytest.mark.cpython_only
def test_bert_pre_tokenizer_matches_hf():
    from tokenizers.pre_tokenizers import BertPreTokenizer as HF

    ours, hf = BertPreTokenizer(handle_chinese_chars=False), HF()
    for text in [read("tinyshakespeare.txt")[:20000], ENG, read("udhr/udhr_rus.txt"), "a\u00a0b\u3000c¿qué? ‘x’ — ok… 1,000.5%"]:
        assert ours.pre_tokenize_str(text) == hf.pre_tokenize_str(text)


@pytest.mark.cpython_only
def test_encoding_matches_hf_wordpiece_on_our_vocabulary():
    from tokenizers import Tokenizer, models, pre_tokenizers

    text = read("tinyshakespeare.txt")
    _, tok = merges(text[:200_000], vocab_size=2000)
    hf = Tokenizer(models.WordPiece({t: i for i, t in enumerate(tok.model.vocab)}, unk_token="[UNK]",
                                    max_input_chars_per_word=100))
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    sample = text[200_000:260_000]
    assert tok.encode(sample) == hf.encode(sample).ids


def test_an_unknown_word_decodes_as_a_word_between_spaces():
    tok = subwordlab.train("tokens token stemming stem", preset="wordpiece", num_merges=10)
    assert tok.decode(tok.encode("tokens xyz stemming")) == "tokens [UNK] stemming"
