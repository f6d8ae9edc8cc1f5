"""Reading JSON without trusting it, and writing it canonically: the one safe reader.

Every file this package reads (our model file, a tokenizer.json, a share link's state)
goes through ``parse_json`` (size and nesting checked before parsing, duplicate keys and
NaN refused) and is then read with ``Fields``: typed getters whose errors name the path.

>>> f = Fields(parse_json('{"vocab": ["a", "b"], "unk": null}'), "model")
>>> f.str_list("vocab"), f.get("unk", "str", nullable=True)
(['a', 'b'], None)
>>> f.get("size", "nat")
Traceback (most recent call last):
...
subwordlab.base.jsonio.ModelFileError: model: the field 'size' is missing

Writing: ``emit`` is the canonical, human-friendly layout of our files, and
``write_atomic`` replaces a file through a temporary one (never a half-written file).
"""

import itertools
import json
import math
import operator
import os
import re

MAX_FILE_BYTES = 50 * 1024 * 1024  # 50 MB: larger files are refused before parsing
MAX_DEPTH = 64  # deepest nesting of arrays/objects accepted (ours is about 8)


class ModelFileError(ValueError):
    """A model file (ours or a tokenizer.json) cannot be loaded: the message names the
    field and the problem. Example: "model.merges[3]: 'ab' + 'c' gives 'abc', which is
    not in the vocabulary"."""


# -- reading JSON safely ----------------------------------------------------------------

# Linear in the text: a string token runs to its closing quote, or to the end of the text
# when it has none, so a search never fails after a quote; possessive repeats never
# backtrack. (subtle: requiring the closing quote instead restarts at every escaped quote of
# an unterminated string: quadratic, 71 s for 128 KB of \")
_STRING = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?'  # a string token (to the end of the text if unterminated)
STRING_TOKENS = re.compile(_STRING, re.S)  # every string of a JSON text, left to right (e.g. share.py counts what lies between)
_NOT_BRACKETS = re.compile(r'[^\[\]{}]++')  # (applied once the strings are gone)
# an opening bracket as byte 2, a closing one as byte 0: after k brackets the running sum of
# these bytes minus k is the depth (C-speed: accumulate, count, map and max, no Python loop)
_DEPTH_BYTES = str.maketrans({"[": "\x02", "{": "\x02", "]": "\x00", "}": "\x00"})


def check_size_and_depth(text, what="model file", max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH):
    """Refuse a text that is too big or nested too deeply, before any parsing.

    Example: '[[[[1]]]]' has depth 4. The depth is found without recursion, in time linear
    in the text: the brackets outside strings, then a running sum of +1 / -1 over them.
    """
    size = len(text.encode("utf-8")) if isinstance(text, str) and not text.isascii() else len(text)
    if size > max_bytes:
        raise ModelFileError(f"the {what} is {size:,} bytes; the limit is {max_bytes:,} bytes ({max_bytes // 2**20} MB)")
    if isinstance(text, (bytes, bytearray)):
        return  # (bytes are decoded, then checked again as text)
    # (two substitutions: the strings out, then all but brackets; 2x the speed of collecting
    # the brackets one match at a time, which builds a list of every token of the file)
    brackets = _NOT_BRACKETS.sub("", STRING_TOKENS.sub("", text))
    # the depth after each bracket is a running sum of +1 / -1 (C-speed: one pass); brackets
    # that do not balance are the JSON parser's to report, with a position
    steps = brackets.translate(_DEPTH_BYTES).encode("latin-1")
    deepest = max(map(operator.sub, itertools.accumulate(steps), itertools.count(1)), default=0)
    if deepest > max_depth:
        raise ModelFileError(f"the {what} is nested more than {max_depth} levels deep; it is not a valid model file")


def _no_duplicates(pairs):
    """One JSON object's (key, value) pairs as a dict; ModelFileError if a key repeats.
    (dict() at C speed first: the loop that names the key runs only when one repeats.)"""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise ModelFileError(f"the key {k!r} appears twice in one JSON object")
            seen.add(k)
    return out


def _no_constant(name):
    raise ValueError(f"{name} is not a number JSON allows; every number must be finite")  # (reported as not valid JSON)


def parse_json(text, what="model file", max_bytes=MAX_FILE_BYTES, max_depth=MAX_DEPTH):
    """``json.loads`` with the checks above (no duplicate keys, no NaN or infinity); bytes
    are decoded as UTF-8. Every problem is one ``ModelFileError`` naming ``what``."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > max_bytes:
            check_size_and_depth(text, what, max_bytes, max_depth)
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ModelFileError(f"the {what} is not UTF-8 text (byte {exc.start}): {exc.reason}") from None
    if not isinstance(text, str):
        raise ModelFileError(f"a {what} is JSON text, not {type(text).__name__}")
    check_size_and_depth(text, what, max_bytes, max_depth)
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except ModelFileError:
        raise
    except RecursionError:
        raise ModelFileError(f"the {what} is nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError, huge integers
        raise ModelFileError(f"the {what} is not valid JSON: {exc}") from None


# -- checked field access ---------------------------------------------------------------

_REQUIRED = object()


def kind_name(value):
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
            dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)


class Fields:
    """A JSON object being read: typed getters that raise ``ModelFileError`` naming the
    path (``model.vocab[3]``). Unknown keys are an error when ``done()`` is called.

    A reader of another kind of file speaks in its own voice by overriding the three
    messages (``not_an_object``, ``missing``, ``error``), as the share link's does."""

    def __init__(self, obj, path):
        self.obj, self.path, self.seen = obj, path, set()
        if not isinstance(obj, dict):
            raise self.not_an_object(obj)

    def not_an_object(self, obj):
        return ModelFileError(f"{self.path}: expected an object, got {kind_name(obj)}")

    def missing(self, key):
        return ModelFileError(f"{self.path}: the field {key!r} is missing")

    def error(self, key, problem):
        return ModelFileError(f"{self.path}.{key}: {problem}" if key else f"{self.path}: {problem}")

    def raw(self, key, default=_REQUIRED):
        """The value at ``key`` unchecked; ``default`` if absent (without one: ``missing``)."""
        self.seen.add(key)
        if key not in self.obj:
            if default is _REQUIRED:
                raise self.missing(key)
            return default
        return self.obj[key]

    def get(self, key, kind, default=_REQUIRED, nullable=False):
        """``kind``: 'str', 'bool', 'int' (not bool), 'nat' (int >= 0), 'num', 'list', 'dict'."""
        value = self.raw(key, default)
        if value is default and key not in self.obj:
            return value
        if value is None and nullable:
            return None
        ok = {
            "str": isinstance(value, str),
            "bool": isinstance(value, bool),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "nat": isinstance(value, int) and not isinstance(value, bool) and value >= 0,
            "num": isinstance(value, (int, float)) and not isinstance(value, bool),
            "list": isinstance(value, list),
            "dict": isinstance(value, dict),
        }[kind]
        if not ok:
            want = {"str": "a string", "bool": "true or false", "int": "an integer", "nat": "a non-negative integer",
                    "num": "a number", "list": "an array", "dict": "an object"}[kind]
            raise self.error(key, f"expected {want}{' or null' if nullable else ''}, got {kind_name(value)} {short(value)}")
        if kind == "num" and not math.isfinite(float(value)):
            raise self.error(key, "the number must be finite")
        return value

    def str_list(self, key, default=_REQUIRED):
        value = self.get(key, "list", default)
        for i, s in enumerate(value or ()):
            if not isinstance(s, str):
                raise self.error(f"{key}[{i}]", f"expected a string, got {kind_name(s)} {short(s)}")
        return value

    def nat_list(self, key, default=_REQUIRED):
        value = self.get(key, "list", default)
        for i, s in enumerate(value or ()):
            if not isinstance(s, int) or isinstance(s, bool) or s < 0:
                raise self.error(f"{key}[{i}]", f"expected a non-negative integer, got {kind_name(s)} {short(s)}")
        return value

    def done(self):
        extra = sorted(set(self.obj) - self.seen)
        if extra:
            raise ModelFileError(f"{self.path}: unknown field {extra[0]!r}")


def short(value):
    s = json.dumps(value, ensure_ascii=False)[:40] if not isinstance(value, (dict, list)) else ""
    return s


# -- writing ----------------------------------------------------------------------------

# one encoder for every value (json.dumps with an option not its default builds a new one a
# call); it writes a scalar as json.dumps does, and a list of scalars as "[a, b]" in C
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def _scalar(v):
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError(f"cannot save the number {v!r}: JSON has no infinity or NaN")
    return _ENCODE(v)


def _row(v):
    """A list of scalars inline, ``[12, 34]``: what ``"[" + ", ".join(map(_scalar, v)) + "]"``
    writes, in one call (a model's merges and pieces are thousands of such rows)."""
    try:
        return _ENCODE(v)
    except ValueError:  # (infinity or NaN: _scalar names the number)
        return "[" + ", ".join(map(_scalar, v)) + "]"


def _is_scalar(v):
    return v is None or isinstance(v, (str, int, float, bool))


def emit(value, level):
    """Canonical, human-friendly JSON: objects one key per line; a short array of scalars
    inline; a long array one element per line, pairs like ``[12, 34]`` inline."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {emit(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if all(_is_scalar(v) for v in value) and len(value) <= 8 and sum(len(_scalar(v)) for v in value) <= 60:
            return "[" + ", ".join(_scalar(v) for v in value) + "]"
        items = []
        for v in value:
            if isinstance(v, (list, tuple)) and all(_is_scalar(x) for x in v):
                items.append(inner + _row(v))
            elif _is_scalar(v):
                items.append(inner + _scalar(v))
            else:
                items.append(inner + emit(v, level + 1))
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return _scalar(value)


def write_atomic(path, data):
    """Write ``data`` (str: UTF-8 with '\\n' line ends, or bytes) to ``path`` through a
    temporary file in the same folder and a rename: on any failure or interruption
    nothing, not even a partial file, is left at ``path``. Raises ``OSError``."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
