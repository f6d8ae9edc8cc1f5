"""The Train panel on the real index.html through the fake port: the options form, the
player controls, the progress bar, and what each step shows (candidates, merges,
vocabulary, segmentation, curves) for BPE, WordPiece and Unigram; plus its view models."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakedom import FakePort

import subwordlab
from corpora import read
from subwordlab.options import PRESETS
from subwordlab.recording import Recording
from subwordlab_web import train_panel
from subwordlab_web.app import App
from subwordlab_web.options_form import changed_options, field_kind, parse_field, value_text
from subwordlab_web.state import Corpus, TrainSpec
from subwordlab_web.train_views import (
    candidate_bars,
    current_point,
    curve_of,
    merge_rows,
    now_text,
    vocab_items,
    vocabulary_at,
)

INDEX_HTML = (Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8")
SEED0 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
SEED4 = {"token": 6, "tokens": 4, "tokenize": 3, "tokenizer": 2, "stem": 4, "stems": 3, "stemming": 2}


def started(sample="seed000"):
    port = FakePort.from_html(INDEX_HTML)
    app = App(port, warm=False)
    app.start(sample=sample)
    port.settle()
    return port, app


def text(port, selector):
    return port.text(port.query(selector))


def cells(port, selector):
    return [[port.text(td) for td in port.query_all("td", tr)] for tr in port.query_all(f"{selector} tr")]


def click(port, selector, times=1):
    for _ in range(times):
        port.click(port.query(selector))
    port.settle()


def use(app, port, corpus, spec):
    app.state.set_spec(spec)
    app.state.set_corpus(corpus)
    port.settle()


# --- the textbook flow --------------------------------------------------------------------
def test_three_steps_of_seed000_show_the_textbook_merges():
    port, app = started()
    assert text(port, "#train-step-now") == "0" and text(port, "#train-step-total") == "8"
    assert port.get_attr(port.query("#panel-train"), "data-status") == "done"  # trained at once (small corpus)
    click(port, "#train-step", 3)
    assert cells(port, "#merges-rows") == [["3", "est + </w>", "9", "est</w>"], ["2", "es + t", "9", "est"],
                                           ["1", "e + s", "9", "es"]]
    assert text(port, "#train-now-main") == "est  +  </w>  →  est</w>"
    assert text(port, "#train-now-kicker") == "Merge 3 · count 9 · vocabulary 14"
    assert port.value(port.query("#train-scrubber")) == "3" and port.get_attr(port.query("#train-scrubber"), "max") == "8"
    # the textbook table: newest is n e w est</w> after three merges
    rows = {r[0]: r for r in cells(port, "#segmentation-rows")}
    chips = [port.text(c) for c in port.query_all("#segmentation-rows tr")[0].iter() if "mini-chip" in c.class_list]
    assert rows["newest"][1:] == ["6", "newest</w>", "4"] and chips == ["n", "e", "w", "est</w>"]
    # the candidates of merge 3, the winner first and marked
    bars = port.query_all("#candidates-chart g.bar")
    assert "chosen" in bars[0].class_list and port.text(port.query("title", bars[0])) == "est + </w>: count 9 (chosen)"
    # the vocabulary, newest first, the new token marked
    items = port.query_all("#vocab-list .vocab-item")
    assert [port.text(port.query(".vocab-token", i)) for i in items[:3]] == ["est</w>", "est", "es"]
    assert "data-new" in items[0].attrs and text(port, "#vocab-count") == "14"


def test_back_reset_scrub_and_run_to_end():
    port, app = started()
    click(port, "#train-step", 2)
    click(port, "#train-back")
    assert app.state.step == 1 and text(port, "#context-step") == "step 1 of 8"
    port.input(port.query("#train-scrubber"), "6")
    port.settle()
    assert app.state.step == 6 and text(port, "#train-step-now") == "6"
    click(port, "#train-reset")
    assert app.state.step == 0 and "disabled" in port.query("#train-back").attrs
    assert text(port, "#merges-empty") == "Step 0: nothing merged yet."
    assert text(port, "#candidates-title") == "Before merge 1: the pairs competing"
    click(port, "#train-end")
    assert app.state.step == 8 and "disabled" in port.query("#train-step").attrs
    assert text(port, "#train-now-main") == "new  +  est</w>  →  newest</w>"


def test_play_runs_at_the_chosen_speed_and_pauses():
    port, app = started()
    port.input(port.query("#train-speed"), "2", event="change")
    port.click(port.query("#train-play"))
    assert text(port, "#train-play .play-text") == "Pause" and port.get_attr(port.query("#train-play"), "aria-pressed") == "true"
    start = port.clock
    port.drive(4)  # the loop sleeps half a second per frame, then moves one step
    assert app.state.step == 3 and port.clock - start == pytest.approx(2.0, abs=0.05)  # + FakePort.work_tick per look
    port.click(port.query("#train-play"))
    port.settle()
    assert app.state.step == 3 and text(port, "#train-play .play-text") == "Play"
    port.click(port.query("#train-play"))
    port.settle()  # plays to the end, then stops
    assert app.state.step == 8 and not app.state.player.playing


def test_changing_a_setting_retrains_a_small_corpus():
    port, app = started()
    click(port, "#train-step", 2)
    size = port.query("#train-size")
    port.input(size, "3", event="change")
    port.settle()
    assert app.state.spec.kwargs() == {"num_merges": 3} and app.state.step == 0
    assert text(port, "#train-step-total") == "3"
    port.input(port.query("#train-size"), "three", event="change")
    assert "whole number" in text(port, "#train-form-error") and not port.query("#train-form-error").hidden


def test_the_options_form_comes_from_the_core_with_its_help():
    port, app = started()
    names = [port.get_attr(o, "data-option") for o in port.query_all("#train-options .option")]
    assert names == [n for n in subwordlab.OPTIONS["bpe"] if n not in ("vocab_size", "num_merges")]
    eow = port.query('.option[data-option="end_of_word"]')
    assert port.text(port.query(".option-help", eow)) == subwordlab.OPTIONS["bpe"]["end_of_word"][1]
    assert port.value(port.query("#opt-end_of_word")) == "</w>"
    port.input(port.query("#opt-end_of_word"), "_", event="change")
    port.input(port.query("#opt-tie_break"), "lex_min", event="change")
    port.settle()
    assert dict(app.state.spec.options) == {"end_of_word": "_", "tie_break": "lex_min"}
    assert text(port, "#train-options-note") == "(2 changed)"
    click(port, "#train-step")
    assert cells(port, "#merges-rows")[0][1:] == ["e + s", "9", "es"]


def test_switching_algorithm_rebuilds_the_form_and_unigram_needs_a_vocabulary_size():
    port, app = started()
    port.input(port.query("#train-preset"), "unigram", event="change")
    port.settle()
    spec = app.state.spec
    assert spec.preset == "unigram" and spec.target == "vocab_size"
    assert "disabled" in port.query("#train-target-merges").attrs and port.checked(port.query("#train-target-vocab"))
    assert port.query_all('#train-options .option[data-option="seed_size"]')
    assert "EM" in text(port, "#train-preset-help")


def test_wordpiece_candidates_are_ranked_by_score_with_their_parts():
    port, app = started()
    use(app, port, Corpus("\n".join(f"{w} {n}" for w, n in SEED4.items()), "word_counts"),
        TrainSpec("wordpiece", "num_merges", 5))
    click(port, "#train-step")
    first = port.query_all("#candidates-chart g.bar")[0]
    assert port.text(port.query("title", first)) == "##i + ##z: score 0.1429, count 5 = 5 / (7 × 5) (chosen)"
    assert [port.text(th) for th in port.query_all("#merges-head th")] == ["Step", "Pair", "Count", "Score", "New token"]
    assert cells(port, "#merges-rows")[0] == ["1", "##i + ##z", "5", "0.1429", "##iz"]
    assert text(port, "#curve-title") == "Score of each merge"


def test_wordpiece_frequency_scoring_is_chosen_in_the_form_and_ranks_by_count():
    port, app = started()
    use(app, port, Corpus("\n".join(f"{w} {n}" for w, n in SEED4.items()), "word_counts"),
        TrainSpec("wordpiece", "num_merges", 5))
    scoring = port.query('#train-options .option[data-option="scoring"]')
    assert "HF tokenizers" in port.text(port.query(".option-help", scoring))
    assert port.value(port.query("#opt-scoring")) == "likelihood"
    port.input(port.query("#opt-scoring"), "frequency", event="change")
    port.settle()
    assert dict(app.state.spec.options) == {"scoring": "frequency"}
    click(port, "#train-step")
    first = port.query_all("#candidates-chart g.bar")[0]
    # the most frequent pair wins (t + ##o, 15 times), not the best score (##i + ##z)
    assert port.text(port.query("title", first)) == "t + ##o: count 15 (chosen)"
    assert "most frequent pair" in text(port, "#candidates-help")
    assert [port.text(th) for th in port.query_all("#merges-head th")] == ["Step", "Pair", "Count", "New token"]
    assert cells(port, "#merges-rows")[0] == ["1", "t + ##o", "15", "to"]
    from subwordlab_web.train_views import merges_csv

    assert merges_csv(app.state.steps, 1, "wordpiece").splitlines() == ["Step,Pair,Count,New token", "1,t + ##o,15,to"]
    assert text(port, "#curve-title") == "Count of each merge"


def test_unigram_shows_pruned_pieces_and_the_likelihood_curve():
    port, app = started()
    use(app, port, Corpus(read("udhr/udhr_eng.txt")), TrainSpec("unigram", "vocab_size", 300))
    steps = app.state.steps
    assert steps and app.state.recording.done
    first_prune = next(k for k, e in enumerate(steps, 1) if e.kind == "prune")
    port.input(port.query("#train-scrubber"), "1")
    port.settle()
    assert text(port, "#candidates-title") == "Pieces pruned" and "No pruning yet" in text(port, "#candidates-empty")
    port.input(port.query("#train-scrubber"), str(first_prune))
    port.settle()
    assert text(port, "#candidates-title") == "Pieces pruned in round 1"
    assert port.query_all("#candidates-chart g.bar")
    assert text(port, "#curve-title") == "Corpus log-likelihood" and port.query_all("#curve-chart circle.current")
    assert [port.text(th) for th in port.query_all("#merges-head th")] == ["Step", "What happened", "Vocabulary"]
    assert "Pruning round 1" in cells(port, "#merges-rows")[0][1]
    assert int(text(port, "#vocab-count").replace(",", "")) == steps[first_prune - 1].vocab_size


def test_a_big_corpus_waits_for_the_user_then_shows_progress_and_can_be_cancelled():
    port, app = started()
    use(app, port, Corpus(read("tinyshakespeare.txt")[:300_000]), TrainSpec("byte_bpe", "vocab_size", 600))
    assert app.state.recording is None and text(port, "#train-now-kicker") == "Not trained yet"
    port.click(port.query("#train-end"))
    port.drive(2)
    assert not port.query("#train-progress").hidden
    assert port.get_attr(port.query("#panel-train"), "data-status") in ("preparing", "training")
    assert text(port, "#train-progress-label")
    click(port, "#train-cancel")
    assert app.state.recording is None and port.query("#train-progress").hidden
    assert port.get_attr(port.query("#panel-train"), "data-status") == "cancelled"
    assert "Training cancelled after" in text(port, "#train-status")
    port.settle()
    assert app.state.recording is None  # no automatic restart after a cancel


def test_a_run_to_the_end_of_a_big_corpus_follows_the_newest_step():
    port, app = started()
    use(app, port, Corpus(read("taylorswift.txt")[:40_000]), TrainSpec("byte_bpe", "vocab_size", 300))
    port.settle()  # small enough to train at once
    app.state.discard_recording()
    click(port, "#train-end")
    assert app.state.recording.done and app.state.step == len(app.state.steps) == 44
    assert text(port, "#train-status").startswith("Byte-level BPE · vocabulary 300 · trained: 44 steps")
    words = [r[0] for r in cells(port, "#segmentation-rows")]
    assert words and words[0] == "the"
    assert "byte-level" in text(port, "#segmentation-help")


def test_a_corpus_too_small_for_the_target_is_said_in_the_status():
    port, app = started()
    use(app, port, Corpus("the cat sat on the mat"), TrainSpec("unigram", "vocab_size", 100))
    port.settle()
    assert app.state.recording.done
    assert "stopped after 15 of the 100 tokens asked" in text(port, "#train-status")
    use(app, port, Corpus("the cat sat on the mat"), TrainSpec("bpe", "num_merges", 3))
    port.settle()
    assert "stopped after" not in text(port, "#train-status")


def test_core_errors_show_in_the_panel():
    port, app = started()
    port.input(port.query("#train-target-vocab"), "vocab_size", event="change")
    port.set_checked(port.query("#train-target-vocab"), True)
    port.input(port.query("#train-size"), "5", event="change")
    port.settle()
    error = port.query("#train-error")
    assert not error.hidden and "smaller than the starting vocabulary" in port.text(error)
    assert port.errors == []


# --- view models ------------------------------------------------------------------------------
def test_option_fields_parse_like_the_core_expects():
    def opt(preset, name):
        return PRESETS[preset].option(name)

    assert [field_kind(opt(p, n)) for p, n in [("bpe", "tie_break"), ("bpe", "lowercase"), ("bpe", "top_k"),
                                              ("unigram", "shrinking_factor"), ("bpe", "special_tokens"),
                                              ("byte_bpe", "pattern")]] == ["choice", "check", "int", "float", "list", "text"]
    assert parse_field(opt("bpe", "top_k"), " 12 ") == 12
    assert parse_field(opt("bpe", "special_tokens"), "<s>  </s>") == ["<s>", "</s>"]
    assert parse_field(opt("bpe", "end_of_word"), "") is None and parse_field(opt("bpe", "initial_alphabet"), "") == ""
    assert parse_field(opt("bpe", "unk_token"), "<unk>") == "<unk>"
    assert parse_field(opt("bpe", "lowercase"), True) is True
    for preset, name, raw, msg in [("bpe", "top_k", "ten", "whole number"), ("unigram", "shrinking_factor", "x", "a number"),
                                   ("unigram", "shrinking_factor", "inf", "a number greater than 0 and less than 1"),
                                   ("bpe", "tie_break", "best", "one of"), ("bpe", "top_k", "-1", "from 0 to 10,000"),
                                   ("sentencepiece_bpe", "character_coverage", "2", "at most 1")]:
        with pytest.raises(ValueError, match=msg):
            parse_field(opt(preset, name), raw)
    assert value_text(("<s>", "</s>")) == "<s> </s>" and value_text(None) == ""
    assert changed_options("bpe", {"top_k": 10, "special_tokens": [], "end_of_word": "_"}) == {"end_of_word": "_"}


def test_merge_rows_vocabulary_and_candidates_from_a_recording():
    rec = Recording(SEED0, "bpe", num_merges=8).run()
    rows = merge_rows(rec.steps, 3, "bpe", limit=2)
    assert [r.cells for r in rows] == [("3", "est + </w>", "9", "est</w>"), ("2", "es + t", "9", "est")]
    assert rows[0].current and not rows[1].current
    assert vocabulary_at(rec, 3) == list(rec.tokenizer_at(3).model.vocab)
    assert vocabulary_at(rec, 8) == list(rec.tokenizer.model.vocab)
    title, _, bars = candidate_bars(rec.steps, 0, "bpe")
    assert title == "Before merge 1: the pairs competing" and bars[0].chosen and bars[0].label == "e + s"
    assert now_text(rec, 0, "bpe") == ("Step 0 · the starting vocabulary", "11 symbols, from 4 distinct words")


def test_vocab_items_search_by_text_or_id_and_cap():
    vocab = ["a", "b", "ab", "Ġthe", "th"]
    items, matched = vocab_items(vocab, byte_level=True, query="", limit=2, newest_id=4)
    assert [(i.id, i.label, i.new) for i in items] == [(4, "th", True), (3, "·the", False)] and matched == 5
    items, matched = vocab_items(vocab, byte_level=True, query="th")
    assert [i.id for i in items] == [4, 3] and matched == 2
    items, _ = vocab_items(vocab, byte_level=True, query="Ġ")  # the stored form matches too
    assert [i.id for i in items] == [3]
    items, _ = vocab_items(vocab, byte_level=False, query="2", newest_first=False)
    assert [i.id for i in items] == [2]


def test_byte_level_labels_in_tables_are_readable():
    rec = Recording("the the the then there", "byte_bpe", num_merges=3).run()
    assert [r.cells for r in merge_rows(rec.steps, 3, "byte_bpe")] == [
        ("3", "· + the", "4", "·the"), ("2", "th + e", "5", "the"), ("1", "t + h", "5", "th")]  # Ġ is a space: ·


def test_curves_and_the_current_point():
    rec = Recording(SEED0, "bpe", num_merges=8).run()
    curve = curve_of(rec.steps, "bpe")
    assert curve.xs == list(range(1, 9)) and curve.ys == [9, 9, 9, 7, 7, 6, 6, 6]
    assert curve.detail(0) == "merge 1: e + s count 9"
    assert current_point([2, 4, 6], 5) == 1 and current_point([2, 4], 1) is None


def test_auto_training_is_only_for_small_corpora(monkeypatch):
    monkeypatch.setattr(train_panel, "AUTO_TRAIN_CHARS", 10)
    port, app = started()
    use(app, port, Corpus("the lowest newest widest"), TrainSpec("bpe", "num_merges", 3))
    assert app.state.recording is None
    use(app, port, Corpus("low 5", "word_counts"), TrainSpec("bpe", "num_merges", 1))
    assert app.state.recording is not None and app.state.recording.done


def test_an_imported_tokenizer_is_not_replaced_by_an_automatic_run():
    port, app = started(sample=None)
    imported = subwordlab.train("the cat sat", "bpe", num_merges=2)
    app.state.set_imported(imported, "tokenizer.json")
    use(app, port, Corpus("low 5", "word_counts"), TrainSpec("bpe", "num_merges", 1))
    assert app.state.recording is None and app.state.imported is imported
    click(port, "#train-step")  # training by hand makes the trained tokenizer current again
    assert app.state.recording is not None and app.state.imported is None


def test_ties_at_the_top_of_the_candidates_are_named_with_their_rule():
    from subwordlab_web.train_views import tie_note

    assert tie_note([6, 6, 6, 6, 5]) == "4 pairs tie at 6: the pair met first in the corpus wins."
    assert tie_note([6, 5, 5]) == "" and tie_note([6]) == ""
    assert tie_note([3, 3], "lex_min") == "At least 2 pairs tie at 3: the alphabetically smallest pair wins."
    # seed 000's corpus: at step 0, several pairs tie at the top count
    rec = Recording(SEED0, "bpe", num_merges=3)
    rec.advance(10**6)
    counts = [c for _, c in rec.steps[0].candidates]
    title, help_text, bars = candidate_bars(rec.steps, 0, "bpe")
    n = sum(1 for c in counts if c == counts[0])
    if n > 1:
        assert f"{n} pairs tie at {counts[0]}" in help_text
        assert [b.tie for b in bars].count(True) == n - 1 and sum(b.chosen for b in bars) == 1
    else:
        assert "tie" not in help_text and not any(b.tie for b in bars)
    # a corpus made to tie: "ab" and "cd" both occur 4 times
    rec = Recording({"ab": 4, "cd": 4}, "bpe", num_merges=1)
    rec.advance(10**6)
    _, help_text, bars = candidate_bars(rec.steps, 1, "bpe")
    assert "pairs tie at 4: the pair met first in the corpus wins" in help_text
    assert [(b.label, b.chosen, b.tie) for b in bars][:2] == [(bars[0].label, True, False), (bars[1].label, False, True)]


def test_merge_table_and_vocabulary_download_as_csv():
    import csv
    import io

    from subwordlab_web.train_views import csv_text

    assert csv_text(("a", "b"), [(1, "x,y")]) == 'a,b\r\n1,"x,y"\r\n'
    port = FakePort.from_html((Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8"))
    app = App(port, warm=False)
    app.start(sample="seed000")
    port.settle()
    app.panels["train"].start_training()
    port.settle()
    app.state.seek(3)
    port.click(port.query("#merges-csv"))
    name, text, mime = port.downloads[-1]
    assert name == "subwordlab-bpe-step3-merges.csv" and mime == "text/csv"
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["Step", "Pair", "Count", "New token"] and [r[0] for r in rows[1:]] == ["1", "2", "3"]
    assert rows[1][1:] == ["e + s", "9", "es"]
    port.click(port.query("#vocab-csv"))
    name, text, _ = port.downloads[-1]
    rows = list(csv.reader(io.StringIO(text)))
    tok = app.state.tokenizer_at_step()[0]
    assert name.endswith("-vocabulary.csv") and rows[0] == ["id", "token", "shown as"]
    assert [r[1] for r in rows[1:]] == list(tok.model.vocab)


@pytest.mark.parametrize("error", [MemoryError(), OverflowError("int too large to convert to float"),
                                   RecursionError("maximum recursion depth exceeded"), KeyError("x")])
def test_any_exception_in_the_training_task_ends_it_with_a_message_and_a_usable_panel(monkeypatch, error):
    import subwordlab.recording as recording

    real = recording.iter_train

    def failing(*args, **kwargs):
        for event in real(*args, **kwargs):
            if event.kind == "merge":
                raise error
            yield event

    port, app = started()
    monkeypatch.setattr(recording, "iter_train", failing)
    use(app, port, Corpus("\n".join(f"{w} {n}" for w, n in SEED4.items()), "word_counts"),
        TrainSpec("bpe", "num_merges", 5))
    assert app.state.training.phase == "failed" and app.state.recording is None
    shown = text(port, "#train-error")
    assert not port.query("#train-error").hidden and "kept" in shown and "Traceback" not in shown
    assert app.state.corpus.text.startswith("token 6")  # the corpus is still there
    # the panel is usable: with the cause gone, Run to end trains again
    monkeypatch.setattr(recording, "iter_train", real)
    click(port, "#train-end")
    assert app.state.training.phase == "done" and port.query("#train-error").hidden
    assert text(port, "#train-step-total") == "5"


def test_the_status_says_how_many_characters_a_custom_pattern_left_unmatched():
    port, app = started()
    use(app, port, Corpus("ab, cd! ef"), TrainSpec("byte_bpe", "vocab_size", 260, {"pattern": "[a-z]+"}))
    assert app.state.recording.done
    assert ("the pattern left 4 characters unmatched; they are kept as their own pieces"
            in text(port, "#train-status"))
    use(app, port, Corpus("ab, cd! ef"), TrainSpec("byte_bpe", "vocab_size", 260))
    assert app.state.recording.done and "unmatched" not in text(port, "#train-status")


@pytest.mark.parametrize("preset", ["unigram", "bpe", "sentencepiece_bpe"])
def test_the_status_says_what_training_limited_and_how_to_change_it(preset):
    port, app = started()
    line = "".join(read("tinyshakespeare.txt")[:6_000].split())  # one word of ~4,600 bytes
    use(app, port, Corpus(line), TrainSpec(preset, "vocab_size", 200))
    assert app.state.recording.done
    status = text(port, "#train-status")
    assert "longer than max_sentence_length=4,192 bytes" in status and "raise max_sentence_length" in status
    use(app, port, Corpus(line), TrainSpec(preset, "vocab_size", 200, {"max_sentence_length": 10_000}))
    assert app.state.recording.done and "max_sentence_length" not in text(port, "#train-status")


def test_a_pressed_button_that_becomes_disabled_hands_the_keyboard_focus_on():
    """A browser drops the focus of a control that becomes disabled or hidden to <body> (the
    fake port does too): Step at the last step, Back and Reset at step 0, Cancel at the end of
    a run each pass it to a button that still leads somewhere."""
    port, app = started()
    step, back, reset, play, end = (port.query(f"#train-{k}") for k in ("step", "back", "reset", "play", "end"))
    port.focus(step)
    click(port, "#train-step", 8)
    assert app.state.step == 8 and "disabled" in step.attrs and port.focused is play
    port.focus(back)
    click(port, "#train-back", 8)
    assert app.state.step == 0 and "disabled" in back.attrs and port.focused is step
    click(port, "#train-step", 2)
    port.focus(reset)
    click(port, "#train-reset")
    assert app.state.step == 0 and port.focused is step
    # Cancel goes with the run it cancels: the focus goes to "Run to end"
    use(app, port, Corpus(read("tinyshakespeare.txt")[:300_000]), TrainSpec("byte_bpe", "vocab_size", 600))
    port.focus(end)
    port.click(end)
    port.drive(2)
    cancel = port.query("#train-cancel")
    port.focus(cancel)
    click(port, "#train-cancel")
    assert port.query("#train-progress").hidden and port.focused is end
    assert port.errors == []
