"""The core's pinned Unicode tables (subwordlab.text.unicode_data, Unicode 16.0) against that
version's own databases: the pinned `unicodedata2` and `fontTools` packages on CPython, the
runtime's `unicodedata` and `str.lower` inside Pyodide 3.14 (whose Unicode is 16.0). Runs
in both tiers; the golden model hashes (test_serialize.py) show the effect on models."""

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from subwordlab.text import unicode_data, unicode_tables
from subwordlab.text.unicode_data import UNICODE_VERSION

pytestmark = pytest.mark.every_runtime  # also in the Pyodide tier (tests/unit/conftest.py)

try:
    import unicodedata2 as _source
except ImportError:
    _source = unicodedata
# the pinned version's own database: unicodedata2 (CPython) or the runtime's (Pyodide 3.14)
REFERENCE = _source if _source.unidata_version == UNICODE_VERSION else None
RUNTIME_IS_PINNED = unicodedata.unidata_version == UNICODE_VERSION
NEWER = [chr(cp) for cp in unicode_tables.NEWER_NORMALIZATION] + [chr(cp) for cp in unicode_tables.NEWER_LOWER]


def test_a_reference_database_of_the_pinned_version_is_available():
    assert UNICODE_VERSION == "16.0.0" and REFERENCE is not None


def test_every_code_point_has_the_pinned_category():
    bad = [cp for cp in range(0x110000) if unicode_data.category(chr(cp)) != REFERENCE.category(chr(cp))]
    assert bad == []
    ranges = unicode_data.category_ranges()
    assert sum(last - first + 1 for runs in ranges.values() for first, last in runs) == 0x110000


@pytest.mark.cpython_only
def test_scripts_are_the_pinned_scripts_txt():
    from fontTools import unicodedata as ft

    assert [cp for cp in range(0, 0x110000, 7) if unicode_data.script(chr(cp)) != ft.script(chr(cp))] == []
    assert unicode_data.script("\U00031350") == "Hani" and unicode_data.script("\U00011F04") == "Kawi"
    assert unicode_data.script("\U00010D50") == "Gara" and unicode_data.script("\u0301") == "Zinh"


def test_lower_case_is_the_pinned_versions():
    assert unicode_data.lower("\U00010D50\U00010D65ÄΣ") == "\U00010D70\U00010D85äς"  # (a final sigma)
    if RUNTIME_IS_PINNED:  # Pyodide 3.14: every code point against str.lower
        assert [cp for cp in range(0x110000) if unicode_data.lower(chr(cp)) != chr(cp).lower()] == []
    else:  # characters this Python knows: its str.lower is exact (stability), the newer ones from the tables
        for cp, low in unicode_tables.NEWER_LOWER.items():
            assert unicode_data.lower(chr(cp)) == chr(low) and REFERENCE.category(chr(low)) == "Ll"


_TEXT = st.lists(st.one_of(st.sampled_from(NEWER), st.sampled_from(list("aeé\u0301\u0327\u0300ﬁ한\u1100\u1161 Å")),
                           st.characters(exclude_categories=("Cs",))), max_size=8).map("".join)


@settings(max_examples=examples(400), deadline=None)
@given(text=_TEXT, form=st.sampled_from(["NFC", "NFD", "NFKC", "NFKD"]))
def test_normalization_is_the_pinned_versions(text, form):
    assert unicode_data.normalize(form, text) == REFERENCE.normalize(form, text)


def test_the_characters_the_runtime_sees_differently_are_found_in_one_bitmap_pass():
    """`_has_foreign` flags exactly the code points its definition lists, found by a
    compact class (ranges, astral ones behind one range test): listed one by one, the stdlib
    re tried ~180 astral letters per character (1.1 s to search 2 MB of "a")."""
    if RUNTIME_IS_PINNED:
        assert unicode_data._foreign() is None and not unicode_data._has_foreign("\U00010D50")
        return
    expected = {cp for cp in list(unicode_tables.NEWER_NORMALIZATION) + list(unicode_tables.NEWER_LOWER)
                if unicodedata.category(chr(cp)) == "Cn"} if unicodedata.unidata_version < UNICODE_VERSION else None
    flagged = {cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000 and unicode_data._has_foreign(chr(cp))}
    if expected is not None:
        assert flagged == expected and expected
    assert not unicode_data._has_foreign("a" * 1000) and unicode_data._has_foreign("a" * 1000 + chr(min(flagged)))
    runs = sum(1 for cp in flagged if cp - 1 not in flagged)
    assert len(unicode_data._foreign().pattern) <= 60 + 3 * runs  # ranges, not one entry per code point


def test_the_new_compositions_and_foldings():
    assert unicode_data.normalize("NFC", "\U000113C2\U000113C2") == "\U000113C5"  # Tulu-Tigalari
    assert unicode_data.normalize("NFC", "\U000105D2\u0307") == "\U000105C9"  # Todhri
    assert unicode_data.normalize("NFKC", "\U0001CCD6") == "A"  # OUTLINED LATIN CAPITAL LETTER A
    assert unicode_data.normalize("NFD", "\U000105C9") == "\U000105D2\u0307"


def test_a_trained_model_records_the_unicode_version():
    import subwordlab

    assert subwordlab.train("low lower", "bpe", num_merges=2).spec["unicode_version"] == "16.0.0"
