"""OpenAI's published BPE rank files (r50k_base = GPT-2, cl100k_base, o200k_base), offline,
for the tests that check our byte-level encoder against real tiktoken vocabularies.

This machine cannot reach OpenAI's blob store, but npm can: the js-tiktoken package ships
the same ranks in a compact form. This script

1. fetches js-tiktoken JS_TIKTOKEN_VERSION with `npm pack` into build/_cache/ (only if not
   cached) and checks it against the pinned sha512 integrity;
2. rewrites each vocabulary as a tiktoken rank file (``<base64 token> <rank>`` per line) and
   checks its SHA-256 against the hash tiktoken itself pins for OpenAI's file (so the file
   is byte-identical to the one tiktoken would download);
3. stores it twice under build/_cache/tiktoken/: as ``<name>.tiktoken`` (for our loader)
   and under tiktoken's own cache key (sha1 of the download URL), so that with
   ``TIKTOKEN_CACHE_DIR`` set there, ``tiktoken.get_encoding(name)`` works offline.

Run: python build/reference_vocabs.py   (the tests call ``ensure()`` themselves)
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "build" / "_cache"
VOCABS = CACHE / "tiktoken"

JS_TIKTOKEN_VERSION = "1.0.21"
# `npm view js-tiktoken@1.0.21 dist.integrity`
JS_TIKTOKEN_INTEGRITY = "sha512-biOj/6M5qdgx5TKjDnFT1ymSpM5tbd3ylwDtrQvFQSu0Z7bBYko2dF+W/aUkXUPuk6IVpRxk/3Q2sHOzGlS36g=="

# name: (tiktoken's download URL, the SHA-256 tiktoken pins for it, our pattern name)
FILES = {
    "r50k_base": ("https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken",
                  "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930", "gpt2"),
    "cl100k_base": ("https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
                    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", "cl100k"),
    "o200k_base": ("https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
                   "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", "o200k"),
}


def log(msg: str) -> None:
    print(f"[vocabs] {msg}", file=sys.stderr, flush=True)


def _tarball() -> Path:
    tarball = CACHE / f"js-tiktoken-{JS_TIKTOKEN_VERSION}.tgz"
    if not tarball.exists():
        log(f"fetching js-tiktoken@{JS_TIKTOKEN_VERSION} with npm pack")
        CACHE.mkdir(parents=True, exist_ok=True)
        p = subprocess.run(["npm", "pack", f"js-tiktoken@{JS_TIKTOKEN_VERSION}", "--pack-destination", str(CACHE)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"[vocabs] npm pack js-tiktoken@{JS_TIKTOKEN_VERSION} failed:\n{p.stderr}")
    algo, _, expected = JS_TIKTOKEN_INTEGRITY.partition("-")
    actual = base64.b64encode(hashlib.new(algo, tarball.read_bytes()).digest()).decode()
    if actual != expected:
        tarball.unlink()
        raise SystemExit(f"[vocabs] {tarball.name} does not match the pinned integrity; "
                         "the cached copy was deleted, run again")
    return tarball


def rank_file(js_module: str) -> tuple[bytes, dict]:
    """A js-tiktoken ranks module -> (tiktoken rank file bytes, {pat_str, special_tokens}).

    js-tiktoken's ``bpe_ranks``: lines of ``<tag> <first rank> <base64 token> <base64 token> ...``,
    the tokens numbered from the first rank on.
    """
    data = json.loads(js_module[js_module.index("{"):js_module.rindex("}") + 1])
    lines = []
    for line in data["bpe_ranks"].split("\n"):
        if not line:
            continue
        _, first, *tokens = line.split(" ")
        lines += [f"{token} {int(first) + i}" for i, token in enumerate(tokens)]
    return ("\n".join(lines) + "\n").encode("ascii"), {"pat_str": data["pat_str"], "special_tokens": data["special_tokens"]}


def ensure() -> Path:
    """The folder with the three rank files (made once); also tiktoken's offline cache."""
    if all((VOCABS / f"{name}.tiktoken").exists() for name in FILES):
        return VOCABS
    with tarfile.open(_tarball()) as tar:
        modules = {name: tar.extractfile(f"package/dist/ranks/{name}.js").read().decode("utf-8")  # type: ignore[union-attr]
                   for name in FILES}
    VOCABS.mkdir(parents=True, exist_ok=True)
    for name, (url, sha256, _) in FILES.items():
        content, meta = rank_file(modules[name])
        if hashlib.sha256(content).hexdigest() != sha256:
            raise SystemExit(f"[vocabs] {name}: the rewritten file is not OpenAI's (SHA-256 differs)")
        (VOCABS / hashlib.sha1(url.encode()).hexdigest()).write_bytes(content)
        (VOCABS / f"{name}.json").write_text(json.dumps(meta), encoding="utf-8")
        (VOCABS / f"{name}.tiktoken").write_bytes(content)  # last: its presence means "done"
        log(f"{name}: {len(content.splitlines()):,} ranks, SHA-256 as tiktoken pins")
    return VOCABS


if __name__ == "__main__":
    print(ensure())
