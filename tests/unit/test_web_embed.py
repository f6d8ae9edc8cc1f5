"""Embed mode's pure helpers (subwordlab_web.embed): query parsing and the iframe snippet."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from subwordlab_web.embed import MAX_QUERY_CHARS, MAX_TEXT_CHARS, EmbedParams, embed_url, full_page_url, parse_query, snippet


def test_a_full_query():
    p = parse_query("?embed=1&panel=inspect&preset=wordpiece&sample=udhr_eng&vocab=800&step=12&text=Hi%20there")
    assert p == EmbedParams(embed=True, panel="inspect", preset="wordpiece", sample="udhr_eng",
                            vocab_size=800, step=12, text="Hi there")
    assert p.picks_experiment


@pytest.mark.parametrize("query, embed", [("", False), ("?", False), ("embed=1", True), ("?embed=true", True),
                                          ("?embed=0", False), ("?embed", False), ("?embed=yes&x=1", True)])
def test_the_embed_flag(query, embed):
    p = parse_query(query)
    assert p.embed is embed and not p.problems and not p.picks_experiment


@pytest.mark.parametrize(
    "query, problem",
    [
        ("embed=1&panel=admin", "panel='admin' must be one of corpus, train, inspect, compare"),
        ("embed=1&preset=gpt4", "preset='gpt4' must be one of"),
        ("embed=1&sample=../x", "sample='../x' is not a sample name"),
        ("embed=1&vocab=abc", "vocab='abc' must be a whole number"),
        ("embed=1&vocab=0", "vocab=0 must be between 1"),
        ("embed=1&step=-1", "step='-1' must be a whole number"),
        ("embed=1&merges=99999999", "merges=99999999 must be between 0 and 1,000,000"),
        ("embed=1&vocab=10&merges=5", "give vocab= or merges=, not both"),
        # issue 29: a bad yes/no value was read as "no" without a word
        ("embed=1&lock=2", "lock='2' must be 1 or 0; the settings were not locked"),
        ("embed=2", "embed='2' must be 1 or 0; read as 1"),
    ],
)
def test_bad_values_are_dropped_with_a_named_problem(query, problem):
    p = parse_query(query)
    assert p.embed
    assert len(p.problems) == 1 and problem in p.problems[0]


def test_unknown_parameters_are_ignored_silently():
    p = parse_query("?utm_source=course&embed=1&fbclid=xyz")
    assert p == EmbedParams(embed=True)


def test_oversized_query_and_text():
    assert parse_query("?embed=1&text=" + "a" * MAX_QUERY_CHARS).problems
    assert len(parse_query("?embed=1&text=" + "a" * (MAX_TEXT_CHARS + 50)).text) == MAX_TEXT_CHARS


@given(st.text(max_size=300))
def test_any_query_parses_without_raising(query):
    assert isinstance(parse_query(query), EmbedParams)


def test_embed_url_keeps_other_params_and_sets_the_fragment():
    url = embed_url("https://x.org/lab/index.html?lang=en&panel=corpus#old", panel="train", fragment="v1.abc")
    assert url == "https://x.org/lab/index.html?embed=1&panel=train&lang=en#v1.abc"
    assert embed_url("http://127.0.0.1:8000/") == "http://127.0.0.1:8000/?embed=1"


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_snippet_is_one_iframe_with_escaped_attributes():
    src = 'https://x.org/?embed=1&panel=train#v1.a"b<c>'
    html = snippet(src, title='Tokens "&" <you>', height=500)
    parser = _Tags()
    parser.feed(html)
    assert [t for t, _ in parser.tags] == ["iframe"]
    attrs = parser.tags[0][1]
    assert attrs["src"] == src and attrs["title"] == 'Tokens "&" <you>'
    assert attrs["height"] == "500" and attrs["width"] == "100%" and attrs["loading"] == "lazy"
    assert html.endswith("></iframe>") and "<c>" not in html


def test_full_page_url_drops_embed_and_its_shape():
    assert full_page_url("https://x.org/?embed=1&panel=train&cards=player,candidates&lock=1&step=3#v1.a") == \
        "https://x.org/?panel=train&step=3#v1.a"


def test_full_page_url_drops_only_embed():
    assert full_page_url("https://x.org/lab/?embed=1&panel=train#v1.abc") == "https://x.org/lab/?panel=train#v1.abc"
    assert full_page_url("http://127.0.0.1:8000/index.html?embed=1") == "http://127.0.0.1:8000/index.html"
