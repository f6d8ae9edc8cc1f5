"""Keyboard focus in groups (roving.py) on the real index.html through the fake port: the
token chips of Inspect, Compare's columns and Train's segmentations, and the marks of
every chart, are one Tab stop per group; ←/→/↑/↓/Home/End move focus inside it; every item
keeps its own accessible name."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakedom import FakePort
from test_web_share_panels import compared

from subwordlab_web.app import App
from subwordlab_web.roving import RovingFocus, next_index, roving_tabindex

INDEX_HTML = (Path(__file__).resolve().parents[2] / "web" / "index.html").read_text(encoding="utf-8")
# 6,000 characters in the textbook's alphabet (its tokenizer has no unknown token): like
# the example, which gave 1,361 Tab stops
LONG_TEXT = ("lowest newer wider widest lower newest low " * 140)[:6000]


def started(panel: str) -> tuple[FakePort, App]:
    port = FakePort.from_html(INDEX_HTML)
    app = App(port, warm=False)
    app.start()
    port.settle()
    app.show_panel(panel)
    port.settle()
    assert port.errors == []
    return port, app


def tab_stops(port: FakePort, root) -> list:
    """The elements inside `root` that Tab reaches (tabindex 0)."""
    return [el for el in root.iter() if el.attrs.get("tabindex") == "0"]


def press(port: FakePort, key: str):
    """Press `key` on the focused element; the keydown bubbles to the group's container."""
    assert port.focused is not None, "nothing has focus"
    return port.dispatch(port.focused, "keydown", key=key)


@pytest.mark.parametrize("key, current, count, expected", [
    ("ArrowRight", 0, 3, 1), ("ArrowDown", 1, 3, 2), ("ArrowRight", 2, 3, 2),  # stops at the end
    ("ArrowLeft", 2, 3, 1), ("ArrowUp", 0, 3, 0), ("Home", 2, 3, 0), ("End", 0, 3, 2),
    ("Enter", 1, 3, None), ("Tab", 1, 3, None), ("ArrowRight", 0, 0, None),
])
def test_next_index(key, current, count, expected):
    assert next_index(key, current, count) == expected


def test_only_the_first_item_of_a_fresh_group_is_a_tab_stop():
    assert [roving_tabindex(i) for i in range(4)] == [0, -1, -1, -1]


def test_inspect_chips_of_a_6000_character_text_are_one_tab_stop_walked_with_arrows():
    port, app = started("inspect")
    port.input(port.query("#inspect-input"), LONG_TEXT)
    port.settle()
    box = port.query("#inspect-chips")
    chips = port.query_all(".chip", box)
    assert len(chips) > 1000  # the 1,361 Tab stops ...
    assert tab_stops(port, box) == [chips[0]]  # ... are one
    assert port.get_attr(box, "role") == "listbox"
    assert all(port.get_attr(c, "role") == "option" and port.get_attr(c, "tabindex") == "-1" for c in chips[1:])
    # every chip is still announced with its token, id and offsets
    # (the name starts with what the chip shows: its token and id)
    assert all(port.get_attr(c, "aria-label").startswith(
        f"{port.text(port.query('.chip-text', c))} {port.text(port.query('.chip-id', c))}: id ") for c in chips[:50])

    port.focus(chips[0])
    ev = press(port, "ArrowRight")
    assert ev.default_prevented and port.focused is chips[1]
    assert tab_stops(port, box) == [chips[1]]
    # the detail line follows keyboard focus
    assert port.text(port.query("#inspect-detail")) == port.get_attr(chips[1], "title")
    press(port, "End")
    assert port.focused is chips[-1] and tab_stops(port, box) == [chips[-1]]
    assert press(port, "ArrowRight").default_prevented and port.focused is chips[-1]  # the end stays put
    press(port, "ArrowLeft")
    assert port.focused is chips[-2]
    press(port, "Home")
    assert port.focused is chips[0] and tab_stops(port, box) == [chips[0]]
    # other keys are the browser's (Tab leaves the group, Enter does nothing special)
    assert not press(port, "Tab").default_prevented and not press(port, "a").default_prevented
    assert port.focused is chips[0]


def test_a_clicked_chip_becomes_the_tab_stop():
    port, app = started("inspect")
    box = port.query("#inspect-chips")
    chips = port.query_all(".chip", box)
    port.focus(chips[0])
    port.focus(chips[4])  # a click focuses it (focusin)
    assert tab_stops(port, box) == [chips[4]]
    press(port, "ArrowLeft")
    assert port.focused is chips[3] and tab_stops(port, box) == [chips[3]]


def test_a_redrawn_group_starts_again_at_its_first_item():
    port, app = started("inspect")
    box = port.query("#inspect-chips")
    port.focus(port.query_all(".chip", box)[0])
    press(port, "End")
    port.input(port.query("#inspect-input"), "newest lowest")
    port.settle()
    chips = port.query_all(".chip", box)
    assert tab_stops(port, box) == [chips[0]]
    port.focus(chips[0])
    press(port, "ArrowRight")  # the listeners on the container still work after the redraw
    assert port.focused is chips[1]


def test_train_segmentations_and_charts_are_one_tab_stop_each():
    port, app = started("train")
    app.state.seek(8)
    port.settle()
    rows = port.query("#segmentation-rows")
    minis = port.query_all(".mini-chip", rows)
    assert len(minis) > len(port.query_all("tr", rows))  # several rows, several chips each
    assert tab_stops(port, rows) == [minis[0]]
    assert all(port.get_attr(m, "aria-label").endswith(f": {port.get_attr(m, 'title')}") for m in minis)
    port.focus(minis[0])
    for _ in range(len(minis) + 2):  # across the rows to the last chip, and no further
        press(port, "ArrowRight")
    assert port.focused is minis[-1] and tab_stops(port, rows) == [minis[-1]]

    for chart_id, mark in (("#curve-chart", "circle"), ("#candidates-chart", "g")):
        chart = port.query(chart_id)
        marks = [el for el in port.query_all("[tabindex]", chart)]
        assert len(marks) >= 2 and {el.tag for el in marks} == {mark}, chart_id
        assert tab_stops(port, chart) == [marks[0]]
        assert all(port.get_attr(m, "aria-label") for m in marks)
        port.focus(marks[0])
        press(port, "ArrowRight")
        assert port.focused is marks[1] and tab_stops(port, chart) == [marks[1]]
        press(port, "End")
        assert port.focused is marks[-1]


def test_compare_columns_and_charts_are_one_tab_stop_each():
    port, app = compared()
    for col in port.query_all("#cmp-columns .cmp-chips"):
        chips = port.query_all(".chip", col)
        assert len(chips) > 3 and tab_stops(port, col) == [chips[0]]
        assert port.get_attr(col, "role") == "listbox" and port.get_attr(col, "aria-label").startswith("Tokens of ")
        assert all(port.get_attr(c, "aria-label").startswith(f"{port.text(port.query('.chip-text', c))} "
                                                             f"{port.text(port.query('.chip-id', c))}: id ") for c in chips)
        port.focus(chips[0])
        press(port, "ArrowRight")
        press(port, "ArrowRight")
        assert port.focused is chips[2] and tab_stops(port, col) == [chips[2]]
    for chart_id in ("#cmp-parity", "#cmp-curve"):
        chart = port.query(chart_id)
        marks = port.query_all("[tabindex]", chart)
        assert len(marks) >= 2 and tab_stops(port, chart) == [marks[0]], chart_id
        port.focus(marks[0])
        press(port, "End")
        assert port.focused is marks[-1] and tab_stops(port, chart) == [marks[-1]]


def test_a_key_on_something_that_is_not_an_item_is_left_alone():
    port = FakePort.from_html('<div id="g"><input id="i"><span class="it" tabindex="0"></span>'
                              '<span class="it" tabindex="-1"></span></div>')
    RovingFocus(port, port.query("#g"), ".it")
    port.focus(port.query("#i"))
    ev = press(port, "ArrowRight")
    assert not ev.default_prevented and port.focused is port.query("#i")


def test_the_selected_tab_is_scrolled_into_view():
    """On a phone the tab bar scrolls sideways; Share, the last tab, must not stay off screen."""
    port, app = started("train")
    port.click(port.query("#tab-share"))
    assert port.scrolled_into_view[-1] is port.query("#tab-share")
    port.dispatch(port.query("#tab-share"), "keydown", key="Home")
    assert port.scrolled_into_view[-1] is port.query("#tab-corpus") and port.focused is port.query("#tab-corpus")
