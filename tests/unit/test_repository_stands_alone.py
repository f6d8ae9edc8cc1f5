"""The repository stands alone: no tracked file reaches a path outside the repository root.

People clone the repository by itself; a test, benchmark, build step or page that reads
``../sibling`` (or any folder beside the clone) works only on the machine it was written on.
This scans every tracked text file for the ways a path can climb out of the root:

- a relative path string (``"../x"``) that, resolved from the file's own folder, leaves the root;
- ``Path`` arithmetic past the root (``ROOT.parent``, ``parents[2].parent`` in a file two
  folders deep, ``.parent.parent.parent`` chains longer than the file's depth);
- absolute paths of this machine (``/work/``, ``/root/``, ``/tmp/``-rooted data).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[2]
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()

pytestmark = pytest.mark.cpython_only  # needs `git ls-files` (no subprocess in Pyodide)

TEXT_SUFFIXES = {".py", ".mjs", ".js", ".sh", ".html", ".css", ".toml", ".txt", ".md", ".json", ""}
# a quoted relative path, or one after a space / `=` / `(` in shell and JS
RELATIVE = re.compile(r"""(?:^|["'`\s=(])((?:\./)?(?:\.\./)+[^\s"'`)]*)""")
ROOT_PARENT = re.compile(r"\b(?:ROOT|REPO|repo|root)\s*\.parent\b")
PARENTS_INDEX = re.compile(r"parents\[(\d+)\]((?:\.parent)*)")
PARENT_CHAIN = re.compile(r"Path\(__file__\)(?:\.resolve\(\))?((?:\.parent)+)")
MACHINE_PATHS = re.compile(r"""["'](?:/work/|/root/|/home/)""")
LONE_UP = re.compile(r"""["']\.\.["']""")  # path.resolve(x, "..", "..")
FROM_ROOT_UP = re.compile(r"""\b(?:ROOT|REPO|repo|root)\s*,\s*["']\.\.["']""")  # path.resolve(repo, "..")


def tracked_files():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, out.decode().split("\0")):
        path = ROOT / name
        # subtle: this file's own examples are ways out by design; corpora/lessons are data
        if name == THIS or name.startswith(("corpora/", "lessons/")):
            continue
        if path.suffix in TEXT_SUFFIXES and path.is_file():
            yield name, path.read_text(encoding="utf-8", errors="replace")


def escapes(name: str, text: str) -> list[str]:
    """The lines of ``text`` (file ``name``, relative to the root) that leave the root.

    Example: escapes("bench/x.py", 'p = ROOT.parent / "sibling"') -> ['1: p = ROOT.parent / "sibling"']
    """
    depth = len(PurePosixPath(name).parts) - 1  # folders between the root and the file
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        bad = bool(ROOT_PARENT.search(line) or MACHINE_PATHS.search(line) or FROM_ROOT_UP.search(line))
        bad |= len(LONE_UP.findall(line)) > depth
        for match in RELATIVE.finditer(line):
            ups = match.group(1).count("../")
            # subtle: in a URL or HTML/JS file the path is relative to the served page's folder,
            # in a script to the file's folder: either way more ups than depth leave the root.
            bad |= ups > depth
        for match in PARENTS_INDEX.finditer(line):
            # Path(__file__).parents[k] is k+1 folders up from the file
            bad |= int(match.group(1)) + 1 + match.group(2).count(".parent") > depth + 1
        for match in PARENT_CHAIN.finditer(line):
            bad |= match.group(1).count(".parent") > depth + 1
        if bad:
            found.append(f"{number}: {line.strip()}")
    return found


def test_no_tracked_file_reaches_outside_the_repository():
    offenders = {name: hits for name, text in tracked_files() if (hits := escapes(name, text))}
    assert not offenders, (
        "these files refer to paths outside the repository (copy what they need into it): "
        f"{offenders}"
    )


def test_no_tracked_symlink_points_outside_the_repository():
    out = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    links = [entry.split("\t", 1)[1] for entry in out.decode().split("\0") if entry.startswith("120000 ")]
    outside = [name for name in links if not (ROOT / name).resolve().is_relative_to(ROOT)]
    assert not outside, f"tracked symlinks leave the repository (git rm --cached them): {outside}"


@pytest.mark.parametrize("name, line", [
    ("bench/common.py", 'CORPORA = ROOT.parent / "sibling" / "corpora"'),
    ("tests/unit/x.py", 'C = Path(__file__).resolve().parents[2].parent / "sibling"'),
    ("tests/pyodide/run.mjs", 'const shared = path.resolve(repo, "../../../sibling");'),
    ("tests/pyodide/run.mjs", 'const shared = path.resolve(repo, "..", "sibling");'),
    ("build/x.py", 'P = Path(__file__).parent.parent.parent / "x"'),
    ("scripts/x.sh", 'cat ../../sibling/corpora/README.md'),
    ("tests/x.py", 'open("/work/sibling/corpora/x.txt")'),
])
def test_the_scan_finds_each_way_out(name, line):
    assert escapes(name, line), line


@pytest.mark.parametrize("name, line", [
    ("bench/common.py", 'CORPORA = ROOT / "corpora"'),
    ("tests/unit/x.py", 'ROOT = Path(__file__).resolve().parents[2]'),
    ("build/x.py", 'ROOT = Path(__file__).resolve().parent.parent'),
    ("web/subwordlab_web/x.py", 'from ..x import y  # relative import, not a path'),
    ("tests/e2e/x.py", 'src = "../x.js"'),
    ("tests/pyodide/run.mjs", 'const repo = path.resolve(path.dirname(here), "..", "..");'),
])
def test_the_scan_lets_paths_inside_the_root_pass(name, line):
    assert not escapes(name, line), line
