"""A stranger's first minutes, in headless Chromium: a fresh page; paste a UDHR text the
page does not bundle (French, cut out of corpora/udhr_many.txt); train; step; inspect; copy
the share link; open it in a new browser context: it lands on Train at the same step with
the same tokens; reload it: the same again (the address keeps the experiment)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect
from share_actions import open_link, wait_applied

from subwordlab_web import share
from subwordlab_web.samples import SAMPLES

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
FRENCH_TITLE = "Déclaration universelle des droits de l’homme"
TRY = "Tous les êtres humains naissent libres et égaux en dignité et en droits."
STEP = 5


def french_udhr() -> str:
    """The French section of udhr_many.txt: its title line (not indented) up to the next title."""
    lines = (CORPORA / "udhr_many.txt").read_text(encoding="utf-8").splitlines()
    start = lines.index(FRENCH_TITLE)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() and not lines[i][0].isspace())
    return "\n".join(lines[start:end]).strip() + "\n"


def tokens(page) -> list[str]:
    """The inspector's chips as id:text."""
    chips = page.locator("#inspect-chips .chip")
    expect(chips.first).to_be_visible()
    return chips.evaluate_all("cs => cs.map(c => c.dataset.id + ':' + c.querySelector('.chip-text').textContent)")


def segmentation(page) -> list[str]:
    return page.eval_on_selector_all("#segmentation-rows tr", "rows => rows.map(r => r.textContent)")


def lands_on_the_experiment(page, want_tokens: list[str], want_rows: list[str]) -> None:
    """On Train, at STEP, with the pasted corpus and the sender's tokens."""
    expect(page.locator("#tab-train")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#panel-train")).to_be_visible()
    expect(page.locator("#train-step-now")).to_have_text(str(STEP))
    expect(page.locator("#context-corpus")).to_have_text("Your text")
    expect(page.locator("#context-step")).to_have_text(f"step {STEP} of 40")
    expect(page.locator("#segmentation-rows tr").first).to_be_visible()
    assert segmentation(page) == want_rows
    page.click("#tab-inspect")
    expect(page.locator("#inspect-input")).to_have_value(TRY)
    assert tokens(page) == want_tokens


def test_a_new_user_pastes_trains_steps_inspects_and_shares(fresh_page, site_url, screenshots_dir):
    text = french_udhr()
    assert 5_000 < len(text) < 30_000 and not any(s.title.endswith("French") for s in SAMPLES.values())
    page, guard = fresh_page()
    page.goto(site_url)
    guard.wait_ready()

    # paste: running text is detected although the first screen's sample is a word-count list
    page.click("#tab-corpus")
    expect(page.locator("#corpus-format-counts")).to_be_checked()
    page.fill("#corpus-text", text)
    expect(page.locator("#corpus-format-note")).to_have_text("Detected: running text.")
    expect(page.locator("#corpus-format-text")).to_be_checked()
    expect(page.locator("#corpus-message")).to_be_hidden()
    expect(page.locator('#corpus-stats dd[data-stat="chars"]')).to_have_text(f"{len(text):,}")
    expect(page.locator("#corpus-status")).to_contain_text("In use: “Your text”")
    expect(page.locator("#context-corpus")).to_have_text("Your text")
    page.screenshot(path=str(screenshots_dir / "journey-corpus.png"), full_page=True)

    # train (SentencePiece BPE, 40 merges), then step from the start
    page.click("#tab-train")
    page.select_option("#train-preset", "sentencepiece_bpe")
    page.fill("#train-size", "40")
    page.press("#train-size", "Enter")
    expect(page.locator("#context-spec")).to_have_text("SentencePiece BPE · 40 merges")
    page.click("#train-end")
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=60_000)
    expect(page.locator("#train-step-now")).to_have_text("40")
    page.click("#train-reset")
    for _ in range(STEP):
        page.click("#train-step")
    expect(page.locator("#train-step-now")).to_have_text(str(STEP))
    expect(page.locator("#merges-rows tr").first.locator("td").first).to_have_text(str(STEP))
    expect(page.locator("#segmentation-rows tr").first).to_be_visible()
    rows = segmentation(page)

    # inspect
    page.click("#tab-inspect")
    page.fill("#inspect-input", TRY)
    expect(page.locator("#inspect-step-now")).to_have_text(str(STEP))
    want = tokens(page)
    assert len(want) > 10

    # back to Train, then Share: the link lands where the sender was working
    page.click("#tab-train")
    expect(page.locator("#train-step-now")).to_have_text(str(STEP))
    page.click("#tab-share")
    page.click("#share-copy")
    expect(page.locator("#share-status")).not_to_be_empty()
    link = page.input_value("#share-link")
    exp = share.decode_fragment(link.split("#", 1)[1])
    assert (exp.panel, exp.step, exp.corpus.kind, exp.corpus.title) == ("train", STEP, "inline", "Your text")

    # a new browser context (nothing cached, no storage): the same experiment
    dst, dst_guard = open_link(fresh_page, link)
    lands_on_the_experiment(dst, want, rows)
    dst.click("#tab-train")
    dst.screenshot(path=str(screenshots_dir / "journey-shared.png"), full_page=True)

    # reload: the address kept the experiment, so the same again
    dst.reload()
    dst_guard.wait_ready()
    wait_applied(dst)
    lands_on_the_experiment(dst, want, rows)


RUNNING = re.compile("preparing|training")  # a run going on (counting the corpus, or merging)


def test_a_reload_during_a_long_run_asks_first_then_offers_to_run_again(fresh_page, site_url, screenshots_dir):
    page, guard = fresh_page()
    page.goto(site_url)
    guard.wait_ready()
    page.click("#tab-corpus")
    page.select_option("#corpus-sample", "tinyshakespeare")
    title = SAMPLES["tinyshakespeare"].title
    expect(page.locator("#context-corpus")).to_have_text(title)
    page.click("#tab-train")
    # 1.1 MB to vocabulary 4,000 now trains in under a second: the page's CPU is slowed down
    # (Chromium's CPU throttling) so the run is still going when the test looks, and reloads
    cpu = page.context.new_cdp_session(page)
    cpu.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.click("#train-end")
    expect(page.locator("#panel-train")).to_have_attribute("data-status", RUNNING, timeout=60_000)
    cpu.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    dialogs = []

    def answer(dialog):
        dialogs.append(dialog.type)
        dialog.accept()

    page.on("dialog", answer)
    page.reload()
    assert dialogs == ["beforeunload"]  # "Leave site?" before a long run is lost
    guard.wait_ready()
    wait_applied(page)
    offer = page.locator("#train-resume")
    expect(offer).to_be_visible()
    expect(offer).to_contain_text(f"reloaded while Byte-level BPE · vocabulary 4,000 was training on “{title}”")
    expect(page.locator("#context-corpus")).to_have_text(title)
    expect(page.locator("#context-spec")).to_have_text("Byte-level BPE · vocabulary 4,000")
    expect(page.locator("#context-step")).to_have_text("not trained")
    page.screenshot(path=str(screenshots_dir / "reload-during-a-run.png"))
    cpu = page.context.new_cdp_session(page)  # the reloaded page: slowed down again for the second run
    cpu.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.click("#train-resume-run")
    expect(offer).to_be_hidden()
    expect(page.locator("#panel-train")).to_have_attribute("data-status", RUNNING, timeout=60_000)
    page.click("#train-cancel")
    expect(page.locator("#train-status")).to_contain_text("Training cancelled after")
