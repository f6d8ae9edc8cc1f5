"""Our own model document: one versioned JSON file that reproduces a tokenizer exactly.

>>> import subwordlab
>>> tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> text = to_json(tok)
>>> text.splitlines()[:3]
['{', '  "format": "subwordlab",', '  "version": 1,']
>>> again = from_json(text)
>>> again.tokenize("lowest"), to_json(again) == text
(['low', 'est</w>'], True)

The document (``version`` 1)::

    {
      "format": "subwordlab",          always this string
      "version": 1,                    the format version (a newer one is refused)
      "core_version": "0.1.0",         the subwordlab that wrote it
      "spec": {...},                   the full training spec: preset, every option and,
                                       under "corpus", the corpus's kind, SHA-256, chars, bytes
      "special_tokens": {"type": "SpecialTokens", "policy": "tiktoken", "tokens": [{"content", "id"}]},
      "added_tokens": null | {"type": "AddedTokens", "tokens": [...]},   (imported tokenizer.json only)
      "normalizer": null | {"type": ...},
      "pre_tokenizer": null | {"type": ...},
      "decoder": null | {"type": ...},
      "model": {"type": "BPE", <small fields>, "vocab": [...], "merges": [[left, right], ...]}
    }

Every component carries a ``"type"`` tag; loading dispatches on it. Writing is canonical:
a fixed key order (small fields first, the vocabulary and merges last, merges in rank
order), ``spec`` keys sorted, UTF-8 text (``ensure_ascii=False``), fixed indentation and
separators, floats (Unigram scores) as Python's shortest round-trip ``repr`` — the same
digits in CPython and Pyodide. So ``to_json(from_json(s)) == s`` byte for byte, and the
same spec and corpus give the same document in every runtime.

Loading never trusts the file: the size is checked before parsing (``MAX_FILE_BYTES``),
so is the nesting depth, and every field is checked; any problem raises one
``ModelFileError`` naming the field, and nothing is half-loaded (the tokenizer is built
only when everything is valid).

Each component serializes itself (``registry.py``): its class is registered with
``@component(stage, tag)`` and has ``dump() -> dict of fields`` (in output order) and
the classmethod ``load(fields, ctx) -> obj``, where ``fields`` is a ``jsonio.Fields``
reader that checks types and names the path. Reading JSON safely and the canonical
layout are ``jsonio.py``'s; this module is the document around the components.
"""

import os
from collections.abc import Generator
from typing import Any

from ..base.events import drain
from ..base.jsonio import (  # noqa: F401
    MAX_DEPTH,
    MAX_FILE_BYTES,
    Fields,
    ModelFileError,
    check_size_and_depth,
    emit,
    parse_json,
    short,
    write_atomic,
)
from ..base.registry import LoadContext, dump_component, register  # noqa: F401
from ..models import bpe, hf_bpe, hf_unigram, unigram, wordpiece  # noqa: F401

# the component modules register their classes (registry.py) when imported
from ..pipeline import decoders, normalizers, pre_tokenizers  # noqa: F401
from ..pipeline.added_vocab import AddedToken, AddedVocabulary
from ..tokenizer import Tokenizer
from ..version import __version__

FORMAT = "subwordlab"
VERSION = 1


# -- the document -----------------------------------------------------------------------

def to_dict(tok: Tokenizer) -> dict[str, Any]:
    """The document as a dict, keys in output order."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "core_version": __version__,
        "spec": _sorted(tok.spec),
        "special_tokens": {"type": "SpecialTokens", "policy": "tiktoken",
                           "tokens": [{"content": t, "id": i} for t, i in sorted(tok.special_tokens.items(), key=lambda kv: kv[1])]},
        "added_tokens": _dump_added(getattr(tok, "added_vocab", None)),
        "normalizer": dump_component("normalizer", tok.normalizer),
        "pre_tokenizer": dump_component("pre_tokenizer", tok.pre_tokenizer),
        "decoder": dump_component("decoder", tok.decoder),
        "model": dump_component("model", tok.model),
    }
    return doc


def _sorted(value):
    """Spec values with dict keys sorted at every level, tuples as lists."""
    if isinstance(value, dict):
        return {str(k): _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [_sorted(v) for v in value]
    return value


def _dump_added(added):
    if added is None:
        return None
    return {"type": "AddedTokens", "tokens": [
        {"content": t.content, "id": t.id, "special": t.special, "normalized": t.normalized,
         "lstrip": t.lstrip, "rstrip": t.rstrip, "single_word": t.single_word} for t in added.tokens]}


def to_json(tok: Tokenizer) -> str:
    """The canonical JSON text of a tokenizer (see the module docstring)."""
    return emit(to_dict(tok), 0) + "\n"


def from_dict(doc: Any) -> Tokenizer:
    """A Tokenizer from a parsed document (see ``from_json``)."""
    return drain(from_dict_steps(doc))


def from_dict_steps(doc: Any) -> Generator[tuple[int, int], None, Tokenizer]:
    """``from_dict`` with its progress: yields ``(done, total)`` while a big model loads
    (e.g. a Unigram's pieces: tens of ms in a browser), then returns the Tokenizer."""
    top = Fields(doc, "document")
    fmt = top.raw("format", None)
    if fmt != FORMAT:
        if isinstance(doc, dict) and "model" in doc and "added_tokens" in doc and "format" not in doc:
            raise ModelFileError("this looks like a Hugging Face tokenizer.json; load it with subwordlab.from_hf_json()")
        raise ModelFileError(f"document.format: expected {FORMAT!r}, got {short(fmt) or fmt!r}; this is not a Subword Lab model file")
    version = top.get("version", "int")
    if version != VERSION:
        newer = " (written by a newer subwordlab: upgrade to load it)" if version > VERSION else ""
        raise ModelFileError(f"document.version: version {version} is not supported{newer}; this subwordlab reads version {VERSION}")
    top.get("core_version", "str")
    spec = top.get("spec", "dict")
    yield 0, 1  # (the document was parsed just before: a page may paint)
    ctx = LoadContext()
    normalizer = ctx.component("normalizer", top.raw("normalizer"), "normalizer")
    pre_tokenizer = ctx.component("pre_tokenizer", top.raw("pre_tokenizer"), "pre_tokenizer")
    decoder = ctx.component("decoder", top.raw("decoder"), "decoder")
    model = yield from ctx.component_steps("model", top.raw("model"), "model", nullable=False)
    specials = _load_specials(top.raw("special_tokens"), model)
    added = _load_added(top.raw("added_tokens", None), model)
    top.done()
    try:
        tok = Tokenizer(model, normalizer, pre_tokenizer, decoder, specials, spec, **({"added_vocab": added} if added else {}))
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"document: {exc}") from None
    return tok


def _load_specials(value, model):
    f = Fields(value, "special_tokens")
    if f.get("type", "str") != "SpecialTokens":
        raise f.error("type", f"expected 'SpecialTokens', got {f.obj['type']!r}")
    if f.get("policy", "str") != "tiktoken":
        raise f.error("policy", f"unknown policy {f.obj['policy']!r}; known: 'tiktoken'")
    out, ids = {}, set()
    for i, entry in enumerate(f.get("tokens", "list")):
        e = Fields(entry, f"special_tokens.tokens[{i}]")
        content, tid = e.get("content", "str"), e.get("id", "nat")
        e.done()
        if not content:
            raise e.error("content", "a special token cannot be empty")
        if tid >= len(model.vocab) or model.vocab[tid] != content:
            raise e.error("id", f"{content!r} is not in the vocabulary at id {tid}")
        if content in out or tid in ids:
            raise e.error("", f"{content!r} (id {tid}) is listed twice")
        out[content] = tid
        ids.add(tid)
    f.done()
    return out


def _load_added(value, model):
    if value is None:
        return None
    f = Fields(value, "added_tokens")
    if f.get("type", "str") != "AddedTokens":
        raise f.error("type", f"expected 'AddedTokens', got {f.obj['type']!r}")
    tokens = []
    for i, entry in enumerate(f.get("tokens", "list")):
        e = Fields(entry, f"added_tokens.tokens[{i}]")
        t = AddedToken(e.get("content", "str"), e.get("id", "nat"), e.get("special", "bool"), e.get("normalized", "bool"),
                       e.get("lstrip", "bool"), e.get("rstrip", "bool"), e.get("single_word", "bool"))
        e.done()
        if not t.content:
            raise e.error("content", "an added token cannot be empty")
        if t.id >= len(model.vocab) or model.vocab[t.id] != t.content:
            raise e.error("id", f"{t.content!r} is not in the vocabulary at id {t.id}")
        tokens.append(t)
    f.done()
    return AddedVocabulary(tokens)


def from_json(text: str | bytes) -> Tokenizer:
    """A Tokenizer from our JSON document (str or bytes). Raises ``ModelFileError``."""
    return from_dict(parse_json(text))


def save(tok: Tokenizer, path: str | os.PathLike[str]) -> None:
    """Write ``to_json(tok)`` to ``path`` atomically (a temporary file, then a rename)."""
    write_atomic(path, to_json(tok))


def load(path: str | os.PathLike[str]) -> Tokenizer:
    """A Tokenizer from a file written by ``save`` (size checked before reading it all)."""
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise ModelFileError(f"the model file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,} bytes ({MAX_FILE_BYTES // 2**20} MB)")
    with open(path, "rb") as fh:
        return from_json(fh.read())


# -- the human-readable vocabulary view (display only) ----------------------------------

def vocab_table(tok):
    """One row per id: ``{"id", "token", "bytes", "merge", "rank", "special"}``.

    ``bytes``: what the token stands for (``tok.token_bytes``); ``merge``: for BPE, the
    two tokens whose merge made it (the first merge that did) and its ``rank``, else None.
    Example (seed 000 after 8 merges): the row of 'est</w>' has merge ('est', '</w>'), rank 2.
    """
    model, rows = tok.model, []
    made = {}
    ranks = getattr(model, "ranks", None)
    if ranks is not None:
        for (a, b), (rank, new) in sorted(ranks.items(), key=lambda kv: kv[1][0]):
            made.setdefault(new, (model.vocab[a], model.vocab[b], rank))
    special = set(tok.special_tokens.values())
    for i, token in enumerate(model.vocab):
        try:
            data = tok.token_bytes(i)
        except ValueError:
            data = token.encode("utf-8")
        m = made.get(i)
        rows.append({"id": i, "token": token, "bytes": data, "merge": (m[0], m[1]) if m else None,
                     "rank": m[2] if m else None, "special": i in special})
    return rows


def format_vocab_table(rows, limit=None):
    """The rows of ``vocab_table`` as aligned text:

        id  token      bytes           merge (rank)
         7  'est</w>'  b'est '         'est' + '</w>' (#2)
    """
    rows = rows if limit is None else rows[:limit]
    cells = [("id", "token", "bytes", "merge (rank)")]
    for r in rows:
        merge = f"{r['merge'][0]!r} + {r['merge'][1]!r} (#{r['rank']})" if r["merge"] else ("special" if r["special"] else "")
        cells.append((str(r["id"]), repr(r["token"]), repr(r["bytes"]), merge))
    widths = [max(len(c[k]) for c in cells) for k in range(4)]
    return "\n".join(f"{c[0]:>{widths[0]}}  {c[1]:<{widths[1]}}  {c[2]:<{widths[2]}}  {c[3]}".rstrip() for c in cells)

