"""OpenAI's real vocabularies (GPT-2's r50k_base, cl100k_base, o200k_base) through our
tiktoken loader and byte-level encoder, against tiktoken itself with the same files.

The files come from npm (js-tiktoken), rewritten byte for byte into OpenAI's format: their
SHA-256 is the one tiktoken pins (build/reference_vocabs.py), so ``tiktoken.get_encoding``
loads them from its cache as if downloaded. Seed 001's printed results are checked here.
"""

import importlib.util
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from corpora import ROOT, UDHR, read

pytestmark = pytest.mark.cpython_only

PATTERNS = {"r50k_base": "gpt2", "cl100k_base": "cl100k", "o200k_base": "o200k"}


def _load_builder():
    spec = importlib.util.spec_from_file_location("reference_vocabs", ROOT / "build" / "reference_vocabs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def vocabs():
    """name -> (our Tokenizer, tiktoken's Encoding), both from the same published file."""
    folder = _load_builder().ensure()
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)  # tiktoken reads its "download" from here
    import tiktoken

    out = {}
    for name, pattern in PATTERNS.items():
        meta = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        ours = subwordlab.from_tiktoken((folder / f"{name}.tiktoken").read_text(encoding="ascii"),
                                                  pattern=pattern, special_tokens=meta["special_tokens"])
        out[name] = ours, tiktoken.get_encoding(name)
    return out


def test_seed_001_gpt2_has_50257_tokens_256_bytes_50000_merges_1_special(vocabs):
    ours, theirs = vocabs["r50k_base"]
    assert ours.vocab_size == theirs.n_vocab == 50_257
    # 50,000 tokens made by merges (a rank file lists tokens, not merges: our loader, like
    # HF's converters, derives every split of a token into two tokens as a merge)
    assert sum(len(ours.token_bytes(i)) > 1 for i in range(50_256)) == 50_000
    assert sorted(ours.token_bytes(i) for i in range(256)) == [bytes([b]) for b in range(256)]
    assert ours.special_tokens == {"<|endoftext|>": 50_256}


def test_seed_001_o200k_examples(vocabs):
    ours, theirs = vocabs["o200k_base"]
    # "print(len(enc.encode('Hello, world!')))   # 4"
    assert len(ours.encode("Hello, world!")) == len(theirs.encode("Hello, world!")) == 4
    # The seed prints [127340, 101028] for "untokenizable"; o200k_base itself (tiktoken, the
    # published file) gives three tokens, and the seed's two ids are other text altogether.
    assert ours.encode("untokenizable") == theirs.encode("untokenizable") == [2202, 2488, 12243]
    assert ours.tokenize("untokenizable") == ["unt", "oken", "izable"]
    assert ours.decode([127340, 101028]) == theirs.decode([127340, 101028]) != "untokenizable"


@pytest.mark.parametrize("name", list(PATTERNS))
def test_ids_equal_tiktoken_on_real_text(vocabs, name):
    ours, theirs = vocabs[name]
    texts = [p.read_text(encoding="utf-8") for p in UDHR]
    texts += [read("tinyshakespeare.txt")[:200_000], read("taylorswift.txt")[:100_000],
              "emoji 👩‍👩‍👧 ZWJ, digits 1234567, tabs\t\tand  spaces   \n\n\n end", ""]
    for text in texts:
        assert ours.encode(text) == theirs.encode(text), text[:40]
    special = "a<|endoftext|>b <|endoftext|>"
    assert ours.encode(special, allowed_special="all") == theirs.encode(special, allowed_special="all")
    with pytest.raises(ValueError):
        ours.encode(special)
    # streamed (the CLI's encode --file) is the same as whole
    text = texts[-3]
    assert list(ours.encode_iter(text[i:i + 997] for i in range(0, len(text), 997))) == theirs.encode(text)


def test_decoding_gives_back_the_bytes(vocabs):
    ours, theirs = vocabs["o200k_base"]
    text = UDHR[0].read_text(encoding="utf-8")[:5000]
    ids = theirs.encode(text)
    assert ours.decode(ids) == theirs.decode(ids) == text


def test_openai_files_are_recognised_and_need_no_pattern(vocabs):
    from subwordlab.formats.openai_files import known_tiktoken_file

    folder = _load_builder().ensure()
    text = (folder / "cl100k_base.tiktoken").read_text(encoding="ascii")
    assert known_tiktoken_file(text)[:2] == ("cl100k_base (GPT-4)", "cl100k")
    tok = subwordlab.from_tiktoken(text)
    ours, theirs = vocabs["cl100k_base"]
    assert tok.special_tokens == theirs._special_tokens == ours.special_tokens
    assert tok.spec["pattern"] == "cl100k" and tok.spec["source"] == "cl100k_base (GPT-4)"
    sample = "Héllo  world!! 12345 <|fim_prefix|>"
    assert tok.encode(sample, allowed_special="all") == theirs.encode(sample, allowed_special="all")
    assert known_tiktoken_file(text.replace("IQ== 0", "IQ== 0 ")) is None  # one byte changed


def test_the_command_line_imports_o200k_and_reproduces_seed_001(tmp_path):
    from test_cli import one_error_line, run

    folder = _load_builder().ensure()
    model = tmp_path / "o200k.json"
    p = run("import", "--tiktoken", folder / "o200k_base.tiktoken", "-o", model, check=0)
    assert "vocab_size=200019" in p.stderr
    assert run("encode", "-m", model, "untokenizable", check=0).stdout.split() == ["2202", "2488", "12243"]
    assert len(run("encode", "-m", model, "Hello, world!", check=0).stdout.split()) == 4
    # any other rank file needs its pattern; the special tokens are checked
    mine = tmp_path / "mine.tiktoken"
    mine.write_text("".join(line + "\n" for line in (folder / "r50k_base.tiktoken").read_text().splitlines()[:300]))
    one_error_line(run("import", "--tiktoken", mine, "-o", tmp_path / "x.json"), "say how it splits text with pattern=")
    run("import", "--tiktoken", mine, "--pattern", "gpt2", "--special-tokens", "<|endoftext|>=300", "-o", tmp_path / "y.json",
        check=0)
    one_error_line(run("import", "--tiktoken", mine, "--pattern", "gpt2", "--special-tokens", "<|end|>", "-o",
                       tmp_path / "z.json"), "--special-tokens takes TOKEN=ID pairs")
    # no flag needed: the content says it is a rank file (formats.detect)
    one_error_line(run("import", mine, "-o", tmp_path / "z.json"), "say how it splits text with pattern=")
    run("import", mine, "--pattern", "gpt2", "--special-tokens", "<|endoftext|>=300", "-o", tmp_path / "w.json", check=0)
    assert (tmp_path / "w.json").read_bytes() == (tmp_path / "y.json").read_bytes()
    one_error_line(run("import", "--hf", mine, "-o", tmp_path / "z.json"), "leave out --hf")


_AWKWARD = st.one_of(
    st.text(st.sampled_from(list("aeiouxyzqrstlnm    \n\t.,!?'Äéあ語🙂0123")), max_size=40),
    st.tuples(st.sampled_from(["the", " the", "ing", "tion", "  ", "1234", "aaaa", "ab"]), st.integers(2, 12))
    .map(lambda t: t[0] * t[1]),  # a token repeated: the same pair occurs many times in one piece
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_AWKWARD, name=st.sampled_from(list(PATTERNS)))
def test_ids_equal_tiktoken_on_awkward_text(vocabs, text, name):
    ours, theirs = vocabs[name]
    assert ours.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=())


def _tiktoken_pat_strs(monkeypatch):
    """name -> pat_str exactly as the installed tiktoken_ext/openai_public.py writes it."""
    import tiktoken_ext.openai_public as openai_public

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: {})
    monkeypatch.setattr(openai_public, "data_gym_to_mergeable_bpe_ranks", lambda *a, **k: {})
    return {name: getattr(openai_public, name)()["pat_str"] for name in PATTERNS}


def _capturing(pattern):
    """The same pattern with every top-level alternative in a capturing group, as some
    distributions spell them (``('s|'t|...)|...``): findall would return the groups."""
    alternatives, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            i += pattern.startswith("^", i + 1) + pattern.startswith("]", i + 1)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            alternatives.append(pattern[start:i])
            start = i + 1
        i += 1
    return "|".join(f"({a})" for a in alternatives + [pattern[start:]])


@pytest.mark.parametrize("spelling", ["as tiktoken writes it", "capturing groups"])
@pytest.mark.parametrize("name", list(PATTERNS))
def test_tiktoken_pat_str_as_a_custom_pattern_gives_tiktokens_ids(vocabs, monkeypatch, name, spelling):
    pat_str = _tiktoken_pat_strs(monkeypatch)[name]
    pattern = pat_str if spelling == "as tiktoken writes it" else _capturing(pat_str)
    assert (pattern == pat_str) == (spelling == "as tiktoken writes it")
    folder = _load_builder().ensure()
    tok = subwordlab.from_tiktoken((folder / f"{name}.tiktoken").read_text(encoding="ascii"), pattern=pattern)
    theirs = vocabs[name][1]
    texts = [UDHR[0].read_text(encoding="utf-8")[:20_000], read("taylorswift.txt")[:20_000],
             "I'LL don't  HelloWorld 1234567 \r\n\r\n x/y  !!\n", "emoji 👩‍👩‍👧 ZWJ\t\tend  "]
    for text in texts:
        assert tok.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=()), text[:40]
        assert tok.unmatched_chars(text) == 0


# The merges and pair table our loader derived at load before it kept only the ranks
# (sha256 of json.dumps of [[left, right], ...] and of sorted [[left, right, number, merged]]).
DERIVED = {
    "r50k_base": (108_299, "9088df7aed74ec17641a97d12d48500a67e6147cec584d1cbd3530c77afa0e05",
                  "1ca7595035d8b3eb2b4a580ffaa84d12f5e727c2d112dd5deb69ad7d12888c4d"),
    "cl100k_base": (233_378, "921072e803ee7769a3a139d61c10c1293a74e67862bc8795087bcbf6f19357c2",
                    "4c97d3d09910ae0a1cfd59ddd0230e96eef513df4a8fab1e8884e88ae48b7579"),
    "o200k_base": (446_189, "92322cb22db73a08340f595bca8495e3e8c34743d61de3badca7fad35dc1c0c8",
                   "001d52b34abfc0a675796e87887e047405e69f168d5999171accc2bdda10d134"),
}


@pytest.mark.parametrize("name", list(PATTERNS))
def test_merges_are_derived_on_first_use_and_equal_the_derivation_at_load(vocabs, name):
    import hashlib

    ours, _ = vocabs[name]
    fresh = subwordlab.from_tiktoken((_load_builder().ensure() / f"{name}.tiktoken").read_text(encoding="ascii"))
    model = fresh.model
    # encoding, offsets, tokens and decoding use the ranks alone: nothing derived yet
    text = read("tinyshakespeare.txt")[:2000]
    assert fresh.encode_full(text).ids == fresh.encode(text) == ours.encode(text)
    assert fresh.decode(fresh.encode(text)) == text and fresh.tokenize("hello")
    assert model._merges is None and model._table is None
    count, merges_sha, table_sha = DERIVED[name]
    assert len(model.merges) == count and model.base_size == 256
    assert hashlib.sha256(json.dumps([list(m) for m in model.merges]).encode()).hexdigest() == merges_sha
    table = sorted([a, b, r, n] for (a, b), (r, n) in model.ranks.items())
    assert hashlib.sha256(json.dumps(table).encode()).hexdigest() == table_sha
