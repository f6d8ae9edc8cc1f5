"""The Inspect panel: any text through the tokenizer *at the current training step* —
coloured tokens with ids, visible white space, char and byte offsets on hover/focus, a
token count, the round-trip badge, every pipeline stage, special-token policy, and
sampling (BPE-dropout with a seed; Unigram n-best and sampling with alpha and seed).
"""

from __future__ import annotations

import math
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from subwordlab.base.events import drain
from subwordlab.text.special import SpecialTokenInText
from subwordlab.tokenizer import Special

from .build import el
from .decode_box import decode_view
from .pattern_guard import PatternGuard, checking_text, tokenizer_check
from .roving import RovingFocus, roving_tabindex
from .samples import DEFAULT_SAMPLE, SAMPLES
from .state import AppState
from .tasks import drive
from .tokens import (
    TokenChip,
    assign_colors,
    bytes_label,
    chip_children,
    is_byte_level,
    round_trip_message,
    token_chips,
    token_label,
    visible,
)
from .well_known import WELL_KNOWN, WELL_KNOWN_BY_KEY

MAX_CHIPS = 2000  # beyond this the page shows a count instead of more chips
PART_CHIPS = 400  # chips (or spans) drawn in one browser task (see _show_parts): ~25 ms in the page
MAX_TEXT = 20_000  # the inspector encodes at most this many characters (it is for looking closely)
MAX_NBEST_TEXT = 200
POLICIES: dict[str, dict[str, Special]] = {
    "disallowed": {},
    "allowed": {"allowed_special": "all"},
    "plain": {"disallowed_special": ()},
}


@dataclass(frozen=True)
class Inspection:
    """Everything the panel shows for one text (pure data, built by `inspect_text`)."""

    text: str  # what was encoded (maybe cut to MAX_TEXT)
    cut: bool
    chips: list[TokenChip]
    ids: list[int | None]  # None: a character shown as itself, with no id
    normalized: str
    pre_tokens: list[str]
    decoded: str
    round_trip_ok: bool
    round_trip: str
    sampled: bool = False
    nbest: list[tuple[list[str], float, float]] | None = None  # (labels, log P, share)
    round_trip_kind: str = ""  # "exact", "by_design" (the pipeline drops spaces or case on purpose) or "lossy"
    unmatched: int = 0  # characters a custom pattern left unmatched (kept as pieces of their own)


SAMPLING_HELP = {
    "bpe": "Sample: BPE-dropout (Provilkov et al. 2020) skips each applicable merge with probability Dropout "
           "(0 = the usual segmentation, 1 = characters only), so one text gets many segmentations; the Seed "
           "makes a draw repeatable. Models trained this way see more sub-words.",
    "unigram": "Sample: subword regularization (Kudo 2018) draws a segmentation with probability ∝ P(segmentation)^Alpha "
               "(small Alpha = close to uniform, large = almost always the best one); the Seed makes a draw "
               "repeatable. The table below lists the most probable segmentations.",
}
SLICE_CHARS = 1500  # a long text is encoded this much at a time, between yields to the browser
MAX_SAMPLED_TEXT = 5_000  # sampling draws over the whole text at once: keep it short


@dataclass
class _Merged:
    """An Encoding put together from the encodings of consecutive slices."""

    ids: list[int | None]
    tokens: list[str]
    offsets: list[tuple[int, int]]
    byte_offsets: list[tuple[int, int]]
    special: list[bool]


def text_slices(tokenizer: Any, text: str, size: int | None = None) -> list[str]:
    """The text cut where encoding the parts gives exactly the tokens (and offsets) of the
    whole: before a lone space, for pipelines that always end a piece at white space (the
    trained bpe, byte_bpe with a built-in pattern, wordpiece, unigram presets). Others, and
    short texts, stay whole. Example (bpe, size 3): 'ab cd ef' -> ['ab', ' cd', ' ef']."""
    from subwordlab.options import PRESETS
    from subwordlab.text.corpus import slices_at_spaces

    size = SLICE_CHARS if size is None else size
    preset = PRESETS.get(tokenizer.spec.get("preset"))  # None: an imported tokenizer
    # white space always ends a piece, unless spaces are part of pieces (SentencePiece's ▁)
    if len(text) <= size or preset is None or preset.raw_text or getattr(tokenizer, "added_vocab", None) is not None:
        return [text]
    if preset.byte_level and not getattr(tokenizer.pre_tokenizer, "pattern_name", None):
        return [text]
    return slices_at_spaces(text, size)


def special_token_message(exc: SpecialTokenInText) -> str:
    """What Inspect says when its text holds a special token and the policy beside it refuses
    them: the token, where it is, and the control that decides (not the Python arguments).

    >>> special_token_message(SpecialTokenInText("<|endoftext|>", 6))[:65]
    'The text contains the special token <|endoftext|> at character 7.'
    """
    return (f"The text contains the special token {exc.token} at character {exc.position + 1:,}. "
            "“Special tokens”, beside the text, says what to do with one: choose “Encode as special "
            "tokens” to see it as one token, or “Treat as plain text” to see it split like any text.")


def inspect_steps(tokenizer: Any, text: str, policy: str = "disallowed", sample: tuple[float, int] | None = None,
                  nbest: int = 0) -> Generator[None, None, Inspection]:
    """Run `text` through every stage of `tokenizer`, a slice at a time (a generator that
    yields between slices and returns the `Inspection`). Raises the core's ValueError,
    e.g. a special token under the default policy, or a character without an unk token."""
    cut = len(text) > (MAX_SAMPLED_TEXT if sample is not None else MAX_TEXT)
    text = text[:MAX_SAMPLED_TEXT] if sample is not None else text[:MAX_TEXT]
    kwargs = POLICIES[policy]
    byte_level = is_byte_level(tokenizer)
    pieces = [text] if sample is not None else text_slices(tokenizer, text)
    normalized, pre = "", []
    ids: list[int | None] = []
    chips: list[TokenChip] = []
    chars = nbytes = unmatched = 0
    # step 1: each slice normalized, pre-tokenized and encoded, its chips made (a yield between)
    for k, piece in enumerate(pieces):
        if k:
            yield
        norm = tokenizer.normalize_str(piece)
        normalized += norm
        pre += [token_label(p, byte_level) for p, _ in tokenizer.pre_tokenize_str(norm)]
        unmatched += tokenizer.unmatched_chars(norm)
        if sample is None:
            # a character a char-level BPE never saw is shown as itself, with no id
            enc = tokenizer.encode_full(piece, keep_unknown=True, **kwargs)
            part = _Merged(list(enc.ids), list(enc.tokens), [(s + chars, e + chars) for s, e in enc.offsets],
                           [(s + nbytes, e + nbytes) for s, e in enc.byte_offsets], list(enc.special))
            ids += part.ids
            chips += token_chips(part, tokenizer, chips[-1] if chips else None)
        chars += len(piece)
        nbytes += len(piece.encode("utf-8", errors="surrogatepass"))
    if len(pieces) > 1:
        yield  # (the round trip decodes the whole text)
    if sample is not None:
        alpha, seed = sample
        ids = tokenizer.sample_encode(text, alpha, seed=seed, **kwargs)
        vocab = tokenizer.model.vocab
        special = set(tokenizer.special_tokens.values())
        chips = [TokenChip(token_label(vocab[i], byte_level) if i not in special else vocab[i], vocab[i], i, c,
                           0, 0, 0, 0, special=i in special)
                 for i, c in zip(ids, assign_colors(ids))]
    from subwordlab.stats import round_trip

    trip = round_trip(tokenizer, text, [i for i in ids if i is not None])  # against the normalized text as shown, markers mapped back
    decoded = trip["decoded"]
    ok, message = round_trip_message(trip["expected"], decoded, trip["kind"], trip["reason"], trip["normalized_by"])
    # a text the normalizer changed (lower-cased, accents stripped) comes back changed by design
    kind = "by_design" if trip["kind"] == "exact" and trip["normalized_by"] else trip["kind"]
    best = None
    if nbest and hasattr(tokenizer.model, "nbest") and len(text) <= MAX_NBEST_TEXT and text:
        found = tokenizer.encode_nbest(text, nbest, **kwargs)
        if found:
            top = max(lp for _, lp in found)
            z = sum(math.exp(lp - top) for _, lp in found)
            vocab = tokenizer.model.vocab
            best = [([token_label(vocab[i], False) for i in seg], lp, math.exp(lp - top) / z) for seg, lp in found]
    return Inspection(text, cut, chips, ids, normalized, pre, decoded, ok, message, sample is not None, best, kind, unmatched)


def inspect_text(tokenizer: Any, text: str, policy: str = "disallowed", sample: tuple[float, int] | None = None,
                 nbest: int = 0) -> Inspection:
    """`inspect_steps` run to its end."""
    return drain(inspect_steps(tokenizer, text, policy, sample, nbest))


class InspectPanel:
    id = "inspect"

    def __init__(self, port: Any, state: AppState, app: Any = None) -> None:
        self.port, self.state, self.app = port, state, app
        q = port.query
        self.which = q("#inspect-which")
        self.step_range, self.step_now, self.step_total = q("#inspect-step"), q("#inspect-step-now"), q("#inspect-step-total")
        self.step_row = q("#inspect-step-row")
        self.input = q("#inspect-input")
        self.special = q("#inspect-special")
        self.sampling = q("#inspect-sampling")
        self.alpha_label, self.alpha, self.seed = q("#inspect-alpha-label"), q("#inspect-alpha"), q("#inspect-seed")
        self.b_sample, self.b_best = q("#inspect-sample"), q("#inspect-best")
        self.note, self.error = q("#inspect-note"), q("#inspect-error")
        self.count, self.chars, self.ratio = q("#inspect-count"), q("#inspect-chars"), q("#inspect-ratio")
        self.roundtrip, self.mode = q("#inspect-roundtrip"), q("#inspect-mode")
        self.chips, self.detail, self.more = q("#inspect-chips"), q("#inspect-detail"), q("#inspect-more")
        self.spans = q("#inspect-spans")
        self.pick, self.pick_note = q("#inspect-pick"), q("#inspect-pick-note")
        self._default_tried = False  # the first look at Inspect may load DEFAULT_WELL_KNOWN (once)
        port.build_into(self.pick, [el("button", "button button-small", title, attrs={
            "type": "button", "data-pick": key, "aria-pressed": "false",
            "title": "the tokenizer trained on this page's corpus, at the step shown" if key == "trained" else source})
            for key, title, source in pick_choices()])
        port.on(self.pick, "click", self._on_pick)
        self._lit: list[Any] = []  # the chip and spans lit by the hovered or focused token
        self.st_norm, self.st_pre, self.st_pre_count = q("#stage-normalized"), q("#stage-pretokens"), q("#stage-pretokens-count")
        self.st_unmatched = q("#stage-pretokens-unmatched")
        self.st_tokens, self.st_ids, self.st_decoded = q("#stage-tokens"), q("#stage-ids"), q("#stage-decoded")
        self.nbest_card, self.nbest_rows = q("#nbest-card"), q("#nbest-rows")
        self.sampling_help = q("#inspect-sampling-help")
        self.decode_ids, self.decode_tokens = q("#decode-ids"), q("#decode-tokens")
        self.decode_output, self.decode_error = q("#decode-output"), q("#decode-error")
        self.visible = False
        self.guard = getattr(app, "guard", None) or PatternGuard(port)
        self._task: Any = None
        self.last: Inspection | None = None
        self._key: Any = None

        port.on(self.input, "input", self._on_input)
        port.on(self.decode_ids, "input", lambda _e: self.render_decode())
        port.on(self.special, "change", lambda _e: state.set_inspect(special_policy=port.value(self.special)))
        port.on(self.b_sample, "click", self._on_sample)
        port.on(self.b_best, "click", lambda _e: state.set_inspect(sampled=False))
        port.on(self.step_range, "input", self._on_step)
        port.on(self.chips, "focusin", self._on_chip)
        RovingFocus(port, self.chips, ".chip")  # the chips are one Tab stop; arrows move inside
        port.on(self.chips, "mouseover", self._on_chip)
        port.on(self.spans, "mouseover", self._on_span)
        state.subscribe(self._on_state)

    # --- events -------------------------------------------------------------------
    def _on_state(self, topic: str) -> None:
        # a hidden panel draws nothing; on_show brings it up to date
        if self.visible and topic == "corpus":
            self._maybe_open_on_a_real_tokenizer()
        if self.visible and topic in ("recording", "step", "inspect", "spec", "progress"):
            self.render()
            self.render_decode()

    def _on_input(self, _event: Any) -> None:
        self.state.set_inspect(text=self.port.value(self.input))

    def _on_step(self, _event: Any) -> None:
        self.state.player.pause()
        self.state.seek(int(float(self.port.value(self.step_range) or 0)))

    def _number(self, el: Any, kind: type, default: Any) -> Any:
        try:
            return kind(self.port.value(el))
        except ValueError:
            return default

    def _on_sample(self, _event: Any) -> None:
        alpha = min(1.0, max(0.0, self._number(self.alpha, float, 0.1)))
        seed = max(0, self._number(self.seed, int, 0))
        self.state.set_inspect(sampled=True, sample_alpha=alpha, sample_seed=seed)

    def _on_chip(self, event: Any) -> None:
        target = self.port.closest(self.port.event_target(event), ".chip")
        if target is not None:
            self.port.set_text(self.detail, self.port.get_attr(target, "title") or "")
            self._light(self.port.get_attr(target, "data-index") or "")

    def _on_pick(self, event: Any) -> Any:
        """One click on the picker: the trained tokenizer, or a well-known one (fetched by
        the Files tab, which says how the fetch went)."""
        target = self.port.closest(self.port.event_target(event), "button[data-pick]")
        if target is None:
            return None
        key = self.port.get_attr(target, "data-pick") or ""
        self._default_tried = True  # the learner chose
        self.port.set_hidden(self.pick_note, True)
        if key == "trained":
            self.state.set_imported(None)
            return None
        files = self.app.panels.get("files") if self.app is not None else None
        return files.load_well_known(key) if files is not None else None

    def _maybe_open_on_a_real_tokenizer(self) -> None:
        """At the first look at Inspect (once its corpus is there): if the page is as it
        booted, open on a real tokenizer (``_open_on_a_real_tokenizer``)."""
        if self._default_tried or (self.state.corpus.is_empty and self.state.lesson is None):
            return  # (decided once; an embed shows Inspect before its corpus has arrived)
        self._default_tried = True
        if self._untouched():
            self.port.spawn(self._open_on_a_real_tokenizer())

    async def _open_on_a_real_tokenizer(self) -> None:
        """The page's first look at Inspect, before the learner has done anything: the
        textbook sample's model at step 0 (11 tokens, characters only) looks broken on any
        real sentence, so Inspect opens on a well-known tokenizer instead, and says so."""
        files = self.app.panels.get("files") if self.app is not None else None
        if files is None:
            return
        item = WELL_KNOWN_BY_KEY[DEFAULT_WELL_KNOWN]
        tok = await files.load_well_known(DEFAULT_WELL_KNOWN)
        if tok is not None and self.state.imported_key == DEFAULT_WELL_KNOWN:
            self.port.set_text(self.pick_note, f"Showing {item.title}, a real tokenizer, until you train one: the "
                                               "tokenizer trained here so far knows only characters. Pick another "
                                               "above, or press “Trained here”.")
            self.port.set_hidden(self.pick_note, False)

    def _untouched(self) -> bool:
        """Is the page as it booted: the default sample, its settings, step 0, nothing
        loaded, no link, embed query or lesson?"""
        st, app = self.state, self.app
        return (app is not None and not getattr(app, "opened_link", True) and st.imported is None
                and st.lesson is None and st.corpus.sample == DEFAULT_SAMPLE
                and st.spec == SAMPLES[DEFAULT_SAMPLE].config and st.player.position == 0)

    def _render_pick(self) -> None:
        st = self.state
        chosen = "trained" if st.imported is None else st.imported_key
        for button in self.port.query_all("button[data-pick]", self.pick):
            self.port.set_attr(button, "aria-pressed", "true" if self.port.get_attr(button, "data-pick") == chosen
                               else "false")
        if st.imported_key != DEFAULT_WELL_KNOWN:
            self.port.set_hidden(self.pick_note, True)

    def _on_span(self, event: Any) -> None:
        target = self.port.closest(self.port.event_target(event), ".tok-span")
        if target is not None:
            self.port.set_text(self.detail, self.port.get_attr(target, "title") or "")
            self._light(*(self.port.get_attr(target, "data-chips") or "").split())

    def _light(self, *indexes: str) -> None:
        """Light the chips ``indexes`` and the spans of the text they cover (one token's
        chip and span glow together, whichever was hovered)."""
        port = self.port
        for node in self._lit:
            port.toggle_class(node, "lit", False)
        lit = []
        for k in (k for k in indexes if k.isdigit()):
            lit.append(port.query(f'.chip[data-index="{k}"]', self.chips))
            lit += port.query_all(f'.tok-span[data-chips~="{k}"]', self.spans)  # (~=: one of its words)
        self._lit = [node for node in lit if node is not None]
        for node in self._lit:
            port.toggle_class(node, "lit", True)

    # --- drawing ------------------------------------------------------------------
    def on_show(self) -> None:
        self.visible = True
        self._key = None
        self._maybe_open_on_a_real_tokenizer()
        self.render()
        self.render_decode()

    def render_decode(self) -> None:
        """The "Decode ids" box: the typed ids' tokens and text, or what to type instead."""
        port = self.port
        raw = port.value(self.decode_ids)
        tok, why = self.state.current_tokenizer()
        labels: list[str] = []
        text, problem = "", ""
        if raw.strip():
            if tok is None:
                problem = f"No tokenizer to decode with: {why}"
            else:
                try:
                    labels, text = decode_view(tok, raw)
                except ValueError as exc:
                    problem = str(exc)
        port.set_text(self.decode_tokens, " | ".join(labels) if labels else "")
        port.set_text(self.decode_output, text if labels else "")
        port.set_text(self.decode_error, problem)
        port.set_hidden(self.decode_error, not problem)

    def on_hide(self) -> None:
        self.visible = False

    def render(self) -> None:
        port, st = self.port, self.state
        settings = st.inspect
        if port.value(self.input) != settings.text:
            port.set_value(self.input, settings.text)
        port.set_value(self.special, settings.special_policy)
        player = st.player
        port.set_attr(self.step_range, "max", str(player.recorded))
        port.set_value(self.step_range, str(player.position))
        port.set_disabled(self.step_range, player.recorded == 0 or not (st.recording and st.recording.done))
        port.set_text(self.step_now, f"{player.position:,}")
        port.set_text(self.step_total, f"{player.recorded:,}")
        port.set_hidden(self.step_row, st.imported is not None)  # a loaded tokenizer has no training steps
        self._render_pick()
        tok, why = st.current_tokenizer()
        key = (id(tok), settings, id(st.recording))
        if key == self._key and tok is not None:
            return
        self._key = key
        if st.imported is not None:  # loaded on the Files tab
            port.set_text(self.which, f"Loaded from {st.imported_name} · {tok.vocab_size:,} tokens")
        else:
            port.set_text(self.which, f"{st.spec.describe()} · {tok.vocab_size:,} tokens at this step" if tok is not None else st.spec.describe())
        port.set_hidden(self.note, tok is not None)
        port.set_text(self.note, why)
        model = getattr(tok, "model", None)
        # (by type: asking for ``merges`` would derive a rank file's, models/rank_bpe.py)
        bpe = getattr(model, "type", None) == "BPE"
        unigram = model is not None and hasattr(model, "nbest")
        port.set_hidden(self.sampling, not (bpe or unigram))
        port.set_text(self.alpha_label, "Dropout" if bpe else "Alpha")
        port.set_attr(self.alpha, "title", "Probability of skipping each merge (BPE-dropout)" if bpe
                      else "Sharpness: segmentations drawn with probability ∝ P^alpha")
        port.set_hidden(self.sampling_help, not (bpe or unigram))
        port.set_text(self.sampling_help, SAMPLING_HELP["bpe" if bpe else "unigram"])
        port.set_value(self.alpha, f"{settings.sample_alpha:g}")
        port.set_value(self.seed, str(settings.sample_seed))
        port.set_hidden(self.b_best, not settings.sampled)
        if self._task is not None and not self._task.done():
            self._task.cancel()
        if tok is None:
            self._show(None)
            return
        steps = inspect_steps(tok, settings.text, settings.special_policy,
                              (settings.sample_alpha, settings.sample_seed) if settings.sampled and (bpe or unigram) else None,
                              settings.nbest if unigram else 0)
        check = tokenizer_check(tok, settings.text, "the Inspect text")
        self._task = port.spawn(self._inspect(steps, check))

    async def _inspect(self, steps: Generator[None, None, Inspection], check: Any = None) -> None:
        """Encode a slice per browser turn (long texts stay responsive), then draw; a
        custom pattern is first tried on the text in the compute worker (the pattern guard)."""
        port = self.port
        asking = not self.guard.known(check)
        if asking:  # (the first check also starts the worker: seconds, said rather than a blank "0 tokens")
            port.set_text(self.note, checking_text(check))
            port.set_hidden(self.note, False)
        refusal = await self.guard.verdict(check)
        if asking:
            port.set_hidden(self.note, True)
        if refusal is not None:
            port.set_text(self.error, refusal)
            port.set_hidden(self.error, False)
            self._show(None)
            return
        try:
            result = await drive(port, steps)
        except ValueError as exc:
            port.set_text(self.error, special_token_message(exc) if isinstance(exc, SpecialTokenInText) else str(exc))
            port.set_hidden(self.error, False)
            self._show(None)
            return
        port.set_hidden(self.error, True)
        # drawn in parts, a browser task each (2,000 chips, the coloured text and the
        # pre-tokens of a long text are ~50 ms each in the page)
        await drive(port, self._show_parts(result))

    def _show(self, r: Inspection | None) -> None:
        """Draw an inspection (or none) at once."""
        for _part in self._show_parts(r):
            pass

    def _build_in_parts(self, parent: Any, n: int, size: int, specs: Any) -> Iterator[None]:
        """``parent``'s children made anew from ``specs(start, end)`` over ``0..n``, ``size`` at a
        time, a yield after each part but a lone one."""
        for start in range(0, max(1, n), size):
            if start:
                yield
            (self.port.build_more if start else self.port.build_into)(parent, specs(start, start + size))
        if n > size:
            yield

    def _show_parts(self, r: Inspection | None) -> Iterator[None]:
        """Draw an inspection, pausing (a yield) between its chips, its coloured text and the rest."""
        port = self.port
        self.last = r
        chips = r.chips if r else []
        shown = chips[:MAX_CHIPS]
        # the chips, PART_CHIPS at a time (their specs made a part at a time too)
        yield from self._build_in_parts(self.chips, len(shown), PART_CHIPS, lambda a, b: [
            chip_spec(c, r.text, r.sampled, i) for i, c in enumerate(shown[a:b], a)] if r else [])
        # the text itself, each token's characters coloured (not for a sampled segmentation,
        # whose offsets are not kept); a span is a lighter element than a chip
        spans = spans_spec(shown, r.text, len(chips) > len(shown)) if r and not r.sampled else []
        yield from self._build_in_parts(self.spans, len(spans), 2 * PART_CHIPS, lambda a, b: spans[a:b])
        port.set_hidden(self.spans, not spans)
        self._lit = []
        n_chars = len(r.text) if r else len(self.state.inspect.text)
        port.set_text(self.count, f"{len(chips):,}")
        port.set_text(self.chars, f"{n_chars:,}")
        port.set_text(self.ratio, f"{n_chars / len(chips):.2f}" if chips else "–")
        design = r is not None and r.round_trip_kind == "by_design"
        port.set_text(self.roundtrip, ("≈ " if design else "✓ " if r.round_trip_ok else "≠ ") + r.round_trip if r else "–")
        port.set_attr(self.roundtrip, "data-ok", ("design" if design else "yes" if r.round_trip_ok else "no") if r else "")
        port.set_attr(self.roundtrip, "title", "decode(encode(text)) compared with the text as typed, the normalized "
                                               "text as shown (▁ markers back to spaces), and what this pipeline "
                                               "promises; grey: a difference by design, amber: a real loss")
        mode = ""
        if r and r.sampled:
            mode = (f"A sampled segmentation (seed {self.state.inspect.sample_seed}); offsets are shown only "
                    "for the best segmentation.")
        port.set_text(self.mode, mode)
        port.set_hidden(self.mode, not mode)
        more = []
        if len(chips) > MAX_CHIPS:
            more.append(f"Showing the first {MAX_CHIPS:,} of {len(chips):,} tokens.")
        if r and r.cut:
            more.append(f"The inspector encodes the first {len(r.text):,} characters.")
        no_id = sorted({c.raw for c in chips if c.id is None})
        if no_id:
            more.append(f"Not in the vocabulary, shown as themselves with no id: {', '.join(map(repr, no_id[:10]))}. "
                        "Encoding to ids refuses them; set an unk token (Train options) to give them one.")
        port.set_text(self.more, " ".join(more))
        port.set_hidden(self.more, not more)
        port.set_text(self.detail, "Hover or focus a token to see its id and offsets." if chips else "")
        # the stages
        port.set_text(self.st_norm, visible(r.normalized) if r else "")
        port.build_into(self.st_pre, [el("span", "piece", p) for p in (r.pre_tokens[:MAX_CHIPS] if r else [])])
        port.set_text(self.st_pre_count, f"{len(r.pre_tokens):,}" if r else "0")
        unmatched = r.unmatched if r else 0
        port.set_text(self.st_unmatched, f"The pattern left {unmatched:,} character{'s' * (unmatched != 1)} unmatched; "
                      "each run of them is a pre-token of its own." if unmatched else "")
        port.set_hidden(self.st_unmatched, not unmatched)
        port.set_text(self.st_tokens, " ".join(c.label for c in shown) if r else "")
        port.set_text(self.st_ids, " ".join("?" if c.id is None else str(c.id) for c in shown) if r else "")
        port.set_text(self.st_decoded, visible(r.decoded) if r else "")
        # n-best
        rows = [el("tr", children=[el("td", "num", str(k)), el("td", "mono", " | ".join(labels)),
                                   el("td", "num", f"{lp:.3f}"), el("td", "num", f"{share:.1%}")])
                for k, (labels, lp, share) in enumerate((r.nbest or []) if r else [], 1)]
        port.build_into(self.nbest_rows, rows)
        port.set_hidden(self.nbest_card, not rows)


DEFAULT_WELL_KNOWN = "cl100k_base"  # what Inspect opens on before the learner trains or picks (GPT-4's)


def pick_choices() -> list[tuple[str, str, str]]:
    """The picker's buttons: ``(key, title, source)``, the trained tokenizer first, then
    each well-known tokenizer the page ships.

    >>> [k for k, _, _ in pick_choices()][:3]
    ['trained', 'r50k_base', 'cl100k_base']
    """
    # (the short name: "GPT-4 (cl100k)" is "GPT-4"; the button's title says the rest)
    return [("trained", "Trained here", "")] + [(v.key, v.title.split(" (")[0], f"{v.title}: {v.source}")
                                                 for v in WELL_KNOWN if v.shipped]


def span_segments(chips: Sequence[TokenChip], text: str) -> list[tuple[int, int, tuple[int, ...]]]:
    """The text cut into ``(start, end, chip indexes)`` segments, in order, covering it up
    to the last chip's end: each token's characters (the indexes of the chips over them;
    several when tokens share a character, e.g. bytes of one emoji) and the characters no
    token covers (no indexes). Zero-width chips (an end-of-word marker) join the segment
    before them.

    >>> from subwordlab_web.tokens import TokenChip
    >>> chips = [TokenChip("a", "a", 1, 0, 0, 1, 0, 1), TokenChip("\\xf0", "x", 2, 1, 2, 3, 1, 3),
    ...          TokenChip("\\x9f", "y", 3, 2, 2, 3, 3, 5)]
    >>> span_segments(chips, "a 🙂")
    [(0, 1, (0,)), (1, 2, ()), (2, 3, (1, 2))]
    """
    segments: list[tuple[int, int, tuple[int, ...]]] = []
    pos = 0
    for i, c in enumerate(chips):
        start, end = max(c.start, 0), min(c.end, len(text))
        if end <= pos or end <= start:
            # (a character an earlier token already began, or no width): the same segment
            if segments and segments[-1][2]:
                a, b, ids = segments[-1]
                segments[-1] = (a, b, ids + (i,))
            continue
        start = max(start, pos)
        if start > pos:  # characters between tokens (e.g. spaces a pipeline drops)
            segments.append((pos, start, ()))
        segments.append((start, end, (i,)))
        pos = end
    return segments


def spans_spec(chips: Sequence[TokenChip], text: str, cut: bool = False) -> list[Any]:
    """The original text as inline coloured spans, one per token (element specs): hovering
    one names its token; ``data-chips`` links it to its chips (and back). ``cut``: more text
    follows than the chips shown."""
    out: list[Any] = []
    for a, b, ids in span_segments(chips, text):
        if not ids:
            out.append(el("span", "tok-gap", text[a:b]))
            continue
        first = chips[ids[0]]
        title = " + ".join(("no id" if chips[k].id is None else f"id {chips[k].id}") + f" {chips[k].label}"
                           for k in ids) + f" · chars {a}–{b}"
        out.append(el("span", "tok-span", text[a:b], attrs={
            "data-color": first.color, "data-chips": " ".join(map(str, ids)), "title": title}))
    if cut:
        out.append(el("span", "tok-more", " …"))
    return out


def chip_spec(chip: TokenChip, text: str, sampled: bool = False, index: int = 0) -> list[Any]:
    """One token chip (an element spec): label, id, colour, and its offsets as a title,
    an accessible name and data attributes; an option of the chips' listbox, focusable by
    the arrow keys (only chip `index` 0 is a Tab stop, see roving.py)."""
    title = f"id {chip.id} · {chip.raw!r}" if sampled else chip.title(text)
    attrs = {"data-color": chip.color, "tabindex": roving_tabindex(index), "role": "option",
             # the name starts with what the chip shows (token, id), then its details
             "title": title, "aria-label": f"{chip.label} {'no id' if chip.id is None else chip.id}: {title}",
             "data-id": chip.id, "data-index": index, "data-start": chip.start, "data-end": chip.end,
             "data-bytes": f"{chip.byte_start}-{chip.byte_end}",
             "data-unk": "" if chip.unknown else None, "data-special": "" if chip.special else None,
             "data-gap": "" if chip.gap_before else None}
    return el("span", "chip", attrs=attrs, children=chip_children(chip))


__all__ = ["InspectPanel", "Inspection", "inspect_steps", "inspect_text", "text_slices", "bytes_label"]
