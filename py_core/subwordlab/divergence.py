"""Where two training runs part ways: the first step at which they decide differently, and why.

Two runs of the same corpus under different rules (``rules='textbook'`` against ``'hf'`` or
``'sentencepiece'``, or two ``tie_break`` settings) agree for a while and then choose
differently. ``first_divergence`` finds that step from the two recordings alone (their
events), never by retraining, and says why in words and numbers:

- a **tie**: both pairs occur equally often and each rule breaks the tie its own way
  ("`tokenizers` takes the pair with the smaller ids");
- **other counts**: the runs count the pairs differently (a sentence per line, HF's count
  of a merged pair never taken back), so the winner of one is not the winner of the other;
- **another measure**: WordPiece's score against a count;
- for Unigram, the first EM or pruning round whose vocabulary differs.

>>> from subwordlab.recording import Recording
>>> words = {"ab": 2, "ba": 2, "b": 1}
>>> first = Recording(words, "bpe", num_merges=2, end_of_word="").run()
>>> lex_max = Recording(words, "bpe", num_merges=2, end_of_word="", tie_break="lex_max").run()
>>> d = first_divergence(first, lex_max)
>>> d.step, d.pairs
(1, (('a', 'b'), ('b', 'a')))
>>> print(d.reason)
merge 1: (a, b) and (b, a) both occur 2 times; first-seen takes (a, b), the pair met first in the corpus; lex_max takes (b, a), the largest pair comparing its symbols as strings.
"""

from dataclasses import dataclass, field
from typing import Any

from .base.events import MergeStep

__all__ = ["Divergence", "first_divergence", "rules_name", "run_names"]


@dataclass(frozen=True)
class Divergence:
    """The first step (1-based) where two runs decide differently, and why.

    ``pairs``: (merge runs) the pair each run merged at that step; ``reason``: one
    sentence, words and numbers; ``notes``: what else differs between the runs though it
    does not decide the step (their alphabets, their ids)."""

    step: int
    reason: str
    pairs: tuple[Any, Any] | None = None
    notes: tuple[str, ...] = field(default=())


def rules_name(spec: dict | None) -> str:
    """A rule set's short name, as a learner reads it.

    >>> rules_name({"rules": "hf"}), rules_name({"tie_break": "lex_min"}), rules_name({})
    ('tokenizers', 'lex_min', 'first-seen')
    """
    spec = spec or {}
    rules = spec.get("rules", "textbook")
    if rules == "hf":
        return "tokenizers"
    if rules == "sentencepiece":
        return "spm_train"
    if "unigram" in str(spec.get("preset")):  # (Unigram has no ties to break: its rule set is the textbook's)
        return "the textbook"
    if spec.get("scoring", "likelihood") == "likelihood" and spec.get("preset") == "wordpiece":
        return "the WordPiece score"
    return {"first": "first-seen"}.get(spec.get("tie_break", "first"), spec.get("tie_break", "first"))


# how each rule set breaks a tie between equally frequent pairs, after "takes (x, y), "
_TIE_RULE = {
    "tokenizers": "the pair with the smaller ids",
    "spm_train": "the shorter piece, then the smaller string",
    "first-seen": "the pair met first in the corpus",
    "lex_min": "the smallest pair comparing its symbols as strings",
    "lex_max": "the largest pair comparing its symbols as strings",
    "the WordPiece score": "the pair with the higher score",
}

# what makes a rule set count pairs its own way (said when two runs count a pair differently)
_COUNTING = {
    "tokenizers": "tokenizers never takes back the count of a pair it merged",
    "spm_train": "spm_train reads a sentence per line (each line starts with its own ▁) and never "
                 "merges into an invalid piece",
}


def _shown(symbol: str) -> str:
    """A symbol as text a reader can see: control characters escaped (a line feed is \\n)."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in symbol)


def _pair(p: Any) -> str:
    return "(" + ", ".join(_shown(s) for s in p) + ")"


def run_names(spec_a: dict | None, spec_b: dict | None) -> tuple[str, str]:
    """Names for two runs: their rule sets, or else the first option they set differently.

    >>> run_names({"rules": "hf"}, {}), run_names({"max_piece_length": 8}, {"max_piece_length": 16})
    (('tokenizers', 'first-seen'), ('max_piece_length=8', 'max_piece_length=16'))
    """
    name_a, name_b = rules_name(spec_a), rules_name(spec_b)
    if name_a != name_b:
        return name_a, name_b
    spec_a, spec_b = spec_a or {}, spec_b or {}
    for key in sorted(set(spec_a) | set(spec_b)):
        if spec_a.get(key) != spec_b.get(key):
            return f"{key}={spec_a.get(key)}", f"{key}={spec_b.get(key)}"
    return "the first run", "the second run"


def _count_of(step: MergeStep, pair: Any) -> int | None:
    """The count a merge step reports for ``pair`` among its candidates (None: not listed)."""
    for candidate in step.candidates:
        if tuple(candidate[0]) == tuple(pair):
            return candidate[1]
    return None


def _merge_reason(k: int, a: MergeStep, b: MergeStep, name_a: str, name_b: str) -> str:
    """Why merge ``k`` differs: a tie broken two ways, other counts, or another measure."""
    pa, pb = _pair(a.pair), _pair(b.pair)
    a_of_b, b_of_a = _count_of(a, b.pair), _count_of(b, a.pair)
    # case 1: a tie, seen alike by both runs: each rule set breaks it its own way
    if a.count == b.count and a_of_b == a.count and b_of_a == b.count:
        return (f"merge {k}: {pa} and {pb} both occur {a.count:,} times; "
                f"{name_a} takes {pa}, {_TIE_RULE.get(name_a, 'by its rule')}; "
                f"{name_b} takes {pb}, {_TIE_RULE.get(name_b, 'by its rule')}.")
    # case 2: one run chooses by score (WordPiece's likelihood), the other by count
    if a.score is not None or b.score is not None:
        scored, counted = (a, b) if a.score is not None else (b, a)
        n_scored, n_counted = (name_a, name_b) if scored is a else (name_b, name_a)
        return (f"merge {k}: {n_scored} takes {_pair(scored.pair)} for its score {scored.score:.4g} "
                f"(count {scored.count:,}); {n_counted} takes {_pair(counted.pair)}, the most frequent "
                f"({counted.count:,} times).")
    # case 3: the runs count the pairs differently
    def seen(count: int | None, name: str) -> str:
        return f"{count:,} times by {name}" if count is not None else f"not among {name}'s best pairs"
    why = "; ".join(_COUNTING[n] for n in dict.fromkeys((name_a, name_b)) if n in _COUNTING)
    return (f"merge {k}: the runs count differently: {pa} occurs {a.count:,} times by {name_a} and "
            f"{seen(b_of_a, name_b)}; {pb} occurs {b.count:,} times by {name_b} and {seen(a_of_b, name_a)}"
            + (f" ({why})." if why else "."))


def _alphabet_notes(a: Any, b: Any, name_a: str, name_b: str) -> tuple[str, ...]:
    """What differs in the runs' starting vocabularies: their symbols, or only their ids."""
    if a is None or b is None:
        return ()
    only_a = [s for s in a.alphabet if s not in set(b.alphabet)]
    only_b = [s for s in b.alphabet if s not in set(a.alphabet)]
    if only_a or only_b:
        def listed(name: str, symbols: list[str]) -> str:
            shown = ", ".join(_shown(s) for s in symbols[:5]) + (", …" if len(symbols) > 5 else "")
            return f"only {name} has {len(symbols):,} ({shown})"
        return ("they start from different vocabularies: "
                + "; ".join(listed(n, s) for n, s in ((name_a, only_a), (name_b, only_b)) if s),)
    if a.alphabet != b.alphabet:
        return (f"both start from the same {len(a.alphabet):,} symbols with other ids "
                f"(id 0 is {_shown(a.alphabet[0])} for {name_a}, {_shown(b.alphabet[0])} for {name_b})",)
    return ()


def _vocabulary_difference(where: str, x: Any, y: Any, name_a: str, name_b: str) -> str | None:
    """How two Unigram vocabularies (``[(piece, log_prob), ...]``) differ, or None."""
    px, py = dict(x or ()), dict(y or ())
    if px.keys() != py.keys():
        only = [(n, [p for p in mine if p not in other]) for n, mine, other in ((name_a, px, py), (name_b, py, px))]
        return f"{where}: " + "; ".join(f"only {n} has {len(ps):,} pieces (e.g. {_shown(ps[0])})" for n, ps in only if ps) + "."
    if px != py:
        piece = max(px, key=lambda p: abs(px[p] - py[p]))
        return (f"{where}: the same pieces with other scores; {_shown(piece)} differs most: "
                f"{px[piece]:.6f} by {name_a}, {py[piece]:.6f} by {name_b}.")
    return None


def _unigram_divergence(a: Any, b: Any, name_a: str, name_b: str) -> Divergence | None:
    """Unigram: the seed (step 0), then the first EM or pruning round whose vocabulary differs."""
    seed = _vocabulary_difference("step 0, the seed", getattr(a.alphabet, "pieces", None),
                                  getattr(b.alphabet, "pieces", None), name_a, name_b)
    if seed:
        return Divergence(0, seed)
    for k, (x, y) in enumerate(zip(a.steps, b.steps), 1):
        if x.kind != y.kind:
            return Divergence(k, f"step {k}: {name_a} runs {x.kind.upper()} where {name_b} runs {y.kind.upper()}.")
        what = f"step {k}, {'EM iteration' if x.kind == 'em' else 'pruning round'} {x.round}"
        found = _vocabulary_difference(what, x.pieces, y.pieces, name_a, name_b)
        if found:
            return Divergence(k, found)
    return None


def first_divergence(a: Any, b: Any) -> Divergence | None:
    """The first step where two finished recordings (``Recording``) of one preset decide
    differently, or None when one run's steps are a prefix of the other's. (Example: the
    module's docstring.)"""
    name_a, name_b = run_names(a.spec, b.spec)
    notes = _alphabet_notes(a.alphabet, b.alphabet, name_a, name_b)
    # step 1: Unigram rounds carry vocabularies, not merges
    if a.steps and not isinstance(a.steps[0], MergeStep):
        found = _unigram_divergence(a, b, name_a, name_b)
        return Divergence(found.step, found.reason, notes=notes) if found else None
    # step 2: the first merge whose pair (or resulting token) differs
    for k, (x, y) in enumerate(zip(a.steps, b.steps), 1):
        if (tuple(x.pair), x.new_token) != (tuple(y.pair), y.new_token):
            return Divergence(k, _merge_reason(k, x, y, name_a, name_b), (tuple(x.pair), tuple(y.pair)), notes)
    return None
