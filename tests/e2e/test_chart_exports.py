"""Chart downloads as a course author uses them, in headless Chromium: every chart's SVG
and PNG button gives a file; the SVG parses as standalone XML (xmlns, white background, no
external reference) and the PNG has the PNG signature and a non-zero size."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET

from playwright.sync_api import expect
from test_compare_share_embed import download, pick_sample, run_compare

from subwordlab_web.chart_export import CHARTS

NS = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def check_svg(data: bytes) -> ET.Element:
    root = ET.fromstring(data)
    assert root.tag == NS + "svg" and b'xmlns="http://www.w3.org/2000/svg"' in data
    assert root[0].tag == NS + "rect" and root[0].get("fill") == "#ffffff"
    assert b"href" not in data and b"url(" not in data and b"<script" not in data
    assert any(el.get("style") for el in root.iter())  # the page's CSS, inlined
    return root


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_every_chart_downloads_as_svg_and_png(app_page, screenshots_dir):
    page = app_page
    pick_sample(page, "udhr_eng")
    page.click("#tab-train")
    page.click("#train-step")
    expect(page.locator("#candidates-chart svg")).to_be_attached(timeout=60_000)
    expect(page.locator("#curve-chart svg")).to_be_attached(timeout=60_000)
    run_compare(page, 300)
    expect(page.locator("#cmp-curve circle").first).to_be_attached(timeout=60_000)
    expect(page.locator("#cmp-parity svg")).to_be_attached(timeout=60_000)
    seen = {}
    for chart_id in CHARTS:
        tab = "#tab-compare" if chart_id.startswith("cmp-") else "#tab-train"
        page.click(tab)
        name, svg = download(page, f"[data-chart='{chart_id}'][data-chart-download='svg']")
        root = check_svg(svg)
        assert name.endswith(f"{chart_id}.svg")
        # the file draws what the page shows: its text labels, plus (Compare) the legend's
        legend = page.locator("#cmp-legend li").count() if chart_id.startswith("cmp-") else 0
        assert len(list(root.iter(NS + "text"))) == page.locator(f"#{chart_id} svg text").count() + legend
        assert page.locator(f"#{chart_id} svg text").count() > 0 and (legend >= 3 or not chart_id.startswith("cmp-"))
        name, png = download(page, f"[data-chart='{chart_id}'][data-chart-download='png']")
        width, height = png_size(png)
        assert name.endswith(f"{chart_id}.png") and width > 0 and height > 0
        seen[chart_id] = (len(svg), width, height)
        (screenshots_dir / f"export-{chart_id}.png").write_bytes(png)
    assert set(seen) == set(CHARTS)
    print("chart exports (svg bytes, png width, height):", seen)
