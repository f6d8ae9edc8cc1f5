"""A stranger's first minutes with the page, on the real index.html through the fake port:
one source for the header (pills, status lines and counters agree, imported tokenizers
included), counted nouns, share links that open the experiment, and nothing lost on reload."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fakedom import FakeFile, FakePort

import subwordlab
from corpora import read
from subwordlab_web import share, tasks
from subwordlab_web.app import App
from subwordlab_web.state import Corpus, TrainSpec
from subwordlab_web.wording import plural

INDEX_HTML = (Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8")
PAGE = "http://127.0.0.1:8000/index.html"


def started(sample="seed000", href=PAGE, session=None, store=None):
    port = FakePort.from_html(INDEX_HTML)
    port.href = href
    port.session = dict(session or {})
    port.store = dict(store or {})
    app = App(port, warm=False)
    app.start(sample=sample)
    port.settle()
    assert port.errors == []
    return port, app


def text(port, selector):
    return port.text(port.query(selector))


def pills(port):
    return tuple(text(port, f"#context-{k}") for k in ("corpus", "spec", "step"))


# --- one source for the header -------------------------------------------------------------
def test_plural_agrees_with_its_number():
    assert [plural(n, "step") for n in (0, 1, 2, 1000)] == ["0 steps", "1 step", "2 steps", "1,000 steps"]
    assert plural(1, "merge") == "1 merge" and plural(3, "entry", "entries") == "3 entries"
    assert TrainSpec("bpe", "num_merges", 1).describe() == "BPE · 1 merge"


def test_the_pills_name_an_imported_tokenizer_and_the_trained_one_again_after_revert():
    port, app = started()
    app.panels["train"].start_training()
    port.settle()
    assert pills(port) == ("Textbook: low, lower, newest, widest", "BPE · 8 merges", "step 0 of 8")
    other = subwordlab.train("the quick brown fox jumps over the lazy dog " * 5, preset="byte_bpe", vocab_size=270)
    box = port.query("#files-import")
    box.files = [FakeFile("cl100k_base.json", subwordlab.to_hf_json(other).encode())]
    port.dispatch(box, "change")
    port.settle()
    assert pills(port) == ("Textbook: low, lower, newest, widest", "cl100k_base.json · 270 tokens",
                           "loaded on Files: no training steps")
    assert "Inspect and Compare use cl100k_base.json" in text(port, "#train-status")
    port.click(port.query("#files-revert"))
    assert pills(port)[1:] == ("BPE · 8 merges", "step 0 of 8")
    assert "cl100k" not in text(port, "#train-status")


def test_the_train_tab_does_not_send_you_to_the_train_tab():
    port, app = started(None)
    app.state.set_corpus(Corpus(read("tinyshakespeare.txt")[:250_000]))  # too big to train by itself
    port.settle()
    assert app.current == "train" and app.state.recording is None
    why = text(port, "#segmentation-empty")
    assert "open Train" not in why and why.startswith("Not trained yet: press Step")


def test_counters_never_contradict_each_other_while_a_run_starts(monkeypatch):
    monkeypatch.setattr(tasks, "SLICE_SECONDS", 0)  # one core event per browser turn
    port, app = started(None)
    app.state.set_spec(TrainSpec("byte_bpe", "vocab_size", 300))
    app.state.set_corpus(Corpus(read("tinyshakespeare.txt")[:250_000]))
    port.settle()
    port.click(port.query("#train-step"))
    seen = set()
    for _ in range(4000):
        port.drive()
        st = app.state
        now, total, rate = text(port, "#train-step-now"), text(port, "#train-step-total"), text(port, "#train-rate")
        pill = text(port, "#context-step")
        seen.add(pill)
        everything = " ".join([now, total, rate, pill, text(port, "#segmentation-empty"), text(port, "#train-status")])
        assert not re.search(r"(?<![\d,.])0 steps/s", everything) and "steps so far" not in everything and "…" not in total
        if pill.startswith("step "):
            # the readout and the pill say the same step and the same total
            assert pill == f"step {now} of {total}", (pill, now, total)
        elif pill == "preparing the run…":
            assert now in ("", "0") and total in ("", "0 so far"), (now, total)  # (no step shown yet)
        if rate:
            assert st.player.recorded >= 2 and not rate.startswith("0 ")
        if st.recording is not None and len(st.recording.steps) >= 3:
            break
    assert "preparing the run…" in seen and any(p.endswith("so far") for p in seen)


def test_a_run_cancelled_after_one_step_says_one_step(monkeypatch):
    monkeypatch.setattr(tasks, "SLICE_SECONDS", 0)
    port, app = started(None)
    app.state.set_spec(TrainSpec("byte_bpe", "vocab_size", 300))
    app.state.set_corpus(Corpus(read("tinyshakespeare.txt")[:250_000]))
    port.settle()
    port.click(port.query("#train-end"))
    while app.state.recording is not None and len(app.state.recording.steps) < 1:
        port.drive()
    port.click(port.query("#train-cancel"))
    port.settle()
    assert text(port, "#train-status").startswith("Training cancelled after 1 step. ")


# --- a share link opens the experiment -----------------------------------------------------
def copy_link(port, app):
    app.show_panel("share")
    port.click(port.query("#share-copy"))
    port.settle()
    return port.value(port.query("#share-link"))


def trained(sample="seed000"):
    port, app = started(sample)
    app.panels["train"].start_training()
    port.settle()
    return port, app


def test_a_link_lands_where_the_sender_worked_before_opening_share():
    port, app = trained()
    link = copy_link(port, app)  # straight from the first screen: Train
    assert share.decode_fragment(link.split("#", 1)[1]).panel == "train"
    app.show_panel("inspect")
    app.state.seek(3)
    app.state.set_inspect(text="lowest widest")
    link = copy_link(port, app)
    port2, app2 = started(None, href=link)
    assert app2.current == "inspect" and port2.get_attr(port2.query("body"), "data-share") == "applied"
    assert app2.state.step == 3 and app2.state.inspect.text == "lowest widest"
    assert port2.get_attr(port2.query("#tab-share"), "aria-selected") == "false"


def test_a_restored_link_keeps_the_corpus_name():
    port, app = trained()
    port2, app2 = started(None, href=copy_link(port, app))  # an inline copy of a sample is that sample
    c = app2.state.corpus
    assert (c.name, c.sample) == ("Textbook: low, lower, newest, widest", "seed000")
    assert port2.value(port2.query("#corpus-sample")) == "seed000"
    # an uploaded file keeps its name
    box = port.query("#corpus-file")
    box.files = [FakeFile("notes.txt", b"the cat sat on the mat\n" * 3)]
    port.dispatch(box, "change")
    port.settle()
    port3, app3 = started(None, href=copy_link(port, app))
    assert app3.state.corpus.name == "notes.txt" and port3.text(port3.query("#context-corpus")) == "notes.txt"
    # a link made before names travelled still says where its text came from
    old = share.encode_fragment(share.Experiment(share.CorpusRef.inline("a b a b"), share.Config("bpe", {"num_merges": 2})))
    port4, app4 = started(None, href=PAGE + "#" + old)
    assert app4.state.corpus.name == "Text from a shared link"


def test_the_pills_of_a_link_waiting_for_its_file_say_what_it_waits_for():
    text_ = "words of my own " * 50
    exp = share.Experiment(share.CorpusRef.file("big.txt", text_), share.Config("wordpiece", {"vocab_size": 60}), step=2)
    port, app = started(None, href=PAGE + "#" + share.encode_fragment(exp))
    assert port.get_attr(port.query("body"), "data-share") == "waiting-file"
    assert pills(port) == ("Waiting for “big.txt” (800 characters)", "WordPiece · vocabulary 60",
                           "not trained: waiting for the corpus")
    assert "…" not in "".join(pills(port))
    app.state.set_corpus(Corpus(text_, name="big.txt"))
    port.settle()
    assert pills(port) == ("big.txt", "WordPiece · vocabulary 60", f"step 2 of {len(app.state.steps)}")


# --- nothing is lost on reload -----------------------------------------------------------------
def reload(port):
    """The same address in a new page, with the tab's sessionStorage and the site's corpus
    store (what a reload does)."""
    return started(None, href=port.href, session=port.session, store=port.store)


def test_typing_into_a_long_inspect_text_writes_the_address_once_it_pauses():
    """One address write per pause in the typing into a long text, not one per key (each
    compresses the whole text); a short text is written at every key (a reload's address is
    fixed before the page hears of it); leaving with a write pending writes it first."""
    port, app = started()
    app.show_panel("inspect")
    port.settle()
    writes = []
    real = port.replace_address
    port.replace_address = lambda url: (writes.append(url), real(url))
    box = port.query("#inspect-input")
    for typed in ("a", "ab", "abc"):
        port.input(box, typed)
        assert share.decode_fragment(port.href.partition("#")[2]).inspect_text == typed
    writes.clear()
    typed = "the lowest newest widest " * 100
    for ch in "the lowest newest widest":
        typed += ch
        port.input(box, typed)
    assert len(writes) <= 1 and share.decode_fragment(port.href.partition("#")[2]).inspect_text != typed
    port.settle()  # the typing pauses
    assert len(writes) <= 2 and share.decode_fragment(port.href.partition("#")[2]).inspect_text == typed
    port.input(box, typed + " again")
    port.input(box, typed + " again and again")
    port.fire_window("beforeunload")
    assert share.decode_fragment(port.href.partition("#")[2]).inspect_text == typed + " again and again"


def test_a_reload_restores_the_experiment_from_the_address():
    port, app = started()
    port.input(port.query("#corpus-text"), "the cat sat on the mat and the dog sat on the log " * 4)
    port.settle()  # a new small corpus trains by itself
    app.show_panel("train")
    port.click(port.query("#train-step"))
    port.click(port.query("#train-step"))
    app.show_panel("inspect")
    app.state.set_inspect(text="the cat and the log", sample_seed=4)
    assert "#v1." in port.href  # kept as it changes: no button to press
    port2, app2 = reload(port)
    st, st2 = app.state, app2.state
    assert app2.current == "inspect" and st2.step == st.step == 2
    assert (st2.corpus.text, st2.corpus.format, st2.corpus.name) == (st.corpus.text, "text", "Your text")
    assert st2.spec == st.spec and st2.inspect == st.inspect
    assert subwordlab.to_json(st2.tokenizer_at_step()[0]) == subwordlab.to_json(st.tokenizer_at_step()[0])
    assert pills(port2) == pills(port)
    port3, app3 = reload(port2)  # and again
    assert app3.state.step == 2 and app3.current == "inspect"


def test_a_reload_names_the_tokenizer_file_that_was_loaded():
    port, app = trained()
    other = subwordlab.train("the quick brown fox " * 5, preset="byte_bpe", vocab_size=262)
    box = port.query("#files-import")
    box.files = [FakeFile("cl100k_base.json", subwordlab.to_hf_json(other).encode())]
    port.dispatch(box, "change")
    port.settle()
    port2, app2 = reload(port)
    banner = port2.query("#link-banner")
    assert not banner.hidden and "“cl100k_base.json”" in port2.text(banner) and "Files" in port2.text(banner)


def test_a_reload_during_a_long_run_restores_the_settings_and_offers_to_run_again():
    port, app = started(None)
    app.state.set_spec(TrainSpec("byte_bpe", "vocab_size", 400))
    app.state.set_corpus(Corpus(read("tinyshakespeare.txt")[:250_000], name="tiny.txt"))
    port.settle()
    assert not port.fire_window("beforeunload").default_prevented  # nothing running: no question
    port.click(port.query("#train-end"))
    while app.state.recording is not None and len(app.state.recording.steps) < 3:
        port.drive()
    assert app.state.training.running
    assert port.fire_window("beforeunload").default_prevented  # "Leave site?"
    assert share.decode_fragment(port.href.split("#", 1)[1]).running
    port2, app2 = reload(port)
    st2 = app2.state
    assert st2.spec == TrainSpec("byte_bpe", "vocab_size", 400) and st2.corpus.name == "tiny.txt"
    assert st2.recording is None  # a long run does not restart by itself
    offer = port2.query("#train-resume")
    assert not offer.hidden and "reloaded while Byte-level BPE · vocabulary 400 was training" in port2.text(offer)
    port2.click(port2.query("#train-resume-run"))
    port2.drive(3)
    assert st2.recording is not None and offer.hidden
    port.settle()
    port2.settle()
    assert st2.recording.done and st2.step == len(st2.steps)
    assert not share.decode_fragment(port2.href.split("#", 1)[1]).running  # the run's end is written too


def test_a_big_corpus_the_browser_cannot_keep_is_said_at_once_and_asked_for_after_a_reload():
    port, app = started(None)
    port.store_refusal = "QuotaExceededError: the quota has been exceeded"  # private mode, full storage
    app.state.set_corpus(Corpus(read("tinyshakespeare.txt")[:250_000], name="tiny.txt", files=("tiny.txt",)))
    port.settle()
    assert port.store == {}
    # said at once, before a reload could lose anything (issue 29)
    said = port.text(port.query("#corpus-message-text"))
    assert not port.query("#corpus-message").hidden
    assert said.startswith("This browser would not keep “tiny.txt” for a reload (QuotaExceededError")
    port2, app2 = reload(port)
    assert port2.get_attr(port2.query("body"), "data-share") == "waiting-file"
    assert pills(port2)[0] == "Waiting for “tiny.txt” (250,000 characters)"
    # the user's own file, not "the sender's" (issue 29)
    banner = port2.text(port2.query("#link-banner-text"))
    assert banner.startswith("Your corpus “tiny.txt” (250,000 characters) was not kept by this browser")
    assert "sender" not in banner


def test_a_link_from_someone_else_asks_for_the_senders_file():
    port, app = started(None)
    app.state.set_corpus(Corpus(read("tinyshakespeare.txt")[:250_000], name="tiny.txt", files=("tiny.txt",)))
    port.settle()
    port2, app2 = started(None, href=port.href)  # another browser: no session, no store
    banner = port2.text(port2.query("#link-banner-text"))
    assert banner.startswith("This link was made with a corpus of the sender's own, “tiny.txt”")


@pytest.mark.parametrize("script", ["udhr/udhr_cmn_hans.txt", "udhr/udhr_hin.txt"])
def test_a_big_non_latin_corpus_survives_a_reload(script):
    """Issue 29: sessionStorage kept JSON with every CJK character escaped (\\uXXXX): a 2.7 MB
    CJK upload was lost on reload. The store keeps the text as it is, under its SHA-256."""
    port, app = started(None)
    text = read(script) * 40
    app.state.set_corpus(Corpus(text, name="mine.txt", files=("mine.txt",)))
    port.settle()
    assert [k for k, _ in port.store.items()] == [share.sha256_text(text)]
    port2, app2 = reload(port)
    assert app2.state.corpus.text == text and app2.state.corpus.name == "mine.txt"
    assert port2.get_attr(port2.query("body"), "data-share") != "waiting-file"


def test_the_store_keeps_the_most_recent_corpora():
    from subwordlab_web import persist

    port, app = started(None)
    texts = [f"corpus {i} " + read("tinyshakespeare.txt")[: persist.INLINE_CHARS_LIMIT + 10] for i in range(6)]
    for i, text in enumerate(texts):
        app.state.set_corpus(Corpus(text, name=f"{i}.txt", files=(f"{i}.txt",)))
        port.settle()
    assert set(port.store) == {share.sha256_text(t) for t in texts[-persist.KEEP_CORPORA:]}


def test_a_corpus_too_long_for_a_link_is_not_compressed_at_every_key(monkeypatch):
    from subwordlab_web import persist

    port, app = started(None)
    kinds = []
    real = share.encode_fragment
    monkeypatch.setattr(share, "encode_fragment", lambda exp, **kw: kinds.append(exp.corpus.kind) or real(exp, **kw))
    long_text = read("tinyshakespeare.txt")[: persist.INLINE_CHARS_LIMIT + 1]
    app.state.set_corpus(Corpus(long_text))
    assert kinds and "inline" not in kinds  # written by SHA-256, with the text in the corpus store
    port.settle()
    assert port.store[share.sha256_text(long_text)][0] == long_text
    kinds.clear()
    app.state.set_corpus(Corpus("a short text " * 10))
    assert kinds and set(kinds) == {"inline"}
    port.settle()  # the small corpus trains by itself


def test_the_start_of_a_run_is_written_at_once():
    # before: the first write while training waited for the 0.4 s throttle, so a reload
    # right after "Run to end" found no run in the address and offered nothing (seen in e2e)
    port, app = started(None)
    app.state.set_spec(TrainSpec("byte_bpe", "vocab_size", 400))
    app.state.set_corpus(Corpus(read("tinyshakespeare.txt")[:250_000], name="tiny.txt"))
    port.settle()
    port.click(port.query("#train-end"))
    while not app.state.training.running:
        port.drive()
    assert share.decode_fragment(port.href.split("#", 1)[1]).running


def test_a_reload_and_a_share_link_keep_every_compare_column():
    """Compare's columns (its configurations, the current tokenizer, a well-known tokenizer)
    were lost on reload and left out of links: the current tokenizer's and the well-known
    column were not carried, nor a single configuration, and changing a configuration did not
    write the address."""
    port, app = started()
    app.show_panel("compare")
    while len(port.query_all(".cmp-remove")) > 1:
        port.click(port.query_all(".cmp-remove")[-1])
    port.input(port.query("#cmp-preset-0"), "wordpiece", "change")
    port.input(port.query("#cmp-vocab"), "321", "change")
    box = port.query("#cmp-current")
    assert "disabled" not in box.attrs
    port.set_checked(box, True)
    port.dispatch(box, "change")
    tick = port.query('#cmp-well-known input[data-vocab="cl100k_base"]')
    port.set_checked(tick, True)
    port.dispatch(tick, "change")
    port.settle()
    want = app.panels["compare"].setup()
    assert [c.preset for c in want[0]] == ["wordpiece"] and want[0][0].options["vocab_size"] == 321
    assert want[4:] == (True, ("cl100k_base",), "udhr6")
    url = port.href
    assert "#v1." in url and share.decode_fragment(url.split("#", 1)[1]).compare_well_known == ("cl100k_base",)
    port2, app2 = reload(port)
    assert app2.panels["compare"].setup() == want
    assert "checked" in port2.query("#cmp-current").attrs  # once the reload trained its tokenizer
    assert "checked" in port2.query('#cmp-well-known input[data-vocab="cl100k_base"]').attrs
    # a share link, in a fresh tab (no sessionStorage)
    link, _ = app.panels["share"].make_link()
    port3, app3 = started(None, href=link)
    assert app3.panels["compare"].setup() == want and "checked" in port3.query("#cmp-current").attrs
    # unticking is kept too
    port3.set_checked(port3.query("#cmp-current"), False)
    port3.dispatch(port3.query("#cmp-current"), "change")
    port4, app4 = reload(port3)
    assert app4.panels["compare"].setup()[4] is False and "checked" not in port4.query("#cmp-current").attrs
    assert port.errors == port2.errors == port3.errors == port4.errors == []
