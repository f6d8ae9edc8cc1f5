"""The served wheels carry their modules' bytecode (build/wheel_bytecode.py), so the page
imports without compiling: the rewritten wheel is a valid wheel (RECORD lists every file
with its real hash), its bytecode is what the importer uses, and inside Pyodide the
installed modules were loaded from it."""

from __future__ import annotations

import base64
import hashlib
import importlib
import importlib.util
import sys
import zipfile
from pathlib import Path

import pytest

import subwordlab

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)

REPO = Path(__file__).resolve().parents[2]


def _wheel_bytecode():
    spec = importlib.util.spec_from_file_location("test_build_wheel_bytecode", REPO / "build" / "wheel_bytecode.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _tiny_wheel(path: Path) -> Path:
    files = {
        "tinypkg/__init__.py": b"from .mod import VALUE\n",
        "tinypkg/mod.py": b'VALUE = "from the wheel"\n',
        "tinypkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    wb = _wheel_bytecode()
    record = [wb.record_line(name, data) for name, data in files.items()] + ["tinypkg-1.0.dist-info/RECORD,,"]
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        zf.writestr("tinypkg-1.0.dist-info/RECORD", "\n".join(record) + "\n")
    return path


def test_every_module_gets_unchecked_bytecode_listed_in_record(tmp_path):
    wb = _wheel_bytecode()
    wheel = _tiny_wheel(tmp_path / "tinypkg-1.0-py3-none-any.whl")
    assert wb.add_bytecode(wheel) == 2
    tag = sys.implementation.cache_tag
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        contents = {name: zf.read(name) for name in names}
    assert f"tinypkg/__pycache__/__init__.{tag}.pyc" in names and f"tinypkg/__pycache__/mod.{tag}.pyc" in names
    assert names[-1] == "tinypkg-1.0.dist-info/RECORD"
    # RECORD: one row per file, each with the file's real hash and size; its own row last
    rows = contents["tinypkg-1.0.dist-info/RECORD"].decode().splitlines()
    assert rows[-1] == "tinypkg-1.0.dist-info/RECORD,,"
    listed = {row.split(",")[0]: row for row in rows[:-1]}
    assert sorted(listed) == sorted(n for n in names if not n.endswith("RECORD"))
    for name, row in listed.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(contents[name]).digest()).rstrip(b"=").decode()
        assert row == f"{name},sha256={digest},{len(contents[name])}"
    # the header: this Python's magic number, "hash-based, never checked", the source's hash
    pyc = contents[f"tinypkg/__pycache__/mod.{tag}.pyc"]
    assert pyc[:4] == importlib.util.MAGIC_NUMBER
    assert int.from_bytes(pyc[4:8], "little") == 0b01
    assert pyc[8:16] == importlib.util.source_hash(contents["tinypkg/mod.py"])
    # a second pass adds nothing (the bytecode is there)
    assert wb.add_bytecode(wheel) == 0


def test_the_importer_uses_the_bytecode_without_reading_the_source(tmp_path, monkeypatch):
    wb = _wheel_bytecode()
    wheel = _tiny_wheel(tmp_path / "tinypkg-1.0-py3-none-any.whl")
    wb.add_bytecode(wheel)
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    # change the source after install: unchecked bytecode is still what runs
    (site / "tinypkg" / "mod.py").write_text('VALUE = "edited source"\n')
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "tinypkg", raising=False)
    monkeypatch.delitem(sys.modules, "tinypkg.mod", raising=False)
    importlib.invalidate_caches()
    import tinypkg  # type: ignore[import-not-found]

    assert tinypkg.VALUE == "from the wheel"
    assert Path(tinypkg.mod.__file__) == site / "tinypkg" / "mod.py"  # tracebacks name the source


@pytest.mark.pyodide_only  # the served wheels hold bytecode for the page's Python only
def test_the_installed_wheels_were_imported_from_their_bytecode():
    import subwordlab_web.app

    for module in (subwordlab, subwordlab.tokenizer, subwordlab_web.app):
        assert module.__cached__ is not None and Path(module.__cached__).is_file(), module.__name__
