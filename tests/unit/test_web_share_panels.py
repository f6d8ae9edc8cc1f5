"""The Compare, Files and Share panels and embed mode, on the real index.html through the fake port."""

from __future__ import annotations

import doctest
import hashlib
import importlib
import json
from pathlib import Path

import pytest
from fakedom import FakeFile, FakePort
from hypothesis import given
from hypothesis import strategies as st

import subwordlab
from subwordlab.base.events import drain
from subwordlab.stats import text_stats
from subwordlab_web import compare as cm
from subwordlab_web import share
from subwordlab_web.app import App
from subwordlab_web.samples import SAMPLES

REPO = Path(__file__).resolve().parents[2]
INDEX_HTML = (REPO / "web" / "index.html").read_text(encoding="utf-8")
CORPORA = REPO / "corpora"
PAGE = "http://127.0.0.1:8000/index.html"

UDHR_FAKE = {  # tiny stand-ins for the six UDHR files (the real ones are read in the e2e tier)
    "eng": "All human beings are born free and equal in dignity and rights.",
    "hin": "सभी मनुष्यों को गौरव और अधिकारों के मामले में जन्मजात स्वतन्त्रता और समानता प्राप्त है।",
    "cmn_hans": "人人生而自由,在尊严和权利上一律平等。",
    "arb": "يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق.",
    "kor": "모든 인간은 태어날 때부터 자유로우며 그 존엄과 권리에 있어 동등하다.",
    "rus": "Все люди рождаются свободными и равными в своем достоинстве и правах.",
}


def page(search: str = "", hash: str = "") -> FakePort:
    port = FakePort.from_html(INDEX_HTML)
    port.href = PAGE + search + hash
    for code, text in UDHR_FAKE.items():
        port.fetchable[f"samples/udhr/udhr_{code}.txt"] = f"Title\n© OHCHR\n---\n\n{text}\n"
    port.fetchable["samples/taylorswift.txt"] = "Taylor Alison Swift is an American singer-songwriter. " * 20
    return port


def started(sample: str | None = "seed000", search: str = "", hash: str = "") -> tuple[FakePort, App]:
    port = page(search, hash)
    app = App(port, warm=False)
    app.start(sample=sample)
    port.settle()
    assert port.errors == []
    return port, app


def trained(sample: str = "seed000") -> tuple[FakePort, App]:
    port, app = started(sample)
    app.panels["train"].start_training()
    port.settle()
    assert app.state.recording is not None and app.state.recording.done
    app.state.seek(len(app.state.recording.steps))
    return port, app


@pytest.mark.parametrize("module", ["share", "embed", "exports", "compare"])
def test_the_docstring_examples_hold(module):
    mod = importlib.import_module(f"subwordlab_web.{module}")
    failures, tried = doctest.testmod(mod)
    assert tried > 0 and failures == 0


def test_the_three_panels_have_tabs():
    port, app = started(None)
    for pid in ("compare", "files", "share"):
        app.show_panel(pid)
        assert not port.query(f"#panel-{pid}").hidden
    assert port.errors == []


# -- Files -------------------------------------------------------------------------------------

def test_download_our_json_and_the_vocabulary_file():
    port, app = trained()
    app.show_panel("files")
    tok, _ = app.state.tokenizer_at_step()
    port.click(port.query("#files-dl-ours"))
    name, text, mime = port.downloads[-1]
    assert name == f"subwordlab-bpe-{tok.vocab_size}.json" and mime == "application/json"
    assert text == subwordlab.to_json(tok)
    port.click(port.query("#files-dl-vocab"))
    name, text, _ = port.downloads[-1]
    assert name.endswith("-vocab.txt") and "'est' + '</w>'" in text
    assert "Saved" in port.text(port.query("#files-status"))


def test_hf_export_unavailable_for_textbook_bpe_says_why():
    port, app = trained()
    app.show_panel("files")
    assert "Checking" in port.text(port.query("#files-note-hf"))
    port.settle()
    button = port.query("#files-dl-hf")
    assert "disabled" in button.attrs
    assert "end_of_word" in port.text(port.query("#files-note-hf"))


def test_hf_export_for_wordpiece():
    port, app = started("seed004")
    from subwordlab_web.state import TrainSpec

    app.state.set_spec(TrainSpec("wordpiece", "num_merges", 10))
    app.panels["train"].start_training()
    port.settle()
    app.show_panel("files")
    port.settle()
    port.click(port.query("#files-dl-hf"))
    name, text, _ = port.downloads[-1]
    assert name == "tokenizer.json" and json.loads(text)["model"]["type"] == "WordPiece"


def test_a_big_vocabulary_is_converted_to_tokenizer_json_only_on_request(monkeypatch):
    from subwordlab_web import files_panel

    port, app = trained()
    tok = subwordlab.train("the quick brown fox jumps " * 5, preset="byte_bpe", vocab_size=270)
    monkeypatch.setattr(files_panel, "HF_CHECK_MAX_TOKENS", 269)
    calls = []
    real = files_panel.hf_json
    monkeypatch.setattr(files_panel, "hf_json", lambda t: calls.append(t) or real(t))
    app.show_panel("files")
    app.state.set_imported(tok, "big.json")
    port.settle()
    assert calls == [] and "disabled" not in port.query("#files-dl-hf").attrs
    assert "Converted when you download it (270 tokens" in port.text(port.query("#files-note-hf"))
    port.click(port.query("#files-dl-hf"))
    port.settle()
    name, text, _ = port.downloads[-1]
    assert calls == [tok] and name == "tokenizer.json" and json.loads(text)["model"]["type"] == "BPE"
    assert port.text(port.query("#files-status")).startswith("Saved tokenizer.json")


def _file_input(port, name, data):
    box = port.query("#files-import")
    box.files = [FakeFile(name, data)]
    port.dispatch(box, "change")
    port.settle()


def test_a_big_tokenizer_json_loads_in_slices_with_its_progress_and_as_a_whole_load_would(monkeypatch):
    """Over BIG_MODEL_BYTES a tokenizer.json is parsed and built a slice at a time (the page
    painting its progress between slices); the tokenizer is the one a whole load makes."""
    from subwordlab_web import files_panel
    from subwordlab_web.exports import import_model

    port, app = trained()
    said = []
    real_sleep = port.sleep

    async def sleep(seconds):  # (each hand-back to the browser: what the page shows then)
        said.append(port.text(port.query("#files-status")))
        await real_sleep(seconds)

    monkeypatch.setattr(port, "sleep", sleep)
    monkeypatch.setattr(files_panel, "LOAD_SLICE_SECONDS", -1)
    tok = subwordlab.train("the quick brown fox jumps over the lazy dog, ünïcödé " * 20, preset="byte_bpe", vocab_size=300)
    data = subwordlab.to_hf_json(tok).encode()
    monkeypatch.setattr(files_panel, "BIG_MODEL_BYTES", len(data) - 1)
    _file_input(port, "tokenizer.json", data)
    readings = [s for s in said if s.startswith("Reading tokenizer.json… ")]
    percents = [int(s.rsplit(" ", 1)[1].rstrip("%")) for s in readings]
    assert len(readings) >= 4 and percents == sorted(percents) and percents[-1] > 50, said
    assert port.text(port.query("#files-status")).startswith("Loaded tokenizer.json")
    loaded, whole = app.state.imported, import_model("tokenizer.json", data).tokenizer
    text = "The quick brown fox, ünïcödé 你好 🙂"
    assert loaded.encode(text) == whole.encode(text) == tok.encode(text)
    assert loaded.model.ranks == whole.model.ranks
    # a small file loads whole (no hand-back while it loads)
    said.clear()
    monkeypatch.setattr(files_panel, "BIG_MODEL_BYTES", len(data))
    _file_input(port, "tokenizer.json", data)
    assert not any(s.startswith("Reading tokenizer.json… ") for s in said), said


def test_import_makes_the_current_tokenizer_and_a_bad_file_changes_nothing():
    port, app = trained()
    st = app.state
    other = subwordlab.train("the quick brown fox jumps over the lazy dog " * 5, preset="byte_bpe", vocab_size=270)
    rec_before = st.recording
    _file_input(port, "broken.json", b'{"version": "1.0", "model": {"type": "WordLevel"}, "added_tokens": []}')
    err = port.query("#files-error")
    assert not err.hidden and "'broken.json'" in port.text(err) and "WordLevel" in port.text(err)
    assert getattr(st, "imported", None) is None and st.recording is rec_before

    _file_input(port, "tokenizer.json", subwordlab.to_hf_json(other).encode())
    assert st.imported is not None and st.imported_name == "tokenizer.json"
    assert "Loaded tokenizer.json (Hugging Face tokenizer.json, BPE, 270 tokens)" in port.text(port.query("#files-status"))
    assert st.current_tokenizer()[0] is st.imported
    # the inspector now encodes with it
    app.show_panel("inspect")
    st.set_inspect(text="the lazy fox")
    port.settle()
    assert port.text(port.query("#inspect-count")) == str(len(other.encode("the lazy fox")))
    # and the compare panel offers it as a column
    app.show_panel("compare")
    assert "Imported: tokenizer.json" in port.text(port.query("#cmp-current-label"))
    # back to the trained one
    app.show_panel("files")
    port.click(port.query("#files-revert"))
    assert st.imported is None and st.current_tokenizer()[0] is st.tokenizer_at_step()[0]


# -- Share -------------------------------------------------------------------------------------

def test_copy_link_encodes_the_page_state():
    port, app = trained()
    st = app.state
    st.seek(3)
    st.set_inspect(text="lowest widest", sample_seed=7)
    app.show_panel("share")
    port.click(port.query("#share-copy"))
    port.settle()
    url = port.value(port.query("#share-link"))
    assert url.startswith(PAGE + "#v1.") and port.clipboard == url
    exp = share.decode_fragment(url.split("#", 1)[1])
    assert exp.step == 3 and exp.panel == "train" and exp.inspect_text == "lowest widest" and exp.seed == 7
    assert exp.corpus.kind == "inline" and exp.corpus.text == st.corpus.text and exp.corpus.format == "word_counts"
    assert exp.train.preset == "bpe" and exp.train.options["num_merges"] == 8
    assert "travels inside the link" in port.text(port.query("#share-corpus"))
    assert "Link copied" in port.text(port.query("#share-status"))


def test_a_link_reproduces_the_experiment_byte_for_byte():
    src_port, src = trained("seed003")
    src.state.seek(4)
    src.show_panel("inspect")
    url, _ = src.panels["share"].make_link()
    want = subwordlab.to_json(src.state.tokenizer_at_step()[0])

    port, app = started(search="", hash="#" + url.split("#", 1)[1])
    st = app.state
    assert port.get_attr(port.query("body"), "data-share") == "applied"
    assert st.step == 4 and app.current == "inspect"
    assert st.spec == src.state.spec and st.corpus.text == src.state.corpus.text
    assert subwordlab.to_json(st.tokenizer_at_step()[0]) == want


@pytest.mark.parametrize("fragment, message", [
    ("#v1.AAAA", "damaged"),
    ("#v9.eNo", "newer version"),
    ("#v1." + "A" * 40_000, "too long"),
])
def test_a_bad_link_shows_one_message_over_the_default_page(fragment, message):
    port, app = started(hash=fragment)
    banner = port.query("#link-banner")
    assert not banner.hidden and message in port.text(banner)
    assert "Showing the default page" in port.text(banner)
    assert port.get_attr(port.query("body"), "data-share") == "error"
    assert app.state.corpus.sample == "seed000"  # the default page loaded as usual


def test_a_file_corpus_waits_for_the_matching_upload():
    text = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(30_000))  # too big to inline
    exp = share.Experiment(share.CorpusRef.file("big.txt", text), share.Config("bpe", {"num_merges": 5}), step=2)
    fragment = share.encode_fragment(exp)
    port, app = started(hash="#" + fragment)
    banner = port.query("#link-banner")
    assert port.get_attr(port.query("body"), "data-share") == "waiting-file"
    assert "“big.txt”" in port.text(banner) and share.sha256_text(text) in port.text(banner)
    from subwordlab_web.state import Corpus

    app.state.set_corpus(Corpus("something else"))
    assert "different text" in port.text(banner)
    app.state.set_corpus(Corpus(text, name="big.txt"))
    port.settle()
    assert port.get_attr(port.query("body"), "data-share") == "applied"
    assert app.state.step == 2 and app.state.spec.size == 5


def test_embed_mode_from_the_query():
    port, app = started(search="?embed=1&panel=inspect&preset=bpe&sample=seed000&merges=8&step=3&text=lowest")
    body = port.query("body")
    assert port.get_attr(body, "data-embed") == "1" and port.get_attr(body, "data-share") == "applied"
    assert app.current == "inspect" and app.state.step == 3
    assert app.state.inspect.text == "lowest"
    # "Open the full playground" carries the learner's experiment: the query, and the state as a fragment
    href = port.get_attr(port.query("#embed-open"), "href")
    query, _, fragment = href.partition("#")
    assert query == PAGE + "?panel=inspect&preset=bpe&sample=seed000&merges=8&step=3&text=lowest"
    exp = share.decode_fragment(fragment)
    assert (exp.step, exp.panel, exp.inspect_text) == (3, "inspect", "lowest")
    app.state.seek(5)  # the learner moves on
    app.state.set_inspect(text="newest")
    exp = share.decode_fragment(port.get_attr(port.query("#embed-open"), "href").partition("#")[2])
    assert (exp.step, exp.inspect_text) == (5, "newest")


def test_the_full_page_takes_the_same_query():
    port, app = started(search="?panel=inspect&sample=seed003&step=2")
    assert port.get_attr(port.query("body"), "data-embed") is None
    assert port.get_attr(port.query("body"), "data-share") == "applied"
    assert app.current == "inspect" and app.state.corpus.sample == "seed003" and app.state.step == 2


def test_embed_snippet_is_an_iframe_of_this_experiment():
    port, app = trained()
    app.show_panel("share")
    port.input(port.query("#share-embed-panel"), "inspect", event="change")
    port.click(port.query("#share-embed-copy"))
    port.settle()
    code = port.value(port.query("#share-embed-code"))
    assert code.startswith('<iframe src="http://127.0.0.1:8000/index.html?embed=1&amp;panel=inspect#v1.')
    assert port.clipboard == code


# -- Compare -----------------------------------------------------------------------------------

CMP_CORPUS = ("All human beings are born free and equal in dignity and rights. They are endowed with reason "
              "and conscience and should act towards one another in a spirit of brotherhood. ") * 4


def compared(vocab: int = 90, configs=None) -> tuple[FakePort, App]:
    from subwordlab_web.state import Corpus

    port, app = started(None)
    app.state.set_corpus(Corpus(CMP_CORPUS, name="UDHR excerpt"))
    panel = app.panels["compare"]
    if configs is not None:
        panel.configs = configs
        panel.render_configs()
    app.show_panel("compare")
    port.set_value(port.query("#cmp-vocab"), str(vocab))
    port.click(port.query("#cmp-run"))
    port.settle()
    assert port.errors == []
    return port, app


def test_compare_trains_three_columns_and_marks_disagreements():
    port, app = compared()
    panel = app.panels["compare"]
    assert [c.status.split(":")[0] for c in panel.run_state.columns] == ["done", "done", "done"]
    sizes = [c.tokenizer.vocab_size for c in panel.run_state.columns]
    assert sizes[:2] == [90, 90] and sizes[2] <= 90  # Unigram may stop below a target its seed cannot fill
    assert not port.query("#cmp-results").hidden
    text = port.value(port.query("#cmp-text"))
    cols = port.query_all("#cmp-columns .cmp-col")
    assert len(cols) == 3
    spans = [list(c.tokenizer.encode_full(text, disallowed_special=()).offsets) for c in panel.run_state.columns]
    flags = cm.boundary_disagreement(text, spans).flags
    for col, fl in zip(cols, flags):
        chips = port.query_all(".chip", col)
        assert ["data-disagree" in chip.attrs for chip in chips] == fl
    assert any(any(f) for f in flags)
    assert "differently" in port.text(port.query("#cmp-disagree"))


def test_a_new_corpus_makes_the_compare_message_say_its_results_are_from_the_one_before():
    port, app = compared()
    from subwordlab_web.state import Corpus

    message = port.query("#cmp-message")
    assert port.text(message).startswith("Done: 3 of 3 columns trained.")
    app.state.set_corpus(Corpus("a brand new text", name="Your text"))
    port.settle()
    assert not message.hidden and "Done:" not in port.text(message)
    assert port.text(message).startswith("The corpus changed: these columns were trained on the one before")
    assert "“Your text”" in port.text(message)


def test_compare_statistics_match_the_core():
    port, app = compared()
    panel = app.panels["compare"]
    text = port.value(port.query("#cmp-text"))
    for key in ("tokens", "chars_per_token", "split_words"):
        row = next(r for r in port.query_all("#cmp-stats-body tr") if r.attrs.get("data-stat") == key)
        cells = [port.text(td) for td in port.query_all("td", row)]
        want = [cm.STAT_ROWS[[s.key for s in cm.STAT_ROWS].index(key)].fmt(text_stats(c.tokenizer, text)[key])
                for c in panel.run_state.columns]
        assert cells == want


def test_compare_parity_table_and_chart():
    port, app = compared()
    panel = app.panels["compare"]
    rows = port.query_all("#cmp-parity-table tr")[1:]
    assert [r.attrs["data-lang"] for r in rows] == [s.id for s in SAMPLES.values() if s.udhr]
    eng_counts = [int(td.attrs["data-tokens"]) for td in port.query_all("td", rows[0])]
    want = [len(c.tokenizer.encode(UDHR_FAKE["eng"])) for c in panel.run_state.columns]
    assert eng_counts == want
    assert all("1.00×" in port.text(td) for td in port.query_all("td", rows[0]))
    assert len(port.query_all("#cmp-parity rect")) == 18  # 6 languages × 3 columns
    port.input(port.query("#cmp-reference"), "udhr_hin", event="change")
    rows = port.query_all("#cmp-parity-table tr")[1:]
    assert all("1.00×" in port.text(td) for td in port.query_all("td", rows[1]))


def test_parity_cells_mention_unknown_tokens():
    from subwordlab_web.compare_results import parity_cell

    assert parity_cell(2292, 0.352, 0.41) == "2,292 · 0.35× · 41% unknown"
    assert parity_cell(100, 1.0, 0.01) == "100 · 1.00×"
    assert parity_cell(None, None, None) == "–" and parity_cell(7, None, None) == "7"


def test_compare_curve_has_a_line_per_column():
    port, app = compared()
    series = port.query_all("#cmp-curve g")
    lines = [g for g in series if "cmp-series" in g.class_list]
    assert len(lines) == 3 and all(port.query_all("circle", g) for g in lines)
    assert len(port.query_all("#cmp-legend li")) == 3


def test_a_failing_column_and_cancel():
    port, app = compared(vocab=40, configs=[("bpe", {"unk_token": "<unk>"}), ("wordpiece", {})])
    panel = app.panels["compare"]
    bpe, wp = panel.run_state.columns
    assert bpe.tokenizer is not None and wp.error and "smaller than the starting vocabulary" in wp.error
    errors = [port.text(e) for e in port.query_all("#cmp-columns .cmp-col-error") if not e.hidden]
    assert any("smaller than the starting vocabulary" in e for e in errors)

    port.set_value(port.query("#cmp-vocab"), "120")
    port.click(port.query("#cmp-run"))
    port.drive(3)
    assert not port.query("#cmp-cancel").hidden
    port.click(port.query("#cmp-cancel"))
    port.settle()
    assert panel.run_state.cancelled and port.query("#cmp-cancel").hidden
    assert "cancelled" in port.text(port.query("#cmp-message")).lower()


def test_compare_setup_rides_on_a_share_link():
    port, app = compared()
    app.panels["compare"].configs = [("bpe", {"unk_token": "<unk>", "lowercase": True}), ("unigram", {})]
    url, _ = app.panels["share"].make_link()
    exp = share.decode_fragment(url.split("#", 1)[1])
    assert [c.preset for c in exp.compare] == ["bpe", "unigram"]
    assert exp.compare[0].options["lowercase"] is True and exp.compare[0].options["vocab_size"] == 90

    port2, app2 = started(None, hash="#" + url.split("#", 1)[1])
    assert app2.panels["compare"].configs == [("bpe", {"unk_token": "<unk>", "lowercase": True}), ("unigram", {})]
    assert app2.current == "compare"
    assert app2.panels["compare"].run_state is not None and app2.panels["compare"].run_state.done


def test_in_embed_mode_the_querys_panel_wins_over_the_links():
    _, src = trained()
    src.show_panel("share")
    url, _ = src.panels["share"].make_link()
    port, app = started(search="?embed=1&panel=inspect", hash="#" + url.split("#", 1)[1])
    assert port.get_attr(port.query("body"), "data-share") == "applied"
    assert app.current == "inspect" and app.state.step == src.state.step


def test_a_new_hash_opens_its_link_without_a_reload():
    _, src = trained()
    src.state.seek(2)
    url, _ = src.panels["share"].make_link()
    port, app = started()
    port.href = url
    port.fire_window("hashchange")
    port.settle()
    assert port.get_attr(port.query("body"), "data-share") == "applied" and app.state.step == 2
    port.href = "http://127.0.0.1:8000/index.html#v1.broken!"
    port.fire_window("hashchange")
    port.settle()
    assert "could not be opened" in port.text(port.query("#link-banner"))


def test_a_link_opened_as_the_page_writes_its_own_address_is_the_one_opened():
    """The hashchange's newURL is the link the user opened, even when the page wrote its own
    experiment into the address between the user's change and the event (a run ending; the
    WebKitGTK engine tier met it: the link was taken for the page's own and never shown)."""
    port, app = started()
    own = app.persist.address()
    link = "http://127.0.0.1:8000/index.html#v1.broken!"
    port.href = link
    port.replace_address(own)  # the end of a run writes the page's own experiment
    port.fire_window("hashchange", new_url=link)
    port.settle()
    assert "could not be opened" in port.text(port.query("#link-banner"))
    assert app.state.corpus.sample == "seed000"


def test_an_ordinary_anchor_is_not_a_link():
    port, app = started(hash="#app")
    assert port.get_attr(port.query("body"), "data-share") is None
    assert port.query("#link-banner").hidden and app.state.corpus.sample == "seed000"
    port.href = "http://127.0.0.1:8000/index.html#panel-train"  # e.g. the skip link, later
    port.fire_window("hashchange")
    assert port.query("#link-banner").hidden


def test_a_rank_file_loads_in_slices_with_its_progress_shown(monkeypatch):
    import base64

    from subwordlab_web import files_panel

    port, app = trained()
    # a synthetic (not OpenAI's) rank file: one clear message, nothing changes
    tokens = [bytes([b]) for b in range(256)] + [b"he", b"ll", b"hell", b"hello"]
    data = "".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(tokens)).encode()
    _file_input(port, "mine.tiktoken", data)
    assert "not one of OpenAI's" in port.text(port.query("#files-error")) and app.state.imported is None
    # the slices: every yield of import_steps hands the page back once the slice time is used
    said = []
    monkeypatch.setattr(files_panel, "LOAD_SLICE_SECONDS", -1)
    monkeypatch.setattr(files_panel, "import_steps", lambda name, data, sha256=None: _fake_steps(said, port))
    _file_input(port, "o200k_base.tiktoken", data)
    assert said == ["Reading o200k_base.tiktoken… 0%", "Reading o200k_base.tiktoken… 50%"]
    assert app.state.imported_name == "o200k_base.tiktoken"


def _fake_steps(said, port):
    from subwordlab_web.exports import Imported

    yield 0, 2
    said.append(port.text(port.query("#files-status")))
    yield 1, 2
    said.append(port.text(port.query("#files-status")))
    return Imported(subwordlab.train("hello hello", preset="byte_bpe", vocab_size=260), "tiktoken", "o200k_base.tiktoken")


def test_a_later_load_supersedes_a_running_sliced_one(monkeypatch):
    from subwordlab_web import files_panel

    port, app = trained()
    panel = app.panels["files"]
    monkeypatch.setattr(files_panel, "LOAD_SLICE_SECONDS", -1)
    started = []

    def slow_steps(name, data, sha256=None):
        started.append(name)
        yield 0, 2
        panel._loads += 1  # as if the user chose another file (or went back) meanwhile
        yield 1, 2
        raise AssertionError("a superseded load is not driven further")

    monkeypatch.setattr(files_panel, "import_steps", slow_steps)
    _file_input(port, "o200k_base.tiktoken", b"IQ== 0\n")
    assert started == ["o200k_base.tiktoken"] and app.state.imported is None
    assert "Loaded" not in port.text(port.query("#files-status"))


@pytest.mark.parametrize("error", [RecursionError("maximum recursion depth exceeded"), MemoryError()])
def test_a_load_failing_in_any_way_leaves_a_message_and_no_reading_line(monkeypatch, error):
    from subwordlab_web import files_panel

    port, app = trained()

    def failing(name, data, sha256=None):
        raise error

    monkeypatch.setattr(files_panel, "import_model", failing)
    _file_input(port, "model.json", b'{"format": "subwordlab"}')
    shown = port.text(port.query("#files-error"))
    assert not port.query("#files-error").hidden and "'model.json' could not be loaded" in shown
    assert port.text(port.query("#files-status")) == "" and "Reading" not in shown and port.errors == []


def test_a_newer_link_supersedes_a_pending_file_request_and_stale_banners_clear():
    from subwordlab_web.state import Corpus

    text = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(30_000))  # too big to inline
    old = share.encode_fragment(share.Experiment(share.CorpusRef.file("big.txt", text),
                                                 share.Config("bpe", {"num_merges": 5}), step=2))
    port, app = started(hash="#" + old)
    banner = port.query("#link-banner")
    assert port.get_attr(port.query("body"), "data-share") == "waiting-file" and "big.txt" in port.text(banner)
    # a newer, inline link applies; the old request and its banner are gone
    new = share.encode_fragment(share.Experiment(share.CorpusRef.inline("low lower newest"),
                                                 share.Config("bpe", {"num_merges": 3}), step=1))
    port.href = PAGE + "#" + new
    port.fire_window("hashchange")
    port.settle()
    assert port.get_attr(port.query("body"), "data-share") == "applied" and banner.hidden
    assert app.state.spec.size == 3 and app.state.corpus.text == "low lower newest"
    # uploading the old link's file later no longer applies the old settings
    app.state.set_corpus(Corpus(text, name="big.txt"))
    port.settle()
    assert app.state.spec.size == 3 and banner.hidden
    # an error banner clears when a later good link applies
    port.href = PAGE + "#v1.AAAA"
    port.fire_window("hashchange")
    port.settle()
    assert not banner.hidden and "damaged" in port.text(banner)
    port.href = PAGE + "#" + new
    port.fire_window("hashchange")
    port.settle()
    assert banner.hidden and port.get_attr(port.query("body"), "data-share") == "applied"


def test_a_lone_surrogate_gives_a_message_on_copy_link_not_an_exception():
    from subwordlab_web.state import Corpus

    port, app = trained()
    app.state.set_corpus(Corpus("low lower \ud83d newest"))
    port.settle()
    port.click(port.query("#share-copy"))
    port.settle()
    status = port.text(port.query("#share-status"))
    assert "lone surrogate U+D83D" in status and "character 11" in status and port.errors == []


def test_a_link_asks_for_the_tokenizer_file_its_sender_loaded_and_checks_its_hash():
    """Issue 26: a loaded file was silently dropped from links; now the link names it by
    SHA-256, the recipient is asked for it, a different file is told apart, the right one
    clears the request."""
    mine = subwordlab.to_hf_json(subwordlab.train("the quick brown fox jumps over " * 5, preset="byte_bpe",
                                                  vocab_size=270)).encode()
    other = subwordlab.to_hf_json(subwordlab.train("a lazy dog sleeps all day " * 5, preset="byte_bpe",
                                                   vocab_size=265)).encode()
    src_port, src = trained()
    _file_input(src_port, "my\ttokenizer.json", mine)
    url, _ = src.panels["share"].make_link()

    port, app = started(hash="#" + url.split("#", 1)[1])
    st, banner = app.state, port.query("#link-banner")
    assert port.get_attr(port.query("body"), "data-share") == "applied" and st.imported is None
    told = port.text(banner)
    assert not banner.hidden and "“my?tokenizer.json”" in told and hashlib.sha256(mine).hexdigest() in told
    assert "Files tab" in told
    _file_input(port, "other.json", other)
    assert not banner.hidden and "a different one (SHA-256 " + hashlib.sha256(other).hexdigest()[:12] in port.text(banner)
    _file_input(port, "renamed.json", mine)
    assert banner.hidden and st.imported_sha256 == hashlib.sha256(mine).hexdigest()
    # a reload made now keeps asking for it (the page keeps no files), by the same hash
    exp, _ = app.panels["share"].experiment(for_reload=True)
    assert exp.tokenizer is not None and exp.tokenizer.sha256 == hashlib.sha256(mine).hexdigest() and not exp.imported


@given(st.text(st.sampled_from(["a", " ", "5", "\n", "\r", "\x0b", "\x1c", "\u2028", "\x85", "é"]), max_size=80),
       st.integers(1, 9))
def test_the_first_line_is_splitlines_first_non_blank_one_at_any_window(text, window):
    from subwordlab_web.corpus_data import first_line

    assert first_line(text, window) == next((line for line in text.splitlines() if line.strip()), None)


@given(st.text(max_size=300), st.integers(1, 40))
def test_a_text_hashed_in_slices_is_hashed_as_one(text, chunk):
    from subwordlab.base.sha256 import sha256_steps

    share._DIGESTS.clear()
    raw = text.encode("utf-8", "surrogatepass")
    whole = hashlib.sha256(raw).hexdigest()
    assert drain(sha256_steps(text, chunk)) == drain(sha256_steps(raw, chunk)) == whole  # (characters, bytes)
    assert drain(share.sha256_text_steps(text)) == whole == share.sha256_text(text)
