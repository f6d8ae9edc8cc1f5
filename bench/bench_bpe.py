"""BPE training and encoding speed against HF tokenizers, tiktoken and the textbook loop.

Run: .venv/bin/python bench/bench_bpe.py [--skip-textbook]
Prints times and ratios measured in this run (the machine is shared and noisy: compare
ratios, not absolute times).
"""

import argparse
import sys
from collections import Counter

from common import CORPORA, hf_byte_bpe, peak_memory_mb, report, timed

import subwordlab
from subwordlab.text.patterns import PATTERNS
from subwordlab.text.regex_compat import HAVE_REGEX


def ours(text, vocab_size):
    return subwordlab.train(text, preset="byte_bpe", vocab_size=vocab_size)


def textbook(text, vocab_size):
    """The full-recount loop (subwordlab.trainers.textbook), on the same byte-level words."""
    from subwordlab.pipeline.pre_tokenizers import ByteLevel
    from subwordlab.trainers import textbook as book

    return book.bpe(Counter(ByteLevel("gpt2").words(text)), vocab_size - 256)


def encode_speed(tok, text):
    import tiktoken

    ranks = {tok.token_bytes(i): i for i in range(tok.vocab_size)}
    enc = tiktoken.Encoding("bench", pat_str=PATTERNS["gpt2"], mergeable_ranks=ranks, special_tokens={})
    mb = len(text.encode("utf-8")) / 1e6
    tok._cache.clear(), tok._chunk_cache.clear()
    cold, ids = timed(tok.encode, text)
    warm, _ = timed(tok.encode, text, repeat=3)
    theirs, tids = timed(enc.encode_ordinary, text, repeat=3)
    assert ids == tids, "our ids differ from tiktoken's"
    return mb / cold, mb / warm, mb / theirs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-textbook", action="store_true", help="do not run the slow full-recount loop")
    args = ap.parse_args()
    shakespeare = (CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8")
    udhr = "\n".join(p.read_text(encoding="utf-8") for p in sorted((CORPORA / "udhr").glob("*.txt")))
    print(f"python {sys.version.split()[0]}, regex module: {HAVE_REGEX}")

    for name, text, sizes in [("tinyshakespeare.txt", shakespeare, (4000, 16000)), ("UDHR (6 files)", udhr, (4000,))]:
        for vocab_size in sizes:
            t_ours, tok = timed(ours, text, vocab_size)
            t_hf, _ = timed(hf_byte_bpe, text, vocab_size)
            rows = [("ours (s)", f"{t_ours:.2f}"), ("HF tokenizers BpeTrainer (s)", f"{t_hf:.2f}"),
                    ("ours / HF", f"{t_ours / t_hf:.2f}x")]
            if vocab_size == 4000 and name.startswith("tiny") and not args.skip_textbook:
                t_book, _ = timed(textbook, text, vocab_size)
                rows += [("textbook full recount (s)", f"{t_book:.1f}"), ("textbook / ours", f"{t_book / t_ours:.0f}x")]
            mem = peak_memory_mb(
                "import subwordlab; t = open(%r, encoding='utf-8').read(); subwordlab.train(t, preset='byte_bpe', vocab_size=%d)"
                % (str(CORPORA / "tinyshakespeare.txt") if name.startswith("tiny") else str(CORPORA / "udhr" / "udhr_eng.txt"), vocab_size))
            rows.append(("our peak traced memory (MB)", f"{mem:.0f}" + ("" if name.startswith("tiny") else " (udhr_eng only)")))
            report(rows, f"byte-level BPE training, GPT-2 pattern, {name}, vocab {vocab_size}")

    tok = ours(shakespeare, 4000)
    cold, warm, theirs = encode_speed(tok, shakespeare)
    mem = peak_memory_mb(
        "import subwordlab; t = open(%r, encoding='utf-8').read(); tok = subwordlab.train(t[:200000], preset='byte_bpe', vocab_size=4000)\n"
        "tracemalloc.reset_peak(); tok.encode(t)" % str(CORPORA / "tinyshakespeare.txt"))
    report([("ours, first pass (cache cold) MB/s", f"{cold:.1f}"), ("ours, cache warm MB/s", f"{warm:.1f}"),
            ("tiktoken MB/s", f"{theirs:.1f}"), ("tiktoken / ours (warm)", f"{theirs / warm:.1f}x"),
            ("our encode peak traced memory (MB)", f"{mem:.0f}")],
           "byte-level encoding of tinyshakespeare.txt (1.1 MB), same ranks, identical ids")


if __name__ == "__main__":
    main()
