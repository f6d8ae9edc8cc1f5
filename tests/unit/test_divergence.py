"""``divergence.first_divergence``: the first step where two runs part ways, and why.

The step is checked against the runs' own merges; what the reason claims is checked against
the corpus itself (the pairs recounted from the tokenizer before that step) and, for the
``tokenizers`` side, against the library's own trainer on the same corpus.
"""

from collections import Counter

import pytest
from test_rules_hf import hf_retrained

from corpora import read
from subwordlab.divergence import first_divergence, rules_name, run_names
from subwordlab.recording import Recording

pytestmark = pytest.mark.cpython_only


def shakespeare(size=120_000):
    return read("tinyshakespeare.txt")[:size]


def pair_counts(tok, text):
    """Adjacent token pairs inside each pre-tokenized word of ``text``, as ``tok`` splits them."""
    counts = Counter()
    for word, _ in tok.pre_tokenizer.pre_tokenize_str(tok.normalizer.normalize_str(text) if tok.normalizer else text):
        tokens = [tok.model.vocab[i] for i, _, _ in tok.model.tokenize_piece(word)]
        counts.update(zip(tokens, tokens[1:]))
    return counts


def first_differing_merge(a, b):
    return next(k for k, (x, y) in enumerate(zip(a.steps, b.steps), 1) if x.pair != y.pair)


def test_byte_bpe_textbook_and_hf_part_at_a_tie_that_the_corpus_and_tokenizers_confirm():
    from tokenizers import trainers

    text = shakespeare()
    textbook = Recording(text, "byte_bpe", vocab_size=400).run()
    hf = Recording(text, "byte_bpe", vocab_size=400, rules="hf").run()
    d = first_divergence(textbook, hf)
    # the step: the first merge whose pair differs, the runs equal before it
    assert d.step == first_differing_merge(textbook, hf)
    assert [s.pair for s in textbook.steps[:d.step - 1]] == [s.pair for s in hf.steps[:d.step - 1]]
    a, b = d.pairs
    # the reason's numbers: both pairs occur that often in the corpus as split before the step,
    # and no pair occurs more often
    counts = pair_counts(textbook.tokenizer_at(d.step - 1), text)
    top = max(counts.values())
    assert counts[a] == counts[b] == top == textbook.steps[d.step - 1].count
    assert f"both occur {top:,} times" in d.reason
    assert "first-seen takes" in d.reason and "tokenizers takes" in d.reason
    # the tokenizers side is the library's: its own trainer merges b at that rank
    hf_model = hf_retrained(hf.tokenizer, text, trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=sorted(hf.alphabet.alphabet), show_progress=False))
    merge = hf_model["merges"][d.step - 1]
    assert tuple(merge.split(" ") if isinstance(merge, str) else merge) == b
    # ids: the same 256 symbols, numbered otherwise
    assert any("other ids" in note for note in d.notes)


def test_sentencepiece_rules_count_otherwise_and_start_without_a_line_break():
    text = shakespeare(60_000)
    whole = Recording(text, "sentencepiece_bpe", vocab_size=500, sentence_per_line=False).run()
    spm = Recording(text, "sentencepiece_bpe", vocab_size=500, rules="sentencepiece").run()
    d = first_divergence(whole, spm)
    assert d.step == first_differing_merge(whole, spm)
    assert "the runs count differently" in d.reason and "a sentence per line" in d.reason
    # the line break is shown escaped, never as a raw line feed
    assert "\n" not in d.reason and "\n" not in "".join(d.notes)
    assert any("only first-seen has" in note and "\\n" in note for note in d.notes)


def test_wordpiece_by_score_against_by_count():
    text = shakespeare(40_000)
    scored = Recording(text, "wordpiece", vocab_size=300).run()
    counted = Recording(text, "wordpiece", vocab_size=300, rules="hf").run()
    d = first_divergence(scored, counted)
    step = scored.steps[d.step - 1]
    assert f"for its score {step.score:.4g}" in d.reason
    assert f"the most frequent ({counted.steps[d.step - 1].count:,} times)" in d.reason


def test_unigram_runs_part_at_the_seed_or_not_at_all():
    text = shakespeare(30_000)
    long = Recording(text, "unigram", vocab_size=300).run()
    short = Recording(text, "unigram", vocab_size=300, max_piece_length=4).run()
    d = first_divergence(long, short)
    assert d.step == 0 and "the seed" in d.reason
    assert "max_piece_length=16" in d.reason and "max_piece_length=4" in d.reason
    # a piece only the longer limit allows is named
    only_long = next(p for p, _ in long.alphabet.pieces if len(p) > 4 and p not in ("<unk>", "<s>", "</s>"))
    assert only_long not in dict(short.alphabet.pieces)
    assert first_divergence(long, Recording(text, "unigram", vocab_size=300).run()) is None


def test_a_run_that_is_a_prefix_of_the_other_never_parts():
    text = shakespeare(20_000)
    assert first_divergence(Recording(text, "byte_bpe", vocab_size=300).run(),
                            Recording(text, "byte_bpe", vocab_size=320).run()) is None


def test_names_of_rule_sets_and_runs():
    assert rules_name({"rules": "sentencepiece"}) == "spm_train"
    assert rules_name({"preset": "wordpiece"}) == "the WordPiece score"
    assert rules_name({"preset": "unigram"}) == "the textbook"
    assert run_names({"vocab_size": 1}, {"vocab_size": 1}) == ("the first run", "the second run")


def _runs_of_lesson(number):
    """The lesson's run (its rules) and the textbook's, of the same corpus and settings."""
    from subwordlab_web.lessons import lesson_by_number

    lesson = lesson_by_number(number)
    kwargs = dict(lesson.spec.kwargs())
    assert kwargs.pop("rules") == "hf"
    corpus = lesson.words() if lesson.corpus_format == "word_counts" else lesson.corpus_text
    return lesson, Recording(corpus, lesson.spec.preset, **kwargs).run(), \
        Recording(corpus, lesson.spec.preset, rules="hf", **kwargs).run()


def test_the_bpe_divergence_lesson_says_where_and_why_as_the_recordings_do():
    """Issue 30: lesson 13 walks through the first step where tokenizers' BpeTrainer and the
    textbook part (CS336's words, byte-level): its words must be what first_divergence finds."""
    from subwordlab_web.lessons import explain

    lesson, textbook, hf = _runs_of_lesson(13)
    d = first_divergence(textbook, hf)
    assert d.step == 5 and d.pairs == (("Ġ", "low"), ("e", "w")) and "both occur 6 times" in d.reason
    # the steps before agree (step 1 is a tie both rules break alike), and the card says so
    assert [s.pair for s in textbook.steps[:4]] == [s.pair for s in hf.steps[:4]]
    assert hf.steps[0].candidates[1][1] == hf.steps[0].count  # (a tie at step 1)
    said = " ".join(explain(lesson, hf, 5).said)
    assert "Ġ + low (6 times)" in said and "e + w" in said and "occur 6 times each" in said


def test_the_unigram_divergence_lesson_parts_at_the_seed():
    from subwordlab_web.lessons import explain

    lesson, textbook, hf = _runs_of_lesson(14)
    d = first_divergence(textbook, hf)
    assert d.step == 0 and "seed" in d.reason
    assert "seed" in " ".join(explain(lesson, hf, 0).said + explain(lesson, hf, 1).said)
