"""The core's public API is annotated in full (issue 32): every function the package hands
on (``subwordlab.__all__``), every public method and property of its classes, and the
helpers the README names. mypy checks the bodies of annotated functions (the lint tier),
so an annotation here is also a checked one."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import subwordlab
from subwordlab import stats

README_NAMED = {"stats.compare_texts": stats.compare_texts, "stats.compare_corpus": stats.compare_corpus,
                "stats.shannon_efficiency": stats.shannon_efficiency, "stats.renyi_efficiency": stats.renyi_efficiency}


def public_callables() -> Iterator[tuple[str, Callable[..., Any]]]:
    for name in subwordlab.__all__:
        obj = getattr(subwordlab, name)
        if inspect.isclass(obj):
            for member, value in vars(obj).items():
                if member.startswith("_") and member != "__init__":
                    continue
                if isinstance(value, (classmethod, staticmethod)):
                    value = value.__func__
                if isinstance(value, property) and value.fget is not None:
                    value = value.fget
                if inspect.isfunction(value) and value.__qualname__.startswith(obj.__name__):
                    yield f"{name}.{member}", value
        elif inspect.isfunction(obj):
            yield name, obj
    yield from README_NAMED.items()


def unannotated(fn: Callable[..., Any]) -> list[str]:
    sig = inspect.signature(fn)
    missing = [p for p, v in sig.parameters.items()
               if v.annotation is inspect.Parameter.empty and p not in ("self", "cls")]
    if sig.return_annotation is inspect.Signature.empty and fn.__name__ != "__init__":
        missing.append("return")
    return missing


def test_the_public_api_is_found():
    names = dict(public_callables())
    assert {"train", "iter_train", "save", "load", "to_json", "from_hf_json", "read_model",
            "Tokenizer.encode", "Tokenizer.decode", "Encoding.__init__"} <= set(names)


@pytest.mark.parametrize("name, fn", list(public_callables()), ids=lambda x: x if isinstance(x, str) else "")
def test_every_public_function_is_annotated(name, fn):
    assert unannotated(fn) == [], f"{name} lacks annotations for {unannotated(fn)}"


def test_the_check_sees_a_missing_annotation():
    def plain(a, b: int = 1):
        return a

    assert unannotated(plain) == ["a", "return"]
