"""What the page says when a task ends with an exception: one message, with what to do.

Used on both sides of the compute session's boundary (session.py in the worker, tasks.py
and the panels on the page), so it imports nothing.
"""

from __future__ import annotations


def failure_message(exc: BaseException, what: str = "Training") -> str:
    """What the page says when a task ends with an exception (every kind, so no panel stays
    stuck on "training…"): the core's ValueError messages are for the user as they are;
    the others are said in plain words, with what to change.

    Example: failure_message(MemoryError()) -> 'Training ran out of memory: ...'
    """
    if isinstance(exc, ValueError):  # CorpusError, bad options, unknown characters...
        return str(exc)
    if isinstance(exc, MemoryError):
        return (f"{what} ran out of memory: the page's Python has at most a few GB. Your corpus and settings are "
                "kept; use a smaller corpus or vocabulary, or the command line (python -m subwordlab) for big jobs.")
    if isinstance(exc, RecursionError):
        return (f"{what} stopped: the input is nested too deeply to process. Your corpus and settings are kept; "
                "simplify the input (e.g. a file or pattern with fewer nested levels).")
    if isinstance(exc, OverflowError):
        return (f"{what} stopped: a number is too large to compute with ({exc}). Your corpus and settings are kept; "
                "use smaller counts or sizes.")
    return (f"{what} stopped with an internal error ({type(exc).__name__}: {exc}). Your corpus and settings are "
            "kept; please report this with the corpus and settings that caused it.")
