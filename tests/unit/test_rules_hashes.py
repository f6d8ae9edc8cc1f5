"""SHA-256 hashes of models trained under each non-textbook ``rules`` value on a small bundled
corpus (the first 4,000 characters of the English UDHR). The hashes were computed in CPython
(where test_rules_hf.py / test_rules_spm.py check the same trainers against the reference
libraries); this module runs in every runtime, so a pass in Pyodide proves the same result there.

Regenerate (on purpose only): ``PYTHONPATH=py_core python tests/unit/test_rules_hashes.py``.
"""

import hashlib
import json
import sys

import pytest

import subwordlab
from corpora import read

pytestmark = pytest.mark.every_runtime

TRAININGS = {
    "byte_bpe_hf": ("byte_bpe", {"vocab_size": 320, "rules": "hf"}),
    "byte_bpe_hf_specials": ("byte_bpe", {"vocab_size": 300, "rules": "hf", "special_tokens": ["<|endoftext|>"],
                                          "min_frequency": 3}),
    "wordpiece_hf": ("wordpiece", {"vocab_size": 150, "rules": "hf"}),
    "bpe_hf": ("bpe", {"vocab_size": 150, "rules": "hf"}),
    "sentencepiece_bpe_sentencepiece": ("sentencepiece_bpe", {"vocab_size": 150, "rules": "sentencepiece"}),
    "sentencepiece_bpe_sentencepiece_digits": ("sentencepiece_bpe", {"vocab_size": 400, "rules": "sentencepiece",
                                                                     "split_digits": True}),
    # (its scores are hashed too: they come from math.log and math.exp, which must agree
    # to the last bit between CPython's libm and Pyodide's)
    "unigram_hf": ("unigram", {"vocab_size": 200, "rules": "hf"}),
    "unigram_hf_alphabet": ("unigram", {"vocab_size": 300, "rules": "hf", "initial_alphabet": "xyzé"}),
    # (float32 scores through the C library's exp, log and log1p, with _settled's guard)
    "sentencepiece_unigram_sentencepiece": ("sentencepiece_unigram", {"vocab_size": 200, "rules": "sentencepiece",
                                                                      "character_coverage": 0.9995}),
    "sentencepiece_unigram_sentencepiece_bytes": ("sentencepiece_unigram", {
        "vocab_size": 400, "rules": "sentencepiece", "byte_fallback": True, "split_digits": True}),
    # (spm's own script table, text/spm_scripts.py: the Armenian full stop is Common to it)
    "sentencepiece_bpe_sentencepiece_armenian": ("sentencepiece_bpe", {"vocab_size": 1086, "rules": "sentencepiece",
                                                                       "character_coverage": 0.9995}),
    # (spm's own nfkc table, text/charsmap.py: Vietnamese ê + U+0301 as spm composes it)
    "sentencepiece_unigram_sentencepiece_vietnamese": ("sentencepiece_unigram", {
        "vocab_size": 400, "rules": "sentencepiece", "character_coverage": 0.9995}),
}
CORPUS_OF = {"sentencepiece_bpe_sentencepiece_armenian": "udhr_more/udhr_hye.txt",
             "sentencepiece_unigram_sentencepiece_vietnamese": "udhr_more/udhr_vie.txt"}  # (the others: the English UDHR)

HASHES = {
    "byte_bpe_hf": "3a49bfecf8cdca0940618166e842abe30713de49d91d3cf33593e6bd11772d81",
    "byte_bpe_hf_specials": "a000a19f4c16222fda83314678fa2fddfd356cf2e2f048792ee6718dd87e2ba5",
    "wordpiece_hf": "224812e21cb72132cc33154c3608ecc2497bfbca568268efa82ecd481c886312",
    "bpe_hf": "130f3e97359915f85286753c66949199f60a67d365c4307f36ace285f80106cd",
    "sentencepiece_bpe_sentencepiece": "f5fcf262e5d7d03b8b039cff13521f6cd0f01d465631edf7bc1b03e8052a189a",
    "sentencepiece_bpe_sentencepiece_digits": "d75702442fc7c22c86ac879fb846288340e090d6f6ef4cdd901ee7f21fbc4009",
    "unigram_hf": "6db298bfb3d1e52b2efd3d6df61beabd5c06d33b74e68ebd416031f2f8a109ef",
    "unigram_hf_alphabet": "7ab443206bd297f7eef1594263dbf8a91329121aca29de143f9198658aa128be",
    "sentencepiece_unigram_sentencepiece": "fa21ac7ce1fce56efe6a283297a963c0516b084ac886afa341c9ffafc224d010",
    "sentencepiece_unigram_sentencepiece_bytes": "55bfcd9134eb03a5e244212816d5770f70ddfa4f6ec665793777dc7add0d3ff4",
    "sentencepiece_bpe_sentencepiece_armenian": "65e4bceffa2447c09d4356db7f2e13997151c2c94f60cd0ab1b79221f87c3d69",
    "sentencepiece_unigram_sentencepiece_vietnamese": "9f8fab54e3590cd5a30e67fc3396bd50bbd0a16101a37ad1d3a0e758ec975843",
}


def model_hash(name):
    """SHA-256 of the trained model's vocabulary (by id) and merges (as id pairs, when it keeps them)."""
    preset, options = TRAININGS[name]
    text = read(CORPUS_OF[name]) if name in CORPUS_OF else read("udhr/udhr_eng.txt")[:4000]
    tok = subwordlab.train(text, preset=preset, **options)
    merges = [list(m[:2]) for m in getattr(tok.model, "merges", [])]
    scores = [float.hex(s) for s in getattr(tok.model, "scores", [])]  # (Unigram: every bit of every score)
    doc = json.dumps([tok.model.vocab, merges] + ([scores] if scores else []), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(doc.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("name", list(TRAININGS))
def test_rules_model_hashes(name):
    assert model_hash(name) == HASHES[name]


if __name__ == "__main__":
    for n in TRAININGS:
        print(f'    "{n}": "{model_hash(n)}",')
    sys.exit(0)


@pytest.mark.parametrize("name", [n for n, (preset, _) in TRAININGS.items() if "unigram" not in preset])
def test_rules_trainers_yield_the_same_events_as_the_textbook_ones(name):
    # (Unigram's rounds: test_rules_hf_unigram.py's test of its events)
    """AlphabetReady first, one MergeStep per merge (candidates best first), Done last: the page can watch."""
    preset, options = TRAININGS[name]
    events = list(subwordlab.iter_train(read("udhr/udhr_eng.txt")[:2000], preset=preset, **options))
    kinds = [e.kind for e in events]
    assert kinds[0] == "alphabet" and kinds[-1] == "done" and set(kinds[1:-1]) == {"merge"}
    merges = events[1:-1]
    assert [e.rank for e in merges] == list(range(len(merges)))
    assert all(e.candidates[0][0] == e.pair and e.candidates[0][1] == e.count for e in merges)
