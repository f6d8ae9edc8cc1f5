"""Exercises in Python (subwordlab_web.exercises, exercise_view): every reference passes on
several corpora; wrong code fails at the first differing step with both values; exceptions,
bad values and print() are reported in the learner's own line numbers; the card runs code
only in the compute session (never on the page), stops it after the time limit and goes on
with a fresh worker; code that arrives in a link or an embed waits for Run."""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest
from fakedom import FakePort

from subwordlab_web import exercise_view, exercises, share
from subwordlab_web.app import App
from subwordlab_web.exercises import EXERCISES, MAX_OUTPUT_CHARS, TIME_LIMIT_SECONDS, check
from subwordlab_web.session import ComputeSession

REPO = Path(__file__).resolve().parents[2]
INDEX_HTML = (REPO / "web" / "index.html").read_text(encoding="utf-8")
PAGE = "http://127.0.0.1:8000/index.html"
SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
HUGGING = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
SHAKESPEARE = (REPO / "corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:20_000]
UDHR = (REPO / "corpora" / "udhr_many.txt").read_text(encoding="utf-8")[:20_000]
CORPORA = {"sennrich": SENNRICH, "hugging": HUGGING, "shakespeare": SHAKESPEARE, "udhr": UDHR}
# the learner's messages (syntax errors, tracebacks) come from the Python that runs them: the worker's Pyodide
pytestmark = pytest.mark.every_runtime


@pytest.mark.parametrize("module", [exercises, exercise_view])
def test_the_docstring_examples_hold(module):
    assert doctest.testmod(module).failed == 0


@pytest.mark.parametrize("corpus", list(CORPORA))
@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_every_reference_passes_against_the_trainer(exercise_id, corpus):
    result = check(exercise_id, EXERCISES[exercise_id].reference, CORPORA[corpus])
    assert result["outcome"] == "passed", result
    assert result["checked"] > 0 and result["summary"].startswith(f"Passed: {result['checked']:,} ")


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_every_starter_runs_and_differs(exercise_id):
    result = check(exercise_id, EXERCISES[exercise_id].starter, SHAKESPEARE)
    assert result["outcome"] == "differs" and result["step"] >= 1 and result["yours"] != result["trainer"], result


def test_get_stats_without_the_word_counts_fails_at_step_1_with_both_counts():
    code = ("def get_stats(words):\n    counts = {}\n    for symbols in words:\n"
            "        for pair in zip(symbols, symbols[1:]):\n            counts[pair] = counts.get(pair, 0) + 1\n"
            "    return counts\n")
    result = check("bpe_get_stats", code, SENNRICH)
    assert result["outcome"] == "differs" and result["step"] == 1
    assert result["summary"] == ("Step 1 (the pairs before merge 1): your get_stats counts ('l', 'o') 2 times, "
                                 "the trainer counts 7.")
    assert (result["yours"], result["trainer"]) == ("2", "7")


def test_get_stats_that_only_sees_characters_fails_once_a_merge_made_a_longer_token():
    code = ("def get_stats(words):\n    counts = {}\n    for symbols, n in words.items():\n"
            "        for a, b in zip(symbols, symbols[1:]):\n"
            "            if all(len(s) == 1 or s == '</w>' for s in (a, b)):\n                counts[a, b] = counts.get((a, b), 0) + n\n"
            "    return counts\n")
    result = check("bpe_get_stats", code, SENNRICH)
    assert result["outcome"] == "differs" and result["step"] == 2  # merge 1 made 'es'
    assert "your get_stats does not count" in result["summary"] and "the trainer counts" in result["summary"]


def test_merge_of_the_first_occurrence_only_fails_with_both_id_lists():
    code = ("def merge(ids, pair, idx):\n    for i in range(len(ids) - 1):\n"
            "        if (ids[i], ids[i + 1]) == pair:\n            return ids[:i] + [idx] + ids[i + 2:]\n"
            "    return list(ids)\n")
    result = check("bpe_merge", code, {"abab": 10})
    assert result["outcome"] == "differs" and result["step"] == 1
    assert result["summary"] == ("Step 1 (merge 'a' + 'b' → 'ab', pair (0, 1), idx 3): for the word 'abab', ids "
                                 "[0, 1, 0, 1, 2], your merge gives [3, 0, 1, 2] (ab a b </w>), the trainer's "
                                 "[3, 3, 2] (ab ab </w>).")


def test_wordpiece_by_count_picks_another_pair_than_the_trainer():
    result = check("wordpiece_score", EXERCISES["wordpiece_score"].starter, HUGGING)
    assert result["outcome"] == "differs" and result["step"] == 1
    assert result["summary"] == (
        "Step 1 (choosing merge 1): with your score the best pair is ('##u', '##g') (count 20, parts 36 and 20: "
        "your score 20), but the trainer merges ('##g', '##s') (count 5, parts 20 and 5: your score 5, the "
        "trainer's 0.05).")


def test_a_greedy_longest_match_is_not_viterbi():
    code = ("def viterbi(text, pieces):\n    out, i = [], 0\n    while i < len(text):\n"
            "        j = max(k for k in range(i + 1, len(text) + 1) if text[i:k] in pieces)\n"
            "        out.append(text[i:j])\n        i = j\n    return out\n")
    result = check("unigram_viterbi", code, SHAKESPEARE)
    assert result["outcome"] == "differs", result
    assert "your viterbi splits it" in result["summary"] and "the trainer's best split is" in result["summary"]
    assert result["yours"] != result["trainer"]


def test_em_update_with_log_instead_of_digamma_differs_at_the_first_iteration():
    code = EXERCISES["unigram_em"].reference.replace("digamma(", "math.log(")
    result = check("unigram_em", code, SHAKESPEARE)
    assert result["outcome"] == "differs" and result["step"] == 1
    assert "EM iteration 1 (round 1, iteration 1): your new log-probability of" in result["summary"]
    assert "the trainer's is" in result["summary"]


def test_em_update_that_keeps_every_piece_is_told_which_the_trainer_drops():
    code = "def em_update(expected):\n" + EXERCISES["unigram_em"].reference.split("\n", 2)[2].replace(
        "if len(piece) == 1 or c >= 0.5", "")
    result = check("unigram_em", code, SHAKESPEARE)
    assert result["outcome"] == "differs" and "the trainer drops it (expected" in result["summary"], result


def test_an_exception_names_the_step_and_the_learners_own_line():
    code = ("def get_stats(words):\n    counts = {}\n    for symbols, n in words.items():\n"
            "        counts[symbols[:2]] += n\n    return counts\n")
    result = check("bpe_get_stats", code, SENNRICH)
    assert result["outcome"] == "raised"
    assert result["summary"] == ("Step 1 (the pairs before merge 1): your code raised an exception:\n"
                                 "line 4, in get_stats: counts[symbols[:2]] += n\nKeyError: ('l', 'o')")


@pytest.mark.parametrize("code, message", [
    ("def get_stats(words)\n    return {}\n", "your code is not valid Python: line 1: expected ':'"),
    ("def stats(words):\n    return {}\n", "your code defines no function get_stats: keep the starter's first line, "
                                          "def get_stats(words):"),
    ("x = 1 / 0\n", "your code raised an exception as it ran (before get_stats was called):\nline 1, in <module>: "
                    "x = 1 / 0\nZeroDivisionError: division by zero"),
    ("def get_stats(words):\n    return [1, 2]\n", "Step 1 (the pairs before merge 1): your get_stats returned list, "
                                                  "not a dict {(left, right): count}"),
    ("def get_stats(words):\n    return {'lo': 7}\n", "each key must be a tuple (left, right)"),
    ("import sys\ndef get_stats(words):\n    sys.exit(3)\n", "SystemExit: 3"),
])
def test_bad_code_gives_one_message(code, message):
    result = check("bpe_get_stats", code, SENNRICH)
    assert result["outcome"] == "raised" and message in result["summary"], result


def test_print_output_is_captured_and_capped():
    code = "print('hello')\n" + EXERCISES["bpe_get_stats"].reference.replace(
        "    return counts", "    print('x' * 500)\n    return counts")
    result = check("bpe_get_stats", code, SENNRICH)
    assert result["outcome"] == "passed"
    assert result["output"].startswith("hello\n" + "x" * 500)
    assert result["output"].endswith(f"… (only the first {MAX_OUTPUT_CHARS:,} characters are shown)")
    assert len(result["output"]) < MAX_OUTPUT_CHARS + 100


def test_the_session_answers_an_exercise_with_started_then_the_result():
    replies = list(ComputeSession().replies(
        {"op": "exercise", "exercise": "bpe_merge", "code": EXERCISES["bpe_merge"].reference, "format": "word_counts"},
        "low 5\nlower 2"))
    assert replies[0] == {"started": True} and replies[-1]["result"]["outcome"] == "passed"
    bad = list(ComputeSession().replies({"op": "exercise", "exercise": "nope", "code": ""}, "low 5"))
    assert bad == [{"error": "there is no exercise 'nope'; the exercises are bpe_get_stats, bpe_merge, "
                             "wordpiece_score, unigram_viterbi, unigram_em"}]
    # (a top-level endless loop is after "started": the page's time limit covers it)
    steps = ComputeSession().replies({"op": "exercise", "exercise": "bpe_merge", "code": "while True: pass",
                                      "format": "word_counts"}, "low 5")
    assert next(steps) == {"started": True}
    steps.close()


# -- the card ---------------------------------------------------------------------------------

def started(search: str = "", hash: str = "", sample: str | None = "seed000") -> tuple[FakePort, App]:
    port = FakePort.from_html(INDEX_HTML)
    port.href = PAGE + search + hash
    app = App(port, warm=False)
    app.start(sample=sample)
    port.settle()
    assert port.errors == []
    return port, app


def q(port: FakePort, selector: str):
    return port.query(selector)


def run(port: FakePort, code: str | None = None) -> None:
    if code is not None:
        port.input(q(port, "#exercise-code"), code)
    port.click(q(port, "#exercise-run"))
    port.settle()


def exercise_requests(port: FakePort) -> list[dict]:
    return [r for r in port.compute_requests if r.get("op") == "exercise"]


def test_the_card_runs_wrong_then_right_code_in_the_worker_never_on_the_page():
    port, app = started()
    assert app.state.corpus.sample == "seed000"  # a tiny corpus: training runs on the page, exercises never do
    assert [port.get_attr(o, "value") for o in port.query_all("#exercise-pick option")] == list(EXERCISES)
    assert port.value(q(port, "#exercise-code")) == EXERCISES["bpe_get_stats"].starter
    run(port)
    card = q(port, "#exercise-card")
    assert port.get_attr(card, "data-outcome") == "differs"
    assert port.text(q(port, "#exercise-result")).startswith("Step 1 (the pairs before merge 1): your get_stats does not count")
    assert len(exercise_requests(port)) == 1 and exercise_requests(port)[0]["exercise"] == "bpe_get_stats"
    run(port, EXERCISES["bpe_get_stats"].reference)
    assert port.get_attr(card, "data-outcome") == "passed"
    assert port.text(q(port, "#exercise-result")).startswith("Passed: ")
    assert not port.query("#exercise-run").attrs.get("disabled") and q(port, "#exercise-stop").hidden
    assert port.errors == []


def test_an_exception_shows_its_lines_and_print_output_is_shown_as_text():
    port, _app = started()
    run(port, "print('<b>hi</b>')\ndef get_stats(words):\n    return 1 / 0\n")
    assert port.get_attr(q(port, "#exercise-card"), "data-outcome") == "raised"
    assert port.text(q(port, "#exercise-result")) == "Step 1 (the pairs before merge 1): your code raised an exception:"
    assert port.text(q(port, "#exercise-details")) == ("line 3, in get_stats: return 1 / 0\n"
                                                       "ZeroDivisionError: division by zero")
    assert port.text(q(port, "#exercise-output")) == "Your print() output:\n<b>hi</b>\n"
    assert q(port, "#exercise-output").element_children == []  # text, never markup


class _EndlessSession:
    """A compute session whose learner code never ends: "started", then nothing but waiting."""

    def replies(self, request, corpus=None):
        yield {"started": True}
        while True:
            yield {"still": "running"}


def test_an_endless_loop_is_stopped_at_the_time_limit_and_the_next_run_gets_a_fresh_worker():
    port, _app = started()
    port.compute_session = _EndlessSession()
    port.input(q(port, "#exercise-code"), "while True: pass\n")
    port.click(q(port, "#exercise-run"))
    port.drive(20)
    assert port.get_attr(q(port, "#exercise-card"), "data-outcome") == "running"
    assert not q(port, "#exercise-stop").hidden and "disabled" in q(port, "#exercise-run").attrs
    t0 = port.clock
    port.settle()
    assert port.clock - t0 >= TIME_LIMIT_SECONDS - 1
    assert port.get_attr(q(port, "#exercise-card"), "data-outcome") == "timeout"
    assert port.text(q(port, "#exercise-result")) == exercise_view.TIMEOUT_MESSAGE
    assert "ran longer than 5 s (an endless loop?)" in exercise_view.TIMEOUT_MESSAGE
    assert port.compute_terminated == 1 and port.compute_session is None  # the worker was terminated
    assert port.value(q(port, "#exercise-code")) == "while True: pass\n"  # the code stays
    run(port, EXERCISES["bpe_get_stats"].reference)  # a fresh session
    assert port.get_attr(q(port, "#exercise-card"), "data-outcome") == "passed"
    assert port.errors == []


def test_stop_ends_a_run_at_once():
    port, _app = started()
    port.compute_session = _EndlessSession()
    port.click(q(port, "#exercise-run"))
    port.drive(5)
    port.click(q(port, "#exercise-stop"))
    port.settle()
    assert port.get_attr(q(port, "#exercise-card"), "data-outcome") == "stopped"
    assert port.compute_terminated == 1


def test_picking_keeps_each_draft_reset_brings_the_starter_and_the_reference_is_shown_on_request():
    port, _app = started()
    box, pick = q(port, "#exercise-code"), q(port, "#exercise-pick")
    port.input(box, "# my get_stats draft\n")
    port.input(pick, "unigram_viterbi", "change")
    assert port.value(box) == EXERCISES["unigram_viterbi"].starter
    assert "Viterbi" in port.text(q(port, "#exercise-instructions"))
    port.input(pick, "bpe_get_stats", "change")
    assert port.value(box) == "# my get_stats draft\n"
    port.click(q(port, "#exercise-reset"))
    assert port.value(box) == EXERCISES["bpe_get_stats"].starter
    ref = q(port, "#exercise-reference-code")
    assert ref.hidden
    port.click(q(port, "#exercise-reference"))
    assert not ref.hidden and port.text(ref) == EXERCISES["bpe_get_stats"].reference
    assert port.text(q(port, "#exercise-reference")) == "Hide the reference"
    assert exercise_requests(port) == []


def test_an_empty_corpus_is_said_without_starting_a_worker():
    port, app = started(sample=None)
    assert app.state.corpus.is_empty
    run(port)
    assert port.get_attr(q(port, "#exercise-card"), "data-outcome") == "failed"
    assert "The corpus is empty" in port.text(q(port, "#exercise-result")) and port.compute_requests == []


WRONG_MERGE = "def merge(ids, pair, idx):\n    import os  # from a link\n    return ids\n"


def test_code_in_a_link_is_put_in_the_box_and_runs_only_on_run():
    src, src_app = started()
    port_box = q(src, "#exercise-code")
    src.input(q(src, "#exercise-pick"), "bpe_merge", "change")
    src.input(port_box, WRONG_MERGE)
    url, _ = src_app.panels["share"].make_link()
    exp = share.decode_fragment(url.split("#", 1)[1])
    assert exp.exercise == share.ExerciseRef("bpe_merge", WRONG_MERGE)

    port, _app = started(hash="#" + url.split("#", 1)[1])
    assert port.get_attr(q(port, "body"), "data-share") == "applied"
    assert port.value(q(port, "#exercise-pick")) == "bpe_merge"
    assert port.value(q(port, "#exercise-code")) == WRONG_MERGE
    assert port.text(q(port, "#exercise-result")) == exercise_view.LINK_NOTE
    assert exercise_requests(port) == []  # opening the link ran nothing
    port.drive(100)
    assert exercise_requests(port) == []
    run(port)
    assert [r["code"] for r in exercise_requests(port)] == [WRONG_MERGE]
    assert port.get_attr(q(port, "#exercise-card"), "data-outcome") == "differs"


def test_a_page_whose_exercise_card_was_not_used_makes_links_without_one():
    _port, app = started()
    url, _ = app.panels["share"].make_link()
    assert share.decode_fragment(url.split("#", 1)[1]).exercise is None


def test_an_embed_opens_an_exercise_by_its_id_with_the_starter_and_runs_nothing():
    port, _app = started(search="?embed=1&panel=train&cards=exercise&exercise=unigram_em")
    assert port.value(q(port, "#exercise-pick")) == "unigram_em"
    assert port.value(q(port, "#exercise-code")) == EXERCISES["unigram_em"].starter
    assert exercise_requests(port) == []
    assert not q(port, "#exercise-card").hidden


def test_an_embed_with_an_unknown_exercise_says_so_and_shows_the_first():
    port, _app = started(search="?embed=1&exercise=nope")
    banner = q(port, "#link-banner")
    assert "the parameter exercise='nope' must be one of bpe_get_stats" in port.text(banner)
    assert port.value(q(port, "#exercise-pick")) == "bpe_get_stats"


def test_the_request_is_plain_json():
    port, _app = started()
    run(port)
    (request,) = exercise_requests(port)
    assert request == {"op": "exercise", "exercise": "bpe_get_stats", "code": EXERCISES["bpe_get_stats"].starter,
                       "format": "word_counts"}
    json.dumps(request)
