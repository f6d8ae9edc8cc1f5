"""The lesson card on Train: pick a guided lesson, or open a lesson file, then step through
it with the player; or make a lesson file from the current experiment.

The card is a view over `state.lesson` / `state.loaded_lesson` (which lesson) and the
player's step (which step): Previous/Next move the player, so the candidates chart, the
merges table and the segmentation follow the lesson, and the player's own controls and the
page's shortcuts move the lesson. What the card says comes from `lessons.explain` (the
recording's numbers and the lesson's sentences), always as text (``textContent``), never as
markup.

Opening a lesson loads its corpus, sets its algorithm, trains (a few milliseconds: the
lessons are small) and shows the step asked for; changing the corpus or the settings leaves
the lesson. A lesson file (picked, dropped on the card, named by ``?lesson=lessons/x.lesson``
or inside a share link) is read with lesson_format.parse_lesson and, when its corpus is small,
trained here first and checked (lessons.check_lesson): a bad one shows one message naming the
line, and the page keeps what it had. The address keeps ``?lesson=N&step=K`` (persist.py).

A lesson with ``predict: on`` asks before Next shows a step (lessons.prediction): the choices
are buttons, the answer is said with the trainer's numbers (lessons.verdict), then the player
moves; the card keeps the score. Only the card's Next asks (the player's own controls and
Replay just move), and a step already answered is not asked again. A lesson with
``exercise: ID`` offers that Python exercise (the exercise card's ``open``).

    card = LessonCard(port, state, app)
    await card.open(3, step=4)      # what ?lesson=3&step=4 does
"""

from __future__ import annotations

from typing import Any

from subwordlab.recording import Recording

from .build import el
from .exercises import EXERCISES
from .lesson_format import MAX_LESSON_BYTES, Lesson, LessonFileError, parse_lesson
from .lesson_maker import LessonMakerError, make_lesson_file
from .lessons import (
    LESSON_FILES,
    Prediction,
    check_lesson,
    explain,
    lesson_by_number,
    lesson_titles,
    prediction,
    verdict,
)
from .samples import SAMPLES
from .state import Corpus
from .wording import plural

LEFT_NOTE = "You changed the corpus or the settings, so {what} was left. Pick it again to start it over."
# a lesson whose corpus is at most this long is trained here and checked before it opens (a few
# thousand merges of a few thousand characters: well under a second); a longer one is checked
# after the page's run, in the compute worker, and left with the message if it fails
DRY_RUN_CHARS = 2_000
MADE_FILE_NAME = "subwordlab-lesson.lesson"


def where_text(number: int | str, step: int, steps: int) -> str:
    """The card's kicker. Example: where_text(3, 4, 6) -> 'Lesson 3 · step 4 of 6'."""
    name = f"Lesson {number}" if isinstance(number, int) else number
    return f"{name} · step {step:,} of {steps:,}"


def site_address(page_url: str, address: str) -> str | None:
    """The absolute URL of a lesson file named by a relative `address` on the page's own
    site, or None for another site's (an absolute URL, ``//host/…``, a scheme, a backslash).

    Example: site_address("https://x.org/lab/index.html", "lessons/07.lesson")
    -> 'https://x.org/lab/lessons/07.lesson'; site_address(…, "https://evil.example/x") -> None
    """
    from urllib.parse import urljoin, urlsplit  # (here, not at the top: embed.query_pairs says why)

    if not address or "\\" in address or urlsplit(address).scheme or address.startswith("//") \
            or any(ord(c) < 33 for c in address):
        return None
    full = urljoin(page_url, address)
    page, target = urlsplit(page_url), urlsplit(full)
    if (target.scheme, target.netloc) != (page.scheme, page.netloc):
        return None
    return full


def dry_run(lesson: Lesson) -> Any:
    """Train a small lesson here and check it (LessonFileError naming the line); None when its
    corpus is fetched or too big to train twice (it is then checked after the page's run)."""
    if lesson.corpus_text is None or len(lesson.corpus_text) > DRY_RUN_CHARS:
        return None
    rec = Recording(lesson.training_input(), lesson.spec.preset, **lesson.spec.kwargs()).run()
    check_lesson(lesson, rec)
    return rec


class LessonCard:
    """The lesson picker and card (``#lesson-card`` in index.html)."""

    def __init__(self, port: Any, state: Any, app: Any = None) -> None:
        self.port, self.state, self.app = port, state, app
        q = port.query
        self.root, self.pick, self.intro = q("#lesson-card"), q("#lesson-pick"), q("#lesson-intro")
        self.body, self.where, self.heading = q("#lesson-body"), q("#lesson-where"), q("#lesson-heading")
        self.facts, self.quotes, self.source = q("#lesson-facts"), q("#lesson-quotes"), q("#lesson-source")
        self.quote_box, self.said, self.errata = q("#lesson-quote"), q("#lesson-said"), q("#lesson-errata")
        self.printed_line, self.printed = q("#lesson-printed-line"), q("#lesson-printed")
        self.b_prev, self.b_next = q("#lesson-prev"), q("#lesson-next")
        self.b_replay, self.b_leave = q("#lesson-replay"), q("#lesson-leave")
        self.error, self.file_input = q("#lesson-error"), q("#lesson-file")
        self.b_mark, self.b_unmark, self.b_make = q("#lesson-mark"), q("#lesson-unmark"), q("#lesson-make")
        self.marked_note = q("#lesson-marked")
        self.make_predict, self.make_exercise = q("#lesson-make-predict"), q("#lesson-make-exercise")
        self.verdict_line, self.predict_box = q("#lesson-verdict"), q("#lesson-predict")
        self.question, self.choices, self.score = q("#lesson-question"), q("#lesson-choices"), q("#lesson-score")
        self.b_exercise = q("#lesson-exercise")
        self.asking: Prediction | None = None  # the question on the card, waiting for an answer
        self.answers: dict[int, tuple[bool, str]] = {}  # step -> (right?, the verdict) of the learner's prediction
        self.default_intro = port.text(self.intro)
        self.opening = False  # loading and training a lesson: its own changes do not leave it
        self.left_note = ""  # why the last lesson was left (shown in its place)
        self.task: Any = None
        self.marked: set[int] = set()  # the steps marked for "Make a lesson"
        self.made = ""  # the last lesson file made (what was downloaded)
        port.build_into(self.pick, [el("option", None, "Choose a lesson…", {"value": ""})] + [
            el("option", None, f"{n}. {title}", {"value": str(n)}) for n, title in enumerate(lesson_titles(), 1)])
        port.on(self.pick, "change", self._on_pick)
        port.on(self.b_prev, "click", lambda _e: self.move(-1))
        port.on(self.b_next, "click", lambda _e: self.move(+1))
        port.on(self.b_replay, "click", lambda _e: self.replay())
        port.on(self.b_leave, "click", lambda _e: self.leave())
        port.on(self.file_input, "change", self._on_file)
        port.on(self.root, "dragover", self._on_drag)
        port.on(self.root, "drop", self._on_drop)
        port.on(self.b_mark, "click", lambda _e: self.mark())
        port.on(self.b_unmark, "click", lambda _e: self.unmark())
        port.on(self.b_make, "click", lambda _e: self.make())
        port.build_into(self.make_exercise, [el("option", None, "No exercise", {"value": ""})] + [
            el("option", None, e.title, {"value": e.id}) for e in EXERCISES.values()])
        port.on(self.choices, "click", self._on_choice)
        port.on(self.b_exercise, "click", lambda _e: self.open_exercise())
        state.subscribe(self._on_state)
        self.render()

    def current(self) -> Lesson | None:
        st = self.state
        return st.loaded_lesson if st.loaded_lesson is not None else lesson_by_number(st.lesson)

    # --- opening and leaving ---------------------------------------------------------------
    def _on_pick(self, _event: Any) -> None:
        raw = self.port.value(self.pick)
        if not raw:
            self.leave()
            return
        self._spawn(self.open(int(raw), 0))

    def _spawn(self, coro: Any) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = self.port.spawn(coro)

    async def open(self, number: int, step: int | None = 0) -> None:
        """Load bundled lesson `number`'s corpus and settings, train, and show `step` (None: the last)."""
        lesson = lesson_by_number(number)
        if lesson is None:
            raise ValueError(f"there is no lesson {number}; the lessons are 1 to {len(LESSON_FILES)}")
        await self.open_lesson(lesson, step)

    async def open_lesson(self, lesson: Lesson, step: int | None = 0) -> None:
        """Load `lesson`'s corpus and settings, train, and show `step` (None: the last)."""
        st, app = self.state, self.app
        panels = getattr(app, "panels", {})
        self.opening = True
        self.say_error("")
        self._forget_predictions()
        try:
            st.set_lesson(lesson.number, None if lesson.number is not None else lesson)
            self.render()
            if lesson.sample is not None:
                has_corpus = st.corpus.sample == lesson.sample and (
                    SAMPLES[lesson.sample].text is None or st.corpus.text == SAMPLES[lesson.sample].text)
            else:
                has_corpus = st.corpus.text == lesson.corpus_text and st.corpus.format == lesson.corpus_format
            trained = has_corpus and st.spec == lesson.spec and st.recording is not None and st.recording.done
            if not trained:
                if not has_corpus:
                    if lesson.sample is not None:
                        await panels["corpus"].load_sample(lesson.sample)
                    else:
                        st.set_corpus(Corpus(lesson.corpus_text or "", lesson.corpus_format, name=lesson.title[:80]))
                st.set_spec(lesson.spec)
                # train and seek as a share link does (one place says "the run has fewer steps")
                await panels["share"]._train_and_seek(step)
            else:
                st.player.pause()
                st.seek(len(st.recording.steps) if step is None else min(step, len(st.recording.steps)))
                st.notify("step")
        finally:
            self.opening = False
        rec = st.recording
        if lesson.number is None and rec is not None and rec.done:
            try:  # a lesson too big to check before (dry_run) is checked against the page's run
                check_lesson(lesson, rec)
            except LessonFileError as exc:
                self.leave()
                self.say_error(f"This lesson cannot be shown: {exc}")
                return
        self.render()

    async def load_text(self, text: str, origin: str, step: int | None = 0) -> bool:
        """Read a lesson file (`origin`: "file:NAME", a site address or "link"), check it and
        open it; a bad one shows one message and changes nothing. True if it opened."""
        try:
            lesson = parse_lesson(text, origin=origin)
            dry_run(lesson)
        except LessonFileError as exc:
            what = origin[5:] if origin.startswith("file:") else origin
            self.say_error(f"The lesson {('“' + what + '”') if what else ''} was not opened. {exc}")
            return False
        await self.open_lesson(lesson, step)
        return True

    async def open_address(self, address: str, step: int | None = 0) -> bool:
        """?lesson=lessons/07-hf-bpe.lesson: a lesson file on this site (never another's)."""
        url = site_address(self.port.location_href(), address)
        if url is None:
            self.say_error(f"The lesson “{address[:80]}” was not opened: a lesson is loaded only from this site, by "
                           "a relative address such as lessons/07-hf-bpe.lesson (or open the file with "
                           "“Open a lesson file…”).")
            return False
        try:
            text = await self.port.fetch_text(url)
        except Exception as exc:  # noqa: BLE001 - a 404 or a network error: said, the page goes on
            self.say_error(f"The lesson “{address[:80]}” could not be fetched ({exc}). Check the address.")
            return False
        return await self.load_text(text, address, step)

    def _on_file(self, _event: Any) -> Any:
        files = self.port.input_files(self.file_input)
        self.port.clear_files(self.file_input)
        return self.port.spawn(self.load_files(files))

    def _on_drag(self, event: Any) -> None:
        self.port.prevent_default(event)

    def _on_drop(self, event: Any) -> Any:
        self.port.prevent_default(event)
        return self.port.spawn(self.load_files(self.port.dropped_files(event)))

    async def load_files(self, files: list[Any]) -> bool:
        port = self.port
        if not files:
            return False
        if len(files) > 1:
            self.say_error("Open one lesson file at a time.")
            return False
        name = port.file_name(files[0])
        if port.file_size(files[0]) > MAX_LESSON_BYTES:
            self.say_error(f"“{name}” is {port.file_size(files[0]):,} bytes; a lesson file has at most "
                           f"{MAX_LESSON_BYTES:,}. Put a big corpus in a bundled sample and name it.")
            return False
        try:
            text = (await port.file_bytes(files[0])).decode("utf-8")
        except UnicodeDecodeError as exc:
            self.say_error(f"“{name}” is not UTF-8 text (byte {exc.start + 1:,}); save it as UTF-8 and open it again.")
            return False
        return await self.load_text(text, f"file:{name}")

    def say_error(self, message: str) -> None:
        self.port.set_text(self.error, message)
        self.port.set_hidden(self.error, not message)

    def leave(self, note: str = "") -> None:
        self.left_note = note
        self._forget_predictions()
        self.state.set_lesson(None)
        self.render()

    def _on_state(self, topic: str) -> None:
        st = self.state
        if topic in ("corpus", "spec"):
            if not self.opening and self.marked:
                self.marked.clear()
                self._render_marks()
            lesson = self.current()
            if st.following and not self.opening:
                if lesson is None or st.spec != lesson.spec or (
                        st.corpus.sample != lesson.sample if lesson.sample is not None
                        else st.corpus.text != lesson.corpus_text):
                    what = f"lesson {lesson.number}" if lesson is not None and lesson.number else "the lesson"
                    self.leave(LEFT_NOTE.format(what=what))
                    return
        if topic == "lesson" and (lesson := self.current()) is not None:
            # a lesson made while one is open starts from its settings (the author changes them)
            self.port.set_checked(self.make_predict, lesson.predict)
            self.port.set_value(self.make_exercise, lesson.exercise)
        if topic in ("lesson", "step", "recording", "progress"):
            self.render()

    # --- stepping ---------------------------------------------------------------------------
    def move(self, delta: int) -> None:
        """Previous (-1) or Next (+1): the player moves, the card and the charts follow. In a
        lesson with ``predict: on``, Next first asks about the step it will show."""
        lesson = self.current()
        if delta > 0 and lesson is not None and lesson.predict and self.asking is None:
            rec, step = self.state.recording, self.state.step + 1
            if rec is not None and rec.done and step not in self.answers:
                self.asking = prediction(lesson, rec, step)
                if self.asking is not None:
                    self.render()
                    first = self.port.query("#lesson-choices button")
                    if first is not None:
                        self.port.focus(first)
                    return
        self.asking = None
        self._move(delta)

    def _move(self, delta: int) -> None:
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

    # --- predicting -------------------------------------------------------------------------
    def _forget_predictions(self) -> None:
        self.asking = None
        self.answers.clear()

    def _on_choice(self, event: Any) -> None:
        button = self.port.closest(self.port.event_target(event), "button[data-choice]")
        if button is not None:
            self.answer(self.port.get_attr(button, "data-choice") or "")

    def answer(self, key: str) -> None:
        """The learner's prediction (a choice's key, or "" to skip): say whether it was right,
        with the numbers, count it, and show the step."""
        p = self.asking
        if p is None:
            return
        self.asking = None
        if key:
            self.answers[p.step] = verdict(p, key)
        if self.state.step == p.step - 1:
            self._move(+1)
        else:
            self.render()
        if self.state.player.position < self.state.player.recorded:
            self.port.focus(self.b_next)

    def score_text(self) -> str:
        """Example: '3 of 4 right' (the predictions answered in this lesson)."""
        return f"Your predictions: {sum(right for right, _ in self.answers.values())} of {len(self.answers)} right."

    def open_exercise(self) -> None:
        """The lesson's Python exercise, opened on the exercise card (its draft or starter)."""
        lesson = self.current()
        exercises = getattr(self.app, "exercises", None)
        if lesson is None or not lesson.exercise or exercises is None:
            return
        exercises.open(lesson.exercise)
        self.port.scroll_into_view(exercises.root)
        self.port.focus(exercises.code_box)

    def replay(self) -> None:
        """Back to step 0 and play the lesson through (the player's speed; Space pauses)."""
        st = self.state
        self.asking = None
        st.player.reset()
        st.notify("step")
        train = getattr(self.app, "panels", {}).get("train")
        if train is not None:
            train._on_play(None)

    # --- making a lesson ----------------------------------------------------------------------
    def mark(self) -> None:
        """Add the player's step to the lesson being made."""
        rec = self.state.recording
        if rec is None or not rec.done:
            self._render_marks("Train first (or wait for the run to end), then mark the steps to explain.")
            return
        self.marked.add(self.state.step)
        self._render_marks()

    def unmark(self) -> None:
        self.marked.clear()
        self._render_marks()

    def make(self) -> str | None:
        """Download the lesson file of this experiment and the marked steps."""
        st = self.state
        lesson = self.current()
        try:
            text = make_lesson_file(st.corpus, st.spec, self.marked or {st.step}, st.recording,
                                    title=lesson.title if lesson is not None else "",
                                    predict=self.port.checked(self.make_predict),
                                    exercise=self.port.value(self.make_exercise))
        except LessonMakerError as exc:
            self._render_marks(f"No lesson file was made: {exc}.")
            return None
        self.made = text
        self.port.download(MADE_FILE_NAME, text, "text/plain")
        self._render_marks(f"Downloaded {MADE_FILE_NAME} with {plural(len(self.marked or {st.step}), 'step')}: "
                           "open it in a text editor to write what each step says, then open it here with "
                           "“Open a lesson file…”.")
        return text

    def _render_marks(self, note: str = "") -> None:
        marks = sorted(self.marked)
        text = note or (f"Marked: step{'s' if len(marks) > 1 else ''} {', '.join(map(str, marks))}." if marks
                        else "Mark the steps to explain with “Add this step”, then download the lesson file.")
        self.port.set_text(self.marked_note, text)
        self.port.set_disabled(self.b_unmark, not marks)

    # --- drawing ----------------------------------------------------------------------------
    def render(self) -> None:
        port, st = self.port, self.state
        lesson = self.current()
        port.set_value(self.pick, str(lesson.number) if lesson is not None and lesson.number else "")
        port.set_attr(self.root, "data-lesson", "" if lesson is None else str(lesson.number or "file"))
        port.set_hidden(self.body, lesson is None)
        port.set_hidden(self.intro, lesson is not None)
        self._render_marks()
        self._render_predict(lesson)
        if lesson is None:
            port.set_text(self.intro, self.left_note or self.default_intro)
            return
        name: int | str = lesson.number if lesson.number else "Your lesson"
        rec = st.recording
        ready = rec is not None and rec.done and not self.opening
        for button in (self.b_prev, self.b_next, self.b_replay):
            port.set_disabled(button, not ready)
        if not ready:
            port.set_text(self.where, f"{where_text(name, 0, 0).split(' · ')[0]} · training…")
            port.set_text(self.heading, lesson.title)
            for box in (self.facts, self.quotes, self.said, self.errata):
                port.clear(box)
            port.set_text(self.source, "")
            port.set_hidden(self.printed_line, True)
            return
        step, steps = st.step, len(rec.steps)
        try:
            card = explain(lesson, rec, step)
        except LessonFileError as exc:  # (check_lesson runs first; this is a last guard)
            self.say_error(f"This lesson cannot be shown: {exc}")
            return
        port.set_text(self.where, where_text(name, step, steps))
        port.set_text(self.heading, card.heading)
        port.build_into(self.said, [el("p", None, s) for s in card.said])
        port.build_into(self.errata, [el("p", "lesson-erratum", "Correction: " + s) for s in card.errata])
        port.build_into(self.facts, [el("li", None, fact) for fact in card.facts])
        port.build_into(self.quotes, [el("blockquote", None, children=[el("p", None, q.text)]) for q in card.quotes])
        port.set_hidden(self.quote_box, not card.quotes)
        titles = []
        for key in dict.fromkeys(q.source for q in card.quotes if q.source):
            src = lesson.sources.get(key)
            title = lesson.source_title(key)
            titles.append(f"“{title}”" + (f" ({src.url})" if src is not None and src.url else ""))
        caption = ("In the lesson's words: " + "; ".join(titles) + "." if titles else "In the lesson's own words.")
        port.set_text(self.source, caption + (f" {lesson.numbers_note}" if lesson.numbers_note else ""))
        port.set_hidden(self.printed_line, card.printed is None)
        port.set_text(self.printed, card.printed.text if card.printed else "")
        port.set_disabled(self.b_prev, step == 0)
        port.set_disabled(self.b_next, step >= steps or self.asking is not None)

    def _render_predict(self, lesson: Lesson | None) -> None:
        """The question (while one waits for an answer), an answered step's verdict (on
        that step), the score and the exercise button; all text."""
        port, st = self.port, self.state
        if self.asking is not None and (lesson is None or st.step != self.asking.step - 1):
            self.asking = None  # (the player moved another way: the question is dropped)
        p = self.asking
        port.set_hidden(self.predict_box, p is None)
        if p is not None:
            port.set_text(self.question, p.question)
            port.build_into(self.choices, [el("button", "button", c.label, {"type": "button", "data-choice": c.key})
                                           for c in p.choices]
                            + [el("button", "button button-quiet", "Skip", {"type": "button", "data-choice": ""})])
        else:
            port.clear(self.choices)
        said = self.answers.get(st.step) if lesson is not None else None  # (kept for each answered step)
        port.set_hidden(self.verdict_line, said is None)
        port.set_text(self.verdict_line, said[1] if said is not None else "")
        port.set_attr(self.verdict_line, "data-right", "true" if said is not None and said[0] else "false")
        counting = lesson is not None and lesson.predict and bool(self.answers)
        port.set_hidden(self.score, not counting)
        port.set_text(self.score, self.score_text() if counting else "")
        exercise = EXERCISES.get(lesson.exercise) if lesson is not None and lesson.exercise else None
        port.set_hidden(self.b_exercise, exercise is None)
        port.set_text(self.b_exercise, f"Try it in Python: {exercise.title}" if exercise is not None else "")
