"""The page boots from the vendored runtime, opens on the textbook example, fits a phone."""

from __future__ import annotations

import json

from playwright.sync_api import expect

import subwordlab


def test_page_boots_and_shows_the_core_version(app_page):
    expect(app_page.locator("#core-version")).to_have_text(f"core v{subwordlab.__version__}")
    expect(app_page.locator("#boot")).to_be_hidden()
    expect(app_page.locator("#app")).to_be_visible()
    expect(app_page.locator("#app-error")).to_be_hidden()


def test_the_page_opens_on_the_textbook_example_ready_to_step(app_page, screenshots_dir):
    expect(app_page.locator("#tab-train")).to_have_attribute("aria-selected", "true")
    expect(app_page.locator("#panel-train")).to_have_attribute("data-status", "done")
    expect(app_page.locator("#train-step-total")).to_have_text("8")
    expect(app_page.locator("#context-corpus")).to_have_text("Textbook: low, lower, newest, widest")
    app_page.screenshot(path=str(screenshots_dir / "boot.png"), full_page=True)


def test_layout_fits_a_phone(fresh_page, site_url, screenshots_dir):
    page, guard = fresh_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page.goto(site_url)
    guard.wait_ready()
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done")
    for tab in ("corpus", "train", "inspect"):
        page.click(f"#tab-{tab}")
        page.wait_for_timeout(150)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the {tab} panel scrolls sideways by {overflow}px at 390px"
    page.screenshot(path=str(screenshots_dir / "boot-390.png"), full_page=True)


def test_a_failed_install_names_the_stage(browser, built_site, serve_folder, tmp_path):
    """loadPackage never throws; the bootstrap must notice its errorCallback and say so."""
    site = tmp_path / "site"
    site.mkdir()
    for entry in built_site.iterdir():
        if entry.name != "pyodide":
            (site / entry.name).symlink_to(entry)
    (site / "pyodide").mkdir()
    for entry in (built_site / "pyodide").iterdir():
        if entry.name != "pyodide-lock.json":
            (site / "pyodide" / entry.name).symlink_to(entry)
    lock = json.loads((built_site / "pyodide" / "pyodide-lock.json").read_text())
    lock["packages"]["subwordlab-web"]["file_name"] = "../wheels/missing-0-py3-none-any.whl"
    (site / "pyodide" / "pyodide-lock.json").write_text(json.dumps(lock))

    context = browser.new_context()  # no PageGuard: this page is meant to log errors
    try:
        page = context.new_page()
        page.goto(serve_folder(site))
        page.wait_for_selector("body[data-boot-error]", state="attached", timeout=60_000)
        assert page.get_attribute("body", "data-boot-error") == "installing Subword Lab"
        expect(page.locator("#boot-error")).to_be_visible()
        expect(page.locator("#boot-error-message")).to_contain_text("subwordlab_web")
        assert page.get_attribute("body", "data-ready") is None
    finally:
        context.close()
