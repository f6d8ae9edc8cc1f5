"""``jsonio.parse_json`` a slice at a time: a 33 MB tokenizer.json read without one long call.

``json.loads`` is one C call: half a second for a big tokenizer.json in CPython, a second or
more in the browser, during which the page cannot paint or answer. ``parse_json_steps``
gives the same value (or the same error) as ``parse_json`` and yields ``(done, total)``
bytes between slices of about ``SLICE_BYTES``:

- containers are walked member by member (a few per tokenizer.json: the top level, the
  model, the added tokens...);
- inside one, a run of *plain* members (a string key and a string, number, true, false or
  null value; in arrays also a pair like ``["a", "b"]``, a merge) is matched by one regular
  expression up to the slice's end and handed to ``json.loads`` as one piece: the
  vocabulary's and the merges' hundreds of thousands of entries cost a few dozen C calls;
- anything else in a container (a nested container) is walked in turn; a scalar the slice
  does not match is read by the C scanner alone.

Whatever this walk does not expect — invalid JSON, a duplicate key, a NaN, nesting past
``max_depth`` — makes it hand the whole text to ``parse_json``, whose error message (with its
position) is the one the user sees; a valid file is never refused here.

>>> from .events import drain
>>> drain(parse_json_steps('{"model": {"vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]}}'))
{'model': {'vocab': {'a': 0, 'b': 1}, 'merges': [['a', 'b']]}}
>>> list(parse_json_steps('[' + ', '.join(['"ab"'] * 40) + ']', slice_bytes=64))[:2]
[(67, 240), (133, 240)]
"""

import json
import re

from .jsonio import MAX_DEPTH, MAX_FILE_BYTES, _no_constant, _no_duplicates, parse_json

SLICE_BYTES = 1 << 18  # bytes parsed between two yields (~5-10 ms of CPython, ~15-25 in the page)

_WS = rb"[ \t\n\r]*+"
_STR = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'  # a whole string token (an odd escape is json.loads' to refuse)
_NUM = rb"-?+[0-9]++(?:\.[0-9]++)?+(?:[eE][-+]?+[0-9]++)?+"  # (a leading zero is json.loads' to refuse)
_PLAIN = rb"(?:" + _STR + rb"|" + _NUM + rb"|true|false|null)"
_PAIR = rb"\[" + _WS + _PLAIN + _WS + rb"," + _WS + _PLAIN + _WS + rb"\]"  # a merge, ["a", "b"]
# runs of plain members, each followed by its comma (the last member of a container, which has
# none, is read alone); possessive: a run never backtracks, so a match is linear in its length
_OBJECT_RUN = re.compile(rb"(?:" + _WS + _STR + _WS + rb":" + _WS + _PLAIN + _WS + rb",)*+", re.S)
_ARRAY_RUN = re.compile(rb"(?:" + _WS + rb"(?:" + _PLAIN + rb"|" + _PAIR + rb")" + _WS + rb",)*+", re.S)
_SCALAR_RUN = re.compile(rb"(?:" + _WS + _PLAIN + _WS + rb",)*+", re.S)  # (an array at the deepest level allowed)
_SCALAR = re.compile(_PLAIN, re.S)
_SPACE = re.compile(_WS)


class _Unexpected(Exception):
    """Raised inside the walk: hand the whole text to ``parse_json`` (it says what is wrong)."""


def parse_json_steps(text, what="model file", max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH,
                     slice_bytes=SLICE_BYTES):
    """``parse_json(text, what, max_bytes, max_depth)`` in slices: a generator that yields
    ``(done, total)`` (bytes parsed) and returns the parsed value; raises ``ModelFileError``
    exactly as ``parse_json`` does. (The walk reads the UTF-8 bytes, decoding each slice
    as it goes: the whole text never exists as one ``str``, which for a file of many
    scripts is four bytes a character.)"""
    data = text
    if isinstance(text, str):
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # (a lone surrogate: parse_json reads the str as it is)
            return parse_json(text, what, max_bytes, max_depth)
    if not isinstance(data, (bytes, bytearray)) or len(data) > max_bytes:
        return parse_json(text, what, max_bytes, max_depth)  # (not text, or too big: refused at once)
    walk = _Walk(bytes(data), max_depth, slice_bytes)
    try:
        return (yield from walk.document())
    except (_Unexpected, ValueError, RecursionError, StopIteration, IndexError):
        # anything unexpected (invalid JSON, a key twice, NaN, too deep, not UTF-8): the
        # whole text to parse_json, which raises the error the user sees
        return parse_json(text, what, max_bytes, max_depth)


class _Walk:
    """One walk over a JSON document's UTF-8 bytes (see the module docstring)."""

    def __init__(self, data, max_depth, slice_bytes):
        self.b, self.max_depth, self.slice = data, max_depth, slice_bytes
        decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
        self.loads = decoder.decode
        self.last_yield = 0

    def document(self):
        b = self.b
        i = _SPACE.match(b, 0).end()
        value, i = yield from self.value(i, 0)
        if _SPACE.match(b, i).end() != len(b):
            raise _Unexpected  # (text after the value)
        return value

    def value(self, i, depth):
        """The value at ``i`` (no white space before it) and the index after it."""
        c = self.b[i:i + 1]
        if c == b"{":
            return (yield from self.container(i, depth + 1, b"}", _OBJECT_RUN))
        if c == b"[":
            # (pairs nest one level deeper: not at the deepest level allowed)
            return (yield from self.container(i, depth + 1, b"]", _ARRAY_RUN if depth + 1 < self.max_depth else _SCALAR_RUN))
        return self.scalar(i)

    def scalar(self, i):
        """The string, number, true, false or null at ``i``, and the index after it."""
        m = _SCALAR.match(self.b, i)
        if m is None:
            raise _Unexpected
        return self.loads(self.b[i:m.end()].decode("utf-8")), m.end()

    def container(self, i, depth, close, run):
        """The object or array opening at ``i``: runs of plain members in one ``json.loads``
        each, the others one by one; yields between slices."""
        if depth > self.max_depth:
            raise _Unexpected
        b, is_object = self.b, close == b"}"
        opening = "{" if is_object else "["
        items = {} if is_object else []
        i = _SPACE.match(b, i + 1).end()
        if b[i:i + 1] == close:
            return items, i + 1
        while True:
            # step 1: a run of plain members, up to the slice's end, parsed in one call
            end = run.match(b, i, min(len(b), i + self.slice)).end()
            if end > i:
                part = self.loads(opening + b[i:end - 1].decode("utf-8") + close.decode())
                if is_object:
                    before = len(items)
                    items.update(part)
                    if len(items) != before + len(part):
                        raise _Unexpected  # (a key repeated across two runs)
                else:
                    items.extend(part)
                i = _SPACE.match(b, end).end()
                yield from self._maybe_yield(i)
            # step 2: one member alone (a nested container, the last member, a long one)
            if is_object:
                key, i = self.scalar(i)
                if not isinstance(key, str):
                    raise _Unexpected
                i = _SPACE.match(b, i).end()
                if b[i:i + 1] != b":":
                    raise _Unexpected
                value, i = yield from self.value(_SPACE.match(b, i + 1).end(), depth)
                if key in items:
                    raise _Unexpected
                items[key] = value
            else:
                value, i = yield from self.value(i, depth)
                items.append(value)
            # step 3: a comma and more, or the container's end
            i = _SPACE.match(b, i).end()
            c = b[i:i + 1]
            if c == close:
                return items, i + 1
            if c != b",":
                raise _Unexpected
            i = _SPACE.match(b, i + 1).end()
            yield from self._maybe_yield(i)

    def _maybe_yield(self, i):
        if i - self.last_yield >= self.slice:
            self.last_yield = i
            yield i, len(self.b)
