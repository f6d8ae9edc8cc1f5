"""The Train panel: the algorithm and its options, the player (step, back, play/pause,
run to end, reset, scrub), a progress bar with cancel, the status line, and the sentence
saying what the current step did. Below the player, what training looks like at this step
(candidates, merges, vocabulary, segmentation, the curve) is drawn by train_sections.py
from the pure view models of train_views.py.

Example: ``TrainPanel(port, state).start_training()`` records a run of the current corpus
and spec in the background; the player then steps through it.
"""

from __future__ import annotations

from typing import Any

import subwordlab

from . import pattern_guard, replay_view, tasks
from .options_form import changed_options, option_field, preset_items, read_field, schema
from .pattern_guard import PatternGuard
from .player import SPEEDS
from .roving import hand_focus
from .rules_view import RulesView
from .state import AppState, TrainingStatus, TrainSpec
from .train_sections import TrainSections
from .train_views import now_text, rate_text
from .wording import plural, run_notes

AUTO_TRAIN_CHARS = 200_000  # smaller corpora train as soon as they (or the settings) change
AUTO_TRAIN_DELAY = 0.25  # seconds of quiet before an automatic run (typing)


# --- the view ------------------------------------------------------------------------
class TrainPanel:
    id = "train"

    def __init__(self, port: Any, state: AppState, app: Any = None) -> None:
        self.port, self.state, self.app = port, state, app
        q = port.query
        self.root = q("#panel-train")
        self.form = q("#train-form")
        self.corpus_line = q("#train-corpus-line")
        self.preset = q("#train-preset")
        self.target_vocab = q("#train-target-vocab")
        self.target_merges = q("#train-target-merges")
        self.size = q("#train-size")
        self.target_help = q("#train-target-help")
        self.preset_help = q("#train-preset-help")
        self.options = q("#train-options")
        self.options_note = q("#train-options-note")
        self.form_error = q("#train-form-error")
        self.status = q("#train-status")
        self.b_reset, self.b_back, self.b_play = q("#train-reset"), q("#train-back"), q("#train-play")
        self.b_step, self.b_end, self.speed = q("#train-step"), q("#train-end"), q("#train-speed")
        self.scrubber, self.step_now, self.step_total = q("#train-scrubber"), q("#train-step-now"), q("#train-step-total")
        self.progress, self.progress_fill = q("#train-progress"), q("#train-progress-fill")
        self.progress_bar, self.progress_label = q("#train-progress-bar"), q("#train-progress-label")
        self.rate, self.cancel = q("#train-rate"), q("#train-cancel")
        self.error = q("#train-error")
        self.measure = q("#train-measure")  # this tokenizer in Compare's premium view, beside real ones
        self.resume, self.resume_text, self.resume_run = q("#train-resume"), q("#train-resume-text"), q("#train-resume-run")
        self.now_kicker, self.now_main = q("#train-now-kicker"), q("#train-now-main")
        port.clone_template("tpl-option")
        self.sections = TrainSections(port, state)  # candidates, merges, vocabulary, segmentation, curve
        self.rules = RulesView(port, state)  # the same corpus under other rules, and where they part

        self.train_task: Any = None
        self.play_task: Any = None
        self.auto_task: Any = None
        self.check_task: Any = None  # the pattern guard's check before a run (pattern_guard.py)
        self.guard = getattr(app, "guard", None) or PatternGuard(port)
        self._form_ticket = 0  # a newer form change supersedes a pending pattern check
        self.pending_step = False
        self._form_busy = False  # the form is the source of the change: do not rebuild it

        for name, title in preset_items(lambda p: p.title):
            option = port.create("option", text=title)
            port.set_attr(option, "value", name)
            port.append(self.preset, option)
        for speed in SPEEDS:
            option = port.create("option", text=f"{speed:g} step{'s' if speed != 1 else ''}/s")
            port.set_attr(option, "value", f"{speed:g}")
            port.append(self.speed, option)
        port.set_value(self.speed, f"{state.player.speed:g}")

        port.on(self.preset, "change", self._on_preset)
        port.on(self.target_vocab, "change", self._on_form)
        port.on(self.target_merges, "change", self._on_form)
        port.on(self.size, "change", self._on_form)
        port.on(self.form, "submit", self._on_submit)
        port.on(self.b_reset, "click", lambda _e: self._move(state.player.reset()))
        port.on(self.b_back, "click", lambda _e: self._move(state.player.back()))
        port.on(self.b_step, "click", self._on_step)
        port.on(self.b_play, "click", self._on_play)
        port.on(self.b_end, "click", self._on_end)
        port.on(self.scrubber, "input", self._on_scrub)
        port.on(self.speed, "change", self._on_speed)
        port.on(self.cancel, "click", self._on_cancel)
        port.on(self.resume_run, "click", self._on_rerun)
        port.on(self.measure, "click", self._on_measure)
        state.subscribe(self._on_state)
        self._build_options()

    # --- state changes --------------------------------------------------------------
    def _on_state(self, topic: str) -> None:
        if topic == "spec":
            if not self._form_busy:
                self._build_options()
        elif topic == "recording":
            if self.state.recording is None and self.train_task is not None and not self.train_task.done():
                self.train_task.cancel()  # its run was discarded
            if self.state.recording is not None:
                self.port.set_hidden(self.resume, True)  # a run started: the offer is answered
            self.sections.invalidate()
            self.render()
            self._maybe_auto_train()
        elif topic in ("progress", "step", "stats", "corpus", "pending"):
            self.render()

    def _move(self, moved: bool) -> None:
        self.state.notify("step")

    # --- the form -------------------------------------------------------------------
    def _build_options(self) -> None:
        port, spec = self.port, self.state.spec
        port.set_value(self.preset, spec.preset)
        port.set_text(self.preset_help, spec.schema.help)
        port.set_checked(self.target_vocab if spec.target == "vocab_size" else self.target_merges, True)
        port.set_disabled(self.target_merges, spec.is_unigram)
        port.set_value(self.size, str(spec.size))
        fields = []
        for option in spec.schema.form_options():
            name = option.name
            row = port.clone_template("tpl-option")
            label = port.query(".option-label", row)
            port.set_text(port.query(".option-name", row), name)
            port.set_text(port.query(".option-help", row), option.help)
            field = option_field(port, option, spec.options.get(name, option.default), f"opt-{name}")
            port.append(label, field)
            port.set_attr(row, "data-option", name)
            port.on(field, "change", self._on_form)
            fields.append(row)
        port.replace_children(self.options, fields)
        n = len(spec.options)
        port.set_text(self.options_note, f"({n} changed)" if n else "(the core's defaults)")
        port.set_text(self.target_help, "Unigram prunes a big seed vocabulary down to this size."
                      if spec.is_unigram else "The vocabulary counts every token: base symbols, special tokens and merges.")
        port.set_hidden(self.form_error, True)

    def read_form(self) -> TrainSpec:
        """The spec the form describes; ValueError naming the field if it is not valid."""
        port = self.port
        preset = port.value(self.preset)
        target = "vocab_size" if port.checked(self.target_vocab) else "num_merges"
        raw = port.value(self.size).strip()
        if not raw.isdigit():
            raise ValueError(f"the target must be a whole number, not {raw!r}")
        values = {}
        preset_schema = schema(preset)
        for row in port.query_all("#train-options .option"):
            name = port.get_attr(row, "data-option")
            values[name] = read_field(port, preset_schema.option(name), port.query(f"#opt-{name}", row))
        size = int(raw)
        if preset_schema.has(target):  # its range, from the core's schema (e.g. at most 10,000,000)
            preset_schema.option(target).check(size)
        return TrainSpec(preset, target, size, changed_options(preset, values))

    def _on_preset(self, _event: Any) -> None:
        spec = self.state.spec.with_preset(self.port.value(self.preset))
        self.state.set_spec(spec)

    def _on_form(self, _event: Any) -> None:
        try:
            spec = self.read_form()
        except ValueError as exc:
            self.port.set_text(self.form_error, str(exc))
            self.port.set_hidden(self.form_error, False)
            return
        self._form_ticket += 1
        check = pattern_guard.spec_check(spec, self.state.corpus)
        if check is not None and not self.guard.known(check):
            # a new custom pattern: tried in the compute worker (the pattern guard) before the page
            # runs it, so a pattern that backtracks catastrophically leaves the spec as it was
            self._free_worker_for(check)
            self.port.set_text(self.options_note, "(" + pattern_guard.checking_text(check) + ")")
            self.check_task = self.port.spawn(self._apply_checked(spec, check, self._form_ticket))
            return
        self._apply_form(spec, self.guard.cached(check))

    def _free_worker_for(self, check: Any) -> None:
        """The check runs in the compute worker, one task at a time: a run of the old settings
        still training there would hold it until its end (a minute, for a big corpus). The new
        settings replace that run whatever the verdict says, so it stops now (the worker is
        terminated, a fresh one warms, and the check takes it); if the pattern is refused, the
        old settings stay and train again."""
        st = self.state
        if self.train_task is None or self.train_task.done() or st.recording is None or st.recording.done:
            return
        st.recording = None
        st.player.reset_recording()
        st.training = TrainingStatus(phase="checking", message=pattern_guard.checking_text(check))
        st.notify("recording")  # (_on_state cancels the run's task; "checking" holds off auto-training)

    def _end_checking(self) -> None:
        """After a verdict: a run stopped for the check (`_free_worker_for`) may start again."""
        st = self.state
        if st.training.phase == "checking" and st.recording is None and (self.check_task is None or self.check_task.done()):
            st.training = TrainingStatus()
            st.notify("recording")

    async def _apply_checked(self, spec: TrainSpec, check: Any, ticket: int) -> None:
        message = await self.guard.verdict(check)
        if ticket == self._form_ticket:  # else a newer change of the form decides
            self.check_task = None
            self._apply_form(spec, message)

    def _apply_form(self, spec: TrainSpec, refusal: str | None) -> None:
        """Make the form's spec current, or show why its pattern was not used (the form
        keeps what the user typed, the state its spec and model)."""
        if refusal is not None:
            self.port.set_text(self.form_error, refusal)
            self.port.set_hidden(self.form_error, False)
            n = len(self.state.spec.options)
            self.port.set_text(self.options_note, f"({n} changed)" if n else "(the core's defaults)")
            self._end_checking()
            return
        self.port.set_hidden(self.form_error, True)
        self._form_busy = True
        try:
            self.state.set_spec(spec)
        finally:
            self._form_busy = False
        self._end_checking()
        self.port.set_text(self.options_note, f"({len(spec.options)} changed)" if spec.options else "(the core's defaults)")

    def _on_submit(self, event: Any) -> None:
        self.port.prevent_default(event)
        self._on_form(event)

    # --- training -------------------------------------------------------------------
    def _small_corpus(self) -> bool:
        c = self.state.corpus
        return c.format == "word_counts" or len(c.text) <= AUTO_TRAIN_CHARS

    def _maybe_auto_train(self) -> None:
        st = self.state
        if st.recording is not None or st.training.phase in ("cancelled", "failed", "checking") or st.corpus.is_empty:
            if self.auto_task is not None:
                self.auto_task.cancel()
                self.auto_task = None
            return
        if self.auto_task is not None:
            self.auto_task.cancel()
            self.auto_task = None
        if self._small_corpus():
            self.auto_task = self.port.spawn(self._auto_train())

    async def _auto_train(self) -> None:
        await self.port.sleep(AUTO_TRAIN_DELAY)
        self.auto_task = None
        st = self.state
        # subtle: a tokenizer imported on the Files tab stays current until the user trains
        if (st.recording is None and st.training.phase not in ("cancelled", "failed") and self._small_corpus()
                and getattr(st, "imported", None) is None):
            self.start_training()

    def start_training(self) -> bool:
        """Start recording a run of the current corpus and spec; False (with a message) if
        the core refuses them."""
        st = self.state
        check = pattern_guard.spec_check(st.spec, st.corpus)
        if not self.guard.known(check):
            if self.check_task is None or self.check_task.done():
                self.check_task = self.port.spawn(self.train_checked())
            return True  # starts once the compute worker has tried the pattern
        refusal = self.guard.cached(check)
        if refusal is not None:
            st.recording = None
            st.training = TrainingStatus(phase="failed", message=refusal)
            st.notify("recording")
            return False
        if self.train_task is not None and not self.train_task.done():
            self.train_task.cancel()
        try:
            st.start_recording()
        except Exception as exc:  # noqa: BLE001 - CorpusError and bad options (messages for the user), or anything else
            st.recording = None
            st.training = TrainingStatus(phase="failed", message=tasks.failure_message(exc))
            st.notify("recording")
            return False
        self.train_task = self.port.spawn(tasks.train(self.port, st, st.recording))
        return True

    async def train_checked(self) -> bool:
        """`start_training` once the pattern guard has tried a custom pattern on the corpus
        (awaited: share links wait for it); False if the run did not start."""
        st = self.state
        spec, corpus = st.spec, st.corpus
        check = pattern_guard.spec_check(spec, corpus)
        if check is not None and not self.guard.known(check):
            st.training = TrainingStatus(phase="checking", message=pattern_guard.checking_text(check))
            st.notify("progress")
            await self.guard.verdict(check)
            if st.spec != spec or st.corpus is not corpus:
                return False  # changed meanwhile: that change starts its own run
            if st.training.phase == "checking":
                st.training = TrainingStatus()
        return self.start_training()

    def _ensure_training(self) -> bool:
        if self.state.recording is not None:
            return True
        if self.auto_task is not None:
            self.auto_task.cancel()
            self.auto_task = None
        return self.start_training()

    def _on_step(self, _event: Any) -> None:
        if not self._ensure_training():
            return
        player = self.state.player
        player.pause()
        if not player.step() and not player.final:
            self.pending_step = True  # the first steps are still being recorded
        self.state.notify("step")

    def _on_play(self, _event: Any) -> None:
        player = self.state.player
        if player.playing:
            player.pause()
            self.state.notify("step")
            return
        if not self._ensure_training():
            return
        player.play()
        if self.play_task is None or self.play_task.done():
            self.play_task = self.port.spawn(self._play_loop())
        self.state.notify("step")

    async def _play_loop(self) -> None:
        port, player = self.port, self.state.player
        last = port.now()
        while player.playing:
            await port.sleep(player.interval)
            now = port.now()
            moved = player.advance_time(now - last)
            last = now
            if moved or not player.playing:
                self.state.notify("step")

    def _on_end(self, _event: Any) -> None:
        if not self._ensure_training():
            return
        self.state.player.to_end()
        self.state.notify("step")

    def _on_scrub(self, _event: Any) -> None:
        raw = self.port.value(self.scrubber)
        self.state.player.pause()
        self.state.seek(int(float(raw or 0)))
        self.render()

    def _on_speed(self, _event: Any) -> None:
        self.state.player.set_speed(float(self.port.value(self.speed)))

    def offer_rerun(self, step: int | None = None) -> None:
        """After a reload during a run: the settings are back; say so and offer to run again
        (a long run never restarts by itself). `step`: where the run had got to."""
        st = self.state
        where = f" (it had got to step {step:,})" if step else ""
        self.port.set_text(self.resume_text, f"The page was reloaded while {st.spec.describe()} was training on "
                           f"“{st.corpus.name}”{where}. The settings are restored; the run was not.")
        self.port.set_hidden(self.resume, False)

    def _on_rerun(self, _event: Any) -> None:
        hand_focus(self.port, self.resume, self.b_end)  # the offer goes; "Run to end" is what it pressed
        self.port.set_hidden(self.resume, True)
        self._on_end(_event)

    def _on_cancel(self, _event: Any) -> None:
        if self.train_task is not None and not self.train_task.done():
            self.train_task.cancel()
            self.state.player.pause()

    # --- drawing --------------------------------------------------------------------
    def on_show(self) -> None:
        self.sections.visible = True
        self.sections.invalidate()
        self.render()

    def on_hide(self) -> None:
        self.sections.visible = False

    def _on_measure(self, _event: Any) -> Any:
        """The trained tokenizer, at the step shown, beside real ones on Compare (issue 26)."""
        compare = self.app.panels.get("compare") if self.app is not None else None
        return compare.measure_current() if compare is not None else None

    def render(self) -> None:
        st, port = self.state, self.port
        rec, player, status = st.recording, st.player, st.training
        if self.pending_step and player.recorded > player.position:
            self.pending_step = False
            player.step()
        port.set_attr(self.root, "data-status", status.phase)
        port.set_text(self.corpus_line, f"Corpus: {st.corpus_pending or st.corpus.name} · "
                      f"{plural(len(st.corpus.text), 'character')}"
                      + (" (word counts)" if st.corpus.format == "word_counts" else ""))
        # controls; a pressed button that becomes disabled hands the keyboard focus to one that
        # still leads somewhere (a browser would drop it to <body>): Back or Reset at step 0 to
        # Step, Step at the end to Play (which plays from the start), Cancel at the run's end to
        # Run to end
        at_start, at_end = player.position == 0, player.at_end
        forward = self.b_play if at_end else self.b_step
        if at_start:
            for control in (self.b_back, self.b_reset) + ((self.scrubber,) if player.recorded == 0 else ()):
                hand_focus(port, control, forward)
        if at_end:
            hand_focus(port, self.b_step, self.b_play)
        if not st.training.running:
            hand_focus(port, self.cancel, self.b_end)
        port.set_disabled(self.b_back, player.position == 0)
        port.set_disabled(self.b_reset, player.position == 0)
        port.set_disabled(self.b_step, player.at_end)
        port.set_attr(self.b_play, "aria-pressed", "true" if player.playing else "false")
        port.set_text(port.query(".play-text", self.b_play), "Pause" if player.playing else "Play")
        port.set_text(port.query(".play-icon", self.b_play), "⏸" if player.playing else "▶")
        port.set_attr(self.scrubber, "max", str(player.recorded))
        port.set_value(self.scrubber, str(player.position))
        port.set_disabled(self.scrubber, player.recorded == 0)
        port.set_text(self.step_now, f"{player.position:,}")
        # subtle: the same words as the header's step pill (state.step_text), never "1 of 1…"
        port.set_text(self.step_total, f"{player.recorded:,}" + ("" if player.final or rec is None else " so far"))
        # status, progress, errors
        port.set_text(self.status, self._status_text())
        running = status.running
        port.set_hidden(self.progress, not running)
        if running and rec is not None:
            view = tasks.progress_view(rec, st.spec)
            pct = 100 * view.fraction if view.fraction is not None else 0
            port.set_style(self.progress_fill, "width", f"{pct:.1f}%")
            port.toggle_class(self.progress, "indeterminate", view.fraction is None)
            if view.fraction is not None:
                port.set_attr(self.progress_bar, "aria-valuenow", f"{pct:.0f}")
            port.set_text(self.progress_label, view.label)
            port.set_text(self.rate, rate_text(status.steps_per_second, player.recorded))
        port.set_disabled(self.measure, rec is None or not rec.done)
        port.set_hidden(self.error, status.phase != "failed")
        if status.phase == "failed":
            port.set_text(self.error, status.message)
        kicker, main = now_text(rec, player.position, st.spec.schema)
        if rec is None:
            kicker, main = "Not trained yet", ("Press Step, Play or Run to end to train " + st.spec.describe() + ".")
        port.set_text(self.now_kicker, kicker)
        port.set_text(self.now_main, main)
        self.sections.render()

    def _status_text(self) -> str:
        st = self.state
        rec, status = st.recording, st.training
        if status.phase in ("cancelled", "failed", "checking"):
            return status.message if status.phase != "failed" else "Training could not start."
        if rec is None:
            return f"{st.spec.describe()} · not trained yet" + (
                f" · Inspect and Compare use {st.imported_name} (loaded on Files)" if st.imported is not None else "")
        if rec.done and getattr(rec, "replayed", False):
            return replay_view.status_text(st)
        if rec.done:
            short = subwordlab.shortfall(rec.tokenizer, merges=None if st.spec.is_unigram else len(rec.steps))
            text = (f"{st.spec.describe()} · trained: {plural(len(rec.steps), 'step')} in {status.elapsed:.2f} s"
                    + (f" · {short}" if short else ""))
        else:
            text = f"{st.spec.describe()} · " + ("training…" if rec.alphabet is not None else "preparing the run…")
        text += run_notes(getattr(rec.alphabet, "notes", ()))
        if st.imported is not None:
            text += f" · Inspect and Compare use {st.imported_name} (loaded on Files) until you train again"
        return text
