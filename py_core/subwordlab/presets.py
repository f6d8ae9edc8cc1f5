"""Presets: the algorithms the playground offers, each a composition of pipeline stages
around a trainer (``trainers/``: the algorithms themselves).

- ``bpe``: char-level BPE on white-space-separated words with an end-of-word marker
  (Sennrich et al. 2016), the textbook form.
- ``byte_bpe``: byte-level BPE over regex chunks (GPT-2 and later): 256 byte tokens,
  never an unknown token.
- ``sentencepiece_bpe``: BPE on raw text where spaces are ▁ (SentencePiece style).

- ``wordpiece``: BERT's pipeline and WordPiece merges by score (below).
- ``unigram``, ``sentencepiece_unigram``: Unigram pruning on words or on raw text (below).

``OPTIONS[preset]`` lists every option with its default and a one-line explanation, a view
of the schema in options.py (the UI and the CLI are built from that schema);
``TRAINERS[preset]`` is the event generator of a preset.
"""

import json
import re
from dataclasses import replace
from typing import Any

from .base.events import Done, Progress, drain
from .base.registry import dump_component
from .options import PRESETS, check_options, preset_of
from .pipeline.decoders import ByteLevelDecoder, ConcatDecoder, MetaspaceDecoder, SuffixDecoder, WordPieceDecoder
from .pipeline.normalizers import Collapse, Lowercase, Precompiled, Replace, Sequence, StripAccents, Unicode
from .pipeline.pre_tokenizers import BertPreTokenizer, ByteLevel, MetaspaceWithSymbols, WhitespaceMetaspace, WhitespaceSplit
from .text.bytes_map import BYTE_TO_CHAR, LATIN1_TO_BYTE_CHARS
from .text.corpus import (
    EMPTY_CORPUS,
    CorpusError,
    Counted,
    documents,
    iter_count_words,
    slices_at_spaces,
    validate_word_counts,
    word_counts_provenance,
)
from .text.special import alternation
from .text.unicode_data import UNICODE_VERSION
from .tokenizer import Tokenizer
from .trainers import bpe as bpe_trainer
from .trainers import hf_rules, hf_unigram, spm_bpe, spm_unigram
from .trainers import unigram as unigram_trainer
from .trainers import wordpiece as wordpiece_trainer

# The options of every preset (kinds, defaults, ranges, help) are in options.py, the one
# schema; OPTIONS is its {preset: {option: (default, help)}} view.
OPTIONS: dict[str, dict[str, tuple[Any, str]]] = {
    p.name: {o.name: (o.default, o.help) for o in p.options} for p in PRESETS.values()}


def resolve_options(preset, vocab_size, num_merges, options):
    """All options of ``preset`` with defaults filled in, each checked against the schema
    (options.py: kind and range); unknown names are an error."""
    schema = preset_of(preset)
    options = check_options(schema, options)
    spec = dict(schema.defaults())
    spec.update(options)
    spec["vocab_size"], spec["num_merges"] = vocab_size, num_merges
    if (vocab_size is None) == (num_merges is None) and schema.has("vocab_size") and schema.has("num_merges"):
        raise ValueError("give exactly one of vocab_size=... or num_merges=...")
    for name in ("vocab_size", "num_merges"):
        if schema.has(name):  # (Unigram's trainer explains that it takes no num_merges)
            schema.option(name).check(spec[name])
    if "special_tokens" in spec:
        spec["special_tokens"] = list(dict.fromkeys(spec["special_tokens"]))
    spec["preset"] = preset
    rules = spec.get("rules", "textbook")
    if rules != "textbook" and spec.get("tie_break", "first") != "first":
        raise ValueError(f"tie_break={spec['tie_break']!r} applies to rules='textbook' only; rules={rules!r} breaks "
                         "ties as its reference trainer does (leave tie_break at 'first')")
    # subtle: options added later are recorded only when not at the value they had before
    # they existed, so a spec without them still means what it meant (a model trained by the
    # textbook rules on one text is the same file, byte for byte, as before them)
    later = {**NEW_OPTIONS, **{name: schema.option(name).default for name in NEW_IN_PRESET.get(preset, ())}}
    for name, before in later.items():
        if name in spec and spec[name] == before:
            del spec[name]
    if spec.get("initial_alphabet") and schema.is_unigram and rules != "hf":
        raise ValueError("initial_alphabet applies to rules='hf' only (HF's UnigramTrainer keeps those characters); "
                         "the textbook rules keep the corpus's characters: leave initial_alphabet empty or train with "
                         "rules='hf'")
    return spec


# options added after specs were first saved, and the behaviour a spec without them had: a
# spec (a model file, a counts file) leaves them out at that value (resolve_options); since
# 2026-12 the SentencePiece presets read a sentence per line by default, so their specs say so
NEW_OPTIONS = {"rules": "textbook", "sentence_per_line": False}
# options a preset gained after its specs were first saved, left out at their defaults (which
# is what a spec without them meant; the bpe preset had initial_alphabet from the start)
NEW_IN_PRESET = {"unigram": ("initial_alphabet",)}


def counting_spec(preset, options):
    """The spec of ``preset`` with ``options`` checked and defaults filled in, without a
    training target: enough to count a corpus (``subwordlab count``), not to train.

    >>> counting_spec("byte_bpe", {"special_tokens": ["<|endoftext|>"]})["pattern"]
    'gpt2'
    """
    schema = preset_of(preset)
    spec = dict(schema.defaults())
    spec.update(check_options(schema, options))
    spec["special_tokens"] = list(dict.fromkeys(spec.get("special_tokens") or []))
    spec["preset"], spec["vocab_size"], spec["num_merges"] = preset, None, None
    return spec


# -- pipelines ---------------------------------------------------------------------------

def bpe_pipeline(spec):
    """(normalizer, pre_tokenizer, decoder) of a BPE-family preset."""
    preset = spec["preset"]
    if preset == "bpe":
        eow = spec["end_of_word"]
        return (Lowercase() if spec["lowercase"] else None, WhitespaceSplit(),
                SuffixDecoder(eow) if eow else ConcatDecoder())
    if preset == "byte_bpe":
        return None, ByteLevel(spec["pattern"]), ByteLevelDecoder()
    return sentencepiece_pipeline(spec)


def sentencepiece_pipeline(spec):
    """The SentencePiece-style normalizer, ▁ pre-tokenizer and decoder."""
    steps = []
    if per_line(spec):
        # a corpus read a sentence per line has no line breaks in its pieces: a text to
        # encode reads a line break as the space between two sentences (spm's nmt_nfkc
        # rule too), so "a\nb" encodes as the lines "a" and "b" do, one after the other
        steps += [Replace("\r\n", " "), Replace("\n", " ")]
    form = (spec["normalization"] or "none").lower()
    if form not in ("nfkc", "nfc", "none"):
        raise ValueError(f"normalization must be 'nfkc', 'nfc' or 'none', not {spec['normalization']!r}")
    if form == "nfkc" and spec.get("rules") == "sentencepiece":
        # spm_train's nfkc is its own table of replacements, not Unicode's algorithm (charsmap.py)
        steps.append(Precompiled())
    elif form != "none":
        steps.append(Unicode(form))
    if spec["lowercase"]:
        steps.append(Lowercase())
    if spec["remove_extra_whitespaces"]:
        # (rules='sentencepiece': only spaces are stripped at a line's ends, as spm_train does)
        steps.append(Collapse(spaces_only=spec.get("rules") == "sentencepiece"))
    normalizer = Sequence(steps) if steps else None
    symbols = spec.get("user_defined_symbols") or ()
    if isinstance(symbols, str):
        symbols = [symbols]
    # subtle: symbols are matched in normalized text, so they are normalized too
    symbols = [normalizer.normalize_str(s) if normalizer else s for s in symbols]
    # subtle: without remove_extra_whitespaces a text may start with spaces; SentencePiece's
    # dummy ▁ goes before them too, so decoding gives them back
    pre = MetaspaceWithSymbols(spec["add_dummy_prefix"], spec["split_digits"], symbols,
                               prefix_before_space=not spec["remove_extra_whitespaces"],
                               spm_digits=spec.get("rules") == "sentencepiece")  # (only spm's digits apart)
    return normalizer, pre, MetaspaceDecoder(spec["add_dummy_prefix"])


def corpus_word_counts(corpus, spec, normalizer, pre_tokenizer):
    """Word counts (ordered by first appearance) and provenance of any corpus."""
    return drain(iter_corpus_word_counts(corpus, spec, normalizer, pre_tokenizer))


def pipeline_of(spec):
    """(normalizer, pre_tokenizer) of any preset: what turns its text into the words it counts.

    >>> pipeline_of(resolve_options("byte_bpe", 300, None, {}))[1].pattern_name
    'gpt2'
    """
    preset = spec["preset"]
    build = unigram_pipeline if preset_of(preset).is_unigram else wordpiece_pipeline if preset == "wordpiece" else bpe_pipeline
    normalizer, pre_tokenizer, _ = build(spec)
    return normalizer, pre_tokenizer


def pipeline_record(spec):
    """What determines a preset's word counts, as saved: the preset, its normalizer and
    pre-tokenizer (each as a model file saves it) and the special tokens (the text is cut at
    them). Two specs whose records agree but for the preset count any text alike.

    >>> sorted(pipeline_record(resolve_options("bpe", None, 10, {})))
    ['normalizer', 'pre_tokenizer', 'preset', 'special_tokens']
    """
    normalizer, pre_tokenizer = pipeline_of(spec)
    record = {"preset": spec["preset"], "normalizer": dump_component("normalizer", normalizer),
              "pre_tokenizer": dump_component("pre_tokenizer", pre_tokenizer),
              "special_tokens": sorted(spec.get("special_tokens") or [])}
    if per_line(spec):  # (a sentence per line counts another way; recorded only then, so older records stand)
        record["sentence_per_line"] = True
    return record


def per_line(spec):
    """Is the corpus read a sentence per line (``sentence_per_line``, or ``rules='sentencepiece'``)?
    Example: per_line({"rules": "sentencepiece"}) -> True."""
    return bool(spec.get("sentence_per_line")) or spec.get("rules") == "sentencepiece"


def pipeline_difference(counted, spec):
    """Why counts made under ``counted`` (a ``pipeline_record``) cannot train ``spec``, or None.
    Example: counts of preset 'bpe' for a 'byte_bpe' spec -> 'the pre_tokenizer differs ...'."""
    wanted = pipeline_record(spec)
    for key in ("pre_tokenizer", "normalizer", "special_tokens", "sentence_per_line"):
        if counted.get(key) != wanted.get(key):
            return (f"the {key.replace('_', '-')} differs: the counts have {json.dumps(counted.get(key), ensure_ascii=False)}, "
                    f"preset {spec['preset']!r} with these options has {json.dumps(wanted[key], ensure_ascii=False)}")
    return None


def corpus_cuts(spec, pre_tokenizer):
    """Where a long text may be cut so that its parts, counted apart, give exactly the words
    of the whole text: ``(lines, spaces)``. ``lines``: just after a line feed with ordinary
    (not white-space) characters on both sides (the white-space-splitting presets, and
    byte_bpe's built-in patterns, where a line feed never joins the next piece); ``spaces``:
    just before a lone space, as ``corpus_slicer`` (not for every SentencePiece setting).
    The cuts at special tokens are always safe (the text is cut there anyway).

    >>> corpus_cuts(resolve_options("sentencepiece_bpe", 300, None, {}), None)   # a sentence per line
    (True, False)
    >>> corpus_cuts(resolve_options("sentencepiece_bpe", 300, None, {"sentence_per_line": False}), None)
    (False, True)
    """
    preset = spec["preset"]
    if per_line(spec):
        return True, False  # a line feed ends a sentence; a cut inside one would change it (its length too)
    named = getattr(pre_tokenizer, "pattern_name", None) is not None
    lines = preset in ("bpe", "wordpiece", "unigram") or (preset == "byte_bpe" and named)
    return lines, corpus_slicer(spec, pre_tokenizer) is not None


def corpus_slicer(spec, pre_tokenizer):
    """How a long text may be cut to count it in slices with exactly the words of the whole
    text (``corpus.slices_at_spaces``), or None when this pipeline has no safe cut."""
    preset = spec["preset"]
    if per_line(spec):
        return None  # (a sentence is read whole: spm skips one longer than max_sentence_length)
    if preset == "byte_bpe":
        # the built-in patterns never glue a space to the non-space before it (ByteLevel.segments)
        return slices_at_spaces if getattr(pre_tokenizer, "pattern_name", None) else None
    if preset.startswith("sentencepiece"):
        # subtle: a slice starts with the space of the cut; it must become exactly the ▁ the
        # whole text has there: stripped and replaced by the dummy prefix, or kept as is
        if spec.get("user_defined_symbols") or spec["add_dummy_prefix"] != spec["remove_extra_whitespaces"]:
            return None
    return slices_at_spaces  # white space always ends a word (bpe, wordpiece, unigram)


def iter_corpus_word_counts(corpus, spec, normalizer, pre_tokenizer, unmatched=None, allow_empty=False):
    """``corpus_word_counts`` as a generator: yields a ``Progress("count", ...)`` event per
    chunk of a long raw-text corpus counted and returns ``(counts, provenance)``. ``unmatched``, a
    one-item list, receives how many characters a byte_bpe pattern left unmatched.
    ``allow_empty``: a text without words gives no counts instead of the error (a part of
    a corpus). A ``Counted`` corpus (counted before, ``counts.py``) gives its own counts."""
    unmatched = [0] if unmatched is None else unmatched
    if isinstance(corpus, Counted):
        return counted_word_counts(corpus, spec, unmatched)
    if isinstance(corpus, dict):
        counts = validate_word_counts(corpus, spec.get("end_of_word"))
        provenance = word_counts_provenance(counts)
        if spec["preset"] == "byte_bpe":
            counts = {"".join(BYTE_TO_CHAR[b] for b in w.encode("utf-8")): n for w, n in counts.items()}
        elif spec.get("rules") == "sentencepiece":
            # spm_train's TSV input: each word a sentence, read as a line of text is (normalized,
            # reserved text as its boundary character), then cut into words as a line's are
            meta, words = reserved_pieces(spec, pre_tokenizer), {}
            for w, n in counts.items():
                for word in spm_unigram.split_into_words(spm_sentence(w, spec, normalizer, pre_tokenizer, meta) or ""):
                    words[word] = words.get(word, 0) + n
            counts = words
        elif spec["preset"].startswith("sentencepiece"):
            counts = {"\u2581" + w: n for w, n in counts.items()}
        return counts, provenance
    specials = spec.get("special_tokens") or []
    cut = alternation(specials).split if specials else None
    special_words: set[str] = set()
    if specials and spec.get("rules") == "hf":
        # the tokenizers library cuts a special token out of the text before it normalizes and
        # pre-tokenizes, but still counts it: one word of its own, its text as it is (so
        # BpeTrainer learns pairs inside '<|endoftext|>')
        cut = re.compile(f"({alternation(specials).pattern})").split
        special_words = set(specials)

    def counting(split):
        """``split`` for the text between special tokens; a special token (kept by the
        cut under rules='hf') is one word."""
        return (lambda text: [text] if text in special_words else split(text)) if special_words else split

    slicer = corpus_slicer(spec, pre_tokenizer)

    if spec["preset"] == "byte_bpe":
        def chunks(text):  # (counting what a custom pattern leaves unmatched, said at AlphabetReady)
            got, n = pre_tokenizer.chunks_and_unmatched(text)
            unmatched[0] += n
            return got

        raw, provenance = yield from _counting(iter_count_words(corpus, counting(chunks), cut, slicer, allow_empty))
        # the words as GPT-2 byte characters (Latin-1 maps byte b to chr(b): a C-speed translate)
        counts = {w if w in special_words else w.encode("utf-8").decode("latin-1").translate(LATIN1_TO_BYTE_CHARS): n
                  for w, n in raw.items()}
        return counts, provenance

    def split_words(text):
        return pre_tokenizer.words(normalizer.normalize_str(text) if normalizer else text)

    if spec.get("rules") == "sentencepiece":
        # spm_train's words: each line's sentence as spm makes it (a reserved piece's text
        # its boundary character: not cut out here), split before each ▁
        meta = reserved_pieces(spec, pre_tokenizer)
        cut = None

        def split_words(text):
            words = []
            for line in text.split("\n"):
                words += spm_unigram.split_into_words(spm_sentence(line, spec, normalizer, pre_tokenizer, meta) or "")
            return words
    elif per_line(spec):
        def split_words(text):
            # one sentence per line (spm_train): each line normalized and split alone, a
            # final '\r' dropped, empty lines skipped
            words = []
            for line in text.split("\n"):
                if line.endswith("\r"):
                    line = line[:-1]
                if line:
                    words += pre_tokenizer.words(normalizer.normalize_str(line) if normalizer else line)
            return words

    counts, provenance = yield from _counting(iter_count_words(corpus, counting(split_words), cut, slicer, allow_empty))
    check_end_of_word(counts, spec)
    return dict(counts), provenance


def _counting(counting):
    """The counting of a corpus (``corpus.iter_count_words``) with a ``Progress("count",
    done, total)`` event per chunk of the corpus counted; returns its ``(counts, provenance)``."""
    while True:
        try:
            done, total = next(counting)
        except StopIteration as stop:
            return stop.value
        yield Progress("count", done, total)


def check_end_of_word(counts, spec):
    """Refuse words that contain the end-of-word marker (``bpe``): the model could not tell them apart.
    Example: ({"a</w>": 1}, {"end_of_word": "</w>"}) raises CorpusError."""
    eow = spec.get("end_of_word")
    if eow and any(eow in w for w in counts):
        bad = next(w for w in counts if eow in w)
        raise CorpusError(f"the word {bad!r} contains the end-of-word marker {eow!r}; choose another marker (end_of_word=...)")


def counted_word_counts(counted, spec, unmatched):
    """The counts and provenance of a ``Counted`` corpus, refused (with what to do) when it
    was counted with another pipeline than ``spec``'s; ``unmatched[0]`` gets its unmatched characters."""
    why = pipeline_difference(counted.pipeline, spec)
    if why:
        raise CorpusError(f"these counts were made for another pipeline ({why}); count the text again with "
                          f"'subwordlab count --preset {spec['preset']}' and the same options as this training")
    if not counted.counts:
        raise CorpusError(EMPTY_CORPUS)
    check_end_of_word(counted.counts, spec)
    unmatched[0] += counted.unmatched
    return counted.counts, counted.provenance()




def unmatched_note(n):
    """What training says when the pre-tokenization pattern left ``n`` characters unmatched.

    >>> unmatched_note(3)
    'the pattern left 3 characters unmatched; they are kept as their own pieces'
    """
    return f"the pattern left {n:,} character{'s' * (n != 1)} unmatched; they are kept as their own pieces"


def with_notes(notes, steps):
    """A trainer's events with ``notes`` added to its ``AlphabetReady``; returns its value.

    Example: ``model = yield from with_notes(("a note",), bpe_trainer.train(...))``."""
    while True:
        try:
            event = next(steps)
        except StopIteration as stop:
            return stop.value
        yield replace(event, notes=event.notes + notes) if notes and event.kind == "alphabet" else event


def train_bpe_family(corpus, spec):
    """Generator of events for the ``bpe``, ``byte_bpe`` and ``sentencepiece_bpe`` presets:
    the pipeline around ``trainers.bpe.train`` (which holds the algorithm)."""
    preset = spec["preset"]
    normalizer, pre_tokenizer, decoder = bpe_pipeline(spec)
    unmatched = [0]
    counts, provenance = yield from iter_corpus_word_counts(corpus, spec, normalizer, pre_tokenizer, unmatched)
    notes = (unmatched_note(unmatched[0]),) if unmatched[0] else ()
    if spec.get("rules") == "sentencepiece":  # (sentencepiece_bpe) spm_train --model_type=bpe
        symbols = getattr(pre_tokenizer, "user_defined_symbols", ())
        model, specials, merges = yield from with_notes(notes, spm_bpe.train(
            counts, unk_token=spec.get("unk_token"), special_tokens=spec["special_tokens"], user_defined_symbols=symbols,
            byte_fallback=spec["byte_fallback"], character_coverage=spec["character_coverage"],
            vocab_size=spec["vocab_size"], num_merges=spec["num_merges"], max_piece_length=spec["max_piece_length"],
            split_digits=spec["split_digits"], top_k=spec["top_k"]))
        tok = Tokenizer(model, normalizer, pre_tokenizer, decoder, specials,
                        dict(spec, corpus=provenance, unicode_version=UNICODE_VERSION))
        yield Done(tokenizer=tok, steps=len(merges))
        return
    if spec.get("rules") == "hf" and preset == "bpe":  # BpeTrainer(end_of_word_suffix=end_of_word)
        model, specials, merges = yield from with_notes(notes, hf_rules.train_char_bpe(
            counts, special_tokens=spec["special_tokens"], unk_token=spec.get("unk_token"),
            end_of_word_suffix=spec.get("end_of_word"), initial_alphabet=spec.get("initial_alphabet") or "",
            vocab_size=spec["vocab_size"], num_merges=spec["num_merges"], min_frequency=spec["min_frequency"],
            top_k=spec["top_k"]))
        specials = {s: i for s, i in specials.items() if s in spec["special_tokens"]}
        tok = Tokenizer(model, normalizer, pre_tokenizer, decoder, specials,
                        dict(spec, corpus=provenance, unicode_version=UNICODE_VERSION))
        yield Done(tokenizer=tok, steps=len(merges))
        return
    if spec.get("rules") == "hf":  # (byte_bpe) BpeTrainer's ids, ties and bookkeeping
        model, specials, merges = yield from with_notes(notes, hf_rules.train_byte_bpe(
            counts, special_tokens=spec["special_tokens"], vocab_size=spec["vocab_size"],
            num_merges=spec["num_merges"], min_frequency=spec["min_frequency"], top_k=spec["top_k"]))
        tok = Tokenizer(model, normalizer, pre_tokenizer, decoder, specials,
                        dict(spec, corpus=provenance, unicode_version=UNICODE_VERSION))
        yield Done(tokenizer=tok, steps=len(merges))
        return
    model, specials, merges = yield from with_notes(notes, bpe_trainer.train(
        counts, special_tokens=spec["special_tokens"], unk_token=spec.get("unk_token"),
        end_of_word=spec.get("end_of_word") if preset == "bpe" else None, byte_level=preset == "byte_bpe",
        byte_fallback=spec.get("byte_fallback", False), user_defined_symbols=getattr(pre_tokenizer, "user_defined_symbols", ()),
        character_coverage=spec.get("character_coverage", 1.0), initial_alphabet=spec.get("initial_alphabet"),
        num_merges=spec["num_merges"], vocab_size=spec["vocab_size"], min_frequency=spec["min_frequency"],
        tie_break=spec["tie_break"], top_k=spec["top_k"], max_token_length=spec.get("max_piece_length"),
        max_sentence_length=spec["max_sentence_length"]))
    tok = Tokenizer(model, normalizer, pre_tokenizer, decoder, specials, dict(spec, corpus=provenance, unicode_version=UNICODE_VERSION))
    yield Done(tokenizer=tok, steps=len(merges))


TRAINERS = {"bpe": train_bpe_family, "byte_bpe": train_bpe_family, "sentencepiece_bpe": train_bpe_family}


# -- WordPiece --------------------------------------------------------------------------
# ``wordpiece``: BERT's pipeline (white space + punctuation pre-tokenizer, optional lower-
# casing and accent stripping) and WordPiece merges chosen by the score
# count(ab) / (count(a) * count(b)) of the original papers and the Hugging Face course
# (scoring="likelihood"), or by count as the Hugging Face tokenizers library's trainer
# does (scoring="frequency": BPE with a ## prefix).


def wordpiece_pipeline(spec):
    """The WordPiece preset's normalizer, BERT pre-tokenizer and decoder."""
    steps = ([Lowercase()] if spec["lowercase"] else []) + ([Unicode("NFD"), StripAccents()] if spec["strip_accents"] else [])
    normalizer = Sequence(steps) if len(steps) > 1 else (steps[0] if steps else None)
    return normalizer, BertPreTokenizer(), WordPieceDecoder(spec["continuing_subword_prefix"])


def train_wordpiece(corpus, spec):
    """Generator of events for the ``wordpiece`` preset."""
    normalizer, pre_tokenizer, decoder = wordpiece_pipeline(spec)
    counts, provenance = yield from iter_corpus_word_counts(corpus, spec, normalizer, pre_tokenizer)
    train = wordpiece_trainer.train
    if spec.get("rules") == "hf":  # WordPieceTrainer: BPE by count with ## pieces, its ids and ties
        def train(counts, *, scoring, tie_break, **rest):
            return hf_rules.train_wordpiece(counts, **rest)
    model, special_ids, merges = yield from train(
        counts, special_tokens=spec["special_tokens"], unk_token=spec["unk_token"],
        continuing_subword_prefix=spec["continuing_subword_prefix"],
        max_input_chars_per_word=spec["max_input_chars_per_word"], num_merges=spec["num_merges"], vocab_size=spec["vocab_size"],
        min_frequency=spec["min_frequency"], tie_break=spec["tie_break"], top_k=spec["top_k"], scoring=spec["scoring"])
    tok = Tokenizer(model, normalizer, pre_tokenizer, decoder, special_ids, dict(spec, corpus=provenance, unicode_version=UNICODE_VERSION))
    yield Done(tokenizer=tok, steps=len(merges))


TRAINERS["wordpiece"] = train_wordpiece


# -- Unigram ----------------------------------------------------------------------------
# ``unigram``: Unigram on white-space-separated words, each word marked with a leading ▁
# (the Metaspace convention, so decoding puts one space between words); ``sentencepiece_
# unigram``: Unigram on raw text with ▁ for spaces and SentencePiece's options, shared with
# ``sentencepiece_bpe``. Training starts from a big seed vocabulary and prunes it.


def unigram_pipeline(spec):
    """(normalizer, pre_tokenizer, decoder) of a Unigram preset."""
    if spec["preset"] == "unigram":
        return (Lowercase() if spec["lowercase"] else None), WhitespaceMetaspace(), MetaspaceDecoder(True)
    return sentencepiece_pipeline(spec)


def train_unigram(corpus, spec):
    """Generator of events for the ``unigram`` and ``sentencepiece_unigram`` presets."""
    if spec["num_merges"] is not None:
        raise ValueError("Unigram learns no merges: give vocab_size=... (the number of pieces to prune down to)")
    if spec["vocab_size"] is None:
        raise ValueError("give vocab_size=... (the number of pieces to prune down to)")
    normalizer, pre_tokenizer, decoder = unigram_pipeline(spec)
    symbols = list(getattr(pre_tokenizer, "user_defined_symbols", []))
    if spec.get("rules") == "sentencepiece":  # (sentencepiece_unigram) spm_train --model_type=unigram
        if not isinstance(corpus, (str, dict, Counted, list, tuple)):
            corpus = list(documents(corpus))  # (read twice: for its provenance, then its sentences)
        if isinstance(corpus, dict):
            provenance = word_counts_provenance(validate_word_counts(corpus, None))
        elif isinstance(corpus, Counted):
            provenance = corpus.provenance()
        else:  # (its SHA-256 and sizes: the sentences are read by spm_sentences)
            _, provenance = yield from _counting(iter_count_words(corpus, lambda text: (), allow_empty=True))
        model, specials, n_steps = yield from train_spm_unigram(corpus, spec, normalizer, pre_tokenizer, symbols)
        tok = Tokenizer(model, normalizer, pre_tokenizer, decoder, specials,
                        dict(spec, corpus=provenance, unicode_version=UNICODE_VERSION))
        yield Done(tokenizer=tok, steps=n_steps)
        return
    counts, provenance = yield from iter_corpus_word_counts(corpus, spec, normalizer, pre_tokenizer)
    if isinstance(corpus, dict) and spec["preset"] == "unigram":
        counts = {"\u2581" + w: n for w, n in counts.items()}
    if spec.get("rules") == "hf":  # (unigram) UnigramTrainer's seed, pruning and finalize
        unk = spec["unk_token"]
        model, specials, n_steps = yield from hf_unigram.train_hf_unigram(
            counts, vocab_size=spec["vocab_size"], unk_token=unk,
            special_tokens=([unk] if unk is not None else []) + spec["special_tokens"],
            initial_alphabet=spec.get("initial_alphabet", ""), seed_size=spec["seed_size"],
            max_piece_length=spec["max_piece_length"], shrinking_factor=spec["shrinking_factor"],
            n_sub_iterations=spec["n_sub_iterations"])
        specials = {s: i for s, i in specials.items() if s in spec["special_tokens"]}
        tok = Tokenizer(model, normalizer, pre_tokenizer, decoder, specials,
                        dict(spec, corpus=provenance, unicode_version=UNICODE_VERSION))
        yield Done(tokenizer=tok, steps=n_steps)
        return

    model, specials, n_steps = yield from unigram_trainer.train(
        counts, unk_token=spec["unk_token"], special_tokens=spec["special_tokens"], user_defined_symbols=symbols,
        byte_fallback=spec.get("byte_fallback", False), character_coverage=spec.get("character_coverage", 1.0),
        vocab_size=spec["vocab_size"], seed_size=spec["seed_size"], max_piece_length=spec["max_piece_length"],
        shrinking_factor=spec["shrinking_factor"], n_sub_iterations=spec["n_sub_iterations"],
        split_digits=spec.get("split_digits", False), max_sentence_length=spec["max_sentence_length"])
    tok = Tokenizer(model, normalizer, pre_tokenizer, decoder, specials, dict(spec, corpus=provenance, unicode_version=UNICODE_VERSION))
    yield Done(tokenizer=tok, steps=n_steps)


def spm_sentences(corpus, spec, normalizer, pre_tokenizer, meta):
    """The corpus as spm_train reads it: ``[(sentence, weight)]`` in its order. Raw text: a
    sentence a line (a final '\\r' dropped; empty lines, lines longer than
    ``max_sentence_length`` bytes and lines with spm's unknown character U+2585 skipped),
    normalized, ▁ for spaces, the reserved pieces' text replaced by U+001F, the sentences
    empty after normalizing removed as spm removes them (the last one takes their place).
    A word-count list: each word a sentence with its count (spm's TSV input), read the same way.

    >>> spec = resolve_options("sentencepiece_unigram", 10, None, {"rules": "sentencepiece"})
    >>> spm_sentences("low  lower\\n\\n new", spec, *sentencepiece_pipeline(spec)[:2], ["<unk>"])
    [('▁low▁lower', 1), ('▁new', 1)]
    >>> spm_sentences({"30.º": 2}, spec, *sentencepiece_pipeline(spec)[:2], ["<unk>"])  # (NFKC: º is o)
    [('▁30.o', 2)]
    """
    if isinstance(corpus, Counted):
        raise CorpusError("rules='sentencepiece' trains on the sentences themselves, which a counts file does not keep; "
                          "train on the text, or use rules='textbook'")
    if isinstance(corpus, dict):
        lines = list(validate_word_counts(corpus, None).items())
    else:
        lines = [(line, 1) for doc in documents(corpus) for line in doc.split("\n")]
    # (a line spm skips is None; one empty once normalized is kept, for the swap below)
    out = [(sentence, n) for sentence, n in ((spm_sentence(line, spec, normalizer, pre_tokenizer, meta), n)
                                             for line, n in lines) if sentence is not None]
    i = 0
    while i < len(out):  # (spm: an empty sentence swaps with the last, which is then popped)
        if out[i][0]:
            i += 1
        else:
            out[i] = out[-1]
            out.pop()
    return out


def spm_sentence(line, spec, normalizer, pre_tokenizer, meta):
    """One line as spm_train reads it: a final '\\r' dropped; None for a line spm skips (empty,
    longer than ``max_sentence_length`` bytes, or holding its unknown character U+2585);
    normalized, ▁ for spaces, the reserved pieces' text (``meta``) replaced by U+001F (""
    when nothing is left: spm drops it later, see ``spm_sentences``).

    >>> spec = resolve_options("sentencepiece_bpe", 10, None, {"rules": "sentencepiece"})
    >>> spm_sentence("a <s>b\\r", spec, *sentencepiece_pipeline(spec)[:2], ["<unk>", "<s>"])
    '▁a▁\\x1fb'
    """
    if line.endswith("\r"):
        line = line[:-1]
    too_long = spec["max_sentence_length"]
    if not line or (len(line) * 4 > too_long and len(line.encode("utf-8")) > too_long) or spm_bpe.UNK_CHAR in line:
        return None
    sentence = "".join(pre_tokenizer.words(normalizer.normalize_str(line) if normalizer else line))
    return spm_bpe.boundaries_for(sentence, meta)


def reserved_pieces(spec, pre_tokenizer):
    """``spm_bpe.reserved_pieces`` of a spec (its symbols are the pre-tokenizer's, normalized).

    >>> reserved_pieces({"unk_token": "<unk>", "special_tokens": ["<s>"], "byte_fallback": False}, None)
    ['<unk>', '<s>']
    """
    return spm_bpe.reserved_pieces(spec.get("unk_token"), spec["special_tokens"],
                                   getattr(pre_tokenizer, "user_defined_symbols", ()), spec.get("byte_fallback"))


def train_spm_unigram(corpus, spec, normalizer, pre_tokenizer, symbols):
    """spm_train --model_type=unigram on the corpus's sentences (``spm_sentences``): yields
    the trainer's events, returns ``(model, special_ids, steps)``."""
    unk = spec["unk_token"]
    entries = spm_sentences(corpus, spec, normalizer, pre_tokenizer, reserved_pieces(spec, pre_tokenizer))
    if not entries:
        raise CorpusError(EMPTY_CORPUS)
    return (yield from spm_unigram.train(
        [s for s, _ in entries], [n for _, n in entries], unk_token=unk, special_tokens=spec["special_tokens"],
        user_defined_symbols=symbols, byte_fallback=spec["byte_fallback"],
        character_coverage=spec["character_coverage"], vocab_size=spec["vocab_size"], seed_size=spec["seed_size"],
        max_piece_length=spec["max_piece_length"], shrinking_factor=spec["shrinking_factor"],
        n_sub_iterations=spec["n_sub_iterations"], split_digits=spec["split_digits"]))


TRAINERS["unigram"] = train_unigram
TRAINERS["sentencepiece_unigram"] = train_unigram
