"""The DOM port: the one module of the UI that imports `js` and `pyodide.ffi`.

(Why one module: keeping every touch of the browser in one file is the point
of the port; its methods are small and mirror port.DomPort one to one.)

Views never touch the browser directly; they get a port and call its small API
(`query`, `create`, `set_text`, `set_attr`, `on`, ...): the `port.DomPort` Protocol. The tests'
`FakePort` (tests/unit/fakedom.py) implements it over an in-memory tree, so every view runs
under CPython tests.

Rules the port enforces:

- User text reaches the page only through `textContent` and attributes; there is no
  method that writes HTML.
- Every event proxy is created by one `ProxyRegistry` and destroyed by it, either when its
  element leaves the page (`remove`, `clear`, `replace_children`) or on `teardown()`.
- Wiring mistakes fail early and loudly: `query` raises when nothing matches.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import js  # type: ignore[import-not-found]
from pyodide.ffi import create_once_callable, create_proxy, to_js  # type: ignore[import-not-found]

from .budgets import RepliesSeen, within_budgets

Handler = Callable[[Any], Any]
SVG_NS = "http://www.w3.org/2000/svg"


class ProxyRegistry:
    """Owns every `create_proxy` made for an event listener.

    Example: add(button, "click", f) -> listener attached; release(panel) -> every listener
    on `panel` or inside it is removed and its proxy destroyed.
    """

    def __init__(self) -> None:
        self._entries: list[tuple[Any, str, Any]] = []  # (element, event, proxy)

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, element: Any, event: str, func: Callable[[Any], Any]) -> Any:
        proxy = create_proxy(func)
        element.addEventListener(event, proxy)
        # subtle: the marker lets replace_children skip the release scan (one query instead
        # of a `contains` call per listener per child) when nothing inside listens
        element.setAttribute("data-listens", "")
        self._entries.append((element, event, proxy))
        return proxy

    def release(self, root: Any) -> int:
        """Destroy the proxies of listeners on `root` or its descendants; return how many."""
        keep: list[tuple[Any, str, Any]] = []
        gone: list[tuple[Any, str, Any]] = []
        for entry in self._entries:
            # subtle: Node.contains(node) is true for the node itself, so this covers both.
            (gone if root.contains(entry[0]) else keep).append(entry)
        for element, event, proxy in gone:
            element.removeEventListener(event, proxy)
            proxy.destroy()
        self._entries = keep
        return len(gone)

    def destroy_all(self) -> None:
        for element, event, proxy in self._entries:
            element.removeEventListener(event, proxy)
            proxy.destroy()
        self._entries = []


class BrowserPort:
    """The real DOM, reached through `js.document`."""

    def __init__(self, document: Any = None) -> None:
        self.document = document if document is not None else js.document
        self.proxies = ProxyRegistry()
        self._error_sink: Callable[[BaseException], None] | None = None
        self._tasks: set[asyncio.Future] = set()
        self._window_listeners: list[tuple[str, Any]] = []
        self._observers: list[tuple[Any, Any]] = []  # (ResizeObserver, its callback's proxy)
        self._compute: ComputeWorker | None = None  # the compute session's worker (compute)
        self._compute_turn: asyncio.Lock | None = None  # held by the task computing (compute)
        self._abandoned_deadline: float | None = None  # a pattern check whose caller left (compute)
        self._store: Any = None  # the open IndexedDB database of kept corpora (store_*)

    # --- finding and making elements ------------------------------------------------
    def query(self, selector: str, root: Any = None) -> Any:
        """The first element matching `selector`; raises LookupError if there is none."""
        el = (root if root is not None else self.document).querySelector(selector)
        if el is None:
            raise LookupError(f"the page has no element matching {selector!r}; check index.html")
        return el

    def query_all(self, selector: str, root: Any = None) -> list[Any]:
        return list((root if root is not None else self.document).querySelectorAll(selector))

    def create(self, tag: str, class_name: str | None = None, text: str | None = None) -> Any:
        el = self.document.createElement(tag)
        if class_name:
            el.className = class_name
        if text is not None:
            el.textContent = text
        return el

    def create_svg(self, tag: str, class_name: str | None = None) -> Any:
        """An SVG element (`svg`, `g`, `rect`, `text`, `title`, ...), made in the SVG namespace."""
        el = self.document.createElementNS(SVG_NS, tag)
        if class_name:
            el.setAttribute("class", class_name)
        return el

    def clone_template(self, template_id: str) -> Any:
        """A fresh copy of the first element inside `<template id=template_id>`."""
        template = self.query(f"template#{template_id}")
        el = template.content.firstElementChild
        if el is None:
            raise LookupError(f"<template id={template_id!r}> is empty; check index.html")
        return el.cloneNode(True)

    # --- content and attributes -----------------------------------------------------
    def set_text(self, el: Any, text: str) -> None:
        el.textContent = text

    def text(self, el: Any) -> str:
        return el.textContent or ""

    def set_attr(self, el: Any, name: str, value: str) -> None:
        el.setAttribute(name, str(value))

    def get_attr(self, el: Any, name: str) -> str | None:
        return el.getAttribute(name)

    def remove_attr(self, el: Any, name: str) -> None:
        el.removeAttribute(name)

    def set_hidden(self, el: Any, hidden: bool) -> None:
        el.hidden = bool(hidden)

    def toggle_class(self, el: Any, class_name: str, on: bool) -> None:
        el.classList.toggle(class_name, bool(on))

    def value(self, el: Any) -> str:
        return el.value

    def set_value(self, el: Any, value: str) -> None:
        el.value = value

    def checked(self, el: Any) -> bool:
        return bool(el.checked)

    def set_checked(self, el: Any, on: bool) -> None:
        el.checked = bool(on)

    def set_disabled(self, el: Any, disabled: bool) -> None:
        el.disabled = bool(disabled)

    def focus(self, el: Any) -> None:
        el.focus()

    def contains_focus(self, el: Any) -> bool:
        """True if `el` or an element inside it has the keyboard focus."""
        return bool(el.matches(":focus-within"))

    def scroll_into_view(self, el: Any) -> None:
        """Scroll `el`'s scrolling ancestors just enough to show it (e.g. the selected tab in
        the tab bar that scrolls sideways on a phone); nothing moves if it is in view."""
        el.scrollIntoView(to_js({"block": "nearest", "inline": "nearest"}, dict_converter=js.Object.fromEntries))

    def set_style(self, el: Any, prop: str, value: str) -> None:
        """One inline style property (e.g. `width`, or a custom property `--pct`)."""
        el.style.setProperty(prop, value)

    def width(self, el: Any) -> float:
        """The element's width in CSS pixels (0 while it is hidden)."""
        return float(el.clientWidth)

    # --- tree edits (these release the listeners of what leaves the page) -----------
    def append(self, parent: Any, child: Any) -> None:
        parent.appendChild(child)

    def _release_inside(self, parent: Any) -> None:
        if parent.querySelector("[data-listens]") is not None:
            for child in list(parent.children):
                self.proxies.release(child)

    def build(self, spec: Any) -> Any:
        """An element made from plain data in one call: `[tag, {attr: value} or None,
        *children]`, children being specs or strings (text nodes); an "svg:" tag makes an
        SVG element. See `build.py` for helpers that write specs."""
        return js.subwordlabBuild(json.dumps(spec, allow_nan=False))

    def build_into(self, parent: Any, specs: list[Any]) -> None:
        """Replace `parent`'s children with elements built from `specs` (one call; the
        specs cross as one JSON text, escaped to ASCII)."""
        self._release_inside(parent)
        js.subwordlabBuildInto(parent, json.dumps(specs, allow_nan=False))

    def build_more(self, parent: Any, specs: list[Any]) -> None:
        """Append elements built from `specs` to `parent`'s children (a long list drawn in parts)."""
        js.subwordlabBuildMore(parent, json.dumps(specs, allow_nan=False))

    def replace_children(self, parent: Any, children: list[Any]) -> None:
        self._release_inside(parent)
        fragment = self.document.createDocumentFragment()
        for child in children:
            fragment.appendChild(child)
        parent.replaceChildren(fragment)

    def clear(self, parent: Any) -> None:
        self.replace_children(parent, [])

    def remove(self, el: Any) -> None:
        self.proxies.release(el)
        el.remove()

    # --- events ---------------------------------------------------------------------
    def set_error_sink(self, sink: Callable[[BaseException], None]) -> None:
        """Where exceptions raised by event handlers go (the app shows them on the page)."""
        self._error_sink = sink

    def on(self, el: Any, event: str, handler: Handler) -> None:
        """Call `handler(event)` on `event`; async handlers run as tasks. Errors go to the sink."""

        def listener(ev: Any) -> None:
            try:
                result = handler(ev)
                if inspect.isawaitable(result):
                    task = asyncio.ensure_future(result)
                    self._tasks.add(task)
                    task.add_done_callback(self._task_done)
            except Exception as exc:  # noqa: BLE001 - shown to the user, then logged
                self._report(exc)

        self.proxies.add(el, event, listener)

    def spawn(self, coro: Awaitable[Any]) -> asyncio.Future:
        """Run `coro` (a coroutine, or any awaitable a window handler returned) as a task (cancel it with `.cancel()`); its errors go to the sink."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    async def sleep(self, seconds: float) -> None:
        """Hand control back to the browser (0: just long enough to paint and take input)."""
        await asyncio.sleep(seconds)

    def now(self) -> float:
        """Seconds on a monotonic clock."""
        return time.perf_counter()

    # --- events' details, files and the network ----------------------------------------
    def key(self, event: Any) -> str:
        return event.key or ""

    def event_target(self, event: Any) -> Any:
        return event.target

    def closest(self, el: Any, selector: str) -> Any:
        """`el` or its nearest ancestor matching `selector`, or None."""
        if el is None or not hasattr(el, "closest"):
            return None
        found = el.closest(selector)
        # subtle: recent Pyodides give JS null as `jsnull` (a JsNull object), not None
        return None if found is None or type(found).__name__ == "JsNull" else found

    def prevent_default(self, event: Any) -> None:
        event.preventDefault()

    def default_prevented(self, event: Any) -> bool:
        """Whether a handler before this one took the event (``preventDefault``)."""
        return bool(event.defaultPrevented)

    def input_files(self, el: Any) -> list[Any]:
        """The files chosen in an `<input type=file>`."""
        files = el.files
        return [files.item(i) for i in range(files.length)] if files is not None else []

    def clear_files(self, el: Any) -> None:
        """Forget the input's files, so picking the same file again fires `change`."""
        el.value = ""

    def open_picker(self, el: Any) -> None:
        """Open an `<input type=file>`'s file picker (browsers allow it during a click)."""
        el.click()

    def dropped_files(self, event: Any) -> list[Any]:
        transfer = event.dataTransfer
        if transfer is None or transfer.files is None:
            return []
        files = transfer.files
        return [files.item(i) for i in range(files.length)]

    def file_name(self, file: Any) -> str:
        return str(file.name)

    def file_size(self, file: Any) -> int:
        return int(file.size)

    async def file_bytes(self, file: Any) -> bytes:
        buffer = await file.arrayBuffer()
        return buffer.to_bytes()

    async def fetch_text(self, url: str) -> str:
        """The text at `url` (relative to the page). Raises OSError naming the URL on failure."""
        response = await js.fetch(url)
        if not response.ok:
            raise OSError(f"could not load {url}: HTTP {response.status}")
        return await response.text()

    async def fetch_bytes(self, url: str) -> bytes:
        """The bytes at `url` (relative to the page), copied once from an ArrayBuffer (a
        28 MB tokenizer.json: no string conversion). Raises OSError naming the URL on failure."""
        response = await js.fetch(url)
        if not response.ok:
            raise OSError(f"could not load {url}: HTTP {response.status}")
        return (await response.arrayBuffer()).to_bytes()

    # --- the address, the clipboard and downloads (share links, embeds, model files) ---
    def location_href(self) -> str:
        return str(js.location.href)

    def location_search(self) -> str:
        """The query, with its `?` (e.g. `?embed=1`), or ""."""
        return str(js.location.search)

    def location_hash(self) -> str:
        """The fragment, with its `#` (e.g. `#v1.eNo…`), or ""."""
        return str(js.location.hash)

    def session_get(self, key: str) -> str | None:
        """A value kept in this tab's `sessionStorage` (it survives a reload), or None."""
        try:
            value = js.sessionStorage.getItem(key)
        except Exception:  # noqa: BLE001 - storage disabled: nothing kept
            return None
        return None if value is None else str(value)

    def session_set(self, key: str, value: str | None) -> bool:
        """Keep `value` in this tab's `sessionStorage` (None removes it); False when the
        browser refuses (storage full or disabled)."""
        try:
            if value is None:
                js.sessionStorage.removeItem(key)
            else:
                js.sessionStorage.setItem(key, value)
        except Exception:  # noqa: BLE001 - QuotaExceededError, or storage disabled
            return False
        return True

    # --- the corpus store (IndexedDB: room for a 32 MB upload of any script; persist.py) ---
    STORE_DB, STORE_TEXTS, STORE_SAVED = "subwordlab", "texts", "saved"

    @staticmethod
    def _settled(target: Any, ok_event: str, value: Callable[[], Any]) -> Any:
        """A JS Promise settled by an IndexedDB request (``ok_event`` "success") or
        transaction ("complete"): resolved with ``value()``, rejected with the browser's error
        on "error" or "abort" (e.g. QuotaExceededError). The handler not called is left to
        the garbage collector with its request."""

        def executor(resolve: Any, reject: Any) -> None:
            target.addEventListener(ok_event, create_once_callable(lambda _e: resolve(value())))
            failed = create_once_callable(lambda _e: reject(target.error or "the browser refused"))
            target.addEventListener("error", failed)
            if ok_event == "complete":
                target.addEventListener("abort", failed)

        return js.Promise.new(create_once_callable(executor))

    async def _database(self) -> Any:
        if self._store is None:
            request = js.indexedDB.open(self.STORE_DB, 1)

            def create(_event: Any) -> None:  # the first time on this site: the two stores
                db = request.result
                db.createObjectStore(self.STORE_TEXTS)  # SHA-256 -> the corpus's text
                db.createObjectStore(self.STORE_SAVED)  # SHA-256 -> when it was kept (ms)

            request.addEventListener("upgradeneeded", create_once_callable(create))
            self._store = await self._settled(request, "success", lambda: request.result)
        return self._store

    async def store_put(self, key: str, text: str) -> str:
        """Keep `text` under `key` in the site's IndexedDB; "" when kept, else the
        browser's reason (private browsing, storage full or disabled)."""
        try:
            db = await self._database()
            tx = db.transaction(to_js([self.STORE_TEXTS, self.STORE_SAVED]), "readwrite")
            # (as UTF-8 bytes: a 30 MB str crosses into JavaScript in 20 ms so, in seconds as a string)
            tx.objectStore(self.STORE_TEXTS).put(to_js(memoryview(text.encode("utf-8", "surrogatepass"))), key)
            tx.objectStore(self.STORE_SAVED).put(js.Date.now(), key)
            await self._settled(tx, "complete", lambda: None)
        except Exception as exc:  # noqa: BLE001 - said to the user at upload
            return str(exc).strip() or type(exc).__name__
        return ""

    async def store_get(self, key: str) -> str | None:
        """The text kept under `key`, or None (never kept, evicted, or no storage)."""
        try:
            db = await self._database()
            request = db.transaction(self.STORE_TEXTS, "readonly").objectStore(self.STORE_TEXTS).get(key)
            value = await self._settled(request, "success", lambda: request.result)
        except Exception:  # noqa: BLE001 - storage disabled: nothing kept
            return None
        if isinstance(value, str):  # (kept as a string before the store took bytes)
            return value
        try:
            return value.to_bytes().decode("utf-8", "surrogatepass")
        except Exception:  # noqa: BLE001 - not bytes either (another page's value): nothing kept
            return None

    async def store_keys(self) -> list[tuple[str, float]]:
        """Every kept key with when it was kept (ms since 1970)."""
        try:
            db = await self._database()
            saved = db.transaction(self.STORE_SAVED, "readonly").objectStore(self.STORE_SAVED)
            keys_request, times_request = saved.getAllKeys(), saved.getAll()
            # (both promises made before either is awaited: a request's "success" fires once,
            # and a listener added after it has fired waits forever)
            keys_done = self._settled(keys_request, "success", lambda: keys_request.result)
            times_done = self._settled(times_request, "success", lambda: times_request.result)
            keys, times = await keys_done, await times_done
        except Exception:  # noqa: BLE001 - storage disabled: nothing kept
            return []
        return list(zip((str(k) for k in keys), (float(t) for t in times)))

    async def store_delete(self, key: str) -> None:
        try:
            db = await self._database()
            tx = db.transaction(to_js([self.STORE_TEXTS, self.STORE_SAVED]), "readwrite")
            tx.objectStore(self.STORE_TEXTS).delete(key)
            tx.objectStore(self.STORE_SAVED).delete(key)
            await self._settled(tx, "complete", lambda: None)
        except Exception:  # noqa: BLE001 - nothing more to free
            pass

    def replace_address(self, url: str) -> None:
        """Change the address bar to `url` without a new history entry, a reload or a
        `hashchange` event (`history.replaceState`)."""
        js.history.replaceState(js.history.state, "", url)

    def on_window(self, event: str, handler: Handler) -> None:
        """Call `handler(event)` on a `window` event (e.g. `hashchange`); removed on teardown."""

        def listener(ev: Any) -> None:
            try:
                result = handler(ev)
                if inspect.isawaitable(result):
                    self.spawn(result)
            except Exception as exc:  # noqa: BLE001 - shown to the user, then logged
                self._report(exc)

        # subtle: not in the ProxyRegistry, whose release() asks Node.contains(), and
        # window is not a Node
        proxy = create_proxy(listener)
        js.window.addEventListener(event, proxy)
        self._window_listeners.append((event, proxy))

    def select(self, el: Any) -> None:
        """Select the text of an input or textarea (so Ctrl+C copies it)."""
        el.select()

    async def copy_text(self, text: str) -> bool:
        """Put `text` on the clipboard; False where the browser does not allow it."""
        clipboard = getattr(js.navigator, "clipboard", None)
        if clipboard is None:
            return False
        try:
            await clipboard.writeText(text)
        except Exception:  # noqa: BLE001 - a refused permission is not an error for the user
            return False
        return True

    def download(self, name: str, text: str, mime: str) -> None:
        """Save `text` as a file called `name`: a Blob, an object URL and a temporary
        `<a download>` click; the URL is revoked a minute later."""
        blob = js.Blob.new(to_js([text]), to_js({"type": mime}, dict_converter=js.Object.fromEntries))
        url = js.URL.createObjectURL(blob)
        link = self.document.createElement("a")
        link.href = url
        link.download = name
        link.hidden = True
        self.document.body.appendChild(link)
        link.click()
        link.remove()
        js.setTimeout(create_once_callable(lambda: js.URL.revokeObjectURL(url)), 60_000)

    def svg_tree(self, el: Any, props: list[str]) -> Any:
        """An SVG element as ``(tag, attrs, computed styles, children)``, children being
        trees or text (chart_export.py writes it as a standalone file)."""
        computed = js.window.getComputedStyle(el)
        attrs = {a.name: a.value for a in el.attributes}
        styles = {p: str(computed.getPropertyValue(p)) for p in props}
        children = []
        for node in el.childNodes:
            if node.nodeType == 1:
                children.append(self.svg_tree(node, props))
            elif node.nodeType == 3:
                children.append(str(node.data))
        return (str(el.localName), attrs, styles, children)

    async def download_png(self, name: str, svg_text: str, width: float, height: float, scale: float) -> bool:
        """Save a standalone SVG as a PNG: drawn onto a white canvas ``scale`` times its
        size, saved from a data URL. False if the browser could not draw it."""
        img = js.Image.new()
        img.src = "data:image/svg+xml;charset=utf-8," + js.encodeURIComponent(svg_text)
        try:
            await img.decode()
        except Exception:  # noqa: BLE001 - a JS error: the image did not load
            return False
        canvas = self.document.createElement("canvas")
        canvas.width, canvas.height = max(1, round(width * scale)), max(1, round(height * scale))
        ctx = canvas.getContext("2d")
        ctx.fillStyle = "#ffffff"
        ctx.fillRect(0, 0, canvas.width, canvas.height)
        ctx.drawImage(img, 0, 0, canvas.width, canvas.height)
        link = self.document.createElement("a")
        link.href = canvas.toDataURL("image/png")
        link.download = name
        link.hidden = True
        self.document.body.appendChild(link)
        link.click()
        link.remove()
        return True

    # --- the compute session's worker (session.py) ----------------------------------------
    async def compute(self, request: str, corpus: str | None, on_reply: Callable[[str], None],
                      budget: float | Sequence[float] | None = None) -> None:
        """Run `request` (JSON) in the compute session's worker (the one `warm_compute`
        started, or a fresh one), calling `on_reply(json_text)` for each reply, in
        order; returns after the last. The corpus crosses once per worker (the worker keeps
        it; None sends none, e.g. for a pattern check, which carries its own text).
        Cancelling the call terminates the worker — whatever it was computing stops at
        once — and a fresh one starts warming for the next task; so does a worker that
        failed (an `OSError` says why).

        With a `budget` (the pattern guard's checks): the answer must come within `budget`
        seconds of the request reaching the booted worker (its boot and the wait for the
        task before it are not counted); when it is late the worker is terminated, a fresh
        one starts warming, and `TimeoutError` is raised. A budgeted call that is cancelled
        leaves its request running (a check is short, and a fresh boot is not): the next
        task waits for it up to its deadline, then terminates the worker if it is still busy.
        A list of budgets (several checks in one request, a reply each) gives each reply its
        own: reply k must come within ``budget[k]`` seconds of the one before it (the first,
        of the request reaching the worker; the request's end, of the last reply)."""
        from .pattern_guard import BOOT_TIMEOUT_SECONDS

        if self._compute_turn is None:
            self._compute_turn = asyncio.Lock()
        async with self._compute_turn:  # one task at a time: Compare's waits for Train's run to end
            await self._settle_abandoned()
            if self._compute is None or self._compute.busy:
                self._replace_compute()
            worker = self._compute
            assert worker is not None
            try:
                await asyncio.wait_for(worker.boot(), BOOT_TIMEOUT_SECONDS)
            except asyncio.CancelledError:
                raise  # (the worker only booted: it stays, warm for the next task)
            except BaseException as exc:
                self._replace_compute()
                if isinstance(exc, asyncio.TimeoutError):
                    raise OSError("the compute worker did not start in time: reload the page") from None
                raise
            budgets = None if budget is None else [budget] if isinstance(budget, (int, float)) else list(budget)
            seen = RepliesSeen(on_reply)  # (each reply starts the next one's budget)
            done = worker.ask(request, corpus, seen)
            deadline = time.perf_counter() + sum(budgets) if budgets is not None else None
            try:
                if budgets is None:
                    await done
                else:
                    await within_budgets(done, budgets, seen)
            except asyncio.CancelledError:
                if deadline is not None and not done.done():
                    self._abandoned_deadline = deadline
                else:
                    self._replace_compute()
                raise
            except TimeoutError:
                self._replace_compute()  # its regex may never end: terminated, as Cancel does
                raise
            except BaseException:
                # failed: this worker is done for; the next task gets a warm one
                self._replace_compute()
                raise

    async def _settle_abandoned(self) -> None:
        """Wait for a check whose caller left (up to its deadline); a late one ends the worker."""
        worker, deadline = self._compute, self._abandoned_deadline
        if deadline is None or worker is None or worker.pending is None:
            self._abandoned_deadline = None
            return
        try:
            await asyncio.wait_for(asyncio.shield(worker.pending), max(0.0, deadline - time.perf_counter()))
        except TimeoutError:
            if worker is self._compute:
                self._replace_compute()
        except Exception:  # noqa: BLE001 - it failed: nobody waits for its answer; busy is checked next
            pass
        self._abandoned_deadline = None

    def warm_compute(self) -> None:
        """Start the compute session's worker now, if none is running, so that it has booted
        (~2 s) by the time a long task asks for it; a tiny task never needs it (session.in_page)."""
        if self._compute is None:
            self._compute = self._start_compute()

    def compute_started(self) -> bool:
        """Whether the compute session's worker was started (booting or ready; a terminated
        one is replaced by a fresh one at once): a short task may then use it at no boot's cost."""
        return self._compute is not None

    def _replace_compute(self) -> None:
        if self._compute is not None:
            self._compute.terminate()
        self._compute = self._start_compute()

    def _start_compute(self) -> ComputeWorker:
        return ComputeWorker(self.document.body, js.window.subwordlabStartWorker())

    def _task_done(self, task: asyncio.Future) -> None:
        self._tasks.discard(task)
        if not task.cancelled():
            exc = task.exception()
            if exc is not None:
                self._report(exc)

    def _report(self, exc: BaseException) -> None:
        js.console.error(f"{type(exc).__name__}: {exc}")
        if self._error_sink is not None:
            self._error_sink(exc)

    def watch_height(self, handler: Callable[[int], Any]) -> None:
        """Call `handler(px)` with the height of the page's content (the `<html>` element, in
        whole CSS pixels) now and whenever it changes (a `ResizeObserver`); stopped on teardown.
        Embed mode posts it to the host page (embed_view.py)."""
        root = self.document.documentElement

        def changed(*_args: Any) -> None:
            try:
                handler(math.ceil(root.getBoundingClientRect().height))
            except Exception as exc:  # noqa: BLE001 - shown to the user, then logged
                self._report(exc)

        proxy = create_proxy(changed)
        observer = js.ResizeObserver.new(proxy)
        observer.observe(root)
        self._observers.append((observer, proxy))

    def post_to_parent(self, message: dict[str, Any] | str, target_origin: str = "*") -> None:
        """`window.parent.postMessage(message, target_origin)`: a plain object (or a text) to the
        page that embeds this one (outside an iframe the parent is the window itself, and nobody
        listens). "*" only for what any page may know (e.g. the content height)."""
        data = message if isinstance(message, str) else to_js(message, dict_converter=js.Object.fromEntries)
        js.window.parent.postMessage(data, target_origin)

    def on_parent_message(self, handler: Callable[[str, Any], None]) -> None:
        """`handler(origin, data)` for each message the parent window posts to this page, its
        data as plain Python (read through JSON, at most host_api.MAX_MESSAGE_CHARS; anything
        else is None). Messages from any other window never reach the handler."""
        from .host_api import MAX_MESSAGE_CHARS

        def received(event: Any) -> None:
            if event.source != js.window.parent or event.source == js.window:
                return
            try:
                text = js.JSON.stringify(event.data)
                data = json.loads(text) if isinstance(text, str) and len(text) <= MAX_MESSAGE_CHARS else None
            except Exception:  # noqa: BLE001 - a value JSON cannot hold (a cycle, a function): not a command
                data = None
            handler(str(event.origin), data)

        self.on_window("message", received)  # (whose listener reports a handler's failure)

    def teardown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._compute is not None:
            self._compute.terminate()
            self._compute = None
        self.proxies.destroy_all()
        for observer, proxy in self._observers:
            observer.disconnect()
            proxy.destroy()
        self._observers = []
        for event, proxy in self._window_listeners:
            js.window.removeEventListener(event, proxy)
            proxy.destroy()
        self._window_listeners = []


class ComputeWorker:
    """One compute session worker (compute_worker.js, started by bootstrap.js's
    `subwordlabStartWorker`, which follows its boot in `worker.booted`): one task at a time.
    The page's <body> counts boots and terminations (data-compute-boots,
    data-compute-terminated) and keeps the last boot time (data-compute-boot-ms)."""

    def __init__(self, body: Any, worker: Any) -> None:
        self.body = body
        self.worker = worker
        self.corpus: str | None = None  # the corpus the worker holds (sent once)
        self._job: tuple[int, Callable[[str], None], asyncio.Future] | None = None
        self._next_id = 0
        self._on_message = create_proxy(self._message)
        self._on_error = create_proxy(self._error)
        self.worker.addEventListener("message", self._on_message)
        self.worker.addEventListener("error", self._on_error)
        _count(body, "data-compute-boots")

    @property
    def busy(self) -> bool:
        return self._job is not None

    @property
    def pending(self) -> asyncio.Future | None:
        """The running request's end (a future), or None when the worker is idle."""
        return self._job[2] if self._job is not None else None

    async def boot(self) -> None:
        """Wait for the worker's Pyodide and wheels (an `OSError` if it cannot start)."""
        try:
            ms = await self.worker.booted
        except Exception as exc:  # noqa: BLE001 - a JS error (the worker's boot failed)
            raise OSError(f"the compute worker did not start: {getattr(exc, 'message', exc)}") from None
        self.body.setAttribute("data-compute-boot-ms", f"{float(ms):.0f}")

    def ask(self, request: str, corpus: str | None, on_reply: Callable[[str], None]) -> asyncio.Future:
        """Post `request` (and `corpus`, unless the worker holds it or it is None); the future
        ends with the request's last reply."""
        self._next_id += 1
        done = asyncio.get_event_loop().create_future()
        self._job = (self._next_id, on_reply, done)
        send = None if corpus is None or corpus is self.corpus else corpus
        if send is None:
            self.worker.postMessage(to_js([self._next_id, request, None]))
            return done
        self.corpus = send
        # subtle: the corpus crosses as UTF-8 bytes, its buffer moved (not copied) to the
        # worker: a 30 MB str of many scripts crosses into JavaScript in ~30 ms so, 2-3 s as a
        # string (session.serve decodes it)
        data = to_js(memoryview(send.encode("utf-8", "surrogatepass")))
        self.worker.postMessage(to_js([self._next_id, request, data]), to_js([data.buffer]))
        return done

    def _message(self, event: Any) -> None:
        job = self._job
        data = event.data
        if job is None or getattr(data, "id", None) != job[0]:
            return  # the boot message (bootstrap.js follows it), or an answer nobody waits for now
        _id, on_reply, done = job
        try:
            if getattr(data, "reply", None) is not None:
                on_reply(str(data.reply))
            elif getattr(data, "end", None):
                self._job = None
                done.set_result(None)
            elif getattr(data, "failed", None) is not None:
                self._job = None
                done.set_exception(OSError(f"the compute worker failed: {data.failed}"))
        except Exception as exc:  # noqa: BLE001 - the page's handling of a reply failed: end the task with it
            self._job = None
            if not done.done():
                done.set_exception(exc)

    def _error(self, event: Any) -> None:
        # an error inside the worker (it ran out of memory, say): the task ends with it
        event.preventDefault()
        if self._job is not None and not self._job[2].done():
            self._job[2].set_exception(OSError(f"the compute worker stopped: {getattr(event, 'message', '') or 'it failed'}"))
        self._job = None

    def terminate(self) -> None:
        self.worker.terminate()
        _count(self.body, "data-compute-terminated")
        self.worker.removeEventListener("message", self._on_message)
        self.worker.removeEventListener("error", self._on_error)
        self._on_message.destroy()
        self._on_error.destroy()
        if self._job is not None and not self._job[2].done():
            self._job[2].cancel()
        self._job = None


def _count(body: Any, attribute: str) -> None:
    body.setAttribute(attribute, str(int(body.getAttribute(attribute) or 0) + 1))
