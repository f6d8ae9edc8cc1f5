"""The Compare panel's behaviour on the real index.html through the fake port: the curve
follows the edited text, a fifth column (the current tokenizer), the compare text from the
corpus, the user's own parallel texts and unknown-token shading in the parity chart."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakedom import FakeFile
from test_web_share_panels import CMP_CORPUS, compared, started, trained

from subwordlab_web import compare as cm
from subwordlab_web.compare_panel import DEFAULT_TEXT
from subwordlab_web.compare_results import CURVE_DEBOUNCE_S
from subwordlab_web.state import Corpus

REPO = Path(__file__).resolve().parents[2]


def curve_tpc(port, series: int) -> list[str]:
    g = next(g for g in port.query_all("#cmp-curve g") if g.attrs.get("data-series") == str(series))
    return [port.text(port.query("title", c)) for c in port.query_all("circle", g)]


def test_the_curve_follows_the_edited_text_once_typing_pauses():
    port, app = compared()
    panel = app.panels["compare"]
    before = curve_tpc(port, 0)
    assert "the text above" in port.text(port.query("#cmp-curve-note"))
    measured = []
    measure = panel.compute_curves

    async def counting():
        measured.append(port.value(port.query("#cmp-text")))
        await measure()

    panel.compute_curves = counting
    text = "zzzz qqqq xxxx " * 5
    for k in range(1, len(text), 15):  # a burst of keys: one measurement, after the pause
        port.input(port.query("#cmp-text"), text[:k])
    port.input(port.query("#cmp-text"), text)
    port.settle()
    assert measured == [text]  # the earlier waits were superseded
    after = curve_tpc(port, 0)
    assert after != before
    assert f"({len(text):,} characters)" in port.text(port.query("#cmp-curve-note"))
    step, size, tpc = panel.curves[0][-1]
    tok = panel.run_state.columns[0].recording.tokenizer_at(step)
    assert tpc == len(tok.encode(text)) / len(text)
    assert CURVE_DEBOUNCE_S > 0


def test_the_curve_of_a_held_out_sample_ignores_typing():
    port, app = compared()
    port.input(port.query("#cmp-heldout"), "udhr_eng", event="change")
    port.settle()
    before = curve_tpc(port, 0)
    port.input(port.query("#cmp-text"), "something else entirely")
    port.settle()
    assert curve_tpc(port, 0) == before


def test_four_configurations_and_the_current_tokenizer_each_with_its_own_colour():
    port, app = trained()
    app.state.set_corpus(Corpus(CMP_CORPUS, name="UDHR excerpt"))
    port.settle()
    app.panels["train"].start_training()
    port.settle()
    app.state.seek(len(app.state.recording.steps))
    panel = app.panels["compare"]
    panel.configs = [("bpe", {"unk_token": "<unk>"}), ("wordpiece", {}), ("unigram", {}), ("sentencepiece_bpe", {})]
    panel.render_configs()
    assert port.query("#cmp-add").attrs.get("disabled") is not None  # at most 4 configurations
    app.show_panel("compare")
    port.set_checked(port.query("#cmp-current"), True)
    port.set_value(port.query("#cmp-vocab"), "90")
    port.click(port.query("#cmp-run"))
    port.settle()
    assert port.errors == []
    assert len(panel.run_state.columns) == 5 and panel.labels[4].startswith("Current:")
    assert "5 of 5 columns" in port.text(port.query("#cmp-message"))
    cols = port.query_all("#cmp-columns .cmp-col")
    assert [c.attrs["data-series"] for c in cols] == ["0", "1", "2", "3", "4"]
    legend = port.query_all("#cmp-legend li")
    assert [li.attrs["data-series"] for li in legend] == ["0", "1", "2", "3", "4"]
    css = (__import__("pathlib").Path(__file__).resolve().parents[2] / "web" / "css" / "app.css").read_text()
    assert '[data-series="4"]' in css  # a fifth colour exists


def test_the_compare_text_is_a_sentence_of_the_corpus_until_the_user_types():
    port, app = started(None)
    box = port.query("#cmp-text")
    app.state.set_corpus(Corpus("Préambule\nConsidérant que la reconnaissance de la dignité inhérente à tous est le "
                                "fondement de la liberté. Autre phrase.", name="French"))
    assert port.value(box) == ("Considérant que la reconnaissance de la dignité inhérente à tous est le fondement "
                               "de la liberté.")
    app.state.set_corpus(Corpus("low 5\nlower 2\nnewest 6", format="word_counts", name="counts"))
    assert port.value(box) == "low lower newest"
    port.input(box, "my own words")
    app.state.set_corpus(Corpus(CMP_CORPUS, name="UDHR excerpt"))
    assert port.value(box) == "my own words"  # typed text is never replaced
    app.state.set_corpus(Corpus("", name="empty"))
    assert port.value(box) == "my own words"
    port.input(box, "")
    app.state.set_corpus(Corpus("   ", name="blank"))
    assert port.value(box) == DEFAULT_TEXT


def test_parity_takes_the_users_own_texts_one_file_per_language():
    port, app = compared()
    panel = app.panels["compare"]
    fra = "Tous les êtres humains naissent libres et égaux en dignité et en droits."
    files = port.query("#cmp-parity-files")
    udhr_fra = (REPO / "corpora" / "udhr_more" / "udhr_fra.txt").read_text(encoding="utf-8")
    files.files = [FakeFile("français.txt", fra.encode()), FakeFile("broken.txt", b"\xff\xfd\x00bad"),
                   FakeFile("udhr_fra.txt", udhr_fra.encode())]
    port.input(files, "", event="change")
    port.settle()
    rows = port.query_all("#cmp-parity-table tr")[1:]
    # (issue 26 item 5: three UDHR files were labelled "udh udh udh": a UDHR file is named by its header's language)
    assert [r.attrs["data-lang"] for r in rows[-2:]] == ["own:français", "own:French"]
    assert port.text(port.query("th", rows[-1])) == "French" and not port.text(rows[-1]).startswith("Universal")
    rows = rows[:-1]
    port.click(port.query('#cmp-parity-table button[data-sort="-1"]'))  # A to Z
    assert [r.attrs["data-lang"] for r in port.query_all("#cmp-parity-table tr")[1:]][3:5] == ["own:français", "own:French"]
    port.click(port.query('#cmp-parity-table button[data-sort="-1"]'))  # Z to A
    assert port.query_all("#cmp-parity-table tr")[1].attrs["data-lang"] == "udhr_rus"
    assert port.query('#cmp-parity-table tr th[aria-sort="descending"]') is not None
    counts = [int(td.attrs["data-tokens"]) for td in port.query_all("td", rows[-1])]
    assert counts == [len(c.tokenizer.encode(fra)) for c in panel.run_state.columns]
    assert len(port.query_all("#cmp-parity rect")) == 24  # 8 languages × 3 columns
    message = port.query("#cmp-parity-message")
    assert not message.hidden and "broken.txt" in port.text(message)
    # the user's language can be the reference
    port.input(port.query("#cmp-reference"), "own:français", event="change")
    own = port.query('#cmp-parity-table tr[data-lang="own:français"]')
    assert all("1.00×" in port.text(td) for td in port.query_all("td", own))
    port.click(port.query("#cmp-parity-clear"))
    rows = port.query_all("#cmp-parity-table tr")[1:]
    assert len(rows) == 6 and port.query("#cmp-parity-clear").hidden
    assert [a for a, _ in panel.parity_groups()][:2] == ["udhr_eng", "udhr_hin"]


def test_parity_bars_are_pale_by_their_share_of_unknown_tokens():
    port, app = compared(configs=[("bpe", {"unk_token": "<unk>"}), ("byte_bpe", {})])
    panel = app.panels["compare"]
    bars = port.query_all("#cmp-parity rect")
    pale = [b for b in bars if "fill-opacity" in b.attrs]
    assert pale, "the English-only BPE sees Hindi, Chinese... as unknown tokens"
    for b in pale:
        unk = float(b.attrs["data-unk"])
        assert abs(float(b.attrs["fill-opacity"]) - cm.unknown_shade(unk)) <= 0.011 and cm.unknown_shade(unk) < 1.0
        assert unk > 0 and b.attrs["data-series"] == "0"  # byte-level BPE has no unknown token
    assert cm.unknown_shade(0.0) == 1.0 and cm.unknown_shade(1.0) == 0.2
    assert cm.unknown_shade(0.5) > cm.unknown_shade(0.9)
    assert panel.parity_unknown[0]["udhr_hin"] > 0.5


def test_two_wordpiece_configurations_differing_by_scoring_compare_side_by_side():
    port, app = trained()
    app.state.set_corpus(Corpus(CMP_CORPUS, name="UDHR excerpt"))
    port.settle()
    panel = app.panels["compare"]
    panel.configs = [("wordpiece", {}), ("wordpiece", {"scoring": "frequency"})]
    panel.render_configs()
    app.show_panel("compare")
    port.set_value(port.query("#cmp-vocab"), "120")
    port.click(port.query("#cmp-run"))
    port.settle()
    assert port.errors == []
    assert panel.labels == ["WordPiece", "WordPiece · scoring=frequency"]
    a, b = (c.recording.tokenizer for c in panel.run_state.columns)
    assert a.spec["scoring"] == "likelihood" and b.spec["scoring"] == "frequency"
    assert a.model.vocab != b.model.vocab  # the two rules learn different pieces


def test_both_forms_show_every_options_help_from_the_schema():
    from subwordlab.options import PRESETS
    from subwordlab_web.compare_panel import OPTION_SKIP
    from subwordlab_web.state import TrainSpec

    port, app = started()
    panel = app.panels["compare"]
    for name, preset in PRESETS.items():
        # Compare: under each configuration's options, the help text, which the field names as its description
        panel.configs = [(name, {})]
        panel.render_configs()
        items = port.query_all("#cmp-configs .cmp-option-item")
        shown = {port.get_attr(it, "data-option"): port.text(port.query(".cmp-option-help", it)) for it in items}
        assert shown == {o.name: o.help for o in preset.form_options() if o.name not in OPTION_SKIP}, name
        for it in items:
            field = (port.query_all("input", it) + port.query_all("select", it))[0]
            help_id = port.get_attr(port.query(".cmp-option-help", it), "id")
            assert help_id and port.get_attr(field, "aria-describedby") == help_id
        # Train: the same help under each field of its form
        app.state.set_spec(TrainSpec(name, "vocab_size", 300))
        port.settle()
        rows = port.query_all("#train-options .option")
        shown = {port.get_attr(r, "data-option"): port.text(port.query(".option-help", r)) for r in rows}
        assert shown == {o.name: o.help for o in preset.form_options()}, name


def test_editing_the_corpus_after_a_cancelled_run_keeps_saying_it_was_cancelled():
    """Typing in the corpus during a run cancels it; the next keystrokes said "these columns
    were trained on the one before", though no column was trained (nor shown)."""
    from test_web_share_panels import CMP_CORPUS, started

    port, app = started(None)
    app.state.set_corpus(Corpus(CMP_CORPUS * 20, name="UDHR excerpt"))
    app.show_panel("compare")
    port.set_value(port.query("#cmp-vocab"), "300")
    port.click(port.query("#cmp-run"))
    port.drive(5)
    assert port.query("#panel-compare").attrs["data-state"] == "running"
    message, box = port.query("#cmp-message"), port.query("#corpus-text")
    for typed in ("a new text", "a new text, typed on"):
        port.input(box, typed)
        port.settle()
        assert port.text(message) == "The corpus changed, so the comparison was cancelled."
    assert port.query("#cmp-results").hidden
    # the Cancel button, then an edit: the same
    port.click(port.query("#cmp-run"))
    port.drive(5)
    port.click(port.query("#cmp-cancel"))
    port.input(box, "yet another text")
    port.settle()
    assert port.text(message) == "Comparison cancelled."
    assert port.errors == []


def test_the_keyboard_focus_goes_to_cancel_during_a_run_and_back_after_it():
    """"Train and compare" is disabled while its run trains: a keyboard user's focus went to
    <body> (the next Tab started at the top of the page). It goes to Cancel, and back to the
    button when the run ends or is cancelled; Add and Remove hand it on too."""
    from test_web_share_panels import CMP_CORPUS, started

    port, app = started(None)
    app.state.set_corpus(Corpus(CMP_CORPUS * 20, name="UDHR excerpt"))
    app.show_panel("compare")
    port.set_value(port.query("#cmp-vocab"), "300")
    run, cancel = port.query("#cmp-run"), port.query("#cmp-cancel")
    port.focus(run)
    port.click(run)
    port.drive(5)
    assert port.query("#panel-compare").attrs["data-state"] == "running"
    assert "disabled" in run.attrs and port.focused is cancel
    port.click(cancel)
    assert "disabled" not in run.attrs and cancel.attrs.get("hidden") is not None and port.focused is run
    port.click(run)
    port.drive(5)
    assert port.focused is cancel
    port.settle()
    assert port.query("#panel-compare").attrs["data-state"] == "idle" and port.focused is run
    # "Add a configuration" disabled at four: the new row's algorithm; Remove: back to Add
    add = port.query("#cmp-add")
    port.focus(add)
    port.click(add)
    assert "disabled" in add.attrs and port.focused is port.query("#cmp-preset-3")
    port.focus(port.query_all(".cmp-remove")[1])
    port.click(port.query_all(".cmp-remove")[1])
    assert len(port.query_all(".cmp-remove")) == 3 and port.focused is add
    select = port.query("#cmp-preset-1")
    port.focus(select)
    port.input(select, "unigram", "change")
    assert port.focused is port.query("#cmp-preset-1") and port.value(port.focused) == "unigram"
    assert port.errors == []


def test_own_parallel_texts_are_named_by_their_language_helper():
    """Issue 26 item 5: three uploaded UDHR files were labelled "udh udh udh"; a UDHR file is
    now named by the language its header names, any other file by its name."""
    from subwordlab_web.languages import language_of_upload

    fra = (REPO / "corpora" / "udhr_more" / "udhr_fra.txt").read_text(encoding="utf-8")
    assert language_of_upload("udhr_fra.txt", fra) == "French"
    assert language_of_upload("deu_Latn.devtest", "Ein Satz.") == "deu_Latn"
    assert language_of_upload(".hidden", "x") == ".hidden"


@pytest.mark.parametrize("worker", [True, False])
def test_a_count_that_fails_is_said_and_the_chart_shows_the_rest(monkeypatch, worker):
    """Any exception while counting one language's tokens (here a RecursionError in the second
    column's tokenizer, on Hindi) ends in one sentence of the premium note; the other counts
    are shown, and the note no longer says it is counting."""
    import subwordlab.stats

    port, app = compared()
    if worker:  # (counted in the session; else on the page, as for a textbook example)
        port.warm_compute()
    panel = app.panels["compare"]
    broken = panel.run_state.columns[1].tokenizer
    real = subwordlab.stats.token_count

    def token_count(tok, text):
        # (the session counts with its own copy of the column's tokenizer: the same spec)
        if tok.spec == broken.spec and any("\u0900" <= ch <= "\u097f" for ch in text):  # (Devanagari: Hindi)
            raise RecursionError("maximum recursion depth exceeded")
        return real(tok, text)

    monkeypatch.setattr(subwordlab.stats, "token_count", token_count)
    port.spawn(panel.compute_parity())
    port.settle()
    assert port.errors == [] and bool(port.compute_requests) == worker
    note = port.text(port.query("#cmp-parity-note"))
    assert "Counting tokens" not in note and "nested too deeply" in note and "Hindi" in note
    hindi = panel.parity_counts[1]["udhr_hin"]
    assert hindi is None and panel.parity_counts[0]["udhr_hin"] and panel.parity_counts[1]["udhr_eng"]


def test_parity_is_counted_in_the_session_from_each_columns_model_file(monkeypatch):
    """Issue 31: the premium's counts (seconds of a big vocabulary over 47 languages) are the
    compute session's: it reads each column's model file (model_sources) once per worker and
    counts with its own copy; the page counts only with a tokenizer it made itself."""
    import subwordlab
    import subwordlab.stats

    port, app = compared()
    panel = app.panels["compare"]
    run = panel.run_state
    # a textbook-sized corpus: small models, no worker running: counted on the page (no boot for it)
    assert port.compute_requests == [] and panel.parity_counts
    port.warm_compute()  # (a worker booting, as for any corpus the page does not train itself)
    port.spawn(panel.compute_parity())
    port.settle()
    request = port.compute_requests[-1]
    assert request["op"] == "count_tokens"
    assert [m["name"] for m in request["models"]] == ["the trained tokenizer"] * len(run.columns)
    # the counts are those of the page's own tokenizers
    texts = {sid: panel.texts[sid] for sid in panel.parity_counts[0]}
    real = subwordlab.stats.token_count
    for c, row in zip(run.columns, panel.parity_counts):
        assert row == {sid: real(c.tokenizer, t)["tokens"] for sid, t in texts.items()}
    first = [dict(row) for row in panel.parity_counts]
    # counted again, by a fresh worker (the last one was terminated): the same counts, and the
    # page counted none of them; the worker then keeps the models it read
    on_page = []

    def token_count(tok, text):
        if any(tok is c.tokenizer for c in run.columns):
            on_page.append(tok)
        return real(tok, text)

    monkeypatch.setattr(subwordlab.stats, "token_count", token_count)
    port.compute_session = None
    port.spawn(panel.compute_parity())
    port.settle()
    assert panel.parity_counts == first and on_page == []
    port.spawn(panel.compute_parity())
    port.settle()
    assert panel.parity_counts == first and len(port.compute_session._models) == len(run.columns)
    # a tokenizer made on the page (no model file to send) is counted on the page
    mine = subwordlab.train(CMP_CORPUS, preset="bpe", vocab_size=70)
    run.columns[0].tokenizer = mine
    port.spawn(panel.compute_parity())
    port.settle()
    assert on_page and all(tok is mine for tok in on_page) and len(on_page) == len(texts)
    assert len(port.compute_requests[-1]["models"]) == len(run.columns) - 1
    assert panel.parity_counts[0] == {sid: real(mine, t)["tokens"] for sid, t in texts.items()}
    assert panel.parity_counts[1:] == first[1:] and port.errors == []
