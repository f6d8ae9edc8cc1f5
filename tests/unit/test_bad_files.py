"""Bad model files, ours and tokenizer.json: each problem raises one ModelFileError naming
the field, quickly, without half-loading; Hypothesis-mutated documents either load or
raise ModelFileError, never anything else."""

import copy
import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from subwordlab.formats.hf_json import from_hf_json, to_hf_json
from subwordlab.formats.our_json import MAX_FILE_BYTES, ModelFileError, from_json

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)

SEED = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def _quiet_hf(tok):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return to_hf_json(tok)


_DOCS = {}


def docs():
    """Small valid documents to break: ours for several presets, and tokenizer.json files."""
    if not _DOCS:
        text = "low lower newest widest, the rights of everyone 123 " * 3
        toks = {
            "bpe": subwordlab.train(SEED, preset="bpe", num_merges=8),
            "bpe_unk": subwordlab.train(SEED, preset="bpe", num_merges=8, end_of_word=None, unk_token="<unk>"),
            "byte_bpe": subwordlab.train(text, preset="byte_bpe", vocab_size=262, special_tokens=["<|endoftext|>"]),
            "sentencepiece_bpe": subwordlab.train(text, preset="sentencepiece_bpe", vocab_size=40),
            "wordpiece": subwordlab.train(text, preset="wordpiece", vocab_size=45),
            "unigram": subwordlab.train(text, preset="unigram", vocab_size=40),
        }
        for name, tok in toks.items():
            _DOCS["ours:" + name] = json.loads(subwordlab.to_json(tok))
            if name != "bpe":
                _DOCS["hf:" + name] = json.loads(_quiet_hf(tok))
    return _DOCS


def load(kind, doc_or_text):
    text = doc_or_text if isinstance(doc_or_text, (str, bytes)) else json.dumps(doc_or_text, ensure_ascii=False)
    return from_json(text) if kind == "ours" else from_hf_json(text)


def ours(name="bpe"):
    return copy.deepcopy(docs()["ours:" + name])


def hf(name="bpe_unk"):
    return copy.deepcopy(docs()["hf:" + name])


def fails(kind, doc, *fragments):
    with pytest.raises(ModelFileError) as info:
        load(kind, doc)
    for frag in fragments:
        assert frag in str(info.value), str(info.value)
    assert "\n" not in str(info.value)
    return str(info.value)


# -- our format ---------------------------------------------------------------------------

def test_malformed_json():
    text = subwordlab.to_json(subwordlab.train(SEED, preset="bpe", num_merges=8))
    fails("ours", text[: len(text) // 2], "not valid JSON", "line")
    fails("ours", "", "not valid JSON")
    fails("ours", b"\xff\xfe{}", "not UTF-8")
    fails("ours", "[1, 2]", "document: expected an object")
    fails("ours", '{"a": 1, "a": 2}', "the key 'a' appears twice")


def test_wrong_format_or_version():
    d = ours()
    d["format"] = "other"
    fails("ours", d, "document.format", "not a Subword Lab model file")
    d = ours()
    d["version"] = 2
    fails("ours", d, "document.version", "newer subwordlab")
    d = ours()
    d["version"] = "1"
    fails("ours", d, "document.version: expected an integer")
    d = ours()
    del d["model"]
    fails("ours", d, "the field 'model' is missing")


def test_wrong_types_name_the_field():
    d = ours()
    d["model"]["vocab"] = "abc"
    fails("ours", d, "model.vocab: expected an array, got a string")
    d = ours()
    d["model"]["vocab"][3] = 7
    fails("ours", d, "model.vocab[3]: expected a string, got an integer")
    d = ours()
    d["model"]["merges"][2] = [1, "x"]
    fails("ours", d, "model.merges[2]: expected a pair of ids")
    d = ours()
    d["model"]["byte_level"] = "no"
    fails("ours", d, "model.byte_level: expected true or false")
    d = ours()
    d["spec"] = []
    fails("ours", d, "document.spec: expected an object")
    d = ours()
    d["model"]["extra"] = 1
    fails("ours", d, "model: unknown field 'extra'")


def test_unknown_type_tags():
    d = ours()
    d["model"]["type"] = "SuperBPE"
    fails("ours", d, "model.type: unknown model type 'SuperBPE'", "known types:", "BPE")
    d = ours()
    d["pre_tokenizer"] = {"type": "Magic"}
    fails("ours", d, "pre_tokenizer.type: unknown pre-tokenizer type 'Magic'")
    d = ours("sentencepiece_bpe")
    d["normalizer"]["normalizers"][0] = {"type": "NFKX"}
    fails("ours", d, "normalizer.normalizers[0].type: unknown normalizer type 'NFKX'")
    d = ours()
    d["decoder"] = {"type": "Suffix"}
    fails("ours", d, "decoder: the field 'suffix' is missing")


def test_merges_whose_parts_or_result_are_not_in_the_vocabulary():
    d = ours()
    d["model"]["merges"][0] = [0, 999]
    fails("ours", d, "model.merges[0]: expected a pair of ids between 0 and")
    d = ours()
    d["model"]["merges"][1] = [0, 1]  # 'd' + 'e' -> 'de', not a token
    fails("ours", d, "model.merges[1]: 'd' + 'e' gives 'de', which is not in the vocabulary")


def test_duplicate_or_missing_ids():
    d = ours()
    d["model"]["vocab"][5] = d["model"]["vocab"][4]
    fails("ours", d, "model.vocab[5]", "also id 4")
    d = ours("byte_bpe")
    d["special_tokens"]["tokens"][0]["id"] = 7
    fails("ours", d, "special_tokens.tokens[0].id: '<|endoftext|>' is not in the vocabulary at id 7")
    d = ours("byte_bpe")
    d["special_tokens"]["tokens"].append(dict(d["special_tokens"]["tokens"][0]))
    fails("ours", d, "listed twice")
    d = ours("unigram")
    d["model"]["unk_id"] = 10_000
    fails("ours", d, "model.unk_id: 10000 is not an id")
    d = ours("unigram")
    d["model"]["vocab"][3][1] = "high"
    fails("ours", d, "model.vocab[3]: expected [piece, score]")


def test_non_finite_numbers_and_huge_integers():
    d = json.dumps(ours("unigram")).replace('"unk_id": 0', '"unk_id": NaN')
    fails("ours", d, "NaN is not a number JSON allows")
    d = ours()
    text = json.dumps(d).replace('"version": 1', '"version": ' + "9" * 5000)
    fails("ours", text, "not valid JSON")


def test_a_huge_file_is_refused_before_parsing():
    t0 = time.monotonic()
    fails("ours", "[" + " " * (MAX_FILE_BYTES + 10) + "]", "limit is 52,428,800 bytes (50 MB)")
    fails("hf", b" " * (MAX_FILE_BYTES + 10), "limit")
    assert time.monotonic() - t0 < 10


def test_deep_nesting_never_recurses():
    t0 = time.monotonic()
    for text in ("[" * 500_000, "[" * 200_000 + "]" * 200_000, '{"a":' * 100_000 + "1" + "}" * 100_000):
        fails("ours", text, "nested more than 64 levels")
        fails("hf", text, "nested more than 64 levels")
    d = ours()
    d["spec"]["deep"] = json.loads("[" * 70 + "]" * 70)
    fails("ours", d, "nested more than 64 levels")
    assert time.monotonic() - t0 < 20


def test_a_failed_load_leaves_nothing_half_loaded(tmp_path):
    good = subwordlab.train(SEED, preset="bpe", num_merges=8)
    path = tmp_path / "m.json"
    subwordlab.save(good, path)
    d = ours()
    d["model"]["merges"][1] = [0, 1]
    path.write_text(json.dumps(d))
    with pytest.raises(ModelFileError):
        subwordlab.load(path)
    assert good.tokenize("lowest") == ["low", "est</w>"]  # the loaded-before tokenizer is untouched


# -- tokenizer.json -----------------------------------------------------------------------

def test_hf_bad_merges_are_refused_before_the_rust_side_could_panic():
    d = hf()
    d["model"]["merges"].append(["l", "zz"])
    fails("hf", d, "model.merges[", "'zz' is not in the vocabulary")
    d = hf()
    d["model"]["merges"].append(["w", "l"])  # 'wl' not a token
    fails("hf", d, "the result 'wl' is not in the vocabulary")
    d = hf()
    d["model"]["merges"] = [" ".join(m) for m in d["model"]["merges"]]
    d["model"]["merges"][0] = "a b c"
    fails("hf", d, "model.merges[0]: expected 'left right'")
    d["model"]["merges"][0] = ["a", "b"]
    fails("hf", d, "one form")


def test_hf_duplicate_and_missing_ids():
    d = hf()
    vocab = d["model"]["vocab"]
    first, second = list(vocab)[:2]
    vocab[second] = vocab[first]
    fails("hf", d, "model.vocab: the id 0 is given to both")
    d = hf()
    vocab = d["model"]["vocab"]
    last = max(vocab, key=vocab.get)
    vocab[last] += 5
    fails("hf", d, "id", "is missing")
    d = hf()
    d["added_tokens"] = [{"id": 1, "content": "<zz>", "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True}]
    fails("hf", d, "added_tokens: id 1 is '<zz>' but the model's vocabulary has")


def test_hf_wrong_types_and_versions():
    d = hf()
    d["version"] = "2.0"
    fails("hf", d, "tokenizer.json.version")
    d = hf()
    d["model"]["vocab"] = []
    fails("hf", d, "model.vocab: expected an object")
    d = hf()
    d["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": "(?<=x"}, "behavior": "Isolated", "invert": False}
    fails("hf", d, "pre_tokenizer")
    d = hf()
    d["pre_tokenizer"] = {"type": "Split", "pattern": "x", "behavior": "Isolated", "invert": False}
    fails("hf", d, "pre_tokenizer.pattern: expected an object")
    d = hf("unigram")
    d["model"]["vocab"][4] = ["x"]
    fails("hf", d, "model.vocab[4]: expected [piece, score]")


# -- Hypothesis: mutated documents ----------------------------------------------------------

def _paths(obj, prefix=()):
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(obj, list):
        # long lists (vocabularies): a few positions are enough
        idx = range(len(obj)) if len(obj) <= 6 else [0, 1, len(obj) // 2, len(obj) - 2, len(obj) - 1]
        for i in idx:
            out += _paths(obj[i], prefix + (i,))
    return out


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 300), st.floats(allow_nan=False, allow_infinity=False),
                     st.text(max_size=4), st.sampled_from(["BPE", "Unigram", "WordPiece", "Sequence", "ByteLevel", "<unk>"]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                       max_leaves=6)


@st.composite
def mutated(draw):
    key = draw(st.sampled_from(sorted(docs())))
    doc = copy.deepcopy(docs()[key])
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        path = draw(st.sampled_from(paths))
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        last = path[-1]
        op = draw(st.sampled_from(["delete", "replace", "swap", "duplicate", "rename"]))
        if op == "delete":
            del parent[last]
        elif op == "replace":
            parent[last] = draw(_VALUES)
        elif op == "swap" and isinstance(parent, list) and len(parent) > 1:
            j = draw(st.integers(0, len(parent) - 1))
            parent[last], parent[j] = parent[j], parent[last]
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[last]))
        elif op == "rename" and isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = parent.pop(last)
    return key.split(":")[0], doc


def _must_load_or_refuse(kind, payload):
    try:
        tok = load(kind, payload)
    except ModelFileError:
        return
    # a document that loads must also work
    for text in ["low lower newest", "the rights of everyone 123", ""]:
        try:
            ids = tok.encode(text, allowed_special="all")
        except ValueError:
            continue  # e.g. a character outside the vocabulary and no unk token
        tok.decode(ids)


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_documents_load_or_raise_model_file_error(case):
    kind, doc = case
    _must_load_or_refuse(kind, doc)


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["ours:bpe", "ours:unigram", "hf:byte_bpe", "hf:wordpiece"]), st.data())
def test_damaged_text_loads_or_raises_model_file_error(key, data):
    text = json.dumps(docs()[key], ensure_ascii=False)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, min(len(text), start + 40)))
    junk = data.draw(st.text(max_size=6))
    _must_load_or_refuse(key.split(":")[0], text[:start] + junk + text[end:])


def test_an_unterminated_string_of_escaped_quotes_is_refused_as_invalid_json():
    # 128 KB: the bracket scan once restarted at every escaped quote (71 s); now one pass
    text = '{"format": "subwordlab", "a": "' + '\\"' * 65_536
    fails("ours", text, "not valid JSON")
    fails("hf", text, "not valid JSON")


def test_the_depth_scan_counts_brackets_outside_strings_only():
    from subwordlab.base.jsonio import check_size_and_depth

    check_size_and_depth('[' * 64 + '"]]]]{{{{\\\\\\"[[["' + ']' * 64)  # brackets inside a string do not count
    with pytest.raises(ModelFileError, match="nested more than 64 levels"):
        check_size_and_depth('{"a":' * 65 + '1' + '}' * 65)
    check_size_and_depth('{"a": "unterminated [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[')


def test_a_file_without_a_decoder_decodes_its_tokens_as_written():
    """"decoder": null loads (our format allows it) and decodes: our file joins the tokens'
    text, a tokenizer.json joins them with spaces as HF does (Hypothesis found the crash:
    decode called the missing decoder)."""
    tok = subwordlab.train("low lower newest widest", preset="wordpiece", vocab_size=40)
    ours = json.loads(subwordlab.to_json(tok))
    ours["decoder"] = None
    loaded = subwordlab.from_json(json.dumps(ours))
    ids = loaded.encode("lower newest")
    assert loaded.decode(ids) == "".join(loaded.id_to_token(i) for i in ids)
    hf = json.loads(subwordlab.to_hf_json(tok))
    hf["decoder"] = None
    imported = subwordlab.from_hf_json(json.dumps(hf))
    ids = imported.encode("lowest newer")
    assert imported.decode(ids) == " ".join(imported.id_to_token(i) for i in ids)


@pytest.mark.cpython_only
def test_a_tokenizer_json_without_a_decoder_decodes_as_hf_does():
    import tokenizers

    hf = json.loads(subwordlab.to_hf_json(subwordlab.train("low lower newest widest", preset="wordpiece", vocab_size=40)))
    hf["decoder"] = None
    imported = subwordlab.from_hf_json(json.dumps(hf))
    ids = imported.encode("lowest newer")
    assert len(ids) > 2 and imported.decode(ids) == tokenizers.Tokenizer.from_str(json.dumps(hf)).decode(ids)
