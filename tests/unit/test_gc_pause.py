"""The cycle collector is paused while a whole training is read at once (``subwordlab.train``,
the CLI's ``train``), and restored after, whatever happens; a generator from ``iter_train``
leaves it alone (its caller may keep it half-read)."""

import gc

import pytest

import subwordlab
from subwordlab import api


def watched(monkeypatch, fail_at=None):
    """``api.iter_train`` recording whether the collector runs at each event (and raising at
    event ``fail_at``)."""
    seen = []
    real = api.iter_train

    def spy(*args, **kwargs):
        for k, event in enumerate(real(*args, **kwargs)):
            seen.append(gc.isenabled())
            if k == fail_at:
                raise RuntimeError("a trainer failed")
            yield event

    monkeypatch.setattr(api, "iter_train", spy)
    return seen


def test_train_pauses_the_collector_and_restores_it(monkeypatch):
    seen = watched(monkeypatch)
    assert gc.isenabled()
    tok = subwordlab.train("low lower newest widest", preset="bpe", num_merges=4)
    assert tok.vocab_size > 0 and seen and not any(seen) and gc.isenabled()


def test_a_failing_training_restores_it_and_an_off_collector_stays_off(monkeypatch):
    watched(monkeypatch, fail_at=2)
    with pytest.raises(RuntimeError):
        subwordlab.train("low lower newest widest", preset="bpe", num_merges=4)
    assert gc.isenabled()
    gc.disable()
    try:
        monkeypatch.undo()
        subwordlab.train("low lower", preset="bpe", num_merges=2)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_iter_train_leaves_the_collector_alone():
    events = subwordlab.iter_train("low lower newest widest", preset="bpe", num_merges=4)
    next(events)
    assert gc.isenabled()
    events.close()


def test_the_cli_trains_with_the_collector_paused(monkeypatch, tmp_path):
    from subwordlab.cli import main

    seen = watched(monkeypatch)
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower newest widest " * 3, encoding="utf-8")
    out = tmp_path / "m.json"
    assert main(["train", str(corpus), "--preset", "bpe", "--num-merges", "3", "-q", "-o", str(out)]) in (0, None)
    assert out.exists() and seen and not any(seen) and gc.isenabled()
