"""``rules="sentencepiece"`` for ``sentencepiece_unigram`` against ``spm_train
--model_type=unigram`` itself (the installed sentencepiece package, ``num_threads=1``),
reading the same text one sentence per line, both normalizing with NFKC.

The claim: the same pieces in the same order with the same scores, bit for bit as float32
(spm stores float32; ours are those floats). Corpora we did not design (the UDHR in six
scripts, Shakespeare, Wikipedia text, Python source), word-count lists (spm's TSV input),
tiny to 8,000 pieces, the default character coverage and the options that change the
vocabulary; Hypothesis for small tie-heavy corpora.
"""

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_rules_spm import CORPORA, spm_pieces

import subwordlab

pytestmark = pytest.mark.cpython_only


def ours(corpus, vocab_size, **options):
    options.setdefault("character_coverage", 0.9995)  # (spm_train's default; the preset's is 1.0)
    tok = subwordlab.train(corpus, preset="sentencepiece_unigram", vocab_size=vocab_size, rules="sentencepiece",
                           **options)
    return list(zip(tok.model.vocab, tok.model.scores))


def check_unigram(text, vocab_size, **options):
    theirs = spm_pieces(text, "unigram", vocab_size, **options)
    got = ours(text, vocab_size, **options)
    first = next((i for i, (a, b) in enumerate(zip(got, theirs)) if a != b), None)
    assert got == theirs, f"first difference at #{first}: ours {got[first] if first is not None else None}, " \
                          f"spm's {theirs[first] if first is not None else None} ({len(got)} vs {len(theirs)} pieces)"


@pytest.mark.parametrize("name, vocab_size", [("udhr_eng", 300), ("udhr_rus", 500), ("udhr_arb", 400),
                                              ("udhr_hin", 400), ("udhr_kor", 500), ("udhr_cmn_hans", 800)])
def test_unigram_equals_spm_train_on_udhr(name, vocab_size):
    check_unigram(CORPORA[name](), vocab_size)


@pytest.mark.parametrize("name, vocab_size", [("shakespeare_300k", 2000), ("wikipedia", 3000), ("stdlib", 2500)])
def test_unigram_equals_spm_train(name, vocab_size):
    check_unigram(CORPORA[name](), vocab_size)


def test_unigram_at_8000_on_shakespeare():
    check_unigram(CORPORA["shakespeare"](), 8000)


def test_unigram_with_full_coverage_split_digits_and_byte_fallback():
    check_unigram(CORPORA["wikipedia"](), 1200 + 256, character_coverage=1.0, split_digits=True, byte_fallback=True)


def test_tiny_vocabularies_and_the_hard_limit():
    text = CORPORA["udhr_eng"]()
    check_unigram(text, 70)  # (60 characters and 3 reserved pieces: a handful more)
    with pytest.raises(ValueError, match=r"Vocabulary size too high \(5000\)\. Please set it to a value <= \d+"):
        ours(text, 5000)


def spm_tsv(counts, vocab_size):
    """spm_train on a word-count list (its TSV input: 'word<TAB>count' lines)."""
    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter([f"{w}\t{n}" for w, n in counts.items()]),
                                   model_writer=out, vocab_size=vocab_size, model_type="unigram", input_format="tsv",
                                   num_threads=1, minloglevel=2, normalization_rule_name="nfkc")
    sp = spm.SentencePieceProcessor(model_proto=out.getvalue())
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]


def test_a_word_count_list_trains_as_spm_s_tsv_input():
    import re
    from collections import Counter

    counts = dict(Counter(re.findall(r"[a-z']+", CORPORA["shakespeare_300k"]().lower())).most_common(3000))
    assert ours(counts, 800) == spm_tsv(counts, 800)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.lists(st.text(alphabet="abé", min_size=1, max_size=5), min_size=1, max_size=4), min_size=1,
                max_size=6), st.integers(0, 10))
def test_tie_heavy_corpora_bit_for_bit(lines, extra):
    text = "\n".join(" ".join(words) for words in lines)
    letters = len(set(text) - {" ", "\n"})
    vocab_size = 3 + letters + 1 + extra  # (the reserved pieces, the letters, ▁, a few more)
    try:
        theirs = spm_pieces(text, "unigram", vocab_size)
    except RuntimeError as e:  # (spm refuses a vocabulary its corpus cannot fill: so must we)
        assert "Vocabulary size too high" in str(e) or "smaller than required_chars" in str(e)
        with pytest.raises(ValueError):
            ours(text, vocab_size)
        return
    assert ours(text, vocab_size) == theirs


@pytest.mark.parametrize("name", ["sentencepiece_unigram_sentencepiece", "sentencepiece_unigram_sentencepiece_bytes"])
def test_the_hashed_trainings_are_spm_s(name):
    """test_rules_hashes.py hashes these trainings in every runtime (Pyodide too): here,
    in CPython, they are checked against spm_train, so the hash is spm's model."""
    from test_rules_hashes import TRAININGS

    from corpora import read

    _, options = TRAININGS[name]
    options = dict(options)
    text = read("udhr/udhr_eng.txt")[:4000]
    vocab_size = options.pop("vocab_size")
    options.pop("rules")
    options.setdefault("character_coverage", 1.0)
    assert ours(text, vocab_size, **options) == spm_pieces(text, "unigram", vocab_size, **options)


def test_a_stream_of_documents_is_read_once_for_both_its_provenance_and_its_sentences():
    docs = ["hug pug\npun bun", "hugs hug"]
    streamed = subwordlab.train((d for d in docs), preset="sentencepiece_unigram", vocab_size=14, rules="sentencepiece")
    listed = subwordlab.train(docs, preset="sentencepiece_unigram", vocab_size=14, rules="sentencepiece")
    assert streamed.model.vocab == listed.model.vocab and streamed.spec["corpus"] == listed.spec["corpus"]
    assert streamed.spec["corpus"]["chars"] == sum(map(len, docs))
