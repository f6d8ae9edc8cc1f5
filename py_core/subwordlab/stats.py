"""Statistics of a tokenizer on named texts: what the comparison view and ``subwordlab stats`` show.

Pure functions, no printing. Definitions (the denominators are stated, since papers differ):

- ``tokens``: ids of the text, special tokens encoded as ordinary text, no BOS/EOS added;
- ``code_points``: ``len(text)``; ``bytes``: its UTF-8 length;
- ``words``: runs of characters between Unicode White_Space (``text.split()``, except that
  U+001C..U+001F are not spaces) — a rough unit for languages written without spaces;
- ``tokens_per_word`` (fertility, Rust et al. 2021): tokens / words;
- ``chars_per_token``: code points / tokens; ``bytes_per_token``: bytes / tokens;
- ``split_words``, also named ``continued_words`` (the proportion of continued words, Ács
  2019, Rust et al. 2021): words covered by more than one token (tokens whose character
  offsets overlap the word, in context) / words. The words are the white-space runs above,
  not a treebank's gold words as in Rust et al., so a word with its punctuation ("cat.") is
  one word here;
- ``unknown_rate``: share of tokens that are the model's unknown token;
- ``byte_fallback_rate``: share of tokens that are byte-fallback tokens (the ``<0xHH>``
  pieces a model with ``byte_fallback``, SentencePiece's option, emits for a character it
  does not cover); 0.0 for a model without byte fallback (GPT-2's byte-level BPE has no
  fallback: its bytes are its alphabet);
- ``distinct_tokens``: how many different ids the text's tokens are (``V`` below);
- ``shannon_efficiency`` and ``renyi_efficiency`` (Zouhar et al. 2023, "Tokenization and the
  Noiseless Channel"): the entropy of the text's token unigram distribution (``p`` = each
  distinct token's count / tokens) over the largest entropy its ``V`` distinct tokens could
  have, ``log V``. Shannon: ``-Σ p log p / log V``; Rényi of order α (default 2.5, the
  paper's choice): ``log(Σ p**α) / ((1 - α) log V)``, Shannon's at α = 1. Between 0 and 1
  (1: every distinct token equally frequent), to 12 digits (the portable logs keep 40 bits).
  ``V`` is the observed distinct tokens, not the vocabulary size, as in the
  ``tokenization-scorer`` package (1.1.8), whose values these equal to 1e-9
  (tests/unit/test_paper_measures.py); None when ``V < 2``;
- ``round_trip``: whether ``decode(encode(text))`` gives back the normalized text (as a
  reader sees it: ``shown_normalized``), and if not the first difference;
  ``round_trip_kind``: "exact", "by_design" (what the pipeline promises, which drops white
  space on purpose, or spaces out punctuation) or "lossy" (less than promised: unknown tokens...);
- ``premium`` (the tokenization premium, Petrov et al. 2023), also named ``parity``: tokens
  / the reference text's tokens, for translations of the same text (the reference's is 1.0;
  2.5 means the text costs 2.5 times the tokens of its English original, say).

``compare_corpus`` gives the same measures over all the texts pooled (``all_texts``): sums
of tokens, words... divided by each other, and the efficiencies of the summed token counts,
as the papers measure a corpus.

A ratio whose denominator is 0 is None.

>>> samples = {"en": "cat", "ko": "고양이", "digits": "1234", "empty": ""}
>>> report = tokenization_stats(lambda text: list(text.encode("utf-8")), samples)
>>> report["ko"]
{'tokens': 9, 'code_points': 3, 'tokens_per_code_point': 3.0}
>>> embedding_parameters(32_000, 1_024)
32768000
>>> round(shannon_efficiency({"a": 2, "b": 1, "c": 1}), 4), round(renyi_efficiency({"a": 5, "b": 5}), 9)
(0.9464, 1.0)
"""

import bisect
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from operator import mul
from typing import Any

from .base.portable_math import exps, log, logs
from .pipeline.pre_tokenizers import _NON_SPACE
from .tokenizer import Tokenizer


def tokenization_stats(encode_ids, samples):
    """The seed's baseline: for each named sample, tokens, code points and tokens per
    code point (None for an empty text). ``encode_ids(text)`` returns ids without BOS/EOS.

    Example (UTF-8 bytes as tokens): 'cat' -> 3 tokens, 3 code points, 1.0.
    """
    result = {}
    for name, text in samples.items():
        ids = encode_ids(text)
        chars = len(text)
        result[name] = {"tokens": len(ids), "code_points": chars,
                        "tokens_per_code_point": len(ids) / chars if chars else None}
    return result


def embedding_parameters(vocab_size, d_model, separate_output=False):
    """Parameters of the embedding table, V·d; with a separate (untied) output projection
    another V·d. Example: 32,000 x 1,024 -> 32,768,000 (65,536,000 untied)."""
    for name, v in (("vocab_size", vocab_size), ("d_model", d_model)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{name} must be a non-negative integer, not {v!r}")
    return vocab_size * d_model * (2 if separate_output else 1)


def vocab_size_calculator(vocab_size, d_model):
    """``{"embedding", "tied", "untied"}`` parameter counts for a vocabulary and width:
    the input table, the total with the output projection tied to it, and untied."""
    e = embedding_parameters(vocab_size, d_model)
    return {"vocab_size": vocab_size, "d_model": d_model, "embedding": e, "tied": e, "untied": 2 * e}


def _ratio(a, b):
    return a / b if b else None


RENYI_ALPHA = 2.5  # Zouhar et al. 2023's order α: its Rényi efficiency predicted BLEU best


def check_alpha(alpha):
    """``alpha`` as a float, or ValueError if it is not a positive finite number (Rényi's
    order α; 1 is Shannon's entropy)."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not (0 < alpha < math.inf):
        raise ValueError(f"alpha (the order of the Rényi efficiency) must be a positive number such as 2.5 "
                         f"(1 for Shannon's), not {alpha!r}")
    return float(alpha)


def _probabilities(frequencies):
    """The unigram distribution of ``frequencies`` (token -> count): the probabilities of the
    tokens counted more than 0 times (the observed ones) and their natural logs, or None
    when fewer than 2 tokens are observed (the efficiency's normaliser log V is then 0).
    Raises ValueError for a negative or non-numeric count."""
    counts = list(frequencies.values()) if isinstance(frequencies, Mapping) else list(frequencies)
    for c in counts:
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not c >= 0:
            raise ValueError(f"token frequencies must be counts (numbers >= 0), not {c!r}")
    # step 1: only observed tokens count, as in tokenization-scorer (its V is the tokens seen)
    counts = [c for c in counts if c > 0]
    if len(counts) < 2:
        return None
    # step 2: p = count / total (math.fsum: exactly rounded, whatever the order)
    total = math.fsum(counts)
    probs = [c / total for c in counts]
    # step 3: the portable logs, so that CPython and Pyodide give the same bits
    return probs, logs(probs)


def shannon_efficiency(frequencies: Mapping[Any, float] | Iterable[float]) -> float | None:
    """Shannon efficiency of a token unigram distribution (Zouhar et al. 2023): its entropy
    over the largest entropy of as many distinct tokens, ``-Σ p log p / log V``, where ``V``
    is the number of tokens with a count above 0 (the observed ones, as tokenization-scorer
    counts them; not the vocabulary size). ``frequencies``: a mapping token -> count (a
    ``Counter``) or an iterable of counts. None when fewer than 2 distinct tokens are
    observed (0 / 0). The logarithm's base cancels out.

    Example: counts 2, 1, 1 -> p = 1/2, 1/4, 1/4, entropy 1.5 bits, log2 3 = 1.585 bits ->
    0.9464; counts 5, 5 -> 1.0 (uniform).
    """
    dist = _probabilities(frequencies)
    if dist is None:
        return None
    probs, lps = dist
    # entropy in nats, -Σ p log p, over the normaliser log V (also in nats); at most 1 (the
    # uniform distribution's): the 40-bit logs can put a uniform one a few 1e-12 above it
    return min(1.0, -math.fsum(map(mul, probs, lps)) / log(len(probs)))


def renyi_efficiency(frequencies: Mapping[Any, float] | Iterable[float], alpha: float = RENYI_ALPHA) -> float | None:
    """Rényi efficiency of order ``alpha`` of a token unigram distribution (Zouhar et al.
    2023): the Rényi entropy ``log(Σ p**α) / (1 - α)`` over ``log V`` (``V``: the tokens
    with a count above 0, as in ``shannon_efficiency``); at ``alpha`` = 1 it is the Shannon
    efficiency. ``alpha`` must be positive (ValueError otherwise). None when fewer than 2
    distinct tokens are observed.

    Near α = 1 (|1 - α| below 1e-3, say) the quotient loses digits: ``log Σ p**α`` and
    ``1 - α`` both near 0 (at α = 1.1 it still agrees with tokenization-scorer to 1e-9).

    Example: counts 2, 1, 1 at α = 2: Σ p² = 1/4 + 1/16 + 1/16 = 3/8, entropy -log(3/8),
    over log 3 -> 0.8928; counts 5, 5 -> 1.0 for every α.
    """
    alpha = check_alpha(alpha)
    if alpha == 1.0:
        return shannon_efficiency(frequencies)
    dist = _probabilities(frequencies)
    if dist is None:
        return None
    probs, lps = dist
    # step 1: p**α as exp(α log p), with the portable exp (pow is the C library's too)
    powered = exps([alpha * lp for lp in lps])
    # step 2: Rényi entropy in nats, log(Σ p**α) / (1 - α), over log V; at most 1, as the
    # Shannon efficiency (counts 1, 1, 1 at α = 0.5 gave 1.0000000000016558)
    return min(1.0, log(math.fsum(powered)) / (1.0 - alpha) / log(len(probs)))


def byte_fallback_ids(tok):
    """The ids of the model's byte-fallback tokens (``<0xHH>``) if it falls back to bytes
    (``model.byte_fallback``), else an empty set: a byte-level model's bytes are its
    alphabet, not a fallback."""
    model = tok.model
    if not getattr(model, "byte_fallback", False):
        return frozenset()
    found = (tok.token_to_id(f"<0x{b:02X}>") for b in range(256))
    return frozenset(i for i in found if i is not None)


def first_difference(expected, got):
    """Where two strings first differ: ``{"index", "expected", "got"}`` with a few
    characters of context, or None if equal. Example: ('abc', 'abd') -> index 2."""
    if expected == got:
        return None
    i = next((k for k, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    return {"index": i, "expected": expected[max(0, i - 10):i + 10], "got": got[max(0, i - 10):i + 10]}


_MARKER = "\u2581"  # ▁, SentencePiece's space marker


def shown_normalized(text, normalized):
    """The normalized text as a reader sees it: a ▁ the normalizer put in for a space (an
    imported SentencePiece tokenizer.json does this) is a space again, and a dummy-prefix
    ▁ the text did not start with is dropped; a ▁ inserted before every word (spaces kept)
    is dropped.

    Example: ('de la', '▁de▁la') -> 'de la'; ('de la', '▁de ▁la') -> 'de la'
    """
    if normalized.count(_MARKER) <= text.count(_MARKER):
        return normalized
    if all(i == 0 or normalized[i - 1].isspace() for i, ch in enumerate(normalized) if ch == _MARKER):
        return normalized.replace(_MARKER, "")  # a marker inserted before every word, spaces kept
    shown = normalized.replace(_MARKER, " ")
    if shown.startswith(" ") and not text[:1].isspace():
        shown = shown[1:]
    return shown


def pipeline_promise(tok, normalized):
    """What decoding promises to give back for ``normalized`` text: each pre-token decoded
    as if it were one token (with the model's end-of-word marker, if any). Where this
    differs from the normalized text, the pipeline loses something by design (e.g. runs of
    white space between WordPiece's or whitespace-split Unigram's words)."""
    pieces = [piece for piece, _ in tok.pre_tokenize_str(normalized)]
    suffix = getattr(tok.model, "end_of_word", None)
    if suffix:
        pieces = [piece + suffix for piece in pieces]
    if tok.decoder is None:
        return "".join(pieces)
    return tok.decoder.decode_bytes(pieces).decode("utf-8", errors="replace")


def round_trip(tok, text, ids):
    """Does ``decode(ids)`` (``ids`` encode ``text``) give back what the pipeline promises?

    Returns ``{"kind", "expected", "decoded", "difference", "reason", "normalized_by"}``.
    ``kind``: ``"exact"`` (the normalized text as shown, see ``shown_normalized``),
    ``"by_design"`` (what the pipeline promises, which drops something on purpose:
    ``reason`` says what, e.g. WordPiece's spaces), or ``"lossy"`` (less than promised:
    unknown tokens, a byte sequence cut short...; ``expected`` is then the promise, so the
    difference points at the real loss). ``normalized_by``: what the normalizer changed
    in the text the user typed ("" if nothing), e.g. 'the normalizer lower-cases'.

    >>> from subwordlab.models.wordpiece import WordPiece
    >>> from subwordlab.pipeline.pre_tokenizers import BertPreTokenizer
    >>> from subwordlab.pipeline.decoders import WordPieceDecoder
    >>> from subwordlab.tokenizer import Tokenizer
    >>> tok = Tokenizer(WordPiece(["[UNK]", "hi", ",", "you"]), None, BertPreTokenizer(), WordPieceDecoder("##"))
    >>> trip = round_trip(tok, "hi,  you", tok.encode("hi,  you"))
    >>> trip["kind"], trip["decoded"], trip["reason"]
    ('by_design', 'hi , you', 'this pipeline puts a space around punctuation (each mark is a word of its own) and keeps one space between words (runs of spaces, tabs and newlines are not kept)')
    """
    normalized = tok.normalize_str(text)
    expected = shown_normalized(text, normalized)
    decoded = tok.decode(ids)
    normalized_by = normalizer_changes(tok.normalizer, text) if expected != text else ""
    if decoded == expected:
        return {"kind": "exact", "expected": expected, "decoded": decoded, "difference": None, "reason": "",
                "normalized_by": normalized_by}
    promised = pipeline_promise(tok, normalized)
    if decoded == promised:
        return {"kind": "by_design", "expected": promised, "decoded": decoded,
                "difference": first_difference(expected, promised), "reason": design_losses(expected, promised),
                "normalized_by": normalized_by}
    # subtle: against the promise, the first difference is the real loss (an unknown token),
    # not a space the pipeline drops anyway
    return {"kind": "lossy", "expected": promised, "decoded": decoded, "difference": first_difference(promised, decoded),
            "reason": "", "normalized_by": normalized_by}


def design_losses(expected, promised):
    """What a pipeline changes on purpose between the normalized text and what decoding
    promises, in words. Example: ('a  b', 'a b') -> 'this pipeline keeps one space between
    words (runs of spaces, tabs and newlines are not kept)'."""
    what = []
    for i1, i2, j1, j2 in _edits(expected, promised):
        old, new = expected[i1:i2], promised[j1:j2]
        if not old and not new.strip():
            # step 1: a space the decoder puts between two words the pre-tokenizer cut apart
            near = expected[i1 - 1:i1] + expected[i1:i1 + 1]
            what.append("puts a space around punctuation (each mark is a word of its own)"
                        if any(not (c.isalnum() or c.isspace()) for c in near) else "puts a space between words")
        elif not old.strip() and not new.strip():
            # step 2: white space between words becomes one space; at the ends it goes
            what.append("keeps one space between words (runs of spaces, tabs and newlines are not kept)"
                        if 0 < i1 and i2 < len(expected) else "drops leading and trailing white space")
        else:
            # step 3: characters the pre-tokenizer drops
            what.append(f"drops characters such as {old.strip()[:10] or old[:10]!r} when it splits the text, so "
                        "decoding cannot give them back")
    return "this pipeline " + (" and ".join(dict.fromkeys(what)) or "rebuilds the text from its words")


def _edits(expected, promised):
    """Where ``promised`` differs from ``expected``, in one pass (linear time: a general diff,
    such as difflib's, took seconds on one page of text): ``(i1, i2, j1, j2)`` tuples, each
    saying that ``expected[i1:i2]`` became ``promised[j1:j2]``. A pipeline changes white space
    and drops characters; it never adds text other than white space, so walking both texts
    side by side finds every change.

    >>> list(_edits("a  b,c", "a b , c"))
    [(2, 3, 2, 2), (4, 4, 3, 4), (5, 5, 5, 6)]
    """
    i = j = 0
    n, m = len(expected), len(promised)
    while i < n or j < m:
        # step 1: equal characters are no change
        if i < n and j < m and expected[i] == promised[j]:
            i, j = i + 1, j + 1
            continue
        i1, j1 = i, j
        if (i < n and expected[i].isspace()) or (j < m and promised[j].isspace()):
            # step 2: white space on either side: a run of it became another run (or none)
            while i < n and expected[i].isspace():
                i += 1
            while j < m and promised[j].isspace():
                j += 1
        elif i < n:
            # step 3: characters dropped: skip them up to the promised text's next character
            target = promised[j] if j < m else None
            while i < n and expected[i] != target and not expected[i].isspace():
                i += 1
        else:
            # step 4: text the promise has beyond the end (not something a pipeline does)
            j = m
        yield i1, i, j1, j


def normalizer_changes(normalizer, text):
    """What ``normalizer`` changes in ``text``, in words ("" if nothing): one phrase per
    step that changes it. Example: (Lowercase(), 'Hi') -> 'the normalizer lower-cases'."""
    from .pipeline import normalizers as N

    def steps(n):
        if isinstance(n, N.Sequence):
            return [s for m in n.normalizers for s in steps(m)]
        if isinstance(n, N.BertNormalizer):
            return [N.BertNormalizer(clean_text=n.clean_text, handle_chinese_chars=False, strip_accents=False,
                                     lowercase=False), N.BertNormalizer(False, n.handle_chinese_chars, False, False)
                    ] + steps(n._then)
        return [n]

    names = {"Lowercase": "lower-cases", "StripAccents": "strips accents", "Strip": "strips white space at the ends",
             "Collapse": "collapses runs of spaces", "BertNormalizer": "cleans white space and control characters"}
    what, chain = [], steps(normalizer) if normalizer is not None else []
    for k, n in enumerate(chain):
        after = n.normalize_str(text)
        if after != text:
            if isinstance(n, N.Unicode):
                # NFD right before StripAccents is part of stripping accents
                if not (k + 1 < len(chain) and isinstance(chain[k + 1], N.StripAccents)):
                    what.append(f"applies Unicode {n.form}")
            elif isinstance(n, N.BertNormalizer) and n.handle_chinese_chars:
                what.append("puts spaces around CJK characters")
            elif n.type in names:
                what.append(names[n.type])
        text = after
    return ("the normalizer " + ", ".join(dict.fromkeys(what))) if what else ""


def text_stats(tok, text, alpha=RENYI_ALPHA, encoding=None):
    """The statistics of one text (see the module docstring for every definition);
    ``alpha``: the order of ``renyi_efficiency``; ``encoding``: the text's
    ``tok.encode_full(text, disallowed_special=())``, if the caller has it already (the
    statistics then encode nothing)."""
    return _measure(tok, text, check_alpha(alpha), encoding=encoding)[0]


def token_count(tok, text):
    """``text_stats``' ``tokens`` and ``unknown_rate`` alone (what a premium chart needs),
    from the ids only: no offsets, no round trip (o200k on the UDHR in 47 languages: 3x less
    time than ``text_stats``). A text that cannot be encoded gives ``tokens`` None and the
    reason in ``error``, as ``text_stats`` does.

    >>> from subwordlab import train
    >>> token_count(train("low lower lowest", preset="bpe", num_merges=3), "low low")
    {'tokens': 4, 'unknown_rate': 0.0}
    """
    try:
        ids = tok.encode(text, disallowed_special=())
    except ValueError as exc:  # e.g. a character outside the vocabulary and no unk token
        return {"tokens": None, "unknown_rate": None, "error": str(exc)}
    n, unk = len(ids), getattr(tok.model, "unk_id", None)
    unknown = ids.count(unk) if unk is not None else 0
    return {"tokens": n, "unknown_rate": _ratio(unknown, n) if unk is not None else (0.0 if n else None)}


def tokens_per_word(words, offsets):
    """How many tokens touch each word: a token whose ``(start, end)`` overlaps the word's
    span, or a zero-width token inside or at the end of it. Linear whatever the spans: each
    token adds 1 to a range of words (a difference array), so a token that spans many words
    (coarse offsets) costs what one spanning one word does.

    >>> tokens_per_word([(0, 3), (4, 9)], [(0, 2), (2, 3), (3, 5), (5, 9), (9, 9)])
    [2, 3]
    """
    starts, ends = [a for a, _ in words], [b for _, b in words]
    added = [0] * (len(words) + 1)
    for s, e in offsets:
        if e > s:
            lo, hi = bisect.bisect_right(ends, s), bisect.bisect_left(starts, e)
        else:
            lo = bisect.bisect_left(ends, s)
            hi = lo + 1 if lo < len(words) and starts[lo] <= s else lo
        if hi > lo:
            added[lo] += 1
            added[hi] -= 1
    return list(itertools.accumulate(added[:-1]))


def _measure(tok, text, alpha, fallback=None, encoding=None):
    """``(row, tally)``: the row of ``text_stats`` and the counts its ratios come from
    (``continued``, ``unknown``, ``byte_fallback``, ``frequencies``: a Counter of ids), which
    ``compare_corpus`` adds up; tally is None when the text cannot be encoded (the row says
    why in ``error``). ``fallback``: ``byte_fallback_ids(tok)``, if already known."""
    n_bytes = len(text.encode("utf-8"))
    words = [m.span() for m in _NON_SPACE.finditer(text)]
    row = {"tokens": None, "code_points": len(text), "bytes": n_bytes, "words": len(words)}
    try:
        enc = encoding if encoding is not None else tok.encode_full(text, disallowed_special=())
    except ValueError as exc:  # e.g. a character outside the vocabulary and no unk token
        row["error"] = str(exc)
        return row, None
    n = len(enc.ids)
    unk = getattr(tok.model, "unk_id", None)
    fallback = byte_fallback_ids(tok) if fallback is None else fallback
    # tokens per word, in context: tokens whose offsets overlap the word's span (a
    # zero-width token, e.g. an end-of-word marker, counts for the word it touches)
    per_word = tokens_per_word(words, enc.offsets)
    # the counts behind the ratios: continued words, unknown and byte-fallback tokens, and
    # each id's frequency (the unigram distribution of the efficiencies)
    frequencies = Counter(enc.ids)
    tally = {"continued": sum(1 for c in per_word if c > 1),
             "unknown": frequencies[unk] if unk is not None else 0,
             "byte_fallback": sum(frequencies[i] for i in fallback if i in frequencies),
             "frequencies": frequencies}
    trip = round_trip(tok, text, enc.ids)
    continued = _ratio(tally["continued"], len(words))
    row.update(
        tokens=n,
        tokens_per_word=_ratio(n, len(words)),
        chars_per_token=_ratio(len(text), n),
        bytes_per_token=_ratio(n_bytes, n),
        split_words=continued,
        continued_words=continued,
        unknown_rate=_ratio(tally["unknown"], n) if unk is not None else (0.0 if n else None),
        byte_fallback_rate=_ratio(tally["byte_fallback"], n),
        distinct_tokens=len(frequencies),
        shannon_efficiency=shannon_efficiency(frequencies),
        renyi_efficiency=renyi_efficiency(frequencies, alpha),
        round_trip=trip["kind"] == "exact",
        round_trip_kind=trip["kind"],
        round_trip_difference=trip["difference"],
    )
    return row, tally


def compare_texts(tok: Tokenizer, texts: dict[str, str], reference: str | None = None,
                  alpha: float = RENYI_ALPHA) -> dict[str, dict[str, Any]]:
    """``{name: text_stats + premium}`` for named texts. ``reference``: the name of the
    text the others are compared to (default: the first); premium = tokens / its tokens
    (also under its older name, ``parity``). ``alpha``: the Rényi efficiency's order.

    Example: {'en': ..., 'de': ...} with reference 'en' -> rows['de']['premium'] = 1.3
    when the German text takes 30% more tokens.
    """
    return compare_corpus(tok, texts, alpha, reference)["texts"]


def compare_corpus(tok: Tokenizer, texts: dict[str, str], alpha: float = RENYI_ALPHA,
                   reference: str | None = None) -> dict[str, Any]:
    """The measures of every text and of all of them pooled, each text encoded once:
    ``{"texts": compare_texts' rows, "all_texts": pooled}``.

    ``all_texts`` sums tokens, code points, bytes, words, continued words, unknown and
    byte-fallback tokens over the texts that could be encoded, and divides the sums (so a
    long text weighs more than a short one: corpus-level fertility, as the papers compute
    it); its efficiencies are those of the summed token counts. Also ``texts`` (how many were
    pooled), ``skipped`` (the names of texts that could not be encoded: their rows say why),
    ``alpha``, and ``round_trip`` (every pooled text's is exact). No premium: it compares
    one text with another.

    Example: a text of one word in one token and a text of one word in two tokens ->
    all_texts' tokens = 3, words = 2, tokens_per_word = 3 / 2, continued_words = 1 / 2.
    """
    alpha = check_alpha(alpha)
    fallback = byte_fallback_ids(tok)
    measured = {name: _measure(tok, text, alpha, fallback) for name, text in texts.items()}
    rows = {name: row for name, (row, _) in measured.items()}
    if rows:
        ref = reference if reference is not None else next(iter(rows))
        if ref not in rows:
            raise ValueError(f"the reference text {ref!r} is not one of {', '.join(map(repr, rows))}")
        base = rows[ref]["tokens"]
        for row in rows.values():
            premium = _ratio(row["tokens"], base) if row["tokens"] is not None and base is not None else None
            row["premium"] = row["parity"] = premium
    return {"texts": rows, "all_texts": _pooled(tok, measured, alpha)}


def _pooled(tok, measured, alpha):
    """The ``all_texts`` measures of ``compare_corpus`` from each text's (row, tally)."""
    pooled = [(row, tally) for row, tally in measured.values() if tally is not None]
    # step 1: the sums (math.fsum is not needed: all are integers)
    sums = {key: sum(row[key] for row, _ in pooled) for key in ("tokens", "code_points", "bytes", "words")}
    counts = {key: sum(tally[key] for _, tally in pooled) for key in ("continued", "unknown", "byte_fallback")}
    frequencies = Counter()
    for _, tally in pooled:
        frequencies.update(tally["frequencies"])
    n, words = sums["tokens"], sums["words"]
    has_unk = getattr(tok.model, "unk_id", None) is not None
    # step 2: the ratios of the sums, as the per-text ones (None for a 0 denominator)
    continued = _ratio(counts["continued"], words)
    return {
        "texts": len(pooled),
        "skipped": [name for name, (_, tally) in measured.items() if tally is None],
        **sums,
        "tokens_per_word": _ratio(n, words),
        "chars_per_token": _ratio(sums["code_points"], n),
        "bytes_per_token": _ratio(sums["bytes"], n),
        "split_words": continued,
        "continued_words": continued,
        "unknown_rate": _ratio(counts["unknown"], n) if has_unk else (0.0 if n else None),
        "byte_fallback_rate": _ratio(counts["byte_fallback"], n),
        "distinct_tokens": len(frequencies),
        # step 3: the efficiencies of the pooled unigram distribution
        "shannon_efficiency": shannon_efficiency(frequencies),
        "renyi_efficiency": renyi_efficiency(frequencies, alpha),
        "alpha": alpha,
        "round_trip": all(row["round_trip"] for row, _ in pooled) if pooled else None,
    }


COLUMNS = (("tokens", "tokens"), ("code_points", "chars"), ("bytes", "bytes"), ("words", "words"),
           ("tokens_per_word", "tok/word"), ("chars_per_token", "chars/tok"), ("bytes_per_token", "bytes/tok"),
           ("continued_words", "continued"), ("unknown_rate", "unk"), ("byte_fallback_rate", "byte fb"),
           ("renyi_efficiency", "renyi"), ("premium", "premium"), ("round_trip", "round trip"))
_PERCENT = ("split_words", "continued_words", "unknown_rate", "byte_fallback_rate")
_THREE_DIGITS = ("renyi_efficiency", "shannon_efficiency")  # between 0 and 1: two digits say too little
ALL_TEXTS = "all texts"  # the name of the table's pooled line


def _cell(key, value):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "ok" if value else "FAILS"
    if key in _PERCENT:
        return f"{100 * value:.1f}%"
    if key in _THREE_DIGITS:
        return f"{value:.3f}"
    if isinstance(value, float):
        return f"{value:.2f}"
    return f"{value:,}"


def format_table(rows, all_texts=None):
    """The rows of ``compare_texts`` as an aligned text table (one line per text), with
    ``all_texts`` (``compare_corpus``'s pooled measures, if given) as a last line named
    'all texts' and a line saying what the less common columns mean, then the first
    difference of every failed round trip and every error."""
    head = ["text"] + [label for _, label in COLUMNS]
    lines = [head]
    notes = []
    for name, row in rows.items():
        lines.append([name] + [_cell(k, row.get(k)) for k, _ in COLUMNS])
        if row.get("error"):
            notes.append(f"{name}: {row['error']}")
        elif row.get("round_trip_difference"):
            d = row["round_trip_difference"]
            notes.append(f"{name}: round trip differs at character {d['index']}: expected {d['expected']!r}, got {d['got']!r}")
    if all_texts is not None:
        # the pooled line: premium compares one text with another, so it has none
        lines.append([ALL_TEXTS] + [_cell(k, all_texts.get(k)) for k, _ in COLUMNS])
    widths = [max(len(r[k]) for r in lines) for k in range(len(head))]
    out = ["  ".join(c.ljust(widths[k]) if k == 0 else c.rjust(widths[k]) for k, c in enumerate(r)).rstrip() for r in lines]
    alpha = all_texts.get("alpha", RENYI_ALPHA) if all_texts is not None else RENYI_ALPHA
    legend = (f"continued: words in 2+ tokens; byte fb: byte-fallback tokens; renyi: Renyi efficiency, "
              f"alpha={alpha:g}; premium: tokens / the reference's")
    return "\n".join(out + [legend] + notes)
