"""Our JSON document: round trips for every preset, byte-identical re-serialization, the
format's shape and provenance, golden hashes (the same JSON in CPython and Pyodide), and
the vocabulary view."""

import hashlib
import json
import math

import golden_json
import pytest
from progress_steps import run_steps

import subwordlab
from corpora import UDHR, read
from subwordlab.base import jsonio
from subwordlab.formats.our_json import (
    FORMAT,
    MAX_FILE_BYTES,
    VERSION,
    ModelFileError,
    format_vocab_table,
    from_json,
    to_json,
    vocab_table,
)

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)

ENG = read("udhr/udhr_eng.txt")
HELD_OUT = [p.read_text(encoding="utf-8")[:1500] for p in UDHR] + [
    "emoji 👨‍👩‍👧 🎉🎉 ok", "digits 1234567 ٣٤٥ ²³", "  spaces   runs \t\t tabs\n\n\nnewlines  ", "",
]

PRESETS = {
    "bpe": {"vocab_size": 300, "unk_token": "<unk>"},
    "bpe_eow": {"num_merges": 80},
    "byte_bpe": {"vocab_size": 400, "special_tokens": ["<|endoftext|>"]},
    "byte_bpe_o200k": {"vocab_size": 400, "pattern": "o200k"},
    "sentencepiece_bpe": {"vocab_size": 400, "byte_fallback": True, "split_digits": True},
    "wordpiece": {"vocab_size": 300, "lowercase": True, "strip_accents": True},
    "unigram": {"vocab_size": 300},
    "sentencepiece_unigram": {"vocab_size": 400, "byte_fallback": True, "user_defined_symbols": ["<sep>"]},
}


def preset_of(name):
    return name if name in subwordlab.OPTIONS else name.rsplit("_", 1)[0]


_CACHE = {}


def trained(name):
    if name not in _CACHE:
        _CACHE[name] = subwordlab.train(ENG[:6000], preset=preset_of(name), **PRESETS[name])
    return _CACHE[name]


def encodable(tok, text):
    try:
        return tok.encode(text, allowed_special="all")
    except ValueError:
        return "error"


@pytest.mark.parametrize("name", PRESETS)
def test_round_trip_encodes_identically_and_reserializes_byte_identically(name):
    tok = trained(name)
    text = subwordlab.to_json(tok)
    again = subwordlab.from_json(text)
    assert subwordlab.to_json(again) == text
    assert again.vocab_size == tok.vocab_size and again.special_tokens == tok.special_tokens
    for t in HELD_OUT:
        assert encodable(again, t) == encodable(tok, t)
        if encodable(tok, t) != "error":
            assert again.decode(tok.encode(t)) == tok.decode(tok.encode(t))


def test_document_shape_small_fields_first_and_provenance():
    tok = trained("bpe_eow")
    text = subwordlab.to_json(tok)
    doc = json.loads(text)
    assert list(doc) == ["format", "version", "core_version", "spec", "special_tokens", "added_tokens",
                         "normalizer", "pre_tokenizer", "decoder", "model"]
    assert doc["format"] == FORMAT and doc["version"] == VERSION == 1
    assert doc["core_version"] == subwordlab.__version__
    # the full training spec, every option, and the corpus's hash and size
    spec = doc["spec"]
    assert spec["preset"] == "bpe" and spec["num_merges"] == 80 and spec["tie_break"] == "first"
    from subwordlab.presets import NEW_OPTIONS  # (recorded only when not at the value they had before they existed)

    assert set(subwordlab.OPTIONS["bpe"]) - set(NEW_OPTIONS) <= set(spec) and "rules" not in spec
    corpus = ENG[:6000]
    assert spec["corpus"] == {"kind": "text", "sha256": hashlib.sha256(corpus.encode()).hexdigest(),
                              "chars": len(corpus), "bytes": len(corpus.encode())}
    assert list(spec) == sorted(spec)
    # a type tag on every component; small fields before the vocabulary, merges in rank order
    for key in ("special_tokens", "pre_tokenizer", "decoder", "model"):
        assert "type" in doc[key]
    assert list(doc["model"])[-2:] == ["vocab", "merges"]
    assert doc["model"]["merges"] == [list(m) for m in tok.merges]
    # one merge per line, readable
    assert '\n      [' in text and text.endswith("}\n")
    assert "\\u" not in text  # UTF-8, not escapes


def test_unigram_scores_are_shortest_repr_floats():
    tok = trained("unigram")
    doc = json.loads(subwordlab.to_json(tok))
    scores = [s for _, s in doc["model"]["vocab"]]
    assert all(isinstance(s, float) for s in scores)
    assert scores == tok.model.scores
    text = subwordlab.to_json(tok)
    for s in tok.model.scores[:50]:
        assert repr(s) in text


def test_save_and_load_files(tmp_path):
    tok = trained("byte_bpe")
    path = tmp_path / "model.json"
    subwordlab.save(tok, path)
    assert path.read_text(encoding="utf-8") == subwordlab.to_json(tok)
    assert subwordlab.load(path).encode("Everyone has rights") == tok.encode("Everyone has rights")
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]  # no temporary file left


def test_from_json_takes_bytes_and_rejects_a_hf_file():
    tok = trained("bpe")
    assert from_json(subwordlab.to_json(tok).encode("utf-8")).encode("rights") == tok.encode("rights")
    with pytest.raises(ModelFileError, match="tokenizer.json"):
        from_json(json.dumps({"version": "1.0", "added_tokens": [], "model": {}}))


def test_golden_json_hashes():
    """Runs in CPython and Pyodide: the same hashes prove byte-identical JSON across runtimes.

    On a change of format, core version or training results, regenerate on CPython with
    ``PYTHONPATH=py_core python tests/unit/golden_json.py --update`` (see golden_json.py).
    """
    expected = json.loads(golden_json.HASHES.read_text())
    now = golden_json.current_hashes()
    assert now == {k: v for k, v in expected.items() if k in now}, (
        "to_json() changed: if on purpose, regenerate with PYTHONPATH=py_core python tests/unit/golden_json.py --update")


def test_same_spec_and_corpus_give_the_same_document():
    a = subwordlab.to_json(golden_json.train("sentencepiece_unigram"))
    b = subwordlab.to_json(golden_json.train("sentencepiece_unigram"))
    assert a == b


def test_vocab_table_rows_and_text():
    tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
    rows = vocab_table(tok)
    assert len(rows) == tok.vocab_size
    row = next(r for r in rows if r["token"] == "est</w>")
    assert row["merge"] == ("est", "</w>") and row["rank"] == 2 and row["bytes"] == b"est "
    assert next(r for r in rows if r["token"] == "e")["merge"] is None
    text = format_vocab_table(rows)
    assert "'est' + '</w>' (#2)" in text and text.splitlines()[0].split() == ["id", "token", "bytes", "merge", "(rank)"]
    sp = trained("sentencepiece_unigram")
    rows = vocab_table(sp)
    assert any(r["special"] for r in rows) and all(r["merge"] is None for r in rows)


def test_size_limit_is_documented_and_enforced():
    assert MAX_FILE_BYTES == 50 * 1024 * 1024
    with pytest.raises(ModelFileError, match="limit"):
        from_json(" " * (MAX_FILE_BYTES + 1))


def test_imported_hf_pipeline_components_serialize():
    """Every general-purpose stage added for tokenizer.json imports has a type tag and round-trips."""
    from subwordlab.models.hf_bpe import HFBPE
    from subwordlab.pipeline import decoders as D
    from subwordlab.pipeline import normalizers as N
    from subwordlab.pipeline import pre_tokenizers as P
    from subwordlab.pipeline.added_vocab import AddedToken, AddedVocabulary
    from subwordlab.tokenizer import Tokenizer

    vocab = ["<unk>", "a", "b", "c", "##b", "##c", "a##b", "ab", "<x>", " "]
    model = HFBPE(vocab, [(1, 2)], "<unk>", fuse_unk=True)
    norm = N.Sequence([N.Unicode("NFKC"), N.Lowercase(), N.Strip(True, False), N.StripAccents(all_marks=True),
                       N.Replace("x", "y"), N.RegexReplace(r"\s+", " "), N.Prepend("▁"), N.BertNormalizer(),
                       N.Collapse()])
    pre = P.Sequence([P.Split(r"\d+", "MergedWithNext", True), P.Whitespace(), P.Digits(True), P.Punctuation("Removed"),
                      P.CharDelimiterSplit("-"), P.Metaspace(replacement="_", prepend_scheme="first", split=False),
                      P.ByteLevel(None, add_prefix_space=True), P.WhitespaceSplit()])
    dec = D.SequenceDecoder([D.ReplaceDecoder("▁", " "), D.ByteFallbackDecoder(), D.FuseDecoder(), D.StripDecoder(" ", 1, 0),
                             D.MetaspaceDecoder(True, replacement="_", byte_tokens=False), D.WordPieceDecoder("##", True)])
    added = AddedVocabulary([AddedToken("<x>", 8, special=True), AddedToken(" ", 9, normalized=True, lstrip=True)])
    tok = Tokenizer(model, norm, pre, dec, {"<x>": 8}, {"source": "test"}, added_vocab=added)
    text = subwordlab.to_json(tok)
    again = from_json(text)
    assert subwordlab.to_json(again) == text
    assert again.encode("AB <x> abc", allowed_special="all") == tok.encode("AB <x> abc", allowed_special="all")


@pytest.mark.parametrize("rules", ["textbook", "hf"])
def test_a_unigram_document_loads_in_steps_as_it_loads_at_once(rules):
    """``from_dict_steps`` (the page loads a trained model in browser-sized steps) gives the
    tokenizer ``from_dict`` gives, of the same class (HF's Unigram builds its own way,
    ``HFUnigram._build``), in more than one step."""
    from subwordlab.base.events import drain
    from subwordlab.formats.our_json import from_dict, from_dict_steps

    tok = subwordlab.train(ENG, preset="unigram", vocab_size=300, rules=rules)
    doc = json.loads(to_json(tok))
    progress, stepped = run_steps(from_dict_steps(doc))
    at_once = from_dict(doc)
    assert len(progress) >= (3 if rules == "textbook" else 2) and type(stepped.model) is type(at_once.model) is type(tok.model)
    assert to_json(stepped) == to_json(at_once) == to_json(tok)
    for text in HELD_OUT:
        assert stepped.encode(text) == tok.encode(text)
    assert to_json(drain(from_dict_steps(doc))) == to_json(tok)


@pytest.mark.parametrize("entry, says", [
    (["a", 1.0], "every piece must be unique"),
    (["c", 1e999], "finite"),
    (["c", True], "expected [piece, score]"),
    (["c"], "expected [piece, score]"),
    ([7, -1.0], "expected [piece, score]"),
])
def test_a_bad_unigram_piece_is_named_whichever_way_the_pieces_are_read(entry, says):
    """The pieces are read at C speed when all is well (the same lists as the loop); a bad
    entry still gets its message, with its index."""
    from subwordlab.base.jsonio import Fields
    from subwordlab.models.vocab import read_scored_pieces

    good = [["a", -1.0], ["b", -2], ["ab", -0.5]]
    assert read_scored_pieces(Fields({"vocab": good}, "model")) == (["a", "b", "ab"], [-1.0, -2.0, -0.5])
    with pytest.raises(ModelFileError, match=r"model\.vocab\[3\]") as err:
        read_scored_pieces(Fields({"vocab": good + [entry]}, "model"))
    assert says in str(err.value)


def _emit_one_scalar_at_a_time(value, level):
    """jsonio.emit as it was written before it wrote a row in one call: the reference the
    faster one must equal, byte for byte."""
    pad, inner = "  " * level, "  " * (level + 1)
    one = jsonio._scalar
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {_emit_one_scalar_at_a_time(v, level + 1)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if all(jsonio._is_scalar(v) for v in value) and len(value) <= 8 and sum(len(one(v)) for v in value) <= 60:
            return "[" + ", ".join(one(v) for v in value) + "]"
        items = [inner + "[" + ", ".join(one(x) for x in v) + "]"
                 if isinstance(v, (list, tuple)) and all(jsonio._is_scalar(x) for x in v)
                 else inner + _emit_one_scalar_at_a_time(v, level + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return one(value)


ODD_SCALARS = ["", "\"quoted\"\\", "▁ünï", "\n\t\x00\x1f", "\ud800", "🤗", 0, -7, 10**30, 0.1, -1e-300, 1e22, 2.5,
               True, False, None]


def test_emit_writes_rows_in_one_call_exactly_as_one_scalar_at_a_time():
    rows = [list(ODD_SCALARS[k:k + 3]) for k in range(len(ODD_SCALARS))] + [(), ("a", "b"), ["x"] * 20]
    doc = {"merges": rows, "vocab": ODD_SCALARS * 3, "nested": [{"k": rows[:2]}, 1, "s"], "short": [1, "b", None]}
    assert jsonio.emit(doc, 0) == _emit_one_scalar_at_a_time(doc, 0)
    json.loads(jsonio.emit({k: v for k, v in doc.items()}, 0).replace("\ud800", ""))  # (still JSON)
    # a model from a real corpus, too
    tok = subwordlab.train(read("tinyshakespeare.txt")[:20_000], preset="sentencepiece_unigram", vocab_size=300)
    doc = json.loads(to_json(tok))
    assert jsonio.emit(doc, 0) == _emit_one_scalar_at_a_time(doc, 0)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_number_json_cannot_hold_is_named_in_a_row_too(bad):
    for doc in ([["a", bad]] * 10, [bad] * 10, {"x": bad}):
        with pytest.raises(ValueError, match="cannot save the number .*JSON has no infinity or NaN"):
            jsonio.emit(doc, 0)
