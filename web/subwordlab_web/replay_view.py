"""A model trained elsewhere (our JSON, e.g. from ``subwordlab train -o model.json``) stepped
through on the Train tab, merge by merge, with what the page can and cannot show without the
corpus it was trained on. No DOM: the Files panel offers it, the Train tab's player, merge
table, vocabulary and segmentations show it as they show a run.

``subwordlab.replay.replay`` turns the model into a finished recording whose steps are its
merges in order; ``use_replay`` makes it the page's recording, under the model's own
algorithm and options. The counts of the merges and the pairs each one beat are not in a
model file: the views say so (``CANDIDATES_UNKNOWN``, ``CURVE_UNKNOWN``) instead of drawing
zeros. Segmentations are of the corpus in use, which the user may change (a sample of the
model's corpus, or its counts file) without losing the replay.

>>> import subwordlab
>>> from subwordlab_web.state import AppState
>>> st = AppState()
>>> tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6}, preset="bpe", num_merges=4)
>>> use_replay(st, tok, "model.json")
>>> st.step_text(), st.spec.describe(), is_replay(st.recording)
('step 0 of 4', 'BPE · 4 merges', True)
"""

from __future__ import annotations

from typing import Any

from subwordlab.options import PRESETS
from subwordlab.replay import ReplayedRecording, ReplayError, replay

from .state import AppState, TrainingStatus, TrainSpec
from .wording import plural

CANDIDATES_UNKNOWN = ("Not in the model file: which pairs competed for this merge, and their counts, is known only "
                      "while training on its corpus. Train here on a sample of it to see them.")
CURVE_UNKNOWN = ("Not in the model file: the count of each merge is known only while training on its corpus "
                 "(the merges, their order and the vocabulary are all there).")


def is_replay(recording: Any) -> bool:
    """Is this recording a model replayed (``subwordlab.replay``), not a run trained here?"""
    return bool(getattr(recording, "replayed", False))


def spec_of(tok: Any, steps: int) -> TrainSpec:
    """The Train tab's settings for a model: its algorithm, its target and the options it
    was trained with that differ from the defaults. Raises ``ReplayError`` for a model of an
    algorithm this page does not train (an imported tokenizer.json, a tiktoken file).
    Example: a bpe model of 1,000 merges -> TrainSpec('bpe', 'num_merges', 1000, {...})."""
    preset = PRESETS.get(tok.spec.get("preset"))
    if preset is None or not preset.learns_merges:
        raise ReplayError("this model was not trained by Subword Lab's BPE or WordPiece presets, so the page cannot "
                          "set up its training steps; inspect it as it is")
    defaults = preset.defaults()
    options = {}
    for name in preset.names:
        value = tok.spec.get(name)
        if name in ("vocab_size", "num_merges") or name not in tok.spec or _plain(value) == _plain(defaults.get(name)):
            continue
        try:
            options[name] = preset.option(name).check(value)
        except ValueError:
            continue  # (a value this page's form cannot hold: the model keeps it anyway)
    if tok.spec.get("vocab_size"):
        return TrainSpec(preset.name, "vocab_size", int(tok.spec["vocab_size"]), options)
    return TrainSpec(preset.name, "num_merges", max(1, steps), options)


def _plain(value: Any) -> Any:
    """A spec value as its JSON holds it (tuples as lists). Example: ('a',) -> ['a']."""
    return [_plain(v) for v in value] if isinstance(value, (list, tuple)) else value


def use_replay(state: AppState, tok: Any, source: str) -> None:
    """Make the merges of ``tok`` (a BPE or WordPiece model, from file ``source``) the page's
    recording, at step 0, under the model's algorithm and options; the tokenizer at each
    step becomes what Inspect and Compare use. Raises ``ReplayError`` saying what can be
    shown instead (a Unigram model: the final model only)."""
    rec = replay(tok, source)
    spec = spec_of(tok, len(rec.steps))
    state.set_spec(spec)  # (the run trained here, if any, is discarded)
    state.recording = rec
    state.set_imported(None, quiet=True)
    state.player.reset_recording()
    state.player.set_recorded(len(rec.steps), final=True)
    state.training = TrainingStatus(phase="done")
    state.notify("recording", "tokenizer", "step")


def status_text(state: AppState) -> str:
    """The Train tab's status line for a replay. Example: 'BPE · 1,000 merges replayed from
    model.json: the corpus in use (“Textbook”) is segmented at each step; counts and
    competing pairs are not in the file'."""
    rec = state.recording
    assert isinstance(rec, ReplayedRecording)  # (asked only while a replay is the page's recording)
    return (f"{state.spec.schema.short} · {plural(len(rec.steps), 'merge')} replayed from {rec.source or 'a model file'}: "
            f"the corpus in use (“{state.corpus.name}”) is segmented at each step; counts and competing pairs are "
            "not in the file")


def segmentation_help(state: AppState) -> str:
    """What the segmentation table shows for a replay: the corpus in use, not the model's."""
    rec = state.recording
    assert isinstance(rec, ReplayedRecording)  # (asked only while a replay is the page's recording)
    return (f"How the model from {rec.source or 'the file'} splits, at this step, the most frequent words of the corpus in "
            f"use (“{state.corpus.name}”), not of the corpus it was trained on: load a sample of that corpus, or its "
            "counts file, on the Corpus tab to see its words.")


def unigram_note(source: str) -> str:
    """What the page says of a Unigram model file: the final model, no steps."""
    return (f"{source} is a Unigram model: it keeps its final pieces and their scores, not the rounds that pruned the "
            "others, so Inspect and Compare show the final model and there are no training steps to step through.")
