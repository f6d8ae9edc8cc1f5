"""How many examples a property test tries: its own weight times the active profile's.

Two Hypothesis profiles are registered in conftest.py:

- ``ci`` (the default: ``scripts/test.sh``, ``--quick``, the Pyodide tier): every property
  test tries about a third of its weight (at least 10 examples);
- ``thorough`` (on demand): every test tries its full weight, the counts the suite was written
  with. Run it with ``SUBWORDLAB_HYPOTHESIS=thorough bash scripts/test.sh --quick`` or
  ``pytest tests/unit --hypothesis-profile thorough``.

A test states its weight, ``@settings(max_examples=examples(300))``; a test without one
weighs Hypothesis' default, 100.

>>> examples(300) == max(MIN_EXAMPLES, round(300 * scale()))
True
"""

from __future__ import annotations

from hypothesis import settings

FULL = 100  # the max_examples of the `thorough` profile: weights are read against it
CI = 34  # the max_examples of the `ci` profile: a third of FULL
MIN_EXAMPLES = 10  # never fewer, however small the profile


def scale() -> float:
    """The active profile's share of a test's weight (1.0 for `thorough`)."""
    return settings.default.max_examples / FULL


def examples(weight: int) -> int:
    """The number of examples a test of this weight tries under the active profile."""
    return max(MIN_EXAMPLES, round(weight * scale()))
