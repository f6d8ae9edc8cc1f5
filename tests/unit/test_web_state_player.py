"""The page's pure logic: the shared state, the training player, the cooperative trainer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import subwordlab
from subwordlab_web import tasks
from fakedom import FakePort
from subwordlab_web.player import Player
from subwordlab_web.state import AppState, Corpus, TrainSpec

from corpora import read

SEED0 = "low 5\nlower 2\nnewest 6\nwidest 3"


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
    state.start_recording().run()
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
    rec = state.start_recording()
    rec.advance(2)
    tok, why = state.tokenizer_at_step()
    assert tok is None and "Training is running" in why
    rec.run()
    state.player.set_recorded(len(rec.steps), True)
    state.seek(3)
    tok, why = state.tokenizer_at_step()
    assert why == "" and tok.tokenize("newest") == ["n", "e", "w", "est</w>"]


# --- the cooperative trainer --------------------------------------------------------------
def test_train_task_records_the_whole_run_in_slices_and_reports_speed():
    port = FakePort()
    state = AppState(Corpus(read("taylorswift.txt")[:20_000]), TrainSpec("bpe", "num_merges", 120))
    notes = []
    state.subscribe(notes.append)
    state.start_recording()
    task = port.spawn(tasks.train(port, state))
    port.drive()
    assert not task.done() and state.training.running  # one slice, then back to the browser
    port.settle()
    assert state.recording.done and state.training.phase == "done"
    assert state.player.recorded == len(state.steps) and state.player.final
    assert notes.count("progress") >= 1
    assert tasks.progress_view(state.recording, state.spec).fraction == 1.0


class _TimedRun:
    """A recording whose events take `costs[i]` seconds of the fake clock each."""

    def __init__(self, port, costs):
        self.port, self.costs, self.steps, self.alphabet, self.progress = port, list(costs), [], None, None

    @property
    def done(self):
        return len(self.steps) == len(self.costs)

    def advance(self, n):
        for _ in range(n):
            self.port.clock += self.costs[len(self.steps)]
            self.steps.append(len(self.steps))


def _slices_of(port, state, run):
    """The events of each slice of tasks.train over `run` (a slice ends at a hand-back)."""
    state.recording = run
    task = port.spawn(tasks.train(port, state, run))
    slices = []
    while not task.done():
        before = len(run.steps)
        port.drive()
        slices.append(len(run.steps) - before)
    return [n for n in slices if n]


def test_a_slice_ends_before_its_next_event_would_pass_the_slice_time(monkeypatch):
    monkeypatch.setattr(tasks, "SLICE_SECONDS", 0.03)
    port = FakePort()
    port.work_tick = 0.0  # only the events take time
    state = AppState(Corpus("low 5", "word_counts"), TrainSpec("bpe", "num_merges", 3))
    # 12 ms events: two fit in 30 ms, a third would end at 36 ms
    assert _slices_of(port, state, _TimedRun(port, [0.012] * 10)) == [2, 2, 2, 2, 2]
    # 1 ms events, then a 20 ms one: the slice after it expects another long event
    port = FakePort()
    port.work_tick = 0.0
    state = AppState(Corpus("low 5", "word_counts"), TrainSpec("bpe", "num_merges", 3))
    run = _TimedRun(port, [0.001] * 35 + [0.02] + [0.001] * 40)
    slices = _slices_of(port, state, run)
    assert slices[0] == 29 and sum(slices) == 76  # the 30th would end at the limit
    assert state.training.work_seconds == pytest.approx(0.035 + 0.02 + 0.04)
    assert state.training.slices >= len(slices) - 1  # the hand-backs (periodic repaints have their own too)
    # every slice's work stays within the slice time (the one long event aside)
    t = 0
    for n in slices:
        cost = sum(run.costs[t:t + n])
        assert cost <= tasks.SLICE_SECONDS + 1e-9 or n == 1, (n, cost)
        t += n


def test_a_run_goes_through_the_timer_queue_every_breathe_seconds_without_waiting():
    port = FakePort()
    port.work_tick = 0.0  # only the events take time
    state = AppState(Corpus("low 5", "word_counts"), TrainSpec("bpe", "num_merges", 3))
    run = _TimedRun(port, [0.01] * 100)  # 1 s of work in 10 ms events
    _slices_of(port, state, run)
    # a breath once BREATHE_SECONDS have passed, at the end of a slice (so at most a slice
    # later), each counted in the status
    assert state.training.breaths == port.breaths
    assert 1.0 / (tasks.BREATHE_SECONDS + tasks.SLICE_SECONDS) - 1 <= port.breaths <= 1.0 / tasks.BREATHE_SECONDS
    # a breath adds no wait: the clock moved only by the work (zero sleeps add nothing either)
    assert port.clock == pytest.approx(1.0)


def test_a_costly_repaint_comes_less_often():
    assert tasks.repaint_interval(0.001) == tasks.NOTIFY_SECONDS
    assert tasks.repaint_interval(0.05) == pytest.approx(0.05 / tasks.REPAINT_SHARE)
    port = FakePort()
    port.work_tick = 0.0
    state = AppState(Corpus("low 5", "word_counts"), TrainSpec("bpe", "num_merges", 3))
    repaints = []

    def slow_view(topic):
        if topic == "progress":
            repaints.append(port.clock)
            port.clock += 0.04  # 40 ms to repaint: the next one waits 0.8 s of the run
    state.subscribe(slow_view)
    _slices_of(port, state, _TimedRun(port, [0.01] * 400))  # a 4 s run
    gaps = [b - a for a, b in zip(repaints, repaints[1:])]
    assert gaps and all(g >= 0.04 / tasks.REPAINT_SHARE for g in gaps[:-1])  # the last is the final one
    assert state.training.repaint_seconds == pytest.approx(0.04 * len(repaints))


def test_cancelling_the_task_discards_the_run_with_a_message():
    port = FakePort()
    state = AppState(Corpus(read("taylorswift.txt")[:50_000]), TrainSpec("byte_bpe", "vocab_size", 600))
    state.start_recording()
    task = port.spawn(tasks.train(port, state))
    port.drive(2)
    task.cancel()
    port.settle()
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
    rec = state.start_recording()
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
    rec = state.start_recording()
    labels = []
    while not rec.done:
        rec.advance(1)
        if rec.alphabet is not None and not rec.done:
            view = tasks.progress_view(rec, state.spec)
            labels.append(view.label)
            assert view.fraction is None or 0 <= view.fraction <= 1
    assert any(label.startswith("Vocabulary") and "→ 30" in label for label in labels)


@pytest.mark.parametrize("preset", ["byte_bpe", "wordpiece", "unigram", "sentencepiece_unigram", "sentencepiece_bpe"])
def test_progress_never_runs_backwards_under_one_label(preset, monkeypatch):
    """Issue 29: Unigram's seed phase restarted 0→100 % several times under one label (its
    slices each counted from 0). Each pass now has its own label; every slice hands back
    (a zero-second budget), so every restart the trainer can make is seen."""
    from subwordlab import events

    monkeypatch.setattr(events.sliced, "__defaults__", (0.0, *events.sliced.__defaults__[1:]))
    state = AppState(Corpus(read("tinyshakespeare.txt")[:20_000]), TrainSpec(preset, "vocab_size", 400))
    rec = state.start_recording()
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
