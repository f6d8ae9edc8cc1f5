"""The corpus is the user's bytes: the page adds no line break to an upload and the command
line folds no CRLF, so the same file gives the same model (and the model records the file's
SHA-256 and size) in the page and in CPython."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest
from fakedom import FakeFile
from test_web_corpus import started, upload

import subwordlab
from corpora import ROOT
from subwordlab_web.corpus_data import decode_upload, join_texts
from subwordlab_web.state import TrainSpec

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)

FILES = {
    "no_final_newline.txt": b"low lower newest\nwidest low lower\nlow",
    "crlf.txt": b"low lower\r\nnewest widest\r\n\r\nlow lower\r\n",
    "utf8_crlf_no_end.txt": "caf\u00e9 na\u00efve\r\ncaf\u00e9 caf\u00e9\r\nna\u00efve".encode(),
}
SPECS = [("byte_bpe", 270), ("bpe", 20), ("sentencepiece_bpe", 20)]


def page_model(name, data, preset, size):
    """The model JSON the page makes from this upload (file chooser -> corpus -> training)."""
    port, app = started()
    upload(port, FakeFile(name, data))
    assert app.state.corpus.text == data.decode("utf-8")  # nothing added, nothing folded
    app.state.set_spec(TrainSpec(preset, "vocab_size", size))
    port.settle()
    app.state.player.to_end()
    port.settle()
    tok, why = app.state.tokenizer_at_step()
    assert tok is not None, why
    return subwordlab.to_json(tok)


@pytest.mark.parametrize("preset, size", SPECS)
@pytest.mark.parametrize("name", list(FILES))
def test_the_page_trains_on_the_files_bytes(name, preset, size):
    data = FILES[name]
    model = page_model(name, data, preset, size)
    corpus = json.loads(model)["spec"]["corpus"]
    assert corpus["sha256"] == hashlib.sha256(data).hexdigest() and corpus["bytes"] == len(data)
    assert model == subwordlab.to_json(subwordlab.train(data.decode("utf-8"), preset, vocab_size=size))


def test_join_texts_adds_nothing_at_the_end():
    assert join_texts(["a"]) == "a" and join_texts(["a\r\n"]) == "a\r\n"
    assert join_texts(["a", "b"]) == "a\nb" and join_texts(["a\n", "b"]) == "a\nb" and join_texts(["a\r", "b"]) == "a\rb"
    assert decode_upload("x.txt", b"a\r\nb").text == "a\r\nb"


def cli(*args, stdin=b""):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py_core"), PYTHONIOENCODING="utf-8")
    p = subprocess.run([sys.executable, "-m", "subwordlab", *map(str, args)], input=stdin, capture_output=True,
                       env=env, timeout=300)
    assert p.returncode == 0, p.stderr.decode()
    return p.stdout


@pytest.mark.cpython_only
@pytest.mark.parametrize("preset, size", SPECS)
@pytest.mark.parametrize("name", list(FILES))
def test_the_command_line_gives_the_pages_model_for_the_same_file(tmp_path, name, preset, size):
    data = FILES[name]
    path = tmp_path / name
    path.write_bytes(data)
    out = tmp_path / "model.json"
    cli("train", path, "--preset", preset, "--vocab-size", size, "-q", "-o", out)
    from_cli = out.read_text(encoding="utf-8")
    assert hashlib.sha256(from_cli.encode()).hexdigest() == hashlib.sha256(page_model(name, data, preset, size).encode()).hexdigest()
    # stdin is read as bytes too
    cli("train", "--preset", preset, "--vocab-size", size, "-q", "-o", tmp_path / "stdin.json", stdin=data)
    assert (tmp_path / "stdin.json").read_text(encoding="utf-8") == from_cli


@pytest.mark.cpython_only
def test_encode_file_keeps_crlf_so_ids_decode_back_to_the_file(tmp_path):
    data = FILES["crlf.txt"]
    path = tmp_path / "crlf.txt"
    path.write_bytes(data)
    model = tmp_path / "m.json"
    cli("train", path, "--preset", "byte_bpe", "--vocab-size", 270, "-q", "-o", model)
    ids = [int(i) for i in cli("encode", "-m", model, "--file", path).split()]
    tok = subwordlab.load(model)
    assert tok.decode(ids).encode("utf-8") == data
    assert [int(i) for i in cli("encode", "-m", model, "--file", "-", stdin=data).split()] == ids


_SHAKESPEARE_LIKE = "First Citizen:\r\nBefore we proceed any further, hear me speak.\r\n" * 300  # > 8 KB


@pytest.mark.parametrize("data, whole, want", [
    ("hello world\r\n".encode("utf-16-le"), True, "UTF-16LE"),
    ("Grüße, café — naïve\n\tend".encode("utf-16-be"), True, "UTF-16BE"),
    (_SHAKESPEARE_LIKE.encode("utf-16-le"), True, "UTF-16LE"),  # only the first 8 KB are looked at
    ("a🦀b".encode("utf-16-le") * 3000, False, "UTF-16LE"),  # a head may end inside a surrogate pair
    ("日a".encode("utf-16-le"), True, "UTF-16LE"),  # half the units ASCII: enough
    ("hello".encode("utf-16-le")[:-1], True, None),  # a whole file of odd length
    ("hello".encode("utf-16"), True, None),  # a byte-order mark: read as UTF-16, nothing to say
    ("hello".encode("utf-32-le"), True, None),  # UTF-32: NULs in both halves
    ("日本語のテキスト".encode("utf-16-le"), True, None),  # no NUL at all: stays "not UTF-8"
    ("日本a".encode("utf-16-le"), True, None),  # fewer than half the units ASCII or Latin-1
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00", True, None),  # binary
    (b"hello\x00world!", True, None),  # UTF-8 with a NUL byte
    ("a\x01b\x1bc".encode("utf-16-le"), True, None),  # control characters: not text
    (b"\x00\xd8a\x00", True, None),  # a lone surrogate: not UTF-16
    (b"", True, None),
])
def test_utf16_without_a_byte_order_mark_is_named_only_when_unambiguous(data, whole, want):
    assert subwordlab.text.corpus.utf16_without_mark(data, whole) == want


@pytest.mark.cpython_only
def test_a_utf16_file_without_a_mark_is_named_in_the_page_and_on_the_command_line(tmp_path):
    """It was "a binary file" (the page) or "not UTF-8" (the command line; with only ASCII
    text the command line even trained on its NUL bytes); the corpus is still the file's
    bytes read as UTF-8, so it is refused, saying what it is and how to fix it."""
    data = "Article 1\r\nAll human beings are born free — égaux en dignité.\r\n".encode("utf-16-le")
    up = decode_upload("notepad.txt", data)
    assert up.problem == "utf16" and up.text == ""
    assert up.message().startswith("“notepad.txt” looks like UTF-16 (little-endian, as Windows writes it) without "
                                   "a byte-order mark, not UTF-8 text; save it as UTF-8")
    assert decode_upload("notepad.txt", data, lenient=True).text == data.decode("utf-8", "replace")
    for name, payload, order in (("le.txt", data, "UTF-16LE"), ("be.txt", "plain ASCII text".encode("utf-16-be"), "UTF-16BE")):
        path = tmp_path / name
        path.write_bytes(payload)
        for args in (("train", path, "--vocab-size", "300", "-o", tmp_path / "x.json"),
                     ("encode", "-m", tmp_path / "m.json", "--file", path)):
            if args[0] == "encode" and not (tmp_path / "m.json").exists():
                subwordlab.save(subwordlab.train("plain text", preset="byte_bpe", vocab_size=260), str(tmp_path / "m.json"))
            p = subprocess.run([sys.executable, "-m", "subwordlab", *map(str, args)], capture_output=True, text=True,
                               encoding="utf-8", timeout=300,
                               env=dict(os.environ, PYTHONPATH=str(ROOT / "py_core"), PYTHONIOENCODING="utf-8"))
            assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
            assert f"looks like UTF-16 ({'little' if order == 'UTF-16LE' else 'big'}-endian" in p.stderr, p.stderr
            assert f"iconv -f {order} -t UTF-8" in p.stderr and not (tmp_path / "x.json").exists()



def test_a_word_with_white_space_of_any_kind_is_refused_in_a_word_frequency_dict():
    """validate_word_counts refuses a word exactly when one of its characters is white space
    to str.isspace (checked by str.split, in C: a character-by-character check took 3 s of
    an 8 s training on a 600,000-word list), over every code point."""
    from subwordlab.text.corpus import CorpusError, validate_word_counts

    chars = [chr(code) for code in range(0x110000) if not 0xD800 <= code <= 0xDFFF]
    spaces = [c for c in chars if c.isspace()]
    kept = {c: 1 for c in chars if not c.isspace()}
    assert validate_word_counts(kept) == kept  # (every other character)
    kept = {f"a{c}b": 1 for c in chars[::97] if not c.isspace()}
    assert validate_word_counts(kept) == kept
    assert len(spaces) >= 25
    for c in spaces:
        for word in (c, f"a{c}", f"{c}b", f"a{c}b"):
            with pytest.raises(CorpusError, match="white space"):
                validate_word_counts({"low": 5, word: 1})
