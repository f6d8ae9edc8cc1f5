"""Unigram training against SentencePiece, WordPiece training against our BPE.

Run: .venv/bin/python bench/bench_unigram_wordpiece.py [--vocab 4000]
Prints wall and CPU times and ratios measured in this run (the machine is shared and
noisy: compare ratios, and CPU times, not absolute wall times), held-out tokens per
character, and each trainer's peak memory measured in a fresh process.

- Unigram: ``sentencepiece_unigram`` (no normalization) vs SentencePiece unigram, 1 thread,
  ``character_coverage=1.0``, ``normalization_rule_name="identity"``, the same lines of
  tinyshakespeare.txt (SentencePiece reads one sentence per line), the same vocab size.
- WordPiece vs BPE: the ``wordpiece`` and ``bpe`` presets on the raw text (each with its
  own pre-tokenizer), and both trainers on the same word counts (white-space words).
"""

import argparse
import sys
from collections import Counter

from common import CORPORA, ROOT, clocked, max_rss_mb, peak_memory_mb, report, sentencepiece_unigram

import subwordlab

SHAKESPEARE = CORPORA / "tinyshakespeare.txt"


def ours_unigram(lines, vocab_size):
    return subwordlab.train(lines, preset="sentencepiece_unigram", vocab_size=vocab_size, normalization="none")


def tokens_per_char(encode, lines):
    return sum(len(encode(line)) for line in lines) / sum(len(line) for line in lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", type=int, default=4000)
    args = ap.parse_args()
    vocab = args.vocab
    text = SHAKESPEARE.read_text(encoding="utf-8")
    lines = text.splitlines()
    print(f"python {sys.version.split()[0]}; tinyshakespeare.txt {len(text):,} chars, {len(lines):,} lines; vocab {vocab}")

    # -- Unigram vs SentencePiece ------------------------------------------------------------
    sp_runs = [clocked(sentencepiece_unigram, lines, vocab) for _ in range(3)]
    sp_wall, sp_cpu, sp = min(sp_runs, key=lambda r: r[0])
    our_wall, our_cpu, ours = clocked(ours_unigram, lines, vocab)
    cut = int(len(lines) * 0.9)
    sp_q = sentencepiece_unigram(lines[:cut], vocab)
    ours_q = ours_unigram(lines[:cut], vocab)
    load = "lines = open(%r, encoding='utf-8').read().splitlines()\n" % str(SHAKESPEARE)
    base = max_rss_mb("import subwordlab, sentencepiece\n" + load)
    sp_rss = max_rss_mb("import sys; sys.path.insert(0, %r)\nfrom common import sentencepiece_unigram\n"
                        % str(ROOT / "bench") + load + f"sentencepiece_unigram(lines, {vocab})")
    our_rss = max_rss_mb("import subwordlab\n" + load + f"subwordlab.train(lines, preset='sentencepiece_unigram', "
                         f"vocab_size={vocab}, normalization='none')")
    our_traced = peak_memory_mb(load + f"import subwordlab; subwordlab.train(lines, preset='sentencepiece_unigram', "
                                f"vocab_size={vocab}, normalization='none')")
    report([
        ("SentencePiece, 1 thread: wall / CPU (s), best of 3", f"{sp_wall:.2f} / {sp_cpu:.2f}"),
        ("ours: wall / CPU (s)", f"{our_wall:.2f} / {our_cpu:.2f}"),
        ("ours / SentencePiece, wall", f"{our_wall / sp_wall:.1f}x"),
        ("ours / SentencePiece, CPU", f"{our_cpu / sp_cpu:.1f}x"),
        ("held-out tokens/char (train 90%, test 10%): SentencePiece",
         f"{tokens_per_char(sp_q.encode, lines[cut:]):.4f}"),
        ("held-out tokens/char: ours", f"{tokens_per_char(ours_q.encode, lines[cut:]):.4f}"),
        ("peak RSS (MB): interpreter + imports + corpus", f"{base:.0f}"),
        ("peak RSS (MB): SentencePiece training", f"{sp_rss:.0f}"),
        ("peak RSS (MB): our training", f"{our_rss:.0f}"),
        ("our peak traced Python allocations (MB)", f"{our_traced:.0f}"),
    ], f"Unigram training, tinyshakespeare.txt lines, vocab {vocab}")
    assert ours.vocab_size == vocab and sp.get_piece_size() == vocab

    # -- WordPiece vs our BPE ------------------------------------------------------------------
    bpe_wall, bpe_cpu, bpe = clocked(subwordlab.train, text, preset="bpe", vocab_size=vocab)
    wp_wall, wp_cpu, wp = clocked(subwordlab.train, text, preset="wordpiece", vocab_size=vocab)
    counts = dict(Counter(text.split()))
    bpe_w_wall, bpe_w_cpu, _ = clocked(subwordlab.train, counts, preset="bpe", vocab_size=vocab)
    wp_w_wall, wp_w_cpu, _ = clocked(subwordlab.train, counts, preset="wordpiece", vocab_size=vocab)
    mems = {}
    for preset in ("bpe", "wordpiece"):
        code = f"import subwordlab\nt = open({str(SHAKESPEARE)!r}, encoding='utf-8').read()\n" \
               f"subwordlab.train(t, preset={preset!r}, vocab_size={vocab})"
        mems[preset] = (max_rss_mb(code), peak_memory_mb(code))
    report([
        ("bpe preset on the text: wall / CPU (s)", f"{bpe_wall:.2f} / {bpe_cpu:.2f}"),
        ("wordpiece preset on the text: wall / CPU (s)", f"{wp_wall:.2f} / {wp_cpu:.2f}"),
        ("wordpiece / bpe, CPU", f"{wp_cpu / bpe_cpu:.2f}x"),
        ("same word counts, bpe: wall / CPU (s)", f"{bpe_w_wall:.2f} / {bpe_w_cpu:.2f}"),
        ("same word counts, wordpiece: wall / CPU (s)", f"{wp_w_wall:.2f} / {wp_w_cpu:.2f}"),
        ("same word counts, wordpiece / bpe, CPU", f"{wp_w_cpu / bpe_w_cpu:.2f}x"),
        ("peak RSS / traced (MB): bpe", f"{mems['bpe'][0]:.0f} / {mems['bpe'][1]:.0f}"),
        ("peak RSS / traced (MB): wordpiece", f"{mems['wordpiece'][0]:.0f} / {mems['wordpiece'][1]:.0f}"),
    ], f"WordPiece (score rule) vs our BPE training, tinyshakespeare.txt, vocab {vocab}")
    assert wp.vocab_size == vocab and bpe.vocab_size == vocab


if __name__ == "__main__":
    main()
