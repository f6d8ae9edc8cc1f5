"""The lesson file format: a guided lesson as a small text file a course author writes by hand.

A lesson file is UTF-8 text, read line by line (linear in its size; at most
``MAX_LESSON_BYTES``). Each line is ``key: value``; a line starting with white space
continues the line above (for a corpus: one more line of it; otherwise more words of the
value); a line starting with ``#`` is a comment; blank lines are ignored. The first key is
``lesson-format: 1``. Then, in any order, the lesson's settings::

    lesson-format: 1
    title: BPE on hug, pug, pun, bun, hugs
    # the corpus: a bundled sample, word counts or running text (indented lines)
    corpus: words
      hug 10
      pug 5
    algorithm: bpe                  # a preset of subwordlab.options.PRESETS
    merges: 3                       # or  vocab: 12  (Unigram: vocab only)
    option end_of_word: null        # checked against the preset's schema; JSON or plain text
    option unk_token: <unk>
    predict: on                     # before each step, ask which pair wins (default off)
    exercise: bpe_get_stats         # offer this Python exercise on the card
    source hf: Hugging Face LLM course, chapter 6.5 | https://huggingface.co/learn/llm-course/chapter6/5
    say: {steps} merges, each the most frequent pair.       # step 0, in your own words
    quote hf: a short sentence, verbatim, from source hf      # step 0, quoted (attributed)

    step 1:
      say: {winner} wins with {count}; next comes {runner_up} ({runner_up_count}).
      printed: ('u', 'g')          # what the source prints at this step ...
      printed-pair: u g            # ... and the pair and numbers in it, checked against the training
      printed-count: 20

Top-level keys: ``lesson-format``, ``title``, ``corpus`` (``sample ID``, ``words`` or
``text``, the last two with indented lines), ``algorithm``, ``merges`` or ``vocab``,
``option NAME``, ``predict`` (``on`` or ``off``, the default: with ``on``, Next first asks the
learner which pair wins the merge, which piece a Unigram pruning round removes, or how many
entries an EM round leaves, and says whether
they were right, with the numbers), ``exercise`` (an id of exercises.EXERCISE_IDS, e.g.
``bpe_get_stats``: the card offers that Python exercise), ``source KEY`` (``title | https://address``; the five lesson texts of the
repository's ``lessons/`` are known as 000 to 004), ``follows`` (the source whose printed
lines the lesson reproduces), ``say``, ``quote KEY``, ``rule`` / ``rule quote KEY`` (said at
a merge with nothing of its own), ``tie-rule`` / ``tie-rule quote KEY`` (said when a tie is
broken), ``em`` / ``em quote KEY`` (Unigram: said at an EM step), ``numbers-note``,
``erratum``. After ``step N:``, the step's keys: ``say``, ``quote KEY``, ``erratum`` (where
the source printed a wrong number: say so and give the right one), ``printed``,
``printed-pair``, ``printed-count``, ``printed-score``.

Placeholders in ``say`` and ``erratum`` are filled from the recording of the training, so the
numbers are always the trainer's own: {step}, {steps}, {vocab_size} (after the step), {winner}
("u + g"), {new_token}, {count}, {score} (4 decimals), {parts} (WordPiece: "20 × 5"),
{runner_up}, {runner_up_count}, {runner_up_score}, {tied} (how many pairs tie at the top),
{tie_rule}, {count_of:A B} and {score_of:A B} (a pair among the step's candidates),
{log_likelihood}, {removed} and {removed_pieces} (Unigram), {tokens} (the corpus's words as
the tokenizer after the step splits them), {tokenize:TEXT} (any text, split the same way). ``{{`` and ``}}`` are literal braces.

Every problem is one ``LessonFileError`` naming the line and how to fix it:

>>> try:
...     parse_lesson("lesson-format: 1\\ntitle: x\\ncorpus: sample seed000\\nalgorithm: bpe\\nmerges: 2\\nstep 3:\\n  say: {winer}\\n")
... except LessonFileError as exc:
...     print(str(exc)[:54])
Line 7: the placeholder {winer} is unknown. Use one of
>>> lesson = parse_lesson("lesson-format: 1\\ntitle: Tiny\\ncorpus: words\\n  low 5\\n  lower 2\\nalgorithm: bpe\\nmerges: 2\\n")
>>> lesson.spec.describe(), lesson.words()
('BPE · 2 merges', {'low': 5, 'lower': 2})
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from subwordlab.options import OptionError, check_options, preset_of

from .pattern_guard import BUILT_IN, plainly_linear
from .state import TrainSpec

FORMAT_VERSION = 1
MAX_LESSON_BYTES = 256 * 1024
MAX_STEPS = 10_000_000
EXTENSION = ".lesson"


class LessonFileError(ValueError):
    """A lesson file that cannot be used: one message naming the line and how to fix it."""

    def __init__(self, line: int | None, problem: str) -> None:
        self.line = line
        super().__init__((f"Line {line}: " if line else "") + problem)


@dataclass(frozen=True)
class Source:
    """A text a lesson quotes or follows: its file in the repository's ``lessons/`` (bundled
    lesson texts) or its address, and the title a learner sees."""

    file: str
    title: str
    url: str = ""


SOURCES: dict[str, Source] = {
    "000": Source("000_69cb2f1a8ee120c8.txt", "Tokenization Explained: BPE, WordPiece, and SentencePiece"),
    "001": Source("001_5c2db6d94804929c.txt", "Subword Tokenization — BPE, WordPiece, Unigram, SentencePiece"),
    "002": Source("002_5de222ec2802285e.txt", "How does a tokenizer get its vocabulary?"),
    "003": Source("003_dc778d8a5d93a0b4.txt", "Tokenizer Design: BPE and SentencePiece Explained"),
    "004": Source("004_86303a3a98a2d303.txt", "Subword tokenization (BPE and WordPiece)"),
}


@dataclass(frozen=True)
class Quote:
    """Sentences taken verbatim from a source (``source``: a key of the lesson's sources), or
    the lesson's own words (``source`` empty)."""

    text: str
    source: str


@dataclass(frozen=True)
class Printed:
    """A line the source prints for a step: the pair and (if printed) its count or score, as
    printed. Loading a lesson checks them against the training."""

    text: str
    pair: tuple[str, str]
    count: int | None = None
    score: float | None = None  # rounded as printed
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Say:
    """A sentence of the lesson with placeholders (``line``: where the file has it)."""

    text: str
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Lesson:
    number: int | None  # 1-based for a bundled lesson (the picker's order); None for a loaded one
    title: str
    sample: str | None  # a key of samples.SAMPLES, or None for a corpus in the file
    spec: TrainSpec  # exactly the settings that reproduce the source's printed result
    source: str  # the source it follows (its printed lines), a key of `sources`
    intro: tuple[Quote, ...]  # what step 0 quotes
    rule: Quote | None  # how a pair is chosen, quoted at every merge without a note of its own
    tie_rule: Quote | None = None  # quoted when a tie is broken
    notes: Mapping[int, tuple[Quote, ...]] = field(default_factory=dict)  # step -> the source's words on it
    printed: Mapping[int, Printed] = field(default_factory=dict)  # step -> what the source printed
    em_note: tuple[Quote, ...] = ()  # Unigram: what an EM step says (a pruning step says `rule`)
    numbers_note: str = ""  # where the card's numbers come from when no source prints them
    says: Mapping[int, tuple[Say, ...]] = field(default_factory=dict)  # step -> own words with placeholders
    errata: Mapping[int, tuple[Say, ...]] = field(default_factory=dict)  # step -> where the source is wrong
    sources: Mapping[str, Source] = field(default_factory=dict)  # every source the lesson names
    corpus_format: str = "word_counts"  # "word_counts" or "text"
    corpus_text: str | None = None  # the corpus (a sample's own text when it is inline), None if fetched
    step_lines: Mapping[int, int] = field(default_factory=dict, compare=False)  # step -> its "step N:" line
    origin: str = ""  # where it was loaded from: "" (bundled), a file name, a site address or "link"
    file_text: str = field(default="", compare=False, repr=False)  # the file it was read from
    predict: bool = False  # "predict: on": Next first asks the learner what the step will do
    exercise: str = ""  # "exercise: ID": the Python exercise the card offers (an id of exercises.EXERCISE_IDS)

    @property
    def steps(self) -> int | None:
        """How many merges the lesson makes (its last step); None for Unigram, whose number of
        EM and pruning rounds only the training knows."""
        return None if self.spec.is_unigram else self.spec.size

    def words(self) -> dict[str, int]:
        """The corpus's word counts (running text: its white-space separated words, counted in
        order of first appearance). Example: lesson 1 -> {'low': 5, 'lower': 2, ...}"""
        text = self.corpus_text or ""
        if self.corpus_format == "word_counts":
            rows = (line.rsplit(None, 1) for line in text.splitlines() if line.strip())
            return {word: int(n) for word, n in rows}
        counts: dict[str, int] = {}
        for word in text.split():
            counts[word] = counts.get(word, 0) + 1
        return counts

    def training_input(self) -> Any:
        """What the trainer reads: the word counts, or the running text."""
        return self.words() if self.corpus_format == "word_counts" else (self.corpus_text or "")

    @property
    def marker(self) -> str | None:
        """The end-of-word marker (BPE) or None; WordPiece marks continuations with ## instead."""
        schema = self.spec.schema
        if self.spec.preset == "wordpiece" or schema.is_unigram or not schema.has("end_of_word"):
            return None
        return self.spec.options.get("end_of_word", schema.defaults().get("end_of_word"))

    @property
    def tie_break(self) -> str:
        return str(self.spec.options.get("tie_break", "first"))

    def source_title(self, key: str) -> str:
        src = self.sources.get(key) or SOURCES.get(key)
        return src.title if src is not None else key


# --- placeholders ------------------------------------------------------------------------------
PLACEHOLDERS = ("step", "steps", "vocab_size", "winner", "new_token", "count", "score", "parts", "runner_up",
                "runner_up_count", "runner_up_score", "tied", "tie_rule", "count_of", "score_of",
                "log_likelihood", "removed", "removed_pieces", "tokens", "tokenize")
_WITH_ARGUMENT = ("count_of", "score_of", "tokenize")
_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_KEY = re.compile(r"([a-z][a-z-]*(?: [^\s:]+)*):(?:[ \t]+(.*))?")
_SAMPLE_ID = re.compile(r"[A-Za-z0-9_]{1,64}")
_SOURCE_KEY = re.compile(r"[A-Za-z0-9_-]{1,32}")


def placeholders(text: str, line: int) -> list[tuple[str, str]]:
    """The placeholders of `text` as (name, argument), checked: an unknown name, a stray
    brace or a missing argument is a LessonFileError naming `line`.

    Example: placeholders("{winner} ({count}), {count_of:e s}", 4)
    -> [('winner', ''), ('count', ''), ('count_of', 'e s')]
    """
    found = []
    for m in _FIELD.finditer(text):
        token = m.group(0)
        if token in ("{{", "}}"):
            continue
        if m.group(1) is None:
            raise LessonFileError(line, f"a single “{token}” is not a placeholder. Write {{{{ or }}}} for a brace, "
                                  "or a placeholder such as {winner}")
        name, _, arg = m.group(1).partition(":")
        name = name.strip()
        if name not in PLACEHOLDERS:
            raise LessonFileError(line, f"the placeholder {{{name}}} is unknown. Use one of "
                                  + ", ".join(f"{{{p}}}" if p not in _WITH_ARGUMENT else
                                              f"{{{p}:{'TEXT' if p == 'tokenize' else 'A B'}}}" for p in sorted(PLACEHOLDERS)))
        if (name in _WITH_ARGUMENT) != bool(arg.strip()):
            raise LessonFileError(line, f"{{{name}}} needs a pair after a colon, e.g. {{{name}:e s}}"
                                  if name in _WITH_ARGUMENT else f"{{{name}}} takes nothing after a colon")
        if name in ("count_of", "score_of") and len(arg.split()) != 2:
            raise LessonFileError(line, f"{{{m.group(1)}}} must name two symbols separated by a space, e.g. {{{name}:e s}}")
        found.append((name, arg.strip()))
    return found


# --- reading -----------------------------------------------------------------------------------
_TOP = ("lesson-format", "title", "corpus", "algorithm", "merges", "vocab", "option", "source", "follows", "say",
        "quote", "rule", "tie-rule", "em", "numbers-note", "erratum", "predict", "exercise", "step")
_IN_STEP = ("say", "quote", "erratum", "printed", "printed-pair", "printed-count", "printed-score", "step")


def _value(raw: str) -> Any:
    """An option's value: JSON (null, true, 12, 0.5, "x", ["a"]) when it reads as JSON, else the text."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


class _Entry:
    __slots__ = ("key", "arg", "value", "line", "block")

    def __init__(self, key: str, arg: str, value: str, line: int) -> None:
        self.key, self.arg, self.value, self.line = key, arg, value, line
        self.block: list[str] = []  # the indented lines after it


def _entries(text: str) -> list[_Entry]:
    """The file's entries in order, each with its indented continuation lines (one pass).
    Under “step N:”, lines indented by the first one's indentation are the step's own keys,
    and lines indented deeper continue them."""
    entries: list[_Entry] = []
    step_indent = 0  # the indentation of the current step's keys (0: none yet, or not in a step)
    in_step = False
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        indent = len(line) - len(line.lstrip(" \t"))
        if indent and not line.strip():
            line, indent = "", 0
        if in_step and indent and (step_indent == 0 or indent == step_indent) and not line.lstrip().startswith("#"):
            step_indent = indent
            line, indent = line[indent:], 0
        elif in_step and indent and line.lstrip().startswith("#"):
            continue
        if indent:
            if not entries:
                raise LessonFileError(number, "an indented line continues the line above it, and there is none. "
                                      "Start the file with “lesson-format: 1”")
            entries[-1].block.append(line)
            continue
        if not line.strip():
            if entries:
                entries[-1].block.append("")
            continue
        if line.startswith("#"):
            continue
        m = _KEY.fullmatch(line.rstrip())
        if m is None:
            raise LessonFileError(number, f"“{line[:60]}” is not “key: value”. Write each setting as key: value "
                                  "(e.g. title: My lesson), indent the lines that continue it, and start comments with #")
        head, value = m.group(1), (m.group(2) or "").strip()
        key, _, arg = head.partition(" ")
        if raw[:1] not in (" ", "\t"):  # a key at the left margin: a new step, or out of any step's block
            in_step, step_indent = key == "step", 0
        entries.append(_Entry(key, arg, value, number))
    return entries


def _dedent(block: list[str]) -> list[str]:
    while block and not block[-1]:
        block = block[:-1]
    lines = [b for b in block if b]
    if not lines:
        return []
    indent = min(len(b) - len(b.lstrip(" \t")) for b in lines)
    return [b[indent:] for b in block]


def _int(e: _Entry, lo: int, hi: int) -> int:
    if not re.fullmatch(r"\d{1,9}", e.value) or not lo <= int(e.value) <= hi:
        raise LessonFileError(e.line, f"{e.key} must be a whole number from {lo:,} to {hi:,}, not “{e.value[:30]}”")
    return int(e.value)


def _text(e: _Entry) -> str:
    """A value with its continuation lines joined by spaces."""
    parts = [e.value] + [b.strip() for b in e.block if b.strip()]
    out = " ".join(p for p in parts if p)
    if not out:
        raise LessonFileError(e.line, f"{e.key} is empty. Write its text after “{e.key}:”")
    return out


def lesson_title(text: str) -> str:
    """A lesson file's title as ``parse_lesson`` reads it (its ``title:`` entry, continuation
    lines joined), without the rest of the parse: the lesson picker lists the bundled lessons
    at the page's start. Example: lesson_title("lesson-format: 1\ntitle: Tiny\n") -> 'Tiny'."""
    return _text(next(e for e in _entries(text) if e.key == "title"))


def parse_lesson(text: str, *, number: int | None = None, origin: str = "") -> Lesson:
    """Read a lesson file (see the module's docstring). Raises LessonFileError (one message,
    naming the line) if anything is wrong; what only training can tell (a step past the run's
    end, a printed number the trainer does not reproduce) is ``check_lesson``'s."""
    if not isinstance(text, str):
        raise LessonFileError(None, "a lesson file is text. Save it as UTF-8 text")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_LESSON_BYTES:
        raise LessonFileError(None, f"the file is {size:,} bytes; a lesson file has at most {MAX_LESSON_BYTES:,}. "
                              "Put a big corpus in a bundled sample and name it with “corpus: sample ID”")
    bad = re.search("[\x00\ud800-\udfff]", text)
    if bad is not None:
        raise LessonFileError(text.count("\n", 0, bad.start()) + 1, "the file holds a NUL or half of a character, "
                              "so it is not a text file. Save it again as UTF-8 text")
    if text.startswith("\ufeff"):
        text = text[1:]
    entries = _entries(text)
    if not entries or entries[0].key != "lesson-format":
        raise LessonFileError(entries[0].line if entries else 1,
                              "a lesson file starts with “lesson-format: 1”. Add that line first")
    if entries[0].value != str(FORMAT_VERSION):
        raise LessonFileError(entries[0].line, f"this page reads lesson-format {FORMAT_VERSION}, not “{entries[0].value[:20]}”. "
                              "Write lesson-format: 1 (a newer file needs a newer Subword Lab)")
    top: dict[str, _Entry] = {}
    options: dict[str, Any] = {}
    option_lines: dict[str, int] = {}
    sources: dict[str, Source] = {}
    says: dict[int, list[Say]] = {}
    errata: dict[int, list[Say]] = {}
    notes: dict[int, list[Quote]] = {}
    printed_parts: dict[int, dict[str, _Entry]] = {}
    step_lines: dict[int, int] = {}
    intro: list[Quote] = []
    quoted: list[tuple[str, int]] = []  # every source key a quote names, to check once all are declared
    rules: dict[str, Quote] = {}
    em: list[Quote] = []
    step: int | None = None
    for e in entries[1:]:
        if e.block and e.key != "corpus" and not any(b.strip() for b in e.block):
            e.block = []
        allowed = _IN_STEP if step is not None else _TOP
        if e.key not in allowed:
            where = f"inside step {step}" if step is not None else "before the first step"
            hint = (" Settings go before the first “step N:” line." if step is not None and e.key in _TOP else "")
            raise LessonFileError(e.line, f"“{e.key}” is not a key {where}; the keys there are "
                                  f"{', '.join(sorted(set(allowed)))}.{hint}")
        if e.key in ("option", "source", "quote") and not e.arg:
            raise LessonFileError(e.line, f"“{e.key}” needs a name: {e.key} NAME: value"
                                  + (" (e.g. option tie_break: lex_min)" if e.key == "option" else ""))
        if e.key in ("rule", "tie-rule", "em") and e.arg and not (e.arg.startswith("quote ") and len(e.arg.split()) == 2):
            raise LessonFileError(e.line, f"write “{e.key}: your words” or “{e.key} quote SOURCE: the source's words”")
        if e.key not in ("option", "source", "quote", "step", "rule", "tie-rule", "em") and e.arg:
            raise LessonFileError(e.line, f"“{e.key} {e.arg}” has a word too many; write “{e.key}: value”")
        if e.key == "step":
            if e.value or not re.fullmatch(r"\d{1,8}", e.arg):
                raise LessonFileError(e.line, "a step starts with “step N:” alone on its line (N: 0 for the start, "
                                      "1 for the first merge), with its keys on the indented lines below")
            step = int(e.arg)
            if step in step_lines:
                raise LessonFileError(e.line, f"step {step} is already on line {step_lines[step]}. Put everything "
                                      "about one step under one “step N:” line")
            step_lines[step] = e.line
            continue
        at = 0 if step is None else step
        if e.key in top and e.key not in ("option", "source", "quote", "say", "erratum", "rule", "tie-rule", "em"):
            raise LessonFileError(e.line, f"“{e.key}” is already on line {top[e.key].line}; give it once")
        if e.key in ("say", "erratum"):
            sentence = _text(e)
            placeholders(sentence, e.line)
            (says if e.key == "say" else errata).setdefault(at, []).append(Say(sentence, e.line))
        elif e.key == "quote":
            if not _SOURCE_KEY.fullmatch(e.arg):
                raise LessonFileError(e.line, f"“{e.arg[:30]}” is not a source key (letters, digits, - and _)")
            quoted.append((e.arg, e.line))
            q = Quote(_text(e), e.arg)
            (intro.append(q) if step is None else notes.setdefault(at, []).append(q))
        elif e.key in ("rule", "tie-rule", "em"):
            key = e.arg.split()[1] if e.arg else ""
            if key:
                quoted.append((key, e.line))
            q = Quote(_text(e), key)
            if e.key == "em":
                em.append(q)
            elif e.key in rules:
                raise LessonFileError(e.line, f"“{e.key}” is given twice; give it once")
            else:
                rules[e.key] = q
        elif e.key.startswith("printed"):
            parts = printed_parts.setdefault(at, {})
            if e.key in parts:
                raise LessonFileError(e.line, f"{e.key} is already on line {parts[e.key].line} for step {at}")
            parts[e.key] = e
        elif e.key == "option":
            if e.arg in options:
                raise LessonFileError(e.line, f"option {e.arg} is already on line {option_lines[e.arg]}; give it once")
            options[e.arg] = _value(e.value)
            option_lines[e.arg] = e.line
        elif e.key == "source":
            if not _SOURCE_KEY.fullmatch(e.arg):
                raise LessonFileError(e.line, f"“{e.arg[:30]}” is not a source key (letters, digits, - and _)")
            title, _, url = (p.strip() for p in _text(e).partition("|"))
            if url and not re.fullmatch(r"https://[^\s<>\"]{1,500}", url):
                raise LessonFileError(e.line, "a source's address starts with https:// and has no spaces: "
                                      "source KEY: Title | https://…")
            if not title:
                raise LessonFileError(e.line, "a source needs a title: source KEY: Title | https://…")
            sources[e.arg] = Source("", title, url)
        else:
            top[e.key] = e
    for key in ("title", "corpus", "algorithm"):
        if key not in top:
            raise LessonFileError(entries[-1].line, f"the lesson has no “{key}:”. Add it before the first step")
    title = _text(top["title"])
    if len(title) > 200:
        raise LessonFileError(top["title"].line, "the title is longer than 200 characters; shorten it")
    known = {**SOURCES, **sources}
    for key, line in quoted:
        if key not in known:
            raise LessonFileError(line, f"the source “{key}” is not declared. Add “source {key}: Title | https://…” "
                                  f"(known without one: {', '.join(SOURCES)})")
    follows = ""
    if "follows" in top:
        follows = top["follows"].value
        if follows not in known:
            raise LessonFileError(top["follows"].line, f"“follows: {follows[:30]}” names no source; declare it with "
                                  f"“source {follows[:30]}: Title | https://…”")
    # the corpus
    from .samples import SAMPLES

    c = top["corpus"]
    kind, _, rest = c.value.partition(" ")
    sample: str | None = None
    if kind == "sample":
        if not _SAMPLE_ID.fullmatch(rest.strip()) or rest.strip() not in SAMPLES or c.block:
            raise LessonFileError(c.line, f"“corpus: sample {rest.strip()[:40]}” names no bundled sample. Use one of "
                                  f"{', '.join(SAMPLES)}, or give the corpus as “corpus: words” or “corpus: text” "
                                  "followed by indented lines")
        sample = rest.strip()
        corpus_format = "word_counts" if SAMPLES[sample].format == "word_counts" else "text"
        corpus_text = SAMPLES[sample].text
    elif kind in ("words", "text") and not rest.strip():
        lines = _dedent(c.block)
        if not lines:
            raise LessonFileError(c.line, f"“corpus: {kind}” needs the corpus on the indented lines below it")
        if kind == "words":
            for offset, row in enumerate(lines, 1):
                if not row.strip():
                    continue
                cells = row.split()
                if len(cells) != 2 or not re.fullmatch(r"\d{1,9}", cells[1]) or int(cells[1]) < 1:
                    raise LessonFileError(c.line + offset, f"“{row.strip()[:40]}” is not “word count” (one word, a "
                                          "space, a whole number from 1). Write one word and its count per line")
            corpus_format, corpus_text = "word_counts", "\n".join(r.strip() for r in lines if r.strip())
        else:
            corpus_format, corpus_text = "text", "\n".join(lines)
    else:
        raise LessonFileError(c.line, "write “corpus: sample ID”, or “corpus: words” or “corpus: text” followed by "
                              "the corpus on indented lines")
    # the algorithm and its options, checked with the core's schema
    a = top["algorithm"]
    try:
        preset = preset_of(a.value)
    except OptionError as exc:
        raise LessonFileError(a.line, str(exc)) from None
    for name, value in options.items():
        try:
            options[name] = check_options(preset, {name: value})[name]
        except OptionError as exc:
            raise LessonFileError(option_lines[name], f"{exc}. Fix the option or remove it") from None
        if name == "pattern" and not (options[name] in BUILT_IN or plainly_linear(str(options[name]))):
            # subtle: a lesson opens without asking the pattern guard (it is trained and
            # checked here), so a regular expression that could backtrack for minutes is refused
            raise LessonFileError(option_lines[name], "a lesson file takes a built-in pattern (gpt2, cl100k, o200k) or "
                                  "a plainly linear one; this pattern could take very long on some texts. Use a "
                                  "built-in one, or try yours on the Train tab, where the page guards it")
    if ("merges" in top) == ("vocab" in top):
        raise LessonFileError(a.line, "give the training's length as “merges: N” or “vocab: N” (one of them)")
    size_entry = top.get("merges") or top["vocab"]
    size = _int(size_entry, 0 if "merges" in top else 1, 1_000_000)
    try:
        spec = TrainSpec(preset.name, "num_merges" if "merges" in top else "vocab_size", size, options)
    except ValueError as exc:
        raise LessonFileError(size_entry.line, f"{exc}") from None
    if spec.target == "num_merges":
        for at, line in step_lines.items():
            if at > size:
                raise LessonFileError(line, f"step {at} is past the lesson's end: it makes {size} merges. "
                                      "Remove the step or train longer")
    # what the source printed, checked against the training by check_lesson
    printed: dict[int, Printed] = {}
    for at, parts in printed_parts.items():
        if "printed" not in parts:
            first = min(parts.values(), key=lambda x: x.line)
            raise LessonFileError(first.line, "printed-pair/-count/-score go with a “printed:” line (what the source prints)")
        p = parts["printed"]
        if "printed-pair" not in parts:
            raise LessonFileError(p.line, "give the pair the printed line names: printed-pair: A B")
        symbols = parts["printed-pair"].value.split()
        if len(symbols) != 2:
            raise LessonFileError(parts["printed-pair"].line, "printed-pair is two symbols separated by a space, e.g. printed-pair: e s")
        count = _int(parts["printed-count"], 0, 10**9) if "printed-count" in parts else None
        score = None
        if "printed-score" in parts:
            s = parts["printed-score"]
            try:
                score = float(s.value)
            except ValueError:
                score = math.nan
            if not math.isfinite(score) or not 0 <= score <= 1e9:
                raise LessonFileError(s.line, f"printed-score must be a number, not “{s.value[:30]}”")
        printed[at] = Printed(_text(p), (symbols[0], symbols[1]), count, score, p.line)
    predict = False
    if "predict" in top:
        if top["predict"].value not in ("on", "off"):
            raise LessonFileError(top["predict"].line, f"predict is “on” or “off”, not “{top['predict'].value[:30]}”")
        predict = top["predict"].value == "on"
    exercise = ""
    if "exercise" in top:
        from .exercises import EXERCISE_IDS

        exercise = top["exercise"].value
        if exercise not in EXERCISE_IDS:
            raise LessonFileError(top["exercise"].line, f"“exercise: {exercise[:40]}” names no exercise. Use one of "
                                  + ", ".join(EXERCISE_IDS))
    return Lesson(number, title, sample, spec, follows, tuple(intro), rules.get("rule"), rules.get("tie-rule"),
                  {k: tuple(v) for k, v in notes.items()}, printed, tuple(em),
                  _text(top["numbers-note"]) if "numbers-note" in top else "",
                  {k: tuple(v) for k, v in says.items()}, {k: tuple(v) for k, v in errata.items()},
                  {k: known[k] for k in dict.fromkeys([q for q, _ in quoted] + ([follows] if follows else []))},
                  corpus_format, corpus_text, step_lines, origin, text, predict=predict, exercise=exercise)
