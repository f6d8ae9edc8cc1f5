"""Downloads and uploads of model files: names, contents, and import dispatch. No DOM.

Three downloads of the current tokenizer (``downloads(tok)``), each a ``Download(name,
text, mime)`` or the reason it does not exist:

- our JSON document (``subwordlab.to_json(tok)``: full spec, provenance, byte-identical re-save);
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
>>> import_model("m.json", subwordlab.to_json(tok).encode()).tokenizer.tokenize("lowest")
['lo', 'we', 's', 't', '</w>']
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import subwordlab
from subwordlab.base.events import drain
from subwordlab.base.jsonio import ModelFileError
from subwordlab.formats.detect import looks_like_rank_file, read_model_steps

__all__ = ["looks_like_rank_file"]  # (the files panel asks it before a load: a big rank file shows progress)

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
    return Download("ours", "Subword Lab JSON", f"{base_name(tok)}.json", subwordlab.to_json(tok), JSON_MIME)


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


def import_model(name: str, data: bytes | str, sha256: str | None = None) -> Imported:
    """A tokenizer from an uploaded file's bytes: our JSON, a HF tokenizer.json or a
    tiktoken rank file (``subwordlab.formats.detect`` tells which). Raises ``ImportFailed``
    naming the file and the problem; nothing else escapes. (``import_steps`` is the same in
    slices; ``sha256``: the file's, when the caller hashed it already.)
    """
    return drain(import_steps(name, data, sha256))


def import_steps(name: str, data: bytes | str, sha256: str | None = None) -> Generator[tuple[int, int], None, Imported]:
    """``import_model`` in slices: yields ``(done, total)`` now and then while a big
    tiktoken rank file loads (a few seconds for o200k_base), and returns the ``Imported``."""
    label = repr(name) if name else "the file"
    size = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
    if size > MAX_IMPORT_BYTES:
        raise ImportFailed(f"{label} is {size:,} bytes; model files up to {MAX_IMPORT_BYTES // 2**20} MB can be loaded")
    try:
        # (most published tokenizer.json files add [CLS]/[SEP] or <s> around a text: that
        # part is left out, and said, rather than the whole file refused)
        loaded = yield from read_model_steps(data, label, drop_post_processing=True, sha256=sha256)
    except ModelFileError as exc:
        if "not one of OpenAI's published files" in str(exc):
            raise ImportFailed(f"{label} is a tiktoken rank file but not one of OpenAI's (r50k_base, cl100k_base, "
                               "o200k_base), so its pre-tokenization pattern is unknown: import it with the command "
                               "line, 'subwordlab import FILE --pattern cl100k -o model.json', and load the "
                               "model.json here") from None
        raise ImportFailed(str(exc)) from None
    tok = loaded.tokenizer
    dropped = tok.spec.get("dropped") if loaded.kind == "hf" else None
    return Imported(tok, loaded.kind, name or "the file", [left_out_note(dropped)] if dropped else [])
