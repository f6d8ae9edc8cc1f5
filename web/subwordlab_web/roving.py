"""One Tab stop per group, arrow keys inside it (the "roving tabindex" pattern).

A group — the token chips of a text, the dots of a curve, the bars of a chart — is reached
with a single Tab; inside it ←/→ (and ↑/↓) move to the previous/next item and Home/End to
the first/last. Exactly one item of the group has `tabindex="0"` (the first, until another
one is focused); all the others have `tabindex="-1"`, so Tab leaves the group instead of
walking through a thousand chips. Every item keeps its own `aria-label` (id, offsets,
count), which is what a screen reader reads as focus moves.

Renderers give item `i` the attribute `tabindex=roving_tabindex(i)`; the panel wires the
group's container once with `RovingFocus(port, container, ".chip")` (the listeners sit
on the container, so redrawing the items does not need new ones).

>>> roving_tabindex(0), roving_tabindex(5)
(0, -1)
>>> [next_index(k, 3, 10) for k in ("ArrowRight", "ArrowLeft", "Home", "End", "a")]
[4, 2, 0, 9, None]
>>> next_index("ArrowLeft", 0, 10), next_index("ArrowRight", 9, 10)  # the ends stay put
(0, 9)
"""

from __future__ import annotations

from typing import Any

# key -> how it moves: +1 / -1 one item, "first" / "last" to an end
MOVES: dict[str, int | str] = {
    "ArrowRight": 1, "ArrowDown": 1, "ArrowLeft": -1, "ArrowUp": -1, "Home": "first", "End": "last",
}


def hand_focus(port: Any, leaving: Any, to: Any) -> bool:
    """Call just before `leaving` is disabled or hidden: if the keyboard focus is on it (or
    inside it), move it to `to` first; True if it moved. A browser drops the focus of a
    control that becomes disabled or hidden to <body>, where the next Tab starts again at
    the top of the page. Example: Compare's "Train and compare" is disabled while its run
    trains, so `hand_focus(port, run_button, cancel_button)` first; when the run ends,
    `hand_focus(port, cancel_button, run_button)` before Cancel is hidden."""
    if port.contains_focus(leaving):
        port.focus(to)
        return True
    return False


def roving_tabindex(i: int) -> int:
    """The tabindex item `i` of a freshly drawn group starts with: 0 for the first, -1 after."""
    return 0 if i == 0 else -1


def next_index(key: str, current: int, count: int) -> int | None:
    """Where `key` moves focus from item `current` of `count`; None for a key that does
    not move (it is left to the browser). Moves stop at the ends (no wrapping)."""
    move = MOVES.get(key)
    if move is None or count <= 0:
        return None
    if move == "first":
        return 0
    if move == "last":
        return count - 1
    return min(count - 1, max(0, current + int(move)))


class RovingFocus:
    """Keyboard focus for the items matching `item_selector` inside `container`.

    Example: RovingFocus(port, port.query("#inspect-chips"), ".chip"); pressing → on a
    focused chip focuses the next chip and makes it the group's Tab stop.
    """

    def __init__(self, port: Any, container: Any, item_selector: str) -> None:
        self.port, self.container, self.selector = port, container, item_selector
        port.on(container, "keydown", self._on_key)
        port.on(container, "focusin", self._on_focus)

    def items(self) -> list[Any]:
        return self.port.query_all(self.selector, self.container)

    def _item(self, event: Any) -> Any:
        return self.port.closest(self.port.event_target(event), self.selector)

    def _on_key(self, event: Any) -> None:
        port = self.port
        key = port.key(event)
        if key not in MOVES:
            return
        item = self._item(event)
        if item is None:  # e.g. a key pressed on a control inside the container
            return
        items = self.items()
        # step 1: where the focused item is in the group (identity, not equality of content)
        current = next((i for i, x in enumerate(items) if x == item), None)
        if current is None:
            return
        # step 2: where the key sends focus; the page must not scroll for these keys
        target = next_index(key, current, len(items))
        port.prevent_default(event)
        if target is None or target == current:
            return
        # step 3: the target becomes the group's one Tab stop, then takes focus
        self._make_current(items[target], items[current])
        port.focus(items[target])

    def _on_focus(self, event: Any) -> None:
        """A click (or script) focused an item: it becomes the Tab stop, so Tab back into
        the group returns to it."""
        item = self._item(event)
        if item is None or self.port.get_attr(item, "tabindex") == "0":
            return
        # subtle: one query for the old Tab stop, not a get_attr per item (thousands of chips)
        self._make_current(item, *self.port.query_all(f'{self.selector}[tabindex="0"]', self.container))

    def _make_current(self, item: Any, *others: Any) -> None:
        for other in others:
            if other != item:
                self.port.set_attr(other, "tabindex", "-1")
        self.port.set_attr(item, "tabindex", "0")
