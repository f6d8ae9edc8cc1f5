"""The Compare panel's results once its columns are trained: the compare text side by side
(chips marked where the columns cut the text differently), the statistics table, tokens per
language (parity, with the user's own parallel texts) and the compression curve.

`CompareResults` is the half of `ComparePanel` (compare_panel.py) that draws them; the
panel's half holds the configurations and runs them. The view model is in compare.py.
Example: after a run, ``panel.render_text()`` encodes the text with every column.
"""

from __future__ import annotations

import json
from collections.abc import Coroutine, Sequence
from typing import Any

from . import charts, model_sources, pattern_guard
from . import compare as cm
from .build import el as spec
from .failures import failure_message
from .languages import DEFAULT_SET, LANGUAGE_SETS, LANGUAGES, language_of_upload
from .roving import RovingFocus, roving_tabindex
from .samples import SAMPLES, strip_udhr_header
from .token_counts import count_request
from .tokens import chip_children, token_chips
from .wording import plural

MAX_TEXT_CHARS = 20_000
MAX_CHIPS = 600  # per column
# A model file this big (bytes or characters) is counted in the compute session even if its
# worker must boot for it (~2 s): the well-known tokenizers' files are 1.7-28 MB.
SESSION_MODEL_SIZE = 1_000_000
CURVE_DEBOUNCE_S = 0.4  # the curve is re-measured when typing pauses this long
UDHR = [s for s in SAMPLES.values() if s.udhr]  # the six translations, in the samples' order
HELDOUT_CHOICES = [("text", "the text above")] + [(s.id, s.title) for s in UDHR] + \
    [("taylorswift", "Wikipedia: Taylor Swift")]
OWN = "own:"  # parity keys of the user's own texts
UNKNOWN_NOTE = 0.05  # a parity cell mentions its unknown tokens from this share on


def parity_cell(tokens: int | None, ratio: float | None, unknown: float | None) -> str:
    """Example: (2292, 0.352, 0.41) -> '2,292 · 0.35× · 41% unknown'"""
    if tokens is None:
        return "–"
    text = f"{tokens:,}" + (f" · {ratio:.2f}×" if ratio is not None else "")
    if unknown is not None and unknown >= UNKNOWN_NOTE:
        text += f" · {unknown:.0%} unknown"
    return text


class CompareResults:
    """Drawing the results; mixed into ComparePanel, whose __init__ sets what these methods
    read (declared below): `port`, `run_state` (compare.CompareRun), `labels`, `visible`,
    the result nodes, the caches and `guard` (the page's PatternGuard). `_spawn` and
    `_fill_select` are here, and the panel's half uses them too.

    Every text a column cuts — the compare text, the parity texts, the curve's held-out
    text — is first tried in the compute worker (the pattern guard) when the column's pipeline holds a
    custom pattern (pattern_guard.py): a pattern that backtracks catastrophically on it
    leaves that cell empty with the guard's message, never a frozen page."""

    port: Any
    guard: Any
    run_state: cm.CompareRun | None
    labels: list[str]
    visible: bool
    # the result nodes (the port's elements)
    text_box: Any
    disagree_note: Any
    diff_a: Any  # the two columns whose disagreement is marked ("": every column)
    diff_b: Any
    columns_box: Any
    stats_head: Any
    stats_body: Any
    reference: Any
    parity_box: Any
    parity_table: Any
    parity_note: Any
    parity_files: Any
    parity_clear: Any
    parity_message: Any
    parity_csv: Any  # the premium table's CSV download
    languages: Any  # the language set's select (languages.LANGUAGE_SETS)
    parity_sort: tuple[int, bool]  # the premium table's order: (column, -1 by name, -2 as listed; descending?)
    heldout: Any
    curve_box: Any
    curve_note: Any
    legend: Any
    # the caches
    texts: dict[str, str]  # fetched samples (UDHR, held-out)
    own_texts: dict[str, str]  # the user's parallel texts: language name -> text
    parity_counts: list[dict[str, int | None]]
    parity_unknown: list[dict[str, float | None]]
    parity_refused: list[str]
    curves: list[list[tuple[int, int, float]]]
    encodings: list[Any]
    curve_task: Any  # the pending (debounced) curve measurement
    text_task: Any  # the compare text's pattern check after an edit

    # --- shared with the panel's half ----------------------------------------------------------
    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return self.port.spawn(coro)

    def _fill_select(self, select: Any, items: Sequence[tuple[str, str]], value: str) -> None:
        port = self.port
        options = []
        for key, label in items:
            option = port.create("option", text=label)
            port.set_attr(option, "value", key)
            options.append(option)
        port.replace_children(select, options)
        port.set_value(select, value)

    # --- the text, side by side ----------------------------------------------------------------
    def on_text_edited(self) -> None:
        """Re-encode (at once when no column has a pattern of the user's own to try first);
        re-measure the curve when typing pauses (if it measures this text)."""
        text = self.port.value(self.text_box)[:MAX_TEXT_CHARS]
        checks = [pattern_guard.tokenizer_check(tok, text, "the Compare text") for tok in self.tokenizers()
                  if tok is not None]
        if all(self.guard.known(c) for c in checks):
            self.render_text()
        else:
            self._cancel_pending_text()
            self.text_task = self._spawn(self._render_text_checked())
        if (self.port.value(self.heldout) or "text") == "text":
            self.schedule_curves(CURVE_DEBOUNCE_S)

    def _cancel_pending_text(self) -> None:
        if self.text_task is not None and not self.text_task.done():
            self.text_task.cancel()

    async def _render_text_checked(self) -> None:
        """Try the columns' custom patterns on the edited text in the compute worker (the pattern guard), then draw."""
        text = self.port.value(self.text_box)[:MAX_TEXT_CHARS]
        await self.refusals([(tok, text, "the Compare text") for tok in self.tokenizers()])
        if self.port.value(self.text_box)[:MAX_TEXT_CHARS] == text:  # (else a newer edit draws)
            self.render_text()

    def schedule_curves(self, delay: float) -> Any:
        """Measure the curve after ``delay`` seconds; a newer call supersedes a pending one
        (typing restarts the wait, so a burst of keys measures once)."""
        self._cancel_pending_curves()
        self.curve_task = self._spawn(self._curves_after(delay))
        return self.curve_task

    def _cancel_pending_curves(self) -> None:
        if self.curve_task is not None and not self.curve_task.done():
            self.curve_task.cancel()

    async def _curves_after(self, delay: float) -> None:
        if delay > 0:
            await self.port.sleep(delay)
        await self.compute_curves()

    def tokenizers(self) -> list[Any]:
        run = self.run_state
        return [c.tokenizer for c in run.columns] if run is not None else []

    async def refusals(self, cuts: list[tuple[Any, str, str]]) -> list[str | None]:
        """The pattern guard's verdicts before each ``(tokenizer, text, where)`` of ``cuts``:
        None to go ahead (no tokenizer, no custom pattern, or it answered in time), else the
        message to show instead. The texts unknown to the guard go to the worker in one request."""
        return await self.guard.verdicts(pattern_guard.tokenizer_checks(cuts))

    def render_text(self) -> None:
        """Encode the compare text with every column, mark disagreements, fill the table."""
        port, run = self.port, self.run_state
        if run is None or not run.done or run.cancelled:
            return
        text = port.value(self.text_box)
        note = ""
        if len(text) > MAX_TEXT_CHARS:
            note = f" Only the first {MAX_TEXT_CHARS:,} characters are compared."
            text = text[:MAX_TEXT_CHARS]
        encodings: list[Any] = []
        errors: list[str | None] = []
        for c in run.columns:
            if c.tokenizer is None:
                encodings.append(None)
                errors.append(c.error or c.status)
                continue
            check = pattern_guard.tokenizer_check(c.tokenizer, text, "the Compare text")
            if check is not None and (not self.guard.known(check) or self.guard.cached(check) is not None):
                # never run unchecked (the caller tries it first): a refused pattern, or one not yet tried
                encodings.append(None)
                errors.append(self.guard.cached(check) or pattern_guard.checking_text(check))
                continue
            try:
                encodings.append(c.tokenizer.encode_full(text, disallowed_special=()))
                errors.append(None)
            except ValueError as exc:
                encodings.append(None)
                errors.append(f"Cannot encode this text: {exc}")
        ok = [i for i, e in enumerate(encodings) if e is not None]
        # the columns compared: every column that encoded the text, or the chosen two
        pair = [self.labels.index(port.value(s)) for s in (self.diff_a, self.diff_b) if port.value(s) in self.labels]
        who = "The columns"
        if len(pair) == 2 and pair[0] != pair[1] and all(i in ok for i in pair):
            ok, who = pair, f"{self.labels[pair[0]]} and {self.labels[pair[1]]}"
        found = cm.boundary_disagreement(text, [list(encodings[i].offsets) for i in ok])
        flags: list[list[bool]] = [[False] * len(e.ids) if e is not None else [] for e in encodings]
        for i, fl in zip(ok, found.flags):
            flags[i] = fl if len(ok) >= 2 else [False] * len(fl)
        self.encodings = encodings
        if len(ok) >= 2 and text:
            port.set_text(self.disagree_note, cm.disagreement_note(found, len(text), who) + note)
        else:
            port.set_text(self.disagree_note, "Type a text to compare." if not text else note.strip())
        columns = []
        for i, c in enumerate(run.columns):
            columns.append(self._column(i, c, text, encodings[i], flags[i], errors[i]))
        port.replace_children(self.columns_box, columns)
        port.set_attr(self.columns_box, "data-columns", str(len(columns)))
        self._render_stats(run, text)

    def _column(self, i: int, c: cm.ColumnState, text: str, enc: Any, flags: list[bool], error: str | None) -> Any:
        port = self.port
        col = port.clone_template("tpl-cmp-column")
        port.set_attr(col, "data-series", str(i))
        port.set_text(port.query(".cmp-col-title", col), c.label)
        count = port.query(".cmp-col-count", col)
        err = port.query(".cmp-col-error", col)
        chips_box = port.query(".cmp-chips", col)
        if enc is None:
            port.set_text(count, "")
            port.set_text(err, error or "")
            port.set_hidden(err, False)
            port.set_hidden(chips_box, True)
            return col
        n_bad = sum(flags)
        port.set_text(count, f"{len(enc.ids):,} tokens · {n_bad:,} differ")
        chips = token_chips(enc, c.tokenizer)
        # the column's chips are one Tab stop (a listbox); arrow keys move between them
        port.set_attr(chips_box, "role", "listbox")
        port.set_attr(chips_box, "aria-label", f"Tokens of {c.label}")
        RovingFocus(port, chips_box, ".chip")
        items = []
        for k, (chip, bad) in enumerate(list(zip(chips, flags))[:MAX_CHIPS]):
            el = port.build(spec("span", "chip", children=chip_children(chip)))
            port.set_attr(el, "tabindex", str(roving_tabindex(k)))
            port.set_attr(el, "role", "option")
            port.set_attr(el, "data-color", str(chip.color))
            port.set_attr(el, "data-start", str(chip.start))
            port.set_attr(el, "data-end", str(chip.end))
            title = chip.title(text) + (" · another column cuts this part of the text differently" if bad else "")
            port.set_attr(el, "title", title)
            port.set_attr(el, "aria-label", f"{chip.label} {chip.id}: {title}")  # what it shows, then details
            if bad:
                port.set_attr(el, "data-disagree", "")
            if chip.unknown:
                port.set_attr(el, "data-unk", "")
            if chip.gap_before:
                port.set_attr(el, "data-gap", "")
            items.append(el)
        port.replace_children(chips_box, items)
        if len(chips) > MAX_CHIPS:
            port.set_text(err, f"Showing the first {MAX_CHIPS:,} of {len(chips):,} tokens.")
            port.toggle_class(err, "note", True)
            port.set_hidden(err, False)
        return col

    def _render_stats(self, run: cm.CompareRun, text: str) -> None:
        from subwordlab.stats import text_stats

        port = self.port
        corner = port.create("th")  # the rows' names below it; named for screen readers
        port.set_attr(corner, "scope", "col")
        port.append(corner, port.create("span", "visually-hidden", "Measure"))
        head = [corner]
        for i, label in enumerate(self.labels):
            th = port.create("th")
            port.set_attr(th, "scope", "col")
            port.set_attr(th, "data-series", str(i))
            port.append(th, port.create("span", "swatch"))
            port.append(th, port.create("span", text=label))
            head.append(th)
        port.replace_children(self.stats_head, head)
        rows_data = []
        for c, enc in zip(run.columns, self.encodings):
            # (the statistics of the encoding the column shows: the text is not encoded again)
            rows_data.append(text_stats(c.tokenizer, text, encoding=enc) if enc is not None and c.tokenizer is not None
                             else None)
        rows = []
        vocab_row = port.create("tr")
        th = port.create("th", text="Vocabulary")
        port.set_attr(th, "scope", "row")
        port.set_attr(th, "title", "tokens in the vocabulary")
        port.append(vocab_row, th)
        for c in run.columns:
            port.append(vocab_row, port.create("td", text=f"{c.tokenizer.vocab_size:,}" if c.tokenizer is not None else "–"))
        rows.append(vocab_row)
        for stat, cells, best in cm.stats_rows(rows_data):
            tr = port.create("tr")
            port.set_attr(tr, "data-stat", stat.key)
            th = port.create("th", text=stat.label)
            port.set_attr(th, "scope", "row")
            port.set_attr(th, "title", stat.help)
            port.append(tr, th)
            for cell, is_best in zip(cells, best):
                td = port.create("td", text=cell)
                if is_best:
                    port.set_attr(td, "data-best", "")
                    port.set_attr(td, "title", "best of the columns")
                port.append(tr, td)
            rows.append(tr)
        tr = port.create("tr")
        port.set_attr(tr, "data-stat", "round_trip")
        th = port.create("th", text="Round trip")
        port.set_attr(th, "scope", "row")
        port.set_attr(th, "title", "decode(encode(text)) equals the normalized text")
        port.append(tr, th)
        for row in rows_data:
            cell, ok = cm.round_trip_cell(row)
            td = port.create("td", text=cell)
            if not ok:
                port.set_attr(td, "data-bad", "")
            port.append(tr, td)
        rows.append(tr)
        port.replace_children(self.stats_body, rows)

    # --- per-language parity --------------------------------------------------------------------
    async def _text_of(self, sample_id: str) -> str:
        """A bundled sample's text, or a UDHR translation of the premium view's (fetched once)."""
        if sample_id not in self.texts:
            if sample_id in SAMPLES:
                sample = SAMPLES[sample_id]
                raw = await self.port.fetch_text(sample.url)
                self.texts[sample_id] = strip_udhr_header(raw)[0] if sample.udhr else raw[: cm.CURVE_TEXT_CHARS]
            else:
                self.texts[sample_id] = strip_udhr_header(await self.port.fetch_text(LANGUAGES[sample_id].url))[0]
        return self.texts[sample_id]

    def language_set(self) -> str:
        """The chosen set of languages (a key of languages.LANGUAGE_SETS)."""
        chosen = self.port.value(self.languages)
        return chosen if chosen in LANGUAGE_SETS else DEFAULT_SET

    def parity_groups(self) -> list[tuple[str, str]]:
        """(key, name) of every premium language: the chosen set's UDHR translations, then the user's."""
        return [(lang.key, lang.name) for lang in LANGUAGE_SETS[self.language_set()]] + \
            [(OWN + n, n) for n in self.own_texts]

    async def add_own_texts(self, files: list[Any]) -> None:
        """Add the user's parallel texts (one file per language) to the parity chart; a file
        that is not UTF-8 text is refused with a message, the others are kept."""
        from .corpus_data import decode_upload

        port = self.port
        port.clear_files(self.parity_files)
        problems = []
        for f in files:
            name = port.file_name(f)
            upload = decode_upload(name, await port.file_bytes(f))
            if upload.problem or not upload.text.strip():
                problems.append(upload.message() if upload.problem else f"{name} is empty.")
                continue
            # named by its language (a UDHR file's header says it), else by its file name
            text, _header = strip_udhr_header(upload.text) if upload.text.startswith("Universal Declaration") \
                else (upload.text, "")
            self.own_texts[language_of_upload(name, upload.text)] = text
        port.set_text(self.parity_message, " ".join(problems))
        port.toggle_class(self.parity_message, "error", bool(problems))
        port.set_hidden(self.parity_message, not problems)
        self._fill_reference()
        if self.run_state is not None and self.run_state.done and not self.run_state.cancelled:
            await self.compute_parity()

    def clear_own_texts(self) -> None:
        self.own_texts.clear()
        self._fill_reference()
        if self.parity_counts:
            keep = {k for k, _ in self.parity_groups()}
            self.parity_counts = [{k: v for k, v in row.items() if k in keep} for row in self.parity_counts]
            self.parity_unknown = [{k: v for k, v in row.items() if k in keep} for row in self.parity_unknown]
            self.render_parity()

    def _fill_reference(self) -> None:
        port = self.port
        groups = self.parity_groups()
        current = port.value(self.reference)
        self._fill_select(self.reference, groups, current if current in dict(groups) else UDHR[0].id)
        port.set_hidden(self.parity_clear, not self.own_texts)

    async def compute_parity(self) -> None:
        port, run = self.port, self.run_state
        if run is None:
            return
        groups = self.parity_groups()
        port.set_text(self.parity_note, f"Counting tokens in {plural(len(groups), 'language')}…")
        texts = {}
        try:
            for lang in LANGUAGE_SETS[self.language_set()]:
                texts[lang.key] = await self._text_of(lang.key)
        except OSError as exc:
            port.set_text(self.parity_note, f"The UDHR texts could not be loaded: {exc}")
            return
        texts.update({OWN + n: t for n, t in self.own_texts.items()})
        names = dict(groups)
        # step 1: which texts each column may cut (a custom pattern is tried first: the guard)
        # (every column's texts in one request: 47 round trips to the worker were 47 of the page's tasks)
        said = iter(await self.refusals([(c.tokenizer, text, f"the parity text “{names.get(sid, sid)}”")
                                         for c in run.columns for sid, text in texts.items()]))
        todo: list[list[str]] = []
        refused: list[str] = []
        for c in run.columns:
            cut = []
            for sid in texts:
                message = next(said)
                if message is not None:  # a custom pattern that does not answer in time on it
                    refused.append(f"{c.label}: {message}")
                else:
                    cut.append(sid)
            todo.append(cut if c.tokenizer is not None else [])
        # step 2: the counts, in the compute session for every column whose model file it can
        # read (model_sources), if the file is big (a well-known tokenizer: seconds of counting)
        # or the worker is running anyway; on the page for the others (a small model trained on a
        # textbook example, for which no worker need boot; a tokenizer at an earlier step)
        counts: list[dict[str, int | None]] = [{sid: None for sid in texts} for _ in run.columns]
        unknown: list[dict[str, float | None]] = [{sid: None for sid in texts} for _ in run.columns]
        running = self.port.compute_started()
        sources = [src if src is not None and (running or len(src[1]) >= SESSION_MODEL_SIZE) else None
                   for src in (model_sources.source_of(c.tokenizer) for c in run.columns)]
        await self._count_in_session(texts, names, todo, sources, counts, unknown, refused)
        from subwordlab.stats import token_count

        for i, c in enumerate(run.columns):
            if sources[i] is not None:
                continue
            for sid in todo[i]:
                try:
                    stats = token_count(c.tokenizer, texts[sid])
                except Exception as exc:  # noqa: BLE001 - any kind: the chart shows the rest, and says why
                    stats = {}
                    refused.append(f"{c.label}: {failure_message(exc, 'Counting the tokens of “' + names.get(sid, sid) + '”')}")
                # None: e.g. characters this BPE never saw and no unk token (stats["error"])
                counts[i][sid], unknown[i][sid] = stats.get("tokens"), stats.get("unknown_rate")
                await port.sleep(0)
        self.parity_counts, self.parity_unknown, self.parity_refused = counts, unknown, refused
        self.render_parity()

    async def _count_in_session(self, texts: dict[str, str], names: dict[str, str], todo: list[list[str]],
                                sources: list[Any], counts: list[dict[str, int | None]],
                                unknown: list[dict[str, float | None]], refused: list[str]) -> None:
        """Count ``todo``'s texts for every column with a model file (``sources``) in the
        compute session, into ``counts`` and ``unknown``; a failure is said in ``refused``."""
        columns = [i for i, src in enumerate(sources) if src is not None and todo[i]]
        if not columns:
            return
        sids = list(texts)
        index = {sid: k for k, sid in enumerate(sids)}
        request, joined = count_request([(sources[i][0], sources[i][1], [index[s] for s in todo[i]]) for i in columns],
                                        [texts[s] for s in sids], [names.get(s, s) for s in sids])
        run = self.run_state
        assert run is not None  # (compute_parity's caller has a run)
        labels = [run.columns[i].label for i in columns]

        def on_reply(text: str) -> None:
            reply = json.loads(text)
            if "column" not in reply:
                if "error" in reply:
                    refused.append(f"The tokens could not be counted: {reply['error']}")
                return
            k = reply["column"]
            i = columns[k]
            if "problem" in reply:
                refused.append(f"{labels[k]}: {reply['problem']}")
                return
            for sid, n, unk in zip(todo[i], reply["tokens"], reply["unknown"]):
                counts[i][sid], unknown[i][sid] = n, unk
            refused.extend(f"{labels[k]}: {why}" for why in reply["errors"].values())

        try:
            await self.port.compute(request, joined, on_reply)
        except OSError as exc:
            refused.append(f"The tokens could not be counted ({exc}): choose the languages again to count them.")

    def render_parity(self) -> None:
        port = self.port
        if not self.parity_counts:
            return
        ref = port.value(self.reference) or UDHR[0].id
        names = dict(self.parity_groups())
        if ref not in names or ref not in self.parity_counts[0]:
            ref = UDHR[0].id  # (a language of another set, or a removed text: English)
        groups = [g for g in names if g in self.parity_counts[0]]
        ratios = [cm.parity(row, ref) for row in self.parity_counts]
        values = [[ratios[k].get(g) for k in range(len(ratios))] for g in groups]
        unknown = [[(self.parity_unknown[k].get(g) if self.parity_unknown else None) for k in range(len(ratios))]
                   for g in groups]
        missing = [self.labels[k] for k, row in enumerate(self.parity_counts) if any(v is None for v in row.values())]
        port.set_text(self.parity_note, (f"Tokens for the same text in {plural(len(groups), 'language')}, relative to "
                                         f"{names[ref]}: the tokenization premium (Petrov et al. 2023; 1.0 = as many "
                                         "tokens, parity). Longer bars cost more; a pale bar is mostly unknown tokens.")
                      + (f" {', '.join(missing)}: some texts could not be encoded (characters outside the "
                         "vocabulary and no unknown token)." if missing else "")
                      + (" Where many tokens are unknown, text was lost and the count is too low to compare."
                         if any((u or 0) >= UNKNOWN_NOTE for row in self.parity_unknown for u in row.values()) else "")
                      + "".join(f" {said}" for said in self.parity_refused))
        if self.visible:
            width = max(300.0, port.width(self.parity_box) or 640.0)
            # many languages: bars at least 7 px wide, the chart scrolling sideways in its box
            width = max(width, 60.0 + len(groups) * (7 * len(self.labels) + 12))
            # subtle: axis labels must fit their group: short names, or codes on a narrow screen
            narrow = (width - 52) / len(groups) < 64
            axis_names = [(g.removeprefix(OWN).removeprefix("udhr_")[:3] if narrow else names[g].split(" (")[0])
                          for g in groups]
            chart = charts.grouped_bars(axis_names, len(self.labels), values, width=width, height=280,
                                        value_fmt=lambda v: f"{v:.2f}×")
            details = [[f"{names[g]} · {self.labels[k]}: {self.parity_counts[k].get(g) or 0:,} tokens, "
                        f"{values[gi][k]:.2f}× {names[ref]}" + (f", {unknown[gi][k]:.0%} unknown" if unknown[gi][k] else "")
                        if values[gi][k] is not None else ""
                        for k in range(len(self.labels))] for gi, g in enumerate(groups)]
            port.build_into(self.parity_box, [charts.grouped_bar_chart(
                chart, details, f"Premium relative to {names[ref]}, per language and tokenizer", y_suffix="×",
                unknown=unknown, shade=cm.unknown_shade)])
        # the numbers as a table, sorted as asked (a header's button: by that column)
        column, descending = self.parity_sort
        column = column if column < len(self.labels) else -1
        order = cm.premium_order([names[g] for g in groups], values, column, descending)
        head = port.create("tr")
        for i, label in [(-1, "Language")] + list(enumerate(self.labels)):
            th = port.create("th")
            port.set_attr(th, "scope", "col")
            if i == column:
                port.set_attr(th, "aria-sort", "descending" if descending else "ascending")
            button = port.create("button", "sort-button")
            port.set_attr(button, "type", "button")
            port.set_attr(button, "data-sort", str(i))
            port.set_attr(button, "title", f"Sort by {label}" + (" (again: the other way)" if i == column else ""))
            if i >= 0:
                port.set_attr(th, "data-series", str(i))
                port.append(button, port.create("span", "swatch"))
            port.append(button, port.create("span", text=label))
            port.append(th, button)
            port.append(head, th)
        rows = [head]
        for gi in order:
            g = groups[gi]
            tr = port.create("tr")
            port.set_attr(tr, "data-lang", g)
            th = port.create("th", text=names[g])
            port.set_attr(th, "scope", "row")
            port.append(tr, th)
            for k in range(len(self.labels)):
                n = self.parity_counts[k].get(g)
                v = values[gi][k]
                unk = self.parity_unknown[k].get(g) if self.parity_unknown else None
                td = port.create("td", text=parity_cell(n, v, unk))
                port.set_attr(td, "data-tokens", "" if n is None else str(n))
                if unk is not None and unk >= UNKNOWN_NOTE:
                    port.set_attr(td, "data-unk", "")
                    port.set_attr(td, "title", f"{unk:.0%} of these tokens are the unknown token: text lost, "
                                               "so the count looks lower than it should")
                port.append(tr, td)
            rows.append(tr)
        port.replace_children(self.parity_table, rows)
        port.set_disabled(self.parity_csv, not groups)

    def sort_parity(self, event: Any) -> None:
        """A header's button: sort the premium table by its column (again: the other way)."""
        button = self.port.closest(self.port.event_target(event), "button[data-sort]")
        if button is None:
            return
        column = int(self.port.get_attr(button, "data-sort") or "-1")
        was, descending = self.parity_sort
        # a column's first click puts the costliest language first; a name sorts A to Z
        self.parity_sort = (column, not descending if column == was else column >= 0)
        self.render_parity()

    def download_parity_csv(self) -> None:
        """The premium table as premium.csv: language, script, each tokenizer's tokens and premium."""
        port = self.port
        if not self.parity_counts:
            return
        ref = port.value(self.reference) or UDHR[0].id
        names = dict(self.parity_groups())
        groups = [g for g in names if g in self.parity_counts[0]]
        ratios = [cm.parity(row, ref if ref in row else UDHR[0].id) for row in self.parity_counts]
        scripts = [LANGUAGES[g].script if g in LANGUAGES else "" for g in groups]
        text = cm.premium_csv(list(zip([names[g] for g in groups], scripts)), self.labels,
                              [[row.get(g) for row in self.parity_counts] for g in groups],
                              [[r.get(g) for r in ratios] for g in groups])
        port.download("premium.csv", text, "text/csv")

    # --- the compression curve -------------------------------------------------------------------
    async def compute_curves(self) -> None:
        port, run = self.port, self.run_state
        if run is None or not run.done or run.cancelled:
            return
        choice = port.value(self.heldout) or "text"
        try:
            text = port.value(self.text_box) if choice == "text" else await self._text_of(choice)
        except OSError as exc:
            port.set_text(self.curve_note, f"The held-out text could not be loaded: {exc}")
            return
        if not text.strip():
            port.set_text(self.curve_note, "Type a text above (or pick a held-out text) to draw the curve.")
            self.curves = []
            port.clear(self.curve_box)
            return
        port.set_text(self.curve_note, "Measuring tokens per character at recorded steps…")
        curves: list[list[tuple[int, int, float]]] = []
        problems = []
        refusals = await self.refusals([(c.tokenizer, text[: cm.CURVE_TEXT_CHARS], "the curve's held-out text")
                                        for c in run.columns])
        for c, said in zip(run.columns, refusals):
            points: list[tuple[int, int, float]] = []
            if said is not None:  # a custom pattern that does not answer in time on it: no line
                problems.append(f"{c.label}: {said}")
                curves.append(points)
                continue
            try:
                if c.recording is not None and c.recording.done:
                    for point in cm.curve_points(c.recording, text):
                        points.append(point)
                        await port.sleep(0)
                elif c.tokenizer is not None:  # a fixed column: one point, its own size
                    t = text[: cm.CURVE_TEXT_CHARS]
                    points.append((0, c.tokenizer.vocab_size, len(c.tokenizer.encode(t, disallowed_special=())) / len(t)))
            except (ValueError, TypeError) as exc:
                problems.append(f"{c.label}: {exc}")
            curves.append(points)
        self.curves = curves
        what = "the text above" if choice == "text" else dict(HELDOUT_CHOICES)[choice]
        port.set_text(self.curve_note, f"Tokens per character of {what} ({min(len(text), cm.CURVE_TEXT_CHARS):,} "
                      "characters) as each vocabulary grew (or, for Unigram, shrank) during training; lower is "
                      "better compression." + (" " + " ".join(problems) if problems else ""))
        self.render_curves()

    def render_curves(self) -> None:
        port = self.port
        if not self.visible or not self.curves:
            return
        width = max(320.0, port.width(self.curve_box) or 640.0)
        chart = charts.series_lines([[(size, tpc) for _, size, tpc in pts] for pts in self.curves], width=width, height=280)
        details = [[f"{self.labels[k]} · vocabulary {size:,} (step {step:,}): {tpc:.3f} tokens per character"
                    for step, size, tpc in pts] for k, pts in enumerate(self.curves)]
        port.build_into(self.curve_box, [charts.series_line_chart(
            chart, details, "Tokens per character against vocabulary size", "vocabulary size (log scale)",
            "tokens / char")])
        items = []
        for i, label in enumerate(self.labels):
            li = port.create("li")
            port.set_attr(li, "data-series", str(i))
            port.append(li, port.create("span", "swatch"))
            port.append(li, port.create("span", text=label))
            items.append(li)
        port.replace_children(self.legend, items)
