"""Pathological corpora train with every algorithm (small sizes here; full sizes, time and
peak memory against SentencePiece in bench/bench_pathological.py): one repeated character
(a single huge word), a long line without spaces, random bytes decoded leniently. Every
trainer bounds a word as SentencePiece bounds a line: BPE and Unigram train a word longer
than ``max_sentence_length`` (4,192 bytes) on its first 4,192 bytes, WordPiece leaves a word
longer than ``max_input_chars_per_word`` out (as BERT), and each says so; with the limit
raised, a huge word trains as runs of at most MAX_WORD_SYMBOLS symbols. A training that
would learn no token is refused with a message."""

import random

import pytest

import subwordlab
from corpora import read
from subwordlab.text.corpus import MAX_WORD_SYMBOLS, CorpusError, cut_long

PRESETS = ["bpe", "byte_bpe", "wordpiece", "unigram", "sentencepiece_bpe", "sentencepiece_unigram"]


def corpora():
    rng = random.Random(13)
    return {
        "repeated": "a" * (3 * MAX_WORD_SYMBOLS + 17),
        "no_spaces": "".join(read("tinyshakespeare.txt")[:12_000].split()),
        "random": bytes(rng.randrange(256) for _ in range(3_000)).decode("utf-8", "replace"),
    }


def limited(preset, name):
    """Whether (preset, corpus) has a word longer than max_sentence_length: the one word of
    'repeated' and 'no_spaces' (byte_bpe's pattern cuts the latter at punctuation)."""
    return preset != "wordpiece" and (name == "repeated" or (name == "no_spaces" and preset != "byte_bpe"))


@pytest.mark.parametrize("name", ["repeated", "no_spaces", "random"])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_algorithm_trains_on_pathological_corpora(preset, name):
    text = corpora()[name]
    options = {"max_input_chars_per_word": 20_000} if preset == "wordpiece" else {}
    events = list(subwordlab.iter_train(text, preset, vocab_size=3000 if name == "random" else 400, **options))
    tok = events[-1].tokenizer
    assert tok.vocab_size > len(tok.special_tokens)
    # the bound applied exactly where a word is longer than it, and training said so
    (alphabet,) = [e for e in events if e.kind == "alphabet"]
    said = [n for n in alphabet.notes if "longer than max_sentence_length=4,192 bytes" in n]
    assert len(said) == limited(preset, name), alphabet.notes
    for sample in (text[:300], text[-300:]):  # (the end: past the bound, every character still has a token)
        if preset == "wordpiece":
            assert "[UNK]" not in tok.tokenize(sample)  # (its decoder does not restore every character)
        else:
            # every character comes back (white space as the preset's decoder writes it)
            assert tok.decode(tok.encode(sample)).split() == tok.normalize_str(sample).split()


@pytest.mark.parametrize("preset", ["bpe", "byte_bpe", "sentencepiece_bpe"])
def test_bpe_trains_a_word_longer_than_max_sentence_length_on_its_first_bytes_and_says_so(preset):
    word = "ab" * 3000 + "cd" * 3000  # one word of 12,000 bytes; 'cd' only past the first 4,192
    events = list(subwordlab.iter_train(word, preset, num_merges=20))
    (alphabet,) = [e for e in events if e.kind == "alphabet"]
    (note,) = alphabet.notes
    size = len(word) + (3 if preset == "sentencepiece_bpe" else 0)  # (with its ▁)
    assert note.startswith(f"1 word was longer than max_sentence_length=4,192 bytes (the longest: {size:,} bytes)")
    assert "raise max_sentence_length" in note
    merged = {"".join(e.pair) for e in events if e.kind == "merge"}
    tok = events[-1].tokenizer
    assert merged and "cd" not in merged  # (merges learned from the first 4,192 bytes only)
    assert tok.decode(tok.encode(word)).strip() == word  # (every character still has a token)
    # raising the limit trains on the whole word: 'cd' is learned too, and nothing is said
    more = list(subwordlab.iter_train(word, preset, num_merges=20, max_sentence_length=100_000))
    assert [e.notes for e in more if e.kind == "alphabet"] == [()]
    assert "cd" in {"".join(e.pair) for e in more if e.kind == "merge"}


def test_a_word_cut_by_the_bound_gets_no_end_of_word_marker():
    # the first 4,192 bytes of a word are not where it ends: no </w> after them
    from subwordlab.trainers.bpe import symbol_runs

    ids = {"x": 0, "y": 1, "é": 2, "</w>": 3}
    limited = []
    words, _ = symbol_runs({"xy" * 3000: 1, "xy": 1, "é" * 2100: 1}, {"x", "y", "é"}, ids, "</w>", 4192,
                           limited=limited)
    # (4,192 symbols: cut into runs of MAX_WORD_SYMBOLS)
    assert [len(w) for w in words] == [MAX_WORD_SYMBOLS, 96, 3, 2096] and words[2][-1] == 3
    assert 3 not in words[0] + words[1] + words[3]
    assert limited == [6000, 4200]  # (bytes: 'é' takes two, and is never cut in half)


def test_a_huge_word_trains_as_runs_of_bounded_length():
    assert cut_long("abcde", 2) == ["ab", "cd", "e"] and cut_long("ab", 2) == ["ab"]
    # Unigram: the identical runs of a repeated character are one distinct word
    events = list(subwordlab.iter_train("a" * (5 * MAX_WORD_SYMBOLS), "unigram", vocab_size=30))
    assert events[0].distinct_words == 1  # (the counted word, before cutting)
    tok = events[-1].tokenizer
    assert max(len(p) for p in tok.model.vocab) <= 17  # pieces stay within max_piece_length (+ ▁)
    # BPE (with max_sentence_length raised): merges never cross a cut, so no token is longer than a run
    bpe = subwordlab.train("ab" * MAX_WORD_SYMBOLS, "bpe", num_merges=30, end_of_word=None, max_sentence_length=10**6)
    assert max(map(len, bpe.model.vocab)) <= MAX_WORD_SYMBOLS
    # ... and the identical runs of a repeated character are one distinct word, counts added
    from subwordlab.trainers.bpe import symbol_runs

    words, freqs = symbol_runs({"a" * (2 * MAX_WORD_SYMBOLS + 1808): 3}, {"a"}, {"a": 0}, None)
    assert [len(w) for w in words] == [MAX_WORD_SYMBOLS, 1808] and freqs == [6, 3]


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
    from subwordlab.text.corpus import head_bytes as _head_bytes

    assert _head_bytes("\u2581abc", 4) == "\u2581a" and _head_bytes("\u2581abc", 2) == ""
    assert _head_bytes("é" * 10, 5) == "éé"


def test_training_says_how_many_characters_a_custom_pattern_left_unmatched():
    (note,) = next(iter(subwordlab.iter_train("ab, cd! ef", "byte_bpe", vocab_size=260, pattern="[a-z]+"))).notes
    assert note == "the pattern left 4 characters unmatched; they are kept as their own pieces"
    assert next(iter(subwordlab.iter_train("ab, cd! ef", "byte_bpe", vocab_size=260))).notes == ()


@pytest.mark.parametrize("preset", ["unigram", "bpe", "byte_bpe"])
def test_the_command_line_prints_the_notes_of_a_run(tmp_path, capsys, preset):
    from subwordlab.cli import main

    corpus = tmp_path / "line.txt"
    corpus.write_text("".join(read("tinyshakespeare.txt")[:8_000].split()) + " " + "z" * 5000, encoding="utf-8")
    assert main(["train", "--preset", preset, "--vocab-size", "300", "-q", "-o", str(tmp_path / "m.json"),
                 str(corpus)]) == 0
    err = capsys.readouterr().err
    assert "note: " in err and " longer than max_sentence_length=4,192 bytes" in err and "raise max_sentence_length" in err
    # the option the note names is the command line's too
    assert main(["train", "--preset", preset, "--vocab-size", "300", "-q", "-o", str(tmp_path / "m.json"),
                 "--max-sentence-length", "20000", str(corpus)]) == 0
    assert "max_sentence_length" not in capsys.readouterr().err


def test_wordpiece_says_which_words_it_left_out_of_training():
    events = list(subwordlab.iter_train("ab cd " + "x" * 150 + " " + "y" * 120, "wordpiece", vocab_size=40))
    (alphabet,) = [e for e in events if e.kind == "alphabet"]
    assert alphabet.notes == ("2 distinct words were longer than max_input_chars_per_word=100 characters (the longest: "
                              "150); they were left out of training and encode as [UNK], as in BERT. To train on them, "
                              "raise max_input_chars_per_word (training time and memory grow with it) or put spaces in "
                              "the text.",)
    tok = events[-1].tokenizer
    assert tok.tokenize("x" * 150) == ["[UNK]"] and "x" not in tok.model.vocab
    more = list(subwordlab.iter_train("ab cd " + "x" * 150, "wordpiece", vocab_size=40, max_input_chars_per_word=200))
    assert [e.notes for e in more if e.kind == "alphabet"] == [()]


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

    from subwordlab.trainers.lattice import forward_backward_scaled

    rng = random.Random(5)
    pieces = ["a", "b", "ab", "ba", "aab", "abab", "bbbbbbbb"]
    probs = [rng.uniform(0.01, 0.3) * scale for _ in pieces]  # 1e-30: underflows within a dozen characters
    word = "".join(rng.choice("ab") for _ in range(600))
    edges = sorted((s, s + len(p), k) for s in range(len(word)) for k, p in enumerate(pieces) if word.startswith(p, s))
    expected = [0.0] * len(pieces)
    log_z = forward_backward_scaled(edges, len(word), probs, 3, expected)
    want, want_z = _reference_log_space(edges, len(word), [math.log(p) for p in probs], 3)
    assert math.isclose(log_z, want_z, rel_tol=1e-9)
    assert all(math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9) for a, b in zip(expected, want))


def test_word_counts_read_at_once_say_what_the_line_by_line_reading_says():
    # parse_word_counts takes the well-formed start of a list in one pass (C speed) and reads
    # on line by line from the first line it could not take: the same counts, the same message
    # as reading every line one by one
    from subwordlab.text import corpus

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
