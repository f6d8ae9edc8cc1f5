"""``rules="sentencepiece"`` against ``spm_train`` itself (the sentencepiece package,
``num_threads=1``), reading the same text one sentence per line.

SentencePiece BPE must give the same pieces in the same order, with the scores spm writes
(``-i`` for the i-th merged piece, continuing over the required characters, as float32).
Both normalize with spm's nfkc table (spm's ``normalization_rule_name="nfkc"``, our
``normalization="nfkc"``, which these rules read from spm's own table: ``text/charsmap.py``).

Corpora we did not design: the UDHR in six scripts, Shakespeare, Wikipedia text (Taylor
Swift's article), Python source from the standard library.
"""

import io
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples
from test_rules_hf import stdlib_source

import subwordlab
from corpora import UDHR, read

pytestmark = pytest.mark.cpython_only

CORPORA = {
    **{p.stem: (lambda p=p: p.read_text(encoding="utf-8")) for p in UDHR},
    "shakespeare_300k": lambda: read("tinyshakespeare.txt")[:300_000],
    "shakespeare": lambda: read("tinyshakespeare.txt"),
    "wikipedia": lambda: read("taylorswift.txt"),
    "stdlib": stdlib_source,
}


def spm_pieces(text, model_type, vocab_size, **options):
    """spm_train on ``text``'s lines: ``[(piece, score), ...]`` by id."""
    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text.split("\n")), model_writer=out, vocab_size=vocab_size,
                                   model_type=model_type, num_threads=1, minloglevel=2,
                                   **{"normalization_rule_name": "nfkc", **options})
    sp = spm.SentencePieceProcessor(model_proto=out.getvalue())
    return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]


def check_bpe(text, vocab_size, character_coverage=1.0, split_digits=False, byte_fallback=False):
    theirs = spm_pieces(text, "bpe", vocab_size, character_coverage=character_coverage, split_digits=split_digits,
                        byte_fallback=byte_fallback)
    tok = subwordlab.train(text, preset="sentencepiece_bpe", vocab_size=vocab_size, rules="sentencepiece",
                           character_coverage=character_coverage, split_digits=split_digits,
                           byte_fallback=byte_fallback)
    ours = tok.model.vocab
    first = next((i for i, (a, (b, _)) in enumerate(zip(ours, theirs)) if a != b), None)
    assert ours == [p for p, _ in theirs], f"first different piece: #{first}"
    # the scores: 0 for the reserved pieces, then -i for the i-th piece after them
    reserved = 3 + 256 * byte_fallback
    assert [s for _, s in theirs] == [0.0] * reserved + [-float(i) for i in range(len(ours) - reserved)]


@pytest.mark.parametrize("name, vocab_size", [("udhr_eng", 300), ("udhr_rus", 500), ("udhr_arb", 600),
                                              ("udhr_hin", 800), ("udhr_kor", 1000), ("udhr_cmn_hans", 1200)])
def test_bpe_equals_spm_train_on_udhr(name, vocab_size):
    check_bpe(CORPORA[name](), vocab_size)


@pytest.mark.parametrize("name, vocab_size", [("wikipedia", 3000), ("stdlib", 2500),
                                              ("shakespeare", 8000)])
def test_bpe_equals_spm_train(name, vocab_size):
    check_bpe(CORPORA[name](), vocab_size)


def test_an_exhausted_corpus_goes_on_with_pairs_that_occur_no_more():
    """UDHR Russian at 2,500: no pair occurs after ~2,070 pieces; spm then adds pairs met before (count 0)."""
    check_bpe(CORPORA["udhr_rus"](), 2500)


def test_bpe_with_coverage_split_digits_and_byte_fallback():
    check_bpe(CORPORA["wikipedia"](), 1500 + 256, character_coverage=0.9995, split_digits=True, byte_fallback=True)


def test_the_issue_case_shares_all_2000_pieces():
    """Issue 30: sentencepiece_bpe at 2,000 on 300 KB shared 1,516 of 2,000 pieces with spm_train."""
    check_bpe(CORPORA["shakespeare_300k"](), 2000)


def test_no_piece_holds_a_line_break_under_the_sentencepiece_rules():
    tok = subwordlab.train(CORPORA["shakespeare_300k"](), preset="sentencepiece_bpe", vocab_size=2000,
                           rules="sentencepiece")
    assert not [p for p in tok.model.vocab if "\n" in p]


@pytest.mark.parametrize("preset", ["sentencepiece_bpe", "sentencepiece_unigram"])
def test_the_sentencepiece_presets_read_a_sentence_per_line_by_default(preset):
    """Issue 30: the presets learned pieces like '.↵↵' and split a line's first word from its
    '▁'; spm_train reads a sentence per line, and so do they now, under any rules."""
    import json

    from subwordlab.formats.our_json import from_json, to_json

    text = CORPORA["shakespeare_300k"]()[:30_000]
    tok = subwordlab.train(text, preset=preset, vocab_size=400)
    assert tok.spec["sentence_per_line"] is True
    assert not [p for p in tok.model.vocab if "\n" in p]
    # a line's first word is a word like any other: "And" after a line break as after a space
    assert tok.encode("Come.\nAnd go") == tok.encode("Come. And go")
    # a model saved before the option existed (its spec without it) read the corpus whole,
    # and still does: its file loads and encodes line breaks as it did
    whole = subwordlab.train(text, preset=preset, vocab_size=400, sentence_per_line=False)
    saved = json.loads(to_json(whole))
    assert "sentence_per_line" not in saved["spec"]
    again = from_json(json.dumps(saved))
    assert again.encode("Come.\nAnd go") == whole.encode("Come.\nAnd go")
    assert any("\n" in p for p in whole.model.vocab)


# -- reserved pieces in the text: user-defined symbols, and the text of <s>, </s>, <unk> ----------

def with_reserved_text(text):
    """``text`` with user-defined symbols and the special tokens' own text in its lines
    (spm replaces each by its boundary character, which no piece crosses)."""
    lines = text.split("\n")
    for i in range(0, len(lines), 3):
        lines[i] = lines[i].replace(" the ", " <sep> the ").replace("of", "of[MASK]")
    for i in range(1, len(lines), 7):
        lines[i] = lines[i].replace("a", "<s>a", 1).replace("e", "e</s>", 1) + " <unk>"
    return "\n".join(lines)


def spm_and_ours(text, model_type, vocab_size, **options):
    """spm_train's pieces and ours (with their scores for Unigram: ``[(piece, score)]``), each
    trained on ``text`` with ``options``, our tokenizer and the sentencepiece module; or the
    two messages when spm refuses."""
    import sentencepiece as spm

    preset = "sentencepiece_bpe" if model_type == "bpe" else "sentencepiece_unigram"
    try:
        theirs = spm_pieces(text, model_type, vocab_size, **options)
    except RuntimeError as e:  # (spm refuses a vocabulary its corpus cannot fill: so must we)
        with pytest.raises(ValueError) as ours_e:
            subwordlab.train(text, preset=preset, vocab_size=vocab_size, rules="sentencepiece",
                             **{"character_coverage": 0.9995, **options})
        return str(e), str(ours_e.value)
    tok = subwordlab.train(text, preset=preset, vocab_size=vocab_size, rules="sentencepiece",
                           **{"character_coverage": 0.9995, **options})
    if model_type == "bpe":  # (its scores follow from the order: check_bpe checks them)
        return [p for p, _ in theirs], tok.model.vocab, tok, spm
    return theirs, list(zip(tok.model.vocab, tok.model.scores)), tok, spm


@pytest.mark.parametrize("model_type, name, vocab_size", [("bpe", "udhr_eng", 400), ("unigram", "udhr_eng", 400),
                                                          ("bpe", "wikipedia", 1500), ("unigram", "wikipedia", 1500)])
def test_user_defined_symbols_and_reserved_text_train_as_spm(model_type, name, vocab_size):
    """Issue 30: user_defined_symbols were refused under spm's Unigram rules; a reserved
    piece's text in the corpus (<s> in a line) gave other BPE merges (it was cut out of the
    text, which glued the words around it), and the boundary character spm puts there was
    kept as a required character (a piece of its own) by the Unigram port."""
    text = with_reserved_text(CORPORA[name]())
    symbols = ["<sep>", "[MASK]"]
    theirs, ours, tok, _ = spm_and_ours(text, model_type, vocab_size, user_defined_symbols=symbols)
    first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), None)
    assert ours == theirs, f"first difference at #{first}: ours {ours[first:first + 2]}, spm's {theirs[first:first + 2]}"
    assert "\x1f" not in tok.model.vocab and tok.model.vocab[3:5] == symbols


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.lists(st.text(alphabet="abéab\u2585\x1f \t", min_size=1, max_size=5), min_size=1, max_size=4),
                min_size=1, max_size=6),
       st.sampled_from([[], ["ab"], ["é"], ["ba", "a"], ["<s>"]]), st.booleans(), st.integers(0, 10),
       st.sampled_from(["bpe", "unigram"]))
def test_tie_heavy_corpora_with_reserved_text_bit_for_bit(lines, symbols, special_text, extra, model_type):
    """Symbols inside words, overlapping ones, a special token's text, spm's unknown character
    (a line holding it is skipped) and its boundary character typed into the text, tabs and
    spaces anywhere (lines of spaces only, empty once normalized); and a vocabulary larger
    than the corpus gives (spm refuses it: so do we, with its bound)."""
    text = "\n".join(" ".join(words) for words in lines) + ("\nb<s>a" if special_text else "")
    letters = len(set(text) - {" ", "\n"})
    got = spm_and_ours(text, model_type, 3 + len(symbols) + letters + 1 + extra, user_defined_symbols=symbols)
    if len(got) == 2:  # (both refused: the same bound)
        theirs, ours = got
        assert "Vocabulary size too high" not in theirs or theirs.split("<= ")[-1].split(".")[0] in ours
        return
    assert got[1] == got[0]


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
def test_tabs_at_a_line_s_ends_and_lines_of_spaces_train_and_encode_as_spm(model_type):
    """spm strips only spaces at a line's ends ('\\ta ' -> '▁\\ta'); ours stripped any white space
    (a tab too). And a line of spaces, empty once normalized, is dropped where spm drops it
    (swapped with the last sentence): a refactoring that dropped it in place changed the
    Unigram's order of sentences, and its scores. Our file, HF's load of the exported
    tokenizer.json and spm encode alike."""
    import warnings

    from tokenizers import Tokenizer

    lines = CORPORA["udhr_eng"]().split("\n")
    lines = ["  " + line.replace(" ", "\t", 1) if i % 3 else line + "\t " for i, line in enumerate(lines)]
    text = "\n".join(lines)
    theirs, ours, tok, spm = spm_and_ours(text, model_type, 400)
    assert ours == theirs
    assert any("\t" in p for p in tok.model.vocab)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = Tokenizer.from_str(subwordlab.to_hf_json(tok))
    probes = ["\tHello world\t", "  \t a  b \t ", "x\u2028", "\t\t"] + lines[:40]
    processor = spm_processor(text, model_type, 400)
    again = subwordlab.from_json(subwordlab.to_json(tok))  # (our file keeps the spaces-only strip)
    for probe in probes:
        assert again.encode(probe) == tok.encode(probe)
        assert tok.encode(probe) == processor.encode(probe) == hf.encode(probe, add_special_tokens=False).ids, probe
        assert tok.encode_full(probe).offsets == [tuple(o) for o in hf.encode(probe, add_special_tokens=False).offsets]


def spm_processor(text, model_type, vocab_size, **options):
    """spm_train's model on ``text``'s lines, loaded (to encode with it)."""
    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text.split("\n")), model_writer=out, vocab_size=vocab_size,
                                   model_type=model_type, num_threads=1, minloglevel=2,
                                   **{"normalization_rule_name": "nfkc", **options})
    return spm.SentencePieceProcessor(model_proto=out.getvalue())


@pytest.mark.parametrize("model_type, vocab_size", [("bpe", 600), ("unigram", 400)])
def test_split_digits_splits_only_the_digits_spm_knows(model_type, vocab_size):
    """spm_train's split_digits counts only 0-9 and the fullwidth ０-９ as digits
    (``is_unicode_decimal_number``); ours refused every Unicode digit in a longer piece, so
    the Khmer UDHR, whose article numbers are Khmer digits, parted at piece 151 (BPE), and
    cut every Unicode digit apart when encoding (Hindi: 62 of 80 lines as spm encodes them)."""
    import warnings

    from tokenizers import Tokenizer

    text = (Path(__file__).resolve().parents[2] / "corpora" / "udhr_more" / "udhr_khm.txt").read_text(encoding="utf-8")
    theirs, ours, tok, _ = spm_and_ours(text, model_type, vocab_size, split_digits=True)
    assert ours == theirs
    assert any(len(p) > 1 and any(c in "០១២៣៤៥៦៧៨៩" for c in p) for p in (q if isinstance(q, str) else q[0] for q in ours))
    # and it encodes as spm's model does (a Khmer number whole, 0-9 apart), in our file and
    # in the exported tokenizer.json loaded by tokenizers (a Split of [0-9０-９], not Digits)
    processor = spm_processor(text, model_type, vocab_size, split_digits=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = Tokenizer.from_str(subwordlab.to_hf_json(tok))
    again = subwordlab.from_json(subwordlab.to_json(tok))
    # (the corpus's own lines and digits: spm's BPE fuses a run of unknown characters into one
    # unk when it encodes, ours gives one each, README "Where they still part")
    for probe in [line for line in text.split("\n") if line.strip()][:60] + ["ប្រការ ១២ ១៩៤៨ 1996"]:
        ids = tok.encode(probe)
        assert ids == processor.encode(probe) == hf.encode(probe, add_special_tokens=False).ids == again.encode(probe)
        assert tok.encode_full(probe).offsets == [tuple(o) for o in hf.encode(probe, add_special_tokens=False).offsets]


@pytest.mark.parametrize("model_type, vocab_size", [("bpe", 236), ("bpe", 1086), ("unigram", 236)])
def test_scripts_are_spm_s_own_table_s(model_type, vocab_size):
    """spm_train keeps a piece to one script by its own table (an older Unicode): the
    Armenian full stop ։ is Common to it, Armenian to Unicode 16, so spm never merges a word
    with its ։. Ours read Unicode 16's scripts and learned '▁իրավունք։' (BPE: piece 131
    parted); now it reads spm's table where it differs (``text/spm_scripts.py``). Found by a
    sweep over the 41 languages of corpora/udhr_more (two sizes, both model types)."""
    from subwordlab.trainers.unigram_seed import is_valid_piece
    from subwordlab_web.samples import strip_udhr_header

    text = strip_udhr_header(read("udhr_more/udhr_hye.txt"))[0]
    theirs, ours, _, _ = spm_and_ours(text, model_type, vocab_size)
    assert ours == theirs
    assert is_valid_piece("▁իրավունք։") and not is_valid_piece("▁իրավունք։", spm=True)
    # (the textbook presets keep Unicode 16's scripts)
    assert is_valid_piece("ա\u0953") and not is_valid_piece("ա\u0953", spm=True)


def trained_as_spm(corpus, theirs, model_type, vocab_size, **options):
    """Ours under rules='sentencepiece' (character coverage 0.9995), asserted to have spm's
    pieces ``theirs`` ([(piece, score)]) in spm's order, and Unigram's scores too."""
    tok = subwordlab.train(corpus, preset=f"sentencepiece_{model_type}", vocab_size=vocab_size, rules="sentencepiece",
                           character_coverage=0.9995, **options)
    assert tok.model.vocab == [p for p, _ in theirs]
    if model_type == "unigram":
        assert tok.model.scores == [s for _, s in theirs]
    return tok


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
@pytest.mark.parametrize("name", ["udhr_vie", "udhr_mya"])
def test_without_normalization_burmese_and_vietnamese_train_and_encode_as_spm(name, model_type):
    """The two UDHR languages (of 41) whose pieces part from spm's under nfkc (spm's table
    neither reorders marks nor composes ê + U+0301: README, rules) are spm's own without
    normalization (``normalization="none"``, spm's ``identity``): pieces, scores, and the
    lines encoded alike. (The sweep: all 41 languages, both model types, identical.)"""
    from subwordlab_web.samples import strip_udhr_header

    text = strip_udhr_header(read(f"udhr_more/{name}.txt"))[0]
    vocab_size = len(set(text)) + 200
    theirs = spm_pieces(text, model_type, vocab_size, character_coverage=0.9995, normalization_rule_name="identity")
    tok = trained_as_spm(text, theirs, model_type, vocab_size, normalization="none")
    processor = spm_processor(text, model_type, vocab_size, character_coverage=0.9995, normalization_rule_name="identity")
    for line in [line for line in text.split("\n") if line.strip()][:40]:
        assert tok.encode(line) == processor.encode(line)


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
@pytest.mark.parametrize("name", ["udhr_vie", "udhr_mya"])
def test_nfkc_is_spm_s_own_table(name, model_type):
    """spm_train's nfkc is a table of replacements (its precompiled charsmap), not Unicode's
    NFKC: it does not reorder Burmese's marks, and composes Vietnamese ê + U+0301 only as its
    keys say. Ours normalized with Unicode's NFKC, so these two UDHR languages (of 41) parted
    from spm's pieces (Vietnamese: 93 of 215 lines normalized otherwise); now
    ``rules="sentencepiece"`` reads spm's own table (``text/charsmap.py``): pieces, scores, and
    every line encoded as spm's model and the exported tokenizer.json (``Precompiled``) do."""
    import warnings

    from tokenizers import Tokenizer

    from subwordlab_web.samples import strip_udhr_header

    text = strip_udhr_header(read(f"udhr_more/{name}.txt"))[0]
    vocab_size = len(set(text)) + 200
    theirs = spm_pieces(text, model_type, vocab_size, character_coverage=0.9995)
    tok = trained_as_spm(text, theirs, model_type, vocab_size)
    processor = spm_processor(text, model_type, vocab_size, character_coverage=0.9995)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported = subwordlab.to_hf_json(tok)
    assert '"type": "Precompiled"' in exported or '"type":"Precompiled"' in exported
    hf = Tokenizer.from_str(exported)
    again, back = subwordlab.from_json(subwordlab.to_json(tok)), subwordlab.from_hf_json(exported)
    lines = [line for line in text.split("\n") if line.strip()]
    assert sum(unicodedata.normalize("NFKC", line) != tok.normalize_str(line) for line in lines) > 0  # (the table matters)
    for line in lines:
        ids = tok.encode(line)
        assert ids == processor.encode(line) == hf.encode(line, add_special_tokens=False).ids == again.encode(line) == back.encode(line)
    for line in lines[:20]:
        assert tok.encode_full(line).offsets == [tuple(o) for o in hf.encode(line, add_special_tokens=False).offsets]


def test_the_nfkc_table_normalizes_as_spm_s_normalizer():
    """``text/charsmap.py`` reading spm's nfkc table gives what spm's own normalizer gives
    (no dummy prefix, spaces kept): every line of the UDHR in 47 languages, and random strings
    of marks, compatibility characters and Hangul jamo; and where tokenizers' ``Precompiled``
    (the exported file) parts from both: a Bengali vowel sign written in two parts."""
    import random

    import sentencepiece as spm
    from tokenizers import normalizers

    from subwordlab.text.charsmap import spm_nfkc

    table = spm_nfkc()
    theirs = spm.SentencePieceNormalizer(rule_name="nfkc", add_dummy_prefix=False, escape_whitespaces=False,
                                         remove_extra_whitespaces=False)
    lines = [line for path in sorted((Path(__file__).resolve().parents[2] / "corpora").glob("udhr*/*.txt"))
             for line in path.read_text(encoding="utf-8").split("\n") if line]
    assert len(lines) > 10_000
    for line in lines:
        assert table.normalize(line) == theirs.normalize(line), line
        assert "".join(u[0] for u in table.apply([(c, i, i + 1) for i, c in enumerate(line)])) == table.normalize(line)
    rng = random.Random(7)
    pool = ([chr(c) for c in [*range(0, 0x500), *range(0x1000, 0x1200), *range(0x3000, 0x3100), *range(0xFF00, 0xFFF0)]]
            + list("aeiouAEIOU<=>\u0300\u0301\u0302\u0338\u0303") * 40)
    for _ in range(5_000):
        s = "".join(rng.choice(pool) for _ in range(rng.randint(1, 10)))
        assert table.normalize(s) == theirs.normalize(s), s
    bengali = "\u0998\u09c7\u09be"  # ঘ + ে + া: spm joins the two parts of ো, tokenizers per grapheme does not
    hf = normalizers.Precompiled(table.blob)
    assert table.normalize(bengali) == theirs.normalize(bengali) == "\u0998\u09cb" != hf.normalize_str(bengali)
    vietnamese = "e\u0302\u0301"  # e + circumflex + acute: ế in spm, the acute lost per grapheme
    assert table.normalize(vietnamese) == theirs.normalize(vietnamese) == "\u1ebf" and hf.normalize_str(vietnamese) == "\u00ea"


def spm_tsv_pieces(counts, model_type, vocab_size, **options):
    """spm_train on a word-count list (its TSV input, 'word<TAB>count' lines): ``[(piece, score)]``."""
    lines = [f"{w}\t{n}" for w, n in counts.items()]
    return spm_pieces("\n".join(lines), model_type, vocab_size, input_format="tsv", **options)


@pytest.mark.parametrize("model_type", ["bpe", "unigram"])
@pytest.mark.parametrize("name", ["udhr_por_PT", "udhr_tha", "udhr_jpn"])
def test_a_word_count_list_is_read_as_spm_reads_its_tsv_input(name, model_type):
    """spm_train reads each word of its TSV input as a sentence: normalized (NFKC makes the
    Portuguese 30.º '30.o'; Thai ำ is ํา), cut into words as a line is. Ours took the words as
    they were (BPE and Unigram): 17 of 78 word-count lists of the udhr_more languages parted
    (a sweep, both model types); now none."""
    from collections import Counter

    from subwordlab_web.samples import strip_udhr_header

    counts = dict(Counter(strip_udhr_header(read(f"udhr_more/{name}.txt"))[0].split()).most_common())
    vocab_size = len(set("".join(counts))) + 200
    theirs = spm_tsv_pieces(counts, model_type, vocab_size, character_coverage=0.9995)
    trained_as_spm(counts, theirs, model_type, vocab_size)


def test_a_run_of_unknown_characters_is_one_unk_as_spm_encodes_it():
    """spm's BPE encodes a run of characters outside its vocabulary as one unk piece (its
    Unigram too); ours gave one unk each. Now one (``BPE(fuse_unk=True)``, the exported
    file's ``fuse_unk``), in our file, in tokenizers' load of the export and in our import of it."""
    import warnings

    from tokenizers import Tokenizer

    text = CORPORA["udhr_eng"]()
    theirs, ours, tok, _ = spm_and_ours(text, "bpe", 300)
    assert ours == theirs
    processor = spm_processor(text, "bpe", 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported = subwordlab.to_hf_json(tok)
    hf, back = Tokenizer.from_str(exported), subwordlab.from_hf_json(exported)
    again = subwordlab.from_json(subwordlab.to_json(tok))
    for probe in ["abc 你好吗 x", "🙂🙂 hi 你", "x你y好", "Everyone has the right"]:
        ids = tok.encode(probe)
        assert ids == processor.encode(probe) == hf.encode(probe, add_special_tokens=False).ids
        assert ids == again.encode(probe) == back.encode(probe)
        assert tok.encode_full(probe).offsets == [tuple(o) for o in hf.encode(probe, add_special_tokens=False).offsets]
    assert tok.encode("你好吗") == processor.encode("你好吗") and tok.encode("你好吗").count(0) == 1
