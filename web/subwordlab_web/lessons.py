"""Guided lessons: the bundled worked examples, step by step, in the lessons' own words.

A lesson is a worked example of one of the lesson texts in the repository's ``lessons/``
folder: a bundled sample (samples.py), the exact settings that reproduce the text's printed
result, and the sentences of the text that teach each step. What a step *states* (which
pair won, its count or score, which pairs tied and how the tie was broken, what Unigram
pruning removed) is computed here from the recorded training, never written by hand; the
unit tests check those numbers against what the lesson texts print.

Lesson step k is the player's step k: step 0 is the starting vocabulary, step k the k-th
merge (Unigram, lesson 6: the k-th EM iteration or pruning round, as recorded).
``lesson=3&step=4`` in the page's address opens lesson 3 at merge 4 (embed.py).

>>> LESSONS[2].number, LESSONS[2].sample, LESSONS[2].spec.describe()
(3, 'seed003', 'BPE · 6 merges')
>>> lesson_by_number(9) is None
True
>>> split_word("low", "</w>"), merge_symbols(("l", "o", "w"), ("l", "o"))
(('l', 'o', 'w', '</w>'), ('lo', 'w'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from subwordlab.trainers.textbook import merge_pair  # the textbook loop's merge (left to right, no overlaps)

from .samples import SAMPLES
from .state import TrainSpec
from .train_views import TIE_RULES  # the card names a tie's rule as the candidates chart does
from .wording import plural


@dataclass(frozen=True)
class Source:
    """One lesson text of ``lessons/``: its file and the title a learner sees."""

    file: str
    title: str


SOURCES = {
    "000": Source("000_69cb2f1a8ee120c8.txt", "Tokenization Explained: BPE, WordPiece, and SentencePiece"),
    "001": Source("001_5c2db6d94804929c.txt", "Subword Tokenization — BPE, WordPiece, Unigram, SentencePiece"),
    "002": Source("002_5de222ec2802285e.txt", "How does a tokenizer get its vocabulary?"),
    "003": Source("003_dc778d8a5d93a0b4.txt", "Tokenizer Design: BPE and SentencePiece Explained"),
    "004": Source("004_86303a3a98a2d303.txt", "Subword tokenization (BPE and WordPiece)"),
}


@dataclass(frozen=True)
class Quote:
    """Sentences taken verbatim from a lesson text (``source``: a key of SOURCES)."""

    text: str
    source: str


@dataclass(frozen=True)
class Printed:
    """A line the lesson's code prints for a merge: the pair and (if printed) its count or
    score, as the lesson prints them. The tests hold the recording to these."""

    text: str
    pair: tuple[str, str]
    count: int | None = None
    score: float | None = None  # rounded as printed


@dataclass(frozen=True)
class Lesson:
    number: int  # 1-based, the order of the picker (a course page says "lesson 3")
    title: str
    sample: str  # a key of samples.SAMPLES
    spec: TrainSpec  # exactly the settings that reproduce the lesson's printed result
    source: str  # the lesson text it follows (a key of SOURCES)
    intro: tuple[Quote, ...]  # what step 0 says
    rule: Quote  # how a pair is chosen, quoted at every merge without a note of its own
    tie_rule: Quote | None = None  # quoted when a tie is broken
    notes: Mapping[int, tuple[Quote, ...]] = field(default_factory=dict)  # step -> the lesson's words on it
    printed: Mapping[int, Printed] = field(default_factory=dict)  # step -> what the lesson's code printed
    em_note: tuple[Quote, ...] = ()  # Unigram: what an EM step says (a pruning step says `rule`)
    numbers_note: str = ""  # where the card's numbers come from when no lesson text prints them

    @property
    def steps(self) -> int | None:
        """How many merges the lesson makes (its last step); None for Unigram, whose number of
        EM and pruning rounds only the training knows."""
        return None if self.spec.is_unigram else self.spec.size

    def words(self) -> dict[str, int]:
        """The sample's word counts. Example: lesson 1 -> {'low': 5, 'lower': 2, ...}"""
        rows = (line.rsplit(None, 1) for line in (SAMPLES[self.sample].text or "").splitlines() if line.strip())
        return {word: int(n) for word, n in rows}

    @property
    def marker(self) -> str | None:
        """The end-of-word marker (BPE) or None; WordPiece marks continuations with ## instead."""
        if self.spec.preset == "wordpiece" or self.spec.is_unigram:
            return None
        return self.spec.options.get("end_of_word", "</w>")

    @property
    def tie_break(self) -> str:
        return str(self.spec.options.get("tie_break", "first"))


def _q(source: str, *texts: str) -> tuple[Quote, ...]:
    return tuple(Quote(t, source) for t in texts)


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        1, "BPE on low, lower, newest, widest", "seed000", SAMPLES["seed000"].config, "000",
        intro=_q("000", "In this word-based BPE demonstration, training begins with characters and an end-of-word "
                 "marker. Count adjacent symbol pairs weighted by word frequency, merge the most frequent pair, "
                 "and repeat."),
        rule=Quote("Pair counts are recomputed after each merge, and occurrences are merged left to right "
                   "without overlapping.", "000"),
        tie_rule=Quote("Ties use first encounter order in the supplied corpus, which we preserve explicitly.", "000"),
        notes={3: _q("000", "The end marker is a separate initial symbol that can join a merged piece, preserving "
                     "a distinction between internal and word-final forms."),
               8: _q("000", "“Lowest” was not in the training corpus, but the learned pieces encode it as low plus "
                     "est at the word end. This is a useful subword combination; it does not show that BPE "
                     "understands superlatives.")},
        printed={1: Printed("# merge 1: ('e', 's') count 9", ("e", "s"), 9),
                 2: Printed("# merge 2: ('es', 't') count 9", ("es", "t"), 9),
                 3: Printed("# merge 3: ('est', '</w>') count 9", ("est", "</w>"), 9),
                 4: Printed("# ('l', 'o')", ("l", "o")),
                 5: Printed("# ('lo', 'w')", ("lo", "w")),
                 6: Printed("# ('n', 'e')", ("n", "e")),
                 7: Printed("# ('ne', 'w')", ("ne", "w")),
                 8: Printed("# ('new', 'est</w>')", ("new", "est</w>"))},
    ),
    Lesson(
        2, "BPE on hug, pug, pun, bun, hugs (no end-of-word marker)", "seed002", SAMPLES["seed002"].config, "002",
        intro=_q("002", "BPE first counts how often each word appears, so a corpus becomes a short list of words "
                 "with their frequencies. The BPE paper also ends each word with a special end-of-word symbol, "
                 "which this page’s toy leaves out.",
                 "Count every adjacent pair, merge the most frequent one, repeat."),
        rule=Quote("merge replaces every adjacent copy of the pair with one symbol.", "002"),
        tie_rule=Quote("max takes the most frequent pair, the first found on a tie.", "002"),
        notes={1: _q("002", "u g is the most frequent pair (1), so ug becomes one token everywhere (2)."),
               3: _q("002", "To split a word, start from its characters and replay the merges in the order they "
                     "were learned. A character never seen in training, such as a rare script or an emoji, has "
                     "no starting symbol, so character BPE still needs <unk>.",
                     "bugs splits into known pieces; m was never seen, so mug keeps only ug.")},
        printed={k: Printed("print(merges) # [('u', 'g'), ('u', 'n'), ('h', 'ug')]", pair)
                 for k, pair in enumerate((("u", "g"), ("u", "n"), ("h", "ug")), 1)},
    ),
    Lesson(
        3, "BPE on low, lowest, newer, wider (alphabetical ties)", "seed003", SAMPLES["seed003"].config, "003",
        intro=_q("003", "Take a training corpus of four words with their frequencies: low (5), lowest (2), "
                 "newer (6), wider (3).",
                 "Count how often every adjacent pair of symbols occurs, summed across the whole corpus, "
                 "weighted by each word's frequency."),
        rule=Quote("Merge the single most frequent pair into one new symbol, and record that merge as a "
                   "numbered rule.", "003"),
        tie_rule=Quote("Real BPE implementations resolve ties with a fixed, deterministic rule; this worked example "
                       "breaks ties by choosing the lexicographically smaller pair", "003"),
        notes={1: _q("003", "The pair (e, r) occurs in \"newer_\" (weight 6) and \"wider_\" (weight 3), totalling 9. "
                     "The pair (r, _) occurs in the same two words, also totalling 9 — a genuine tie."),
               2: _q("003", "Meanwhile \"er_\", which crosses what a linguist would consider a word-boundary-adjacent "
                     "fragment plus the artificial \"_\" marker, does get merged early — purely because \"newer\" "
                     "and \"wider\" together push that specific pattern's count to 9."),
               4: _q("003", "lowest_ → [low, e, s, t, _] — four fragments after \"low\", not the two a linguist "
                     "would produce."),
               5: _q("003", "\"lowest\" occurs only twice in this training corpus, so the pair (e, s) inside it never "
                     "accumulates enough corpus-wide frequency to win a merge before the six-merge budget runs out"),
               6: _q("003", "\"lower\" was never in the training corpus, yet it tokenizes into two clean pieces, both "
                     "reused from words the tokenizer did see.")},
        printed={1: Printed("(('e', 'r'), 9)", ("e", "r"), 9), 2: Printed("(('er', '_'), 9)", ("er", "_"), 9),
                 3: Printed("(('l', 'o'), 7)", ("l", "o"), 7), 4: Printed("(('lo', 'w'), 7)", ("lo", "w"), 7),
                 5: Printed("(('e', 'w'), 6)", ("e", "w"), 6), 6: Printed("(('ew', 'er_'), 6)", ("ew", "er_"), 6)},
    ),
    Lesson(
        4, "BPE builds “token” and “stem”", "seed004", SAMPLES["seed004"].config, "004",
        intro=_q("004", "The corpus is seven words from the earlier lessons with made-up counts: token 6, tokens 4, "
                 "tokenize 3, tokenizer 2, stem 4, stems 3, stemming 2.",
                 "Write every word of the corpus as characters, with an end-of-word mark </w>, and count how "
                 "often each word occurs."),
        rule=Quote("Merge the most frequent pair into one new symbol everywhere, and record the merge.", "004"),
        tie_rule=Quote("best = max(pairs, key=pairs.get)          # most frequent pair (the first one wins a tie)",
                       "004"),
        notes={**{k: _q("004", "The first four merges build “token”: t + o, to + k, tok + e, toke + n, each with "
                        "count 15, because 6 + 4 + 3 + 2 = 15 words contain those letters in a row.")
                  for k in (1, 2, 3, 4)},
               **{k: _q("004", "Merges 5 to 7 build “stem” (count 4 + 3 + 2 = 9).") for k in (5, 6, 7)},
               8: _q("004", "Merge 8 is s + </w> (count 7, from tokens and stems): a plural ending becomes its own "
                     "piece."),
               9: _q("004", "“tokens” is split into token + s</w>, two pieces both learned from the corpus."),
               10: _q("004", "“stemmed” was never in the corpus, and it still tokenizes: stem + m + e + d + </w>. "
                      "Nothing is unknown, the rare part falls back to characters.",
                      "“tokenizers” becomes tokeni + z + e + r + s</w>; with ten more merges this small corpus "
                      "glues it into “tokenize” and then “tokenizer”, whole words, because no other word shares "
                      "those letters.")},
        printed={k: Printed(text, pair, count) for k, (text, pair, count) in enumerate((
            ("merge  1: t + o -> to  (count 15)", ("t", "o"), 15),
            ("merge  2: to + k -> tok  (count 15)", ("to", "k"), 15),
            ("merge  3: tok + e -> toke  (count 15)", ("tok", "e"), 15),
            ("merge  4: toke + n -> token  (count 15)", ("toke", "n"), 15),
            ("merge  5: s + t -> st  (count 9)", ("s", "t"), 9),
            ("merge  6: st + e -> ste  (count 9)", ("st", "e"), 9),
            ("merge  7: ste + m -> stem  (count 9)", ("ste", "m"), 9),
            ("merge  8: s + </w> -> s</w>  (count 7)", ("s", "</w>"), 7),
            ("merge  9: token + </w> -> token</w>  (count 6)", ("token", "</w>"), 6),
            ("merge 10: token + i -> tokeni  (count 5)", ("token", "i"), 5)), 1)},
    ),
    Lesson(
        5, "WordPiece picks by score, not by count", "seed004", TrainSpec("wordpiece", "num_merges", 5), "004",
        intro=_q("004", "WordPiece, the tokenizer of BERT, builds its vocabulary the same way but picks the pair to "
                 "merge by a score instead of a raw count. A pair is merged when the two pieces occur together "
                 "much more often than their own frequencies would suggest. Pieces inside a word carry a ## "
                 "prefix, so “stemming” starts as s ##t ##e ##m ##m ##i ##n ##g."),
        rule=Quote("The idea is to merge pieces that belong together, not just pieces that are common.", "002"),
        notes={1: _q("004", "WordPiece's first choice is ##i + ##z: only 5 occurrences, but ##z never appears without "
                     "##i before it, so its score is 0.1429."),
               5: _q("004", "BPE's first choice is t + ##o, the most frequent pair (15 times), but its score is only "
                     "0.0667 because t and ##o are each common on their own.")},
        printed={1: Printed("best WordPiece pair: ('##i', '##z') count 5 score 0.1429", ("##i", "##z"), 5, 0.1429),
                 5: Printed("most frequent pair: ('t', '##o') count 15 score 0.0667", ("t", "##o"), 15, 0.0667)},
    ),
    Lesson(
        # one EM iteration per round (n_sub_iterations=1) so each round is two steps, EM then pruning;
        # vocabulary 12 leaves two pruning rounds on this tiny corpus (12 is 3 reserved pieces,
        # the 8 characters and one more piece)
        6, "Unigram: pruning the hug corpus", "seed002",
        TrainSpec("unigram", "vocab_size", 12, {"n_sub_iterations": 1}), "002",
        intro=_q("002", "Unigram (Kudo, 2018) works the other way round. It starts from a large list of candidate "
                 "pieces, every character plus the corpus’s most frequent substrings, gives each a probability, "
                 "and removes the pieces that help least until the target size is left."),
        rule=Quote("Training repeats one loop until V pieces are left: fit the piece probabilities to the corpus, "
                   "then drop the pieces the corpus misses least.", "002"),
        em_note=_q("002", "One word can be split many ways, and each piece has a probability.",
                   "Score a split by multiplying its piece probabilities, then keep the best split."),
        numbers_note="The numbers come from this training (no lesson text prints a Unigram run).",
    ),
)


def lesson_by_number(number: int | None) -> Lesson | None:
    """The lesson a course page calls "lesson `number`" (1-based), or None."""
    if number is None or not 1 <= number <= len(LESSONS):
        return None
    return LESSONS[number - 1]


def lesson_for(sample: str | None, spec: TrainSpec) -> Lesson | None:
    """The lesson whose corpus and settings these are (a share link or reload of a lesson)."""
    return next((le for le in LESSONS if le.sample == sample and le.spec == spec), None)


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
            parts.append(f"{word} ×{counts[word]}" + (f" (twice in the word, so {n} × {counts[word]})" if n > 1 else ""))
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
    return StepText(heading, tuple(facts), (lesson.rule,) if e.kind == "prune" else (lesson.em_note or (lesson.rule,)))


def explain(lesson: Lesson, recording: Any, step: int) -> StepText:
    """What the lesson card says at `step` of a finished recording of `lesson`'s settings.

    Every number comes from the recording (its MergeStep events and starting alphabet);
    the words each count comes from are re-derived by replaying the recorded merges.
    """
    if lesson.spec.is_unigram:
        return explain_unigram(lesson, recording, step)
    steps = recording.steps
    wordpiece = lesson.spec.preset == "wordpiece"
    counts = lesson.words()
    if step <= 0:
        start = words_at(lesson, [])
        spelled = "; ".join(f"{w} ×{n}: {' '.join(start[w])}" for w, n in counts.items())
        facts = [f"The corpus: {plural(len(counts), 'word')} with their counts, each split into its starting "
                 f"symbols: {spelled}.",
                 f"The vocabulary starts with {plural(recording.alphabet.vocab_size, 'entry', 'entries')}. "
                 f"The lesson makes {plural(len(steps), 'merge')}: press Next to see the first."]
        return StepText("Step 0: the starting vocabulary", tuple(facts), lesson.intro)
    e = steps[step - 1]
    merges_before = [tuple(s.pair) for s in steps[: step - 1]]
    before = words_at(lesson, merges_before)
    after = words_at(lesson, merges_before + [tuple(e.pair)])
    pair = tuple(e.pair)
    where = _times(counts, before, pair)
    heading = f"Merge {step}: {label(pair)} → {e.new_token}"
    facts = []
    if wordpiece:
        a, b = e.part_counts
        facts.append(f"{label(pair)} has the highest score: {e.count} / ({a} × {b}) = {_number(e.score)}. "
                     f"The pair occurs {plural(e.count, 'time')} ({', '.join(where)}); {pair[0]} occurs "
                     f"{plural(a, 'time')} in all and {pair[1]} {plural(b, 'time')}.")
        frequent = max(e.candidates, key=lambda c: c[1])
        if tuple(frequent[0]) != pair and frequent[1] > e.count:
            facts.append(f"The most frequent pair, {label(frequent[0])} ({plural(frequent[1], 'time')}), scores "
                         f"only {_number(frequent[2])}: by count alone BPE would have merged it.")
    else:
        runner = next((c for c in e.candidates if c[1] < e.count), None)
        facts.append(f"{label(pair)} is the most frequent adjacent pair: {plural(e.count, 'time')} "
                     f"({', '.join(where)})."
                     + (f" The next best count is {runner[1]} ({label(runner[0])})." if runner else ""))
    tied, maybe_more = _ties(lesson, e)
    if len(tied) > 1:
        what = f"{e.count}" if not wordpiece else f"a score of {_number(e.score)}"
        facts.append(f"{'At least ' if maybe_more else ''}{len(tied)} pairs tie at {what}: "
                     f"{', '.join(label(p) for p in tied)}. The tie-break rule: "
                     f"{TIE_RULES.get(lesson.tie_break, TIE_RULES['first'])}, so {label(pair)} is merged.")
    changed = [f"{w} → {' '.join(after[w])}" for w in counts if after[w] != before[w]]
    facts.append(f"Now: {'; '.join(changed)}. The vocabulary has {plural(e.vocab_size, 'entry', 'entries')}.")
    quotes = tuple(lesson.notes.get(step, ()))
    if len(tied) > 1 and lesson.tie_rule is not None:
        quotes += (lesson.tie_rule,)
    if not quotes:
        quotes = (lesson.rule,)
    return StepText(heading, tuple(facts), quotes, lesson.printed.get(step))
