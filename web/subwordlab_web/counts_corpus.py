"""A counts file (``subwordlab count -o counts.json``) as the page's corpus. No DOM.

A corpus counted on the command line (gigabytes, many machines) is a JSON file of its
pre-tokens and their counts, with the pipeline that cut them (subwordlab/counts.py). The
page recognises one by its content (a JSON object whose ``format`` is
``"subwordlab-counts"``), whatever its name, and trains from it exactly as ``subwordlab
train --counts`` does: the core reads it as a ``corpus.Counted`` and refuses it, saying
why, under a pipeline it was not counted with (``mismatch`` says so before training).

>>> from subwordlab.counts import count_texts, to_json
>>> from subwordlab.text.corpus import Counted
>>> from subwordlab.presets import counting_spec, pipeline_record
>>> spec = counting_spec("byte_bpe", {})
>>> text = to_json(Counted(count_texts([" low low er"], spec)[0], pipeline_record(spec), []))
>>> is_counts_file(text), is_counts_file("low 5\\nlower 2")
(True, False)
>>> readable_words(read_counts(text))
{' low': 2, ' er': 1}
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import islice
from typing import Any

from subwordlab.text.corpus import Counted

COUNTS_TAG = re.compile(r'"format"\s*:\s*"subwordlab-counts"')
_METASPACE = ("Metaspace", "MetaspaceWithSymbols", "WhitespaceMetaspace")


def is_counts_file(text: str) -> bool:
    """Is this uploaded text a counts file? By its content, not its name: a JSON object
    that carries the counts format tag (anywhere: a tool may re-save it with sorted keys).
    A JSON corpus without the tag (code, a dataset) stays running text."""
    return text[:64].lstrip()[:1] == "{" and COUNTS_TAG.search(text) is not None


@lru_cache(maxsize=1)
def _parsed(text: str) -> Counted:
    from subwordlab.counts import from_json

    return from_json(text)


def read_counts(text: str) -> Counted:
    """The ``Counted`` of a counts file's text, parsed once (in time linear in its size) and
    handed out as a fresh copy each time (training may not change the page's copy). Raises
    ``subwordlab.counts.CountsFileError`` naming the field that is wrong and what to do.

    Example: read_counts(open("counts.json").read()).distinct -> 12345."""
    c = _parsed(text)
    return Counted(dict(c.counts), c.pipeline, list(c.inputs), c.unmatched)


def readable_words(counted: Counted) -> dict[str, int]:
    """The pre-tokens as a person reads them, with their counts (for the statistics and
    the words the Train tab segments): byte-level ones ("Ġthe") as their text (" the"), a
    SentencePiece-style "▁" as a space; pre-tokens that read alike are added together.

    Example: {'▁the': 3, 'the': 1} counted for sentencepiece_bpe -> {'the': 4}."""
    kind = (counted.pipeline.get("pre_tokenizer") or {}).get("type")
    if kind == "ByteLevel":
        from subwordlab.text.bytes_map import CHAR_TO_BYTE

        def read(w: str) -> str:
            return bytes(CHAR_TO_BYTE.get(ch, 63) for ch in w).decode("utf-8", "replace")
    elif kind in _METASPACE:
        def read(w: str) -> str:
            return w.replace("\u2581", " ").strip() or w
    else:
        return dict(counted.counts)
    out: dict[str, int] = {}
    for w, n in counted.counts.items():
        r = read(w)
        out[r] = out.get(r, 0) + n
    return out


def describe(counted: Counted) -> str:
    """What the counts are, in a phrase. Example: '12,345 distinct pre-tokens (1,234,567 in
    all) from 2 inputs, counted for Byte-level BPE'."""
    from .wording import PRESET_SHORT, plural

    preset = counted.pipeline.get("preset", "?")
    n = len(counted.inputs)
    source = f" from {plural(n, 'input')}" if n else ""
    return (f"{plural(counted.distinct, 'distinct pre-token')} ({sum(counted.counts.values()):,} in all){source}, "
            f"counted for {PRESET_SHORT.get(preset, preset)}")


def mismatch(counted: Counted, spec: Any) -> str:
    """One sentence for the Corpus panel when the Train tab's algorithm and options (a
    ``state.TrainSpec``) cut text into other pre-tokens than these counts were made with,
    saying what to do; "" when they match (training then reads them as the command line).

    Example: counts of byte_bpe, spec bpe -> 'These counts were made for Byte-level BPE ...'."""
    from subwordlab.presets import pipeline_difference, resolve_options

    from .wording import PRESET_SHORT

    options = dict(spec.kwargs())
    try:
        full = resolve_options(spec.preset, options.pop("vocab_size", None), options.pop("num_merges", None), options)
    except ValueError:
        return ""  # (the Train tab says what is wrong with its own settings)
    why = pipeline_difference(counted.pipeline, full)
    if why is None:
        return ""
    made = counted.pipeline.get("preset", "?")
    title = PRESET_SHORT.get(made, made)
    return (f"These counts were made for {title}, and the Train tab's {spec.schema.short} with its options cuts text "
            f"another way ({why}), so they cannot train it: choose {title} on the Train tab with the options they were "
            f"counted with, or count your text again with “subwordlab count --preset {spec.preset}” and this tab's options.")


def first_words(text: str, n: int = 12) -> str:
    """The counts file's first ``n`` pre-tokens read as text (``readable_words``; white space
    alone left out), joined by spaces: a default sentence to compare tokenizers on; "" if the file cannot be read.
    Example: counts of 'low lower low' -> 'low lower'."""
    from subwordlab.text.corpus import CorpusError

    try:
        words = readable_words(read_counts(text))
    except CorpusError:
        return ""
    return " ".join(islice(filter(None, (" ".join(w.split()) for w in words)), n))
