"""The page's state in one pure-Python object, shared by every panel.

`AppState` holds what the user has chosen and what training produced:

- `corpus`:    the `Corpus` (its text, whether that text is running text or a word-count
               list, and where it came from);
- `spec`:      the `TrainSpec` (algorithm = core preset, target size, options);
- `recording`: the `subwordlab.recording.Recording` of the last training run (or None), a
               mirror of the run the compute session makes (tasks.train);
- `player`:    the `player.Player` over that recording; `state.step` is its position;
- `training`:  a `TrainingStatus` (running? which phase? how fast? cancelled? error?).

Panels read it and subscribe to changes; they change it only through its methods, which
notify the subscribers with a topic: "corpus", "spec", "recording" (a new or discarded
run), "progress" (training moved on), "step" (the player moved), "stats" (the corpus's
statistics are ready), "inspect" (the inspector's text or settings), "tokenizer" (one was
imported or dropped), "pending" (the corpus the page waits for), "panel" (a tab was shown),
"lesson" (a guided lesson was opened or left). No DOM here: everything is testable on CPython.

>>> state = AppState()
>>> seen = []
>>> state.subscribe(seen.append)
>>> state.set_corpus(Corpus("low 5\\nlower 2", format="word_counts", name="Textbook"))
>>> seen, state.corpus.training_input()
(['corpus', 'recording'], {'low': 5, 'lower': 2})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import subwordlab
from subwordlab.options import PRESETS, Preset
from subwordlab.presets import resolve_options
from subwordlab.recording import Recording

from .failures import embed_failure
from .player import Player
from .wording import plural

FORMATS = ("text", "word_counts", "counts")
# names for people, from the core's schema (subwordlab.options.PRESETS)
PRESET_NAMES = {p.name: p.title for p in PRESETS.values()}
PRESET_HELP = {p.name: p.help for p in PRESETS.values()}


@dataclass(frozen=True)
class Corpus:
    """What training reads. `format` "text": running text; "word_counts": `word count` lines;
    "counts": a counts file of `subwordlab count` (counts_corpus.py).

    `name` says where it came from (a sample's title, file names, "Your text"); `sample`
    is the bundled sample's id, `files` the names of uploaded files, `attribution` the
    source/licence line shown with it.
    """

    text: str = ""
    format: str = "text"
    name: str = "Your text"
    sample: str | None = None
    files: tuple[str, ...] = ()
    attribution: str = ""

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"corpus format must be one of {', '.join(FORMATS)}, not {self.format!r}")

    @property
    def is_empty(self) -> bool:
        # (not `text.strip()`: that copies megabytes each time a run saves the page's address)
        return not self.text or self.text.isspace()

    def check(self) -> None:
        """What can be checked at once, on the page: raises CorpusError (a message for the
        user) for an empty corpus, or a word-count list or counts file up to
        CHECK_IN_PAGE_CHARS with a line that does not parse. A longer one is parsed where it
        is read, in the compute session (its statistics, its training), never on the page."""
        from .counts_corpus import CHECK_IN_PAGE_CHARS

        if self.is_empty or len(self.text) <= CHECK_IN_PAGE_CHARS:
            self.training_input()

    def training_input(self) -> Any:
        """The core's corpus: the text, or the parsed word counts. Raises CorpusError
        (a message for the user) when there is nothing to train on."""
        if self.is_empty:
            raise subwordlab.CorpusError(
                "the corpus is empty: pick a sample, paste some text or upload a file first")
        if self.format == "word_counts":
            return subwordlab.parse_word_counts(self.text)
        if self.format == "counts":
            from .counts_corpus import read_counts

            return read_counts(self.text)  # (a corpus.Counted: trains as `subwordlab train --counts`)
        return self.text


@dataclass(frozen=True)
class TrainSpec:
    """One training configuration: a core preset, its target (`vocab_size` or `num_merges`)
    and the options that differ from the core's defaults.

    >>> TrainSpec("bpe", "num_merges", 8, {"end_of_word": "_"}).kwargs()
    {'num_merges': 8, 'end_of_word': '_'}
    """

    preset: str = "bpe"
    target: str = "num_merges"
    size: int = 8
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise ValueError(f"unknown algorithm {self.preset!r}; choose one of {', '.join(PRESETS)}")
        if self.target not in ("vocab_size", "num_merges"):
            raise ValueError(f"the target is vocab_size or num_merges, not {self.target!r}")
        if self.target == "num_merges" and not self.schema.learns_merges:
            raise ValueError("Unigram learns no merges: give a vocabulary size")

    @property
    def schema(self) -> Preset:
        """The preset's schema: compare presets by it (``spec.schema.byte_level``), not by name."""
        return PRESETS[self.preset]

    @property
    def is_unigram(self) -> bool:
        return self.schema.is_unigram

    def kwargs(self) -> dict[str, Any]:
        return {self.target: self.size, **self.options}

    def describe(self) -> str:
        """Example: 'BPE · 8 merges' or 'Byte-level BPE · vocabulary 4,000'."""
        what = plural(self.size, "merge") if self.target == "num_merges" else f"vocabulary {self.size:,}"
        return f"{self.schema.short} · {what}"

    def with_preset(self, preset: str) -> TrainSpec:
        """The same target under another algorithm (Unigram needs a vocabulary size);
        options the new algorithm lacks are dropped."""
        new = PRESETS[preset]
        options = {k: v for k, v in self.options.items() if new.has(k)}
        target, size = self.target, self.size
        if not new.learns_merges and target == "num_merges":
            target, size = "vocab_size", max(size, 100)
        return TrainSpec(preset, target, size, options)


@dataclass
class TrainingStatus:
    """What the training task is doing. `phase`: "idle", "checking" (a custom pattern is
    tried in the compute worker (the pattern guard) first), "preparing" (counting the corpus, indexing
    pairs), "training", "done", "cancelled" or "failed"."""

    phase: str = "idle"
    done_units: int = 0  # preparing: characters or words; training: steps
    total_units: int = 0
    unit: str = ""
    steps_per_second: float = 0.0
    elapsed: float = 0.0
    message: str = ""  # cancelled / failed: what to tell the user
    # where a run's time went (tasks.train; the long-run e2e test prints them): the core's
    # work, the views' repaints, and how often the browser got the page back
    work_seconds: float = 0.0
    repaint_seconds: float = 0.0
    slices: int = 0  # batches of the compute session received

    @property
    def running(self) -> bool:
        return self.phase in ("preparing", "training")


@dataclass
class InspectSettings:
    """The inspector's text and knobs (shared so a share link can carry them)."""

    text: str = "lowest newer wider tokens"
    special_policy: str = "disallowed"  # "disallowed" | "allowed" | "plain"
    sample_alpha: float = 0.1  # BPE-dropout probability, or Unigram's alpha
    sample_seed: int = 0
    sampled: bool = False  # show a sampled segmentation instead of the best one
    nbest: int = 5


class AppState:
    """The one state object of the page (see the module docstring)."""

    def __init__(self, corpus: Corpus | None = None, spec: TrainSpec | None = None) -> None:
        self.corpus = corpus or Corpus()
        self.spec = spec or TrainSpec()
        self.recording: Recording | None = None
        self.player = Player()
        self.training = TrainingStatus()
        self.inspect = InspectSettings()
        self.corpus_stats: Any = None  # corpus_data.CorpusStats of the corpus, once computed
        self.imported: Any = None  # a tokenizer loaded on the Files tab; Inspect and Compare use it
        self.imported_name = ""
        # where it came from, so a share link or a reload can bring it back: a well-known
        # tokenizer's key (fetched again by name), or the SHA-256 of the user's file (asked for)
        self.imported_key = ""
        self.imported_sha256 = ""
        self.corpus_pending = ""  # what the page waits for instead of a corpus (a fetch, a link's file)
        self.lesson: int | None = None  # the guided lesson being followed (its 1-based number), lessons.py
        self.loaded_lesson: Any = None  # or a lesson loaded from a file, an address or a link (a lessons.Lesson)
        # in an embed (set by the Share panel): its settings come from its address, and it may
        # have no Train tab, so what the page says to do is said in the embed's terms
        self.embedded = False
        self._subscribers: list[Callable[[str], None]] = []

    # --- observers -----------------------------------------------------------------
    def subscribe(self, callback: Callable[[str], None]) -> None:
        self._subscribers.append(callback)

    def notify(self, *topics: str) -> None:
        for topic in topics:
            for callback in list(self._subscribers):
                callback(topic)

    # --- the current step ----------------------------------------------------------
    @property
    def step(self) -> int:
        return self.player.position

    @property
    def steps(self) -> list[Any]:
        return self.recording.steps if self.recording is not None else []

    def seek(self, position: int) -> None:
        if self.player.seek(position):
            self.notify("step")

    # --- changes -------------------------------------------------------------------
    def set_corpus(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.corpus_pending = ""
        self.corpus_stats = None
        self.notify("corpus")
        if not getattr(self.recording, "replayed", False):  # (a model replayed from a file needs no corpus: replay_view.py)
            self.discard_recording()

    def await_corpus(self, what: str) -> None:
        """Say what corpus the page is waiting for (e.g. "Loading “UDHR: English”…"); the
        header shows it until `set_corpus` (or `await_corpus("")`)."""
        self.corpus_pending = what
        self.notify("pending")

    def set_corpus_stats(self, stats: Any) -> None:
        self.corpus_stats = stats
        self.notify("stats")

    def set_spec(self, spec: TrainSpec) -> None:
        if spec == self.spec:
            return
        self.spec = spec
        self.notify("spec")
        self.discard_recording()

    def set_lesson(self, number: int | None, loaded: Any = None) -> None:
        """Follow bundled lesson `number` (1-based), or a `loaded` lesson (a lessons.Lesson read
        from a file, an address or a link), or none; the player's step is the lesson's step."""
        if number != self.lesson or loaded is not self.loaded_lesson:
            self.lesson, self.loaded_lesson = number, loaded
            self.notify("lesson")

    @property
    def following(self) -> bool:
        """Whether a guided lesson (bundled or loaded) is being followed."""
        return self.lesson is not None or self.loaded_lesson is not None

    def set_inspect(self, **changes: Any) -> None:
        self.inspect = replace(self.inspect, **changes)
        self.notify("inspect")

    def discard_recording(self, message: str = "") -> None:
        """Forget the run (its settings changed, or it was cancelled)."""
        self.recording = None
        self.player.reset_recording()
        self.training = TrainingStatus(phase="cancelled" if message else "idle", message=message)
        self.notify("recording")

    def start_recording(self) -> Recording:
        """A new Recording of the current corpus and spec: a mirror, which `tasks.train` feeds
        from the compute session. Raises the core's errors (CorpusError, ValueError) with
        their messages for the user, for what can be checked at once (an empty corpus, a bad
        word-count line, an option out of range)."""
        self.corpus.check()
        options = dict(self.spec.kwargs())
        resolve_options(self.spec.preset, options.pop("vocab_size", None), options.pop("num_merges", None), options)
        rec = Recording.mirror(self.spec.preset)
        self.recording = rec
        self.set_imported(None, quiet=True)  # training again makes the trained tokenizer current
        self.player.reset_recording()
        self.training = TrainingStatus(phase="preparing")
        self.notify("recording")
        return rec

    # --- what the inspector and the segmentation table encode with -------------------
    def tokenizer_at_step(self) -> tuple[Any, str]:
        """(tokenizer at the current step, "") or (None, why there is none)."""
        rec = self.recording
        if rec is None and self.training.phase == "failed":
            if self.embedded:
                return None, embed_failure(self.training.message)
            return None, f"Training failed: {self.training.message}. Change the settings on Train and run again."
        if rec is None:
            if self.embedded:
                return None, "Not trained yet: “Open the full playground” to train this tokenizer."
            return None, "Train a tokenizer first: open Train and press Step or Run to end."
        if not rec.done:
            return None, "Training is running; the tokenizer at each step is ready when it finishes."
        try:
            return rec.tokenizer_at(self.step), ""
        except TypeError as exc:
            # subtle: a Unigram run without piece snapshots cannot be rebuilt at a step
            if self.step == len(rec.steps):
                return rec.tokenizer, ""
            return None, (f"This algorithm cannot rebuild its tokenizer at step {self.step:,} ({exc}); "
                          f"move to the last step ({len(rec.steps):,}) to inspect the final tokenizer.")

    # --- what the header and the status lines say (one source for every panel) ------------
    def step_text(self) -> str:
        """Where training is, in words. Example: 'not trained', 'preparing the run…',
        'step 3 of 40 so far' (while recording), 'step 3 of 8' (a finished run)."""
        rec = self.recording
        if rec is None:
            if self.corpus_pending:
                return "not trained: waiting for the corpus"
            return "training failed" if self.training.phase == "failed" else "not trained"
        if not rec.done and rec.alphabet is None:
            return "preparing the run…"
        player = self.player
        total = f"{player.recorded:,}" + ("" if rec.done else " so far")
        return f"step {player.position:,} of {total}"

    def header(self) -> tuple[str, str, str]:
        """The header's three pills: (corpus, tokenizer, step). They name an imported
        tokenizer when Inspect and Compare use one.

        >>> st = AppState(Corpus("low 5", "word_counts", "Textbook"))
        >>> st.header()
        ('Textbook', 'BPE · 8 merges', 'not trained')
        """
        corpus = self.corpus_pending or self.corpus.name
        if self.imported is not None:
            size = getattr(self.imported, "vocab_size", 0)
            return corpus, f"{self.imported_name or 'Loaded tokenizer'} · {plural(size, 'token')}", "loaded on Files: no training steps"
        return corpus, self.spec.describe(), self.step_text()

    # --- an imported tokenizer (the Files tab) -------------------------------------------
    def set_imported(self, tokenizer: Any, name: str = "", *, key: str = "", sha256: str = "",
                     quiet: bool = False) -> None:
        """Make a loaded tokenizer the current one for Inspect and Compare (None: back to
        the trained one), with where it came from: ``key``, a well-known tokenizer's, or
        ``sha256``, the user's file's. Notifies "tokenizer" and "step" (the views that
        encode redraw) unless ``quiet``.

        Example: set_imported(tok, "GPT-4 (cl100k)", key="cl100k_base"); a share link made
        now names cl100k_base, and opening it loads cl100k again."""
        loaded = tokenizer is not None
        self.imported, self.imported_name = tokenizer, (name if loaded else "")
        self.imported_key, self.imported_sha256 = (key, sha256) if loaded else ("", "")
        if not quiet:
            self.notify("tokenizer", "step")

    def current_tokenizer(self) -> tuple[Any, str]:
        """What Inspect and Compare encode with: the imported tokenizer if there is one,
        else the tokenizer at the current step (see `tokenizer_at_step`)."""
        if self.imported is not None:
            return self.imported, ""
        return self.tokenizer_at_step()
