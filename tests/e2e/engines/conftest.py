"""Fixtures of the engine tiers: the same journeys in Chromium, Firefox or WebKitGTK.

    pytest tests/e2e/engines                      # Chromium (also part of the e2e tier)
    pytest tests/e2e/engines --engine firefox     # Debian's firefox-esr, Playwright over BiDi
    pytest tests/e2e/engines --engine webkitgtk   # MiniBrowser via WebKitWebDriver + Selenium

WebKitGTK's MiniBrowser has no headless mode: without a DISPLAY the tier starts its own Xvfb.
"""

from __future__ import annotations

import glob
import os
import shutil
import socketserver
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from engine_drivers import PlaywrightSession, SeleniumSession, Session

FIREFOX = Path("/usr/bin/firefox-esr")
WEBKIT_DRIVER = Path("/usr/bin/WebKitWebDriver")
WINDOW = (1280, 1000)


def minibrowser() -> Path:
    found = sorted(glob.glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser"))
    if not found:
        pytest.fail("WebKitGTK's MiniBrowser is missing: apt-get install webkit2gtk-driver", pytrace=False)
    return Path(found[-1])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Firefox and WebKitGTK run the journeys marked every_engine; the others are deselected
    there (not skipped: they run, and must pass, in Chromium's e2e tier).

    In Chromium, a journey marked ``chromium_twin("file.py::test_name")`` is deselected when
    that test is collected in the same run: the twin makes the same journey in Chromium with
    every check of it and more (the two cost ~70 s of the e2e tier's CPU when both ran). When
    the twin is not collected (``pytest tests/e2e/engines`` alone), the journey runs."""
    if config.getoption("engine") == "chromium":
        def collected(test: str) -> bool:
            return any(i == test or i.startswith(test + "[") for i in ids)

        ids = [item.nodeid for item in items]
        twinned = [item for item in items
                   if (twin := item.get_closest_marker("chromium_twin")) and collected(twin.args[0])]
        if twinned:
            config.hook.pytest_deselected(items=twinned)
            items[:] = [item for item in items if item not in twinned]
        return
    kept = [item for item in items if item.get_closest_marker("every_engine")]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if not item.get_closest_marker("every_engine")])
        items[:] = kept


@pytest.fixture(scope="session")
def engine(request) -> str:
    return request.config.getoption("engine")


@pytest.fixture(scope="session")
def engine_version(launch) -> str:
    return launch.version  # type: ignore[attr-defined]


# --- WebKitGTK's surroundings: a display and a recorder of off-host requests ------------------
@pytest.fixture(scope="session")
def display() -> Iterator[str]:
    """$DISPLAY, or a private Xvfb for the session (MiniBrowser needs an X display)."""
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]
        return
    if not shutil.which("Xvfb"):
        pytest.fail("WebKitGTK needs an X display: apt-get install xvfb", pytrace=False)
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()  # Xvfb writes its display number once it is ready
    try:
        yield f":{number}"
    finally:
        xvfb.terminate()
        xvfb.wait(10)


class _Refuse(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        self.server.seen.append(self.rfile.readline(2048).decode("latin-1").strip())  # type: ignore[attr-defined]
        self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


@pytest.fixture(scope="session")
def off_host_recorder() -> Iterator[tuple[str, list[str]]]:
    """A proxy that records and refuses every request sent to it: (proxy URL, request lines)."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Refuse)
    server.daemon_threads = True
    server.seen = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", server.seen  # type: ignore[attr-defined]
    server.shutdown()
    server.server_close()


# --- launching ----------------------------------------------------------------------------------
class Launcher:
    """Makes cold sessions of one engine: `launch()` -> Session; `version` names the browser."""

    def __init__(self, make: Callable[[], Session], version: str) -> None:
        self.make, self.version = make, version

    def __call__(self) -> Session:
        return self.make()


@pytest.fixture(scope="session")
def launch(request, engine: str, tmp_path_factory, page_guard_class) -> Iterator[Launcher]:
    downloads = tmp_path_factory.mktemp(f"{engine}-downloads")
    if engine in ("chromium", "firefox"):
        if engine == "chromium":
            browser = request.getfixturevalue("browser")  # tests/e2e's Debian Chromium
        else:
            if not FIREFOX.exists():
                pytest.fail("Firefox is missing: apt-get install firefox-esr", pytrace=False)
            playwright = request.getfixturevalue("playwright")
            # Playwright's own Firefox build cannot be downloaded here; Debian's firefox-esr
            # speaks WebDriver BiDi, which Playwright reaches through the moz-firefox channel.
            # Off-host requests are also sent to the recording proxy, as in WebKitGTK: it sees
            # what Playwright's BiDi routing might not (requests of workers, of the browser)
            proxy, seen = request.getfixturevalue("off_host_recorder")
            browser = playwright.firefox.launch(channel="moz-firefox", executable_path=str(FIREFOX),
                                                headless=True, downloads_path=str(downloads),
                                                proxy={"server": proxy, "bypass": "127.0.0.1"})

        def make() -> Session:
            context = browser.new_context(accept_downloads=True, viewport={"width": WINDOW[0], "height": WINDOW[1]})
            return PlaywrightSession(engine, context, downloads, page_guard_class,
                                     proxy_log=seen if engine == "firefox" else None)

        yield Launcher(make, f"{engine} {browser.version}")
        if engine == "firefox":
            browser.close()
        return

    if engine != "webkitgtk":
        pytest.fail(f"unknown engine {engine!r}: use chromium, firefox or webkitgtk", pytrace=False)
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    if not WEBKIT_DRIVER.exists():
        pytest.fail("WebKitWebDriver is missing: apt-get install webkit2gtk-driver", pytrace=False)
    screen = request.getfixturevalue("display")
    proxy, seen = request.getfixturevalue("off_host_recorder")
    browser_path = minibrowser()
    versions: list[str] = []

    def make_webkit() -> Session:
        # each session is its own MiniBrowser with its own home: its downloads land there
        home = tmp_path_factory.mktemp("webkit-home")
        options = Options()
        options.binary_location = str(browser_path)
        for arg in ("--automation", f"--proxy={proxy}", "--ignore-host=127.0.0.1"):
            options.add_argument(arg)
        env = {**os.environ, "HOME": str(home), "DISPLAY": screen, "XDG_CONFIG_HOME": str(home / ".config"),
               "XDG_CACHE_HOME": str(home / ".cache"), "XDG_DATA_HOME": str(home / ".local")}
        driver = webdriver.WebKitGTK(options=options, service=Service(executable_path=str(WEBKIT_DRIVER), env=env))
        driver.set_window_size(*WINDOW)
        driver.set_script_timeout(600)
        versions[:] = [driver.capabilities.get("browserVersion", "?")]
        return SeleniumSession(engine, driver, home, seen)

    first = make_webkit()  # fail early, and learn the version
    pool = [first]

    def make() -> Session:
        return pool.pop() if pool else make_webkit()

    yield Launcher(make, f"webkitgtk {versions[0]} (MiniBrowser)")
    for session in pool:
        session.close()


@pytest.fixture
def new_session(launch: Launcher) -> Iterator[Callable[[], Session]]:
    """A factory of cold sessions; each is checked and closed at teardown."""
    opened: list[Session] = []

    def make() -> Session:
        session = launch()
        opened.append(session)
        return session

    yield make
    try:
        for session in opened:
            session.check()
    finally:
        for session in opened:
            session.close()


@pytest.fixture(scope="module")
def shared_app(launch: Launcher, site_url: str) -> Iterator[Session]:
    """One session with the app loaded, shared by a module's journeys (a boot is ~20 s in
    WebKitGTK here); each journey starts by choosing what it needs. Its boot is a cold
    session's, checked here (the core's version shown, the textbook example trained, no
    console error or request off 127.0.0.1), its time to ready kept as ``boot_ms`` (for
    test_boot_is_clean_and_timed, which then needs no boot of its own)."""
    import subwordlab
    from subwordlab_web.samples import SAMPLES

    session = launch()
    session.goto(site_url)
    session.wait_ready()
    session.boot_ms = session.js("return window.__bootTimes.ready")
    session.wait_text("#core-version", f"core v{subwordlab.__version__}")
    session.wait_attr("#panel-train", "data-status", "done")
    session.wait_text("#context-corpus", SAMPLES["seed000"].title)
    session.check()
    yield session
    session.close()


@pytest.fixture
def app(shared_app: Session) -> Iterator[Session]:
    """The shared app, checked after each journey."""
    yield shared_app
    shared_app.check()
