"""The BPE worked examples of the lessons in lessons/, reproduced exactly (counts included)."""

import pytest

import subwordlab

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)


def merges_with_counts(corpus, n, **options):
    events = list(subwordlab.iter_train(corpus, preset="bpe", num_merges=n, **options))
    steps = [e for e in events if e.kind == "merge"]
    return [(e.pair, e.count) for e in steps], events[-1].tokenizer


def segmentation(tok, words):
    return {tuple(tok.tokenize(w)): n for w, n in words.items()}


# -- seed 000: low/lower/newest/widest, </w>, first-encountered ties ----------------------
SEED0 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def test_seed000_eight_merges_and_lowest():
    merges, tok = merges_with_counts(SEED0, 8)
    assert [p for p, _ in merges] == [
        ("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"),
        ("lo", "w"), ("n", "e"), ("ne", "w"), ("new", "est</w>"),
    ]
    assert tok.tokenize("lowest") == ["low", "est</w>"]


def test_seed000_unknown_character_is_an_error_by_default():
    _, tok = merges_with_counts(SEED0, 8)
    with pytest.raises(ValueError, match="not in the vocabulary"):
        tok.encode("lowq")


def test_seed000_exercise_three_steps_with_word_tables():
    merges, tok = merges_with_counts(SEED0, 3)
    assert merges == [(("e", "s"), 9), (("es", "t"), 9), (("est", "</w>"), 9)]
    tables = [
        {("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "r", "</w>"): 2,
         ("n", "e", "w", "es", "t", "</w>"): 6, ("w", "i", "d", "es", "t", "</w>"): 3},
        {("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "r", "</w>"): 2,
         ("n", "e", "w", "est", "</w>"): 6, ("w", "i", "d", "est", "</w>"): 3},
        {("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "r", "</w>"): 2,
         ("n", "e", "w", "est</w>"): 6, ("w", "i", "d", "est</w>"): 3},
    ]
    for step, table in enumerate(tables, 1):
        assert segmentation(tok.truncated(step), SEED0) == table


# -- seed 002: hug/pug/pun/bun/hugs without a marker, <unk> ------------------------------
SEED2 = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}


def test_seed002_three_merges_words_and_unknown():
    merges, tok = merges_with_counts(SEED2, 3, end_of_word=None, unk_token="<unk>")
    assert [p for p, _ in merges] == [("u", "g"), ("u", "n"), ("h", "ug")]
    assert segmentation(tok, SEED2) == {
        ("hug",): 10, ("p", "ug"): 5, ("p", "un"): 12, ("b", "un"): 4, ("hug", "s"): 5,
    }
    assert tuple(tok.tokenize("bugs")) == ("b", "ug", "s")
    assert tuple(tok.tokenize("mug")) == ("<unk>", "ug")


# -- seed 003: low/lowest/newer/wider, "_" marker, lexicographic ties ----------------------
SEED3 = {"low": 5, "lowest": 2, "newer": 6, "wider": 3}


def test_seed003_six_merges_with_counts_and_words():
    merges, tok = merges_with_counts(SEED3, 6, end_of_word="_", tie_break="lex_min")
    assert merges == [
        (("e", "r"), 9), (("er", "_"), 9), (("l", "o"), 7),
        (("lo", "w"), 7), (("e", "w"), 6), (("ew", "er_"), 6),
    ]
    assert segmentation(tok, SEED3) == {
        ("low", "_"): 5, ("low", "e", "s", "t", "_"): 2, ("n", "ewer_"): 6, ("w", "i", "d", "er_"): 3,
    }
    assert tok.tokenize("lower") == ["low", "er_"]


def test_seed003_rower_and_tired():
    _, tok = merges_with_counts(SEED3, 6, end_of_word="_", tie_break="lex_min")  # the lesson's settings
    assert tok.tokenize("rower") == ["r", "o", "w", "er_"]
    assert tok.tokenize("tired") == ["t", "i", "r", "e", "d", "_"]


def test_seed003_lowest_eight_variant():
    corpus = dict(SEED3, lowest=8)
    merges, tok = merges_with_counts(corpus, 6, end_of_word="_", tie_break="lex_min")
    assert merges == [
        (("w", "e"), 14), (("l", "o"), 13), (("r", "_"), 9),
        (("lo", "we"), 8), (("lowe", "s"), 8), (("lowes", "t"), 8),
    ]
    assert tok.tokenize("lowest") == ["lowest", "_"]
    assert tok.tokenize("newer") == ["n", "e", "we", "r_"]
    assert tok.tokenize("wider") == ["w", "i", "d", "e", "r_"]
    assert tok.tokenize("low") == ["lo", "w", "_"]


# -- seed 004: token/tokens/.../stemming, ten merges -------------------------------------
SEED4 = {"token": 6, "tokens": 4, "tokenize": 3, "tokenizer": 2, "stem": 4, "stems": 3, "stemming": 2}


def test_seed004_ten_merges_words_and_new_words():
    # exactly the lesson's settings: "stemmed" has a 'd' the corpus never had, and it passes
    # through tokenize as itself (the lesson's "nothing is unknown, the rare part falls back
    # to characters"); encode has no id for it and says so
    merges, tok = merges_with_counts(SEED4, 10)
    assert [f"{a} + {b} -> {a + b}  (count {c})" for (a, b), c in merges] == [
        "t + o -> to  (count 15)", "to + k -> tok  (count 15)", "tok + e -> toke  (count 15)",
        "toke + n -> token  (count 15)", "s + t -> st  (count 9)", "st + e -> ste  (count 9)",
        "ste + m -> stem  (count 9)", "s + </w> -> s</w>  (count 7)",
        "token + </w> -> token</w>  (count 6)", "token + i -> tokeni  (count 5)",
    ]
    assert [" ".join(tok.tokenize(w)) for w in SEED4] == [
        "token</w>", "token s</w>", "tokeni z e </w>", "tokeni z e r </w>",
        "stem </w>", "stem s</w>", "stem m i n g </w>",
    ]
    assert tok.tokenize("tokens") == ["token", "s</w>"]
    assert tok.tokenize("stemmed") == ["stem", "m", "e", "d", "</w>"]
    assert tok.tokenize("tokenizers") == ["tokeni", "z", "e", "r", "s</w>"]
    assert "d" not in tok.model.token_to_id
    enc = tok.encode_full("stemmed", keep_unknown=True)
    assert enc.ids[1:] == [tok.token_to_id("m"), tok.token_to_id("e"), None, tok.token_to_id("</w>")]
    assert enc.unknown == [False, False, False, True, False] and enc.offsets[3] == (6, 7)
    with pytest.raises(ValueError, match=r"the character 'd' \(U\+0064\) is not in the vocabulary.*unk_token"):
        tok.encode("stemmed")
    # with an unk token the character has an id
    with_unk = subwordlab.train(SEED4, preset="bpe", num_merges=10, unk_token="<unk>")
    assert with_unk.tokenize("stemmed") == ["stem", "m", "e", "<unk>", "</w>"]
