"""Counting the tokens of many texts with many tokenizers in the compute session: Compare's
premium chart (the UDHR in up to 47 languages, the user's own texts) and Train's "Measure it
against real tokenizers". A column's texts take seconds with a big vocabulary (GPT-4o's on 47
languages): in the worker the page never waits for one of them.

What crosses is plain data: the request names each tokenizer's model file and says which
texts it counts; the files' texts and then the texts to count follow, joined into one string
(the lengths in the request cut it again). The worker reads each model file as the page
does (``exports.import_model``), once per worker (kept by its name and SHA-256).

    {"op": "count_tokens",                    --->  count_replies: each model read (or kept),
     "models": [{"name", "length", "texts"}],       its texts counted (stats.token_count)
     "lengths": [...], "names": [...]}               <---  {"column": i, "tokens": [...],
     + the model files' texts, then the texts              "unknown": [...], "errors": {...}}
                                                     <---  (or {"column": i, "problem": why})
                                                     <---  {"done": the number of models}

>>> request, text = count_request([("m.json", _tiny_model(), [0, 1])], ["low low", "lowest"])
>>> [r.get("tokens") for r in count_replies(json.loads(request), text, {})]
[[2, 5], None]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from .failures import failure_message
from .joined_texts import cut, joined

COUNT_OP = "count_tokens"
KEPT_MODELS = 8  # the models a worker keeps read (Compare's columns: a few trained, three well-known)


def count_request(models: list[tuple[str, bytes | str, list[int]]], texts: list[str],
                  names: list[str] | None = None) -> tuple[str, str]:
    """The request (JSON) and the joined text that count ``texts`` (called ``names`` in
    messages) with each model: ``(file name, the file's bytes or text, the indices of the
    texts it counts)``."""
    files = [data if isinstance(data, str) else data.decode("utf-8", "surrogatepass") for _, data, _ in models]
    sizes, text = joined(files + texts)
    request = {"op": COUNT_OP, "lengths": sizes[len(files):], "names": list(names or []),
               "models": [{"name": name, "length": n, "texts": list(todo)}
                          for (name, _, todo), n in zip(models, sizes)]}
    return json.dumps(request), text


def count_replies(request: dict[str, Any], text: str, kept: dict[tuple[str, str], Any]) -> Iterator[dict[str, Any]]:
    """The session's answer to a ``count_tokens`` request: a reply per model, then
    ``{"done": n}``. ``kept``: the models read before (the session's, by name and SHA-256),
    updated here."""
    from subwordlab.stats import token_count

    # step 1: cut the joined string back into the model files and the texts
    models, lengths = request.get("models"), request.get("lengths")
    if not isinstance(models, list) or not isinstance(lengths, list):
        raise ValueError("a token count request names its models and its texts' lengths: count again")
    parts = cut(text, [m.get("length") for m in models] + lengths,
                "the texts sent to count do not add up to their lengths: count again")
    files, texts = parts[: len(models)], parts[len(models):]
    names = request.get("names") or [f"text {k + 1}" for k in range(len(texts))]
    # step 2: each model read (or found read before), then its texts counted, a reply each
    for i, (model, data) in enumerate(zip(models, files)):
        try:
            tok = _read(str(model.get("name", "")), data, kept)
        except Exception as exc:  # noqa: BLE001 - any kind: the other columns are still counted
            yield {"column": i, "problem": failure_message(exc, "Reading the model")}
            continue
        reply: dict[str, Any] = {"column": i, "tokens": [], "unknown": [], "errors": {}}
        for k in model.get("texts", []):
            try:
                # (a text it cannot encode, e.g. characters it never saw and no unk token: None)
                stats = token_count(tok, texts[k])
            except Exception as exc:  # noqa: BLE001 - any kind: said for this text, the rest counted
                stats = {}
                reply["errors"][str(k)] = failure_message(exc, f"Counting the tokens of “{names[k]}”")
            reply["tokens"].append(stats.get("tokens"))
            reply["unknown"].append(stats.get("unknown_rate"))
        yield reply
    yield {"done": len(models)}


def _read(name: str, text: str, kept: dict[tuple[str, str], Any]) -> Any:
    """The tokenizer a model file holds, read once per worker (kept by name and SHA-256)."""
    from .exports import import_model

    key = (name, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    if key not in kept:
        if len(kept) >= KEPT_MODELS:
            kept.pop(next(iter(kept)))  # (the oldest first)
        kept[key] = import_model(name, text).tokenizer
    return kept[key]


def _tiny_model() -> str:
    """A small model of ours, for the example above."""
    import subwordlab

    return subwordlab.to_json(subwordlab.train("low low lower lowest", preset="bpe", num_merges=3))
