"""Training with progress (iter_train(..., progress=True)): the corpus counted in chunks
finds the same words, and the events are the same, with Progress events at the natural
boundaries (a chunk of the corpus counted, a phase started)."""

from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from corpora import UDHR, read
from subwordlab import presets
from subwordlab.base.events import Done, Progress
from subwordlab.recording import Recording
from subwordlab.text import corpus as corpus_mod
from subwordlab.text.corpus import slices_at_spaces

# Pipelines whose counting may be cut (and a few that must refuse to be).
CONFIGS = [
    ("bpe", {}),
    ("bpe", {"lowercase": True, "end_of_word": None}),
    ("byte_bpe", {}),
    ("byte_bpe", {"pattern": "cl100k", "special_tokens": ["<|endoftext|>"]}),
    ("byte_bpe", {"pattern": "o200k"}),
    ("sentencepiece_bpe", {}),
    ("sentencepiece_bpe", {"add_dummy_prefix": False, "remove_extra_whitespaces": False, "split_digits": True}),
    ("sentencepiece_bpe", {"normalization": "none", "lowercase": True}),
    ("wordpiece", {}),
    ("wordpiece", {"lowercase": True, "strip_accents": True}),
    ("unigram", {"lowercase": True}),
    ("sentencepiece_unigram", {"special_tokens": ["<s>", "</s>", "<sep>"]}),
]

ALPHABET = list("ab Z.1'\n\t") + ["  ", "\u00a0", "\u3000", "é", "e\u0301", "\u00a8", "Ａ", "ß", "▁", "<s>", "<|endoftext|>", "?!", "\r\n", "字"]
texts = st.lists(st.sampled_from(ALPHABET), max_size=60).map("".join)


def counts_of(text, preset, options, slice_chars):
    spec = presets.resolve_options(preset, 100_000, None, options) if preset in ("unigram", "sentencepiece_unigram") \
        else presets.resolve_options(preset, None, 10, options)
    pipeline = {"wordpiece": presets.wordpiece_pipeline, "unigram": presets.unigram_pipeline,
                "sentencepiece_unigram": presets.unigram_pipeline}.get(preset, presets.bpe_pipeline)
    normalizer, pre_tokenizer, _ = pipeline(spec)
    with mock.patch.object(corpus_mod, "SLICE_CHARS", slice_chars):
        steps = presets.iter_corpus_word_counts(text, spec, normalizer, pre_tokenizer)
        events = []
        while True:
            try:
                events.append(next(steps))
            except StopIteration as stop:
                counts, provenance = stop.value
                return list(counts.items()), provenance, events


@pytest.mark.parametrize("preset,options", CONFIGS)
@settings(max_examples=examples(60))
@given(text=texts)
def test_sliced_counting_finds_the_same_words_in_the_same_order(preset, options, text):
    try:
        whole = counts_of(text, preset, options, 1 << 30)
    except subwordlab.CorpusError:
        with pytest.raises(subwordlab.CorpusError):
            counts_of(text, preset, options, 3)
        return
    sliced = counts_of(text, preset, options, 3)
    assert sliced[:2] == whole[:2]
    assert whole[2] == []  # one chunk: no progress at all


def test_sentencepiece_with_a_dummy_prefix_but_no_collapsing_is_never_cut():
    spec = presets.resolve_options("sentencepiece_bpe", None, 1, {"remove_extra_whitespaces": False})
    assert presets.corpus_slicer(spec, presets.bpe_pipeline(spec)[1]) is None
    spec = presets.resolve_options("byte_bpe", None, 1, {"pattern": r"\S+|\s+"})
    assert presets.corpus_slicer(spec, presets.bpe_pipeline(spec)[1]) is None


@given(st.lists(st.sampled_from(list("ab \n") + ["  "]), max_size=80).map("".join), st.integers(1, 12))
def test_slices_put_back_together_are_the_text(text, size):
    slices = slices_at_spaces(text, size)
    assert "".join(slices) == text
    for s in slices[1:]:
        assert s[0] == " " and not s[1].isspace()


def test_slices_example():
    assert slices_at_spaces("ab cd ef  gh", 2) == ["ab", " cd", " ef  gh"]
    assert slices_at_spaces("漢字漢字漢字", 2) == ["漢字漢字漢字"]


def test_a_big_corpus_trains_to_the_same_events_with_progress_at_phases():
    text = read("tinyshakespeare.txt")[:300_000]
    plain = list(subwordlab.iter_train(text, "byte_bpe", num_merges=40))
    with_progress = list(subwordlab.iter_train(text, "byte_bpe", num_merges=40, progress=True))
    progress = [e for e in with_progress if isinstance(e, Progress)]
    rest = [e for e in with_progress if not isinstance(e, Progress)]
    assert [e.kind for e in plain] == [e.kind for e in rest]
    assert [e for e in plain if e.kind == "merge"] == [e for e in rest if e.kind == "merge"]
    assert plain[-1].tokenizer.merges == rest[-1].tokenizer.merges
    assert plain[-1].tokenizer.spec == rest[-1].tokenizer.spec  # provenance included
    # progress comes first, counting then indexing, each phase moving forward; after the
    # alphabet, only the final model's build ("model", last)
    ready = next(i for i, e in enumerate(with_progress) if e.kind == "alphabet")
    later = [e for e in with_progress[ready:] if isinstance(e, Progress)]
    ending = [e for e in with_progress[with_progress.index(rest[-2]) + 1:] if isinstance(e, Progress)]
    assert {p.phase for p in later} == {"model"} and isinstance(with_progress[-1], Done)
    assert ending and {p.phase for p in ending} == {"model"}
    progress = with_progress[:ready]
    assert all(isinstance(e, Progress) for e in progress)
    assert with_progress[: len(progress)] == progress
    phases = [p.phase for p in progress]
    assert phases == sorted(phases, key=["count", "words", "index"].index) and phases[0] == "count"
    counted = [p.done for p in progress if p.phase == "count"]
    assert counted == sorted(counted) and all(p.total == len(text) for p in progress if p.phase == "count")
    assert len(counted) >= len(text) // corpus_mod.SLICE_CHARS - 1


def test_a_list_of_documents_reports_progress_across_documents():
    docs = [path.read_text(encoding="utf-8") for path in UDHR] * 3  # six small files, three times
    events = list(subwordlab.iter_train(docs, "bpe", num_merges=5, progress=True))
    progress = [e for e in events if e.kind == "progress" and e.phase == "count"]
    assert progress and all(p.total == sum(map(len, docs)) for p in progress)
    plain = subwordlab.train(docs, "bpe", num_merges=5)
    assert events[-1].tokenizer.merges == plain.merges


def test_recording_keeps_progress_out_of_the_steps():
    text = read("tinyshakespeare.txt")[:200_000]
    rec = Recording(text, "bpe", num_merges=5, progress=True)
    rec.advance(1)
    assert rec.progress is not None and rec.progress.phase == "count" and rec.alphabet is None
    rec.run()
    assert [s.kind for s in rec.steps] == ["merge"] * 5
    assert rec.tokenizer.merges == subwordlab.train(text, "bpe", num_merges=5).merges


def test_a_unigram_model_built_with_progress_is_the_one_built_at_once():
    from subwordlab.base.events import drain
    from subwordlab.models.unigram import Unigram
    vocab, scores = ["<unk>", "a", "b", "ab", "<s>"], [0.0, -1.0, -1.5, -2.0, 0.0]
    at_once = Unigram(vocab, scores, control_ids=[4])
    sliced = drain(Unigram.building(vocab, scores, control_ids=[4]))
    assert vars(sliced) == vars(at_once)
    assert sliced.encode_piece("ab") == at_once.encode_piece("ab")
