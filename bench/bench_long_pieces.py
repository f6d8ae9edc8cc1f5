"""Encoding one long piece (a run of one letter, a line without spaces): time must grow
linearly with its length (the models merge a long piece through merge_queue.py, O(n log n);
list merging was O(n^2): 100,000 letters took 20 s), next to tiktoken and HF ``tokenizers``
on the same model, measured in this run.

Run: .venv/bin/python bench/bench_long_pieces.py [--sizes 10000,100000,1000000]
Prints CPU seconds (cold: caches cleared) and the growth from one size to the next (10x the
text: ~10x the time is linear, ~100x quadratic).
"""

import argparse
import random
import sys

from common import CORPORA, clocked

import subwordlab
from subwordlab.text.patterns import PATTERNS


def texts(size):
    rng = random.Random(0)
    letters = (CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8").replace(" ", "").replace("\n", "")
    line = (letters * (size // len(letters) + 1))[:size]
    return {"one letter": "a" * size, "no-space line": line, "random a/b": "".join(rng.choice("ab") for _ in range(size))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000,1000000")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    import tiktoken
    from tokenizers import Tokenizer as HF

    train_text = (CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8")[:300_000] + " aaaa" * 200 + " abab" * 200
    tok = subwordlab.train(train_text, preset="byte_bpe", vocab_size=2000)
    ranks = {tok.token_bytes(i): i for i in range(tok.vocab_size)}
    enc = tiktoken.Encoding("bench", pat_str=PATTERNS["gpt2"], mergeable_ranks=ranks, special_tokens={})
    hf = HF.from_str(subwordlab.to_hf_json(tok))
    print(f"python {sys.version.split()[0]}; byte-level BPE, vocab 2,000 (Shakespeare); CPU seconds, cold")
    print(f"{'text':<14} {'chars':>9} {'ours':>8} {'growth':>7} {'tiktoken':>9} {'HF':>8} {'ours/tiktoken':>14}")
    for name in ("one letter", "no-space line", "random a/b"):
        prev = None
        for size in sizes:
            text = texts(size)[name]
            tok._cache.clear(), tok._chunk_cache.clear()
            _, t_ours, ids = clocked(tok.encode, text)
            _, t_tk, tids = clocked(enc.encode_ordinary, text)
            _, t_hf, hids = clocked(lambda t=text: hf.encode(t).ids)
            assert ids == tids == hids, f"ids differ on {name} at {size}"
            growth = f"{t_ours / prev:.1f}x" if prev else ""
            print(f"{name:<14} {size:>9,} {t_ours:>8.3f} {growth:>7} {t_tk:>9.3f} {t_hf:>8.3f} {t_ours / t_tk:>13.1f}x")
            prev = t_ours


if __name__ == "__main__":
    main()
