r"""Imported Oniguruma patterns: one fixed case per construct, in every tier (CPython and Pyodide).

The expected pieces are what HF tokenizers 0.23.3 gave for ``Split(Regex(pattern),
"isolated")`` (test_onig_differential.py checks them against ``tokenizers`` again on
CPython); here they are checked with the stdlib fallback, and with ``regex`` where
installed. The refused constructs must be refused at import with a message naming them.
"""

import json

import pytest

from subwordlab.formats.hf_json import from_hf_json, from_onig
from subwordlab.formats.our_json import ModelFileError
from subwordlab.pipeline.normalizers import RegexReplace
from subwordlab.pipeline.pre_tokenizers import Split
from subwordlab.text.bytes_map import BYTE_TO_CHAR

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)


# (Oniguruma pattern, text, HF tokenizers' isolated pieces)
CASES = [
    ('[[:alpha:]]+|[^[:alpha:]]', 'Ké\tX ǅ²', ['Ké', '\t', 'X', ' ', 'ǅ', '²']),
    ('[[:^digit:]]+', 'ab12٣४c', ['ab', '12٣४', 'c']),
    ('[[:word:]]+', 'a_²1 ⓐ\u200d', ['a_', '²', '1', ' ', 'ⓐ', '\u200d']),
    ('[[:space:]]+', 'a\t\x85\u2028\xa0b', ['a', '\t\x85\u2028\xa0', 'b']),
    ('[[:punct:]]+', 'a$+<.,!b', ['a', '$+<.,!', 'b']),
    ('[[:upper:]]+|[[:lower:]]+', 'ABcdⅫⅻʰǅ', ['AB', 'cd', 'Ⅻ', 'ⅻʰ', 'ǅ']),
    ('[[:alnum:]]+', 'a1ͅ-', ['a1ͅ', '-']),
    ('[[:graph:]]+', 'a b\xa0c\u2028d', ['a', ' ', 'b', '\xa0', 'c', '\u2028', 'd']),
    ('[[:print:]]+', 'a b\xa0c\u2028d\n', ['a b\xa0c', '\u2028', 'd', '\n']),
    ('[[:cntrl:][:blank:]]+', 'a\t\x01 b', ['a', '\t\x01 ', 'b']),
    ('[[:xdigit:]]+', '0fG', ['0f', 'G']),
    ('\\w+', 'a²1Ⅻ\u200d', ['a²1Ⅻ', '\u200d']),
    ('(?i)[A-Z]+', 'İKkſßx', ['İ', 'Kkſ', 'ß', 'x']),
    ('(?i)k+', 'kKK', ['kKK']),
    ("(?i:'s|'t)", "'S'ſ't", ["'S", "'ſ", "'t"]),
    ('(?i)[^k]+', 'aKkb', ['a', 'Kk', 'b']),
    ('a(?i)b|c', 'ac aB', ['ac', ' ', 'aB']),
    ('(?i)a(?-i)b', 'AbAB', ['Ab', 'AB']),
    ('(?m).+', 'a\nb', ['a\nb']),
    ('\\h+|\\H', '0fG', ['0f', 'G']),
    ('\\R', 'a\r\nb\n\x85c\u2028', ['a', '\r\n', 'b', '\n', '\x85', 'c', '\u2028']),
    ('\\o{101}\\x{42}\\u0043\\101', 'ABCA', ['ABCA']),
    ('[a-z&&[^aeiou]]+', 'abcde', ['a', 'bcd', 'e']),
    ('[\\w&&\\D]+', 'ab12c', ['ab', '12', 'c']),
    ('[a[0-9]]+', 'a1b', ['a1', 'b']),
    ('\\p{^L}+|\\P{^L}+', 'ab12', ['ab', '12']),
    ('\\p{Alpha}+', 'aͅb1', ['aͅb', '1']),
    ('(?<=a)b|(?<!a)c', 'abcac', ['a', 'b', 'c', 'ac']),
    ('(?<=a|bc)d|(?<!a|bc)e', 'ad bcd xd ae bce xe', ['a', 'd', ' bc', 'd', ' xd ae bce x', 'e']),
    ('(?>a+)b|a++', 'aab aaa', ['aab', ' ', 'aaa']),
    ('a{1,2}+', 'aaaaa', ['aaaaa']),
    ('a{2}?', 'aaa', ['aa', 'a']),
    ('a{,2}', 'aaa', ['aa', 'a']),
    ('\\Aa|a\\z', 'aaa', ['a', 'a', 'a']),
    ('a\\Z', 'a\na', ['a\n', 'a']),
    ('^a|a$', 'a\na\n', ['a', '\n', 'a', '\n']),
    ('(?#comment)a+', 'aa', ['aa']),
    ('(a)\\1', 'aab', ['aa', 'b']),
    ('(?<n>b)\\k<n>', 'abb', ['a', 'bb']),
    ('\\bx', 'x ax', ['x', ' ax']),
    ('x*|b+', 'bb', ['b', 'b']),
]

# (refused pattern, what the message names)
REFUSED = [
    (r"\X+", r"\X"), (r"a\K", r"\K"), (r"\Ga", r"\G"), (r"a\yb", r"\y"), (r"(?x) a", "(?x)"), (r"(?i)ss", "'ss'"),
    (r"(?i)fi", "'fi'"), (r"(?i)ß", "'ß'"), (r"(?i)é", "'é'"), (r"(?i)[ǅ]", "'ǅ'"), (r"(?i)[[:alpha:]]", "[:alpha:]"),
    (r"(?i)[\w]", r"\w"), (r"(?i)(a)\1", "backreference under (?i)"), (r"\p{Greek}", r"\p{Greek}"),
    (r"[a&&]", "&&"), (r"(?i)[a-z&&[^k]]", "nested class"), (r"a**", "quantifier after a quantifier"),
    (r"(?~ab)", "absent operator"), (r"\xE9", "byte"), (r"\x{41 42}", "sequence"), (r"[:foo:]x[[:foo:]]", "[:foo:]"),
    (r"\g<1>(a)", r"\g"), (r"\Qa\E", r"\Q"),
]



def pieces(pattern, text, behavior="Isolated"):
    split = Split(from_onig(pattern, "pre_tokenizer.pattern.Regex"), behavior)
    return [piece for piece, _ in split.pre_tokenize_str(text)]


@pytest.mark.parametrize("pattern, text, expected", CASES)
def test_each_construct_splits_as_oniguruma_does(engine, pattern, text, expected):
    assert pieces(pattern, text) == expected


def split_only(pattern):
    """A tokenizer.json whose pre-tokenizer is a Split on ``pattern``."""
    return json.dumps({"pre_tokenizer": {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated",
                                         "invert": False},
                       "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}})


@pytest.mark.parametrize("pattern, named", REFUSED)
def test_constructs_without_an_exact_translation_are_refused_at_import(pattern, named):
    with pytest.raises(ModelFileError) as caught:
        from_hf_json(split_only(pattern))
    message = str(caught.value)
    assert "pre_tokenizer.pattern.Regex" in message and named in message


def llama3_style(pattern):
    """A byte-level BPE tokenizer.json shaped like Llama 3's (Split, then ByteLevel without its regex)."""
    vocab = {ch: i for i, ch in enumerate(BYTE_TO_CHAR)}
    vocab.update({"Ã©": 256, "ĉX": 257})
    return json.dumps({
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "vocab": vocab, "merges": ["Ã ©", "ĉ X"]}})


def test_llama3_style_posix_split_tokenizes_as_hf(engine):
    # was K Ã© ĉX: stdlib re read [[:alpha:]] as a set of the characters "[:alph" (FutureWarning)
    tok = from_hf_json(llama3_style("[[:alpha:]]+|[^[:alpha:]]"))
    assert tok.tokenize("Ké\tX") == ["K", "Ã©", "ĉ", "X"]


def test_case_insensitive_ascii_class_does_not_match_dotted_capital_i(engine):
    # was a match: Python folds İ (U+0130) onto i, Oniguruma does not (only the Kelvin sign and long s)
    assert pieces("(?i)[A-Z]+", "İ", "Removed") == ["İ"]
    assert pieces("(?i)[A-Z]+", "\u212aſ", "Removed") == []


def test_empty_matches_are_found_as_hf_finds_them(engine):
    # an empty match where the previous match ended is skipped, and the search goes on one character later
    assert pieces("x*|b+", "bb") == ["b", "b"]
    assert RegexReplace(from_onig("x*", "p"), "|").normalize_str("abxd") == "|a|b|d|"
