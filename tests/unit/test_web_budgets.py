"""The compute worker's per-reply budgets (subwordlab_web/budgets.py), on a real asyncio
loop: a request of several pattern checks gives each reply its own budget, counted from the
reply before it. Generous budgets (tenths of a second) against the gaps they must tell
apart: no assertion bounds how long anything took, only what was allowed."""

import asyncio
import time

import pytest

from subwordlab_web.budgets import RepliesSeen, within_budgets


async def _worker(seen, done, gaps):
    """Replies after each gap (None: never again: a regex that hangs), then ends the request."""
    for gap in gaps:
        if gap is None:
            return
        await asyncio.sleep(gap)
        seen(f"reply {seen.count}")
    done.set_result(None)


async def _ask(budgets, gaps):
    got = []
    seen = RepliesSeen(got.append)
    done = asyncio.get_running_loop().create_future()
    worker = asyncio.ensure_future(_worker(seen, done, gaps))
    try:
        await within_budgets(done, budgets, seen)
    finally:
        worker.cancel()
    return got


def test_each_reply_within_its_own_budget_is_in_time_though_the_whole_is_not():
    # three replies 0.3 s apart: 0.9 s in all, more than any one budget of 0.6 s
    got = asyncio.run(_ask([0.6, 0.6, 0.6], [0.3, 0.3, 0.3]))
    assert got == ["reply 0", "reply 1", "reply 2"]


def test_a_reply_that_does_not_come_is_late_after_its_own_budget():
    started = time.perf_counter()
    with pytest.raises(TimeoutError, match="did not answer within 0.3 s"):
        asyncio.run(_ask([2.0, 0.3, 2.0], [0.05, None]))  # the second check hangs
    assert time.perf_counter() - started >= 0.3  # (its budget, counted from the first reply)


def test_two_replies_in_one_turn_both_count():
    """Replies 0 and 1 arrive together; reply 2 then has its own budget (0.6 s), not reply
    1's (0.1 s), which it would overrun by 0.2 s."""
    async def worker(seen, done):
        await asyncio.sleep(0.05)
        seen("reply 0")
        seen("reply 1")
        await asyncio.sleep(0.3)
        seen("reply 2")
        done.set_result(None)

    async def main():
        seen = RepliesSeen(lambda _text: None)
        done = asyncio.get_running_loop().create_future()
        asyncio.ensure_future(worker(seen, done))
        await within_budgets(done, [0.5, 0.1, 0.6], seen)
        return seen.count

    assert asyncio.run(main()) == 3


def test_one_budget_is_for_the_whole_request():
    with pytest.raises(TimeoutError, match="within 0.4 s"):
        asyncio.run(_ask([0.4], [0.25, 0.25]))  # two replies, 0.5 s: over the one budget


def test_a_cancelled_wait_leaves_the_request_running():
    """The caller leaving (a newer edit) does not cancel the check in the worker: the next
    task waits for it (dom.DomPort.compute's abandoned deadline)."""
    async def main():
        seen = RepliesSeen(lambda _text: None)
        done = asyncio.get_running_loop().create_future()
        waiting = asyncio.ensure_future(within_budgets(done, [1.0, 1.0], seen))
        await asyncio.sleep(0.05)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        return done.cancelled()

    assert asyncio.run(main()) is False


def test_an_error_ending_the_request_reaches_the_caller():
    async def main():
        seen = RepliesSeen(lambda _text: None)
        done = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(0.05, done.set_exception, OSError("the worker stopped"))
        await within_budgets(done, [1.0, 1.0], seen)

    with pytest.raises(OSError, match="the worker stopped"):
        asyncio.run(main())
