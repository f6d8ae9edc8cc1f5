"""Embed mode: the page's query parameters, and the ``<iframe>`` snippet a course author pastes.

``index.html?embed=1`` shows one panel without the page's chrome (header, footer, panel
tabs), sized for an iframe. The rest of the query picks the experiment, for hand-written
embeds; a share fragment (``#v1.…``) can carry a whole experiment instead and then wins:

    ?embed=1&panel=train&preset=bpe&sample=seed_000&merges=10&step=3
    ?embed=1&panel=inspect&preset=wordpiece&sample=udhr_eng&vocab=800&text=Everyone%20has
    ?embed=1#v1.eNo…    (what "Copy embed snippet" writes: the exact current experiment)

The same parameters work without ``embed=1`` too: the full page then opens that experiment.

Parameters (all optional but ``embed``): ``panel`` (corpus, train, inspect, compare),
``preset`` (any of ``subwordlab.OPTIONS``), ``sample`` (a bundled sample's id), ``vocab``
(vocabulary size) or ``merges`` (number of merges), ``step`` (the training step shown),
``text`` (the inspector's text; on Compare, the compared text), ``lesson`` (a guided lesson
by its number in the picker, 1-based: ``?lesson=3&step=4`` opens lesson 3 at its step 4; the
lesson sets the sample and the algorithm, lessons.py), ``cards`` (a comma list of the panel's
cards to show, the rest hidden: see ``CARDS``), ``lock`` (``1``: the settings are read-only;
the learner can still play, step and type a text), ``tokenizer`` (a well-known tokenizer's key,
e.g. ``cl100k_base``: Inspect and Compare use it, fetched with the page's shipped file), ``exercise`` (an
exercise's id, e.g. ``bpe_get_stats``: the Train tab's exercise card opens it with its starter code,
which runs only when the learner presses Run; exercises.py), ``api`` (the embedding page's origin: the
embed then posts events to it and takes its commands, host_api.py). Unknown parameters are ignored (pages add
their own); a known one with a bad value is reported with its name.

Auto-height: in embed mode the page posts ``{type: "subwordlab:height", height: <px>}`` to
its parent whenever its content height changes (``HEIGHT_MESSAGE``); the snippet's few lines
of script (``LISTENER_JS``) set the iframe's height from it, for messages of that iframe only.

>>> p = parse_query("?embed=1&panel=train&preset=bpe&sample=seed_000&merges=10&step=3")
>>> (p.embed, p.panel, p.preset, p.sample, p.num_merges, p.step)
(True, 'train', 'bpe', 'seed_000', 10, 3)
>>> parse_query("?embed=1&panel=train&cards=player,candidates&lock=1").cards
('player', 'candidates')
>>> snippet("https://example.org/lab/index.html?embed=1&panel=train", title="BPE, step by step")[:61]
'<iframe src="https://example.org/lab/index.html?embed=1&amp;p'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

EMBED_PANELS = ("corpus", "train", "inspect", "compare")
DEFAULT_PANEL = "train"  # what an embed without panel= shows (app.START_PANEL)
# the cards of each panel that ``cards=`` can pick, in page order; index.html marks each
# with data-card="NAME" inside its panel's section (a unit test checks both agree)
CARDS: dict[str, tuple[str, ...]] = {
    "corpus": ("text", "glance"),
    "train": ("lesson", "form", "player", "candidates", "rules", "segmentation", "merges", "vocab", "curve", "exercise"),
    "inspect": ("tokens", "pipeline", "decode", "nbest"),
    "compare": ("setup", "columns", "stats", "parity", "curve"),
}
CARD_TITLES = {  # what the Share panel's checkboxes say
    "text": "Corpus text", "glance": "At a glance", "lesson": "Guided lesson", "form": "Algorithm form", "player": "Player",
    "candidates": "Candidates chart", "rules": "Where rules part ways", "segmentation": "Frequent words, split", "merges": "Merges table",
    "vocab": "Vocabulary", "curve": "Curve", "tokens": "Tokens", "pipeline": "Pipeline",
    "decode": "Decode ids", "nbest": "Best segmentations", "setup": "Setup", "columns": "Side by side",
    "stats": "Statistics", "parity": "Tokens per language", "exercise": "Exercises in Python",
}
HEIGHT_MESSAGE = "subwordlab:height"  # the type of the message that carries the page's height
MAX_QUERY_CHARS = 4096
MAX_TEXT_CHARS = 2000
DEFAULT_WIDTH = "100%"
DEFAULT_HEIGHT = 640
_SAMPLE = re.compile(r"[A-Za-z0-9_.\-]{1,64}")
_LESSON_FILE = re.compile(r"(?!//)(?!.*\.\./)[A-Za-z0-9_.~/\-]{1,200}\.(?:lesson|txt)")  # a relative path on this site
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")


_ORIGIN = re.compile(r"https?://[a-z0-9.\-]+(?::[0-9]{1,5})?")


def read_origin(value: str) -> str | None:
    """``api=``'s value as an origin (lower-cased), or None if it is not one.

    >>> read_origin("https://Course.Example.org"), read_origin("https://x.org/path"), read_origin("*")
    ('https://course.example.org', None, None)
    """
    value = value.strip().lower()
    return value if _ORIGIN.fullmatch(value) else None


class EmbedParamError(ValueError):
    """A query parameter has a value the page cannot use; the message names it."""


@dataclass(frozen=True)
class EmbedParams:
    """What the query asks for. ``problems``: one message per parameter that was ignored."""

    embed: bool = False
    panel: str | None = None
    preset: str | None = None
    sample: str | None = None
    vocab_size: int | None = None
    num_merges: int | None = None
    step: int | None = None
    text: str | None = None
    lesson: int | None = None
    lesson_file: str | None = None  # ?lesson=lessons/07-hf-course-bpe.lesson: a lesson file on this site
    cards: tuple[str, ...] | None = None  # None: every card of the panel
    lock: bool = False
    api: str | None = None  # the embedding page's origin: events and commands (host_api.py)
    tokenizer: str | None = None  # a well-known tokenizer's key: Inspect and Compare use it (well_known.py)
    exercise: str | None = None  # an exercise's id: its starter code in the box, never run (exercises.py)
    problems: tuple[str, ...] = field(default=())

    @property
    def picks_experiment(self) -> bool:
        """Does the query choose a corpus or an algorithm (not just a panel)?"""
        return any(v is not None for v in (self.preset, self.sample, self.vocab_size, self.num_merges, self.step,
                                            self.lesson, self.lesson_file, self.tokenizer))


def _int(name: str, value: str, lo: int, hi: int) -> int:
    """Example: _int('vocab', '10000000000', 1, 1_000_000) raises 'the parameter vocab=10000000000
    must be between 1 and 1,000,000' (a number out of range is told its range)."""
    if not re.fullmatch(r"\d+", value):
        raise EmbedParamError(f"the parameter {name}={value[:20]!r} must be a whole number from {lo:,} to {hi:,}")
    # subtle: compare the digits before converting: Python refuses to convert very long numbers
    n = int(value) if len(value.lstrip("0")) <= len(str(hi)) else hi + 1
    if not lo <= n <= hi:
        raise EmbedParamError(f"the parameter {name}={value[:20]} must be between {lo:,} and {hi:,}")
    return n


def _flag(name: str, value: str, problems: list[str], meaning: str) -> bool:
    """A yes/no parameter: 1/true/yes/on or 0/false/no/off (or blank: no); any other value is
    named in ``problems`` with what it was taken as (``meaning``), and reads as no.

    Example: _flag('lock', '2', problems, 'the settings were not locked') -> False, and problems
    gets "the parameter lock='2' must be 1 or 0; the settings were not locked"."""
    if value.lower() in _TRUE:
        return True
    if value.lower() not in _FALSE:
        problems.append(f"the parameter {name}={value[:20]!r} must be 1 or 0; {meaning}")
    return False


def query_pairs(query: str) -> list[tuple[str, str]]:
    """The ``(name, value)`` pairs of a URL's query (without its "?"), blank values kept."""
    if not query:
        return []
    # subtle: urllib.parse is imported where it is used, here and in this module's other URL
    # functions (lesson_view.py's too): it imports ipaddress, ~60 ms of the
    # page's start in Pyodide, for addresses the first screen seldom has
    from urllib.parse import parse_qsl

    return parse_qsl(query, keep_blank_values=True)


def parse_query(query: str, presets: tuple[str, ...] | None = None, lessons: int | None = None) -> EmbedParams:
    """The embed parameters of ``location.search`` (with or without the leading ``?``).
    ``lessons``: how many guided lessons there are (lessons.LESSON_FILES by default).

    Never raises: a bad value is dropped and explained in ``problems`` (the page shows them),
    so a typo in a course page still shows a working playground.
    """
    if presets is None:
        import subwordlab

        presets = tuple(subwordlab.OPTIONS)
    if lessons is None:
        from .lessons import LESSON_FILES

        lessons = len(LESSON_FILES)
    query = (query or "")[1:] if (query or "").startswith("?") else (query or "")
    if len(query) > MAX_QUERY_CHARS:
        return EmbedParams(problems=(f"the page address's query is {len(query):,} characters long; "
                                     f"at most {MAX_QUERY_CHARS:,} are read, so it was ignored",))
    values: dict = {}
    problems: list[str] = []
    for name, value in query_pairs(query):
        try:
            if name == "embed":
                values["embed"] = value.lower() not in _FALSE  # (embed=2 still embeds, named below)
                if values["embed"] and value.lower() not in _TRUE:
                    problems.append(f"the parameter embed={value[:20]!r} must be 1 or 0; read as 1")
            elif name == "panel":
                if value not in EMBED_PANELS:
                    raise EmbedParamError(f"the parameter panel={value[:20]!r} must be one of {', '.join(EMBED_PANELS)}")
                values["panel"] = value
            elif name == "preset":
                if value not in presets:
                    raise EmbedParamError(f"the parameter preset={value[:30]!r} must be one of {', '.join(presets)}")
                values["preset"] = value
            elif name == "sample":
                if not _SAMPLE.fullmatch(value):
                    raise EmbedParamError(f"the parameter sample={value[:30]!r} is not a sample name")
                values["sample"] = value
            elif name == "vocab":
                values["vocab_size"] = _int(name, value, 1, 1_000_000)
            elif name == "merges":
                values["num_merges"] = _int(name, value, 0, 1_000_000)
            elif name == "step":
                values["step"] = _int(name, value, 0, 10_000_000)
            elif name == "text":
                values["text"] = value[:MAX_TEXT_CHARS]
            elif name == "lesson":
                if _LESSON_FILE.fullmatch(value) and not value.isdigit():
                    values["lesson_file"] = value
                elif value.strip().lstrip("+-").isdigit() or not re.search(r"[./:]", value):
                    values["lesson"] = _int(name, value, 1, lessons)
                else:
                    raise EmbedParamError(f"the parameter lesson={value[:60]!r} must be a lesson number (1 to {lessons}) "
                                          "or a lesson file on this site, e.g. lesson=lessons/07-hf-course-bpe.lesson; "
                                          "files on other sites are not opened")
            elif name == "cards":
                values["cards"] = value  # checked below, against the panel's cards
            elif name == "lock":
                values["lock"] = _flag("lock", value, problems, "the settings were not locked")
            elif name == "tokenizer":
                from .well_known import WELL_KNOWN_BY_KEY

                shipped = [k for k, v in WELL_KNOWN_BY_KEY.items() if v.shipped]  # (the page can fetch these)
                if value not in shipped:
                    raise EmbedParamError(f"the parameter tokenizer={value[:30]!r} must be one of "
                                          f"{', '.join(shipped)}; the trained tokenizer is used")
                values["tokenizer"] = value
            elif name == "exercise":
                from .exercises import EXERCISE_IDS

                if value not in EXERCISE_IDS:
                    raise EmbedParamError(f"the parameter exercise={value[:30]!r} must be one of {', '.join(EXERCISE_IDS)}")
                values["exercise"] = value
            elif name == "api":
                values["api"] = read_origin(value)
                if values["api"] is None:
                    raise EmbedParamError(f"the parameter api={value[:40]!r} must be the embedding page's origin, e.g. "
                                          "api=https://course.example.org; events and commands are off")
        except EmbedParamError as exc:
            problems.append(str(exc))
    if "cards" in values:
        try:
            values["cards"] = parse_cards(values["cards"], values.get("panel") or DEFAULT_PANEL)
        except EmbedParamError as exc:
            problems.append(str(exc))
            del values["cards"]
    if "vocab_size" in values and "num_merges" in values:
        problems.append("give vocab= or merges=, not both; merges= was ignored")
        del values["num_merges"]
    if "lesson" in values or "lesson_file" in values:  # the lesson sets the corpus and the algorithm
        for key, name in (("sample", "sample"), ("preset", "preset"), ("vocab_size", "vocab"), ("num_merges", "merges"),
                          ("tokenizer", "tokenizer")):
            if values.pop(key, None) is not None:
                problems.append(f"lesson= sets the corpus and the algorithm; {name}= was ignored")
    return EmbedParams(**values, problems=tuple(problems))


def parse_cards(value: str, panel: str) -> tuple[str, ...]:
    """The cards a ``cards=`` value names, in its order, each once.

    Example: parse_cards("player, candidates", "train") -> ("player", "candidates");
    parse_cards("chart", "train") raises 'the parameter cards= names "chart", which the
    train panel does not have; its cards are form, player, …'.
    """
    names = [n.strip().lower() for n in value.split(",") if n.strip()]
    known = CARDS.get(panel, ())
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        what = f"names {', '.join(repr(n[:20]) for n in unknown[:3])}, which the {panel} panel does not have" \
            if unknown else "names no card"
        raise EmbedParamError(f"the parameter cards= {what}; its cards are {', '.join(known)} "
                              "(every card is shown)")
    return tuple(dict.fromkeys(names))


def embed_url(page_url: str, *, panel: str | None = None, fragment: str | None = None,
              cards: tuple[str, ...] | None = None, lock: bool = False) -> str:
    """The address an iframe loads: the page with ``embed=1`` (and ``panel``, ``cards``,
    ``lock``) in its query.

    Example: embed_url("https://x.org/lab/index.html#v1.abc", panel="train", fragment="v1.eNo")
    -> "https://x.org/lab/index.html?embed=1&panel=train#v1.eNo"
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit  # (query_pairs says why here)

    ours = ("embed", "panel", "cards", "lock")
    parts = urlsplit(page_url)
    params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in ours]
    params = ([("embed", "1")] + ([("panel", panel)] if panel else []) + ([("cards", ",".join(cards))] if cards else [])
              + ([("lock", "1")] if lock else []) + params)
    frag = parts.fragment if fragment is None else fragment
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(params, safe=","), frag))


def full_page_url(page_url: str) -> str:
    """The same experiment outside embed mode (for the embed's "Open the full playground"):
    every card, nothing locked.

    Example: full_page_url("https://x.org/lab/?embed=1&panel=train&sample=seed000&lock=1#v1.abc")
    -> "https://x.org/lab/?panel=train&sample=seed000#v1.abc"
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit  # (query_pairs says why here)

    parts = urlsplit(page_url)
    params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in ("embed", "cards", "lock")]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(params), parts.fragment))


# The host page's side of auto-height, pasted right after its <iframe>: it takes the height
# only from messages that this iframe's own page sent (its window, its origin) and sets it.
LISTENER_JS = """<script>
/* Subword Lab auto-height: the iframe just above posts its content height; fit it. */
(function (frame) {
  var origin = new URL(frame.src, location.href).origin;
  window.addEventListener("message", function (e) {
    var d = e.data;
    if (e.source !== frame.contentWindow || e.origin !== origin) return;
    if (!d || d.type !== "%s" || !(d.height > 0)) return;
    // the posted height is the inside; a border-box iframe also needs its borders
    var edge = getComputedStyle(frame).boxSizing === "border-box" ? frame.offsetHeight - frame.clientHeight : 0;
    frame.style.height = Math.ceil(d.height) + edge + "px";
  });
})(document.currentScript.previousElementSibling);
</script>""" % HEIGHT_MESSAGE


def snippet(src: str, *, title: str = "Subword Lab", width: str | int = DEFAULT_WIDTH,
            height: int = DEFAULT_HEIGHT, auto_height: bool = False) -> str:
    """The ``<iframe>`` HTML for a course page (as text; the page shows it, never renders it).

    Attribute values are HTML-escaped, so any URL or title is safe to paste. `auto_height`:
    add the script that fits the iframe to its content (``LISTENER_JS``); ``height`` is then
    the height until the playground has started.
    """
    attrs = [
        ("src", src),
        ("title", title),
        ("width", str(width)),
        ("height", str(int(height))),
        ("style", "border: 1px solid #d9dee7; border-radius: 10px; max-width: 100%;"),
        ("loading", "lazy"),
    ]
    import html  # here, not at the top: its entity table is a noticeable part of the page's start

    inner = " ".join(f'{name}="{html.escape(value, quote=True)}"' for name, value in attrs)
    frame = f"<iframe {inner}></iframe>"
    return f"{frame}\n{LISTENER_JS}" if auto_height else frame


def lesson_ref(state: Any) -> int | str | None:
    """What ``?lesson=`` says for the lesson followed: a bundled lesson's number, or the
    site address a loaded lesson came from; None with no lesson, or one from a file or a
    link (a share link then carries the lesson file itself, share.py)."""
    if state.lesson is not None:
        return int(state.lesson)
    loaded = getattr(state, "loaded_lesson", None)
    origin = getattr(loaded, "origin", "")
    if loaded is None or not origin or origin.startswith("file:") or origin == "link":
        return None
    return str(origin)


LESSON_KEYS = ("lesson", "step", "sample", "preset", "vocab", "merges")  # what a lesson's address replaces


def lesson_address(page_url: str, lesson: int | str | None, step: int | None = None) -> str:
    """The page's address for a guided lesson at a step (no fragment: the query is the
    experiment; a lesson replaces any sample=/preset=/vocab=/merges=), or with
    ``lesson=None`` the address with the lesson and its step removed.
    Other parameters (``embed``, ``panel``, a course page's own) stay.

    Example: lesson_address("https://x.org/lab/?embed=1&lesson=2&step=1#v1.abc", 3, 4)
    -> "https://x.org/lab/?embed=1&lesson=3&step=4"
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit  # (query_pairs says why here)

    parts = urlsplit(page_url)
    drop = LESSON_KEYS if lesson is not None else ("lesson", "step")
    params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in drop]
    if lesson is not None:
        params += [("lesson", str(lesson))] + ([("step", str(step))] if step is not None else [])
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(params, safe="/"),
                       "" if lesson is not None else parts.fragment))
