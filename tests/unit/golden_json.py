"""Golden SHA-256 hashes of ``to_json()`` for small fixed trainings, one per preset.

The unit test ``test_serialize.py::test_golden_json_hashes`` runs in both tiers (CPython and
Pyodide), so a pass in both proves that the two runtimes write byte-identical model files
for the same spec and corpus.

The hashes change whenever the document format, the core version, or what a trainer
learns changes (on purpose). Then regenerate them on CPython and commit the file:

    PYTHONPATH=py_core .venv/bin/python tests/unit/golden_json.py --update

(without ``--update`` it prints the current hashes and says which differ).
"""

import hashlib
import json
import sys
from pathlib import Path

HASHES = Path(__file__).with_name("golden_json_hashes.json")
CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "udhr" / "udhr_eng.txt"

# name -> (preset, training options); the corpus is the first 4,000 characters of UDHR English
TRAININGS = {
    "bpe": ("bpe", {"num_merges": 60}),
    "bpe_counts": ("bpe", {"num_merges": 8, "corpus": {"low": 5, "lower": 2, "newest": 6, "widest": 3}}),
    "byte_bpe": ("byte_bpe", {"vocab_size": 320, "pattern": "cl100k", "special_tokens": ["<|endoftext|>"]}),
    "sentencepiece_bpe": ("sentencepiece_bpe", {"vocab_size": 150, "split_digits": True}),
    "wordpiece": ("wordpiece", {"vocab_size": 150, "lowercase": True}),
    "unigram": ("unigram", {"vocab_size": 150}),
    "sentencepiece_unigram": ("sentencepiece_unigram", {"vocab_size": 150}),
}


def corpus_text():
    return CORPUS.read_text(encoding="utf-8")[:4000]


def train(name):
    import subwordlab

    preset, options = TRAININGS[name]
    options = dict(options)
    corpus = options.pop("corpus", None) or corpus_text()
    return subwordlab.train(corpus, preset=preset, **options)


def current_hashes():
    from subwordlab import OPTIONS

    out = {}
    for name, (preset, _) in TRAININGS.items():
        if preset in OPTIONS:
            out[name] = hashlib.sha256(train(name).to_json().encode("utf-8")).hexdigest()
    return out


def main(argv):
    now = current_hashes()
    old = json.loads(HASHES.read_text()) if HASHES.exists() else {}
    for name, h in now.items():
        print(f"{name:24} {h}{'' if old.get(name) == h else '  (changed)'}")
    if "--update" in argv:
        HASHES.write_text(json.dumps(now, indent=2, sort_keys=True) + "\n")
        print(f"wrote {HASHES}")


if __name__ == "__main__":
    main(sys.argv[1:])
