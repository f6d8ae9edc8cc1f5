"""The command line, end to end in subprocesses: every command, errors as one line without
a traceback, and Ctrl-C (SIGINT) during a long training run leaving no file behind."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import subwordlab
from corpora import CORPORA, UDHR

pytestmark = pytest.mark.cpython_only

ROOT = Path(__file__).resolve().parents[2]
ENG = CORPORA / "udhr" / "udhr_eng.txt"
SHAKESPEARE = CORPORA / "tinyshakespeare.txt"


def run(*args, input=None, cwd=None, check=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py_core"), PYTHONIOENCODING="utf-8")
    env.pop("SUBWORDLAB_DEBUG", None)
    p = subprocess.run([sys.executable, "-m", "subwordlab", *map(str, args)], input=input, capture_output=True,
                       text=True, encoding="utf-8", env=env, cwd=cwd, timeout=300)
    assert "Traceback" not in p.stderr, p.stderr
    if check is not None:
        assert p.returncode == check, p.stderr
    return p


def one_error_line(p, fragment, code=1):
    assert p.returncode == code
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("subwordlab: error:"), p.stderr
    assert fragment in lines[0], lines[0]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "model.json"
    p = run("train", ENG, "--preset", "byte_bpe", "--vocab-size", 600, "--special-tokens", "<|endoftext|>", "-o", path, check=0)
    assert "merges/s" in p.stderr and "ETA" in p.stderr and "wrote" in p.stderr
    return path


def test_progress_is_whole_lines_in_a_log_and_one_redrawn_line_on_a_terminal(tmp_path, capsys):
    """Into a pipe or a file (a CI log) progress is whole lines, never a carriage return
    (every redraw of the terminal's bar used to land in the log, glued by '\\r')."""
    p = run("train", ENG, "--preset", "sentencepiece_unigram", "--vocab-size", 300, "-o", tmp_path / "m.json", check=0)
    assert "\r" not in p.stderr
    lines = p.stderr.splitlines()
    assert lines[-1].startswith("wrote ") and any(line.startswith("done: 300 tokens") for line in lines)
    assert {line.split(":")[0] for line in lines} >= {"alphabet", "em", "prune", "done"}
    from subwordlab.cli.commands import _Progress

    bar = _Progress(True, tty=True)
    bar.show("count: 1", force=True)
    bar.show("count: 2")  # (within 0.2 s of the last: not drawn)
    bar.done("done: 3 tokens")
    assert capsys.readouterr().err == "\rcount: 1\rdone: 3 tokens\n"


def test_train_writes_our_model_file(model):
    doc = json.loads(model.read_text(encoding="utf-8"))
    assert doc["format"] == "subwordlab" and doc["spec"]["preset"] == "byte_bpe" and doc["spec"]["vocab_size"] == 600
    assert doc["special_tokens"]["tokens"] == [{"content": "<|endoftext|>", "id": 0}]


def test_train_from_stdin_word_counts_and_preset_options(tmp_path):
    out = tmp_path / "m.json"
    run("train", "--word-counts", "--preset", "bpe", "--num-merges", 8, "-q", "-o", out,
        input="low 5\nlower 2\nnewest 6\nwidest 3\n", check=0)
    p = run("encode", "-m", out, "lowest", "--tokens", check=0)
    assert p.stdout.strip() == '"low" "est</w>"'
    out2 = tmp_path / "m2.json"
    run("train", "-", "--preset", "sentencepiece_bpe", "--vocab-size", 400, "--byte-fallback", "--no-add-dummy-prefix",
        "--split-digits", "--special-tokens", "<s> </s>", "-q", "-o", out2, input=ENG.read_text(encoding="utf-8"), check=0)
    spec = json.loads(out2.read_text(encoding="utf-8"))["spec"]
    assert spec["byte_fallback"] is True and spec["add_dummy_prefix"] is False and spec["split_digits"] is True
    assert spec["special_tokens"] == ["<s>", "</s>"]


def test_train_says_when_the_corpus_cannot_fill_the_vocabulary(tmp_path):
    p = run("train", "-", "--preset", "unigram", "--vocab-size", 100, "-q", "-o", tmp_path / "u.json",
            input="the cat sat on the mat\n", check=0)
    assert "note: stopped after 15 of the 100 tokens asked: no more pieces are worth keeping" in p.stderr
    p = run("train", ENG, "--preset", "bpe", "--num-merges", 50, "-q", "-o", tmp_path / "b.json", check=0)
    assert "note:" not in p.stderr


def test_train_errors_are_one_line(tmp_path):
    one_error_line(run("train", tmp_path / "missing.txt", "--vocab-size", 300, "-o", tmp_path / "x.json"), "cannot read")
    one_error_line(run("train", ENG, "--preset", "bpe", "--num-merges", 5, "--pattern", "gpt2", "-o", tmp_path / "x.json"),
                   "--pattern is not an option of preset 'bpe'")
    one_error_line(run("train", ENG, "-o", tmp_path / "x.json"), "give --vocab-size N or --num-merges N")
    one_error_line(run("train", ENG, "--preset", "byte_bpe", "--vocab-size", 10, "-o", tmp_path / "x.json"),
                   "smaller than the starting vocabulary")
    one_error_line(run("train", ENG, "--preset", "byte_bpe", "--vocab-size", 300, "--top-k", "many", "-o", tmp_path / "x.json"),
                   "--top-k takes an integer")
    p = run("train", ENG, "--preset", "nope", "--vocab-size", 3)
    assert p.returncode == 2 and "invalid choice" in p.stderr
    assert not list(tmp_path.iterdir())


def test_encode_decode_and_streaming(model, tmp_path):
    ids = run("encode", "-m", model, "Everyone has the right to life.", check=0).stdout.split()
    text = run("decode", "-m", model, *ids, check=0).stdout
    assert text == "Everyone has the right to life.\n"
    assert run("decode", "-m", model, input=" ".join(ids), check=0).stdout == text
    # a big file, streamed, equals encoding the whole text
    big = tmp_path / "big.txt"
    body = "".join(p.read_text(encoding="utf-8") for p in UDHR)
    big.write_text(body, encoding="utf-8")
    streamed = run("encode", "-m", model, "--file", big, check=0).stdout.split()

    tok = subwordlab.load(model)
    assert list(map(int, streamed)) == tok.encode(body)
    # special tokens follow the policy
    one_error_line(run("encode", "-m", model, "a<|endoftext|>b"), "special token '<|endoftext|>'")
    assert run("encode", "-m", model, "<|endoftext|>", "--allow-special", check=0).stdout.split() == ["0"]
    assert len(run("encode", "-m", model, "<|endoftext|>", "--special-as-text", check=0).stdout.split()) > 1
    one_error_line(run("decode", "-m", model, "12", "x"), "'x' is not an id")
    one_error_line(run("decode", "-m", model, "999999"), "not in the vocabulary")


def test_stats_table_and_json(model):
    p = run("stats", "-m", model, *UDHR[:2], "--text", "en=cat", "--text", "ko=고양이", "--reference", "en", "--d-model", 1024,
            check=0)
    lines = p.stdout.splitlines()
    assert lines[0].split()[:3] == ["text", "tokens", "chars"] and "premium" in lines[0].split()
    assert any(line.startswith("en ") for line in lines) and "embedding parameters V*d = 600 x 1,024 = 614,400" in p.stdout
    assert any(line.startswith("all texts ") for line in lines)  # the pooled line
    data = json.loads(run("stats", "-m", model, "--text", "en=cat", "--text", "ko=고양이", "--json", check=0).stdout)
    assert data["texts"]["ko"]["bytes"] == 9 and data["texts"]["en"]["parity"] == data["texts"]["en"]["premium"] == 1.0
    assert data["all_texts"]["bytes"] == 12 and data["all_texts"]["alpha"] == 2.5
    one_error_line(run("stats", "-m", model), "give files or --text")
    one_error_line(run("stats", "-m", model, "--text", "en=cat", "--reference", "de"), "--reference 'de'")


def test_inspect_every_stage(model):
    p = run("inspect", "-m", model, "Héllo  world", check=0)
    for word in ("normalized", "pre-tokens", "tokens", "chars 0-1", "bytes", "decoded", "round trip  ok"):
        assert word in p.stdout
    data = json.loads(run("inspect", "-m", model, "Héllo", "--json", check=0).stdout)
    assert data["round_trip"] is True and data["tokens"][0]["start"] == 0 and data["pre_tokens"][0]["piece"] == "HÃ©llo"


def test_vocab_listing(model):
    p = run("vocab", "-m", model, "--limit", 3, check=0)
    assert p.stdout.splitlines()[1].split()[:2] == ["0", "'<|endoftext|>'"]


def test_export_and_import_hf(model, tmp_path):
    from tokenizers import Tokenizer as HF

    out = tmp_path / "tokenizer.json"
    p = run("export", "--hf", "-m", model, "-o", out, check=0)
    assert "warning" in p.stderr  # special tokens are always special in HF
    hf = HF.from_file(str(out))
    text = ENG.read_text(encoding="utf-8")[:2000]
    ids = run("encode", "-m", model, text, check=0).stdout.split()
    assert hf.encode(text, add_special_tokens=False).ids == list(map(int, ids))
    back = tmp_path / "back.json"
    run("import", "--hf", out, "-o", back, check=0)
    assert run("encode", "-m", back, text, check=0).stdout.split() == ids
    # -m reads a tokenizer.json as it is (formats.detect), and import needs no flag
    assert run("encode", "-m", out, text, check=0).stdout.split() == ids
    again = tmp_path / "again.json"
    run("import", out, "-o", again, check=0)
    assert again.read_bytes() == back.read_bytes()
    # errors
    one_error_line(run("import", "--tiktoken", out, "-o", tmp_path / "x.json"), "leave out --tiktoken")
    one_error_line(run("import", back, "-o", tmp_path / "x.json"), "is a Subword Lab model file already")
    eow = tmp_path / "eow.json"
    run("train", "--word-counts", "--num-merges", 3, "-q", "-o", eow, input="low 5\nlower 2\n", check=0)
    one_error_line(run("export", "--hf", "-m", eow, "-o", tmp_path / "t2.json"), "end_of_word=None")
    assert not (tmp_path / "t2.json").exists()
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": "1.0", "model": {"type": "WordLevel"}}')
    one_error_line(run("import", "--hf", bad, "-o", tmp_path / "x.json"), "model type 'WordLevel' is not supported")


def test_bad_model_file_is_one_line(tmp_path):
    bad = tmp_path / "m.json"
    bad.write_text('{"format": "subwordlab", "version": 1')
    one_error_line(run("encode", "-m", bad, "x"), "not valid JSON")
    # another file given by mistake (a program, a text file): what -m takes
    program = tmp_path / "program"
    program.write_bytes(Path(sys.executable).resolve().read_bytes()[:4096])
    for wrong, problem in ((program, "is not UTF-8"), (Path(__file__), "is not valid JSON")):
        p = run("encode", "-m", wrong, "x")
        one_error_line(p, problem)
        one_error_line(p, "; -m takes a model file written by subwordlab train -o")
    one_error_line(run("encode", "-m", tmp_path / "nope.json", "x"), "cannot read")


@pytest.mark.parametrize("command", ["train", "encode", "decode", "stats", "inspect", "vocab", "export", "import"])
def test_help_per_command_has_an_example(command):
    p = run(command, "--help", check=0)
    assert "example" in p.stdout and f"subwordlab {command}" in p.stdout


def test_help_lists_every_preset_option():

    text = run("train", "--help", check=0).stdout
    for options in subwordlab.OPTIONS.values():
        for name in options:
            assert "--" + name.replace("_", "-") in text


@pytest.mark.slow
def test_ctrl_c_during_training_writes_nothing(tmp_path):
    out = tmp_path / "model.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py_core"))
    args = [sys.executable, "-m", "subwordlab", "train", SHAKESPEARE, CORPORA / "taylorswift.txt", *UDHR,
            "--preset", "bpe", "--end-of-word", "none", "--vocab-size", 60000, "-o", out]
    p = subprocess.Popen(list(map(str, args)), stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    # wait until the merge loop runs (the progress bar shows merges/s), then press Ctrl-C
    seen, deadline = "", time.monotonic() + 120
    while "merges/s" not in seen and time.monotonic() < deadline:
        seen += os.read(p.stderr.fileno(), 4096).decode("utf-8", "replace")
    assert "merges/s" in seen
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted; nothing was written" in err and "Traceback" not in err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_files_are_read_as_the_page_reads_them(model, tmp_path):
    """UTF-16 and UTF-32 files with a byte-order mark train and encode like their UTF-8
    text (the page reads them so too); a file in another encoding is refused with the
    byte's real position in the file (not its position in a read buffer) and what to do."""
    text = "Article 1\r\nAll human beings are born free — égaux en dignité.\r\n" * 400  # > 8 KB, CRLF kept
    utf8 = tmp_path / "utf8.txt"
    utf8.write_bytes(text.encode("utf-8"))
    hashes = set()
    for name, data in [("utf8.txt", text.encode("utf-8")), ("bom8.txt", text.encode("utf-8-sig")),
                       ("u16le.txt", text.encode("utf-16")), ("u16be.txt", b"\xfe\xff" + text.encode("utf-16-be")),
                       ("u32.txt", text.encode("utf-32"))]:
        path = tmp_path / name
        path.write_bytes(data)
        out = tmp_path / f"{name}.json"
        run("train", path, "--preset", "byte_bpe", "--vocab-size", 300, "-q", "-o", out, check=0)
        doc = json.loads(out.read_text(encoding="utf-8"))
        hashes.add(json.dumps(doc["model"], sort_keys=True))
        # encoding the file (streamed) gives the ids of its text
        ids = run("encode", "-m", model, "--file", path, check=0).stdout.split()
        assert ids == run("encode", "-m", model, "--file", utf8, check=0).stdout.split()
    assert len(hashes) == 1
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes(("x" * 10_000 + "café").encode("latin-1"))
    one_error_line(run("train", latin1, "--vocab-size", 300, "-o", tmp_path / "x.json"),
                   "latin1.txt is not UTF-8 text: byte 0xE9 at position 10,003 is not valid UTF-8; save it as UTF-8")
    # the streamed encode names the same byte (it used to say only "is not UTF-8 text")
    one_error_line(run("encode", "-m", model, "--file", latin1),
                   "latin1.txt is not UTF-8 text: byte 0xE9 at position 10,003 is not valid UTF-8; save it as UTF-8")
    # a real program (the interpreter running this test) is a binary file, as the page says,
    # not "not UTF-8 ... for a Windows Latin-1 file"
    program = tmp_path / "program"
    program.write_bytes(Path(sys.executable).resolve().read_bytes()[:20_000])
    nul = program.read_bytes().find(b"\x00")
    for args in (("train", program, "--vocab-size", 300, "-o", tmp_path / "x.json"), ("encode", "-m", model, "--file", program)):
        one_error_line(run(*args), f"program looks like a binary file, not text (a NUL byte at position {nul:,}); give a text file")
    one_error_line(run("encode", "-m", model, "--file", "-", input=program.read_bytes().decode("latin-1")),
                   "standard input looks like a binary file, not text")
    # the position is the file's, across blocks and a character cut by a block's end
    from subwordlab.cli.commands import _first_bad_byte

    cut = tmp_path / "cut.txt"
    cut.write_bytes("aé".encode() + b"\xffz")
    assert [_first_bad_byte(cut, "utf-8", block=k) for k in (1, 2, 3, 64)] == [(b"\xff", 3)] * 4
    cut.write_bytes("aé".encode()[:2] + b"z")  # (a lead byte, then no continuation)
    assert _first_bad_byte(cut, "utf-8", block=1) == (b"\xc3", 1)
