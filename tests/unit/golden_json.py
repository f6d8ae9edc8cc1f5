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

import subwordlab

HASHES = Path(__file__).with_name("golden_json_hashes.json")
CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "udhr" / "udhr_eng.txt"

# name -> (preset, training options); the corpus is the first 4,000 characters of UDHR English
TRAININGS = {
    "bpe": ("bpe", {"num_merges": 60}),
    "bpe_counts": ("bpe", {"num_merges": 8, "corpus": {"low": 5, "lower": 2, "newest": 6, "widest": 3}}),
    "byte_bpe": ("byte_bpe", {"vocab_size": 320, "pattern": "cl100k", "special_tokens": ["<|endoftext|>"]}),
    "sentencepiece_bpe": ("sentencepiece_bpe", {"vocab_size": 150, "split_digits": True}),
    "wordpiece": ("wordpiece", {"vocab_size": 150, "lowercase": True}),
    "wordpiece_frequency": ("wordpiece", {"vocab_size": 150, "scoring": "frequency"}),
    "unigram": ("unigram", {"vocab_size": 150}),
    "sentencepiece_unigram": ("sentencepiece_unigram", {"vocab_size": 150}),
}
# Every preset on text with characters new in Unicode 15.0-16.0 (see unicode16_text): the
# same hashes in CPython 3.11 (Unicode 14) and Pyodide (16) prove that the core reads its
# own pinned tables, never the runtime's (categories, scripts, normalization, case).
UNICODE16 = {"corpus": "unicode16"}
TRAININGS.update({
    "u16_bpe": ("bpe", dict(UNICODE16, num_merges=40, lowercase=True)),
    "u16_byte_bpe": ("byte_bpe", dict(UNICODE16, vocab_size=300, pattern="o200k")),
    "u16_byte_bpe_digits": ("byte_bpe", dict(UNICODE16, vocab_size=300, pattern=r"\p{Lu}+|\p{L}+|\d+|\S")),
    # (?i): a Garay letter, capital or small (a pair only since 16.0), is a chunk of its own
    # (without pinned case pairs CPython 3.11 would merge across a capital: another model)
    "u16_byte_bpe_ignorecase": ("byte_bpe", dict(UNICODE16, vocab_size=500,
                                                 pattern=r"(?i)[\U00010D70-\U00010D85]|\p{L}+|\s+|\S")),
    "u16_sentencepiece_bpe": ("sentencepiece_bpe", dict(UNICODE16, vocab_size=140, split_digits=True, lowercase=True)),
    "u16_wordpiece": ("wordpiece", dict(UNICODE16, vocab_size=140, lowercase=True, strip_accents=True)),
    "u16_unigram": ("unigram", dict(UNICODE16, vocab_size=120, lowercase=True)),
    "u16_sentencepiece_unigram": ("sentencepiece_unigram", dict(UNICODE16, vocab_size=120, split_digits=True)),
    "u16_sentencepiece_unigram_nfc": ("sentencepiece_unigram", dict(UNICODE16, vocab_size=120, normalization="nfc")),
})


def unicode16_text():
    """Words with characters assigned in Unicode 15.0 and 16.0: CJK Extension H (U+31350..),
    Kawi letters and digits (U+11F04.., U+11F50..), Garay capitals and small letters
    (U+10D50.., U+10D70..: case pairs), Tulu-Tigalari and Kirat Rai vowel pairs that NFC
    composes (U+113C2 U+113C2 -> U+113C5, U+16D67 U+16D67 -> U+16D68), Todhri with a
    combining dot (U+105D2 U+0307 -> U+105C9), and outlined letters NFKC folds (U+1CCD6..)."""
    cjk = [chr(0x31350 + k) for k in range(16)]
    kawi = [chr(0x11F04 + k) for k in range(12)]
    kawi_digits = [chr(0x11F50 + k) for k in range(10)]
    garay_cap, garay_small = [chr(0x10D50 + k) for k in range(10)], [chr(0x10D70 + k) for k in range(10)]
    words = ["the", "cat", "sat"]
    lines = []
    for k in range(80):
        lines.append(" ".join([
            words[k % 3],
            cjk[k % 16] + cjk[(k * 7) % 16] + cjk[(k * 3) % 16],
            kawi[k % 12] + kawi[(k + 5) % 12] + kawi_digits[k % 10] + kawi_digits[(k * 3) % 10],
            garay_cap[k % 10] + garay_small[(k + 1) % 10] + garay_small[(k * 5) % 10],
            "\U000113C2\U000113C2" + kawi[k % 5], "\U00016D67\U00016D67", "\U000105D2\u0307" + chr(0x105D3 + k % 4),
            chr(0x1CCD6 + k % 20) + "x", f"n{k % 7}",
        ]))
    return "\n".join(lines) + "\n"


def corpus_text():
    return CORPUS.read_text(encoding="utf-8")[:4000]


def train(name):
    import subwordlab

    preset, options = TRAININGS[name]
    options = dict(options)
    corpus = options.pop("corpus", None) or corpus_text()
    if corpus == "unicode16":
        corpus = unicode16_text()
    return subwordlab.train(corpus, preset=preset, **options)


def current_hashes():
    from subwordlab import OPTIONS

    out = {}
    for name, (preset, _) in TRAININGS.items():
        if preset in OPTIONS:
            out[name] = hashlib.sha256(subwordlab.to_json(train(name)).encode("utf-8")).hexdigest()
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
