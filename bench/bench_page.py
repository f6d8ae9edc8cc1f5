"""What the page costs in headless Chromium: boot against bare Pyodide, three long trainings
against CPython in the same run (sliced and unsliced), and the pattern guard's checks in the compute worker.

Run (after ``bash scripts/serve.sh`` or ``python build/build_site.py`` built dist/site):

    .venv/bin/python bench/bench_page.py              # everything (~3 minutes)
    .venv/bin/python bench/bench_page.py -k long_run  # one part: boot_times, long_run, guard, model_loading

Prints each figure; the JSON reports land in tests/e2e/screenshots/. The measurements live in
tests/e2e/measure_page.py (they reuse the e2e tier's fixtures: the served site, Chromium,
the page guard); they moved out of the e2e tier, where a loaded machine could fail them and
they cost minutes of every run.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    return subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "python_files=measure_*.py",
                            str(ROOT / "tests" / "e2e" / "measure_page.py"), *argv], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
