"""Downloads and uploads of model files: names, contents, and import dispatch. No DOM.

Three downloads of the current tokenizer (``downloads(tok)``), each a ``Download(name,
text, mime)`` or the reason it does not exist:

- our JSON document (``tok.to_json()``: full spec, provenance, byte-identical re-save);
- a Hugging Face ``tokenizer.json`` (``subwordlab.formats.hf_json.export_hf``), or the core's
  message saying why this pipeline has no exact equivalent (e.g. BPE with ``</w>``);
- a human-readable vocabulary file: one row per id (token, bytes, the merge that made it)
  and, for BPE, the merges in rank order.

``import_model(name, data)`` reads an uploaded file: our document or a tokenizer.json,
told apart by their top-level keys. Anything else — not UTF-8, not JSON, too big, another
kind of JSON, a component we do not support — raises one ``ImportFailed`` whose message
names the file and the problem (the caller keeps its state untouched).

>>> import subwordlab
>>> tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6}, preset="bpe", num_merges=4)
>>> [d.name for d in downloads(tok).values() if d.available]
['subwordlab-bpe-13.json', 'subwordlab-bpe-13-vocab.txt']
>>> downloads(tok)["hf"].reason[:40]
'Hugging Face tokenizer.json is not avail'
>>> import_model("m.json", tok.to_json().encode()).tokenizer.tokenize("lowest")
['lo', 'we', 's', 't', '</w>']
"""

from __future__ import annotations

import hashlib
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

MAX_IMPORT_BYTES = 50 * 1024 * 1024  # the core's model-file limit (serialize.MAX_FILE_BYTES)
JSON_MIME = "application/json"
TEXT_MIME = "text/plain;charset=utf-8"


class ImportFailed(ValueError):
    """An uploaded model file cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Download:
    """One downloadable file, or why it does not exist (``available`` False, ``reason``)."""

    kind: str  # "ours" | "hf" | "vocab"
    label: str
    name: str = ""
    text: str = ""
    mime: str = TEXT_MIME
    reason: str = ""
    warnings: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return not self.reason

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))


def base_name(tok: Any) -> str:
    """Example: a bpe tokenizer with 13 tokens -> 'subwordlab-bpe-13'."""
    preset = str(tok.spec.get("preset") or tok.spec.get("source") or "tokenizer")
    preset = re.sub(r"[^A-Za-z0-9_-]+", "-", preset).strip("-")[:40] or "tokenizer"
    return f"subwordlab-{preset}-{tok.vocab_size}"


def our_json(tok: Any) -> Download:
    return Download("ours", "Subword Lab JSON", f"{base_name(tok)}.json", tok.to_json(), JSON_MIME)


def hf_json(tok: Any) -> Download:
    """tokenizer.json, or the core's reason why this tokenizer has no exact equivalent."""
    from subwordlab.formats.hf_json import HFExportError, export_hf

    label = "Hugging Face tokenizer.json"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = export_hf(tok)
    except HFExportError as exc:
        return Download("hf", label, reason=f"{label} is not available for this tokenizer: {exc}")
    return Download("hf", label, "tokenizer.json", result.text, JSON_MIME, warnings=tuple(result.warnings))


def vocab_text(tok: Any) -> str:
    """The human-readable vocabulary (and merges) file."""
    import subwordlab
    from subwordlab.formats.our_json import format_vocab_table, vocab_table

    spec = tok.spec
    corpus = spec.get("corpus") or {}
    rows = vocab_table(tok)
    lines = [
        f"# Subword Lab vocabulary: {spec.get('preset', 'imported')} tokenizer, {tok.vocab_size:,} tokens",
        f"# written by subwordlab {subwordlab.__version__}",
    ]
    if corpus.get("sha256"):
        lines.append(f"# trained on a corpus of {corpus.get('chars', 0):,} characters, SHA-256 {corpus['sha256']}")
    lines += ["# columns: id, token, the bytes it stands for, the merge that made it (#rank)", ""]
    lines.append(format_vocab_table(rows))
    merges = [r for r in rows if r["merge"] is not None]
    if merges:
        lines += ["", f"# merges in rank order ({len(merges):,}): rank, left + right -> new token"]
        for r in sorted(merges, key=lambda r: r["rank"]):
            lines.append(f"{r['rank']:>6}  {r['merge'][0]!r} + {r['merge'][1]!r} -> {r['token']!r}")
    return "\n".join(lines) + "\n"


def vocab_file(tok: Any) -> Download:
    return Download("vocab", "Vocabulary and merges (text)", f"{base_name(tok)}-vocab.txt", vocab_text(tok), TEXT_MIME)


def downloads(tok: Any) -> dict[str, Download]:
    """The three downloads, in the order the page shows them."""
    return {"ours": our_json(tok), "hf": hf_json(tok), "vocab": vocab_file(tok)}


# -- import ----------------------------------------------------------------------------------

@dataclass
class Imported:
    tokenizer: Any
    kind: str  # "ours" | "hf" | "tiktoken"
    name: str
    notes: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        """Example: 'Loaded tokenizer.json (Hugging Face, WordPiece, 1,000 tokens).' and the
        notes (what of the file was left out)."""
        what = {"ours": "Subword Lab JSON", "hf": "Hugging Face tokenizer.json",
                "tiktoken": f"tiktoken rank file, {self.tokenizer.spec.get('source', '')}"}[self.kind]
        model = getattr(self.tokenizer.model, "type", type(self.tokenizer.model).__name__)
        return " ".join([f"Loaded {self.name} ({what}, {model}, {self.tokenizer.vocab_size:,} tokens).", *self.notes])


def left_out_note(dropped: list[str]) -> str:
    """What the page says of the parts of a tokenizer.json it does not run (its post-processor,
    truncation, padding: subwordlab.formats.hf_import's ``spec["dropped"]``).

    >>> left_out_note(["post_processor (TemplateProcessing)"])[:52]
    'Left out: its post_processor (TemplateProcessing). I'
    """
    return (f"Left out: its {', '.join(dropped)}. Inspect and Compare show the text's own tokens, as HF's "
            "encode(text, add_special_tokens=False) gives them: no [CLS]/[SEP] or <s> added around the text, "
            "no truncation or padding (a download is this tokenizer, without them).")


def import_model(name: str, data: bytes | str) -> Imported:
    """A tokenizer from an uploaded file's bytes: our JSON, a HF tokenizer.json or a
    tiktoken rank file. Raises ``ImportFailed`` naming the file and the problem; nothing
    else escapes. (``import_steps`` is the same in slices.)
    """
    from subwordlab.base.events import drain

    return drain(import_steps(name, data))


def import_steps(name: str, data: bytes | str):
    """``import_model`` in slices: yields ``(done, total)`` now and then while a big
    tiktoken rank file loads (a few seconds for o200k_base), and returns the ``Imported``."""
    from subwordlab.formats.hf_json import from_hf_dict
    from subwordlab.formats.our_json import ModelFileError, from_dict, parse_json

    label = repr(name) if name else "the file"
    size = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
    if size == 0:
        raise ImportFailed(f"{label} is empty: choose a Subword Lab .json, a tokenizer.json or a .tiktoken file")
    if size > MAX_IMPORT_BYTES:
        raise ImportFailed(f"{label} is {size:,} bytes; model files up to {MAX_IMPORT_BYTES // 2**20} MB can be loaded")
    if looks_like_rank_file(data):
        return (yield from _import_rank_file(label, name, data))
    try:
        doc = parse_json(data, "file")
    except ModelFileError as exc:
        raise ImportFailed(f"{label} cannot be loaded: {exc}") from None
    if not isinstance(doc, dict):
        raise ImportFailed(f"{label} is JSON but not a model file (its top level is not an object)")
    try:
        if doc.get("format") == "subwordlab":
            tok, kind = from_dict(doc), "ours"
        elif "model" in doc and ("added_tokens" in doc or "normalizer" in doc or "pre_tokenizer" in doc):
            raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # (the document parsed above, not parsed again: from_hf_json's record of the file's SHA-256).
                # Most published tokenizer.json files add [CLS]/[SEP] or <s> around a text: that part
                # is left out, and said, rather than the whole file refused
                tok, kind = from_hf_dict(doc, hashlib.sha256(raw).hexdigest(), drop_post_processing=True), "hf"
        else:
            raise ImportFailed(f"{label} is JSON but neither a Subword Lab model (\"format\": \"subwordlab\") "
                               "nor a Hugging Face tokenizer.json (\"model\", \"added_tokens\", ...)")
    except ImportFailed:
        raise
    except (ModelFileError, ValueError, TypeError, KeyError) as exc:
        raise ImportFailed(f"{label} cannot be loaded: {exc}") from None
    except RecursionError:
        raise ImportFailed(f"{label} cannot be loaded: it is nested too deeply") from None
    dropped = tok.spec.get("dropped") if kind == "hf" else None
    return Imported(tok, kind, name or "the file", [left_out_note(dropped)] if dropped else [])


_RANK_LINE = re.compile(rb"[A-Za-z0-9+/]+={0,2} [0-9]+\r?\n")


def looks_like_rank_file(data: bytes | str) -> bool:
    """A tiktoken rank file starts with ``<base64 token> <rank>`` lines.

    >>> looks_like_rank_file(b"IQ== 0\\nIg== 1\\n"), looks_like_rank_file(b'{"model": 1}')
    (True, False)
    """
    head = (data.encode("utf-8", errors="replace") if isinstance(data, str) else bytes(data[:200]))[:200]
    return _RANK_LINE.match(head) is not None


def _import_rank_file(label: str, name: str, data: bytes | str):
    from subwordlab.formats.openai_files import iter_from_tiktoken
    from subwordlab.formats.our_json import ModelFileError

    try:
        tok = yield from iter_from_tiktoken(data)
    except ModelFileError as exc:
        if "not one of OpenAI's published files" in str(exc):
            raise ImportFailed(f"{label} is a tiktoken rank file but not one of OpenAI's (r50k_base, cl100k_base, "
                               "o200k_base), so its pre-tokenization pattern is unknown: import it with the command "
                               "line, 'subwordlab import --tiktoken FILE --pattern cl100k -o model.json', and load "
                               "the model.json here") from None
        raise ImportFailed(f"{label} cannot be loaded: {exc}") from None
    return Imported(tok, "tiktoken", name or "the file")
