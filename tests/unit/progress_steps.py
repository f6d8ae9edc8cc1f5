"""A progress generator (the core's ``(done, total)`` style) run to its end in a test,
keeping what it yielded.

Example: ``seen, tok = run_steps(iter_from_tiktoken(text))`` -> the progress, and the value.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any


def run_steps(steps: Generator[Any, None, Any]) -> tuple[list[Any], Any]:
    """(everything ``steps`` yielded, the value it returned)."""
    seen = []
    while True:
        try:
            seen.append(next(steps))
        except StopIteration as stop:
            return seen, stop.value
