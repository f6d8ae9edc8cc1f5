"""The Files panel: download the current tokenizer, or load one from a file.

Downloads (see exports.py for the contents): our JSON document with provenance, a Hugging
Face ``tokenizer.json`` (or, where the pipeline has no exact equivalent, the core's
reason, shown instead of the button), and a readable vocabulary/merges text file. The
port saves them with a Blob, an object URL and a temporary ``<a download>``.

Import: a Subword Lab JSON or a tokenizer.json (e.g. a real model's). It becomes the
current tokenizer — the one Inspect and Compare use — until the user trains again or
presses "Use the trained tokenizer". A bad file gets one message naming the file and the
problem, and nothing else changes. A BPE or WordPiece model of ours (e.g. one the command
line trained on a big corpus) can then be stepped through merge by merge on Train
("Step through its merges", replay_view.py); of a Unigram model the page says it shows
the final model only.
"""

from __future__ import annotations

import gc
from typing import Any

from subwordlab.base.sha256 import sha256_steps

from . import model_sources
from .exports import Download, ImportFailed, hf_json, import_model, import_steps, looks_like_rank_file, our_json, vocab_file
from .pattern_guard import PatternGuard, checking_text, tokenizer_check
from .replay_view import ReplayError, is_replay, unigram_note, use_replay
from .tasks import drive, failure_message
from .well_known import WELL_KNOWN_BY_KEY, check, groups, same_file

KINDS = ("ours", "hf", "vocab")
_MAKERS = {"ours": our_json, "hf": hf_json, "vocab": vocab_file}


def describe_tokenizer(tok: Any, source: str) -> str:
    """Example: 'Byte-level BPE tokenizer, 4,000 tokens, trained here (step 3,744).'"""
    from .wording import PRESET_SHORT

    preset = tok.spec.get("preset")
    name = PRESET_SHORT.get(preset, getattr(tok.model, "type", "custom"))
    return f"{name} tokenizer, {tok.vocab_size:,} tokens, {source}."


BIG_MODEL_BYTES = 1_000_000  # model files above this load in slices (a whole parse would hold the page)
LOAD_SLICE_SECONDS = 0.03  # a sliced load hands the page back this often
HF_CHECK_MAX_TOKENS = 50_000  # bigger vocabularies are converted to tokenizer.json only on request


def human_size(n: int) -> str:
    """Example: 1536 -> '1.5 KB'; 12 -> '12 bytes'."""
    if n < 1000:
        return f"{n} bytes"
    if n < 1_000_000:
        return f"{n / 1000:.1f} KB"
    return f"{n / 1_000_000:.1f} MB"


class FilesPanel:
    """Export / import of model files (`Panel(port, state, app)`, see app.py)."""

    def __init__(self, port: Any, state: Any, app: Any = None) -> None:
        self.port, self.state, self.app = port, state, app
        q = port.query
        self.current = q("#files-current")
        self.buttons = {k: q(f"#files-dl-{k}") for k in KINDS}
        self.notes = {k: q(f"#files-note-{k}") for k in KINDS}
        self.input = q("#files-import")
        self.drop = q("#files-drop")
        self.status = q("#files-status")
        self.error = q("#files-error")
        self.revert = q("#files-revert")
        for kind in KINDS:
            port.on(self.buttons[kind], "click", lambda _e, k=kind: self._on_download(k))
        port.on(self.input, "change", self._on_input)
        port.on(self.drop, "dragover", self._on_drag)
        port.on(self.drop, "dragleave", lambda _e: port.toggle_class(self.drop, "dragging", False))
        port.on(self.drop, "drop", self._on_drop)
        port.on(self.revert, "click", lambda _e: self.use_trained())
        self.replay_button, self.replay_note = q("#files-replay"), q("#files-replay-note")
        self._replayable: tuple[Any, str] | None = None  # (a loaded model of ours, its file name)
        self._unigram: Any = None  # a loaded Unigram model of ours: the note says it has no steps
        port.on(self.replay_button, "click", lambda _e: self.step_through())
        self.well_known_box = q("#files-well-known")
        rows = []
        for group, items in groups():  # "OpenAI", "Open models", "Teaching": a row each
            row = port.create("div", "well-known-group")
            port.set_attr(row, "role", "group")
            port.set_attr(row, "aria-label", group)
            port.append(row, port.create("span", "well-known-group-name", group))
            for item in items:
                text = item.title if item.shipped else f"{item.title} (your copy)"
                button = port.create("button", "button button-small", text)
                port.set_attr(button, "type", "button")
                port.set_attr(button, "data-vocab", item.key)
                if item.shipped:
                    port.set_attr(button, "title", f"{item.source}; {human_size(item.size)}")
                else:
                    port.set_attr(button, "data-shipped", "no")
                    port.set_attr(button, "title", f"Not shipped with this page: load your own copy. {item.source}")
                port.on(button, "click", lambda _e, k=item.key: self.load_well_known(k))
                port.append(row, button)
            rows.append(row)
        port.replace_children(self.well_known_box, rows)
        self._own_copy_of = ""  # the key of a not-shipped tokenizer whose file the user is asked for
        self._hf_cache: tuple[Any, Download] | None = None
        self.guard = getattr(app, "guard", None) or PatternGuard(port)
        self._hf_task: Any = None
        self._loads = 0  # loads started; a later one supersedes a running sliced load
        self._well_known: dict[str, Any] = {}  # key -> tokenizer, fetched and parsed once
        self.visible = False
        state.subscribe(self._on_state)
        self.render()

    # --- showing ------------------------------------------------------------------------
    def on_show(self) -> None:
        self.visible = True
        self.render()

    def on_hide(self) -> None:
        self.visible = False

    def _on_state(self, topic: str) -> None:
        if topic in ("recording", "step", "tokenizer") or (topic == "progress" and self.visible):
            self.render()

    def tokenizer(self) -> tuple[Any, str]:
        """(the current tokenizer, where it came from) or (None, why there is none)."""
        st = self.state
        tok, why = st.current_tokenizer()
        if tok is None:
            return None, why
        if st.imported is not None:
            return tok, f"loaded from {st.imported_name}"
        if is_replay(st.recording):
            return tok, f"replayed from {st.recording.source} (step {st.step:,})"
        return tok, f"trained here (step {st.step:,})"

    def render(self) -> None:
        port = self.port
        tok, source = self.tokenizer()
        port.set_hidden(self.revert, getattr(self.state, "imported", None) is None)
        self._render_replay()
        if tok is None:
            port.set_text(self.current, source)
            for kind in KINDS:
                port.set_disabled(self.buttons[kind], True)
                port.set_text(self.notes[kind], "")
            return
        port.set_text(self.current, describe_tokenizer(tok, source))
        for kind in ("ours", "vocab"):
            port.set_disabled(self.buttons[kind], False)
            port.set_text(self.notes[kind], "")
        if not self.visible:
            return  # the HF export check waits until the panel is looked at
        if self._hf_cache is not None and self._hf_cache[0] is tok:
            self._show_hf(self._hf_cache[1])
            return
        if tok.vocab_size > HF_CHECK_MAX_TOKENS:
            # subtle: converting a vocabulary this big holds the page for a second: only on request
            port.set_disabled(self.buttons["hf"], False)
            port.set_text(self.notes["hf"], f"Converted when you download it ({tok.vocab_size:,} tokens take a moment).")
            port.toggle_class(self.notes["hf"], "warn", False)
            return
        # subtle: exporting a big model takes a moment; paint the panel first
        port.set_disabled(self.buttons["hf"], True)
        port.set_text(self.notes["hf"], "Checking whether this tokenizer has an exact tokenizer.json…")
        port.toggle_class(self.notes["hf"], "warn", False)
        if self._hf_task is not None and not self._hf_task.done():
            self._hf_task.cancel()
        self._hf_task = port.spawn(self._check_hf(tok))

    async def _check_hf(self, tok: Any) -> None:
        await self.port.sleep(0)
        current, _ = self.tokenizer()
        if current is tok:
            self._show_hf(self._hf(tok))

    def _show_hf(self, hf: Download) -> None:
        port = self.port
        port.set_disabled(self.buttons["hf"], not hf.available)
        note = hf.reason if not hf.available else "; ".join(hf.warnings)
        port.set_text(self.notes["hf"], note)
        port.toggle_class(self.notes["hf"], "warn", not hf.available)

    def _hf(self, tok: Any) -> Download:
        if self._hf_cache is None or self._hf_cache[0] is not tok:
            self._hf_cache = (tok, hf_json(tok))
        return self._hf_cache[1]

    # --- downloads ------------------------------------------------------------------------
    def _on_download(self, kind: str) -> Any:
        tok, _ = self.tokenizer()
        if kind == "hf" and tok is not None and tok.vocab_size > HF_CHECK_MAX_TOKENS and \
                not (self._hf_cache is not None and self._hf_cache[0] is tok):
            return self._download_big(kind)
        return self.download(kind)

    async def _download_big(self, kind: str) -> None:
        self.say("Converting to tokenizer.json…")
        await self.port.sleep(0.05)  # paint the message before the long conversion
        d = self.download(kind)
        if d is not None:
            self._show_hf(d)

    def download(self, kind: str) -> Download | None:
        port = self.port
        tok, why = self.tokenizer()
        if tok is None:
            self.say(why, error=True)
            return None
        d = self._hf(tok) if kind == "hf" else _MAKERS[kind](tok)
        if not d.available:
            self.say(d.reason, error=True)
            return d
        port.download(d.name, d.text, d.mime)
        self.say(f"Saved {d.name} ({human_size(d.size)}).")
        return d

    # --- import -----------------------------------------------------------------------------
    def _on_input(self, _event: Any) -> Any:
        files = self.port.input_files(self.input)
        self.port.clear_files(self.input)
        return self.load(files)

    def _on_drag(self, event: Any) -> None:
        self.port.prevent_default(event)
        self.port.toggle_class(self.drop, "dragging", True)

    def _on_drop(self, event: Any) -> Any:
        self.port.prevent_default(event)
        self.port.toggle_class(self.drop, "dragging", False)
        return self.load(self.port.dropped_files(event))

    async def load(self, files: list[Any]) -> None:
        port = self.port
        if not files:
            return
        if len(files) > 1:
            self.say("Drop one model file at a time (a Subword Lab .json, a tokenizer.json or a .tiktoken file).", error=True)
            return
        name = port.file_name(files[0])
        own_copy_of, self._own_copy_of = self._own_copy_of, ""
        self._loads += 1
        mine = self._loads  # a later load (chosen while this one runs) wins
        self.say(f"Reading {name}…")
        await port.sleep(0)
        try:
            data = await port.file_bytes(files[0])
        except OSError as exc:
            self.say(f"{name!r} could not be read: {exc}", error=True)
            return
        await self.load_bytes(name, data, mine, own_copy_of)

    async def load_well_known(self, key: str) -> Any:
        """Fetch a well-known tokenizer shipped with the page (only now) and make it the
        current tokenizer; the tokenizer, or None (the message says why). One the page does
        not ship: say why and open the file picker for the user's own copy (``load``)."""
        item = WELL_KNOWN_BY_KEY[key]
        if not item.shipped:
            self._own_copy_of = key
            self.say(f"{item.title} is not shipped with this page. {item.why_not} Choose the file now "
                     "(or drop it here); its SHA-256 is compared with the one this page knows.")
            self.port.open_picker(self.input)
            return None
        self._own_copy_of = ""
        self._loads += 1
        mine = self._loads
        tok = await self.fetch_well_known(key, mine)
        if tok is None or mine != self._loads:
            return None  # failed (said so), or superseded meanwhile
        self.state.set_imported(tok, item.title, key=key)
        self.say(f"{item.title}: {tok.vocab_size:,} tokens. It is now the tokenizer of Inspect and Compare.")
        return tok

    async def fetch_well_known(self, key: str, mine: int | None = None) -> Any:
        """A well-known tokenizer (fetched once, SHA-256 checked, parsed; cached), or None
        with the reason said. Compare uses it for its well-known column."""
        if key in self._well_known:
            return self._well_known[key]
        port = self.port
        item = WELL_KNOWN_BY_KEY[key]
        if not item.shipped:
            self.say(f"{item.title} is not shipped with this page: load your own copy with its button on "
                     "Files first.", error=True)
            return None
        self.say(f"Fetching {item.title} ({human_size(item.size)})…")
        try:
            data = await port.fetch_bytes(item.url)
            digest = await self._digest(data)
            check(item, digest)
        except (OSError, ValueError) as exc:
            self.say(f"{item.title} could not be loaded: {exc}", error=True)
            return None
        imported = await self.parse(item.file, data, self._loads if mine is None else mine, sha256=digest)
        if imported is not None:
            self._well_known[key] = imported.tokenizer
        return imported.tokenizer if imported is not None else None

    async def load_bytes(self, name: str, data: bytes, mine: int, own_copy_of: str = "") -> Any:
        """Parse a model file's bytes and make it the current tokenizer (or say why not).
        ``own_copy_of``: the key of the not-shipped well-known tokenizer the user was asked
        for; the file is compared with its pinned SHA-256 (and loads either way)."""
        imported = await self.parse(name, data, mine)
        if imported is None:
            return None
        # (a tokenizer.json's import hashed the file already; our JSON may name another file's)
        digest = (imported.tokenizer.spec.get("source_sha256") if imported.kind == "hf" else None) or await self._digest(data)
        # a regex of the file's own (Split, Replace, ByteLevel) is tried in the compute worker (the pattern guard)
        # on the text Inspect will encode next; if it backtracks, the current tokenizer stays
        check = tokenizer_check(imported.tokenizer, self.state.inspect.text, "the Inspect text")
        if check is not None:
            self.say(checking_text(check))
            refusal = await self.guard.verdict(check)
            if mine != self._loads:
                return None
            if refusal is not None:
                self.say(f"{name!r} was not loaded. {refusal}", error=True)
                return None
        # named after its source: a copy of a tokenizer the page knows by the model's name
        # (every Hugging Face file is "tokenizer.json"), any other file by its own name
        shown = f"{WELL_KNOWN_BY_KEY[own_copy_of].title} (your copy, {name})" if own_copy_of else name
        self.state.set_imported(imported.tokenizer, shown, sha256=digest)
        said = imported.summary + " It is now the tokenizer of Inspect and Compare."
        if own_copy_of:
            item = WELL_KNOWN_BY_KEY[own_copy_of]
            said += " " + same_file(item, digest)
            self._well_known[own_copy_of] = imported.tokenizer  # Compare's well-known column can use it now
        self.say(said)
        self._offer_replay(imported, name)
        return imported.tokenizer

    async def parse(self, name: str, data: bytes, mine: int, sha256: str | None = None) -> Any:
        """A model file's bytes as an ``exports.Imported``; None if it failed (said) or a
        later load superseded it. ``sha256``: the file's, when it was hashed already (a
        well-known file is checked before it is read: not hashed twice)."""
        try:
            if len(data) > BIG_MODEL_BYTES or looks_like_rank_file(data):
                # a big file loads in slices (a tiktoken rank file; a tokenizer.json is
                # parsed and its merges indexed a chunk at a time), the page responding in between
                imported = await self._load_in_slices(name, data, mine, sha256)
            else:
                imported = import_model(name, data, sha256)
            if imported is not None:  # (the compute session reads its own copy: model_sources.py)
                model_sources.remember(imported.tokenizer, name, data)
            return imported
        except ImportFailed as exc:
            self.say(str(exc), error=True)
            return None
        except Exception as exc:  # noqa: BLE001 - MemoryError, RecursionError...: a message, never a stuck "Reading…"
            self.say(f"{name!r} could not be loaded. " + failure_message(exc, "Loading it"), error=True)
            return None

    async def _digest(self, data: bytes) -> str:
        """The SHA-256 of a model file, hashed in slices (the page painting between them)."""
        return await drive(self.port, sha256_steps(data), LOAD_SLICE_SECONDS)

    async def _load_in_slices(self, name: str, data: bytes, mine: int, sha256: str | None) -> Any:
        """``import_steps`` driven a slice at a time, the progress shown between slices;
        None if another load started meanwhile (this one is dropped)."""
        def between(progress: tuple[int, int]) -> bool:
            if mine != self._loads:
                return False
            done, total = progress
            self.say(f"Reading {name}… {100 * done // max(1, total)}%")
            return True

        # subtle: the cycle collector would walk every object made so far at each full pass
        # (a pause that grows with the file: 50-100 ms near the end of a 33 MB file); it
        # rests during the load, and what the load made is then set aside from its passes
        # (gc.freeze: a vocabulary and rank table hold no cycles; they are freed by counting)
        collecting = gc.isenabled()
        gc.disable()
        try:
            return await drive(self.port, import_steps(name, data, sha256), LOAD_SLICE_SECONDS, between)
        finally:
            gc.freeze()
            if collecting:
                gc.enable()

    # --- a model of ours stepped through on Train (replay_view.py) ----------------------------
    def _offer_replay(self, imported: Any, name: str) -> None:
        """After a load: offer to step through a BPE or WordPiece model of ours; say what a
        Unigram one can show."""
        tok = imported.tokenizer
        kind = getattr(tok.model, "type", "")
        self._replayable = (tok, name) if imported.kind == "ours" and kind in ("BPE", "WordPiece") else None
        self._unigram = tok if imported.kind == "ours" and kind == "Unigram" else None
        self.port.set_text(self.replay_note, unigram_note(name) if self._unigram is not None else "")
        self._render_replay()

    def _render_replay(self) -> None:
        port, st = self.port, self.state
        # the loaded model, if it is the one in use and can be stepped through
        offered = self._replayable[0] if self._replayable is not None and st.imported is self._replayable[0] else None
        port.set_hidden(self.replay_button, offered is None)
        port.set_hidden(self.replay_note, self._unigram is None or st.imported is not self._unigram)
        if offered is not None:
            merges = getattr(offered.model, "merges", None)  # (WordPiece keeps its tokens, not its merges)
            port.set_text(self.replay_button, f"Step through its {len(merges):,} merges on Train" if merges is not None
                          else "Step through its merges on Train")

    def step_through(self) -> bool:
        """The loaded model's merges become the Train tab's steps (its algorithm and options
        with them), the tokenizer at each step the one Inspect and Compare use. False (said
        why) if they cannot."""
        if self._replayable is None:
            return False
        tok, name = self._replayable
        try:
            use_replay(self.state, tok, name)
        except ReplayError as exc:
            self.say(f"{name!r} cannot be stepped through: {exc}.", error=True)
            return False
        self._replayable = None
        rec = self.state.recording
        self.say(f"{name}: {len(rec.steps):,} steps on the Train tab, in the order they were learned. The file has no "
                 "counts and no competing pairs (only its corpus could say them); the segmentations are of the corpus "
                 "in use, so load a sample of the model's corpus on Corpus to see its words.")
        if self.app is not None:
            self.app.show_panel("train", focus=True)
        return True

    def use_trained(self) -> None:
        self._loads += 1  # (a running load is dropped)
        self.state.set_imported(None, "")
        self.say("Back to the tokenizer trained here.")

    def say(self, text: str, error: bool = False) -> None:
        port = self.port
        port.set_hidden(self.error, not error)
        port.set_hidden(self.status, error)
        port.set_text(self.error if error else self.status, text)
        port.set_text(self.status if error else self.error, "")  # no "Reading X…" left beside an error
