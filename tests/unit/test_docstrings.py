"""The core's docstring examples are true (they teach; a wrong one misleads), and a
training that stops short of its target says so."""

import doctest
import importlib
import pkgutil

import pytest

import subwordlab

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)

MODULES = sorted(m.name for m in pkgutil.walk_packages(subwordlab.__path__, "subwordlab.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_hold(name):
    failures, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_all_modules_together_carry_examples():
    tried = sum(doctest.testmod(importlib.import_module(n), optionflags=doctest.ELLIPSIS).attempted for n in MODULES)
    assert tried >= 90


@pytest.mark.parametrize("preset, target, asked, unit", [
    ("bpe", "num_merges", 100, "merges"), ("bpe", "vocab_size", 100, "tokens"),
    ("wordpiece", "vocab_size", 100, "tokens"), ("unigram", "vocab_size", 100, "tokens"),
    ("sentencepiece_unigram", "vocab_size", 100, "tokens"), ("byte_bpe", "vocab_size", 400, "tokens"),
])
def test_a_training_that_stops_short_says_why_and_what_to_do(preset, target, asked, unit):
    tok = subwordlab.train("the cat sat on the mat", preset=preset, **{target: asked})
    got = len(tok.merges) if unit == "merges" else tok.vocab_size
    note = subwordlab.shortfall(tok)
    assert note.startswith(f"stopped after {got:,} of the {asked:,} {unit} asked") and "use a bigger corpus" in note
    assert ("worth keeping" in note) == ("unigram" in preset)


def test_wordpiece_merges_are_counted_by_the_caller():
    tok = subwordlab.train("the cat sat on the mat", preset="wordpiece", num_merges=100)
    assert subwordlab.shortfall(tok) is None  # WordPiece keeps no merge list
    assert subwordlab.shortfall(tok, merges=7).startswith("stopped after 7 of the 100 merges asked")


def test_a_training_that_reaches_its_target_has_no_shortfall():
    assert subwordlab.shortfall(subwordlab.train("the cat sat on the mat", preset="bpe", num_merges=3)) is None
    assert subwordlab.shortfall(subwordlab.train("the cat sat on the mat", preset="unigram", vocab_size=14)) is None
