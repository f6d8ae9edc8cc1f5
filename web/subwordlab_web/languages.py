"""The languages of the premium (fairness) view: the same text, the UDHR, in many scripts.

Two sets: the six UDHR translations the page bundles as samples (English, Hindi, Chinese,
Arabic, Korean, Russian), and those six with 41 more (corpora/udhr_more, copied to the
site's ``samples/udhr_more/``): 47 languages in 24 scripts, fetched only when that set is
chosen. Each entry: its key (the parity table's row), its name, its script and the file.

>>> len(LANGUAGE_SETS["udhr6"]), len(LANGUAGE_SETS["udhr47"]), len({l.script for l in LANGUAGE_SETS["udhr47"]})
(6, 47, 24)
>>> LANGUAGES["udhr_fra"].url
'samples/udhr_more/udhr_fra.txt'
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    key: str  # e.g. "udhr_fra"
    name: str  # e.g. "French"
    script: str  # e.g. "Latin"
    url: str  # where the page fetches it (a UDHR file: its header is stripped)


_SIX = [("eng", "English", "Latin"), ("hin", "Hindi", "Devanagari"), ("cmn_hans", "Chinese (Simplified)", "Han"),
        ("arb", "Arabic", "Arabic"), ("kor", "Korean", "Hangul"), ("rus", "Russian", "Cyrillic")]
_MORE = [
    ("fra", "French", "Latin"), ("deu_1996", "German", "Latin"), ("spa", "Spanish", "Latin"),
    ("por_PT", "Portuguese", "Latin"), ("ita", "Italian", "Latin"), ("nld", "Dutch", "Latin"),
    ("pol", "Polish", "Latin"), ("ces", "Czech", "Latin"), ("hun", "Hungarian", "Latin"), ("fin", "Finnish", "Latin"),
    ("tur", "Turkish", "Latin"), ("vie", "Vietnamese", "Latin"), ("ind", "Indonesian", "Latin"),
    ("swh", "Swahili", "Latin"), ("yor", "Yoruba", "Latin"), ("hau_NG", "Hausa", "Latin"), ("zul", "Zulu", "Latin"),
    ("ukr", "Ukrainian", "Cyrillic"), ("bul", "Bulgarian", "Cyrillic"), ("ell_monotonic", "Greek", "Greek"),
    ("pes_1", "Persian", "Arabic"), ("urd", "Urdu", "Arabic"), ("heb", "Hebrew", "Hebrew"),
    ("mar", "Marathi", "Devanagari"), ("ben", "Bengali", "Bengali"), ("pan", "Punjabi", "Gurmukhi"),
    ("guj", "Gujarati", "Gujarati"), ("tam", "Tamil", "Tamil"), ("tel", "Telugu", "Telugu"),
    ("kan", "Kannada", "Kannada"), ("mal", "Malayalam", "Malayalam"), ("sin", "Sinhala", "Sinhala"),
    ("tha", "Thai", "Thai"), ("khm", "Khmer", "Khmer"), ("mya", "Burmese", "Myanmar"), ("bod", "Tibetan", "Tibetan"),
    ("kat", "Georgian", "Georgian"), ("hye", "Armenian", "Armenian"), ("amh", "Amharic", "Ethiopic"),
    ("jpn", "Japanese", "Japanese (kana, kanji)"), ("cmn_hant", "Chinese (Traditional)", "Han"),
]
SIX = tuple(Language(f"udhr_{c}", n, s, f"samples/udhr/udhr_{c}.txt") for c, n, s in _SIX)
MORE = tuple(Language(f"udhr_{c}", n, s, f"samples/udhr_more/udhr_{c}.txt") for c, n, s in _MORE)
LANGUAGE_SETS: dict[str, tuple[Language, ...]] = {"udhr6": SIX, "udhr47": SIX + MORE}
SET_TITLES = {"udhr6": "6 languages, 6 scripts (UDHR)", "udhr47": "47 languages, 24 scripts (UDHR)"}
LANGUAGES = {lang.key: lang for lang in SIX + MORE}
DEFAULT_SET = "udhr6"


def language_of_upload(file_name: str, text: str) -> str:
    """The name a parallel text is shown by: the language a UDHR file's header names, else
    its file name without the extension (so udhr_fra.txt is "French", not "udh").

    >>> language_of_upload("udhr_fra.txt", "Universal Declaration of Human Rights - French\\n© …\\n---\\n")
    'French'
    >>> language_of_upload("flores_deu_Latn.devtest", "Ein Satz.")
    'flores_deu_Latn'
    """
    first = text[:200].split("\n", 1)[0].strip()
    prefix = "Universal Declaration of Human Rights - "
    if first.startswith(prefix) and first[len(prefix):].strip():
        return first[len(prefix):].strip()[:60]
    stem = file_name.rsplit(".", 1)[0] if "." in file_name.strip(".") else file_name
    return stem or file_name
