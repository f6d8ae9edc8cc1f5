"""The pattern guard: a user's regex is tried in the compute worker before the page runs it.

Why: training runs in the compute session's worker (session.py), but the page's other long
work — encoding the Inspect and Compare texts, loading a model file, statistics — runs on the
browser's main thread, sliced into steps of a few milliseconds (tasks.py), so it never
freezes the page — except one call that cannot be sliced: a regular expression that
backtracks catastrophically. A pre-tokenization pattern such as ``(a+)+$`` against forty
``a`` and a ``b`` tries 2**40 ways to match before it gives up; Python's ``re`` (and
``regex``) has no timeout, so the tab would freeze for good. Such a pattern reaches the page
through four doors: the Options field of Byte-level BPE (auto-training on change), Compare's
option fields, a share link (share.py) and an imported tokenizer.json whose ``Split``
pre-tokenizer or ``Replace`` normalizer carries a regex (Files; subwordlab.formats.hf_import).

What happens: before the page runs a pattern that is not a built-in one over a text (the
corpus when training, the Inspect text when encoding or importing), it asks the compute
session to run the same pipeline over the same text — one more request of the same worker,
``{"op": "check_patterns", "normalizer", "pre_tokenizer", "text"}``, answered by ``answer``
below — with a budget: ``port.compute(check.request(), None, on_reply, check.budget)``. If the
answer comes within ``budget_seconds(len(text))`` of the request reaching the worker, the page
goes ahead; if not, the port terminates the worker exactly as Cancel does (a fresh one starts
warming for the next task), the page uses nothing of the pattern, and says which pattern
backtracks on which text and what to change (``timeout_message``). Verdicts are cached per
(pipeline, text's SHA-256), so a pattern is checked once per text. Several checks at once
(``PatternGuard.verdicts``: Compare's 47 parity texts) go in one request, ``batch_request``,
answered a check at a time (``answers``), each answer within its own budget of the one before
(budgets.py); a late one is remembered as timed out and the checks after it go to the fresh
worker. A page that never meets a
custom pattern never asks; one that does boots the compute worker (if no big corpus has
already started it) and no other: the page has one worker and one Pyodide besides its own.

    page (main thread)                            compute worker (its own Pyodide)
    PatternGuard.verdict(check)
      port.compute({"op": "check_patterns",  --->  ComputeSession.replies -> answer(request)
                    ...}, None, ..., budget)        builds the pipeline, pre-tokenizes the text
      within the budget                      <---   {"ok": true, "pieces": n} / {"ok": true, "refused": why}
      late: worker.terminate(), a fresh one warms; TimeoutError -> timeout_message(check)

One worker runs one task at a time (the port's turn lock), so a check takes its turn: it waits
for the task running (a Compare column's training, say) and never runs beside it. It cannot
deadlock with a training: every door asks its verdicts before it starts the task that runs
the pattern (Train checks the corpus, then trains; Compare and share links check every text
first), and no task holds the worker while it waits for a verdict. A new pattern typed while
the old settings still train in the worker stops that run first (train_panel
``_free_worker_for``): the new settings replace it whatever the verdict, and the check would
otherwise wait for the run's end. A pattern of the user's own, checked or not, never runs in
the session's in-page path for tiny corpora (``session.in_page``): it trains in the worker.

Built-in patterns (gpt2, cl100k, o200k: subwordlab.text.patterns) skip the guard: each of
their alternatives is a sequence of character classes under one quantifier (possessive
in gpt2 and cl100k), with no quantified group inside a quantified group and no two
alternatives that can match the same text in several ways, so a failed attempt at one
position costs at most the length of the run it scanned — never an exponential number of
ways. The components the presets build themselves (Whitespace, BERT, Metaspace, Digits)
use fixed patterns of the same kind; special tokens and user-defined symbols are escaped
(``re.escape``) before they become a regex. So does a plainly linear pattern
(``plainly_linear``), read from its parse without running it.

The guard was a second worker of its own, with a second Pyodide, until the compute session
existed (issue 31): one worker now serves training, exercises and checks, so a page pays for
one boot and one runtime's memory, and a check after a training finds the worker warm.
Measured: README "The pattern guard" (tests/e2e/engines' guard journey prints its figures).

>>> check = pipeline_check(None, {"type": "ByteLevel", "pattern": "(a+)+$", "add_prefix_space": False},
...                        "aaab", "the Inspect text")
>>> check.patterns
('(a+)+$',)
>>> import json; request = json.loads(check.request()); request["op"]
'check_patterns'
>>> answer(request)["pieces"]  # what the worker posts back ("aaab" has no match of "(a+)+$")
1
>>> pipeline_check(None, {"type": "ByteLevel", "pattern": "gpt2", "add_prefix_space": False}, "x", "") is None
True
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from subwordlab.text.patterns import PATTERNS

BASE_BUDGET_SECONDS = 2.0  # what a check of a short text may take in the worker
SECONDS_PER_MILLION_CHARS = 10.0  # plus this per million characters (a linear pattern needs ~1-2 s)
BOOT_TIMEOUT_SECONDS = 120.0  # a worker that has not started by then is given up (the check is skipped)
BUSY_POLL_SECONDS = 0.05  # how often a check waits for the one running before it
TIMED_OUT = "timed out"  # the verdict kept for a check the worker did not finish in time
CHECK_OP = "check_patterns"  # the compute session's request for a check (session.py)

# patterns known not to backtrack catastrophically (see the module docstring): names and texts
BUILT_IN = frozenset(PATTERNS) | frozenset(PATTERNS.values())
# component types that run a regex of their own over the text, and which field holds it
_REGEX_COMPONENTS = {"ByteLevel", "Split", "RegexReplace"}
# what plainly_linear allows: one-character items, anchors, and at most one repeat of a
# one-character item, at the end, needing at most this many characters
_ONE_CHAR = frozenset({"LITERAL", "NOT_LITERAL", "IN", "ANY"})
_ANCHOR = frozenset({"AT"})
_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})
LINEAR_MIN_REPEAT = 64


def plainly_linear(pattern: str) -> bool:
    r"""Whether ``pattern`` cannot backtrack, read from the stdlib's parse of it (no text runs):
    a sequence of single characters or classes, and at most one repeat of a single
    character or class, at the very end, asking for at most ``LINEAR_MIN_REPEAT`` of them.
    At any position such a pattern reads the fixed part, then takes the run greedily: it
    matches, or fails having read at most ``LINEAR_MIN_REPEAT`` characters, so a text of n
    characters costs O(n x pattern). Such a pattern needs no trial in the worker: e.g.
    ``" {2,}"``, the Replace of every SentencePiece model converted to a tokenizer.json,
    which would otherwise boot a second Pyodide for the first Inspect of the model.

    >>> [plainly_linear(p) for p in (" {2,}", r"\s+", "ab", "x[0-9]+", "(a|a)+$", "a+b", "a*a*", " {100,}", "(a)+", "a*")]
    [True, True, True, True, False, False, False, False, False, False]
    """
    from subwordlab.text.regex_compat import translate

    try:
        parsed = re._parser.parse(translate(pattern))  # type: ignore[attr-defined]
    except (re.error, ValueError, RecursionError, OverflowError):
        return False  # a `regex`-only pattern: tried in the worker
    if parsed.getwidth()[0] == 0:
        return False  # matches an empty string: the worker's trial says what the core says of it
    items = list(parsed)
    for i, (op, arg) in enumerate(items):
        name = str(op)
        if name in _ONE_CHAR or name in _ANCHOR:
            continue
        if name in _REPEATS and i == len(items) - 1:
            low, _high, body = arg
            if low <= LINEAR_MIN_REPEAT and len(body) == 1 and str(body[0][0]) in _ONE_CHAR:
                continue
        return False
    return True


def budget_seconds(n_chars: int) -> float:
    """How long the worker may take to pre-tokenize a text of ``n_chars`` characters.

    >>> budget_seconds(0), budget_seconds(1_000_000)
    (2.0, 12.0)
    """
    return BASE_BUDGET_SECONDS + SECONDS_PER_MILLION_CHARS * n_chars / 1_000_000


def custom_patterns(component: Any) -> list[str]:
    """The regexes in a dumped pipeline component (a dict, possibly a Sequence of them)
    that are not built-in.

    >>> custom_patterns({"type": "Sequence", "pre_tokenizers": [
    ...     {"type": "Split", "pattern": "(a|a)+b", "regex": True, "behavior": "Isolated", "invert": False},
    ...     {"type": "ByteLevel", "pattern": "cl100k", "add_prefix_space": False}]})
    ['(a|a)+b']
    """
    found: list[str] = []
    if isinstance(component, dict):
        pattern = component.get("pattern")
        if (component.get("type") in _REGEX_COMPONENTS and isinstance(pattern, str) and pattern not in BUILT_IN
                and component.get("regex", True) and not plainly_linear(pattern)):
            found.append(pattern)
        for value in component.values():
            if isinstance(value, (dict, list)):
                found.extend(custom_patterns(value))
    elif isinstance(component, list):
        for item in component:
            found.extend(custom_patterns(item))
    return found


@dataclass(frozen=True)
class Check:
    """One question for the worker: does this pipeline pre-tokenize this text in time?
    ``where`` names the text for the user ("the corpus", "the Inspect text")."""

    normalizer: dict | None
    pre_tokenizer: dict | None
    text: str
    where: str
    patterns: tuple[str, ...]

    @cached_property
    def key(self) -> tuple[str, str]:
        """The verdict cache's key: the pipeline and the text's SHA-256."""
        pipeline = json.dumps([self.normalizer, self.pre_tokenizer], sort_keys=True)
        return pipeline, hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def budget(self) -> float:
        return budget_seconds(len(self.text))

    def fields(self) -> dict[str, Any]:
        """What the worker needs: the pipeline and the text."""
        return {"normalizer": self.normalizer, "pre_tokenizer": self.pre_tokenizer, "text": self.text}

    def request(self) -> str:
        """The compute session's request (JSON): ``{"op": "check_patterns", ...}``."""
        return json.dumps({"op": CHECK_OP, **self.fields()})


def batch_request(checks: list[Check]) -> str:
    """One request for several checks (``{"op": "check_patterns", "checks": [...]}``): the
    worker answers them in turn, a reply each (``answers``), so Compare's 47 parity texts
    cost one round trip, not 47."""
    return json.dumps({"op": CHECK_OP, "checks": [c.fields() for c in checks]})


def pipeline_check(normalizer: dict | None, pre_tokenizer: dict | None, text: str, where: str) -> Check | None:
    """The check for running these dumped components over ``text``; None if they hold no
    custom pattern (nothing to check)."""
    patterns = custom_patterns(normalizer) + custom_patterns(pre_tokenizer)
    if not patterns:
        return None
    return Check(normalizer, pre_tokenizer, text, where, tuple(dict.fromkeys(patterns)))


def spec_check(spec: Any, corpus: Any, where: str = "the corpus") -> Check | None:
    """The check before training ``spec`` (a state.TrainSpec, or (preset, options)) on
    ``corpus`` (a state.Corpus): only Byte-level BPE takes a pattern, and a word-count list
    is never cut by it.

    >>> from subwordlab_web.state import Corpus, TrainSpec
    >>> spec_check(TrainSpec("byte_bpe", "vocab_size", 300, {"pattern": r"\\w+|\\s+"}), Corpus("hi there")).where
    'the corpus'
    >>> spec_check(TrainSpec("byte_bpe", "vocab_size", 300, {"pattern": "o200k"}), Corpus("hi")) is None
    True
    """
    preset, options = (spec.preset, spec.options) if hasattr(spec, "preset") else spec
    pattern = options.get("pattern")
    if preset != "byte_bpe" or not isinstance(pattern, str) or corpus.format != "text":
        return None
    return pipeline_check(None, {"type": "ByteLevel", "pattern": pattern, "add_prefix_space": False},
                          corpus.text, where)


def tokenizer_check(tok: Any, text: str, where: str) -> Check | None:
    """The check before ``tok`` (any core Tokenizer) encodes ``text``."""
    return tokenizer_checks([(tok, text, where)])[0]


def tokenizer_checks(cuts: list[tuple[Any, str, str]]) -> list[Check | None]:
    """``tokenizer_check`` of each ``(tokenizer, text, where)`` (None for no tokenizer), each
    tokenizer's pipeline dumped and its patterns read once, not once a text (Compare's 47
    parity texts: that was most of a 200 ms task of the page)."""
    from subwordlab.base.registry import dump_component

    first: dict[int, Check | None] = {}  # a tokenizer's check of its first text (None: nothing to check)
    checks: list[Check | None] = []
    for tok, text, where in cuts:
        if tok is not None and id(tok) not in first:
            try:
                dumped = (dump_component("normalizer", getattr(tok, "normalizer", None)),
                          dump_component("pre_tokenizer", getattr(tok, "pre_tokenizer", None)))
            except TypeError:  # a component that cannot be saved has no pattern from a user either
                first[id(tok)] = None
            else:
                first[id(tok)] = pipeline_check(dumped[0], dumped[1], text, where)
            checks.append(first[id(tok)])
            continue
        found = None if tok is None else first[id(tok)]
        checks.append(None if found is None else replace(found, text=text, where=where))
    return checks


# --- in the compute worker ------------------------------------------------------------------
def answer(request: dict[str, Any]) -> dict[str, Any]:
    """The compute session's answer to a ``check_patterns`` request: build the pipeline (the
    same core classes the page uses, so the same compile-time checks run) and pre-tokenize the
    text, as the page would. ``{"ok": true, "pieces": n, "seconds": t}``; a pipeline the core
    refuses gives ``{"ok": true, "refused": message}``: the page shows the core's own message
    and changes nothing, as for a pattern that did not answer in time."""
    from subwordlab.base.registry import LoadContext

    started = time.perf_counter()
    try:
        ctx = LoadContext()
        normalizer = ctx.component("normalizer", request["normalizer"], "normalizer")
        pre = ctx.component("pre_tokenizer", request["pre_tokenizer"], "pre_tokenizer")
        text = normalizer.normalize_str(request["text"]) if normalizer is not None else request["text"]
        pieces = pre.pre_tokenize_str(text) if pre is not None else [text]
    except (ValueError, MemoryError, RecursionError, OverflowError) as exc:
        return {"ok": True, "refused": str(exc)}
    return {"ok": True, "pieces": len(pieces), "seconds": round(time.perf_counter() - started, 4)}


def answers(request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The compute session's replies to a ``check_patterns`` request: ``answer`` for one
    check; for several (``"checks"``), one reply each, in order, with its ``index`` (the page
    times each from the one before: a pattern that hangs on one text is caught on that text).

    >>> checks = [pipeline_check(None, {"type": "ByteLevel", "pattern": "(a|b)+", "add_prefix_space": False}, text, "")
    ...           for text in ("ab a", "ba")]
    >>> [(r["index"], r["pieces"]) for r in answers(json.loads(batch_request(checks)))]
    [(0, 3), (1, 1)]
    """
    if "checks" not in request:
        yield answer(request)
        return
    for k, one in enumerate(request["checks"]):
        yield {**answer(one), "index": k}


def run_request(request: str) -> str:
    """``answer`` from JSON to JSON (what the worker would post back for ``request``)."""
    return json.dumps(answer(json.loads(request)))


# --- advice -----------------------------------------------------------------------------------
# A quantified group whose body can itself repeat: (a+)+, (\w*)*, (x{2,})+ ...
_NESTED = re.compile(r"\((?:\?:)?((?:\\.|[^()\\+*])*[+*](?:\\.|[^()\\])*)\)[+*{]")
# A quantified group of alternatives: (a|a)*, (a|ab)+ ...
_ALTERNATION = re.compile(r"\((?:\?:)?((?:\\.|[^()\\])*\|(?:\\.|[^()\\])*)\)[+*{]")


def advice(pattern: str) -> str:
    """What to change in a pattern that backtracks catastrophically.

    >>> advice("(a+)+$")
    "remove the nested repetition '(a+)+' (e.g. write 'a+')"
    >>> advice("(a|a)+b")
    "make the alternatives of '(a|a)+' unable to match the same text (e.g. '(?:a)+')"
    """
    m = _NESTED.search(pattern)
    if m:
        return f"remove the nested repetition '{m.group(0)}' (e.g. write '{m.group(1)}')"
    m = _ALTERNATION.search(pattern)
    if m:
        alternatives = list(dict.fromkeys(m.group(1).split("|")))
        simpler = alternatives[0] if len(alternatives) == 1 else "|".join(alternatives)
        return (f"make the alternatives of '{m.group(0)}' unable to match the same text "
                f"(e.g. '(?:{simpler}){m.group(0)[-1]}')")
    return "remove repetitions nested inside repetitions, and alternatives that can match the same text"


def timeout_message(check: Check) -> str:
    """What the page says when the worker did not answer in time.

    >>> c = pipeline_check(None, {"type": "ByteLevel", "pattern": "(a+)+$"}, "a" * 41 + "b", "the corpus")
    >>> print(timeout_message(c))  # doctest: +NORMALIZE_WHITESPACE
    The pattern '(a+)+$' backtracks catastrophically on the corpus (42 characters): a check in a separate worker
    did not finish in 2.0 s, so the page did not run it. To fix it, remove the nested repetition '(a+)+'
    (e.g. write 'a+'), or use 'gpt2', 'cl100k' or 'o200k'. Nothing else changed: your corpus, the previous
    tokenizer and your settings are kept.
    """
    names = " and ".join(f"'{p}'" for p in check.patterns)  # as typed (repr would double backslashes)
    which = "pattern" if len(check.patterns) == 1 else "patterns"
    return (f"The {which} {names} backtracks catastrophically on {check.where} ({len(check.text):,} characters): "
            f"a check in a separate worker did not finish in {check.budget:.1f} s, so the page did not run it. "
            f"To fix it, {advice(check.patterns[0])}, or use 'gpt2', 'cl100k' or 'o200k'. "
            "Nothing else changed: your corpus, the previous tokenizer and your settings are kept.")


def unavailable_message(check: Check, why: str) -> str:
    """What the page says when the guard's worker could not run (the pattern is not run
    unchecked: it could freeze the page)."""
    return (f"The pattern {shown_pattern(check.patterns[0])} was not used: the page tries a pattern of your own in a separate "
            f"worker first, and that worker could not run ({why}). Reload the page to try again, or use 'gpt2', "
            "'cl100k' or 'o200k'. Your corpus, the previous tokenizer and your settings are kept.")


# --- on the page ------------------------------------------------------------------------------
class PatternGuard:
    """Asks the compute session (``port.compute`` with a budget) and remembers the answers.

    ``await guard.verdict(check)`` is None when the page may run the check's pattern over
    its text, else the message to show. One check runs at a time; it takes its turn in the
    compute worker like any task (after the one running, if any).
    """

    def __init__(self, port: Any) -> None:
        self.port = port
        self.cache: dict[tuple[str, str], str | None] = {}  # the verdicts, by Check.key
        self.busy = False
        self.checks = 0  # how many checks went to the worker (tests and the README's figures)

    def known(self, check: Check | None) -> bool:
        """True if nothing needs asking: no check, or its verdict is cached."""
        return check is None or check.key in self.cache

    def cached(self, check: Check | None) -> str | None:
        return None if check is None else self._said(check, self.cache.get(check.key))

    @staticmethod
    def _said(check: Check, verdict: str | None) -> str | None:
        """A verdict in words for ``check``: a timeout is said for this check's text (the same
        pattern and text may be "the Inspect text" in one place, "the Compare text" in another)."""
        return timeout_message(check) if verdict is TIMED_OUT else verdict

    async def first_refusal(self, checks: list[Check | None]) -> str | None:
        """The first message of ``checks``' verdicts, or None if every one may run."""
        found = await self.verdicts(checks, stop_at_late=True)
        return next((message for message in found if message is not None), None)

    async def verdict(self, check: Check | None) -> str | None:
        return (await self.verdicts([check]))[0]

    async def verdicts(self, checks: list[Check | None], stop_at_late: bool = False) -> list[str | None]:
        """Each check's verdict (None: it may run, else the message to show). The checks not
        known yet go to the worker in one request (``batch_request``), each answer within its
        own budget of the one before; a late one is remembered as timed out and the checks
        after it go again, to a fresh worker, unless ``stop_at_late`` (``first_refusal``: the
        late one is the answer, and a hostile link's every text would cost a boot and a budget):
        those are then not asked, and given None."""
        while self.busy:  # one request at a time (the same check asked twice runs once)
            await self.port.sleep(BUSY_POLL_SECONDS)
        todo = list({c.key: c for c in checks if c is not None and c.key not in self.cache}.values())
        unavailable: dict[tuple[str, str], str] = {}  # (not verdicts: asked again next time)
        while todo:
            self.busy = True
            replies: list[str] = []
            late = False
            try:
                self.checks += len(todo)
                # the budgets count from the moment the worker has the request (not its boot, not
                # the wait for a task before it); a late answer terminates the worker (TimeoutError)
                request = todo[0].request() if len(todo) == 1 else batch_request(todo)
                budget = todo[0].budget if len(todo) == 1 else [c.budget for c in todo]
                await self.port.compute(request, None, replies.append, budget)
            except TimeoutError:  # (before OSError: a TimeoutError is an OSError)
                late = True
            except OSError as exc:  # the worker could not start, or died: not a verdict
                unavailable.update((c.key, unavailable_message(c, str(exc) or type(exc).__name__)) for c in todo)
                todo = []
            finally:
                self.busy = False
            answered = [json.loads(r) for r in replies]
            for k, (check, reply) in enumerate(zip(todo, answered)):
                if "error" in reply:  # the session failed to check (not a verdict either): the rest too
                    why = str(reply["error"]).rstrip(".")
                    unavailable.update((c.key, unavailable_message(c, why)) for c in todo[k:])
                    todo = []
                    break
                # the core refused the pipeline (e.g. a pattern that matches only empty strings): its
                # own message, given before anything changes (the Options field keeps the model)
                self.cache[check.key] = reply.get("refused")
            if late and len(answered) < len(todo):  # the one after the last answer did not answer in time
                self.cache[todo[len(answered)].key] = TIMED_OUT
                todo = [] if stop_at_late else todo[len(answered) + 1:]
            else:  # (all answered, or the worker ended the request early: the rest unanswered)
                unavailable.update((c.key, unavailable_message(c, "it sent no answer")) for c in todo[len(answered):])
                todo = []
        return [None if c is None else self._said(c, self.cache[c.key]) if c.key in self.cache
                else unavailable.get(c.key) for c in checks]


SHOWN_PATTERN_CHARS = 40  # a status line shows at most this much of a pattern (a model's can be 600)


def shown_pattern(pattern: str) -> str:
    r"""A pattern as a status line shows it: whole if short, else its start and its length.

    >>> print(shown_pattern(r"\w+"))
    '\w+'
    >>> shown_pattern("a" * 600)
    "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…' (600 characters)"
    """
    if len(pattern) <= SHOWN_PATTERN_CHARS:
        return f"'{pattern}'"
    return f"'{pattern[:SHOWN_PATTERN_CHARS]}…' ({len(pattern):,} characters)"


def checking_text(check: Check) -> str:
    """What the page shows while the worker checks. Example: 'Checking the pattern '\\w+' on the corpus…'."""
    return (f"Checking the pattern {shown_pattern(check.patterns[0])} on {check.where} in a separate worker "
            f"(at most {check.budget:.0f} s; the first check also starts the worker)…")
