"""The pattern guard (web/subwordlab_web/pattern_guard.py) through the fake port: which
pipelines it checks, what the compute session runs for it (op "check_patterns"), and each
door — the Options field, Inspect, a model file, a share link, Compare — when the compute
worker does not answer within the budget (the fake port's ``compute_hangs``) or cannot run:
one message, the spec, model and form value kept.

(The real worker, its timeout and its termination are exercised in tests/e2e/
test_hostile_inputs.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from fakedom import FakePort

import subwordlab
from subwordlab_web import pattern_guard
from subwordlab_web.app import App
from subwordlab_web.pattern_guard import PatternGuard
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
    doc = json.loads(subwordlab.to_hf_json(tok))
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
    tok = subwordlab.from_hf_json(split_tokenizer_json(r"\w+|\s+"))
    check = pattern_guard.tokenizer_check(tok, "hi there", "the Inspect text")
    # (the import spells \w and \s out as Unicode classes, as Oniguruma means them)
    assert check is not None and len(check.patterns) == 1 and r"\p{L}" in check.patterns[0]
    reply = json.loads(pattern_guard.run_request(check.request()))
    assert reply["ok"] and reply["pieces"] == 3  # 'hi', ' ', 'there'


def test_a_plainly_linear_replace_needs_no_worker_and_a_nested_one_does():
    """The Replace every SentencePiece model converted to a tokenizer.json carries (" {2,}")
    cannot backtrack: loading such a model does not boot the worker for its first Inspect."""
    tok = subwordlab.train("low lower newest", preset="sentencepiece_unigram", vocab_size=30)
    doc = json.loads(subwordlab.to_hf_json(tok))
    for replace, checked in ((" {2,}", False), ("( +)+x", True)):
        doc["normalizer"] = {"type": "Sequence", "normalizers": [
            {"type": "NFKC"}, {"type": "Replace", "pattern": {"Regex": replace}, "content": " "},
            {"type": "Strip", "strip_left": True, "strip_right": True}]}
        loaded = subwordlab.from_hf_json(json.dumps(doc))
        assert (pattern_guard.tokenizer_check(loaded, "de la liberte", "the Inspect text") is not None) is checked


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
    port.compute_hangs = hangs_on(CATASTROPHIC)
    set_pattern(port, CATASTROPHIC)
    error = port.query("#train-form-error")
    assert not error.hidden
    assert "'(a+)+$' backtracks catastrophically on the corpus" in port.text(error)
    assert "remove the nested repetition '(a+)+'" in port.text(error)
    assert st.spec == spec and st.recording is rec and rec.done  # nothing changed
    assert port.value(port.query("#opt-pattern")) == CATASTROPHIC
    # the verdict is remembered: the same pattern on the same corpus is not asked again
    asked = len(port.pattern_checks)
    set_pattern(port, CATASTROPHIC)
    assert len(port.pattern_checks) == asked and not error.hidden
    # a fixed pattern is checked, applied and trained
    set_pattern(port, r"a+|[^a]+")
    assert error.hidden
    assert st.spec.options == {"pattern": r"a+|[^a]+"}
    assert st.recording is not None and st.recording.done and st.recording is not rec


def test_a_worker_that_cannot_run_refuses_the_pattern_and_is_asked_again():
    port, app = started()
    spec = app.state.spec
    crashes = iter([True])
    port.compute_crash = lambda request: next(crashes, False)  # the first check: the worker dies
    port.compute_hangs = lambda request: True  # and the next one is late
    set_pattern(port, r"\w+|\W+")
    error = port.query("#train-form-error")
    assert "could not run (the compute worker stopped: out of memory)" in port.text(error) and app.state.spec == spec
    set_pattern(port, r"\w+|\W+")  # not cached: asked again (and this time it times out)
    assert len(port.pattern_checks) == 2 and "backtracks catastrophically" in port.text(error)


def test_inspect_door_refuses_to_encode_with_an_imported_catastrophic_split():
    port, app = started()
    tok = subwordlab.from_hf_json(split_tokenizer_json(CATASTROPHIC))
    port.compute_hangs = hangs_on(CATASTROPHIC)
    app.state.set_inspect(text="a" * 40 + "b")
    app.state.set_imported(tok, "evil.json")
    app.show_panel("inspect")
    port.settle()
    error = port.query("#inspect-error")
    assert not error.hidden and "backtracks catastrophically on the Inspect text" in port.text(error)


def test_inspect_says_it_is_checking_a_pattern_while_the_worker_answers(monkeypatch):
    """An imported tokenizer's own pattern is checked in the worker before Inspect encodes
    (the first check boots it: seconds); meanwhile the panel says so instead of "0 tokens"."""
    port, app = started()
    tok = subwordlab.from_hf_json(split_tokenizer_json(r"\w+|\s+|[^\w\s]+"))
    panel = app.panels["inspect"]
    seen = []
    real = panel.guard.verdict

    async def watched(check):
        note = port.query("#inspect-note")
        seen.append((note.hidden, port.text(note)))
        return await real(check)

    monkeypatch.setattr(panel.guard, "verdict", watched)
    app.state.set_inspect(text="words and more words")
    app.state.set_imported(tok, "mine.json")
    app.show_panel("inspect")
    port.settle()
    assert seen and seen[0][0] is False and seen[0][1].startswith("Checking the pattern") and "the Inspect text" in seen[0][1]
    assert port.query("#inspect-note").hidden and port.text(port.query("#inspect-count")) == str(len(tok.encode("words and more words")))


def test_files_door_keeps_the_current_tokenizer():
    port, app = started()
    app.state.set_inspect(text="a" * 40 + "b")
    port.compute_hangs = hangs_on(CATASTROPHIC)
    files = app.panels["files"]
    port.spawn(files.load_bytes("evil.json", split_tokenizer_json(CATASTROPHIC).encode(), files._loads))
    port.settle()
    assert app.state.imported is None  # the trained tokenizer is still the current one
    error = port.query("#files-error")
    assert not error.hidden and port.text(error).startswith("'evil.json' was not loaded. The pattern '(a+)+")
    assert port.text(port.query("#files-status")) == ""


def _link(corpus=CORPUS, pattern=CATASTROPHIC, **changes):
    from subwordlab_web import share

    exp = share.Experiment(share.CorpusRef.inline(corpus, title="A shared corpus"),
                           share.Config("byte_bpe", {"num_merges": 5, "pattern": pattern}), step=2, panel="inspect")
    for key, value in changes.items():
        exp = __import__("dataclasses").replace(exp, **{key: value})
    return share.encode_fragment(exp)


def _kept(app):
    """What a refused link must leave exactly as it was."""
    st = app.state
    return (st.corpus, st.spec, st.recording, st.step, st.inspect, app.panels["compare"].configs, app.current)


def test_share_door_refuses_the_link_before_anything_is_replaced():
    port, app = started("the user's own corpus, typed by hand: lower lowest newer")
    before, model = _kept(app), subwordlab.to_json(app.state.recording.tokenizer_at(len(app.state.recording.steps)))
    address = port.href
    port.compute_hangs = hangs_on(CATASTROPHIC)
    port.href = address.split("#")[0] + "#" + _link()
    port.fire_window("hashchange")  # a link pasted into a page already in use
    assert port.get_attr(port.query("body"), "data-share") == "checking"
    for _ in range(50):  # decoded in slices, then the worker is asked
        if port.pattern_checks:
            break
        port.drive()
    assert "Checking the pattern '(a+)+$' on the link's corpus" in port.text(port.query("#link-banner-text"))
    assert _kept(app) == before  # while the worker runs the pattern, nothing has changed
    port.settle()
    banner = port.query("#link-banner")
    said = port.text(port.query("#link-banner-text"))
    assert not banner.hidden and said.startswith("This link was not opened: The pattern '(a+)+$' backtracks "
                                                 "catastrophically on the link's corpus")
    assert "remove the nested repetition '(a+)+'" in said
    assert port.get_attr(port.query("body"), "data-share") == "error"
    assert _kept(app) == before
    assert subwordlab.to_json(app.state.recording.tokenizer_at(len(app.state.recording.steps))) == model
    assert port.href == address  # the address holds the page's experiment again, not the refused link
    assert port.errors == []


def test_share_door_checks_the_links_inspect_and_compare_texts_too():
    from subwordlab_web import share

    port, app = started()
    before = _kept(app)
    # the worker stops on the a-run only: the link's corpus alone would pass
    port.compute_hangs = lambda request: "a" * 40 + "b" in json.loads(request)["text"]
    port.href = "http://x/index.html#" + _link(corpus="low lower newest", inspect_text="a" * 40 + "b")
    app.panels["share"].open_hash()
    port.settle()
    assert "backtracks catastrophically on the link's Inspect text" in port.text(port.query("#link-banner-text"))
    assert _kept(app) == before
    evil = share.Config("byte_bpe", {"vocab_size": 300, "pattern": CATASTROPHIC})
    port.href = "http://x/index.html#" + _link(corpus="low lower newest", pattern=r"\w+|\s+", compare=(share.Config("bpe", {"vocab_size": 40}), evil),
                      compare_text="a" * 40 + "b")
    app.panels["share"].open_hash()
    port.settle()
    assert port.errors == []
    assert "backtracks catastrophically on the link's Compare text" in port.text(port.query("#link-banner-text"))
    assert _kept(app) == before


def test_a_refused_link_on_a_first_load_shows_the_default_page_and_in_an_embed_too():
    for search in ("", "?embed=1&panel=train"):
        port = FakePort.from_html(INDEX_HTML)
        port.href = "http://x/index.html" + search + "#" + _link()
        port.compute_hangs = hangs_on(CATASTROPHIC)
        app = App(port, warm=False)
        app.start(sample="seed000")
        port.settle()
        said = port.text(port.query("#link-banner-text"))
        assert "This link was not opened" in said and said.endswith("Showing the default page instead."), search
        assert app.state.corpus.sample == "seed000" and app.state.spec.preset != "byte_bpe", search


def test_a_good_link_after_a_refused_one_applies():
    port, app = started()
    port.compute_hangs = hangs_on(CATASTROPHIC)
    port.href = "http://x/index.html#" + _link()
    port.fire_window("hashchange")
    port.href = "http://x/index.html#" + _link(pattern=r"a+|[^a]+")  # a newer link while the first is still being checked
    port.fire_window("hashchange")
    port.settle()
    assert port.get_attr(port.query("body"), "data-share") == "applied"
    assert port.query("#link-banner").hidden
    assert app.state.spec.options["pattern"] == r"a+|[^a]+" and app.state.corpus.text == CORPUS
    assert app.state.step == 2 and app.current == "inspect"


def test_compare_door_refuses_a_catastrophic_configuration():
    port, app = started()
    port.compute_hangs = hangs_on(CATASTROPHIC)
    cmp = app.panels["compare"]
    cmp.configs[0] = ("byte_bpe", {"pattern": CATASTROPHIC})
    port.spawn(cmp.run())
    port.settle()
    assert "Cannot compare: The pattern '(a+)+$' backtracks catastrophically" in port.text(port.query("#cmp-message"))
    assert cmp.run_state is None  # nothing was trained


RUN = "a" * 40 + "b"  # what CATASTROPHIC backtracks on


def compare_run_beside_a_hanging_parity_text():
    """Compare run with a BPE column and a Byte-level BPE column whose pattern is CATASTROPHIC,
    on a corpus without the a-run; of the six parity texts, Korean's (the 5th) holds it."""
    port, app = started("low lower newest widest " * 5)  # the corpus lacks the a-run: training goes ahead
    for lang in ("udhr_eng", "udhr_hin", "udhr_cmn_hans", "udhr_arb", "udhr_kor", "udhr_rus"):
        port.fetchable[f"samples/udhr/{lang}.txt"] = f"Title\n© OHCHR\n---\n\nAll human beings are born free ({lang}).\n"
    port.fetchable["samples/udhr/udhr_kor.txt"] += RUN
    port.compute_hangs = lambda request: CATASTROPHIC in request and RUN in json.loads(request)["text"]
    cmp = app.panels["compare"]
    cmp.configs = [("bpe", {"unk_token": "<unk>"}), ("byte_bpe", {"pattern": CATASTROPHIC})]
    port.set_value(port.query("#cmp-vocab"), "270")
    port.set_value(cmp.text_box, "low lower newest")
    app.show_panel("compare")
    port.spawn(cmp.run())
    port.settle()
    assert port.errors == [] and cmp.run_state is not None and cmp.run_state.done
    return port, app, cmp


def test_compare_parity_and_curve_texts_go_through_the_guard():
    """A configuration whose custom pattern passes on the corpus and the compare text but
    not on a parity or a held-out text: those texts are tried in the worker first, and the
    cells that would freeze the page are left empty with the guard's message."""
    port, _app, cmp = compare_run_beside_a_hanging_parity_text()
    port.fetchable["samples/taylorswift.txt"] = "Taylor Swift sings. " + RUN
    asked = [r["text"] for r in port.pattern_checks]
    assert any(RUN in t and "born free" in t for t in asked)  # the Korean parity text was tried first
    kor = next(r for r in port.query_all("#cmp-parity-table tr")[1:] if r.attrs.get("data-lang") == "udhr_kor")
    assert [td.attrs["data-tokens"] for td in port.query_all("td", kor)][1] == ""  # not counted
    note = port.text(port.query("#cmp-parity-note"))
    assert "backtracks catastrophically on the parity text “Korean" in note
    # the curve's held-out text: a Wikipedia article with the a-run
    port.input(port.query("#cmp-heldout"), "taylorswift", event="change")
    port.settle()
    assert "backtracks catastrophically on the curve's held-out text" in port.text(port.query("#cmp-curve-note"))
    assert cmp.curves[0] and cmp.curves[1] == []  # the BPE column's line, none for the refused one
    # and an edited compare text is tried before the column encodes it
    port.input(cmp.text_box, "low " + RUN)
    port.settle()
    errors = [port.text(e) for e in port.query_all("#cmp-columns .cmp-col-error") if not e.hidden]
    assert any("backtracks catastrophically on the Compare text" in e for e in errors)


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


def test_a_file_link_tries_its_pattern_on_the_file_when_it_arrives():
    from subwordlab_web import share

    text = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(30_000)) + " " + "a" * 40 + "b"  # too big to inline
    exp = share.Experiment(share.CorpusRef.file("big.txt", text),
                           share.Config("byte_bpe", {"num_merges": 5, "pattern": CATASTROPHIC}), step=2)
    port, app = started()
    port.compute_hangs = lambda request: "a" * 40 + "b" in json.loads(request)["text"]  # the file's a-run
    port.href = "http://x/index.html#" + share.encode_fragment(exp)
    port.fire_window("hashchange")
    port.settle()
    assert port.get_attr(port.query("body"), "data-share") == "waiting-file"
    app.state.set_corpus(Corpus(text, name="big.txt"))  # the user uploads the file
    port.settle()
    said = port.text(port.query("#link-banner-text"))
    assert said.startswith("This link's settings were not applied: The pattern '(a+)+$' backtracks catastrophically")
    assert app.state.recording is None and app.state.training.phase != "training" and port.errors == []


def test_a_long_pattern_is_shown_by_its_start_and_length_in_a_status_line():
    """Issue 26 item 5: loading a model showed its whole 600-character regex in the status line."""
    from subwordlab_web.pattern_guard import SHOWN_PATTERN_CHARS, Check, checking_text, unavailable_message

    pattern = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*" * 6
    check = Check(None, None, "x" * 100, "the Inspect text", (pattern,))
    for said in (checking_text(check), unavailable_message(check, "no worker")):
        assert pattern not in said and pattern[:SHOWN_PATTERN_CHARS] in said and f"({len(pattern):,} characters)" in said
        assert len(said) < 400  # (was 900 with the whole pattern)
    short = Check(None, None, "x", "the corpus", (r"\w+",))
    assert r"'\w+'" in checking_text(short)


# --- one worker: the checks are requests of the compute session --------------------------------
def test_the_compute_session_answers_a_check_and_keeps_the_corpus_it_holds():
    from subwordlab_web.session import ComputeSession

    session = ComputeSession()
    first = list(session.replies({"op": "train", "preset": "bpe", "kwargs": {"num_merges": 2}, "format": "word_counts"},
                                 "low 5\nlower 2"))
    check = pattern_guard.pipeline_check(None, {"type": "ByteLevel", "pattern": r"\w+|\s+", "add_prefix_space": False},
                                         "hi there", "the corpus")
    (reply,) = session.replies(json.loads(check.request()))  # (the page sends no corpus with a check)
    assert json.loads(check.request())["op"] == "check_patterns"
    assert reply["ok"] and reply["pieces"] == 3 and "refused" not in reply
    refused = pattern_guard.pipeline_check(None, {"type": "ByteLevel", "pattern": "a*|b*", "add_prefix_space": False},
                                           "ab", "the corpus")
    (reply,) = session.replies(json.loads(refused.request()))
    assert "matches an empty string" in reply["refused"]
    # the next training without a corpus still has the one it was sent before the checks
    again = list(session.replies({"op": "train", "preset": "bpe", "kwargs": {"num_merges": 2}, "format": "word_counts"}))
    assert again[-1]["tokenizer"] == first[-1]["tokenizer"]


def test_a_check_is_sent_with_its_budget_and_a_late_one_terminates_the_worker():
    port, app = started()
    set_pattern(port, r"a+|[^a]+")  # passes: checked, then trained
    assert [r["op"] for r in port.compute_requests] == ["check_patterns", "train"]
    assert port.compute_budgets == [pattern_guard.budget_seconds(len(CORPUS)), None]  # the training has none
    assert port.compute_terminated == 0
    port.compute_hangs = hangs_on(CATASTROPHIC)
    clock = port.clock
    set_pattern(port, CATASTROPHIC)
    assert port.compute_terminated == 1 and port.compute_session is None  # terminated, as Cancel does
    assert port.clock - clock >= pattern_guard.budget_seconds(len(CORPUS))  # after the whole budget
    assert "backtracks catastrophically on the corpus" in port.text(port.query("#train-form-error"))
    # a fresh worker answers the next task
    set_pattern(port, r"[a-z]+|[^a-z]+")
    assert app.state.spec.options == {"pattern": r"[a-z]+|[^a-z]+"} and app.state.recording.done
    assert [r["op"] for r in port.compute_requests][-2:] == ["check_patterns", "train"]


def test_a_custom_pattern_never_runs_on_the_page_even_on_a_tiny_corpus():
    """A tiny corpus trains on the page (session.in_page) with a built-in pattern; with a
    pattern of the user's own, checked or not, it trains in the worker, and the page's
    in-page path refuses such a request outright."""
    from subwordlab_web import session

    port, app = started()  # CORPUS is tiny: trained on the page, no worker asked
    assert port.compute_requests == [] and len(CORPUS) <= session.IN_PAGE_CHARS
    set_pattern(port, r"a+|[^a]+")
    train = port.compute_requests[-1]
    assert train["op"] == "train" and train["kwargs"]["pattern"] == r"a+|[^a]+" and app.state.recording.done
    request = json.dumps(train)
    assert not session.in_page(CORPUS, request) and session.in_page(CORPUS)
    try:
        session.answer_in_page(request, CORPUS, lambda reply: None)
    except ValueError as exc:
        assert "runs in the compute worker" in str(exc)
    else:
        raise AssertionError("answer_in_page ran a custom pattern on the page")
    built_in = json.dumps({**train, "kwargs": {**train["kwargs"], "pattern": "cl100k"}})
    assert session.in_page(CORPUS, built_in)


def _training_in_the_worker():
    """A page whose corpus trains in the worker (over IN_PAGE_CHARS), caught mid-run."""
    words = " ".join(f"w{(i * 7919) % 1000:03d}x{(i * 104729) % 97}" for i in range(2000))
    port = FakePort.from_html(INDEX_HTML)
    app = App(port, warm=False)
    app.start(sample=None)
    app.state.set_corpus(Corpus(words))
    app.state.set_spec(TrainSpec("byte_bpe", "num_merges", 600))
    for _ in range(400):
        port.drive()
        rec = app.state.recording
        if port.computing and rec is not None and len(rec.steps) > 0:
            break
    rec = app.state.recording
    assert port.computing and rec is not None and not rec.done and len(rec.steps) > 0, "caught mid-run"
    return port, app, rec


def test_a_new_pattern_during_a_run_in_the_worker_stops_the_run_and_is_checked_first():
    """One worker, one task at a time: the check would wait for the old settings' run to end,
    which the new settings replace anyway; so that run stops (the worker is terminated), the
    check takes the fresh worker, then the new settings train. No deadlock, no wait."""
    port, app, rec = _training_in_the_worker()
    port.input(port.query("#opt-pattern"), r"\w+|\s+", "change")
    assert app.state.recording is None and app.state.training.phase == "checking"
    port.settle()
    assert port.compute_terminated == 1  # the old run's worker
    assert [r["op"] for r in port.compute_requests] == ["train", "check_patterns", "train"]
    assert app.state.spec.options == {"pattern": r"\w+|\s+"}
    assert app.state.recording is not None and app.state.recording.done and app.state.recording is not rec
    assert app.state.training.phase == "done" and port.errors == []


def test_a_refused_pattern_during_a_run_leaves_the_old_settings_which_train_again():
    port, app, rec = _training_in_the_worker()
    spec = app.state.spec
    port.compute_hangs = hangs_on(CATASTROPHIC)
    port.input(port.query("#opt-pattern"), CATASTROPHIC, "change")
    port.settle()
    assert port.compute_terminated == 2  # the old run's worker, then the late check's
    assert "backtracks catastrophically on the corpus" in port.text(port.query("#train-form-error"))
    assert app.state.spec == spec  # the settings are kept, and their run starts again
    assert [r["op"] for r in port.compute_requests] == ["train", "check_patterns", "train"]
    assert "pattern" not in port.compute_requests[-1]["kwargs"]
    assert app.state.recording is not None and app.state.recording.done and port.errors == []


def test_a_check_asked_while_another_task_holds_the_worker_waits_its_turn():
    """Inspect's check of an imported model's Split regex while Compare trains in the worker:
    it runs once that task's turn ends, never alongside it, and both finish."""
    port, app, rec = _training_in_the_worker()
    tok = subwordlab.from_hf_json(split_tokenizer_json(r"\w+|\s+"))
    check = pattern_guard.tokenizer_check(tok, "a text to inspect", "the Inspect text")
    said: list = []

    async def ask():
        said.append(await app.guard.verdict(check))

    port.spawn(ask())
    for _ in range(5):
        port.drive()
    assert port.pattern_checks == [] and said == []  # waiting for the training's turn
    port.settle()
    assert said == [None] and rec.done and [r["op"] for r in port.compute_requests] == ["train", "check_patterns"]


def test_the_parity_texts_go_in_one_request_and_a_late_one_does_not_stop_the_rest():
    """Compare's parity texts are checked in one request of the worker (a reply each, each
    within its own budget), not one request a text; the text that hangs (Korean, 5th) is
    refused, the worker terminated, and the texts after it (Russian) asked again and counted."""
    port, _app, _cmp = compare_run_beside_a_hanging_parity_text()
    parity = [r for r in port.compute_requests if r.get("op") == "check_patterns" and "born free" in json.dumps(r)]
    # one request for the six texts; after Korean's timeout, one for the text after it
    assert [len(r.get("checks", [r])) for r in parity] == [6, 1], parity
    assert "udhr_rus" in parity[1]["text"]
    rows = {r.attrs.get("data-lang"): [td.attrs["data-tokens"] for td in port.query_all("td", r)]
            for r in port.query_all("#cmp-parity-table tr")[1:]}
    assert rows["udhr_kor"][1] == "" and rows["udhr_rus"][1] != "" and rows["udhr_eng"][1] != ""
    assert port.compute_terminated == 1


def test_the_first_refusal_asks_no_further_once_a_check_is_late():
    """A hostile link whose texts all hang: the first late check is the answer; the texts after
    it are not sent to a fresh worker, a boot and a budget each (``verdicts`` would, to give
    every text its verdict)."""
    port, _app = started()
    port.compute_hangs = hangs_on(CATASTROPHIC)
    pre = {"type": "ByteLevel", "pattern": CATASTROPHIC, "add_prefix_space": False}
    checks = [pattern_guard.pipeline_check(None, pre, text, where)
              for text, where in ((RUN, "the corpus"), (RUN + "!", "the Inspect text"), (RUN + "?", "the Compare text"))]
    guard, said = PatternGuard(port), []

    async def ask():
        said.append(await guard.first_refusal(checks))

    asked = len(port.pattern_checks)
    port.spawn(ask())
    port.settle()
    assert "backtracks catastrophically on the corpus" in said[0]
    assert len(port.pattern_checks) - asked == 3 and port.compute_terminated == 1  # one request of three, one termination
    assert guard.known(checks[0]) and not guard.known(checks[1]) and not guard.known(checks[2])
