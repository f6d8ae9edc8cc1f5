"""The bundled samples: the worked examples of the textbooks, Shakespeare, the UDHR in six
scripts, a Wikipedia article and a short mixed-script text.

Word-frequency samples are inline (a few lines each); text samples are fetched from the
site's `samples/` folder (copied from the repository's corpora/ by build/build_site.py), never
from the network. Each sample carries the training settings it is meant for; the worked
examples use exactly the settings that reproduce their textbook numbers.

>>> SAMPLES["seed000"].config.kwargs()
{'num_merges': 8}
>>> strip_udhr_header("Title\\n© someone\\n---\\n\\nArticle 1")
('Article 1', 'Title · © someone')
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .state import Corpus, TrainSpec


@dataclass(frozen=True)
class Sample:
    id: str
    title: str
    group: str  # the <optgroup> it is listed under
    description: str
    format: str = "text"
    text: str | None = None  # inline samples
    url: str | None = None  # fetched samples (relative to the page)
    attribution: str = ""
    config: TrainSpec = field(default_factory=TrainSpec)
    try_text: str = ""  # what the inspector shows when the sample is picked
    udhr: bool = False  # strip the UDHR header (title, copyright, source) and show it as attribution

    def corpus(self, text: str, attribution: str = "") -> Corpus:
        return Corpus(text=text, format=self.format, name=self.title, sample=self.id,
                      attribution=attribution or self.attribution)


def counts_text(counts: dict[str, int]) -> str:
    """Example: {'low': 5, 'lower': 2} -> 'low 5\\nlower 2'"""
    return "\n".join(f"{w} {n}" for w, n in counts.items())


def strip_udhr_header(text: str) -> tuple[str, str]:
    """A UDHR file's text after its `---` line, and its header lines as one attribution line."""
    head, sep, body = text.partition("\n---\n")
    if not sep:
        return text, ""
    lines = [line.strip() for line in head.splitlines() if line.strip()]
    return body.strip("\n"), " · ".join(lines)


SHAKESPEARE_ATTRIBUTION = ("Shakespeare's plays (public domain), as Andrej Karpathy's tinyshakespeare "
                           "(github.com/karpathy/char-rnn, MIT)")
UDHR_ATTRIBUTION = ("Universal Declaration of Human Rights © OHCHR, freely reproducible; plain text "
                    "by the “UDHR in Unicode” project (github.com/unicode-corpus/udhr-in-unicode)")

MIXED_SCRIPT = """\
Tokenizers see text as bytes: English, français (déjà vu), Deutsch (Größe, Straße),
Español (¿qué tal?), Ελληνικά (καλημέρα), русский (привет, мир), हिन्दी (नमस्ते दुनिया),
中文 (你好，世界), 日本語 (こんにちは世界), 한국어 (안녕하세요 세계), العربية (مرحبا بالعالم),
emoji 🙂🚀👩‍💻, numbers 3.14159 and 2,048, code: def f(x): return x**2  # done
The same sentence in many scripts costs a different number of tokens.
"""

_SEED_000 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
_SEED_002 = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
_SEED_003 = {"low": 5, "lowest": 2, "newer": 6, "wider": 3}
_SEED_004 = {"token": 6, "tokens": 4, "tokenize": 3, "tokenizer": 2, "stem": 4, "stems": 3, "stemming": 2}

_UDHR = [("eng", "English"), ("hin", "Hindi"), ("cmn_hans", "Chinese (Simplified)"), ("arb", "Arabic"),
         ("kor", "Korean"), ("rus", "Russian")]
_UDHR_TRY = {"eng": "All human beings are born free and equal in dignity and rights.",
             "hin": "सभी मनुष्यों को गौरव और अधिकारों के मामले में जन्मजात स्वतन्त्रता और समानता प्राप्त है।",
             "cmn_hans": "人人生而自由,在尊严和权利上一律平等。",
             "arb": "يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق.",
             "kor": "모든 인간은 태어날 때부터 자유로우며 그 존엄과 권리에 있어 동등하다.",
             "rus": "Все люди рождаются свободными и равными в своем достоинстве и правах."}

_LIST = [
    Sample("seed000", "Textbook: low, lower, newest, widest", "Worked examples (word counts)",
           "Sennrich et al.'s example: BPE with an end-of-word marker </w>, 8 merges. The first three "
           "merges are (e, s), (es, t), (est, </w>), each 9 times.",
           format="word_counts", text=counts_text(_SEED_000), config=TrainSpec("bpe", "num_merges", 8),
           try_text="lowest newer wider"),
    Sample("seed002", "Textbook: hug, pug, pun, bun, hugs", "Worked examples (word counts)",
           "The Hugging Face course's example: BPE without an end-of-word marker and an <unk> token, "
           "3 merges: (u, g), (u, n), (h, ug). Try “bugs mug” in the inspector.",
           format="word_counts", text=counts_text(_SEED_002),
           config=TrainSpec("bpe", "num_merges", 3, {"end_of_word": None, "unk_token": "<unk>"}),
           try_text="bugs mug hugs"),
    Sample("seed003", "Textbook: low, lowest, newer, wider", "Worked examples (word counts)",
           "End-of-word marker “_” and lexicographic tie-breaking, 6 merges: (e, r) 9, (er, _) 9, "
           "(l, o) 7, (lo, w) 7, (e, w) 6, (ew, er_) 6.",
           format="word_counts", text=counts_text(_SEED_003),
           config=TrainSpec("bpe", "num_merges", 6, {"end_of_word": "_", "tie_break": "lex_min"}),
           try_text="lower rower tired"),
    Sample("seed004", "Textbook: token, tokens, …, stemming", "Worked examples (word counts)",
           "Ten BPE merges build “token” and “stem”; switch the algorithm to WordPiece to see it "
           "prefer (##i, ##z) by score over the most frequent pair.",
           format="word_counts", text=counts_text(_SEED_004),
           config=TrainSpec("bpe", "num_merges", 10),
           try_text="tokens stemmed tokenizers"),
    Sample("shakespeare_100k", "Shakespeare, first 100,000 characters", "Real text",
           "The opening of tinyshakespeare (Coriolanus): a quick real-text run.",
           url="samples/tinyshakespeare.txt", attribution=SHAKESPEARE_ATTRIBUTION,
           config=TrainSpec("byte_bpe", "vocab_size", 1000),
           try_text="First Citizen:\nBefore we proceed any further, hear me speak."),
    Sample("tinyshakespeare", "Shakespeare, complete tinyshakespeare (1.1 MB)", "Real text",
           "40,000 lines of Shakespeare's plays. A byte-level run to a vocabulary of 4,000 takes a few "
           "seconds here; the page stays responsive and you can cancel it.",
           url="samples/tinyshakespeare.txt", attribution=SHAKESPEARE_ATTRIBUTION,
           config=TrainSpec("byte_bpe", "vocab_size", 4000),
           try_text="To be, or not to be, that is the question."),
    Sample("taylorswift", "Wikipedia: Taylor Swift (186 KB)", "Real text",
           "The English Wikipedia article, used by minbpe's tests.",
           url="samples/taylorswift.txt",
           attribution="English Wikipedia, “Taylor Swift”, CC BY-SA 4.0 (via github.com/karpathy/minbpe)",
           config=TrainSpec("byte_bpe", "vocab_size", 512),
           try_text="Taylor Alison Swift is an American singer-songwriter."),
    Sample("mixed_script", "Mixed scripts and emoji (short)", "Real text",
           "A few lines in a dozen scripts, with emoji, numbers and code: see how bytes and characters differ.",
           text=MIXED_SCRIPT, attribution="Written for Subword Lab (public domain)",
           config=TrainSpec("byte_bpe", "vocab_size", 400), try_text="héllo 你好 🙂 안녕"),
    *[Sample(f"udhr_{code}", f"UDHR: {name}", "Universal Declaration of Human Rights",
             f"The Universal Declaration of Human Rights in {name}: the same content in six scripts.",
             url=f"samples/udhr/udhr_{code}.txt", attribution=UDHR_ATTRIBUTION, udhr=True,
             config=TrainSpec("sentencepiece_bpe", "vocab_size", 800), try_text=_UDHR_TRY[code])
      for code, name in _UDHR],
]

SAMPLES: dict[str, Sample] = {s.id: s for s in _LIST}
DEFAULT_SAMPLE = "seed000"
SHAKESPEARE_EXCERPT_CHARS = 100_000


def excerpt(sample: Sample, text: str) -> str:
    """The part of a fetched file a sample uses (the 100k excerpt ends at a line end)."""
    if sample.id == "shakespeare_100k":
        cut = text.rfind("\n", 0, SHAKESPEARE_EXCERPT_CHARS)
        return text[: cut + 1 if cut > 0 else SHAKESPEARE_EXCERPT_CHARS]
    return text
