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


def embed_failure(message: str) -> str:
    """A failed training said in an embed's own terms: its settings are parameters of its
    address (``vocab=``, ``merges=``), which the embedding page's author sets.

    Example: embed_failure('vocab_size=5 cannot hold the 11 characters; use at least 14')
    -> 'This embed could not train its tokenizer: vocab=5 cannot hold the 11 characters; use at
    least 14. The embed's address sets it: its author can change vocab= there, or “Open the full
    playground” to try other settings.'
    """
    named = [param for option, param in (("vocab_size", "vocab"), ("num_merges", "merges")) if f"{option}=" in message]
    for option, param in (("vocab_size", "vocab"), ("num_merges", "merges")):
        message = message.replace(f"{option}=", f"{param}=")
    where = (f"The embed's address sets it: its author can change {named[0]}= there"
             if named else "The embed's address sets its settings: its author can change them there")
    return (f"This embed could not train its tokenizer: {message.rstrip('.')}. {where}, "
            "or “Open the full playground” to try other settings.")
