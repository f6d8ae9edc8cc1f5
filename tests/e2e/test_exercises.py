"""Exercises in Python in headless Chromium: the learner's code runs in the compute worker
(its own Pyodide), never on the page. A wrong get_stats shows the first differing step with
both counts; the fixed one passes; an endless loop is stopped at the time limit (the worker is
terminated) and the next run gets a fresh worker and passes.
"""

from __future__ import annotations

from playwright.sync_api import expect

WRONG = """def get_stats(words):
    counts = {}
    for symbols in words:
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + 1
    return counts
"""
RIGHT = WRONG.replace("for symbols in words:", "for symbols, n in words.items():").replace("+ 1", "+ n")
WORKER_TIMEOUT = 120_000  # a worker's boot (its own Pyodide) and the check


def run(page, code: str, outcome: str) -> str:
    page.fill("#exercise-code", code)
    page.click("#exercise-run")
    page.wait_for_selector(f"#exercise-card[data-outcome='{outcome}']", state="attached", timeout=WORKER_TIMEOUT)
    return page.text_content("#exercise-result") or ""


def test_get_stats_wrong_then_right_then_an_endless_loop_then_right_again(app_page):
    page = app_page
    page.wait_for_selector("#context-corpus:not(:empty)", state="attached")
    card = page.locator("#exercise-card")
    card.scroll_into_view_if_needed()
    expect(page.locator("#exercise-pick")).to_have_value("bpe_get_stats")

    said = run(page, WRONG, "differs")
    assert said.startswith("Step 1 (the pairs before merge 1): your get_stats counts ("), said
    assert "the trainer counts" in said
    assert page.get_attribute("body", "data-compute-boots") == "1"  # it ran in the worker

    said = run(page, RIGHT, "passed")
    assert said.startswith("Passed: ") and "merges checked" in said, said

    terminated = int(page.get_attribute("body", "data-compute-terminated") or 0)
    page.fill("#exercise-code", "while True:\n    pass\n")
    page.click("#exercise-run")
    expect(page.locator("#exercise-stop")).to_be_visible()
    # the page stays usable while the worker loops: the tabs still switch
    page.click("#tab-inspect")
    expect(page.locator("#panel-inspect")).to_be_visible()
    page.click("#tab-train")
    page.wait_for_selector("#exercise-card[data-outcome='timeout']", state="attached", timeout=WORKER_TIMEOUT)
    assert "ran longer than 5 s (an endless loop?)" in (page.text_content("#exercise-result") or "")
    assert int(page.get_attribute("body", "data-compute-terminated") or 0) == terminated + 1
    expect(page.locator("#exercise-run")).to_be_enabled()

    said = run(page, RIGHT, "passed")  # a fresh worker
    assert said.startswith("Passed: "), said
    assert int(page.get_attribute("body", "data-compute-boots") or 0) >= 2
