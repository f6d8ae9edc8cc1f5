"""The Share panel, opening share links, and embed mode.

- "Copy link" turns the page's state into a link (share.py: corpus, algorithm and every
  option, the step shown, the panel, the inspector's text and seeds, the Compare setup).
- Opening a page whose address has ``#v1.…`` reproduces that experiment: the corpus
  (inline, a bundled sample, or — for a big file of the user's own — a request to upload
  it, checked by SHA-256), the settings, a full training run, then the exact step. The link
  is decoded (in slices) and checked — settings, and any custom pattern tried on its texts
  in the compute worker (the pattern guard) — before anything changes: a link that fails shows one
  message (``#link-banner``) and leaves the page's corpus, settings and model as they were.
- ``?embed=1`` (embed.py) shows one panel without the page's chrome, for an iframe; the
  query can pick the sample, algorithm, size, step and text, or a ``#v1.`` fragment can
  carry a whole experiment. "Copy embed snippet" writes the ``<iframe>`` HTML (with the
  cards to show, the lock, and the auto-height script, as ticked). What an embed does with
  ``cards=``, ``lock=1``, auto-height and "Back to the author's setup": embed_view.py.

Why one module: the link, its opening and the snippet builder read and write
the same Experiment (share.py) and the same banner; the embed's own behaviour is already
apart (embed.py parses, embed_view.py shows).

The page marks its progress on ``<body>`` for tests and for timing:
``data-share="checking" | "applying" | "applied" | "waiting-file" | "error"`` (checking: the link is
decoded and its patterns tried; nothing on the page has changed yet; error: refused, nothing
changed) and, once applied,
``data-share-ms`` (milliseconds from the start of applying to the step being shown).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from subwordlab.options import PRESETS

from . import embed as embed_mod
from . import pattern_guard, share, tasks
from .languages import DEFAULT_SET
from .pattern_guard import PatternGuard
from .persist import kept_corpus, own_corpus
from .share import Config, CorpusRef, Experiment, ShareLinkError, TokenizerRef
from .state import Corpus, TrainSpec
from .well_known import WELL_KNOWN_BY_KEY
from .wording import plural

EMBED_PANELS = embed_mod.EMBED_PANELS
LINK_FRAGMENT = re.compile(r"#v\d")  # what a share link's fragment starts with (any version)
WAIT_POLL_SECONDS = 0.05
DECODE_SLICE_SECONDS = 0.012  # decoding a link: work between two hand-backs to the browser


def is_link_fragment(fragment: str) -> bool:
    """Does ``location.hash`` hold a share link (any version), perhaps percent-encoded or
    broken by white space (share.repair_fragment, on its first characters only)?
    Example: is_link_fragment("#v1.eNo") -> True; is_link_fragment("#app") -> False."""
    return bool(LINK_FRAGMENT.match("#" + share.repair_fragment(fragment[1:64]))) if fragment.startswith("#") else False


# -- state <-> experiment (pure) -------------------------------------------------------------

def config_from_spec(spec: TrainSpec) -> Config:
    """Example: TrainSpec("bpe", "num_merges", 8) -> Config("bpe", {"num_merges": 8, "vocab_size": None})"""
    other = "vocab_size" if spec.target == "num_merges" else "num_merges"
    options = {**spec.options, spec.target: spec.size}
    if spec.schema.has(other):
        options[other] = None
    return Config(spec.preset, options)


def spec_from_config(config: Config) -> TrainSpec:
    """The TrainSpec of a link's configuration: its target, and the options that differ
    from the core's defaults. Raises ShareLinkError if it names no target."""
    opts = dict(config.options)
    merges, vocab = opts.pop("num_merges", None), opts.pop("vocab_size", None)
    if merges is not None:
        target, size = "num_merges", merges
    elif vocab is not None:
        target, size = "vocab_size", vocab
    else:
        raise ShareLinkError("the link's algorithm has neither a vocabulary size nor a number of merges")
    schema = PRESETS[config.preset]
    changed = {k: v for k, v in opts.items() if schema.has(k) and v != share._plain(schema.option(k).default)}
    try:
        return TrainSpec(config.preset, target, size, changed)
    except ValueError as exc:
        raise ShareLinkError(f"the link's settings cannot be used: {exc}") from None


def hash_of_event(event: Any) -> str | None:
    """The fragment a ``hashchange`` went to (from its ``newURL``, with its ``#``), or None
    to read ``location.hash``.

    subtle: not ``location.hash`` at the time the handler runs: a write of the page's own
    experiment (persist.py, at the end of a run) can land between the user's new address and
    the event, and the link the user opened would be lost for the page's own.

    >>> hash_of_event(type("E", (), {"newURL": "http://h/index.html#v1.abc"})())
    '#v1.abc'
    """
    url = getattr(event, "newURL", None)
    if not isinstance(url, str):
        return None
    fragment = url.partition("#")[2]
    return f"#{fragment}" if fragment else ""


def corpus_title(corpus: Corpus) -> str | None:
    """The corpus's name as a link may carry it (printable, at most 200 characters)."""
    title = "".join(ch for ch in corpus.name if ch.isprintable())[:share.MAX_TITLE_CHARS]
    return title or None


def corpus_refs(corpus: Corpus, sha256: str | None = None) -> tuple[CorpusRef, CorpusRef]:
    """(inline reference, the fallback when the text is too big for a link); both carry the
    corpus's name, and an inline copy of a sample names that sample. `sha256`: the text's
    hash if already known."""
    sha = sha256 or share.sha256_text(corpus.text)
    title = corpus_title(corpus)
    inline = CorpusRef.inline(corpus.text, corpus.format, name=corpus.sample, title=title, sha256=sha)
    if corpus.sample is not None:
        return inline, CorpusRef.sample(corpus.sample, corpus.text, corpus.format, title=title, sha256=sha)
    name = ", ".join(corpus.files) if corpus.files else "pasted text"
    name = name if share._NAME.fullmatch(name) else "corpus.txt"
    return inline, CorpusRef.file(name[:200], corpus.text, corpus.format, title=title, sha256=sha)


def corpus_of(ref: CorpusRef) -> Corpus:
    """The page's Corpus for a link's inline corpus, under the name it had (a copy of a
    bundled sample is that sample again). Links without a name say where the text came from."""
    from .samples import SAMPLES

    sample = SAMPLES.get(ref.name or "")
    title = ref.title or (sample.title if sample else "Text from a shared link")
    if sample is not None and sample.format == ref.format:
        return Corpus(ref.text or "", ref.format, title, sample.id, (), sample.attribution)
    return Corpus(ref.text or "", ref.format, title)


def corpus_note(ref: CorpusRef) -> str:
    """What the link does with the corpus, in one sentence for the user."""
    if ref.kind == "inline":
        return f"The corpus ({ref.chars or 0:,} characters) travels inside the link."
    if ref.kind == "sample":
        return (f"The corpus is too big to travel inside a link, so the link names the bundled sample "
                f"“{ref.name}”; every copy of this page has it.")
    return (f"The corpus ({ref.chars or 0:,} characters) is too big to travel inside a link and is not a "
            f"bundled sample: whoever opens the link is asked to upload “{ref.name}”, checked by its "
            f"SHA-256 ({(ref.sha256 or '')[:12]}…).")


def file_request(ref: CorpusRef, own: bool = False) -> str:
    """What the page asks for when a link's corpus is not here: the user's own file after a
    reload (``own``: this tab loaded it, the browser did not keep it), or the sender's file."""
    if own:
        return (f"Your corpus “{ref.name}” ({ref.chars or 0:,} characters) was not kept by this browser across "
                f"the reload. Open the Corpus tab and upload that file again: your experiment continues as soon "
                f"as its SHA-256 matches ({ref.sha256}).")
    return (f"This link was made with a corpus of the sender's own, “{ref.name}” ({ref.chars or 0:,} characters), "
            f"too big to travel inside the link. Open the Corpus tab and upload that file: the experiment "
            f"continues as soon as its SHA-256 matches ({ref.sha256}).")


def tokenizer_ref(state: Any) -> TokenizerRef | None:
    """Where the tokenizer Inspect and Compare use came from, if it was loaded (not trained):
    a well-known one's key, or the user's file's name and SHA-256. None: the trained one (or
    a loaded one whose source is unknown)."""
    if state.imported is None:
        return None
    if state.imported_key:
        return TokenizerRef(well_known=state.imported_key)
    if state.imported_sha256:
        name = "".join(c if c.isprintable() else "?" for c in state.imported_name)[:share.MAX_TITLE_CHARS]
        return TokenizerRef(name=name or "tokenizer file", sha256=state.imported_sha256)
    return None


def tokenizer_request(ref: TokenizerRef, different: str = "") -> str:
    """What the page asks for when a link's Inspect and Compare used the sender's own
    tokenizer file (``different``: the SHA-256 of a file loaded since that is not it)."""
    told = (f"Inspect and Compare used the tokenizer file “{ref.name}”, which neither a link nor a reload can "
            f"carry. Load that file on the Files tab to see them as they were (SHA-256 {ref.sha256}); until "
            "then they use the tokenizer trained here.")
    if different:
        told += f" The file loaded now is a different one (SHA-256 {different[:12]}…)."
    return told


# -- the panel ----------------------------------------------------------------------------------

class SharePanel:
    """Copy link / copy embed snippet, and the code that opens links and embeds."""

    def __init__(self, port: Any, state: Any, app: Any = None) -> None:
        self.port, self.state, self.app = port, state, app
        q = port.query
        self.copy_button = q("#share-copy")
        self.link = q("#share-link")
        self.status = q("#share-status")
        self.corpus_line = q("#share-corpus")
        self.embed_panel = q("#share-embed-panel")
        self.embed_height = q("#share-embed-height")
        self.embed_copy = q("#share-embed-copy")
        self.embed_cards = q("#share-embed-cards")
        self.embed_lock = q("#share-embed-lock")
        self.embed_auto = q("#share-embed-auto")
        self.embed_code = q("#share-embed-code")
        self.embed_status = q("#share-embed-status")
        self.banner = q("#link-banner")
        self.banner_text = q("#link-banner-text")
        self.banner_close = q("#link-banner-close")
        self.body = q("body")
        port.on(self.copy_button, "click", lambda _e: self.copy_link())
        port.on(self.embed_copy, "click", lambda _e: self.copy_embed())
        port.on(self.banner_close, "click", lambda _e: port.set_hidden(self.banner, True))
        port.on(self.link, "focus", lambda _e: port.select(self.link))
        port.on(self.embed_code, "focus", lambda _e: port.select(self.embed_code))
        port.on(self.embed_panel, "change", lambda _e: self.render_card_choices())
        self.render_card_choices()
        self.pending: tuple[Experiment, float] | None = None  # waiting for the user's file
        self.awaited_tokenizer: TokenizerRef | None = None  # a link's tokenizer file, asked for
        self.task: Any = None
        self.embedded = False
        self.embed_view: str | None = None  # embed mode: the query's panel wins over a link's
        self.shaper: Any = None  # embed mode: the EmbedView (cards, lock, height, author's setup)
        self.default_sample: str | None = None  # what a first load shows when its link is refused
        self.guard = getattr(app, "guard", None) or PatternGuard(port)  # tries a link's custom patterns
        state.subscribe(self._on_state)

    # --- making links -------------------------------------------------------------------------
    def experiment(self, *, for_reload: bool = False, sha256: str | None = None) -> tuple[Experiment, CorpusRef]:
        """The page's experiment now, and the corpus fallback (sample or file). Its panel is
        the one worked in before Share was opened (Train at first). `for_reload`: also
        whether a run is going and the imported file's name (what a reload restores)."""
        st, app = self.state, self.app
        inline, fallback = corpus_refs(st.corpus, sha256)
        ins = st.inspect
        panel = getattr(app, "work_panel", None) or "train"
        step = st.step if st.recording is not None else None
        running = for_reload and st.training.running
        tokenizer = tokenizer_ref(st)
        imported = (st.imported_name or "loaded tokenizer") \
            if for_reload and st.imported is not None and tokenizer is None else ""
        if getattr(st.recording, "replayed", False):
            # a model replayed from its file is no run a link can repeat: a reload asks for the file again
            step, imported = None, (st.recording.source or "model file") if for_reload else ""
        cmp = getattr(app, "panels", {}).get("compare") if app is not None else None
        configs, text, reference, heldout, current, well_known, languages = cmp.setup() if cmp is not None else \
            ((), "", None, None, False, (), DEFAULT_SET)
        columns = bool(configs) or current or bool(well_known)  # (Compare has a setup worth a link)
        exercises = getattr(app, "exercises", None)
        exercise = exercises.link_ref() if exercises is not None else None
        exp = Experiment(
            corpus=inline, train=config_from_spec(st.spec), step=step,
            panel=panel if panel in share.PANELS else "train",
            inspect_text=ins.text, seed=int(ins.sample_seed), alpha=float(ins.sample_alpha),
            sampled=bool(ins.sampled), nbest=int(ins.nbest), special_policy=ins.special_policy,
            compare=tuple(configs), compare_text=text if columns else "",
            compare_reference=reference if columns else None,
            compare_heldout=heldout if columns else None, compare_languages=languages if columns else DEFAULT_SET,
            compare_current=current, compare_well_known=well_known,
            running=running, imported=imported[:share.MAX_TITLE_CHARS], tokenizer=tokenizer,
            exercise=share.ExerciseRef(*exercise) if exercise is not None else None,
            # a lesson from a file or a link travels in the link (one too big for it is left out)
            lesson=st.loaded_lesson.file_text if st.loaded_lesson is not None and embed_mod.lesson_ref(st) is None
            and len(st.loaded_lesson.file_text) <= share.MAX_LESSON_CHARS else "",
        )
        return exp, fallback

    def make_link(self) -> tuple[str, CorpusRef]:
        """The full URL of the share link and the corpus reference it carries. Raises
        ShareLinkError, saying where, for text that is not valid Unicode."""
        self.check_texts()
        exp, fallback = self.experiment()
        lesson = embed_mod.lesson_ref(self.state)
        if lesson is not None:  # a guided lesson: its address is the link (?lesson=3&step=4)
            return embed_mod.lesson_address(self.port.location_href(), lesson, exp.step), fallback
        fragment = share.encode_fragment(exp, fallback=fallback)
        ref = share.decode_fragment(fragment).corpus
        base = self.port.location_href().split("#", 1)[0]
        return f"{base}#{fragment}", ref

    async def copy_link(self) -> str | None:
        port = self.port
        try:
            url, ref = self.make_link()
        except ShareLinkError as exc:
            self._status(self.status, f"No link: {exc}.", error=True)
            return None
        port.set_value(self.link, url)
        port.set_text(self.corpus_line, corpus_note(ref))
        copied = await port.copy_text(url)
        what = f"Link copied to the clipboard ({len(url):,} characters)." if copied else \
            f"The link ({len(url):,} characters) is selected below: press Ctrl+C (⌘C) to copy it."
        if not copied:
            port.select(self.link)
        self._status(self.status, what)
        return url

    def check_texts(self) -> None:
        """Text that is not valid Unicode (a lone surrogate) can be in no link: say where."""
        st, app = self.state, self.app
        share.check_unicode("the corpus", st.corpus.text)
        share.check_unicode("the Inspect text", st.inspect.text)
        cmp = getattr(app, "panels", {}).get("compare") if app is not None else None
        if cmp is not None:
            share.check_unicode("the Compare text", cmp.setup()[1])

    def render_card_choices(self) -> None:
        """One checkbox per card of the panel chosen for the embed, all ticked."""
        panel = self.port.value(self.embed_panel) or embed_mod.DEFAULT_PANEL
        self.port.build_into(self.embed_cards, [
            ["label", {"class": "inline-check"},
             ["input", {"type": "checkbox", "value": card, "checked": "", "id": f"share-embed-card-{card}"}],
             " " + embed_mod.CARD_TITLES.get(card, card)]
            for card in embed_mod.CARDS.get(panel, ())])

    def chosen_cards(self) -> tuple[str, ...] | None:
        """The ticked cards (None when all are: the embed needs no ``cards=``). Raises
        ShareLinkError when none is ticked."""
        port = self.port
        boxes = port.query_all("input[type=checkbox]", self.embed_cards)
        ticked = tuple(port.get_attr(b, "value") or "" for b in boxes if port.checked(b))
        if not ticked:
            raise ShareLinkError("tick at least one card to show")
        return None if len(ticked) == len(boxes) else ticked

    def embed_snippet(self) -> str:
        self.check_texts()
        exp, fallback = self.experiment()
        panel = self.port.value(self.embed_panel) or "train"
        cards = self.chosen_cards()
        try:
            height = max(240, min(2000, int(self.port.value(self.embed_height) or embed_mod.DEFAULT_HEIGHT)))
        except ValueError:
            height = embed_mod.DEFAULT_HEIGHT
        fragment = share.encode_fragment(replace(exp, panel=panel), fallback=fallback)
        lock = self.port.checked(self.embed_lock)
        src = embed_mod.embed_url(self.port.location_href(), panel=panel, fragment=fragment, cards=cards, lock=lock)
        title = f"Subword Lab: {self.state.spec.describe()}"
        if embed_mod.lesson_ref(self.state) is not None:  # a guided lesson at its step, by its address
            href = embed_mod.lesson_address(self.port.location_href(), embed_mod.lesson_ref(self.state), exp.step)
            src = embed_mod.embed_url(href, panel=panel, fragment="", cards=cards, lock=lock)
            title = (f"Subword Lab: lesson {self.state.lesson}, step {exp.step}" if self.state.lesson is not None
                     else f"Subword Lab: {self.state.loaded_lesson.title}, step {exp.step}")
        return embed_mod.snippet(src, title=title, height=height, auto_height=self.port.checked(self.embed_auto))

    async def copy_embed(self) -> str | None:
        port = self.port
        try:
            code = self.embed_snippet()
        except ShareLinkError as exc:
            self._status(self.embed_status, f"No snippet: {exc}.", error=True)
            return None
        port.set_value(self.embed_code, code)
        copied = await port.copy_text(code)
        fits = (" Its script fits the iframe's height to the playground (the page posts its height; the "
                "script listens to that iframe only): keep it right after the <iframe>.") if port.checked(self.embed_auto) else ""
        self._status(self.embed_status, ("Embed snippet copied: paste it into your course page's HTML." if copied
                     else "The snippet is selected below: press Ctrl+C (⌘C) to copy it.") + fits)
        if not copied:
            port.select(self.embed_code)
        return code

    def _status(self, el: Any, text: str, error: bool = False) -> None:
        self.port.set_text(el, text)
        self.port.toggle_class(el, "error", error)

    # --- opening links and embeds ---------------------------------------------------------------
    def boot(self, default_sample: str | None = None) -> bool:
        """At start: embed mode and/or a share link from the address. True when this took
        over the first load (the caller then skips its default sample; a refused link loads
        ``default_sample`` itself)."""
        port = self.port
        self.default_sample = default_sample
        params = embed_mod.parse_query(port.location_search())
        if params.embed:
            self.enter_embed(params)
        port.on_window("hashchange", lambda event: self.open_hash(hash_of_event(event)))
        if is_link_fragment(port.location_hash()):
            return self.open_hash()
        if params.problems and not params.embed:  # (an embed said them on entering)
            self.show_banner("Some of the page's address parameters were ignored: " + "; ".join(params.problems) + ".")
        if params.picks_experiment:  # ?sample=…&preset=… (an embed's query, or a hand-made link)
            self.task = port.spawn(self.apply_query(params))
            return True
        return False

    def open_hash(self, fragment: str | None = None) -> bool:
        """Read `fragment` (by default ``location.hash``): a share link starts opening (True;
        ``open_link``), anything else is left alone (False)."""
        port = self.port
        if fragment is None:
            fragment = port.location_hash()
        if not is_link_fragment(fragment):
            return False  # an ordinary anchor (the skip link's #app), not a share link
        # a newer link supersedes whatever an older one was doing or waiting for: its run,
        # its request for a file (which must not apply the old settings later) and its banner
        self.pending = None
        if self.task is not None and not self.task.done():
            self.task.cancel()
        port.set_hidden(self.banner, True)
        port.set_attr(self.body, "data-share", "checking")
        self.task = port.spawn(self.open_link(fragment))
        return True

    async def open_link(self, fragment: str) -> bool:
        """Open a link in two phases, so that a link that fails changes nothing:

        1. check (``data-share="checking"``): decode it in slices (share.decode_fragment_steps,
           the browser handed back between pieces), read its settings, fetch a sample it
           names, and try any custom pattern on the texts it would cut (the link's corpus, its
           Inspect and Compare texts) in the compute worker (the pattern guard);
        2. only if everything passed, apply it (``data-share="applying"``): corpus, settings,
           training, step, panel.

        A refusal shows one message; the page's corpus, settings and model stay as they were
        (on a first load, the default page loads instead). True if the link was applied."""
        port = self.port
        try:
            exp = await tasks.drive(port, share.decode_fragment_steps(fragment), DECODE_SLICE_SECONDS)
            corpus = await self._link_corpus(exp)
            refusal = await self._check_link(exp, corpus)
            if refusal is not None:
                refusal = f"This link was not opened: {refusal}"
        except ShareLinkError as exc:
            refusal = f"This link could not be opened: {exc}."
        except OSError as exc:  # a bundled sample the link names could not be fetched
            refusal = f"This link could not be opened: its corpus could not be loaded ({exc}). Try again later."
        if refusal is not None:
            await self._refuse(refusal)
            return False
        port.set_attr(self.body, "data-share", "applying")
        await port.sleep(0)  # (the page shows it is applying before the work starts)
        await self.apply(exp, corpus)
        return True

    async def _link_corpus(self, exp: Experiment) -> Corpus | None:
        """The corpus a link would use, without using it yet: its inline text, the bundled
        sample it names (fetched), or the user's file if this tab kept it or has it loaded;
        None while the file must still be uploaded. Raises ShareLinkError for an unknown sample."""
        from .samples import SAMPLES

        ref, st = exp.corpus, self.state
        if ref.kind == "inline":
            return corpus_of(ref)
        if ref.kind == "sample":
            if ref.name not in SAMPLES:
                raise ShareLinkError(f"it names a bundled sample “{ref.name}” that this page does not have "
                                     "(it may come from another version of Subword Lab)")
            corpus_panel = self.app.panels.get("corpus") if self.app is not None else None
            if corpus_panel is None:
                return None
            return await corpus_panel.sample_corpus(ref.name or "")
        if ref.matches(st.corpus.text):
            return st.corpus
        kept = await kept_corpus(self.port, ref.sha256)
        if kept is not None:  # a reload: this tab kept the corpus (persist.py)
            files = (ref.name,) if ref.name and ref.name != "pasted text" else ()
            return Corpus(kept, ref.format, ref.title or ref.name or "Your text", None, files)
        return None

    async def _check_link(self, exp: Experiment, corpus: Corpus | None) -> str | None:
        """Why the link must not be applied (None: it may): its settings, then each custom
        pattern it carries tried on each text it would cut. Raises ShareLinkError for settings
        the page cannot use."""
        spec = spec_from_config(exp.train)
        checks = [pattern_guard.spec_check(spec, corpus, "the link's corpus") if corpus is not None else None,
                  pattern_guard.spec_check(spec, Corpus(exp.inspect_text), "the link's Inspect text")]
        for config in exp.compare:
            spec_from_config(config)
            if corpus is not None:
                checks.append(pattern_guard.spec_check((config.preset, config.options), corpus, "the link's corpus"))
            checks.append(pattern_guard.spec_check((config.preset, config.options), Corpus(exp.compare_text),
                                                   "the link's Compare text"))
        unknown = [c for c in checks if c is not None and not self.guard.known(c)]
        if unknown:
            self.show_banner(pattern_guard.checking_text(unknown[0]))
        refusal = await self.guard.first_refusal(checks)
        self.port.set_hidden(self.banner, True)
        return refusal

    async def _refuse(self, message: str) -> None:
        """Say why a link was not opened; change nothing the page had (a first load, with
        nothing yet, shows the default page). The address holds the page's own experiment
        again, so a reload does not meet the refused link."""
        port, st, app = self.port, self.state, self.app
        port.set_attr(self.body, "data-share", "error")
        first = st.corpus.is_empty and st.recording is None
        self.show_banner(message + (" Showing the default page instead." if first else ""), error=True)
        corpus_panel = app.panels.get("corpus") if app is not None else None
        if first and self.default_sample is not None and corpus_panel is not None:
            await corpus_panel.load_sample(self.default_sample)
        persist = getattr(app, "persist", None)
        if persist is not None:
            persist.save()

    def show_banner(self, text: str, error: bool = False) -> None:
        port = self.port
        port.set_text(self.banner_text, text)
        port.toggle_class(self.banner, "error", error)
        port.set_hidden(self.banner, False)

    def enter_embed(self, params: embed_mod.EmbedParams) -> None:
        port, app = self.port, self.app
        self.embedded = True
        self.state.embedded = True
        self.embed_view = params.panel
        port.set_attr(self.body, "data-embed", "1")
        port.set_attr(port.query("#embed-open"), "href", embed_mod.full_page_url(port.location_href()))
        if params.problems:
            self.show_banner("Some of the embed's parameters were ignored: " + "; ".join(params.problems) + ".")
        if app is not None and params.panel:
            app.show_panel(params.panel)
        from .embed_view import EmbedView

        self.shaper = EmbedView(port, self.state, app, self, params)

    async def apply_query(self, params: embed_mod.EmbedParams) -> None:
        """An embed's hand-written query: sample, algorithm, size, step, text."""
        from .samples import SAMPLES

        port, st, app = self.port, self.state, self.app
        started = port.now()
        port.set_attr(self.body, "data-share", "applying")
        lessons = getattr(app, "lessons", None)
        if (params.lesson is not None or params.lesson_file) and lessons is not None:  # ?lesson=3&step=4
            if params.lesson is not None:  # the lesson sets the rest
                await lessons.open(params.lesson, params.step)
            else:
                assert params.lesson_file is not None
                opened = await lessons.open_address(params.lesson_file, params.step)
                if not opened:  # said on the lesson card, and in the banner: the default page instead
                    self.show_banner(self.port.text(lessons.error), error=True)
                    corpus_panel = app.panels.get("corpus") if app is not None else None
                    if corpus_panel is not None and st.corpus.is_empty:
                        from .samples import DEFAULT_SAMPLE

                        await corpus_panel.load_sample(DEFAULT_SAMPLE)
                        await self._train_and_seek(None)
            if params.text is not None:
                st.set_inspect(text=params.text, sampled=False)
            app.show_panel(params.panel or "train")
            self._applied(started)
            return
        corpus_panel = app.panels.get("corpus") if app is not None else None
        if params.sample:
            if params.sample not in SAMPLES:
                self.show_banner(f"The embed names a sample “{params.sample}” this page does not have; "
                                 "showing the default sample.", error=True)
                params = embed_mod.EmbedParams(**{**params.__dict__, "sample": None})
            elif corpus_panel is not None:
                await corpus_panel.load_sample(params.sample)
        if params.sample is None and corpus_panel is not None and st.corpus.is_empty:
            from .samples import DEFAULT_SAMPLE

            await corpus_panel.load_sample(DEFAULT_SAMPLE)
        spec = st.spec
        if params.preset:
            spec = spec.with_preset(params.preset)
        if params.vocab_size is not None:
            spec = TrainSpec(spec.preset, "vocab_size", params.vocab_size, spec.options)
        elif params.num_merges is not None and not spec.is_unigram:
            spec = TrainSpec(spec.preset, "num_merges", params.num_merges, spec.options)
        st.set_spec(spec)
        cmp = app.panels.get("compare") if app is not None and params.panel == "compare" else None
        if params.text is not None:
            if cmp is not None:  # on Compare, text= is the compared text
                port.set_value(cmp.text_box, params.text)
            else:
                st.set_inspect(text=params.text, sampled=False)
        if cmp is not None and params.vocab_size is not None:
            port.set_value(cmp.vocab, str(params.vocab_size))
        await self._train_and_seek(params.step)
        if params.tokenizer is not None:
            await self._bring_tokenizer(TokenizerRef(well_known=params.tokenizer))
        if app is not None and params.panel:
            app.show_panel(params.panel)
        if cmp is not None:
            await cmp.run()  # a Compare embed shows its comparison, not an idle setup
        self._applied(started)

    async def apply(self, exp: Experiment, corpus: Corpus | None = None) -> None:
        """Reproduce a checked link's experiment (``open_link``): corpus (``corpus``, as
        ``_link_corpus`` found it), settings, training, step, panel."""
        from .samples import SAMPLES

        port, st, app = self.port, self.state, self.app
        started = port.now()
        port.set_attr(self.body, "data-share", "applying")
        if self.embed_view:
            exp = replace(exp, panel=self.embed_view)
        if app is not None and exp.panel in getattr(app, "tabs", {}):
            app.show_panel(exp.panel)
        lessons = getattr(app, "lessons", None)
        if exp.lesson and lessons is not None:  # a lesson file inside the link: it sets the rest
            await lessons.load_text(exp.lesson, "link", exp.step)
            self._applied(started)
            return
        ref = exp.corpus
        if ref.kind == "sample" and corpus is not None:
            assert ref.name is not None  # a sample's link names it (share.py's reader requires it)
            app.panels["corpus"].use_sample(SAMPLES[ref.name], corpus.text, corpus.attribution)
            if not ref.matches(st.corpus.text):
                self.show_banner(f"The bundled sample “{ref.name}” differs from the one this link was made with "
                                 "(its SHA-256 does not match), so the results may differ.")
        elif corpus is not None:
            if corpus is not st.corpus:
                st.set_corpus(corpus)
        else:  # the user's own file, not here yet: ask for it
            self.pending = (exp, started)
            port.set_attr(self.body, "data-share", "waiting-file")
            self.show_banner(file_request(ref, own_corpus(port, ref.sha256)))
            # the header says what the page waits for, and the link's algorithm
            try:
                st.set_spec(spec_from_config(exp.train))
            except ShareLinkError:
                pass  # said when the file arrives (_apply_settings)
            st.await_corpus(f"Waiting for “{ref.name}” ({plural(ref.chars or 0, 'character')})")
            return
        await self._apply_settings(exp, started)

    def _on_state(self, topic: str) -> None:
        if topic == "tokenizer" and self.awaited_tokenizer is not None and self.state.imported is not None:
            self._tokenizer_arrived()
        if topic != "corpus" or self.pending is None:
            return
        exp, started = self.pending
        if exp.corpus.matches(self.state.corpus.text):
            self.pending = None
            self.port.set_hidden(self.banner, True)
            self.task = self.port.spawn(self._apply_with_file(exp, started))
        else:
            self.show_banner(file_request(exp.corpus, own_corpus(self.port, exp.corpus.sha256))
                             + " The corpus loaded now is a different text.")

    def _tokenizer_arrived(self) -> None:
        """A tokenizer file was loaded while a link's was asked for: the banner goes if it is
        that file (by SHA-256), or says it is another."""
        ref, got = self.awaited_tokenizer, self.state.imported_sha256
        assert ref is not None
        if got == ref.sha256:
            self.awaited_tokenizer = None
            self.port.set_hidden(self.banner, True)
        else:
            self.show_banner(tokenizer_request(ref, got or self.state.imported_key or "none"))

    async def _bring_tokenizer(self, ref: TokenizerRef) -> None:
        """Make a link's loaded tokenizer current again: a well-known one is fetched by its
        key; the sender's own file is asked for (it cannot travel in a link)."""
        files = self.app.panels.get("files") if self.app is not None else None
        if not ref.well_known:
            self.awaited_tokenizer = ref
            self.show_banner(tokenizer_request(ref))
            return
        item = WELL_KNOWN_BY_KEY[ref.well_known]
        tok = await files.load_well_known(ref.well_known) if files is not None else None
        if tok is None:
            self.show_banner(f"This link's Inspect and Compare used {item.title}, which could not be loaded (the "
                             "Files tab says why); they use the tokenizer trained here. Load it on the Files tab "
                             "to try again.", error=True)

    async def _apply_with_file(self, exp: Experiment, started: float) -> None:
        """The file a link asked for has arrived: its custom pattern is tried on it, then the
        link's settings apply (a refusal leaves the file loaded and says why)."""
        refusal = await self._check_link(exp, self.state.corpus)
        if refusal is not None:
            await self._refuse(f"This link's settings were not applied: {refusal}")
            return
        await self._apply_settings(exp, started)

    async def _apply_settings(self, exp: Experiment, started: float) -> None:
        st, app = self.state, self.app
        try:
            spec = spec_from_config(exp.train)
        except ShareLinkError as exc:
            self.port.set_attr(self.body, "data-share", "error")
            self.show_banner(f"This link could not be opened: {exc}.", error=True)
            return
        st.set_spec(spec)
        st.set_inspect(text=exp.inspect_text, sample_seed=exp.seed, sample_alpha=exp.alpha, sampled=exp.sampled,
                       nbest=exp.nbest, special_policy=exp.special_policy)
        cmp = app.panels.get("compare") if app is not None else None
        if cmp is not None and exp.has_compare:
            cmp.apply_setup(exp.compare, exp.compare_text, exp.compare_reference, exp.compare_heldout,
                            exp.compare_current, exp.compare_well_known, exp.compare_languages)
        train = app.panels.get("train") if app is not None else None
        if exp.running and train is not None:
            # reloaded during a run: the settings are back; a long run starts only when asked
            train.offer_rerun(exp.step)
        elif exp.step is not None:
            await self._train_and_seek(exp.step)
        self.awaited_tokenizer = None
        if exp.tokenizer is not None:
            await self._bring_tokenizer(exp.tokenizer)
        exercises = getattr(app, "exercises", None)
        if exp.exercise is not None and exercises is not None:
            exercises.open(exp.exercise.id, exp.exercise.code or None)  # in the box; it runs only on Run
        if exp.imported:
            self.show_banner(f"Before the reload, Inspect and Compare used “{exp.imported}”, loaded on the Files tab. "
                             "The page does not keep files: load it there again to use it.")
        if app is not None and exp.panel in getattr(app, "tabs", {}):
            app.show_panel(exp.panel)
        if cmp is not None and exp.has_compare and exp.panel == "compare":
            await cmp.run()
        self._applied(started)

    async def _train_and_seek(self, step: int | None) -> None:
        """Train the current corpus and spec to the end, then show ``step`` (None: the end)."""
        port, st, app = self.port, self.state, self.app
        train = app.panels.get("train") if app is not None else None
        if train is None:
            return
        if not await train.train_checked():
            if st.training.phase == "failed":  # e.g. the link's pattern backtracks catastrophically
                self.show_banner(st.training.message, error=True)
            return
        while st.recording is not None and not st.recording.done:
            await port.sleep(WAIT_POLL_SECONDS)
        if st.recording is None:
            return
        total = len(st.recording.steps)
        target = total if step is None else min(step, total)
        if step is not None and step > total:
            self.show_banner(f"The link asks for step {step:,}, but this run has {plural(total, 'step')}; showing the last.")
        st.player.pause()
        st.seek(target)
        st.notify("step")

    def _applied(self, started: float) -> None:
        ms = (self.port.now() - started) * 1000
        self.port.set_attr(self.body, "data-share-ms", f"{ms:.0f}")
        self.port.set_attr(self.body, "data-share", "applied")
        if self.shaper is not None:
            self.shaper.remember()  # the embed's experiment, as the author set it
        persist = getattr(self.app, "persist", None)
        if persist is not None:
            persist.save()  # the address now holds the experiment as it stands (and the embed's link)
