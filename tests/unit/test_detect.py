"""formats.detect: one reader tells a model file's kind from its content and loads it, for
the page's upload and the command line alike."""

from __future__ import annotations

import base64
import hashlib
import json
import warnings

import pytest

import subwordlab
from subwordlab.base.jsonio import ModelFileError
from subwordlab.formats.detect import kind_of, looks_like_rank_file, read_model

WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def _rank_file(extra: list[bytes]) -> bytes:
    tokens = [bytes([b]) for b in range(256)] + extra
    return b"".join(base64.b64encode(t) + b" %d\n" % i for i, t in enumerate(tokens))


def test_each_kind_is_told_from_its_content_and_loads_as_its_own_loader_does():
    ours = subwordlab.train(WORDS, preset="bpe", num_merges=6)
    text = subwordlab.to_json(ours)
    assert kind_of(text.encode()) == "ours"
    loaded = read_model(text.encode(), "m.json")
    assert loaded.kind == "ours" and subwordlab.to_json(loaded.tokenizer) == text

    hf = subwordlab.to_hf_json(subwordlab.train(WORDS, preset="byte_bpe", vocab_size=270))
    assert kind_of(hf) == "hf"
    loaded = read_model(hf, "tokenizer.json")
    assert loaded.kind == "hf"
    assert subwordlab.to_json(loaded.tokenizer) == subwordlab.to_json(subwordlab.from_hf_json(hf))

    ranks = _rank_file([b"lo", b"low"])
    assert kind_of(ranks) == "tiktoken" and looks_like_rank_file(ranks.decode())
    loaded = read_model(ranks, "mine.tiktoken", pattern="gpt2")
    assert loaded.kind == "tiktoken" and loaded.tokenizer.encode("low") == [257]
    assert loaded.tokenizer.encode("lowlow") == subwordlab.from_tiktoken(ranks, pattern="gpt2").encode("lowlow")


@pytest.mark.parametrize("data, message", [
    (b"", "'x' is empty: choose a Subword Lab .json"),
    (b"\xff\xfe{", "'x' cannot be loaded: the file is not UTF-8 text"),
    (b"{not json", "'x' cannot be loaded: the file is not valid JSON"),
    (b"[1, 2]", "'x' is JSON but not a model file"),
    (b'{"notes": 1}', "'x' is JSON but neither a Subword Lab model"),
    (b'{"model": {"type": "WordLevel"}, "added_tokens": []}', "'x' cannot be loaded: "),
])
def test_what_is_no_model_file_gets_one_message_naming_the_file(data, message):
    assert kind_of(data) in (None, "hf")
    with pytest.raises(ModelFileError, match=message.replace("[", r"\[")):
        read_model(data, "'x'")


def test_a_json_object_without_the_telling_keys_is_read_as_a_tokenizer_json_when_the_caller_says_so():
    hf = json.loads(subwordlab.to_hf_json(subwordlab.train(WORDS, preset="byte_bpe", vocab_size=270)))
    bare = {"version": hf["version"], "model": hf["model"], "decoder": hf["decoder"]}
    with pytest.raises(ModelFileError, match="neither a Subword Lab model"):
        read_model(json.dumps(bare), "t.json")
    assert read_model(json.dumps(bare), "t.json", json_kind="hf").kind == "hf"


def test_a_rank_file_that_is_not_openais_needs_its_pattern():
    with pytest.raises(ModelFileError, match="'m' cannot be loaded: .*not one of OpenAI's published files"):
        read_model(_rank_file([b"hi"]), "'m'")


def test_a_tokenizer_json_is_hashed_once_and_not_at_all_when_its_digest_is_given(monkeypatch):
    from subwordlab.formats import detect

    hf = subwordlab.to_hf_json(subwordlab.train(WORDS, preset="byte_bpe", vocab_size=270)).encode()
    assert read_model(hf).tokenizer.spec["source_sha256"] == hashlib.sha256(hf).hexdigest()
    # the page checks a well-known file's SHA-256 before it reads it: that digest is the one recorded
    monkeypatch.setattr(detect, "sha256_steps", lambda data: pytest.fail("hashed a second time"))
    assert read_model(hf, sha256="ab" * 32).tokenizer.spec["source_sha256"] == "ab" * 32


def test_loading_in_steps_leaves_the_warning_filters_alone_between_steps():
    # (the page runs other work between two steps of a big file's load: a filter set for the
    # load, and restored only at its end, would hide or restore warnings under that work)
    from subwordlab.base.events import drain
    from subwordlab.formats.detect import read_model_steps

    tok = subwordlab.train("low lower newest widest " * 50, preset="byte_bpe", vocab_size=280)
    hf = subwordlab.to_hf_json(tok).encode()
    hf = hf.replace(b'"merges"', b'"merges"' + b" " * (2 << 20))  # (big enough to be read in slices)
    before = list(warnings.filters)
    steps = read_model_steps(hf)
    seen = 0
    try:
        while True:
            next(steps)
            seen += 1
            assert warnings.filters == before
    except StopIteration as done:
        assert done.value.tokenizer.encode("lowest") == tok.encode("lowest")
    assert seen > 1 and warnings.filters == before
    assert drain(read_model_steps(hf)).kind == "hf"


def test_a_class_that_looks_like_a_set_operation_compiles_without_a_warning():
    from subwordlab.text.regex_compat import compile_stdlib

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compile_stdlib("[a&&b]+").findall("a&b c") == ["a&b"]  # (today's reading: the characters)
