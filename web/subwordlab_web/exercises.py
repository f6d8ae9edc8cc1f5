"""Exercises in Python: the learner writes one piece of a trainer, the page checks it step by
step against the trainer itself, on the current corpus.

Each ``Exercise`` has a title, instructions, a starter stub (the signature and a docstring),
a reference implementation (shown on request; the tests check that it passes) and a
checker. The checker runs in the compute worker (session.py's ``{"op": "exercise"}``),
never on the page: the learner's code is ``exec``'d in a fresh namespace, its ``print()``
output captured (at most ``MAX_OUTPUT_CHARS``), and every call of the learner's function is
compared with what the core computes at the same step:

- ``bpe_get_stats``: ``get_stats(words)`` counts the adjacent pairs of a word-count corpus
  (Sennrich et al. 2016's ``get_stats(vocab)``; minbpe's ``get_stats(ids)`` is the same loop
  over one list with every count 1), before each merge of the ``bpe`` trainer's run;
- ``bpe_merge``: minbpe's ``merge(ids, pair, idx)``, on every word's token ids, for each merge;
- ``wordpiece_score``: ``score(pair_count, left_count, right_count)``, which must pick the
  pair the ``wordpiece`` trainer merges at each step;
- ``unigram_viterbi``: ``viterbi(text, pieces)``, the best segmentation of each word under
  the trained Unigram model;
- ``unigram_em``: ``em_update(expected)``, the M-step: the trainer's expected counts of one
  EM iteration in, the new log-probabilities out (compared with the trainer's next pieces).

The result is the first step where the learner's value differs from the trainer's, with
both values, or how many steps passed. What it works on: the corpus's words (counted with
the exercise's algorithm's pipeline), the ``MAX_WORDS`` most frequent ones of at most
``MAX_WORD_CHARS`` characters, so that a check takes well under the page's time limit.

>>> result = check("bpe_get_stats", EXERCISES["bpe_get_stats"].reference, {"low": 5, "lower": 2, "newest": 6})
>>> result["outcome"], result["summary"][:34]
('passed', 'Passed: 12 merges checked, on the ')
"""

from __future__ import annotations

import contextlib
import math
import traceback
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

TIME_LIMIT_SECONDS = 5.0  # the page stops a run of the learner's code after this long (exercise_view.py)
MAX_CODE_CHARS = 8_000  # the longest code the box runs, and a link carries (share.py)
MAX_OUTPUT_CHARS = 2_000  # the learner's print() output shown, at most
MAX_WORDS = 2_000  # the most frequent words a BPE or WordPiece check works on
MAX_UNIGRAM_WORDS = 300  # (Unigram's reference E-step is the slow one)
MAX_WORD_CHARS = 29  # longer words are left out (the reference E-step works in probability space)
MERGES = 30  # merges replayed by the BPE and WordPiece checks, at most
EM_STEPS = 4  # EM iterations the M-step check replays, at most
UNIGRAM_EXTRA_PIECES = 150  # the Unigram run's target: the characters plus this many pieces
FILENAME = "<your code>"


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    algorithm: str  # the preset whose trainer the check replays
    function: str  # the name the learner's code must define
    instructions: str
    starter: str
    reference: str
    what_steps: str  # what one step is, as in "30 merges checked"


EXERCISE_LIST: tuple[Exercise, ...] = (
    Exercise(
        "bpe_get_stats", "BPE: count the pairs (get_stats)", "bpe", "get_stats",
        "BPE merges the most frequent pair of adjacent symbols, so each step starts by counting every pair. "
        "Write get_stats(words): words maps each word, as a tuple of its current symbols, to how often the word "
        "occurs, e.g. {('l', 'o', 'w', '</w>'): 5, ('l', 'o', 'w', 'e', 'r', '</w>'): 2}. Return a dict "
        "{(left, right): count}, each pair counted once per occurrence, weighted by the word's count. "
        "The check calls it before each merge of the BPE trainer's run on this corpus.",
        'def get_stats(words):\n'
        '    """words: {(symbol, symbol, ...): count}. Return {(left, right): count}."""\n'
        '    counts = {}\n'
        '    # for each word and its count, look at each pair of neighbouring symbols\n'
        '    return counts\n',
        'def get_stats(words):\n'
        '    """words: {(symbol, symbol, ...): count}. Return {(left, right): count}."""\n'
        '    counts = {}\n'
        '    for symbols, n in words.items():\n'
        '        for pair in zip(symbols, symbols[1:]):\n'
        '            counts[pair] = counts.get(pair, 0) + n\n'
        '    return counts\n',
        "merge"),
    Exercise(
        "bpe_merge", "BPE: apply a merge (merge)", "bpe", "merge",
        "Once BPE has chosen a pair, it replaces each occurrence of the pair with the new token. Write "
        "merge(ids, pair, idx) as in minbpe: ids is a list of token ids (one word), pair two ids, idx the new "
        "token's id. Return a new list where every occurrence of pair, scanning left to right without overlaps, "
        "is replaced by idx. The check applies every merge of the BPE trainer's run to every word of the corpus.",
        'def merge(ids, pair, idx):\n'
        '    """Return a new list: ids with each (left to right) occurrence of pair replaced by idx."""\n'
        '    new_ids = []\n'
        '    return new_ids\n',
        'def merge(ids, pair, idx):\n'
        '    """Return a new list: ids with each (left to right) occurrence of pair replaced by idx."""\n'
        '    new_ids = []\n'
        '    i = 0\n'
        '    while i < len(ids):\n'
        '        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:\n'
        '            new_ids.append(idx)\n'
        '            i += 2\n'
        '        else:\n'
        '            new_ids.append(ids[i])\n'
        '            i += 1\n'
        '    return new_ids\n',
        "merge"),
    Exercise(
        "wordpiece_score", "WordPiece: score a pair (score)", "wordpiece", "score",
        "WordPiece merges the pair with the highest score, not the most frequent one: a pair whose parts are "
        "rare on their own scores higher. Write score(pair_count, left_count, right_count): how often the pair "
        "occurs, and how often each of its two parts occurs (all weighted by word counts). Return a number; "
        "the check picks, at each step, the pair with your highest score (the first one met on a tie) and "
        "compares it with the pair the WordPiece trainer merges.",
        'def score(pair_count, left_count, right_count):\n'
        '    """Return the pair\'s score: the higher, the sooner the pair is merged."""\n'
        '    return pair_count\n',
        'def score(pair_count, left_count, right_count):\n'
        '    """Return the pair\'s score: the higher, the sooner the pair is merged."""\n'
        '    return pair_count / (left_count * right_count)\n',
        "merge"),
    Exercise(
        "unigram_viterbi", "Unigram: the best segmentation (viterbi)", "unigram", "viterbi",
        "A Unigram model gives each piece a log-probability; a word's segmentation scores the sum of its "
        "pieces' log-probabilities, and the tokenizer picks the best one with the Viterbi algorithm: best[i] is "
        "the best score of any segmentation of text[:i], found from best[j] + pieces[text[j:i]] for every "
        "piece that ends at i. Write viterbi(text, pieces): pieces maps each piece to its log-probability (every "
        "single character is a piece). Return the best segmentation as a list of pieces. The check runs it on "
        "the corpus's words (each starting with ▁) under the model the Unigram trainer learned from them.",
        'def viterbi(text, pieces):\n'
        '    """pieces: {piece: log-probability}. Return the best segmentation of text, a list of pieces."""\n'
        '    best = [0.0] + [float("-inf")] * len(text)  # best[i]: the best score of text[:i]\n'
        '    back = [0] * (len(text) + 1)  # back[i]: where the last piece of that segmentation starts\n'
        '    # fill best and back, then walk back from len(text)\n'
        '    return [text]\n',
        'def viterbi(text, pieces):\n'
        '    """pieces: {piece: log-probability}. Return the best segmentation of text, a list of pieces."""\n'
        '    best = [0.0] + [float("-inf")] * len(text)  # best[i]: the best score of text[:i]\n'
        '    back = [0] * (len(text) + 1)  # back[i]: where the last piece of that segmentation starts\n'
        '    longest = max(len(p) for p in pieces)\n'
        '    for i in range(1, len(text) + 1):\n'
        '        for j in range(max(0, i - longest), i):\n'
        '            piece = text[j:i]\n'
        '            if piece in pieces and best[j] + pieces[piece] > best[i]:\n'
        '                best[i], back[i] = best[j] + pieces[piece], j\n'
        '    out, i = [], len(text)\n'
        '    while i > 0:\n'
        '        out.append(text[back[i]:i])\n'
        '        i = back[i]\n'
        '    return out[::-1]\n',
        "word"),
    Exercise(
        "unigram_em", "Unigram: one EM update (em_update)", "unigram", "em_update",
        "Unigram training alternates two steps. The E-step (done for you) finds how often each piece is "
        "expected to occur in the corpus's segmentations. Write the M-step em_update(expected): expected maps each "
        "piece to its expected count; return {piece: new log-probability}. As SentencePiece does: a piece of two "
        "or more characters expected fewer than 0.5 times is dropped (leave it out); every other count c becomes "
        "max(c, 0.5), and a piece's log-probability is digamma(c) - digamma(total), total being the sum of the "
        "kept counts (digamma is given; with log instead of digamma you get plain maximum likelihood, close but "
        "not what the trainer does). The check replays the trainer's first EM iterations on this corpus.",
        'def em_update(expected):\n'
        '    """expected: {piece: expected count}. Return {piece: new log-probability} (digamma is given)."""\n'
        '    total = sum(expected.values())\n'
        '    return {piece: math.log(c / total) for piece, c in expected.items() if c > 0}\n',
        'def em_update(expected):\n'
        '    """expected: {piece: expected count}. Return {piece: new log-probability} (digamma is given)."""\n'
        '    kept = {piece: max(c, 0.5) for piece, c in expected.items() if len(piece) == 1 or c >= 0.5}\n'
        '    log_total = digamma(math.fsum(kept.values()))\n'
        '    return {piece: digamma(c) - log_total for piece, c in kept.items()}\n',
        "EM iteration"),
)
EXERCISES: dict[str, Exercise] = {e.id: e for e in EXERCISE_LIST}
EXERCISE_IDS: tuple[str, ...] = tuple(EXERCISES)


class LearnerError(Exception):
    """The learner's code failed (raised, or returned something unusable): the message says
    where and what, in their code's line numbers."""


def _plural(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def _num(value: Any) -> str:
    """A number as the messages show it. Example: _num(-3.148079248373709) -> '-3.1480792'."""
    return f"{value:.8g}" if isinstance(value, float) else _short(value, 40)


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- running the learner's code -------------------------------------------------------------

class _CappedOutput:
    """A stdout that keeps the first ``MAX_OUTPUT_CHARS`` characters written to it."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.cut = False

    def write(self, text: str) -> int:
        room = MAX_OUTPUT_CHARS - self.size
        if len(text) > room:
            self.cut = True
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(room, len(text))
        return len(text)

    def flush(self) -> None:
        pass

    def text(self) -> str:
        return "".join(self.parts) + (f"\n… (only the first {MAX_OUTPUT_CHARS:,} characters are shown)" if self.cut else "")


def _where(exc: BaseException, code: str) -> str:
    """The exception and the last lines of the learner's code it went through, e.g.
    'line 4, in get_stats: counts[pair] += n\\nKeyError: ('l', 'o')'."""
    lines = code.splitlines()
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == FILENAME][-3:]
    out = [f"line {f.lineno}, in {f.name}: {lines[f.lineno - 1].strip() if f.lineno and f.lineno <= len(lines) else ''}"
           for f in frames]
    return "\n".join(out + [f"{type(exc).__name__}: {exc}"])


def load(exercise: Exercise, code: str) -> Callable[..., Any]:
    """Run the learner's code in a fresh namespace and return its function. Raises LearnerError."""
    if len(code) > MAX_CODE_CHARS:
        raise LearnerError(f"your code is {len(code):,} characters long; the box runs at most {MAX_CODE_CHARS:,}")
    try:
        compiled = compile(code, FILENAME, "exec")
    except SyntaxError as exc:
        line = f"line {exc.lineno}: " if exc.lineno else ""
        raise LearnerError(f"your code is not valid Python: {line}{exc.msg}") from None
    except ValueError as exc:  # (source code with a NUL character)
        raise LearnerError(f"your code is not valid Python: {exc}") from None
    from subwordlab.trainers.unigram import digamma

    namespace: dict[str, Any] = {"__name__": "exercise", "math": math, "digamma": digamma}
    try:
        exec(compiled, namespace)  # (the learner's own code, in the compute worker, on their click)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - every kind: it is their code
        raise LearnerError(f"your code raised an exception as it ran (before {exercise.function} was called):\n"
                           f"{_where(exc, code)}") from None
    fn = namespace.get(exercise.function)
    if not callable(fn):
        raise LearnerError(f"your code defines no function {exercise.function}: keep the starter's first line, "
                           f"def {exercise.starter.split('def ', 1)[1].split(':', 1)[0]}:")
    return fn


def _call(fn: Callable[..., Any], code: str, where: str, args: tuple, convert: Callable[[Any], Any]) -> Any:
    """``convert(fn(*args))``; an exception (theirs, or their value not converting) becomes a
    LearnerError that says at which step."""
    try:
        return convert(fn(*args))
    except LearnerError as exc:
        raise LearnerError(f"{where}: {exc}") from None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - every kind: it is their code
        raise LearnerError(f"{where}: your code raised an exception:\n{_where(exc, code)}") from None


# -- the corpus's words ------------------------------------------------------------------------

def corpus_words(corpus: Any, preset: str, limit: int) -> tuple[dict[str, int], int]:
    """The words an exercise works on, ``{word: count}`` in order of first appearance: the
    corpus's words as ``preset``'s pipeline counts them (``bpe`` and ``unigram``: split at
    white space; ``wordpiece``: BERT's), at most ``limit`` of the most frequent ones of at most
    ``MAX_WORD_CHARS`` characters; and how many distinct words the corpus has.

    >>> corpus_words("a b a c", "bpe", 2)
    ({'a': 2, 'b': 1}, 3)
    """
    from subwordlab.presets import corpus_word_counts, counting_spec, pipeline_of
    from subwordlab.text.corpus import Counted

    if isinstance(corpus, Counted):
        counts = dict(corpus.counts)
    elif isinstance(corpus, Mapping):
        counts = dict(corpus)
    else:
        spec = counting_spec("bpe" if preset == "unigram" else preset, {})  # (unigram's words, without their ▁)
        normalizer, pre_tokenizer = pipeline_of(spec)
        counts = dict(corpus_word_counts(corpus, spec, normalizer, pre_tokenizer)[0])
    fits = [(w, n) for w, n in counts.items() if 0 < len(w) <= MAX_WORD_CHARS and "</w>" not in w]
    if not fits:
        raise ValueError(f"the corpus has no word of at most {MAX_WORD_CHARS} characters to practise on: "
                         "pick a sample or paste some text")
    order = {w: i for i, (w, _) in enumerate(fits)}
    kept = sorted(fits, key=lambda t: (-t[1], order[t[0]]))[:limit]
    return dict(sorted(kept, key=lambda t: order[t[0]])), len(counts)


def _on_words(words: dict[str, int], total: int) -> str:
    if len(words) == total:
        return f"on the corpus's {_plural(total, 'word')}"
    return f"on {len(words):,} of the corpus's {_plural(total, 'word')} (the most frequent, up to {MAX_WORD_CHARS} characters)"


# -- the checks ---------------------------------------------------------------------------------
# Each prepares the trainer's side, yields once (the learner's code is loaded then, and the
# page's time limit counts from there), is sent (their function, their code) and returns the result.

Result = dict[str, Any]
Checking = Generator[None, tuple[Callable[..., Any], str], Result]


def _passed(n: int, what: str, words: dict[str, int], total: int) -> Result:
    return {"outcome": "passed", "checked": n,
            "summary": f"Passed: {_plural(n, what)} checked, {_on_words(words, total)}."}


def _differs(step: int, summary: str, yours: Any, trainer: Any) -> Result:
    return {"outcome": "differs", "step": step, "summary": summary, "yours": _short(yours), "trainer": _short(trainer)}


def _as_counts(value: Any) -> dict[tuple, Any]:
    if not isinstance(value, Mapping):
        raise LearnerError(f"your get_stats returned {type(value).__name__}, not a dict {{(left, right): count}}")
    out = {}
    for key, n in dict(value).items():
        if not isinstance(key, tuple):
            raise LearnerError(f"your get_stats has the key {_short(key, 60)}; each key must be a tuple (left, right)")
        out[key] = n
    return out


def _check_get_stats(corpus: Any) -> Checking:
    from subwordlab.recording import Recording
    from subwordlab.trainers.textbook import count_units_and_pairs, merge_pair

    words, total = corpus_words(corpus, "bpe", MAX_WORDS)
    rec = Recording(words, "bpe", num_merges=MERGES).run()
    state = {(*w, "</w>"): n for w, n in words.items()}
    fn, code = yield
    for k, step in enumerate(rec.steps, 1):
        ref = count_units_and_pairs(list(state.items()))[1]
        if ref.get(step.pair) != step.count:
            raise RuntimeError(f"the reference counts {step.pair} {ref.get(step.pair)} times, the trainer {step.count}")
        where = f"Step {k} (the pairs before merge {k})"
        yours = _call(fn, code, where, (dict(state),), _as_counts)
        for pair, n in ref.items():
            got = yours.get(pair, 0)
            if got != n:
                said = f"does not count {pair!r}" if pair not in yours else f"counts {pair!r} {_short(got, 40)} times"
                return _differs(k, f"{where}: your get_stats {said}, the trainer counts {n:,}.", got, n)
        for pair, got in yours.items():
            if pair not in ref and got != 0:
                return _differs(k, f"{where}: your get_stats counts {_short(pair, 60)} {_short(got, 40)} times; "
                                   "the trainer never sees that pair (it counts 0).", got, 0)
        state = {tuple(merge_pair(list(s), step.pair, step.new_token)): n for s, n in state.items()}
    return _passed(len(rec.steps), "merge", words, total)


def _as_ids(value: Any) -> list:
    if not isinstance(value, (list, tuple)):
        raise LearnerError(f"your merge returned {type(value).__name__}, not a list of ids")
    return list(value)


def _check_merge(corpus: Any) -> Checking:
    from subwordlab.recording import Recording
    from subwordlab.trainers.textbook import merge_pair

    words, total = corpus_words(corpus, "bpe", MAX_WORDS)
    rec = Recording(words, "bpe", num_merges=MERGES).run()
    vocab = list(rec.tokenizer.model.vocab)
    ids = {t: i for i, t in enumerate(vocab)}
    state = [(w, [ids[c] for c in (*w, "</w>")]) for w in words]
    fn, code = yield

    def tokens(seq: list) -> str:
        return " ".join(vocab[i] if isinstance(i, int) and 0 <= i < len(vocab) else "?" for i in seq)

    for k, step in enumerate(rec.steps, 1):
        pair, idx = (ids[step.pair[0]], ids[step.pair[1]]), step.vocab_size - 1
        where = f"Step {k} (merge {step.pair[0]!r} + {step.pair[1]!r} → {step.new_token!r}, pair {pair}, idx {idx})"
        new_state = []
        for word, seq in state:
            want = merge_pair(seq, pair, idx)
            got = _call(fn, code, f"{where}, the word {word!r}", (list(seq), pair, idx), _as_ids)
            if got != want:
                return _differs(k, f"{where}: for the word {word!r}, ids {seq}, your merge gives {_short(got, 120)} "
                                   f"({tokens(got)}), the trainer's {want} ({tokens(want)}).", got, want)
            new_state.append((word, want))
        state = new_state
    return _passed(len(rec.steps), "merge", words, total)


def _as_number(value: Any) -> Any:
    from fractions import Fraction

    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise LearnerError(f"your score returned {_short(value, 60)}, not a number")
    if isinstance(value, float) and math.isnan(value):
        raise LearnerError("your score returned nan (not a number): a division 0 / 0?")
    return value


def _check_score(corpus: Any) -> Checking:
    from subwordlab.recording import Recording
    from subwordlab.trainers.textbook import count_units_and_pairs, merge_pair

    words, total = corpus_words(corpus, "wordpiece", MAX_WORDS)
    rec = Recording(words, "wordpiece", num_merges=MERGES).run()
    state = [([w[0]] + ["##" + c for c in w[1:]], n) for w, n in words.items()]
    fn, code = yield
    for k, step in enumerate(rec.steps, 1):
        units, pairs = count_units_and_pairs(state)
        where = f"Step {k} (choosing merge {k})"
        scores = {}
        for p, c in pairs.items():
            scores[p] = _call(fn, code, f"{where}, the pair {p!r}", (c, units[p[0]], units[p[1]]), _as_number)
        top = max(scores.values())
        best = next(p for p, s in scores.items() if s == top)
        if best != step.pair:
            a, b = step.part_counts or (units[step.pair[0]], units[step.pair[1]])
            c = pairs[step.pair]
            return _differs(k, f"{where}: with your score the best pair is {best!r} (count {pairs[best]:,}, parts "
                               f"{units[best[0]]:,} and {units[best[1]]:,}: your score {_short(top, 40)}), but the trainer "
                               f"merges {step.pair!r} (count {c:,}, parts {a:,} and {b:,}: your score "
                               f"{_short(scores[step.pair], 40)}, the trainer's {c / (a * b):.6g}).", best, step.pair)
        state = [(merge_pair(s, step.pair, step.new_token), n) for s, n in state]
    return _passed(len(rec.steps), "merge", words, total)


def _unigram_run(corpus: Any) -> tuple[Any, dict[str, int], int]:
    from subwordlab.recording import Recording

    words, total = corpus_words(corpus, "unigram", MAX_UNIGRAM_WORDS)
    chars = {c for w in words for c in "▁" + w}
    rec = Recording(words, "unigram", vocab_size=len(chars) + 1 + UNIGRAM_EXTRA_PIECES, special_tokens=[]).run()
    return rec, words, total


def _as_split(value: Any) -> list:
    if not isinstance(value, (list, tuple)) or not all(isinstance(p, str) for p in value):
        raise LearnerError(f"your viterbi returned {_short(value, 60)}, not a list of pieces (strings)")
    return list(value)


def _check_viterbi(corpus: Any) -> Checking:
    from subwordlab.trainers.textbook import best_split

    rec, words, total = _unigram_run(corpus)
    model = rec.tokenizer.model
    pieces = {p: s for i, (p, s) in enumerate(zip(model.vocab, model.scores)) if i != model.unk_id}
    ids = {p: i for i, p in enumerate(pieces)}
    scores = list(pieces.values())
    longest = max(len(p) for p in pieces)
    fn, code = yield
    for k, word in enumerate(words, 1):
        text = "▁" + word
        path, best = best_split(text, ids, scores, longest)
        want = [list(pieces)[i] for i in path]
        where = f"Word {k}, {text!r}"
        got = _call(fn, code, where, (text, dict(pieces)), _as_split)
        unknown = [p for p in got if p not in pieces]
        if unknown:
            return _differs(k, f"{where}: your viterbi splits it {_short(got, 120)}, but {unknown[0]!r} is not a piece "
                               f"of the model; the trainer's best split is {want}.", got, want)
        if "".join(got) != text:
            return _differs(k, f"{where}: your viterbi splits it {_short(got, 120)}, which spells {''.join(got)!r}, not "
                               f"{text!r}; the trainer's best split is {want}.", got, want)
        score = math.fsum(pieces[p] for p in got)
        if abs(score - best) > 1e-9 * max(1.0, abs(best)):
            return _differs(k, f"{where}: your viterbi splits it {got} (log-probability {score:.4f}), the trainer's best "
                               f"split is {want} ({best:.4f}).", got, want)
    return _passed(len(words), "word", words, total)


def _as_scores(value: Any) -> dict:
    if not isinstance(value, Mapping):
        raise LearnerError(f"your em_update returned {type(value).__name__}, not a dict {{piece: log-probability}}")
    out = dict(value)
    for piece, s in out.items():
        if isinstance(s, bool) or not isinstance(s, (int, float)):
            raise LearnerError(f"your em_update gives {piece!r} the value {_short(s, 60)}, not a number")
    return out


def _check_em(corpus: Any) -> Checking:
    from subwordlab.base.events import EmStep
    from subwordlab.trainers.textbook import expected_counts

    rec, words, total = _unigram_run(corpus)
    counts = {"▁" + w: n for w, n in words.items()}
    unk = rec.tokenizer.model.unk_token
    max_len = rec.tokenizer.spec["max_piece_length"]  # (the run's option: the final model's longest piece may be shorter)
    fn, code = yield
    before = rec.alphabet.pieces or []
    k = 0
    for step in rec.steps:
        if isinstance(step, EmStep) and k < EM_STEPS:
            k += 1
            live = [(p, s) for p, s in before if p != unk]
            pieces, scores = [p for p, _ in live], [s for _, s in live]
            expected = dict(zip(pieces, expected_counts(counts, pieces, scores, [True] * len(pieces), max_len)))
            trainer = {p: s for p, s in step.pieces or () if p != unk}
            where = f"EM iteration {k} (round {step.round + 1}, iteration {step.iteration + 1})"
            got = _call(fn, code, where, (dict(expected),), _as_scores)
            for piece in got:
                if piece not in trainer:
                    why = (f"expected {expected[piece]:.4g} times, fewer than 0.5" if piece in expected
                           else "it is not a piece of this iteration")
                    return _differs(k, f"{where}: your em_update keeps {_short(piece, 40)}, the trainer drops it ({why}).",
                                    got[piece], None)
            for piece, s in trainer.items():
                if piece not in got:
                    return _differs(k, f"{where}: your em_update drops {piece!r} (expected {expected[piece]:.4g} times), "
                                       f"the trainer keeps it with log-probability {_num(s)}.", None, s)
                if not abs(got[piece] - s) <= 1e-6 * max(1.0, abs(s)):
                    return _differs(k, f"{where}: your new log-probability of {piece!r} is {_num(got[piece])}, "
                                       f"the trainer's is {_num(s)} (its expected count was {expected[piece]:.6g}).",
                                    got[piece], s)
        if getattr(step, "pieces", None) is not None:
            before = step.pieces
        if k >= EM_STEPS:
            break
    return _passed(k, "EM iteration", words, total)


CHECKS: dict[str, Callable[[Any], Checking]] = {
    "bpe_get_stats": _check_get_stats, "bpe_merge": _check_merge, "wordpiece_score": _check_score,
    "unigram_viterbi": _check_viterbi, "unigram_em": _check_em,
}


def run(exercise_id: Any, code: Any, corpus: Any) -> Iterator[dict[str, Any]]:
    """The worker's side of a run: ``{"started": True}`` once the trainer's run is ready and
    the learner's code starts (the page's time limit counts from it), then ``{"result": ...}``:
    ``outcome`` ("passed", "differs", "raised"), ``summary`` (one message), ``step``,
    ``yours``/``trainer`` (the differing values), ``output`` (their print()s)."""
    exercise = EXERCISES.get(exercise_id)
    if exercise is None:
        raise ValueError(f"there is no exercise {exercise_id!r}; the exercises are {', '.join(EXERCISE_IDS)}")
    if not isinstance(code, str):
        raise ValueError("the exercise's code must be text")
    out = _CappedOutput()
    result: Result
    with contextlib.redirect_stdout(out):
        steps = CHECKS[exercise_id](corpus)
        next(steps)  # the trainer's side, before the clock starts
        yield {"started": True}
        try:
            steps.send((load(exercise, code), code))
            raise RuntimeError("an exercise check yielded twice")
        except StopIteration as stop:
            result = stop.value
        except LearnerError as exc:
            result = {"outcome": "raised", "summary": str(exc)}
    result["output"] = out.text()
    yield {"result": result}


def check(exercise_id: str, code: str, corpus: Any) -> Result:
    """The result of a run (``run``'s last reply), for tests and the command line."""
    return [r["result"] for r in run(exercise_id, code, corpus) if "result" in r][0]
