"""All cores in the command line (`--workers N`, parallel.py): a corpus cut into many chunks
and counted or encoded by worker processes gives byte for byte the one-process result; the
progress is one bar over the inputs' bytes; where there are no processes (Pyodide) or one
worker is asked for, everything runs in this process; the core imports no multiprocessing."""

import os
import subprocess
import sys

import pytest

from corpora import CORPORA, ROOT, UDHR
from subwordlab import counts
from subwordlab.base import parallel
from subwordlab.cli import main
from subwordlab.cli.commands import _Progress

pytestmark = pytest.mark.cpython_only  # worker processes

SHAKESPEARE = CORPORA / "tinyshakespeare.txt"


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 10,000 characters (4 Mi by default), so the test corpora make dozens."""
    monkeypatch.setattr(counts, "CHUNK_CHARS", 10_000)
    monkeypatch.setattr(parallel, "ENCODE_CHUNK_CHARS", 5_000)


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


@pytest.mark.parametrize("preset, target, options", [
    ("byte_bpe", ("--vocab-size", 500), ("--special-tokens", "<|endoftext|>")),
    ("sentencepiece_unigram", ("--vocab-size", 1500), ()),
    ("bpe", ("--num-merges", 100), ()),
    ("wordpiece", ("--vocab-size", 1500), ("--lowercase",)),
])
def test_training_with_workers_is_byte_identical_to_one_process(tmp_path, capsys, small_chunks, preset, target, options):
    # a corpus of several documents, one with special tokens between its documents
    joined = tmp_path / "joined.txt"
    joined.write_text("<|endoftext|>".join(p.read_text(encoding="utf-8") for p in UDHR[:3]), encoding="utf-8")
    files = [SHAKESPEARE, joined, *UDHR[3:]] if "unigram" not in preset else [joined, *UDHR[3:]]  # (Unigram: slower)
    models = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}.json"
        run(capsys, "train", *files, "--preset", preset, *target, *options, "--workers", workers, "-o", out)
        models.append(out.read_bytes())
    assert models[0] == models[1]
    # and so are the counts files
    for workers in (1, 2):
        run(capsys, "count", *files, "--preset", preset, *options, "--workers", workers, "-q", "-o", tmp_path / f"c{workers}.json")
    assert (tmp_path / "c1.json").read_bytes() == (tmp_path / "c2.json").read_bytes()


def test_one_progress_bar_over_the_inputs_bytes(tmp_path, capsys, small_chunks, monkeypatch):
    """Every chunk's end moves the one bar: bytes counted of the inputs' total, never past it."""
    monkeypatch.setattr(_Progress, "LOG_EVERY", 0.0)  # (a log line at every report)
    _, err = run(capsys, "count", SHAKESPEARE, *UDHR, "--preset", "byte_bpe", "--workers", 2, "-o", tmp_path / "c.json")
    total = sum(p.stat().st_size for p in [SHAKESPEARE, *UDHR]) / 1e6
    bars = [line for line in err.splitlines() if line.startswith("count: [")]
    done = [float(line.split("] ")[1].split(" MB")[0]) for line in bars]
    assert len(bars) > 10 and done == sorted(done) and done[-1] == pytest.approx(total, abs=0.05)
    assert all(f"/{total:,.1f} MB" in line for line in bars)
    assert [line for line in err.splitlines() if " of 7 inputs in " in line and "(2 workers)" in line]


@pytest.mark.parametrize("preset, options", [("byte_bpe", ("--special-tokens", "<|endoftext|>")),
                                             ("sentencepiece_bpe", ()), ("wordpiece", ())])
def test_encoding_with_workers_prints_what_one_process_prints(tmp_path, capsys, small_chunks, preset, options):
    model = tmp_path / "m.json"
    target = ("--vocab-size", 1500) if preset != "byte_bpe" else ("--vocab-size", 400)
    run(capsys, "train", *UDHR, "--preset", preset, *target, *options, "-q", "-o", model)
    text = tmp_path / "text.txt"
    text.write_text("<|endoftext|>".join(p.read_text(encoding="utf-8") for p in [SHAKESPEARE, *UDHR])[:400_000],
                    encoding="utf-8")
    policy = ("--allow-special",) if preset == "byte_bpe" else ()
    for as_tokens in ((), ("--tokens",)):
        one, _ = run(capsys, "encode", "-m", model, "--file", text, *policy, *as_tokens, "--workers", 1)
        two, _ = run(capsys, "encode", "-m", model, "--file", text, *policy, *as_tokens, "--workers", 2)
        assert one == two and len(one.split()) > 50_000


def test_without_processes_workers_run_here(tmp_path, capsys, small_chunks, monkeypatch):
    """In Pyodide (no processes) `--workers 2` runs in this process, with the same result."""
    run(capsys, "train", SHAKESPEARE, "--preset", "byte_bpe", "--vocab-size", 300, "--workers", 1, "-o", tmp_path / "a.json")
    monkeypatch.setattr(parallel, "processes_available", lambda: False)
    started = []
    monkeypatch.setattr("concurrent.futures.ProcessPoolExecutor", lambda *a, **k: started.append(1))
    run(capsys, "train", SHAKESPEARE, "--preset", "byte_bpe", "--vocab-size", 300, "--workers", 2, "-o", tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes() and not started


def test_a_worker_error_is_one_line_and_workers_must_be_positive(tmp_path, capsys, small_chunks):
    bad = tmp_path / "eow.txt"
    bad.write_text(SHAKESPEARE.read_text(encoding="utf-8")[:100_000] + " a</w>b", encoding="utf-8")
    assert main(["train", str(bad), "--preset", "bpe", "--num-merges", "5", "--workers", "2", "-o", str(tmp_path / "m.json")]) == 1
    assert "the word 'a</w>b' contains the end-of-word marker" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["train", str(bad), "--num-merges", "5", "--workers", "0", "-o", str(tmp_path / "m.json")])
    assert stop.value.code == 2 and "at least 1" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


def test_the_core_imports_no_multiprocessing_and_no_dask():
    code = ("import sys, subwordlab, subwordlab.cli, subwordlab.counts, subwordlab.base.parallel, subwordlab.dask_counts; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('multiprocessing', 'concurrent', 'dask', 'distributed')))")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py_core"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.strip() == "[]"
