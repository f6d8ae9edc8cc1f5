"""The Corpus panel: samples, paste/edit, file upload and drag-and-drop, word-count mode,
counts files made by `subwordlab count` (counts_corpus.py), statistics, and clear messages
for bad input that never lose the corpus already there."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import subwordlab

from .corpus_data import (
    CHECK_IN_PAGE_CHARS,
    MAX_CORPUS_BYTES,
    STATS_OP,
    YOUR_TEXT,
    CorpusStats,
    Upload,
    corpus_stats,
    decode_slices,
    detect_format,
    edited_name,
    format_size,
    join_texts,
    stats_from_reply,
)
from .counts_corpus import counts_head, describe, head_problem, is_counts_file, merge_files, merge_request, mismatch
from .samples import SAMPLES, Sample, excerpt, strip_udhr_header
from .share import sha256_text_steps
from .state import AppState, Corpus
from .tasks import drive
from .wording import plural

STATS_BUDGET_SECONDS = 20.0  # a long corpus's statistics must come within this (the session's)
STATS_BUDGET_SECONDS_PER_MB = 2.0  # ... plus this per million characters
EDIT_LIMIT = 300_000  # longer corpora are shown as a read-only preview of their start
PREVIEW_CHARS = 50_000


class CorpusPanel:
    id = "corpus"

    def __init__(self, port: Any, state: AppState, app: Any = None) -> None:
        self.port, self.state, self.app = port, state, app
        q = port.query
        self.sample = q("#corpus-sample")
        self.sample_desc = q("#corpus-sample-desc")
        self.format_text = q("#corpus-format-text")
        self.format_counts = q("#corpus-format-counts")
        self.format_note = q("#corpus-format-note")
        self.format_auto = q("#corpus-format-auto")
        self.text = q("#corpus-text")
        self.text_note = q("#corpus-text-note")
        self.drop = q("#corpus-drop")
        self.file = q("#corpus-file")
        self.append_box = q("#corpus-append")
        self.message = q("#corpus-message")
        self.message_text = q("#corpus-message-text")
        self.lenient = q("#corpus-lenient")
        self.dismiss = q("#corpus-dismiss")
        self.status = q("#corpus-status")
        self.replace_button = q("#corpus-replace")
        self.back = q("#corpus-back")
        self.stats = {port.get_attr(el, "data-stat"): el for el in port.query_all("#corpus-stats dd")}
        self.top = q("#corpus-top")
        self.source = q("#corpus-source")
        self.attribution = q("#corpus-attribution")
        self.to_train = q("#corpus-to-train")
        port.set_text(q("#corpus-limit"), format_size(MAX_CORPUS_BYTES))
        port.clone_template("tpl-top-word")

        self._fill_samples()
        self._pending: list[tuple[str, bytes]] | None = None  # files waiting for "decode leniently"
        self._parse_problem = False  # the message shown is about the word-count list
        self._counts_problem = False  # the message shown says the counts do not fit the Train tab's pipeline
        self._stats_task: Any = None
        self._load_task: Any = None
        self.last_stats: CorpusStats | None = None
        self.shown_text: str | None = None  # the text the textarea holds (None: a preview)
        self.chosen_format: str | None = None  # the user picked the format: no auto-detection until reset
        self.detect_hint = ""  # why the text was not read as a word-count list (see detect_format)
        self.upload: Corpus | None = None  # the user's last upload: one click away once replaced
        self._replacement: Callable[[], Any] | None = None  # what "Replace it" does (asked during a run)

        port.on(self.sample, "change", self._on_sample)
        port.on(self.format_text, "change", self._on_format)
        port.on(self.format_counts, "change", self._on_format)
        port.on(self.format_auto, "click", self._on_detect_again)
        port.on(self.text, "input", self._on_text)
        port.on(self.file, "change", self._on_file_input)
        port.on(self.drop, "dragover", self._on_drag)
        port.on(self.drop, "dragenter", self._on_drag)
        port.on(self.drop, "dragleave", self._on_drag_leave)
        port.on(self.drop, "drop", self._on_drop)
        port.on(self.lenient, "click", self._on_lenient)
        port.on(self.dismiss, "click", lambda _e: self._on_dismiss())
        port.on(self.replace_button, "click", self._on_replace)
        port.on(self.back, "click", self._on_back)
        port.on(self.to_train, "click", lambda _e: app.show_panel("train", focus=True) if app else None)
        state.subscribe(self._on_state)

    # --- samples ------------------------------------------------------------------
    def _fill_samples(self) -> None:
        port = self.port
        groups: dict[str, Any] = {}
        custom = port.create("option", text="— your own text —")
        port.set_attr(custom, "value", "")
        options = [custom]
        for sample in SAMPLES.values():
            group = groups.get(sample.group)
            if group is None:
                group = groups[sample.group] = port.create("optgroup")
                port.set_attr(group, "label", sample.group)
                options.append(group)
            option = port.create("option", text=sample.title)
            port.set_attr(option, "value", sample.id)
            port.append(group, option)
        port.replace_children(self.sample, options)

    def _on_sample(self, _event: Any) -> Any:
        sample_id = self.port.value(self.sample)
        if not sample_id:
            # "your own text": leave a sample for an empty text to type or paste into
            # (a sample can always be picked again; uploads and typed text stay as they are)
            if self.state.corpus.sample is not None:
                self.chosen_format = None
                self.state.set_corpus(Corpus("", "text", YOUR_TEXT))
                self._say("Type or paste your text, or drop files.")
            return None
        if self._asks_first(f"the sample “{SAMPLES[sample_id].title}”", lambda: self.load_sample(sample_id)):
            return None
        return self.load_sample(sample_id)

    # --- the user's upload: asked before it is replaced during a run, one click away after ---
    def _asks_first(self, what: str, replace: Callable[[], Any]) -> bool:
        """During a run on the user's upload, ask before ``replace`` swaps it for ``what``
        (True: asked, nothing changed yet). Example: picking a sample while “notes.txt” trains."""
        st, upload = self.state, self.upload
        if upload is None or st.corpus is not upload or not st.training.running:
            return False
        self._replacement = replace
        self.show_message(f"A run is training on your upload “{upload.name}”. Replace it with {what}? "
                          f"The run stops; your upload stays one click away (“Back to {upload.name}”).")
        self.port.set_hidden(self.replace_button, False)
        return True

    def _on_replace(self, _event: Any) -> Any:
        replace, self._replacement = self._replacement, None
        self.hide_message()
        if replace is None:
            return None
        self.state.discard_recording()  # the run on the upload stops (as any new corpus stops it)
        return replace()

    def _on_dismiss(self) -> None:
        if self._replacement is not None:  # kept the upload: the sample menu says so again
            self._replacement = None
            self.port.set_value(self.sample, "")
        self.hide_message()

    def _on_back(self, _event: Any) -> None:
        """Back to the user's last upload (after a sample or other files replaced it)."""
        if self.upload is None:
            return
        self.chosen_format = None
        self.port.set_value(self.sample, "")
        self.state.set_corpus(self.upload)
        self._say(f"Back to your upload “{self.upload.name}”: {plural(len(self.upload.text), 'character')}.")

    async def load_sample(self, sample_id: str) -> None:
        """Fetch (if needed) and use a bundled sample, with its training settings."""
        sample = SAMPLES[sample_id]
        self.port.set_value(self.sample, sample_id)
        self._say(f"Loading “{sample.title}”…")
        if sample.text is None:
            self.state.await_corpus(f"Loading “{sample.title}”…")
        try:
            corpus = await self.sample_corpus(sample_id)
        except BaseException:
            self.state.await_corpus("")  # the corpus in use stays; the header says so again
            raise
        self.use_sample(sample, corpus.text, corpus.attribution)

    async def sample_corpus(self, sample_id: str) -> Corpus:
        """A bundled sample's corpus (fetched if needed), without using it: a share link
        checks it before anything on the page changes."""
        sample = SAMPLES[sample_id]
        if sample.text is not None:
            return sample.corpus(sample.text, sample.attribution)
        raw = await self.port.fetch_text(sample.url)
        attribution = sample.attribution
        if sample.udhr:
            raw, header = strip_udhr_header(raw)
            attribution = f"{header}. {sample.attribution}" if header else sample.attribution
        return sample.corpus(excerpt(sample, raw), attribution)

    def use_sample(self, sample: Sample, text: str, attribution: str = "") -> None:
        state = self.state
        self.hide_message()
        self.chosen_format = None  # a sample says what it is
        state.set_spec(sample.config)
        if sample.try_text:
            state.set_inspect(text=sample.try_text, sampled=False)
        state.set_corpus(sample.corpus(text, attribution))
        self._say(f"Loaded “{sample.title}”: {len(text):,} characters. Its settings are on the Train tab: "
                  f"{sample.config.describe()}.")

    # --- typing and the format switch ---------------------------------------------
    def _format(self) -> str:
        return "word_counts" if self.port.checked(self.format_counts) else "text"

    def _on_format(self, _event: Any) -> None:
        """The user overrides the detected format (until a sample or files replace the text)."""
        c = self.state.corpus
        self.chosen_format = self._format()
        self._edit(Corpus(c.text, self.chosen_format, c.name, c.sample, c.files, c.attribution))

    def _on_detect_again(self, _event: Any) -> None:
        c = self.state.corpus
        self.chosen_format = None
        fmt, self.detect_hint = detect_format(c.text)
        self._edit(Corpus(c.text, fmt, c.name, c.sample, c.files, c.attribution))

    def _on_text(self, _event: Any) -> None:
        """Typed or pasted text: running text unless it parses as a word-count list (or
        the user chose the format)."""
        text = self.port.value(self.text)
        c = self.state.corpus
        name = edited_name(c.name, c.text, text)
        files, attribution = (c.files, c.attribution) if name != YOUR_TEXT else ((), "")
        self.shown_text = text
        self.port.set_value(self.sample, "")
        fmt, self.detect_hint = (self.chosen_format, "") if self.chosen_format else detect_format(text)
        self._edit(Corpus(text, fmt, name, None, files, attribution))

    def _edit(self, corpus: Corpus) -> None:
        """Use an edit of the corpus in use (its text typed, its format chosen): an edit of
        the user's upload is what "Back to your upload" brings back."""
        if self.state.corpus is self.upload:
            self.upload = corpus
        self.state.set_corpus(corpus)

    # --- files --------------------------------------------------------------------
    def _on_file_input(self, _event: Any) -> Any:
        files = self.port.input_files(self.file)
        self.port.clear_files(self.file)
        if files:
            return self.load_files(files)
        return None

    def _on_drag(self, event: Any) -> None:
        self.port.prevent_default(event)
        self.port.toggle_class(self.drop, "dragging", True)

    def _on_drag_leave(self, _event: Any) -> None:
        self.port.toggle_class(self.drop, "dragging", False)

    def _on_drop(self, event: Any) -> Any:
        self.port.prevent_default(event)
        self.port.toggle_class(self.drop, "dragging", False)
        files = self.port.dropped_files(event)
        if files:
            return self.load_files(files)
        return None

    async def load_files(self, files: list[Any]) -> None:
        """Read files (any number) as one corpus; on any problem, say which file and keep
        the corpus as it was."""
        port = self.port
        self.hide_message()
        named = [(port.file_name(f), port.file_size(f)) for f in files]
        total = sum(size for _, size in named)
        if total > MAX_CORPUS_BYTES:
            name, size = max(named, key=lambda ns: ns[1])
            label = name if len(named) == 1 else f"{len(named)} files together ({name} is the largest)"
            self.show_message(Upload(label, total, problem="too_big").message())
            return
        if not self.port.checked(self.append_box) and self._asks_first(
                f"{named[0][0] if len(named) == 1 else plural(len(named), 'file')}", lambda: self.load_files(files)):
            return
        self._say(f"Reading {plural(len(files), 'file')}…")
        blobs = []
        for f, (name, _size) in zip(files, named):
            blobs.append((name, await port.file_bytes(f)))
            await port.sleep(0)
        await self._decode_and_use(blobs, lenient=False)

    async def _decode_and_use(self, blobs: list[tuple[str, bytes]], lenient: bool) -> None:
        texts, encodings = [], set()
        for name, data in blobs:
            steps = decode_slices(name, data, lenient)
            while True:
                try:
                    next(steps)
                except StopIteration as stop:
                    upload = stop.value
                    break
                await self.port.sleep(0)
            if upload.problem:
                self._pending = blobs if upload.problem in ("binary", "utf16", "not_utf8") else None
                self.show_message(upload.message(), lenient=self._pending is not None)
                self._say(self.status_text())  # the corpus in use is unchanged
                return
            texts.append(upload.text)
            encodings.add(upload.encoding)
        self._pending = None
        if any(map(is_counts_file, texts)):
            await self._use_counts(blobs, texts)
            return
        names = tuple(name for name, _ in blobs)
        text = join_texts(texts)
        c = self.state.corpus
        if self.port.checked(self.append_box) and not c.is_empty:
            text = join_texts([c.text, text])
            names = c.files + names
        label = names[0] if len(names) == 1 else f"{len(names)} files"
        # the corpus's SHA-256 (the page's address and store name it by it), hashed here in
        # slices: the page would otherwise hash 30 MB in one go when the corpus is set
        await drive(self.port, sha256_text_steps(text))
        # subtle: files are running text unless they parse as `word count` lines
        self.chosen_format = None
        fmt, self.detect_hint = detect_format(text)
        self.port.set_value(self.sample, "")
        self.upload = Corpus(text, fmt, label, None, names, "")
        self.state.set_corpus(self.upload)
        size = sum(len(d) for _, d in blobs)
        self._say(f"Loaded {', '.join(name for name, _ in blobs)} ({format_size(size)}"
                  f"{', decoded leniently' if lenient else ''}"
                  f"{''.join(f', decoded from {e}' for e in sorted(encodings - {'UTF-8'}))}) as "
                  f"{'a word-count list' if fmt == 'word_counts' else 'running text'}.")

    async def _use_counts(self, blobs: list[tuple[str, bytes]], texts: list[str]) -> None:
        """Counts files (recognised by their content) as the corpus: one, or several merged
        in the order given (as `subwordlab count --merge`; long ones in the compute session).
        A file that is not a valid counts file, or counts files mixed with text, get one
        message; the corpus stays as it was."""
        names = [name for name, _ in blobs]
        text_files = [name for name, t in zip(names, texts) if not is_counts_file(t)]
        if text_files:
            self.show_message(f"“{text_files[0]}” is text, but the other files are counts files made by “subwordlab count”: "
                              "load either text or counts files. Nothing was loaded; your corpus is unchanged.")
            self._say(self.status_text())
            return
        if len(texts) == 1:  # its header (a long one's rows are read in the compute session)
            text, problem = texts[0], head_problem(names[0], texts[0])
        elif sum(map(len, texts)) <= CHECK_IN_PAGE_CHARS:
            text, problem = merge_files(names, texts)
        else:
            self._say(f"Merging {plural(len(texts), 'counts file')}…")
            text, problem = await self._merge_in_session(names, texts)
        if problem:
            self.show_message(problem)
            self._say(self.status_text())
            return
        # hashed in slices, as a text is (a 19 MB counts file hashed in one go held the page)
        await drive(self.port, sha256_text_steps(text))
        self.chosen_format, self.detect_hint = None, ""
        self.port.set_value(self.sample, "")
        label = names[0] if len(names) == 1 else f"{len(names)} counts files"
        self.upload = Corpus(text, "counts", label, None, tuple(names), "")
        self.state.set_corpus(self.upload)
        size = sum(len(d) for _, d in blobs)
        self._say(f"Loaded {', '.join(names)} ({format_size(size)}) as pre-token counts: "
                  f"{describe(counts_head(text))}. Training reads them as “subwordlab train --counts” does.")

    async def _merge_in_session(self, names: list[str], texts: list[str]) -> tuple[str, str]:
        """``merge_files`` computed by the compute session (reading and merging 19 MB of
        counts took seconds of the page's thread): ``(merged text, "")`` or ``("", why not)``."""
        replies, failed = await self._ask_session(*merge_request(names, texts))
        if failed is not None:
            return "", f"These counts files could not be merged ({failed}). Nothing was loaded; your corpus is unchanged."
        if not replies or "error" in replies[-1]:
            why = replies[-1]["error"] if replies else "no answer"
            return "", f"These counts files could not be merged: {why}. Nothing was loaded; your corpus is unchanged."
        return "".join(str(r["counts"]) for r in replies[:-1]), str(replies[-1]["problem"])

    async def _ask_session(self, request: str, corpus: str) -> tuple[list[dict[str, Any]], str | None]:
        """The compute session's replies to a budgeted request on a long ``corpus`` (the
        statistics, a merge): switching corpus meanwhile lets it finish rather than terminate
        the worker. ``(replies, None)``, the last one the answer or ``{"error"}``; or
        ``(replies so far, why)`` when the worker failed or was late."""
        replies: list[dict[str, Any]] = []
        budget = STATS_BUDGET_SECONDS + STATS_BUDGET_SECONDS_PER_MB * len(corpus) / 1e6
        try:
            await self.port.compute(request, corpus, lambda text: replies.append(json.loads(text)), budget)
        except (OSError, TimeoutError) as exc:
            return replies, str(exc)
        return replies, None

    def _check_counts(self) -> None:
        """Say (or stop saying) that a counts corpus does not fit the Train tab's pipeline."""
        c, why = self.state.corpus, ""
        if c.format == "counts":
            try:
                why = mismatch(counts_head(c.text), self.state.spec)
            except subwordlab.CorpusError:
                return  # (the statistics say what is wrong with the file)
        if why:
            self.show_message(why)
            self._counts_problem = True
        elif self._counts_problem:
            self.hide_message()

    def _on_lenient(self, _event: Any) -> Any:
        if self._pending is None:
            return None
        blobs, self._pending = self._pending, None
        self.hide_message()
        return self._decode_and_use(blobs, lenient=True)

    # --- messages -----------------------------------------------------------------
    def show_message(self, text: str, lenient: bool = False) -> None:
        self._parse_problem = self._counts_problem = False
        self.port.set_text(self.message_text, text)
        self.port.set_hidden(self.lenient, not lenient)
        self.port.set_hidden(self.message, False)

    def hide_message(self) -> None:
        self.port.set_hidden(self.message, True)
        self.port.set_hidden(self.replace_button, True)
        self._parse_problem = self._counts_problem = False

    def _say(self, text: str) -> None:
        self.port.set_text(self.status, text)

    # --- rendering ----------------------------------------------------------------
    def _on_state(self, topic: str) -> None:
        if topic == "corpus":
            self.render()
            self._check_counts()
        elif topic == "spec":
            self._check_counts()

    def format_note_text(self) -> str:
        """Why the text is read as it is. Example: 'Detected: running text.'"""
        c = self.state.corpus
        if c.format == "counts":
            return "A counts file made by “subwordlab count”: its pre-tokens and their counts, read as they are."
        what = "a word-count list" if c.format == "word_counts" else "running text"
        if self.chosen_format:
            return f"Your choice: {what}."
        if c.sample is not None:
            return f"This sample is {what}."
        if c.is_empty:
            return "Detected as you type or paste: running text, or a word-count list."
        hint = f" It is not a word-count list: {self.detect_hint}." if self.detect_hint else ""
        return f"Detected: {what}.{hint}"

    def status_text(self) -> str:
        """The status line for the corpus in use (an action's own message may replace it)."""
        c = self.state.corpus
        if c.is_empty:
            return "The corpus is empty: pick a sample, paste text, or drop a file."
        if c.format == "counts":
            try:
                return f"In use: “{c.name}”, {describe(counts_head(c.text))}."
            except subwordlab.CorpusError:
                return f"In use: “{c.name}”, a counts file that cannot be read."
        what = "a word-count list" if c.format == "word_counts" else "running text"
        return f"In use: “{c.name}”, {plural(len(c.text), 'character')} of {what}."

    def render(self) -> None:
        """Everything the panel shows about the corpus in use; a new corpus also clears the
        messages and the status of the one before (they described that one)."""
        port, c = self.port, self.state.corpus
        self.hide_message()
        self._replacement = None
        self._say(self.status_text())
        back = self.upload if self.upload is not None and c is not self.upload else None  # the upload to go back to
        port.set_hidden(self.back, back is None)
        if back is not None:
            port.set_text(self.back, f"Back to your upload “{back.name}”")
        for box, fmt in ((self.format_counts, "word_counts"), (self.format_text, "text")):
            port.set_checked(box, c.format == fmt)  # (a counts file is neither)
        port.set_text(self.format_note, self.format_note_text())
        port.set_hidden(self.format_auto, not self.chosen_format)
        if c.sample is not None:
            port.set_value(self.sample, c.sample)
            port.set_text(self.sample_desc, SAMPLES[c.sample].description)
        else:
            port.set_text(self.sample_desc, "Your own text: edit it freely, or pick a sample to start again.")
        if self.shown_text != c.text:
            if c.format == "counts":  # (its JSON is what training reads: shown, not edited)
                port.set_value(self.text, c.text[:PREVIEW_CHARS])
                port.set_attr(self.text, "readonly", "")
                port.set_text(self.text_note, "(a counts file, read-only: drop text or pick a sample to replace it)")
                self.shown_text = None
            elif len(c.text) > EDIT_LIMIT:
                port.set_value(self.text, c.text[:PREVIEW_CHARS])
                port.set_attr(self.text, "readonly", "")
                port.set_text(self.text_note, f"(a preview of the first {PREVIEW_CHARS:,} of {len(c.text):,} "
                                              "characters; training uses all of it)")
                self.shown_text = None
            else:
                port.set_value(self.text, c.text)
                port.remove_attr(self.text, "readonly")
                port.set_text(self.text_note, "")
                self.shown_text = c.text
        port.set_text(self.source, f"{c.name}" + (f" · files: {', '.join(c.files)}" if c.files and c.name != c.files[0] else ""))
        port.set_text(self.attribution, c.attribution)
        port.set_hidden(self.attribution, not c.attribution)
        if self._stats_task is not None:
            self._stats_task.cancel()
        if len(c.text) > CHECK_IN_PAGE_CHARS:  # counted in the compute session: no old numbers meanwhile
            for el in self.stats.values():
                port.set_text(el, "…")
        self._stats_task = port.spawn(self._compute_stats(c))

    async def _compute_stats(self, corpus: Corpus) -> None:
        """Count the corpus (a long one in the compute session, off the page) and show the
        numbers, or why a word-count list or counts file cannot be used."""
        if corpus.is_empty:
            self._show_stats(CorpusStats())
            return
        if len(corpus.text) <= CHECK_IN_PAGE_CHARS:
            stats, problem = corpus_stats(corpus.text, corpus.format)
        else:
            stats, problem = await self._stats_in_session(corpus)
        self._show_stats(stats)
        if problem:
            self.show_message(problem)
            self._parse_problem = corpus.format == "word_counts"
        elif self._parse_problem:
            self.hide_message()
            self._parse_problem = False

    async def _stats_in_session(self, corpus: Corpus) -> tuple[CorpusStats, str]:
        """``corpus_stats`` computed by the compute session (the corpus crosses once, and
        stays there for training); only a late or failed answer is said."""
        replies, failed = await self._ask_session(json.dumps({"op": STATS_OP, "format": corpus.format}), corpus.text)
        if failed is not None:
            return CorpusStats(), (f"The corpus could not be counted ({failed}); it is loaded as it is, "
                                   "and training reads it as usual.")
        if not replies or "error" in replies[-1]:
            return CorpusStats(), f"The corpus could not be counted: {replies[-1]['error'] if replies else 'no answer'}"
        return stats_from_reply(replies[-1])

    def _show_stats(self, stats: CorpusStats) -> None:
        port = self.port
        self.last_stats = stats
        values = {"chars": stats.chars, "bytes": stats.bytes, "words": stats.words,
                  "distinct_words": stats.distinct_words, "distinct_chars": stats.distinct_chars}
        for key, el in self.stats.items():
            port.set_text(el, f"{values[key]:,}")
        rows = []
        for word, count in stats.top_words:
            row = port.clone_template("tpl-top-word")
            port.set_text(port.query(".word", row), word)
            port.set_text(port.query(".count", row), f"{count:,}")
            rows.append(row)
        port.replace_children(self.top, rows)
        self.state.set_corpus_stats(stats)
