"""The option and preset schema: every algorithm (preset) the playground offers and every
option it takes, with its kind, default, allowed values and a one-line help.

(Why one module: it is the one schema every door reads; its option
definitions, each with its check, help and tokenizer.json meaning, are its bulk, and split
across files a reader would lose the one list.)

This module is the single source the command line builds its arguments from, the page
builds its forms from, a share link is checked against, and the README's options table is
generated from (``python -m subwordlab presets --markdown``). ``check_options`` validates
values against it: the core calls it before training, so every door gets the same checks.

>>> opt = PRESETS["bpe"].option("top_k")
>>> opt.kind, opt.default, opt.parse(" 12 ")
('int', 10, 12)
>>> check_options("sentencepiece_bpe", {"character_coverage": 2})
Traceback (most recent call last):
...
subwordlab.options.OptionError: character_coverage must be a number greater than 0 and at most 1, not 2 (share of the corpus's characters the alphabet must cover; rarer ones become <unk> or bytes)

Lists have ONE syntax everywhere a list is typed (command line, page field): the items
separated by white space, e.g. ``<s> </s>``. (A share link carries a JSON list.)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .text.hf_onig import translate_regex
from .text.patterns import PATTERNS
from .trainers.bpe import TIE_BREAKS
from .trainers.wordpiece import SCORINGS

KINDS = ("bool", "int", "float", "choice", "list", "text")
FAMILIES = ("bpe", "wordpiece", "unigram")
NORMALIZATIONS = ("nfkc", "nfc", "none")
MAX_SIZE = 10_000_000  # the largest vocab_size / num_merges anyone may ask for
MAX_LIST_ITEMS = 1000
TARGETS = ("vocab_size", "num_merges")  # the training target: set apart from the other options
LIST_SYNTAX = "items separated by white space, e.g. '<s> </s>'"
RULES = ("textbook", "hf", "sentencepiece")  # whose training rules a trainer follows (the ``rules`` option)


class OptionError(ValueError):
    """An option value the schema refuses; the message names the option, the allowed
    values and what the option means. ``name`` and ``problem`` hold its two parts (a share
    link puts the field's path before the problem)."""

    def __init__(self, message: str, name: str = "", problem: str = "") -> None:
        super().__init__(message)
        self.name, self.problem = name, problem or message


@dataclass(frozen=True)
class Range:
    """Allowed numbers, ends included unless marked open. Example: Range(0, 1, low_open=True)
    is 'greater than 0 and at most 1'."""

    low: float
    high: float
    low_open: bool = False
    high_open: bool = False

    def __contains__(self, x: float) -> bool:
        above = x > self.low if self.low_open else x >= self.low
        below = x < self.high if self.high_open else x <= self.high
        return above and below

    def describe(self, integer: bool) -> str:
        """Example: Range(1, 100).describe(True) -> 'from 1 to 100'."""
        def fmt(x: float) -> str:
            return f"{int(x):,}" if integer or float(x).is_integer() else f"{x:g}"
        if self.high == math.inf:
            return f"greater than {fmt(self.low)}" if self.low_open else f"of at least {fmt(self.low)}"
        if self.low_open or self.high_open:
            low = f"greater than {fmt(self.low)}" if self.low_open else f"at least {fmt(self.low)}"
            high = f"less than {fmt(self.high)}" if self.high_open else f"at most {fmt(self.high)}"
            return f"{low} and {high}"
        return f"from {fmt(self.low)} to {fmt(self.high)}"


@dataclass(frozen=True)
class HFMeaning:
    """What a trained option means for a Hugging Face tokenizer.json; hf_export.py asks
    (``Option.hf_refusal``) before it writes one.

    ``where``: the part of the file that carries the option (e.g. 'model.unk_token'), or
    ``TRAINING_ONLY`` when the option only steers training (the file holds what training
    learned: the vocabulary, merges, scores). ``refuses``: value -> why the file cannot
    express that value and what to choose instead; None when every value exports.
    """

    where: str
    refuses: Callable[[Any], str | None] | None = None


TRAINING_ONLY = "nothing (it steers training; the file holds what was learned)"
_TRAINING = HFMeaning(TRAINING_ONLY)


@dataclass(frozen=True)
class Option:
    """One option of a preset.

    ``kind``: 'bool', 'int', 'float', 'choice' (one of ``choices``), 'list' (of strings) or
    'text'. ``nullable``: None is allowed (an empty field or ``none`` on the command line
    means None). ``range``: the numbers allowed (int and float kinds).
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    nullable: bool = False
    range: Range | None = None
    hf: HFMeaning | None = None  # what it means for a tokenizer.json export; every option says (a unit test checks)

    def __post_init__(self) -> None:
        assert self.kind in KINDS and self.help, self.name  # every option says what it does
        assert (self.range is not None) == (self.kind in ("int", "float")), self.name  # every number has a range

    def hf_refusal(self, value: Any) -> str | None:
        """None if a tokenizer trained with ``value`` exports to tokenizer.json; otherwise one
        message naming the option and what to change.

        >>> PRESETS["bpe"].option("end_of_word").hf_refusal("</w>")[:54]
        "end_of_word='</w>' cannot be written to tokenizer.json"
        """
        if self.hf is None:
            return (f"the option schema does not say what {self.name} means for tokenizer.json "
                    "(options.py: give the option hf=HFMeaning(...))")
        why = self.hf.refuses(value) if self.hf.refuses is not None else None
        return None if why is None else f"{self.name}={value!r} cannot be written to tokenizer.json: {why}"

    @property
    def flag(self) -> str:
        """The command-line flag. Example: '--min-frequency'."""
        return "--" + self.name.replace("_", "-")

    def _fail(self, what: str, value: Any) -> OptionError:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            shown = repr(value)
        else:
            shown = f"{value:g}" if isinstance(value, float) else f"{value:,}"
        if len(shown) > 60:
            shown = shown[:57] + "..."
        problem = f"must be {what}, not {shown} ({self.help})"
        return OptionError(f"{self.name} {problem}", self.name, problem)

    def allowed(self) -> str:
        """What the option takes, in words. Example: 'a whole number from 1 to 100'."""
        if self.kind == "bool":
            what = "true or false"
        elif self.kind == "choice":
            what = "one of " + ", ".join(self.choices)
        elif self.kind == "list":
            what = "a list of non-empty texts"
        elif self.kind == "text":
            what = "a text"
        else:
            what = "a whole number" if self.kind == "int" else "a number"
            if self.range is not None:
                what += " " + self.range.describe(self.kind == "int")
        return what + (" (or none)" if self.nullable else "")

    # -- checking a value (what the core, the page and a share link give) -----------------
    def check(self, value: Any) -> Any:
        """``value`` if the option allows it (lists as lists); OptionError otherwise.

        Example: Option('top_k', 'int', 10, 'x', range=Range(0, 1000)).check(-1) raises
        "top_k must be a whole number from 0 to 1,000, not -1 (x)".
        """
        if value is None:
            if self.nullable:
                return None
            raise self._fail(self.allowed(), value)
        kind = self.kind
        if kind == "bool":
            if not isinstance(value, bool):
                raise self._fail("true or false", value)
        elif kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise self._fail(self.allowed(), value)
            if self.range is not None and value not in self.range:
                raise self._fail(self.allowed(), value)
        elif kind == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise self._fail(self.allowed(), value)
            if self.range is not None and value not in self.range:
                raise self._fail(self.allowed(), value)
        elif kind == "choice":
            if value not in self.choices:
                raise self._fail(self.allowed(), value)
        elif kind == "list":
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, (list, tuple)) or len(items) > MAX_LIST_ITEMS \
                    or any(not isinstance(s, str) or not s for s in items):
                raise self._fail(f"a list of at most {MAX_LIST_ITEMS:,} texts (none empty)", value)
            return list(items)
        elif not isinstance(value, str):
            raise self._fail(self.allowed(), value)
        return value

    # -- text <-> value (a command-line argument, a form field) ----------------------------
    def parse(self, raw: Any) -> Any:
        """A typed text (or a checkbox's bool) as the value, checked. Lists: white-space
        separated items. Example: special_tokens '<s>  </s>' -> ['<s>', '</s>']; an empty
        text or 'none' for a nullable option (unk_token, end_of_word) -> None."""
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("true", "1", "yes", "on"):
                return True
            if text in ("false", "0", "no", "off"):
                return False
            raise self._fail("true or false", raw)
        text = str(raw) if self.kind == "text" else str(raw).strip()
        if self.nullable and text.strip() in ("", "none"):
            return None
        if self.kind == "int":
            digits = text[1:] if text[:1] in "+-" else text
            if not (digits.isascii() and digits.isdigit()):
                raise self._fail(self.allowed(), text)
            if len(digits) > 30:  # subtle: Python refuses to convert very long numbers
                raise self._fail(self.allowed(), text[:20] + "...")
            return self.check(int(text))
        if self.kind == "float":
            try:
                value = float(text)
            except ValueError:
                raise self._fail(self.allowed(), text) from None
            return self.check(value)
        if self.kind == "list":
            return self.check(text.split())
        return self.check(text)

    def text(self, value: Any) -> str:
        """A value as a field (or the README) shows it. Example: ('<s>', '</s>') -> '<s> </s>';
        None -> ''; False -> 'false'."""
        if value is None:
            return ""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (list, tuple)):
            return " ".join(str(v) for v in value)
        return str(value)


@dataclass(frozen=True)
class Preset:
    """One algorithm the playground offers: its family (which trainer), names for people,
    the pipeline it composes, and its options (the target options first).

    Compare presets by object or family (``preset.family == "unigram"``,
    ``preset.byte_level``), never by name."""

    name: str
    family: str
    title: str  # e.g. 'Byte-level BPE (GPT-2)'
    short: str  # e.g. 'Byte-level BPE'
    help: str
    pipeline: str  # the stages it composes, in words
    trainer: str  # the module whose algorithm it runs
    options: tuple[Option, ...] = field(default=())
    byte_level: bool = False  # tokens are GPT-2 byte characters
    raw_text: bool = False  # SentencePiece style: spaces are part of pieces (▁), white space ends no word

    @property
    def is_unigram(self) -> bool:
        return self.family == "unigram"

    @property
    def learns_merges(self) -> bool:
        """BPE and WordPiece learn merges (a num_merges target); Unigram prunes."""
        return self.family != "unigram"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.options)

    def option(self, name: str) -> Option:
        for o in self.options:
            if o.name == name:
                return o
        raise OptionError(f"{name!r} is not an option of the {self.name} preset; its options are: "
                          f"{', '.join(sorted(self.names))}")

    def has(self, name: str) -> bool:
        return name in self.names

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    def form_options(self) -> tuple[Option, ...]:
        """The options a form shows (the target is chosen apart)."""
        return tuple(o for o in self.options if o.name not in TARGETS)


# -- what options mean for a tokenizer.json export ------------------------------------------

def _one_character_marker(value: Any) -> str | None:
    """HF's end_of_word_suffix is glued to a word's last character; ours is a symbol of its own."""
    if value is None or len(value) == 1:
        return None  # none, or one character the export inserts after every word (a Replace)
    return ("tokenizer.json's end_of_word_suffix glues the marker to a word's last character (e.g. "
            f"'t{value}' would be one starting symbol), so words would split differently; retrain with "
            "end_of_word=None (or a one-character marker such as '_') to export")


def _oniguruma(value: Any) -> str | None:
    """HF tokenizers run regexes with Oniguruma: the pattern must translate exactly."""
    try:
        translate_regex(PATTERNS.get(value, value), True)
    except (ValueError, IndexError) as exc:
        return (f"Oniguruma, the regex engine of HF tokenizers, has no equivalent ({exc}); retrain with "
                "pattern='gpt2', 'cl100k', 'o200k' or a pattern without that construct to export")
    return None


_HF_ADDED = HFMeaning("added_tokens (each special token, with its id)")
_HF_NORMALIZER = HFMeaning("normalizer")
_HF_UNK = HFMeaning("model.unk_token (Unigram: model.unk_id)")
_HF_BYTE_FALLBACK = HFMeaning("model.byte_fallback and the decoder's ByteFallback")


# -- the options ---------------------------------------------------------------------------

def _size(name: str, help_: str) -> Option:
    return Option(name, "int", None, help_, nullable=True, range=Range(0, MAX_SIZE), hf=_TRAINING)


def _common(merge_what: str = "", rule: str = "") -> tuple[Option, ...]:
    """vocab_size, num_merges, min_frequency, tie_break, top_k: the BPE and WordPiece options."""
    wp = merge_what == "score"
    return (
        _size("vocab_size", "target vocabulary size, counting every token (" + (
            "special tokens, characters, merges" if wp else "base symbols, special tokens, merges") + ")" + rule),
        _size("num_merges", "number of merges to learn (instead of vocab_size)" + rule),
        Option("min_frequency", "int", 1,
               "a pair occurring fewer times than this is never merged, whatever its score" if wp
               else "stop when the best pair occurs fewer times than this", range=Range(1, math.inf), hf=_TRAINING),
        Option("tie_break", "choice", "first",
               f"equal {'scores' if wp else 'counts'}: 'first' pair met scanning words in order of first appearance, "
               "or 'lex_min'/'lex_max' comparing the two symbols", choices=TIE_BREAKS, hf=_TRAINING),
        Option("top_k", "int", 10, "how many competing pairs (with count and score) each merge event reports" if wp
               else "how many competing pairs each merge event reports", range=Range(0, 10_000), hf=_TRAINING),
    )


_LOWERCASE = Option("lowercase", "bool", False, "lower-case the text before splitting it into words", hf=_HF_NORMALIZER)


def _specials(default: tuple[str, ...], help_: str) -> Option:
    return Option("special_tokens", "list", default, help_, hf=_HF_ADDED)


_SENTENCEPIECE_TEXT = (
    Option("add_dummy_prefix", "bool", True, "prepend ▁ so the first word looks like every other word",
           hf=HFMeaning("normalizer (Prepend) and pre_tokenizer (Metaspace prepend_scheme)")),
    Option("remove_extra_whitespaces", "bool", True, "strip the ends and collapse runs of spaces", hf=_HF_NORMALIZER),
    Option("normalization", "choice", "nfkc", "Unicode normalization: 'nfkc', 'nfc' or 'none' (under rules='sentencepiece', "
           "'nfkc' is spm_train's own nfkc table, as spm applies it)", choices=NORMALIZATIONS,
           hf=_HF_NORMALIZER),
    Option("lowercase", "bool", False, "lower-case after normalization", hf=_HF_NORMALIZER),
    Option("sentence_per_line", "bool", True, "read the corpus one sentence per line, as spm_train does (the default): "
           "each line is normalized on its own and starts with its own ▁, no piece holds a line break "
           "(rules='sentencepiece' always does), and a line break in a text to encode reads as a space, as spm_encode "
           "reads a file a line at a time; false: the corpus is one text whose line breaks are characters",
           hf=HFMeaning("training, and the normalizer: a line break reads as a space (Replace)")),
)
_COVERAGE = Option("character_coverage", "float", 1.0,
                   "share of the corpus's characters the alphabet must cover; rarer ones become <unk> or bytes",
                   range=Range(0.0, 1.0, low_open=True), hf=_TRAINING)
_MAX_PIECE = Option("max_piece_length", "int", 16, "longest piece, in characters", range=Range(1, 10_000),
                    hf=_TRAINING)
_SP_UNK = Option("unk_token", "text", "<unk>", "token for uncovered characters", nullable=True, hf=_HF_UNK)
_SP_SPECIALS = _specials(("<s>", "</s>"), "control tokens, given ids right after <unk>")
_USER_SYMBOLS = Option("user_defined_symbols", "list", (),
                       "strings that are always one token of their own, never split or merged "
                       "(given ids after the special tokens)",
                       hf=HFMeaning("added_tokens (normalized, not special) and the pre_tokenizer"))
_SPLIT_DIGITS = Option("split_digits", "bool", False, "every digit is a token of its own",
                       hf=HFMeaning("pre_tokenizer (Digits, individual_digits)"))

_WORDPIECE_RULE = ("; each merge joins the pair chosen by 'scoring': by default the highest score "
                   "count(ab)/(count(a)*count(b)), the rule of the original papers and the HF course, not the HF "
                   "tokenizers library's trainer (BPE with a ## prefix, scoring 'frequency')")
_SCORING = Option("scoring", "choice", "likelihood",
                  "how a merge is chosen: 'likelihood' merges the pair with the highest count(ab)/(count(a)*count(b)) "
                  "(the original papers, the HF course); 'frequency' merges the most frequent pair, as the HF "
                  "tokenizers library's WordPieceTrainer does (BPE with ## pieces; every character also starts the "
                  "vocabulary without ##)", choices=SCORINGS, hf=_TRAINING)

_RULES_HELP = {
    "textbook": "'textbook' (the default): as the papers write it, ties by 'tie_break' (the others need 'first')",
    "hf": "'hf': exactly as HF tokenizers 0.2x trains ({what}): its ids, ties and bookkeeping",
    "sentencepiece": "'sentencepiece': exactly as spm_train {what} (num_threads=1), one sentence per line",
}


def _rules(what: str, *values: str) -> Option:
    """The ``rules`` option of a preset: 'textbook' and the reference trainers it can follow."""
    choices = ("textbook",) + values
    help_ = "whose training rules to follow: " + "; ".join(_RULES_HELP[v].format(what=what) for v in choices)
    return Option("rules", "choice", "textbook", help_, choices=choices, hf=_TRAINING)


# every trainer bounds a word's length as SentencePiece bounds a line's (corpus.MAX_SENTENCE_LENGTH)
_MAX_SENTENCE = Option("max_sentence_length", "int", 4192, "a longer word (a run without white space, or a pattern's "
                       "pre-token), in UTF-8 bytes, trains on its first max_sentence_length bytes only, which bounds "
                       "the time and memory of training on text without spaces; every character still gets a piece "
                       "(SentencePiece's max_sentence_length skips such lines)", range=Range(1, 100_000_000),
                       hf=_TRAINING)

_UNIGRAM_TRAINING = (
    Option("vocab_size", "int", None, "vocabulary size to prune down to, counting every piece (unk, special tokens, "
           "bytes, user-defined symbols)", nullable=True, range=Range(0, MAX_SIZE), hf=_TRAINING),
    Option("seed_size", "int", 1_000_000, "most frequent substrings in the starting vocabulary, besides all "
           "characters (SentencePiece's seed_sentencepiece_size)", range=Range(0, 100_000_000), hf=_TRAINING),
    _MAX_PIECE,
    Option("shrinking_factor", "float", 0.75, "share of the pieces each pruning round keeps: the most useful ones "
           "by loss of corpus likelihood", range=Range(0.0, 1.0, low_open=True, high_open=True), hf=_TRAINING),
    Option("n_sub_iterations", "int", 2, "EM iterations (E-step forward-backward, M-step re-estimation) before "
           "each pruning round", range=Range(1, 1000), hf=_TRAINING),
    _MAX_SENTENCE,
)


def _preset(name: str, family: str, title: str, short: str, help_: str, pipeline: str,
            options: tuple[Option, ...], byte_level: bool = False) -> Preset:
    names = [o.name for o in options]
    assert len(names) == len(set(names)), names
    return Preset(name, family, title, short, help_, pipeline, f"trainers/{family}.py", options, byte_level,
                  raw_text=name.startswith("sentencepiece_"))


PRESETS: dict[str, Preset] = {p.name: p for p in (
    _preset("bpe", "bpe", "BPE (characters, </w>)", "BPE",
            "The textbook algorithm: words split at white space, each ending in a </w> marker; "
            "merge the most frequent adjacent pair, again and again.",
            "optional lower-casing, white-space words, character BPE with an end-of-word marker, suffix decoder",
            _common() + (
                Option("end_of_word", "text", "</w>", "marker appended to every word as its own symbol "
                       "('</w>', '_', any string, or None)", nullable=True,
                       hf=HFMeaning("normalizer (a Replace inserting the marker after every word)", _one_character_marker)),
                Option("unk_token", "text", None, "token for characters never seen in training "
                       "(None: such a character is an error)", nullable=True, hf=_HF_UNK),
                _LOWERCASE,
                Option("initial_alphabet", "text", "", "characters to include in the alphabet even if the corpus "
                       "lacks them", hf=_TRAINING),
                _specials((), "control tokens, given the first ids"),
                _MAX_SENTENCE,
                _rules("BpeTrainer(end_of_word_suffix=end_of_word): the marker glued to a word's last character",
                       "hf"),
            )),
    _preset("byte_bpe", "bpe", "Byte-level BPE (GPT-2)", "Byte-level BPE",
            "GPT-2 and later: text cut by a regex, then BPE over its UTF-8 bytes. 256 byte tokens "
            "to start with, so no text is ever unknown.",
            "regex pre-tokenizer, bytes as 256 base tokens, byte-level BPE, byte-level decoder",
            _common() + (
                _rules("BpeTrainer, initial_alphabet=ByteLevel.alphabet()", "hf"),
                Option("pattern", "text", "gpt2", "pre-tokenization regex: 'gpt2', 'cl100k', 'o200k' or your own "
                       "pattern", hf=HFMeaning("pre_tokenizer (ByteLevel, or a Split in Oniguruma syntax)", _oniguruma)),
                _specials((), "control tokens such as '<|endoftext|>', given the first ids; training text is split "
                          "on them"),
                _MAX_SENTENCE,
            ), byte_level=True),
    _preset("sentencepiece_bpe", "bpe", "SentencePiece BPE", "SentencePiece BPE",
            "BPE on raw text where a space is the ▁ character, so decoding gives the text "
            "back exactly (after normalization).",
            "Unicode normalization, spaces as ▁, character BPE with optional byte fallback, metaspace decoder",
            _common() + _SENTENCEPIECE_TEXT + (
                Option("byte_fallback", "bool", False, "an unknown character becomes its UTF-8 bytes as <0xHH> "
                       "tokens (always in the vocabulary)", hf=_HF_BYTE_FALLBACK),
                _SPLIT_DIGITS, _COVERAGE, _MAX_PIECE, _SP_UNK, _SP_SPECIALS, _USER_SYMBOLS, _MAX_SENTENCE,
                _rules("--model_type=bpe", "sentencepiece"),
            )),
    _preset("wordpiece", "wordpiece", "WordPiece (BERT)", "WordPiece",
            "BERT's algorithm: merge the pair with the highest score count(ab) / (count(a) × count(b)) "
            "(or, with scoring 'frequency', the most frequent pair, as HF tokenizers trains it); "
            "pieces inside a word start with ##.",
            "optional lower-casing and accent stripping, BERT pre-tokenizer, WordPiece merges by score, ## decoder",
            _common("score", _WORDPIECE_RULE) + (
                _SCORING,
                _rules("WordPieceTrainer: by count, whatever 'scoring' says", "hf"),
                Option("lowercase", "bool", False, "lower-case the text first (BERT uncased)", hf=_HF_NORMALIZER),
                Option("strip_accents", "bool", False, "decompose (NFD) and drop combining marks: 'é' -> 'e' "
                       "(BERT uncased)", hf=_HF_NORMALIZER),
                Option("unk_token", "text", "[UNK]", "what a word becomes when some part of it cannot be matched "
                       "(the whole word)", nullable=True, hf=_HF_UNK),
                Option("continuing_subword_prefix", "text", "##", "marks a piece that continues a word",
                       hf=HFMeaning("model.continuing_subword_prefix and the decoder's prefix")),
                Option("max_input_chars_per_word", "int", 100, "longer words become the unk token (and are left "
                       "out of training)", range=Range(1, 1_000_000), hf=HFMeaning("model.max_input_chars_per_word")),
                _specials(("[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"), "control tokens, given the first ids"),
            )),
    _preset("unigram", "unigram", "Unigram", "Unigram",
            "Kudo's Unigram LM on white-space words: start from many substrings, re-estimate their "
            "probabilities (EM) and prune the least useful, round after round.",
            "optional lower-casing, white-space words marked with ▁, Unigram LM (EM and pruning), metaspace decoder",
            _UNIGRAM_TRAINING + (
                _LOWERCASE,
                Option("unk_token", "text", "<unk>", "piece for characters never seen in training (a run of them "
                       "becomes one)", nullable=True, hf=_HF_UNK),
                _specials(("<s>", "</s>"), "control tokens, given ids right after <unk>"),
                _rules("UnigramTrainer: its seed, pruning and finalize", "hf"),
                Option("initial_alphabet", "text", "", "characters always in the vocabulary, even if the corpus lacks "
                       "them (rules='hf' only: UnigramTrainer's initial_alphabet)", hf=_TRAINING),
            )),
    _preset("sentencepiece_unigram", "unigram", "SentencePiece Unigram", "SentencePiece Unigram",
            "Unigram on raw text with ▁ for spaces and SentencePiece's normalization "
            "(the T5, ALBERT, XLNet tokenizers).",
            "Unicode normalization, spaces as ▁, Unigram LM with optional byte fallback, metaspace decoder",
            _UNIGRAM_TRAINING + _SENTENCEPIECE_TEXT + (
                Option("byte_fallback", "bool", False, "an unknown character becomes its UTF-8 bytes as <0xHH> "
                       "pieces (all 256 always in the vocabulary)", hf=_HF_BYTE_FALLBACK),
                _SPLIT_DIGITS, _COVERAGE, _SP_UNK, _SP_SPECIALS, _USER_SYMBOLS,
                _rules("--model_type=unigram", "sentencepiece"),
            )),
)}


def preset_of(name: str) -> Preset:
    """The preset called ``name``; OptionError listing the known ones otherwise."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise OptionError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}") from None


def check_options(preset: str | Preset, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` checked against ``preset``'s schema (unknown names, kinds, ranges);
    returns them with lists as lists. OptionError (a ValueError) says what to fix."""
    p = preset if isinstance(preset, Preset) else preset_of(preset)
    unknown = sorted(set(options) - set(p.names))
    if unknown:
        raise OptionError(f"unknown option {unknown[0]!r} for preset {p.name!r}; its options are: "
                          f"{', '.join(sorted(p.names))}")
    return {name: p.option(name).check(value) for name, value in options.items()}


def all_options() -> dict[str, tuple[Option, list[str]]]:
    """Every option name across presets: (its first definition, the presets that have it).
    The command line has one flag per name."""
    out: dict[str, tuple[Option, list[str]]] = {}
    for p in PRESETS.values():
        for o in p.options:
            out.setdefault(o.name, (o, []))[1].append(p.name)
    return out


def options_markdown() -> str:
    """The options table of the README: one section per preset, one row per option."""
    def md(text: str) -> str:  # subtle: '</w>' would be read as an HTML tag
        return text.replace("&", "&amp;").replace("<", "&lt;").replace("|", "\\|")

    lines = ["Lists are written as " + md(LIST_SYNTAX) + " (on the command line and in the page).", ""]
    for p in PRESETS.values():
        lines += [f"#### `{p.name}`: {md(p.title)}", "", md(p.help) + " Pipeline: " + md(p.pipeline) + ".", "",
                  "| option | takes | default | what it does | in an HF tokenizer.json |", "|---|---|---|---|---|"]
        for o in p.options:
            default = "none" if o.default is None else (o.text(o.default) or "(empty)")
            hf = "(not said)" if o.hf is None else o.hf.where + ("; some values are refused" if o.hf.refuses else "")
            lines.append(f"| `{o.name}` | {md(o.allowed())} | `{default}` | {md(o.help)} | {md(hf)} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
