"""Embeds a course author shapes, in headless Chromium: embed-example.html's iframes (a lesson
step, a locked Train view, a Compare) fit their content at desktop and phone widths
(auto-height), the locked Train view shows only the player and the candidates chart and cannot
be reconfigured but still steps, and "Back to the author's setup" restores after a change. Screenshots go to tests/e2e/screenshots/ (and /tmp/shots/)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

FRAMES = ("embed-lesson", "embed-train", "embed-compare")
APPLY_TIMEOUT = 240_000  # three playgrounds boot side by side, one trains three tokenizers
SHOTS = Path("/tmp/shots")

# For one iframe: its inside height, the height of the document inside (its content), the
# document's scrollHeight (never less than the iframe's inside), and sideways overflow.
MEASURE = """(id) => {
  const f = document.getElementById(id), d = f.contentDocument.documentElement;
  return {inside: f.clientHeight, content: Math.ceil(d.getBoundingClientRect().height),
          scroll_height: d.scrollHeight, scroll_width: d.scrollWidth, client_width: d.clientWidth,
          posted: f.style.height};
}"""
FITS = """(id) => {
  const f = document.getElementById(id), d = f.contentDocument && f.contentDocument.documentElement;
  if (!d || !f.style.height) return false;
  const content = Math.ceil(d.getBoundingClientRect().height);
  return Math.abs(f.clientHeight - content) <= 1 && d.scrollHeight <= f.clientHeight;
}"""


def wait_fitted(page, fid: str) -> dict:
    page.wait_for_function(FITS, arg=fid, timeout=30_000)
    page.wait_for_timeout(300)  # let a last chart redraw settle, then measure again
    page.wait_for_function(FITS, arg=fid, timeout=30_000)
    return page.evaluate(MEASURE, fid)


def assert_fits(m: dict, where: str) -> None:
    assert m["inside"] >= m["scroll_height"], f"{where}: the iframe is {m['inside']}px, its page {m['scroll_height']}px"
    assert abs(m["inside"] - m["content"]) <= 1, f"{where}: {m['inside']}px iframe for {m['content']}px of content"
    assert m["scroll_width"] <= m["client_width"], f"{where}: {m['scroll_width']}px wide in {m['client_width']}px"


@pytest.mark.parametrize("width", [1280, 375])
def test_the_embed_example_fits_locks_and_restores(fresh_page, site_url, screenshots_dir, capsys, width):
    """Opened at a desktop and at a phone width (each a fresh load: the charts are drawn for
    the width they start at); then, at the other width, the iframes follow the new height."""
    page, guard = fresh_page(viewport={"width": width, "height": 900})
    # same-origin iframes share the page's main thread: while one starts Pyodide, any call waits
    page.set_default_timeout(120_000)
    page.goto(site_url + "embed-example.html")
    frames = {}
    for fid in FRAMES:
        page.locator(f"#{fid}").evaluate("e => e.scrollIntoView()")  # loading="lazy" (no stability wait: it may grow)
        frame = page.frame_locator(f"#{fid}")
        done = frame.locator("body[data-share='applied'], body[data-share='error'], body[data-boot-error]")
        expect(done).to_be_attached(timeout=APPLY_TIMEOUT)
        assert frame.locator("body").get_attribute("data-share") == "applied", frame.locator("body").inner_text()[:2000]
        expect(frame.locator(".tabbar")).to_be_hidden()
        frames[fid] = frame
    lesson, train, compare = frames["embed-lesson"], frames["embed-train"], frames["embed-compare"]
    expect(compare.locator("#cmp-results")).to_be_visible(timeout=APPLY_TIMEOUT)
    expect(compare.locator("#panel-compare")).to_have_attribute("data-state", "idle", timeout=APPLY_TIMEOUT)

    # cards=player,candidates: the rest is hidden; lock=1: the form cannot be changed
    expect(train.locator("#panel-train [data-card=player]")).to_be_visible()
    expect(train.locator("#candidates-chart svg")).to_be_visible()
    for card in ("lesson", "form", "segmentation", "merges", "vocab", "curve"):
        expect(train.locator(f"#panel-train [data-card={card}]")).to_be_hidden()
    for field in ("#train-preset", "#train-size", "#train-target-vocab"):
        assert not train.locator(field).is_editable() and train.locator(field).is_disabled(), field
    expect(train.locator("#embed-locked")).to_be_visible()
    # the lesson step: cards=lesson,player,candidates
    expect(lesson.locator("#lesson-card")).to_be_visible()
    expect(lesson.locator("#train-step-now")).to_have_text("4")
    expect(lesson.locator("#panel-train [data-card=form]")).to_be_hidden()
    expect(lesson.locator("#candidates-chart svg")).to_be_visible()
    # Compare: cards=columns,stats
    expect(compare.locator("#panel-compare [data-card=columns]")).to_be_visible()
    for card in ("setup", "parity", "curve"):
        expect(compare.locator(f"#panel-compare [data-card={card}]")).to_be_hidden()

    report = {}
    for w in (width, 1280 + 375 - width):  # the width it opened at, then the other one
        page.set_viewport_size({"width": w, "height": 900})
        for fid in FRAMES:
            page.locator(f"#{fid}").evaluate("e => e.scrollIntoView()")
            m = wait_fitted(page, fid)
            report[f"{fid}@{w}"] = m
            assert_fits(m, f"{fid} at {w}px (opened at {width}px)")
        assert page.evaluate("document.documentElement.scrollWidth") <= w
        if w == width:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.evaluate("window.scrollTo(0, 0)")
            for folder in (SHOTS, screenshots_dir):
                page.screenshot(path=str(folder / f"embed-example-{width}.png"), full_page=True)
    with capsys.disabled():
        print(f"\n[embed fit, opened at {width}px] " + ", ".join(f"{k}: iframe {v['inside']}px / content {v['content']}px, "
                                         f"{v['scroll_width']}/{v['client_width']}px wide" for k, v in report.items()))

    # locked, the player still plays; the learner's step is undone by "Back to the author's setup"
    restore = train.locator("#embed-restore")
    expect(restore).to_be_hidden()
    expect(train.locator("#train-step-now")).to_have_text("3")
    expect(train.locator("#train-now-main")).to_have_text("est  +  </w>  →  est</w>")
    train.locator("#train-step").click()
    expect(train.locator("#train-step-now")).to_have_text("4")
    expect(restore).to_be_visible()
    restore.click()
    expect(train.locator("#train-step-now")).to_have_text("3")
    expect(restore).to_be_hidden()

    # Compare: a new text, then back to the author's
    text = compare.locator("#cmp-text")
    authors = text.input_value()
    assert authors == "Everyone has the right to education."
    text.fill("Tokenizers disagree here")
    expect(compare.locator("#embed-restore")).to_be_visible()
    compare.locator("#embed-restore").click()
    expect(text).to_have_value(authors)
    expect(compare.locator("#embed-restore")).to_be_hidden()
    # the iframes follow what the learner's changes did to their height
    for fid in FRAMES:
        assert_fits(wait_fitted(page, fid), f"{fid} after the restore")
    guard.check()


def test_a_course_page_follows_and_steers_its_embed(fresh_page, site_url):
    """host-example.html embeds the playground with api= its own origin: the embed's events
    reach the page (ready, each step, a lesson's step, an error's reason), and the page's
    commands move it (go to a merge, open a lesson step, reset). host_api.py; the origin
    checks themselves are unit-tested (tests/unit/test_web_host_api.py)."""
    page, guard = fresh_page()
    page.set_default_timeout(120_000)
    page.goto(site_url + "host-example.html")
    log = page.locator("#host-log")
    expect(log.locator("li[data-type='subwordlab:ready']")).to_have_count(1, timeout=APPLY_TIMEOUT)
    assert '"step":3,"steps":8' in log.locator("li[data-type='subwordlab:ready']").inner_text()
    embed = page.frame_locator("#host-embed")
    expect(embed.locator("#train-step-now")).to_have_text("3")

    page.click("#host-step-5")  # a command in: the embed moves, and says so
    expect(embed.locator("#train-step-now")).to_have_text("5")
    expect(log.locator("li").last).to_have_text('{"type":"subwordlab:step","step":5,"steps":8}')
    embed.locator("#train-back").click()  # the learner's own step is an event too
    expect(log.locator("li").last).to_have_text('{"type":"subwordlab:step","step":4,"steps":8}')

    page.click("#host-bad")
    expect(log.locator("li[data-type='subwordlab:error']")).to_contain_text('go-to-step needs \\"step\\"')

    page.click("#host-lesson")
    expect(log.locator("li[data-type='subwordlab:lesson-step']").last).to_contain_text('"lesson":1,"step":2')
    page.click("#host-lesson-file")  # a lesson file on the site, fetched by the embed, named by its address
    expect(log.locator("li[data-type='subwordlab:lesson-step']").last).to_contain_text(
        '"lesson":"lessons/02-hug-pug-pun.lesson","step":3')
    expect(embed.locator("#train-step-now")).to_have_text("3")
    page.click("#host-reset")
    expect(embed.locator("#train-step-now")).to_have_text("3")
    expect(log.locator("li").last).to_contain_text('"step":3,"steps":8')
    guard.check()
