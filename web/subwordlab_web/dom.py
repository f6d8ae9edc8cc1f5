"""The DOM port: the one module of the UI that imports `js` and `pyodide.ffi`.

Views never touch the browser directly; they get a port and call its small API
(`query`, `create`, `set_text`, `set_attr`, `on`, ...). `fakedom.FakePort` implements the
same API over an in-memory tree, so every view runs under CPython tests.

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
from typing import Any, Callable

import js  # type: ignore[import-not-found]
from pyodide.ffi import create_proxy  # type: ignore[import-not-found]

Handler = Callable[[Any], Any]


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
        self._entries.append((element, event, proxy))
        return proxy

    def release(self, root: Any) -> int:
        """Destroy the proxies of listeners on `root` or its descendants; return how many."""
        keep, gone = [], []
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

    # --- tree edits (these release the listeners of what leaves the page) -----------
    def append(self, parent: Any, child: Any) -> None:
        parent.appendChild(child)

    def replace_children(self, parent: Any, children: list[Any]) -> None:
        for child in list(parent.children):
            self.proxies.release(child)
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

    def _task_done(self, task: asyncio.Future) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self._report(task.exception())

    def _report(self, exc: BaseException) -> None:
        js.console.error(f"{type(exc).__name__}: {exc}")
        if self._error_sink is not None:
            self._error_sink(exc)

    def teardown(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self.proxies.destroy_all()
