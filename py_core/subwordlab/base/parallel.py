"""Worker processes for big inputs on one machine (``subwordlab train/count/encode --workers N``).

The core itself is single-threaded (it runs in Pyodide, which has no processes). Here a long
input is cut where the cut cannot change the result (``counts.text_chunks`` for counting,
``Tokenizer._safe_cut`` for encoding, as ``encode_iter`` cuts), the chunks go to worker
processes, and their results come back in order, at most ``2 * workers`` chunks in flight,
so memory stays bounded whatever the input's size. The result is the one-process result,
byte for byte. ``multiprocessing`` is imported only when workers are started; where there
are no processes (Pyodide) or only one worker is asked for, everything runs here.

>>> list(ordered_map(len, ["ab", "c"], workers=1))
[2, 1]
"""

import json
import os
import signal
import sys
from collections import deque

_END = object()
ENCODE_CHUNK_CHARS = 1 << 20  # characters read (and encoded by one task) at a time: 1 Mi


def default_workers():
    """The number of cores this process may run on (the default of ``--workers``).
    Example: default_workers() -> 2 on a 2-core machine."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def processes_available():
    """Whether worker processes can be started here (not in Pyodide or another WebAssembly runtime).
    Example: processes_available() -> True on CPython under Linux, False in the page."""
    return sys.platform not in ("emscripten", "wasi")


def ordered_map(func, items, workers, initializer=None, initargs=(), ahead=None):
    """``map(func, items)`` run in ``workers`` processes, results in the items' order, at most
    ``ahead`` (default ``2 * workers``) items handed out and not yet given back. With one
    worker, one item, or no processes (Pyodide), it runs here. ``initializer(*initargs)``
    runs first in each worker process (not here: the caller prepares this process itself).
    ``func`` and the items must pickle (a top-level function or object, plain data).

    >>> list(ordered_map(str.upper, iter(["a", "b"]), workers=2))
    ['A', 'B']
    """
    items = iter(items)
    # step 1: one worker, no processes, or fewer than two items: here
    first = next(items, _END)
    second = next(items, _END) if first is not _END else _END
    if workers <= 1 or second is _END or not processes_available():
        for item in ([] if first is _END else [first]) + ([] if second is _END else [second]):
            yield func(item)
        yield from map(func, items)
        return
    # step 2: a pool of worker processes that ignore Ctrl-C (the parent stops them)
    import concurrent.futures
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if sys.platform == "linux" and "fork" in methods else None)
    pool = concurrent.futures.ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                                                  initargs=(initializer, initargs))
    ahead = ahead or 2 * workers
    pending = deque()
    ok, processes = False, getattr(pool, "_processes", None)
    try:
        # step 3: keep `ahead` items in flight; give results back in order
        for item in (first, second):
            pending.append(pool.submit(func, item))
        for item in items:
            if len(pending) >= ahead:
                yield pending.popleft().result()
            pending.append(pool.submit(func, item))
        while pending:
            yield pending.popleft().result()
        ok = True
    finally:
        pool.shutdown(wait=ok, cancel_futures=True)
        if not ok:  # (interrupted or failed: do not wait for the chunks still running)
            for process in list((processes or {}).values()):
                process.terminate()


def _start_worker(initializer, initargs):
    """A worker's start: Ctrl-C is the parent's to handle (no traceback from every worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


# -- encoding ---------------------------------------------------------------------------------

_MODEL: dict = {}  # the process's tokenizer (and its continuation), set once by _set_model


def _set_model(tok):
    """Set the tokenizer every chunk of this process is encoded with (a worker receives it
    pickled, or as it was in the parent when the worker is forked)."""
    _MODEL.update(first=tok, rest=tok._continuation())


def encode_chunk(task):
    """One chunk's ids (or tokens, JSON-quoted) as the text ``subwordlab encode`` prints,
    separated by spaces. ``task``: ``(text, first, policy, as_tokens)``; ``first``: the
    chunk starts the text (a SentencePiece-style dummy ▁ belongs there only).
    Example (after _set_model): encode_chunk(('Hello world', True, {}, False)) -> '15496 995'."""
    text, first, policy, as_tokens = task
    tok = _MODEL["first" if first else "rest"]
    ids = tok.encode(text, **policy)
    if as_tokens:
        return " ".join(json.dumps(tok.id_to_token(i), ensure_ascii=False) for i in ids)
    return " ".join(map(str, ids))


def encode_chunks(tok, stream, policy, size=None):
    """A text stream as ``(text, first)`` chunks cut where ``Tokenizer.encode_iter`` would
    cut (``_safe_cut``: encoding the chunks apart gives the ids of the whole text).

    >>> import io; from subwordlab import train
    >>> tok = train("a b c a b", preset="bpe", num_merges=1)
    >>> list(encode_chunks(tok, io.StringIO("a b c d e f"), {}, size=2))
    [('a ', True), ('b ', False), ('c ', False), ('d e f', False)]
    """
    carry, first, size = "", True, size or ENCODE_CHUNK_CHARS
    allowed, disallowed = policy.get("allowed_special", ()), policy.get("disallowed_special", "all")
    while True:
        block = stream.read(size)
        carry += block
        cut = tok._safe_cut(carry, allowed, disallowed) if block else len(carry)
        if cut > 0:
            yield carry[:cut], first
            carry, first = carry[cut:], False
        if not block:
            return


def encode_stream(tok, stream, policy, workers, as_tokens=False, size=None):
    """The text ``subwordlab encode --file`` prints for ``stream``, in parts as they are ready
    (ids or tokens separated by spaces; no final line break), encoded by ``workers``
    processes: the same text as encoding it in one process.

    >>> import io; from subwordlab import train
    >>> tok = train("a b c a b", preset="bpe", num_merges=1)
    >>> "".join(encode_stream(tok, io.StringIO("a b c"), {}, workers=1, as_tokens=True, size=2))
    '"a</w>" "b" "</w>" "c" "</w>"'
    """
    # step 1: this process and every worker encode with `tok` (set once per process)
    _set_model(tok)
    tasks = ((text, first, policy, as_tokens) for text, first in encode_chunks(tok, stream, policy, size))
    # step 2: the chunks' texts, in order, joined by spaces
    started = False
    for part in ordered_map(encode_chunk, tasks, workers, _set_model, (tok,)):
        if part:
            yield (" " if started else "") + part
            started = True
