"""The exercise card on Train: write one piece of a trainer in Python, run it, see the first
step where it differs from the trainer (exercises.py says what each exercise checks).

The learner's code always runs in the compute worker (``port.compute``, the session's
``{"op": "exercise"}``), never on the page, even for a tiny corpus. The worker says when
their code starts (``{"started": true}``); after ``TIME_LIMIT_SECONDS`` more the card
cancels the request, which terminates the worker (the port starts a fresh one), and says
so. Code that arrives in a link or an embed (``open``) is put in the box and never runs
before the learner presses Run. Everything the card shows is set as text.

    card = ExerciseCard(port, state, app)
    card.open("bpe_merge", code="def merge(ids, pair, idx): ...")   # what a link does
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from .build import el
from .exercises import EXERCISE_LIST, EXERCISES, MAX_CODE_CHARS, TIME_LIMIT_SECONDS

# how a run can end (besides "stopped" by the learner): "passed", or a way of not passing
OUTCOMES = ("passed", "differs", "raised", "timeout", "failed")
POLL_SECONDS = 0.05  # how often a running exercise looks at its reply and the time limit
TIMEOUT_MESSAGE = (f"Your code ran longer than {TIME_LIMIT_SECONDS:g} s (an endless loop?), so it was stopped. "
                   "Python was restarted in the background for your next run; your code is still in the box.")
LINK_NOTE = ("This exercise's code came with the link: read it first; it runs only when you press Run, "
             "in a separate Python, never on this page.")


class ExerciseCard:
    """The exercise picker, instructions, code box, buttons and result (``#exercise-card``)."""

    def __init__(self, port: Any, state: Any, app: Any = None) -> None:
        self.port, self.state, self.app = port, state, app
        q = port.query
        self.root, self.pick, self.instructions = q("#exercise-card"), q("#exercise-pick"), q("#exercise-instructions")
        self.code_box, self.b_run, self.b_stop = q("#exercise-code"), q("#exercise-run"), q("#exercise-stop")
        self.b_reset, self.b_reference = q("#exercise-reset"), q("#exercise-reference")
        self.reference_box, self.result = q("#exercise-reference-code"), q("#exercise-result")
        self.details, self.output = q("#exercise-details"), q("#exercise-output")
        self.current = EXERCISE_LIST[0]
        self.drafts: dict[str, str] = {}  # each exercise's code as the learner left it
        self.touched = False  # picked or edited: a share link carries the exercise
        self.running = False
        self.stop_requested = False
        self.task: Any = None
        # called with (exercise id, outcome, what the card says) when a run ends (host_api.py)
        self.listeners: list[Callable[[str, str, str], None]] = []
        port.build_into(self.pick, [el("option", None, e.title, {"value": e.id}) for e in EXERCISE_LIST])
        port.on(self.pick, "change", self._on_pick)
        port.on(self.code_box, "input", self._on_input)
        port.on(self.b_run, "click", self._on_run)
        port.on(self.b_stop, "click", self._on_stop)
        port.on(self.b_reset, "click", lambda _e: self.reset())
        port.on(self.b_reference, "click", lambda _e: self.toggle_reference())
        self._show(self.current, self.current.starter)
        from .embed import parse_query

        wanted = parse_query(port.location_search()).exercise  # ?exercise=ID (an embed's, or a hand-made link's)
        if wanted is not None:
            self.open(wanted)

    # --- choosing and editing ------------------------------------------------------------
    def _show(self, exercise: Any, code: str) -> None:
        port = self.port
        self.current = exercise
        port.set_value(self.pick, exercise.id)
        port.set_text(self.instructions, exercise.instructions + f" Your code runs in a separate Python (a Web Worker), "
                      f"never on this page, and is stopped after {TIME_LIMIT_SECONDS:g} s.")
        port.set_value(self.code_box, code)
        port.set_text(self.reference_box, exercise.reference)
        port.set_hidden(self.reference_box, True)
        port.set_text(self.b_reference, "Show the reference")
        port.set_attr(self.b_reference, "aria-expanded", "false")
        self._result("", "")

    def open(self, exercise_id: str, code: str | None = None) -> None:
        """Show exercise ``exercise_id`` with ``code`` (None: the learner's draft, or the
        starter) in the box; nothing runs (a link's or an embed's code waits for Run)."""
        exercise = EXERCISES.get(exercise_id)
        if exercise is None:
            raise ValueError(f"there is no exercise {exercise_id!r}; the exercises are {', '.join(EXERCISES)}")
        self._keep_draft()
        self.touched = True
        self._show(exercise, code if code is not None else self.drafts.get(exercise.id, exercise.starter))
        if code is not None and code != exercise.starter:
            self._result(LINK_NOTE, "link")

    def _keep_draft(self) -> None:
        self.drafts[self.current.id] = self.port.value(self.code_box)

    def _on_pick(self, _event: Any) -> None:
        self.open(self.port.value(self.pick))

    def _on_input(self, _event: Any) -> None:
        self.touched = True

    def reset(self) -> None:
        """The starter code back in the box (the draft is replaced)."""
        self.port.set_value(self.code_box, self.current.starter)
        self.drafts[self.current.id] = self.current.starter
        self._result("The starter code is back in the box.", "")

    def toggle_reference(self) -> None:
        port = self.port
        shown = port.get_attr(self.b_reference, "aria-expanded") == "true"
        port.set_hidden(self.reference_box, shown)
        port.set_text(self.b_reference, "Show the reference" if shown else "Hide the reference")
        port.set_attr(self.b_reference, "aria-expanded", "false" if shown else "true")

    def code(self) -> str:
        return self.port.value(self.code_box)

    def link_ref(self) -> tuple[str, str] | None:
        """What a share link carries: (exercise id, code), once the learner picked or edited one;
        code longer than a link may hold (``MAX_CODE_CHARS``) is left out (the starter)."""
        if not self.touched:
            return None
        code = self.code()
        return self.current.id, code if len(code) <= MAX_CODE_CHARS and code != self.current.starter else ""

    # --- running -------------------------------------------------------------------------------
    def _result(self, text: str, outcome: str, details: str = "", output: str = "") -> None:
        port = self.port
        if outcome in OUTCOMES:  # a run ended: who listens (the host page's bridge) hears it
            for listener in self.listeners:
                listener(self.current.id, outcome, text)
        port.set_text(self.result, text)
        port.set_attr(self.root, "data-outcome", outcome)
        port.set_text(self.details, details)
        port.set_hidden(self.details, not details)
        port.set_text(self.output, f"Your print() output:\n{output}" if output else "")
        port.set_hidden(self.output, not output)

    def _set_running(self, on: bool) -> None:
        port = self.port
        self.running = on
        port.set_disabled(self.b_run, on)
        port.set_hidden(self.b_stop, not on)
        port.set_attr(self.root, "aria-busy", "true" if on else "false")

    def _on_run(self, _event: Any) -> None:
        if not self.running:
            self.task = self.port.spawn(self.run())

    def _on_stop(self, _event: Any) -> None:
        self.stop_requested = True

    async def run(self) -> str:
        """Run the box's code against the trainer in the compute worker and show the result;
        returns the outcome ("passed", "differs", "raised", "timeout", "stopped", "failed")."""
        port, st, exercise = self.port, self.state, self.current
        code = self.code()
        self._keep_draft()
        if st.corpus.is_empty:
            self._result("The corpus is empty: pick a sample or paste some text on the Corpus tab, then press Run "
                         "again.", "failed")
            return "failed"
        if len(code) > MAX_CODE_CHARS:
            self._result(f"Your code is {len(code):,} characters long; the box runs at most {MAX_CODE_CHARS:,}. "
                         "Shorten it, then press Run again.", "failed")
            return "failed"
        request = json.dumps({"op": "exercise", "exercise": exercise.id, "code": code, "format": st.corpus.format})
        box: dict[str, Any] = {"started": None, "result": None, "error": None, "failed": None}

        def on_reply(text: str) -> None:
            reply = json.loads(text)
            if reply.get("started"):
                box["started"] = port.now()
                self._result(f"Running your code against the trainer (stopped after {TIME_LIMIT_SECONDS:g} s)…",
                             "running")
            elif "result" in reply:
                box["result"] = reply["result"]
            elif "error" in reply:
                box["error"] = reply["error"]

        async def compute() -> None:
            try:
                await port.compute(request, st.corpus.text, on_reply)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the worker failed: said in the card
                box["failed"] = exc

        self.stop_requested = False
        self._set_running(True)
        self._result("Starting Python in the background (the first run takes a few seconds)…", "running")
        job = port.spawn(compute())
        try:
            while not job.done():
                await port.sleep(POLL_SECONDS)
                if job.done():
                    break
                if self.stop_requested:
                    job.cancel()
                    self._result("Stopped. Python was restarted in the background for your next run.", "stopped")
                    return "stopped"
                if box["started"] is not None and port.now() - box["started"] > TIME_LIMIT_SECONDS:
                    job.cancel()  # terminates the worker; the port starts a fresh one
                    self._result(TIMEOUT_MESSAGE, "timeout")
                    return "timeout"
        except asyncio.CancelledError:
            job.cancel()
            raise
        finally:
            self._set_running(False)
        return self._show_result(box)

    def _show_result(self, box: dict[str, Any]) -> str:
        if box["failed"] is not None:
            self._result(f"The exercise could not run: {box['failed']}. Press Run to try again.", "failed")
            return "failed"
        if box["error"] is not None:
            self._result(f"The exercise could not run: {box['error'].rstrip('.')}.", "failed")
            return "failed"
        result = box["result"]
        if not isinstance(result, dict):
            self._result("The exercise ended without a result: press Run to try again.", "failed")
            return "failed"
        summary, outcome = str(result.get("summary", "")), str(result.get("outcome", "failed"))
        details = ""
        if outcome == "raised" and "\n" in summary:
            summary, details = summary.split("\n", 1)
        self._result(summary, outcome, details, str(result.get("output", "")))
        return outcome
