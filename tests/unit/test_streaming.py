"""``Tokenizer.encode_iter`` (what ``subwordlab encode --file`` streams with) equals encoding
the whole text, for every preset and for imported tokenizer.json pipelines, at any chunking."""

import warnings

import pytest

import subwordlab
from corpora import UDHR, read
from subwordlab.formats.hf_json import from_hf_json, to_hf_json

ENG = read("udhr/udhr_eng.txt")
TEXTS = [p.read_text(encoding="utf-8")[:1500] for p in UDHR] + [
    "a\nb  c\n\n d<s> e <s>f 12 34\n5 6", " !!\n\n  x   \n\n ", "▁a ▁ b ▁c▁ d \t e", "x<sep>y <sep> z",
]
CONFIGS = [
    ("bpe", {"vocab_size": 300, "lowercase": True, "unk_token": "<unk>", "special_tokens": ["<s>"]}),
    ("byte_bpe", {"vocab_size": 300, "pattern": "cl100k", "special_tokens": ["<s>"]}),
    ("byte_bpe", {"vocab_size": 300, "pattern": "o200k"}),
    ("sentencepiece_bpe", {"vocab_size": 300, "split_digits": True, "user_defined_symbols": ["<sep>"]}),
    ("sentencepiece_bpe", {"vocab_size": 300, "remove_extra_whitespaces": False, "normalization": "none"}),
    ("wordpiece", {"vocab_size": 300, "lowercase": True}),
    ("unigram", {"vocab_size": 300}),
    ("sentencepiece_unigram", {"vocab_size": 400, "byte_fallback": True}),
    ("sentencepiece_unigram", {"vocab_size": 400, "remove_extra_whitespaces": False, "user_defined_symbols": ["<sep>"]}),
]


def chunked(text, size):
    return [text[i:i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("preset, options", CONFIGS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(CONFIGS)])
def test_encode_iter_equals_encode(preset, options):
    tok = subwordlab.train(ENG[:8000], preset=preset, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        imported = from_hf_json(to_hf_json(tok)) if preset not in ("bpe",) else None
    for t in [tok] + ([imported] if imported else []):
        for text in TEXTS:
            whole = t.encode(text, disallowed_special=())
            for size in ((1, 5, 64) if len(text) < 100 else (7, 64)):
                assert list(t.encode_iter(chunked(text, size), disallowed_special=())) == whole, (preset, text[:30], size)
