"""The share-link codec (subwordlab_web.share): round trips, size limits, every rejection.

Pure Python: runs on CPython and inside Pyodide.
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

import subwordlab
from subwordlab.options import PRESETS
from subwordlab_web import share
from subwordlab_web.share import (
    MAX_JSON_BYTES,
    MAX_LINK_CHARS,
    Config,
    CorpusRef,
    Experiment,
    ShareLinkError,
    corpus_ref_for,
    decode_fragment,
    encode_fragment,
)

TEXT = "low low low lower newest newest widest"


def experiment(**changes) -> Experiment:
    exp = Experiment(corpus=CorpusRef.inline(TEXT), train=Config("bpe", {"num_merges": 8}), step=3,
                     panel="train", inspect_text="lowest")
    return replace(exp, **changes)


def pack(doc, *, raw: bytes | None = None, version: str = "v1.") -> str:
    """A fragment for any document (or raw bytes), bypassing the encoder's checks."""
    data = raw if raw is not None else json.dumps(doc).encode()
    return version + base64.urlsafe_b64encode(zlib.compress(data, 9)).decode().rstrip("=")


def valid_doc() -> dict:
    return experiment().normalized().to_json()


# -- round trips ---------------------------------------------------------------------------

def test_round_trip_fills_in_every_option():
    exp = experiment()
    back = decode_fragment(encode_fragment(exp))
    assert back == exp.normalized()
    assert set(back.train.options) == set(subwordlab.OPTIONS["bpe"])
    assert back.train.options["end_of_word"] == "</w>"
    assert back.train.options["num_merges"] == 8


def test_a_link_made_before_sentence_per_line_existed_trains_as_its_sender_saw():
    """SentencePiece presets read a sentence per line by default since 2026-12; a link made
    before carries no such option, and its sender's model read the corpus as one text."""
    exp = experiment(train=Config("sentencepiece_bpe", {"vocab_size": 40}))
    doc = exp.normalized().to_json()
    assert doc["train"]["options"]["sentence_per_line"] is True  # a new link says so
    del doc["train"]["options"]["sentence_per_line"]
    old = decode_fragment(pack(doc))
    assert old.train.options["sentence_per_line"] is False
    assert decode_fragment(encode_fragment(old)) == old  # and says so from then on


def test_a_loaded_tokenizer_travels_by_key_or_by_file_hash():
    """Issue 26: a well-known tokenizer goes by its key (the page fetches it again), the
    user's own file by its name and SHA-256 (the page asks for it); neither is the file."""
    known = experiment(tokenizer=share.TokenizerRef(well_known="o200k_base"))
    assert decode_fragment(encode_fragment(known)).tokenizer == share.TokenizerRef(well_known="o200k_base")
    own = experiment(tokenizer=share.TokenizerRef(name="my tokenizer.json", sha256="ab" * 32))
    doc = json.loads(zlib.decompress(base64.urlsafe_b64decode(encode_fragment(own)[3:] + "==")))
    assert doc["tokenizer"] == {"name": "my tokenizer.json", "sha256": "ab" * 32}
    assert decode_fragment(encode_fragment(own)) == own.normalized()
    assert "tokenizer" not in valid_doc()  # a trained tokenizer needs nothing more


def test_a_comparison_of_only_real_tokenizers_travels_with_its_languages():
    """Train's "Measure it against real tokenizers" makes a Compare setup with no trained
    configuration: the current tokenizer, well-known ones, 47 languages. A setup with no
    column at all is refused; an older link (no languages) reads as the six."""
    exp = experiment(compare_current=True, compare_well_known=("o200k_base",), compare_languages="udhr47",
                     compare_text="a text")
    back = decode_fragment(encode_fragment(exp))
    assert back.compare == () and back.compare_current and back.compare_languages == "udhr47" and back.has_compare
    doc = valid_doc()
    doc["compare"] = {"configs": [], "text": "", "reference": None, "heldout": None}
    with pytest.raises(ShareLinkError, match="compare.configs must list 1 to 4 configurations, not 0"):
        decode_fragment(pack(doc))
    doc["compare"]["languages"] = "udhr1000"
    doc["compare"]["current"] = True
    with pytest.raises(ShareLinkError, match="compare.languages must be one of udhr6, udhr47"):
        decode_fragment(pack(doc))
    del doc["compare"]["languages"]
    assert decode_fragment(pack(doc)).compare_languages == "udhr6"


def test_an_exercise_and_its_code_travel_in_the_link():
    from subwordlab_web.share import ExerciseRef

    code = "def merge(ids, pair, idx):\n\tprint('tab and emoji 🙂')\r\n    return ids\n"
    exp = experiment(exercise=ExerciseRef("bpe_merge", code))
    back = decode_fragment(encode_fragment(exp))
    assert back.exercise == ExerciseRef("bpe_merge", code)
    assert decode_fragment(encode_fragment(experiment())).exercise is None  # (absent: older links too)


def test_leading_hash_is_accepted():
    assert decode_fragment("#" + encode_fragment(experiment())) == experiment().normalized()


def test_the_same_experiment_gives_the_same_link():
    assert encode_fragment(experiment()) == encode_fragment(experiment())


def test_compare_configs_round_trip():
    exp = experiment(compare=(Config("bpe", {"vocab_size": 300}), Config("wordpiece", {"vocab_size": 300}),
                              Config("unigram", {"vocab_size": 300})),
                     compare_text="Everyone has the right", compare_reference="udhr_eng", panel="compare")
    back = decode_fragment(encode_fragment(exp))
    assert [c.preset for c in back.compare] == ["bpe", "wordpiece", "unigram"]
    assert back.compare_reference == "udhr_eng" and back.compare_text == "Everyone has the right"
    assert back == exp.normalized()


_PRESETS = sorted(PRESETS)


def _option_value(option):
    """Any value the schema allows (subwordlab.options): a link carries exactly those."""
    r = option.range
    if option.kind == "bool":
        return st.booleans()
    if option.kind == "int":
        return st.integers(int(r.low), int(min(r.high, 10_000)))
    if option.kind == "float":
        return st.floats(r.low, r.high, exclude_min=r.low_open, exclude_max=r.high_open, allow_nan=False)
    if option.kind == "choice":
        return st.sampled_from(option.choices)
    if option.kind == "list":
        return st.lists(st.text(min_size=1, max_size=6), max_size=3)
    return st.one_of(st.none(), st.text(max_size=8)) if option.nullable else st.text(max_size=8)


@st.composite
def configs(draw):
    preset = draw(st.sampled_from(_PRESETS))
    known = subwordlab.OPTIONS[preset]
    names = draw(st.lists(st.sampled_from(sorted(set(known) - {"vocab_size", "num_merges"})), unique=True, max_size=5))
    options = {name: draw(_option_value(PRESETS[preset].option(name))) for name in names}
    if "num_merges" in known and draw(st.booleans()) and not preset.endswith("unigram"):
        options["num_merges"] = draw(st.integers(0, 100_000))
    else:
        options["vocab_size"] = draw(st.integers(1, 100_000))
    return Config(preset, options)


_names = st.from_regex(r"[a-z0-9_.\-]{1,30}", fullmatch=True)
_titles = st.one_of(st.none(), st.text(min_size=1, max_size=200).filter(str.isprintable))  # shown names


@st.composite
def corpus_refs(draw):
    text = draw(st.text(max_size=300))
    fmt = draw(st.sampled_from(["text", "word_counts"]))
    kind = draw(st.sampled_from(["inline", "sample", "file"]))
    title = draw(_titles)
    if kind == "inline":
        return CorpusRef.inline(text, fmt, name=draw(st.one_of(st.none(), _names)), title=title)
    if kind == "sample":
        return CorpusRef.sample(draw(_names), text, fmt, title=title)
    return CorpusRef.file(draw(_names), text, fmt, title=title)


@st.composite
def experiments(draw):
    n = draw(st.sampled_from([0, 1, 2, 3, 4]))
    return Experiment(
        corpus=draw(corpus_refs()),
        train=draw(configs()),
        step=draw(st.one_of(st.none(), st.integers(0, 100_000))),
        panel=draw(st.sampled_from(share.PANELS)),
        inspect_text=draw(st.text(max_size=200)),
        seed=draw(st.integers(0, 2**63 - 1)),
        alpha=draw(st.floats(0, 1000, allow_nan=False)),
        sampled=draw(st.booleans()),
        nbest=draw(st.integers(1, 100)),
        special_policy=draw(st.sampled_from(share.SPECIAL_POLICIES)),
        compare=tuple(draw(configs()) for _ in range(n)),
        compare_text=draw(st.text(max_size=100)) if n else "",
        compare_reference=draw(st.one_of(st.none(), _names)) if n else None,
        compare_heldout=draw(st.one_of(st.none(), _names)) if n else None,
        compare_current=draw(st.booleans()) if n else False,
        compare_well_known=tuple(draw(st.lists(st.sampled_from(share.WELL_KNOWN_KEYS), max_size=3, unique=True)))
        if n else (),
        running=draw(st.booleans()),
        imported=draw(st.one_of(st.just(""), st.text(min_size=1, max_size=200).filter(str.isprintable))),
        tokenizer=draw(st.one_of(
            st.none(), st.builds(share.TokenizerRef, well_known=st.sampled_from(share.WELL_KNOWN_KEYS)),
            st.builds(share.TokenizerRef, name=st.text(min_size=1, max_size=200).filter(str.isprintable),
                      sha256=st.text("0123456789abcdef", min_size=64, max_size=64)))),
    )


@settings(max_examples=examples(150))
@given(experiments())
def test_round_trip_on_generated_experiments(exp):
    link = encode_fragment(exp)
    assert link.startswith("v1.") and len(link) <= MAX_LINK_CHARS + 3
    assert decode_fragment(link) == exp.normalized()
    assert encode_fragment(decode_fragment(link)) == link  # the canonical form is a fixed point


@settings(max_examples=examples(200))
@given(st.text(max_size=200))
def test_any_text_is_a_link_or_one_clear_error(fragment):
    try:
        decode_fragment(fragment)
    except ShareLinkError as exc:
        assert str(exc)
    # anything else escaping would fail the test


@settings(max_examples=examples(200))
@given(st.data())
def test_tampered_links_are_refused_or_still_valid(data):
    link = encode_fragment(experiment(inspect_text="the quick brown fox"))
    pos = data.draw(st.integers(3, len(link) - 1))
    char = data.draw(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"))
    tampered = link[:pos] + char + link[pos + 1:]
    try:
        exp = decode_fragment(tampered)
    except ShareLinkError as exc:
        assert "damaged" in str(exc)
    else:  # a tamper that survives Adler-32 and the checks is still a well-formed experiment
        assert isinstance(exp, Experiment)


# -- corpus: inline, sample, file ------------------------------------------------------------

def test_a_small_corpus_travels_inline():
    inline, fallback = corpus_ref_for(TEXT, sample="seed_000")
    back = decode_fragment(encode_fragment(experiment(corpus=inline), fallback=fallback))
    assert back.corpus.kind == "inline" and back.corpus.text == TEXT
    assert back.corpus.matches(TEXT)


def _incompressible(n: int) -> str:
    """n characters that zlib cannot shrink much (a deterministic pseudo-random walk)."""
    out, x = [], 12345
    for _ in range(n):
        x = (x * 1103515245 + 12345) % 2**31
        out.append(chr(0x4E00 + x % 20000))
    return "".join(out)


def test_a_big_corpus_becomes_its_sample_name():
    text = _incompressible(20_000)
    inline, fallback = corpus_ref_for(text, sample="tinyshakespeare")
    back = decode_fragment(encode_fragment(experiment(corpus=inline), fallback=fallback))
    assert back.corpus == CorpusRef.sample("tinyshakespeare", text)
    assert back.corpus.text is None and back.corpus.matches(text) and not back.corpus.matches(text + "x")


def test_a_big_uploaded_corpus_becomes_a_file_note_with_its_hash():
    text = _incompressible(20_000)
    inline, fallback = corpus_ref_for(text, file_name="notes.txt")
    back = decode_fragment(encode_fragment(experiment(corpus=inline), fallback=fallback))
    assert back.corpus.kind == "file" and back.corpus.name == "notes.txt"
    assert back.corpus.sha256 == share.sha256_text(text) and back.corpus.chars == 20_000


def test_a_corpus_over_a_mebibyte_falls_back_without_compressing_forever():
    text = "a" * (MAX_JSON_BYTES + 10)
    inline, fallback = corpus_ref_for(text, file_name="big.txt")
    assert decode_fragment(encode_fragment(experiment(corpus=inline), fallback=fallback)).corpus.kind == "file"
    with pytest.raises(ShareLinkError, match="bytes of JSON"):
        encode_fragment(experiment(corpus=inline))


def test_inline_limit_is_the_compressed_payload_size():
    # English-like text: the largest prefix that stays inline compresses to at most the limit
    words = ("the of and to in a is that for it as was with be by on not he this are or his from at "
             "which but have an they you were her she there been one all we their").split()
    x, parts, size = 7, [], 0
    while size < 80_000:
        x = (x * 69069 + 1) % 2**32
        parts.append(words[(x >> 16) % len(words)] + ("s" if (x >> 8) % 7 == 0 else ""))
        size += len(parts[-1]) + 1
    text = " ".join(parts)
    fallback = CorpusRef.sample("big", text)
    fits = decode_fragment(encode_fragment(experiment(corpus=CorpusRef.inline(text[:20_000])), fallback=fallback))
    assert fits.corpus.kind == "inline"
    too_big = decode_fragment(encode_fragment(experiment(corpus=CorpusRef.inline(text)), fallback=fallback))
    assert too_big.corpus.kind == "sample"
    with pytest.raises(ShareLinkError, match="too big to travel inside a link"):
        encode_fragment(experiment(corpus=CorpusRef.inline(_incompressible(30_000))))


def test_inspector_text_too_long_for_a_link_is_refused_with_advice():
    with pytest.raises(ShareLinkError, match="shorten the inspector"):
        encode_fragment(experiment(corpus=CorpusRef.sample("s", TEXT), inspect_text=_incompressible(30_000)))


def test_encoder_rejects_unknown_presets_and_options_and_bad_text():
    with pytest.raises(ShareLinkError, match="unknown algorithm"):
        encode_fragment(experiment(train=Config("bpe2", {"num_merges": 1})))
    with pytest.raises(ShareLinkError, match="no option 'colour'"):
        encode_fragment(experiment(train=Config("bpe", {"num_merges": 1, "colour": 1})))
    with pytest.raises(ShareLinkError, match="lone surrogate"):
        encode_fragment(experiment(inspect_text="a\ud800b"))
    with pytest.raises(ShareLinkError, match="finite"):
        encode_fragment(experiment(alpha=float("nan")))


# -- every rejection path ------------------------------------------------------------------

def test_too_long_is_refused_before_decoding():
    with pytest.raises(ShareLinkError, match="too long"):
        decode_fragment("v1." + "A" * (MAX_LINK_CHARS + 1))


@pytest.mark.parametrize("fragment", ["", "#", "hello", "v1", "1.abc", "vx.abc", "V1.abc"])
def test_not_a_link(fragment):
    with pytest.raises(ShareLinkError, match="does not hold a Subword Lab experiment"):
        decode_fragment(fragment)


@pytest.mark.parametrize("version, word", [("v2.", "newer"), ("v999.", "newer"), ("v0.", "older")])
def test_unknown_versions(version, word):
    with pytest.raises(ShareLinkError, match=f"{word}.*v{version[1:-1]}"):
        decode_fragment(pack(valid_doc(), version=version))


def test_empty_payload():
    with pytest.raises(ShareLinkError, match="empty"):
        decode_fragment("v1.")


@pytest.mark.parametrize("payload", ["abc$def", "ab\u00a0cd", "abcde", "a+b/", "ab===", "ab%2Bcd", "ab%ZZ"])
def test_not_base64url(payload):
    with pytest.raises(ShareLinkError, match="not valid base64url"):
        decode_fragment("v1." + payload)


def test_truncated_link():
    link = encode_fragment(experiment(inspect_text="some text to make the stream longer " * 3))
    for cut in (len(link) - 1, len(link) - 5, len(link) // 2, 8):
        with pytest.raises(ShareLinkError, match="damaged"):
            decode_fragment(link[:cut])
    cut_stream = zlib.compress(json.dumps(valid_doc()).encode())[:-10]
    with pytest.raises(ShareLinkError, match="truncated"):
        decode_fragment("v1." + base64.urlsafe_b64encode(cut_stream).decode().rstrip("="))


def test_corrupt_stream():
    with pytest.raises(ShareLinkError, match="corrupt"):
        decode_fragment("v1." + base64.urlsafe_b64encode(b"\x78\x9c" + b"\xff" * 40).decode().rstrip("="))
    # an edited byte in the middle: the deflate data or its Adler-32 check gives it away
    data = bytearray(zlib.compress(json.dumps(valid_doc()).encode(), 9))
    data[len(data) // 2] ^= 0x55
    with pytest.raises(ShareLinkError, match="damaged"):
        decode_fragment("v1." + base64.urlsafe_b64encode(bytes(data)).decode().rstrip("="))


def test_extra_data_after_the_stream():
    data = zlib.compress(json.dumps(valid_doc()).encode(), 9) + b"extra"
    with pytest.raises(ShareLinkError, match="extra data"):
        decode_fragment("v1." + base64.urlsafe_b64encode(data).decode().rstrip("="))


def test_decompression_bomb_is_refused_after_at_most_the_limit():
    bomb = zlib.compress(b"\0" * (16 * 1024 * 1024), 9)  # 16 MiB of zeros in ~16 KB
    fragment = "v1." + base64.urlsafe_b64encode(bomb).decode().rstrip("=")
    assert len(fragment) < MAX_LINK_CHARS
    with pytest.raises(ShareLinkError, match="expands to more than"):
        decode_fragment(fragment)


def test_just_over_the_inflate_limit_is_refused():
    data = json.dumps({"pad": "x" * MAX_JSON_BYTES}).encode()
    with pytest.raises(ShareLinkError, match="expands to more than"):
        decode_fragment(pack(None, raw=data))


def test_not_utf8_and_not_json():
    with pytest.raises(ShareLinkError, match="not UTF-8"):
        decode_fragment(pack(None, raw=b"\xff\xfe{}"))
    with pytest.raises(ShareLinkError, match="not valid JSON"):
        decode_fragment(pack(None, raw=b"{'corpus': 1}"))
    with pytest.raises(ShareLinkError, match="not valid JSON"):
        decode_fragment(pack(None, raw=b'{"step": NaN}'))
    with pytest.raises(ShareLinkError, match="not valid JSON"):
        decode_fragment(pack(None, raw=b'{"step": ' + b"9" * 5000 + b"}"))


def test_nesting_and_duplicates():
    with pytest.raises(ShareLinkError, match="nested"):
        decode_fragment(pack(None, raw=b"[" * 100_000 + b"]" * 100_000))
    with pytest.raises(ShareLinkError, match="nested"):
        decode_fragment(pack({"corpus": [[[[[[[[[[1]]]]]]]]]]}))
    with pytest.raises(ShareLinkError, match="appears twice"):
        decode_fragment(pack(None, raw=b'{"step": 1, "step": 2}'))


def _mutated(path: str, value) -> dict:
    doc = valid_doc()
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node[key]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return doc


@pytest.mark.parametrize(
    "path, value, message",
    [
        ("step", "3", "step must be a whole number or null, not text"),
        ("step", True, "step must be a whole number"),
        ("step", -1, "step must be between 0"),
        ("step", 1.5, "step must be a whole number"),
        ("panel", "admin", "panel must be one of"),
        ("panel", KeyError, "panel is missing"),
        ("corpus", KeyError, "corpus is missing"),
        ("corpus", "hello", "corpus must be an object, not text"),
        ("corpus.kind", "url", "corpus.kind must be one of inline, sample, file"),
        ("corpus.format", "csv", "corpus.format must be one of"),
        ("corpus.text", 5, "corpus.text must be text"),
        ("corpus.text", "tampered corpus", "does not match its SHA-256"),
        ("corpus.sha256", "abc", "64 lower-case hexadecimal"),
        ("corpus.name", "../../etc/passwd", "not a valid sample or file name"),
        ("train.preset", "gpt5", "names no algorithm"),
        ("train.preset", ["bpe"], "train.preset must be text"),
        ("train.options", [], "train.options must be an object"),
        ("train.options.colour", 1, "train.options.colour is not an option of the bpe algorithm"),
        ("train.options.num_merges", "8", "num_merges must be a whole number or null"),
        ("train.options.num_merges", -3, "num_merges must be between 0"),
        ("train.options.lowercase", 1, "lowercase must be true/false"),
        ("train.options.min_frequency", 2.5, "min_frequency must be a whole number"),
        ("train.options.special_tokens", "<s>", "special_tokens must be a list"),
        ("train.options.special_tokens", [1, 2], "special_tokens must be a list of at most 1,000 texts"),
        ("train.options.end_of_word", 7, "end_of_word must be text"),
        ("inspect.seed", 1.5, "inspect.seed must be a whole number"),
        ("inspect.alpha", "x", "inspect.alpha must be a number"),
        ("inspect.alpha", -1, "inspect.alpha must be a number between"),
        ("inspect.text", None, "inspect.text must be text"),
        ("inspect.sampled", "yes", "inspect.sampled must be true/false"),
        ("inspect.nbest", 0, "inspect.nbest must be between 1"),
        ("inspect.special", "everything", "inspect.special must be one of disallowed, allowed, plain"),
        ("inspect.extra", 1, "inspect.extra is not a field of a v1 link"),
        ("evil", 1, "evil is not a field of a v1 link"),
        ("corpus.title", "", "corpus.title must be a name of 1 to 200 printable characters"),
        ("corpus.title", "a\nb", "corpus.title must be a name of 1 to 200 printable"),
        ("corpus.title", 3, "corpus.title must be text"),
        ("running", "yes", "running must be true/false"),
        ("imported", "x" * 201, "imported must be a name of 1 to 200"),
        ("tokenizer", "cl100k_base", "tokenizer must be an object, not text"),
        ("tokenizer", {"well_known": "gpt5"}, "tokenizer.well_known must be one of r50k_base"),
        ("tokenizer", {"well_known": "cl100k_base", "sha256": "0" * 64}, "tokenizer.sha256 is not a field"),
        ("tokenizer", {"name": "t.json", "sha256": "A" * 64}, "tokenizer.sha256 must be 64 lower-case"),
        ("tokenizer", {"name": "t.json"}, "tokenizer.sha256 is missing"),
        ("tokenizer", {"sha256": "0" * 64}, "tokenizer.name is missing"),
        ("tokenizer", {"name": "<script>\n", "sha256": "0" * 64}, "tokenizer.name must be a name of 1 to 200"),
        ("tokenizer", {}, "tokenizer.name is missing"),
        ("exercise", "bpe_merge", "exercise must be an object, not text"),
        ("exercise", {"id": "rm_rf", "code": ""}, "exercise.id must be one of bpe_get_stats"),
        ("exercise", {"id": "bpe_merge"}, "exercise.code is missing"),
        ("exercise", {"id": "bpe_merge", "code": 5}, "exercise.code must be text"),
        ("exercise", {"id": "bpe_merge", "code": ["import os"]}, "exercise.code must be text"),
        ("exercise", {"id": "bpe_merge", "code": "", "run": True}, "exercise.run is not a field of a v1 link"),
        ("exercise", {"id": "bpe_merge", "code": "x = 1\n" * 1334}, "exercise.code is 8,004 characters long; a link carries at most 8,000"),
        ("exercise", {"id": "bpe_merge", "code": "def merge(ids, pair, idx):\n    return ids  # \u202e)(metsys.so\n"},
         "exercise.code holds the invisible character U\\+202E on line 2"),
        ("exercise", {"id": "bpe_merge", "code": "x = 1\x00"}, "exercise.code holds the invisible character U\\+0000 on line 1"),
        ("exercise", {"id": "bpe_merge", "code": "x = '\ud800'"}, "exercise.code holds half of a character"),
    ],
)
def test_wrong_fields_are_named(path, value, message):
    with pytest.raises(ShareLinkError, match=message.replace("(", r"\(")) as info:
        decode_fragment(pack(_mutated(path, value)))
    assert str(info.value).startswith("this link is damaged: ")


def test_options_without_a_size_and_top_level_not_an_object():
    doc = _mutated("train.options.num_merges", None)
    with pytest.raises(ShareLinkError, match="must give vocab_size or num_merges"):
        decode_fragment(pack(doc))
    with pytest.raises(ShareLinkError, match="its content must be an object, not a list"):
        decode_fragment(pack([1, 2]))


def test_infinite_alpha_from_a_huge_exponent():
    doc = valid_doc()
    raw = json.dumps(doc).replace('"alpha": 0.1', '"alpha": 1e999').encode()
    with pytest.raises(ShareLinkError, match="inspect.alpha must be a number between"):
        decode_fragment(pack(None, raw=raw))


@pytest.mark.parametrize("n", [0, 5])
def test_compare_needs_one_to_four_configs(n):
    doc = valid_doc()
    doc["compare"] = {"configs": [Config("bpe", {"num_merges": 1}).normalized().to_json()] * n,
                      "text": "", "reference": None}
    with pytest.raises(ShareLinkError, match="compare.configs must list 1 to 4"):
        decode_fragment(pack(doc))


def test_compare_columns_round_trip_and_an_old_link_without_them_still_opens():
    """The current tokenizer's and a well-known tokenizer's columns travel in the link (only
    when chosen: a link without them, as every older link, opens with neither)."""
    configs = (Config("bpe", {"num_merges": 5}),)
    exp = experiment(compare=configs, compare_text="a text", compare_current=True,
                     compare_well_known=("cl100k_base", "r50k_base"))
    back = decode_fragment(encode_fragment(exp))
    assert back == exp.normalized() and back.compare_current and back.compare_well_known == ("cl100k_base", "r50k_base")
    doc = valid_doc()
    doc["compare"] = {"configs": [c.normalized().to_json() for c in configs * 2], "text": "", "reference": None,
                      "heldout": None}  # as session 8 wrote it
    old = decode_fragment(pack(doc))
    assert len(old.compare) == 2 and not old.compare_current and old.compare_well_known == ()
    doc["compare"]["well_known"] = "o200k_base"  # one key, as links before 2026-12 wrote it
    assert decode_fragment(pack(doc)).compare_well_known == ("o200k_base",)
    # (the two fields cost a few dozen characters of the compressed link, not more)
    assert "current" not in encode_fragment(old) and len(encode_fragment(exp)) < len(encode_fragment(old)) + 48


@pytest.mark.parametrize("field, value, message", [
    ("current", "yes", "compare.current must be true/false, not text"),
    ("current", 1, "compare.current must be true/false, not a whole number"),
    ("well_known", "gpt5", "compare.well_known must be one of r50k_base, cl100k_base"),
    ("well_known", "x" * 5000, "compare.well_known must be one of"),
    ("well_known", None, "compare.well_known must be a list of at most 3 well-known tokenizers"),
    ("well_known", ["cl100k_base", "gpt5"], r"compare.well_known\[1\] must be one of r50k_base"),
    ("well_known", ["cl100k_base", 7], r"compare.well_known\[1\] must be one of"),
    ("well_known", ["cl100k_base"] * 4, "compare.well_known must be a list of at most 3"),
    ("well_known", ["cl100k_base", "cl100k_base"], "compare.well_known names a tokenizer twice"),
    ("columns", 3, "compare.columns is not a field of a v1 link"),
])
def test_a_hostile_compare_column_is_refused_by_name(field, value, message):
    doc = valid_doc()
    doc["compare"] = {"configs": [Config("bpe", {"num_merges": 1}).normalized().to_json()], "text": "",
                      "reference": None, "heldout": None, field: value}
    with pytest.raises(ShareLinkError, match=message):
        decode_fragment(pack(doc))


def test_compare_configs_are_checked_one_by_one():
    doc = valid_doc()
    good = Config("bpe", {"num_merges": 1}).normalized().to_json()
    doc["compare"] = {"configs": [good, {"preset": "bpe", "options": {"num_merges": 1, "x": 2}}],
                      "text": "", "reference": None, "heldout": "../x"}
    with pytest.raises(ShareLinkError, match=r"compare.configs\[1\].options.x is not an option"):
        decode_fragment(pack(doc))
    doc["compare"]["configs"][1] = good
    with pytest.raises(ShareLinkError, match=r"compare.heldout is not a valid text name"):
        decode_fragment(pack(doc))


def test_a_sample_reference_needs_no_text_and_rejects_one():
    doc = valid_doc()
    doc["corpus"] = {"kind": "sample", "format": "text", "name": "tinyshakespeare", "text": "x"}
    with pytest.raises(ShareLinkError, match="corpus.text must be absent for a sample corpus"):
        decode_fragment(pack(doc))
    doc["corpus"] = {"kind": "sample", "format": "text", "name": "tinyshakespeare"}
    assert decode_fragment(pack(doc)).corpus == CorpusRef("sample", "text", name="tinyshakespeare")


# -- the sliced decoder ------------------------------------------------------------------------
def _one_shot_decode(fragment: str) -> Experiment:
    """The decoder as it was before it was sliced (base64, zlib and JSON each in one call):
    the reference the sliced one must agree with."""
    import binascii

    from subwordlab.base.jsonio import ModelFileError, parse_json

    payload = share._payload(fragment)
    try:
        packed = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    except (binascii.Error, ValueError):
        raise ShareLinkError("this link is damaged: its data is not valid base64url (was it cut or edited?)") from None
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(packed, MAX_JSON_BYTES + 1)
    except zlib.error:
        raise ShareLinkError("this link is damaged: its compressed data is corrupt (was it edited?)") from None
    if len(data) > MAX_JSON_BYTES:
        raise ShareLinkError(f"this link's data expands to more than {MAX_JSON_BYTES:,} bytes; "
                             "it was not opened (a valid link is never that big)")
    if inflater.unused_data:
        raise ShareLinkError("this link is damaged: it has extra data after its content (was it edited?)")
    if not inflater.eof:
        raise ShareLinkError("this link is damaged: its compressed data is truncated (was it cut off when copied?)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ShareLinkError("this link is damaged: its content is not UTF-8 text") from None
    try:
        doc = parse_json(text, "link's content", MAX_JSON_BYTES, share.MAX_DEPTH)
    except ModelFileError as exc:
        raise ShareLinkError(f"this link is damaged: {exc}") from None
    return share._check(doc)


def _outcome(decode, fragment):
    try:
        return decode(fragment)
    except ShareLinkError as exc:
        return f"error: {exc}"


@pytest.fixture(params=["default pieces", "tiny pieces"])
def piece_sizes(request, monkeypatch):
    """The decoder with its own piece sizes, and with pieces of 4 characters and 1 byte
    (every chunk boundary falls inside a base64 quad's neighbours, a UTF-8 character, a
    deflate block)."""
    if request.param == "tiny pieces":
        monkeypatch.setattr(share, "B64_CHUNK_CHARS", 4)
        monkeypatch.setattr(share, "INFLATE_CHUNK_BYTES", 1)
        monkeypatch.setattr(share, "INFLATE_PIECE_BYTES", 1)
    return request.param


def _tampered(data, link: str) -> str:
    pos = data.draw(st.integers(3, len(link) - 1))
    how = data.draw(st.sampled_from(["replace", "cut", "append"]))
    char = data.draw(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"))
    return {"replace": link[:pos] + char + link[pos + 1:], "cut": link[:pos], "append": link + char * (pos % 7)}[how]


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(exp=experiments(), data=st.data())
def test_the_sliced_decoder_gives_what_the_one_shot_decoder_gave(piece_sizes, exp, data):
    link = encode_fragment(exp)
    assert share.decode_fragment(link) == _one_shot_decode(link) == exp.normalized()
    tampered = _tampered(data, link)
    assert _outcome(share.decode_fragment, tampered) == _outcome(_one_shot_decode, tampered)


@pytest.mark.parametrize("raw", [
    "low lower é 🦀 日本".encode() * 3,  # not JSON, multi-byte characters across pieces
    b"\xff\xfe{}",  # not UTF-8
    "{\"a\": \"é".encode()[:-1],  # a character cut at the end
    json.dumps({"pad": "x" * (MAX_JSON_BYTES - 11)}).encode(),  # exactly the limit: a JSON error, not "too big"
    json.dumps({"pad": "x" * (MAX_JSON_BYTES - 10)}).encode(),  # one byte over
])
def test_the_sliced_decoder_agrees_on_edge_cases(piece_sizes, raw):
    fragment = pack(None, raw=raw)
    assert _outcome(share.decode_fragment, fragment) == _outcome(_one_shot_decode, fragment)


def _count_inflated(monkeypatch, record):
    """Make the decoder's inflater call ``record(n)`` with the size of each piece it inflates."""
    real = zlib.decompressobj

    class Counting:
        def __init__(self):
            self.inner = real()

        def decompress(self, data, max_length=0):
            out = self.inner.decompress(data, max_length)
            record(len(out))
            return out

        def __getattr__(self, name):
            return getattr(self.inner, name)

    monkeypatch.setattr(share.zlib, "decompressobj", Counting)


def test_a_decompression_bomb_is_refused_as_soon_as_it_passes_the_limit(monkeypatch):
    bomb = "v1." + base64.urlsafe_b64encode(zlib.compress(b"\0" * (16 * 1024 * 1024), 9)).decode().rstrip("=")
    inflated = []
    _count_inflated(monkeypatch, inflated.append)
    with pytest.raises(ShareLinkError, match="expands to more than"):
        share.decode_fragment(bomb)
    assert sum(inflated) == MAX_JSON_BYTES + 1  # not the bomb's 16 MiB
    assert max(inflated) <= share.INFLATE_PIECE_BYTES


def test_decoding_a_megabyte_link_yields_between_small_pieces(monkeypatch):
    """The generator hands control back between pieces: between two yields at most one
    piece is inflated (counted, not timed)."""
    pieces = []

    def record(n):
        pieces[-1] += n

    _count_inflated(monkeypatch, record)
    link = encode_fragment(experiment(corpus=CorpusRef.inline("a" * 1_000_000)))
    steps = share.decode_fragment_steps(link)
    while True:
        pieces.append(0)
        try:
            next(steps)
        except StopIteration as stop:
            exp = stop.value
            break
    assert exp.corpus.text == "a" * 1_000_000
    assert sum(pieces) > 1_000_000 and max(pieces) <= share.INFLATE_PIECE_BYTES


def test_a_link_holding_more_values_than_any_experiment_is_refused_before_parsing(monkeypatch):
    parsed = []
    monkeypatch.setattr(share, "parse_json", lambda *a, **k: parsed.append(a) or {})
    many = pack(None, raw=b"[" + b"{}," * 340_000 + b"{}]")  # 1 MB of objects in a link of ~1.5 KB
    assert len(many) < 2_000
    with pytest.raises(ShareLinkError, match="more than 16,384 values"):
        share.decode_fragment(many)
    assert parsed == []


@pytest.mark.parametrize("text, items", [
    ('{"a": [1, 2], "b": "x,y"}', 3),
    ('"a,b,c"', 1),
    ('["\\\\", 1, "\\",", 2]', 4),  # an escaped backslash ends its string; an escaped quote does not
    ('"unterminated, string', 1),
    ("[" + "1," * 20_000 + "1]", 20_001),
])
def test_items_are_counted_outside_strings(text, items):
    from subwordlab.base.events import drain

    assert drain(share._count_items(text)) == items


# -- links mangled by chat apps and mail clients ------------------------------------------------

def _percent_encoded(link: str) -> str:
    """What some mail clients make of a link: every '-', '_' and '.' as %XX (lower-case
    hex for '_', to show either case is read)."""
    return link.replace("-", "%2D").replace("_", "%5f").replace(".", "%2E")


def _split(link: str) -> str:
    """A link broken at a line's end and at spaces (a mail client's 76-character lines)."""
    return "\r\n".join(link[i:i + 40] for i in range(0, len(link), 40)).replace("A", " A\t", 3)


def test_a_percent_encoded_or_split_link_is_repaired_and_gives_the_same_model():
    exp = experiment(train=Config("byte_bpe", {"vocab_size": 300}), inspect_text="a longer text -_- to get - and _ "
                     "into the link " * 8, corpus=CorpusRef.inline("the quick brown fox jumps over the lazy dog " * 9))
    link = encode_fragment(exp)
    assert "-" in link and "_" in link  # the escapes below change something
    forms = {"original": link, "percent-encoded": _percent_encoded(link), "split": _split(link),
             "both": _split(_percent_encoded(link)), "with a hash": "#" + _split(link)}
    hashes = {}
    for name, form in forms.items():
        back = decode_fragment(form)
        assert back == exp.normalized(), name
        tok = subwordlab.train(back.corpus.text, preset=back.train.preset, **back.train.train_kwargs())
        hashes[name] = share.sha256_text(subwordlab.to_json(tok))
    assert len(set(hashes.values())) == 1, hashes


def test_a_space_inside_an_escape_as_the_address_bar_keeps_it_is_repaired():
    """The e2e link broken every 60 characters: where a break fell inside an escape ("%2" +
    " " + "D"), the address bar kept "%2%20D" and the link was refused as no experiment."""
    exp = experiment(train=Config("byte_bpe", {"num_merges": 40}), inspect_text="lazy foxes -_- jump",
                     corpus=CorpusRef.inline("the quick brown fox jumps over the lazy dog " * 6))
    mangled = _percent_encoded(encode_fragment(exp))
    for at in range(len(mangled)):  # a break at every place, once
        address = mangled[:at] + "%20" + mangled[at:]
        assert decode_fragment(address) == exp.normalized(), address[max(0, at - 4):at + 7]


@pytest.mark.parametrize("fragment, message", [
    ("v1.%E2%80%8Babc", "not valid base64url"),  # escapes that decode to no link stay as they were
    ("v1.ab%2", "not valid base64url"),  # a cut escape
    ("v1.%2B%2F", "not valid base64url"),  # '+' and '/': not base64url
    ("%20v1%2Eabcd%0A", "damaged"),  # a link's shape once repaired: read, and its data is damaged
    ("v1. \n\t", "empty"),
    ("v1." + " " * share.MAX_RAW_LINK_CHARS, "too long"),  # more than any mangled link
])
def test_a_link_still_invalid_after_repair_keeps_its_message(fragment, message):
    with pytest.raises(ShareLinkError, match=message):
        decode_fragment(fragment)


def test_repairing_is_linear_in_the_links_length():
    """A crafted link of escapes and spaces costs a pass over it: a 1 KB link and one 64
    times longer take time in proportion (never seconds)."""
    import time

    def cost(n: int) -> float:
        fragment = "v1." + ("%2D%2 %%41 \t" * n)[: 1024 * (n // 100)]
        best = float("inf")
        for _ in range(3):
            t = time.process_time()
            for _ in range(5):
                try:
                    decode_fragment(fragment)
                except ShareLinkError:
                    pass
            best = min(best, time.process_time() - t)
        return best

    small, big = cost(100), cost(6400)
    assert big < 1.0 and big < 64 * 8 * max(small, 1e-4), (small, big)
