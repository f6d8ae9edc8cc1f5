"""A precompiled charsmap from a file (a tokenizer.json's ``Precompiled``, our model file):
whatever its bytes, reading it either fails with one message or gives a table that
normalizes any text, in time linear in the text. (Its agreement with SentencePiece's own
normalizer: test_rules_spm.py.)"""

import base64
import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from subwordlab.base.jsonio import ModelFileError
from subwordlab.pipeline.normalizers import Precompiled
from subwordlab.text.charsmap import CharsMap, spm_nfkc


@settings(max_examples=examples(200), deadline=None)
@given(units=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=64), texts=st.binary(max_size=64),
       text=st.text(max_size=40))
def test_any_bytes_read_as_a_table_or_refused_never_crash(units, texts, text):
    blob = struct.pack(f"<I{len(units)}I", 4 * len(units), *units) + texts
    table = CharsMap(blob)  # (a whole number of units: always a table, maybe a meaningless one)
    out = table.normalize(text)
    assert isinstance(out, str)
    assert "".join(u[0] for u in table.apply([(c, i, i + 1) for i, c in enumerate(text)])) == out


@pytest.mark.parametrize("blob, message", [(b"", "4 bytes"), (b"\x08\x00\x00\x00\x01", "says its trie has 8"),
                                           (b"\x03\x00\x00\x00abc", "whole number"), (b"\x00\x00\x00\x00", "says its trie has 0")])
def test_a_damaged_table_is_refused_with_what_is_wrong(blob, message):
    with pytest.raises(ValueError, match=message):
        CharsMap(blob)


def test_a_long_text_costs_linear_time():
    """A key's walk stops where the trie does: 100,000 marks after a letter (the longest
    crafted run a key could start) are walked once each, not once per position."""
    table = spm_nfkc()
    text = "a" + "\u0301" * 100_000
    assert table.normalize(text) == "\u00e1" + "\u0301" * 99_999
    calls = []
    walk = table._walk
    table._walk = lambda node, ch: calls.append(1) or walk(node, ch)
    try:
        table.normalize(("a\u0301" * 5 + "x") * 2_000)
    finally:
        del table._walk
    assert len(calls) < 30_000


def test_our_file_names_the_built_in_table_and_holds_any_other():
    """Our model file names spm's nfkc table (a few bytes, not 240 KB); a table read from a
    tokenizer.json that is not it is kept whole, and both come back equal."""
    tok = subwordlab.train("ｈｅｌｌｏ ﬁ world\n" * 20, preset="sentencepiece_bpe", vocab_size=30, rules="sentencepiece")
    ours = subwordlab.to_json(tok)
    assert '"sentencepiece nfkc"' in ours and len(ours) < 20_000
    assert subwordlab.from_json(ours).encode("ｈｅｌｌｏ ﬁ") == tok.encode("ｈｅｌｌｏ ﬁ")
    # a table of one key: "x" -> "y"
    other = _one_key_table(b"x", b"y")
    n = Precompiled(other)
    assert not n.built_in and n.normalize_str("axb") == "ayb"
    doc = json.loads(ours)
    doc["normalizer"] = {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(other).decode()}
    again = subwordlab.from_json(json.dumps(doc))
    assert again.normalizer.normalize_str("xx") == "yy"
    assert json.loads(subwordlab.to_json(again))["normalizer"]["precompiled_charsmap"] == doc["normalizer"]["precompiled_charsmap"]
    doc["normalizer"] = {"type": "Precompiled", "table": "nfkc of 2030"}
    with pytest.raises(ModelFileError, match="the only built-in table is 'sentencepiece nfkc'"):
        subwordlab.from_json(json.dumps(doc))


def _one_key_table(key: bytes, value: bytes) -> bytes:
    """A darts-clone trie holding one one-byte key, and its replacement."""
    assert len(key) == 1
    b = key[0]
    # unit 0: the root, children at offset 1 (0 ^ 1 ^ b is the child); the child: label b,
    # a leaf, its children (the value unit) at offset child ^ 3 -> position 3 (bit 31 set)
    child = 1 ^ b
    units = [0] * max(child + 1, 4)
    units[0] = 1 << 10
    units[child] = b | (1 << 8) | ((child ^ 3) << 10)
    units[3] = (1 << 31) | 0  # the value: the replacement at byte 0 of the texts
    return struct.pack(f"<I{len(units)}I", 4 * len(units), *units) + value + b"\0"
