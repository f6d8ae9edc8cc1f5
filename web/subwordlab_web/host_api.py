"""The embedding page's side channel: events out and commands in, through ``postMessage``.

An embed opts in with ``api=ORIGIN`` in its address, the origin of the page that embeds it
(``?embed=1&lesson=3&api=https://course.example.org``). Only then does it post events to
that origin (and to no other), and accept commands, only from its parent window and only
from that origin; any other message is ignored. A command it cannot follow is answered
with an ``error`` event that says why. The course page can so follow the learner (the step
reached, a lesson finished) and steer the widget from its own text ("now look at merge 12").

Events (``{type: "subwordlab:<name>", ...}``), to ``ORIGIN``:

- ``ready``: ``{panel, step, steps, lesson}`` once the embed's experiment is shown (``lesson``
  is left out when no lesson is open: None crosses to JavaScript as undefined);
- ``step``: ``{step, steps}`` whenever the step shown changes, once the run is recorded (a
  training's own progress is not sent; the player's steps are);
- ``lesson-step``: ``{lesson, step, steps}`` as a lesson's step changes; ``lesson-finished``:
  ``{lesson}`` when its last step is reached (once per opening). ``lesson`` is a bundled
  lesson's number, or where a lesson file came from: its address on the site
  (``lessons/07-hf-bpe.lesson``), ``file:NAME`` (opened by the learner) or ``link``;
- ``exercise-passed``: ``{exercise, summary}`` when the learner's code matches the trainer;
  ``exercise-failed``: ``{exercise, outcome, summary}`` when a run ends otherwise (``outcome``:
  ``differs``, ``raised``, ``timeout`` or ``failed``; a run the learner stops is not reported);
- ``error``: ``{command, message}``.

Commands (``{type: "subwordlab:<name>", ...}``), from ``ORIGIN`` only:

- ``go-to-step``: ``{step}``, a whole number from 0 (trains first if the run is not done);
- ``set-text``: ``{text}``, the text of the Inspect or Compare panel the embed shows;
- ``open-lesson-step``: ``{lesson, step}``, ``lesson`` a bundled lesson's number or the
  relative address of a lesson file on the embed's own site (``lessons/07-hf-bpe.lesson``);
- ``reset``: back to the author's setup (what the address set up).

The height (always, to any parent, as before): ``{type: "subwordlab:height", height}`` and,
for LMS pages such as Canvas, ``'{"subject": "lti.frameResize", "height": ...}'``.

>>> read_command({"type": "subwordlab:go-to-step", "step": 12})
Command(name='go-to-step', step=12, text=None, lesson=None)
>>> read_command({"type": "subwordlab:go-to-step", "step": -1})
'go-to-step needs "step": a whole number from 0'
>>> read_command({"type": "something-else"}) is None
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .embed import MAX_TEXT_CHARS

PREFIX = "subwordlab:"
COMMANDS = ("go-to-step", "set-text", "open-lesson-step", "reset")
EVENTS = ("ready", "step", "lesson-step", "lesson-finished", "exercise-passed", "exercise-failed", "error")
MAX_ADDRESS_CHARS = 300  # a lesson file's address in open-lesson-step
MAX_MESSAGE_CHARS = 20_000  # a command's JSON is read only up to this size (dom.py)


def lti_resize(height: int) -> str:
    """Canvas's (and other LMSs') resize message, a JSON text. Example: lti_resize(640) ->
    '{"subject": "lti.frameResize", "height": 640}'."""
    return json.dumps({"subject": "lti.frameResize", "height": height})


@dataclass(frozen=True)
class Command:
    name: str
    step: int | None = None
    text: str | None = None
    lesson: int | str | None = None  # a bundled lesson's number, or a lesson file's address on the site


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000_000 else None


def read_command(data: Any) -> Command | str | None:
    """A command from a message's data; a message that is not ours is None (ignored); one of
    ours that cannot be followed is the reason, in words."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or not data["type"].startswith(PREFIX):
        return None
    name = data["type"][len(PREFIX):]
    if name not in COMMANDS:
        return None if name in EVENTS or name == "height" else \
            f"{name[:40]!r} is not a command; the commands are {', '.join(COMMANDS)}"
    if name == "go-to-step":
        step = _whole(data.get("step"))
        return Command(name, step=step) if step is not None else 'go-to-step needs "step": a whole number from 0'
    if name == "set-text":
        text = data.get("text")
        if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
            return f'set-text needs "text": a string of at most {MAX_TEXT_CHARS:,} characters'
        return Command(name, text=text)
    if name == "open-lesson-step":
        raw, step = data.get("lesson"), _whole(data.get("step"))
        lesson: int | str | None = raw.strip() if isinstance(raw, str) else _whole(raw)
        if not lesson or step is None or isinstance(lesson, str) and len(lesson) > MAX_ADDRESS_CHARS:
            return ('open-lesson-step needs "lesson" (a lesson\'s number from 1, or the address of a lesson file '
                    f'on this site, at most {MAX_ADDRESS_CHARS} characters) and "step" (a whole number from 0)')
        return Command(name, lesson=lesson, step=step)
    return Command(name)


class HostBridge:
    """Posts the events to the embedding page and follows its commands (one per embed)."""

    def __init__(self, port: Any, state: Any, app: Any, shaper: Any, origin: str) -> None:
        self.port, self.state, self.app, self.shaper, self.origin = port, state, app, shaper, origin
        self.ready = False
        self.last: tuple[int, int] | None = None  # (step, steps) last posted
        self.finished: int | str | None = None  # the lesson whose end was posted (once per opening)
        port.on_parent_message(self._on_message)
        state.subscribe(self._on_state)
        exercises = getattr(app, "exercises", None)
        if exercises is not None:
            exercises.listeners.append(self._on_exercise)

    # --- events out ---------------------------------------------------------------------------
    def post(self, name: str, **fields: Any) -> None:
        self.port.post_to_parent({"type": PREFIX + name, **fields}, self.origin)

    def lesson_id(self) -> int | str | None:
        """The open lesson as the events name it: its number, or where its file came from."""
        st = self.state
        if st.lesson is not None:
            return int(st.lesson)
        loaded = st.loaded_lesson
        return None if loaded is None else (getattr(loaded, "origin", "") or "link")

    def _on_exercise(self, exercise: str, outcome: str, summary: str) -> None:
        if outcome == "passed":
            self.post("exercise-passed", exercise=exercise, summary=summary)
        else:
            self.post("exercise-failed", exercise=exercise, outcome=outcome, summary=summary)

    def announce_ready(self) -> None:
        """The embed's experiment is shown (EmbedView.remember): say so, once."""
        if self.ready:
            return
        self.ready = True
        st = self.state
        steps = len(st.recording.steps) if st.recording is not None else 0
        self.post("ready", panel=self.shaper.params.panel or "train", step=st.step, steps=steps, lesson=self.lesson_id())
        self._on_state("step")

    def _on_state(self, topic: str) -> None:
        st = self.state
        lesson = self.lesson_id()
        if topic == "lesson" and lesson is None:
            self.finished = None
        if not self.ready or topic not in ("step", "recording", "lesson") or st.recording is None or not st.recording.done:
            return
        now = (st.step, len(st.recording.steps))
        if now == self.last and topic != "lesson":
            return
        self.last = now
        self.post("step", step=now[0], steps=now[1])
        if lesson is not None:
            self.post("lesson-step", lesson=lesson, step=now[0], steps=now[1])
            if now[0] >= now[1] and self.finished != lesson:
                self.finished = lesson
                self.post("lesson-finished", lesson=lesson)

    # --- commands in --------------------------------------------------------------------------
    def _on_message(self, origin: str, data: Any) -> None:
        if origin != self.origin:
            return  # not the page that embeds us: ignored, unanswered
        command = read_command(data)
        if command is None:
            return
        if isinstance(command, str):
            self.post("error", command=str(data.get("type", ""))[:60], message=command)
            return
        problem = self.follow(command)
        if problem:
            self.post("error", command=PREFIX + command.name, message=problem)

    def follow(self, c: Command) -> str | None:
        """Do what the command asks; the reason it cannot, or None."""
        st, panels = self.state, getattr(self.app, "panels", {})
        if c.name == "go-to-step":
            assert c.step is not None
            st.player.pause()
            if st.recording is not None and st.recording.done:
                if c.step > len(st.recording.steps):
                    return f"step {c.step:,} is past the run's last step, {len(st.recording.steps):,}"
                st.seek(c.step)
                st.notify("step")
            else:
                self.port.spawn(panels["share"]._train_and_seek(c.step))
            return None
        if c.name == "set-text":
            assert c.text is not None
            panel = self.shaper.params.panel or "train"
            if panel == "compare" and "compare" in panels:
                cmp = panels["compare"]
                self.port.set_value(cmp.text_box, c.text)
                cmp._on_text_input()
            elif panel == "inspect":
                st.set_inspect(text=c.text)
            else:
                return f"set-text sets the text of an Inspect or Compare embed; this one shows {panel}"
            return None
        if c.name == "open-lesson-step":
            assert c.lesson is not None
            from .lessons import LESSON_FILES

            if isinstance(c.lesson, str):  # a lesson file on this site (lesson_view.site_address checks it)
                self.port.spawn(self._open_lesson_file(c.lesson, c.step))
                return None
            if c.lesson > len(LESSON_FILES):
                return f"there is no lesson {c.lesson}; the lessons are 1 to {len(LESSON_FILES)}"
            self.port.spawn(self.app.lessons.open(c.lesson, c.step))
            return None
        self.shaper.restore()  # reset
        return None

    async def _open_lesson_file(self, address: str, step: int | None) -> None:
        """Open the lesson file at `address`; what went wrong goes to the host as an error event
        (the card says it too)."""
        card = self.app.lessons
        if not await card.open_address(address, step):
            self.post("error", command=PREFIX + "open-lesson-step", message=self.port.text(card.error))
