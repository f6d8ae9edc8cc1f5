"""“Make a lesson from this experiment”: the lesson file (lesson_format.py) of the current
corpus, settings and the steps the author marked, each with a default sentence whose
placeholders the training fills in, so the numbers stay the trainer's.

>>> from .state import Corpus, TrainSpec
>>> text = make_lesson_file(Corpus("low 5\\nlower 2", "word_counts"), TrainSpec("bpe", "num_merges", 2), [1])
>>> print(text.split("\\n", 2)[2])  # doctest: +ELLIPSIS
title: BPE · 2 merges on Your text
corpus: words
  low 5
  lower 2
algorithm: bpe
merges: 2
<BLANKLINE>
step 1:
  say: {winner} is merged into {new_token}: it occurs {count} times. The runner-up is {runner_up} ({runner_up_count}).
<BLANKLINE>
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .lesson_format import MAX_LESSON_BYTES, LessonFileError, _value, parse_lesson
from .state import Corpus, TrainSpec

INLINE_CORPUS_CHARS = 64 * 1024  # a bigger corpus goes by its sample's name (or not at all)


class LessonMakerError(ValueError):
    """The experiment cannot become a lesson file; the message says why and what to do."""


def default_say(spec: TrainSpec, step: int, event: Any = None) -> str:
    """The sentence a marked step starts with (the author rewrites it)."""
    if step == 0:
        return "The vocabulary starts with {vocab_size} entries; training makes {steps} steps."
    if spec.is_unigram or event is not None and getattr(event, "kind", "merge") != "merge":
        if getattr(event, "kind", "") == "prune":
            return "Pruning removed {removed} pieces ({removed_pieces}), leaving {vocab_size}."
        return "EM re-estimated the probabilities: the log-likelihood is now {log_likelihood}."
    if spec.preset == "wordpiece":
        return "{winner} has the best score, {score} ({count} / ({parts})), and becomes {new_token}."
    runner = " The runner-up is {runner_up} ({runner_up_count})." if event is None or len(event.candidates) > 1 else ""
    return "{winner} is merged into {new_token}: it occurs {count} times." + runner


def _option_text(value: Any) -> str:
    """An option's value as the file writes it: plain text when it reads back the same, else JSON."""
    if isinstance(value, str) and value and value == value.strip() and "\n" not in value and _value(value) == value:
        return value
    return json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)


def make_lesson_file(corpus: Corpus, spec: TrainSpec, steps: Iterable[int], recording: Any = None,
                     title: str = "", *, predict: bool = False, exercise: str = "") -> str:
    """The lesson file of this experiment with the marked `steps` (a recording, if given,
    picks each step's default sentence). The corpus is written inline when it is small and
    reads back unchanged, else named by its bundled sample; otherwise LessonMakerError.
    ``predict=True`` writes ``predict: on`` (the learner predicts each step before it is
    shown); ``exercise`` (an id of exercises.EXERCISE_IDS) offers that Python exercise."""
    if corpus.format == "counts":
        raise LessonMakerError("a counts file cannot go into a lesson file; use running text or a word-count list")
    if corpus.is_empty:
        raise LessonMakerError("the corpus is empty: pick a sample or paste some text first")
    title = " ".join((title or f"{spec.describe()} on {corpus.name}").split())[:200]
    lines = ["lesson-format: 1", "# Made with Subword Lab's “Make a lesson”. Rewrite the sentences; the {…} "
             "placeholders are filled from the training.", f"title: {title}"]
    kind = "words" if corpus.format == "word_counts" else "text"
    body = corpus.text.rstrip("\n").split("\n")
    inline = len(corpus.text) <= INLINE_CORPUS_CHARS
    if inline:
        corpus_lines = [f"corpus: {kind}"] + [("  " + row) if row.strip() else "" for row in body]
    if not inline or not _reads_back(corpus_lines, corpus):
        if corpus.sample is None:
            raise LessonMakerError(f"the corpus is {len(corpus.text):,} characters{'' if inline else ' (too big)'} and "
                                   "no bundled sample: a lesson file holds a corpus of at most "
                                   f"{INLINE_CORPUS_CHARS:,} characters, without lines of only spaces")
        corpus_lines = [f"corpus: sample {corpus.sample}"]
    lines += corpus_lines
    lines.append(f"algorithm: {spec.preset}")
    lines.append(("merges" if spec.target == "num_merges" else "vocab") + f": {spec.size}")
    lines += [f"option {k}: {_option_text(v)}" for k, v in spec.options.items()]
    if predict:
        lines.append("predict: on")
    if exercise:
        from .exercises import EXERCISE_IDS

        if exercise not in EXERCISE_IDS:
            raise LessonMakerError(f"there is no exercise {exercise[:40]!r}; pick one of {', '.join(EXERCISE_IDS)}")
        lines.append(f"exercise: {exercise}")
    events = recording.steps if recording is not None and recording.done else []
    for step in sorted(set(steps)):
        event = events[step - 1] if 0 < step <= len(events) else None
        lines += ["", f"step {step}:", f"  say: {default_say(spec, step, event)}"]
    text = "\n".join(lines) + "\n"
    if len(text.encode("utf-8")) > MAX_LESSON_BYTES:
        raise LessonMakerError("the lesson file would be bigger than a lesson file may be "
                               f"({MAX_LESSON_BYTES:,} bytes); use a smaller corpus or a bundled sample")
    try:
        parse_lesson(text)
    except LessonFileError as exc:  # (e.g. an option this format cannot write)
        raise LessonMakerError(f"this experiment does not make a valid lesson file: {exc}") from None
    return text


def _reads_back(corpus_lines: list[str], corpus: Corpus) -> bool:
    """Whether the corpus written this way reads back as the same text."""
    head = "lesson-format: 1\ntitle: t\n" + "\n".join(corpus_lines) + "\nalgorithm: bpe\nmerges: 1\n"
    try:
        lesson = parse_lesson(head)
    except LessonFileError:
        return False
    want = corpus.text.rstrip("\n")
    if corpus.format == "word_counts":
        want = "\n".join(r.strip() for r in want.split("\n") if r.strip())
    return lesson.corpus_text == want
