"""The lesson card on Train: pick a guided lesson, then step through it with the player.

The card is a view over `state.lesson` (which lesson) and the player's step (which step):
Previous/Next move the player, so the candidates chart, the merges table and the
segmentation follow the lesson, and the player's own controls and the page's shortcuts
move the lesson. What the card says comes from `lessons.explain` (the recording's numbers
and the lesson's sentences), always as text (``textContent``), never as markup.

Opening a lesson loads its sample, sets its algorithm, trains (a few milliseconds: the
lessons are word-count lists) and shows the step asked for; changing the corpus or the
settings leaves the lesson. The address keeps ``?lesson=N&step=K`` (persist.py).

    card = LessonCard(port, state, app)
    await card.open(3, step=4)      # what ?lesson=3&step=4 does
"""

from __future__ import annotations

from typing import Any

from .build import el
from .lessons import LESSONS, SOURCES, explain, lesson_by_number
from .samples import SAMPLES

LEFT_NOTE = "You changed the corpus or the settings, so lesson {n} was left. Pick it again to start it over."


def where_text(number: int, step: int, steps: int) -> str:
    """The card's kicker. Example: where_text(3, 4, 6) -> 'Lesson 3 · step 4 of 6'."""
    return f"Lesson {number} · step {step:,} of {steps:,}"


class LessonCard:
    """The lesson picker and card (``#lesson-card`` in index.html)."""

    def __init__(self, port: Any, state: Any, app: Any = None) -> None:
        self.port, self.state, self.app = port, state, app
        q = port.query
        self.root, self.pick, self.intro = q("#lesson-card"), q("#lesson-pick"), q("#lesson-intro")
        self.body, self.where, self.heading = q("#lesson-body"), q("#lesson-where"), q("#lesson-heading")
        self.facts, self.quotes, self.source = q("#lesson-facts"), q("#lesson-quotes"), q("#lesson-source")
        self.printed_line, self.printed = q("#lesson-printed-line"), q("#lesson-printed")
        self.b_prev, self.b_next = q("#lesson-prev"), q("#lesson-next")
        self.b_replay, self.b_leave = q("#lesson-replay"), q("#lesson-leave")
        self.default_intro = port.text(self.intro)
        self.opening = False  # loading and training a lesson: its own changes do not leave it
        self.left_note = ""  # why the last lesson was left (shown in its place)
        self.task: Any = None
        port.build_into(self.pick, [el("option", None, "Choose a lesson…", {"value": ""})] + [
            el("option", None, f"{le.number}. {le.title}", {"value": str(le.number)}) for le in LESSONS])
        port.on(self.pick, "change", self._on_pick)
        port.on(self.b_prev, "click", lambda _e: self.move(-1))
        port.on(self.b_next, "click", lambda _e: self.move(+1))
        port.on(self.b_replay, "click", lambda _e: self.replay())
        port.on(self.b_leave, "click", lambda _e: self.leave())
        state.subscribe(self._on_state)
        self.render()

    # --- opening and leaving ---------------------------------------------------------------
    def _on_pick(self, _event: Any) -> None:
        raw = self.port.value(self.pick)
        if not raw:
            self.leave()
            return
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = self.port.spawn(self.open(int(raw), 0))

    async def open(self, number: int, step: int | None = 0) -> None:
        """Load lesson `number`'s sample and settings, train, and show `step` (None: the last)."""
        lesson = lesson_by_number(number)
        if lesson is None:
            raise ValueError(f"there is no lesson {number}; the lessons are 1 to {len(LESSONS)}")
        st, app = self.state, self.app
        panels = getattr(app, "panels", {})
        self.opening = True
        try:
            st.set_lesson(number)
            self.render()
            has_corpus = st.corpus.sample == lesson.sample and st.corpus.text == SAMPLES[lesson.sample].text
            trained = has_corpus and st.spec == lesson.spec and st.recording is not None and st.recording.done
            if not trained:
                if not has_corpus:
                    await panels["corpus"].load_sample(lesson.sample)
                st.set_spec(lesson.spec)
                # train and seek as a share link does (one place says "the run has fewer steps")
                await panels["share"]._train_and_seek(step)
            else:
                st.player.pause()
                st.seek(len(st.recording.steps) if step is None else min(step, len(st.recording.steps)))
                st.notify("step")
        finally:
            self.opening = False
        self.render()

    def leave(self, note: str = "") -> None:
        self.left_note = note
        self.state.set_lesson(None)
        self.render()

    def _on_state(self, topic: str) -> None:
        st = self.state
        if topic in ("corpus", "spec") and st.lesson is not None and not self.opening:
            lesson = lesson_by_number(st.lesson)
            if lesson is None or st.corpus.sample != lesson.sample or st.spec != lesson.spec:
                self.leave(LEFT_NOTE.format(n=st.lesson))
                return
        if topic in ("lesson", "step", "recording", "progress"):
            self.render()

    # --- stepping ---------------------------------------------------------------------------
    def move(self, delta: int) -> None:
        """Previous (-1) or Next (+1): the player moves, the card and the charts follow."""
        player = self.state.player
        player.pause()
        moved = player.step() if delta > 0 else player.back()
        if moved:
            self.state.notify("step")
        # subtle: the button pressed may now be disabled (first or last step), which would drop
        # the keyboard focus to the page: hand it to the button that still leads somewhere
        if delta > 0 and player.position >= player.recorded:
            self.port.focus(self.b_replay)
        elif delta < 0 and player.position == 0:
            self.port.focus(self.b_next)

    def replay(self) -> None:
        """Back to step 0 and play the lesson through (the player's speed; Space pauses)."""
        st = self.state
        st.player.reset()
        st.notify("step")
        train = getattr(self.app, "panels", {}).get("train")
        if train is not None:
            train._on_play(None)

    # --- drawing ----------------------------------------------------------------------------
    def render(self) -> None:
        port, st = self.port, self.state
        lesson = lesson_by_number(st.lesson)
        port.set_value(self.pick, str(lesson.number) if lesson else "")
        port.set_attr(self.root, "data-lesson", str(lesson.number) if lesson else "")
        port.set_hidden(self.body, lesson is None)
        port.set_hidden(self.intro, lesson is not None)
        if lesson is None:
            port.set_text(self.intro, self.left_note or self.default_intro)
            return
        rec = st.recording
        ready = rec is not None and rec.done and not self.opening
        for button in (self.b_prev, self.b_next, self.b_replay):
            port.set_disabled(button, not ready)
        if not ready:
            port.set_text(self.where, f"Lesson {lesson.number} · training…")
            port.set_text(self.heading, lesson.title)
            port.clear(self.facts)
            port.clear(self.quotes)
            port.set_text(self.source, "")
            port.set_hidden(self.printed_line, True)
            return
        step, steps = st.step, len(rec.steps)
        card = explain(lesson, rec, step)
        port.set_text(self.where, where_text(lesson.number, step, steps))
        port.set_text(self.heading, card.heading)
        port.build_into(self.facts, [el("li", None, fact) for fact in card.facts])
        port.build_into(self.quotes, [el("blockquote", None, children=[el("p", None, q.text)]) for q in card.quotes])
        titles = list(dict.fromkeys(SOURCES[q.source].title for q in card.quotes))
        port.set_text(self.source, "In the lesson's words: " + "; ".join(f"“{t}”" for t in titles)
                      + (f". {lesson.numbers_note}" if lesson.numbers_note else ""))
        port.set_hidden(self.printed_line, card.printed is None)
        port.set_text(self.printed, card.printed.text if card.printed else "")
        port.set_disabled(self.b_prev, step == 0)
        port.set_disabled(self.b_next, step >= steps)
