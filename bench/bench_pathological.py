"""Pathological corpora: time and peak memory per algorithm, ours next to SentencePiece's and
HF tokenizers' on the same text, with the ratio of CPU times.

The corpora (full sizes; ``--scale 0.1`` for a quick look):
  - ``repeated``: 2 MB of one repeated character ("aaaa...", no space, no line break);
  - ``no_spaces``: a 1 MB line without spaces (tinyshakespeare with its white space removed);
  - ``random``: 1 MB of random bytes, decoded leniently as the page does (bad bytes -> U+FFFD).

Each run is a fresh process: wall and CPU seconds, and peak RSS (that process's VmHWM,
interpreter included); a time limit stops a run that would not end.

Ours, as the presets train by default: every trainer bounds a word as SentencePiece bounds a
line. BPE and Unigram train a word longer than ``max_sentence_length`` (4192 bytes) on its
first 4192 bytes and say so; WordPiece leaves a word longer than ``max_input_chars_per_word``
(100 characters) out of training, as BERT, and says so. The "whole" rows raise those limits
(``max_sentence_length=10**8``, ``max_input_chars_per_word=10**6``): the whole text trains,
a huge word as runs of 4096 symbols.

The peers, one thread each:
  - SentencePiece (``hard_vocab_limit=false``, so it may stop short of a vocabulary the text
    cannot fill; normalized as the preset normalizes: ``SP_RULE``) trains its BPE (next to
    our BPE presets and WordPiece) or its Unigram: "as
    is", on the file, where it skips every line longer than its ``max_sentence_length`` (4192
    bytes), and "cut", on the same characters with a line break every 1,000 characters,
    which it trains on whole. The ratio column is our CPU time over SentencePiece's "cut".
  - HF tokenizers (no length bound: every word trains whole): BpeTrainer on white-space
    words (next to bpe and sentencepiece_bpe), on GPT-2 byte-level words (next to byte_bpe),
    WordPieceTrainer (next to wordpiece), UnigramTrainer (next to the Unigram presets).

    nice -n 10 .venv/bin/python bench/bench_pathological.py [--scale 1.0] [--limit 900] [--peer-limit 120] [--vocab 1000]
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
# the options that lift each preset's bound on a word's length (the "whole" rows)
WHOLE = {p: {"max_input_chars_per_word": 10**6} if p == "wordpiece" else {"max_sentence_length": 10**8} for p in PRESETS}
# SentencePiece's normalization for the same text as each preset's: none (``identity``) or
# NFKC (``nfkc``, the sentencepiece_* presets' default). Its own default, ``nmt_nfkc``, also
# deletes control characters, 12 % of random bytes: a different, easier text (measured at full
# size: Unigram 1.4 s with nmt_nfkc, 10.1 s with identity; BPE 0.37 s, 0.73 s), so it is
# printed for reference but no ratio uses it
SP_RULE = {p: "nfkc" if p.startswith("sentencepiece") else "identity" for p in PRESETS}
# the HF tokenizers trainer next to each preset
HF_PEER = {"bpe": "bpe", "sentencepiece_bpe": "bpe", "byte_bpe": "byte_bpe", "wordpiece": "wordpiece",
           "unigram": "unigram", "sentencepiece_unigram": "unigram"}


def corpora(scale):
    """name -> text, at `scale` times the full sizes."""
    rng = random.Random(13)
    shakespeare = "".join((CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8").split())
    return {
        "repeated": "a" * int(2_000_000 * scale),
        "no_spaces": shakespeare[:int(1_000_000 * scale)],
        "random": bytes(rng.randrange(256) for _ in range(int(1_000_000 * scale))).decode("utf-8", "replace"),
    }


# every program prints [wall s, CPU s, peak MB, result] as its last line
PEAK = "[int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0] / 1024"

OURS = """
import json, sys, time
sys.path.insert(0, {core!r})
import subwordlab
text = open({path!r}, encoding="utf-8", newline="").read()
t, c = time.perf_counter(), time.process_time()
try:
    tok = subwordlab.train(text, {preset!r}, vocab_size={vocab}, **{options!r})
    result = f"{{tok.vocab_size}} tokens"
except ValueError as exc:
    result = "refused: " + str(exc)[:60]
print(json.dumps([time.perf_counter() - t, time.process_time() - c, {peak}, result]))
"""

SENTENCEPIECE = """
import json, sys, time, io
import sentencepiece as spm
t, c = time.perf_counter(), time.process_time()
model = io.BytesIO()
try:
    spm.SentencePieceTrainer.train(input={path!r}, model_writer=model, vocab_size={vocab}, model_type={kind!r},
                                   hard_vocab_limit=False, character_coverage=1.0, minloglevel=2, num_threads=1,
                                   normalization_rule_name={rule!r})
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    result = f"{{sp.get_piece_size()}} tokens"
except Exception as exc:
    result = "refused: " + str(exc).splitlines()[0][:60]
    if "sentences_.empty()" in result:  # (its check after loading: every line was skipped)
        result = "refused: no sentences (every line longer than max_sentence_length was skipped)"
print(json.dumps([time.perf_counter() - t, time.process_time() - c, {peak}, result]))
"""

HF = """
import json, os, sys, time
os.environ["RAYON_NUM_THREADS"] = "1"  # (one thread, as the others)
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
text = open({path!r}, encoding="utf-8", newline="").read()
kind, vocab = {kind!r}, {vocab}
t, c = time.perf_counter(), time.process_time()
if kind == "unigram":
    tok = Tokenizer(models.Unigram())
    trainer = trainers.UnigramTrainer(vocab_size=vocab, show_progress=False, unk_token="<unk>", special_tokens=["<unk>"])
elif kind == "wordpiece":
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    trainer = trainers.WordPieceTrainer(vocab_size=vocab, show_progress=False, special_tokens=["[UNK]"])
else:
    tok = Tokenizer(models.BPE())
    trainer = trainers.BpeTrainer(vocab_size=vocab, show_progress=False, **(
        {{"initial_alphabet": pre_tokenizers.ByteLevel.alphabet()}} if kind == "byte_bpe" else {{}}))
tok.pre_tokenizer = {{"byte_bpe": pre_tokenizers.ByteLevel(add_prefix_space=False), "wordpiece": pre_tokenizers.BertPreTokenizer()
                     }}.get(kind, pre_tokenizers.WhitespaceSplit())
try:
    tok.train_from_iterator([text], trainer)
    result = f"{{tok.get_vocab_size()}} tokens"
except Exception as exc:
    result = "refused: " + str(exc).splitlines()[0][:60]
print(json.dumps([time.perf_counter() - t, time.process_time() - c, {peak}, result]))
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


def cell(got, limit, peer=None):
    """One measurement as table text (with our CPU time over the peer's, when it has one)."""
    if got is None:
        return f"> {limit:.0f} s (stopped)"
    ratio = ""
    if peer and got[1] == got[1] and not peer[3].startswith("refused") and not got[3].startswith("refused"):
        ratio = f"{got[1] / max(peer[1], 0.01):7.1f}×"
    return f"{got[0]:7.1f} s {got[1]:7.1f} s {got[2]:6.0f} MB {ratio:>8}  {got[3]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--limit", type=float, default=900, help="seconds before a run is stopped")
    ap.add_argument("--peer-limit", type=float, default=120,
                    help="seconds before an HF tokenizers run is stopped (one huge word takes it minutes)")
    ap.add_argument("--vocab", type=int, default=1000)
    ap.add_argument("--only", nargs="*", help="presets to run (default: all)")
    ap.add_argument("--corpora", nargs="*", help="corpora to run (default: all)")
    ap.add_argument("--no-whole", action="store_true", help="skip the runs with the length bounds raised")
    args = ap.parse_args()
    print(f"{'corpus':<10} {'MB':>5}  {'algorithm':<40} {'wall':>9} {'CPU':>9} {'peak RSS':>9} {'CPU ratio':>8}  result")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in corpora(args.scale).items():
            if args.corpora and name not in args.corpora:
                continue
            path = Path(tmp) / f"{name}.txt"
            path.write_text(text, encoding="utf-8", newline="")
            size = path.stat().st_size / 1e6
            # (random bytes decode to thousands of distinct characters: ~5,800 at full size;
            # WordPiece starts with each twice, word-initial and ##)
            chars = len(set(text)) if name == "random" else 0
            lines = Path(tmp) / f"{name}.lines.txt"
            lines.write_text("\n".join(cut for line in text.split("\n") for cut in
                                       ([line[i:i + 1000] for i in range(0, len(line), 1000)] or [""])),
                             encoding="utf-8", newline="")

            def row(label, text, name=name, size=size):
                print(f"{name:<10} {size:5.2f}  {label:<40} {text}", flush=True)

            presets = [p for p in PRESETS if not args.only or p in args.only]
            peers = {}
            kinds = sorted({("unigram" if "unigram" in p else "bpe", SP_RULE[p]) for p in presets})
            kinds += sorted({(kind, "nmt_nfkc") for kind, _ in kinds})
            for kind, rule in kinds:
                for how, where in (("as is", path), ("cut", lines)):
                    peers[kind, rule, how] = got = run(SENTENCEPIECE.format(
                        path=str(where), vocab=chars + args.vocab, kind=kind, rule=rule, peak=PEAK), args.limit)
                    row(f"SentencePiece {kind}, {rule}, {how}", cell(got, args.limit))
            for kind in dict.fromkeys(HF_PEER[p] for p in presets):
                vocab = 2 * chars + args.vocab if kind == "wordpiece" else chars + args.vocab
                got = run(HF.format(path=str(path), vocab=vocab, kind=kind, peak=PEAK), args.peer_limit)
                row(f"HF tokenizers {kind}", cell(got, args.peer_limit))
            for preset in presets:
                vocab = 2 * chars + args.vocab if preset == "wordpiece" else chars + args.vocab
                peer = peers["unigram" if "unigram" in preset else "bpe", SP_RULE[preset], "cut"]
                whole = not args.no_whole and name != "random"  # (random bytes have no word the bounds cut)
                for label, options in [(preset, {})] + ([(preset + ", whole", WHOLE[preset])] if whole else []):
                    got = run(OURS.format(core=str(ROOT / "py_core"), path=str(path), preset=preset, vocab=vocab,
                                          options=options, peak=PEAK), args.limit)
                    row(label, cell(got, args.limit, peer))


if __name__ == "__main__":
    main()
