"""Guided lessons in headless Chromium: a course page's link ``?lesson=3&step=4`` opens the
lesson card at that step in a fresh browser context, Next moves the card and the player, the
address follows, and a reload keeps the step; the same as an embed. (That the card fits a
375 px phone and passes axe is in test_layout_a11y.py.)

A screenshot of a lesson step goes to tests/e2e/screenshots/lesson-*.png.
"""

from __future__ import annotations

from playwright.sync_api import expect

LESSON_3_STEP_4 = "Merge 4: lo + w → low"


def applied(page, timeout=120_000):
    page.wait_for_selector("body[data-share='applied'], body[data-share='error']", state="attached", timeout=timeout)
    assert page.get_attribute("body", "data-share") == "applied", page.text_content("#link-banner")


def open_lesson(fresh_page, site_url, query, viewport=None):
    page, guard = fresh_page(viewport=viewport or {"width": 1366, "height": 900})
    page.goto(site_url + "index.html" + query)
    guard.wait_ready()
    applied(page)
    return page, guard


def test_a_course_link_opens_lesson_3_at_step_4_steps_on_and_survives_a_reload(fresh_page, site_url, screenshots_dir):
    page, guard = open_lesson(fresh_page, site_url, "?lesson=3&step=4")
    card = page.locator("#lesson-card")
    expect(card).to_be_visible()
    expect(page.locator("#lesson-where")).to_have_text("Lesson 3 · step 4 of 6")
    expect(page.locator("#lesson-heading")).to_have_text(LESSON_3_STEP_4)
    expect(page.locator("#lesson-facts li").first).to_have_text(
        "lo + w is the most frequent adjacent pair: 7 times (low ×5, lowest ×2). The next best count is 6 (e + w).")
    expect(page.locator("#lesson-printed")).to_have_text("(('lo', 'w'), 7)")
    expect(page.locator("#lesson-pick")).to_have_value("3")
    # the player, the header and the merges table are at step 4
    expect(page.locator("#train-step-now")).to_have_text("4")
    expect(page.locator("#context-step")).to_have_text("step 4 of 6")
    expect(page.locator("#merges-rows tr.current td").first).to_have_text("4")
    page.screenshot(path=str(screenshots_dir / "lesson-3-step-4-1366.png"), full_page=False)

    # Next (by keyboard: focus the button, press Enter) moves the card, the player and the address
    page.focus("#lesson-next")
    page.keyboard.press("Enter")
    expect(page.locator("#lesson-where")).to_have_text("Lesson 3 · step 5 of 6")
    expect(page.locator("#lesson-heading")).to_have_text("Merge 5: e + w → ew")
    expect(page.locator("#train-step-now")).to_have_text("5")
    expect(page.locator("#lesson-facts")).to_contain_text(
        "3 pairs tie at 6: e + w, n + e, w + er_. The tie-break rule: the alphabetically smallest pair wins")
    page.wait_for_function("location.search === '?lesson=3&step=5'")
    assert page.evaluate("location.hash") == ""

    # a reload keeps the lesson and its step
    page.reload()
    guard.wait_ready()
    applied(page)
    expect(page.locator("#lesson-where")).to_have_text("Lesson 3 · step 5 of 6")
    expect(page.locator("#train-step-now")).to_have_text("5")

    # Previous, and the page-wide ← shortcut, move it back; the player's buttons move it too
    page.click("#lesson-prev")
    expect(page.locator("#lesson-heading")).to_have_text(LESSON_3_STEP_4)
    page.keyboard.press("ArrowRight")  # focus is on Previous: the arrows still drive the player
    expect(page.locator("#lesson-where")).to_have_text("Lesson 3 · step 5 of 6")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#lesson-where")).to_have_text("Lesson 3 · step 4 of 6")
    page.click("#train-back")
    expect(page.locator("#lesson-where")).to_have_text("Lesson 3 · step 3 of 6")
    page.wait_for_function("location.search === '?lesson=3&step=3'")


def test_picking_a_lesson_and_replaying_it(fresh_page, site_url):
    page, guard = fresh_page(viewport={"width": 1366, "height": 900})
    page.goto(site_url)
    guard.wait_ready()
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=60_000)
    expect(page.locator("#lesson-body")).to_be_hidden()
    page.select_option("#lesson-pick", "5")
    expect(page.locator("#lesson-where")).to_have_text("Lesson 5 · step 0 of 5", timeout=60_000)
    page.click("#lesson-next")
    expect(page.locator("#lesson-heading")).to_have_text("Merge 1: ##i + ##z → ##iz")
    expect(page.locator("#lesson-printed")).to_have_text("best WordPiece pair: ('##i', '##z') count 5 score 0.1429")
    page.select_option("#train-speed", "25")
    page.click("#lesson-replay")
    expect(page.locator("#lesson-where")).to_have_text("Lesson 5 · step 5 of 5", timeout=30_000)
    page.wait_for_function("location.search === '?lesson=5&step=5'")
    # changing the settings leaves the lesson, and says so
    page.select_option("#train-preset", "bpe")
    expect(page.locator("#lesson-intro")).to_contain_text("lesson 5 was left")
    expect(page.locator("#lesson-body")).to_be_hidden()
    page.wait_for_function("!location.search.includes('lesson=') && location.hash.startsWith('#v1.')")


def test_an_embedded_lesson_step(fresh_page, site_url, screenshots_dir):
    page, guard = open_lesson(fresh_page, site_url, "?embed=1&lesson=3&step=4", {"width": 375, "height": 740})
    assert page.get_attribute("body", "data-embed") == "1"
    expect(page.locator("#lesson-heading")).to_have_text(LESSON_3_STEP_4)
    expect(page.locator("#train-step-now")).to_have_text("4")
    assert page.get_attribute("#embed-open", "href").endswith("index.html?lesson=3&step=4")
    page.click("#lesson-next")
    expect(page.locator("#lesson-where")).to_have_text("Lesson 3 · step 5 of 6")
    page.wait_for_function("location.search === '?embed=1&lesson=3&step=5'")
    page.screenshot(path=str(screenshots_dir / "lesson-embed-375.png"), full_page=False)


def test_the_unigram_lesson_says_what_pruning_removed(fresh_page, site_url, screenshots_dir):
    """Lesson 6: the last pruning round removes four whole-word pieces and the words fall back
    to characters (the unit tests recompute every number from the recorded events)."""
    page, guard = open_lesson(fresh_page, site_url, "?lesson=6&step=3")
    expect(page.locator("#lesson-pick")).to_have_value("6")
    expect(page.locator("#lesson-where")).to_have_text("Lesson 6 · step 3 of 4")
    expect(page.locator("#lesson-heading")).to_have_text("EM round 2: probabilities re-estimated")
    expect(page.locator("#lesson-source")).to_contain_text("The numbers come from this training")
    expect(page.locator("#lesson-printed-line")).to_be_hidden()
    page.click("#lesson-next")
    expect(page.locator("#lesson-heading")).to_have_text("Pruning round 2: 4 pieces removed")
    facts = page.locator("#lesson-facts")
    expect(facts).to_contain_text("Pruning removed 4 pieces, least useful first: ▁hugs (loss 0.1577)")
    expect(facts).to_contain_text("The vocabulary: 16 → 12 entries.")
    expect(facts).to_contain_text("hug → ▁ h u g")
    expect(page.locator("#train-step-now")).to_have_text("4")
    page.wait_for_function("location.search === '?lesson=6&step=4'")
    page.screenshot(path=str(screenshots_dir / "lesson-6-step-4-1366.png"), full_page=False)


def test_a_lesson_file_opened_on_the_card_steps_through(fresh_page, site_url, screenshots_dir, tmp_path):
    """A course author's lesson file, picked with “Open a lesson file…”: the card shows its own
    words with the trainer's numbers, its correction of the source, and Next steps through it;
    a broken file then says which line, and the lesson stays."""
    from pathlib import Path

    source = Path(__file__).resolve().parents[2] / "web" / "subwordlab_web" / "lesson_files" / "10-wikipedia-aaabdaaabac.lesson"
    text = source.read_text(encoding="utf-8").replace("predict: on\n", "")  # (Next steps at once here)
    page, guard = fresh_page(viewport={"width": 1366, "height": 900})
    page.goto(site_url)
    guard.wait_ready()
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=60_000)
    page.set_input_files("#lesson-file", files=[{"name": "wiki.lesson", "mimeType": "text/plain",
                                                 "buffer": text.encode("utf-8")}])
    expect(page.locator("#lesson-where")).to_have_text("Your lesson · step 0 of 3", timeout=60_000)
    expect(page.locator("#lesson-said")).to_contain_text("There are 4 symbols to start with.")
    page.click("#lesson-next")
    expect(page.locator("#lesson-heading")).to_have_text("Merge 1: a + a → aa")
    expect(page.locator("#lesson-said")).to_contain_text("a + a occurs 4 times (twice in each aaa)")
    expect(page.locator("#lesson-printed")).to_have_text("Z=aa")
    expect(page.locator("#train-step-now")).to_have_text("1")
    page.click("#lesson-next")
    expect(page.locator("#lesson-errata")).to_contain_text("Correction: minbpe, which breaks ties by the pair met first")
    page.click("#lesson-next")
    expect(page.locator("#lesson-heading")).to_have_text("Merge 3: aa + ab → aaab")
    expect(page.locator("#lesson-said")).to_contain_text("aaabdaaabac → aaab d aaab a c: Wikipedia's XdXac")
    page.screenshot(path=str(screenshots_dir / "lesson-file-wikipedia-1366.png"), full_page=False)
    # a broken file: one message naming the line, and the lesson shown stays
    page.set_input_files("#lesson-file", files=[{"name": "broken.lesson", "mimeType": "text/plain",
                                                 "buffer": text.replace("merges: 3", "merges: three").encode("utf-8")}])
    expect(page.locator("#lesson-error")).to_have_text(
        "The lesson “broken.lesson” was not opened. Line 7: merges must be a whole number from 0 to 1,000,000, not “three”")
    expect(page.locator("#lesson-heading")).to_have_text("Merge 3: aa + ab → aaab")
    expect(page.locator("#train-step-now")).to_have_text("3")


def test_a_predicting_lesson_asks_before_each_merge(fresh_page, site_url, screenshots_dir):
    """Lesson 7 (predict: on): Next asks which pair wins, a wrong answer and a right one are said
    with the trainer's numbers, the player moves after each answer and the card keeps the score;
    its Python exercise opens from the card."""
    page, guard = open_lesson(fresh_page, site_url, "?lesson=7&step=0")
    expect(page.locator("#lesson-where")).to_have_text("Lesson 7 · step 0 of 3")
    page.click("#lesson-next")
    expect(page.locator("#lesson-question")).to_have_text("Which pair wins merge 1?")
    expect(page.locator("#lesson-choices button")).to_have_text(["h + u", "p + u", "u + g", "u + n", "Skip"])
    expect(page.locator("#lesson-next")).to_be_disabled()
    expect(page.locator("#train-step-now")).to_have_text("0")
    page.screenshot(path=str(screenshots_dir / "lesson-7-predict-1366.png"), full_page=False)
    page.click("#lesson-choices button:text-is('h + u')")  # wrong
    expect(page.locator("#lesson-verdict")).to_have_text("Not this time: you chose h + u (15); u + g wins with 20.")
    expect(page.locator("#lesson-heading")).to_have_text("Merge 1: u + g → ug")
    expect(page.locator("#train-step-now")).to_have_text("1")
    expect(page.locator("#lesson-predict")).to_be_hidden()
    expect(page.locator("#lesson-score")).to_have_text("Your predictions: 0 of 1 right.")
    page.click("#lesson-next")
    expect(page.locator("#lesson-question")).to_have_text("Which pair wins merge 2?")
    page.click("#lesson-choices button:text-is('u + n')")  # right
    expect(page.locator("#lesson-verdict")).to_have_text("Right: u + n wins with 16.")
    expect(page.locator("#lesson-heading")).to_have_text("Merge 2: u + n → un")
    expect(page.locator("#train-step-now")).to_have_text("2")
    expect(page.locator("#lesson-score")).to_have_text("Your predictions: 1 of 2 right.")
    page.wait_for_function("location.search === '?lesson=7&step=2'")
    # the lesson's Python exercise
    page.click("#lesson-exercise")
    expect(page.locator("#exercise-pick")).to_have_value("bpe_get_stats")
    expect(page.locator("#exercise-code")).to_be_focused()
