"""Statistics of a tokenizer on named texts: what the comparison view and ``subwordlab stats`` show.

Pure functions, no printing. Definitions (the denominators are stated, since papers differ):

- ``tokens``: ids of the text, special tokens encoded as ordinary text, no BOS/EOS added;
- ``code_points``: ``len(text)``; ``bytes``: its UTF-8 length;
- ``words``: runs of characters between Unicode White_Space (``text.split()``, except that
  U+001C..U+001F are not spaces) — a rough unit for languages written without spaces;
- ``tokens_per_word`` (fertility): tokens / words;
- ``chars_per_token``: code points / tokens; ``bytes_per_token``: bytes / tokens;
- ``split_words``: share of words covered by more than one token (tokens whose character
  offsets overlap the word, in context);
- ``unknown_rate``: share of tokens that are the model's unknown token;
- ``round_trip``: whether ``decode(encode(text))`` gives back the normalized text (as a
  reader sees it: ``shown_normalized``), and if not the first difference;
  ``round_trip_kind``: "exact", "by_design" (what the pipeline promises, which drops white
  space on purpose, or spaces out punctuation) or "lossy" (less than promised: unknown tokens...);
- ``parity``: tokens / the reference text's tokens (for translations of the same text).

A ratio whose denominator is 0 is None.

>>> samples = {"en": "cat", "ko": "고양이", "digits": "1234", "empty": ""}
>>> report = tokenization_stats(lambda text: list(text.encode("utf-8")), samples)
>>> report["ko"]
{'tokens': 9, 'code_points': 3, 'tokens_per_code_point': 3.0}
>>> embedding_parameters(32_000, 1_024)
32768000
"""

import bisect
from typing import Any

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


def text_stats(tok, text):
    """The statistics of one text (see the module docstring for every definition)."""
    n_bytes = len(text.encode("utf-8"))
    words = [m.span() for m in _NON_SPACE.finditer(text)]
    row = {"tokens": None, "code_points": len(text), "bytes": n_bytes, "words": len(words)}
    try:
        enc = tok.encode_full(text, disallowed_special=())
    except ValueError as exc:  # e.g. a character outside the vocabulary and no unk token
        row["error"] = str(exc)
        return row
    n = len(enc.ids)
    unk = getattr(tok.model, "unk_id", None)
    # tokens per word, in context: tokens whose offsets overlap the word's span (a
    # zero-width token, e.g. an end-of-word marker, counts for the word it touches)
    starts, ends = [a for a, _ in words], [b for _, b in words]
    per_word = [0] * len(words)
    for s, e in enc.offsets:
        if e > s:
            for k in range(bisect.bisect_right(ends, s), bisect.bisect_left(starts, e)):
                per_word[k] += 1
        else:
            k = bisect.bisect_left(ends, s)
            if k < len(words) and starts[k] <= s:
                per_word[k] += 1
    trip = round_trip(tok, text, enc.ids)
    row.update(
        tokens=n,
        tokens_per_word=_ratio(n, len(words)),
        chars_per_token=_ratio(len(text), n),
        bytes_per_token=_ratio(n_bytes, n),
        split_words=_ratio(sum(1 for c in per_word if c > 1), len(words)),
        unknown_rate=_ratio(sum(1 for i in enc.ids if i == unk), n) if unk is not None else (0.0 if n else None),
        round_trip=trip["kind"] == "exact",
        round_trip_kind=trip["kind"],
        round_trip_difference=trip["difference"],
    )
    return row


def compare_texts(tok: Tokenizer, texts: dict[str, str], reference: str | None = None) -> dict[str, dict[str, Any]]:
    """``{name: text_stats + parity}`` for named texts. ``reference``: the name of the
    text the others are compared to (default: the first); parity = tokens / its tokens.

    Example: {'en': ..., 'de': ...} with reference 'en' -> rows['de']['parity'] = 1.3
    when the German text takes 30% more tokens.
    """
    rows = {name: text_stats(tok, text) for name, text in texts.items()}
    if not rows:
        return rows
    ref = reference if reference is not None else next(iter(rows))
    if ref not in rows:
        raise ValueError(f"the reference text {ref!r} is not one of {', '.join(map(repr, rows))}")
    base = rows[ref]["tokens"]
    for row in rows.values():
        row["parity"] = _ratio(row["tokens"], base) if row["tokens"] is not None and base is not None else None
    return rows


COLUMNS = (("tokens", "tokens"), ("code_points", "chars"), ("bytes", "bytes"), ("words", "words"),
           ("tokens_per_word", "tok/word"), ("chars_per_token", "chars/tok"), ("bytes_per_token", "bytes/tok"),
           ("split_words", "split"), ("unknown_rate", "unk"), ("parity", "parity"), ("round_trip", "round trip"))


def _cell(key, value):
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "ok" if value else "FAILS"
    if key in ("split_words", "unknown_rate"):
        return f"{100 * value:.1f}%"
    if isinstance(value, float):
        return f"{value:.2f}"
    return f"{value:,}"


def format_table(rows):
    """The rows of ``compare_texts`` as an aligned text table (one line per text), then
    the first difference of every failed round trip and every error."""
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
    widths = [max(len(r[k]) for r in lines) for k in range(len(head))]
    out = ["  ".join(c.ljust(widths[k]) if k == 0 else c.rjust(widths[k]) for k, c in enumerate(r)).rstrip() for r in lines]
    return "\n".join(out + notes)
