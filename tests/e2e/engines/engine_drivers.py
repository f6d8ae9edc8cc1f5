"""A small driver-neutral layer: one set of journeys runs in every browser engine.

Chromium and Firefox are driven by Playwright (Firefox through its WebDriver BiDi channel,
Debian's firefox-esr); WebKitGTK by Selenium and Debian's WebKitWebDriver, which starts
MiniBrowser. Each `Session` is one cold browser session (its own HTTP cache) with the same
verbs: goto, click, fill, select, press, upload, download, screenshot, frame, and `js`
(evaluate a function body that sees its arguments as `args`; a returned promise is awaited).
Everything else (reading text, waiting for a condition) is built once on `js`.

    s = new_session()                     # the engines/conftest.py fixture
    s.goto(site_url); s.wait_ready()
    s.click("#tab-train"); s.wait_text("#train-step-now", "8")

Every session fails its test on a console error, an uncaught page error, a request that
leaves 127.0.0.1, a boot error or a Python traceback in the page (`check()`).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

READY_TIMEOUT_S = 240.0  # WebKitGTK boots Pyodide in ~40 s on a loaded 2-core machine
WAIT_TIMEOUT_S = 60.0


_VISIBLE = ("const e = document.querySelector(args[0]); "
            "return !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden'")


class EngineTimeout(AssertionError):
    pass


class ProxyLog:
    """This session's share of the off-host recorder (a proxy every non-127.0.0.1 request
    goes to, see conftest.off_host_recorder): the request lines it saw since the session began."""

    def __init__(self, lines: list[str] | None) -> None:
        self.lines, self.start = lines, len(lines) if lines is not None else 0

    def seen(self) -> list[str]:
        return [f"request off 127.0.0.1: {line}" for line in (self.lines or [])[self.start:]]

    def forget(self) -> None:
        # subtle: the list is shared by every session; only the session that made these
        # requests is open after `start`, so removing them hides nothing from the others
        if self.lines is not None:
            del self.lines[self.start:]


class Session:
    """The verbs every engine implements, and the checks built on them."""

    engine = ""
    download_dir: Path
    closed = False
    boot_ms = 0.0  # the app's time to ready when this session first loaded it (conftest.shared_app)

    # --- driver-specific verbs (subclasses) -------------------------------------------
    def goto(self, url: str) -> None: raise NotImplementedError
    def click(self, selector: str) -> None: raise NotImplementedError
    def fill(self, selector: str, text: str) -> None: raise NotImplementedError
    def select(self, selector: str, value: str) -> None: raise NotImplementedError
    def press(self, selector: str, key: str) -> None: raise NotImplementedError
    def upload(self, selector: str, files: list[tuple[str, bytes]]) -> None: raise NotImplementedError
    def reload(self) -> None: raise NotImplementedError
    def screenshot(self, path: Path) -> None: raise NotImplementedError
    def frame(self, selector: str) -> contextlib.AbstractContextManager[Session]: raise NotImplementedError
    def js(self, body: str, *args: Any) -> Any: raise NotImplementedError
    def problems(self) -> list[str]: raise NotImplementedError
    def forget_problems(self) -> None: raise NotImplementedError
    def close(self) -> None: raise NotImplementedError

    # --- waiting ------------------------------------------------------------------------
    def wait(self, body: str, *args: Any, timeout: float = WAIT_TIMEOUT_S, what: str = "") -> Any:
        """Poll `body` (a function body, like `js`) until it returns something truthy."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            try:
                last = self.js(body, *args)
            except Exception as exc:  # (only a document replaced while we polled it is let go)
                # (an iframe entered while still about:blank navigates to its src under the
                # script: WebKitGTK's driver says "Callback was not called before the unload
                # event"; the next poll runs in the new document)
                if "unload" not in str(exc) or time.monotonic() > deadline:
                    raise
                last = None
            if last:
                return last
            if time.monotonic() > deadline:
                raise EngineTimeout(f"[{self.engine}] waited {timeout:.0f} s for {what or body}; last value {last!r}")
            time.sleep(0.1)

    def wait_for(self, selector: str, timeout: float = WAIT_TIMEOUT_S) -> None:
        self.wait("return !!document.querySelector(args[0])", selector, timeout=timeout, what=f"{selector} to exist")

    def wait_text(self, selector: str, text: str, timeout: float = WAIT_TIMEOUT_S, contains: bool = False) -> None:
        got = self.wait(
            "const e = document.querySelector(args[0]); if (!e) return false;"
            "const t = e.textContent; return (args[2] ? t.includes(args[1]) : t === args[1]) ? [t] : false",
            selector, text, contains, timeout=timeout, what=f"{selector} to {'contain' if contains else 'read'} {text!r}")
        assert got

    def wait_attr(self, selector: str, name: str, value: str, timeout: float = WAIT_TIMEOUT_S) -> None:
        self.wait("const e = document.querySelector(args[0]); return !!e && e.getAttribute(args[1]) === args[2]",
                  selector, name, value, timeout=timeout, what=f"{selector}[{name}={value!r}]")

    def wait_visible(self, selector: str, timeout: float = WAIT_TIMEOUT_S) -> None:
        self.wait(_VISIBLE, selector, timeout=timeout, what=f"{selector} visible")

    def visible(self, selector: str) -> bool:
        return bool(self.js(_VISIBLE, selector))

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        """The app booted (body[data-ready]); fails on a boot error or anything `check` finds."""
        self.wait("return document.body && (document.body.hasAttribute('data-ready') || "
                  "document.body.hasAttribute('data-boot-error'))", timeout=timeout, what="body[data-ready]")
        self.check()

    # --- reading ------------------------------------------------------------------------
    def text(self, selector: str) -> str:
        return self.js("const e = document.querySelector(args[0]); return e ? e.textContent : null", selector)

    def value(self, selector: str) -> str:
        return self.js("return document.querySelector(args[0]).value", selector)

    def attr(self, selector: str, name: str) -> str | None:
        return self.js("return document.querySelector(args[0]).getAttribute(args[1])", selector, name)

    def texts(self, selector: str) -> list[str]:
        return self.js("return [...document.querySelectorAll(args[0])].map(e => e.textContent)", selector)

    def dataset(self, selector: str, *keys: str) -> list[list[str]]:
        """[[el.dataset[k] for k in keys] for each element matching `selector`]."""
        return self.js("return [...document.querySelectorAll(args[0])].map(e => args[1].map(k => e.dataset[k]))",
                       selector, list(keys))

    def rows(self, selector: str) -> list[list[str]]:
        return self.js("return [...document.querySelectorAll(args[0])].map(r => [...r.cells].map(c => c.textContent))",
                       selector)

    def set_range(self, selector: str, value: int) -> None:
        """Move a slider to `value`, as dragging it does (an input, then a change event)."""
        self.js("const e = document.querySelector(args[0]); e.focus(); e.value = String(args[1]);"
                "e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true}))",
                selector, value)

    # --- downloads ----------------------------------------------------------------------
    def download(self, button: str, timeout: float = WAIT_TIMEOUT_S) -> tuple[str, bytes]:
        """Click `button` and return (file name, bytes) of the file the browser saved in
        its downloads folder (a browser writes a partial file first, then renames it)."""
        before = set(os.listdir(self.download_dir))
        self.click(button)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            new = [n for n in set(os.listdir(self.download_dir)) - before if not n.endswith((".part", ".download"))]
            if new:
                path = self.download_dir / new[0]
                size = -1
                while size != path.stat().st_size:  # settled
                    size = path.stat().st_size
                    time.sleep(0.2)
                return new[0], path.read_bytes()
            time.sleep(0.1)
        raise EngineTimeout(f"[{self.engine}] no file reached {self.download_dir} within {timeout:.0f} s of clicking {button}")

    # --- checks -------------------------------------------------------------------------
    def check(self) -> None:
        problems = self.problems() + self.page_problems()
        if problems:
            pytest.fail(f"[{self.engine}] " + "\n".join(problems), pytrace=False)

    def page_problems(self) -> list[str]:
        if self.closed:
            return []
        found = self.js("""const b = document.body; if (!b) return [];
            const out = [];
            if (b.hasAttribute('data-boot-error')) {
              const d = document.querySelector('#boot-error');
              out.push('boot failed while ' + b.getAttribute('data-boot-error') + ': ' + (d ? d.textContent : '').trim());
            }
            const t = b.textContent || '';
            if (t.includes('Traceback')) out.push('the page shows a Python traceback:\\n' + t.slice(t.indexOf('Traceback'), 2000));
            return out""")
        return list(found or [])


# --- Playwright: Chromium and Firefox -----------------------------------------------------
def write_files(parent: Path, files: list[tuple[str, bytes]]) -> list[str]:
    """Write `files` into a new folder under `parent` (the session's own temporary folder);
    their paths, for a file field."""
    folder = parent / f"upload-{time.monotonic_ns()}"
    folder.mkdir()
    for name, data in files:
        (folder / name).write_bytes(data)
    return [str(folder / name) for name, _ in files]


class PlaywrightSession(Session):
    """A Playwright page (or one of its frames) in its own browser context."""

    def __init__(self, engine: str, context: Any, download_dir: Path, guard_class: Any,
                 target: Any = None, guard: Any = None, proxy_log: list[str] | None = None) -> None:
        self.engine = engine
        self.proxy = ProxyLog(proxy_log)  # Firefox: Playwright's request routing misses some requests
        self.context = context
        self.download_dir = download_dir
        if target is None:
            page = context.new_page()
            guard = guard_class(page)  # tests/e2e's PageGuard: console, page errors, requests
            target = page
        self.target, self.guard = target, guard

    def goto(self, url: str) -> None:
        self.target.goto(url)

    def click(self, selector: str) -> None:
        self.target.click(selector)

    def fill(self, selector: str, text: str) -> None:
        if self.engine == "firefox":
            # subtle: over BiDi, fill's select-all misses a number field's text, so "400"
            # typed into "8" gave "8400"; emptying the field first is what a user's select-all does
            self.target.fill(selector, "")
        self.target.fill(selector, text)

    def select(self, selector: str, value: str) -> None:
        self.target.select_option(selector, value)

    def press(self, selector: str, key: str) -> None:
        self.target.press(selector, key)

    def upload(self, selector: str, files: list[tuple[str, bytes]]) -> None:
        if sum(len(b) for _, b in files) < 1 << 20:
            self.target.set_input_files(selector, [{"name": n, "mimeType": "text/plain", "buffer": b} for n, b in files])
            return
        # from disk: megabytes of buffer crawl through Playwright's pipe
        self.target.set_input_files(selector, write_files(self.download_dir.parent, files))

    def reload(self) -> None:
        self.guard.page.reload()

    def screenshot(self, path: Path) -> None:
        self.guard.page.screenshot(path=str(path), full_page=True)

    @contextlib.contextmanager
    def frame(self, selector: str) -> Iterator[Session]:
        handle = self.target.wait_for_selector(selector, state="attached")
        handle.scroll_into_view_if_needed()
        frame = handle.content_frame()
        inner = PlaywrightSession(self.engine, self.context, self.download_dir, None, target=frame, guard=self.guard)
        inner.proxy = self.proxy
        yield inner

    def js(self, body: str, *args: Any) -> Any:
        return self.target.evaluate(f"async (args) => {{ {body} }}", list(args))

    def download(self, button: str, timeout: float = WAIT_TIMEOUT_S) -> tuple[str, bytes]:
        if self.engine != "chromium":
            return super().download(button, timeout)  # Firefox's BiDi sends no download events
        with self.guard.page.expect_download(timeout=timeout * 1000) as info:
            self.click(button)
        return info.value.suggested_filename, Path(info.value.path()).read_bytes()

    def problems(self) -> list[str]:
        return list(self.guard.problems) + self.proxy.seen()

    def forget_problems(self) -> None:
        self.guard.problems.clear()
        self.proxy.forget()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.context.close()


# --- Selenium: WebKitGTK ---------------------------------------------------------------------
# WebKitWebDriver has no console log and no request interception, so errors are recorded in
# the page once it is ready, and the browser's proxy is a local recorder that refuses every
# request (127.0.0.1 bypasses it): anything it sees left 127.0.0.1.
_RECORD_ERRORS = """if (!window.__engineErrors) {
  const errors = window.__engineErrors = [];
  const original = console.error;
  console.error = function (...parts) { errors.push('console error: ' + parts.map(String).join(' ')); return original.apply(this, parts); };
  window.addEventListener('error', e => errors.push('page error: ' + e.message));
  window.addEventListener('unhandledrejection', e => errors.push('unhandled rejection: ' + e.reason));
}"""


class SeleniumSession(Session):
    def __init__(self, engine: str, driver: Any, download_dir: Path, proxy_log: list[str]) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        self.engine, self.driver, self.download_dir = engine, driver, download_dir
        self.proxy = ProxyLog(proxy_log)
        self._by, self._keys = By, Keys
        self._errors: list[str] = []

    def _el(self, selector: str, timeout: float = WAIT_TIMEOUT_S) -> Any:
        self.wait_for(selector, timeout)
        return self.driver.find_element(self._by.CSS_SELECTOR, selector)

    def goto(self, url: str) -> None:
        self._collect_errors()
        self.driver.get(url)

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        super().wait_ready(timeout)
        self.js(_RECORD_ERRORS)

    def click(self, selector: str) -> None:
        self.wait("const e = document.querySelector(args[0]); return !!e && !e.disabled && e.getClientRects().length > 0",
                  selector, what=f"{selector} to be clickable")
        self._el(selector).click()

    def fill(self, selector: str, text: str) -> None:
        el = self._el(selector)
        if len(text) <= 200 and all(" " <= c < "\ud800" for c in text):
            # type it, as a user does: select all, delete, type (so Enter then commits it)
            el.send_keys(self._keys.CONTROL, "a")
            el.send_keys(self._keys.DELETE)
            if text:
                el.send_keys(text)
            return
        # subtle: WebDriver cannot type a tab or an emoji into a field (and typing a long
        # text is slow), so set the value and fire the input event typing would fire
        self.js("const e = document.querySelector(args[0]); e.focus(); e.value = args[1];"
                "e.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertText', data: args[1]}))",
                selector, text)

    def select(self, selector: str, value: str) -> None:
        from selenium.webdriver.support.select import Select

        Select(self._el(selector)).select_by_value(value)

    def press(self, selector: str, key: str) -> None:
        self._el(selector).send_keys(getattr(self._keys, key.upper()))

    def upload(self, selector: str, files: list[tuple[str, bytes]]) -> None:
        self._el(selector).send_keys("\n".join(write_files(self.download_dir.parent, files)))

    def reload(self) -> None:
        self._collect_errors()
        self.driver.refresh()

    def screenshot(self, path: Path) -> None:
        self.driver.save_screenshot(str(path))

    @contextlib.contextmanager
    def frame(self, selector: str) -> Iterator[Session]:
        el = self._el(selector)
        self.driver.execute_script("arguments[0].scrollIntoView()", el)
        self.driver.switch_to.frame(el)
        try:
            yield self
        finally:
            self.driver.switch_to.default_content()

    def js(self, body: str, *args: Any) -> Any:
        script = ("const done = arguments[arguments.length - 1];"
                  "const args = Array.prototype.slice.call(arguments, 0, -1);"
                  f"(async () => {{ {body} }})().then(v => done({{ok: v === undefined ? null : v}}),"
                  " e => done({error: String(e && e.stack || e)}));")
        result = self.driver.execute_async_script(script, *args)
        if "error" in result:
            raise AssertionError(f"[{self.engine}] script failed: {result['error']}\n{body}")
        return result["ok"]

    def _collect_errors(self) -> None:
        if self.closed:
            return
        try:
            found = self.js("return window.__engineErrors ? window.__engineErrors.splice(0) : []")
        except Exception:  # noqa: BLE001 - a page mid-navigation has none to give
            found = []
        self._errors += found

    def problems(self) -> list[str]:
        self._collect_errors()
        return self._errors + self.proxy.seen()

    def forget_problems(self) -> None:
        self._collect_errors()
        self._errors.clear()
        self.proxy.forget()

    def close(self) -> None:
        if not self.closed:
            self._collect_errors()
            self.closed = True
            self.driver.quit()
