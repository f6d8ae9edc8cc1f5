"""Train's "Where other rules part ways" card on the real index.html through the fake port:
the other run trains in the compute session, the card says where the runs part and why
(as ``subwordlab.divergence`` finds it on runs made here), and its button moves the player
there, where the candidates chart names the rule that broke the tie."""

from __future__ import annotations

from test_web_train import click, started, text, use

from corpora import read
from subwordlab.divergence import first_divergence
from subwordlab.recording import Recording
from subwordlab_web.state import Corpus, TrainSpec

SHAKESPEARE = read("tinyshakespeare.txt")[:20_000]


def trained(port, app, spec, corpus=SHAKESPEARE):
    use(app, port, Corpus(corpus, "text", "Shakespeare"), spec)
    click(port, "#train-end")
    assert app.state.recording is not None and app.state.recording.done


def test_the_card_finds_where_tokenizers_rules_part_and_goes_there():
    port, app = started()
    spec = TrainSpec("byte_bpe", "vocab_size", 300)
    trained(port, app, spec)
    card = port.query("#rules-card")
    assert not card.hidden
    labels = [port.text(o) for o in port.query_all("option", port.query("#rules-other"))]
    assert labels == ["tokenizers (rules=hf)", "lex_min (tie_break)", "lex_max (tie_break)"]
    click(port, "#rules-run")
    # the same answer as two runs made here, without the page
    expected = first_divergence(Recording(SHAKESPEARE, "byte_bpe", vocab_size=300).run(),
                                Recording(SHAKESPEARE, "byte_bpe", vocab_size=300, rules="hf").run())
    assert text(port, "#rules-status") == f"Under tokenizers (rules=hf) the run parts ways at merge {expected.step:,}."
    assert text(port, "#rules-reason") == expected.reason
    assert [port.text(li) for li in port.query_all("#rules-notes li")] == list(expected.notes)
    go = port.query("#rules-go")
    assert not go.hidden and port.text(go) == f"Go to merge {expected.step:,}"
    click(port, "#rules-go")
    assert app.state.step == expected.step and text(port, "#train-step-now") == f"{expected.step:,}"
    # at that merge the chart shows the tie under the textbook's rule
    assert "the pair met first in the corpus wins" in text(port, "#candidates-help")
    # new settings: the answer belongs to the old run and goes
    use(app, port, Corpus(SHAKESPEARE, "text", "Shakespeare"), TrainSpec("byte_bpe", "vocab_size", 310))
    assert text(port, "#rules-reason") == "" and go.hidden


def test_a_run_under_tokenizers_rules_names_its_own_tie_rule():
    port, app = started()
    trained(port, app, TrainSpec("byte_bpe", "vocab_size", 300, {"rules": "hf"}))
    rec = app.state.recording
    tie = next(k for k, s in enumerate(rec.steps, 1) if len(s.candidates) > 1 and s.candidates[1][1] == s.count)
    app.state.seek(tie)
    port.settle()
    help_text = text(port, "#candidates-help")
    assert "the pair with the smaller ids wins, as in tokenizers" in help_text
    assert "met first" not in help_text


def test_a_tie_lex_max_breaks_otherwise_and_runs_that_agree():
    port, app = started()
    # "ab" and "ba" both occur twice: first-seen merges (a, b), lex_max (b, a)
    trained(port, app, TrainSpec("bpe", "num_merges", 2, {"end_of_word": ""}), corpus="ab ab ba ba b")
    assert [port.text(o) for o in port.query_all("option", port.query("#rules-other"))] == [
        "tokenizers (rules=hf)", "lex_min (tie_break)", "lex_max (tie_break)"]
    port.set_value(port.query("#rules-other"), "2")
    click(port, "#rules-run")
    assert text(port, "#rules-status") == "Under lex_max (tie_break) the run parts ways at merge 1."
    assert text(port, "#rules-reason").startswith("merge 1: (a, b) and (b, a) both occur 2 times;")
    # no tie anywhere: (a, b) occurs 4 times, (a, a) 3; then (a, ab) 3
    trained(port, app, TrainSpec("bpe", "num_merges", 2, {"end_of_word": ""}), corpus="aab aab aab ab")
    click(port, "#rules-run")
    assert text(port, "#rules-status") == "They agree on all 2 merges both runs made."
    assert port.query("#rules-go").hidden


def test_the_card_waits_for_a_finished_run_and_hides_without_another_rule_set():
    port, app = started()
    use(app, port, Corpus(SHAKESPEARE, "text", "Shakespeare"), TrainSpec("byte_bpe", "vocab_size", 300))
    app.state.discard_recording("cancelled")  # no finished run: nothing to set against
    port.settle()
    assert port.query("#rules-run").attrs.get("disabled") is not None
    assert app.panels["train"].rules.start() is None
    assert text(port, "#rules-status") == "Train first: the comparison starts from a finished run."
    # every preset has another rule set now: Unigram HF's, SentencePiece Unigram spm_train's
    for preset in ("unigram", "sentencepiece_unigram"):
        use(app, port, Corpus(SHAKESPEARE, "text", "Shakespeare"), TrainSpec(preset, "vocab_size", 200))
        assert not port.query("#rules-card").hidden


def test_the_card_compares_sentencepiece_unigram_with_spm_train_s_rules():
    # issue 30: the SentencePiece Unigram preset can follow spm_train; the card trains that run
    # and says where the two vocabularies part (the seed already: spm seeds from the byte
    # suffix tree of the sentences)
    port, app = started()
    spec = TrainSpec("sentencepiece_unigram", "vocab_size", 300)
    trained(port, app, spec, SHAKESPEARE[:8000])
    labels = [port.text(o) for o in port.query_all("option", port.query("#rules-other"))]
    assert labels == ["spm_train (rules=sentencepiece)"]
    click(port, "#rules-run")
    expected = first_divergence(Recording(SHAKESPEARE[:8000], "sentencepiece_unigram", vocab_size=300).run(),
                                Recording(SHAKESPEARE[:8000], "sentencepiece_unigram", vocab_size=300,
                                          rules="sentencepiece").run())
    assert expected is not None
    assert text(port, "#rules-status").startswith("Under spm_train (rules=sentencepiece) the run parts ways at ")
    assert text(port, "#rules-reason") == expected.reason
