"""Opening a share link in the e2e tests, written once: the page is ready, then the link is
applied (or the test fails with the page's banner, which says why it was not).

Example: ``dst, dst_guard = open_link(fresh_page, link)`` opens the link in a fresh browser
context (nothing cached or stored, as a recipient opens it) and returns once it is applied.
"""

from __future__ import annotations


def wait_applied(page, timeout: int = 120_000) -> None:
    """Wait until the page has applied its share link; fail with the banner if it refused it."""
    page.wait_for_selector("body[data-share='applied'], body[data-share='error']", state="attached", timeout=timeout)
    assert page.get_attribute("body", "data-share") == "applied", page.text_content("#link-banner")


def open_link(fresh_page, url: str, timeout: int = 120_000):
    """``(page, guard)``: ``url`` opened in a fresh browser context, ready, its link applied."""
    page, guard = fresh_page(cold=True)
    page.goto(url)
    guard.wait_ready()
    wait_applied(page, timeout)
    return page, guard
