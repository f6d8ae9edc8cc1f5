"""Nothing is lost on reload: the experiment lives in the page's address as it changes.

Where it is kept, and why there: the address fragment, written with
``history.replaceState`` (``port.replace_address``) in the same ``#v1.…`` form a share link
has (share.py) — or, while a guided lesson is followed, the query ``?lesson=N&step=K``
(the address a course page links to; lesson_view.py) — plus two things only a reload needs: whether a run was going
(``running``) and the name of a tokenizer file loaded on Files (``imported``). So:

- a reload *is* opening a share link: the same code restores the corpus (with its name),
  the settings, the step, the inspector and the Compare setup (every column: the
  configurations, the current tokenizer, a well-known one), and lands on the panel;
- each tab keeps its own experiment (local storage is shared by every tab of the site and
  would make two tabs overwrite each other), and nothing outlives the tab unless the user
  bookmarks or copies the address, which then opens the same experiment;
- ``replaceState`` adds no history entries (Back still leaves the page) and fires no
  ``hashchange``, so writing never re-opens the link;
- a corpus too big for a link is kept by name (a bundled sample); any other one goes by
  SHA-256 in the address and its text into the site's IndexedDB (``port.store_*``: room for
  a 32 MB upload of any script, where ``sessionStorage``'s 5 MB of UTF-16 held a quarter of
  a CJK one), where the reload finds it. The last ``KEEP_CORPORA`` corpora are kept, so a
  reload of any recent tab finds its own. If the browser refuses (private browsing, storage
  full), the Corpus panel says so as the file is loaded, and the reload asks for the file,
  speaking of the user's own file (``OWN_KEY``), not of a link's sender.

The address is written at each change, synchronously (no timer: a write is a few
milliseconds, the corpus is hashed once per corpus); while the player plays or a run goes
on, at most every ``SAVE_EVERY`` seconds, and again when it stops. Never while a link is
being applied or waits for its file (the address still holds that link), nor for an
empty corpus (nothing to lose). During a long run the page asks before it is left
(``beforeunload``), and a reload restores the settings and offers to run again
(`TrainPanel.offer_rerun`) rather than restarting a long run by itself.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from . import share
from .embed import full_page_url, lesson_address, lesson_ref, query_pairs
from .share import ShareLinkError

SAVE_EVERY = 0.4  # seconds between two writes while playing or training
SAVE_TOPICS = frozenset({"corpus", "spec", "recording", "progress", "step", "inspect", "tokenizer", "panel", "lesson",
                         "compare"})
LONG_RUN_SECONDS = 2.0  # a run going this long (or a corpus too big to train by itself) asks before leaving
# longer texts cannot compress into a link (prose compresses about 3:1): not even tried, so
# typing in a big corpus does not compress it at every key
INLINE_CHARS_LIMIT = 8 * share.INLINE_LIMIT_BYTES
DEFER_TYPED_CHARS = 2_000  # an Inspect text longer than this is written once typing pauses
KEEP_CORPORA = 4  # corpora too big for the address kept in the store, the most recent ones
OWN_KEY = "subwordlab-own-corpus"  # sessionStorage: the SHA-256 of this tab's own big corpus


async def keep_corpus(port: Any, sha256: str, text: str) -> str:
    """Keep a corpus too big for the address in the store, under its SHA-256, and let go of
    all but the ``KEEP_CORPORA`` most recent; "" when kept, else the browser's reason.

    Example: ``await keep_corpus(port, sha256_text(text), text)`` -> "".
    """
    why = await port.store_put(sha256, text)
    if why:
        return why
    kept = sorted(await port.store_keys(), key=lambda key_saved: key_saved[1], reverse=True)
    for key, _saved in kept[KEEP_CORPORA:]:
        await port.store_delete(key)
    return ""


async def kept_corpus(port: Any, sha256: str | None) -> str | None:
    """The text kept for a corpus too big for the address, if its SHA-256 matches."""
    if not sha256:
        return None
    text = await port.store_get(sha256)
    return text if text is not None and share.sha256_text(text) == sha256 else None


def own_corpus(port: Any, sha256: str | None) -> bool:
    """Is this the corpus this tab itself loaded (a reload), not one a link's sender had?"""
    return bool(sha256) and port.session_get(OWN_KEY) == sha256


class Persist:
    """Writes the experiment into the address; warns before leaving a long run."""

    def __init__(self, port: Any, state: Any, app: Any) -> None:
        self.port, self.state, self.app = port, state, app
        self.saved_at = -SAVE_EVERY
        self._moving = False  # playing or training at the last state change
        self.body = port.query("body")
        self._corpus: Any = None  # the corpus the cache below is about
        self._sha = ""
        self._fits: bool | None = None  # does that corpus travel inline?
        self._later: Any = None  # a write waiting for the typing to pause
        state.subscribe(self._on_state)
        port.on_window("beforeunload", self._on_leave)

    # --- when --------------------------------------------------------------------------
    def _on_state(self, topic: str) -> None:
        if topic not in SAVE_TOPICS:
            return
        st = self.state
        moving = st.player.playing or st.training.running
        started, self._moving = moving and not self._moving, moving
        if moving and not started and self.port.now() - self.saved_at < SAVE_EVERY:
            return  # the start and the stop (pause, the run's end) are written in any case
        if (topic == "inspect" and len(st.inspect.text) > DEFER_TYPED_CHARS
                and self.port.now() - self.saved_at < SAVE_EVERY):
            # typing into a long text: one write when the typing pauses, not one per key (each
            # compresses the whole text into the address: 1,365 keys into a 20,000-character
            # Inspect text held the page 6 s). A short one is written at every key, so a reload
            # (whose address is fixed before the page hears of it) always has the last one
            if self._later is None:
                self._later = self.port.spawn(self._save_later())
            return
        # subtle: the start is written at once, so a reload right after "Run" knows a run was going
        self.save()

    async def _save_later(self) -> None:
        try:
            await self.port.sleep(max(0.0, SAVE_EVERY - (self.port.now() - self.saved_at)))
        finally:
            self._later = None
        self.save()

    def busy(self) -> bool:
        """A link is being checked or applied, or waits for its file: the address holds it; keep it."""
        share_panel = self.app.panels.get("share")
        return (self.port.get_attr(self.body, "data-share") in ("checking", "applying", "waiting-file")
                or getattr(share_panel, "pending", None) is not None)

    # --- what ---------------------------------------------------------------------------
    def fragment(self) -> str | None:
        """The ``v1.…`` fragment of the experiment now (None if it cannot be one)."""
        corpus = self.state.corpus
        if corpus is not self._corpus:  # hash the corpus once, not at every step
            self._corpus, self._sha = corpus, share.sha256_text(corpus.text)
            self._fits = False if len(corpus.text) > INLINE_CHARS_LIMIT else None
        exp, fallback = self.app.panels["share"].experiment(for_reload=True, sha256=self._sha)
        if self._fits is not False:
            try:
                fragment = share.encode_fragment(exp)
                self._fits = True
                return fragment
            except ShareLinkError:
                self._fits = False
        if fallback.kind == "file":
            self._keep_text(corpus.text)
        try:
            return share.encode_fragment(replace(exp, corpus=fallback))
        except ShareLinkError:
            return None  # e.g. a lone surrogate in the inspector's text: keep the last address

    def address(self) -> str | None:
        """The address to write: during a guided lesson its query (``?lesson=3&step=4``, what
        a course page links to), else the page's address with the experiment's fragment."""
        href, st = self.port.location_href(), self.state
        ref = lesson_ref(st)
        if ref is not None:
            rec = st.recording
            return lesson_address(href, ref, st.step if rec is not None and rec.done else None)
        fragment = self.fragment()
        if fragment is None:
            return None
        base = href.split("#", 1)[0]
        if any(name == "lesson" and value for name, value in query_pairs(base.partition("?")[2])):
            base = lesson_address(base, None)  # the lesson was left: the fragment holds the experiment now
        return base + "#" + fragment

    def _keep_text(self, text: str) -> None:
        """Keep a big corpus of the user's own in the store (once per corpus); if the browser
        refuses, the Corpus panel says so now, before a reload could lose it."""
        if getattr(self, "_kept", None) == self._sha:
            return
        self._kept = self._sha
        self.port.session_set(OWN_KEY, self._sha)  # this tab's own: a reload speaks of "your file"
        self.port.spawn(self._keep(self._sha, text, self.state.corpus.name))

    async def _keep(self, sha: str, text: str, name: str) -> None:
        why = await keep_corpus(self.port, sha, text)
        # (for tests and the curious: which corpus the store holds now, or that it refused)
        self.port.set_attr(self.body, "data-corpus-kept", "refused" if why else sha)
        corpus_panel = self.app.panels.get("corpus")
        if why and corpus_panel is not None:
            corpus_panel.show_message(
                f"This browser would not keep “{name}” for a reload ({why[:160]}; private browsing or full "
                "storage can cause it). Everything works as usual, but after a reload the page will ask "
                "for the file again: keep it at hand.")

    def save(self) -> None:
        if self.busy() or self.state.corpus.is_empty:
            return
        url = self.address()
        if url is None:
            return
        self.saved_at = self.port.now()
        if url != self.port.location_href():
            self.port.replace_address(url)
        share_panel = self.app.panels.get("share")
        if getattr(share_panel, "embedded", False):
            # the embed's "Open the full playground" carries the learner's experiment
            self.port.set_attr(self.port.query("#embed-open"), "href", full_page_url(url))

    # --- leaving during a long run ------------------------------------------------------------
    def long_run(self) -> bool:
        """Is a run going that would be costly to lose (long so far, or a big corpus)?"""
        st = self.state
        if not st.training.running:
            return False
        train = self.app.panels.get("train")
        big = train is not None and not train._small_corpus()
        return big or st.training.elapsed >= LONG_RUN_SECONDS

    def _on_leave(self, event: Any) -> None:
        if self._later is not None:
            self.save()  # (what was typed last is in the address, for going back and forth)
        if self.long_run():
            self.save()  # the address says a run was going: the reload offers to run again
            self.port.prevent_default(event)  # the browser asks "Leave site?"

