"""Loaders: GPT-2 vocab.json + merges.txt and tiktoken rank files (ids preserved exactly,
merges derived from ranks as HF's converters do); differentials against tiktoken and the
tokenizers library on CPython."""

import base64
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from progress_steps import run_steps

import subwordlab
from corpora import UDHR, read
from subwordlab.formats.openai_files import from_gpt2_files, from_tiktoken, tiktoken_merges
from subwordlab.formats.our_json import ModelFileError
from subwordlab.text.bytes_map import BYTE_TO_CHAR, text_to_bytes

TEXTS = [p.read_text(encoding="utf-8") for p in UDHR] + ["emoji 👨‍👩‍👧 🎉", "digits 1234567", "  runs \t\n\n  "]


def rank_file(ranks):
    return "".join(f"{base64.b64encode(b).decode()} {r}\n" for b, r in sorted(ranks.items(), key=lambda kv: kv[1]))


def byte_ranks():
    return {bytes([b]): b for b in range(256)}


def test_tiktoken_merges_like_hf_converters():
    ranks = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5}
    assert tiktoken_merges(ranks) == [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc"), (b"ab", b"c")]


def test_from_tiktoken_keeps_ids_and_specials_in_a_gap():
    ranks = byte_ranks()
    ranks.update({b"lo": 256, b"low": 257, b" low": 258, b"er": 259})
    tok = from_tiktoken(rank_file(ranks), pattern="gpt2", special_tokens={"<|endoftext|>": 262})
    assert tok.encode("low lower") == [257, 258, 259]
    assert tok.vocab_size == 263 and tok.id_to_token(262) == "<|endoftext|>"
    assert tok.encode("<|endoftext|>", allowed_special="all") == [262]
    assert " " in tok.id_to_token(260)  # an unused id in the gap: never produced
    assert tok.decode([257, 258, 262]) == "low low<|endoftext|>"
    again = subwordlab.from_json(subwordlab.to_json(tok))
    assert again.encode("low lower") == [257, 258, 259]


def test_from_gpt2_files_keeps_vocab_ids_and_appends_new_specials():
    vocab = {ch: i for i, ch in enumerate(BYTE_TO_CHAR)}
    vocab.update({"l o".replace(" ", ""): 256, "low": 257, "Ġlow": 258, "<|endoftext|>": 259})
    merges = "#version: 0.2\nl o\nlo w\nĠ low\n"
    tok = from_gpt2_files(json.dumps(vocab), merges)
    assert tok.special_tokens == {"<|endoftext|>": 259}
    assert tok.encode("low low") == [257, 258]
    tok = from_gpt2_files(json.dumps(vocab), merges, special_tokens=["<|endoftext|>", "<|pad|>"])
    assert tok.special_tokens == {"<|endoftext|>": 259, "<|pad|>": 260}
    assert tok.encode("<|pad|>low", allowed_special="all") == [260, 257]


@pytest.mark.parametrize("make, match", [
    (lambda: from_tiktoken("QQ== 0\n", "gpt2"), "no token for the byte 0x00"),
    (lambda: from_tiktoken(rank_file(byte_ranks()) + "!!! 256\n"), "line 257: '!!!' is not base64"),
    (lambda: from_tiktoken(rank_file(byte_ranks()) + "QUI= 5\n"), "rank 5 is also the token"),
    (lambda: from_tiktoken(rank_file(byte_ranks()) + "QUI= 300\n"), "rank 256 is missing"),
    (lambda: from_tiktoken(rank_file(byte_ranks()) + "QUI=\n"), "expected '<base64 token> <rank>'"),
    (lambda: from_tiktoken(""), "the rank file is empty"),
    (lambda: from_tiktoken(rank_file(byte_ranks()), "gpt2", {"<s>": 5}), "id 5 of '<s>' is already"),
    (lambda: from_tiktoken(rank_file(byte_ranks())), "not one of OpenAI's published files"),
    (lambda: from_gpt2_files('{"a": 0, "b": 0}', ""), "the id 0 is given to both"),
    (lambda: from_gpt2_files('{"a": 0, "b": 2}', ""), "id 1 is missing"),
    (lambda: from_gpt2_files('{"a": 0, "b": 1}', "#version: 0.2\na b c\n"), "line 2: expected 'left right'"),
    (lambda: from_gpt2_files('{"a": 0, "b": 1}', "a b\n"), "the result 'ab' is not in vocab.json"),
    (lambda: from_gpt2_files('{"a": 0, "b": 1}', "a q\n"), "'q' is not in vocab.json"),
    (lambda: from_gpt2_files("[1]", ""), "expected an object"),
])
def test_bad_files_raise_model_file_error(make, match):
    with pytest.raises(ModelFileError, match=match):
        make()


_TRAINED = {}


def trained(pattern):
    if pattern not in _TRAINED:
        _TRAINED[pattern] = subwordlab.train(read("tinyshakespeare.txt")[:200_000], preset="byte_bpe", vocab_size=1500,
                                             pattern=pattern)
    return _TRAINED[pattern]


@pytest.mark.cpython_only
@pytest.mark.parametrize("pattern", ["gpt2", "cl100k", "o200k"])
def test_from_tiktoken_encodes_as_tiktoken(pattern):
    import tiktoken

    from subwordlab.text.patterns import PATTERNS

    base = trained(pattern)
    ranks = {text_to_bytes(t): i for i, t in enumerate(base.model.vocab)}
    specials = {"<|endoftext|>": 1501, "<|fim|>": 1502}
    tok = from_tiktoken(rank_file(ranks), pattern=pattern, special_tokens=specials)
    enc = tiktoken.Encoding("test", pat_str=PATTERNS[pattern], mergeable_ranks=ranks, special_tokens=specials)
    for text in TEXTS:
        text = text + "<|endoftext|>" + text[:100]
        assert tok.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
        assert tok.decode(tok.encode(text, allowed_special="all")) == text
    # the offsets path (Inspect) merges by the same rule
    text = TEXTS[0][:3000]
    assert tok.encode_full(text).ids == tok.encode(text) == tok.sample_encode(text, 0.0)


@pytest.mark.cpython_only
def test_from_gpt2_files_encodes_as_the_original_and_as_tokenizers():
    from tokenizers import Tokenizer as HF
    from tokenizers import models, pre_tokenizers

    base = trained("gpt2")
    vocab = {t: i for i, t in enumerate(base.model.vocab)}
    merges = "#version: 0.2\n" + "".join(f"{base.model.vocab[a]} {base.model.vocab[b]}\n" for a, b in base.model.merges)
    tok = from_gpt2_files(json.dumps(vocab, ensure_ascii=False), merges, special_tokens=[])
    hf = HF(models.BPE(vocab, [tuple(line.split(" ")) for line in merges.splitlines()[1:]]))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    for text in TEXTS:
        assert tok.encode(text) == base.encode(text) == hf.encode(text, add_special_tokens=False).ids


def test_tiktoken_merges_are_every_split_ordered_by_result_then_parts():
    from subwordlab.formats.openai_files import tiktoken_merges

    expected = [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc"), (b"ab", b"c")]
    assert tiktoken_merges({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5}) == expected
    # ranks need not be contiguous here (a rank file's are checked before)
    assert tiktoken_merges({b"a": 10, b"b": 11, b"c": 12, b"ab": 30, b"bc": 40, b"abc": 50}) == expected


def test_tiktoken_merges_try_only_splits_whose_parts_can_be_tokens():
    # the split points of a token lie where both parts are no longer than the longest other
    # token: the same merges as trying every split (random vocabularies, one huge token)
    import random

    def every_split(ranks):
        out = []
        for token in sorted(ranks, key=ranks.get):
            local = sorted((ranks[token[:k]], ranks[token[k:]], k) for k in range(1, len(token))
                           if token[:k] in ranks and token[k:] in ranks)
            out += [(token[:k], token[k:]) for _, _, k in local]
        return out

    rng = random.Random(3)
    for _ in range(200):
        tokens = {bytes(rng.choice(b"ab") for _ in range(rng.randrange(1, 7))) for _ in range(rng.randrange(1, 30))}
        if rng.random() < 0.3:
            tokens.add(b"ab" * rng.randrange(4, 40))
        ranks = {t: r for r, t in enumerate(sorted(tokens, key=lambda t: (len(t), t)))}
        assert tiktoken_merges(ranks) == every_split(ranks)


def test_a_rank_with_thousands_of_digits_is_named_not_converted():
    with pytest.raises(ModelFileError, match=r"rank file line 2: the rank 999999999999… has 5,000 digits"):
        from_tiktoken("QQ== 0\nQg== " + "9" * 5000 + "\n", pattern="gpt2")
    with pytest.raises(ModelFileError, match="rank file line 1: expected '<base64 token> <rank>'"):
        from_tiktoken("QQ== ²\n", pattern="gpt2")


def test_a_token_longer_than_the_cap_is_refused_so_a_staircase_file_stays_linear():
    # a crafted staircase a, aa, aaa, ...: every split of every token is hashed, so without
    # the cap the cost grows with the cube of the longest token
    import base64

    from subwordlab.formats.openai_files import MAX_RANK_TOKEN_BYTES
    lines = [f"{base64.b64encode(b'a' * n).decode()} {n - 1}" for n in range(1, MAX_RANK_TOKEN_BYTES + 2)]
    with pytest.raises(ModelFileError, match=rf"line {MAX_RANK_TOKEN_BYTES + 1}: a token of {MAX_RANK_TOKEN_BYTES + 1} bytes"):
        from_tiktoken("\n".join(lines), pattern="gpt2")
    # up to the cap, the staircase's merges (one per split: 32,640 from 256 tokens) are refused
    # past 16 per token, so what a file derives stays linear in its size
    with pytest.raises(ModelFileError, match=r"256 tokens split into more than 5,096 merges"):
        from_tiktoken("\n".join(lines[:MAX_RANK_TOKEN_BYTES]), pattern="gpt2")


def test_a_rank_file_in_any_order_with_blank_lines_loads_like_the_plain_one():
    # OpenAI's files are read a slice at a time; any other layout line by line, to the same model
    ranks = byte_ranks()
    ranks.update({b"lo": 256, b"low": 257, b" low": 258, b"er": 259})
    plain = from_tiktoken(rank_file(ranks), pattern="gpt2")
    lines = rank_file(ranks).splitlines()
    messy = "\n".join(lines[::-1][:100] + ["", "  "] + [line.replace(" ", "\t") for line in lines[::-1][100:]])
    other = from_tiktoken(messy, pattern="gpt2")
    assert other.model.vocab == plain.model.vocab and other.model.tokens == plain.model.tokens
    assert other.encode("low lower") == plain.encode("low lower") == [257, 258, 259]


def test_long_tokens_that_could_split_many_ways_are_derived_at_load():
    # 40 tokens of 200 bytes could split 199 ways each, more than MERGES_PER_TOKEN allow: the
    # merges are then derived at load (and would be refused if too many); these split into one
    import random

    rng = random.Random(5)
    ranks = byte_ranks()
    for i in range(40):
        ranks[b"q" + bytes(rng.randrange(256) for _ in range(199))] = 256 + i
    ranks[b"ab"] = 296
    ranks[b"ab" + bytes(198)] = 297  # needs a split of the last (198 zero bytes) too
    ranks[bytes(198)] = 298
    tok = from_tiktoken(rank_file(ranks), pattern="gpt2")
    assert tok.model._merges is not None  # derived at load
    assert tok.model.merges == [(97, 98), (296, 298)] and tok.model.base_size == 296


def test_a_rank_model_merges_by_the_rank_of_the_concatenation_like_tiktoken():
    # where a merge order and tiktoken's rule could part ways, the rank model follows
    # tiktoken: the lowest-ranked concatenation, the leftmost on a tie, one pair at a time
    from subwordlab.models.rank_bpe import RankBPE

    ranks = byte_ranks()
    ranks.update({b"ab": 256, b"ba": 257, b"aba": 258, b"abab": 259, b"bab": 260})
    m = RankBPE.from_ranks(list(ranks))
    assert m.encode_bytes(b"ababa") == m.merge_ids([97, 98, 97, 98, 97]) == [256, 258]  # ab.ab.a -> ab.aba
    assert m.encode_bytes(b"abab") == [259]  # the whole piece is a token: tiktoken's first look
    # (ab, a) and (a, ba) both make aba: the leftmost merges
    assert [t for t, _, _ in m.merge_spans([(256, 0, 2), (97, 2, 3), (257, 3, 5)])] == [258, 257]


@pytest.mark.cpython_only
def test_a_rank_model_encodes_as_tiktoken_on_random_rank_tables():
    import random

    import tiktoken

    from subwordlab.text.patterns import PATTERNS

    rng = random.Random(7)
    for trial in range(30):
        ranks = byte_ranks()
        # random tokens over a small alphabet, in a random rank order (no BPE history needed)
        while len(ranks) < 256 + 40:
            word = bytes(rng.choice(b"ab c") for _ in range(rng.randint(2, 5)))
            ranks.setdefault(word, len(ranks))
        tok = from_tiktoken(rank_file(ranks), pattern="gpt2")
        enc = tiktoken.Encoding(f"t{trial}", pat_str=PATTERNS["gpt2"], mergeable_ranks=ranks, special_tokens={})
        for _ in range(20):
            text = "".join(rng.choice("ab c") for _ in range(rng.randint(1, 30)))
            assert tok.encode(text) == enc.encode_ordinary(text), (trial, text)
            assert tok.encode_full(text).ids == enc.encode_ordinary(text), (trial, text)


def test_loading_reports_progress_that_only_grows_to_the_end():
    from subwordlab.formats.openai_files import iter_from_tiktoken

    ranks = byte_ranks()
    ranks.update({b"q" + bytes(range(i, i + 199)): 256 + i for i in range(40)})  # derived at load
    for text in (rank_file(byte_ranks()), rank_file(ranks)):
        seen, tok = run_steps(iter_from_tiktoken(text, pattern="gpt2"))
        fractions = [done / total for done, total in seen]
        assert fractions == sorted(fractions) and fractions[-1] == 1 and tok.vocab_size == len(text.splitlines())


def _plain_tiktoken_merge(ranks, data):
    """tiktoken's rule written plainly: the whole piece if it is a token, else from its bytes
    merge the adjacent pair whose concatenation has the lowest rank (the leftmost on a tie)."""
    if data in ranks:
        return [ranks[data]]
    parts = [bytes([b]) for b in data]
    while True:
        found = [(ranks[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in ranks]
        if not found:
            return [ranks[p] for p in parts]
        _, i = min(found)
        parts[i:i + 2] = [parts[i] + parts[i + 1]]


_PIECE_BYTES = st.lists(st.sampled_from(b"ab \xd0\xb0\xd1"), min_size=1, max_size=30).map(bytes)


@settings(max_examples=examples(150), deadline=None)
@given(extra=st.lists(_PIECE_BYTES, max_size=40, unique=True), order=st.randoms(use_true_random=False),
       pieces=st.lists(_PIECE_BYTES, min_size=1, max_size=8))
def test_a_rank_models_fast_encode_equals_the_plain_merge(extra, order, pieces):
    # encode_bytes's shortcuts (the whole piece's own id, the first pair ranks read from a
    # table of byte pairs) against the plain rule, on rank tables in any order: byte tokens
    # after longer ones, two-byte tokens ranked above their extensions, and so on
    from subwordlab.models.rank_bpe import RankBPE

    tokens = list(dict.fromkeys([bytes([b]) for b in range(256)] + extra))
    order.shuffle(tokens)
    model = RankBPE.from_ranks(tokens)
    ranks = {t: i for i, t in enumerate(tokens)}
    for piece in pieces:
        assert model.encode_bytes(piece) == _plain_tiktoken_merge(ranks, piece), piece


@given(st.binary(max_size=64), st.text(max_size=8))
def test_byte_characters_go_back_to_their_bytes_and_anything_else_is_named(data, other):
    """text_to_bytes translates at C speed; a character that is not one of GPT-2's 256 byte
    characters (the space, U+4E00, a control...) still raises the error that names it."""
    from subwordlab.text.bytes_map import CHAR_TO_BYTE, bytes_to_text

    assert text_to_bytes(bytes_to_text(data)) == data
    text = bytes_to_text(data) + other
    bad = next((c for c in text if c not in CHAR_TO_BYTE), None)
    if bad is None:
        assert text_to_bytes(text) == bytes(CHAR_TO_BYTE[c] for c in text)
    else:
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            text_to_bytes(text)


def test_a_tokenizer_json_vocabulary_read_a_chunk_at_a_time_is_read_as_at_once(monkeypatch):
    """The vocabulary and merges of a tokenizer.json are read in chunks (the page paints
    between them): chunks of 7 give the very tokenizer one chunk gives, the progress only
    grows, and a bad entry in a late chunk is still named."""
    from subwordlab.base.events import drain
    from subwordlab.formats import hf_import
    from subwordlab.formats.detect import read_model_steps
    from subwordlab.formats.hf_export import to_hf_json
    from subwordlab.formats.our_json import to_json

    tok = subwordlab.train(read("tinyshakespeare.txt")[:20_000], preset="byte_bpe", vocab_size=400,
                           special_tokens=["<|endoftext|>"])
    data = to_hf_json(tok)
    at_once = drain(read_model_steps(data)).tokenizer
    for chunk in ("_BULK_CHUNK", "_MERGES_CHUNK"):
        monkeypatch.setattr(hf_import, chunk, 7)
    progress, loaded = run_steps(read_model_steps(data))
    in_chunks = loaded.tokenizer
    assert len(progress) > 400 // 7 and progress == sorted(progress)
    assert to_json(in_chunks) == to_json(at_once)
    doc = json.loads(data)
    vocab = doc["model"]["vocab"]
    last = max(vocab, key=vocab.get)
    for bad, says in ((vocab[last] - 3, "is given to both"), (-1, "expected a non-negative integer id"),
                      (len(vocab) + 5, "id 399 is missing")):
        broken = json.loads(data)
        broken["model"]["vocab"][last] = bad
        with pytest.raises(ModelFileError, match=says):
            drain(read_model_steps(json.dumps(broken)))
