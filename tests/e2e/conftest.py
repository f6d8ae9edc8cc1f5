"""End-to-end tier: the built site (dist/site) served on 127.0.0.1, driven by Playwright.

Nothing is built here (scripts/test.sh builds the site first). Every page a test opens
through `app_page` / `guard` fails the test on a page error, a console error, a request
that leaves 127.0.0.1, a boot error, or a Python traceback in the page text.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "dist" / "site"
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
READY_TIMEOUT_MS = 60_000  # cold start under load was 3-4 s; CI machines can be much slower

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def _load_serve_module():
    # subtle: build/ is not a package (and `build` is also the name of PyPA's builder),
    # so load build/serve.py by path.
    spec = importlib.util.spec_from_file_location("subwordlab_serve", REPO / "build" / "serve.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


serve = _load_serve_module()


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "every_engine: an engine journey that Firefox and WebKitGTK run too "
                                       "(tests/e2e/engines; the rest run in Chromium only)")
    config.addinivalue_line("markers", "chromium_twin(test): in Chromium, this engine journey is made (with every "
                                       "check of it) by that test of the e2e tier, and deselected when it runs")


def pytest_addoption(parser) -> None:
    parser.addoption("--engine", default="chromium", choices=("chromium", "firefox", "webkitgtk"),
                     help="the browser engine of tests/e2e/engines (the same journeys in each)")


@pytest.fixture(scope="session")
def built_site() -> Path:
    """dist/site, which scripts/test.sh builds before this tier runs."""
    if not (SITE / "index.html").exists():
        pytest.fail(f"{SITE} is not built; run: python build/build_site.py", pytrace=False)
    return SITE


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    server, url = serve.start_server(built_site)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture
def serve_folder() -> Iterator:
    """A factory: serve_folder(path) -> base URL of `path` served on a free port (test-scoped)."""
    servers = []

    def start(folder: Path) -> str:
        server, url = serve.start_server(folder)
        servers.append(server)
        return url

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def base_url(site_url: str) -> str:
    """pytest-base-url's fixture: lets tests write page.goto("index.html")."""
    return site_url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Debian's Chromium where it exists (Playwright cannot download browsers here)."""
    args = {**browser_type_launch_args, "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_ARGS]}
    if CHROMIUM.exists():
        args["executable_path"] = str(CHROMIUM)
    return args


@pytest.fixture(scope="session")
def screenshots_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


class PageGuard:
    """Records everything on a page that must fail a test."""

    def __init__(self, page, route: bool = True) -> None:
        """``route=False`` watches the requests instead of routing them (they are then not
        stopped, but any off 127.0.0.1 still fails the test): Playwright's routing turns off
        the browser's HTTP cache, and with it the compiled-WebAssembly cache of a warm page.
        (Neither way sees a dedicated worker's own requests, in this Playwright.)"""
        self.page = page
        self.problems: list[str] = []
        page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        page.on("console", self._on_console)
        if route:
            page.context.route("**/*", self._on_request)
        else:
            page.on("request", self._on_request_seen)

    def _on_console(self, message) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")

    def _on_request(self, route) -> None:
        if self._is_local(route.request.url):
            route.continue_()
        else:
            route.abort()

    def _on_request_seen(self, request) -> None:
        self._is_local(request.url)

    def _is_local(self, url: str) -> bool:
        parsed = urlparse(url)
        if parsed.scheme in ("data", "blob") or parsed.hostname == "127.0.0.1":
            return True
        self.problems.append(f"request off 127.0.0.1: {url}")
        return False

    def wait_ready(self, timeout_ms: int = READY_TIMEOUT_MS) -> None:
        self.page.wait_for_selector("body[data-ready], body[data-boot-error]", state="attached", timeout=timeout_ms)
        self.check()

    def check(self) -> None:
        problems = list(self.problems)
        if not self.page.is_closed():
            problems += self._page_problems()
        if problems:
            pytest.fail("\n".join(problems), pytrace=False)

    def _page_problems(self) -> list[str]:
        problems = []
        boot_error = self.page.get_attribute("body", "data-boot-error")
        if boot_error is not None:
            detail = self.page.text_content("#boot-error") or ""
            problems.append(f"boot failed while {boot_error}: {' '.join(detail.split())}")
        text = self.page.text_content("body") or ""
        if "Traceback" in text:
            problems.append("the page shows a Python traceback:\n" + text[text.index("Traceback"):][:2000])
        return problems


@pytest.fixture(scope="session")
def page_guard_class() -> type:
    """PageGuard, for tests/e2e/engines (which drives Playwright pages of other engines)."""
    return PageGuard


@pytest.fixture(scope="session")
def warm_context(browser_type, browser_type_launch_args: dict, tmp_path_factory):
    """One browser profile on disk per test process, whose HTTP cache keeps the compiled
    Pyodide: a boot (the page's Pyodide and the compute worker's) costs ~4 CPU-seconds in
    it against ~7.5 in a new context, which compiles both again (measured on 2 cores; most
    e2e tests boot at least once). Its pages start with no storage of the site."""
    context = browser_type.launch_persistent_context(tmp_path_factory.mktemp("profile"), **browser_type_launch_args)
    yield context
    context.close()


def _warm_page(context, site_url: str, viewport: dict | None = None):
    """A new page of ``context`` on a site whose storage (IndexedDB, localStorage, cookies,
    caches) is emptied first: what a new context gives, but with the warm HTTP cache."""
    for blank in context.pages:  # (the one a profile opens with)
        if blank.url == "about:blank":
            blank.close()
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Storage.clearDataForOrigin", {
        "origin": site_url.rstrip("/"),
        "storageTypes": "cookies,indexeddb,local_storage,service_workers,cache_storage,file_systems"})
    cdp.detach()
    page.set_viewport_size(viewport or {"width": 1280, "height": 720})
    return page


@pytest.fixture
def page(warm_context, site_url: str):
    """pytest-playwright's ``page``, opened in the warm profile (see ``warm_context``)."""
    page = _warm_page(warm_context, site_url)
    yield page
    page.close()


@pytest.fixture
def guard(page) -> Iterator[PageGuard]:
    """The default `page`, watched by a PageGuard that is checked again at teardown."""
    g = PageGuard(page, route=False)
    yield g
    g.check()


@pytest.fixture
def fresh_page(browser, warm_context, site_url: str):
    """A factory: fresh_page(**context_options) -> (page, guard) in a fresh session: the
    site's storage empty. The first page a test asks for with no option but ``viewport``
    is opened in the warm profile (see ``warm_context``; a boot there costs half the CPU);
    any other, or one asked for ``cold=True``, in a new browser context, with its own cold
    HTTP cache (a share link opened "in a fresh browser context" is one). Pages are closed, and guards checked, at teardown."""
    opened: list[tuple[object, PageGuard]] = []

    def make(cold: bool = False, **context_options):
        warm_in_use = any(p.url.startswith(site_url) for p in warm_context.pages)  # (this test's `page`)
        if not (cold or opened or warm_in_use) and set(context_options) <= {"viewport"}:
            page = _warm_page(warm_context, site_url, context_options.get("viewport"))
            guard = PageGuard(page, route=False)
            opened.append((page, guard))
            return page, guard
        context = browser.new_context(**context_options)
        page = context.new_page()
        guard = PageGuard(page)
        opened.append((context, guard))
        return page, guard

    yield make
    for closable, guard in opened:
        guard.check()
        closable.close()


@pytest.fixture(scope="module")
def module_page(browser):
    """A factory of pages booted once and shared by a module's tests (a boot is 3-6 s):
    ``module_page(key, open)`` -> (page, guard); ``open(page, guard)`` brings a new page
    into its state the first time ``key`` is asked for. Each test using one must leave it
    as it found it, or set what it needs first (e.g. its viewport), and check the guard when
    it is done (e.g. test_layout_a11y's ``page_in_state``); every guard is checked again when
    the module ends."""
    opened: dict[str, tuple[object, PageGuard]] = {}

    def get(key: str, open_):
        if key not in opened:
            context = browser.new_context(viewport={"width": 1366, "height": 900})
            page = context.new_page()
            guard = PageGuard(page)
            open_(page, guard)
            opened[key] = (page, guard)
        return opened[key]

    yield get
    try:
        for _, guard in opened.values():
            guard.check()
    finally:
        for page, _ in opened.values():
            page.context.close()


@pytest.fixture
def app_page(guard: PageGuard, site_url: str):
    """The app, loaded and ready (body[data-ready])."""
    guard.page.goto(site_url)
    guard.wait_ready()
    return guard.page

