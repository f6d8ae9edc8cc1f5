"""A counts file made by `subwordlab count` opened in the Corpus panel (the real index.html
through the fake port): recognised by its content, trained through the page's own code
path into the very model `subwordlab train --counts` writes, a pipeline mismatch said in
one sentence before training, a malformed file refused with the corpus kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakedom import FakeFile, FakePort
from test_web_corpus import message, upload, watch_parses

import subwordlab
from corpora import read
from subwordlab import cli
from subwordlab.counts import count_texts, to_json
from subwordlab.presets import counting_spec, pipeline_record
from subwordlab.text.corpus import Counted
from subwordlab_web import counts_corpus
from subwordlab_web.app import App
from subwordlab_web.state import TrainSpec

INDEX_HTML = (Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8")
TEXT = read("udhr/udhr_eng.txt")[:6000]
EVIL = "<img src=x onerror=alert(1)>"


def started():
    port = FakePort.from_html(INDEX_HTML)
    app = App(port, warm=False)
    app.start(sample="seed000")
    port.settle()
    app.show_panel("corpus")
    return port, app


def status(port):
    return port.text(port.query("#corpus-status"))


def cli_counts_and_model(tmp_path, preset, merges):
    """What the command line makes of TEXT: its counts file and the model trained from it."""
    corpus, counts, model = tmp_path / "corpus.txt", tmp_path / "counts.json", tmp_path / "model.json"
    corpus.write_bytes(TEXT.encode("utf-8"))
    assert cli.main(["count", str(corpus), "--preset", preset, "--workers", "1", "-q", "-o", str(counts)]) == 0
    assert cli.main(["train", "--counts", str(counts), "--preset", preset, "--num-merges", str(merges), "-q",
                     "-o", str(model)]) == 0
    return counts.read_bytes(), model.read_text(encoding="utf-8")


def train_to_end(port, app):
    port.click(port.query("#train-end"))
    port.settle()
    rec = app.state.recording
    assert rec is not None and rec.done, app.state.training.message
    return rec.tokenizer


@pytest.mark.parametrize("preset", ["bpe", "byte_bpe"])
def test_a_counts_file_trains_the_model_the_command_line_trains_from_it(tmp_path, preset):
    counts, model = cli_counts_and_model(tmp_path, preset, 40)
    port, app = started()
    app.state.set_spec(TrainSpec(preset, "num_merges", 40))
    # recognised by its content, whatever its name
    upload(port, FakeFile("shard-0001.dat", counts))
    c = app.state.corpus
    assert c.format == "counts" and c.name == "shard-0001.dat" and message(port) is None
    distinct = len(json.loads(counts)["counts"])
    assert status(port).startswith("Loaded shard-0001.dat (") and f"{distinct:,} distinct pre-tokens" in status(port)
    assert "readonly" in port.query("#corpus-text").attrs
    assert not port.checked(port.query("#corpus-format-text")) and not port.checked(port.query("#corpus-format-counts"))
    tok = train_to_end(port, app)
    assert subwordlab.to_json(tok) == model  # byte for byte: the same merges, spec and provenance
    # and the same as the page trained on the text itself (the counts are the text's)
    upload(port, FakeFile("corpus.txt", TEXT.encode("utf-8")))
    assert app.state.corpus.format == "text"
    assert subwordlab.to_json(train_to_end(port, app)) == model


def test_the_statistics_read_byte_level_pre_tokens_as_text(tmp_path):
    counts, _ = cli_counts_and_model(tmp_path, "byte_bpe", 1)
    port, app = started()
    upload(port, FakeFile("counts.json", counts))
    words = [port.text(w) for w in port.query_all("#corpus-top .word")]
    assert " the" in words and not any("Ġ" in w for w in words)
    total = sum(n for _, n in json.loads(counts)["counts"])
    assert port.text(port.query('#corpus-stats dd[data-stat="words"]')) == f"{total:,}"
    # Compare's default text: the first pre-tokens, read as text (not the file's JSON)
    from subwordlab.text.bytes_map import text_to_bytes

    first = [text_to_bytes(w).decode("utf-8").strip() for w, _ in json.loads(counts)["counts"]]
    assert port.value(port.query("#cmp-text")) == " ".join([w for w in first if w][:12])


def test_a_pipeline_other_than_the_counts_one_is_said_before_training_and_training_refuses(tmp_path):
    counts, _ = cli_counts_and_model(tmp_path, "byte_bpe", 1)
    port, app = started()
    app.state.set_spec(TrainSpec("bpe", "num_merges", 5))
    upload(port, FakeFile("counts.json", counts))
    said = message(port)
    assert said is not None and said.startswith("These counts were made for Byte-level BPE, and the Train tab's BPE")
    assert "choose Byte-level BPE on the Train tab" in said and "subwordlab count --preset bpe" in said
    assert said.count(". ") == 0  # one sentence
    # training on them is refused by the core, with its reason (never trained on mismatched counts)
    port.click(port.query("#train-step"))
    port.settle()
    assert app.state.recording is None and "made for another pipeline" in app.state.training.message
    # the right algorithm: the message goes, and training works
    app.state.set_spec(TrainSpec("byte_bpe", "num_merges", 5))
    port.settle()
    assert message(port) is None
    assert len(train_to_end(port, app).model.merges) == 5


def test_the_special_tokens_it_was_counted_with_are_part_of_its_pipeline():
    spec = counting_spec("byte_bpe", {"special_tokens": ["<|endoftext|>"]})
    counts, _ = count_texts(["hello world<|endoftext|>hello there"], spec)
    text = to_json(Counted(counts, pipeline_record(spec), []))
    port, app = started()
    app.state.set_spec(TrainSpec("byte_bpe", "num_merges", 3))
    upload(port, FakeFile("c.json", text.encode()))
    assert "the special-tokens differs" in message(port)
    app.state.set_spec(TrainSpec("byte_bpe", "num_merges", 3, {"special_tokens": ["<|endoftext|>"]}))
    port.settle()
    assert message(port) is None


@pytest.mark.parametrize("bad,why", [
    ('"counts": [["low", 2], ["low", 1]]', "counts[1]: 'low' is listed twice"),
    ('"counts": [["low", -2]]', "counts[0]: the count of 'low' must be a positive integer"),
    ('"counts": [["low", 2]', "not valid JSON"),
    ('"counts": []', "with no pre-tokens"),
])
def test_a_malformed_counts_file_gets_one_message_and_the_corpus_stays(bad, why):
    good = to_json(Counted({"low": 2}, pipeline_record(counting_spec("bpe", {})), []))
    text = good[:good.index('"counts"')] + bad + "\n}\n"
    port, app = started()
    before = app.state.corpus
    upload(port, FakeFile("counts.json", text.encode()))
    assert app.state.corpus is before
    said = message(port)
    assert said.startswith("“counts.json” is a counts file") and why in said and said.endswith("your corpus is unchanged.")


def test_json_without_the_counts_tag_is_running_text_and_counts_mixed_with_text_are_refused():
    port, app = started()
    upload(port, FakeFile("counts.json", b'{"format": "something-else", "counts": [["a", 1]]}'))
    assert app.state.corpus.format == "text" and app.state.corpus.name == "counts.json"
    before = app.state.corpus
    good = to_json(Counted({"low": 2}, pipeline_record(counting_spec("bpe", {})), []))
    upload(port, FakeFile("c.json", good.encode()), FakeFile("notes.txt", b"the cat sat"))
    assert app.state.corpus is before and message(port).startswith("“notes.txt” is text, but the other files are counts files")


def test_several_counts_files_are_merged_in_order_as_count_merge_does(tmp_path):
    spec = counting_spec("bpe", {})
    parts = [to_json(Counted(count_texts([t], spec)[0], pipeline_record(spec),
                             [{"name": f"{k}.txt", "sha256": "0" * 64, "chars": len(t), "bytes": len(t)}]))
             for k, t in enumerate(["b a b", "c a"])]
    port, app = started()
    upload(port, FakeFile("1.json", parts[0].encode()), FakeFile("2.json", parts[1].encode()))
    counted = counts_corpus.read_counts(app.state.corpus.text)
    assert counted.counts == {"b": 2, "a": 2, "c": 1} and [i["name"] for i in counted.inputs] == ["0.txt", "1.txt"]
    assert app.state.corpus.name == "2 counts files"


def test_several_long_counts_files_are_merged_in_the_session_not_on_the_page(monkeypatch):
    """Counts files longer together than CHECK_IN_PAGE_CHARS are read and merged in the
    compute session (on the page, reading and merging 19 MB of them held its thread for
    seconds): the same merged file as `merge_files` on the page gives; a broken one among
    them is named, the corpus kept; short ones are still merged on the page, at once."""
    from subwordlab import counts as counts_module
    from subwordlab_web.corpus_data import CHECK_IN_PAGE_CHARS

    spec = counting_spec("bpe", {})
    parts = [to_json(Counted({f"w{i}": i % 9 + 1 for i in range(k, 30_000, 2)}, pipeline_record(spec), []))
             for k in (0, 1)]
    assert len(parts[0]) < CHECK_IN_PAGE_CHARS < sum(map(len, parts))
    port, app = started()
    parsed = watch_parses(monkeypatch, counts_module, "from_json")
    monkeypatch.setattr(counts_corpus, "MERGE_REPLY_CHARS", 100_000)  # (the merged file comes back in 6 parts)
    upload(port, FakeFile("even.counts", parts[0].encode()), FakeFile("odd.counts", parts[1].encode()))
    assert parsed and all(in_session for _, in_session in parsed), parsed  # (nothing read whole on the page)
    assert counts_corpus.MERGE_OP in [r["op"] for r in port.compute_requests]
    assert app.state.corpus.name == "2 counts files" and app.state.corpus.format == "counts"
    assert app.state.corpus.text == counts_corpus.merge_files(["even.counts", "odd.counts"], parts)[0]
    assert counts_corpus.read_counts(app.state.corpus.text).counts == {
        f"w{i}": i % 9 + 1 for k in (0, 1) for i in range(k, 30_000, 2)}
    # a broken file among them: named, the corpus kept
    before = app.state.corpus
    broken = parts[1].replace('["w29999", 3]', '["w29999", -3]')
    assert broken != parts[1]
    upload(port, FakeFile("even.counts", parts[0].encode()), FakeFile("odd.counts", broken.encode()))
    assert app.state.corpus is before
    assert message(port).startswith("“odd.counts” is a counts file but cannot be read: ") and "counts[14999]" in message(port)
    # short ones: merged on the page (no request)
    asked = len(port.compute_requests)
    small = [to_json(Counted(count_texts([t], spec)[0], pipeline_record(spec), [])) for t in ("b a b", "c a")]
    upload(port, FakeFile("1.json", small[0].encode()), FakeFile("2.json", small[1].encode()))
    assert counts_corpus.read_counts(app.state.corpus.text).counts == {"b": 2, "a": 2, "c": 1}
    assert counts_corpus.MERGE_OP not in [r["op"] for r in port.compute_requests[asked:]]
    # a request whose lengths do not add up gets one message, not an exception
    from subwordlab_web.session import ComputeSession

    request = json.loads(counts_corpus.merge_request(["a", "b"], ["abc", "de"])[0])
    assert list(ComputeSession().replies(request, "abcd")) == [
        {"error": "the page sent counts files that do not add up: load them again"}]


def test_pre_tokens_and_names_stay_text_never_markup():
    spec = counting_spec("bpe", {})
    text = to_json(Counted({EVIL: 3, "low": 1}, pipeline_record(spec), []))
    port, app = started()
    upload(port, FakeFile(EVIL + ".json", text.encode()))
    assert [port.text(w) for w in port.query_all("#corpus-top .word")][0] == EVIL
    assert not port.query_all("img") and EVIL in status(port)


def test_is_counts_file_and_read_counts_are_linear_and_fresh():
    spec = counting_spec("bpe", {})
    big = to_json(Counted({f"w{k}": k + 1 for k in range(200_000)}, pipeline_record(spec), []))
    assert counts_corpus.is_counts_file(big)
    a, b = counts_corpus.read_counts(big), counts_corpus.read_counts(big)
    assert a.counts == b.counts and a.counts is not b.counts  # (training may not change the page's copy)
    assert not counts_corpus.is_counts_file("  low 5\nlower 2") and not counts_corpus.is_counts_file('["subwordlab-counts"]')


def test_a_long_counts_file_is_read_whole_only_in_the_session(monkeypatch):
    """A counts file longer than CHECK_IN_PAGE_CHARS, in `subwordlab count`'s layout, is
    described from its header on the page; its rows are parsed only in the compute session
    (its statistics, its training). Before, the page parsed all of it several times (the
    upload, the status line, the statistics: 0.6 s of CPython each for 19 MB). A header that
    is wrong is refused at once; a row that is wrong far down is said by the statistics."""
    from subwordlab import counts as counts_module
    from subwordlab_web.corpus_data import CHECK_IN_PAGE_CHARS, STATS_OP

    spec = counting_spec("bpe", {})
    words = {f"w{i}": i % 9 + 1 for i in range(30_000)}
    text = to_json(Counted(words, pipeline_record(spec), []))
    assert len(text) > CHECK_IN_PAGE_CHARS
    port, app = started()
    parsed = watch_parses(monkeypatch, counts_module, "from_json")
    hashed_whole = watch_whole_hashes(monkeypatch)
    upload(port, FakeFile("big.counts", text.encode()))
    assert app.state.corpus.format == "counts"
    assert not [n for n in hashed_whole if n > CHECK_IN_PAGE_CHARS], hashed_whole  # (hashed in slices, as a text)
    assert f"{len(words):,} distinct pre-tokens ({sum(words.values()):,} in all)" in status(port)
    assert STATS_OP in [r["op"] for r in port.compute_requests]
    assert port.text(port.query('#corpus-stats dd[data-stat="words"]')) == f"{sum(words.values()):,}"
    assert parsed and all(in_session for n, in_session in parsed if n > CHECK_IN_PAGE_CHARS), parsed
    # a row that is wrong far down: the statistics say so, from the session
    broken = text.replace('["w29990", 3]', '["w29990", -3]')
    assert broken != text
    upload(port, FakeFile("broken.counts", broken.encode()))
    assert "counts[29990]" in (message(port) or ""), message(port)
    port.click(port.query("#train-end"))  # (and training, in the session, says the same)
    port.settle()
    assert app.state.recording is None and "counts[29990]" in app.state.training.message, app.state.training.message
    # a wrong header is refused at once, the corpus kept
    upload(port, FakeFile("bad.counts", text.replace('"version": 1', '"version": 99').encode()))
    assert "newer than this subwordlab reads" in (message(port) or "") and app.state.corpus.name == "broken.counts"


def watch_whole_hashes(monkeypatch):
    """Record the length of every text ``share.sha256_text`` hashes in one go (its digest
    not yet known from ``sha256_text_steps``, which the page runs in slices): the list it
    fills. (A 19 MB counts file hashed in one go held the page for 0.16-1.7 s.)"""
    from subwordlab_web import share

    real = share.sha256_text

    def watched(text):
        if not any(known is text for known, _ in share._DIGESTS):
            whole.append(len(text))
        return real(text)

    whole: list[int] = []
    monkeypatch.setattr(share, "sha256_text", watched)
    return whole
