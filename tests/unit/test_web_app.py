"""The page shell (tabs, the panel registry, the context strip, errors) and the
architecture rules of DESIGN.md §2 "Web", on the real index.html through the fake port."""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest
from fakedom import FakePort
from hypothesis import given
from hypothesis import strategies as st

import subwordlab
from subwordlab_web import app as webapp
from subwordlab_web.app import App, assign_colors
from subwordlab_web.state import Corpus

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "web"
INDEX_HTML = (WEB / "index.html").read_text(encoding="utf-8")


def started(sample="seed000") -> tuple[FakePort, App]:
    port = FakePort.from_html(INDEX_HTML)
    app = App(port, warm=False)
    app.start(sample=sample)
    port.settle()
    return port, app


# --- the shell -------------------------------------------------------------------------
def test_start_shows_the_core_version_and_the_train_tab():
    port, app = started()
    assert port.text(port.query("#core-version")) == f"core v{subwordlab.__version__}"
    assert app.current == "train"
    assert port.get_attr(port.query("#tab-train"), "aria-selected") == "true"
    assert not port.query("#panel-train").hidden
    assert port.query("#panel-corpus").hidden and port.query("#panel-inspect").hidden
    assert port.errors == []


def test_tabs_switch_panels_by_click_and_arrow_keys():
    port, app = started()
    port.click(port.query("#tab-inspect"))
    assert app.current == "inspect" and not port.query("#panel-inspect").hidden
    assert port.query("#panel-train").hidden
    ev = port.dispatch(port.query("#tab-inspect"), "keydown", key="ArrowRight")
    assert app.current == "compare" and ev.default_prevented
    port.click(port.query("#tab-share"))  # the last tab
    ev = port.dispatch(port.query("#tab-share"), "keydown", key="ArrowRight")
    assert app.current == "corpus" and ev.default_prevented  # wraps around
    assert port.focused is port.query("#tab-corpus")
    port.dispatch(port.query("#tab-corpus"), "keydown", key="End")
    assert app.current == "share"
    port.dispatch(port.query("#tab-share"), "keydown", key="Home")
    assert app.current == "corpus"
    port.dispatch(port.query("#tab-corpus"), "keydown", key="a")  # other keys: nothing
    assert app.current == "corpus"
    tabindex = {t: port.get_attr(port.query(f"#tab-{t}"), "tabindex") for t in ("corpus", "train", "inspect")}
    assert tabindex == {"corpus": "0", "train": "-1", "inspect": "-1"}  # a roving tab stop


def test_the_context_strip_follows_corpus_spec_and_step():
    port, app = started()
    assert port.text(port.query("#context-corpus")) == "Textbook: low, lower, newest, widest"
    assert port.text(port.query("#context-spec")) == "BPE · 8 merges"
    assert port.text(port.query("#context-step")) == "step 0 of 8"
    port.click(port.query("#train-step"))
    assert port.text(port.query("#context-step")) == "step 1 of 8"


def test_the_worker_boots_only_when_a_corpus_too_big_for_the_page_appears():
    # the default textbook example trains on the page: no worker starts (a lesson page never pays for one)
    port, app = started()
    assert port.compute_warmed == 0 and port.compute_requests == [] and len(app.state.steps) == 8
    app.state.set_corpus(Corpus("All human beings are born free. " * 40))  # 1,280 characters
    assert port.compute_warmed == 1  # it boots while the learner looks; the run will use it
    port.settle()
    assert [r["op"] for r in port.compute_requests] == ["train"]


def test_show_panel_rejects_unknown_ids():
    _, app = started()
    with pytest.raises(ValueError, match="no panel 'admin'"):
        app.show_panel("admin")


def test_a_registered_panel_needs_its_tab_and_section(monkeypatch):
    class Extra:
        def __init__(self, port, state, app):
            self.state = state

    monkeypatch.setattr(webapp, "PANELS", list(webapp.PANELS))
    webapp.register_panel("glossary", "Glossary", Extra)
    with pytest.raises(LookupError, match="panel 'glossary' needs a tab"):
        App(FakePort.from_html(INDEX_HTML), warm=False).start(sample=None)
    html = INDEX_HTML.replace(
        '</div>\n        <p class="context"',
        '<button type="button" class="tab" role="tab" id="tab-glossary" data-tab="glossary" '
        'aria-controls="panel-glossary" aria-selected="false" tabindex="-1">Glossary</button></div>\n        <p class="context"', 1,
    ).replace('<div class="panels">', '<div class="panels"><section id="panel-glossary" data-panel="glossary" hidden></section>', 1)
    port = FakePort.from_html(html)
    app = App(port, warm=False)
    app.start(sample=None)
    assert isinstance(app.panels["glossary"], Extra) and app.panels["glossary"].state is app.state
    app.show_panel("glossary")
    assert not port.query("#panel-glossary").hidden and port.query("#panel-train").hidden


def test_handler_errors_are_shown_on_the_page_without_a_traceback():
    port, app = started()

    def boom(_event):
        raise RuntimeError("something broke: try again")

    port.on(port.query("#train-step"), "click", boom)
    port.click(port.query("#train-step"))
    box = port.query("#app-error")
    assert not box.hidden and port.text(box) == "RuntimeError: something broke: try again"
    assert "Traceback" not in port.text(port.document)


def test_missing_page_structure_fails_early():
    port = FakePort.from_html("<main><span id='core-version'></span><div id='app-error'></div></main>")
    with pytest.raises(LookupError, match="panel 'corpus' needs a tab"):
        App(port, warm=False).start()
    html = INDEX_HTML.replace('id="train-scrubber"', 'id="train-slider"')
    with pytest.raises(LookupError, match="#train-scrubber"):
        App(FakePort.from_html(html), warm=False).start()


def test_teardown_releases_every_listener():
    port, app = started()
    assert port.listener_count() > 20
    app.teardown()
    assert port.listener_count() == 0


def test_redrawing_keeps_the_listener_count_steady():
    port, app = started()
    before = port.listener_count()
    for _ in range(3):
        port.click(port.query("#train-step"))
        port.click(port.query("#tab-inspect"))
        port.click(port.query("#tab-train"))
        port.settle()
    assert port.listener_count() == before


def test_warm_up_builds_the_regex_tables():
    webapp.warm_up()  # must not raise; the second call is instant


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


@pytest.mark.parametrize("module", ["build", "charts", "corpus_data", "exports", "lesson_format", "lesson_maker", "lessons",
                                    "joined_texts", "model_sources", "player", "samples", "session", "state", "token_counts", "tokens",
                                    "wording"])
def test_the_docstring_examples_hold(module):
    mod = importlib.import_module(f"subwordlab_web.{module}")
    failures, tried = doctest.testmod(mod)
    assert tried > 0 and failures == 0


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
    sinks = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function")
    hits = [
        f"{path.relative_to(REPO)}: {sink}"
        for path in WEB.rglob("*")
        if path.suffix in {".py", ".js", ".html"}
        for sink in sinks
        if sink in path.read_text(encoding="utf-8")
    ]
    assert hits == []
