"""A model trained by the command line, opened on the Files tab and stepped through merge by
merge on Train (the real index.html through the fake port): the player, the merge table,
the vocabulary and the segmentation of the corpus in use at each step, and what the page
says it cannot show without the model's corpus."""

from __future__ import annotations

import pytest
from fakedom import FakeFile
from test_web_train import started

import subwordlab
from corpora import read
from subwordlab import cli
from subwordlab.base.registry import dump_component
from subwordlab.recording import Recording
from subwordlab_web import replay_view
from subwordlab_web.state import TrainSpec
from subwordlab_web.train_views import vocabulary_at

BIG = read("udhr/udhr_eng.txt")[:8000]  # "the big corpus" the command line trained on


def cli_model(tmp_path, *args):
    """The model file `subwordlab train BIG ... -o model.json` writes, as bytes."""
    corpus, model = tmp_path / "big.txt", tmp_path / "model.json"
    corpus.write_bytes(BIG.encode("utf-8"))
    assert cli.main(["train", str(corpus), *args, "--workers", "1", "-q", "-o", str(model)]) == 0
    return model.read_bytes()


def load_model(port, app, data, name="model.json"):
    app.show_panel("files")
    box = port.query("#files-import")
    box.files = [FakeFile(name, data)]
    port.dispatch(box, "change")
    port.settle()


def text(port, selector):
    return port.text(port.query(selector))


def click(port, selector, times=1):
    for _ in range(times):
        port.click(port.query(selector))
        port.settle()


def cells(port, selector):
    return [[port.text(td) for td in port.query_all("td", tr)] for tr in port.query_all(f"{selector} tr")]


def segmentation(port):
    """{word: its chips} of the segmentation table."""
    out = {}
    for tr in port.query_all("#segmentation-rows tr"):
        word = port.text(port.query("td", tr))
        out[word] = [port.text(c) for c in tr.iter() if "mini-chip" in c.class_list]
    return out


def test_a_cli_trained_bpe_model_steps_merge_by_merge_on_the_corpus_in_use(tmp_path):
    data = cli_model(tmp_path, "--preset", "bpe", "--num-merges", "40")
    port, app = started()
    st = app.state
    load_model(port, app, data)
    button = port.query("#files-replay")
    assert not button.hidden and port.text(button) == "Step through its 40 merges on Train"
    assert st.imported is not None  # (until asked, it is the loaded tokenizer of Inspect and Compare, as before)
    click(port, "#files-replay")
    rec = st.recording
    assert replay_view.is_replay(rec) and st.imported is None and app.current == "train"
    assert st.spec == TrainSpec("bpe", "num_merges", 40) and text(port, "#context-step") == "step 0 of 40"
    assert "replayed from model.json" in text(port, "#train-status") and "not in the file" in text(port, "#train-status")
    click(port, "#train-step", 3)
    # the merges, as the model learned them; the counts are not invented
    three = subwordlab.train(BIG, "bpe", num_merges=3)
    m = three.model
    learned = [(m.vocab[a], m.vocab[b], m.vocab[m.ranks[(a, b)][1]]) for a, b in m.merges]
    assert cells(port, "#merges-rows") == [[str(k), f"{a} + {b}", "–", new] for k, (a, b, new) in reversed(list(enumerate(learned, 1)))]
    assert text(port, "#train-now-kicker").startswith("Merge 3 · count not in the file · vocabulary ")
    assert text(port, "#candidates-empty") == replay_view.CANDIDATES_UNKNOWN
    assert text(port, "#curve-empty") == replay_view.CURVE_UNKNOWN
    # the segmentation of the corpus in use (the textbook's words) by the model after 3 merges
    rows = segmentation(port)
    assert rows and set(rows) == {"low", "lower", "newest", "widest"}
    assert rows == {w: three.tokenize(w) for w in rows}
    assert "not of the corpus it was trained on" in text(port, "#segmentation-help")
    # Inspect and the Files tab use the model at this step
    tok, _ = st.current_tokenizer()
    assert dump_component("model", tok.model) == dump_component("model", three.model)
    app.show_panel("files")
    port.settle()
    assert text(port, "#files-current").endswith("replayed from model.json (step 3).")


def test_loading_a_sample_alongside_keeps_the_replay_and_segments_the_sample(tmp_path):
    port, app = started()
    st = app.state
    load_model(port, app, cli_model(tmp_path, "--preset", "byte_bpe", "--vocab-size", "300"))
    click(port, "#files-replay")
    rec = st.recording
    click(port, "#train-step", 3)
    # a sample of the model's corpus, loaded after the model
    app.show_panel("corpus")
    box = port.query("#corpus-file")
    box.files = [FakeFile("sample.txt", BIG[:1500].encode("utf-8"))]
    port.dispatch(box, "change")
    port.settle()
    assert st.recording is rec and st.corpus.name == "sample.txt"
    app.show_panel("train")
    st.seek(3)
    port.settle()
    three = subwordlab.train(BIG, "byte_bpe", num_merges=3)
    rows = segmentation(port)
    assert "the" in rows and rows["the"] == [t.replace("Ġ", "·") for t in three.tokenize(" the")]
    # other settings on Train: the replay gives way to a run of them, as any setting change does
    st.set_spec(TrainSpec("bpe", "num_merges", 5))
    port.settle()
    assert not replay_view.is_replay(st.recording)


def test_a_wordpiece_model_steps_through_its_tokens_without_pairs(tmp_path):
    port, app = started()
    load_model(port, app, cli_model(tmp_path, "--preset", "wordpiece", "--vocab-size", "150"))
    assert text(port, "#files-replay") == "Step through its merges on Train"
    click(port, "#files-replay")
    st = app.state
    run = Recording(BIG, "wordpiece", vocab_size=150).run()
    added = [s for k, s in enumerate(run.steps) if s.vocab_size > (run.steps[k - 1].vocab_size if k else run.alphabet.vocab_size)]
    assert len(st.recording.steps) == len(added)
    click(port, "#train-step", 2)
    assert text(port, "#train-now-main") == f"→  {added[1].new_token}"
    assert [row[1:] for row in cells(port, "#merges-rows")] == [["–", "–", added[1].new_token], ["–", "–", added[0].new_token]]
    assert vocabulary_at(st.recording, 2) == run.tokenizer.model.vocab[:added[1].vocab_size]


def test_a_unigram_model_says_it_shows_the_final_model_only(tmp_path):
    port, app = started()
    load_model(port, app, cli_model(tmp_path, "--preset", "unigram", "--vocab-size", "120"))
    assert port.query("#files-replay").hidden
    note = port.query("#files-replay-note")
    assert not note.hidden and port.text(note) == replay_view.unigram_note("model.json")
    assert app.state.imported is not None  # (Inspect and Compare use the final model)


def test_a_hugging_face_file_is_not_offered_and_a_reload_asks_for_the_model_file_again(tmp_path):
    port, app = started()
    tok = subwordlab.train(BIG, "byte_bpe", vocab_size=270)
    load_model(port, app, subwordlab.to_hf_json(tok).encode(), "tokenizer.json")
    assert port.query("#files-replay").hidden and port.query("#files-replay-note").hidden
    load_model(port, app, subwordlab.to_json(tok).encode())
    click(port, "#files-replay")
    app.state.seek(4)
    exp, _ = app.panels["share"].experiment(for_reload=True)
    assert exp.step is None and exp.imported == "model.json"


@pytest.mark.parametrize("preset", ["bpe", "sentencepiece_bpe", "wordpiece"])
def test_spec_of_gives_the_models_algorithm_target_and_options(preset):
    kwargs = {"vocab_size": 90} if preset == "wordpiece" else {"num_merges": 12}
    tok = subwordlab.train(BIG[:3000], preset, lowercase=True, **kwargs) if preset != "sentencepiece_bpe" else \
        subwordlab.train(BIG[:3000], preset, byte_fallback=True, **kwargs)
    spec = replay_view.spec_of(tok, 12)
    target = "vocab_size" if preset == "wordpiece" else "num_merges"
    assert (spec.preset, spec.target, spec.size) == (preset, target, kwargs[target])
    assert spec.options == ({"byte_fallback": True} if preset == "sentencepiece_bpe" else {"lowercase": True})
