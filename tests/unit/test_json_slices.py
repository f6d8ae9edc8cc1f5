"""json_slices.parse_json_steps against jsonio.parse_json: the same value or the same error,
on JSON Hypothesis writes, on texts it breaks, and on a real-sized tokenizer.json; and the
chunked model build (HFBPE.building, the importer's merges) against the whole one."""

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from progress_steps import run_steps

import subwordlab
from subwordlab.base.events import drain
from subwordlab.base.json_slices import parse_json_steps
from subwordlab.base.jsonio import ModelFileError, parse_json
from subwordlab.formats import hf_import
from subwordlab.models import hf_bpe
from subwordlab.models.hf_bpe import HFBPE

SCALARS = (st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(st.characters(blacklist_categories=("Cs",)), max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=4), inner, max_size=6),
                      max_leaves=40)


def outcome(fn, *args):
    """('value', v) or ('error', message)."""
    try:
        return "value", fn(*args)
    except ModelFileError as exc:
        return "error", str(exc)


def sliced(text, slice_bytes, max_depth=64):
    return drain(parse_json_steps(text, "file", max_depth=max_depth, slice_bytes=slice_bytes))


def same(text, slice_bytes=7, max_depth=64):
    whole = outcome(parse_json, text, "file", 50 * 2**20, max_depth)
    assert outcome(sliced, text, slice_bytes, max_depth) == whole, text[:200]
    if whole[0] == "value":  # (and the same key order)
        assert json.dumps(sliced(text, slice_bytes, max_depth)) == json.dumps(whole[1])


@settings(max_examples=300, deadline=None)
@given(VALUES, st.sampled_from([None, 0, 2]), st.integers(1, 64))
def test_any_json_gives_the_same_value(value, indent, slice_bytes):
    same(json.dumps(value, indent=indent, ensure_ascii=False).encode(), slice_bytes)
    same(json.dumps(value, ensure_ascii=True), slice_bytes)


@settings(max_examples=400, deadline=None)
@given(VALUES, st.data())
@example(value={"a": 1, "b": 2}, data=None)
def test_a_broken_text_gives_the_same_error(value, data):
    text = json.dumps(value, ensure_ascii=False)
    if data is not None:  # one cut, insertion or change anywhere
        i = data.draw(st.integers(0, len(text)))
        bit = data.draw(st.sampled_from(['"', ",", ":", "]", "}", "[", "{", "\\", "NaN", "01", "\x01", "", " ", "1e999", "\ufeff"]))
        text = text[:i] + bit + text[i + data.draw(st.integers(0, 2)):]
    same(text.encode("utf-8", "surrogatepass"), 5)


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2}',  # a key twice, in one run
    '{"a": 1, "b": [1], "a": 2}',  # ... across a member read alone
    '{"v": {' + ", ".join(f'"k{i}": {i}' for i in range(50)) + ', "k3": 0, "z": 1}}',  # ... across two runs
    "[NaN]", '{"x": Infinity}', "[1, 2,]", '{"a" 1}', "", "   ", "[] x", '"\\ud800"', "\ufeff{}",
    "[" * 64 + "]" * 64, "[" * 65 + "]" * 65, '{"m": [["a", "b"], ["c", "d"]]}', "[1.5e3, -0, 0.0, 1E+2]",
])
def test_the_edges_parse_json_knows(text):
    same(text, 9)
    same(text.encode("utf-8", "surrogatepass"), 3)


def test_nesting_at_and_past_the_limit_is_judged_as_parse_json_does():
    # (a merge pair in an array at the deepest level allowed is one level too deep)
    for depth in (3, 4, 5):
        same('{"m": {"merges": [["a", "b"], ["c", "d"]]}}', 5, max_depth=depth)
        same("[" * depth + "1" + "]" * depth, 2, max_depth=4)


def test_invalid_utf8_and_a_file_too_big_give_parse_json_s_message():
    same(b'{"a": "\xff"}')
    big = b"[" + b"1," * 40 + b"1]"
    assert outcome(lambda t: drain(parse_json_steps(t, "file", max_bytes=20)), big) == \
        outcome(parse_json, big, "file", 20)


def test_a_big_tokenizer_json_parses_in_many_slices_to_the_same_document():
    tok = subwordlab.train(open_corpus(), preset="byte_bpe", vocab_size=1500)
    data = subwordlab.to_hf_json(tok).encode()
    steps = list(parse_json_steps(data, slice_bytes=4096))
    assert len(steps) > len(data) // 8192 and all(a[0] < b[0] for a, b in zip(steps, steps[1:]))
    assert sliced(data, 4096) == parse_json(data)


def open_corpus():
    from pathlib import Path

    return (Path(__file__).resolve().parents[2] / "corpora" / "tinyshakespeare.txt").read_text(encoding="utf-8")[:200_000]


def test_the_model_built_in_small_chunks_equals_the_whole(monkeypatch):
    tok = subwordlab.train(open_corpus()[:60_000], preset="byte_bpe", vocab_size=700)
    doc = json.loads(subwordlab.to_hf_json(tok))
    whole = hf_import.from_hf_dict(doc)
    monkeypatch.setattr(hf_bpe, "_MERGE_CHUNK", 7)
    monkeypatch.setattr(hf_import, "_MERGES_CHUNK", 5)
    progress, chunked = run_steps(hf_import.from_hf_dict_steps(doc))
    assert len(progress) > 2 * len(whole.model.merges) // 7
    assert chunked.model.ranks == whole.model.ranks and list(chunked.model.ranks) == list(whole.model.ranks)
    text = open_corpus()[-3000:]
    assert chunked.encode(text) == whole.encode(text) == tok.encode(text)


def test_a_later_duplicate_merge_wins_across_chunks_and_a_bad_one_is_named(monkeypatch):
    vocab = ["a", "b", "ab", "abab", "ba"]
    merges = [(0, 1), (1, 0), (2, 2), (0, 1)]  # (a, b) again last: its rank is 3
    whole = HFBPE(vocab, merges)
    monkeypatch.setattr(hf_bpe, "_MERGE_CHUNK", 2)
    chunked = drain(HFBPE.building(vocab, merges))
    assert chunked.ranks == whole.ranks == {(0, 1): (3, 2), (1, 0): (1, 4), (2, 2): (2, 3)}
    assert list(chunked.ranks) == list(whole.ranks)
    with pytest.raises(ValueError, match=r"merge #3 'b' \+ 'b': the result 'bb' is not in the vocabulary"):
        drain(HFBPE.building(vocab, merges[:3] + [(1, 1)]))
    doc = {"model": {"type": "BPE", "vocab": {t: i for i, t in enumerate(vocab)}, "merges": ["a b", "b a", "ab ab", "a c"]}}
    monkeypatch.setattr(hf_import, "_MERGES_CHUNK", 2)
    with pytest.raises(ModelFileError, match=r"merges\[3\]: 'c' is not in the vocabulary"):
        hf_import.from_hf_dict(doc)
