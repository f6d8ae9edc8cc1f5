"""Counts as an artifact (counts.py, `subwordlab count`, `train --counts`): a text cut where
`counts.safe_cut` allows counts as the whole text, in order; a counts file, or counts merged
from shards, trains the model the text trains, byte for byte; a counts file of another
pipeline, or a damaged one, is refused in one line that says what to do."""

import io
import json
import random

import pytest

import subwordlab
from corpora import CORPORA, UDHR
from subwordlab import counts, train
from subwordlab.cli import main
from subwordlab.presets import counting_spec
from subwordlab.text.corpus import Counted

pytestmark = pytest.mark.cpython_only  # (the command line in this process; its workers: test_cli_workers)

ENG, RUS, KOR = (CORPORA / "udhr" / f"udhr_{n}.txt" for n in ("eng", "rus", "kor"))

# every pipeline's own cutting rules: lines and spaces, SentencePiece's settings (some have
# no safe space), custom and built-in byte-level patterns, special tokens (one with a space)
CASES = [("bpe", {}), ("bpe", {"lowercase": True}), ("byte_bpe", {}), ("byte_bpe", {"pattern": "cl100k"}),
         ("byte_bpe", {"pattern": "o200k", "special_tokens": ["<|endoftext|>", "<|end|>"]}),
         ("byte_bpe", {"pattern": r"\w+|[^\w\s]+"}), ("sentencepiece_bpe", {}),
         ("sentencepiece_bpe", {"add_dummy_prefix": False, "remove_extra_whitespaces": False}),
         ("sentencepiece_bpe", {"add_dummy_prefix": False}), ("sentencepiece_unigram", {"split_digits": True}),
         ("wordpiece", {"lowercase": True, "strip_accents": True}), ("unigram", {"special_tokens": ["<s>", "<a b>"]})]
PIECES = list("ab cd\n\n  \r\t.,!'sΣσ12▁é\u0301中") + ["<|endoftext|>", "<|end|>", "<s>", "<a b>", " a", "xyz "]


@pytest.mark.parametrize("preset, options", CASES, ids=[f"{p}-{i}" for i, (p, _) in enumerate(CASES)])
def test_a_text_cut_where_safe_counts_as_the_whole_text(preset, options):
    """Random texts of the characters that make cuts unsafe (runs of white space, CRLF, ▁,
    combining marks, final sigma, special tokens), read in blocks of 1-8 characters: the
    chunks' counts added in order are the whole text's counts, in the same order."""
    spec = counting_spec(preset, options)
    rng = random.Random(preset + str(options))
    for _ in range(60):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 50)))
        whole = counts.count_texts([text], spec)
        for size in (1, 3, 8):
            got = counts.count_inputs([("t", io.StringIO(text))], spec, size=size)
            assert (list(got.counts.items()), got.unmatched) == (list(whole[0].items()), whole[1]), (text, size)


def test_the_chunks_are_cut_at_lines_spaces_and_special_tokens():
    spec = counting_spec("byte_bpe", {"special_tokens": ["<|endoftext|>"]})
    text = "one doc\nline two<|endoftext|>next doc"
    chunks = list(counts.text_chunks(io.StringIO(text), spec, size=10))
    assert "".join(chunks) == text and len(chunks) > 2
    assert all(c.endswith(("\n", "<|endoftext|>")) or chunks[k + 1].startswith(" ") for k, c in enumerate(chunks[:-1]))
    # SentencePiece read as one text keeps line feeds inside its pieces: no cut there, only
    # before a lone space; read a sentence per line (its default), it cuts at line feeds
    whole = counting_spec("sentencepiece_bpe", {"sentence_per_line": False})
    assert list(counts.text_chunks(io.StringIO("ab\ncd\nef"), whole, size=2)) == ["ab\ncd\nef"]
    per_line = counting_spec("sentencepiece_bpe", {})
    assert list(counts.text_chunks(io.StringIO("ab\ncd\nef"), per_line, size=2)) == ["ab\n", "cd\nef"]


def run(*args, capsys=None, check=0):
    code = main([str(a) for a in args])
    err = capsys.readouterr().err if capsys else ""
    assert check is None or code == check, err
    return code, err


def one_line(capsys, args, fragment):
    code, err = run(*args, capsys=capsys, check=None)
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 1 and len(lines) == 1 and lines[0].startswith("subwordlab: error:"), err
    assert fragment in lines[0], lines[0]


@pytest.mark.parametrize("preset, target, options", [
    ("byte_bpe", ("--vocab-size", 400), ("--special-tokens", "<|endoftext|>")),
    ("sentencepiece_unigram", ("--vocab-size", 600), ()),
    ("bpe", ("--num-merges", 60), ("--lowercase",)),
    ("wordpiece", ("--vocab-size", 700), ()),
])
def test_training_on_counts_and_on_merged_shards_is_training_on_the_text(tmp_path, capsys, preset, target, options):
    files = [ENG, RUS, KOR]
    common = ("--preset", preset, *options, "-q", "--workers", 1)
    run("train", *files, *target, *common, "-o", tmp_path / "text.json")
    # one counts file of all the inputs
    run("count", *files, *common, "-o", tmp_path / "all.counts.json")
    run("train", "--counts", tmp_path / "all.counts.json", *target, *common, "-o", tmp_path / "counts.json")
    # one counts file per shard, merged in order
    for k, f in enumerate(files):
        run("count", f, *common, "-o", tmp_path / f"shard{k}.json")
    run("count", "--merge", *(tmp_path / f"shard{k}.json" for k in range(3)), "-q", "-o", tmp_path / "merged.json")
    run("train", "--counts", tmp_path / "merged.json", *target, *common, "-o", tmp_path / "merged_model.json")
    capsys.readouterr()
    text_model = (tmp_path / "text.json").read_bytes()
    assert (tmp_path / "counts.json").read_bytes() == text_model
    assert (tmp_path / "merged_model.json").read_bytes() == text_model
    # the merged counts file is the one counted from all the inputs at once
    assert (tmp_path / "merged.json").read_bytes() == (tmp_path / "all.counts.json").read_bytes()
    # several inputs: each one's SHA-256 and sizes, and the SHA-256 of those digests
    corpus = json.loads(text_model)["spec"]["corpus"]
    assert corpus["kind"] == "texts" and len(corpus["inputs"]) == 3
    assert corpus["bytes"] == sum(f.stat().st_size for f in files)


def test_one_file_records_what_training_on_its_text_records(tmp_path, capsys):
    run("train", ENG, "--preset", "byte_bpe", "--vocab-size", 300, "-q", "-o", tmp_path / "m.json")
    api = train(ENG.read_text(encoding="utf-8"), "byte_bpe", vocab_size=300)
    assert (tmp_path / "m.json").read_text(encoding="utf-8") == subwordlab.to_json(api)


def test_the_counts_file_format(tmp_path, capsys):
    run("count", ENG, "--preset", "byte_bpe", "--special-tokens", "<|endoftext|>", "-q", "-o", tmp_path / "c.json")
    doc = json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert doc["format"] == "subwordlab-counts" and doc["version"] == 1
    assert doc["pipeline"] == {"preset": "byte_bpe", "normalizer": None, "special_tokens": ["<|endoftext|>"],
                               "pre_tokenizer": {"type": "ByteLevel", "pattern": "gpt2", "add_prefix_space": False}}
    import hashlib

    data = ENG.read_bytes()
    assert doc["inputs"] == [{"name": str(ENG), "sha256": hashlib.sha256(data).hexdigest(),
                              "chars": len(data.decode("utf-8")), "bytes": len(data)}]
    assert doc["distinct"] == len(doc["counts"]) and doc["total"] == sum(n for _, n in doc["counts"])
    assert doc["counts"][:4] == [["Universal", 2], ["ĠDeclaration", 8], ["Ġof", 93], ["ĠHuman", 4]]
    # the counts come back as they were written
    again = counts.from_json((tmp_path / "c.json").read_text(encoding="utf-8"))
    assert counts.to_json(again) == (tmp_path / "c.json").read_text(encoding="utf-8")


def test_counts_of_another_pipeline_are_refused_saying_what_to_do(tmp_path, capsys):
    run("count", ENG, "--preset", "byte_bpe", "-q", "-o", tmp_path / "c.json")
    out = tmp_path / "m.json"
    one_line(capsys, ("train", "--counts", tmp_path / "c.json", "--preset", "bpe", "--num-merges", 5, "-o", out),
             "these counts were made for another pipeline (the pre-tokenizer differs")
    one_line(capsys, ("train", "--counts", tmp_path / "c.json", "--preset", "byte_bpe", "--vocab-size", 300,
                      "--special-tokens", "<|endoftext|>", "-o", out), "count the text again with 'subwordlab count --preset byte_bpe'")
    one_line(capsys, ("train", ENG, "--counts", tmp_path / "c.json", "--vocab-size", 300, "-o", out), "not both")
    # shards of different pipelines do not merge
    run("count", RUS, "--preset", "bpe", "-q", "-o", tmp_path / "b.json")
    one_line(capsys, ("count", "--merge", tmp_path / "c.json", tmp_path / "b.json", "-o", tmp_path / "x.json"),
             "part 2 was counted with another pipeline")
    # two presets with one pipeline share their counts (SentencePiece BPE and Unigram)
    run("count", ENG, "--preset", "sentencepiece_bpe", "-q", "-o", tmp_path / "sp.json")
    run("train", "--counts", tmp_path / "sp.json", "--preset", "sentencepiece_unigram", "--vocab-size", 300, "-q", "-o", out)
    run("train", ENG, "--preset", "sentencepiece_unigram", "--vocab-size", 300, "-q", "-o", tmp_path / "t.json")
    assert out.read_bytes() == (tmp_path / "t.json").read_bytes()
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("content, fragment", [
    ("not json", "not valid JSON"),
    ('{"format": "subwordlab", "version": 1}', "not a counts file (format is 'subwordlab'"),
    ('{"format": "subwordlab-counts", "version": 9}', "version 9 is newer than this subwordlab reads"),
    ('{"format": "subwordlab-counts", "version": 1, "pipeline": {"preset": "bpe"}, "inputs": [], "counts": [["a", 0]]}',
     "counts[0]: the count of 'a' must be a positive integer"),
    ('{"format": "subwordlab-counts", "version": 1, "pipeline": {"preset": "bpe"}, "inputs": [], "counts": [["a", 1], ["a", 2]]}',
     "counts[1]: 'a' is listed twice"),
    ('{"format": "subwordlab-counts", "version": 1, "pipeline": {"preset": "bpe"}, "inputs": [{"name": "x"}], "counts": []}',
     "inputs[0] must be {name, sha256"),
    ('[1, 2]', "not a counts file"),
])
def test_a_damaged_counts_file_is_one_line(tmp_path, capsys, content, fragment):
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    one_line(capsys, ("train", "--counts", bad, "--preset", "bpe", "--num-merges", 5, "-o", tmp_path / "m.json"),
             f"{bad}: {fragment}")
    one_line(capsys, ("count", "--merge", bad, "-o", tmp_path / "m.json"), fragment)
    assert not (tmp_path / "m.json").exists()


def test_empty_counts_and_merges_in_the_core():
    spec = counting_spec("bpe", {})
    empty = counts.count_inputs([("e", io.StringIO("   \n"))], spec)
    assert empty.counts == {} and empty.inputs[0]["chars"] == 4
    with pytest.raises(ValueError, match="the corpus is empty"):
        train(empty, "bpe", num_merges=3)
    a = Counted({"x": 1, "y": 2}, empty.pipeline, [empty.inputs[0]])
    b = Counted({"z": 1, "x": 4}, empty.pipeline, [empty.inputs[0]])
    merged = counts.merge_counted([a, b])
    assert list(merged.counts.items()) == [("x", 5), ("y", 2), ("z", 1)] and len(merged.inputs) == 2
    assert [p.name for p in UDHR][:1] == ["udhr_arb.txt"]
