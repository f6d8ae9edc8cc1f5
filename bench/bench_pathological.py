"""Pathological corpora: time and peak memory per algorithm, ours next to SentencePiece's.

The corpora (full sizes; ``--scale 0.1`` for a quick look):
  - ``repeated``: 2 MB of one repeated character ("aaaa...", no space, no line break);
  - ``no_spaces``: a 1 MB line without spaces (tinyshakespeare with its white space removed);
  - ``random``: 1 MB of random bytes, decoded leniently as the page does (bad bytes -> U+FFFD).

Each (algorithm, corpus) runs in a fresh process: wall and CPU seconds, and peak RSS (that
process's maximum resident set, interpreter included); a time limit stops a run that would
not end. SentencePiece (the ``sentencepiece`` package, one thread, ``hard_vocab_limit=false``
so it may stop short of a vocabulary the text cannot fill) trains its Unigram (next to our
Unigram presets) or its BPE (next to our BPE presets and WordPiece) twice: on the file as it
is, where it skips every line longer than its ``max_sentence_length`` (4192 bytes), and on
the same characters with a line break every 1,000 characters ("cut"), which it trains on
whole. Our Unigram trains a word longer than ``max_sentence_length`` (4192 bytes, as
SentencePiece) on its first 4192 bytes and says so; the other algorithms train on all of it.

    nice -n 10 .venv/bin/python bench/bench_pathological.py [--scale 1.0] [--limit 900] [--vocab 1000]
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
t, c = time.perf_counter(), time.process_time()
try:
    tok = subwordlab.train(text, {preset!r}, vocab_size={vocab})
    result = f"{{tok.vocab_size}} tokens"
except ValueError as exc:
    result = "refused: " + str(exc)[:60]
print(json.dumps([time.perf_counter() - t, time.process_time() - c,
                  resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, result]))
"""

SENTENCEPIECE = """
import json, resource, sys, time, io
import sentencepiece as spm
t, c = time.perf_counter(), time.process_time()
model = io.BytesIO()
try:
    spm.SentencePieceTrainer.train(input={path!r}, model_writer=model, vocab_size={vocab}, model_type={kind!r},
                                   hard_vocab_limit=False, character_coverage=1.0, minloglevel=2, num_threads=1)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    result = f"{{sp.get_piece_size()}} tokens"
except Exception as exc:
    result = "refused: " + str(exc).splitlines()[0][:60]
    if "sentences_.empty()" in result:  # (its check after loading: every line was skipped)
        result = "refused: no sentences (every line longer than max_sentence_length was skipped)"
print(json.dumps([time.perf_counter() - t, time.process_time() - c,
                  resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, result]))
"""


def run(code, limit):
    """[wall s, CPU s, peak MB, result] of ``code`` in a fresh interpreter; None past ``limit``."""
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        return [float("nan"), float("nan"), float("nan"), "crashed: " + (p.stderr.strip().splitlines() or ["?"])[-1][:60]]
    return json.loads(p.stdout.strip().splitlines()[-1])


def cell(got, limit):
    """One measurement as table text."""
    if got is None:
        return f"> {limit:.0f} s (stopped)"
    return f"{got[0]:7.1f} s {got[1]:7.1f} s {got[2]:6.0f} MB  {got[3]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--limit", type=float, default=900, help="seconds before a run is stopped")
    ap.add_argument("--vocab", type=int, default=1000)
    ap.add_argument("--only", nargs="*", help="presets to run (default: all)")
    ap.add_argument("--corpora", nargs="*", help="corpora to run (default: all)")
    args = ap.parse_args()
    print(f"{'corpus':<10} {'MB':>5}  {'algorithm':<26} {'wall':>9} {'CPU':>9} {'peak RSS':>9}  result")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in corpora(args.scale).items():
            if args.corpora and name not in args.corpora:
                continue
            path = Path(tmp) / f"{name}.txt"
            path.write_text(text, encoding="utf-8", newline="")
            size = path.stat().st_size / 1e6
            # (random bytes decode to thousands of distinct characters: ~5,800 at full size)
            vocab = len(set(text)) + args.vocab if name == "random" else args.vocab
            lines = Path(tmp) / f"{name}.lines.txt"
            lines.write_text("\n".join(cut for line in text.split("\n") for cut in
                                       ([line[i:i + 1000] for i in range(0, len(line), 1000)] or [""])),
                             encoding="utf-8", newline="")
            # SentencePiece's two runs of each kind, measured once per corpus
            peers = {}
            for kind in ("unigram", "bpe"):
                for how, where in (("as is", path), ("cut", lines)):
                    got = run(SENTENCEPIECE.format(path=str(where), vocab=vocab, kind=kind), args.limit)
                    peers[kind, how] = got
            for preset in PRESETS:
                if args.only and preset not in args.only:
                    continue
                got = run(OURS.format(core=str(ROOT / "py_core"), path=str(path), preset=preset, vocab=vocab), args.limit)
                kind = "unigram" if "unigram" in preset else "bpe"
                print(f"{name:<10} {size:5.2f}  {preset:<26} {cell(got, args.limit)}", flush=True)
                for how in ("as is", "cut"):
                    print(f"{'':<10} {'':5}    {'SentencePiece ' + kind + ', ' + how:<24} "
                          f"{cell(peers[kind, how], args.limit)}", flush=True)


if __name__ == "__main__":
    main()
