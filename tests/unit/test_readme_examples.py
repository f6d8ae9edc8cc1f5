"""The README's Python examples (its ```pycon blocks) are doctests: they run, and what they
print is what the core prints."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```pycon\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 2 and all(">>> " in block for block in BLOCKS)


def test_the_readme_examples_hold():
    # one namespace for all blocks, as a reader runs them one after another
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs: dict[str, object] = {}
    for n, block in enumerate(BLOCKS):
        test = parser.get_doctest(block, globs, f"README block {n + 1}", str(README), 0)
        runner.run(test, clear_globs=False)
        globs = test.globs
    assert runner.summarize(verbose=False).failed == 0
