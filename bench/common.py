"""Helpers for the benchmarks: timing, peak memory in a fresh process, corpus paths.

Benchmarks print ratios against peers measured in the same run; they are not tests.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / "corpora"
sys.path.insert(0, str(ROOT / "py_core"))


def timed(fn, *args, repeat=1, **kwargs):
    """(best seconds over `repeat` runs, last result)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t)
    return best, result


def peak_memory_mb(code):
    """Peak traced Python allocations (MB) of `code` run in a fresh interpreter."""
    prog = (
        "import sys, tracemalloc; sys.path.insert(0, %r); sys.path.insert(0, %r)\n"
        "tracemalloc.start()\n%s\n"
        "print(tracemalloc.get_traced_memory()[1] / 1e6)\n"
    ) % (str(ROOT / "py_core"), str(ROOT / "bench"), code)
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def report(rows, title):
    print(f"\n== {title}")
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")


def dump(path, data):
    Path(path).write_text(json.dumps(data, indent=2))
