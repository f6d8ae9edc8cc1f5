"""Train's "Where other rules part ways" card: the same corpus trained under another rule set
(``rules='hf'``, ``'sentencepiece'``, another ``tie_break``) in the compute session, and the
first step where the two runs decide differently, said in words and numbers
(``subwordlab.divergence``), with a button that takes the player to that step.

One module because it is one card with its own run: the Train panel only creates it.

>>> from .state import TrainSpec
>>> [label for label, _ in alternatives(TrainSpec("byte_bpe", "vocab_size", 300))]
['tokenizers (rules=hf)', 'lex_min (tie_break)', 'lex_max (tie_break)']
>>> alternatives(TrainSpec("byte_bpe", "vocab_size", 300, {"rules": "hf"}))
[('the textbook, first-seen (rules=textbook)', {'rules': 'textbook'})]
"""

from __future__ import annotations

import json
from typing import Any

from subwordlab.divergence import Divergence, first_divergence, rules_name

from .state import AppState, TrainSpec
from .wording import plural


def alternatives(spec: TrainSpec) -> list[tuple[str, dict[str, Any]]]:
    """The other rule sets the current run can be set against: ``(label, options changed)``."""
    schema, options = spec.schema, dict(spec.options)
    rules = options.get("rules", "textbook")
    found: list[tuple[str, dict[str, Any]]] = []
    # step 1: every other reference trainer the preset follows (and back to the textbook's)
    if schema.has("rules"):
        for choice in schema.option("rules").choices or ():
            if choice != rules:
                name = rules_name({**options, "preset": spec.preset, "rules": choice, "tie_break": "first"})
                shown = "the textbook, " + name if choice == "textbook" else name
                found.append((f"{shown} (rules={choice})", {"rules": choice}))
    # step 2: the textbook's other tie-breaks (under the textbook rules only)
    if rules == "textbook" and schema.has("tie_break") and not (spec.preset == "wordpiece" and
                                                              options.get("scoring", "likelihood") == "likelihood"):
        for choice in schema.option("tie_break").choices or ():
            if choice != options.get("tie_break", "first"):
                found.append((f"{rules_name({'tie_break': choice})} (tie_break)", {"tie_break": choice}))
    return found


def other_kwargs(spec: TrainSpec, change: dict[str, Any]) -> dict[str, Any]:
    """The training options of the other run: the current ones with ``change`` (a reference
    rule set breaks ties its own way, so it takes no tie_break)."""
    kwargs = {**spec.kwargs(), **change}
    if kwargs.get("rules", "textbook") != "textbook":
        kwargs.pop("tie_break", None)
    return kwargs


class RulesView:
    """The card (#rules-card) under Train's player; it follows the state itself."""

    def __init__(self, port: Any, state: AppState) -> None:
        self.port, self.state = port, state
        q = port.query
        self.card, self.select, self.run_button = q("#rules-card"), q("#rules-other"), q("#rules-run")
        self.status, self.reason, self.notes, self.go = q("#rules-status"), q("#rules-reason"), q("#rules-notes"), q("#rules-go")
        self.task: Any = None
        self.found: Divergence | None = None
        self._choices: list[tuple[str, dict[str, Any]]] = []
        port.on(self.run_button, "click", lambda _e: self.start())
        port.on(self.go, "click", lambda _e: self._go())
        state.subscribe(self._on_state)
        self._fill()

    # --- state ---------------------------------------------------------------------
    def _on_state(self, topic: str) -> None:
        if topic in ("spec", "recording"):
            self._drop()
            self._fill()
        elif topic == "progress" and self.state.recording is not None and self.state.recording.done:
            self._fill()

    def _drop(self) -> None:
        """Forget the other run (the settings or the corpus changed)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task, self.found = None, None
        for node in (self.status, self.reason):
            self.port.set_text(node, "")
        self.port.clear(self.notes)
        self.port.set_hidden(self.go, True)

    def _fill(self) -> None:
        """The card shows when the run can be set against another rule set."""
        port, state = self.port, self.state
        rec = state.recording
        self._choices = alternatives(state.spec) if not getattr(rec, "replayed", False) else []
        port.set_hidden(self.card, not self._choices)
        items = [(label, str(i)) for i, (label, _) in enumerate(self._choices)]
        wanted = port.value(self.select)
        port.clear(self.select)
        for label, value in items:
            option = port.create("option", text=label)
            port.set_attr(option, "value", value)
            port.append(self.select, option)
        if any(value == wanted for _, value in items):
            port.set_value(self.select, wanted)
        port.set_disabled(self.run_button, rec is None or not rec.done or self.task is not None)

    # --- the other run -------------------------------------------------------------
    def start(self) -> Any:
        """Train the other rule set and find where the runs part (a task; None if no run is done)."""
        rec = self.state.recording
        if rec is None or not rec.done or not self._choices:
            self.port.set_text(self.status, "Train first: the comparison starts from a finished run.")
            return None
        self._drop()
        label, change = self._choices[int(self.port.value(self.select) or 0)]
        self.task = self.port.spawn(self._run(rec, label, change))
        return self.task

    async def _run(self, main: Any, label: str, change: dict[str, Any]) -> None:
        from subwordlab.recording import Recording

        from .failures import failure_message
        from .session import TaskFailed
        from .tasks import record_in_session

        port, state = self.port, self.state
        spec, corpus = state.spec, state.corpus
        port.set_disabled(self.run_button, True)
        port.set_text(self.status, f"Training {spec.describe()} under {label}…")
        # step 1: the other run, mirrored from the compute session as the main one is
        other = Recording.mirror(spec.preset)
        request = json.dumps({"op": "train", "preset": spec.preset, "kwargs": other_kwargs(spec, change),
                              "format": corpus.format})

        def wanted() -> bool:
            return state.recording is main

        try:
            tokenizer = await record_in_session(port, other, request, corpus.text, None, wanted)
        except (TaskFailed, OSError) as exc:
            port.set_text(self.status, f"The run under {label} failed: {exc}")
            return
        except Exception as exc:  # noqa: BLE001 - the card must end with a message, whatever happened
            port.set_text(self.status, failure_message(exc))
            return
        finally:
            self.task = None
            port.set_disabled(self.run_button, False)
        if tokenizer is None or not wanted():
            return
        # step 2: the first step where they decide differently, and why
        self.found = first_divergence(main, other)
        self._show(main, other, label)

    def _show(self, main: Any, other: Any, label: str) -> None:
        port, found = self.port, self.found
        unit = "merge" if self.state.spec.schema.learns_merges else "step"
        if found is None:
            shorter = min(len(main.steps), len(other.steps))
            port.set_text(self.status, f"They agree on all {plural(shorter, unit)} both runs made.")
            return
        port.set_text(self.status, f"Under {label} the run parts ways at {unit} {found.step:,}.")
        port.set_text(self.reason, found.reason)
        port.build_into(self.notes, [["li", None, note] for note in found.notes])
        port.set_text(self.go, f"Go to {unit} {found.step:,}")
        port.set_hidden(self.go, False)

    def _go(self) -> None:
        if self.found is not None:
            self.state.seek(self.found.step)
