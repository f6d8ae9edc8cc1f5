"""Training in the e2e tests, written once.

Example: ``train_to_end(page, "byte_bpe", 300)`` picks the preset on Train, sets its size,
presses "Train to the end" and returns once the run is done.
"""

from __future__ import annotations

from playwright.sync_api import expect


def train_to_end(page, preset: str, size: int, timeout: int = 60_000) -> None:
    """Train ``preset`` to ``size`` on the corpus in use, to its end."""
    page.click("#tab-train")
    page.select_option("#train-preset", preset)
    page.fill("#train-size", str(size))
    page.press("#train-size", "Enter")
    page.click("#train-end")
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=timeout)
