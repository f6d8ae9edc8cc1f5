"""The playground as a user drives it, in headless Chromium: samples, stepping, playing,
scrubbing, uploads, pasting, inspecting (checked against the core in CPython), injection,
bad files, cancelling, keyboard only, a long run measured with the Long Tasks API, and
screenshots of every panel (tests/e2e/screenshots/)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

import subwordlab
from subwordlab.divergence import first_divergence
from subwordlab.recording import Recording

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
SEED0 = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
EVIL_NAME = "<img src=x onerror=alert(1)>.txt"
EVIL_TEXT = "<img src=x onerror=window.__pwned=1> <script>window.__pwned=2</script> <b>bold</b>"
LONG_TASK_LIMIT_MS = 250  # a regression guard: the target is 100 ms (see the report); a shared CI machine adds noise
# A long paste in Inspect: alone, no task is over 50 ms (each part of the work is 10-30 ms), but
# the e2e tier's load makes tasks 3-4x longer (164 ms seen): the test counts the chips each task
# draws, which no load changes, and this bound only catches a task that holds the page for long.
# (Drawn in one go, the longest task was 190-280 ms alone.)
PASTE_TASK_LIMIT_MS = 1_000


def merges(page) -> list[list[str]]:
    """The merges table, newest first: [step, pair, count, new token]."""
    return page.eval_on_selector_all(
        "#merges-rows tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")


def pick_sample(page, sample_id: str) -> None:
    page.click("#tab-corpus")
    page.select_option("#corpus-sample", sample_id)
    expect(page.locator("#corpus-sample")).to_have_value(sample_id)
    expect(page.locator("#context-corpus")).not_to_have_text("…")


def go_train(page) -> None:
    page.click("#tab-train")
    expect(page.locator("#panel-train")).not_to_be_hidden()


def wait_done(page, timeout=60_000) -> None:
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=timeout)


def step_to(page, n: int) -> None:
    page.locator("#train-scrubber").fill(str(n))
    expect(page.locator("#train-step-now")).to_have_text(f"{n:,}")
    if n:  # the tables are redrawn a moment later
        expect(page.locator("#merges-rows tr").first.locator("td").first).to_have_text(f"{n:,}")


def at_step(page, n: int) -> None:
    expect(page.locator("#train-step-now")).to_have_text(f"{n:,}")
    expect(page.locator("#merges-rows tr").first.locator("td").first).to_have_text(f"{n:,}")


# --- stepping through the worked examples -------------------------------------------------
def test_seed_samples_step_three_merges_with_the_textbook_counts(app_page, screenshots_dir):
    page = app_page
    pick_sample(page, "seed003")
    go_train(page)
    wait_done(page)
    for _ in range(3):
        page.click("#train-step")
    at_step(page, 3)
    assert merges(page) == [["3", "l + o", "7", "lo"], ["2", "er + _", "9", "er_"], ["1", "e + r", "9", "er"]]

    pick_sample(page, "seed000")
    go_train(page)
    wait_done(page)
    for _ in range(3):
        page.click("#train-step")
    at_step(page, 3)
    assert merges(page) == [["3", "est + </w>", "9", "est</w>"], ["2", "es + t", "9", "est"], ["1", "e + s", "9", "es"]]
    expect(page.locator("#train-now-main")).to_have_text("est  +  </w>  →  est</w>")
    chosen = page.locator("#candidates-chart g.bar.chosen title")
    expect(chosen).to_have_text("est + </w>: count 9 (chosen)")
    seg = page.locator("#segmentation-rows tr").first
    expect(seg.locator("td").first).to_have_text("newest")
    expect(seg.locator(".mini-chip")).to_have_text(["n", "e", "w", "est</w>"])
    page.screenshot(path=str(screenshots_dir / "train.png"), full_page=True)


def test_play_to_the_end_then_scrub_back_to_step_one_and_forward(app_page):
    page = app_page
    go_train(page)
    wait_done(page)
    page.select_option("#train-speed", "10")
    page.click("#train-play")
    expect(page.locator("#train-play .play-text")).to_have_text("Pause")
    expect(page.locator("#train-step-now")).to_have_text("8", timeout=10_000)
    expect(page.locator("#train-play .play-text")).to_have_text("Play")
    expect(page.locator("#train-step")).to_be_disabled()
    at_step(page, 8)
    assert merges(page)[0] == ["8", "new + est</w>", "6", "newest</w>"]

    step_to(page, 1)
    assert merges(page) == [["1", "e + s", "9", "es"]]
    expect(page.locator("#vocab-count")).to_have_text("12")
    step_to(page, 5)
    assert [row[1] for row in merges(page)] == ["lo + w", "l + o", "est + </w>", "es + t", "e + s"]
    expect(page.locator("#context-step")).to_have_text("step 5 of 8")
    page.click("#train-back")
    expect(page.locator("#train-step-now")).to_have_text("4")
    page.click("#train-reset")
    expect(page.locator("#train-step-now")).to_have_text("0")
    expect(page.locator("#merges-empty")).to_have_text("Step 0: nothing merged yet.")


# --- the corpus ----------------------------------------------------------------------------
def test_upload_files_paste_text_and_drop_a_file(app_page, screenshots_dir):
    page = app_page
    page.click("#tab-corpus")
    page.set_input_files("#corpus-file", [
        {"name": "poem.txt", "mimeType": "text/plain", "buffer": b"the low sun, the lower moon\n"},
        {"name": "more.txt", "mimeType": "text/plain", "buffer": b"newest widest lowest\n"},
    ])
    expect(page.locator("#corpus-status")).to_contain_text("Loaded poem.txt, more.txt")
    expect(page.locator("#corpus-source")).to_contain_text("2 files")
    expect(page.locator('#corpus-stats dd[data-stat="words"]')).to_have_text("9")
    expect(page.locator("#corpus-format-text")).to_be_checked()
    assert page.input_value("#corpus-text") == "the low sun, the lower moon\nnewest widest lowest\n"

    page.fill("#corpus-text", "hug hug hug pug pun pun bun hugs")
    expect(page.locator('#corpus-stats dd[data-stat="distinct_words"]')).to_have_text("5")
    expect(page.locator('#corpus-stats dd[data-stat="chars"]')).to_have_text("32")
    expect(page.locator("#corpus-top .word").first).to_have_text("hug")
    expect(page.locator("#corpus-sample")).to_have_value("")
    page.click("#corpus-to-train")
    wait_done(page)
    page.click("#train-step")
    at_step(page, 1)
    assert merges(page)[0][1:3] == ["u + g", "5"]
    # a corpus too small for the target: the status says where it stopped and what to do
    page.fill("#train-size", "50")
    page.press("#train-size", "Enter")
    wait_done(page)
    expect(page.locator("#train-status")).to_contain_text(re.compile(r"stopped after 1\d of the 50 merges asked"))
    expect(page.locator("#train-status")).to_contain_text("use a bigger corpus or fewer merges")
    page.screenshot(path=str(screenshots_dir / "train-shortfall.png"))

    page.click("#tab-corpus")
    transfer = page.evaluate_handle(
        "() => { const dt = new DataTransfer(); "
        "dt.items.add(new File(['dropped words dropped'], 'dropped.txt', {type: 'text/plain'})); return dt; }")
    page.dispatch_event("#corpus-drop", "drop", {"dataTransfer": transfer})
    expect(page.locator("#corpus-source")).to_have_text("dropped.txt")
    expect(page.locator('#corpus-stats dd[data-stat="words"]')).to_have_text("3")
    page.screenshot(path=str(screenshots_dir / "corpus.png"), full_page=True)


def test_a_binary_file_is_refused_by_name_and_the_corpus_stays(app_page):
    page = app_page
    page.click("#tab-corpus")
    before = page.input_value("#corpus-text")
    page.set_input_files("#corpus-file", [
        {"name": "photo.png", "mimeType": "image/png", "buffer": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01"}])
    message = page.locator("#corpus-message")
    expect(message).to_be_visible()
    expect(message).to_contain_text("“photo.png” looks like a binary file")
    expect(message).to_contain_text("your corpus is unchanged")
    expect(page.locator("#corpus-lenient")).to_be_visible()
    assert page.input_value("#corpus-text") == before
    expect(page.locator("#context-corpus")).to_have_text("Textbook: low, lower, newest, widest")
    expect(page.locator('#corpus-stats dd[data-stat="distinct_words"]')).to_have_text("4")

    # UTF-16 without a byte-order mark is named as such (it was "a binary file")
    page.set_input_files("#corpus-file", [{"name": "notepad.txt", "mimeType": "text/plain",
                                           "buffer": "All human beings\r\nare born free".encode("utf-16-le")}])
    expect(message).to_contain_text("“notepad.txt” looks like UTF-16 (little-endian, as Windows writes it) without a "
                                     "byte-order mark, not UTF-8 text; save it as UTF-8")
    expect(message).not_to_contain_text("binary")
    assert page.input_value("#corpus-text") == before
    page.set_input_files("#corpus-file", [{"name": "latin1.txt", "mimeType": "text/plain", "buffer": "café".encode("latin-1")}])
    expect(message).to_contain_text("“latin1.txt” is not UTF-8 text (byte 0xE9 at position 3")
    page.click("#corpus-lenient")
    expect(message).to_be_hidden()
    expect(page.locator("#corpus-source")).to_have_text("latin1.txt")
    assert page.input_value("#corpus-text") == "caf\ufffd"  # the file's text: no line break added


def test_a_20_mb_file_loads(app_page, tmp_path):
    page = app_page
    page.click("#tab-corpus")
    line = "All human beings are born free and equal in dignity and rights.\n"
    data = (line * (20 * 1024 * 1024 // len(line) + 1)).encode()
    assert len(data) > 20 * 1024 * 1024
    (tmp_path / "big.txt").write_bytes(data)  # from disk: a 20 MB buffer crawls through Playwright's pipe
    page.set_input_files("#corpus-file", str(tmp_path / "big.txt"))
    expect(page.locator('#corpus-stats dd[data-stat="bytes"]')).to_have_text(f"{len(data):,}", timeout=60_000)
    expect(page.locator("#corpus-text-note")).to_contain_text("a preview of the first")
    expect(page.locator("#corpus-message")).to_be_hidden()


# --- the inspector, checked against the core ------------------------------------------------
def test_inspect_ids_and_offsets_match_the_core_at_each_step(app_page, screenshots_dir):
    page = app_page
    text = "lowest newer  wider"
    rec = Recording(SEED0, "bpe", num_merges=8).run()  # the same run, in CPython
    go_train(page)
    wait_done(page)
    page.click("#train-end")
    expect(page.locator("#train-step-now")).to_have_text("8")
    page.click("#tab-inspect")
    page.fill("#inspect-input", text)
    for step in (8, 3, 0):
        page.locator("#inspect-step").fill(str(step))
        expect(page.locator("#inspect-step-now")).to_have_text(str(step))
        enc = rec.tokenizer_at(step).encode_full(text)
        chips = page.locator("#inspect-chips .chip")
        expect(chips).to_have_count(len(enc.ids))
        got = chips.evaluate_all("cs => cs.map(c => [c.dataset.id, c.dataset.start, c.dataset.end, c.dataset.bytes, "
                                 "c.querySelector('.chip-text').textContent])")
        assert got == [[str(i), str(s), str(e), f"{bs}-{be}", t]
                       for i, (s, e), (bs, be), t in zip(enc.ids, enc.offsets, enc.byte_offsets, enc.tokens)]
        expect(page.locator("#inspect-count")).to_have_text(str(len(enc.ids)))
        expect(page.locator("#stage-ids")).to_have_text(" ".join(map(str, enc.ids)))
    expect(page.locator("#context-step")).to_have_text("step 0 of 8")
    chip = page.locator("#inspect-chips .chip").nth(1)
    chip.focus()
    expect(page.locator("#inspect-detail")).to_have_text(chip.get_attribute("title"))
    page.locator("#inspect-step").fill("8")
    expect(page.locator("#inspect-roundtrip")).to_contain_text("Round trip as designed")  # two spaces come back as one
    expect(page.locator("#inspect-roundtrip")).to_have_attribute("data-ok", "design")
    page.screenshot(path=str(screenshots_dir / "inspect.png"), full_page=True)


def test_a_long_paste_in_inspect_is_drawn_without_holding_the_page(app_page, built_site, capsys):
    """A long text pasted into Inspect (real text the page does not bundle: argparse's source,
    cut to the inspector's 20,000 characters) with GPT-4's tokenizer, Inspect's first one:
    encoded a slice at a time, its chips made with each slice, and 2,000 chips, the coloured
    text and the stages drawn in parts, a browser task each. Before, one task made every chip
    (~190 ms alone) and another drew them all (~110-280 ms)."""
    import argparse
    import inspect

    from subwordlab_web.exports import import_model
    from subwordlab_web.inspect_panel import MAX_CHIPS, MAX_TEXT, PART_CHIPS
    from subwordlab_web.well_known import WELL_KNOWN_BY_KEY

    page = app_page
    text = inspect.getsource(argparse)[: MAX_TEXT + 5_000]  # (the browser's own layout of a longer box is long too)
    assert len(text) > MAX_TEXT
    page.click("#tab-inspect")
    expect(page.locator("#inspect-which")).to_contain_text("GPT-4", timeout=60_000)
    expect(page.locator("#inspect-chips .chip").first).to_be_visible()
    # the long tasks, and how many chips each browser task adds (a mutation observer's callback
    # runs once at the end of each task that changed the chips: a count the machine's load cannot change)
    page.evaluate("""() => { window.__longTasks = []; window.__chipBatches = [];
        new PerformanceObserver(l => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); })
          .observe({type: 'longtask'});
        new MutationObserver(records => window.__chipBatches.push(
            records.reduce((n, r) => n + [...r.addedNodes].filter(x => x.classList && x.classList.contains('chip')).length, 0)))
          .observe(document.querySelector('#inspect-chips'), {childList: true}); }""")
    # one input event, as a paste gives (Playwright's fill sends one per line)
    page.evaluate("""(t) => { const box = document.querySelector('#inspect-input'); box.value = t;
        box.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'})); }""", text)
    cl100k = WELL_KNOWN_BY_KEY["cl100k_base"]
    theirs = import_model(cl100k.file, (built_site / cl100k.url).read_bytes()).tokenizer
    want = theirs.encode(text[:MAX_TEXT], disallowed_special=())
    expect(page.locator("#inspect-count")).to_have_text(f"{len(want):,}", timeout=60_000)
    expect(page.locator("#inspect-chips .chip")).to_have_count(MAX_CHIPS)
    expect(page.locator("#stage-pretokens-count")).not_to_have_text("0")
    assert page.locator("#inspect-chips .chip").nth(MAX_CHIPS - 1).get_attribute("data-id") == str(want[MAX_CHIPS - 1])
    page.wait_for_timeout(300)
    tasks = [round(d) for d in page.evaluate("() => window.__longTasks")]
    batches = [n for n in page.evaluate("() => window.__chipBatches") if n]
    with capsys.disabled():
        print(f"\n[inspect] {len(want):,} tokens of a pasted text; chips added per browser task: {batches}; "
              f"main-thread tasks over 50 ms: {tasks}")
    assert sum(batches) == MAX_CHIPS and max(batches) <= PART_CHIPS, batches
    assert max(tasks, default=0) < PASTE_TASK_LIMIT_MS, tasks


def test_byte_level_inspection_on_a_multilingual_sample(app_page, screenshots_dir):
    page = app_page
    pick_sample(page, "mixed_script")
    go_train(page)
    wait_done(page)
    page.click("#train-end")
    page.click("#tab-inspect")
    text = "héllo 你好 🙂\tok"
    page.fill("#inspect-input", text)
    sample_text = page.evaluate("() => document.querySelector('#corpus-text').value")
    tok = subwordlab.train(sample_text, "byte_bpe", vocab_size=400)
    enc = tok.encode_full(text)
    chips = page.locator("#inspect-chips .chip")
    expect(chips).to_have_count(len(enc.ids))
    assert chips.evaluate_all("cs => cs.map(c => +c.dataset.id)") == enc.ids
    assert chips.evaluate_all("cs => cs.map(c => c.dataset.bytes)") == [f"{a}-{b}" for a, b in enc.byte_offsets]
    expect(page.locator("#inspect-roundtrip")).to_have_text("✓ Round trip exact")
    expect(page.locator("#stage-normalized")).to_have_text("héllo·你好·🙂→ok")
    # the text itself, coloured by token: hovering the emoji's span lights its byte chips
    spans = page.locator("#inspect-spans")
    expect(spans).to_have_text(text)
    emoji = spans.locator(".tok-span", has_text="🙂")
    over = [k for k, o in enumerate(enc.offsets) if o == (text.index("🙂"), text.index("🙂") + 1)]
    expect(emoji).to_have_attribute("data-chips", " ".join(map(str, over)))
    emoji.hover()
    expect(page.locator("#inspect-chips .chip.lit")).to_have_count(len(over))
    assert page.locator("#inspect-chips .chip.lit").evaluate_all("cs => cs.map(c => +c.dataset.index)") == over
    page.locator("#inspect-spans").screenshot(path=str(screenshots_dir / "inspect-spans.png"))
    chips.nth(0).hover()
    expect(spans.locator(".tok-span.lit")).to_have_count(1)
    page.fill("#inspect-alpha", "0.4")
    page.fill("#inspect-seed", "3")
    page.click("#inspect-sample")
    expect(page.locator("#inspect-mode")).to_contain_text("seed 3")
    assert chips.evaluate_all("cs => cs.map(c => +c.dataset.id)") == tok.sample_encode(text, 0.4, seed=3)
    page.screenshot(path=str(screenshots_dir / "inspect-bytes.png"), full_page=True)


def test_unigram_and_wordpiece_views(app_page, screenshots_dir):
    page = app_page
    pick_sample(page, "udhr_eng")
    expect(page.locator("#corpus-attribution")).to_contain_text("OHCHR")
    go_train(page)
    page.select_option("#train-preset", "unigram")
    page.fill("#train-size", "300")
    page.press("#train-size", "Enter")
    wait_done(page)
    page.click("#train-end")
    expect(page.locator("#candidates-title")).to_contain_text("Pieces pruned in round")
    expect(page.locator("#curve-title")).to_have_text("Corpus log-likelihood")
    expect(page.locator("#curve-chart circle.current")).to_have_count(1)
    page.screenshot(path=str(screenshots_dir / "train-unigram.png"), full_page=True)
    page.click("#tab-inspect")
    page.fill("#inspect-input", "rights")
    expect(page.locator("#nbest-card")).to_be_visible()
    expect(page.locator("#nbest-rows tr").first.locator("td").nth(1)).to_have_text("▁rights")
    page.screenshot(path=str(screenshots_dir / "inspect-unigram.png"), full_page=True)

    pick_sample(page, "seed004")
    go_train(page)
    page.select_option("#train-preset", "wordpiece")
    wait_done(page)
    page.click("#train-step")
    expect(page.locator("#candidates-chart g.bar.chosen title")).to_have_text(
        "##i + ##z: score 0.1429, count 5 = 5 / (7 × 5) (chosen)")
    page.screenshot(path=str(screenshots_dir / "train-wordpiece.png"), full_page=True)


# --- robustness ------------------------------------------------------------------------------
def test_corpus_text_and_file_names_are_shown_literally(app_page):
    page = app_page
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.click("#tab-corpus")
    page.click("#corpus-format-text")
    page.fill("#corpus-text", (EVIL_TEXT + "\n") * 5)
    page.set_input_files("#corpus-file", [{"name": EVIL_NAME, "mimeType": "text/plain", "buffer": (EVIL_TEXT + "\n").encode()}])
    expect(page.locator("#corpus-source")).to_have_text(EVIL_NAME)
    expect(page.locator("#context-corpus")).to_have_text(EVIL_NAME)
    # the upload starts a run in the compute worker (still booting on a fresh page); a second
    # upload during it would ask first (test_web_corpus tests that): let the run end
    wait_done(page)
    page.set_input_files("#corpus-file", [{"name": EVIL_NAME, "mimeType": "text/plain", "buffer": b"\xff\xfd" + EVIL_TEXT.encode()}])
    expect(page.locator("#corpus-message-text")).to_contain_text(f"“{EVIL_NAME}” is not UTF-8")
    page.click("#corpus-to-train")
    wait_done(page)
    page.click("#train-end")
    expect(page.locator("#segmentation-rows tr").first.locator("td").first).to_have_text("<img")
    page.click("#tab-inspect")
    page.fill("#inspect-input", EVIL_TEXT)
    expect(page.locator("#inspect-chips .chip").first).to_be_visible()
    page.wait_for_timeout(300)
    assert page.locator("#app img, #app script, #app b").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert dialogs == []
    assert EVIL_NAME in page.text_content("#context-corpus")


def test_cancel_a_long_run(app_page):
    page = app_page
    pick_sample(page, "tinyshakespeare")
    expect(page.locator('#corpus-stats dd[data-stat="chars"]')).to_have_text("1,115,394", timeout=30_000)
    go_train(page)
    expect(page.locator("#train-now-kicker")).to_have_text("Not trained yet")
    page.fill("#train-size", "30000")  # a long run: the whole corpus merged into words
    page.press("#train-size", "Enter")
    expect(page.locator("#context-spec")).to_have_text("Byte-level BPE · vocabulary 30,000")
    page.click("#train-end")
    expect(page.locator("#train-progress")).to_be_visible()
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "training", timeout=30_000)
    expect(page.locator("#train-rate")).to_contain_text("steps/s")
    page.click("#train-cancel")
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "cancelled")
    expect(page.locator("#train-status")).to_contain_text("Training cancelled after")
    expect(page.locator("#train-progress")).to_be_hidden()
    page.wait_for_timeout(500)
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "cancelled")  # it stays cancelled


def _tab_to(page, selector: str, limit: int = 80) -> None:
    """Press Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    pytest.fail(f"Tab never reached {selector}")


def _focus_is_visible(page) -> bool:
    return page.evaluate("""() => { const s = getComputedStyle(document.activeElement);
        return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none'; }""")


def test_keyboard_only_main_flow(app_page, screenshots_dir):
    page = app_page
    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()
    _tab_to(page, "#tab-train")
    assert _focus_is_visible(page)
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#tab-corpus")).to_be_focused()
    expect(page.locator("#panel-corpus")).to_be_visible()
    _tab_to(page, "#corpus-sample")
    assert _focus_is_visible(page)
    page.keyboard.press("ArrowDown")  # seed000 -> seed002
    expect(page.locator("#corpus-sample")).to_have_value("seed002")
    expect(page.locator("#context-corpus")).to_have_text("Textbook: hug, pug, pun, bun, hugs")
    _tab_to(page, "#corpus-to-train")
    page.keyboard.press("Enter")
    expect(page.locator("#tab-train")).to_be_focused()
    wait_done(page)
    _tab_to(page, "#train-step")
    assert _focus_is_visible(page)
    for _ in range(3):
        page.keyboard.press("Enter")
    at_step(page, 3)
    assert [row[1] for row in merges(page)] == ["h + ug", "u + n", "u + g"]
    _tab_to(page, "#train-scrubber")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#train-step-now")).to_have_text("1")
    page.keyboard.press("End")
    expect(page.locator("#train-step-now")).to_have_text("3")
    _tab_to(page, "#candidates-chart g.bar")
    expect(page.locator("#candidates-chart g.bar").first).to_be_focused()
    page.keyboard.press("Shift+Tab")
    _tab_to(page, "#tab-train", limit=200)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-inspect")).to_be_focused()
    _tab_to(page, "#inspect-input")
    page.keyboard.press("Control+A")
    page.keyboard.type("bugs mug")
    expect(page.locator("#inspect-chips .chip-text")).to_have_text(["b", "ug", "s", "<unk>", "ug"])
    _tab_to(page, "#inspect-chips .chip")
    assert _focus_is_visible(page)
    expect(page.locator("#inspect-detail")).to_contain_text("id ")
    page.screenshot(path=str(screenshots_dir / "keyboard.png"), full_page=False)


def test_phone_screenshots(fresh_page, site_url, screenshots_dir):
    page, guard = fresh_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page.goto(site_url)
    guard.wait_ready()
    wait_done(page)
    page.click("#train-step")
    page.click("#train-step")
    for tab in ("train", "corpus", "inspect"):
        page.click(f"#tab-{tab}")
        page.wait_for_timeout(200)
        assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
        page.screenshot(path=str(screenshots_dir / f"{tab}-390.png"), full_page=True)


# --- the long run, measured --------------------------------------------------------------------
LONG_RUNS = {
    # case: (preset, its name on the page, corpus file, vocabulary size, the number of steps of the run)
    "byte_bpe": ("byte_bpe", "Byte-level BPE", "tinyshakespeare.txt", 4000, 3744),
    "sentencepiece_unigram": ("sentencepiece_unigram", "SentencePiece Unigram", "tinyshakespeare.txt", 4000, None),
    # 3.3 MB in many scripts, uploaded as a user would (no sample of it on the page)
    "byte_bpe_udhr_many": ("byte_bpe", "Byte-level BPE", "udhr_many.txt", 8000, 7744),
}


# the page's Pyodide, for a test to time Python in the page without the UI (bootstrap.js keeps
# it private; the test's copy of bootstrap.js hands it to window.__pyodide)
EXPOSE_PYODIDE = ("const pyodide = await loadPyodide(", "const pyodide = window.__pyodide = await loadPyodide(")

# the page's run again, in one call, with no slicing, no UI and no hand-backs to the browser:
# WebAssembly and Pyodide's Python alone (the same inputs as state.start_recording's)
UNSLICED_RUN = """
import time
import subwordlab_web
from subwordlab.recording import Recording
_st = subwordlab_web._app.state
_t0 = time.perf_counter()
_n = len(Recording(_st.corpus.training_input(), _st.spec.preset, progress=True, **_st.spec.kwargs()).run().steps)
(round((time.perf_counter() - _t0) * 1000), _n)
"""

# where the page's run spent its time (tasks.train counts it in the training status)
RUN_COSTS = """
import subwordlab_web
_s = subwordlab_web._app.state.training
(round(_s.elapsed * 1000), round(_s.work_seconds * 1000), round(_s.repaint_seconds * 1000), _s.slices)
"""


def _app_page_with_pyodide(fresh_page, site_url):
    page, guard = fresh_page()

    def expose(route):
        response = route.fetch()
        body = response.text()
        assert EXPOSE_PYODIDE[0] in body, "bootstrap.js no longer starts Pyodide as this test expects"
        route.fulfill(response=response, body=body.replace(*EXPOSE_PYODIDE))

    page.route("**/bootstrap.js", expose)
    page.goto(site_url)
    guard.wait_ready()
    return page


# standard modules the page's start must not import: each costs tens of ms of Pyodide's start
# (urllib.parse imports ipaddress; importlib.invalidate_caches imports importlib.metadata, with
# email and csv, since Python 3.12; tests/unit/test_start_imports.py says more)
COSTLY_AT_START = ("urllib.parse", "ipaddress", "decimal", "importlib.metadata", "email", "csv", "xml.sax")


def test_the_page_starts_without_the_costly_standard_modules(fresh_page, site_url):
    """At ready, and once the first screen has trained its example and every panel has been
    shown, the page's Python has imported none of COSTLY_AT_START."""
    page = _app_page_with_pyodide(fresh_page, site_url)
    loaded = f"import sys; [m for m in {COSTLY_AT_START!r} if m in sys.modules]"
    assert page.evaluate("(src) => window.__pyodide.runPython(src).toJs()", loaded) == []
    expect(page.locator("#train-step-total")).not_to_have_text("0", timeout=30_000)
    for tab in ("corpus", "inspect", "compare", "files", "share", "train"):
        page.click(f"#tab-{tab}")
        expect(page.locator(f"#panel-{tab}")).to_be_visible()
    assert page.evaluate("(src) => window.__pyodide.runPython(src).toJs()", loaded) == []


def test_a_long_run_never_blocks_the_page(fresh_page, site_url, screenshots_dir, record_property, capsys):
    """Byte-level BPE to 3,744 merges on the whole Shakespeare sample: no main-thread task
    as long as LONG_TASK_LIMIT_MS, batches of at most POST_STEPS steps, and the page's run is
    CPython's (as many steps).
    bench/bench_page.py measures this and two longer runs, with their page/CPython ratios."""
    report = measure_long_run(fresh_page, site_url, screenshots_dir, record_property, capsys, "byte_bpe")
    assert report["longest_task_ms"] < LONG_TASK_LIMIT_MS, report
    # what no machine's load changes: the page read the run in batches of at most POST_STEPS
    # steps (the end of the run, faster and faster merges, came in one batch of ~1,500: one
    # task of 55-85 ms; session.POST_STEPS)
    from subwordlab_web.session import POST_STEPS

    assert report["batches"] >= report["steps"] / POST_STEPS, report


def measure_long_run(fresh_page, site_url, screenshots_dir, record_property, capsys, case) -> dict:
    """Train one of LONG_RUNS to the end in a fresh page: the longest main-thread task (Long
    Tasks API) and the time from click to done, against the same run in CPython (in the same
    process) and in the page's Python without slicing (what slicing and the UI cost); prints
    and returns the report. LONG_RUNS: byte-level BPE (3,744 merges) and SentencePiece-style
    Unigram (seed, EM, prune) to 4,000 on Shakespeare, byte-level BPE to 8,000 on the 3.3 MB
    UDHR in many scripts."""
    page = _app_page_with_pyodide(fresh_page, site_url)
    preset, name, corpus_file, size, n_steps = LONG_RUNS[case]
    text = (CORPORA / corpus_file).read_text(encoding="utf-8")
    if corpus_file == "tinyshakespeare.txt":
        pick_sample(page, "tinyshakespeare")
    else:
        page.click("#tab-corpus")
        page.set_input_files("#corpus-file", str(CORPORA / corpus_file))
    expect(page.locator('#corpus-stats dd[data-stat="chars"]')).to_have_text(f"{len(text):,}", timeout=60_000)
    go_train(page)
    if page.locator("#context-spec").text_content() != f"{name} · vocabulary {size:,}":
        page.select_option("#train-preset", preset)
        page.check("#train-target-vocab")
        page.fill("#train-size", str(size))
        page.press("#train-size", "Enter")
    expect(page.locator("#context-spec")).to_have_text(f"{name} · vocabulary {size:,}")
    page.wait_for_timeout(300)
    page.evaluate("""() => {
        window.__longTasks = [];
        new PerformanceObserver(list => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
          .observe({type: 'longtask'});
        window.__ticks = [];
        window.__ticker = setInterval(() => { window.__ticks.push(performance.now()); }, 20);
        window.__frames = [];
        const frame = (t) => { window.__frames.push(t); requestAnimationFrame(frame); };
        requestAnimationFrame(frame);
        window.__inputDelays = [];
        document.addEventListener('pointermove', e => { window.__inputDelays.push(performance.now() - e.timeStamp); });
        const panel = document.querySelector('#panel-train');
        window.__done = null;
        new MutationObserver(() => { if (panel.dataset.status === 'done' && window.__done === null) window.__done = performance.now(); })
          .observe(panel, {attributes: true, attributeFilter: ['data-status']});
        document.querySelector('#train-end').addEventListener('click', () => { window.__click = performance.now(); }, {capture: true});
    }""")
    # prove the observer works: a deliberate 120 ms task must be reported
    page.evaluate("() => setTimeout(() => { const t = performance.now(); while (performance.now() - t < 120) {} }, 0)")
    page.wait_for_function("window.__longTasks.length > 0", timeout=5_000)
    page.evaluate("() => { window.__longTasks = []; window.__ticks = []; }")
    page.click("#train-end")
    # move the mouse while it trains: each move is an input event the page must take in time
    for k in range(400):
        if page.evaluate("window.__done !== null"):
            break
        page.mouse.move(300 + (k % 40) * 5, 400 + (k % 7) * 3)
        page.wait_for_timeout(15)
    page.wait_for_function("window.__done !== null", timeout=300_000)
    page.wait_for_timeout(400)  # the last redraws after "done" count too
    result = page.evaluate("""() => {
        const during = xs => xs.filter(x => x >= window.__click && x <= window.__done);
        const maxGap = xs => { let g = 0; for (let i = 1; i < xs.length; i++) g = Math.max(g, xs[i] - xs[i - 1]); return g; };
        return {tasks: window.__longTasks, ms: window.__done - window.__click, gap: maxGap(during(window.__ticks)),
                frameGap: maxGap(during(window.__frames)), frames: during(window.__frames).length,
                inputDelay: Math.max(0, ...window.__inputDelays), inputs: window.__inputDelays.length}; }""")
    elapsed_ms, work_ms, repaint_ms, slices = page.evaluate("(src) => window.__pyodide.runPython(src).toJs()", RUN_COSTS)
    assert 0 < work_ms <= elapsed_ms and slices > 0
    t0 = time.perf_counter()
    rec = Recording(text, preset, vocab_size=size).run()
    cpython_ms = (time.perf_counter() - t0) * 1000
    unsliced_ms, unsliced_steps = page.evaluate("(src) => window.__pyodide.runPython(src).toJs()", UNSLICED_RUN)
    assert unsliced_steps == len(rec.steps)
    assert n_steps is None or len(rec.steps) == n_steps
    # the page's run is the same run: as many steps (merges, or EM and prune rounds)
    expect(page.locator("#train-step-total")).to_have_text(f"{len(rec.steps):,}")

    longest = max(result["tasks"], default=0.0)
    report = {
        "run": f"{preset}, vocab_size {size}, {corpus_file} ({len(text):,} characters), {len(rec.steps):,} steps",
        "click_to_done_ms": round(result["ms"]),
        "cpython_same_run_ms": round(cpython_ms),
        "page_unsliced_same_run_ms": unsliced_ms,
        "page_over_cpython": round(result["ms"] / cpython_ms, 2),
        "page_unsliced_over_cpython": round(unsliced_ms / cpython_ms, 2),
        "page_run_ms": {"total": elapsed_ms, "core": work_ms, "repaints": repaint_ms,
                        "browser_between_slices": elapsed_ms - work_ms - repaint_ms},
        "batches": slices,
        "steps": len(rec.steps),
        "longest_task_ms": round(longest),
        "long_tasks_over_50ms": len(result["tasks"]),
        "long_tasks_over_100ms": sum(1 for d in result["tasks"] if d > 100),
        "longest_gap_between_20ms_timer_ticks_ms": round(result["gap"]),
        "longest_gap_between_animation_frames_ms": round(result["frameGap"]),
        "animation_frames": result["frames"],
        "longest_input_delay_ms": round(result["inputDelay"]),
        "input_events": result["inputs"],
    }
    (screenshots_dir / f"long_run_{case}.json").write_text(json.dumps(report, indent=2) + "\n")
    record_property("long_run", report)
    with capsys.disabled():
        print(f"\n[long run, {case}] click to done {report['click_to_done_ms']} ms (CPython {report['cpython_same_run_ms']} ms, "
              f"page unsliced {unsliced_ms} ms: page/CPython {report['page_over_cpython']}x sliced, "
              f"{report['page_unsliced_over_cpython']}x unsliced); the page's run {elapsed_ms} ms: core {work_ms}, "
              f"repaints {repaint_ms}, browser between {slices} batches "
              f"{elapsed_ms - work_ms - repaint_ms}; "
              f"longest task {report['longest_task_ms']} ms; {report['long_tasks_over_50ms']} tasks > 50 ms, "
              f"{report['long_tasks_over_100ms']} > 100 ms; longest gaps: frames "
              f"{report['longest_gap_between_animation_frames_ms']} ms, 20 ms timer "
              f"{report['longest_gap_between_20ms_timer_ticks_ms']} ms; longest input delay "
              f"{report['longest_input_delay_ms']} ms over {report['input_events']} mouse moves")
    page.screenshot(path=str(screenshots_dir / f"train-{corpus_file.removesuffix('.txt')}-{case}.png"), full_page=True)
    return report


def test_where_tokenizers_rules_part_ways_and_the_step_it_goes_to(app_page, screenshots_dir):
    page = app_page
    pick_sample(page, "shakespeare_100k")  # byte-level BPE, vocabulary 512
    go_train(page)
    page.click("#train-end")
    wait_done(page)
    card = page.locator("#rules-card")
    expect(card).to_be_visible()
    page.select_option("#rules-other", label="tokenizers (rules=hf)")
    page.click("#rules-run")
    # the answer the core gives on the same two runs made in CPython
    sample_text = page.evaluate("() => document.querySelector('#corpus-text').value")
    found = first_divergence(Recording(sample_text, "byte_bpe", vocab_size=512).run(),
                             Recording(sample_text, "byte_bpe", vocab_size=512, rules="hf").run())
    expect(page.locator("#rules-status")).to_have_text(
        f"Under tokenizers (rules=hf) the run parts ways at merge {found.step:,}.", timeout=60_000)
    expect(page.locator("#rules-reason")).to_have_text(found.reason)
    page.click("#rules-go")
    expect(page.locator("#train-step-now")).to_have_text(f"{found.step:,}")
    expect(page.locator("#candidates-help")).to_contain_text("the pair met first in the corpus wins")
    card.screenshot(path=str(screenshots_dir / "train-rules-part-ways.png"))
