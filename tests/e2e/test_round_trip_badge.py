"""Inspect's round-trip badge in Chromium: WordPiece's spaced-out punctuation and single
spaces are shown as lossy by design (neutral, with the reason and what decode gives), an
unknown character as a real loss; axe finds no contrast problem in either state."""

from __future__ import annotations

from playwright.sync_api import expect
from test_compare_share_embed import pick_sample
from test_layout_a11y import AXE, FAILING_IMPACTS, run_axe
from test_playground import go_train, wait_done


def test_wordpiece_round_trip_by_design_is_neutral_and_a_real_loss_is_flagged(app_page, screenshots_dir):
    assert AXE.exists(), "run python build/build_site.py: it vendors the pinned axe-core for this tier"
    page = app_page
    pick_sample(page, "udhr_eng")
    go_train(page)
    page.select_option("#train-preset", "wordpiece")
    wait_done(page)
    page.click("#tab-inspect")
    badge = page.locator("#inspect-roundtrip")
    page.fill("#inspect-input", "Everyone has the right to life,  liberty and security.")
    expect(badge).to_have_attribute("data-ok", "design")
    expect(badge).to_contain_text("puts a space around punctuation")
    expect(badge).to_contain_text("decode gives “Everyone·has·the·right·to·life·,·liberty")
    colour = badge.evaluate("el => getComputedStyle(el).color")
    assert colour == "rgb(90, 100, 120)", colour  # --ink-soft: neutral, not the amber of a loss
    problems = [v["id"] for v in run_axe(page, AXE) if v["impact"] in FAILING_IMPACTS]
    assert not problems, problems
    page.screenshot(path=str(screenshots_dir / "inspect-round-trip-by-design.png"), full_page=True)
    page.fill("#inspect-input", "the right to ☃ life")
    expect(badge).to_have_attribute("data-ok", "no")
    expect(badge).to_have_text("≠ Round trip differs at character 13: expected “☃·life”, decoded “[UNK]·life”")
    problems = [v["id"] for v in run_axe(page, AXE) if v["impact"] in FAILING_IMPACTS]
    assert not problems, problems
