"""The one registry of pipeline components, and how files dispatch on it.

A component class (normalizer, pre-tokenizer, model, decoder) registers itself with the
``@component(stage, tag)`` decorator and carries its own serialization next to its code:

- ``obj.dump() -> {field: value}``: its fields for our JSON, in output order;
- ``cls.load(fields, ctx) -> obj``: the inverse; ``fields`` is a ``jsonio.Fields`` reader
  (typed getters whose errors name the path), ``ctx.component(stage, value, path)``
  reads a nested component (a Sequence's members); a big model may also have
  ``cls.load_steps(fields, ctx)``, the same as a generator of ``(done, total)`` progress.

Our model file (``serialize.py``) writes ``{"type": tag, **obj.dump()}`` and reads by tag.
The Hugging Face converters dispatch on the same registry: ``hf_export.py`` registers a
writer per class (``@hf_writer(cls)``) and ``hf_import.py`` a reader per tokenizer.json
type (``@hf_reader(stage, "NFC", ...)``), so neither has an ``if type is X`` chain.

>>> from subwordlab.pipeline.normalizers import Lowercase
>>> dump_component("normalizer", Lowercase())
{'type': 'Lowercase'}
>>> type(LoadContext().component("normalizer", {"type": "Lowercase"}, "normalizer")).__name__
'Lowercase'
"""

from collections.abc import Callable
from typing import Any

from .events import drain
from .jsonio import Fields, ModelFileError

STAGES = ("normalizer", "pre_tokenizer", "model", "decoder")
_BY_TAG: dict[str, dict[str, type]] = {stage: {} for stage in STAGES}  # stage -> our tag -> class
_BY_CLASS: dict[str, dict[type, str]] = {stage: {} for stage in STAGES}  # stage -> class -> our tag
_HF_WRITERS: dict[type, Callable[..., Any]] = {}  # class -> write(exporter, obj, ...)
_HF_READERS: dict[str, dict[str, Callable[..., Any]]] = {stage: {} for stage in STAGES}  # stage -> HF type -> read


def component(stage, tag):
    """Class decorator: register ``cls`` as the ``stage`` component saved as ``{"type": tag}``.

    The class defines ``dump(self)`` and the classmethod ``load(cls, fields, ctx)``.
    """
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; one of {', '.join(STAGES)}")

    def decorate(cls):
        _BY_TAG[stage][tag] = cls
        _BY_CLASS[stage][cls] = tag
        return cls

    return decorate


def register(stage, tag, cls):
    """``component(stage, tag)(cls)`` for a class defined elsewhere (e.g. in a plug-in)."""
    return component(stage, tag)(cls)


def dump_component(stage, obj):
    """``{"type": tag, **obj.dump()}`` of a pipeline component; None for None."""
    if obj is None:
        return None
    # a subclass no one registered (models/rank_bpe.py's RankBPE) is saved as its base
    tag = next((_BY_CLASS[stage][c] for c in type(obj).__mro__ if c in _BY_CLASS[stage]), None)
    if tag is None:
        raise TypeError(f"the {stage} {type(obj).__name__} cannot be saved; register it with "
                        "@subwordlab.base.registry.component(stage, tag) and give it dump() and load()")
    return {"type": tag, **obj.dump()}


class LoadContext:
    """What a component's ``load`` gets to read nested components with."""

    def component(self, stage, value, path, nullable=True):
        """The component of ``stage`` stored as ``value`` (a dict with a "type"); None for null."""
        return drain(self.component_steps(stage, value, path, nullable))

    def component_steps(self, stage, value, path, nullable=True):
        """``component`` with its progress: a class with a ``load_steps(fields, ctx)``
        generator (a big model) yields ``(done, total)`` while it loads; returns the component."""
        if value is None and nullable:
            return None
        f = Fields(value, path)
        tag = f.get("type", "str")
        cls = _BY_TAG[stage].get(tag)
        if cls is None:
            known = ", ".join(sorted(_BY_TAG[stage]))
            raise ModelFileError(f"{path}.type: unknown {stage.replace('_', '-')} type {tag!r}; known types: {known}")
        load_steps = getattr(cls, "load_steps", None)
        try:
            obj = (yield from load_steps(f, self)) if load_steps is not None else cls.load(f, self)
        except ModelFileError:
            raise
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            raise ModelFileError(f"{path}: {exc}") from None
        f.done()
        return obj

    def components(self, stage, f, key):
        """The list of components under ``f[key]`` (a Sequence's members)."""
        return [self.component(stage, v, f"{f.path}.{key}[{i}]", nullable=False) for i, v in enumerate(f.get(key, "list"))]


# -- Hugging Face tokenizer.json: writers by class, readers by HF type ------------------

def hf_writer(*classes):
    """Decorator: ``write(exporter, obj)`` is how objects of ``classes`` go into a tokenizer.json."""

    def decorate(write):
        for cls in classes:
            _HF_WRITERS[cls] = write
        return write

    return decorate


def hf_reader(stage, *tags):
    """Decorator: ``read(importer, fields, path)`` builds the component a tokenizer.json
    ``{"type": tag}`` of ``stage`` stands for."""

    def decorate(read):
        for tag in tags:
            _HF_READERS[stage][tag] = read
        return read

    return decorate


def find_hf_writer(obj):
    """The writer registered for ``type(obj)`` (or its nearest registered base), or None."""
    return next((_HF_WRITERS[c] for c in type(obj).__mro__ if c in _HF_WRITERS), None)


def find_hf_reader(stage, tag):
    """The reader registered for a tokenizer.json type, or None."""
    return _HF_READERS[stage].get(tag)


def hf_reader_tags(stage):
    """The tokenizer.json types of ``stage`` that can be imported, in registration order."""
    return tuple(_HF_READERS[stage])
