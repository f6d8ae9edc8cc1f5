"""``rules="sentencepiece"`` against ``spm_train`` itself (the sentencepiece package,
``num_threads=1``), reading the same text one sentence per line.

SentencePiece BPE must give the same pieces in the same order, with the scores spm writes
(``-i`` for the i-th merged piece, continuing over the required characters, as float32).
Both normalize with NFKC (spm's ``normalization_rule_name="nfkc"``, our ``normalization``).

Corpora we did not design: the UDHR in six scripts, Shakespeare, Wikipedia text (Taylor
Swift's article), Python source from the standard library.
"""

import io

import pytest
from test_rules_hf import stdlib_source

import subwordlab
from corpora import UDHR, read

pytestmark = pytest.mark.cpython_only

CORPORA = {
    **{p.stem: (lambda p=p: p.read_text(encoding="utf-8")) for p in UDHR},
    "shakespeare_300k": lambda: read("tinyshakespeare.txt")[:300_000],
    "shakespeare": lambda: read("tinyshakespeare.txt"),
    "wikipedia": lambda: read("taylorswift.txt"),
    "stdlib": stdlib_source,
}


def spm_pieces(text, model_type, vocab_size, **options):
    """spm_train on ``text``'s lines: ``[(piece, score), ...]`` by id."""
    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text.split("\n")), model_writer=out, vocab_size=vocab_size,
                                   model_type=model_type, num_threads=1, minloglevel=2,
                                   normalization_rule_name="nfkc", **options)
    sp = spm.SentencePieceProcessor(model_proto=out.getvalue())
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]


def check_bpe(text, vocab_size, character_coverage=1.0, split_digits=False, byte_fallback=False):
    theirs = spm_pieces(text, "bpe", vocab_size, character_coverage=character_coverage, split_digits=split_digits,
                        byte_fallback=byte_fallback)
    tok = subwordlab.train(text, preset="sentencepiece_bpe", vocab_size=vocab_size, rules="sentencepiece",
                           character_coverage=character_coverage, split_digits=split_digits,
                           byte_fallback=byte_fallback)
    ours = tok.model.vocab
    first = next((i for i, (a, (b, _)) in enumerate(zip(ours, theirs)) if a != b), None)
    assert ours == [p for p, _ in theirs], f"first different piece: #{first}"
    # the scores: 0 for the reserved pieces, then -i for the i-th piece after them
    reserved = 3 + 256 * byte_fallback
    assert [s for _, s in theirs] == [0.0] * reserved + [-float(i) for i in range(len(ours) - reserved)]


@pytest.mark.parametrize("name, vocab_size", [("udhr_eng", 300), ("udhr_rus", 500), ("udhr_arb", 600),
                                              ("udhr_hin", 800), ("udhr_kor", 1000), ("udhr_cmn_hans", 1200)])
def test_bpe_equals_spm_train_on_udhr(name, vocab_size):
    check_bpe(CORPORA[name](), vocab_size)


@pytest.mark.parametrize("name, vocab_size", [("wikipedia", 3000), ("stdlib", 2500),
                                              ("shakespeare", 8000)])
def test_bpe_equals_spm_train(name, vocab_size):
    check_bpe(CORPORA[name](), vocab_size)


def test_an_exhausted_corpus_goes_on_with_pairs_that_occur_no_more():
    """UDHR Russian at 2,500: no pair occurs after ~2,070 pieces; spm then adds pairs met before (count 0)."""
    check_bpe(CORPORA["udhr_rus"](), 2500)


def test_bpe_with_coverage_split_digits_and_byte_fallback():
    check_bpe(CORPORA["wikipedia"](), 1500 + 256, character_coverage=0.9995, split_digits=True, byte_fallback=True)


def test_the_issue_case_shares_all_2000_pieces():
    """Issue 30: sentencepiece_bpe at 2,000 on 300 KB shared 1,516 of 2,000 pieces with spm_train."""
    check_bpe(CORPORA["shakespeare_300k"](), 2000)


def test_no_piece_holds_a_line_break_under_the_sentencepiece_rules():
    tok = subwordlab.train(CORPORA["shakespeare_300k"](), preset="sentencepiece_bpe", vocab_size=2000,
                           rules="sentencepiece")
    assert not [p for p in tok.model.vocab if "\n" in p]
