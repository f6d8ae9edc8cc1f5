"""The pattern guard (web/subwordlab_web/pattern_guard.py) through the fake port: which
pipelines it checks, what its worker runs, and each door — the Options field, Inspect, a
model file, a share link, Compare — when the worker does not answer in time (the fake port's
``guard_hangs``) or cannot run: one message, the spec, model and form value kept.

(The real worker, its timeout and its termination are exercised in tests/e2e/
test_hostile_inputs.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import subwordlab
from fakedom import FakePort
from subwordlab_web import pattern_guard
from subwordlab_web.app import App
from subwordlab_web.state import Corpus, TrainSpec

INDEX_HTML = (Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8")
CATASTROPHIC = "(a+)+$"
CORPUS = "low lower newest " + "a" * 40 + "b low"


def started(text=CORPUS):
    port = FakePort.from_html(INDEX_HTML)
    app = App(port, warm=False)
    app.start(sample=None)
    app.state.set_corpus(Corpus(text))
    app.state.set_spec(TrainSpec("byte_bpe", "num_merges", 5))
    port.settle()
    assert app.state.recording is not None and app.state.recording.done
    return port, app


def hangs_on(pattern):
    """A fake worker that does not answer for pipelines holding ``pattern`` (the nested part:
    an import may spell the anchor differently)."""
    core = pattern.rstrip("$")
    return lambda request: core in str(json.loads(request)["pre_tokenizer"])


def set_pattern(port, value):
    field = port.query("#opt-pattern")
    port.input(field, value, "change")
    port.settle()


def split_tokenizer_json(pattern):
    """A tokenizer.json (written by the core's HF export) whose Split regex is ``pattern``."""
    tok = subwordlab.train("low lower aab", preset="byte_bpe", vocab_size=260, pattern=r"a+|[^a]+")
    doc = json.loads(tok.to_hf_json())
    text = json.dumps(doc)
    assert text.count('"a+|[^a]+"') == 1, "the export carries the pattern once (a Split regex)"
    return text.replace('"a+|[^a]+"', json.dumps(pattern))


# --- what is checked -------------------------------------------------------------------------
def test_built_in_patterns_and_word_counts_are_never_checked():
    assert pattern_guard.spec_check(TrainSpec("byte_bpe", "vocab_size", 300), Corpus("x")) is None
    assert pattern_guard.spec_check(TrainSpec("byte_bpe", "vocab_size", 300, {"pattern": "o200k"}), Corpus("x")) is None
    assert pattern_guard.spec_check(("byte_bpe", {"pattern": pattern_guard.PATTERNS["cl100k"]}), Corpus("x")) is None
    assert pattern_guard.spec_check(("byte_bpe", {"pattern": CATASTROPHIC}), Corpus("a 5", "word_counts")) is None
    assert pattern_guard.spec_check(("bpe", {}), Corpus("x")) is None
    tok = subwordlab.train("low lower", preset="wordpiece", vocab_size=40)
    assert pattern_guard.tokenizer_check(tok, "low", "the Inspect text") is None


def test_an_imported_split_regex_is_found_and_run_by_the_worker_function():
    tok = subwordlab.Tokenizer.from_hf_json(split_tokenizer_json(r"\w+|\s+"))
    check = pattern_guard.tokenizer_check(tok, "hi there", "the Inspect text")
    # (the import spells \w and \s out as Unicode classes, as Oniguruma means them)
    assert check is not None and len(check.patterns) == 1 and r"\p{L}" in check.patterns[0]
    reply = json.loads(pattern_guard.run_request(check.request()))
    assert reply["ok"] and reply["pieces"] == 3  # 'hi', ' ', 'there'


def test_the_worker_function_reports_a_refused_pipeline_without_a_verdict():
    check = pattern_guard.pipeline_check(None, {"type": "ByteLevel", "pattern": "a*", "add_prefix_space": False},
                                         "aaa", "the corpus")
    reply = json.loads(pattern_guard.run_request(check.request()))
    assert reply["ok"] and "matches an empty string" in reply["refused"]


def test_advice_names_the_construct_to_change():
    assert pattern_guard.advice(r"^(\w+\s?)+$") == "remove the nested repetition '(\\w+\\s?)+' (e.g. write '\\w+\\s?')"
    assert "alternatives" in pattern_guard.advice("(a|aa)*c")
    assert pattern_guard.budget_seconds(2_000_000) > pattern_guard.budget_seconds(1000)


# --- the doors ---------------------------------------------------------------------------------
def test_options_door_keeps_the_spec_the_model_and_the_typed_pattern():
    port, app = started()
    st = app.state
    spec, rec = st.spec, st.recording
    port.guard_hangs = hangs_on(CATASTROPHIC)
    set_pattern(port, CATASTROPHIC)
    error = port.query("#train-form-error")
    assert not error.hidden
    assert "'(a+)+$' backtracks catastrophically on the corpus" in port.text(error)
    assert "remove the nested repetition '(a+)+'" in port.text(error)
    assert st.spec == spec and st.recording is rec and rec.done  # nothing changed
    assert port.value(port.query("#opt-pattern")) == CATASTROPHIC
    # the verdict is remembered: the same pattern on the same corpus is not asked again
    asked = len(port.guard_requests)
    set_pattern(port, CATASTROPHIC)
    assert len(port.guard_requests) == asked and not error.hidden
    # a fixed pattern is checked, applied and trained
    set_pattern(port, r"a+|[^a]+")
    assert error.hidden
    assert st.spec.options == {"pattern": r"a+|[^a]+"}
    assert st.recording is not None and st.recording.done and st.recording is not rec


def test_a_worker_that_cannot_run_refuses_the_pattern_and_is_asked_again():
    port, app = started()
    spec = app.state.spec
    port.guard_hangs = lambda request: False
    replies = iter([json.dumps({"ok": True, "unavailable": "no memory"})])

    async def unavailable(request, budget):
        port.guard_requests.append((request, budget))
        return next(replies, None)

    port.run_guarded = unavailable
    set_pattern(port, r"\w+|\W+")
    error = port.query("#train-form-error")
    assert "could not run (no memory)" in port.text(error) and app.state.spec == spec
    set_pattern(port, r"\w+|\W+")  # not cached: asked again (and this time it times out)
    assert len(port.guard_requests) == 2 and "backtracks catastrophically" in port.text(error)


def test_inspect_door_refuses_to_encode_with_an_imported_catastrophic_split():
    port, app = started()
    tok = subwordlab.Tokenizer.from_hf_json(split_tokenizer_json(CATASTROPHIC))
    port.guard_hangs = hangs_on(CATASTROPHIC)
    app.state.set_inspect(text="a" * 40 + "b")
    app.state.set_imported(tok, "evil.json")
    app.show_panel("inspect")
    port.settle()
    error = port.query("#inspect-error")
    assert not error.hidden and "backtracks catastrophically on the Inspect text" in port.text(error)


def test_files_door_keeps_the_current_tokenizer():
    port, app = started()
    app.state.set_inspect(text="a" * 40 + "b")
    port.guard_hangs = hangs_on(CATASTROPHIC)
    files = app.panels["files"]
    port.spawn(files.load_bytes("evil.json", split_tokenizer_json(CATASTROPHIC).encode(), files._loads))
    port.settle()
    assert app.state.imported is None  # the trained tokenizer is still the current one
    error = port.query("#files-error")
    assert not error.hidden and port.text(error).startswith("'evil.json' was not loaded. The pattern '(a+)+")
    assert port.text(port.query("#files-status")) == ""


def test_share_door_says_why_the_link_did_not_train():
    from subwordlab_web import share

    port, app = started()
    port.guard_hangs = hangs_on(CATASTROPHIC)
    exp = share.Experiment(share.CorpusRef.inline(CORPUS), share.Config("byte_bpe", {"num_merges": 5, "pattern": CATASTROPHIC}),
                           step=2, panel="train")
    port.href = "http://x/index.html#" + share.encode_fragment(exp)
    app.panels["share"].open_hash()
    port.settle()
    banner = port.query("#link-banner")
    assert not banner.hidden and "backtracks catastrophically on the corpus" in port.text(port.query("#link-banner-text"))
    assert app.state.training.phase == "failed" and app.state.recording is None
    assert port.query("#panel-train").attrs.get("data-status") == "failed"


def test_compare_door_refuses_a_catastrophic_configuration():
    port, app = started()
    port.guard_hangs = hangs_on(CATASTROPHIC)
    cmp = app.panels["compare"]
    cmp.configs[0] = ("byte_bpe", {"pattern": CATASTROPHIC})
    port.spawn(cmp.run())
    port.settle()
    assert "Cannot compare: The pattern '(a+)+$' backtracks catastrophically" in port.text(port.query("#cmp-message"))
    assert cmp.run_state is None  # nothing was trained


def test_a_pattern_the_core_refuses_is_refused_before_the_model_goes():
    port, app = started()
    spec, rec = app.state.spec, app.state.recording
    set_pattern(port, r"a*|\b")
    error = port.query("#train-form-error")
    assert not error.hidden and "matches an empty string" in port.text(error)
    assert app.state.spec == spec and app.state.recording is rec


def test_an_absurd_target_is_refused_in_the_form_and_the_model_stays():
    port, app = started()
    spec, rec = app.state.spec, app.state.recording
    port.input(port.query("#train-size"), "10000000000", "change")
    port.settle()
    error = port.query("#train-form-error")
    assert not error.hidden and "num_merges must be a whole number from" in port.text(error)
    assert app.state.spec == spec and app.state.recording is rec


def test_a_huge_word_is_cut_in_the_segmentation_table():
    from subwordlab_web.train_views import SEGMENT_WORD_CHARS, segment_words

    (shown, text, count), = segment_words([("a" * 1_000_000, 1)], True)
    assert shown == "a" * SEGMENT_WORD_CHARS + "…" and text == " " + "a" * SEGMENT_WORD_CHARS and count == 1
