"""The runtime's floor: the page's three long trainings (tests/e2e/test_playground.LONG_RUNS)
in CPython and in Pyodide on Node, the same code, no page, no UI, in one run.

Node runs V8, Chromium's WebAssembly engine, so the Pyodide column is what the same Python
costs in a JavaScript runtime with nothing else around it, with no browser needed. Node 20's
V8 is older than a current Chromium's, whose Pyodide runs these 5-20 % faster: the floor in
the browser itself is bench/bench_page.py's "page unsliced" figure (the page's own runtime,
no UI), which also measures the page's compute worker against it.

Run: .venv/bin/python bench/bench_runtime_floor.py [--repeat 3]
     (after python build/build_site.py: the runtime and wheels come from dist/site)

Each run is timed in its runtime after one warm-up training (subwordlab_web.session.warm_up,
as the page's worker does); median of --repeat runs. Ratios are Pyodide / CPython.
"""

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# case: (preset, corpus file, vocabulary size), as tests/e2e/test_playground.LONG_RUNS
CASES = {
    "byte_bpe Shakespeare 4,000": ("byte_bpe", "tinyshakespeare.txt", 4000),
    "sentencepiece_unigram Shakespeare 4,000": ("sentencepiece_unigram", "tinyshakespeare.txt", 4000),
    "byte_bpe udhr_many 8,000": ("byte_bpe", "udhr_many.txt", 8000),
}

# the timed script: run in both runtimes; prints one JSON line {case: [seconds, ...]}
SCRIPT = '''
import json, sys, time
from pathlib import Path
from subwordlab.recording import Recording
from subwordlab_web.session import warm_up

cases, repeat = json.loads(sys.argv[1]), int(sys.argv[2])
warm_up()
out = {}
for name, (preset, corpus, size) in cases.items():
    text = (Path("corpora") / corpus).read_text(encoding="utf-8")
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        Recording(text, preset, progress=True, vocab_size=size).run()
        times.append(time.perf_counter() - t0)
    out[name] = times
print(json.dumps(out))
'''


def run(command: list[str]) -> dict:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per case and runtime (median)")
    args = ap.parse_args()
    script = ROOT / "build" / "_cache" / "runtime_floor.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(SCRIPT, encoding="utf-8")
    argv = [json.dumps(CASES), str(args.repeat)]
    env_py = [sys.executable, "-c", f"import sys; sys.path[:0] = ['py_core', 'web']; sys.argv = [{str(script)!r}] + sys.argv[1:]; "
              f"exec(open({str(script)!r}).read())", *argv]
    cpython = run(env_py)
    pyodide = run(["node", str(ROOT / "bench" / "pyodide_run.mjs"), str(script), *argv])
    print(f"{'training':42} {'CPython':>9} {'Pyodide/Node':>13} {'ratio':>7}   (median of {args.repeat})")
    for name in CASES:
        c, p = statistics.median(cpython[name]), statistics.median(pyodide[name])
        print(f"{name:42} {c:8.2f}s {p:12.2f}s {p / c:6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
