"""Pathological corpora: time and peak memory per algorithm, ours against SentencePiece.

The corpora (full sizes; ``--scale 0.1`` for a quick look):
  - ``repeated``: 2 MB of one repeated character ("aaaa...", no space, no line break);
  - ``no_spaces``: a 1 MB line without spaces (tinyshakespeare with its white space removed);
  - ``random``: 1 MB of random bytes, decoded leniently as the page does (bad bytes -> U+FFFD).

Each (algorithm, corpus) runs in a fresh process (peak RSS is that process's maximum resident
set, interpreter included; a time limit stops a run that would not end). SentencePiece
(the ``sentencepiece`` package) trains its Unigram and BPE on the same text with
``hard_vocab_limit=false`` (it would refuse a vocabulary the text cannot fill). SentencePiece
skips every line longer than its ``max_sentence_length`` (4192 bytes) and refuses a corpus
with none left, so it gets the same characters with a line break every 1,000 characters
(the ``cut into lines`` rows); ours gets the file as it is.

    .venv/bin/python bench/bench_pathological.py [--scale 1.0] [--limit 900] [--vocab 1000]
"""

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from common import CORPORA, ROOT

PRESETS = ["bpe", "byte_bpe", "wordpiece", "unigram", "sentencepiece_bpe", "sentencepiece_unigram"]


def corpora(scale):
    """name -> text, at `scale` times the full sizes."""
    rng = random.Random(13)
    shakespeare = "".join((CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8").split())
    return {
        "repeated": "a" * int(2_000_000 * scale),
        "no_spaces": shakespeare[:int(1_000_000 * scale)],
        "random": bytes(rng.randrange(256) for _ in range(int(1_000_000 * scale))).decode("utf-8", "replace"),
    }


OURS = """
import json, resource, sys, time
sys.path.insert(0, {core!r})
import subwordlab
text = open({path!r}, encoding="utf-8", newline="").read()
t = time.perf_counter()
try:
    tok = subwordlab.train(text, {preset!r}, vocab_size={vocab})
    result = f"{{tok.vocab_size}} tokens"
except ValueError as exc:
    result = "refused: " + str(exc)[:60]
print(json.dumps([time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, result]))
"""

SENTENCEPIECE = """
import json, resource, sys, time, io
import sentencepiece as spm
t = time.perf_counter()
model = io.BytesIO()
try:
    spm.SentencePieceTrainer.train(input={path!r}, model_writer=model, vocab_size={vocab}, model_type={kind!r},
                                   hard_vocab_limit=False, character_coverage=1.0, minloglevel=2, num_threads=1)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    result = f"{{sp.get_piece_size()}} tokens"
except Exception as exc:
    result = "refused: " + str(exc).splitlines()[0][:60]
print(json.dumps([time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, result]))
"""


def run(code, limit):
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        return [float("nan"), float("nan"), "crashed: " + (p.stderr.strip().splitlines() or ["?"])[-1][:60]]
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--limit", type=float, default=900, help="seconds before a run is stopped")
    ap.add_argument("--vocab", type=int, default=1000)
    ap.add_argument("--only", nargs="*", help="presets to run (default: all)")
    ap.add_argument("--corpora", nargs="*", help="corpora to run (default: all)")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in corpora(args.scale).items():
            if args.corpora and name not in args.corpora:
                continue
            path = Path(tmp) / f"{name}.txt"
            path.write_text(text, encoding="utf-8", newline="")
            size = path.stat().st_size
            vocab = max(args.vocab, 3000) if name == "random" else args.vocab  # (random bytes: ~2,000 characters)
            jobs = [(p, OURS.format(core=str(ROOT / "py_core"), path=str(path), preset=p, vocab=vocab))
                    for p in PRESETS if not args.only or p in args.only]
            lines = Path(tmp) / f"{name}.lines.txt"
            lines.write_text("\n".join(cut for line in text.split("\n") for cut in
                                       ([line[i:i + 1000] for i in range(0, len(line), 1000)] or [""])),
                             encoding="utf-8", newline="")
            jobs += [(f"SentencePiece {kind} (cut into lines)", SENTENCEPIECE.format(path=str(lines), vocab=vocab, kind=kind))
                     for kind in ("unigram", "bpe")]
            for label, code in jobs:
                got = run(code, args.limit)
                line = (f"{name:<10} {size / 1e6:5.2f} MB  {label:<38} " +
                        (f"> {args.limit:.0f} s (stopped)" if got is None else
                         f"{got[0]:8.1f} s  {got[1]:7.0f} MB peak RSS  {got[2]}"))
                print(line, flush=True)
                rows.append(line)


if __name__ == "__main__":
    main()
