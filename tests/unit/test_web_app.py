"""The page's Python UI, run against the real index.html through the fake DOM port."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import subwordlab
from subwordlab_web import app as webapp
from subwordlab_web.app import App, EncodeView, assign_colors, chips_for
from subwordlab_web.fakedom import FakePort

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "web"
INDEX_HTML = (WEB / "index.html").read_text(encoding="utf-8")


@dataclass
class StubEncoding:
    ids: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    offsets: list[tuple[int, int]] = field(default_factory=list)


class WordTokenizer:
    """One token per whitespace-separated word; id = length; '?' words are unknown."""

    def encode_full(self, text: str) -> StubEncoding:
        enc = StubEncoding()
        pos = 0
        for word in text.split():
            start = text.index(word, pos)
            pos = start + len(word)
            unknown = set(word) == {"?"}
            enc.ids.append(0 if unknown else len(word))
            enc.tokens.append("<unk>" if unknown else word)
            enc.offsets.append((start, pos))
        return enc


class BrokenTokenizer:
    def encode_full(self, text: str) -> StubEncoding:
        if "boom" in text:
            raise ValueError("cannot encode 'boom': try another word")
        return StubEncoding()


def started(tokenizer=None) -> tuple[FakePort, App]:
    port = FakePort.from_html(INDEX_HTML)
    app = App(port, tokenizer=tokenizer or WordTokenizer())
    app.start()
    return port, app


def chip_texts(port: FakePort) -> list[str]:
    return [port.text(el) for el in port.query_all("#encode-chips .chip-text")]


# --- the first screen ---------------------------------------------------------------
def test_start_shows_core_version_and_sample_text():
    port, _ = started()
    assert port.text(port.query("#core-version")) == f"core v{subwordlab.__version__}"
    assert port.value(port.query("#encode-input")) == webapp.SAMPLE_TEXT
    assert chip_texts(port) == webapp.SAMPLE_TEXT.split()
    assert port.text(port.query("#encode-count")) == str(len(webapp.SAMPLE_TEXT.split()))


def test_start_lists_the_builtin_word_counts_most_frequent_first():
    port, _ = started()
    words = [port.text(el) for el in port.query_all("#builtin-corpus .word")]
    counts = [int(port.text(el)) for el in port.query_all("#builtin-corpus .count")]
    assert dict(zip(words, counts)) == webapp.BUILTIN_COUNTS
    assert counts == sorted(counts, reverse=True)
    assert port.text(port.query("#builtin-merges")) == str(webapp.BUILTIN_MERGES)


def test_typing_updates_chips_ids_and_stats():
    port, _ = started()
    box = port.query("#encode-input")
    port.input(box, "ab  cdef")
    assert chip_texts(port) == ["ab", "cdef"]
    assert [port.text(el) for el in port.query_all("#encode-chips .chip-id")] == ["2", "4"]
    assert port.text(port.query("#encode-count")) == "2"
    assert port.text(port.query("#encode-chars")) == "8"
    assert port.text(port.query("#encode-ratio")) == "4.00"
    assert port.query("#encode-empty").hidden
    first, second = port.query_all("#encode-chips .chip")
    assert port.get_attr(first, "title") == "id 2 · chars 0–2 · 'ab'"
    assert "data-gap" not in first.attrs and "data-gap" in second.attrs


def test_empty_text_shows_the_empty_state():
    port, _ = started()
    port.input(port.query("#encode-input"), "   ")
    assert chip_texts(port) == []
    assert not port.query("#encode-empty").hidden
    assert port.text(port.query("#encode-count")) == "0"
    assert port.text(port.query("#encode-ratio")) == "–"


def test_user_text_is_text_never_markup():
    port, _ = started()
    port.input(port.query("#encode-input"), "<img src=x onerror=alert(1)>")
    chip_text = port.query("#encode-chips .chip-text")
    assert port.text(chip_text) == "<img"
    assert chip_text.element_children == []
    assert port.query_all("#encode-chips img") == []


def test_unknown_tokens_are_flagged():
    port, _ = started()
    port.input(port.query("#encode-input"), "ok ??? ok")
    chips = port.query_all("#encode-chips .chip")
    assert ["data-unk" in c.attrs for c in chips] == [False, True, False]


def test_neighbouring_chips_never_share_a_colour():
    port, _ = started()
    port.input(port.query("#encode-input"), "aa bb cc dd eeeeeeeeee ff")  # ids 2,2,2,2,10,2
    colors = [port.get_attr(c, "data-color") for c in port.query_all("#encode-chips .chip")]
    assert all(a != b for a, b in zip(colors, colors[1:]))
    assert all(0 <= int(c) < webapp.PALETTE_SIZE for c in colors)


def test_long_text_is_capped_with_a_note(monkeypatch):
    monkeypatch.setattr(webapp, "MAX_CHIPS", 5)
    port, _ = started()
    port.input(port.query("#encode-input"), " ".join(["w"] * 12))
    assert len(chip_texts(port)) == 5
    assert port.text(port.query("#encode-count")) == "12"
    more = port.query("#encode-more")
    assert not more.hidden and "first 5 of 12" in port.text(more)


def test_handler_errors_are_shown_on_the_page():
    port, _ = started(BrokenTokenizer())
    port.input(port.query("#encode-input"), "boom")
    box = port.query("#app-error")
    assert not box.hidden
    assert port.text(box) == "ValueError: cannot encode 'boom': try another word"


def test_rerender_keeps_one_listener_per_wire():
    port, _ = started()
    before = port.listener_count()
    for text in ["a", "a b", "a b c", ""]:
        port.input(port.query("#encode-input"), text)
    assert port.listener_count() == before == 1


def test_missing_page_structure_fails_early():
    port = FakePort.from_html("<main><span id='core-version'></span><div id='app-error'></div></main>")
    with pytest.raises(LookupError, match="#builtin-corpus|tpl-wordcount"):
        App(port, tokenizer=WordTokenizer()).start()


def test_view_refuses_a_page_without_the_chip_template():
    html = INDEX_HTML.replace('id="tpl-chip"', 'id="tpl-renamed"')
    with pytest.raises(LookupError, match="tpl-chip"):
        EncodeView(FakePort.from_html(html), WordTokenizer())


def test_teardown_releases_every_listener():
    port, app = started()
    app.teardown()
    assert port.listener_count() == 0


# --- pure helpers --------------------------------------------------------------------
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=200), st.integers(2, 12))
def test_assign_colors_neighbours_differ(ids, palette_size):
    colors = assign_colors(ids, palette_size)
    assert len(colors) == len(ids)
    assert all(0 <= c < palette_size for c in colors)
    assert all(a != b for a, b in zip(colors, colors[1:]))


def test_assign_colors_keeps_an_ids_colour_when_it_can():
    assert assign_colors([3, 11, 5, 5], 8) == [3, 4, 5, 6]
    assert assign_colors([1, 2, 1], 8) == [1, 2, 1]
    with pytest.raises(ValueError, match="at least 2"):
        assign_colors([1], 1)


def test_chips_mark_where_the_text_has_a_gap():
    enc = StubEncoding(ids=[1, 2, 3, 4], tokens=["low", "est", "</w>", "new"], offsets=[(0, 3), (3, 6), (6, 6), (7, 10)])
    assert [c.gap_before for c in chips_for(enc)] == [False, False, False, True]


def test_chips_for_rejects_ragged_encodings():
    with pytest.raises(ValueError, match="same length"):
        chips_for(StubEncoding(ids=[1, 2], tokens=["a"], offsets=[(0, 1)]))


# --- the real core behind the first screen ------------------------------------------
def test_builtin_tokenizer_segments_the_textbook_example():
    tok = webapp.builtin_tokenizer()
    enc = tok.encode_full("lowest newest")
    assert enc.tokens[:2] == ["low", "est</w>"]
    assert len(enc.ids) == len(enc.tokens) == len(enc.offsets)
    for start, end in enc.offsets:
        assert 0 <= start <= end <= len("lowest newest")


def test_app_with_the_builtin_tokenizer_renders_real_chips():
    port = FakePort.from_html(INDEX_HTML)
    App(port).start()
    port.input(port.query("#encode-input"), "lowest newest")
    expected = webapp.builtin_tokenizer().encode_full("lowest newest")
    assert chip_texts(port) == list(expected.tokens)


# --- the architecture rules of DESIGN.md §2 "Web" ------------------------------------
def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_only_the_dom_port_imports_the_browser():
    modules = sorted((WEB / "subwordlab_web").glob("*.py"))
    assert modules, "web/subwordlab_web has no modules"
    offenders = [m.name for m in modules if m.name != "dom.py" and _imports(m) & {"js", "pyodide"}]
    assert offenders == []


def test_fake_port_offers_everything_the_browser_port_does():
    tree = ast.parse((WEB / "subwordlab_web" / "dom.py").read_text(encoding="utf-8"))
    browser = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "BrowserPort")
    public = {n.name for n in browser.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    missing = sorted(name for name in public if not callable(getattr(FakePort, name, None)))
    assert missing == []


def test_no_html_injection_sinks_in_the_page_sources():
    sinks = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write")
    hits = [
        f"{path.relative_to(REPO)}: {sink}"
        for path in WEB.rglob("*")
        if path.suffix in {".py", ".js", ".html"}
        for sink in sinks
        if sink in path.read_text(encoding="utf-8")
    ]
    assert hits == []
