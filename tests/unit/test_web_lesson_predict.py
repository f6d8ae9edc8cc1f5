"""Learn by predicting (issue 27 item 5): ``predict: on`` makes the lesson card ask before
Next shows a step, with the step's real candidates (or Unigram sizes), and say whether the
learner was right with the trainer's numbers; ``exercise: ID`` offers a Python exercise."""

from __future__ import annotations

from pathlib import Path

import pytest

from subwordlab.recording import Recording
from subwordlab_web.exercises import EXERCISE_IDS, EXERCISES
from subwordlab_web.lesson_format import LessonFileError, parse_lesson
from subwordlab_web.lessons import LESSONS, MAX_CHOICES, label, lesson_by_number, prediction, verdict

HEAD = "lesson-format: 1\ntitle: Tiny\ncorpus: words\n  low 5\n  lower 2\n  newest 6\n  widest 3\nalgorithm: bpe\nmerges: 4\n"


def run(lesson):
    return Recording(lesson.training_input(), lesson.spec.preset, **lesson.spec.kwargs()).run()


# --- the file format -------------------------------------------------------------------------
def test_predict_and_exercise_keys_are_read_and_default_off():
    plain = parse_lesson(HEAD)
    assert (plain.predict, plain.exercise) == (False, "")
    on = parse_lesson(HEAD + "predict: on\nexercise: bpe_merge\n")
    assert (on.predict, on.exercise) == (True, "bpe_merge")
    assert parse_lesson(HEAD + "predict: off\n").predict is False


@pytest.mark.parametrize("extra, words", [
    ("predict: yes\n", "predict is “on” or “off”, not “yes”"),
    ("predict:\n", "predict is “on” or “off”"),
    ("exercise: bpe_magic\n", "“exercise: bpe_magic” names no exercise. Use one of bpe_get_stats"),
    ("predict: on\npredict: off\n", "“predict” is already on line 10"),
    ("step 1:\n  predict: on\n", "“predict” is not a key inside step 1"),
])
def test_bad_predict_and_exercise_lines_are_named(extra, words):
    with pytest.raises(LessonFileError) as info:
        parse_lesson(HEAD + extra)
    line = 10 + extra.count("\n") - 1 if "already" in words else (11 if extra.startswith("step") else 10)
    assert info.value.line == line and words in str(info.value), str(info.value)


def test_bundled_lessons_that_predict_and_offer_an_exercise():
    assert [le.number for le in LESSONS if le.predict] == [1, 7, 8, 9, 10]
    assert {le.number: le.exercise for le in LESSONS if le.exercise} == {
        1: "bpe_get_stats", 7: "bpe_get_stats", 8: "wordpiece_score", 9: "unigram_em"}
    assert all(le.exercise in EXERCISE_IDS for le in LESSONS if le.exercise)


# --- the questions and the verdicts (pure) -----------------------------------------------------
@pytest.mark.parametrize("number", [1, 2, 5, 7, 10, 11], ids=lambda n: f"lesson{n}")
def test_choices_are_the_steps_real_candidates_with_the_winner(number):
    lesson = lesson_by_number(number)
    rec = run(lesson)
    for k, e in enumerate(rec.steps, 1):
        p = prediction(lesson, rec, k)
        assert p is not None and p.step == k and f"merge {k}?" in p.question
        labels = [c.label for c in p.choices]
        assert labels == sorted(labels) and 2 <= len(labels) <= MAX_CHOICES  # alphabetical: no hint
        real = {label(c[0]): c for c in e.candidates}
        assert set(labels) <= set(real) and label(e.pair) in labels
        # the choices are the winner and the next best candidates, as recorded
        expected = [label(c[0]) for c in e.candidates if tuple(c[0]) != tuple(e.pair)][: len(labels) - 1]
        assert sorted(labels) == sorted([label(e.pair), *expected])
        assert next(c for c in p.choices if c.key == p.answer).label == label(e.pair)
    assert prediction(lesson, rec, 0) is None and prediction(lesson, rec, len(rec.steps) + 1) is None


def test_right_and_wrong_answers_say_the_numbers():
    lesson = lesson_by_number(7)
    p = prediction(lesson, run(lesson), 1)
    keys = {c.label: c.key for c in p.choices}
    assert sorted(keys) == ["h + u", "p + u", "u + g", "u + n"]
    assert verdict(p, keys["u + g"]) == (True, "Right: u + g wins with 20.")
    assert verdict(p, keys["h + u"]) == (False, "Not this time: you chose h + u (15); u + g wins with 20.")
    assert verdict(p, keys["p + u"]) == (False, "Not this time: you chose p + u (17); u + g wins with 20.")


def test_a_tie_is_said_with_its_rule():
    lesson = lesson_by_number(10)
    p = prediction(lesson, run(lesson), 2)
    keys = {c.label: c.key for c in p.choices}
    right, text = verdict(p, keys["aa + a"])
    assert not right and text == ("Not this time: you chose aa + a (2); a + b wins with 2. They tie: the tie-break "
                                  "rule (the alphabetically smallest pair wins) picks a + b.")


def test_wordpiece_asks_for_the_highest_score():
    lesson = lesson_by_number(5)
    p = prediction(lesson, run(lesson), 1)
    assert "highest score" in p.question
    keys = {c.label: c.key for c in p.choices}
    assert verdict(p, keys["##i + ##z"]) == (True, "Right: ##i + ##z wins with a score of 0.1429.")
    assert verdict(p, keys["s + ##t"])[1] == ("Not this time: you chose s + ##t (score 0.1111); ##i + ##z wins with "
                                              "a score of 0.1429.")


@pytest.mark.parametrize("number", [6, 9, 14], ids=lambda n: f"lesson{n}")
def test_unigram_asks_how_many_entries_are_left_and_which_piece_is_pruned(number):
    lesson = lesson_by_number(number)
    rec = run(lesson)
    places, pruned = set(), 0
    for k, e in enumerate(rec.steps, 1):
        before = (rec.steps[k - 2] if k > 1 else rec.alphabet).vocab_size
        p = prediction(lesson, rec, k)
        if e.kind == "prune" and e.pieces:
            # "which piece is removed?": the round's first dropped piece among kept ones, never a
            # single character or a reserved piece, each with the recording's number
            pruned += 1
            assert p.pruned and p.question == f"Which of these pieces does pruning round {e.round + 1} remove?"
            removed, loss = e.dropped[0]
            kept = {piece: logp for piece, logp in e.pieces}
            right = next(c for c in p.choices if c.key == p.answer)
            assert right.label == removed and removed not in kept and right.number == f"loss {loss:.4f}"
            others = [c for c in p.choices if c.key != p.answer]
            assert 1 <= len(others) <= 3 and [c.label for c in p.choices] == sorted(c.label for c in p.choices)
            for c in others:
                assert c.label in kept and len(c.label) > 1 and kept[c.label] != 0.0
                assert c.number == f"log-probability {kept[c.label]:.4f}"
            goes = f"{len(e.dropped)} piece{'s' * (len(e.dropped) != 1)}"
            assert verdict(p, p.answer) == (True, f"Right: {removed} is removed: it is the least useful piece (loss "
                                            f"{loss:.4f}: the corpus's log-likelihood per word falls by that much "
                                            f"without it); this round removes {goes}.")
            ok, said = verdict(p, others[0].key)
            assert not ok and said.startswith(f"Not this time: {others[0].label} stays ({others[0].number}); {removed} "
                                              "is removed")
            continue
        assert p.question.startswith(f"The vocabulary has {before} entries. How many are left after this ")
        numbers = [int(c.key) for c in p.choices]
        assert len(set(numbers)) == 3 and numbers == sorted(numbers) and e.vocab_size in numbers and min(numbers) >= 1
        assert p.answer == str(e.vocab_size)
        places.add(numbers.index(e.vocab_size))
        assert verdict(p, p.answer) == (True, f"Right: {e.vocab_size} entries are left (it had {before}).")
        wrong = next(n for n in numbers if n != e.vocab_size)
        assert verdict(p, str(wrong)) == (False, f"Not this time: you chose {wrong}; {e.vocab_size} entries are left "
                                                 f"(it had {before}).")
    assert pruned >= 1
    if number == 6:
        assert len(places) > 1  # the right number is not always in the same place


# --- the card, through the fake port ------------------------------------------------------------
INDEX_HTML = (Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8")


def page(href):
    from fakedom import FakePort

    from subwordlab_web.app import App

    port = FakePort.from_html(INDEX_HTML)
    port.href = href
    app = App(port, warm=False)
    app.start()
    port.settle()
    return port, app


def choices(port):
    return {port.text(b): b for b in port.query_all("#lesson-choices button")}


def test_next_asks_then_the_answer_says_the_numbers_and_the_player_moves():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=7&step=0")
    st, q = app.state, port.query
    assert st.step == 0 and q("#lesson-predict").hidden and q("#lesson-score").hidden
    port.click(q("#lesson-next"))
    port.settle()
    # asked, not moved: the choices are merge 1's candidates, alphabetically, and Skip
    assert st.step == 0 and not q("#lesson-predict").hidden
    assert port.text(q("#lesson-question")) == "Which pair wins merge 1?"
    assert list(choices(port)) == ["h + u", "p + u", "u + g", "u + n", "Skip"]
    assert q("#lesson-next").attrs.get("disabled") is not None
    assert port.focused is port.query("#lesson-choices button")
    # a wrong answer: said with both numbers, then merge 1 is shown
    port.click(choices(port)["h + u"])
    port.settle()
    assert st.step == 1 and port.text(q("#lesson-heading")) == "Merge 1: u + g → ug"
    assert port.text(q("#lesson-verdict")) == "Not this time: you chose h + u (15); u + g wins with 20."
    assert not q("#lesson-verdict").hidden and port.get_attr(q("#lesson-verdict"), "data-right") == "false"
    assert q("#lesson-predict").hidden and port.text(q("#lesson-score")) == "Your predictions: 0 of 1 right."
    assert port.focused is q("#lesson-next") and port.href.endswith("?lesson=7&step=1")
    # a right answer
    port.click(q("#lesson-next"))
    port.settle()
    assert st.step == 1 and port.text(q("#lesson-question")) == "Which pair wins merge 2?"
    assert list(choices(port)) == ["h + ug", "p + u", "p + ug", "u + n", "Skip"]
    port.click(choices(port)["u + n"])
    port.settle()
    assert st.step == 2 and port.text(q("#lesson-verdict")) == "Right: u + n wins with 16."
    assert port.get_attr(q("#lesson-verdict"), "data-right") == "true"
    assert port.text(q("#lesson-score")) == "Your predictions: 1 of 2 right."
    # Skip shows the step uncounted; back and forth does not ask an answered step again
    port.click(q("#lesson-next"))
    port.settle()
    port.click(choices(port)["Skip"])
    port.settle()
    assert st.step == 3 and q("#lesson-verdict").hidden and port.text(q("#lesson-score")).endswith("1 of 2 right.")
    port.click(q("#lesson-prev"))
    port.settle()
    port.click(q("#lesson-prev"))
    port.settle()
    assert st.step == 1 and port.text(q("#lesson-verdict")) == "Not this time: you chose h + u (15); u + g wins with 20."
    port.click(q("#lesson-next"))
    port.settle()
    assert st.step == 2 and q("#lesson-predict").hidden


def test_the_unigram_lesson_asks_which_piece_a_pruning_round_removes():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=9&step=1")
    st, q = app.state, port.query
    port.click(q("#lesson-next"))
    port.settle()
    assert st.step == 1 and port.text(q("#lesson-question")) == "Which of these pieces does pruning round 1 remove?"
    e = st.recording.steps[1]
    removed = e.dropped[0][0]
    picks = [label for label in choices(port) if label != "Skip"]
    assert removed in picks and len(picks) >= 2
    port.click(choices(port)[removed])
    port.settle()
    assert st.step == 2 and port.text(q("#lesson-verdict")).startswith(f"Right: {removed} is removed: it is the least "
                                                                       "useful piece (loss ")
    assert port.text(q("#lesson-exercise")).startswith("Try it in Python: Unigram")


def test_previous_or_the_player_drops_the_question():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=10&step=1")
    q = port.query
    port.click(q("#lesson-next"))
    port.settle()
    assert not q("#lesson-predict").hidden and app.state.step == 1
    port.click(q("#train-step"))  # the player's own control moves without asking
    port.settle()
    assert app.state.step == 2 and q("#lesson-predict").hidden and q("#lesson-next").attrs.get("disabled") is None
    port.click(q("#lesson-prev"))
    port.settle()
    port.click(q("#lesson-next"))
    port.settle()
    assert not q("#lesson-predict").hidden
    port.click(q("#lesson-prev"))
    port.settle()
    assert app.state.step == 0 and q("#lesson-predict").hidden


def test_a_lesson_without_predict_steps_at_once_and_a_new_lesson_resets_the_score():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=7&step=0")
    q = port.query
    port.click(q("#lesson-next"))
    port.settle()
    port.click(choices(port)["u + g"])
    port.settle()
    assert port.text(q("#lesson-score")) == "Your predictions: 1 of 1 right."
    port.input(q("#lesson-pick"), "3", event="change")
    port.settle()
    assert q("#lesson-score").hidden and q("#lesson-verdict").hidden
    port.click(q("#lesson-next"))
    port.settle()
    assert app.state.step == 1 and q("#lesson-predict").hidden


def test_the_exercise_button_opens_the_lessons_exercise():
    port, app = page("http://127.0.0.1:8000/index.html?lesson=7&step=0")
    q = port.query
    button = q("#lesson-exercise")
    assert not button.hidden and port.text(button) == f"Try it in Python: {EXERCISES['bpe_get_stats'].title}"
    app.exercises.open("bpe_merge")
    port.click(button)
    port.settle()
    assert app.exercises.current.id == "bpe_get_stats" and port.value(q("#exercise-pick")) == "bpe_get_stats"
    assert port.value(q("#exercise-code")) == EXERCISES["bpe_get_stats"].starter
    assert port.focused is q("#exercise-code")
    port.input(q("#lesson-pick"), "3", event="change")  # lesson 3 offers none
    port.settle()
    assert button.hidden
