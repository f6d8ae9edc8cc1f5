"""The Compare panel: 2–4 configurations trained on the current corpus, side by side.

One click trains every configuration at the same vocabulary size (cooperatively, round
robin, with a progress bar per column and a Cancel button). Then:

- one text, shown in each column as coloured tokens; tokens where the columns cut the
  text at different places are marked (``data-disagree``) — markers such as ``·``, ``▁``,
  ``##`` and ``</w>`` do not count, only where the algorithms split;
- a statistics table on that text (``subwordlab.stats.text_stats``), the best cell of
  each row marked;
- tokens per language for the six UDHR translations, with parity relative to a chosen
  reference language, as a grouped bar chart (and a table with the numbers);
- the compression curve: tokens per character of a held-out text against vocabulary
  size, one line per configuration, measured at recorded steps (``Recording.tokenizer_at``).

The current tokenizer (trained on the Train tab, or imported on the Files tab) can join
as a column of its own. This module holds the configurations (what a share link carries)
and runs them; compare_results.py draws the four results above (`CompareResults`, mixed
into the panel). The view model is in compare.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from subwordlab.options import PRESETS, TARGETS

from . import compare as cm
from . import pattern_guard
from .build import el as spec
from .compare_results import HELDOUT_CHOICES, MAX_TEXT_CHARS, CompareResults
from .languages import DEFAULT_SET, LANGUAGE_SETS, SET_TITLES
from .options_form import changed_options, option_field, parse_field, preset_items, value_text
from .pattern_guard import PatternGuard
from .roving import RovingFocus, hand_focus
from .state import Corpus
from .well_known import WELL_KNOWN, WELL_KNOWN_BY_KEY
from .wording import plural

MEASURE_WITH = ("cl100k_base", "o200k_base", "qwen3")  # Train's "Measure it against real tokenizers": GPT-4, GPT-4o, an open model
DEFAULT_CONFIGS: tuple[tuple[str, dict], ...] = (("bpe", {"unk_token": "<unk>"}), ("wordpiece", {}), ("unigram", {}))
DEFAULT_VOCAB = 1000
DEFAULT_TEXT = ("Everyone has the right to education. Unbelievably, tokenizers disagree about "
                "words like “untokenizable” and “counterrevolutionaries”.")
PAINT_SECONDS = 0.1  # the progress cards are redrawn at most this often
OPTION_SKIP = frozenset(TARGETS) | {"top_k"}


def column_labels(configs: Sequence[tuple[str, dict]]) -> list[str]:
    """Readable, distinct labels. Example: [('bpe', {}), ('bpe', {'lowercase': True})] ->
    ['BPE', 'BPE · lowercase']; identical configurations get '#2'."""
    labels: list[str] = []
    for preset, options in configs:
        bits = []
        for k, v in options.items():
            if k in ("unk_token", "vocab_size", "num_merges"):
                continue
            bits.append(k if v is True else f"{k}={value_text(v) or 'none'}")
        label = (PRESETS[preset].short if preset in PRESETS else preset) + (" · " + ", ".join(bits[:2]) if bits else "")
        n = sum(1 for existing in labels if existing == label or existing.startswith(label + " #"))
        labels.append(label if n == 0 else f"{label} #{n + 1}")
    return labels


class ComparePanel(CompareResults):
    """`Panel(port, state, app)`; see app.py for how panels are registered."""

    def __init__(self, port: Any, state: Any, app: Any = None) -> None:
        self.port, self.state, self.app = port, state, app
        q = port.query
        self.vocab = q("#cmp-vocab")
        self.config_list = q("#cmp-configs")
        self.add_button = q("#cmp-add")
        self.current_box = q("#cmp-current")
        self.current_label = q("#cmp-current-label")
        self.well_known = q("#cmp-well-known")
        self.diff_a, self.diff_b = q("#cmp-diff-a"), q("#cmp-diff-b")
        self.run_button = q("#cmp-run")
        self.cancel_button = q("#cmp-cancel")
        self.message = q("#cmp-message")
        self.progress = q("#cmp-progress")
        self.results = q("#cmp-results")
        self.text_box = q("#cmp-text")
        self.disagree_note = q("#cmp-disagree")
        self.columns_box = q("#cmp-columns")
        self.stats_head = q("#cmp-stats-head")
        self.stats_body = q("#cmp-stats-body")
        self.reference = q("#cmp-reference")
        self.parity_box = q("#cmp-parity")
        self.parity_table = q("#cmp-parity-table")
        self.parity_note = q("#cmp-parity-note")
        self.parity_files = q("#cmp-parity-files")
        self.parity_clear = q("#cmp-parity-clear")
        self.parity_message = q("#cmp-parity-message")
        self.parity_csv, self.languages = q("#cmp-parity-csv"), q("#cmp-languages")
        self.parity_sort = (-2, False)  # the premium table: the languages' own order, then the user's
        self.heldout = q("#cmp-heldout")
        self.curve_box = q("#cmp-curve")
        self.curve_note = q("#cmp-curve-note")
        self.legend = q("#cmp-legend")
        # each chart is one Tab stop; arrow keys move between its bars / dots
        RovingFocus(port, self.parity_box, "[tabindex]")
        RovingFocus(port, self.curve_box, "[tabindex]")
        for tpl in ("tpl-cmp-config", "tpl-cmp-progress", "tpl-cmp-column"):
            port.clone_template(tpl)  # a missing template fails now

        self.configs: list[tuple[str, dict]] = [(p, dict(o)) for p, o in DEFAULT_CONFIGS]
        self.run_state: cm.CompareRun | None = None
        self.labels: list[str] = []
        self.task: Any = None
        self.visible = False
        self.texts: dict[str, str] = {}  # fetched samples (UDHR, held-out)
        self.own_texts: dict[str, str] = {}  # the user's parallel texts: language name -> text
        self.parity_counts: list[dict[str, int | None]] = []
        self.parity_unknown: list[dict[str, float | None]] = []
        self.curves: list[list[tuple[int, int, float]]] = []
        self.encodings: list[Any] = []
        self.curve_task: Any = None  # the pending (debounced) curve measurement
        self.text_task: Any = None  # the compare text's pattern check after an edit
        self.parity_refused: list[str] = []  # the guard's messages for parity texts not counted
        self.guard = getattr(app, "guard", None) or PatternGuard(port)  # custom patterns are tried first
        # the current tokenizer as a column, as chosen: kept while there is no tokenizer to
        # show (the box is then disabled and unticked), e.g. on a reload before training
        self.current_wanted = False

        port.set_value(self.vocab, str(DEFAULT_VOCAB))
        self.auto_text = ""  # the text this panel chose (replaced on a corpus change unless edited)
        self._take_corpus_sentence()
        self._fill_select(self.languages, list(SET_TITLES.items()), DEFAULT_SET)
        self._fill_reference()
        self._fill_select(self.heldout, HELDOUT_CHOICES, "text")
        # (one not shipped with the page is the user's own copy, loaded with its button on Files)
        port.build_into(self.well_known, [
            spec("label", "inline-check", children=[
                spec("input", attrs={"type": "checkbox", "data-vocab": v.key, "title": v.source}),
                " " + (v.title if v.shipped else f"{v.title} (your copy, loaded on Files)")])
            for v in WELL_KNOWN])
        self._fill_pair_selects()
        port.on(self.add_button, "click", lambda _e: self.add_config())
        port.on(self.run_button, "click", lambda _e: self.start())
        port.on(self.cancel_button, "click", lambda _e: self.cancel())
        port.on(self.text_box, "input", lambda _e: self._on_text_input())
        port.on(self.reference, "change", lambda _e: self._on_reference())
        port.on(self.vocab, "change", lambda _e: self._changed())
        port.on(self.current_box, "change", lambda _e: self._on_current(port.checked(self.current_box)))
        port.on(self.well_known, "change", self._on_well_known)
        port.on(self.diff_a, "change", lambda _e: self._on_pair())
        port.on(self.diff_b, "change", lambda _e: self._on_pair())
        port.on(self.parity_files, "change", lambda _e: self.add_own_texts(port.input_files(self.parity_files)))
        port.on(self.parity_clear, "click", lambda _e: self.clear_own_texts())
        port.on(self.parity_table, "click", self.sort_parity)
        port.on(self.parity_csv, "click", lambda _e: self.download_parity_csv())
        port.on(self.languages, "change", lambda _e: self._on_languages())
        port.on(self.heldout, "change", lambda _e: self._on_heldout())
        state.subscribe(self._on_state)
        self.render_configs()
        self._render_current_option()

    # --- setup (also what a share link carries) ---------------------------------------------
    def vocab_size(self) -> int:
        raw = self.port.value(self.vocab).strip()
        if not raw.isdigit() or not 1 <= int(raw) <= 1_000_000:
            raise ValueError(f"the vocabulary size must be a whole number from 1 to 1,000,000, not {raw!r}")
        return int(raw)

    def well_known_keys(self) -> tuple[str, ...]:
        """The keys of the well-known tokenizers ticked as columns, in the page's order."""
        port = self.port
        return tuple(port.get_attr(box, "data-vocab") or "" for box in port.query_all("input[data-vocab]", self.well_known)
                     if port.checked(box))

    def _on_well_known(self, event: Any) -> None:
        if len(self.well_known_keys()) > cm.MAX_WELL_KNOWN:  # the box just ticked is one too many
            self.port.set_checked(self.port.event_target(event), False)
            self.say(f"At most {cm.MAX_WELL_KNOWN} well-known tokenizers at once: untick one first.", error=True)
        self._changed()

    def set_well_known(self, keys: Sequence[str]) -> None:
        for box in self.port.query_all("input[data-vocab]", self.well_known):
            self.port.set_checked(box, self.port.get_attr(box, "data-vocab") in keys)

    def setup(self) -> tuple[tuple[Any, ...], str, str | None, str | None, bool, tuple[str, ...], str]:
        """(configs as share.Config, text, reference id, held-out id, the current tokenizer
        as a column?, the well-known tokenizers' keys, the premium's language set) for a
        share link: every column."""
        from .share import Config

        try:
            size = self.vocab_size()
        except ValueError:
            size = DEFAULT_VOCAB
        configs = tuple(Config(p, {**o, "vocab_size": size}) for p, o in self.configs)
        return (configs, self.port.value(self.text_box), self.port.value(self.reference), self.port.value(self.heldout),
                self.current_wanted, self.well_known_keys(), self.language_set())

    def _changed(self) -> None:
        """The setup changed: the page's address keeps it (persist.py)."""
        self.state.notify("compare")

    def _fill_pair_selects(self) -> None:
        """The two columns whose disagreement is marked ("every column" by default), kept
        across runs while their labels stay."""
        port = self.port
        a, b = port.value(self.diff_a), port.value(self.diff_b)
        columns = [(label, label) for label in self.labels]
        self._fill_select(self.diff_a, [("", "any column")] + columns, a if a in self.labels else "")
        self._fill_select(self.diff_b, [("", "any other")] + columns, b if b in self.labels else "")

    def _on_pair(self) -> None:
        if self.run_state is not None and self.run_state.done and not self.run_state.cancelled:
            self.render_text()

    def _on_current(self, on: bool) -> None:
        self.current_wanted = on
        self._changed()

    def _on_text_input(self) -> None:
        self.on_text_edited()
        self._changed()

    def measure_current(self) -> Any:
        """Train's "Measure it against real tokenizers": Compare with the current tokenizer
        and ``MEASURE_WITH`` as its columns (no configuration to train), the premium over
        the 47 UDHR languages; shown and run at once. The run's task."""
        self.configs = []
        self.render_configs()
        self.current_wanted = True
        self._render_current_option()
        self.set_well_known([k for k in MEASURE_WITH if WELL_KNOWN_BY_KEY[k].shipped])
        self.port.set_value(self.languages, "udhr47")
        self._fill_reference()
        self._changed()
        if self.app is not None:
            self.app.show_panel("compare")
        return self.start()

    def _on_languages(self) -> Any:
        """Another set of languages: the reference list follows; after a run, the premium is
        counted again for them (their texts fetched once)."""
        self._fill_reference()
        self._changed()
        if self.run_state is not None and self.run_state.done and not self.run_state.cancelled:
            return self._spawn(self.compute_parity())
        return None

    def _on_reference(self) -> None:
        self.render_parity()
        self._changed()

    def _on_heldout(self) -> None:
        self.schedule_curves(0.0)
        self._changed()

    def apply_setup(self, configs: Sequence[Any], text: str, reference: str | None, heldout: str | None,
                    current: bool = False, well_known: Sequence[str] | str = (), languages: str = DEFAULT_SET) -> None:
        """Take a share link's Compare setup (configs with every option spelled out, and
        the other columns: the current tokenizer, well-known ones)."""
        port = self.port
        self.current_wanted = bool(current)
        keys = (well_known,) if isinstance(well_known, str) else tuple(well_known)
        self.set_well_known([k for k in keys if k in WELL_KNOWN_BY_KEY][: cm.MAX_WELL_KNOWN])
        self._render_current_option()
        sizes = [c.options.get("vocab_size") for c in configs if c.options.get("vocab_size")]
        if sizes:
            port.set_value(self.vocab, str(sizes[0]))
        self.configs = []
        for c in configs[: cm.MAX_CONFIGS]:
            opts = {k: v for k, v in c.options.items() if k not in TARGETS and PRESETS[c.preset].has(k)}
            self.configs.append((c.preset, changed_options(c.preset, opts)))
        port.set_value(self.text_box, text)
        port.set_value(self.languages, languages if languages in LANGUAGE_SETS else DEFAULT_SET)
        self._fill_reference()
        if reference in dict(self.parity_groups()):
            port.set_value(self.reference, reference)
        if heldout in {k for k, _ in HELDOUT_CHOICES}:
            port.set_value(self.heldout, heldout)
        self.render_configs()

    # --- the configuration rows ---------------------------------------------------------------
    def add_config(self) -> None:
        if len(self.configs) < cm.MAX_CONFIGS:
            used = {p for p, _ in self.configs}
            preset = next((p for p in PRESETS if p not in used), "bpe")
            self.configs.append((preset, {}))
            pressed = self.port.contains_focus(self.add_button)
            self.render_configs()
            self._changed()
            if pressed and len(self.configs) >= cm.MAX_CONFIGS:
                # "Add" is disabled now: the focus goes to the new row's algorithm, not to <body>
                self.port.focus(self.port.query(f"#cmp-preset-{len(self.configs) - 1}"))

    def remove_config(self, i: int) -> None:
        if len(self.configs) > 1:
            del self.configs[i]
            pressed = self.port.contains_focus(self.config_list)
            self.render_configs()
            self._changed()
            if pressed:  # the pressed Remove went with its row: "Add a configuration" is enabled again
                self.port.focus(self.add_button)

    def render_configs(self) -> None:
        port = self.port
        rows = [self._config_row(i, preset, options) for i, (preset, options) in enumerate(self.configs)]
        port.replace_children(self.config_list, rows)
        port.set_disabled(self.add_button, len(self.configs) >= cm.MAX_CONFIGS)

    def _config_row(self, i: int, preset: str, options: dict) -> Any:
        port = self.port
        row = port.clone_template("tpl-cmp-config")
        port.set_attr(row, "data-series", str(i))
        port.set_text(port.query(".cmp-config-n", row), str(i + 1))
        select = port.query(".cmp-preset", row)
        port.set_attr(select, "id", f"cmp-preset-{i}")
        port.set_attr(port.query(".cmp-preset-label", row), "for", f"cmp-preset-{i}")
        self._fill_select(select, preset_items(lambda p: p.short), preset)
        port.on(select, "change", lambda _e, k=i, el=select: self._on_preset(k, port.value(el)))
        remove = port.query(".cmp-remove", row)
        port.set_attr(remove, "aria-label", f"Remove configuration {i + 1}")
        port.set_disabled(remove, len(self.configs) <= 1)
        port.on(remove, "click", lambda _e, k=i: self.remove_config(k))
        summary = port.query(".cmp-options-summary", row)
        port.set_text(summary, f"Options ({len(options)} changed)" if options else "Options (defaults)")
        fields = port.query(".cmp-option-fields", row)
        items = []
        for option in PRESETS[preset].form_options():
            if option.name not in OPTION_SKIP:
                items.append(self._option_field(i, option, options.get(option.name, option.default)))
        port.replace_children(fields, items)
        return row

    def _option_field(self, i: int, option: Any, value: Any) -> Any:
        """One option: its name and field, and below them its help from the schema (as on
        Train), which the field names as its description."""
        port = self.port
        item = port.create("div", "cmp-option-item")
        port.set_attr(item, "data-option", option.name)
        label = port.create("label", "cmp-option")
        port.append(label, port.create("span", "cmp-option-name", option.name))
        field = option_field(port, option, value, f"cmp{i}-opt-{option.name}")
        check = option.kind == "bool"
        port.on(field, "change", lambda _e, k=i, o=option, el=field:
                self._on_option(k, o, port.checked(el) if check else port.value(el)))
        port.append(label, field)
        help_text = port.create("p", "cmp-option-help", option.help)
        port.set_attr(help_text, "id", f"cmp{i}-help-{option.name}")
        port.set_attr(field, "aria-describedby", f"cmp{i}-help-{option.name}")
        port.append(item, label)
        port.append(item, help_text)
        return item

    def _on_preset(self, i: int, preset: str) -> None:
        old_preset, old = self.configs[i]
        self.configs[i] = (preset, {k: v for k, v in old.items() if PRESETS[preset].has(k)})
        chosen = self.port.contains_focus(self.config_list)
        self.render_configs()
        self._changed()
        if chosen:  # the rows are redrawn: the focus stays on this row's algorithm
            self.port.focus(self.port.query(f"#cmp-preset-{i}"))

    def _on_option(self, i: int, option: Any, raw: Any) -> None:
        preset, options = self.configs[i]
        try:
            value = parse_field(option, raw)
        except ValueError as exc:
            self.say(str(exc), error=True)
            return
        self.configs[i] = (preset, changed_options(preset, {**options, option.name: value}))
        self.say("")
        summary = self.port.query_all(".cmp-options-summary", self.config_list)[i]
        n = len(self.configs[i][1])
        self.port.set_text(summary, f"Options ({n} changed)" if n else "Options (defaults)")
        self._changed()

    # --- the current tokenizer as a column --------------------------------------------------
    def current_tokenizer(self) -> tuple[Any, str]:
        """(the state's current tokenizer, its column label) or (None, '')."""
        st = self.state
        tok, _why = st.current_tokenizer()
        if tok is None:
            return None, ""
        if st.imported is not None:
            return tok, f"Imported: {st.imported_name}"
        return tok, f"Current: {st.spec.describe()}, step {st.step:,}"

    def _render_current_option(self) -> None:
        tok, label = self.current_tokenizer()
        port = self.port
        port.set_disabled(self.current_box, tok is None)
        port.set_checked(self.current_box, tok is not None and self.current_wanted)
        port.set_text(self.current_label, f"Add the current tokenizer as a column ({label}, {tok.vocab_size:,} tokens)"
                      if tok is not None else "Add the current tokenizer as a column (train or import one first)")

    def _take_corpus_sentence(self) -> None:
        """Default the compare text to a sentence of the current corpus (its language), unless
        the user typed their own."""
        port, corpus = self.port, self.state.corpus
        if port.value(self.text_box) not in ("", self.auto_text):
            return
        if corpus.format == "counts":  # (its JSON is no sentence: its first dozen pre-tokens, read as text)
            from .counts_corpus import first_words

            text = first_words(corpus.text)
        else:
            text = cm.corpus_sentence(corpus.text, corpus.format == "word_counts") if not corpus.is_empty else ""
        self.auto_text = text or DEFAULT_TEXT
        port.set_value(self.text_box, self.auto_text)
        if self.run_state is not None and self.run_state.done:
            self.on_text_edited()

    def _on_state(self, topic: str) -> None:
        if topic in ("recording", "step", "tokenizer", "corpus"):
            self._render_current_option()
        if topic == "corpus":
            self._take_corpus_sentence()
        if topic == "corpus" and self.run_state is not None and not self.run_state.done:
            self.cancel("The corpus changed, so the comparison was cancelled.")
        elif topic == "corpus" and self.run_state is not None and not self.run_state.cancelled:
            # subtle: the old message ("Done: 3 of 3 columns trained.") was about the corpus before;
            # a cancelled run trained no columns, and its message ("...cancelled.") stays true
            self.say(f"The corpus changed: these columns were trained on the one before. Press “Train and "
                     f"compare” to train them on “{self.state.corpus.name}”.")

    # --- showing ---------------------------------------------------------------------------------
    def on_show(self) -> None:
        self.visible = True
        self._render_current_option()
        if self.run_state is not None and self.run_state.done and not self.run_state.cancelled:
            self.render_parity()
            self.render_curves()

    def on_hide(self) -> None:
        self.visible = False

    def say(self, text: str, error: bool = False) -> None:
        port = self.port
        port.set_text(self.message, text)
        port.toggle_class(self.message, "error", error)
        port.set_hidden(self.message, not text)

    # --- running -----------------------------------------------------------------------------------
    def start(self) -> Any:
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = self._spawn(self.run())
        return self.task

    def cancel(self, message: str = "Comparison cancelled.") -> None:
        if self.run_state is not None:
            self.run_state.cancel()
            self._render_progress()
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self._set_running(False)
        self.say(message)

    def _set_running(self, running: bool) -> None:
        """Show Cancel and disable "Train and compare" during a run, and the other way round
        after it; the keyboard focus goes with them (to Cancel, then back), never to <body>."""
        port = self.port
        if running:
            port.set_hidden(self.cancel_button, False)
            hand_focus(port, self.run_button, self.cancel_button)
            port.set_disabled(self.run_button, True)
        else:
            port.set_disabled(self.run_button, False)
            hand_focus(port, self.cancel_button, self.run_button)
            port.set_hidden(self.cancel_button, True)
        port.set_attr(port.query("#panel-compare"), "data-state", "running" if running else "idle")

    async def run(self) -> bool:
        """Train the configurations and show the results; False if it could not start or
        was cancelled. The columns train in the compute session, one after another."""
        port, st = self.port, self.state
        try:
            size = self.vocab_size()
            st.corpus.check()  # (an empty or unreadable corpus is refused here, with its message)
        except ValueError as exc:
            self.say(f"Cannot compare: {exc}.", error=True)
            return False
        fixed = []
        if port.checked(self.current_box):
            tok, label = self.current_tokenizer()
            if tok is not None:
                fixed.append((label, tok))
        for key in self.well_known_keys() if self.app is not None else ():
            # fetched (once) and parsed by the Files panel, which says so there if it fails
            self.say(f"Loading {WELL_KNOWN_BY_KEY[key].title}…")
            tok = await self.app.panels["files"].fetch_well_known(key)
            if tok is None:
                self.say(f"{WELL_KNOWN_BY_KEY[key].title} could not be loaded (see the Files tab).", error=True)
                return False
            fixed.append((WELL_KNOWN_BY_KEY[key].title, tok))
        configs = self.configs[: cm.MAX_CONFIGS]  # the current tokenizer is a column of its own
        if len(configs) + len(fixed) < cm.MIN_COLUMNS:
            self.say("Choose at least two configurations (or one and the current tokenizer).", error=True)
            return False
        # custom patterns are tried in the compute worker (the pattern guard) on the texts they will cut
        text = port.value(self.text_box)[:MAX_TEXT_CHARS]
        refusal = await self.guard.first_refusal(
            [pattern_guard.spec_check(c, st.corpus) for c in configs]
            + [pattern_guard.spec_check(c, Corpus(text), "the Compare text") for c in configs]
            + [pattern_guard.tokenizer_check(tok, text, "the Compare text") for _, tok in fixed])
        if refusal is not None:
            self.say(f"Cannot compare: {refusal}", error=True)
            return False
        self.labels = column_labels(configs) + [label for label, _ in fixed]
        self._fill_pair_selects()
        run = cm.CompareRun([(label, p, {**o, "vocab_size": size}) for label, (p, o) in zip(self.labels, configs)],
                            fixed=fixed)
        self.run_state = run
        self.parity_counts, self.parity_unknown, self.curves, self.encodings = [], [], [], []
        self.say(f"Training {plural(len(configs), 'configuration')} on “{st.corpus.name}” "
                 f"at vocabulary size {size:,}…")
        self._set_running(True)
        port.set_hidden(self.results, True)
        last_paint = port.now()

        def paint(_column: int) -> None:
            nonlocal last_paint
            if port.now() - last_paint > PAINT_SECONDS:
                self._render_progress()
                last_paint = port.now()

        try:
            self._render_progress()
            await run.train(port, st.corpus.text, st.corpus.format, between=paint)
            self._render_progress()
            if run.cancelled:
                return False
            failed = [c for c in run.columns if c.error]
            short = [f"{c.label} stopped at {c.tokenizer.vocab_size:,}" for c in run.columns[: len(configs)]
                     if c.tokenizer is not None and c.tokenizer.vocab_size < size]
            self.say(f"Done: {len(run.columns) - len(failed)} of {plural(len(run.columns), 'column')} trained."
                     + (" See the failed column's message below." if failed else "")
                     + (f" {'; '.join(short)} tokens: this corpus is too small for a vocabulary of {size:,} "
                        "(nothing left worth merging or keeping)." if short else ""))
            port.set_hidden(self.results, False)
            await self._render_text_checked()
            await port.sleep(0)
            await self.compute_parity()
            self._cancel_pending_curves()
            await self.compute_curves()
            return True
        except asyncio.CancelledError:
            run.cancel()
            self._render_progress()
            raise
        finally:
            self._set_running(False)

    def _render_progress(self) -> None:
        port, run = self.port, self.run_state
        if run is None:
            port.clear(self.progress)
            return
        cards = []
        for i, c in enumerate(run.columns):
            card = port.clone_template("tpl-cmp-progress")
            port.set_attr(card, "data-series", str(i))
            port.set_text(port.query(".cmp-prog-label", card), c.label)
            bar = port.query(".progress-fill", card)
            port.set_style(bar, "width", f"{100 * c.fraction:.1f}%")
            meter = port.query(".progress-track", card)
            port.set_attr(meter, "aria-valuenow", f"{100 * c.fraction:.0f}")
            port.set_attr(meter, "aria-label", f"{c.label}: {c.status}")
            status = port.query(".cmp-prog-status", card)
            port.set_text(status, c.error or c.status)
            port.set_attr(card, "data-status", "failed" if c.error else ("done" if c.done else c.status.split(":")[0]))
            cards.append(card)
        port.replace_children(self.progress, cards)
