"""Hostile input at every door of the page (issue 13, items 4 and 8), in fresh browser contexts.

For each entry point — paste, upload, drop, the options (patterns, special tokens, numbers),
model import, share links, embed parameters — a hostile input (a pattern that backtracks
catastrophically, a huge, binary or empty file, malformed JSON, markup as text, absurd
numbers, a crafted share link) must give one clear message while the page keeps answering
(a trivial evaluate within 200 ms), keeps the corpus and the model it had, and runs no
script of the input's (``window.__pwned`` stays unset; ``alert`` is a trap too).

What the pattern guard (web/subwordlab_web/pattern_guard.py) costs is measured by
``bench/bench_page.py`` (tests/e2e/measure_page.py).
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import tempfile
import time
import zlib
from pathlib import Path

import pytest
from playwright.sync_api import expect
from train_actions import train_to_end

import subwordlab
from subwordlab_web import share

ANSWER_MS = 200  # the page must answer a trivial evaluate within this
CATASTROPHIC = "(a+)+$"  # against 40 'a' and a 'b': 2**40 ways to fail in re
A_RUN = "a" * 40 + "b"
CORPUS = f"low lower newest widest low lower {A_RUN} low"
EVIL = "<img src=x onerror=window.__pwned=1> <script>window.__pwned=2</script>"
TRAP = "window.__pwned = undefined; window.alert = () => { window.__pwned = 'alert'; };"
GUARD_WAIT_MS = 90_000  # the first check boots the worker's Pyodide (seconds, more under load)


# --- helpers ---------------------------------------------------------------------------------
def open_page(fresh_page, site_url: str, suffix: str = ""):
    page, guard = fresh_page()
    page.context.add_init_script(TRAP)
    page.goto(site_url + suffix)
    guard.wait_ready()
    return page


def answers_quickly(page) -> float:
    """The best of three round trips of a trivial evaluate, in ms (a busy main thread
    cannot answer one; the best of three takes out the shared machine's noise)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        page.evaluate("() => document.body.dataset.ready")
        best = min(best, (time.perf_counter() - t0) * 1000)
    return best


def paste_and_train(page, text: str = CORPUS, preset: str = "byte_bpe") -> dict:
    """Paste ``text``, train ``preset`` to the end; return what must survive hostile input."""
    page.click("#tab-corpus")
    page.fill("#corpus-text", text)
    page.click("#tab-train")
    page.select_option("#train-preset", preset)
    page.click("#train-end")
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=60_000)
    return state_of(page)


def state_of(page) -> dict:
    return page.evaluate("""() => ({
        corpus: document.querySelector('#corpus-text').value,
        corpusName: document.querySelector('#context-corpus').textContent,
        spec: document.querySelector('#context-spec').textContent,
        steps: document.querySelector('#train-step-total').textContent,
        status: document.querySelector('#panel-train').dataset.status})""")


def settled(page, before: dict | None) -> None:
    """The page answers, ran no script of the input, and (``before`` given) kept its state."""
    ms = answers_quickly(page)
    assert ms < ANSWER_MS, f"the page took {ms:.0f} ms to answer a trivial evaluate"
    assert page.evaluate("() => window.__pwned") is None, "a script from the input ran"
    if before is not None:
        assert state_of(page) == before


def set_option(page, name: str, value: str) -> None:
    page.click("#tab-train")
    page.evaluate("() => { document.querySelector('#train-options-box').open = true; }")
    page.fill(f"#opt-{name}", value)
    page.press(f"#opt-{name}", "Enter")


# --- the pattern guard -----------------------------------------------------------------------
def test_a_catastrophic_pattern_in_options_is_stopped_in_the_worker(fresh_page, site_url):
    page = open_page(fresh_page, site_url)
    before = paste_and_train(page)
    set_option(page, "pattern", CATASTROPHIC)
    # while the worker boots and then runs the pattern, the page keeps answering
    settled(page, before)
    error = page.locator("#train-form-error")
    expect(error).to_contain_text("backtracks catastrophically on the corpus", timeout=GUARD_WAIT_MS)
    expect(error).to_contain_text("remove the nested repetition '(a+)+'")
    settled(page, before)
    assert page.input_value("#opt-pattern") == CATASTROPHIC  # kept for editing
    # the check ran in the compute worker (the page's only one; the tiny corpus trained on the
    # page, so no worker ran before it), which was terminated when it was late
    expect(page.locator("body")).to_have_attribute("data-compute-terminated", "1")
    # a fixed pattern is checked and trains: a fresh worker (warming since the termination) answers both
    set_option(page, "pattern", r"a+|[^a]+")
    expect(error).to_be_hidden(timeout=GUARD_WAIT_MS)
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=60_000)
    expect(page.locator("#train-status")).to_contain_text("trained")
    expect(page.locator("body")).to_have_attribute("data-compute-boots", "2")
    assert page.get_attribute("body", "data-compute-terminated") == "1"


def test_a_parity_text_the_pattern_hangs_on_is_left_out_and_the_texts_after_it_are_counted(fresh_page, site_url):
    """Compare's parity texts go to the compute worker in one request, each answer within its
    own budget of the one before (budgets.py): of two texts added after a run, the first
    holds the a-run CATASTROPHIC backtracks on. Its cell stays empty with the guard's
    message, the worker is terminated, and the second text is still counted (by the fresh
    worker, in a second request)."""
    calm = "low lower newest widest low lower low"
    exp = share.Experiment(share.CorpusRef.inline(calm), share.Config("bpe", {"num_merges": 5}), panel="compare",
                           compare=(share.Config("bpe", {"vocab_size": 300}),
                                    share.Config("byte_bpe", {"vocab_size": 300, "pattern": CATASTROPHIC})),
                           compare_text="low lower")
    page = open_page(fresh_page, site_url, "#" + link(exp))
    page.wait_for_selector("body[data-share='applied']", state="attached", timeout=60_000)
    page.click("#cmp-run")
    expect(page.locator("#cmp-parity-table tr[data-lang='udhr_eng'] td").nth(1)).to_have_attribute(
        "data-tokens", re.compile(r"^\d+$"), timeout=GUARD_WAIT_MS)  # (the guard found nothing to stop in the UDHR)
    assert page.get_attribute("body", "data-compute-terminated") in (None, "0")
    folder = Path(tempfile.mkdtemp(prefix="subwordlab-upload-"))
    UPLOADS.append(folder)
    (folder / "hangs.txt").write_text(f"low {A_RUN}", encoding="utf-8")
    (folder / "after.txt").write_text("lower newest", encoding="utf-8")
    page.set_input_files("#cmp-parity-files", [str(folder / "hangs.txt"), str(folder / "after.txt")])
    after = page.locator("#cmp-parity-table tr[data-lang='own:after'] td")
    expect(after.nth(1)).to_have_attribute("data-tokens", re.compile(r"^\d+$"), timeout=GUARD_WAIT_MS)
    assert page.get_attribute("#cmp-parity-table tr[data-lang='own:hangs'] td:nth-of-type(2)", "data-tokens") == ""
    expect(page.locator("#cmp-parity-note")).to_contain_text("backtracks catastrophically on the parity text “hangs”")
    expect(page.locator("body")).to_have_attribute("data-compute-terminated", "1")
    settled(page, None)


# --- every door, every kind of hostile input -------------------------------------------------
def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def link(exp: share.Experiment) -> str:
    return share.encode_fragment(exp)


def quotes_link() -> str:
    """1 KB of link whose data inflates to ~800 KB of escaped quotes (an unterminated string)."""
    return "v1." + _b64(zlib.compress(b'{"corpus": "' + b'\\"' * 400_000, 9))


def split_tokenizer_json(pattern: str) -> bytes:
    tok = subwordlab.train("low lower aab", preset="byte_bpe", vocab_size=260, pattern=r"a+|[^a]+")
    return subwordlab.to_hf_json(tok).replace(json.dumps(r"a+|[^a]+")[1:-1], json.dumps(pattern)[1:-1]).encode()


UPLOADS: list[Path] = []  # the folders upload() wrote; removed when the module ends


@pytest.fixture(scope="module", autouse=True)
def _remove_uploads():
    yield
    for folder in UPLOADS:
        shutil.rmtree(folder, ignore_errors=True)


def upload(selector: str, name: str, data: bytes):
    """Upload ``data`` as a file called ``name``, from disk (Playwright hands a local browser
    the path; a 33 MB buffer took 80 s to cross the driver's pipe)."""
    def act(page) -> None:
        UPLOADS.append(Path(tempfile.mkdtemp(prefix="subwordlab-upload-")))
        (UPLOADS[-1] / name).write_bytes(data)
        page.set_input_files(selector, str(UPLOADS[-1] / name))
    return act


def drop(selector: str, name: str, data_js: str):
    def act(page) -> None:
        transfer = page.evaluate_handle(
            f"() => {{ const dt = new DataTransfer(); dt.items.add(new File([{data_js}], {json.dumps(name)})); return dt; }}")
        page.dispatch_event(selector, "drop", {"dataTransfer": transfer})
    return act


def go_hash(fragment: str):
    return lambda page: page.evaluate(f"() => {{ location.hash = {json.dumps('#' + fragment)}; }}")


def on_tab(tab: str, act):
    def run(page) -> None:
        page.click(f"#tab-{tab}")
        act(page)
    return run


def options(**values):
    def act(page) -> None:
        for name, value in values.items():
            if name == "size":
                page.click("#tab-train")
                page.fill("#train-size", value)
                page.press("#train-size", "Enter")
            else:
                set_option(page, name, value)
    return act


BIG = 33 * 1024 * 1024
BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01"
EVIL_NAME = "<img src=x onerror=window.__pwned=3>.txt"
# id: (what the hostile input does, where the message appears, what it says, whether the page keeps its corpus and model)
CASES = {
    "paste markup": (on_tab("inspect", lambda p: p.fill("#inspect-input", EVIL)), "#inspect-chips", "< 60i 105m 109g 103", True),
    "upload binary": (on_tab("corpus", upload("#corpus-file", "photo.png", BINARY)), "#corpus-message", "looks like a binary file", True),
    "upload empty": (on_tab("corpus", upload("#corpus-file", "empty.txt", b"")), "#corpus-message", "is empty", True),
    "upload huge": (on_tab("corpus", upload("#corpus-file", "huge.txt", b"a" * BIG)), "#corpus-message", "the limit is", True),
    "upload evil name": (on_tab("corpus", upload("#corpus-file", EVIL_NAME, b"\x00\x01")), "#corpus-message", EVIL_NAME, True),
    "drop binary": (on_tab("corpus", drop("#corpus-drop", "x.bin", "new Uint8Array([0, 1, 2, 0])")), "#corpus-message",
                    "looks like a binary file", True),
    "options catastrophic pattern": (options(pattern="(a|aa)+$"), "#train-form-error", "backtracks catastrophically", True),
    "options empty-matching pattern": (options(pattern="a*"), "#train-form-error", "matches an empty string", True),
    "options absurd size": (options(size="10000000000"), "#train-form-error", "num_merges must be a whole number", True),
    "options negative frequency": (options(min_frequency="-3"), "#train-form-error", "min_frequency", True),
    "options markup special tokens": (options(special_tokens=EVIL), "#train-status", "trained", False),
    "import malformed json": (on_tab("files", upload("#files-import", "bad.json", b'{"model": {')), "#files-error", "bad.json", True),
    "import escaped quotes": (on_tab("files", upload("#files-import", "q.json", b'"' + b'\\"' * 64_000)), "#files-error",
                              "q.json", True),
    "import empty": (on_tab("files", upload("#files-import", "e.json", b"")), "#files-error", "is empty", True),
    "import binary": (on_tab("files", upload("#files-import", "b.json", BINARY)), "#files-error", "b.json", True),
    "import evil name": (on_tab("files", upload("#files-import", EVIL_NAME, b"{}")), "#files-error", EVIL_NAME, True),
    "import catastrophic split": (lambda p: (p.click("#tab-inspect"), p.fill("#inspect-input", A_RUN),
                                             on_tab("files", upload("#files-import", "evil.json", split_tokenizer_json(CATASTROPHIC)))(p)),
                                  "#files-error", "backtracks catastrophically on the Inspect text", True),
    "link escaped quotes": (go_hash(quotes_link()), "#link-banner", "could not be opened", True),
    "link garbage": (go_hash("v1.!!!!"), "#link-banner", "could not be opened", True),
    "link catastrophic pattern": (go_hash(link(share.Experiment(
        share.CorpusRef.inline(CORPUS), share.Config("byte_bpe", {"num_merges": 5, "pattern": CATASTROPHIC}), step=2, panel="train"))),
        "#link-banner", "backtracks catastrophically on the link's corpus", True),
    # (the page is checked once it applied: decoding is sliced, test_a_megabyte_link_is_decoded_in_slices;
    # it applies in about a second: 30 s fails a quadratic step, as Compare's sentence search was, 35 s)
    "link a megabyte of a": (lambda p: (go_hash(link(share.Experiment(
        share.CorpusRef.inline("a" * 1_000_000), share.Config("byte_bpe", {"num_merges": 3}), step=3, panel="train")))(p),
        p.wait_for_selector("body[data-share='applied']", state="attached", timeout=30_000)),
        "#train-status", "trained: 3 steps", False),
    "link markup texts": (go_hash(link(share.Experiment(
        share.CorpusRef.inline(EVIL, title="<script>window.__pwned=4</script>"), share.Config("bpe", {"num_merges": 3}),
        step=1, panel="inspect", inspect_text=EVIL))), "#inspect-chips", "<", False),
}


# cases after which the next one could not paste and train: options left invalid, or a corpus
# so big that the text box shows a read-only preview
ENDS_A_PAGE = ("options", "link a megabyte")


def case_groups(cases: dict) -> list[list[str]]:
    """The cases, dealt onto pages: on one page no two cases write their message into the
    same element (a message left by the case before cannot pass for the next one's), and a
    case of ENDS_A_PAGE comes last, one a page. One fresh page per case cost 22 boots."""
    groups: list[list[str]] = []
    last = [case for case in cases if case.startswith(ENDS_A_PAGE)]
    for case in [case for case in cases if case not in last] + last:
        place = cases[case][1]
        for group in groups:
            if place not in {cases[c][1] for c in group} and not (group and group[-1].startswith(ENDS_A_PAGE)):
                group.append(case)
                break
        else:
            groups.append([case])
    return groups


GROUPS = case_groups(CASES)


@pytest.mark.parametrize("cases", GROUPS, ids=[f"page{k + 1}" for k in range(len(GROUPS))])
def test_hostile_input_gives_a_message_and_leaves_the_page_whole(fresh_page, site_url, cases):
    """Each case on a page trained afresh: one message, the page answering at once and
    keeping the corpus and model it had, no script of the input run."""
    page = open_page(fresh_page, site_url)
    for k, case in enumerate(cases):
        act, where, says, keeps = CASES[case]
        try:
            before = paste_and_train(page)
            act(page)
            settled(page, None)  # answering at once, the work still going on
            expect(page.locator(where)).to_be_visible(timeout=GUARD_WAIT_MS)
            expect(page.locator(where)).to_contain_text(says, timeout=GUARD_WAIT_MS)
            settled(page, before if keeps else None)
        except Exception as exc:
            raise AssertionError(f"case {case!r} (after {cases[:k]}): {exc}") from exc


def test_every_case_is_dealt_once_and_no_page_repeats_a_message_place():
    dealt = [case for group in GROUPS for case in group]
    assert sorted(dealt) == sorted(CASES)
    for group in GROUPS:
        places = [CASES[case][1] for case in group]
        assert len(places) == len(set(places)), group
        assert not any(case.startswith(ENDS_A_PAGE) for case in group[:-1]), group


def test_hostile_embed_parameters(fresh_page, site_url):
    page = open_page(fresh_page, site_url, "?embed=1&preset=%3Cscript%3Ewindow.__pwned%3D5%3C/script%3E&vocab_size=-5"
                     "&step=banana&text=%3Cimg%20src%3Dx%20onerror%3Dwindow.__pwned%3D6%3E")
    expect(page.locator("#link-banner")).to_contain_text("parameters were ignored")
    settled(page, None)


# --- share links: checked before anything is replaced, decoded in slices ------------------------
WATCH_SHARE = """() => {
    window.__longTasks = []; window.__shareMarks = [];
    new PerformanceObserver(l => { for (const e of l.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
      .observe({type: 'longtask'});
    new MutationObserver(() => window.__shareMarks.push([document.body.dataset.share, performance.now()]))
      .observe(document.body, {attributes: true, attributeFilter: ['data-share']});
}"""


def model_of(page) -> dict:
    """What identifies the trained model: its spec and step, its vocabulary size and newest
    tokens (read once the views have drawn the last step: two reads 300 ms apart agree)."""
    last = None
    for _ in range(40):
        now = _model_now(page)
        if now == last:
            return now
        last = now
        page.wait_for_timeout(300)
    return last


def _model_now(page) -> dict:
    return page.evaluate("""() => ({
        spec: document.querySelector('#context-spec').textContent,
        step: document.querySelector('#context-step').textContent,
        vocab: document.querySelector('#vocab-count').textContent,
        newest: [...document.querySelectorAll('#vocab-list li')].slice(0, 8).map(li => li.textContent)})""")


def test_a_refused_pattern_link_keeps_the_corpus_and_the_model(fresh_page, site_url):
    """A link whose pattern backtracks catastrophically, opened on a page with the user's own
    corpus and trained model: refused before anything is replaced; the page answers at once."""
    page = open_page(fresh_page, site_url)
    mine = "the user's own words, typed by hand: lower lowest newer " * 3
    before = paste_and_train(page, mine, "bpe")
    model = model_of(page)
    hostile = link(share.Experiment(share.CorpusRef.inline(CORPUS, title="Hostile"),
                                    share.Config("byte_bpe", {"num_merges": 5, "pattern": CATASTROPHIC}), step=2, panel="train"))
    go_hash(hostile)(page)
    settled(page, None)  # answering while the compute worker runs the pattern
    banner = page.locator("#link-banner")
    expect(banner).to_contain_text("backtracks catastrophically on the link's corpus", timeout=GUARD_WAIT_MS)
    expect(banner).to_contain_text("This link was not opened")
    expect(page.locator("body")).to_have_attribute("data-share", "error")
    settled(page, before)
    assert model_of(page) == model
    assert page.input_value("#corpus-text") == mine


def test_a_megabyte_link_is_decoded_in_slices(fresh_page, site_url, capsys):
    """Decoding (base64, inflate, JSON, checks) of a link carrying 1 MB never holds the main
    thread for a long task over 250 ms."""
    page = open_page(fresh_page, site_url)
    fragment = link(share.Experiment(share.CorpusRef.inline("a" * 1_000_000), share.Config("byte_bpe", {"num_merges": 3}),
                                     step=3, panel="train"))
    page.evaluate(WATCH_SHARE)
    page.wait_for_timeout(300)
    start = page.evaluate(f"() => {{ const t = performance.now(); location.hash = {json.dumps('#' + fragment)}; return t; }}")
    page.wait_for_selector("body[data-share='applying'], body[data-share='applied']", state="attached", timeout=120_000)
    marks = page.evaluate("() => window.__shareMarks")
    decoded = next(t for value, t in marks if value in ("applying", "applied"))
    tasks = [d for s, d in page.evaluate("() => window.__longTasks") if start - 1 <= s < decoded]
    with capsys.disabled():
        print(f"\n[1 MB link] decoding took {decoded - start:.0f} ms; long tasks: {[round(d) for d in tasks]}")
    assert max(tasks, default=0) <= 250, tasks


# --- big inputs: loaded in slices ---------------------------------------------------------------
# Longest main-thread task allowed while a big input loads. Alone on this machine the longest
# is 0.1-0.16 s; the e2e tier runs two browsers on two cores, which makes it 3-4x longer (0.41 s
# seen); the unsliced load held the page 2.7 s (the model) and 1.3 s (the corpus).
LOAD_TASK_MS = 1_000
WATCH_TASKS = """() => {
    window.__longTasks = [];
    new PerformanceObserver(l => { for (const e of l.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
      .observe({type: 'longtask'});
}"""


def test_a_28_mb_tokenizer_json_loads_without_holding_the_page(fresh_page, site_url, capsys):
    """gpt-oss's tokenizer.json (27.9 MB, 446,000 merges) is parsed and built a slice at a
    time (json_slices, the chunked merges and rank table): no main-thread task over
    LOAD_TASK_MS from the click to "It is now the tokenizer", the progress shown meanwhile,
    and the page encodes with it as the CPython import does. (Before: one task of ~2.7 s.)"""
    page = open_page(fresh_page, site_url)
    page.click("#tab-files")
    page.evaluate(WATCH_TASKS)
    page.wait_for_timeout(300)
    start = page.evaluate("() => performance.now()")
    page.click("#files-well-known button[data-vocab='gpt_oss']")
    expect(page.locator("#files-status")).to_contain_text("Reading gpt-oss", timeout=60_000)
    expect(page.locator("#files-status")).to_contain_text("It is now the tokenizer of Inspect and Compare", timeout=180_000)
    loaded = page.evaluate("() => performance.now()")
    tasks = [d for s, d in page.evaluate("() => window.__longTasks") if start - 1 <= s < loaded]
    with capsys.disabled():
        print(f"\n[gpt-oss tokenizer.json] loaded in {loaded - start:.0f} ms; long tasks: {[round(d) for d in tasks]}")
    assert max(tasks, default=0) <= LOAD_TASK_MS, [(round(s - start), round(d)) for s, d in page.evaluate("() => window.__longTasks")]
    # the page's tokenizer is the file's: Inspect's ids equal tiktoken's o200k_harmony ones in the CPython import
    from subwordlab_web.exports import import_model
    from subwordlab_web.well_known import WELL_KNOWN_BY_KEY

    text = "Tokenizers, ünïcödé, 你好 🙂"
    site = Path(__file__).resolve().parents[2] / "dist" / "site"
    expected = import_model("tokenizer.json", (site / WELL_KNOWN_BY_KEY["gpt_oss"].url).read_bytes()).tokenizer.encode(text)
    page.click("#tab-inspect")
    page.fill("#inspect-input", text)
    chips = page.locator("#inspect-chips .chip")
    expect(chips).to_have_count(len(expected), timeout=30_000)
    assert chips.evaluate_all("cs => cs.map(c => +c.dataset.id)") == expected
    settled(page, None)



def test_two_long_counts_files_are_merged_in_the_session_without_holding_the_page(fresh_page, site_url, capsys, tmp_path):
    """Two counts files of `subwordlab count` (200,000 pre-tokens each, 12.6 MB together)
    uploaded at once are read and merged in the compute session, as `subwordlab count
    --merge` merges them, and counted there: no main-thread task over LOAD_TASK_MS (before,
    the page merged them in one task of 2.7 s); one that is broken far down is named, the
    corpus kept."""
    import random

    from subwordlab.counts import to_json
    from subwordlab.presets import counting_spec, pipeline_record
    from subwordlab.text.corpus import Counted

    rng = random.Random(1)
    spec = counting_spec("bpe", {})
    halves = [{f"w{rng.randrange(10**9)}x{i}": rng.randint(1, 1000) for i in range(k, 400_000, 2)} for k in (0, 1)]
    paths = [tmp_path / f"part{k}.counts" for k in (0, 1)]
    for path, counts in zip(paths, halves):
        path.write_text(to_json(Counted(counts, pipeline_record(spec), [])), encoding="utf-8")
    page = open_page(fresh_page, site_url)
    page.click("#tab-corpus")
    page.evaluate(WATCH_TASKS)
    page.wait_for_timeout(300)
    start = page.evaluate("() => performance.now()")
    page.set_input_files("#corpus-file", [str(p) for p in paths])
    expect(page.locator("#corpus-status")).to_contain_text("Loaded part0.counts, part1.counts", timeout=120_000)
    expect(page.locator("#corpus-status")).to_contain_text("400,000 distinct pre-tokens", timeout=120_000)
    total = sum(sum(h.values()) for h in halves)
    expect(page.locator("[data-stat='words']")).to_have_text(f"{total:,}", timeout=120_000)
    counted = page.evaluate("() => performance.now()")
    tasks = [(round(s - start), round(d)) for s, d in page.evaluate("() => window.__longTasks") if start - 1 <= s < counted]
    with capsys.disabled():
        print(f"\n[2 counts files, 12.6 MB] merged and counted in {counted - start:.0f} ms; long tasks (at ms, ms): {tasks}")
    assert max((d for _, d in tasks), default=0) <= LOAD_TASK_MS, tasks
    # one broken far down: named, the merged corpus kept
    broken = tmp_path / "broken.counts"
    text = paths[1].read_text(encoding="utf-8")
    row = text.index('", ', len(text) - 5_000)
    broken.write_text(text[:row] + '", -' + text[row + 3:], encoding="utf-8")
    page.set_input_files("#corpus-file", [str(paths[0]), str(broken)])
    expect(page.locator("#corpus-message")).to_contain_text("“broken.counts” is a counts file but cannot be read: counts[",
                                                            timeout=120_000)
    expect(page.locator("#corpus-message")).to_contain_text("your corpus is unchanged")
    expect(page.locator("#corpus-status")).to_contain_text("In use: “2 counts files”, 400,000 distinct pre-tokens")
    settled(page, None)

def test_a_14_mb_corpus_of_many_scripts_loads_and_trains_without_holding_the_page(fresh_page, site_url, capsys, tmp_path):
    """A big upload (Shakespeare ten times and the UDHR in 218 languages, 14 MB) is read,
    hashed, counted and kept in slices, and crosses to the compute worker as UTF-8 bytes: no
    main-thread task over LOAD_TASK_MS from the upload to the end of a training on it.
    (Before: it held the page 1.3 s and 0.75 s, strings sent to the worker and the store.)"""
    corpora = Path(__file__).resolve().parents[2] / "corpora"
    text = (corpora / "tinyshakespeare.txt").read_text(encoding="utf-8") * 10 + (corpora / "udhr_many.txt").read_text(encoding="utf-8")
    path = tmp_path / "big-mixed.txt"
    path.write_text(text, encoding="utf-8")
    page = open_page(fresh_page, site_url)
    page.click("#tab-corpus")
    page.evaluate(WATCH_TASKS)
    page.wait_for_timeout(300)
    start = page.evaluate("() => performance.now()")
    page.set_input_files("#corpus-file", str(path))
    expect(page.locator("#corpus-status")).to_contain_text("Loaded big-mixed.txt", timeout=60_000)
    expect(page.locator("body")).to_have_attribute("data-corpus-kept", re.compile("^[0-9a-f]{64}$"), timeout=60_000)
    train_to_end(page, "byte_bpe", 300, timeout=300_000)
    done = page.evaluate("() => performance.now()")
    tasks = [(round(s - start), round(d)) for s, d in page.evaluate("() => window.__longTasks") if start - 1 <= s < done]
    with capsys.disabled():
        print(f"\n[14 MB corpus] upload to trained in {done - start:.0f} ms; long tasks (at ms, ms): {tasks}")
    assert max((d for _, d in tasks), default=0) <= LOAD_TASK_MS, tasks
    expect(page.locator("[data-stat='chars']")).to_have_text(f"{len(text):,}")
    expect(page.locator("[data-stat='bytes']")).to_have_text(f"{len(text.encode()):,}")
    settled(page, None)


def upload_count_and_train(page, path: Path, status: str, words: int, label: str, capsys) -> None:
    """Upload ``path`` on the Corpus tab, wait for ``status`` and the statistics' ``words``,
    train BPE to 20 merges on it; no main-thread task over LOAD_TASK_MS meanwhile (printed)."""
    page.click("#tab-corpus")
    page.evaluate(WATCH_TASKS)
    page.wait_for_timeout(300)
    start = page.evaluate("() => performance.now()")
    page.set_input_files("#corpus-file", str(path))
    expect(page.locator("#corpus-status")).to_contain_text(status, timeout=60_000)
    expect(page.locator("[data-stat='words']")).to_have_text(f"{words:,}", timeout=120_000)
    counted = page.evaluate("() => performance.now()")
    train_to_end(page, "bpe", 20, timeout=300_000)
    done = page.evaluate("() => performance.now()")
    tasks = [(round(s - start), round(d)) for s, d in page.evaluate("() => window.__longTasks") if start - 1 <= s < done]
    with capsys.disabled():
        print(f"\n[{label}] counted in {counted - start:.0f} ms, trained in {done - counted:.0f} ms; "
              f"long tasks (at ms, ms): {tasks}")
    assert max((d for _, d in tasks), default=0) <= LOAD_TASK_MS, tasks
    settled(page, None)


def test_a_13_mb_word_count_list_loads_and_trains_without_holding_the_page(fresh_page, site_url, capsys, tmp_path):
    """A big word-count list (600,000 distinct words, 13 MB) is read as a list, counted and
    trained on without a main-thread task over LOAD_TASK_MS: its statistics are computed in
    the compute session, as its training is. (Before: parsing and counting it held the page
    for seconds, twice: when its format was checked and when its statistics were computed.)"""
    import random

    rng = random.Random(0)
    lines = [f"w{rng.randrange(10**9)}x{i} {rng.randint(1, 1000)}" for i in range(600_000)]
    path = tmp_path / "big-counts.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    page = open_page(fresh_page, site_url)
    upload_count_and_train(page, path, "Loaded big-counts.txt", sum(int(line.split()[1]) for line in lines),
                           "13 MB word counts", capsys)
    expect(page.locator("[data-stat='distinct_words']")).to_have_text(f"{len(lines):,}")


def test_a_19_mb_counts_file_loads_and_trains_without_holding_the_page(fresh_page, site_url, capsys, tmp_path):
    """A big counts file of `subwordlab count` (600,000 pre-tokens, 19 MB) is described from
    its header and read whole only in the compute session (statistics, training): no
    main-thread task over LOAD_TASK_MS from the upload to the end of a training on it.
    (Before: the page parsed all of it on upload, for the statistics and to start training.)"""
    import random

    from subwordlab.counts import to_json
    from subwordlab.presets import counting_spec, pipeline_record
    from subwordlab.text.corpus import Counted

    rng = random.Random(0)
    counts = {f"w{rng.randrange(10**9)}x{i}": rng.randint(1, 1000) for i in range(600_000)}
    spec = counting_spec("bpe", {})
    path = tmp_path / "big.counts"
    path.write_text(to_json(Counted(counts, pipeline_record(spec), [])), encoding="utf-8")
    page = open_page(fresh_page, site_url)
    upload_count_and_train(page, path, f"{len(counts):,} distinct pre-tokens", sum(counts.values()),
                           "19 MB counts file", capsys)
