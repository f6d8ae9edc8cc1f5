"""Pathological corpora train with every algorithm (small sizes here; full sizes, time and
peak memory against SentencePiece in bench/bench_pathological.py): one repeated character
(a single huge word), a long line without spaces, random bytes decoded leniently. A huge
word trains as runs of at most MAX_WORD_SYMBOLS symbols, so its cost is that of many
ordinary words; a training that would learn no token is refused with a message."""

import random

import pytest

import subwordlab
from subwordlab.corpus import MAX_WORD_SYMBOLS, CorpusError, cut_long

from corpora import read

PRESETS = ["bpe", "byte_bpe", "wordpiece", "unigram", "sentencepiece_bpe", "sentencepiece_unigram"]


def corpora():
    rng = random.Random(13)
    return {
        "repeated": "a" * (3 * MAX_WORD_SYMBOLS + 17),
        "no_spaces": "".join(read("tinyshakespeare.txt")[:12_000].split()),
        "random": bytes(rng.randrange(256) for _ in range(3_000)).decode("utf-8", "replace"),
    }


@pytest.mark.parametrize("name", ["repeated", "no_spaces", "random"])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_algorithm_trains_on_pathological_corpora(preset, name):
    text = corpora()[name]
    options = {"max_input_chars_per_word": 20_000} if preset == "wordpiece" else {}
    tok = subwordlab.train(text, preset, vocab_size=3000 if name == "random" else 400, **options)
    assert tok.vocab_size > len(tok.special_tokens)
    sample = text[:300]
    if preset == "wordpiece":
        assert tok.encode(sample)  # (WordPiece's decoder does not restore every character)
    else:
        # every character comes back (white space as the preset's decoder writes it)
        assert tok.decode(tok.encode(sample)).split() == tok.normalize_str(sample).split()


def test_a_huge_word_trains_as_runs_of_bounded_length():
    assert cut_long("abcde", 2) == ["ab", "cd", "e"] and cut_long("ab", 2) == ["ab"]
    # Unigram: the identical runs of a repeated character are one distinct word
    events = list(subwordlab.iter_train("a" * (5 * MAX_WORD_SYMBOLS), "unigram", vocab_size=30))
    assert events[0].distinct_words == 1  # (the counted word, before cutting)
    tok = events[-1].tokenizer
    assert max(len(p) for p in tok.model.vocab) <= 17  # pieces stay within max_piece_length (+ ▁)
    # BPE: merges never cross a cut, so no token is longer than a run
    bpe = subwordlab.train("ab" * MAX_WORD_SYMBOLS, "bpe", num_merges=30, end_of_word=None)
    assert max(map(len, bpe.model.vocab)) <= MAX_WORD_SYMBOLS


@pytest.mark.parametrize("preset", ["unigram", "sentencepiece_unigram"])
def test_unigram_trains_a_word_longer_than_max_sentence_length_on_its_first_bytes_and_says_so(preset):
    line = "".join(read("tinyshakespeare.txt")[:60_000].split())  # one "word" of ~48,000 bytes
    events = list(subwordlab.iter_train(line, preset, vocab_size=300))
    seed, tok = events[0], events[-1].tokenizer
    # the message names the limit, the word's size and how to change it
    (note,) = seed.notes
    assert note.startswith(f"1 word was longer than max_sentence_length=4,192 bytes (the longest: "
                           f"{len(line.encode()) + 3:,} bytes)")  # (with its ▁)
    assert "raise max_sentence_length" in note
    # bounded: the seed comes from the first 4,192 bytes only (SentencePiece's default), so it
    # is no bigger than that text's substrings allow ...
    chars = len(set(line))
    assert seed.vocab_size - chars - len(tok.special_tokens) <= 16 * 4192
    # ... yet every character of the line has a piece, even those only past the limit
    late = set(line) - set(line[:4000])
    assert late and all(c in tok.model.token_to_id for c in late)
    assert tok.decode(tok.encode(line[-300:])).strip() == line[-300:]
    # raising the limit trains on the whole line: a bigger seed, no note
    more = list(subwordlab.iter_train(line, preset, vocab_size=300, max_sentence_length=100_000))
    assert more[0].notes == () and more[0].vocab_size > seed.vocab_size


def test_max_sentence_length_is_checked_against_its_range():
    from subwordlab.options import OptionError, check_options

    with pytest.raises(OptionError, match="max_sentence_length must be a whole number from 1"):
        check_options("sentencepiece_unigram", {"max_sentence_length": 0})
    with pytest.raises(ValueError, match="max_sentence_length"):
        subwordlab.train("ab", "unigram", vocab_size=10, max_sentence_length=-1)


def test_a_words_start_is_cut_at_a_character_boundary():
    from subwordlab.trainers.unigram import _head_bytes

    assert _head_bytes("\u2581abc", 4) == "\u2581a" and _head_bytes("\u2581abc", 2) == ""
    assert _head_bytes("é" * 10, 5) == "éé"


def test_training_says_how_many_characters_a_custom_pattern_left_unmatched():
    (note,) = next(iter(subwordlab.iter_train("ab, cd! ef", "byte_bpe", vocab_size=260, pattern="[a-z]+"))).notes
    assert note == "the pattern left 4 characters unmatched; they are kept as their own pieces"
    assert next(iter(subwordlab.iter_train("ab, cd! ef", "byte_bpe", vocab_size=260))).notes == ()


def test_the_command_line_prints_the_notes_of_a_run(tmp_path, capsys):
    from subwordlab.cli import main

    corpus = tmp_path / "line.txt"
    corpus.write_text("".join(read("tinyshakespeare.txt")[:8_000].split()), encoding="utf-8")
    assert main(["train", "--preset", "unigram", "--vocab-size", "200", "-q", "-o", str(tmp_path / "m.json"),
                 str(corpus)]) == 0
    err = capsys.readouterr().err
    assert "note: 1 word was longer than max_sentence_length=4,192 bytes" in err


def test_a_training_that_would_learn_no_token_is_refused():
    with pytest.raises(CorpusError, match="every word of the corpus is longer than max_input_chars_per_word=100"):
        subwordlab.train("a" * 300, "wordpiece", vocab_size=100)
    with pytest.raises(CorpusError, match="empty"):
        subwordlab.train("<s>", "bpe", vocab_size=100, special_tokens=["<s>"])


def _reference_log_space(edges, n, scores, f):
    """The textbook forward-backward in log space: (expected counts by piece, log Z)."""
    import math

    def logaddexp(a, b):
        a, b = max(a, b), min(a, b)
        return a if b == -math.inf else a + math.log1p(math.exp(b - a))

    fwd = [-math.inf] * (n + 1)
    fwd[0] = 0.0
    for s, e, i in edges:
        fwd[e] = logaddexp(fwd[e], fwd[s] + scores[i])
    bwd = [-math.inf] * (n + 1)
    bwd[n] = 0.0
    expected = [0.0] * len(scores)
    for s, e, i in reversed(edges):
        v = scores[i] + bwd[e]
        bwd[s] = logaddexp(bwd[s], v)
        expected[i] += f * math.exp(fwd[s] + v - fwd[n])
    return expected, fwd[n]


@pytest.mark.parametrize("scale", [1.0, 1e-30])
def test_the_scaled_forward_backward_of_a_long_word_equals_the_log_space_one(scale):
    import math

    from subwordlab.trainers.unigram import _forward_backward_scaled

    rng = random.Random(5)
    pieces = ["a", "b", "ab", "ba", "aab", "abab", "bbbbbbbb"]
    probs = [rng.uniform(0.01, 0.3) * scale for _ in pieces]  # 1e-30: underflows within a dozen characters
    word = "".join(rng.choice("ab") for _ in range(600))
    edges = sorted((s, s + len(p), k) for s in range(len(word)) for k, p in enumerate(pieces) if word.startswith(p, s))
    expected = [0.0] * len(pieces)
    log_z = _forward_backward_scaled(edges, len(word), probs, 3, expected)
    want, want_z = _reference_log_space(edges, len(word), [math.log(p) for p in probs], 3)
    assert math.isclose(log_z, want_z, rel_tol=1e-9)
    assert all(math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9) for a, b in zip(expected, want))


def test_word_counts_read_at_once_say_what_the_line_by_line_reading_says():
    # parse_word_counts takes the well-formed start of a list in one pass (C speed) and reads
    # on line by line from the first line it could not take: the same counts, the same message
    # as reading every line one by one
    from subwordlab import corpus

    def outcome(parse, text):
        try:
            return list(parse(text).items())
        except CorpusError as exc:
            return str(exc)

    rng = random.Random(7)
    for _ in range(3000):
        lines = []
        for _ in range(rng.randrange(0, 8)):
            word = rng.choice(["w1", "w2", "w3", "é", "a\x1cb", "\ufeffx"])
            count = rng.choice(["1", "5", "0", "007", "²", "99999999999999", "1000000000000", "1000000000001"])
            lines.append(rng.choice(["", " ", "\t"]) + word + rng.choice([" ", "\t", " \t"]) + count + rng.choice(["", " "]))
            if rng.random() < 0.1:
                lines.append(rng.choice(["", "x", "a b c", "   ", "\x0b"]))
        text = "".join(line + rng.choice(["\n", "\r\n", "\r", "\n"]) for line in lines)
        text = text.rstrip("\n") if rng.random() < 0.3 else text
        assert outcome(corpus.parse_word_counts, text) == outcome(corpus._read_lines, text), repr(text)
