"""Training events as plain data, and back: what crosses from a worker to a page.

A trainer's events (``events.py``) are small dataclasses of strings, numbers and tuples.
A consumer in another process or thread (the page's compute worker, a job on another
machine) receives them as JSON; ``to_data`` makes the JSON-ready dict (tuples become lists,
a Unigram snapshot a compact pair of strings) and ``from_data`` gives the very event back,
tuples and floats included. ``Done`` crosses without its tokenizer (send that as our JSON,
``serialize.to_json``): ``from_data`` needs it passed in.

>>> import json
>>> from .events import MergeStep
>>> step = MergeStep(0, ("e", "s"), 9, "es", [(("e", "s"), 9), (("s", "t"), 9)], 12)
>>> data = json.loads(json.dumps(to_data(step)))
>>> data["pair"], from_data(data) == step
(['e', 's'], True)
"""

import base64
from array import array

from .events import AlphabetReady, Done, EmStep, MergeStep, Progress, PruneStep

_KINDS = {cls.kind: cls for cls in (AlphabetReady, MergeStep, EmStep, PruneStep, Done, Progress)}
_SEP = "\x00"  # between the pieces of a snapshot (a piece never contains NUL: the corpus cannot)


def pack_pieces(pieces):
    """A snapshot ``[(piece, log_prob), ...]`` as two strings: the pieces joined by NUL, and
    the scores as base64 of little-endian doubles (exact, and fast to read back).

    Example: [("a", -1.5), ("b", -2.0)] -> {"pieces": "a\\x00b", "scores": "AAAAAAAA+L8AAAAAAAAAwA=="}
    """
    scores = array("d", (score for _, score in pieces))
    if scores.itemsize != 8:  # pragma: no cover - every platform Python runs on has 8-byte doubles
        raise RuntimeError("this platform's doubles are not 8 bytes")
    if array("H", [1]).tobytes()[0] != 1:  # pragma: no cover - big-endian machines
        scores.byteswap()
    if any(_SEP in piece for piece, _ in pieces):
        raise ValueError("a piece contains a NUL character, which a snapshot cannot carry")
    return {"pieces": _SEP.join(piece for piece, _ in pieces), "scores": base64.b64encode(scores.tobytes()).decode("ascii")}


def unpack_pieces(packed):
    """``pack_pieces`` undone. Example: unpack_pieces(pack_pieces([("a", -1.5)])) -> [("a", -1.5)]."""
    scores = array("d")
    scores.frombytes(base64.b64decode(packed["scores"]))
    if array("H", [1]).tobytes()[0] != 1:  # pragma: no cover
        scores.byteswap()
    names = packed["pieces"].split(_SEP) if scores else []
    if len(names) != len(scores):
        raise ValueError(f"a snapshot has {len(names)} pieces but {len(scores)} scores")
    return list(zip(names, scores))


def to_data(event):
    """The event as a JSON-ready dict with its ``kind`` (``Done``: without the tokenizer);
    ``json.dumps`` turns its tuples into lists."""
    if isinstance(event, Done):
        return {"kind": "done", "steps": event.steps}
    data = dict(vars(event))  # (shallow: the values are strings, numbers and tuples, which JSON takes)
    if data.get("pieces") is not None:
        data["pieces"] = pack_pieces(event.pieces)
    return data


def from_data(data, tokenizer=None):
    """The event ``to_data`` made (``tokenizer``: the ``Done`` event's, loaded apart).
    Raises ValueError for data no trainer makes."""
    cls = _KINDS.get(data.get("kind")) if isinstance(data, dict) else None
    if cls is None:
        raise ValueError(f"not a training event: {str(data)[:80]}")
    if cls is Done:
        return Done(tokenizer, data["steps"])
    fields = dict(data)
    # step 1: lists back to the tuples the trainers make
    if fields.get("pieces") is not None:
        fields["pieces"] = unpack_pieces(fields["pieces"])
    if "pair" in fields:
        fields["pair"] = tuple(fields["pair"])
    if "candidates" in fields:
        fields["candidates"] = [(tuple(c[0]), *c[1:]) for c in fields["candidates"]]
    if fields.get("part_counts") is not None:
        fields["part_counts"] = tuple(fields["part_counts"])
    if "dropped" in fields:
        fields["dropped"] = [tuple(d) for d in fields["dropped"]]
    if "notes" in fields:
        fields["notes"] = tuple(fields["notes"])
    if "alphabet" in fields:
        fields["alphabet"] = list(fields["alphabet"])
    return cls(**fields)
