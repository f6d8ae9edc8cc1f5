"""Element specs for the port's one-call builder (`port.build`, `port.build_into`).

A spec is plain data: `[tag, attributes or None, *children]`, children being specs or
strings (text nodes, never markup). Building a table of a hundred rows this way costs one
call into the browser instead of a thousand.

>>> el("td", "num", "42")
['td', {'class': 'num'}, '42']
>>> el("span", "chip", "low", {"data-color": 3, "title": "id 5"})
['span', {'class': 'chip', 'data-color': '3', 'title': 'id 5'}, 'low']
>>> svg("rect", "bar", x=1.5, y=2)
['svg:rect', {'class': 'bar', 'x': '1.5', 'y': '2'}]
"""

from __future__ import annotations

from typing import Any


def el(tag: str, cls: str | None = None, text: str | None = None, attrs: dict[str, Any] | None = None,
       children: list[Any] | None = None) -> list[Any]:
    """An HTML element spec with an optional class, text and attributes."""
    a: dict[str, str] = {"class": cls} if cls else {}
    if attrs:
        a.update({k: str(v) for k, v in attrs.items() if v is not None})
    spec: list[Any] = [tag, a or None]
    if text is not None:
        spec.append(str(text))
    if children:
        spec.extend(children)
    return spec


def svg(tag: str, cls: str | None = None, *children: Any, **attrs: Any) -> list[Any]:
    """An SVG element spec; keyword attributes with `_` for `-` (text_anchor -> text-anchor)."""
    a: dict[str, str] = {"class": cls} if cls else {}
    a.update({k.replace("_", "-"): (f"{v:.1f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v))
              for k, v in attrs.items() if v is not None})
    return [f"svg:{tag}", a or None, *children]
