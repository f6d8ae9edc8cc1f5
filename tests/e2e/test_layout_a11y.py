"""Layout and accessibility of every panel, in headless Chromium.

- No horizontal overflow at 1366, 1024, 768 and 390 px on any panel, trained and untrained,
  nor on embed-example.html: the page's `scrollWidth` and the right edge of the widest
  element (outside scroll boxes) are within the viewport; on desktop no table is cut off.
- axe-core (the npm package, pinned and vendored by build/build_site.py into
  dist/test-assets/, never into the served site) on every panel, desktop and phone, trained
  and untrained: no serious or critical violation.
- Keyboard: the token chips and a chart's dots are one Tab stop each, walked with the arrows.
- On a phone the tab bar scrolls, shows that it does, and keeps the selected tab in view.
- A guided lesson's card (``?lesson=4&step=10``, the longest step text) fits at 1366, 768
  and 375 px and passes axe, on the page and embedded.

Screenshots of every panel (desktop 1366, phone 390, both states) go to tests/e2e/screenshots/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from train_actions import train_to_end

from subwordlab_web.inspect_panel import MAX_CHIPS
from subwordlab_web.samples import SAMPLES

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "dist" / "test-assets" / "axe.min.js"
PANELS = ("corpus", "train", "inspect", "compare", "files", "share")
WIDTHS = (1366, 1024, 768, 390)
DESKTOP, PHONE = {"width": 1366, "height": 900}, {"width": 390, "height": 844}
UNTRAINED_SAMPLE = "tinyshakespeare"  # too big to train by itself: the page stays untrained
FAILING_IMPACTS = ("serious", "critical")

# The right edge of the widest element, ignoring what sits inside a box that clips or
# scrolls sideways (a scroll box's own edge counts): [right, description].
WIDEST_ELEMENT_JS = """() => {
  const clips = el => { for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true; } return false; };
  let best = [0, ''];
  for (const el of document.querySelectorAll('body *')) {
    if (!el.getClientRects().length || clips(el)) continue;
    const right = el.getBoundingClientRect().right;
    if (right > best[0]) best = [right, el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                                 (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : '')];
  }
  return best;
}"""
# Tables that scroll sideways inside their card (content cut off at the card's edge).
SIDEWAYS_TABLES_JS = """() => [...document.querySelectorAll('.table-scroll')]
  .filter(el => el.getClientRects().length && el.scrollWidth > el.clientWidth + 1)
  .map(el => (el.querySelector('table') || el).id || el.getAttribute('aria-label') || 'a table')"""


@pytest.fixture(scope="session")
def axe_path() -> Path:
    if not AXE.exists():
        pytest.fail(f"{AXE.relative_to(REPO)} is missing; run: python build/build_site.py "
                    "(it vendors the pinned axe-core for this tier)", pytrace=False)
    return AXE


def open_in_state(site_url: str, state: str):
    """An opener (conftest's module_page) of the page in `state`: "trained" (the textbook
    run, and a Compare run) or "untrained" (complete tinyshakespeare, which does not train
    by itself)."""
    def open_(page, guard) -> None:
        page.goto(site_url)
        guard.wait_ready()
        expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=60_000)
        if state == "trained":
            page.click("#tab-compare")
            page.fill("#cmp-vocab", "30")
            page.click("#cmp-run")
            expect(page.locator("#cmp-results")).to_be_visible(timeout=120_000)
            expect(page.locator("#panel-compare")).to_have_attribute("data-state", "idle", timeout=120_000)
        else:
            page.click("#tab-corpus")
            page.select_option("#corpus-sample", UNTRAINED_SAMPLE)
            expect(page.locator("#context-corpus")).to_have_text(SAMPLES[UNTRAINED_SAMPLE].title, timeout=60_000)
            expect(page.locator("#corpus-stats [data-stat='chars']")).not_to_have_text("–", timeout=60_000)
            expect(page.locator("#context-step")).to_have_text("not trained")
    return open_


@pytest.fixture
def page_in_state(module_page, site_url: str):
    """A factory: page_in_state(state, viewport) -> the page in `state` (booted once per
    module and state, shared by the overflow and axe tests), at `viewport`; its guard is
    checked after the test."""
    used = []

    def get(state: str, viewport: dict):
        page, guard = module_page(state, open_in_state(site_url, state))
        page.set_viewport_size(viewport)
        used.append(guard)
        return page, guard

    yield get
    for guard in used:
        guard.check()


def show(page, panel: str) -> None:
    page.click(f"#tab-{panel}")
    expect(page.locator(f"#panel-{panel}")).to_be_visible()
    page.wait_for_timeout(200)  # charts are drawn on show, at the panel's width


def measure(page) -> dict:
    widest_right, widest = page.evaluate(WIDEST_ELEMENT_JS)
    return {"viewport": page.evaluate("window.innerWidth"),
            "scroll_width": page.evaluate("document.documentElement.scrollWidth"),
            "widest_right": round(widest_right, 1), "widest": widest,
            "sideways_tables": page.evaluate(SIDEWAYS_TABLES_JS)}


@pytest.mark.parametrize("state", ["trained", "untrained"])
def test_no_panel_overflows_sideways_at_any_width(page_in_state, screenshots_dir, state, capsys):
    page, guard = page_in_state(state, DESKTOP)
    problems, report = [], {}
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for panel in PANELS:
            show(page, panel)
            m = measure(page)
            report[f"{panel}@{width}"] = m
            if m["scroll_width"] > m["viewport"]:
                problems.append(f"{panel} at {width}px: the page is {m['scroll_width']}px wide (widest: {m['widest']})")
            if m["widest_right"] > m["viewport"] + 0.5:
                problems.append(f"{panel} at {width}px: {m['widest']} reaches {m['widest_right']}px")
            if width >= 1024 and m["sideways_tables"]:
                problems.append(f"{panel} at {width}px: cut off, scrolls sideways: {m['sideways_tables']}")
    (screenshots_dir / f"overflow-{state}.json").write_text(json.dumps(report, indent=1) + "\n")
    with capsys.disabled():
        print(f"\n[overflow {state}] " + ", ".join(f"{k}: {v['scroll_width']}/{v['viewport']}" for k, v in report.items()))
    assert not problems, "\n".join(problems)


def test_the_embed_example_page_fits(fresh_page, site_url):
    """At every width of WIDTHS (one load, resized)."""
    page, guard = fresh_page(viewport={"width": WIDTHS[0], "height": 900})
    page.goto(site_url + "embed-example.html")
    page.wait_for_selector("figcaption code")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(200)  # the iframes and their auto-height settle
        m = measure(page)
        assert m["scroll_width"] <= m["viewport"], f"embed-example.html is {m['scroll_width']}px wide at {width}px ({m['widest']})"
        assert m["widest_right"] <= m["viewport"] + 0.5, (width, m)


def run_axe(page, axe_path: Path) -> list[dict]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_path))
    return page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']})).violations
        .map(v => ({id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').split('\\n').slice(1, 2).join(' ').trim())}))""")


@pytest.mark.parametrize("query", ["?lesson=4&step=10", "?embed=1&lesson=4&step=10"])
def test_a_lesson_step_fits_and_passes_axe(fresh_page, site_url, screenshots_dir, axe_path, query):
    """At 1366, 768 and 375 px (one load, resized)."""
    page, guard = fresh_page(viewport={"width": 1366, "height": 900})
    page.goto(site_url + "index.html" + query)
    guard.wait_ready()
    expect(page.locator("#lesson-heading")).to_have_text("Merge 10: token + i → tokeni", timeout=60_000)
    for width in (1366, 768, 375):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(200)  # the lesson card reflows
        m = measure(page)
        assert m["scroll_width"] <= m["viewport"], f"{query} is {m['scroll_width']}px wide at {width}px ({m['widest']})"
        assert m["widest_right"] <= m["viewport"] + 0.5, (width, m)
        failures = [f"{v['impact']} {v['id']} ({v['help']}): " + "; ".join(v["nodes"][:3])
                    for v in run_axe(page, axe_path) if v["impact"] in FAILING_IMPACTS]
        assert not failures, f"at {width}px:\n" + "\n".join(failures)
        page.screenshot(path=str(screenshots_dir / f"lesson{'-embed' if 'embed' in query else ''}-{width}.png"), full_page=True)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
@pytest.mark.parametrize("state", ["trained", "untrained"])
def test_axe_finds_no_serious_violation_on_any_panel(page_in_state, screenshots_dir, axe_path, state, viewport, capsys):
    size = DESKTOP if viewport == "desktop" else PHONE
    page, guard = page_in_state(state, size)
    failures, summary = [], {}
    for panel in PANELS:
        show(page, panel)
        violations = run_axe(page, axe_path)
        counts: dict[str, int] = {}
        for v in violations:
            counts[v["impact"]] = counts.get(v["impact"], 0) + len(v["nodes"])
            if v["impact"] in FAILING_IMPACTS:
                failures.append(f"{panel}: {v['impact']} {v['id']} ({v['help']}): " + "; ".join(v["nodes"][:3]))
        summary[panel] = counts
        page.evaluate("window.scrollTo(0, 0)")  # a full-page shot scrolled down shows the sticky tab bar mid-page
        page.screenshot(path=str(screenshots_dir / f"{panel}-{state}-{size['width']}.png"), full_page=True)
    (screenshots_dir / f"axe-{state}-{viewport}.json").write_text(json.dumps(summary, indent=1) + "\n")
    with capsys.disabled():
        print(f"\n[axe {state} {viewport}] " + ", ".join(f"{p}: {c or 'none'}" for p, c in summary.items()))
    assert not failures, "\n".join(failures)


def tab_stops(page, selector: str) -> int:
    return page.eval_on_selector(selector, "box => box.querySelectorAll('[tabindex=\"0\"]').length")


def test_chips_and_chart_dots_are_one_tab_stop_walked_with_the_arrow_keys(app_page):
    page = app_page
    page.click("#tab-inspect")
    # a fresh page's Inspect opens on GPT-4's tokenizer (fetched now); this test wants the
    # textbook model's thousands of one-character chips: back to it, in one click
    expect(page.locator('#inspect-pick button[data-pick="cl100k_base"]')).to_have_attribute("aria-pressed", "true",
                                                                                          timeout=60_000)
    page.click('#inspect-pick button[data-pick="trained"]')
    text = ("lowest newer wider widest lower newest low " * 140)[:6000]
    page.fill("#inspect-input", text)
    chips = page.locator("#inspect-chips .chip")
    # wait for this text's count (thousands, written with a comma), not the sample's count
    # still shown before the new text is encoded (a slow machine read "19" here)
    expect(page.locator("#inspect-count")).to_have_text(re.compile(r"^\d{1,3}(,\d{3})+$"))
    expect(chips).to_have_count(min(MAX_CHIPS, int(page.text_content("#inspect-count").replace(",", ""))))
    assert chips.count() > 1000 and tab_stops(page, "#inspect-chips") == 1  # not a thousand Tab stops
    # Tab from the text's controls lands on the first chip, then the arrows walk the chips
    page.focus("#inspect-sample")  # the last control before the chips
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('#inspect-chips .chip:first-child')")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("[...document.querySelectorAll('#inspect-chips .chip')].indexOf(document.activeElement)")
    assert focused == 2 and tab_stops(page, "#inspect-chips") == 1
    assert page.get_attribute("#inspect-chips .chip:nth-child(3)", "tabindex") == "0"
    expect(page.locator("#inspect-detail")).to_have_text(page.get_attribute("#inspect-chips .chip:nth-child(3)", "title"))
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement === document.querySelector('#inspect-chips .chip:last-child')")
    # one more Tab leaves the whole group
    page.keyboard.press("Tab")
    assert page.evaluate("!document.activeElement.closest('#inspect-chips')")

    page.click("#tab-train")
    dots = page.locator("#curve-chart .dot")
    expect(dots.first).to_be_attached()
    assert dots.count() >= 2 and tab_stops(page, "#curve-chart") == 1
    dots.first.focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement === document.querySelectorAll('#curve-chart .dot')[1]")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')").startswith("merge 2:")


def test_the_phone_tab_bar_scrolls_and_keeps_the_selected_tab_in_view(fresh_page, site_url):
    page, guard = fresh_page(viewport=PHONE)
    page.goto(site_url)
    guard.wait_ready()
    tabs = page.locator("#panel-tabs")
    assert page.evaluate("(t => t.scrollWidth > t.clientWidth)(document.querySelector('#panel-tabs'))")
    # the hint: a shadow on the side with more tabs (a background image that stays at the edge)
    assert "radial-gradient" in tabs.evaluate("t => getComputedStyle(t).backgroundImage")
    page.click("#tab-files")  # visible at the edge; selecting it scrolls it fully into view
    page.keyboard.press("ArrowRight")  # → Share, the last tab, off screen at first
    expect(page.locator("#panel-share")).to_be_visible()
    box, bar = page.locator("#tab-share").bounding_box(), tabs.bounding_box()
    assert box["x"] >= bar["x"] - 0.5 and box["x"] + box["width"] <= bar["x"] + bar["width"] + 0.5
    # issue 26 item 5: the sticky bar (tabs and the pills) took a quarter of a phone's screen;
    # one row of pills now, and Inspect's tokenizer picker wraps its buttons in rows
    sticky = page.locator(".tabbar").bounding_box()["height"]
    assert sticky <= 0.15 * PHONE["height"], f"the sticky bar is {sticky:.0f} px of {PHONE['height']}"
    page.click("#tab-inspect")
    expect(page.locator('#inspect-pick button[data-pick="cl100k_base"]')).to_have_attribute("aria-pressed", "true",
                                                                                          timeout=60_000)
    tops = page.locator("#inspect-pick button").evaluate_all("bs => new Set(bs.map(b => Math.round(b.getBoundingClientRect().top))).size")
    assert tops <= 4, f"the picker's {page.locator('#inspect-pick button').count()} buttons take {tops} rows"


# Chips and pre-token pieces that stick out of their box (left or right): [box, its text].
STICKING_OUT_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('.chips .chip, .pieces .piece, #merges-rows td .mini-chip')) {
    if (!el.getClientRects().length) continue;
    const parent = el.closest('td') || el.parentElement;
    const box = parent.getBoundingClientRect(), r = el.getBoundingClientRect();
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5) out.push([parent.id || parent.className || parent.tagName, el.textContent.slice(0, 20)]);
  }
  return out;
}"""


def test_a_long_token_and_a_long_pre_token_wrap_inside_their_boxes(fresh_page, site_url):
    """A 72-dash rule (one byte-level token after a few merges) and a CJK sentence without
    spaces (one pre-token) made the Inspect pipeline card, the chips and a Compare column
    overflow (the page scrolled sideways, even at 1366 px); they wrap in their boxes now. A
    token of 64 spaces stays inside its merges-table cell too (the table widens in its scroller)."""
    rule, cjk = "-" * 72, "人人生而自由在尊严和权利上一律平等" * 3
    page, guard = fresh_page(viewport=DESKTOP)
    page.goto(site_url)
    guard.wait_ready()
    page.click("#tab-corpus")
    page.fill("#corpus-text", f"rule\n{rule}\nwords here\n{' ' * 64}indented\n" * 20)  # (a 64-space token too)
    train_to_end(page, "byte_bpe", 30)
    page.click("#tab-inspect")
    page.fill("#inspect-input", f"{rule}\n{cjk}")
    expect(page.locator("#inspect-chips .chip-text", has_text=rule)).to_have_count(1)  # one token
    expect(page.locator("#stage-pretokens .piece", has_text=cjk)).to_have_count(1)  # one pre-token
    page.click("#tab-compare")
    page.fill("#cmp-vocab", "60")
    page.click("#cmp-run")
    expect(page.locator("#panel-compare")).to_have_attribute("data-state", "idle", timeout=120_000)
    page.fill("#cmp-text", rule)
    expect(page.locator("#cmp-columns .chip-text", has_text=rule).first).to_be_visible()
    problems = []
    for width in (1366, 375):
        page.set_viewport_size({"width": width, "height": 900})
        for panel in ("inspect", "compare", "train"):
            show(page, panel)
            m = measure(page)
            if m["scroll_width"] > m["viewport"] or m["widest_right"] > m["viewport"] + 0.5:
                problems.append(f"{panel} at {width}px: the page is {m['scroll_width']}px wide (widest: {m['widest']})")
            problems += [f"{panel} at {width}px: a chip or piece sticks out of {box}: {text!r}"
                         for box, text in page.evaluate(STICKING_OUT_JS)]
    assert not problems, "\n".join(problems)
