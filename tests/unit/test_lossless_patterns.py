"""Custom pre-tokenization patterns never lose text.

A pattern's pieces are the spans of its WHOLE matches, whatever groups it has (capturing,
named, non-capturing, atomic, possessive), and the text it leaves unmatched is kept as
pieces of its own; a pattern that matches an empty string is refused. Checked with the
``regex`` module (when importable) and with the stdlib fallback (always; inside Pyodide it
is the only path).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from subwordlab.pipeline.pre_tokenizers import ByteLevel, can_match_empty
from subwordlab.text import regex_compat

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)

ENGINES = ["stdlib"] + (["regex"] if regex_compat.HAVE_REGEX else [])



def test_the_issue_examples_keep_every_character(engine):
    text = "hello ab world"
    # findall gave the groups: spaces lost with (\w+), a crash (tuples) with (a)(b)
    for pattern in [r"(\w+)|\s+", r"(a)(b)|\w+|\s+", r"\p{L}+", r"[a-z]+", r"(?P<word>\w+)", r"(?>\w+)|\s++"]:
        tok = subwordlab.train(text, preset="byte_bpe", pattern=pattern, vocab_size=262)
        for sample in [text, "hello, ab! 12 wörld 🙂", "", "   ", "!!"]:
            assert tok.decode(tok.encode(sample)) == sample, (pattern, sample)


def test_unmatched_text_is_a_piece_of_its_own_and_counted(engine):
    pre = ByteLevel(r"(\w+)")
    assert [piece for piece, _ in pre.pre_tokenize_str("hi, you")] == ["hi", ",Ġ", "you"]
    assert [span for _, span in pre.pre_tokenize_str("hi, you")] == [(0, 2), (2, 4), (4, 7)]
    assert pre.chunks("hi, you") == ["hi", ", ", "you"]
    assert pre.unmatched("hi, you!") == 3
    tok = subwordlab.train("ab cd", preset="byte_bpe", pattern=r"[a-z]+", vocab_size=256)
    assert tok.unmatched_chars("ab, cd!") == 3
    assert subwordlab.train("ab cd", preset="byte_bpe", vocab_size=256).unmatched_chars("ab, cd!") == 0


@pytest.mark.parametrize("pattern", ["a*", r"\b", "", r"(?=x)", r"\w*", "(a|)", r"x?"])
def test_a_pattern_that_matches_empty_strings_is_refused(engine, pattern):
    with pytest.raises(ValueError, match="matches an empty string.*'\\+' instead of '\\*'"):
        subwordlab.train("hello world", preset="byte_bpe", pattern=pattern, vocab_size=260)


# Pattern parts with every kind of group; a generated pattern joins a few with "|".
_ATOMS = [r"(\w+)", r"(?P<g{k}>\d+)", r"(?:[a-z])+", r"(?>\s+)", r"\p{L}++", r"[^\s]{1,3}", r"(a)(b)",
          r"(\p{Lu})(\p{Ll}*)", r"'(?i:s|t)", r"\S", r"(x|yz)+", r"\p{N}{1,3}+", r"[^\s\p{L}\p{N}]+", r"\s+(?!\S)"]
_PATTERNS = st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=4).map(
    lambda atoms: "|".join(a.replace("{k}", str(k)) for k, a in enumerate(atoms)))
_TRAINED = {}


def _trained(pattern):
    key = (pattern, regex_compat.HAVE_REGEX)
    if key not in _TRAINED:
        _TRAINED[key] = subwordlab.train("The cat's 12 hats, Größe 3!\n  ab ab xyz", preset="byte_bpe",
                                         pattern=pattern, vocab_size=270)
    return _TRAINED[key]


@settings(max_examples=examples(200), deadline=None)
@given(pattern=_PATTERNS, text=st.text(st.characters(blacklist_categories=["Cs"]), max_size=60))
def test_decode_encode_is_identity_for_any_pattern_and_text(pattern, text):
    for have_regex in ([False, True] if ENGINES == ["stdlib", "regex"] else [False]):
        saved = regex_compat.HAVE_REGEX
        regex_compat.HAVE_REGEX = have_regex
        regex_compat.compile_pattern.cache_clear()
        try:
            tok = _trained(pattern)
            pieces = tok.pre_tokenizer.chunks(text)
            assert "".join(pieces) == text and all(pieces)
            assert tok.decode(tok.encode(text)) == text
            assert "".join(p for p, _ in tok.pre_tokenizer.pre_tokenize_str(text)) == "".join(tok.pre_tokenizer.words(text))
        finally:
            regex_compat.HAVE_REGEX = saved
            regex_compat.compile_pattern.cache_clear()


def test_hf_export_keeps_unmatched_text_like_ours():
    import json

    tok = subwordlab.train("ab cd", preset="byte_bpe", pattern=r"[a-z]+", vocab_size=256)
    split = json.loads(subwordlab.to_hf_json(tok))["pre_tokenizer"]["pretokenizers"][0]
    assert split["behavior"] == "Isolated" and split["invert"] is False


class _NeverRun:
    """A compiled pattern that fails the test if any text is matched against it."""

    def __getattr__(self, name):
        raise AssertionError(f"the empty-match check ran the pattern ({name})")


@pytest.mark.parametrize("pattern", [r"([^@]|[^@])+@", r"(\D|\D)+@", r"(.|.|.|.)*!", r"\p{L}++|\s+"])
def test_the_empty_match_check_never_runs_the_pattern(pattern):
    """The check reads the pattern's shortest match from its parse: a pattern that backtracks
    exponentially on any 40 characters (the first three took minutes on the old 40-character
    probe) is never run on the page's main thread by the check; only the compute worker (the web pattern guard)
    meets it."""
    assert can_match_empty(_NeverRun(), pattern) is False
    assert can_match_empty(_NeverRun(), pattern + "|a*") is True


@pytest.mark.parametrize("pattern", [r"\w+|(?=x)", r"(a*)\1", r"(a)?(?(1)a|)", r"(?<=\d)(?=\d)"])
def test_every_way_to_match_empty_is_refused(engine, pattern):
    with pytest.raises(ValueError, match="matches an empty string"):
        ByteLevel(pattern)
