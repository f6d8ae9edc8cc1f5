"""The options form: one field per preset option, built from the core's schema
(``subwordlab.options``) and read back through it. Train and Compare both use it.

How a field edits an option follows its kind: a checkbox (bool), a select (choice), a
number field (int, float) or a text field (text; list: items separated by white space, the
one list syntax of the command line and the page). An empty text field of an option that
may be none (``end_of_word``, ``unk_token``) means none.

>>> from subwordlab.options import PRESETS
>>> top_k = PRESETS["bpe"].option("top_k")
>>> field_kind(top_k), parse_field(top_k, " 12 ")
('int', 12)
>>> changed_options("bpe", {"top_k": 10, "special_tokens": [], "end_of_word": "_"})
{'end_of_word': '_'}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from subwordlab.options import PRESETS, Option, Preset, preset_of

_FIELD_KINDS = {"bool": "check", "choice": "choice", "int": "int", "float": "float", "list": "list", "text": "text"}


def schema(preset: str | Preset) -> Preset:
    """The preset's schema, from its name or itself. Example: schema('bpe').family -> 'bpe'."""
    return preset if isinstance(preset, Preset) else preset_of(preset)


def field_kind(option: Option) -> str:
    """How an option is edited: 'check', 'choice', 'int', 'float', 'list' or 'text'."""
    return _FIELD_KINDS[option.kind]


def value_text(value: Any) -> str:
    """A value as its field shows it. Example: ('<s>', '</s>') -> '<s> </s>'; None -> ''."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return str(value)


def parse_field(option: Option, raw: Any) -> Any:
    """A field's value (text, or a checkbox's bool) as the core wants it, checked against
    the option's range; ValueError (``OptionError``) naming the option and what it takes."""
    return option.parse(raw)


def changed_options(preset: str | Preset, values: dict[str, Any]) -> dict[str, Any]:
    """Only the options that differ from the core's defaults (lists compared as lists)."""
    p = schema(preset)
    out = {}
    for name, value in values.items():
        default = p.option(name).default
        same = (list(value) == list(default)) if isinstance(default, (list, tuple)) and isinstance(value, list) \
            else value == default
        if not same:
            out[name] = value
    return out


def preset_items(label: Callable[[Preset], str]) -> list[tuple[str, str]]:
    """(name, label) of every preset, for a select. Example: preset_items(lambda p: p.short)[0] -> ('bpe', 'BPE')."""
    return [(p.name, label(p)) for p in PRESETS.values()]


def option_field(port: Any, option: Option, value: Any, field_id: str) -> Any:
    """The field that edits ``option`` (showing ``value``), with id ``field_id``; the caller
    puts it in its own row and listens to its ``change``."""
    kind = field_kind(option)
    if kind == "check":
        field = port.create("input", "check")
        port.set_attr(field, "type", "checkbox")
        port.set_checked(field, bool(value))
    elif kind == "choice":
        field = port.create("select", "select select-small")
        for choice in option.choices:
            item = port.create("option", text=choice)
            port.set_attr(item, "value", choice)
            port.append(field, item)
        port.set_value(field, str(value))
    else:
        field = port.create("input", "text-field")
        port.set_attr(field, "type", "number" if kind in ("int", "float") else "text")
        if kind == "float":
            port.set_attr(field, "step", "any")
        if kind in ("list", "text"):
            port.set_attr(field, "spellcheck", "false")
        port.set_attr(field, "placeholder", "none" if option.nullable else "")
        port.set_value(field, value_text(value))
    port.set_attr(field, "id", field_id)
    port.set_attr(field, "name", option.name)
    port.set_attr(field, "data-kind", kind)
    return field


def read_field(port: Any, option: Option, field: Any) -> Any:
    """The value a field holds, parsed and checked (ValueError with what to type)."""
    return parse_field(option, port.checked(field) if field_kind(option) == "check" else port.value(field))
