"""Merging a long piece in O(n log n): a queue of (rank, position) over a linked list.

The models merge a short piece with a plain list (find the best pair, merge, repeat): a
handful of C-level list operations per merge, the fastest way for words of a few dozen
symbols. But each of those merges costs a scan and a shift of the whole list, so a piece of
n symbols costs O(n^2): 100,000 repeated letters took 20 s to encode, a megabyte hours (a
pasted file with a long run of one character, or one long word without spaces). Past
``LONG_PIECE`` symbols the models call :func:`queue_merge` instead, which gives the same
result in O(n log n):

- every adjacent pair with a rank sits in a heap as (rank, left position, ...), so the
  lowest rank, then the leftmost, is popped first;
- symbols form a doubly linked list, so a merge is O(1): the left symbol becomes the new
  token, the right one is unlinked;
- a merge changes two neighbouring pairs; they are pushed anew and the old heap entries
  for those positions go stale (each position has a version number; a stale entry is
  skipped when popped).

Two orders of merging exist among the models, and ``rounds`` picks one:

- ``rounds=False`` -- one occurrence at a time, a pair created by a merge competing at
  once (HF ``tokenizers``' queue, tiktoken's rule);
- ``rounds=True`` -- the textbook replay of our own BPE: the lowest-ranked pair present,
  *all* its occurrences left to right, and only then the pairs those merges created
  (pushed at the end of the round).

>>> ranks = {("a", "a"): (0, "aa"), ("aa", "aa"): (1, "aaaa")}
>>> queue_merge(list("aaaaa"), lambda a, b: ranks.get((a, b)), rounds=True)
(['aaaa', 'a'], [0, 4])
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any

LONG_PIECE = 256  # symbols; from here on a piece is merged through the queue (list merging is O(n^2))

RankOf = Callable[[Any, Any], "tuple[Any, Any] | None"]  # (left, right) -> (rank, merged token) or None


def queue_merge(toks: list, rank_of: RankOf, rounds: bool = False) -> tuple[list, list[int]]:
    """Merge ``toks`` (a list, changed in place) by rank; returns the merged tokens and, for
    each, the position of its first symbol in ``toks`` (a token spans from there to the
    next one's position). ``rank_of(a, b)`` is ``(rank, merged)`` or None; ranks compare
    (ints or tuples), the lowest merges first, the leftmost on a tie."""
    n = len(toks)
    if n < 2:
        return list(toks), list(range(n))
    nxt = list(range(1, n + 1))  # the next live symbol (n: none)
    prev = list(range(-1, n - 1))  # the previous live symbol (-1: none)
    version = [0] * n  # bumped when a symbol changes; -1 once it is merged away
    # step 1: every adjacent pair that has a rank, in one heap
    heap = []
    for i in range(n - 1):
        r = rank_of(toks[i], toks[i + 1])
        if r is not None:
            heap.append((r[0], i, 0, 0, r[1]))
    heapq.heapify(heap)
    pending: list = []  # rounds: pairs created this round, queued when it ends
    current = None
    while heap or pending:
        # step 2 (rounds): a round ends when the lowest rank left is another one
        if pending and (not heap or heap[0][0] != current):
            for entry in pending:
                heapq.heappush(heap, entry)
            pending = []
        rank, i, vi, vj, new = heapq.heappop(heap)
        j = nxt[i]
        # step 3: skip a stale entry (either symbol changed or was merged away since)
        if j >= n or version[i] != vi or version[j] != vj:
            continue
        current = rank
        # step 4: merge j into i and unlink j
        toks[i] = new
        version[i] += 1
        version[j] = -1
        k = nxt[j]
        nxt[i] = k
        if k < n:
            prev[k] = i
        # step 5: the pairs the new token forms with its neighbours
        queue = pending if rounds else None
        p = prev[i]
        if p >= 0:
            r = rank_of(toks[p], new)
            if r is not None:
                _push(heap, queue, (r[0], p, version[p], version[i], r[1]))
        if k < n:
            r = rank_of(new, toks[k])
            if r is not None:
                _push(heap, queue, (r[0], i, version[i], version[k], r[1]))
    starts, i = [], 0
    while i < n:
        starts.append(i)
        i = nxt[i]
    return [toks[i] for i in starts], starts


def _push(heap: list, pending: list | None, entry: tuple) -> None:
    if pending is None:
        heapq.heappush(heap, entry)
    else:
        pending.append(entry)


def queue_merge_spans(syms: list, rank_of: RankOf, rounds: bool = False, token_id: Callable | None = None) -> list:
    """:func:`queue_merge` on ``[(token, start, end), ...]``: the merged symbols with their
    spans joined; ``token_id`` (if given) turns each merged token into its id.

    >>> ranks = {("a", "b"): (0, "ab")}
    >>> queue_merge_spans([("a", 0, 1), ("b", 1, 2), ("c", 2, 3)], lambda a, b: ranks.get((a, b)))
    [('ab', 0, 2), ('c', 2, 3)]
    """
    merged, starts = queue_merge([s[0] for s in syms], rank_of, rounds)
    ends = [syms[s - 1][2] for s in starts[1:]] + [syms[-1][2]] if syms else []
    if token_id is not None:
        merged = list(map(token_id, merged))
    return [(t, syms[s][1], e) for t, s, e in zip(merged, starts, ends)]
