"""The page's pure logic: the shared state, the training player, training through the compute session."""

from __future__ import annotations

import json

import pytest
from fakedom import FakePort
from hypothesis import given
from hypothesis import strategies as st

import subwordlab
from corpora import read
from subwordlab.formats.our_json import to_json
from subwordlab.recording import Recording
from subwordlab_web import session, tasks
from subwordlab_web.player import Player
from subwordlab_web.state import AppState, Corpus, TrainSpec

SEED0 = "low 5\nlower 2\nnewest 6\nwidest 3"


def _record_here(state):
    """Start the state's run, recorded here by the core's own trainer (what the compute
    session does in its worker) instead of mirrored; returns the recording."""
    state.start_recording()
    state.recording = Recording(state.corpus.training_input(), state.spec.preset, progress=True, **state.spec.kwargs())
    return state.recording


# --- the player -------------------------------------------------------------------------
def test_step_back_seek_reset_stay_within_what_is_recorded():
    p = Player()
    assert not p.step() and p.position == 0  # nothing recorded yet
    p.set_recorded(3, final=False)
    assert p.step() and p.step() and p.step() and not p.step()
    assert p.position == 3 and not p.at_end  # the run is still going
    p.set_recorded(5, final=True)
    assert p.seek(99) and p.position == 5 and p.at_end
    assert p.back() and p.position == 4
    assert p.seek(-3) and p.position == 0 and not p.back()
    p.seek(4)
    assert p.reset() and p.position == 0 and not p.reset()


def test_play_moves_by_speed_and_carries_fractions():
    p = Player(speed=4)
    p.set_recorded(10, final=True)
    p.play()
    assert p.advance_time(0.3) == 1  # 1.2 steps: one now, 0.2 carried
    assert p.advance_time(0.2) == 1  # 0.2 + 0.8
    assert p.position == 2 and p.playing
    p.pause()
    assert p.advance_time(5) == 0 and p.position == 2


def test_play_stops_at_the_end_of_a_finished_run_and_restarts_from_zero():
    p = Player(speed=100)
    p.set_recorded(8, final=True)
    p.play()
    assert p.advance_time(1.0) == 8 and p.position == 8 and not p.playing and p.at_end
    p.play()
    assert p.position == 0 and p.playing


def test_play_waits_at_the_newest_step_of_a_running_run():
    p = Player(speed=10)
    p.set_recorded(2, final=False)
    p.play()
    assert p.advance_time(1.0) == 2 and p.playing  # waiting for more
    p.set_recorded(4, final=False)
    assert p.advance_time(0.1) == 1 and p.position == 3


def test_to_end_follows_a_running_run_until_it_ends():
    p = Player()
    p.set_recorded(2, final=False)
    p.to_end()
    assert p.following and p.position == 2
    assert p.set_recorded(50, final=False) and p.position == 50
    p.set_recorded(80, final=True)
    assert p.position == 80 and not p.following
    p.back()
    p.set_recorded(80, final=True)
    assert p.position == 79  # stepping back stops following


def test_speed_must_be_positive_and_interval_is_capped():
    with pytest.raises(ValueError, match="positive"):
        Player(speed=0)
    p = Player(speed=0.5)
    assert p.interval == 2.0
    p.set_speed(500)
    assert p.interval == pytest.approx(1 / 30)


@given(st.lists(st.sampled_from(["step", "back", "reset", "end", "seek", "play", "tick", "grow"]), max_size=60),
       st.integers(0, 40))
def test_the_position_never_leaves_the_recorded_range(actions, seek_to):
    p = Player(speed=7)
    recorded = 0
    for action in actions:
        if action == "grow":
            recorded += 3
            p.set_recorded(recorded, final=recorded >= 12)
        elif action == "seek":
            p.seek(seek_to)
        elif action == "tick":
            p.advance_time(0.5)
        else:
            {"step": p.step, "back": p.back, "reset": p.reset, "end": p.to_end, "play": p.play}[action]()
        assert 0 <= p.position <= p.recorded == recorded


# --- the state --------------------------------------------------------------------------
def test_corpus_training_input_and_empty_corpus_message():
    assert Corpus(SEED0, "word_counts").training_input() == {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    assert Corpus("a b").training_input() == "a b"
    with pytest.raises(subwordlab.CorpusError, match="the corpus is empty"):
        Corpus("  \n").training_input()
    with pytest.raises(subwordlab.CorpusError, match="line 2"):
        Corpus("low 5\nlower", "word_counts").training_input()
    with pytest.raises(ValueError, match="format"):
        Corpus("x", "csv")


def test_train_spec_checks_and_describes():
    assert TrainSpec("byte_bpe", "vocab_size", 4000).describe() == "Byte-level BPE · vocabulary 4,000"
    with pytest.raises(ValueError, match="unknown algorithm"):
        TrainSpec("bpe2")
    with pytest.raises(ValueError, match="Unigram learns no merges"):
        TrainSpec("unigram", "num_merges", 10)
    spec = TrainSpec("bpe", "num_merges", 8, {"end_of_word": "_", "lowercase": True})
    uni = spec.with_preset("unigram")
    assert (uni.target, uni.size, dict(uni.options)) == ("vocab_size", 100, {"lowercase": True})
    assert spec.with_preset("byte_bpe").options == {}


def test_changes_notify_and_discard_the_run():
    state = AppState(Corpus(SEED0, "word_counts"), TrainSpec("bpe", "num_merges", 8))
    seen = []
    state.subscribe(seen.append)
    _record_here(state).run()
    state.player.set_recorded(8, True)
    state.seek(3)
    assert state.step == 3 and seen == ["recording", "step"]
    state.set_spec(TrainSpec("bpe", "num_merges", 8))  # the same spec: nothing happens
    assert seen == ["recording", "step"]
    state.set_spec(TrainSpec("bpe", "num_merges", 5))
    assert state.recording is None and state.step == 0 and seen[-2:] == ["spec", "recording"]


def test_tokenizer_at_step_explains_when_there_is_none():
    state = AppState(Corpus(SEED0, "word_counts"), TrainSpec("bpe", "num_merges", 8))
    tok, why = state.tokenizer_at_step()
    assert tok is None and "Train a tokenizer first" in why
    rec = _record_here(state)
    rec.advance(2)
    tok, why = state.tokenizer_at_step()
    assert tok is None and "Training is running" in why
    rec.run()
    state.player.set_recorded(len(rec.steps), True)
    state.seek(3)
    tok, why = state.tokenizer_at_step()
    assert why == "" and tok.tokenize("newest") == ["n", "e", "w", "est</w>"]


# --- training through the compute session -------------------------------------------------
def test_train_task_records_the_whole_run_in_batches_and_reports_speed():
    port = FakePort()
    state = AppState(Corpus(read("taylorswift.txt")[:20_000]), TrainSpec("bpe", "num_merges", 120))
    notes = []
    state.subscribe(notes.append)
    state.start_recording()
    task = port.spawn(tasks.train(port, state))
    port.drive(3)
    assert not task.done() and state.training.running  # the first batch, then back to the browser
    port.settle()
    assert state.recording.done and state.training.phase == "done"
    assert state.player.recorded == len(state.steps) == 120 and state.player.final
    assert notes.count("progress") >= 1 and state.training.slices >= 2
    assert tasks.progress_view(state.recording, state.spec).fraction == 1.0
    assert port.compute_requests == [{"op": "train", "preset": "bpe", "kwargs": {"num_merges": 120}, "format": "text"}]


@pytest.mark.parametrize("preset, size", [("bpe", 60), ("byte_bpe", 330), ("wordpiece", 150), ("unigram", 120),
                                          ("sentencepiece_unigram", 150), ("sentencepiece_bpe", 120)])
def test_a_mirrored_run_is_the_run_event_for_event_and_byte_for_byte(preset, size):
    """What crosses the session's boundary is plain data; the page's mirror of the run has
    the very events of a run recorded in-process, and the same tokenizer at every step."""
    text = read("tinyshakespeare.txt")[:15_000]
    spec = TrainSpec(preset, "vocab_size", size)
    port = FakePort()
    state = AppState(Corpus(text), spec)
    state.start_recording()
    port.spawn(tasks.train(port, state))
    port.settle()
    mirrored = state.recording
    here = Recording(text, preset, **spec.kwargs()).run()
    assert mirrored.done and mirrored.steps == here.steps and mirrored.alphabet == here.alphabet
    assert to_json(mirrored.tokenizer) == to_json(here.tokenizer)
    for step in {0, 1, len(here.steps) // 2, len(here.steps)}:
        sample = text[-400:]
        assert mirrored.tokenizer_at(step).encode(sample) == here.tokenizer_at(step).encode(sample), step


def test_the_session_posts_a_batch_at_most_every_post_seconds_and_the_first_news_at_once():
    ticks = iter(range(10**9))
    clock = lambda: next(ticks) * 0.001  # each look at the clock: 1 ms later
    replies = list(session.ComputeSession(clock).replies(
        {"op": "train", "preset": "byte_bpe", "kwargs": {"vocab_size": 900}, "format": "text"},
        read("tinyshakespeare.txt")[:30_000]))
    assert "alphabet" in replies[0] and "tokenizer" in replies[-1] and replies[-1]["done"] == 900 - 256
    first_step = next(i for i, r in enumerate(replies) if r["steps"])
    assert len(replies[first_step]["steps"]) == 1  # the first merge is shown as soon as it exists
    # then one batch per POST_SECONDS of work (1 ms per event here): ~100 events each
    middle = [len(r["steps"]) for r in replies[first_step + 1:-1]]
    assert middle and all(80 <= n <= round(session.POST_SECONDS / 0.001) + 1 for n in middle[:-1]), middle
    assert sum(len(r["steps"]) for r in replies) == 900 - 256


def test_a_batch_holds_at_most_post_steps_steps_however_fast_they_come():
    """The page reads a batch in one browser task: when merges come faster than POST_STEPS
    per POST_SECONDS (the end of a BPE run), batches are cut by their number of steps."""
    clock = lambda: 0.0  # (no time passes: only the step count cuts a batch)
    replies = list(session.ComputeSession(clock).replies(
        {"op": "train", "preset": "byte_bpe", "kwargs": {"vocab_size": 1500}, "format": "text"},
        read("tinyshakespeare.txt")[:60_000]))
    sizes = [len(r["steps"]) for r in replies]
    assert max(sizes) == session.POST_STEPS and sum(sizes) == 1500 - 256, sizes
    assert sizes.count(session.POST_STEPS) == (1500 - 256 - 1) // session.POST_STEPS  # (the first merge alone)


def test_the_session_keeps_the_corpus_it_was_sent_and_says_what_it_cannot_do():
    s = session.ComputeSession()
    request = {"op": "train", "preset": "bpe", "kwargs": {"num_merges": 3}, "format": "word_counts"}
    assert list(s.replies(request, None)) == [{"error": "the page sent no corpus to train on: train again"}]
    first = list(s.replies(request, SEED0))[-1]["tokenizer"]
    assert list(s.replies(request, None))[-1]["tokenizer"] == first  # the same corpus, not sent again
    assert list(s.replies({"op": "dance"}, None)) == [{"error": "the compute session has no request 'dance'"}]
    # a core error is one message for the user
    (reply,) = list(s.replies({**request, "kwargs": {"vocab_size": 2}}, None))
    assert "smaller than the starting vocabulary" in reply["error"]


def test_the_worker_s_entry_point_reads_the_corpus_as_the_utf8_bytes_the_page_sends(monkeypatch):
    """The page posts a big corpus as UTF-8 bytes (a string of many scripts crosses into
    JavaScript 100x slower); `serve` decodes them to the very text, a lone surrogate included."""
    text = "low lower newest, ünïcödé 你好 🙂 " * 30
    request = json.dumps({"op": "train", "preset": "bpe", "kwargs": {"num_merges": 12}, "format": "text"})
    replies = {}
    for name, corpus in (("str", text), ("bytes", text.encode("utf-8", "surrogatepass")),
                         ("Uint8Array", type("Uint8Array", (), {"to_bytes": lambda self: text.encode("utf-8", "surrogatepass")})())):
        monkeypatch.setattr(session, "_session", None)
        posted = []
        session.serve(request, corpus, posted.append)
        replies[name] = json.loads(posted[-1])["tokenizer"]
    assert replies["str"] == replies["bytes"] == replies["Uint8Array"] and "\"ü\"" in replies["str"]
    # the very text, a lone surrogate (a JavaScript string can hold one) included
    session.serve(request, (text + "\ud800").encode("utf-8", "surrogatepass"), [].append)
    assert session._session._corpus == text + "\ud800"


def test_a_costly_repaint_comes_less_often():
    assert tasks.repaint_interval(0.001) == tasks.NOTIFY_SECONDS
    assert tasks.repaint_interval(0.05) == pytest.approx(0.05 / tasks.REPAINT_SHARE)
    port = FakePort()
    state = AppState(Corpus(read("tinyshakespeare.txt")[:40_000]), TrainSpec("byte_bpe", "vocab_size", 2000))
    repaints = []

    def slow_view(topic):
        if topic == "progress":
            repaints.append(port.clock)
            port.clock += 0.04  # 40 ms to repaint: the next one waits 0.8 s of the run
    state.subscribe(slow_view)
    state.start_recording()
    port.spawn(tasks.train(port, state))
    port.settle()
    gaps = [b - a for a, b in zip(repaints, repaints[1:])]
    assert len(gaps) >= 2 and all(g >= 0.04 / tasks.REPAINT_SHARE for g in gaps[1:-1])  # (the first steps and the end come at once)
    assert state.training.repaint_seconds == pytest.approx(0.04 * len(repaints), abs=0.002 * len(repaints))  # (+ a tick per look)


def test_a_worker_that_dies_ends_the_run_with_one_message_and_the_next_run_works():
    port = FakePort()
    state = AppState(Corpus(read("taylorswift.txt")[:5_000]), TrainSpec("bpe", "num_merges", 8))
    port.compute_crash = lambda request: True
    state.start_recording()
    port.spawn(tasks.train(port, state))
    port.settle()
    assert port.errors == [] and state.recording is None and state.training.phase == "failed"
    assert "out of memory" in state.training.message and "kept" in state.training.message
    port.compute_crash = lambda request: False
    state.start_recording()
    port.spawn(tasks.train(port, state))
    port.settle()
    assert state.training.phase == "done" and len(state.steps) == 8


def test_a_tiny_corpus_trains_on_the_page_and_a_bigger_one_in_the_worker():
    # the textbook examples need no worker (session.in_page): nobody waits for its boot
    port = FakePort()
    state = AppState(Corpus(SEED0, "word_counts"), TrainSpec("bpe", "num_merges", 8))
    state.start_recording()
    port.spawn(tasks.train(port, state))
    port.settle()
    assert state.training.phase == "done" and len(state.steps) == 8 and port.compute_requests == []
    # just over the limit: the worker trains it, to the same kind of recording
    big = Corpus(SEED0 + "\nx" + "y" * (session.IN_PAGE_CHARS - len(SEED0)) + " 1", "word_counts")
    assert not session.in_page(big.text)
    state.set_corpus(big)
    state.start_recording()
    port.spawn(tasks.train(port, state))
    port.settle()
    assert state.training.phase == "done" and [r["op"] for r in port.compute_requests] == ["train"]


def test_cancelling_the_task_discards_the_run_with_a_message():
    port = FakePort()
    state = AppState(Corpus(read("taylorswift.txt")[:50_000]), TrainSpec("byte_bpe", "vocab_size", 600))
    state.start_recording()
    task = port.spawn(tasks.train(port, state))
    port.drive(2)
    task.cancel()
    port.settle()
    assert port.compute_terminated == 1  # cancel terminates the worker: whatever it computed stops
    assert task.cancelled and state.recording is None
    assert state.training.phase == "cancelled" and "Training cancelled after" in state.training.message


def test_a_core_error_during_training_is_reported_not_raised():
    port = FakePort()
    state = AppState(Corpus("low 5", "word_counts"), TrainSpec("bpe", "vocab_size", 2))
    state.start_recording()
    port.spawn(tasks.train(port, state))
    port.settle()
    assert port.errors == [] and state.training.phase == "failed"
    assert "smaller than the starting vocabulary" in state.training.message


def test_progress_view_while_preparing_and_merging():
    state = AppState(Corpus("word " * 60_000), TrainSpec("bpe", "num_merges", 3))
    state.start_recording()
    assert tasks.progress_view(state.recording, state.spec) == tasks.ProgressView(None, "Preparing…")
    rec = _record_here(state)
    assert tasks.progress_view(rec, state.spec) == tasks.ProgressView(None, "Preparing…")
    rec.advance(1)  # (the first hand-back comes as the corpus's provenance is hashed: 0% counted)
    view = tasks.progress_view(rec, state.spec)
    assert rec.progress.phase == "count" and 0 <= view.fraction < 1 and view.label.startswith("Counting")
    while rec.progress.done == 0:
        rec.advance(1)
    view = tasks.progress_view(rec, state.spec)
    assert rec.progress.phase == "count" and 0 < view.fraction < 1 and view.label.startswith("Counting")
    while rec.alphabet is None:
        rec.advance(1)
    rec.advance(1)
    assert tasks.progress_view(rec, state.spec).label == "Merge 1 of up to 3"
    assert tasks.expected_steps(rec, TrainSpec("bpe", "vocab_size", 10)) == 10 - rec.alphabet.vocab_size


def test_progress_view_for_unigram_follows_the_shrinking_vocabulary():
    state = AppState(Corpus("lowest newer wider low new wide " * 50), TrainSpec("unigram", "vocab_size", 30))
    rec = _record_here(state)
    labels = []
    while not rec.done:
        rec.advance(1)
        if rec.alphabet is not None and not rec.done:
            view = tasks.progress_view(rec, state.spec)
            labels.append(view.label)
            assert view.fraction is None or 0 <= view.fraction <= 1
    assert any(label.startswith("Vocabulary") and "→ 30" in label for label in labels)


@pytest.mark.parametrize("preset", ["byte_bpe", "wordpiece", "unigram", "sentencepiece_unigram", "sentencepiece_bpe"])
def test_progress_never_runs_backwards_under_one_label(preset):
    """Issue 29: Unigram's seed phase restarted 0→100 % several times under one label (its
    slices each counted from 0). Now a phase reports once as it starts (counting once per
    chunk of the corpus), and a pass of a phase that starts over has its own label."""
    state = AppState(Corpus(read("tinyshakespeare.txt")[:20_000]), TrainSpec(preset, "vocab_size", 400))
    rec = _record_here(state)
    shown: dict[str, float] = {}
    while not rec.done:
        rec.advance(1)
        view = tasks.progress_view(rec, state.spec)
        if view.fraction is None:
            continue
        label = view.label.rsplit(" ", 1)[0] if view.label[-1] == "%" else view.label
        if rec.alphabet is None or rec.done:
            assert view.fraction >= shown.get(label, 0.0) - 1e-12, (label, shown[label], view.fraction)
        else:  # while stepping: the bar follows the steps, the label's percentage its phase
            pct = view.label.rsplit(" ", 1)[-1]
            if pct.endswith("%"):
                assert float(pct[:-1]) >= shown.get(label, 0.0), (view.label, shown[label])
                shown[label] = float(pct[:-1])
            continue
        shown[label] = view.fraction
