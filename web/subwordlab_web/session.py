"""The compute session: the page's long work behind a plain-data boundary.

The page (main thread) owns the state and renders; the session does the work, in a Web
Worker with its own Pyodide (compute_worker.js), or in-process in the tests' fake port; a
tiny corpus (`in_page`: the textbook examples) is answered on the page (`answer_in_page`).
What crosses is plain data — JSON text, and the corpus as a string — never a live object:

    page                                       compute worker
    ----                                       --------------
    {"op": "train", "preset", "kwargs",  --->  ComputeSession.replies(request, corpus)
     "format"} + the corpus text                 trains (core: iter_train), and yields
                                          <---   {"alphabet"?, "steps": [...], "progress"?,
                                                  "pass", "work"}   every POST_SECONDS
                                                  (or POST_STEPS steps)
                                          <---   {"done": n, "tokenizer": our JSON, "work"}
                                                 or {"error": one message for the user}
    {"op": "exercise", "exercise", "code", --->  exercises.run: the learner's code, checked
     "format"} + the corpus text                 against the trainer (never on the page)
                                          <---   {"started": true} (the page's time limit starts)
                                          <---   {"result": {"outcome", "summary", ...}}
    {"op": "check_patterns", "normalizer", --->  pattern_guard.answer: the pipeline
     "pre_tokenizer", "text"} (no corpus)        pre-tokenizes the text (the pattern guard)
                                          <---   {"ok": true, "pieces"} or {"ok": true, "refused"}
    {"op": "corpus_stats", "format"}     --->  corpus_data.stats_reply: a long corpus's
     + the corpus text                           statistics (the page counts a short one itself)
                                          <---   {"stats": {...}, "problem": "" or why a list fails}
    {"op": "merge_counts", "names",      --->  counts_corpus.merge_replies: several long counts
     "lengths"} + the files' texts, joined       files merged (the page merges short ones itself)
                                          <---   {"counts": part} ... (the merged file, 1 M characters
                                                 a message), then {"problem": "" or why not}
    {"op": "count_tokens", "models",     --->  token_counts.count_replies: each model file read
     "lengths", "names"} + the model files'      (kept), the texts' tokens counted (Compare's premium)
     texts, then the texts, joined        <---   {"column": i, "tokens", "unknown", "errors"} a model,
                                                 then {"done": n}

The page mirrors the run in a ``subwordlab.recording.Recording.mirror`` (``apply``), so the
player, the tables and Inspect read it as they would a local run. Cancel terminates the
worker (the page starts a fresh one, warming); nothing here needs to check for it. A pattern
check is sent with a budget (``port.compute(..., budget)``): a late answer means the regex
backtracks catastrophically, and the page terminates the worker exactly as Cancel does.
A custom pattern never runs in the page's in-page path (``in_page``), checked or not.

>>> session = ComputeSession()
>>> replies = list(session.replies({"op": "train", "preset": "bpe", "kwargs": {"num_merges": 2},
...                                 "format": "word_counts"}, "low 5\\nlower 2"))
>>> [s["new_token"] for r in replies for s in r.get("steps", [])], "tokenizer" in replies[-1]
(['lo', 'low'], True)
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from subwordlab.base.event_data import from_data, to_data
from subwordlab.formats.our_json import to_json
from subwordlab.recording import Recording

from . import pattern_guard
from .corpus_data import STATS_OP, stats_reply
from .counts_corpus import MERGE_OP, merge_replies
from .failures import failure_message
from .pattern_guard import CHECK_OP
from .state import Corpus
from .token_counts import COUNT_OP, count_replies

POST_SECONDS = 0.1  # a batch of events at most this often (the page repaints at most every 0.25 s)
# ... and at most this many steps a batch: the page reads a batch in one browser task (~25 us
# a merge step in Chromium), and merges come faster and faster as a BPE run goes on (at the
# end of byte-level BPE on Shakespeare, 0.1 s was ~1,500 merges: one 55-85 ms task)
POST_STEPS = 256
# A corpus this small (the textbook examples, a typed sentence) trains on the page itself: at
# most ~40 ms of CPython even to the last possible merge, so nobody waits ~2 s for the worker
# to boot, and a page that only shows lessons never starts one (~65 MB).
IN_PAGE_CHARS = 1_000


class TaskFailed(Exception):
    """A task the session ended with an error reply: its message is for the user as it is."""


class ComputeSession:
    """Answers requests (dicts) with replies (dicts). Keeps the last corpus it was sent, so
    the page sends a big corpus once (``replies(request, None)`` reuses it)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self._corpus: str | None = None
        self._models: dict[tuple[str, str], Any] = {}  # model files read for count_tokens (token_counts.py)

    def replies(self, request: dict[str, Any], corpus: str | None = None) -> Iterator[dict[str, Any]]:
        """The replies to ``request``; the last one ends it. Every exception becomes one
        ``{"error": message}`` reply (the page shows it; the corpus and settings stay)."""
        if corpus is not None:
            self._corpus = corpus
        try:
            op = request.get("op")
            if op == "exercise":  # the learner's code, checked against the trainer (exercises.py)
                yield from self._exercise(request)
                return
            if op == CHECK_OP:  # the pattern guard: a custom regex tried on a text (pattern_guard.py)
                yield from pattern_guard.answers(request)
                return
            if op == STATS_OP:  # a long corpus's statistics (corpus_data.py)
                if self._corpus is None:
                    raise ValueError("the page sent no corpus to count: load it again")
                yield stats_reply(self._corpus, request.get("format", "text"))
                return
            if op == MERGE_OP:  # several long counts files merged into one (counts_corpus.py)
                if self._corpus is None:
                    raise ValueError("the page sent no counts files to merge: load them again")
                yield from merge_replies(request, self._corpus)
                return
            if op == COUNT_OP:  # many texts' tokens counted with several models (token_counts.py)
                if self._corpus is None:
                    raise ValueError("the page sent no texts to count: count again")
                yield from count_replies(request, self._corpus, self._models)
                return
            if op != "train":
                raise ValueError(f"the compute session has no request {op!r}")
            yield from self._train(request)
        except Exception as exc:  # noqa: BLE001 - every kind: the page must get one message
            yield {"error": failure_message(exc)}

    def _exercise(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        from . import exercises

        if self._corpus is None:
            raise ValueError("the page sent no corpus to practise on: run the exercise again")
        corpus = Corpus(self._corpus, format=request.get("format", "text")).training_input()
        yield from exercises.run(request.get("exercise"), request.get("code"), corpus)

    def _train(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        if self._corpus is None:
            raise ValueError("the page sent no corpus to train on: train again")
        # step 1: the corpus as the core reads it (running text, a word-count list, a counts file)
        corpus = Corpus(self._corpus, format=request.get("format", "text")).training_input()
        rec = Recording(corpus, request["preset"], progress=True, **request.get("kwargs", {}))
        started = last_post = self.clock()
        sent_steps, sent_alphabet = 0, False
        try:
            # step 2: run the trainer, posting what is new every POST_SECONDS or POST_STEPS
            # steps (and at once for the alphabet and the first step, which the page shows as
            # soon as they exist)
            while not rec.done:
                event = rec.next_event()
                now = self.clock()
                first = (rec.alphabet is not None and not sent_alphabet) or (event.kind != "progress" and len(rec.steps) == 1)
                if rec.done or first or now - last_post >= POST_SECONDS or len(rec.steps) - sent_steps >= POST_STEPS:
                    if not rec.done:
                        # subtle: the run's millions of objects would make each pass of the cycle
                        # collector slower and slower; they are moved out of its sight (O(1))
                        gc.freeze()
                        batch: dict[str, Any] = {"steps": [to_data(s) for s in rec.steps[sent_steps:]],
                                                 "pass": rec.progress_pass, "work": now - started}
                        if not sent_alphabet and rec.alphabet is not None:
                            batch["alphabet"], sent_alphabet = to_data(rec.alphabet), True
                        if rec.progress is not None:
                            batch["progress"] = to_data(rec.progress)
                        sent_steps, last_post = len(rec.steps), now
                        yield batch
            # step 3: the last steps, then the trained tokenizer as our JSON
            tail: dict[str, Any] = {"steps": [to_data(s) for s in rec.steps[sent_steps:]]}
            if not sent_alphabet and rec.alphabet is not None:
                tail["alphabet"] = to_data(rec.alphabet)
            tail.update({"done": len(rec.steps), "tokenizer": to_json(rec.tokenizer), "work": self.clock() - started})
            yield tail
        finally:
            gc.unfreeze()


def in_page(corpus: str, request: str | None = None) -> bool:
    """Whether a task on `corpus` is small enough to run on the page (`answer_in_page`), and
    `request` (JSON), if given, runs no pattern of the user's own: such a pattern runs only
    in the worker, even once the pattern guard has passed it (the worker can be terminated;
    the page's thread cannot).

    >>> in_page("low 5\\nlower 2"), in_page("x" * 5000)
    (True, False)
    >>> in_page("low", '{"op": "train", "preset": "byte_bpe", "kwargs": {"pattern": "(a|b)+c"}}')
    False
    """
    return len(corpus) <= IN_PAGE_CHARS and not (request is not None and _custom_pattern(json.loads(request)))


def _custom_pattern(request: dict[str, Any]) -> bool:
    """Whether a request runs a pattern that is not built in (pattern_guard.custom_patterns):
    a training's ``pattern`` option, or any check of the pattern guard."""
    if request.get("op") == CHECK_OP:
        return True
    pattern = request.get("kwargs", {}).get("pattern")
    return isinstance(pattern, str) and bool(pattern_guard.custom_patterns({"type": "ByteLevel", "pattern": pattern}))


def answer_in_page(request: str, corpus: str, on_reply: Callable[[str], None]) -> None:
    """The compute session's answer to `request` (JSON), computed here and now: each reply
    is handed to `on_reply` as JSON text, exactly as the worker posts them. For tiny corpora
    and built-in patterns only (`in_page`, which it asserts): it holds the page until it ends."""
    if not in_page(corpus, request):
        raise ValueError("answer_in_page: this task runs in the compute worker (session.in_page)")
    for reply in ComputeSession().replies(json.loads(request), corpus):
        on_reply(json.dumps(reply))


def apply(rec: Recording, reply: dict[str, Any]) -> None:
    """Mirror one reply of a training run into ``rec`` (a ``Recording.mirror``): its alphabet,
    steps and progress (the ``done`` reply's tokenizer is loaded by the caller)."""
    if "alphabet" in reply:
        rec.take(from_data(reply["alphabet"]))
    for step in reply.get("steps", ()):
        rec.take(from_data(step))
    if "progress" in reply:
        rec.progress, rec.progress_pass = from_data(reply["progress"]), reply.get("pass", 1)


# -- the worker's side (compute_worker.js calls `warm_up`, then `serve`) ----------------------

def warm_up() -> int:
    """Train two small tokenizers, so a fresh worker's first real run is not its slowest:
    WebAssembly starts in a quick baseline compile and optimizes the code that runs hot (the
    interpreter's loop, the trainers' paths); a worker that has trained once runs a run like
    the page's Shakespeare one ~1.6x faster. Returns the steps made (~0.15 s of CPython)."""
    # a corpus of made-up words (syllables picked by a fixed rule): many pairs to merge
    syllables = ["lo", "we", "st", "ne", "wer", "wi", "der", "to", "ken", "ize", "ing", "a", "th", "e", " ", " ", " "]
    picks, x = [], 1
    for _ in range(20_000):
        x = (x * 1103515245 + 12345) % 2**31  # (a linear congruential generator: the same text each time)
        picks.append(syllables[(x >> 16) % len(syllables)])
    text = "".join(picks)
    steps = len(Recording(text, "byte_bpe", progress=True, vocab_size=256 + 600).run().steps)
    return steps + len(Recording(text[:8000], "sentencepiece_unigram", progress=True, vocab_size=400).run().steps)


_session: ComputeSession | None = None


def serve(request: str, corpus: Any, post: Callable[[str], None]) -> None:
    """Answer one JSON request, posting each reply as JSON text (the worker's entry point).
    ``corpus``: None (the one sent before), a str, or its UTF-8 bytes as the page sends them
    (a JavaScript Uint8Array, or bytes)."""
    global _session
    if _session is None:
        _session = ComputeSession()
    if corpus is not None and not isinstance(corpus, str):
        data = corpus if isinstance(corpus, (bytes, bytearray)) else corpus.to_bytes()
        corpus = bytes(data).decode("utf-8", "surrogatepass")
    for reply in _session.replies(json.loads(request), corpus):
        post(json.dumps(reply))
