"""Guided lessons: worked examples, step by step, in their sources' own words.

A lesson is a file in the lesson format (lesson_format.py): a corpus (a bundled sample,
word counts or running text), the exact settings that reproduce the source's printed
result, the source's sentences that teach each step and the lesson's own words, with
placeholders the training fills in. What a step *states* (which pair won, its count or
score, which pairs tied and how the tie was broken, what Unigram pruning removed) is computed
here from the recorded training, never written by hand; ``check_lesson`` refuses a lesson
whose printed numbers the trainer does not reproduce, and the unit tests hold every bundled
lesson to its source.

The bundled lessons are the files of ``lesson_files/`` (copied to the site's ``lessons/``),
read with the same parser as a lesson a course author loads: 1-6 follow the lesson texts of
the repository's ``lessons/`` folder, 7-12 the Hugging Face LLM course, Wikipedia, Stanford
CS336 and minbpe.

Lesson step k is the player's step k: step 0 is the starting vocabulary, step k the k-th
merge (Unigram: the k-th EM iteration or pruning round, as recorded).
``lesson=3&step=4`` in the page's address opens lesson 3 at merge 4 (embed.py).

>>> bundled()[2].number, bundled()[2].sample, bundled()[2].spec.describe()
(3, 'seed003', 'BPE · 6 merges')
>>> lesson_titles()[0]
'BPE on low, lower, newest, widest'
>>> lesson_by_number(99) is None
True
>>> split_word("low", "</w>"), merge_symbols(("l", "o", "w"), ("l", "o"))
(('l', 'o', 'w', '</w>'), ('lo', 'w'))
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from subwordlab.trainers.textbook import merge_pair  # the textbook loop's merge (left to right, no overlaps)

from .lesson_format import (  # noqa: F401  (re-exported: the lesson's parts)
    SOURCES,
    Lesson,
    LessonFileError,
    Printed,
    Quote,
    Say,
    Source,
    lesson_title,
    parse_lesson,
    placeholders,
)
from .state import TrainSpec
from .train_views import TIE_RULES  # the card names a tie's rule as the candidates chart does
from .wording import plural

LESSON_DIR = Path(__file__).resolve().parent / "lesson_files"
SITE_FOLDER = "lessons"  # where the build puts them on the site (?lesson=lessons/07-hf-bpe.lesson)


LESSON_FILES: tuple[str, ...] = tuple(f.name for f in sorted(LESSON_DIR.glob("*.lesson")))


@cache
def bundled() -> tuple[Lesson, ...]:
    """The bundled lessons, parsed on first use (~20 ms of the page's start otherwise, which
    needs only their titles: ``lesson_titles``). ``LESSONS`` is the same tuple."""
    return tuple(replace(parse_lesson((LESSON_DIR / name).read_text(encoding="utf-8"), number=n,
                                      origin=f"{SITE_FOLDER}/{name}"), origin="")
                 for n, name in enumerate(LESSON_FILES, 1))


def lesson_titles() -> list[str]:
    """The bundled lessons' titles, in order, read without parsing the lessons
    (``lesson_format.lesson_title``: the lesson picker, built at the page's start)."""
    return [lesson_title((LESSON_DIR / name).read_text(encoding="utf-8")) for name in LESSON_FILES]


def __getattr__(name: str) -> Any:
    """``LESSONS``: the bundled lessons (``bundled()``), parsed when first asked for."""
    if name == "LESSONS":
        return bundled()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def lesson_by_number(number: int | None) -> Lesson | None:
    """The lesson a course page calls "lesson `number`" (1-based), or None."""
    if number is None or not 1 <= number <= len(LESSON_FILES):
        return None
    return bundled()[number - 1]


def lesson_for(sample: str | None, spec: TrainSpec) -> Lesson | None:
    """The bundled lesson on this sample with these settings (a share link or reload of a lesson)."""
    return next((le for le in bundled() if le.sample is not None and le.sample == sample and le.spec == spec), None)


# --- the words, merge by merge (the lessons' own loop, to say where a count comes from) -------
def split_word(word: str, marker: str | None, wordpiece: bool = False) -> tuple[str, ...]:
    """A word as training starts it: characters and the end-of-word marker (BPE), or the
    first character and ``##`` continuations (WordPiece).

    Example: split_word("hug", None, wordpiece=True) -> ('h', '##u', '##g')
    """
    if wordpiece:
        return (word[0],) + tuple("##" + c for c in word[1:])
    return tuple(word) + ((marker,) if marker else ())


def merge_symbols(symbols: Sequence[str], pair: tuple[str, str], wordpiece: bool = False) -> tuple[str, ...]:
    """Glue every adjacent copy of `pair`, left to right, without overlaps (a WordPiece
    continuation keeps one ``##``: ##m + ##i -> ##mi)."""
    glued = pair[0] + (pair[1][2:] if wordpiece and pair[1].startswith("##") else pair[1])
    return tuple(merge_pair(symbols, pair, glued))


def words_at(lesson: Lesson, merges: Sequence[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """Each corpus word split after the given merges (in order)."""
    wordpiece = lesson.spec.preset == "wordpiece"
    out = {}
    for word in lesson.words():
        symbols = split_word(word, lesson.marker, wordpiece)
        for pair in merges:
            symbols = merge_symbols(symbols, pair, wordpiece)
        out[word] = symbols
    return out


def pair_in(symbols: Sequence[str], pair: tuple[str, str]) -> int:
    """How often `pair` is adjacent in `symbols` (as training counts pairs).

    Example: pair_in(("s", "t", "e", "m"), ("t", "e")) -> 1
    """
    return sum(1 for p in zip(symbols, symbols[1:]) if p == pair)


# --- what a step says ---------------------------------------------------------------------------
@dataclass(frozen=True)
class StepText:
    """The lesson card at one step: a heading, the facts of the recording, and the lesson's words."""

    heading: str  # e.g. "Merge 4: lo + w → low"
    facts: tuple[str, ...]
    quotes: tuple[Quote, ...]
    printed: Printed | None = None
    said: tuple[str, ...] = ()  # the lesson's own words at this step, placeholders filled
    errata: tuple[str, ...] = ()  # where the source printed a wrong number, and the right one


def label(pair: Sequence[str]) -> str:
    """Example: ('e', 's') -> 'e + s'."""
    return f"{pair[0]} + {pair[1]}"


def _number(x: float) -> str:
    """A score as the lessons print it: 4 decimals. Example: 0.142857 -> '0.1429'."""
    return f"{x:.4f}"


def _times(counts: Mapping[str, int], words: Mapping[str, tuple[str, ...]], pair: tuple[str, str]) -> list[str]:
    """'newest ×6' for every word containing the pair (×2 per word if it holds it twice)."""
    parts = []
    for word, symbols in words.items():
        n = pair_in(symbols, pair)
        if n:
            times = "twice" if n == 2 else f"{n} times"
            parts.append(f"{word} ×{counts[word]}" + (f" ({times} in the word, so {n} × {counts[word]})" if n > 1 else ""))
    return parts


def _ties(lesson: Lesson, e: Any) -> tuple[list[tuple[str, str]], bool]:
    """The candidate pairs that tie with the winner (winner first), and whether more may tie
    beyond the candidates the recording kept."""
    wordpiece = lesson.spec.preset == "wordpiece"
    value = (lambda c: c[2]) if wordpiece else (lambda c: c[1])
    top = value(e.candidates[0])
    tied = [tuple(c[0]) for c in e.candidates if value(c) == top]
    return tied, len(tied) == len(e.candidates)


def _pieces(event: Any) -> list[str]:
    """The piece strings of a Unigram snapshot (an AlphabetReady, EmStep or PruneStep)."""
    return [p for p, _ in event.pieces]


def segmentations(lesson: Lesson, recording: Any, step: int) -> dict[str, tuple[str, ...]]:
    """Each corpus word as the tokenizer after `step` splits it (Unigram: its best split)."""
    tok = recording.tokenizer_at(step)
    return {word: tuple(tok.tokenize(word)) for word in lesson.words()}


SHOWN_DROPPED = 6  # a pruning card names at most this many removed pieces


def explain_unigram(lesson: Lesson, recording: Any, step: int) -> StepText:
    """The card of a Unigram lesson: step 0 the seed vocabulary, then each EM iteration
    (what re-estimation dropped) and each pruning round (what it removed and at what loss).

    Every number is the recording's: sizes are the events' ``vocab_size``, the removed
    pieces a PruneStep's ``dropped`` (with their loss) or, for EM, the seed/previous snapshot
    minus this one; the words' splits come from the tokenizer at that step.
    """
    steps = recording.steps
    counts = lesson.words()
    now = segmentations(lesson, recording, max(step, 0))
    split = "; ".join(f"{w} → {' '.join(now[w])}" for w in counts)
    if step <= 0:
        rounds = sum(1 for e in steps if e.kind == "prune")
        facts = [f"The corpus: {plural(len(counts), 'word')} with their counts: "
                 f"{', '.join(f'{w} ×{n}' for w, n in counts.items())}.",
                 f"The vocabulary starts with {plural(recording.alphabet.vocab_size, 'entry', 'entries')}: the "
                 f"reserved pieces, every character and the frequent substrings, each with a probability. "
                 f"Training prunes it to {lesson.spec.size} in {plural(len(steps), 'step')} "
                 f"({plural(rounds, 'pruning round')}): press Next to see the first.",
                 f"Now: {split}."]
        return StepText("Step 0: the starting vocabulary", tuple(facts), lesson.intro)
    e = steps[step - 1]
    previous = steps[step - 2] if step > 1 else recording.alphabet
    before = previous.vocab_size
    facts = []
    if e.kind == "prune":
        heading = f"Pruning round {e.round + 1}: {plural(len(e.dropped), 'piece')} removed"
        shown = ", ".join(f"{p} (loss {loss:.4f})" for p, loss in e.dropped[:SHOWN_DROPPED])
        more = len(e.dropped) - SHOWN_DROPPED
        facts.append(f"Pruning removed {plural(len(e.dropped), 'piece')}, least useful first: {shown}"
                     + (f" and {plural(more, 'more piece')}" if more > 0 else "") + ". The loss is how much "
                     "the corpus log-likelihood drops without the piece (0 when no best split uses it).")
    else:
        heading = f"EM round {e.round + 1}: probabilities re-estimated"
        gone = [p for p in _pieces(previous) if p not in set(_pieces(e))]
        facts.append(f"EM re-estimated every piece's probability from the words' possible splits; the corpus "
                     f"log-likelihood is now {e.log_likelihood:.3f}."
                     + (f" It dropped {plural(len(gone), 'piece')} expected less than half a time: "
                        f"{', '.join(gone[:SHOWN_DROPPED])}" + (" …" if len(gone) > SHOWN_DROPPED else "") + "."
                        if gone else ""))
    facts.append(f"The vocabulary: {before} → {plural(e.vocab_size, 'entry', 'entries')}.")
    facts.append(f"Now: {split}.")
    rule = (lesson.rule,) if lesson.rule is not None else ()
    return StepText(heading, tuple(facts), rule if e.kind == "prune" else (lesson.em_note or rule))


def _replays(lesson: Lesson) -> bool:
    """Whether the lessons' own loop (characters, the marker, merges left to right) is how
    this training splits words: BPE or WordPiece on words (a byte-level or SentencePiece run
    splits otherwise, and the card then says less about where a count comes from)."""
    return lesson.spec.preset in ("bpe", "wordpiece")


def explain(lesson: Lesson, recording: Any, step: int) -> StepText:
    """What the lesson card says at `step` of a finished recording of `lesson`'s settings.

    Every number comes from the recording (its MergeStep events and starting alphabet);
    the words each count comes from are re-derived by replaying the recorded merges (and
    left out where the replay does not add up to the recorded count).
    """
    said = tuple(fill(lesson, recording, step, s) for s in lesson.says.get(max(step, 0), ()))
    errata = tuple(fill(lesson, recording, step, s) for s in lesson.errata.get(max(step, 0), ()))
    card = _explain(lesson, recording, step)
    return replace(card, said=said, errata=errata) if said or errata else card


def _explain(lesson: Lesson, recording: Any, step: int) -> StepText:
    if lesson.spec.is_unigram:
        return explain_unigram(lesson, recording, step)
    steps = recording.steps
    wordpiece = lesson.spec.preset == "wordpiece"
    counts = lesson.words()
    replays = _replays(lesson)
    if step <= 0:
        if replays:
            start = words_at(lesson, [])
            spelled = "; ".join(f"{w} ×{n}: {' '.join(start[w])}" for w, n in counts.items())
        else:
            tok = recording.tokenizer_at(0)
            spelled = "; ".join(f"{w} ×{n}: {' '.join(tok.tokenize(w))}" for w, n in counts.items())
        facts = [f"The corpus: {plural(len(counts), 'word')} with their counts, each split into its starting "
                 f"symbols: {spelled}.",
                 f"The vocabulary starts with {plural(recording.alphabet.vocab_size, 'entry', 'entries')}. "
                 f"The lesson makes {plural(len(steps), 'merge')}: press Next to see the first."]
        return StepText("Step 0: the starting vocabulary", tuple(facts), lesson.intro)
    e = steps[step - 1]
    pair = tuple(e.pair)
    merges_before = [tuple(s.pair) for s in steps[: step - 1]]
    if replays:
        before = words_at(lesson, merges_before)
        after = words_at(lesson, merges_before + [pair])
    else:
        tok_before, tok_after = recording.tokenizer_at(step - 1), recording.tokenizer_at(step)
        before = {w: tuple(tok_before.tokenize(w)) for w in counts}
        after = {w: tuple(tok_after.tokenize(w)) for w in counts}
    where = _times(counts, before, pair)
    if sum(counts[w] * pair_in(before[w], pair) for w in counts) != e.count:
        where = []  # (the words as split here do not add up to the recorded count: say only the count)
    within = f" ({', '.join(where)})" if where else ""
    heading = f"Merge {step}: {label(pair)} → {e.new_token}"
    facts = []
    if wordpiece:
        a, b = e.part_counts
        facts.append(f"{label(pair)} has the highest score: {e.count} / ({a} × {b}) = {_number(e.score)}. "
                     f"The pair occurs {plural(e.count, 'time')}{within}; {pair[0]} occurs "
                     f"{plural(a, 'time')} in all and {pair[1]} {plural(b, 'time')}.")
        frequent = max(e.candidates, key=lambda c: c[1])
        if tuple(frequent[0]) != pair and frequent[1] > e.count:
            facts.append(f"The most frequent pair, {label(frequent[0])} ({plural(frequent[1], 'time')}), scores "
                         f"only {_number(frequent[2])}: by count alone BPE would have merged it.")
    else:
        runner = next((c for c in e.candidates if c[1] < e.count), None)
        facts.append(f"{label(pair)} is the most frequent adjacent pair: {plural(e.count, 'time')}{within}."
                     + (f" The next best count is {runner[1]} ({label(runner[0])})." if runner else ""))
    tied, maybe_more = _ties(lesson, e)
    if len(tied) > 1:
        what = f"{e.count}" if not wordpiece else f"a score of {_number(e.score)}"
        facts.append(f"{'At least ' if maybe_more else ''}{len(tied)} pairs tie at {what}: "
                     f"{', '.join(label(p) for p in tied)}. The tie-break rule: "
                     f"{TIE_RULES.get(lesson.tie_break, TIE_RULES['first'])}, so {label(pair)} is merged.")
    changed = [f"{w} → {' '.join(after[w])}" for w in counts if after[w] != before[w]]
    facts.append((f"Now: {'; '.join(changed)}. " if changed else "")
                 + f"The vocabulary has {plural(e.vocab_size, 'entry', 'entries')}.")
    quotes = tuple(lesson.notes.get(step, ()))
    if len(tied) > 1 and lesson.tie_rule is not None:
        quotes += (lesson.tie_rule,)
    if not quotes and lesson.rule is not None:
        quotes = (lesson.rule,)
    return StepText(heading, tuple(facts), quotes, lesson.printed.get(step))


# --- placeholders and the check against the training -------------------------------------------
def _runner_up(e: Any) -> Any:
    return e.candidates[1] if len(getattr(e, "candidates", ())) > 1 else None


def _candidate(e: Any, arg: str) -> Any:
    want = tuple(arg.split())
    return next((c for c in getattr(e, "candidates", ()) if tuple(c[0]) == want), None)


def placeholder_value(lesson: Lesson, recording: Any, step: int, name: str, arg: str = "") -> str | None:
    """What {name} (or {name:arg}) says at `step`, from the recording; None where the step has
    no such number (e.g. {score} in a BPE lesson, {winner} at step 0, a pair not among the
    step's candidates). Example: {count} at lesson 1's merge 1 -> '9'."""
    steps = recording.steps
    e = steps[step - 1] if step >= 1 else None
    merge = e is not None and getattr(e, "kind", "") == "merge"
    if name == "step":
        return f"{step:,}"
    if name == "steps":
        return f"{len(steps):,}"
    if name == "vocab_size":
        return f"{(e.vocab_size if e is not None else recording.alphabet.vocab_size):,}"
    if name == "tokens":
        tok = recording.tokenizer_at(step)
        return "; ".join(f"{w} → {' '.join(tok.tokenize(w))}" for w in lesson.words())
    if name == "tokenize":
        return " ".join(recording.tokenizer_at(step).tokenize(arg))
    if name == "log_likelihood":
        return f"{e.log_likelihood:.3f}" if e is not None and hasattr(e, "log_likelihood") else None
    if name in ("removed", "removed_pieces"):
        if e is None or getattr(e, "kind", "") not in ("em", "prune"):
            return None
        previous = steps[step - 2] if step > 1 else recording.alphabet
        now = set(_pieces(e))
        gone = [p for p in _pieces(previous) if p not in now]
        return f"{len(gone):,}" if name == "removed" else ", ".join(gone) or "none"
    if not merge or e is None:
        return None
    if name == "winner":
        return label(e.pair)
    if name == "new_token":
        return str(e.new_token)
    if name == "count":
        return str(e.count)
    if name == "score":
        return _number(e.score) if e.score is not None else None
    if name == "parts":
        return f"{e.part_counts[0]} × {e.part_counts[1]}" if e.part_counts else None
    if name.startswith("runner_up"):
        r = _runner_up(e)
        if r is None:
            return None
        if name == "runner_up":
            return label(r[0])
        if name == "runner_up_count":
            return str(r[1])
        return _number(r[2]) if len(r) > 2 else None
    if name == "tied":
        return str(len(_ties(lesson, e)[0]))
    if name == "tie_rule":
        return TIE_RULES.get(lesson.tie_break, TIE_RULES["first"])
    if name in ("count_of", "score_of"):
        c = _candidate(e, arg)
        if c is None:
            return None
        return str(c[1]) if name == "count_of" else (_number(c[2]) if len(c) > 2 else None)
    return None


def fill(lesson: Lesson, recording: Any, step: int, say: Say) -> str:
    """`say`'s text with its placeholders filled from the recording at `step`; a placeholder
    the step has no number for is a LessonFileError naming the line."""
    parts: list[str] = []
    pos = 0
    text = say.text
    for m in re.finditer(r"\{\{|\}\}|\{([^{}]*)\}", text):
        parts.append(text[pos:m.start()])
        pos = m.end()
        if m.group(1) is None:
            parts.append(m.group(0)[0])
            continue
        name, _, arg = m.group(1).partition(":")
        value = placeholder_value(lesson, recording, step, name.strip(), arg.strip())
        if value is None:
            what = "the start (step 0)" if step == 0 else f"step {step}"
            raise LessonFileError(say.line, f"{{{m.group(1)}}} has no value at {what} of this training"
                                  + (" (its pair is not among the step's candidates)" if arg else "")
                                  + ". Move the sentence to a step that has it, or use another placeholder")
        parts.append(value)
    parts.append(text[pos:])
    return "".join(parts)


def check_lesson(lesson: Lesson, recording: Any) -> None:
    """Raise LessonFileError (naming the line) if the finished `recording` of the lesson's
    settings cannot show it: a step past the run's end, a placeholder with no value at its
    step, or a printed pair, count or score the trainer does not reproduce."""
    total = len(recording.steps)
    for step, line in sorted(lesson.step_lines.items()):
        if step > total:
            raise LessonFileError(line, f"step {step} is past the end of this training, which has {plural(total, 'step')}. "
                                  "Remove the step or train longer")
    for table in (lesson.says, lesson.errata):
        for step, sentences in table.items():
            for say in sentences:
                fill(lesson, recording, step, say)
    for step, p in lesson.printed.items():
        if step < 1:
            raise LessonFileError(p.line, "a printed line belongs to a merge (step 1 or later)")
        e = recording.steps[step - 1]
        if getattr(e, "kind", "") != "merge":
            raise LessonFileError(p.line, f"step {step} of this training is not a merge, so it has no pair to print")
        if tuple(e.pair) != p.pair:
            raise LessonFileError(p.line, f"the source prints {label(p.pair)} at step {step}, but this training merges "
                                  f"{label(e.pair)}. Check the corpus and the options (the tie-break rule, the "
                                  "end-of-word marker), or say where the source is wrong with “erratum:”")
        if p.count is not None and e.count != p.count:
            raise LessonFileError(p.line, f"the source prints a count of {p.count} at step {step}, but this training "
                                  f"counts {e.count}. Fix printed-count, or say where the source is wrong with “erratum:”")
        if p.score is not None and (e.score is None or abs(round(e.score, 4) - p.score) > 5e-5):
            raise LessonFileError(p.line, f"the source prints a score of {p.score} at step {step}, but this training "
                                  f"scores {'no score' if e.score is None else _number(e.score)}. Fix printed-score, "
                                  "or say where the source is wrong with “erratum:”")


# --- learn by predicting ("predict: on") ---------------------------------------------------------
MAX_CHOICES = 4  # a merge question offers the winner and at most three other top candidates


@dataclass(frozen=True)
class Choice:
    key: str  # what its button carries (the candidate's index, or the number)
    label: str  # what the button says: "u + g", or "12"
    number: str  # its number as the verdict says it: "15", "score 0.1429"


@dataclass(frozen=True)
class Prediction:
    """What the card asks before showing `step`: a question, its choices (in an order that
    does not give the answer away) and the right one's key."""

    step: int
    question: str
    choices: tuple[Choice, ...]
    answer: str
    wins_with: str  # the right answer's number, as the verdict says it: "20", "a score of 0.1429"
    tie_rule: str = ""  # (merge) the tie-break rule, said when the learner picks a pair tied with the winner
    had: int | None = None  # (Unigram) the entries before the round; None for a merge
    pruned: bool = False  # (Unigram pruning) "which piece is removed?": wins_with is how many go


def prediction(lesson: Lesson, recording: Any, step: int) -> Prediction | None:
    """The question before `step` (1 or later) of `lesson`'s finished `recording`, or None when
    the step has nothing to guess (past the end, a single candidate, an unknown kind of step).

    A merge (BPE, WordPiece): "Which pair wins merge k?" with the winner and the next best of
    the step's recorded candidates (at most MAX_CHOICES), sorted by their text. A Unigram round:
    "How many entries are left?" with the true size and two others made from it, ascending. A
    pruning round: "Which of these pieces does it remove?" with the first piece it drops and
    the kept pieces of lowest probability (`_prune_prediction`). Every number is the recording's.
    """
    steps = recording.steps
    if not 1 <= step <= len(steps):
        return None
    e = steps[step - 1]
    kind = getattr(e, "kind", "")
    if kind == "merge":
        return _merge_prediction(lesson, e, step)
    if kind == "prune" and (asked := _prune_prediction(e, step)) is not None:
        return asked
    if kind in ("em", "prune"):
        before = (steps[step - 2] if step > 1 else recording.alphabet).vocab_size
        after = e.vocab_size
        gap = max(before - after, 1)
        above = [n for n in (before, (before + after + 1) // 2) if n > after]  # (never more than it had)
        below = [after - gap, after - 2 * gap, after // 2, after - 1]
        # where the right number sits among the three moves with the step (the order gives nothing away)
        order = [above + below, above[:1] + below + above[1:], below + above][step % 3]
        others: list[int] = []
        for n in order + [after + 1, after + 2]:
            if n >= 1 and n != after and n not in others and len(others) < 2:
                others.append(n)
        numbers = sorted([after, *others])
        what = "pruning round" if kind == "prune" else "EM round"
        return Prediction(step, f"The vocabulary has {plural(before, 'entry', 'entries')}. How many are left after "
                          f"this {what}?", tuple(Choice(str(n), f"{n:,}", f"{n:,}") for n in numbers), str(after),
                          f"{after:,}", had=before)
    return None


def _prune_prediction(e: Any, step: int) -> Prediction | None:
    """"Which of these pieces does this pruning round remove?": the piece it drops first (the
    least useful: its loss, the log-likelihood lost without it, is the smallest) among the
    kept pieces of lowest log-probability, the ones a learner would guess. Single characters
    (never pruned) and reserved pieces (score exactly 0: a real piece's probability is below 1)
    are not offered. None when the round kept no such piece, or recorded no vocabulary."""
    if not e.dropped or not e.pieces:
        return None
    removed, loss = e.dropped[0]
    kept = sorted((logp, piece) for piece, logp in e.pieces if len(piece) > 1 and logp != 0.0)
    kept = kept[:MAX_CHOICES - 1]
    if not kept:
        return None
    choices = [Choice("removed", removed, f"loss {_number(loss)}")]
    choices += [Choice(f"kept{i}", piece, f"log-probability {_number(logp)}") for i, (logp, piece) in enumerate(kept)]
    choices.sort(key=lambda ch: (ch.label, ch.key))
    return Prediction(step, f"Which of these pieces does pruning round {e.round + 1} remove?", tuple(choices),
                      "removed", str(len(e.dropped)), pruned=True)


def _merge_prediction(lesson: Lesson, e: Any, step: int) -> Prediction | None:
    wordpiece = lesson.spec.preset == "wordpiece"
    candidates = list(getattr(e, "candidates", ()))
    winner = next((i for i, c in enumerate(candidates) if tuple(c[0]) == tuple(e.pair)), None)
    if winner is None:
        return None
    picked = [winner] + [i for i in range(len(candidates)) if i != winner][: MAX_CHOICES - 1]
    if len(picked) < 2:
        return None

    def number(c: Any) -> str:
        return f"score {_number(c[2])}" if wordpiece and len(c) > 2 and c[2] is not None else str(c[1])

    choices = sorted((Choice(str(i), label(candidates[i][0]), number(candidates[i])) for i in picked),
                     key=lambda ch: (ch.label, ch.key))
    question = f"Which pair wins merge {step}?" + (" (WordPiece: the highest score)" if wordpiece else "")
    wins = f"a score of {_number(e.score)}" if wordpiece and e.score is not None else str(e.count)
    return Prediction(step, question, tuple(choices), str(winner), wins,
                      TIE_RULES.get(lesson.tie_break, TIE_RULES["first"]))


def verdict(p: Prediction, key: str) -> tuple[bool, str]:
    """Whether choice `key` is right, and what the card says, with the numbers.

    Example (lesson 7, merge 1): right -> 'Right: u + g wins with 20.'; wrong, h + u ->
    'Not this time: you chose h + u (15); u + g wins with 20.'
    """
    chosen = next((c for c in p.choices if c.key == key), None)
    right = next(c for c in p.choices if c.key == p.answer)
    if p.pruned:
        how = (f"{right.label} is removed: it is the least useful piece ({right.number}: the corpus's log-likelihood "
               f"per word falls by that much without it); this round removes {plural(int(p.wins_with), 'piece')}.")
        if chosen is None or chosen.key == right.key:
            return True, f"Right: {how}"
        return False, f"Not this time: {chosen.label} stays ({chosen.number}); {how}"
    if p.had is not None:
        left = f"{p.wins_with} {'entry is' if p.wins_with == '1' else 'entries are'} left (it had {p.had:,})."
        if chosen is None or chosen.key == right.key:
            return True, f"Right: {left}"
        return False, f"Not this time: you chose {chosen.label}; {left}"
    if chosen is None or chosen.key == right.key:
        return True, f"Right: {right.label} wins with {p.wins_with}."
    tie = (f" They tie: the tie-break rule ({p.tie_rule}) picks {right.label}." if chosen.number == right.number
           else "")
    return False, f"Not this time: you chose {chosen.label} ({chosen.number}); {right.label} wins with {p.wins_with}.{tie}"
