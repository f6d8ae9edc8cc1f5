"""The first screen: the core's version and an "encode this text" box over a built-in BPE.

Views talk to a DOM port (`dom.BrowserPort` in the page, `fakedom.FakePort` in tests) and
never import `js`. The helpers at the top are pure and need no port at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence

import subwordlab

# The textbook word counts (Sennrich et al.'s "low lower newest widest", plus a few more)
# the built-in tokenizer learns from.
BUILTIN_COUNTS: dict[str, int] = {
    "low": 5,
    "lower": 2,
    "newest": 6,
    "widest": 3,
    "the": 20,
    "token": 8,
    "tokens": 4,
    "tokenizer": 3,
}
BUILTIN_MERGES = 20
END_OF_WORD = "</w>"
UNK_TOKEN = "<unk>"
SAMPLE_TEXT = "the lowest newest tokenizer"

PALETTE_SIZE = 8  # app.css defines .chip[data-color="0"] … [data-color="7"]
MAX_CHIPS = 2000  # beyond this the page shows a count instead of more chips


class Encoding(Protocol):
    ids: Sequence[int]
    tokens: Sequence[str]
    offsets: Sequence[tuple[int, int]]


class Tokenizer(Protocol):
    def encode_full(self, text: str) -> Encoding: ...


def builtin_tokenizer() -> Tokenizer:
    """The small BPE the first screen encodes with."""
    return subwordlab.train(
        BUILTIN_COUNTS,
        preset="bpe",
        num_merges=BUILTIN_MERGES,
        end_of_word=END_OF_WORD,
        unk_token=UNK_TOKEN,
    )


def assign_colors(ids: Sequence[int], palette_size: int = PALETTE_SIZE) -> list[int]:
    """A colour per token: the same id keeps its colour, but neighbours never share one.

    Example: assign_colors([3, 11, 5, 5], 8) -> [3, 4, 5, 6]
    """
    if palette_size < 2:
        raise ValueError(f"palette_size must be at least 2 so neighbours can differ, got {palette_size}")
    colors: list[int] = []
    for token_id in ids:
        color = token_id % palette_size
        # subtle: a clash with the left neighbour moves this chip one colour on; that can
        # never clash again, because only the left neighbour is fixed at this point.
        if colors and color == colors[-1]:
            color = (color + 1) % palette_size
        colors.append(color)
    return colors


@dataclass(frozen=True)
class Chip:
    token: str
    id: int
    color: int
    start: int
    end: int
    unknown: bool
    gap_before: bool = False  # the text has characters (usually spaces) between this chip and the last

    def title(self, text: str) -> str:
        """Example: 'id 12 · chars 0–3 · "low"'"""
        return f"id {self.id} · chars {self.start}–{self.end} · {text[self.start:self.end]!r}"


def chips_for(encoding: Encoding, unk_token: str | None = UNK_TOKEN) -> list[Chip]:
    """One chip per token of `encoding`, with its colour."""
    ids, tokens, offsets = list(encoding.ids), list(encoding.tokens), list(encoding.offsets)
    if not (len(ids) == len(tokens) == len(offsets)):
        raise ValueError(
            f"encoding has {len(ids)} ids, {len(tokens)} tokens and {len(offsets)} offsets; "
            "they must be the same length"
        )
    colors = assign_colors(ids)
    chips = []
    prev_end = None
    for token_id, token, (start, end), color in zip(ids, tokens, offsets, colors):
        gap = prev_end is not None and start > prev_end
        chips.append(Chip(token, token_id, color, start, end, unknown=(token == unk_token), gap_before=gap))
        prev_end = end
    return chips


@dataclass(frozen=True)
class EncodeStats:
    tokens: int
    chars: int

    @property
    def chars_per_token(self) -> str:
        return f"{self.chars / self.tokens:.2f}" if self.tokens else "–"


class EncodeView:
    """The "encode this text" panel: a textarea, live token chips, and counts."""

    def __init__(self, port: Any, tokenizer: Tokenizer, unk_token: str | None = UNK_TOKEN) -> None:
        self.port = port
        self.tokenizer = tokenizer
        self.unk_token = unk_token
        self.input = port.query("#encode-input")
        self.chips = port.query("#encode-chips")
        self.count = port.query("#encode-count")
        self.chars = port.query("#encode-chars")
        self.ratio = port.query("#encode-ratio")
        self.empty = port.query("#encode-empty")
        self.more = port.query("#encode-more")
        port.clone_template("tpl-chip")  # a missing template fails now, not on first input
        port.on(self.input, "input", self._on_input)

    def _on_input(self, _event: Any) -> None:
        self.render(self.port.value(self.input))

    def render(self, text: str) -> list[Chip]:
        port = self.port
        chips = chips_for(self.tokenizer.encode_full(text), self.unk_token)
        shown = chips[:MAX_CHIPS]
        port.replace_children(self.chips, [self._chip_element(chip, text) for chip in shown])

        stats = EncodeStats(tokens=len(chips), chars=len(text))
        port.set_text(self.count, str(stats.tokens))
        port.set_text(self.chars, str(stats.chars))
        port.set_text(self.ratio, stats.chars_per_token)
        port.set_hidden(self.empty, bool(chips))
        port.set_hidden(self.more, len(chips) <= MAX_CHIPS)
        if len(chips) > MAX_CHIPS:
            port.set_text(self.more, f"Showing the first {MAX_CHIPS:,} of {len(chips):,} tokens.")
        return chips

    def _chip_element(self, chip: Chip, text: str) -> Any:
        port = self.port
        el = port.clone_template("tpl-chip")
        port.set_text(port.query(".chip-text", el), chip.token)
        port.set_text(port.query(".chip-id", el), str(chip.id))
        port.set_attr(el, "data-color", str(chip.color))
        port.set_attr(el, "title", chip.title(text))
        if chip.unknown:
            port.set_attr(el, "data-unk", "")
        if chip.gap_before:
            port.set_attr(el, "data-gap", "")
        return el


class App:
    """Fills the page once the runtime is up; `start()` is called by the bootstrap."""

    def __init__(self, port: Any, tokenizer: Tokenizer | None = None) -> None:
        self.port = port
        self.tokenizer = tokenizer
        self.encode: EncodeView | None = None

    def start(self) -> None:
        port = self.port
        self.error_box = port.query("#app-error")
        port.set_error_sink(self.show_error)
        port.set_text(port.query("#core-version"), f"core v{subwordlab.__version__}")

        if self.tokenizer is None:
            self.tokenizer = builtin_tokenizer()
        self._render_builtin_corpus()

        self.encode = EncodeView(port, self.tokenizer)
        text = port.value(self.encode.input) or SAMPLE_TEXT
        port.set_value(self.encode.input, text)
        self.encode.render(text)

    def _render_builtin_corpus(self) -> None:
        port = self.port
        rows = []
        for word, count in sorted(BUILTIN_COUNTS.items(), key=lambda kv: (-kv[1], kv[0])):
            row = port.clone_template("tpl-wordcount")
            port.set_text(port.query(".word", row), word)
            port.set_text(port.query(".count", row), str(count))
            rows.append(row)
        port.replace_children(port.query("#builtin-corpus"), rows)
        port.set_text(port.query("#builtin-merges"), str(BUILTIN_MERGES))

    def show_error(self, exc: BaseException) -> None:
        """Show an error message as is (the core's messages say how to fix the problem)."""
        self.port.set_text(self.error_box, f"{type(exc).__name__}: {exc}")
        self.port.set_hidden(self.error_box, False)

    def teardown(self) -> None:
        self.port.teardown()
