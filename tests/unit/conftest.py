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
- Marker `every_runtime` (module level): the module checks what can differ between runtimes
  (the golden model hashes, the Unicode and regex paths, portable math, the docstring
  examples, bytecode and the wheels' import, the lessons' printed results, the corpus's
  bytes) or is the UI's smoke test (the page shell on the fake DOM). Only such modules run
  inside Pyodide; the rest (the fake-DOM panel tests, the CLI, the reference libraries)
  test pure Python that does not depend on the runtime, once, on CPython.
- Nothing here imports a CPython-only module: this file is loaded inside Pyodide too.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

IN_PYODIDE = sys.platform == "emscripten"
try:
    from subwordlab.text.regex_compat import HAVE_REGEX as _HAVE_REGEX
except ImportError:  # pragma: no cover - the core is importable in both tiers
    _HAVE_REGEX = False

_MODULE_CPYTHON_ONLY = re.compile(
    r"^pytestmark\s*=.*\bcpython_only\b", re.MULTILINE
)
_MODULE_EVERY_RUNTIME = re.compile(r"^pytestmark\s*=.*\bevery_runtime\b", re.MULTILINE)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cpython_only: needs a CPython-only library or feature; deselected inside Pyodide",
    )
    config.addinivalue_line(
        "markers",
        "pyodide_only: checks the page's runtime itself; deselected on CPython",
    )
    config.addinivalue_line(
        "markers",
        "every_runtime: (module level) also runs inside Pyodide; other modules run on CPython only",
    )
    config.addinivalue_line("markers", "slow: takes more than a few seconds")
    try:
        from hypothesis import settings
        from hypothesis_budget import CI, FULL
    except ImportError:  # pragma: no cover - Hypothesis is in both tiers' environments
        return
    # subtle: wall-clock deadlines make property tests flaky on a loaded 2-core CI machine
    # and in Pyodide (1-2.4x slower than CPython); they say nothing about correctness.
    # Inside Pyodide the file system is thrown away after the run: keep no example database
    # (and write nothing into the mounted repository).
    # Two sizes (tests/unit/hypothesis_budget.py): `ci`, the default, tries a third of each
    # test's weight; `thorough` all of it: SUBWORDLAB_HYPOTHESIS=thorough or
    # --hypothesis-profile thorough.
    extra = {"database": None} if IN_PYODIDE else {}
    settings.register_profile("thorough", deadline=None, print_blob=True, max_examples=FULL, **extra)
    settings.register_profile("ci", settings.get_profile("thorough"), max_examples=CI)
    chosen = config.getoption("hypothesis_profile", None) or os.environ.get("SUBWORDLAB_HYPOTHESIS", "ci")
    if chosen not in ("ci", "thorough"):
        raise pytest.UsageError(f"unknown Hypothesis profile {chosen!r}: use ci or thorough")
    settings.load_profile(chosen)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Inside Pyodide, collect only the modules marked every_runtime (and not cpython_only)."""
    if not IN_PYODIDE or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    try:
        source = collection_path.read_text(encoding="utf-8")
    except OSError:
        return None
    runs_here = _MODULE_EVERY_RUNTIME.search(source) and not _MODULE_CPYTHON_ONLY.search(source)
    return None if runs_here else True


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


@pytest.fixture(params=["stdlib"] + (["regex"] if _HAVE_REGEX else []))
def engine(request, monkeypatch):
    """Run the test with each regex engine the core has here: the stdlib fallback (``regex``
    blocked, as in the browser) and, where installed, the ``regex`` module."""
    from subwordlab.text import regex_compat

    regex_compat.compile_pattern.cache_clear()
    if request.param == "stdlib":
        monkeypatch.setattr(regex_compat, "HAVE_REGEX", False)
    yield request.param
    regex_compat.compile_pattern.cache_clear()
