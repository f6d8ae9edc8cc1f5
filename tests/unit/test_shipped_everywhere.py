"""Every tokenizer the page ships (web/subwordlab_web/well_known.py) encodes a multilingual
held-out set as its reference library does — in CPython and inside Pyodide (issue 26).

The reference's ids (HF ``tokenizers`` for a tokenizer.json, ``tiktoken`` for OpenAI's rank
files) are kept as one SHA-256 per tokenizer in ``shipped_encodings.json``, written by the
reference libraries themselves (``PYTHONPATH=py_core:web:tests/unit python
tests/unit/test_shipped_everywhere.py``) and checked against them again on CPython by
``test_the_recorded_hashes_are_the_reference_libraries_own``; the page's import of each file
(``exports.import_model``, as the Files tab loads it) must give those ids in every runtime.
Pyodide reads the files the build shipped (dist/site/vocabs); CPython builds them when no
site was built (``bash scripts/test.sh --quick``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from build_modules import build_module

from subwordlab_web.exports import import_model
from subwordlab_web.well_known import WELL_KNOWN, WELL_KNOWN_BY_KEY

pytestmark = pytest.mark.every_runtime

REPO = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).with_name("shipped_encodings.json")
SHIPPED = [v.key for v in WELL_KNOWN if v.shipped]
UDHR = ["eng", "hin", "cmn_hans", "arb", "kor", "rus"]


def held_out() -> list[str]:
    """Text none of these tokenizers was fitted to here: a passage of six UDHR translations,
    more scripts, and edge cases (emoji sequences, combining marks, digits, white space,
    characters rare enough to fall back to bytes)."""
    texts = [(REPO / "corpora" / "udhr" / f"udhr_{c}.txt").read_text(encoding="utf-8")[1500:3000] for c in UDHR]
    texts += [(REPO / "corpora" / "udhr_more" / f"udhr_{c}.txt").read_text(encoding="utf-8")[1500:2500]
              for c in ("tam", "mya", "amh", "jpn", "ell_monotonic", "vie")]
    texts += [
        "emoji: 👩‍👩‍👧‍👦 🇫🇷🇯🇵 👍🏽 ❤️ 🫠 and text",
        "combining: e\u0301te\u0301 n\u0303 A\u030a \u0915\u094d\u0937 \u0627\u064e\u0644\u0652",
        "digits: 12345678901234567890123 3.14159 1,000,000 ١٢٣٤٥ ४२",
        "whitespace:  a  b   c    d\t\t\te\n\n\n f   \n  \n\r\n\u3000\u00a0end   ",
        "contractions: don't I'LL we've THEY'RE it's",
        "def f(x):\n    return {'a': [1, 2], \"b\": x ** 2}  # done\n",
        "\u200b\u200d\u2060zero\u200bwidth\ufeff",
        "rare: 🦙Ꙋ ꙮ 𓀀 𝔘𝔫𝔦 ǅ \x00\x1b[0m\x7f ߷ ᚠᛇᚻ ⠓⠑",  # byte fallback (Mistral 7B: <0xNN> tokens)
    ]
    return texts


def _ids_hash(encodings: list[list[int]]) -> str:
    return hashlib.sha256(json.dumps(encodings, separators=(",", ":")).encode()).hexdigest()




@pytest.fixture(scope="module")
def vocabs(tmp_path_factory) -> Path:
    """The folder of the shipped files: the built site's, else (CPython, no site built) made now."""
    site = REPO / "dist" / "site" / "vocabs"
    if all((site / WELL_KNOWN_BY_KEY[k].file).exists() for k in SHIPPED):
        return site
    dest = tmp_path_factory.mktemp("vocabs")
    build_module("well_known_vocabs").ship(dest, build_module("build_site").npm_tarball)
    return dest


def reference_ids(key: str, path: Path) -> list[list[int]]:
    """The reference library's ids for the held-out texts (CPython only: native libraries)."""
    if path.name.endswith(".tiktoken"):
        import os

        os.environ["TIKTOKEN_CACHE_DIR"] = str(build_module("reference_vocabs").ensure())
        import tiktoken

        enc = tiktoken.get_encoding(key)
        return [enc.encode(t, disallowed_special=()) for t in held_out()]
    from tokenizers import Tokenizer

    hf = Tokenizer.from_file(str(path))
    return [hf.encode(t, add_special_tokens=False).ids for t in held_out()]


@pytest.mark.parametrize("key", SHIPPED)
def test_the_page_s_import_encodes_as_the_reference_library(vocabs, key):
    item = WELL_KNOWN_BY_KEY[key]
    tok = import_model(item.file, (vocabs / item.file).read_bytes()).tokenizer
    ours = [tok.encode(t, disallowed_special=()) for t in held_out()]
    assert _ids_hash(ours) == json.loads(RECORDED.read_text())[key]


@pytest.mark.cpython_only
@pytest.mark.parametrize("key", SHIPPED)
def test_the_recorded_hashes_are_the_reference_libraries_own(vocabs, key):
    item = WELL_KNOWN_BY_KEY[key]
    assert _ids_hash(reference_ids(key, vocabs / item.file)) == json.loads(RECORDED.read_text())[key]


if __name__ == "__main__":
    site = REPO / "dist" / "site" / "vocabs"
    RECORDED.write_text(json.dumps({k: _ids_hash(reference_ids(k, site / WELL_KNOWN_BY_KEY[k].file)) for k in SHIPPED},
                                   indent=1) + "\n")
    print(RECORDED.read_text())
