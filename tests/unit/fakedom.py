"""An in-memory DOM port with the same API as `dom.BrowserPort`, for CPython tests.

Build it from the real page so tests exercise the real structure:

>>> port = FakePort.from_html('<main><p id="x">hi</p><template id="t"><b class="c"></b></template></main>')
>>> port.text(port.query("#x"))
'hi'
>>> port.clone_template("t").tag
'b'

Selectors: tag, `#id`, `.class`, `[attr]`, `[attr="value"]`, compounds of those, and the
descendant combinator (a space). That is all the views use; anything else raises.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

VOID_TAGS = frozenset(
    "area base br col embed hr img input link meta source track wbr".split()
)


class FakeElement:
    """A DOM element reduced to what the views use: tag, attributes, children, value, listeners."""

    def __init__(self, tag: str, attrs: dict[str, str] | None = None) -> None:
        self.tag = tag.lower()
        self.attrs: dict[str, str] = dict(attrs or {})
        self.children: list[FakeElement | str] = []  # str = a text node
        self.parent: FakeElement | None = None
        self.content: list[FakeElement | str] | None = [] if self.tag == "template" else None
        self.value = self.attrs.get("value", "")
        self.listeners: dict[str, list[Callable[[Any], Any]]] = {}
        self.style: dict[str, str] = {}
        self.svg = False  # made with create_svg (the SVG namespace)
        self.files: list[Any] = []  # an <input type=file>'s chosen files

    def __repr__(self) -> str:
        ident = f"#{self.attrs['id']}" if "id" in self.attrs else ""
        return f"<FakeElement {self.tag}{ident}>"

    # --- tree -----------------------------------------------------------------------
    @property
    def element_children(self) -> list[FakeElement]:
        return [c for c in self.children if isinstance(c, FakeElement)]

    @property
    def text_content(self) -> str:
        return "".join(c if isinstance(c, str) else c.text_content for c in self.children)

    @property
    def class_list(self) -> list[str]:
        return self.attrs.get("class", "").split()

    @property
    def hidden(self) -> bool:
        return "hidden" in self.attrs

    def append(self, child: FakeElement | str) -> None:
        if isinstance(child, FakeElement):
            if child.parent is not None:
                child.parent.children.remove(child)
            child.parent = self
        self.children.append(child)

    def detach(self) -> None:
        if self.parent is not None:
            self.parent.children.remove(self)
            self.parent = None

    def iter(self) -> Iterator[FakeElement]:
        """This element and all its descendants, in document order (templates excluded)."""
        yield self
        for child in self.element_children:
            yield from child.iter()

    def contains(self, other: FakeElement) -> bool:
        node: FakeElement | None = other
        while node is not None:
            if node is self:
                return True
            node = node.parent
        return False

    def clone(self) -> FakeElement:
        copy = FakeElement(self.tag, self.attrs)
        copy.value = self.value
        for child in self.children:
            copy.append(child if isinstance(child, str) else child.clone())
        if self.content is not None:
            copy.content = [c if isinstance(c, str) else c.clone() for c in self.content]
        return copy


# --- selectors ------------------------------------------------------------------------
_COMPOUND = re.compile(
    r"""(?P<tag>[a-zA-Z][\w-]*|\*)?
        (?P<rest>(?:\#[\w-]+|\.[\w-]+|\[[\w-]+(?:~?=(?:"[^"]*"|'[^']*'|[\w-]+))?\])*)$""",
    re.VERBOSE,
)
_PART = re.compile(r"""\#([\w-]+)|\.([\w-]+)|\[([\w-]+)(?:(~?)=(?:"([^"]*)"|'([^']*)'|([\w-]+)))?\]""")


@dataclass
class _Compound:
    tag: str | None = None
    ids: list[str] = field(default_factory=list)
    classes: list[str] = field(default_factory=list)
    attrs: list[tuple[str, str | None, bool]] = field(default_factory=list)  # (name, value, ~=: one of its words)

    def matches(self, el: FakeElement) -> bool:
        if self.tag not in (None, "*") and el.tag != self.tag:
            return False
        if any(el.attrs.get("id") != i for i in self.ids):
            return False
        if any(c not in el.class_list for c in self.classes):
            return False
        for name, value, word in self.attrs:
            if name not in el.attrs:
                return False
            if value is not None and (value not in el.attrs[name].split() if word else el.attrs[name] != value):
                return False
        return True


def _parse_selector(selector: str) -> list[_Compound]:
    """Example: 'main .chip[data-unk]' -> [_Compound(tag='main'), _Compound(classes=['chip'], ...)]"""
    compounds = []
    for token in selector.split():
        m = _COMPOUND.match(token)
        if not m or not token:
            raise ValueError(f"fakedom cannot parse selector {selector!r}")
        compound = _Compound(tag=m.group("tag").lower() if m.group("tag") else None)
        for part in _PART.finditer(m.group("rest")):
            ident, cls, attr, tilde, v1, v2, v3 = part.groups()
            if ident:
                compound.ids.append(ident)
            elif cls:
                compound.classes.append(cls)
            else:
                value = next((v for v in (v1, v2, v3) if v is not None), None)
                compound.attrs.append((attr, value, bool(tilde)))
        compounds.append(compound)
    if not compounds:
        raise ValueError("empty selector")
    return compounds


def _matches(el: FakeElement, compounds: list[_Compound]) -> bool:
    if not compounds[-1].matches(el):
        return False
    node = el.parent  # match the remaining compounds against ancestors, right to left
    for compound in reversed(compounds[:-1]):
        while node is not None and not compound.matches(node):
            node = node.parent
        if node is None:
            return False
        node = node.parent
    return True


def select_all(root: FakeElement, selector: str) -> list[FakeElement]:
    compounds = _parse_selector(selector)
    return [el for el in root.iter() if el is not root and _matches(el, compounds)]


# --- HTML → tree ----------------------------------------------------------------------
class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = FakeElement("#document")
        self.stack: list[FakeElement] = [self.root]

    def _container(self) -> FakeElement:
        return self.stack[-1]

    def _add(self, node: FakeElement | str) -> None:
        parent = self._container()
        if parent.tag == "template":
            # subtle: template children live in .content, out of the document tree (as in a browser)
            assert parent.content is not None
            if isinstance(node, FakeElement):
                node.parent = None
            parent.content.append(node)
        else:
            parent.append(node)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = FakeElement(tag, {k: (v if v is not None else "") for k, v in attrs})
        self._add(el)
        if el.tag not in VOID_TAGS:
            self.stack.append(el)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._add(FakeElement(tag, {k: (v if v is not None else "") for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        tag = tag.lower()
        if tag in VOID_TAGS:
            return
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        container = self._container()
        if container.tag == "textarea":
            container.value += data
        if data.strip() or container.tag in ("textarea", "pre"):
            self._add(data)


_NON_BUBBLING = frozenset({"focus", "blur", "mouseenter", "mouseleave", "load"})


@dataclass
class FakeEvent:
    type: str
    target: FakeElement
    key: str | None = None
    files: list[FakeFile] | None = None  # a drop's dataTransfer.files
    default_prevented: bool = False
    newURL: str | None = None  # a hashchange's new address (HashChangeEvent.newURL)


@dataclass
class FakeFile:
    """A file a test "uploads" or "drops": its name and bytes."""

    name: str
    data: bytes

    @property
    def size(self) -> int:
        return len(self.data)


class FakeTask:
    """A coroutine the fake port drives by hand (no event loop needed, so tests run the
    same on CPython and inside Pyodide). Only `await port.sleep(...)` suspends it."""

    def __init__(self, coro: Any) -> None:
        self.coro = coro
        self.finished = False
        self.cancelled = False
        self._cancel_requested = False

    def cancel(self) -> bool:
        if self.finished:
            return False
        self._cancel_requested = True
        return True

    def __del__(self) -> None:
        # subtle: a task a test never drove is closed quietly (no "never awaited" warning)
        if not self.finished:
            self.coro.close()

    def done(self) -> bool:
        return self.finished

    def step(self) -> None:
        """Run the coroutine to its next suspension (or its end)."""
        try:
            if self._cancel_requested:
                self.coro.throw(asyncio.CancelledError())
            else:
                self.coro.send(None)
        except StopIteration:
            self.finished = True
        except asyncio.CancelledError:
            self.finished = self.cancelled = True
        except BaseException:
            self.finished = True
            raise


class _Suspend:
    """An awaitable that suspends a hand-driven coroutine once."""

    def __await__(self):
        yield None


class FakePort:
    """`dom.BrowserPort`'s API over `FakeElement`s. Extra helpers for tests: `dispatch`,
    `input`, `click`, `drive`/`settle` (run async work by hand), `clock`, `fetchable`."""

    def __init__(self, document: FakeElement | None = None) -> None:
        self.document = document if document is not None else FakeElement("#document")
        self._error_sink: Callable[[BaseException], None] | None = None
        self.errors: list[BaseException] = []
        self.tasks: list[FakeTask] = []  # async handlers and spawned work, driven by `drive`/`settle`
        self.clock = 0.0  # seconds; `sleep` moves it on, and so does each look at it (`now`)
        # work takes time in a real page: each `now()` finds the clock this much later, so a
        # task that slices its work by elapsed time (tasks.train) hands back here too
        self.work_tick = 0.001
        self.fetchable: dict[str, str] = {}  # url -> text, for `fetch_text`
        self.pickers_opened: list[FakeElement] = []  # inputs whose file picker `open_picker` opened
        self.compute_session: Any = None  # the in-process compute session (`compute`), made on first use
        self.compute_requests: list[dict[str, Any]] = []  # what `compute` was asked
        self.compute_budgets: list[float | None] = []  # ... and the budget of each
        # true for a request with a budget (a pattern check) stands for a worker that did not
        # answer within it: the clock moves on by the budget, the worker is terminated
        self.compute_hangs: Callable[[str], bool] = lambda request: False
        self.compute_terminated = 0
        self.compute_crash: Callable[[str], bool] = lambda request: False
        self.computing = False  # a `compute` call holds the session (the others wait their turn)
        self.compute_warmed = 0  # `warm_compute` calls
        self.focused: FakeElement | None = None
        self.scrolled_into_view: list[FakeElement] = []  # every `scroll_into_view`, in order
        self.default_width = 640.0  # what `width` reports (a test can set data-fake-width)
        self.href = "http://127.0.0.1:8000/index.html"  # the page's address (query and fragment too)
        self.window_listeners: dict[str, list[Callable[[Any], Any]]] = {}
        self.selected: FakeElement | None = None
        self.clipboard: str | None = None  # what `copy_text` copied
        self.clipboard_allowed = True
        self.downloads: list[tuple[str, str, str]] = []  # (name, text, mime) of each `download`
        self.session: dict[str, str] = {}  # sessionStorage (a test's "reload" passes it on)
        self.session_quota = 5_000_000  # characters one value may have
        # the corpus store (IndexedDB in the browser): key -> (text, when kept); a test's
        # "reload" passes it on; `store_refusal` set: the browser refuses (private mode, quota)
        self.store: dict[str, tuple[str, float]] = {}
        self.store_refusal = ""
        self.height_watchers: list[Callable[[int], Any]] = []  # `watch_height`; `resize` calls them
        self.posted: list[Any] = []  # every `post_to_parent` message, in order
        self.posted_to: list[str] = []  # ... and the origin each was posted to
        self.parent_listeners: list[Callable[[str, Any], None]] = []

    @classmethod
    def from_html(cls, html: str) -> FakePort:
        builder = _TreeBuilder()
        builder.feed(html)
        builder.close()
        return cls(builder.root)

    # --- finding and making elements ------------------------------------------------
    def query(self, selector: str, root: FakeElement | None = None) -> FakeElement:
        found = select_all(root if root is not None else self.document, selector)
        if not found:
            raise LookupError(f"the page has no element matching {selector!r}; check index.html")
        return found[0]

    def query_all(self, selector: str, root: FakeElement | None = None) -> list[FakeElement]:
        return select_all(root if root is not None else self.document, selector)

    def create(self, tag: str, class_name: str | None = None, text: str | None = None) -> FakeElement:
        el = FakeElement(tag, {"class": class_name} if class_name else None)
        if text is not None:
            el.append(text)
        return el

    def create_svg(self, tag: str, class_name: str | None = None) -> FakeElement:
        el = FakeElement(tag, {"class": class_name} if class_name else None)
        el.svg = True
        return el

    def clone_template(self, template_id: str) -> FakeElement:
        template = self.query(f"template#{template_id}")
        assert template.content is not None
        elements = [c for c in template.content if isinstance(c, FakeElement)]
        if not elements:
            raise LookupError(f"<template id={template_id!r}> is empty; check index.html")
        return elements[0].clone()

    # --- content and attributes -----------------------------------------------------
    def set_text(self, el: FakeElement, text: str) -> None:
        for child in el.element_children:
            child.parent = None
        el.children = [str(text)] if text != "" else []

    def text(self, el: FakeElement) -> str:
        return el.text_content

    def set_attr(self, el: FakeElement, name: str, value: str) -> None:
        el.attrs[name] = str(value)

    def get_attr(self, el: FakeElement, name: str) -> str | None:
        return el.attrs.get(name)

    def remove_attr(self, el: FakeElement, name: str) -> None:
        el.attrs.pop(name, None)

    def set_hidden(self, el: FakeElement, hidden: bool) -> None:
        if hidden:
            el.attrs["hidden"] = ""
            if self.contains_focus(el):
                self.focused = None  # as in a browser: focus inside a hidden element drops to <body>
        else:
            el.attrs.pop("hidden", None)

    def toggle_class(self, el: FakeElement, class_name: str, on: bool) -> None:
        classes = [c for c in el.class_list if c != class_name] + ([class_name] if on else [])
        el.attrs["class"] = " ".join(classes)

    def value(self, el: FakeElement) -> str:
        return el.value

    def set_value(self, el: FakeElement, value: str) -> None:
        el.value = value

    def checked(self, el: FakeElement) -> bool:
        return "checked" in el.attrs

    def set_checked(self, el: FakeElement, on: bool) -> None:
        if on:
            if el.attrs.get("type") == "radio" and "name" in el.attrs:
                for other in self.query_all(f'input[name="{el.attrs["name"]}"]'):
                    other.attrs.pop("checked", None)
            el.attrs["checked"] = ""
        else:
            el.attrs.pop("checked", None)

    def set_disabled(self, el: FakeElement, disabled: bool) -> None:
        if disabled:
            el.attrs["disabled"] = ""
            if self.focused is el:
                self.focused = None  # as in a browser: a disabled control loses focus to <body>
        else:
            el.attrs.pop("disabled", None)

    def focus(self, el: FakeElement) -> None:
        """Move focus to `el`; as in a browser, `focus` and the bubbling `focusin` fire on it
        (and a disabled control does not take it)."""
        if self.focused is el or "disabled" in el.attrs:
            return
        self.focused = el
        self.dispatch(el, "focus")
        self.dispatch(el, "focusin")

    def contains_focus(self, el: FakeElement) -> bool:
        node = self.focused
        while node is not None:
            if node is el:
                return True
            node = node.parent
        return False

    def scroll_into_view(self, el: FakeElement) -> None:
        self.scrolled_into_view.append(el)

    def set_style(self, el: FakeElement, prop: str, value: str) -> None:
        el.style[prop] = value

    def width(self, el: FakeElement) -> float:
        return float(el.attrs.get("data-fake-width", self.default_width))

    # --- tree edits -----------------------------------------------------------------
    def append(self, parent: FakeElement, child: FakeElement) -> None:
        parent.append(child)

    def replace_children(self, parent: FakeElement, children: list[FakeElement]) -> None:
        for child in parent.element_children:
            self._release(child)
            child.parent = None
        parent.children = []
        for child in children:
            parent.append(child)

    def clear(self, parent: FakeElement) -> None:
        self.replace_children(parent, [])

    def build(self, spec: Any, checked: bool = False) -> FakeElement | str:
        if not checked:
            _json_spec(spec)
        if isinstance(spec, str):
            return spec
        tag, attrs, *children = spec
        svg = tag.startswith("svg:")
        el = FakeElement(tag[4:] if svg else tag, {k: str(v) for k, v in (attrs or {}).items()})
        el.svg = svg
        for child in children:
            el.append(self.build(child, checked=True))
        return el

    def build_into(self, parent: FakeElement, specs: list[Any]) -> None:
        _json_spec(specs, many=True)
        for child in parent.element_children:
            self._release(child)
            child.parent = None
        parent.children = []
        for spec in specs:
            parent.append(self.build(spec, checked=True))

    def build_more(self, parent: FakeElement, specs: list[Any]) -> None:
        _json_spec(specs, many=True)
        for spec in specs:
            parent.append(self.build(spec, checked=True))

    def remove(self, el: FakeElement) -> None:
        self._release(el)
        el.detach()

    def _release(self, root: FakeElement) -> None:
        for el in root.iter():
            el.listeners.clear()
            if self.focused is el:
                self.focused = None  # as in a browser: a removed element's focus drops to <body>

    # --- events ---------------------------------------------------------------------
    def set_error_sink(self, sink: Callable[[BaseException], None]) -> None:
        self._error_sink = sink

    def on(self, el: FakeElement, event: str, handler: Callable[[Any], Any]) -> None:
        el.listeners.setdefault(event, []).append(handler)

    def spawn(self, coro: Any) -> FakeTask:
        task = FakeTask(coro)
        self.tasks.append(task)
        return task

    async def sleep(self, seconds: float) -> None:
        self.clock += seconds
        await _Suspend()

    def now(self) -> float:
        self.clock += self.work_tick
        return self.clock

    # --- events' details, files and the network ----------------------------------------
    def key(self, event: FakeEvent) -> str:
        return event.key or ""

    def event_target(self, event: FakeEvent) -> FakeElement:
        return event.target

    def closest(self, el: FakeElement | None, selector: str) -> FakeElement | None:
        compounds = _parse_selector(selector)
        node = el
        while node is not None:
            if node.tag != "#document" and _matches(node, compounds):
                return node
            node = node.parent
        return None

    def prevent_default(self, event: FakeEvent) -> None:
        event.default_prevented = True

    def default_prevented(self, event: FakeEvent) -> bool:
        return event.default_prevented

    def input_files(self, el: FakeElement) -> list[FakeFile]:
        return list(getattr(el, "files", []))

    def clear_files(self, el: FakeElement) -> None:
        el.files = []

    def open_picker(self, el: FakeElement) -> None:
        self.pickers_opened.append(el)  # a test then sets el.files and fires "change"

    def dropped_files(self, event: FakeEvent) -> list[FakeFile]:
        return list(event.files or [])

    def file_name(self, file: FakeFile) -> str:
        return file.name

    def file_size(self, file: FakeFile) -> int:
        return file.size

    async def file_bytes(self, file: FakeFile) -> bytes:
        return file.data

    async def fetch_text(self, url: str) -> str:
        if url not in self.fetchable:
            raise OSError(f"could not load {url}: HTTP 404")
        return self.fetchable[url]

    async def fetch_bytes(self, url: str) -> bytes:
        text = await self.fetch_text(url)
        return text if isinstance(text, bytes) else text.encode("utf-8")

    # --- the address, the clipboard and downloads ---------------------------------------
    def location_href(self) -> str:
        return self.href

    def location_search(self) -> str:
        query = self.href.split("#", 1)[0].partition("?")[2]
        return f"?{query}" if query else ""

    def location_hash(self) -> str:
        fragment = self.href.partition("#")[2]
        return f"#{fragment}" if fragment else ""

    def session_get(self, key: str) -> str | None:
        return self.session.get(key)

    def session_set(self, key: str, value: str | None) -> bool:
        if value is None:
            self.session.pop(key, None)
        elif len(value) > self.session_quota:
            return False
        else:
            self.session[key] = value
        return True

    async def store_put(self, key: str, text: str) -> str:
        if self.store_refusal:
            return self.store_refusal
        self.store[key] = (text, max((saved for _text, saved in self.store.values()), default=0.0) + 1)
        return ""

    async def store_get(self, key: str) -> str | None:
        kept = self.store.get(key)
        return kept[0] if kept else None

    async def store_keys(self) -> list[tuple[str, float]]:
        return [(key, saved) for key, (_text, saved) in self.store.items()]

    async def store_delete(self, key: str) -> None:
        self.store.pop(key, None)

    def replace_address(self, url: str) -> None:
        self.href = url  # like history.replaceState: no hashchange

    def on_window(self, event: str, handler: Callable[[Any], Any]) -> None:
        self.window_listeners.setdefault(event, []).append(handler)

    def fire_window(self, event: str, new_url: str | None = None) -> FakeEvent:
        """Test helper: fire a `window` event (e.g. `hashchange` after changing `href`, or
        `beforeunload`: its `default_prevented` says whether the page asks before leaving)."""
        ev = FakeEvent(type=event, target=self.document, newURL=(new_url or self.href) if event == "hashchange" else None)
        for handler in list(self.window_listeners.get(event, [])):
            try:
                result = handler(ev)
                if inspect.iscoroutine(result):
                    self.spawn(result)
            except Exception as exc:  # noqa: BLE001 - mirrors BrowserPort
                self._report(exc)
        return ev

    def watch_height(self, handler: Callable[[int], Any]) -> None:
        self.height_watchers.append(handler)

    def resize(self, height: int) -> None:
        """Test helper: the page's content is now `height` px tall (a ResizeObserver fires)."""
        for handler in list(self.height_watchers):
            try:
                handler(height)
            except Exception as exc:  # noqa: BLE001 - mirrors BrowserPort
                self._report(exc)

    def post_to_parent(self, message: dict[str, Any] | str, target_origin: str = "*") -> None:
        self.posted.append(dict(message) if isinstance(message, dict) else message)
        self.posted_to.append(target_origin)

    def on_parent_message(self, handler: Callable[[str, Any], None]) -> None:
        self.parent_listeners.append(handler)

    def message_from_parent(self, origin: str, data: Any) -> None:
        """Test helper: the embedding page posts `data` from `origin` (as JSON carries it)."""
        for handler in list(self.parent_listeners):
            handler(origin, json.loads(json.dumps(data)))

    def select(self, el: FakeElement) -> None:
        self.selected = el

    async def copy_text(self, text: str) -> bool:
        if not self.clipboard_allowed:
            return False
        self.clipboard = text
        return True

    def download(self, name: str, text: str, mime: str) -> None:
        self.downloads.append((name, text, mime))

    def svg_tree(self, el: FakeElement, props: list[str]) -> Any:
        """As the browser's, with the inline styles standing in for the computed ones."""
        styles = {p: el.style[p] for p in props if p in el.style}
        children = [c if isinstance(c, str) else self.svg_tree(c, props) for c in el.children]
        return (el.tag, dict(el.attrs), styles, children)

    async def download_png(self, name: str, svg_text: str, width: float, height: float, scale: float) -> bool:
        """Recorded as a download of the SVG the browser would draw (mime image/png)."""
        self.downloads.append((name, svg_text, "image/png"))
        return True

    def warm_compute(self) -> None:
        """Counts the calls (`compute_warmed`): the browser starts its worker booting."""
        self.compute_warmed += 1

    def compute_started(self) -> bool:
        """Whether a worker was started (warmed, or asked something: the browser then keeps one)."""
        return self.compute_warmed > 0 or bool(self.compute_requests)

    @property
    def pattern_checks(self) -> list[dict[str, Any]]:
        """The pattern guard's checks among `compute_requests` (op "check_patterns"), one dict
        a check (a request of several, ``"checks"``, gives each of its own)."""
        return [{"op": r["op"], **one} if "checks" in r else r for r in self.compute_requests
                if r.get("op") == "check_patterns" for one in r.get("checks", [r])]

    async def compute(self, request: str, corpus: str | None, on_reply: Callable[[str], None],
                      budget: float | list[float] | None = None) -> None:
        """The compute session, in-process (session.py, on the fake clock): each reply is
        handed to `on_reply` in a browser turn of its own, as the worker's messages come.
        A cancelled task stands for a terminated worker (`compute_terminated` counts them),
        except a budgeted one (a pattern check: the browser lets it finish);
        `compute_crash(request)` true stands for a worker that died (an `OSError`), and
        `compute_hangs(request)` true for a budgeted request that was late (`TimeoutError`,
        the worker terminated)."""
        while self.computing:  # one task at a time, as in the browser (its turn lock)
            await _Suspend()
        self.computing = True
        try:
            await self._compute(request, corpus, on_reply, budget)
        finally:
            self.computing = False

    async def _compute(self, request: str, corpus: str | None, on_reply: Callable[[str], None],
                       budget: float | list[float] | None) -> None:
        import json

        from subwordlab_web.session import ComputeSession

        self.compute_requests.append(json.loads(request))
        self.compute_budgets.append(budget)
        if self.compute_session is None:
            self.compute_session = ComputeSession(clock=self.now)
        await _Suspend()
        if self.compute_crash(request):
            self.compute_session = None
            raise OSError("the compute worker stopped: out of memory")
        budgets = [budget] if isinstance(budget, (int, float)) else budget
        parsed = json.loads(request)
        # a request of several pattern checks: hangs on the first whose own request hangs,
        # after the replies before it (each within its own budget, as the page times them)
        singles = ([json.dumps({"op": parsed["op"], **one}) for one in parsed["checks"]] if "checks" in parsed
                   else [request])
        hangs = next((k for k, one in enumerate(singles) if budgets is not None and self.compute_hangs(one)), None)
        replies = self.compute_session.replies(parsed, corpus)
        try:
            k = 0
            while k != hangs:  # (the hanging check is never run: its regex could take hours)
                reply = next(replies, None)
                if reply is None:
                    break
                on_reply(json.dumps(reply))
                await _Suspend()
                k += 1
            if hangs is not None:
                replies.close()
                late = budgets[min(hangs, len(budgets) - 1)]
                self.clock += late
                self.compute_session = None  # terminated: the next task gets a fresh worker
                self.compute_terminated += 1
                raise TimeoutError(f"the compute worker did not answer within {late:.1f} s")
        except asyncio.CancelledError:
            replies.close()
            if budget is None:
                self.compute_session = None  # terminated: the next task gets a fresh worker
                self.compute_terminated += 1
            raise

    def listener_count(self) -> int:
        return (sum(len(h) for el in self.document.iter() for h in el.listeners.values())
                + sum(len(h) for h in self.window_listeners.values()))

    def dispatch(self, el: FakeElement, event: str, **props: Any) -> FakeEvent:
        """Fire `event` at `el` like a browser would (handlers' errors go to the sink);
        async handlers start as tasks, run by `drive`/`settle`."""
        ev = FakeEvent(type=event, target=el, **props)
        node: FakeElement | None = el
        while node is not None:
            for handler in list(node.listeners.get(event, [])):
                try:
                    result = handler(ev)
                    if inspect.iscoroutine(result):
                        self.spawn(result)
                except Exception as exc:  # noqa: BLE001 - mirrors BrowserPort
                    self._report(exc)
            # subtle: like the browser, most events bubble up to the ancestors' listeners
            node = node.parent if event not in _NON_BUBBLING else None
        return ev

    def input(self, el: FakeElement, value: str, event: str = "input") -> None:
        """Type `value` into a field: set it, then fire `input` (or `change`)."""
        el.value = value
        self.dispatch(el, event)

    def click(self, el: FakeElement) -> None:
        if "disabled" in el.attrs:
            raise AssertionError(f"{el!r} is disabled")
        self.dispatch(el, "click")

    def drive(self, rounds: int = 1) -> None:
        """Let every live task run to its next `sleep`, `rounds` times (a browser turn each)."""
        for _ in range(rounds):
            for task in list(self.tasks):
                if task.finished:
                    continue
                try:
                    task.step()
                except Exception as exc:  # noqa: BLE001 - mirrors BrowserPort's task errors
                    self._report(exc)
            self.tasks = [t for t in self.tasks if not t.finished]

    def settle(self, max_rounds: int = 1_000_000) -> None:
        """Run every task (and the tasks they start) to its end."""
        rounds = 0
        while self.tasks:
            self.drive()
            rounds += 1
            if rounds > max_rounds:
                raise AssertionError(f"tasks still running after {max_rounds} rounds")

    def _report(self, exc: BaseException) -> None:
        self.errors.append(exc)
        if self._error_sink is not None:
            self._error_sink(exc)

    def teardown(self) -> None:
        for el in self.document.iter():
            el.listeners.clear()
        self.window_listeners.clear()
        self.height_watchers.clear()
        for task in self.tasks:
            task.coro.close()
        self.tasks.clear()

    def __del__(self) -> None:
        # subtle: a test may drop a port with tasks never driven; close them quietly
        for task in getattr(self, "tasks", []):
            task.coro.close()


def _json_spec(spec: Any, many: bool = False) -> None:
    """The browser's port sends element specs to JavaScript as JSON text (dom.py): a spec
    that is not plain JSON data (strings, lists, dicts of strings, None) fails here as it
    would there, and so does a text child that is not a string."""
    json.dumps(spec, allow_nan=False)  # (JSON.parse refuses NaN and Infinity)

    def walk(node: Any) -> None:
        if isinstance(node, str):
            return
        assert isinstance(node, (list, tuple)) and node and isinstance(node[0], str), f"not an element spec: {node!r}"
        assert node[1] is None or isinstance(node[1], dict), f"attributes must be a dict or None: {node!r}"
        for child in node[2:]:
            walk(child)

    for item in spec if many else [spec]:
        walk(item)
