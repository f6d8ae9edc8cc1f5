"""Helpers for the benchmarks: timing, peak memory in a fresh process, corpus paths.

Benchmarks print ratios against peers measured in the same run; they are not tests.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / "corpora"
sys.path.insert(0, str(ROOT / "py_core"))


def timed(fn, *args, repeat=1, **kwargs):
    """(best seconds over `repeat` runs, last result)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn(*args, **kwargs)
        best = min(best, time.perf_counter() - t)
    return best, result


def clocked(fn, *args, **kwargs):
    """(wall seconds, CPU seconds of this process, all threads, result) of one call."""
    w, c = time.perf_counter(), time.process_time()
    result = fn(*args, **kwargs)
    return time.perf_counter() - w, time.process_time() - c, result


_VMHWM = "[int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0] / 1024"


def _last_numbers(code, n):
    """The last ``n`` numbers printed by ``code`` run in a fresh interpreter."""
    prog = "import sys; sys.path.insert(0, %r); sys.path.insert(0, %r)\n%s\n" % (str(ROOT / "py_core"), str(ROOT / "bench"), code)
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True)
    return [float(x) for x in out.stdout.strip().splitlines()[-n:]]


def max_rss_mb(code):
    """Peak resident memory (MB) of `code` in a fresh interpreter (includes the interpreter).

    subtle: VmHWM from /proc, not getrusage's ru_maxrss, which Linux carries over from the
    parent across fork + exec (every child would report this benchmark's own peak)."""
    return _last_numbers(code + "\nprint(%s)" % _VMHWM, 1)[0]


def rss_growth_mb(setup, code):
    """How much the peak resident memory (MB) of a fresh interpreter grows while `code`
    runs, after `setup` (imports, reading the corpus) ran: the work's own memory, comparable
    between our pure-Python trainer and a native peer. Example: ``rss_growth_mb("x = 1",
    "y = bytearray(10**8)")`` -> about 100."""
    before, after = _last_numbers("%s\nimport gc; gc.collect()\nprint(%s)\n%s\nprint(%s)" % (setup, _VMHWM, code, _VMHWM), 2)
    return after - before


def peak_memory_mb(code):
    """Peak traced Python allocations (MB) of `code` run in a fresh interpreter."""
    prog = (
        "import sys, tracemalloc; sys.path.insert(0, %r); sys.path.insert(0, %r)\n"
        "tracemalloc.start()\n%s\n"
        "print(tracemalloc.get_traced_memory()[1] / 1e6)\n"
    ) % (str(ROOT / "py_core"), str(ROOT / "bench"), code)
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def report(rows, title):
    print(f"\n== {title}")
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")


def dump(path, data):
    Path(path).write_text(json.dumps(data, indent=2))


# -- the peers every training benchmark measures against (one definition each) ---------------
def hf_byte_bpe(text, vocab_size):
    """HF ``tokenizers``' BpeTrainer on GPT-2-style byte-level words (every byte in the alphabet)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator([text], trainers.BpeTrainer(
        vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    return tok


def sentencepiece_unigram(lines, vocab_size):
    """SentencePiece's Unigram trainer, one thread, no normalization, every character kept."""
    import io

    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=model, vocab_size=vocab_size, model_type="unigram",
        character_coverage=1.0, normalization_rule_name="identity", num_threads=1, minloglevel=2)
    return spm.SentencePieceProcessor(model_proto=model.getvalue())
