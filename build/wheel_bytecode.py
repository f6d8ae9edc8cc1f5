"""Put each module's bytecode into a pure wheel, so the page imports without compiling.

Importing a `.py` file compiles it first; CPython caches the result as a `.pyc` beside it,
but a page starts from an empty file system every time, so Pyodide compiled all ~90 of our
modules on every load (about 0.5 s of the 0.9 s between "Python ready" and "app ready").
This module adds, for every `pkg/mod.py` of a wheel, the bytecode the running interpreter
would cache for it, `pkg/__pycache__/mod.<cache tag>.pyc`, and lists it in the wheel's RECORD.

It must run under the interpreter that will import the bytecode (the magic number and the
cache tag are that interpreter's), so build_site.py runs it inside the page's own Pyodide
on Node (build/wheel_bytecode.mjs). Another Python simply ignores the `.pyc` files: their
cache tag is not its own.

The `.pyc` files are "unchecked hash" ones (PEP 552): the importer never compares them with
the source, which is right for a wheel, whose files never change after it is built; the
source stays in the wheel for tracebacks and `inspect`.

    >>> import marshal
    >>> pyc = bytecode_file(b"x = 1\\n", "m.py")
    >>> pyc[:4] == importlib.util.MAGIC_NUMBER, pyc[4:8] == UNCHECKED_HASH_FLAGS
    (True, True)
    >>> namespace = {}; exec(marshal.loads(pyc[16:]), namespace); namespace["x"]
    1
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import marshal
import sys
import zipfile
from pathlib import Path, PurePosixPath

# PEP 552's flags word: bit 0 "hash-based", bit 1 "check the source" (clear: never checked)
UNCHECKED_HASH_FLAGS = (0b01).to_bytes(4, "little")


def bytecode_file(source: bytes, filename: str) -> bytes:
    """The bytes of the `.pyc` the importer accepts for `source` without reading it again:
    magic number, flags, the source's hash, then the marshalled code object."""
    # 1. compile as the importer would (its own flags, optimisation level 0)
    code = compile(source, filename, "exec", dont_inherit=True)
    # 2. the 16-byte header, then the code object
    return importlib.util.MAGIC_NUMBER + UNCHECKED_HASH_FLAGS + importlib.util.source_hash(source) + marshal.dumps(code)


def record_line(name: str, data: bytes) -> str:
    """A RECORD row: path, urlsafe-base64 SHA-256 without padding, size (PEP 376/427)."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}"


def cached_name(module_path: str) -> str:
    """Example: 'pkg/mod.py' -> 'pkg/__pycache__/mod.cpython-314.pyc' (on Python 3.14)."""
    tag = sys.implementation.cache_tag
    if tag is None:
        raise SystemExit("[build] this Python caches no bytecode (sys.implementation.cache_tag is None)")
    path = PurePosixPath(module_path)
    return str(path.parent / "__pycache__" / f"{path.stem}.{tag}.pyc")


def add_bytecode(wheel: Path) -> int:
    """Rewrite `wheel` in place with a `.pyc` beside each `.py`; returns how many it added.
    A wheel that already has this interpreter's bytecode is left as it is (returns 0)."""
    with zipfile.ZipFile(wheel) as zf:
        entries = {info.filename: (info, zf.read(info)) for info in zf.infolist()}
    (record_name,) = [name for name in entries if name.endswith(".dist-info/RECORD")]
    # 1. the bytecode of every module not compiled yet
    added = {
        cached_name(name): bytecode_file(data, name)
        for name, (_, data) in entries.items()
        if name.endswith(".py") and cached_name(name) not in entries
    }
    if not added:
        return 0
    # 2. RECORD lists every file; its own row (no hash) stays last
    rows = [row for row in entries[record_name][1].decode("utf-8").splitlines() if row]
    own = [row for row in rows if row.split(",")[0] == record_name]
    rows = [row for row in rows if row not in own] + [record_line(n, d) for n, d in sorted(added.items())] + own
    # 3. the same entries, then the bytecode, then RECORD (last, as in every wheel)
    tmp = wheel.with_name(wheel.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out:
        for name, (info, data) in entries.items():
            if name != record_name:
                out.writestr(info, data)
        for name, data in sorted(added.items()):
            out.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
        out.writestr(entries[record_name][0], ("\n".join(rows) + "\n").encode("utf-8"))
    tmp.replace(wheel)
    return len(added)


if __name__ == "__main__":  # python build/wheel_bytecode.py WHEEL... (under the target Python)
    for arg in sys.argv[1:]:
        print(f"[build] {Path(arg).name}: {add_bytecode(Path(arg))} bytecode files")
