"""Long work as tasks: training in the compute session, the rest in slices.

`train(port, state)` has the compute session (session.py; a Web Worker in the browser)
train the state's spec and mirrors the run in `state.recording` as its batches of events
arrive, updating `state.training` and the player, and notifying "progress" at most every
`NOTIFY_SECONDS` so the page repaints without re-rendering every step. Cancelling the task
terminates the worker and discards the run.

`progress_view(recording, spec)` says what to show in the progress bar (pure).
`drive(port, steps)` runs a progress generator (stats, encodes, file loads) on the page, a few
milliseconds at a time.
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import dataclass
from typing import Any

from subwordlab.base.events import PHASES, Done, EmStep, PruneStep
from subwordlab.recording import Recording

from . import model_sources, session
from .failures import failure_message
from .state import AppState, TrainingStatus, TrainSpec
from .wording import plural

# A repaint costs ~5 ms of Python plus 15-25 ms of layout, paint and compositing after it
# (a Chromium trace of the Shakespeare byte-BPE run), so a running task repaints at most every
# NOTIFY_SECONDS, and less often if it is costly: its measured cost (Python and the browser's
# rendering after it) stays under REPAINT_SHARE of the run. Work on the page itself (`drive`)
# hands the browser back after SLICE_SECONDS, well under the 50 ms of a long task.
SLICE_SECONDS = 0.025  # work between two yields to the browser (drive)
NOTIFY_SECONDS = 0.25  # how often a running task asks the views to repaint, at most
REPAINT_SHARE = 0.05  # the share of a run's time its repaints may take


def repaint_interval(cost: float) -> float:
    """Seconds from one repaint to the next, given what the last one cost (seconds).

    >>> repaint_interval(0.005), repaint_interval(0.03)
    (0.25, 0.6)
    """
    return max(NOTIFY_SECONDS, round(cost / REPAINT_SHARE, 6))




def phase_label(rec: Any) -> str:
    """The running phase in words, with its pass when it started over since the last step
    (a label whose percentage never goes back).

    Example: the seed's third pass -> 'Finding frequent substrings (the seed vocabulary), pass 3'.
    """
    p = rec.progress
    label = PHASES.get(p.phase, p.phase)
    return label if rec.progress_pass == 1 else f"{label}, pass {rec.progress_pass}"


@dataclass(frozen=True)
class ProgressView:
    fraction: float | None  # 0..1, None if unknown
    label: str


def expected_steps(rec: Any, spec: TrainSpec) -> int | None:
    """How many merges the run will make at most (None for Unigram, whose rounds depend
    on how fast the vocabulary shrinks). Example: vocab 4000 from 256 bytes -> 3744."""
    if spec.is_unigram:
        return None
    if spec.target == "num_merges":
        return spec.size
    if rec.alphabet is None:
        return None
    return max(0, spec.size - rec.alphabet.vocab_size)


def progress_view(rec: Any, spec: TrainSpec) -> ProgressView:
    """The progress bar's fill and text for a running (or finished) recording."""
    if rec.done:
        return ProgressView(1.0, f"Done: {plural(len(rec.steps), 'step')}")
    if rec.alphabet is None:
        p = rec.progress
        if p is None:
            return ProgressView(None, "Preparing…")
        phase = phase_label(rec)
        if p.total:
            return ProgressView(p.done / p.total, f"{phase} · {p.done / p.total:.0%}")
        return ProgressView(None, f"{phase}…")
    total = expected_steps(rec, spec)
    n = len(rec.steps)
    if total:
        return ProgressView(min(1.0, n / total), f"Merge {n:,} of up to {total:,}")
    # Unigram: the vocabulary shrinks from the seed size towards the target
    start = rec.alphabet.vocab_size
    now = rec.steps[-1].vocab_size if rec.steps else start
    target = spec.size
    if start > target and now >= target:
        fraction = math.log(start / now) / math.log(start / target)
    else:
        fraction = None
    last = rec.steps[-1] if rec.steps else None
    # (each step names itself, so the phase's percentage after it starts from 0 under a new label)
    what = (f"EM round {last.round + 1}, iteration {last.iteration + 1}" if isinstance(last, EmStep) else
            f"pruned round {last.round + 1}" if isinstance(last, PruneStep) else "seeded")
    if rec.progress is not None and rec.progress.phase in ("em", "prune") and rec.progress.total:
        what += f" · {phase_label(rec)} {rec.progress.done / rec.progress.total:.0%}"
    return ProgressView(fraction, f"Vocabulary {now:,} → {target:,} · {what}")


async def drive(port: Any, steps: Any, slice_seconds: float = 0.0, between: Any = None,
                max_items: int | None = None) -> Any:
    """Run a progress generator (the core's ``(done, total)`` style) to its end, handing the
    browser back once each ``slice_seconds`` of work (0: after every item; ``max_items``
    also ends a slice, for a clock that does not move during work, such as the fake
    port's); returns the generator's value. ``between(item)`` runs before each hand-back;
    if it returns False the work is abandoned and None returned (e.g. a newer request
    superseded it, or the run was cancelled)."""
    last = port.now()
    n = 0
    while True:
        try:
            item = next(steps)
        except StopIteration as stop:
            return stop.value
        n += 1
        if port.now() - last >= slice_seconds or (max_items is not None and n >= max_items):
            if between is not None and between(item) is False:
                return None
            await port.sleep(0)
            last, n = port.now(), 0


def _repaint(port: Any, state: AppState) -> None:
    """The views show the run's progress; the time it takes is counted in the status."""
    t0 = port.now()
    status = state.training
    state.notify("progress")
    status.repaint_seconds += port.now() - t0


def train_request(state: AppState) -> tuple[str, str]:
    """The compute session's request (JSON) for training the state's spec, and the corpus text.

    >>> from .state import Corpus
    >>> train_request(AppState(Corpus("low 5", "word_counts")))
    ('{"op": "train", "preset": "bpe", "kwargs": {"num_merges": 8}, "format": "word_counts"}', 'low 5')
    """
    spec, corpus = state.spec, state.corpus
    request = {"op": "train", "preset": spec.preset, "kwargs": dict(spec.kwargs()), "format": corpus.format}
    return json.dumps(request), corpus.text


async def record_in_session(port: Any, rec: Any, request: str, corpus: str,
                            on_batch: Any = None, wanted: Any = None) -> Any:
    """Have the compute session (`port.compute`; on the page itself for a tiny corpus and a
    built-in pattern, `session.in_page`) train `request` (JSON) on `corpus`,
    mirroring its events into `rec` (a `Recording.mirror`); `on_batch(reply)` after each
    batch is mirrored. Returns the trained tokenizer (also recorded as `rec`'s Done), or None
    as soon as `wanted()` says the run was dropped. A failure in the session raises
    `session.TaskFailed` with the message for the user."""
    from .exports import import_steps

    still = wanted if wanted is not None else (lambda: True)
    final: dict[str, Any] = {}

    def on_reply(text: str) -> None:
        if not still():
            return  # dropped (the corpus or the settings changed): the task is being cancelled
        reply = json.loads(text)
        if "done" in reply or "error" in reply:
            final.update(reply)  # the tokenizer is loaded once compute returns (below)
            reply.pop("tokenizer", None)
        session.apply(rec, reply)
        if on_batch is not None:
            on_batch(reply)

    if session.in_page(corpus, request):  # (never a custom pattern: that runs in the worker)
        session.answer_in_page(request, corpus, on_reply)  # a textbook example: no worker to wait for
        await port.sleep(0)
    else:
        await port.compute(request, corpus, on_reply)
    if not still():
        return None
    if "error" in final:
        raise session.TaskFailed(final["error"])
    if "tokenizer" not in final:
        raise session.TaskFailed("training ended without a tokenizer: train again")
    # the trained tokenizer, from our JSON (the file loader's own code, in slices)
    loaded = await drive(port, import_steps("the trained tokenizer", final["tokenizer"]), SLICE_SECONDS)
    await port.sleep(0)  # (the load and the final repaint, each tens of ms: a browser task each)
    if not still():
        return None
    rec.take(Done(loaded.tokenizer, final["done"]))
    model_sources.remember(loaded.tokenizer, "the trained tokenizer", final["tokenizer"])  # (the session can read it again)
    return loaded.tokenizer


async def train(port: Any, state: AppState, rec: Recording | None = None) -> None:
    """Record the run `rec` (default: `state.recording`, a mirror made by
    `state.start_recording()`) in the compute session (`record_in_session`: the worker
    trains, the page mirrors its batches of events); stop quietly if the state drops it
    (settings changed). The views repaint at most every NOTIFY_SECONDS (less often if it is
    costly)."""
    rec = rec if rec is not None else state.recording
    if rec is None:
        raise RuntimeError("train() needs state.start_recording() first")
    status = state.training
    started = port.now()
    timing = {"notify": started, "interval": NOTIFY_SECONDS, "merges": None}

    def on_batch(reply: dict[str, Any]) -> None:
        now = port.now()
        status.work_seconds = reply.get("work", status.work_seconds)
        if rec.alphabet is not None and timing["merges"] is None:
            timing["merges"] = now
        status.phase = "training" if rec.alphabet is not None else "preparing"
        status.elapsed = now - started
        steps_time = now - timing["merges"] if timing["merges"] is not None else 0.0
        status.steps_per_second = len(rec.steps) / steps_time if steps_time > 0 else 0.0
        status.done_units = len(rec.steps)
        status.slices += 1
        first_steps = rec.alphabet is not None and len(rec.steps) <= 1  # the readouts appear at once
        if "done" not in reply and (first_steps or now - timing["notify"] >= timing["interval"]):
            timing["notify"] = now
            port.spawn(repaint())
        else:
            state.player.set_recorded(len(rec.steps), False)

    async def repaint() -> None:
        # a browser task of its own, not the one that read the batch (the two together made
        # the page's only tasks over 50 ms in a run); the step counters and the views change
        # together in it, so no frame shows them disagreeing
        if state.recording is rec:  # (not a run dropped meanwhile)
            t0 = port.now()
            state.player.set_recorded(len(rec.steps), False)
            _repaint(port, state)
            timing["interval"] = repaint_interval(port.now() - t0)

    try:
        request, corpus = train_request(state)
        tokenizer = await record_in_session(port, rec, request, corpus, on_batch, lambda: state.recording is rec)
        if tokenizer is None:
            return
        now = port.now()
        status.phase, status.elapsed, status.done_units = "done", now - started, len(rec.steps)
        state.player.set_recorded(len(rec.steps), True)
        _repaint(port, state)
    except asyncio.CancelledError:
        if state.recording is rec:
            state.discard_recording(f"Training cancelled after {plural(len(rec.steps), 'step')}. "
                                    "Change the settings or press Run to end to start again.")
        raise
    except Exception as exc:  # noqa: BLE001 - every kind (MemoryError, OverflowError...): the panel must not stay stuck
        if state.recording is rec:
            state.recording = None
            state.player.reset_recording()
            message = str(exc) if isinstance(exc, session.TaskFailed) else failure_message(exc)
            state.training = TrainingStatus(phase="failed", message=message)
            state.notify("recording")
