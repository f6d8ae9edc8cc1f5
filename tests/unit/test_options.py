"""The option schema (subwordlab.options): one source of kinds, defaults, ranges and help,
and the checks every door (core, command line, page, share link, embed query) applies."""

from __future__ import annotations

import pytest

import subwordlab
from subwordlab.options import LIST_SYNTAX, PRESETS, OptionError, all_options, check_options, options_markdown, preset_of

WORDS = "the cat sat on the mat then the cat ran"


def test_every_option_has_a_kind_a_valid_default_and_help():
    for preset in PRESETS.values():
        assert preset.family in ("bpe", "wordpiece", "unigram") and preset.title and preset.help and preset.pipeline
        for option in preset.options:
            assert option.help.strip() and len(option.help) < 400, option.name
            # the default itself passes the check (a default the schema refuses would be a bug)
            option.check(option.default)


def test_the_old_options_view_is_the_schema():
    assert list(subwordlab.OPTIONS) == list(PRESETS)
    for name, preset in PRESETS.items():
        assert subwordlab.OPTIONS[name] == {o.name: (o.default, o.help) for o in preset.options}


@pytest.mark.parametrize("preset, options, message", [
    ("sentencepiece_bpe", {"character_coverage": 2}, "character_coverage must be a number greater than 0 and at most 1, not 2"),
    ("sentencepiece_unigram", {"character_coverage": 0}, "character_coverage must be a number greater than 0"),
    ("bpe", {"top_k": -1}, "top_k must be a whole number from 0 to 10,000, not -1"),
    ("bpe", {"min_frequency": -3}, "min_frequency must be a whole number of at least 1, not -3"),
    ("wordpiece", {"min_frequency": 0}, "min_frequency must be a whole number of at least 1, not 0"),
    ("bpe", {"tie_break": "random"}, "tie_break must be one of first, lex_min, lex_max, not 'random'"),
    ("sentencepiece_bpe", {"normalization": "nfd"}, "normalization must be one of nfkc, nfc, none"),
    ("unigram", {"shrinking_factor": 1.0}, "shrinking_factor must be a number greater than 0 and less than 1"),
    ("unigram", {"n_sub_iterations": 0}, "n_sub_iterations must be a whole number from 1 to 1,000"),
    ("bpe", {"lowercase": "yes"}, "lowercase must be true or false, not 'yes'"),
    ("bpe", {"top_k": 2.5}, "top_k must be a whole number"),
    ("bpe", {"top_k": True}, "top_k must be a whole number"),
    ("sentencepiece_bpe", {"character_coverage": float("nan")}, "character_coverage must be a number"),
    ("bpe", {"special_tokens": ["<s>", ""]}, "special_tokens must be a list of at most 1,000 texts (none empty)"),
    ("byte_bpe", {"pattern": None}, "pattern must be a text, not None"),
    ("bpe", {"colour": 1}, "unknown option 'colour' for preset 'bpe'"),
])
def test_out_of_range_values_are_refused_by_the_core_with_what_to_do(preset, options, message):
    target = {"vocab_size": 300} if PRESETS[preset].is_unigram else {"num_merges": 3}
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        subwordlab.train(WORDS, preset=preset, **target, **options)
    # the message also says what the option means
    name = next(iter(options))
    if PRESETS[preset].has(name):
        assert PRESETS[preset].option(name).help in str(info.value)


def test_a_huge_vocabulary_size_is_told_its_range():
    with pytest.raises(ValueError, match="vocab_size must be a whole number from 0 to 10,000,000 .*not 10,000,000,000"):
        subwordlab.train(WORDS, preset="bpe", vocab_size=10**10)
    with pytest.raises(OptionError, match="from 0 to 10,000,000"):
        PRESETS["bpe"].option("vocab_size").parse("10000000000")
    # a number too long for Python's int() is still told its range, not the conversion limit
    with pytest.raises(OptionError, match="from 0 to 10,000,000"):
        PRESETS["bpe"].option("vocab_size").parse("9" * 5000)


@pytest.mark.parametrize("options, message", [
    ({"unk_token": "the"}, "unk_token 'the' is a word of the corpus, so WordPiece would give that text and unknown "
                           "characters the same id"),
    ({"unk_token": "ca"}, "unk_token 'ca' is a piece of the word 'cat'"),
    ({"special_tokens": ["##at"]}, "the special token '##at' is a piece of the word 'cat'"),
])
def test_wordpiece_refuses_a_special_token_the_corpus_could_build(options, message):
    with pytest.raises(ValueError, match=message) as info:
        subwordlab.train(WORDS, preset="wordpiece", num_merges=5, **options)
    assert "choose" in str(info.value)
    # the same settings with a token the corpus cannot build train (and the word keeps its own id)
    tok = subwordlab.train(WORDS, preset="wordpiece", num_merges=20, unk_token="[UNK]")
    assert tok.encode("the") != tok.encode("€")


def test_parse_reads_fields_and_command_line_text_alike():
    bpe = PRESETS["bpe"]
    assert bpe.option("top_k").parse(" 12 ") == 12
    assert bpe.option("special_tokens").parse("<s>  </s>") == ["<s>", "</s>"]
    assert bpe.option("end_of_word").parse("") is None and bpe.option("end_of_word").parse("none") is None
    assert bpe.option("initial_alphabet").parse("") == ""
    assert bpe.option("lowercase").parse(True) is True and bpe.option("lowercase").parse("false") is False
    assert PRESETS["unigram"].option("shrinking_factor").parse("0.5") == 0.5
    for name, raw, message in [("top_k", "ten", "whole number"), ("top_k", "١٢", "whole number"),
                               ("tie_break", "x", "one of first"), ("min_frequency", "0", "at least 1")]:
        with pytest.raises(OptionError, match=message):
            bpe.option(name).parse(raw)
    with pytest.raises(OptionError, match="a number greater than 0"):
        PRESETS["sentencepiece_bpe"].option("character_coverage").parse("inf")


def test_one_list_syntax_everywhere():
    assert "white space" in LIST_SYNTAX
    for option, _ in all_options().values():
        if option.kind == "list":
            assert option.parse(option.text(["<|a|>", "b,c"])) == ["<|a|>", "b,c"]  # a comma is part of an item


def test_presets_are_compared_by_family_not_name():
    assert [p.name for p in PRESETS.values() if p.is_unigram] == ["unigram", "sentencepiece_unigram"]
    assert [p.name for p in PRESETS.values() if p.byte_level] == ["byte_bpe"]
    assert preset_of("wordpiece").family == "wordpiece"
    with pytest.raises(OptionError, match="unknown preset 'gpt5'; choose one of bpe"):
        preset_of("gpt5")


def test_check_options_keeps_valid_values():
    assert check_options("bpe", {"special_tokens": ("<s>",), "top_k": 0}) == {"special_tokens": ["<s>"], "top_k": 0}


def test_the_readme_options_table_is_the_schema():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    begin, end = "<!-- options: begin (python -m subwordlab presets --markdown) -->", "<!-- options: end -->"
    assert begin in readme and end in readme, "the README lacks the generated options table"
    table = readme.split(begin, 1)[1].split(end, 1)[0]
    assert table.strip() == options_markdown().strip(), "regenerate it: python -m subwordlab presets --markdown"


@pytest.mark.parametrize("argv, message", [
    (["--preset", "sentencepiece_bpe", "--character-coverage", "2"], "--character-coverage takes a number greater than 0 and at most 1, not '2'"),
    (["--top-k", "-1"], "--top-k takes an integer from 0 to 10,000, not '-1'"),
    (["--min-frequency", "-3"], "--min-frequency takes an integer of at least 1, not '-3'"),
    (["--tie-break", "best"], "--tie-break takes one of first, lex_min, lex_max, not 'best'"),
])
def test_the_command_line_refuses_out_of_range_options_in_one_line(argv, message, capsys):
    from subwordlab.cli import main

    assert main(["train", "--num-merges", "5", "-o", "never-written.json", *argv]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("subwordlab: error: " + message), err


def test_the_command_line_lists_the_schema(capsys):
    from subwordlab.cli import main

    assert main(["presets", "--markdown"]) == 0
    assert capsys.readouterr().out == options_markdown()
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    assert all(f"{p.name}: {p.title}" in out for p in PRESETS.values()) and "--character-coverage" in out


def test_share_links_and_embed_queries_get_the_same_ranges():
    from subwordlab_web.embed import parse_query
    from subwordlab_web.share import Config, ShareLinkError, _check

    doc = {"corpus": {"kind": "inline", "format": "text", "text": "a"}, "train": {"preset": "sentencepiece_bpe",
           "options": {"vocab_size": 300, "character_coverage": 2}}, "step": None, "panel": "train",
           "inspect": {"text": "", "seed": 0, "alpha": 0.1, "sampled": False, "nbest": 5, "special": "disallowed"}}
    with pytest.raises(ShareLinkError, match=r"train\.options\.character_coverage must be a number greater than 0 "
                                             "and at most 1, not 2"):
        _check(doc)
    doc["train"]["options"] = {"num_merges": 3, "top_k": -1}
    doc["train"]["preset"] = "bpe"
    with pytest.raises(ShareLinkError, match=r"train\.options\.top_k must be between 0 and 10,000, not -1"):
        _check(doc)
    with pytest.raises(ShareLinkError, match="min_frequency must be a whole number of at least 1"):
        Config("bpe", {"num_merges": 3, "min_frequency": -3}).normalized()
    assert "vocab=10000000000 must be between 1 and 1,000,000" in parse_query("embed=1&vocab=10000000000").problems[0]
