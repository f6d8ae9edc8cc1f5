"""A big corpus of real text from this machine, for bench/bench_big_corpus.py: the .py, .md,
.rst and .txt files of the installed packages (this interpreter's site-packages), of the
standard library (/usr/lib/python3*) and of the repository's corpora/, in a fixed order
(each source's files sorted by path), documents joined by "<|endoftext|>", repeated from the
start if the sources hold less than asked. The same machine (same packages) gives the same
bytes; the SHA-256 is printed.

Run: .venv/bin/python bench/make_big_corpus.py               # 1,024 MB into build/_cache/big_corpus.txt
     .venv/bin/python bench/make_big_corpus.py --mb 2 --out /tmp/small.txt

A file is taken only if it is UTF-8 text without NUL bytes (or other control characters but
tab, line feed, form feed and carriage return) and under 4 MB; its text is written as is.
"""

import argparse
import glob
import hashlib
import re
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = (".py", ".md", ".rst", ".txt")
SEPARATOR = "<|endoftext|>"
CONTROLS = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f]")
MAX_FILE = 4 << 20


def sources():
    """The folders to read, in order: site-packages, the standard library, corpora/."""
    roots = [Path(sysconfig.get_paths()["purelib"])]
    roots += [Path(p) for p in sorted(glob.glob("/usr/lib/python3*")) if Path(p).is_dir()]
    roots.append(ROOT / "corpora")
    seen, out = set(), []
    for r in roots:
        if r.is_dir() and r.resolve() not in seen:
            seen.add(r.resolve())
            out.append(r)
    return out


def documents():
    """(path, text) of every usable file of every source, in a deterministic order."""
    for root in sources():
        paths = sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file() and not p.is_symlink())
        for path in paths:
            try:
                if path.stat().st_size > MAX_FILE:
                    continue
                text = path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if text.strip() and not CONTROLS.search(text) and SEPARATOR not in text:
                yield path, text


def build(out, mb):
    """Write at least ``mb`` megabytes (10**6 bytes) to ``out``; returns (bytes, files, rounds, sha256)."""
    target, size, files, rounds = mb * 10**6, 0, 0, 0
    sha = hashlib.sha256()
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as fh:
        while size < target:
            rounds += 1
            before = size
            for _, text in documents():
                data = ((SEPARATOR if size else "") + text).encode("utf-8")
                fh.write(data)
                sha.update(data)
                size += len(data)
                files += 1
                if size >= target:
                    break
            if size == before:
                raise SystemExit("no usable text file found in " + ", ".join(map(str, sources())))
    return size, files, rounds, sha.hexdigest()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=int, default=1024, help="size in MB (10**6 bytes; default 1024)")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "_cache" / "big_corpus.txt", help="where to write")
    args = ap.parse_args(argv)
    size, files, rounds, digest = build(args.out, args.mb)
    print(f"wrote {args.out}: {size:,} bytes, {files:,} documents ({rounds} pass{'es' * (rounds > 1)} over the sources), "
          f"SHA-256 {digest}", file=sys.stderr)


if __name__ == "__main__":
    main()
