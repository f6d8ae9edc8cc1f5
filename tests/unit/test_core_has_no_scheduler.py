"""The core's algorithms know nothing of the browser's scheduler (issue 31): long work runs in
the page's compute worker, so no core module looks at a clock or hands control back on a
timer. They yield only natural events (a step, a round, a chunk of items done); the CLI's
progress bar, which says how fast a run goes, is the one reader of the time."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "py_core" / "subwordlab"
THE_CLI = CORE / "cli"  # the command line's progress bar reads the clock
SCHEDULER_WORDS = ("sliced", "in_slices", "_let_go", "progress_events", "release", "SLICE_SECONDS", "perf_counter",
                   "monotonic")


def core_modules() -> list[Path]:
    return sorted(p for p in CORE.rglob("*.py") if THE_CLI not in p.parents)


def names_used(path: Path) -> set[str]:
    """Every module imported and every name or attribute used in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            used.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            used.update([node.module or "", *(alias.name for alias in node.names)])
        elif isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            used.add(node.name)
    return used


def test_the_core_is_found():
    assert len(core_modules()) > 30 and (CORE / "trainers" / "unigram.py") in core_modules()


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: str(p.relative_to(CORE)))
def test_no_core_module_reads_a_clock_or_slices_its_work(path):
    used = names_used(path)
    assert "time" not in used, f"{path.name} imports time: a core module must not look at the clock"
    found = sorted(used.intersection(SCHEDULER_WORDS))
    assert found == [], f"{path.name} uses {found}: the core yields natural events only (events.in_chunks)"
