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


@pytest.mark.parametrize("preset", ["sentencepiece_bpe", "sentencepiece_unigram"])
def test_the_sentencepiece_presets_read_a_sentence_per_line_by_default(preset):
    """Issue 30: the presets learned pieces like '.↵↵' and split a line's first word from its
    '▁'; spm_train reads a sentence per line, and so do they now, under any rules."""
    import json

    from subwordlab.formats.our_json import from_json, to_json

    text = CORPORA["shakespeare_300k"]()[:30_000]
    tok = subwordlab.train(text, preset=preset, vocab_size=400)
    assert tok.spec["sentence_per_line"] is True
    assert not [p for p in tok.model.vocab if "\n" in p]
    # a line's first word is a word like any other: "And" after a line break as after a space
    assert tok.encode("Come.\nAnd go") == tok.encode("Come. And go")
    # a model saved before the option existed (its spec without it) read the corpus whole,
    # and still does: its file loads and encodes line breaks as it did
    whole = subwordlab.train(text, preset=preset, vocab_size=400, sentence_per_line=False)
    saved = json.loads(to_json(whole))
    assert "sentence_per_line" not in saved["spec"]
    again = from_json(json.dumps(saved))
    assert again.encode("Come.\nAnd go") == whole.encode("Come.\nAnd go")
    assert any("\n" in p for p in whole.model.vocab)
