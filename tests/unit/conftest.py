"""Shared setup for the unit tier, which runs twice: on CPython and inside Pyodide on Node.

- Marker `cpython_only`: the test needs something Pyodide cannot have (tokenizers, tiktoken,
  sentencepiece, subprocess, ...). tests/pyodide/run.mjs deselects it with
  `-m "not cpython_only"`; on CPython it runs like any test.
  Import such libraries inside the test (or a fixture), not at module top. A module that
  must import them at top marks itself with a module-level
  `pytestmark = pytest.mark.cpython_only`; inside Pyodide such a module is not even collected.
- Marker `pyodide_only`: the test checks the page's runtime itself (e.g. that the served
  wheels were imported from their bytecode). It runs in the Pyodide tier and is deselected
  (not skipped) on CPython.
- Nothing here imports a CPython-only module: this file is loaded inside Pyodide too.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

IN_PYODIDE = sys.platform == "emscripten"

_MODULE_CPYTHON_ONLY = re.compile(
    r"^pytestmark\s*=.*\bcpython_only\b", re.MULTILINE
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cpython_only: needs a CPython-only library or feature; deselected inside Pyodide",
    )
    config.addinivalue_line(
        "markers",
        "pyodide_only: checks the page's runtime itself; deselected on CPython",
    )
    config.addinivalue_line("markers", "slow: takes more than a few seconds")
    try:
        from hypothesis import settings
    except ImportError:  # pragma: no cover - Hypothesis is in both tiers' environments
        return
    # subtle: wall-clock deadlines make property tests flaky on a loaded 2-core CI machine
    # and in Pyodide (1-2.4x slower than CPython); they say nothing about correctness.
    # Inside Pyodide the file system is thrown away after the run: keep no example database
    # (and write nothing into the mounted repository).
    extra = {"database": None} if IN_PYODIDE else {}
    settings.register_profile("subwordlab", deadline=None, print_blob=True, **extra)
    settings.load_profile("subwordlab")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Inside Pyodide, skip importing modules marked cpython_only as a whole."""
    if not IN_PYODIDE or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    try:
        source = collection_path.read_text(encoding="utf-8")
    except OSError:
        return None
    return True if _MODULE_CPYTHON_ONLY.search(source) else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On CPython, deselect the tests marked pyodide_only (the Pyodide tier runs them)."""
    if IN_PYODIDE:
        return
    kept = [item for item in items if item.get_closest_marker("pyodide_only") is None]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("pyodide_only")])
        items[:] = kept


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say which subwordlab is under test: the source tree (CPython) or the wheel (Pyodide)."""
    lines = [f"python {sys.version.split()[0]} on {sys.platform}"]
    for name in ("subwordlab", "subwordlab_web"):
        try:
            module = __import__(name)
        except Exception as exc:  # noqa: BLE001 - a broken import must still show up here
            lines.append(f"{name}: cannot import ({type(exc).__name__}: {exc})")
        else:
            lines.append(f"{name} {getattr(module, '__version__', '?')} from {Path(module.__file__).parent}")
    return lines
