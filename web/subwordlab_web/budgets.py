"""Budgets for a request to the compute worker whose every reply must come in time: the
pattern guard's checks (pattern_guard.py). A regex that backtracks catastrophically never
answers, and nothing inside the worker can stop it, so the page waits for each answer at most
its budget, then terminates the worker (dom.DomPort.compute).

Several checks go in one request (Compare's 47 parity texts), so each reply has its own
budget, counted from the reply before it: a pattern that hangs on the 30th text is caught
after that text's budget, not after the sum of all 47.

Pure asyncio (no browser), so it is tested in CPython (tests/unit/test_web_budgets.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class RepliesSeen:
    """An ``on_reply`` that also counts the replies and signals each (``compute``'s budgets)."""

    def __init__(self, on_reply: Callable[[str], None]) -> None:
        self.on_reply, self.count, self.event = on_reply, 0, asyncio.Event()

    def __call__(self, text: str) -> None:
        self.count += 1
        self.event.set()
        self.on_reply(text)


def _late(budget: float) -> TimeoutError:
    return TimeoutError(f"the compute worker did not answer within {budget:.1f} s")


async def within_budgets(done: asyncio.Future, budgets: list[float], seen: RepliesSeen) -> None:
    """Wait for ``done``: reply k within ``budgets[k]`` s of the one before it (the request's
    end within the last budget of the last reply); one budget: the whole request within it.
    Raises ``TimeoutError`` when one is late."""
    # subtle: shielded, so a cancelled caller leaves the check running (see dom.DomPort.compute)
    shielded = asyncio.shield(done)
    if len(budgets) == 1:
        try:
            await asyncio.wait_for(shielded, budgets[0])
        except TimeoutError:
            raise _late(budgets[0]) from None
        return
    while not shielded.done():
        allowed = budgets[min(seen.count, len(budgets) - 1)]
        seen.event.clear()
        waiting = asyncio.ensure_future(seen.event.wait())
        try:
            finished, _ = await asyncio.wait({shielded, waiting}, timeout=allowed, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
        if not finished:
            raise _late(allowed)
    await shielded  # (its end, or its error)
