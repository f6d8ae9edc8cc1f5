"""Compare, model files, share links and embed mode, as a user drives them in headless Chromium.

Numbers on the page are checked against the core run in CPython; downloaded files are
loaded with the `tokenizers` library; share links are opened in a second browser context
(its own cold cache) and must give a byte-identical model. Screenshots of the panels go to
tests/e2e/screenshots/.
"""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

import pytest
from playwright.sync_api import expect
from share_actions import open_link, wait_applied

import subwordlab
from subwordlab.recording import Recording
from subwordlab.stats import text_stats
from subwordlab_web import compare as cm
from subwordlab_web import share
from subwordlab_web.compare_panel import DEFAULT_CONFIGS
from subwordlab_web.compare_results import parity_cell
from subwordlab_web.samples import SAMPLES, strip_udhr_header

CORPORA = Path(__file__).resolve().parents[2] / "corpora"
UDHR = [s for s in SAMPLES.values() if s.udhr]


def udhr_text(sample_id: str) -> str:
    return strip_udhr_header((CORPORA / SAMPLES[sample_id].url.removeprefix("samples/")).read_text(encoding="utf-8"))[0]


def pick_sample(page, sample_id: str) -> None:
    page.click("#tab-corpus")
    page.select_option("#corpus-sample", sample_id)
    expect(page.locator("#context-corpus")).to_have_text(SAMPLES[sample_id].title)


def run_compare(page, vocab: int, timeout: int = 120_000) -> None:
    page.click("#tab-compare")
    page.fill("#cmp-vocab", str(vocab))
    page.click("#cmp-run")
    expect(page.locator("#cmp-results")).to_be_visible(timeout=timeout)
    expect(page.locator("#panel-compare")).to_have_attribute("data-state", "idle", timeout=timeout)


def table(page, selector: str) -> list[list[str]]:
    return page.eval_on_selector_all(selector, "rows => rows.map(r => [...r.cells].map(c => c.textContent))")


def download(page, button: str) -> tuple[str, bytes]:
    with page.expect_download() as info:
        page.click(button)
    dl = info.value
    return dl.suggested_filename, Path(dl.path()).read_bytes()


def share_link(page) -> str:
    page.click("#tab-share")
    page.click("#share-copy")
    expect(page.locator("#share-status")).not_to_be_empty()
    link = page.input_value("#share-link")
    assert "#v1." in link
    return link


# --- Compare -----------------------------------------------------------------------------------
def test_compare_bpe_wordpiece_unigram_on_a_udhr_sample(app_page, screenshots_dir):
    page = app_page
    pick_sample(page, "udhr_eng")
    run_compare(page, 600)
    expect(page.locator("#cmp-curve circle").first).to_be_attached(timeout=60_000)
    expect(page.locator("#cmp-parity rect.cmp-bar")).to_have_count(18)

    corpus = udhr_text("udhr_eng")
    toks = [subwordlab.train(corpus, preset, vocab_size=600, **opts) for preset, opts in DEFAULT_CONFIGS]
    text = page.input_value("#cmp-text")
    rows = {r[0]: r[1:] for r in table(page, "#cmp-stats-body tr")}
    assert rows["Vocabulary"] == [f"{t.vocab_size:,}" for t in toks]
    for stat in cm.STAT_ROWS:
        want = [stat.fmt(text_stats(t, text)[stat.key]) for t in toks]
        assert [c.rstrip(" ★") for c in rows[stat.label]] == want, stat.label
    assert rows["Round trip"] == [cm.round_trip_cell(text_stats(t, text))[0] for t in toks]

    # tokens per language and parity against English, for every column
    parity = {r[0]: r[1:] for r in table(page, "#cmp-parity-table tr")[1:]}
    texts = {s.id: udhr_text(s.id) for s in UDHR}
    for s in UDHR:
        stats = [text_stats(t, texts[s.id]) for t in toks]
        ref = [text_stats(t, texts["udhr_eng"])["tokens"] for t in toks]
        assert [st["tokens"] for st in stats] == [len(t.encode(texts[s.id])) for t in toks]
        name = s.title.replace("UDHR: ", "")
        assert parity[name] == [parity_cell(st["tokens"], st["tokens"] / r, st["unknown_rate"])
                                for st, r in zip(stats, ref)], name
    page.select_option("#cmp-reference", "udhr_hin")
    expect(page.locator("#cmp-parity-table tr[data-lang='udhr_hin'] td").first).to_contain_text("1.00×")

    # the disagreement marks follow the definition, on the page's own spans
    cols = page.locator("#cmp-columns .cmp-col")
    expect(cols).to_have_count(3)
    spans = [list(t.encode_full(text, disallowed_special=()).offsets) for t in toks]
    flags = cm.boundary_disagreement(text, spans).flags
    for k in range(3):
        marked = cols.nth(k).locator(".chip").evaluate_all("cs => cs.map(c => c.hasAttribute('data-disagree'))")
        assert marked == flags[k]
    page.screenshot(path=str(screenshots_dir / "compare.png"), full_page=True)


def test_disagreement_highlighting_on_a_known_example(app_page):
    """Seed 000's corpus at 25 tokens: BPE splits "lowest newer" as low|est</w>|new|e|r|</w>,
    WordPiece as low|##e|##st|new|##er. They agree on "low" and "new" only."""
    page = app_page
    expect(page.locator("#context-corpus")).to_have_text(SAMPLES["seed000"].title)
    page.click("#tab-compare")
    page.locator("#cmp-configs .cmp-remove").nth(2).click()  # keep BPE and WordPiece
    expect(page.locator("#cmp-configs .cmp-config")).to_have_count(2)
    run_compare(page, 25)
    page.fill("#cmp-text", "lowest newer")
    cols = page.locator("#cmp-columns .cmp-col")
    bpe, wp = cols.nth(0), cols.nth(1)
    expect(bpe.locator(".chip-text")).to_have_text(["low", "est</w>", "new", "e", "r", "</w>"])
    expect(wp.locator(".chip-text")).to_have_text(["low", "##e", "##st", "new", "##er"])
    assert bpe.locator(".chip").evaluate_all("cs => cs.map(c => c.hasAttribute('data-disagree'))") == \
        [False, True, False, True, True, False]
    assert wp.locator(".chip").evaluate_all("cs => cs.map(c => c.hasAttribute('data-disagree'))") == \
        [False, True, True, False, True]
    expect(page.locator("#cmp-disagree")).to_contain_text("split 5 of 12 characters differently")


def french_udhr() -> str:
    """The French UDHR, cut from the benchmark-only udhr_many.txt: the page does not bundle it."""
    lines = (CORPORA / "udhr_many.txt").read_text(encoding="utf-8").splitlines()
    i = lines.index("Déclaration universelle des droits de l’homme")
    j = next(k for k in range(i + 1, len(lines)) if lines[k] and not lines[k][0].isspace())
    return "\n".join(line.strip() for line in lines[i:j]) + "\n"


def test_disagreement_by_boundaries_on_a_udhr_text_the_page_does_not_bundle(app_page, tmp_path):
    """Trained on the French UDHR, byte-level BPE (·de), SentencePiece BPE (▁de) and
    Unigram (▁de without the space) cut "de la" alike: it is not marked."""
    page = app_page
    corpus = french_udhr()
    (tmp_path / "udhr_fra.txt").write_text(corpus, encoding="utf-8")
    page.click("#tab-corpus")
    page.set_input_files("#corpus-file", str(tmp_path / "udhr_fra.txt"))
    expect(page.locator("#corpus-status")).to_contain_text("Loaded udhr_fra.txt")
    page.click("#tab-compare")
    presets = ["byte_bpe", "sentencepiece_bpe", "unigram"]
    for k, preset in enumerate(presets):
        page.select_option(f"#cmp-preset-{k}", preset)
    run_compare(page, 1000)
    text = "le fondement de la liberté, de la justice et de la paix dans le monde,"
    page.fill("#cmp-text", text)
    cols = page.locator("#cmp-columns .cmp-col")
    expect(cols).to_have_count(3)
    toks = []
    for preset in presets:
        rec = Recording(corpus, preset, vocab_size=1000)
        rec.advance(10**9)
        toks.append(rec.tokenizer)
    spans = [list(t.encode_full(text, disallowed_special=()).offsets) for t in toks]
    found = cm.boundary_disagreement(text, spans)
    for k in range(3):
        marked = cols.nth(k).locator(".chip").evaluate_all("cs => cs.map(c => c.hasAttribute('data-disagree'))")
        assert marked == found.flags[k]
    # "de la" (characters 13 to 18): ·de ·la, ▁de ▁la and de la are never marked
    for k in range(3):
        marked = cols.nth(k).locator(".chip[data-disagree]").evaluate_all("cs => cs.map(c => [+c.dataset.start, +c.dataset.end])")
        assert not [se for se in marked if se[0] < 18 and se[1] > 13], marked
    expect(page.locator("#cmp-disagree")).to_have_text(cm.disagreement_note(found, len(text)))
    assert found.chars / len(text) < 0.35  # the old rule ("not a token in every other column") flagged 68 of 70
    assert found.boundaries == (30, 30)


def test_compare_can_be_cancelled_and_stays_responsive(app_page):
    page = app_page
    pick_sample(page, "tinyshakespeare")  # 1.1 MB: three runs take a while
    page.click("#tab-compare")
    page.fill("#cmp-vocab", "4000")
    # from the keyboard: the disabled "Train and compare" hands its focus to Cancel (it was
    # dropped to <body>, and the next Tab started at the top of the page), and Cancel back
    page.focus("#cmp-run")
    page.keyboard.press("Enter")
    expect(page.locator("#cmp-cancel")).to_be_visible()
    expect(page.locator("#cmp-run")).to_be_disabled()
    expect(page.locator("#cmp-cancel")).to_be_focused()
    expect(page.locator("#cmp-progress .cmp-prog")).to_have_count(3)
    page.wait_for_timeout(400)
    page.keyboard.press("Enter")  # a key handled mid-run: the page is not frozen
    expect(page.locator("#cmp-message")).to_contain_text("cancelled")
    expect(page.locator("#cmp-cancel")).to_be_hidden()
    expect(page.locator("#cmp-results")).to_be_hidden()
    expect(page.locator("#cmp-run")).to_be_focused()
    # the Train panel's Step, disabled at the last step, hands its focus to Play
    pick_sample(page, "seed000")
    page.click("#tab-train")
    expect(page.locator("#train-step-total")).to_have_text("8")
    page.focus("#train-step")
    for _ in range(8):
        page.keyboard.press("Enter")
    expect(page.locator("#train-step-now")).to_have_text("8")
    expect(page.locator("#train-step")).to_be_disabled()
    expect(page.locator("#train-play")).to_be_focused()


def _expect_compare_columns(page) -> None:
    expect(page.locator(".cmp-remove")).to_have_count(2)
    expect(page.locator("#cmp-preset-0")).to_have_value("bpe")
    expect(page.locator("#cmp-preset-1")).to_have_value("unigram")
    expect(page.locator("#cmp-vocab")).to_have_value("321")
    expect(page.locator('#cmp-well-known input[data-vocab="r50k_base"]')).to_be_checked()
    expect(page.locator('#cmp-well-known input[data-vocab="o200k_base"]')).to_be_checked()
    expect(page.locator("#cmp-current")).to_be_checked(timeout=60_000)  # once the page trained its tokenizer


def test_compare_columns_survive_a_reload_and_travel_in_a_link(fresh_page, site_url):
    """Compare's columns (configurations, the current tokenizer, a well-known one) were lost
    on reload, and a link left the current and the well-known columns out."""
    page, guard = fresh_page()
    page.goto(site_url)
    guard.wait_ready()
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=60_000)
    page.click("#tab-compare")
    page.locator(".cmp-remove").nth(2).click()
    page.select_option("#cmp-preset-1", "unigram")
    page.fill("#cmp-vocab", "321")
    page.locator("#cmp-vocab").press("Tab")  # (a number field says "change" when it is left)
    page.check("#cmp-current")
    page.check('#cmp-well-known input[data-vocab="r50k_base"]')
    page.check('#cmp-well-known input[data-vocab="o200k_base"]')
    page.wait_for_function("location.hash.startsWith('#v1.')")
    exp = share.decode_fragment(page.evaluate("location.hash"))
    assert [c.preset for c in exp.compare] == ["bpe", "unigram"] and exp.compare[0].options["vocab_size"] == 321
    assert exp.compare_current and exp.compare_well_known == ("r50k_base", "o200k_base")
    page.reload()
    guard.wait_ready()
    wait_applied(page)
    _expect_compare_columns(page)
    link = page.url
    dst, dst_guard = open_link(fresh_page, link)
    expect(dst.locator("#tab-compare")).to_have_attribute("aria-selected", "true")
    _expect_compare_columns(dst)


# --- Files -------------------------------------------------------------------------------------
def test_export_both_formats_and_load_tokenizer_json_with_tokenizers(app_page, tmp_path, screenshots_dir):
    from tokenizers import Tokenizer as HFTokenizer

    page = app_page
    pick_sample(page, "udhr_eng")  # SentencePiece-style BPE, vocabulary 800
    page.click("#tab-train")
    page.click("#train-end")
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=120_000)
    page.click("#tab-files")
    name, ours = download(page, "#files-dl-ours")
    assert name.startswith("subwordlab-sentencepiece_bpe-") and name.endswith(".json")
    hf_name, hf = download(page, "#files-dl-hf")
    assert hf_name == "tokenizer.json"
    vocab_name, vocab = download(page, "#files-dl-vocab")
    assert vocab_name.endswith("-vocab.txt") and b"# merges in rank order" in vocab
    page.screenshot(path=str(screenshots_dir / "files.png"), full_page=True)

    mine = subwordlab.from_json(ours.decode("utf-8"))
    assert subwordlab.to_json(mine).encode("utf-8") == ours  # our document re-saves byte for byte
    assert mine.spec["corpus"]["sha256"] == share.sha256_text(udhr_text("udhr_eng"))
    (tmp_path / "tokenizer.json").write_bytes(hf)
    theirs = HFTokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for s in UDHR:
        sample = udhr_text(s.id)[:2000]
        want = mine.encode_full(sample)
        got = theirs.encode(sample, add_special_tokens=False)
        assert got.ids == list(want.ids) and got.tokens == list(want.tokens), s.id


def test_hf_export_unavailable_says_why(app_page):
    page = app_page  # the default sample: textbook BPE with a </w> marker
    page.click("#tab-train")
    page.click("#train-end")
    page.click("#tab-files")
    expect(page.locator("#files-dl-hf")).to_be_disabled()
    expect(page.locator("#files-note-hf")).to_contain_text("end_of_word")


def test_import_a_tokenizer_json_written_by_tokenizers(app_page, tmp_path, screenshots_dir):
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import decoders, models, pre_tokenizers, trainers

    hf = HFTokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    hf.train_from_iterator([udhr_text("udhr_eng")], trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False))
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))

    page = app_page
    page.click("#tab-files")
    # a bad file first: one message naming it; nothing changes
    bad = tmp_path / "notes.json"
    bad.write_text('{"name": "not a tokenizer"}')
    page.set_input_files("#files-import", str(bad))
    expect(page.locator("#files-error")).to_contain_text("'notes.json' is JSON but neither a Subword Lab model")
    expect(page.locator("#files-revert")).to_be_hidden()

    page.set_input_files("#files-import", str(path))
    expect(page.locator("#files-status")).to_contain_text("Loaded tokenizer.json (Hugging Face tokenizer.json, BPE, 400 tokens)")
    expect(page.locator("#files-current")).to_contain_text("loaded from tokenizer.json")
    page.screenshot(path=str(screenshots_dir / "files-imported.png"), full_page=True)

    text = "Everyone has the right to life, liberty and security of person. Ünïcødé 🙂"
    page.click("#tab-inspect")
    page.fill("#inspect-input", text)
    enc = hf.encode(text)
    expect(page.locator("#inspect-chips .chip-id")).to_have_text([str(i) for i in enc.ids])
    expect(page.locator("#inspect-which")).to_contain_text("Loaded from tokenizer.json")

    # the compare panel offers it as a column
    page.click("#tab-compare")
    expect(page.locator("#cmp-current-label")).to_contain_text("Imported: tokenizer.json")
    page.check("#cmp-current")
    page.locator("#cmp-configs .cmp-remove").nth(2).click()
    run_compare(page, 300)
    expect(page.locator("#cmp-columns .cmp-col")).to_have_count(3)
    expect(page.locator("#cmp-columns .cmp-col-title").nth(2)).to_have_text("Imported: tokenizer.json")


def test_import_openais_o200k_rank_file_and_inspect_seed_001s_examples(app_page, screenshots_dir):
    import importlib.util
    import os
    import time

    spec = importlib.util.spec_from_file_location("reference_vocabs", Path(__file__).resolve().parents[2] / "build" / "reference_vocabs.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    folder = builder.ensure()
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    import tiktoken

    enc = tiktoken.get_encoding("o200k_base")
    page = app_page
    page.click("#tab-files")
    page.evaluate("""() => { window.__longTasks = [];
        new PerformanceObserver(l => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); })
          .observe({type: 'longtask'}); }""")
    t0 = time.perf_counter()
    page.set_input_files("#files-import", str(folder / "o200k_base.tiktoken"))
    expect(page.locator("#files-status")).to_contain_text("Reading o200k_base.tiktoken…")
    expect(page.locator("#files-status")).to_contain_text(
        "Loaded o200k_base.tiktoken (tiktoken rank file, o200k_base (GPT-4o), BPE, 200,019 tokens)", timeout=60_000)
    tasks = page.evaluate("window.__longTasks")
    print(f"\n[o200k import] {time.perf_counter() - t0:.1f} s from choosing the file to loaded; longest task "
          f"{max(tasks, default=0):.0f} ms, {len(tasks)} tasks > 50 ms: {[round(t) for t in tasks]}")
    # the 3.6 MB file is read at once (the browser's File API), then parsed in slices: a
    # regression guard (it was one task of about 4.5 s), with room for a loaded CI machine
    assert max(tasks, default=0) < 400, [round(t) for t in tasks]
    page.click("#tab-inspect")
    page.fill("#inspect-input", "untokenizable")
    expect(page.locator("#inspect-chips .chip-id")).to_have_text(["2202", "2488", "12243"])
    page.fill("#inspect-input", "Hello, world!")
    expect(page.locator("#inspect-chips .chip-id")).to_have_count(4)
    text = udhr_text("udhr_kor")[:600] + " 🙂 <|endoftext|>"
    page.select_option("#inspect-special", "allowed")
    page.fill("#inspect-input", text)
    expect(page.locator("#inspect-chips .chip-id")).to_have_text([str(i) for i in enc.encode(text, allowed_special="all")])
    page.screenshot(path=str(screenshots_dir / "inspect-o200k.png"), full_page=True)


# --- Share links -------------------------------------------------------------------------------
def test_share_link_round_trip_across_two_browser_contexts(fresh_page, site_url, screenshots_dir):
    src, src_guard = fresh_page()
    src.goto(site_url)
    src_guard.wait_ready()
    pick_sample(src, "udhr_eng")
    src.click("#tab-train")
    src.select_option("#train-preset", "wordpiece")
    expect(src.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=120_000)
    src.locator("#train-scrubber").fill("300")
    expect(src.locator("#train-step-now")).to_have_text("300")
    src.click("#tab-inspect")
    src.fill("#inspect-input", "Freedom of opinion and expression")
    src.click("#tab-files")
    _, want = download(src, "#files-dl-ours")
    link = share_link(src)
    src.screenshot(path=str(screenshots_dir / "share.png"), full_page=True)
    exp = share.decode_fragment(link.split("#", 1)[1])
    assert exp.corpus.kind == "inline" and exp.step == 300 and exp.train.preset == "wordpiece"

    dst, dst_guard = open_link(fresh_page, link)
    # the sender's last panel before Share (Files), not Share itself
    expect(dst.locator("#tab-files")).to_have_attribute("aria-selected", "true")
    expect(dst.locator("#context-corpus")).to_have_text("UDHR: English")
    rec = Recording(udhr_text("udhr_eng"), "wordpiece", vocab_size=800).run()
    expect(dst.locator("#context-step")).to_have_text(f"step 300 of {len(rec.steps):,}")
    dst.click("#tab-inspect")
    expect(dst.locator("#inspect-input")).to_have_value("Freedom of opinion and expression")
    dst.click("#tab-files")
    _, got = download(dst, "#files-dl-ours")
    assert got == want  # byte-identical model JSON at the same step
    assert want == subwordlab.to_json(rec.tokenizer_at(300)).encode("utf-8")  # and CPython's, byte for byte


def test_a_percent_encoded_link_split_by_spaces_opens_as_the_original(fresh_page, site_url):
    """A chat app or mail client percent-encoded the link's '-', '_' and '.' and broke it
    with spaces (the address bar keeps them as %20): the page repairs it and gives the
    original's model, byte for byte; before, it said the link was damaged."""
    text = "the quick brown fox jumps over the lazy dog; the lazy dog sleeps " * 6
    exp = share.Experiment(share.CorpusRef.inline(text), share.Config("byte_bpe", {"num_merges": 40}), step=25,
                           panel="inspect", inspect_text="lazy foxes -_- jump")
    link = share.encode_fragment(exp)
    mangled = link.replace("-", "%2D").replace("_", "%5F").replace(".", "%2E")
    mangled = " ".join(mangled[i:i + 60] for i in range(0, len(mangled), 60))
    assert "%2D" in mangled and " " in mangled
    rec = Recording(text, "byte_bpe", num_merges=40).run()
    want = subwordlab.to_json(rec.tokenizer_at(25))
    page, guard = open_link(fresh_page, f"{site_url}#{mangled}")
    expect(page.locator("#tab-inspect")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#inspect-input")).to_have_value("lazy foxes -_- jump")
    expect(page.locator("#context-step")).to_have_text(f"step 25 of {len(rec.steps)}")
    page.click("#tab-files")
    _, got = download(page, "#files-dl-ours")
    assert got.decode("utf-8") == want


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _hostile_links() -> dict[str, tuple[str, str]]:
    good = share.encode_fragment(share.Experiment(share.CorpusRef.inline("low low lower newest widest"),
                                                  share.Config("bpe", {"num_merges": 5}), step=2,
                                                  inspect_text="a fairly long inspector text " * 4))
    payload = good[3:]
    mid = len(payload) // 2
    tampered = payload[:mid] + ("A" if payload[mid] != "A" else "B") + payload[mid + 1:]
    wrong = json.loads(zlib.decompress(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))
    wrong["step"] = "three"
    return {
        "truncated": ("v1." + payload[: len(payload) - 9], "damaged"),
        "tampered": ("v1." + tampered, "damaged"),
        "oversized": ("v1." + "A" * (share.MAX_LINK_CHARS + 10), "too long"),
        "bomb": ("v1." + _b64(zlib.compress(b"\0" * (16 * 1024 * 1024), 9)), "expands to more than"),
        "unknown version": ("v7." + payload, "newer version"),
        "wrong types": ("v1." + _b64(zlib.compress(json.dumps(wrong).encode(), 9)), "step must be a whole number"),
    }


@pytest.mark.parametrize("case", list(_hostile_links()))
def test_hostile_links_show_one_message_and_the_default_page(fresh_page, site_url, case):
    fragment, message = _hostile_links()[case]
    page, guard = fresh_page()
    page.goto(f"{site_url}?case={case.replace(' ', '-')}#{fragment}")
    guard.wait_ready()
    banner = page.locator("#link-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text(message)
    expect(banner).to_contain_text("Showing the default page instead")
    assert page.get_attribute("body", "data-share") == "error"
    # the default page, alive: the default sample loads and the tabs work
    expect(page.locator("#context-corpus")).to_have_text(SAMPLES["seed000"].title)
    page.click("#tab-inspect")
    expect(page.locator("#panel-inspect")).to_be_visible()
    page.click("#link-banner-close")
    expect(banner).to_be_hidden()


def test_shakespeare_link_at_4000_merges_reproduces(fresh_page, site_url, screenshots_dir, record_property, capsys):
    """Measures (and reports) how long a shared link takes to reproduce the Shakespeare
    sample at 4,000 byte-level merges, and checks the model against CPython's."""
    text = (CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8")
    inline, fallback = share.corpus_ref_for(text, sample="tinyshakespeare")
    exp = share.Experiment(inline, share.Config("byte_bpe", {"num_merges": 4000}), step=4000, panel="train",
                           inspect_text="To be, or not to be, that is the question.")
    fragment = share.encode_fragment(exp, fallback=fallback)
    assert share.decode_fragment(fragment).corpus.kind == "sample"  # 1.1 MB does not travel inline
    want = subwordlab.to_json(Recording(text, "byte_bpe", num_merges=4000).run().tokenizer_at(4000))

    page, guard = open_link(fresh_page, f"{site_url}#{fragment}", timeout=300_000)
    apply_ms = int(page.get_attribute("body", "data-share-ms"))
    total_ms = page.evaluate("performance.now()")
    ready_ms = page.evaluate("window.__bootTimes.ready")
    expect(page.locator("#train-step-now")).to_have_text("4,000")
    page.click("#tab-files")
    _, got = download(page, "#files-dl-ours")
    assert got.decode("utf-8") == want
    result = {"apply_ms": apply_ms, "boot_ready_ms": round(ready_ms), "navigation_to_applied_ms": round(total_ms)}
    record_property("shakespeare_link", result)
    (screenshots_dir / "share_link_times.json").write_text(json.dumps(result, indent=2) + "\n")
    with capsys.disabled():
        print(f"\n[share link] Shakespeare, byte-level BPE, 4,000 merges: applied in {apply_ms / 1000:.2f} s "
              f"after the app was ready ({ready_ms / 1000:.2f} s); {total_ms / 1000:.2f} s from navigation")


# --- Embed ---------------------------------------------------------------------------------------
# embed-example.html (a locked Train view and a Compare, fitted to their content): test_embed_shape.py


def test_copy_embed_snippet_gives_a_working_iframe(app_page, fresh_page, site_url):
    page = app_page
    page.click("#tab-train")
    page.locator("#train-step").click()
    # the step is shown once the compute worker (which may still be warming) has trained it
    expect(page.locator("#train-step-now")).to_have_text("1", timeout=30_000)
    page.click("#tab-share")
    page.select_option("#share-embed-panel", "inspect")
    page.fill("#share-embed-height", "480")
    page.click("#share-embed-copy")
    expect(page.locator("#share-embed-status")).not_to_be_empty()
    code = page.input_value("#share-embed-code")
    assert code.startswith("<iframe src=\"") and 'height="480"' in code
    assert "></iframe>\n<script>" in code and code.endswith("</script>")  # the auto-height listener
    src = code.split('src="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    assert "?embed=1&panel=inspect#v1." in src
    host, guard = open_link(fresh_page, src)
    expect(host.locator("#panel-inspect")).to_be_visible()
    expect(host.locator(".tabbar")).to_be_hidden()
    expect(host.locator("#inspect-step-now")).to_have_text("1")


def test_panels_fit_a_phone(fresh_page, site_url, screenshots_dir):
    page, guard = fresh_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page.goto(site_url)
    guard.wait_ready()
    run_compare(page, 30)
    for pid in ("compare", "files", "share"):
        page.click(f"#tab-{pid}")
        page.wait_for_timeout(150)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the {pid} panel scrolls sideways by {overflow}px at 390px"
        page.screenshot(path=str(screenshots_dir / f"{pid}-390.png"), full_page=True)


def test_well_known_tokenizers_load_on_demand_only(app_page):
    """Nothing under vocabs/ is fetched at boot; one click in Files fetches SentencePiece's
    test Unigram model (SHA-256 checked); its round trip on "de la liberte" is exact (no "≠ at
    character 0"), and "é", which its English pieces lack, is named as lost."""
    page = app_page
    loaded = lambda: [u for u in page.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
                      if "/vocabs/" in u]
    page.click("#tab-files")
    assert loaded() == []
    page.click("#files-well-known button[data-vocab='sp_test_unigram']")
    expect(page.locator("#files-status")).to_contain_text("It is now the tokenizer of Inspect and Compare", timeout=60_000)
    assert [u.rsplit("/", 1)[1] for u in loaded()] == ["sentencepiece-test-unigram.tokenizer.json"]
    page.click("#tab-inspect")
    page.fill("#inspect-input", "de la liberte")
    expect(page.locator("#inspect-roundtrip")).to_have_text("✓ Round trip exact")
    page.fill("#inspect-input", "de la liberté")
    expect(page.locator("#inspect-roundtrip")).to_have_text("≠ Round trip differs at character 12: expected “é”, decoded “<unk>”")


def test_a_well_known_tokenizer_comes_back_after_a_reload_and_in_a_link(fresh_page, site_url):
    """Issue 26: a loaded tokenizer, even one that ships with the page, was dropped on reload
    (which asked to load it again) and from links (the recipient saw the trained model at
    step 0, no warning). Now both bring GPT-2's back by name."""
    page, guard = fresh_page()
    page.goto(site_url)
    guard.wait_ready()
    page.click("#tab-files")
    page.click("#files-well-known button[data-vocab='r50k_base']")
    expect(page.locator("#files-status")).to_contain_text("It is now the tokenizer of Inspect and Compare", timeout=60_000)
    page.click("#tab-inspect")
    page.fill("#inspect-input", "Hello world, tokenizers!")
    expect(page.locator("#inspect-which")).to_contain_text("GPT-2 (r50k)")
    want = page.locator("#inspect-count").inner_text()
    page.wait_for_function("location.hash.startsWith('#v1.')")
    page.reload()
    guard.wait_ready()
    wait_applied(page)
    expect(page.locator("#inspect-which")).to_contain_text("GPT-2 (r50k)", timeout=60_000)
    expect(page.locator("#inspect-count")).to_have_text(want)
    assert page.locator("#link-banner").is_hidden()
    dst, dst_guard = open_link(fresh_page, page.url)
    expect(dst.locator("#inspect-which")).to_contain_text("GPT-2 (r50k)", timeout=60_000)
    expect(dst.locator("#inspect-input")).to_have_value("Hello world, tokenizers!")
    expect(dst.locator("#inspect-count")).to_have_text(want)


def test_the_biggest_shipped_modern_tokenizer_loads_and_inspects_like_tokenizers(app_page):
    """gpt-oss's tokenizer.json (o200k_harmony, 27.9 MB, the biggest shipped), one click on
    Files: fetched then, SHA-256 checked, parsed in the page; Inspect's chips carry the ids
    HF tokenizers gives for the same file (the one in dist/site/vocabs) on a multilingual text."""
    import time

    from tokenizers import Tokenizer as HF

    from subwordlab_web.well_known import WELL_KNOWN_BY_KEY

    page = app_page
    item = WELL_KNOWN_BY_KEY["gpt_oss"]
    page.click("#tab-files")
    start = time.monotonic()
    page.click(f"#files-well-known button[data-vocab='{item.key}']")
    expect(page.locator("#files-status")).to_contain_text("It is now the tokenizer of Inspect and Compare",
                                                          timeout=180_000)
    print(f"\n{item.file} ({item.size:,} bytes) loaded in the browser in {time.monotonic() - start:.1f} s")
    text = "Tokenizers differ: naïve café, Привет мир, 東京は晴れ, नमस्ते दुनिया, 👩‍👩‍👧 12345678!"
    page.click("#tab-inspect")
    page.fill("#inspect-input", text)
    expect(page.locator("#inspect-which")).to_contain_text(item.title)
    site = Path(__file__).resolve().parents[2] / "dist" / "site"
    want = HF.from_file(str(site / item.url)).encode(text, add_special_tokens=False).ids
    expect(page.locator("#inspect-chips .chip")).to_have_count(len(want), timeout=30_000)
    got = [int(x) for x in page.eval_on_selector_all("#inspect-chips .chip", "cs => cs.map(c => c.dataset.id)")]
    assert got == want


# Main-thread tasks over 50 ms allowed while Compare counts 47 languages' tokens with four
# tokenizers. Counted on the page (a text per task) there were 20, up to 103 ms, alone on this
# machine; in the compute session there is one of ~60 ms (the chart drawn at the end). The
# window also holds the page's small tasks: 47 texts fetched, Qwen3's pattern checked on each
# in the worker (47 round trips until 2026-12-08, one request since), the replies read. Under
# the e2e tier's load every task is 3-4x longer and some of those passed 50 ms: 7 of 55-122 ms
# in one full run (2026-12-07), 1 alone or beside two busy cores (0 alone since the one
# request). So the bound sits between that and the 20+ of counting on the page (more under
# load); none may take a second.
COUNT_LONG_TASKS = 10
COUNT_TASK_MS = 1_000


def test_measure_a_trained_tokenizer_against_real_ones_in_47_languages(fresh_page, site_url, built_site, screenshots_dir):
    """Issue 26 items 4 and 6: train on the English UDHR, then Train's one button: Compare
    shows the tokenizer trained here beside GPT-4's, GPT-4o's and Qwen3's, with the premium
    of 47 languages, sortable, as CSV; the same counts as CPython's for the same model; the
    link carries the whole comparison."""
    page, guard = fresh_page(viewport={"width": 1280, "height": 1000})
    page.goto(site_url)
    guard.wait_ready()
    pick_sample(page, "udhr_eng")
    page.click("#tab-train")
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=120_000)
    page.click("#train-end")  # (the tokenizer measured is the one at the step shown: the last)
    expect(page.locator("#train-step-now")).to_have_text(page.locator("#train-step-total").inner_text())
    # the main thread's long tasks while the 47 languages are counted (from "Counting tokens"
    # to the chart's note): the counting is the compute session's (issue 31)
    page.evaluate("""() => {
        window.__longTasks = []; window.__counting = [];
        new PerformanceObserver(l => { for (const e of l.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
          .observe({type: 'longtask'});
        const note = document.querySelector('#cmp-parity-note');
        new MutationObserver(() => window.__counting.push([performance.now(), note.textContent.startsWith('Counting tokens')]))
          .observe(note, {childList: true, characterData: true, subtree: true});
    }""")
    page.click("#train-measure")
    expect(page.locator("#tab-compare")).to_have_attribute("aria-selected", "true")
    rows = page.locator("#cmp-parity-table tr[data-lang]")
    expect(rows).to_have_count(47, timeout=180_000)
    expect(page.locator("#cmp-parity-note")).to_contain_text("premium", timeout=180_000)
    marks = page.evaluate("() => window.__counting")
    began = next(t for t, counting in marks if counting)
    ended = next(t for t, counting in marks if not counting and t > began)
    during = [round(d) for t, d in page.evaluate("() => window.__longTasks") if began <= t <= ended]
    print(f"counting 47 languages x 4 tokenizers: {ended - began:.0f} ms, main-thread tasks over 50 ms: {during}")
    assert len(during) <= COUNT_LONG_TASKS and max(during, default=0) <= COUNT_TASK_MS, during
    labels = page.locator("#cmp-parity-table th[data-series] .sort-button").all_text_contents()
    assert [x.strip() for x in labels][1:] == ["GPT-4 (cl100k)", "GPT-4o (o200k)", "Qwen3"]
    # the trained column's counts are CPython's for the same corpus and settings (byte-identical model)
    corpus = udhr_text("udhr_eng")
    mine = subwordlab.train(corpus, preset="sentencepiece_bpe", vocab_size=800)
    from subwordlab_web.languages import LANGUAGES
    from subwordlab_web.samples import strip_udhr_header as strip

    tamil = strip((CORPORA / "udhr_more" / "udhr_tam.txt").read_text(encoding="utf-8"))[0]
    cell = page.locator('#cmp-parity-table tr[data-lang="udhr_tam"] td').first
    expect(cell).to_have_attribute("data-tokens", str(text_stats(mine, tamil)["tokens"]))
    # the GPT-4 column's counts are those of the same shipped file read by the core in CPython
    from subwordlab_web.exports import import_model
    from subwordlab_web.well_known import WELL_KNOWN_BY_KEY

    cl100k = WELL_KNOWN_BY_KEY["cl100k_base"]
    theirs = import_model(cl100k.file, (built_site / cl100k.url).read_bytes()).tokenizer
    expect(page.locator('#cmp-parity-table tr[data-lang="udhr_tam"] td').nth(1)).to_have_attribute(
        "data-tokens", str(text_stats(theirs, tamil)["tokens"]))
    assert LANGUAGES["udhr_tam"].script == "Tamil"
    # sort by GPT-4o's premium: the costliest language first
    page.click('#cmp-parity-table button[data-sort="2"]')
    expect(page.locator('#cmp-parity-table th[data-series="2"]')).to_have_attribute("aria-sort", "descending")
    counts = [int(x) for x in page.eval_on_selector_all(
        '#cmp-parity-table tr[data-lang] td:nth-of-type(3)', "tds => tds.map(t => t.dataset.tokens)")]
    assert counts == sorted(counts, reverse=True) and len(counts) == 47
    with page.expect_download() as download:
        page.click("#cmp-parity-csv")
    csv_text = Path(download.value.path()).read_text(encoding="utf-8")
    assert csv_text.splitlines()[0].startswith("language,script,") and len(csv_text.splitlines()) == 48
    page.locator('[data-card="parity"]').screenshot(path=str(screenshots_dir / "premium-view.png"))
    page.locator("#cmp-parity").screenshot(path=str(screenshots_dir / "premium-chart.png"))
    # the link carries the whole comparison (a link's Compare columns, well-known ones included,
    # coming back in a fresh context: test_compare_columns_survive_a_reload_and_travel_in_a_link,
    # test_a_well_known_tokenizer_comes_back_after_a_reload_and_in_a_link, and the unit tier)
    page.click("#tab-share")
    page.click("#share-copy")
    exp = share.decode_fragment(page.evaluate("location.href").split("#", 1)[1])
    assert exp.compare_current and exp.compare_languages == "udhr47", exp
    assert exp.compare_well_known == ("cl100k_base", "o200k_base", "qwen3"), exp.compare_well_known
