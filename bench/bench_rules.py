"""What the reference rules cost: Unigram under rules='textbook', 'hf' and 'sentencepiece'
against the trainers they reproduce, measured in this run (median of --repeat, CPU seconds).

Run: .venv/bin/python bench/bench_rules.py [--repeat 3] [--vocab 8000] [--chars 0 (all)]

Rows, on tinyshakespeare.txt (the whole 1.1 MB by default):
- ``unigram`` textbook vs ``rules="hf"`` vs HF ``tokenizers``' UnigramTrainer (one thread);
- ``sentencepiece_unigram`` textbook vs ``rules="sentencepiece"`` vs ``spm_train``
  (``num_threads=1``, NFKC, ``character_coverage=0.9995``, the text's lines).
Each row prints its ratio to the textbook rules (the issue's target: <= 1.5x) and to its peer.
The machine is shared: compare ratios of the same run, not absolute times.
"""

import argparse
import io
import os
import statistics
import sys

from common import CORPORA, ROOT, clocked, report

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(ROOT / "py_core"))

import subwordlab


def ours(text, preset, vocab, rules):
    extra = {"character_coverage": 0.9995} if preset == "sentencepiece_unigram" else {}
    return subwordlab.train(text, preset=preset, vocab_size=vocab, rules=rules, **extra)


def hf_unigram(text, vocab):
    """UnigramTrainer on the words of the ``unigram`` preset's pipeline (white space, ▁ first)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator([text], trainers.UnigramTrainer(vocab_size=vocab, special_tokens=["<unk>", "<s>", "</s>"],
                                                            unk_token="<unk>"))
    return tok


def spm_unigram(text, vocab):
    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text.split("\n")), model_writer=out, vocab_size=vocab,
                                   model_type="unigram", num_threads=1, minloglevel=2, normalization_rule_name="nfkc",
                                   character_coverage=0.9995)
    return out.getvalue()


def median_cpu(repeat, fn, *args):
    """The median CPU seconds of ``fn(*args)`` over ``repeat`` calls."""
    return statistics.median(clocked(fn, *args)[1] for _ in range(repeat))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--vocab", type=int, default=8000)
    ap.add_argument("--chars", type=int, default=0)
    args = ap.parse_args()
    text = (CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8")
    if args.chars:
        text = text[:args.chars]
    v, r = args.vocab, args.repeat
    for preset, rules, peer_name, peer in (("unigram", "hf", "tokenizers UnigramTrainer", hf_unigram),
                                           ("sentencepiece_unigram", "sentencepiece", "spm_train", spm_unigram)):
        base = median_cpu(r, ours, text, preset, v, "textbook")
        ref = median_cpu(r, ours, text, preset, v, rules)
        theirs = median_cpu(r, peer, text, v)
        report([(f"{preset} rules=textbook", f"{base:.2f} s"),
                (f"{preset} rules={rules}", f"{ref:.2f} s  = {ref / base:.2f}x textbook (target <= 1.5x)"),
                (peer_name, f"{theirs:.2f} s  (rules={rules} = {ref / theirs:.1f}x it)")],
               f"{preset}, {len(text):,} characters of Shakespeare, vocab {v:,}, CPU s, median of {r}")


if __name__ == "__main__":
    main()
