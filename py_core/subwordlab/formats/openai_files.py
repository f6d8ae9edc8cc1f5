"""Byte-level BPE tokenizers from other tools' files: GPT-2's ``vocab.json`` + ``merges.txt``
and tiktoken's rank files.

>>> import base64
>>> ranks = "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\\n" for b in range(256))
>>> ranks += f"{base64.b64encode(b'hi').decode()} 256\\n"
>>> tok = from_tiktoken(ranks, pattern="gpt2", special_tokens={"<|end|>": 257})
>>> tok.encode("hi!"), tok.encode("<|end|>", allowed_special="all")
([256, 33], [257])
"""

import base64
import binascii
import hashlib

from ..base.events import Progressing, drain, in_chunks, scaled
from ..base.jsonio import MAX_FILE_BYTES, ModelFileError, parse_json
from ..models.bpe import BPE
from ..models.rank_bpe import RankBPE, derive_merges
from ..pipeline.decoders import ByteLevelDecoder
from ..pipeline.pre_tokenizers import ByteLevel
from ..text.bytes_map import BYTE_TO_CHAR, bytes_to_text
from ..tokenizer import Tokenizer


def _byte_bpe_tokenizer(vocab, merges, specials, pattern, spec):
    return drain(_byte_bpe_tokenizer_steps(vocab, merges, specials, pattern, spec))


def _byte_bpe_tokenizer_steps(vocab, merges, specials, pattern, spec):
    present = set(vocab)
    missing = [ch for ch in BYTE_TO_CHAR if ch not in present]
    if missing:
        b = BYTE_TO_CHAR.index(missing[0])
        raise ModelFileError(f"the vocabulary has no token for the byte 0x{b:02X} ({missing[0]!r}); "
                             "a byte-level BPE needs all 256 byte tokens")
    del present
    yield 0, 1
    try:
        pre = ByteLevel(pattern)
        model = yield from BPE.building(vocab, merges, byte_level=True)
    except ValueError as exc:
        raise ModelFileError(str(exc)) from None
    return Tokenizer(model, None, pre, ByteLevelDecoder(), specials, spec)


def _add_specials(vocab, special_tokens, where, index=None):
    """Special tokens as ``{str: id}``: those already in ``vocab`` keep their id, a list's
    new ones are appended, a dict's go at their ids (gaps filled with unused placeholders).
    ``index``: ``vocab``'s ``{token: id}`` when the caller has it; kept up to date."""
    specials = {}
    if special_tokens is None:
        return specials
    if index is None:
        index = dict(zip(vocab, range(len(vocab))))
    if isinstance(special_tokens, str):
        special_tokens = [special_tokens]
    if isinstance(special_tokens, dict):
        items = sorted(special_tokens.items(), key=lambda kv: kv[1])
        for tok, i in items:
            if not isinstance(tok, str) or not tok or isinstance(i, bool) or not isinstance(i, int) or i < 0:
                raise ModelFileError(f"special_tokens: {tok!r}: {i!r} must be a non-empty string with a non-negative id")
            if tok in index and index[tok] != i:
                raise ModelFileError(f"special_tokens: {tok!r} is id {index[tok]} in the {where}, not {i}")
            if i < len(vocab) and vocab[i] != tok:
                raise ModelFileError(f"special_tokens: id {i} of {tok!r} is already the token {vocab[i]!r}")
            while len(vocab) < i:
                # subtle: an unused id; a space never occurs in a byte-level token string
                filler = f"<|unused id {len(vocab)}|>"
                vocab.append(filler)
                index[filler] = len(vocab) - 1
            if i == len(vocab):
                vocab.append(tok)
                index[tok] = i
            specials[tok] = i
        return specials
    for tok in special_tokens:
        if not isinstance(tok, str) or not tok:
            raise ModelFileError(f"special_tokens: {tok!r} is not a non-empty string")
        if tok not in index:
            index[tok] = len(vocab)
            vocab.append(tok)
        specials[tok] = index[tok]
    return specials


def from_gpt2_files(vocab_json_text: str | bytes, merges_text: str | bytes,
                    special_tokens: dict[str, int] | list[str] | None = None, pattern: str = "gpt2") -> Tokenizer:
    """A byte-level BPE tokenizer from GPT-2-style ``vocab.json`` and ``merges.txt`` texts.

    ``special_tokens``: a list of strings; one already in vocab.json keeps its id, others
    are appended. None: ``<|endoftext|>`` if vocab.json has it. Merges are applied the
    textbook way, as GPT-2's own encoder does (lowest-ranked pair, all occurrences).
    ``pattern``: the pre-tokenization regex ("gpt2" for GPT-2 itself).
    """
    doc = parse_json(vocab_json_text, "vocab.json")
    if not isinstance(doc, dict):
        raise ModelFileError("vocab.json: expected an object {token: id}")
    by_id: dict[int, str] = {}
    for tok, i in doc.items():
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise ModelFileError(f"vocab.json[{tok!r}]: expected a non-negative integer id, got {i!r}")
        if i in by_id:
            raise ModelFileError(f"vocab.json: the id {i} is given to both {by_id[i]!r} and {tok!r}")
        by_id[i] = tok
    if by_id and max(by_id) != len(by_id) - 1:
        gap = next(i for i in range(len(by_id)) if i not in by_id)
        raise ModelFileError(f"vocab.json: the ids are not 0..{max(by_id)}: id {gap} is missing")
    vocab = [by_id[i] for i in range(len(by_id))]
    index = {t: i for i, t in enumerate(vocab)}
    if isinstance(merges_text, (bytes, bytearray)):
        merges_text = bytes(merges_text).decode("utf-8", errors="strict")
    merges = []
    for n, line in enumerate(merges_text.splitlines(), 1):
        if not line.strip() or (n == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise ModelFileError(f"merges.txt line {n}: expected 'left right', got {line[:60]!r}")
        for part in parts:
            if part not in index:
                raise ModelFileError(f"merges.txt line {n}: {part!r} is not in vocab.json")
        if parts[0] + parts[1] not in index:
            raise ModelFileError(f"merges.txt line {n}: the result {parts[0] + parts[1]!r} is not in vocab.json")
        merges.append((index[parts[0]], index[parts[1]]))
    if special_tokens is None:
        special_tokens = ["<|endoftext|>"] if "<|endoftext|>" in index else []
    specials = _add_specials(vocab, special_tokens, "vocab.json")
    digest = hashlib.sha256()
    for file_text in (vocab_json_text, merges_text):
        digest.update(file_text.encode("utf-8") if isinstance(file_text, str) else bytes(file_text))
    spec = {"preset": "byte_bpe", "pattern": pattern, "source": "gpt2 vocab.json + merges.txt", "source_sha256": digest.hexdigest()}
    return _byte_bpe_tokenizer(vocab, merges, specials, pattern, spec)


def tiktoken_merges(ranks):
    """Merges derived from tiktoken ranks as HF's converters do: every split of a token
    into two tokens is a merge, ordered by the rank of the result, then of its parts.

    ``ranks``: ``{token_bytes: rank}``. Returns ``[(left_bytes, right_bytes)]``.
    Example: {a:0, b:1, c:2, ab:3, bc:4, abc:5} -> [(a,b), (b,c), (a,bc), (ab,c)].
    """
    return drain(derive_merges(ranks, sorted(ranks, key=ranks.__getitem__)))


# OpenAI's published rank files, known by their SHA-256 (the hashes tiktoken pins):
# name, pre-tokenization pattern, special tokens (as tiktoken_ext.openai_public gives them)
KNOWN_TIKTOKEN_FILES = {
    "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930":
        ("r50k_base (GPT-2)", "gpt2", {"<|endoftext|>": 50256}),
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7":
        ("cl100k_base (GPT-4)", "cl100k", {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                                          "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}),
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d":
        ("o200k_base (GPT-4o)", "o200k", {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
}


def known_tiktoken_file(rank_file_text):
    """``(name, pattern, special_tokens)`` if the text is one of OpenAI's published rank
    files, else None. Example: the text of o200k_base.tiktoken -> ('o200k_base (GPT-4o)', 'o200k', {...})."""
    data = rank_file_text.encode("ascii", errors="replace") if isinstance(rank_file_text, str) else bytes(rank_file_text)
    return KNOWN_TIKTOKEN_FILES.get(hashlib.sha256(data).hexdigest())


def from_tiktoken(rank_file_text: str | bytes, pattern: str | None = None,
                  special_tokens: dict[str, int] | list[str] | None = None) -> Tokenizer:
    """A byte-level BPE tokenizer from a tiktoken rank file (``<base64 token> <rank>`` per line).
    See ``iter_from_tiktoken`` for the arguments."""
    return drain(iter_from_tiktoken(rank_file_text, pattern, special_tokens))


# The longest token a rank file may hold. Deriving the merges hashes every split of every
# token, so a file's cost grows with (bytes x longest token); the cap keeps it linear in the
# file's size (a crafted staircase a, aa, aaa, ... of 1 MB took 1.7 s uncapped, ~50 s at 10 MB).
MAX_RANK_TOKEN_BYTES = 256
MERGES_PER_TOKEN = 16  # refused beyond: the merges derived from a file stay linear in its size
_RANK_DIGITS = 12  # a rank is an id below the file's line count: never near 12 digits
_LINES_PER_CHUNK = 4096  # lines parsed between two progress events (~2 ms in CPython)


class _NotPlain(Exception):
    """The file is not in the plain form OpenAI's are in: read it line by line instead."""


def _parse_plain(lines):
    """The tokens of a rank file in the plain form OpenAI's files have (``<base64> <rank>``
    lines, ranks 0, 1, 2, ... in order), parsed a slice of lines at a time with C-speed
    calls (split, join, isdigit, a2b_base64 over whole slices: o200k's 200k lines in about
    0.1 s, against 0.4 s line by line). Raises ``_NotPlain`` at the first thing it does not
    expect; ``_parse_lines`` then reads the file again and names the problem. Yields
    ``(done, total)`` like ``events.in_chunks``; returns the tokens (bytes) in rank order."""
    tokens = []
    decode = binascii.a2b_base64

    def parse(lo, hi):
        rows = list(map(str.split, lines[lo:hi]))
        if set(map(len, rows)) != {2}:  # (a blank line, a missing or extra field)
            raise _NotPlain
        texts, ranks = zip(*rows)
        digits = "".join(ranks)
        if not (digits.isascii() and digits.isdigit()) or max(map(len, ranks)) > _RANK_DIGITS:
            raise _NotPlain
        if list(map(int, ranks)) != list(range(lo, hi)):
            raise _NotPlain  # out of order, repeated or missing ranks
        try:
            data = [decode(t, strict_mode=True) for t in texts]
        except (binascii.Error, ValueError):
            raise _NotPlain from None
        if min(map(len, data)) == 0 or max(map(len, data)) > MAX_RANK_TOKEN_BYTES:
            raise _NotPlain
        tokens.extend(data)

    yield from in_chunks(len(lines), parse, _LINES_PER_CHUNK)
    return tokens


def _parse_lines(lines):
    """The tokens of a rank file in rank order, read line by line (any order of ranks, blank
    lines, tabs), each problem named with its line. Yields ``(done, total)``."""
    ranks, by_rank = {}, {}

    def parse(lo, hi):
        for n in range(lo + 1, hi + 1):  # (line numbers count from 1)
            line = lines[n - 1]
            if not line.strip():
                continue
            parts = line.split()
            if len(parts) != 2 or not (parts[1].isascii() and parts[1].isdigit()):
                raise ModelFileError(f"rank file line {n}: expected '<base64 token> <rank>', got {line[:60]!r}")
            if len(parts[1]) > _RANK_DIGITS:
                raise ModelFileError(f"rank file line {n}: the rank {parts[1][:12]}… has {len(parts[1]):,} digits; "
                                     f"a rank is a token's id, 0 up to the number of lines")
            try:
                token = base64.b64decode(parts[0], validate=True)
            except (binascii.Error, ValueError):
                raise ModelFileError(f"rank file line {n}: {parts[0][:40]!r} is not base64") from None
            rank = int(parts[1])
            if not token:
                raise ModelFileError(f"rank file line {n}: an empty token")
            if len(token) > MAX_RANK_TOKEN_BYTES:
                raise ModelFileError(f"rank file line {n}: a token of {len(token):,} bytes; the longest this loader "
                                     f"takes is {MAX_RANK_TOKEN_BYTES} bytes (OpenAI's files have at most 128)")
            if token in ranks:
                raise ModelFileError(f"rank file line {n}: the token {token!r} also has rank {ranks[token]}")
            if rank in by_rank:
                raise ModelFileError(f"rank file line {n}: rank {rank} is also the token {by_rank[rank]!r}")
            ranks[token] = rank
            by_rank[rank] = token

    yield from in_chunks(len(lines), parse)
    if not ranks:
        raise ModelFileError("the rank file is empty")
    if max(by_rank) != len(by_rank) - 1:
        gap = next(i for i in range(len(by_rank)) if i not in by_rank)
        raise ModelFileError(f"rank file: the ranks are not 0..{max(by_rank)}: rank {gap} is missing")
    return [by_rank[i] for i in range(len(by_rank))]


def iter_from_tiktoken(rank_file_text: str | bytes, pattern: str | None = None,
                       special_tokens: dict[str, int] | list[str] | None = None
                       ) -> Progressing[Tokenizer]:
    """``from_tiktoken`` with its progress, for a page that must keep responding while a
    200,000-token file loads: yields ``(done, total)`` after each chunk of work (``done/total``
    grows from 0 to 1 over the whole load) and returns the tokenizer.

    Ids are the ranks, exactly. ``pattern``: "gpt2", "cl100k", "o200k" or a regex (tiktoken's
    ``pat_str``). ``special_tokens``: ``{str: id}`` as tiktoken gives them (ids in a gap are
    kept, the gap filled with unused placeholders), or a list (appended). For OpenAI's own
    files (r50k_base, cl100k_base, o200k_base, known by their SHA-256) both default to
    tiktoken's; any other file needs its ``pattern``.

    The model keeps the ranks and encodes by them (``models.rank_bpe``); its merges are
    derived when first asked for, except from a file whose tokens could split into more
    merges than ``MERGES_PER_TOKEN`` allow: those are derived (and such a file refused) here.
    """
    if isinstance(rank_file_text, (bytes, bytearray)):
        rank_file_text = bytes(rank_file_text).decode("ascii", errors="replace")
    if not isinstance(rank_file_text, str):
        raise ModelFileError(f"a tiktoken rank file is text, not {type(rank_file_text).__name__}")
    sha256 = hashlib.sha256(rank_file_text.encode("utf-8")).hexdigest()
    known = KNOWN_TIKTOKEN_FILES.get(sha256)
    if len(rank_file_text) > MAX_FILE_BYTES:
        raise ModelFileError(f"the rank file is {len(rank_file_text):,} characters; the limit is {MAX_FILE_BYTES:,}")
    yield 0, 1
    # progress: parsing the lines, making the token strings, then (a crafted file only)
    # deriving the merges, a third each
    lines = rank_file_text.splitlines()
    total = 3 * max(1, len(lines))
    yield 0, total
    # step 1: the tokens in rank order (the fast reading, or line by line for its messages)
    try:
        tokens = yield from scaled(_parse_plain(lines), 0, len(lines), total)
        yield len(lines), total
        ranks = dict(zip(tokens, range(len(tokens))))  # the model's table, and the check:
        if len(ranks) != len(tokens):
            raise _NotPlain  # a token twice
    except _NotPlain:
        tokens = yield from scaled(_parse_lines(lines), 0, len(lines), total)
        ranks = dict(zip(tokens, range(len(tokens))))
    if not tokens:
        raise ModelFileError("the rank file is empty")
    # (a yield between bulk steps: in the page each is one task of tens of milliseconds)
    yield len(lines), total
    if pattern is None:
        if known is None:
            raise ModelFileError("this rank file is not one of OpenAI's published files (r50k_base, cl100k_base, "
                                 "o200k_base): say how it splits text with pattern='gpt2', 'cl100k', 'o200k' or "
                                 "tiktoken's pat_str")
        pattern = known[1]
    if special_tokens is None and known is not None:
        special_tokens = known[2]
    # step 2: the token strings (ids are the ranks), then the special tokens
    vocab = []

    def as_text(lo, hi):
        vocab.extend(map(bytes_to_text, tokens[lo:hi]))

    yield from scaled(in_chunks(len(tokens), as_text, _LINES_PER_CHUNK), len(lines), len(lines), total)
    index = dict(zip(vocab, range(len(vocab))))
    yield 2 * len(lines), total
    specials = _add_specials(vocab, special_tokens, "rank file", index)
    # step 3: the merges, only if the tokens could split into too many (a crafted file: every
    # token of n bytes splits at most n - 1 ways, so OpenAI's files never need it)
    most = MERGES_PER_TOKEN * len(tokens) + 1000
    merges = None
    table: dict[tuple[int, int], tuple[int, int]] | None = None
    if sum(map(len, tokens)) - len(tokens) > most:
        table = {}
        merges = yield from scaled(derive_merges(ranks, tokens, as_ids=True, table=table, most=most),
                                    2 * len(lines), len(lines), total)
    spec = {"preset": "byte_bpe", "pattern": pattern, "source": known[0] if known else "tiktoken rank file",
            "source_sha256": sha256}
    try:
        model = RankBPE(vocab, tokens, index, merges, table, ranks)
        tok = Tokenizer(model, None, ByteLevel(pattern), ByteLevelDecoder(), specials, spec)
    except ValueError as exc:
        raise ModelFileError(str(exc)) from None
    yield total, total
    return tok
