"""Compare's column titles are readable in full (issue 26 item 3): with four or five columns
(trained configurations and up to three well-known tokenizers) a title used to be cut with
"…". A title now wraps and its count moves to a row of its own when both do not fit, so every
title's text fits its box, in two lines at most, at desktop, tablet and phone widths."""

from __future__ import annotations

from playwright.sync_api import expect

from subwordlab_web.well_known import WELL_KNOWN_BY_KEY

WELL_KNOWN = ("gpt_oss", "mistral_7b", "albert")  # long titles among the shipped ones


def _clipped_titles(page) -> list[str]:
    """The titles whose text does not fit their box (cut with "…", or hidden by overflow)."""
    return page.eval_on_selector_all(".cmp-col-title", """els => els.filter(el =>
        el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1).map(el => el.textContent)""")


def _run(page, columns: int) -> list[str]:
    page.click("#cmp-run")
    expect(page.locator("#cmp-results")).to_be_visible(timeout=180_000)
    expect(page.locator("#panel-compare")).to_have_attribute("data-state", "idle", timeout=180_000)
    expect(page.locator(".cmp-col-title")).to_have_count(columns)
    return page.locator(".cmp-col-title").all_text_contents()


def _check_titles(page, screenshots_dir, columns: int) -> None:
    titles = page.locator(".cmp-col-title")
    for width in (1280, 900, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("#cmp-columns").screenshot(path=str(screenshots_dir / f"compare-titles-{columns}-{width}.png"))
        assert _clipped_titles(page) == [], (columns, width)
        line = float(page.eval_on_selector(".cmp-col-title", "el => parseFloat(getComputedStyle(el).lineHeight)"))
        heights = [titles.nth(i).bounding_box()["height"] for i in range(columns)]
        assert max(heights) <= 2 * line + 1, (columns, width, heights, line)  # two lines at most
        if width == 1280 and columns == 4:  # four side by side: the long titles do wrap
            assert max(heights) > 1.5 * line


def test_compare_column_titles_are_never_cut(app_page, screenshots_dir):
    page = app_page
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=60_000)
    page.click("#tab-compare")
    while page.locator(".cmp-remove").count() > 1:  # one trained configuration
        page.locator(".cmp-remove").last.click()
    page.fill("#cmp-vocab", "300")
    for key in WELL_KNOWN:
        page.check(f'#cmp-well-known input[data-vocab="{key}"]')
    texts = _run(page, 4)  # four columns side by side on a desktop
    assert texts[1:] == [WELL_KNOWN_BY_KEY[k].title for k in WELL_KNOWN]
    _check_titles(page, screenshots_dir, 4)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#cmp-add")  # a second trained configuration: five columns
    _run(page, 5)
    _check_titles(page, screenshots_dir, 5)
