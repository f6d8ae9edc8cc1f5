"""The HF export asks the option schema (``Option.hf``, options.py) what each trained option
means for a tokenizer.json. Every option of every preset, set to a value other than its
default, either exports to a file the tokenizers library encodes exactly as ours, or is
refused with a message naming the option; and the schema says beforehand which."""

import dataclasses
import warnings

import pytest

import subwordlab
from corpora import read
from subwordlab import options as schema
from subwordlab.formats.hf_json import HFExportError, export_hf
from subwordlab.options import PRESETS, TRAINING_ONLY

TEXT = read("tinyshakespeare.txt")[:4000]
SAMPLES = [TEXT[i:i + 250] for i in range(0, 2500, 500)] + [
    "Hello world, 123 4567!", "  two  spaces  and a tab\there ", "ALL CAPS, naïve café", "thinking ingots"]
SIZE = {"bpe": 200, "byte_bpe": 300, "sentencepiece_bpe": 200, "wordpiece": 200, "unigram": 220,
        "sentencepiece_unigram": 220}
# the bpe preset's default marker '</w>' has no tokenizer.json equivalent (refused by name
# below), so its other options are tried with a one-character marker, which exports
BASE = {"bpe": {"end_of_word": "_"}}

# values worth trying beyond the generic ones (a text option's generic value says little)
VALUES = {
    "end_of_word": ["_", "<eow>", None],
    "unk_token": [None, "<oov>"],
    "pattern": ["cl100k", "o200k", r"\w+|[^\w\s]+|\s+", r"(?x) \w+ | \s+"],
    "initial_alphabet": ["xyzé"],
    "continuing_subword_prefix": ["@@"],
    "special_tokens": [["<x>", "<y>"]],
    "user_defined_symbols": [["<sep>", "ing"]],
    "top_k": [0],
    "seed_size": [300],
    "max_piece_length": [4],
    "max_input_chars_per_word": [5],
    "character_coverage": [0.99],
    "max_sentence_length": [12],
}


def non_default_values(preset, option):
    """The values to try: the list above, or one by kind that differs from the default."""
    if option.name == "vocab_size":
        return [SIZE[preset.name] + 40]
    if option.name == "num_merges":
        return [60]
    if option.name in VALUES:
        return VALUES[option.name]
    if option.kind == "bool":
        return [not option.default]
    if option.kind == "choice":
        return [c for c in option.choices if c != option.default]
    if option.kind == "int":
        return [option.default + 1 if option.default + 1 in option.range else option.default - 1]
    if option.kind == "float":
        return [option.default * 0.9]
    raise AssertionError(f"say in VALUES which values of {preset.name}.{option.name} ({option.kind}) to try")


CASES = [(p.name, o.name, v) for p in PRESETS.values() for o in p.options for v in non_default_values(p, o)]


def test_every_option_says_what_it_means_for_tokenizer_json():
    for preset in PRESETS.values():
        for option in preset.options:
            assert option.hf is not None and option.hf.where, (
                f"{preset.name}.{option.name}: say in options.py what it means for the HF export (hf=HFMeaning(...))")



def test_the_schema_refuses_exactly_what_tokenizer_json_cannot_express():
    refused = {(p, n, v) for p, n, v in CASES if PRESETS[p].option(n).hf_refusal(v)}
    assert refused == {("bpe", "end_of_word", "<eow>"), ("byte_bpe", "pattern", r"(?x) \w+ | \s+")}
    message = PRESETS["byte_bpe"].option("pattern").hf_refusal(r"(?x) \w+ | \s+")
    assert message.startswith("pattern=") and "retrain with pattern='gpt2'" in message

def test_the_export_refuses_an_option_the_schema_says_nothing_about(monkeypatch):
    tok = subwordlab.train(TEXT, preset="bpe", num_merges=20, end_of_word=None)
    bpe = PRESETS["bpe"]
    silent = tuple(dataclasses.replace(o, hf=None) if o.name == "lowercase" else o for o in bpe.options)
    monkeypatch.setitem(PRESETS, "bpe", dataclasses.replace(bpe, options=silent))
    with pytest.raises(HFExportError, match="does not say what lowercase means for tokenizer.json"):
        export_hf(tok)


def test_training_only_options_are_named_so():
    assert PRESETS["bpe"].option("tie_break").hf.where == TRAINING_ONLY
    assert PRESETS["wordpiece"].option("max_input_chars_per_word").hf.where == "model.max_input_chars_per_word"
    assert schema.TRAINING_ONLY in PRESETS["unigram"].option("shrinking_factor").hf.where


@pytest.mark.cpython_only
@pytest.mark.parametrize("preset, name, value", CASES, ids=[f"{p}-{n}-{v!r}" for p, n, v in CASES])
def test_every_option_off_its_default_exports_exactly_or_is_refused_by_name(preset, name, value):
    from tokenizers import Tokenizer as HF

    options = {"vocab_size": SIZE[preset] + (300 if name == "byte_fallback" else 0), **BASE.get(preset, {})}
    if name == "num_merges":
        del options["vocab_size"]
    options[name] = value
    try:
        tok = subwordlab.train(TEXT, preset=preset, **options)
    except ValueError as exc:  # e.g. Unigram needs an unk_token: training says so, by name
        assert name in str(exc), exc
        return
    expected_refusal = PRESETS[preset].option(name).hf_refusal(value)
    try:
        result = export_hf(tok)
    except HFExportError as exc:
        assert name in str(exc), f"refused without naming {name}: {exc}"
        assert expected_refusal == str(exc), "the schema must say beforehand what the export refuses"
        return
    assert expected_refusal is None, f"the schema refuses {name}={value!r} but the export wrote it"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = HF.from_str(result.text)
    compared = 0
    for text in SAMPLES:
        try:
            ours = tok.encode(text, allowed_special="all")
        except ValueError:
            continue  # a character outside the vocabulary and no unk token: ours raises (the export warns)
        assert hf.encode(text, add_special_tokens=False).ids == ours, (preset, name, value, text[:40])
        compared += 1
    assert compared >= len(SAMPLES) - 4
