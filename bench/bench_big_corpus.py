"""Speed on a big corpus (~1 GB, bench/make_big_corpus.py), all cores, against the peers on
the same cores, in one run: each measurement is a fresh process, timed (wall) with its peak
memory (the largest sum of the proportional set sizes of the process and its workers, so
pages forked workers share count once, sampled every 0.1 s from /proc).

1. Byte-level BPE to ``--vocab`` (32,000), GPT-2 pattern, "<|endoftext|>" special: ours
   (``subwordlab train --preset byte_bpe``) with 1 and 2 workers against HF ``tokenizers``'
   BpeTrainer (ByteLevel) on 2 threads (``RAYON_NUM_THREADS=2``).
2. SentencePiece-style Unigram to ``--unigram-vocab`` (32,000) on the first ``--unigram-mb``
   MB (100): ours (``sentencepiece_unigram``, 2 workers) against ``spm_train`` (the
   sentencepiece module's trainer, ``num_threads=2``).
3. Cold encoding with GPT-2's ranks (r50k_base, from build/reference_vocabs.py): ours
   (``subwordlab encode --file``, a fresh process: loading the model included) with 1 and 2
   workers against tiktoken's ``encode_ordinary`` (1 thread) and ``encode_ordinary_batch``
   (2 threads) over the file in 1 MB pieces cut at line ends, loading included; our ids are
   checked identical to tiktoken's on the first ``--check-mb`` MB (10).

Run: .venv/bin/python bench/make_big_corpus.py && .venv/bin/python bench/bench_big_corpus.py
     (a check of the script itself: make_big_corpus.py --mb 2 --out /tmp/c.txt, then
      bench_big_corpus.py --corpus /tmp/c.txt --vocab 2000 --unigram-vocab 2000 --unigram-mb 1 --check-mb 1)
Ratios are ours / peer (time, memory): lower is better for us.
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
SPECIAL = "<|endoftext|>"


# -- measuring a process ----------------------------------------------------------------------

def _tree_memory_kb(pid):
    """Memory (kB) of process ``pid`` and all its descendants, from /proc: the sum of their
    proportional set sizes (PSS: a page shared by forked workers counts once in all), or of
    their resident sizes where PSS is not readable."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                parent = int(fh.read().rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        total += _process_kb(p)
    return total


def _process_kb(pid):
    """PSS (else RSS) of one process in kB; 0 if it is gone."""
    for name, field in (("smaps_rollup", "Pss:"), ("status", "VmRSS:")):
        try:
            with open(f"/proc/{pid}/{name}") as fh:
                for line in fh:
                    if line.startswith(field):
                        return int(line.split()[1])
        except OSError:
            continue
    return 0


def measure(cmd, env=None, stdout=subprocess.DEVNULL):
    """Run ``cmd``: (wall seconds, peak MB of its process tree). Raises if it fails."""
    peak = [0]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=dict(os.environ, **(env or {})), stdout=stdout, stderr=subprocess.PIPE)

    def sample():
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_memory_kb(proc.pid))
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - start
    sampler.join()
    if proc.returncode:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{err.decode(errors='replace')[-2000:]}")
    return wall, peak[0] / 1024


def ours(*args):
    return [PY, "-m", "subwordlab", *map(str, args)]


def python(code):
    return [PY, "-c", code]


OUR_ENV = {"PYTHONPATH": str(ROOT / "py_core")}


def row(name, wall, mb, size_mb, peer=None):
    """One line of the table: wall, MB/s of the input, peak memory, ratios to ``peer``."""
    ratio = f"  {wall / peer[0]:5.2f}x time  {mb / peer[1]:5.2f}x memory" if peer else ""
    print(f"  {name:<34} {wall:8.1f} s  {size_mb / wall:7.2f} MB/s  {mb:8.0f} MB peak{ratio}", flush=True)


# -- the three benchmarks ---------------------------------------------------------------------

def bench_bpe(corpus, size_mb, vocab, tmp):
    print(f"\n== byte-level BPE to {vocab:,} on {size_mb:,.0f} MB (GPT-2 pattern, {SPECIAL})")
    hf = python(
        "import sys\nfrom tokenizers import Tokenizer, models, pre_tokenizers, trainers\n"
        "tok = Tokenizer(models.BPE())\ntok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)\n"
        f"trainer = trainers.BpeTrainer(vocab_size={vocab}, special_tokens=[{SPECIAL!r}], "
        "initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)\n"
        f"tok.train([{str(corpus)!r}], trainer)\ntok.save({str(tmp / 'hf.json')!r})\n")
    peer = measure(hf, {"RAYON_NUM_THREADS": "2", "TOKENIZERS_PARALLELISM": "true"})
    row("HF tokenizers, 2 threads", *peer, size_mb)
    for workers in (1, 2):
        got = measure(ours("train", corpus, "--preset", "byte_bpe", "--special-tokens", SPECIAL, "--vocab-size", vocab,
                           "--workers", workers, "-q", "-o", tmp / f"ours{workers}.json"), OUR_ENV)
        row(f"ours, {workers} worker{'s' * (workers > 1)}", *got, size_mb, peer)
    same = (tmp / "ours1.json").read_bytes() == (tmp / "ours2.json").read_bytes()
    print(f"  ours with 1 and 2 workers: {'the same model, byte for byte' if same else 'DIFFERENT MODELS'}")


def bench_unigram(corpus, vocab, slice_mb, tmp):
    part = tmp / "slice.txt"
    with open(corpus, "rb") as fh:
        data = fh.read(int(slice_mb * 10**6))
    data = data[:data.rfind(b"\n") + 1] or data
    part.write_bytes(data)
    size_mb = len(data) / 1e6
    print(f"\n== SentencePiece-style Unigram to {vocab:,} on the first {size_mb:,.1f} MB")
    spm = python(
        "import sentencepiece as spm\n"
        f"spm.SentencePieceTrainer.train(input={str(part)!r}, model_prefix={str(tmp / 'spm')!r}, vocab_size={vocab}, "
        "model_type='unigram', num_threads=2, input_sentence_size=0, minloglevel=2)\n")
    peer = measure(spm)
    row("spm_train, num_threads=2", *peer, size_mb)
    got = measure(ours("train", part, "--preset", "sentencepiece_unigram", "--vocab-size", vocab, "--workers", 2, "-q",
                       "-o", tmp / "unigram.json"), OUR_ENV)
    row("ours, 2 workers", *got, size_mb, peer)


def bench_encode(corpus, size_mb, check_mb, tmp):
    print(f"\n== cold encoding of {size_mb:,.0f} MB with GPT-2's ranks (r50k_base), loading included")
    spec = importlib.util.spec_from_file_location("reference_vocabs", ROOT / "build" / "reference_vocabs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = module.ensure()
    ranks = folder / "r50k_base.tiktoken"
    model = tmp / "r50k.json"
    subprocess.run(ours("import", "--tiktoken", ranks, "-o", model), env=dict(os.environ, **OUR_ENV), check=True,
                   capture_output=True)
    tiktoken_env = {"TIKTOKEN_CACHE_DIR": str(folder)}
    pieces = (f"import tiktoken\nenc = tiktoken.get_encoding('r50k_base')\n"
              f"def pieces():\n    with open({str(corpus)!r}, encoding='utf-8', newline='') as fh:\n"
              "        while True:\n            block = fh.read(1 << 20) + fh.readline()\n"
              "            if not block: return\n            yield block\n")
    one = measure(python(pieces + "n = 0\nfor p in pieces(): n += len(enc.encode_ordinary(p))\nprint(n)"), tiktoken_env)
    row("tiktoken, 1 thread", *one, size_mb)
    two = measure(python(pieces + "import itertools\nn, it = 0, pieces()\nwhile True:\n"
                                  "    batch = list(itertools.islice(it, 16))\n    if not batch: break\n"
                                  "    n += sum(map(len, enc.encode_ordinary_batch(batch, num_threads=2)))\nprint(n)"), tiktoken_env)
    row("tiktoken, 2 threads (batch)", *two, size_mb)
    for workers in (1, 2):
        got = measure(ours("encode", "-m", model, "--file", corpus, "--special-as-text", "--workers", workers), OUR_ENV)
        row(f"ours, {workers} worker{'s' * (workers > 1)} (vs 1 thread)", *got, size_mb, one)
        if workers == 2:
            print(f"  ours, 2 workers / tiktoken 2 threads: {got[0] / two[0]:.2f}x time")
    # our ids are tiktoken's (on the first check_mb MB)
    head = tmp / "head.txt"
    with open(corpus, "rb") as fh:
        data = fh.read(int(check_mb * 10**6))
    head.write_bytes(data[:data.rfind(b"\n") + 1] or data)
    mine = subprocess.run(ours("encode", "-m", model, "--file", head, "--special-as-text", "--workers", 2),
                          env=dict(os.environ, **OUR_ENV), check=True, capture_output=True, text=True).stdout.split()
    theirs = subprocess.run(python(f"import tiktoken\nenc = tiktoken.get_encoding('r50k_base')\n"
                                   f"print(' '.join(map(str, enc.encode_ordinary(open({str(head)!r}, encoding='utf-8', "
                                   "newline='').read()))))"), env=dict(os.environ, **tiktoken_env), check=True,
                            capture_output=True, text=True).stdout.split()
    print(f"  ids of the first {len(data) / 1e6:.1f} MB: {'identical to tiktoken' if mine == theirs else 'DIFFERENT from tiktoken'}"
          f" ({len(mine):,} ids)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=ROOT / "build" / "_cache" / "big_corpus.txt",
                    help="the corpus (default: what bench/make_big_corpus.py writes)")
    ap.add_argument("--vocab", type=int, default=32000, help="byte-level BPE's vocabulary (32000)")
    ap.add_argument("--unigram-vocab", type=int, default=32000, help="Unigram's vocabulary (32000)")
    ap.add_argument("--unigram-mb", type=float, default=100, help="Unigram trains on the corpus's first MB (100)")
    ap.add_argument("--check-mb", type=float, default=10, help="ids compared with tiktoken's on the first MB (10)")
    ap.add_argument("--only", default="bpe,unigram,encode", help="which: bpe,unigram,encode")
    args = ap.parse_args(argv)
    if not args.corpus.exists():
        raise SystemExit(f"no corpus at {args.corpus}: run bench/make_big_corpus.py first (--mb for a smaller one)")
    size_mb = args.corpus.stat().st_size / 1e6
    print(f"corpus {args.corpus}: {size_mb:,.1f} MB; {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    only = set(args.only.split(","))
    with tempfile.TemporaryDirectory(prefix="bench_big_") as tmp:
        tmp = Path(tmp)
        if "bpe" in only:
            bench_bpe(args.corpus, size_mb, args.vocab, tmp)
        if "unigram" in only:
            bench_unigram(args.corpus, args.unigram_vocab, args.unigram_mb, tmp)
        if "encode" in only:
            bench_encode(args.corpus, size_mb, args.check_mb, tmp)


if __name__ == "__main__":
    main()
