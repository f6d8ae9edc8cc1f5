"""The Corpus panel on the real index.html through the fake port: samples, typing, the
word-count mode, uploads and drops, and bad input that never loses the corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakedom import FakeFile, FakePort

from corpora import CORPORA
from subwordlab_web import corpus_panel
from subwordlab_web.app import App
from subwordlab_web.corpus_data import (
    MAX_CORPUS_BYTES,
    decode_upload,
    detect_format,
    edited_name,
    format_size,
    join_texts,
    stats_of_counts,
    text_stats,
)
from subwordlab_web.samples import SAMPLES, strip_udhr_header

INDEX_HTML = (Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8")
EVIL = "<img src=x onerror=alert(1)>"


def started(sample="seed000"):
    port = FakePort.from_html(INDEX_HTML)
    for s in SAMPLES.values():
        if s.url and s.id != "tinyshakespeare":
            port.fetchable[s.url] = (CORPORA / s.url.removeprefix("samples/")).read_text(encoding="utf-8")
    app = App(port, warm=False)
    app.start(sample=sample)
    port.settle()
    app.show_panel("corpus")
    return port, app


def stat(port, name):
    return port.text(port.query(f'#corpus-stats dd[data-stat="{name}"]'))


def upload(port, *files):
    field = port.query("#corpus-file")
    field.files = list(files)
    port.dispatch(field, "change")
    port.settle()


def message(port):
    box = port.query("#corpus-message")
    return None if box.hidden else port.text(port.query("#corpus-message-text"))


# --- samples ---------------------------------------------------------------------------
def test_the_default_sample_is_the_textbook_word_counts():
    port, app = started()
    state = app.state
    assert state.corpus.format == "word_counts" and state.corpus.sample == "seed000"
    assert port.value(port.query("#corpus-text")) == "low 5\nlower 2\nnewest 6\nwidest 3"
    assert port.checked(port.query("#corpus-format-counts")) and not port.checked(port.query("#corpus-format-text"))
    assert port.value(port.query("#corpus-sample")) == "seed000"
    assert [stat(port, k) for k in ("chars", "bytes", "words", "distinct_words", "distinct_chars")] == ["79", "79", "16", "4", "10"]
    assert [port.text(w) for w in port.query_all("#corpus-top .word")] == ["newest", "low", "widest", "lower"]
    assert state.spec.describe() == "BPE · 8 merges"


def test_every_sample_is_listed_and_seed_samples_set_their_options():
    port, app = started()
    values = [port.get_attr(o, "value") for o in port.query_all("#corpus-sample option")]
    assert values == [""] + list(SAMPLES)
    port.input(port.query("#corpus-sample"), "seed002", event="change")
    port.settle()
    assert dict(app.state.spec.options) == {"end_of_word": None, "unk_token": "<unk>"}
    assert app.state.inspect.text == "bugs mug hugs"


def test_a_udhr_sample_is_fetched_with_its_header_as_attribution():
    port, app = started()
    port.input(port.query("#corpus-sample"), "udhr_rus", event="change")
    port.settle()
    corpus = app.state.corpus
    assert corpus.sample == "udhr_rus" and "---" not in corpus.text[:200]
    attribution = port.text(port.query("#corpus-attribution"))
    assert "OHCHR" in attribution and "UDHR in Unicode" in attribution and not port.query("#corpus-attribution").hidden
    assert int(stat(port, "chars").replace(",", "")) == len(corpus.text)


def test_strip_udhr_header():
    text = (CORPORA / "udhr" / "udhr_eng.txt").read_text(encoding="utf-8")
    body, header = strip_udhr_header(text)
    assert body.startswith("Universal Declaration of Human Rights") and "Office of the High Commissioner" in header


def test_a_long_corpus_shows_a_read_only_preview(monkeypatch):
    monkeypatch.setattr(corpus_panel, "EDIT_LIMIT", 1000)
    monkeypatch.setattr(corpus_panel, "PREVIEW_CHARS", 100)
    port, app = started()
    port.input(port.query("#corpus-sample"), "udhr_eng", event="change")
    port.settle()
    box = port.query("#corpus-text")
    assert len(port.value(box)) == 100 and "readonly" in box.attrs
    assert "preview of the first 100" in port.text(port.query("#corpus-text-note"))
    assert len(app.state.corpus.text) > 1000  # training still uses all of it


# --- typing ------------------------------------------------------------------------------
def test_pasting_text_makes_it_the_corpus_with_stats():
    port, app = started()
    port.click(port.query("#corpus-format-text"))
    port.set_checked(port.query("#corpus-format-text"), True)
    port.dispatch(port.query("#corpus-format-text"), "change")
    port.input(port.query("#corpus-text"), "the cat sat on the mat\nthe end")
    port.settle()
    c = app.state.corpus
    assert c.text == "the cat sat on the mat\nthe end" and c.format == "text" and c.sample is None
    assert port.value(port.query("#corpus-sample")) == ""
    assert [stat(port, k) for k in ("chars", "words", "distinct_words", "distinct_chars")] == ["30", "8", "6", "12"]
    assert port.text(port.query("#corpus-top .word")) == "the"


def test_a_bad_word_count_list_says_which_line_until_it_is_fixed():
    port, app = started()
    port.input(port.query("#corpus-text"), "low 5\nlower two")
    port.settle()
    # auto-detected: not a list (so running text), and the note says which line breaks it
    assert app.state.corpus.format == "text" and message(port) is None
    assert "line 2" in note(port) and "positive integer" in note(port)
    choose_format(port, "counts")  # the user insists: it is a word-count list
    assert app.state.corpus.format == "word_counts"
    assert "line 2" in message(port) and "positive integer" in message(port)
    port.input(port.query("#corpus-text"), "low 5\nlower 2")
    port.settle()
    assert message(port) is None and stat(port, "words") == "7"


def note(port):
    return port.text(port.query("#corpus-format-note"))


def choose_format(port, which):
    radio = port.query(f"#corpus-format-{which}")
    port.set_checked(radio, True)
    port.dispatch(radio, "change")
    port.settle()


UDHR_FRA_START = ("Déclaration universelle des droits de l'homme\n\nArticle premier\n"
                  "Tous les êtres humains naissent libres et égaux en dignité et en droits.")


def test_pasting_running_text_over_the_word_count_sample_is_read_as_running_text():
    """The paste trap: the textbook sample is a word-count list; pasted prose must not be."""
    port, app = started()
    assert app.state.corpus.format == "word_counts"
    port.input(port.query("#corpus-text"), UDHR_FRA_START)
    port.settle()
    c = app.state.corpus
    assert c.format == "text" and c.text == UDHR_FRA_START and c.name == "Your text" and c.sample is None
    assert port.checked(port.query("#corpus-format-text")) and not port.checked(port.query("#corpus-format-counts"))
    assert note(port) == "Detected: running text." and message(port) is None
    assert stat(port, "chars") == f"{len(UDHR_FRA_START):,}" and stat(port, "words") == str(len(UDHR_FRA_START.split()))
    status = port.text(port.query("#corpus-status"))
    assert "Textbook" not in status and status.startswith("In use: “Your text”") and "running text" in status
    assert port.text(port.query("#context-corpus")) == "Your text"
    assert port.text(port.query("#train-corpus-line")).startswith("Corpus: Your text")


def test_a_pasted_word_count_list_is_detected_and_the_choice_can_be_overridden():
    port, app = started("udhr_eng")
    assert note(port) == "This sample is running text."
    port.input(port.query("#corpus-text"), "hug 10\npug 5\npun 12")
    port.settle()
    assert app.state.corpus.format == "word_counts" and note(port) == "Detected: a word-count list."
    assert stat(port, "words") == "27" and port.query("#corpus-format-auto").hidden
    choose_format(port, "text")  # overridden: stays running text while typing
    port.input(port.query("#corpus-text"), "hug 10\npug 5\npun 12\nbun 4")
    port.settle()
    assert app.state.corpus.format == "text" and note(port) == "Your choice: running text."
    assert stat(port, "words") == "8" and not port.query("#corpus-format-auto").hidden
    port.click(port.query("#corpus-format-auto"))  # back to detection
    port.settle()
    assert app.state.corpus.format == "word_counts" and note(port) == "Detected: a word-count list."


def test_a_change_of_corpus_clears_stale_errors_and_the_old_status():
    port, app = started()
    choose_format(port, "counts")
    port.input(port.query("#corpus-text"), "low 5\nlower two")
    port.settle()
    assert "line 2" in message(port)
    port.input(port.query("#corpus-sample"), "udhr_eng", event="change")  # another corpus
    port.settle()
    assert message(port) is None and app.state.corpus.format == "text"
    assert port.text(port.query("#corpus-status")).startswith("Loaded “UDHR: English”")
    upload(port, FakeFile("blob.bin", b"ab\x00cd"))  # refused: the message stays with the same corpus
    assert "binary" in message(port) and app.state.corpus.sample == "udhr_eng"
    assert port.text(port.query("#corpus-status")).startswith("In use: “UDHR: English”")
    port.input(port.query("#corpus-text"), "a new text")  # a new corpus: the refusal is history
    port.settle()
    assert message(port) is None
    assert port.text(port.query("#corpus-status")) == "In use: “Your text”, 10 characters of running text."


def test_edited_name_keeps_the_name_while_most_of_the_text_stays():
    assert edited_name("Textbook", "low 5\nlower 2", "low 5\nlower 3") == "Textbook (edited)"
    assert edited_name("Textbook (edited)", "low 5\nlower 3", "low 5\nlower 3\nx 1") == "Textbook (edited)"
    assert edited_name("Textbook", "low 5\nlower 2", UDHR_FRA_START) == "Your text"
    assert edited_name("Your text", "abc", "abcd") == "Your text"


def test_detect_format():
    assert detect_format("low 5\nlower 2") == ("word_counts", "")
    assert detect_format("the cat sat") == ("text", "")
    assert detect_format("") == ("text", "")
    fmt, hint = detect_format("".join(f"w{k} 5\n" for k in range(30)) + "lower two")
    assert fmt == "text" and hint.startswith("line 31")


def test_an_empty_corpus_is_explained_and_training_refuses_it():
    port, app = started()
    port.input(port.query("#corpus-text"), "   ")
    port.settle()
    assert "empty" in port.text(port.query("#corpus-status"))
    app.show_panel("train")
    port.click(port.query("#train-step"))
    port.settle()
    error = port.query("#train-error")
    assert not error.hidden and "the corpus is empty" in port.text(error)


# --- files ---------------------------------------------------------------------------------
def test_uploading_files_replaces_or_extends_the_corpus():
    port, app = started()
    upload(port, FakeFile("a.txt", "héllo wörld".encode()), FakeFile("b.txt", b"second file\n"))
    c = app.state.corpus
    assert c.text == "héllo wörld\nsecond file\n" and c.files == ("a.txt", "b.txt") and c.name == "2 files"
    assert "Loaded a.txt, b.txt" in port.text(port.query("#corpus-status"))
    port.set_checked(port.query("#corpus-append"), True)
    upload(port, FakeFile("c.txt", "\ufeffthird".encode()))  # a byte-order mark is dropped
    assert app.state.corpus.text.endswith("second file\nthird") and app.state.corpus.files[-1] == "c.txt"


def test_a_binary_file_is_refused_by_name_and_can_be_decoded_leniently():
    port, app = started()
    before = app.state.corpus
    upload(port, FakeFile("photo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
    assert "“photo.png” looks like a binary file" in message(port) and "unchanged" in message(port)
    assert app.state.corpus is before
    lenient = port.query("#corpus-lenient")
    assert not lenient.hidden
    port.click(lenient)
    port.settle()
    assert message(port) is None and app.state.corpus.files == ("photo.png",)
    assert "decoded leniently" in port.text(port.query("#corpus-status"))


def test_a_non_utf8_file_says_where_and_lenient_decoding_replaces_bad_bytes():
    port, app = started()
    before = app.state.corpus
    upload(port, FakeFile("latin1.txt", "café olé".encode("latin-1")))
    assert "“latin1.txt” is not UTF-8 text (byte 0xE9 at position 3" in message(port)
    assert app.state.corpus is before
    port.click(port.query("#corpus-lenient"))
    port.settle()
    assert app.state.corpus.text == "caf\ufffd ol\ufffd"


def test_too_big_and_empty_files_are_refused(monkeypatch):
    monkeypatch.setattr(corpus_panel, "MAX_CORPUS_BYTES", 10)
    port, app = started()
    before = app.state.corpus
    upload(port, FakeFile("big.txt", b"x" * 11))
    assert "“big.txt” is" in message(port) and "the limit is" in message(port)
    assert port.query("#corpus-lenient").hidden and app.state.corpus is before
    upload(port, FakeFile("a.txt", b"x" * 6), FakeFile("b.txt", b"y" * 7))
    assert "2 files together (b.txt is the largest)" in message(port)
    upload(port, FakeFile("empty.txt", b""))
    assert "“empty.txt” is empty" in message(port) and app.state.corpus is before
    port.click(port.query("#corpus-dismiss"))
    assert message(port) is None


def test_dropping_files_works_like_choosing_them():
    port, app = started()
    zone = port.query("#corpus-drop")
    ev = port.dispatch(zone, "dragover")
    assert ev.default_prevented and "dragging" in zone.class_list
    ev = port.dispatch(zone, "drop", files=[FakeFile("dropped.txt", b"dropped text")])
    port.settle()
    assert ev.default_prevented and "dragging" not in zone.class_list
    assert app.state.corpus.text == "dropped text" and app.state.corpus.name == "dropped.txt"


def test_file_names_and_text_are_shown_as_text_never_markup():
    port, app = started()
    upload(port, FakeFile(f"{EVIL}.txt", b"\xff" + EVIL.encode()))
    assert f"“{EVIL}.txt” is not UTF-8" in message(port)
    upload(port, FakeFile(f"{EVIL}.txt", EVIL.encode()))
    assert port.text(port.query("#corpus-source")) == f"{EVIL}.txt"
    assert port.value(port.query("#corpus-text")) == EVIL
    assert port.query_all("img") == []


# --- the pure helpers ------------------------------------------------------------------------
def test_decode_upload_handles_a_20_mb_file():
    assert MAX_CORPUS_BYTES >= 20 * 1024 * 1024
    data = ("Ünïcödé text\n" * (20 * 1024 * 1024 // 15)).encode()
    assert len(data) > 20 * 1024 * 1024 - 100
    up = decode_upload("big.txt", data)
    assert up.problem is None and len(up.text) == len(data.decode())


def test_a_multibyte_character_split_between_decode_slices_is_kept(monkeypatch):
    from subwordlab_web import corpus_data

    monkeypatch.setattr(corpus_data, "DECODE_SLICE_BYTES", 3)
    assert decode_upload("x.txt", "aé€😀b".encode()).text == "aé€😀b"


def test_the_session_counts_a_corpus_as_the_page_does():
    """A long corpus's statistics come from the compute session (plain data): the same
    numbers as counted on the page, for running text, a word-count list and a counts file,
    and a list that fails says which line (its statistics empty)."""
    from collections import Counter

    from subwordlab.counts import count_texts, to_json
    from subwordlab.presets import counting_spec, pipeline_record
    from subwordlab.text.corpus import Counted
    from subwordlab_web.corpus_data import STATS_OP, corpus_stats, stats_from_reply
    from subwordlab_web.session import ComputeSession

    text = (CORPORA / "udhr" / "udhr_eng.txt").read_text(encoding="utf-8")
    counts = "\n".join(f"{w} {n}" for w, n in Counter(text.split()).items())
    spec = counting_spec("bpe", {})
    counts_file = to_json(Counted(count_texts([text], spec)[0], pipeline_record(spec), []))
    cases = [(text, "text"), (counts, "word_counts"), (counts + "\nbroken line here", "word_counts"),
             (counts_file, "counts"), ("{", "counts")]
    for corpus, fmt in cases:
        replies = list(ComputeSession().replies({"op": STATS_OP, "format": fmt}, corpus))
        assert len(replies) == 1 and "error" not in replies[0], replies
        assert stats_from_reply(replies[0]) == corpus_stats(corpus, fmt)
    assert corpus_stats(counts_file, "counts")[0].words == len(text.split())
    assert corpus_stats("{", "counts")[1].startswith("This counts file cannot be used: ")
    stats, _ = corpus_stats(text, "text")
    assert (stats.chars, stats.bytes, stats.words) == (len(text), len(text.encode()), len(text.split()))
    assert stats == text_stats(text) and corpus_stats(counts, "word_counts")[0].words == stats.words
    stats, problem = corpus_stats(counts + "\nbroken line here", "word_counts")
    assert stats.words == 0 and problem.startswith("This word-count list cannot be used yet: line ")


def test_a_word_count_list_s_top_words_keep_the_list_s_order_among_ties():
    stats = stats_of_counts({"b": 2, "a": 5, "c": 2, "d": 1, "é": 2})
    assert stats.top_words[:4] == [("a", 5), ("b", 2), ("c", 2), ("é", 2)]
    assert (stats.chars, stats.bytes, stats.words, stats.distinct_chars) == (12, 14, 12, 5)


def test_small_helpers():
    assert format_size(512) == "512 bytes" and format_size(1536) == "1.5 KB" and format_size(32 * 1024 * 1024) == "32 MB"
    assert join_texts(["a", "b\n", ""]) == "a\nb\n"


@pytest.mark.parametrize("sample", [s for s in SAMPLES.values() if s.format == "word_counts"])
def test_word_count_samples_reproduce_their_seeds(sample):
    import subwordlab

    counts = subwordlab.parse_word_counts(sample.text)
    tok = subwordlab.train(counts, sample.config.preset, **sample.config.kwargs())
    assert tok.spec["preset"] == sample.config.preset
    if sample.id == "seed000":
        assert tok.tokenize("lowest") == ["low", "est</w>"]
    if sample.id == "seed002":
        assert tok.tokenize("bugs mug") == ["b", "ug", "s", "<unk>", "ug"]
    if sample.id == "seed003":
        assert tok.tokenize("lower") == ["low", "er_"]
    if sample.id == "seed004":
        assert tok.tokenize("stemmed") == ["stem", "m", "e", "d", "</w>"]


def test_choosing_your_own_text_leaves_a_sample_for_an_empty_editable_text(monkeypatch):
    monkeypatch.setattr(corpus_panel, "EDIT_LIMIT", 1000)
    port, app = started()
    port.input(port.query("#corpus-sample"), "udhr_eng", event="change")
    port.settle()
    assert "readonly" in port.query("#corpus-text").attrs
    port.input(port.query("#corpus-sample"), "", event="change")
    port.settle()
    assert app.state.corpus.text == "" and app.state.corpus.name == "Your text"
    assert "readonly" not in port.query("#corpus-text").attrs and port.value(port.query("#corpus-text")) == ""
    port.input(port.query("#corpus-text"), "my own words")
    port.input(port.query("#corpus-sample"), "", event="change")  # typed text is kept
    assert app.state.corpus.text == "my own words"


def test_a_utf16_file_with_a_byte_order_mark_is_decoded_not_called_binary():
    port, app = started()
    for encoding in ("utf-16", "utf-16-be", "utf-32"):
        data = ("\ufeff" if encoding == "utf-16-be" else "") + "héllo wörld\r\nzwei"
        upload(port, FakeFile(f"{encoding}.txt", data.encode(encoding)))
        assert message(port) is None and app.state.corpus.text == "héllo wörld\r\nzwei"
        assert f"decoded from {encoding.upper()[:6]}" in port.text(port.query("#corpus-status"))
    # without a mark it is not read as UTF-16 (the corpus is the file's bytes): the message
    # says what it looks like (it said "a binary file") and what to do
    upload(port, FakeFile("no_bom.txt", "hello".encode("utf-16-le")))
    assert "looks like UTF-16 (little-endian, as Windows writes it) without a byte-order mark" in message(port)
    assert "binary" not in message(port) and "save it as UTF-8" in message(port)
    assert app.state.corpus.text == "héllo wörld\r\nzwei" and not port.query("#corpus-lenient").hidden


def pick_sample(port, sample_id):
    port.set_value(port.query("#corpus-sample"), sample_id)
    port.dispatch(port.query("#corpus-sample"), "change")
    port.settle()


def test_replacing_an_upload_during_a_run_asks_first_and_the_upload_stays_one_click_away():
    """Issue 29: a sample picked during a run silently replaced the user's upload and the
    run. Now the page asks; after any replacement, "Back to your upload" brings it back."""
    from subwordlab_web.state import TrainingStatus

    port, app = started()
    upload(port, FakeFile("notes.txt", b"my own words, my own words " * 40))
    mine = app.state.corpus
    assert mine.name == "notes.txt" and port.query("#corpus-back").hidden
    app.state.training = TrainingStatus(phase="training")  # a run on the upload is going
    pick_sample(port, "seed000")
    assert app.state.corpus is mine and "A run is training on your upload “notes.txt”" in message(port)
    assert not port.query("#corpus-replace").hidden
    port.click(port.query("#corpus-dismiss"))  # keep it: nothing changed
    assert app.state.corpus is mine and message(port) is None and port.value(port.query("#corpus-sample")) == ""
    upload(port, FakeFile("other.txt", b"other text"))  # other files ask too
    assert app.state.corpus is mine and "Replace it with other.txt?" in message(port)
    port.click(port.query("#corpus-replace"))
    port.settle()
    assert app.state.corpus.name == "other.txt"
    pick_sample(port, "seed000")  # no run now: replaced at once, the last upload one click away
    assert app.state.corpus.sample == "seed000"
    back = port.query("#corpus-back")
    assert not back.hidden and port.text(back) == "Back to your upload “other.txt”"
    port.click(back)
    assert app.state.corpus.name == "other.txt" and app.state.corpus.text == "other text" and back.hidden


def test_a_long_word_count_list_is_parsed_and_counted_in_the_session_not_on_the_page(monkeypatch):
    """A word-count list longer than CHECK_IN_PAGE_CHARS is judged a list by its first lines,
    and parsed whole and counted only in the compute session (on the page, a 13 MB list held
    the main thread for seconds: tests/e2e/test_hostile_inputs.py). A line that breaks it far
    down is said by the statistics, and training starts without a page-side parse. A short
    list is still checked and counted on the page, at once."""
    import subwordlab
    from subwordlab_web import corpus_data, state
    from subwordlab_web.corpus_data import CHECK_IN_PAGE_CHARS, STATS_OP

    lines = [f"w{i} {i % 7 + 1}" for i in range(CHECK_IN_PAGE_CHARS // 6)]
    text = "\n".join(lines)
    assert len(text) > CHECK_IN_PAGE_CHARS
    port, app = started()
    parsed = watch_parses(monkeypatch, subwordlab, "parse_word_counts")
    upload(port, FakeFile("big.txt", text.encode()))
    assert app.state.corpus.format == "word_counts"
    assert STATS_OP in [r["op"] for r in port.compute_requests]
    assert stat(port, "words") == f"{sum(i % 7 + 1 for i in range(len(lines))):,}"
    assert stat(port, "distinct_words") == f"{len(lines):,}"
    # a line that breaks the list near its end: said by the statistics, from the session
    upload(port, FakeFile("broken.txt", (text + "\nnot a count line").encode()))
    assert app.state.corpus.format == "word_counts"
    assert f"line {len(lines) + 1}" in (message(port) or "").replace(",", ""), message(port)
    app.state.corpus.check()  # (no page-side parse of the whole list: the session's training says it)
    app.show_panel("train")
    port.click(port.query("#train-end"))
    port.settle()
    assert app.state.recording is None and app.state.training.phase == "failed"
    assert f"line {len(lines) + 1}" in app.state.training.message.replace(",", ""), app.state.training.message
    assert parsed and all(inside_session for n, inside_session in parsed if n > CHECK_IN_PAGE_CHARS), parsed
    # a short list is checked on the page, at once
    with pytest.raises(subwordlab.CorpusError, match="line 2"):
        state.Corpus("low 5\nlower x", "word_counts").check()
    assert corpus_data.detect_format("low 5\nlower x")[0] == "text"


def watch_parses(monkeypatch, module, name):
    """Record every call of ``module.name`` (a parser) as (length of its text, whether the
    compute session made it): the list it fills."""
    from subwordlab_web import session

    parsed, inside = [], [False]
    real_parse, real_replies = getattr(module, name), session.ComputeSession.replies

    def watched(t):
        parsed.append((len(t), inside[0]))
        return real_parse(t)

    def replies(self, request, corpus=None):
        answers = real_replies(self, request, corpus)
        while True:
            inside[0] = True
            try:
                reply = next(answers)
            except StopIteration:
                return
            finally:
                inside[0] = False
            yield reply

    monkeypatch.setattr(module, name, watched)
    monkeypatch.setattr(session.ComputeSession, "replies", replies)
    return parsed
