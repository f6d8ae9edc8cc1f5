"""Long work as cooperative tasks: a few milliseconds of work, then back to the browser.

`train(port, state)` records a training run in slices of at most `SLICE_SECONDS` (each
slice advances the core's `Recording` event by event; the core itself reports its long
preparation in small `Progress` events), updating `state.training` and the player, and
notifying "progress" at most every `NOTIFY_SECONDS` so the page repaints without
re-rendering every step. Cancelling the task discards the run.

`progress_view(recording, spec)` says what to show in the progress bar (pure).
`drive(port, steps)` runs any other sliced generator (stats, encodes, file loads) the same way.
"""

from __future__ import annotations

import asyncio
import gc
import math
from dataclasses import dataclass
from typing import Any

from subwordlab.events import EmStep, PruneStep

from .state import AppState, TrainingStatus, TrainSpec
from .wording import plural

# Where a run's time goes besides the core's work (a Chromium trace of the Shakespeare
# byte-BPE run, and the counters in the training status): each hand-back to the browser
# costs ~1 ms (median) to ~5 ms (mean: a frame of layout and paint, timers, input events),
# and each repaint ~5 ms of Python plus 15-25 ms of layout, paint and compositing after it.
# So:
# - a slice runs events until the next one would probably end past SLICE_SECONDS (the next
#   event is expected to take as long as the longest of this slice or the last one; at least
#   one event per slice), so a task, with its bookkeeping, stays under the 50 ms of a long
#   task unless one event is much slower than its predecessors. Longer slices would mean
#   fewer hand-backs, but on the shared test machine 30 ms slices showed as many tasks over
#   50 ms (the load stretches them) and no less time between slices (15-20% of the run with
#   20, 25 or 30 ms: each hand-back's frame and input cost the same whatever the slice).
#   (The tests' fake clock moves 1 ms per look: with SLICE_SECONDS 0 a slice is one event.)
# - a repaint comes at most every NOTIFY_SECONDS, and less often if it is costly: its measured
#   cost (Python and the browser's rendering after it) stays under REPAINT_SHARE of the run.
SLICE_SECONDS = 0.025  # work between two yields to the browser
NOTIFY_SECONDS = 0.25  # how often a running task asks the views to repaint, at most
REPAINT_SHARE = 0.05  # the share of a run's time its repaints may take
BREATHE_SECONDS = 0.05  # at least this often, yield through the timer queue (port.breathe)


def repaint_interval(cost: float) -> float:
    """Seconds from one repaint to the next, given what the last one cost (seconds).

    >>> repaint_interval(0.005), repaint_interval(0.03)
    (0.25, 0.6)
    """
    return max(NOTIFY_SECONDS, round(cost / REPAINT_SHARE, 6))


PHASES = {
    "count": "Counting the corpus's words",
    "words": "Splitting words into symbols",
    "index": "Counting adjacent pairs",
    "seed": "Finding frequent substrings (the seed vocabulary)",
    "lattice": "Building each word's lattice of pieces",
    "em": "EM: expected piece counts",
    "prune": "Measuring how useful each piece is",
    "model": "Building the final model",
}


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


def failure_message(exc: BaseException, what: str = "Training") -> str:
    """What the page says when a task ends with an exception (every kind, so no panel stays
    stuck on "training…"): the core's ValueError messages are for the user as they are;
    the others are said in plain words, with what to change.

    Example: failure_message(MemoryError()) -> 'Training ran out of memory: ...'
    """
    if isinstance(exc, ValueError):  # CorpusError, bad options, unknown characters...
        return str(exc)
    if isinstance(exc, MemoryError):
        return (f"{what} ran out of memory: the page's Python has at most a few GB. Your corpus and settings are "
                "kept; use a smaller corpus or vocabulary, or the command line (python -m subwordlab) for big jobs.")
    if isinstance(exc, RecursionError):
        return (f"{what} stopped: the input is nested too deeply to process. Your corpus and settings are kept; "
                "simplify the input (e.g. a file or pattern with fewer nested levels).")
    if isinstance(exc, OverflowError):
        return (f"{what} stopped: a number is too large to compute with ({exc}). Your corpus and settings are kept; "
                "use smaller counts or sizes.")
    return (f"{what} stopped with an internal error ({type(exc).__name__}: {exc}). Your corpus and settings are "
            "kept; please report this with the corpus and settings that caused it.")


async def drive(port: Any, steps: Any, slice_seconds: float = 0.0, between: Any = None,
                max_items: int | None = None) -> Any:
    """Run a sliced generator (the core's ``(done, total)`` style) to its end, handing the
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


async def train(port: Any, state: AppState, rec: Any = None) -> None:
    """Record the run `rec` (default: `state.recording`, made by `state.start_recording()`)
    to its end, cooperatively; stop quietly if the state drops it (settings changed)."""
    rec = rec if rec is not None else state.recording
    if rec is None:
        raise RuntimeError("train() needs state.start_recording() first")
    status = state.training
    started = port.now()
    merge_started: float | None = None
    last_notify = last_breath = started
    longest_before = 0.0  # the longest event of the last slice (seconds)
    interval = NOTIFY_SECONDS  # until the next repaint (repaint_interval)
    try:
        while not rec.done:
            if state.recording is not rec:
                return  # discarded (the corpus or the settings changed): nothing to finish
            # one slice: at least one event, then more until SLICE_SECONDS have passed
            t0 = last = port.now()
            longest, expected = 0.0, longest_before
            while True:
                rec.advance(1)
                now = port.now()
                longest = max(longest, now - last)
                last = now
                # stop when the next event, if it takes as long as the longest of this
                # slice or the last one, would end the slice past SLICE_SECONDS
                if rec.done or now - t0 + max(longest, expected) >= SLICE_SECONDS:
                    break
            longest_before = longest
            status.work_seconds += now - t0
            # subtle: the run's millions of objects (words, lattices, recorded steps) would make
            # each full pass of Python's cycle collector a pause of 50-150 ms in the middle of
            # a slice, which no slicing can split; they are moved out of its sight as they
            # are made (gc.freeze is O(1)), and given back when the run ends (below)
            gc.freeze()
            now = port.now()
            if rec.alphabet is not None and merge_started is None:
                merge_started = now
            status.phase = "done" if rec.done else ("training" if rec.alphabet is not None else "preparing")
            status.elapsed = now - started
            steps_time = now - merge_started if merge_started is not None else 0.0
            status.steps_per_second = len(rec.steps) / steps_time if steps_time > 0 else 0.0
            status.done_units = len(rec.steps)
            state.player.set_recorded(len(rec.steps), rec.done)
            first_steps = rec.alphabet is not None and len(rec.steps) <= 1  # the readouts appear at once
            repainted = rec.done or first_steps or now - last_notify >= interval
            if rec.done or first_steps:
                last_notify = now
                _repaint(port, state)
            elif repainted:
                # a periodic repaint (tables at the new step) gets a browser task of its own,
                # not the end of a slice's: the two together could pass 50 ms
                status.slices += 1
                await port.sleep(0)
                if state.recording is not rec:
                    return
                last_notify = port.now()
                _repaint(port, state)
            if not rec.done:
                status.slices += 1
                # subtle: a zero sleep is a message-channel task in Pyodide, which the browser
                # may run before timers and paints; every BREATHE_SECONDS go through the
                # timer queue instead (setTimeout 0: no wait added; the sleep(0.004) it
                # replaces idled 4 ms each time, ~50 ms of a 0.6 s run)
                if now - last_breath >= BREATHE_SECONDS:
                    last_breath = now
                    status.breaths += 1
                    await port.breathe()
                else:
                    await port.sleep(0)
                if repainted:  # the repaint's cost: its Python and the rendering after it
                    interval = repaint_interval(port.now() - last_notify)
    except asyncio.CancelledError:
        if state.recording is rec:
            state.discard_recording(f"Training cancelled after {plural(len(rec.steps), 'step')}. "
                                    "Change the settings or press Run to end to start again.")
        raise
    except Exception as exc:  # noqa: BLE001 - every kind (MemoryError, OverflowError...): the panel must not stay stuck
        if state.recording is rec:
            state.recording = None
            state.player.reset_recording()
            state.training = TrainingStatus(phase="failed", message=failure_message(exc))
            state.notify("recording")
        return
    finally:
        gc.unfreeze()  # the collector sees everything again (cycles made during the run included)
