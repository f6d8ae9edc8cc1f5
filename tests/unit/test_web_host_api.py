"""The embedding page's channel (host_api.py): with api=ORIGIN an embed posts its events to
that origin only and follows commands from it only; without, it posts nothing but its height."""

from __future__ import annotations

import pytest
from fakedom import FakePort
from test_web_embed_shape import started

from subwordlab_web.embed import parse_query
from subwordlab_web.host_api import PREFIX, read_command

HOST = "https://course.example.org"
TRAIN = "?embed=1&panel=train&preset=bpe&sample=seed000&merges=8&step=3&api=" + HOST


def events(port: FakePort) -> list[dict]:
    """What was posted to the host's origin (the height goes to any parent)."""
    return [m for m, to in zip(port.posted, port.posted_to, strict=True) if to == HOST]


def send(port: FakePort, name: str, origin: str = HOST, **fields) -> None:
    port.message_from_parent(origin, {"type": PREFIX + name, **fields})
    port.settle()


def test_the_api_parameter_is_an_origin_or_is_refused_by_name():
    assert parse_query("?embed=1&api=https://Course.Example.org:8443").api == "https://course.example.org:8443"
    for bad in ("*", "https://x.org/page", "javascript:alert(1)", "x.org"):
        p = parse_query(f"?embed=1&api={bad}")
        assert p.api is None and any("api=" in problem and "origin" in problem for problem in p.problems)


def test_ready_then_every_step_the_learner_reaches():
    port, app = started(TRAIN)
    assert events(port) == [{"type": "subwordlab:ready", "panel": "train", "step": 3, "steps": 8, "lesson": None},
                            {"type": "subwordlab:step", "step": 3, "steps": 8}]
    port.click(port.query("#train-step"))
    port.settle()
    assert events(port)[-1] == {"type": "subwordlab:step", "step": 4, "steps": 8}


def test_commands_steer_the_widget_and_a_bad_one_is_answered_with_its_reason():
    port, app = started(TRAIN)
    st = app.state
    send(port, "go-to-step", step=6)
    assert st.step == 6 and events(port)[-1] == {"type": "subwordlab:step", "step": 6, "steps": 8}
    send(port, "go-to-step", step=99)
    assert st.step == 6 and events(port)[-1] == {
        "type": "subwordlab:error", "command": "subwordlab:go-to-step", "message": "step 99 is past the run's last step, 8"}
    send(port, "go-to-step", step="3")
    assert "whole number" in events(port)[-1]["message"]
    send(port, "set-text", text="lowest")
    assert "this one shows train" in events(port)[-1]["message"]
    send(port, "reset")
    assert st.step == 3 and port.query("#embed-restore").hidden
    send(port, "launch-rockets")
    assert events(port)[-1]["message"].startswith("'launch-rockets' is not a command")


def test_only_the_embedding_origin_is_heard_and_nothing_is_posted_without_api():
    port, app = started(TRAIN)
    before = list(port.posted)
    send(port, "go-to-step", origin="https://evil.example", step=7)
    send(port, "go-to-step", origin="http://course.example.org", step=7)  # another scheme: another origin
    assert app.state.step == 3 and port.posted == before  # ignored, unanswered
    port, app = started(TRAIN.replace("&api=" + HOST, ""))
    assert port.parent_listeners == [] and all(to == "*" for to in port.posted_to)
    send(port, "go-to-step", step=7)
    assert app.state.step == 3


def test_a_lesson_step_and_the_lesson_finished_once():
    port, app = started("?embed=1&lesson=3&step=4&api=" + HOST)
    st = app.state
    ready = events(port)[0]
    assert ready["type"] == "subwordlab:ready" and ready["lesson"] == 3 and ready["step"] == 4
    steps = ready["steps"]
    assert {"type": "subwordlab:lesson-step", "lesson": 3, "step": 4, "steps": steps} in events(port)
    send(port, "go-to-step", step=steps)
    send(port, "go-to-step", step=steps - 1)
    send(port, "go-to-step", step=steps)
    finished = [e for e in events(port) if e["type"] == "subwordlab:lesson-finished"]
    assert finished == [{"type": "subwordlab:lesson-finished", "lesson": 3}]
    send(port, "open-lesson-step", lesson=1, step=2)
    assert (st.lesson, st.step) == (1, 2)
    assert events(port)[-1] == {"type": "subwordlab:lesson-step", "lesson": 1, "step": 2, "steps": len(st.recording.steps)}
    send(port, "open-lesson-step", lesson=99, step=0)
    assert events(port)[-1]["message"].startswith("there is no lesson 99")


@pytest.mark.parametrize("panel, query", [("inspect", "&panel=inspect&preset=bpe&sample=seed000&merges=8"),
                                          ("compare", "&panel=compare&sample=seed000&vocab=40")])
def test_set_text_sets_the_text_the_embed_shows(panel, query):
    port, app = started("?embed=1" + query + "&api=" + HOST)
    send(port, "set-text", text="newest widest")
    if panel == "inspect":
        assert app.state.inspect.text == "newest widest"
    else:
        assert port.value(app.panels["compare"].text_box) == "newest widest"
    assert not port.query("#embed-restore").hidden  # the learner's view differs from the author's now
    send(port, "set-text", text="x" * 100_000)
    assert "at most" in events(port)[-1]["message"]


def test_a_message_that_is_not_ours_is_ignored():
    assert read_command("hello") is None and read_command({"type": 3}) is None
    assert read_command({"type": "subwordlab:height", "height": 3}) is None  # our own kind of event, echoed


LESSON_FILE = "lessons/10-wikipedia-aaabdaaabac.lesson"


def test_a_lesson_file_on_the_site_is_opened_by_address_and_followed_by_name():
    from subwordlab_web.lessons import LESSON_DIR

    port, app = started("?embed=1&lesson=3&step=1&api=" + HOST)
    st = app.state
    text = (LESSON_DIR / LESSON_FILE.split("/")[1]).read_text(encoding="utf-8").replace("predict: on\n", "")
    port.fetchable["http://127.0.0.1:8000/" + LESSON_FILE] = text
    send(port, "open-lesson-step", lesson=LESSON_FILE, step=2)
    assert st.lesson is None and st.loaded_lesson is not None and st.step == 2
    steps = len(st.recording.steps)
    assert events(port)[-1] == {"type": "subwordlab:lesson-step", "lesson": LESSON_FILE, "step": 2, "steps": steps}
    send(port, "go-to-step", step=steps)
    assert events(port)[-1] == {"type": "subwordlab:lesson-finished", "lesson": LESSON_FILE}
    # another site's file, a missing one, a hostile value: one error event each, the lesson stays
    send(port, "open-lesson-step", lesson="https://evil.example/x.lesson", step=0)
    assert events(port)[-1]["type"] == "subwordlab:error" and "only from this site" in events(port)[-1]["message"]
    send(port, "open-lesson-step", lesson="lessons/missing.lesson", step=0)
    assert "could not be fetched" in events(port)[-1]["message"]
    send(port, "open-lesson-step", lesson="x" * 400, step=0)
    assert "at most 300 characters" in events(port)[-1]["message"]
    assert st.loaded_lesson is not None and st.loaded_lesson.origin == LESSON_FILE


def test_an_exercise_passed_or_failed_is_posted_with_what_the_card_says():
    from subwordlab_web.exercises import EXERCISES

    port, app = started("?embed=1&panel=train&preset=bpe&sample=seed000&merges=8&exercise=bpe_get_stats&api=" + HOST)
    box, run = port.query("#exercise-code"), port.query("#exercise-run")
    port.set_value(box, "def get_stats(words):\n    return {}\n")
    port.click(run)
    port.settle()
    failed = events(port)[-1]
    assert failed["type"] == "subwordlab:exercise-failed" and failed["exercise"] == "bpe_get_stats"
    assert failed["outcome"] == "differs" and failed["summary"] == port.text(port.query("#exercise-result"))
    port.set_value(box, EXERCISES["bpe_get_stats"].reference)
    port.click(run)
    port.settle()
    passed = events(port)[-1]
    assert passed == {"type": "subwordlab:exercise-passed", "exercise": "bpe_get_stats",
                      "summary": port.text(port.query("#exercise-result"))}
