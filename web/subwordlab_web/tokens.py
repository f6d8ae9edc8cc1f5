"""How tokens look on the page: visible white space, readable byte-level tokens, colours.

Pure helpers (no DOM), shared by the Train and Inspect panels.

>>> visible("a b\\n\\tc")
'a·b↵→c'
>>> token_label("Ġthe", byte_level=True)
'·the'
>>> token_label("est</w>", byte_level=False)
'est</w>'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from subwordlab.text.bytes_map import CHAR_TO_BYTE

from .build import el

PALETTE_SIZE = 8  # app.css defines [data-color="0"] … [data-color="7"]

_VISIBLE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


def visible(text: str) -> str:
    """White space made visible: space ·, line break ↵, tab →, carriage return ␍, any
    other white space (no-break space, ideographic space, …) ␣."""
    if text.isprintable() and " " not in text:
        return text
    return "".join(_VISIBLE.get(ch, "␣" if ch.isspace() else ch) for ch in text)


def token_label(token: str, byte_level: bool) -> str:
    """A token as a learner reads it: byte-level tokens as the text their bytes spell
    (bytes that end mid-character as \\xNN), others as their string; white space visible.

    Example: byte-level 'Ġ' -> '·'; 'ä½' (two bytes of 你) -> '\\xe4\\xbd'.
    """
    if byte_level and all(ch in CHAR_TO_BYTE for ch in token):
        data = bytes(CHAR_TO_BYTE[ch] for ch in token)
        return visible(data.decode("utf-8", errors="backslashreplace"))
    return visible(token)


def bytes_label(data: bytes) -> str:
    """Example: b' th' -> '·th'; b'\\xe4' -> '\\xe4'."""
    return visible(data.decode("utf-8", errors="backslashreplace"))


def assign_colors(ids: Sequence[int | None], palette_size: int = PALETTE_SIZE, left: int | None = None) -> list[int]:
    """A colour per token: the same id keeps its colour, but neighbours never share one.
    ``left``: the colour of the token just before ``ids`` (a list continued).

    Example: assign_colors([3, 11, 5, 5], 8) -> [3, 4, 5, 6]; assign_colors([5], 8, left=5) -> [6]
    """
    if palette_size < 2:
        raise ValueError(f"palette_size must be at least 2 so neighbours can differ, got {palette_size}")
    colors: list[int] = []
    previous = left
    for token_id in ids:
        color = (token_id if token_id is not None else -1) % palette_size  # None: a character with no id
        # subtle: a clash with the left neighbour moves this chip one colour on; that can
        # never clash again, because only the left neighbour is fixed at this point.
        if color == previous:
            color = (color + 1) % palette_size
        colors.append(color)
        previous = color
    return colors


def is_byte_level(tokenizer) -> bool:
    return bool(getattr(tokenizer.model, "byte_level", False))


@dataclass(frozen=True)
class TokenChip:
    """One token of an encoding, ready to draw: what it shows, where it came from."""

    label: str  # what the chip shows (visible white space)
    raw: str  # the token string in the vocabulary
    id: int | None  # None: a character outside the vocabulary, shown as itself
    color: int
    start: int  # character offsets into the original text
    end: int
    byte_start: int
    byte_end: int
    special: bool = False
    unknown: bool = False
    gap_before: bool = False  # the text has characters between this token and the last

    def title(self, text: str) -> str:
        """Example: 'id 12 · chars 0–3 · bytes 0–3 · "low"'"""
        span = text[self.start:self.end]
        kind = " · special token" if self.special else (" · unknown" if self.unknown else "")
        if self.id is None:
            return (f"not in the vocabulary: no id · chars {self.start}–{self.end} · bytes {self.byte_start}–{self.byte_end}"
                    f" · {visible(span)!r} · unknown")
        return (f"id {self.id} · chars {self.start}–{self.end} · bytes {self.byte_start}–{self.byte_end}"
                f" · {visible(span)!r}{kind}")


def token_chips(encoding, tokenizer, after: TokenChip | None = None) -> list[TokenChip]:
    """The chips of a core `Encoding` (ids, tokens, offsets, byte_offsets, special);
    ``after``: the chip just before them (the chips of a long text, made a part at a time)."""
    ids, tokens = list(encoding.ids), list(encoding.tokens)
    offsets, byte_offsets = list(encoding.offsets), list(encoding.byte_offsets)
    specials = list(getattr(encoding, "special", [False] * len(ids)))
    if not (len(ids) == len(tokens) == len(offsets) == len(byte_offsets)):
        raise ValueError(
            f"encoding has {len(ids)} ids, {len(tokens)} tokens, {len(offsets)} offsets and "
            f"{len(byte_offsets)} byte offsets; they must be the same length")
    byte_level = is_byte_level(tokenizer)
    unk = getattr(tokenizer.model, "unk_token", None)
    chips, prev_end = [], after.end if after is not None else None
    for token_id, token, (s, e), (bs, be), special, color in zip(
            ids, tokens, offsets, byte_offsets, specials, assign_colors(ids, left=after.color if after else None)):
        label = token if special else token_label(token, byte_level)
        chips.append(TokenChip(label or "∅", token, token_id, color, s, e, bs, be, bool(special),
                               unknown=token_id is None or (unk is not None and token == unk and not special),
                               gap_before=prev_end is not None and s > prev_end))
        prev_end = e
    return chips


def first_difference(expected: str, actual: str) -> int | None:
    """Index of the first character where two strings differ, None if equal.

    Example: first_difference('abc', 'abd') -> 2; ('ab', 'abc') -> 2.
    """
    if expected == actual:
        return None
    for i, (a, b) in enumerate(zip(expected, actual)):
        if a != b:
            return i
    return min(len(expected), len(actual))


def excerpt(text: str, start: int, size: int) -> str:
    """``text[start:start + size]``, white space made visible, with "…" if the text goes on;
    the cut never splits a ``<...>`` marker such as ``<unk>`` (it takes the whole marker if
    it closes within 16 more characters, else stops before it).

    Example: excerpt('<unk>galit<unk>é', 0, 12) -> '<unk>galit<unk>…'; ('abc', 1, 12) -> 'bc'.
    """
    end = start + size
    opened = text.rfind("<", start, end)
    if opened != -1 and text.find(">", opened, end) == -1:  # the cut falls inside a marker
        closed = text.find(">", end, end + 16)
        end = closed + 1 if closed != -1 else max(opened, start + 1)
    return visible(text[start:end]) + ("…" if end < len(text) else "")


def round_trip_message(expected: str, decoded: str, kind: str = "", reason: str = "",
                       normalized_by: str = "") -> tuple[bool, str]:
    """(ok, message) for the round-trip badge: does decode(encode(x)) give back what the
    pipeline promises (``subwordlab.stats.round_trip``)? ``kind`` "by_design": it does, and
    that is not the whole normalized text (``reason`` says why): ok, in neutral words, with
    what decoding gives. ``normalized_by``: what the normalizer changed (lower-casing...),
    also by design. Otherwise ``expected`` is the promise and the message shows where the
    decoded text falls short of it.

    Example: ('a b', 'a b') -> (True, 'Round trip exact').
    """
    i = first_difference(expected, decoded)
    gives = f"decode gives “{excerpt(decoded, 0, 40)}” by design"
    if kind == "by_design":
        why = "; ".join(w for w in (reason, normalized_by) if w)
        return True, f"Round trip as designed: {why}: {gives}" if why else f"Round trip as designed: {gives}"
    if i is None:
        return True, f"Round trip as designed: {normalized_by}: {gives}" if normalized_by else "Round trip exact"
    want = excerpt(expected, i, 12) or "(end)"
    got = excerpt(decoded, i, 12) or "(end)"
    return False, f"Round trip differs at character {i}: expected “{want}”, decoded “{got}”"


def chip_children(chip: TokenChip) -> list[Any]:
    """A chip's label over its id (element specs, build.py). subtle: the space between them
    is not drawn (the chip is a flex box) but makes the chip's text "low 5", which its
    accessible name starts with (a name must contain the visible text: WCAG 2.5.3, axe's
    label-content-name-mismatch). Used by Inspect and Compare."""
    return [el("span", "chip-text", chip.label), " ",
            el("span", "chip-id", "no id" if chip.id is None else str(chip.id))]
