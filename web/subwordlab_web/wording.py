"""Counted nouns for the page's messages: one helper, so no message says "1 steps".

>>> plural(1, "step"), plural(0, "step"), plural(1234, "merge")
('1 step', '0 steps', '1,234 merges')
>>> plural(2, "was", "were", number=False), plural(1, "entry", "entries")
('were', '1 entry')
>>> run_notes(["the pattern left 3 characters unmatched; they are kept as their own pieces"])
' · Note: the pattern left 3 characters unmatched; they are kept as their own pieces.'
"""

from __future__ import annotations

from collections.abc import Sequence

from subwordlab.options import PRESETS

# each preset's short name, as the page shows it (e.g. 'bpe' -> 'BPE')
PRESET_SHORT = {p.name: p.short for p in PRESETS.values()}


def plural(n: int, singular: str, plural_form: str | None = None, *, number: bool = True) -> str:
    """`n` and the noun in the form that agrees with it (thousands separated). `plural_form`
    defaults to the singular + "s"; `number=False` gives the noun (or verb) alone."""
    word = singular if n == 1 else (plural_form if plural_form is not None else singular + "s")
    return f"{n:,} {word}" if number else word


def run_notes(notes: Sequence[str]) -> str:
    """The notes of a training run (what it limited or left unmatched, from the core's
    ``AlphabetReady.notes``) as the tail of a status line: '' when there are none."""
    return "".join(f" · Note: {n.rstrip('.')}." for n in notes)
