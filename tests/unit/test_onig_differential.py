r"""Imported Oniguruma patterns split exactly as HF tokenizers splits them, or are refused.

Hypothesis writes patterns from a grammar of what a tokenizer.json regex can carry (POSIX
brackets, (?i), \h \R \X \o{..}, &&, properties, lookarounds, atomic groups, possessive
and Ruby quantifiers, anchors, comments, flags, backreferences) and texts from a pool of
tricky characters. Each pattern is either refused by our import (``from_onig``) or splits
every text into the pieces ``tokenizers``' ``Split(Regex(p), "isolated")`` gives, with the
``regex`` module and with the stdlib fallback. (The fixed cases every tier runs, without
``tokenizers``, are in test_onig_patterns.py.)
"""

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from subwordlab.formats.hf_import import from_onig
from subwordlab.formats.our_json import ModelFileError
from subwordlab.pipeline.normalizers import RegexReplace
from subwordlab.pipeline.pre_tokenizers import Split

pytestmark = pytest.mark.cpython_only

CHARS = ("a", "b", "k", "s", "S", "K", "t", "f", "i", "I", "x", "X", "1", "5", "_", "-", ".", ",", "'", " ", "\t", "\r",
         "\n", "\x85", "\u2028", "\xa0", "é", "e\u0301", "İ", "ı", "ß", "ẞ", "ǅ", "ǆ", "Ǆ", "ſ", "\u212a", "\u212b", "å",
         "Σ", "σ", "ς", "中", "한", "😀", "٣", "४", "\u0301", "\u0345", "\u200d", "²", "ﬁ", "ⓐ", "Ⓐ", "Ⅻ", "ʰ", "ª", "$",
         "^", "[", "]", "\x0b", "ss", "SS")
# Pattern pieces: literals, escapes, properties and class items (as Oniguruma spells them).
LITERALS = ["a", "b", "k", "s", "S", "t", "f", "i", "I", "x", "1", "_", "-", ",", "'", " ", "é", "ß", "ſ", "\u212a", "İ",
            "ǅ", "中", "😀", "\\.", "\\-", "\\t", "\\n", "\\r", "\\x{E9}", "\\x41", "\\u00e9", "\\o{101}", "\\101", "\\cA",
            "\\e", "\\v", "\\x{1F600}"]
ESCAPES = ["\\w", "\\W", "\\s", "\\S", "\\d", "\\D", "\\h", "\\H", "\\b", "\\B", "\\A", "\\z", "\\Z", "\\G", "\\R",
           "\\X", "\\K", "\\N", "\\O", "\\y", "\\p{L}", "\\p{Lu}", "\\p{^Ll}", "\\P{N}", "\\p{Nd}", "\\p{Alpha}",
           "\\p{Greek}", "\\p{Word}", "\\p{Alnum}", "\\p{Space}", "\\p{Any}", "\\P{^Lu}", "\\p{Lower}", "\\p{M}", ".", "^", "$",
           "\\p{Punct}", "\\P{Word}", "\\p{Graph}", "\\p{Print}"]
POSIX = ["alpha", "^alpha", "digit", "^digit", "word", "space", "punct", "upper", "lower", "alnum", "graph", "print",
         "cntrl", "xdigit", "blank", "ascii", "^space"]
CLASS_ITEMS = ["a", "b", "k", "s", "z", "A-Z", "a-z", "0-9", "a-f", "é", "ß", "ſ", "İ", "-", "_", "\\-", "\\]", "\\[",
               "^", "&", "\\w", "\\W", "\\d", "\\s", "\\S", "\\h", "\\p{L}", "\\P{L}", "\\p{Lu}", "\\n", "\\t", "\\x{E9}",
               "\u4e00-\u9fff", "!-/", "\\x{41}-\\x{5A}", "\\b", "\\p{Word}", "\\H", "\\p{Punct}", "\\P{^Lu}", "\\o{141}",
               "[:^word:]"] + [f"[:{p}:]" for p in POSIX]
QUANTIFIERS = ["", "", "", "*", "+", "?", "*?", "+?", "??", "*+", "++", "?+", "{2}", "{1,2}", "{,2}", "{2,}", "{1,2}?",
               "{2}?", "{1,2}+", "{2}+"]


def char_class(inner=None):
    """A class: items, maybe negated, maybe an && intersection or a nested class."""
    items = st.lists(st.sampled_from(CLASS_ITEMS), min_size=1, max_size=4).map("".join)
    nested = st.sampled_from(["[aeiou]", "[^aeiou]", "[[:alpha:]]", "[\\d]"])
    side = st.one_of(items, st.tuples(items, nested).map("".join))
    body = st.one_of(side, st.tuples(side, side).map("&&".join))
    return st.tuples(st.sampled_from(["[", "[^"]), body).map(lambda t: t[0] + t[1] + "]")


def patterns():
    """Patterns from the grammar: atoms with quantifiers, sequences, alternations and groups."""
    atom = st.one_of(st.sampled_from(LITERALS), st.sampled_from(ESCAPES), char_class())

    def extend(inner):
        seq = st.lists(inner, min_size=1, max_size=3).map("".join)
        alt = st.lists(seq, min_size=1, max_size=3).map("|".join)
        group = st.tuples(st.sampled_from(["(", "(?:", "(?=", "(?!", "(?>", "(?i:", "(?-i:", "(?m:", "(?<n>", "(?im:"]),
                          alt).map(lambda t: t[0] + t[1] + ")")
        behind = st.tuples(st.sampled_from(["(?<=", "(?<!"]), st.sampled_from(LITERALS + ["a|bc", "\\d", "[ab]"])).map(
            lambda t: t[0] + t[1] + ")")
        flagged = st.tuples(st.sampled_from(["(?i)", "(?m)", "(?-i)", "(?x)", "(?#c)"]), alt).map("".join)
        backref = st.sampled_from(["(a)\\1", "(?<n>[ab])\\k<n>", "(a|b)\\1+", "(?i)(a)\\1"])
        return st.one_of(group, behind, flagged, backref, st.tuples(inner, st.sampled_from(QUANTIFIERS)).map("".join))

    tree = st.recursive(atom, extend, max_leaves=6)
    return st.lists(tree, min_size=1, max_size=3).map("|".join)


TEXTS = st.lists(st.lists(st.sampled_from(CHARS), max_size=12).map("".join), min_size=4, max_size=4)


def hf_pieces(pattern, text):
    """tokenizers' Split(Regex(pattern), 'isolated') pieces of text."""
    import tokenizers
    from tokenizers import pre_tokenizers
    split = pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="isolated")
    return [piece for piece, _ in split.pre_tokenize_str(text)]


def hf_accepts(pattern):
    import tokenizers
    try:
        tokenizers.Regex(pattern)
    except Exception:  # noqa: BLE001 - tokenizers raises its own exception type for a bad pattern
        return False
    return True



def ours(pattern):
    """Our Split for an imported pattern, or None if the import refuses it."""
    try:
        return Split(from_onig(pattern, "pre_tokenizer.pattern.Regex"), "Isolated")
    except (ModelFileError, ValueError):
        return None


@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                                          HealthCheck.function_scoped_fixture])
@given(pattern=patterns(), texts=TEXTS)
def test_imported_patterns_split_like_oniguruma_or_are_refused(engine, pattern, texts):
    assume(hf_accepts(pattern))
    split = ours(pattern)
    event("refused at import" if split is None else "compared")  # (shown by --hypothesis-show-statistics)
    if split is None:
        return  # refused at import: fine
    for text in texts:
        assert [p for p, _ in split.pre_tokenize_str(text)] == hf_pieces(pattern, text), (pattern, text)


@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                                   HealthCheck.function_scoped_fixture])
@given(pattern=patterns(), texts=TEXTS)
def test_imported_replace_normalizers_replace_like_oniguruma(engine, pattern, texts):
    # a Replace normalizer: the same matches, empty ones included, replaced the same way
    assume(hf_accepts(pattern))
    from tokenizers import Regex, normalizers
    try:
        ours_replace = RegexReplace(from_onig(pattern, "normalizer.pattern.Regex"), "|")
    except (ModelFileError, ValueError):
        return  # refused at import
    hf_replace = normalizers.Replace(Regex(pattern), "|")
    for text in texts:
        assert ours_replace.normalize_str(text) == hf_replace.normalize_str(text), (pattern, text)


def test_the_recorded_pieces_are_what_tokenizers_gives():
    from test_onig_patterns import CASES
    for pattern, text, expected in CASES:
        assert hf_pieces(pattern, text) == expected, pattern


SETS = [f"[[:{name}:]]" for name in ("alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print",
                                     "punct", "space", "upper", "xdigit", "word")]
SETS += [r"\w", r"\s", r"\d", r"\h", r"\p{Alphabetic}", r"\p{Lowercase}", r"\p{Uppercase}", r"\p{Word}", r"\p{Any}",
         r"\p{Assigned}", r"\p{Join_Control}"]
SETS += [r"\W", r"\S", r"\D", r"\H", r"[\w]", r"[\W]", r"[\s]", r"[\d]", r"[\h]", r"[\H]", r"[\p{Word}]", r"\P{Word}"]
SETS += [f"\\p{{{name}}}" for name in ("Alnum", "Alpha", "ASCII", "Blank", "Cntrl", "Digit", "Graph", "Lower", "Print",
                                        "Space", "Upper", "XDigit", "White_Space")]
SETS += [f"[\\p{{{name}}}]" for name in ("Alnum", "Alpha", "Lower", "Upper", "Graph", "Print", "Punct")] + [r"\p{Punct}"]


@pytest.mark.parametrize("pattern", SETS)
def test_each_set_has_oniguruma_members(pattern):
    # every BMP code point, and the first and last of every category run beyond it
    from subwordlab.text import unicode_data
    astral = {cp for ranges in unicode_data.category_ranges().values() for a, b in ranges for cp in (a, b) if a > 0xFFFF}
    text = "".join(chr(cp) for cp in sorted(set(range(0xD800)) | set(range(0xE000, 0x10000)) | astral))
    ours_split = Split(from_onig(pattern, "p"), "Removed")
    import tokenizers
    from tokenizers import pre_tokenizers
    hf_split = pre_tokenizers.Split(tokenizers.Regex(pattern), behavior="removed")
    assert [p for p, _ in ours_split.pre_tokenize_str(text)] == [p for p, _ in hf_split.pre_tokenize_str(text)]


# Split patterns of published tokenizer.json files (GPT-2, Llama 3 / cl100k, o200k, Qwen2, DeepSeek-V3's
# three, HF's Whitespace) and the Llama-3 variant with POSIX brackets.
REAL_PATTERNS = [
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
    r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    r"\p{N}{1,3}", "[一-龥\u3040-ゟ゠-ヿ]+",
    r"[!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|"
    r"\s*[\r\n]+|\s+(?!\S)|\s+",
    r"\w+|[^\w\s]+",
    r"[[:alpha:]]+|[^[:alpha:]]",
]


@pytest.mark.parametrize("pattern", REAL_PATTERNS)
def test_published_patterns_split_the_udhr_like_tokenizers(engine, pattern):
    from corpora import UDHR
    texts = [path.read_text(encoding="utf-8")[:3000] for path in UDHR]
    texts.append("Don't STOP—it's 'quoted' ΣΑΣ İstanbul ǅ ﬁ ²³ ٣٤٥ 👨‍👩‍👧 \t\r\n \u2028x\xa0y 中文 한국어 KELVIN \u212a ſ")
    split = Split(from_onig(pattern, "pre_tokenizer.pattern.Regex"), "Isolated")
    for text in texts:
        assert [p for p, _ in split.pre_tokenize_str(text)] == hf_pieces(pattern, text), text[:40]
