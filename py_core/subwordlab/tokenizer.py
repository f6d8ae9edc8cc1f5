"""The Tokenizer: normalizer -> pre-tokenizer -> model -> special tokens -> decoder.

(Why one module: it is one class, the public API, whose encode, offset and
decode paths share its special-token split and chunk caches; the stages themselves live in
their own modules.)

>>> import subwordlab
>>> tok = subwordlab.train({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
...                        preset="bpe", num_merges=3, end_of_word=None, unk_token="<unk>")
>>> tok.tokenize("bugs mug")
['b', 'ug', 's', '<unk>', 'ug']
>>> tok.decode(tok.encode("hugs"))
'hugs'
"""

import copy
import random
from collections import ChainMap
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any, Literal

from .base.gc_pause import no_cyclic_gc
from .models.bpe import BPE, UNKNOWN, UnknownSymbolError
from .pipeline import normalizers as N
from .pipeline.normalizers import identity_aligned
from .pipeline.pre_tokenizers import ByteLevel, Metaspace, WhitespaceMetaspace
from .text.bytes_map import bytes_to_text
from .text.special import split_special

_CACHE_LIMIT = 200_000  # pieces remembered by the encode cache

# a special-token policy: "all", or the special tokens allowed (or refused) in the text
Special = Literal["all"] | AbstractSet[str] | Iterable[str]


def _bytes_of(piece, text):
    """Is ``piece`` the GPT-2 byte characters of ``text`` (perhaps after an added prefix
    space)? Example: _bytes_of('ĠÐĴ', 'В') -> True."""
    mapped = bytes_to_text(text.encode("utf-8", "surrogatepass"))
    return piece.endswith(mapped) and set(piece[:len(piece) - len(mapped)]) <= {"\u0120"}


@dataclass
class Encoding:
    """What ``encode_full`` returns: ids, token strings, and for each token its span in
    the original text as character offsets and as UTF-8 byte offsets."""

    ids: list[int]
    tokens: list[str]
    offsets: list[tuple[int, int]]
    byte_offsets: list[tuple[int, int]]
    special: list[bool]
    # with ``keep_unknown``: True for a character outside a char-level BPE's alphabet, shown
    # as itself (its token is the character, its id None)
    unknown: list[bool] = field(default_factory=list)


class Tokenizer:
    """A trained tokenizer. Build one with ``subwordlab.train`` or a ``from_*`` loader."""

    def __init__(self, model: Any, normalizer: Any = None, pre_tokenizer: Any = None, decoder: Any = None,
                 special_tokens: dict[str, int] | None = None, spec: dict[str, Any] | None = None,
                 added_vocab: Any = None) -> None:
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.decoder = decoder
        self.special_tokens = dict(special_tokens or {})
        self.spec = dict(spec or {})
        for tok, i in self.special_tokens.items():
            if not (0 <= i < len(model.vocab)) or model.vocab[i] != tok:
                raise ValueError(f"special token {tok!r} must be in the vocabulary at id {i}")
        self._special_ids = {i: t for t, i in self.special_tokens.items()}
        # HF-style added tokens (tokenizer.json imports): cut out before the model, see added_vocab.py
        self.added_vocab = added_vocab
        if added_vocab is not None:
            for t in added_vocab.tokens:
                if not (0 <= t.id < len(model.vocab)) or model.vocab[t.id] != t.content:
                    raise ValueError(f"added token {t.content!r} must be in the vocabulary at id {t.id}")
        self._cache: dict[str, list[int]] = {}
        # user-defined symbols (SentencePiece style): the pre-tokenizer isolates them; each is one id
        self._user_defined = {s: model.token_to_id[s] for s in getattr(pre_tokenizer, "user_defined_symbols", ())
                              if s in model.token_to_id}
        self._chunk_cache: dict[str, list[int]] = {}
        self._span_cache: dict[str, list[tuple[int, int, int]]] = {}  # a piece's tokens with their spans
        self._byte_lengths: dict[int, int] = {}  # how many bytes a token stands for (byte-level offsets)
        # the byte-level fast path: regex chunks -> bytes -> merges, no normalizer
        self._byte_fast = (isinstance(pre_tokenizer, ByteLevel) and normalizer is None
                           and getattr(model, "byte_level", False))

    # -- vocabulary ---------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        """Number of ids (tokens, including special tokens)."""
        return len(self.model.vocab)

    def id_to_token(self, id: int) -> str:
        """The token string of an id. Raises ValueError for an id outside the vocabulary."""
        if not isinstance(id, int) or not 0 <= id < len(self.model.vocab):
            raise ValueError(f"id {id!r} is not in the vocabulary (ids are 0..{len(self.model.vocab) - 1})")
        return self.model.vocab[id]

    def token_to_id(self, token: str) -> int | None:
        """The id of a token string, or None if it is not in the vocabulary."""
        return self.model.token_to_id.get(token)

    @property
    def merges(self) -> list[tuple[str, str]]:
        """BPE only: the merges in rank order as ``(left_id, right_id)``."""
        if not hasattr(self.model, "merges"):
            raise AttributeError(f"a {self.model.type} model has no merges")
        return list(self.model.merges)

    def truncated(self, steps: int) -> "Tokenizer":
        """BPE: the tokenizer as it was after the first ``steps`` merges (same ids).

        New tokens are appended as merges are learned, so the vocabulary then is a prefix of
        the vocabulary now. Example: ``tok.truncated(0).tokenize("low")`` -> characters.
        """
        m = self.model
        if not isinstance(m, BPE):
            raise TypeError(f"truncated() needs a BPE model, not {m.type}")
        if not 0 <= steps <= len(m.merges):
            raise ValueError(f"steps must be between 0 and {len(m.merges)}")
        merges = m.merges[:steps]
        size = max([m.base_size] + [m.ranks[p][1] + 1 for p in merges])
        model = BPE(m.vocab[:size], merges, m.unk_token, m.end_of_word, m.byte_level, m.byte_fallback, m.fuse_unk)
        return Tokenizer(model, self.normalizer, self.pre_tokenizer, self.decoder, self.special_tokens, self.spec)

    # -- encoding -----------------------------------------------------------------------
    def normalize_str(self, text: str) -> str:
        """The normalizer alone. Example (NFKC): 'Ｈｉ' -> 'Hi'."""
        return self.normalizer.normalize_str(text) if self.normalizer else text

    def pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """The pre-tokenizer alone on (already normalized) text: ``[(piece, (start, end))]``."""
        return self.pre_tokenizer.pre_tokenize_str(text) if self.pre_tokenizer else [(text, (0, len(text)))]

    def unmatched_chars(self, text: str) -> int:
        """How many characters of (already normalized) ``text`` a custom pre-tokenization
        pattern leaves unmatched. They are not lost: each run of them is a piece of its own.
        0 for the built-in patterns and the other pre-tokenizers, which cover all text.

        >>> import subwordlab
        >>> tok = subwordlab.train("ab cd", preset="byte_bpe", pattern=r"[a-z]+", vocab_size=256)
        >>> tok.unmatched_chars("ab, cd!"), tok.decode(tok.encode("ab, cd!"))
        (3, 'ab, cd!')
        """
        unmatched = getattr(self.pre_tokenizer, "unmatched", None)
        return unmatched(text) if unmatched else 0

    def _encode_piece(self, piece):
        ids = self._cache.get(piece)
        if ids is None:
            ud = self._user_defined.get(piece)
            ids = [ud] if ud is not None else self.model.encode_piece(piece)
            if len(self._cache) < _CACHE_LIMIT:
                self._cache[piece] = ids
        return ids

    def _tokenize_piece(self, piece):
        """``model.tokenize_piece(piece)`` (spans in the piece: the same wherever it occurs),
        remembered: a text's offsets (Inspect, Compare's statistics) meet the same words again
        and again, as ``encode`` does (``_encode_piece``). Callers only read the list."""
        found = self._span_cache.get(piece)
        if found is None:
            found = self.model.tokenize_piece(piece)
            if len(self._span_cache) < _CACHE_LIMIT:
                self._span_cache[piece] = found
        return found

    def _encode_byte_level(self, text: str) -> list[int]:
        """The byte-level fast path of ``encode_ordinary``: text -> runs (segments that chunk
        independently, or the regex chunks) -> ids, every distinct run encoded once.

        Measured on udhr_many with GPT-2's ranks (CPU time, cold cache): the old loop, one
        look-up and one ``+=`` per run with misses handled inline, spent 0.6 s outside the
        merges; finding the distinct new runs first (``dict.fromkeys``, C speed) and joining
        the ids at the end with ``chain``/``map`` (C speed) leaves about half of that.
        (Doing every step of a cold pass as such C-level passes saved nothing more: the
        merges are ~80 % of it.)
        """
        pre, model = self.pre_tokenizer, self.model
        runs = pre.segments(text)
        by_segment = runs is not None
        if not by_segment:
            runs = pre.chunks(text)
        cache = self._cache if by_segment else self._chunk_cache
        try:
            # warm: every run seen before, the ids joined at C speed
            return list(chain.from_iterable(map(cache.__getitem__, runs)))
        except KeyError:
            pass
        # step 1: the distinct runs not seen before, each encoded once (a segment chunk by
        # chunk, each chunk cached on its own)
        fresh: dict[str, list[int]] = {}
        encode_bytes, split, chunk_cache = model.encode_bytes, pre.regex.findall, self._chunk_cache
        with no_cyclic_gc():
            for run in dict.fromkeys(runs):
                if run in cache:
                    continue
                if by_segment:
                    ids: list[int] = []
                    for chunk in split(run):
                        found = chunk_cache.get(chunk)
                        if found is None:
                            found = encode_bytes(chunk.encode("utf-8"))
                            if len(chunk_cache) < _CACHE_LIMIT:
                                chunk_cache[chunk] = found
                        ids += found
                else:
                    ids = encode_bytes(run.encode("utf-8"))
                fresh[run] = ids
        # step 2: remember them (up to the cache's limit)
        room = _CACHE_LIMIT - len(cache)
        cache.update(fresh if room >= len(fresh) else islice(fresh.items(), max(0, room)))
        # step 3: the ids of every run, joined at C speed
        lookup = cache.__getitem__ if room >= len(fresh) else ChainMap(fresh, cache).__getitem__
        return list(chain.from_iterable(map(lookup, runs)))

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text`` with no special-token handling (specials are ordinary text)."""
        if self._byte_fast:
            return self._encode_byte_level(text)
        out: list[int] = []
        normalized = self.normalize_str(text)
        pieces = self.pre_tokenizer.words(normalized) if self.pre_tokenizer else ([normalized] if normalized else [])
        for piece in pieces:
            out.extend(self._encode_piece(piece))
        return out

    def encode(self, text: str, allowed_special: Special = (), disallowed_special: Special = "all") -> list[int]:
        """Ids of ``text``. Special tokens follow tiktoken's policy: by default one found in
        the text raises ValueError; ``allowed_special={"<|x|>"}`` or ``"all"`` encodes them
        as special tokens; ``disallowed_special=()`` encodes them as ordinary text.
        """
        if not isinstance(text, str):
            raise TypeError(f"encode() takes a str, not {type(text).__name__}")
        if self.added_vocab is not None:
            return self.added_vocab.encode(self, text, allowed_special, disallowed_special)
        if not self.special_tokens:
            return self.encode_ordinary(text)
        out = []
        for part, _ in split_special(text, self.special_tokens, allowed_special, disallowed_special):
            if isinstance(part, int):
                out.append(part)
            else:
                out.extend(self.encode_ordinary(part))
        return out

    def sample_encode(self, text: str, alpha: float, seed: Any = 0, allowed_special: Special = (),
                      disallowed_special: Special = "all") -> list[int]:
        """Ids of one randomly drawn segmentation, reproducible by ``seed``.

        BPE: BPE-dropout, each merge skipped with probability ``alpha`` (0 = plain BPE,
        1 = single symbols), as SentencePiece's alpha does for BPE. Unigram: a segmentation
        drawn with probability proportional to P(segmentation) ** alpha.
        """
        if not hasattr(self.model, "sample_piece"):
            raise TypeError(f"a {self.model.type} model has no sampling; use a BPE or Unigram tokenizer")
        rng = random.Random(seed)
        out = []
        for part, _ in split_special(text, self.special_tokens, allowed_special, disallowed_special):
            if isinstance(part, int):
                out.append(part)
                continue
            normalized = self.normalize_str(part)
            for piece in (self.pre_tokenizer.words(normalized) if self.pre_tokenizer else [normalized]):
                ud = self._user_defined.get(piece)
                out.extend([ud] if ud is not None else self.model.sample_piece(piece, alpha, rng))
        return out

    def encode_nbest(self, text: str, n: int, allowed_special: Special = (),
                     disallowed_special: Special = "all") -> list[tuple[list[int], float]]:
        """Unigram: the ``n`` most probable segmentations of ``text`` as ``[(ids, log_prob),
        ...]``, best first (pieces are split independently; a special token scores 0).

        Example (pieces a 0.4, b 0.3, ab 0.1): 'ab' -> [([a, b], log 0.12), ([ab], log 0.1)].
        """
        if not hasattr(self.model, "nbest"):
            raise TypeError(f"encode_nbest() needs a Unigram model, not {self.model.type}; "
                            "train with preset='unigram' or 'sentencepiece_unigram'")
        parts = []
        for part, _ in split_special(text, self.special_tokens, allowed_special, disallowed_special):
            if isinstance(part, int):
                parts.append(part)
                continue
            normalized = self.normalize_str(part)
            for piece in (self.pre_tokenizer.words(normalized) if self.pre_tokenizer else [normalized]):
                parts.append(self._user_defined.get(piece, piece))
        return self.model.nbest(parts, n)

    def tokenize(self, text: str, **policy: Any) -> list[str]:
        """The token strings of ``text``. Example: 'lowest' -> ['low', 'est</w>'].

        A character a char-level BPE never saw (and no unk token) stays itself, as the
        textbook BPE does: 'stemmed' -> ['stem', 'm', 'e', 'd', '</w>'] with no 'd' in the
        corpus; ``encode`` has no id for it and raises (set ``unk_token`` to map it to one).
        """
        vocab = self.model.vocab
        try:
            return [vocab[i] for i in self.encode(text, **policy)]
        except UnknownSymbolError:
            return self.encode_full(text, keep_unknown=True, **policy).tokens

    def encode_iter(self, texts: Iterable[str], allowed_special: Special = (),
                    disallowed_special: Special = "all") -> Iterator[int]:
        """Ids for a stream of strings (e.g. the lines of a big file), yielded chunk by chunk,
        equal to encoding the concatenation. Memory stays bounded by the longest piece:
        the unfinished tail (pieces the next string could still change) is carried over.
        """
        carry, tok = "", self
        for text in texts:
            carry += text
            cut = self._safe_cut(carry, allowed_special, disallowed_special)
            if cut > 0:
                yield from tok.encode(carry[:cut], allowed_special, disallowed_special)
                # after the first cut the carried text is no longer the start of the text
                carry, tok = carry[cut:], self._continuation()
        if carry:
            yield from tok.encode(carry, allowed_special, disallowed_special)

    def _continuation(self):
        """This tokenizer for the rest of a text cut at a space (see ``_space_cut``): the
        same, except that a SentencePiece-style dummy ▁ is not added before that space (it
        belongs to the start of the whole text only)."""
        pre = self.pre_tokenizer
        if not getattr(pre, "prefix_before_space", False):
            return self
        rest = copy.copy(self)
        rest.pre_tokenizer = copy.copy(pre)
        rest.pre_tokenizer.prefix_before_space = False
        return rest

    def _safe_cut(self, text, allowed_special, disallowed_special):
        """The largest position in ``text`` before which encoding cannot depend on what
        follows: a boundary between special tokens and ordinary text, or a piece start of
        the last ordinary run that leaves its last two pieces behind (two, because GPT-style
        regexes attach a space to the next word); never within the last few characters
        that could still become a special token."""
        if self.normalizer or self.added_vocab is not None or isinstance(self.pre_tokenizer, Metaspace) \
                or getattr(self.pre_tokenizer, "add_prefix_space", False) or getattr(self.pre_tokenizer, "pattern_name", None):
            # subtle: also the built-in byte-level patterns: no chunk of theirs goes from a
            # non-space to a space (see ByteLevel.segments), while "the last two pieces"
            # is not always enough (cl100k: a space run, then a space + combining mark)
            return self._space_cut(text)
        longest = max((len(t) for t in self.special_tokens), default=1)
        limit = len(text) - (longest - 1)
        candidates = [0]
        parts = split_special(text, self.special_tokens, allowed_special, disallowed_special)
        for k, (part, start) in enumerate(parts):
            candidates.append(start)
            if k == len(parts) - 1 and not isinstance(part, int):
                pieces = self.pre_tokenize_str(part)
                candidates.extend(start + span[0] for _, span in pieces[:-2])
        return max(c for c in candidates if c <= limit) if limit > 0 else 0

    def _space_cut(self, text):
        """A cut for pipelines that see whole runs (a normalizer may strip or collapse
        their ends; a ▁ or a prefix space is added at their start): just before a single
        space between two ordinary characters, where every pre-tokenizer here starts a piece
        and the next run starts with the same space it had in the whole text. Never inside
        a special or added token; 0 (no cut) for normalizers that are not local."""
        if not _local_normalizer(self.normalizer):
            return 0
        tokens = list(self.special_tokens) + ([t.content for t in self.added_vocab.tokens] if self.added_vocab else [])
        longest = max((len(t) for t in tokens), default=1)
        cut = text.rfind(" ", 1, max(1, len(text) - (longest - 1)))
        while cut > 0:
            # subtle: a token occurrence starting less than len(t) before the cut contains it
            inside = any(0 <= text.find(t, max(0, cut - len(t) + 1)) < cut for t in tokens)
            # subtle: ordinary characters on both sides, so no normalizer strips or collapses
            # the space and no ▁ (a space to Metaspace) makes an extra piece next to it
            ordinary = all(not c.isspace() and c != "\u2581" for c in text[cut - 1:cut + 2:2])
            if ordinary and cut + 1 < len(text) and not inside:
                return cut
            cut = text.rfind(" ", 1, cut)
        return 0

    # -- encoding with offsets ------------------------------------------------------------
    def encode_full(self, text: str, allowed_special: Special = (), disallowed_special: Special = "all",
                    keep_unknown: bool = False) -> Encoding:
        """Ids, tokens, and character and byte offsets into ``text`` for every token.

        ``keep_unknown``: a character outside a char-level BPE's alphabet (no unk token)
        does not raise but becomes a token of its own: the character, id None, flagged in
        ``Encoding.unknown``."""
        ids, offsets, special = [], [], []
        if self.added_vocab is not None:
            # HF-style added tokens: their own splitting (special tokens among them)
            parts = []
            for tid, s, e in self.added_vocab.spans(self, text, allowed_special, disallowed_special):
                ids.append(tid)
                offsets.append((s, e))
                special.append(tid in self._special_ids)
        else:
            parts = split_special(text, self.special_tokens, allowed_special, disallowed_special)
        for part, start in parts:
            if isinstance(part, int):
                ids.append(part)
                offsets.append((start, start + len(self._special_ids[part])))
                special.append(True)
                continue
            for tid, s, e in self._tokenize_with_offsets(part, keep_unknown):
                ids.append(tid)
                offsets.append((start + s, start + e))
                special.append(False)
        unknown = [i == UNKNOWN for i in ids]
        if any(unknown):
            ids = [None if u else i for i, u in zip(ids, unknown)]
        if self._byte_fast:
            # byte-level: tokens cover every byte in order, so byte offsets are running sums
            # (subtle: exact even when a token holds only part of a character)
            byte_offsets, pos, lengths = [], 0, self._byte_lengths
            for i in ids:
                n = lengths.get(i)
                if n is None:
                    n = lengths[i] = len(self.token_bytes(i))
                byte_offsets.append((pos, pos + n))
                pos += n
        else:
            # byte offsets from character offsets (UTF-8 lengths of the prefix)
            byte_at = [0]
            for ch in text:
                byte_at.append(byte_at[-1] + len(ch.encode("utf-8")))
            byte_offsets = [(byte_at[s], byte_at[e]) for s, e in offsets]
        vocab = self.model.vocab
        tokens = [vocab[i] if i is not None else text[s:e] for i, (s, e) in zip(ids, offsets)]
        return Encoding(ids, tokens, offsets, byte_offsets, special, unknown if any(unknown) else [False] * len(ids))

    def _tokenize_with_offsets(self, text, keep_unknown=False):
        """``[(id, start, end)]`` of ordinary text, offsets in ``text`` (``keep_unknown``: see encode_full)."""
        if self.normalizer:
            normalized, starts, ends = self.normalizer.normalize_aligned(text)
        else:
            normalized, starts, ends = identity_aligned(text)
        out = []
        for piece, span in self.pre_tokenize_str(normalized):
            char_spans = self._piece_char_spans(piece, span, normalized)
            ud = self._user_defined.get(piece)
            if ud is not None:
                found = [(ud, 0, len(piece))]
            elif keep_unknown and isinstance(self.model, BPE):
                found = self.model.tokenize_piece(piece, keep_unknown=True)
            else:
                found = self._tokenize_piece(piece)
            for tid, ts, te in found:
                if te > ts:
                    ns, ne = char_spans[ts][0], char_spans[te - 1][1]
                else:  # a zero-width token (an end-of-word marker on its own)
                    ns = ne = char_spans[ts - 1][1] if ts else span[0]
                # normalized offsets -> original offsets
                if ne > ns:
                    out.append((tid, starts[ns], ends[ne - 1]))
                else:
                    at = starts[ns] if ns < len(starts) else (ends[-1] if ends else 0)
                    out.append((tid, at, at))
        return out

    def _piece_char_spans(self, piece, span, text):
        """For every character of a piece, its span in the (normalized) text."""
        s, e = span
        if len(piece) == e - s and not isinstance(self.pre_tokenizer, Metaspace):
            # one character for one (ASCII, for a byte-level piece: one byte each), the usual case
            return list(zip(range(s, e), range(s + 1, e + 1)))
        if isinstance(self.pre_tokenizer, ByteLevel) or len(piece) != e - s and _bytes_of(piece, text[s:e]):
            # each piece character is one byte of text[s:e] (ByteLevel, alone or the last step
            # of an imported Sequence such as Qwen's and gpt-oss's: Split, then ByteLevel)
            spans = []
            for i, ch in enumerate(text[s:e]):
                spans.extend([(s + i, s + i + 1)] * len(ch.encode("utf-8")))
            # subtle: an added prefix space (add_prefix_space) is zero-width
            return [(s, s)] * (len(piece) - len(spans)) + spans
        if isinstance(self.pre_tokenizer, Metaspace) and len(piece) == e - s + 1:
            # an added ▁ covers what the tokenizers library says it does: a word's marker
            # (WhitespaceMetaspace) the white space before the word; the dummy prefix the
            # piece's first character, or nothing where tokenizer.json inserts it by a normalizer
            pt = self.pre_tokenizer
            if isinstance(pt, WhitespaceMetaspace):
                marker = (s - 1, s) if s > 0 else (s, s)
            elif getattr(pt, "user_defined_symbols", ()) or getattr(pt, "prefix_before_space", False):
                marker = (s, s)  # inserted by a normalizer in tokenizer.json (hf_export._metaspace)
            else:
                marker = (s, s + 1) if e > s else (s, s)
            return [marker] + [(s + i, s + i + 1) for i in range(e - s)]
        if len(piece) != e - s:
            # a piece an imported pipeline rewrote: every character spans the whole piece
            return [(s, e)] * len(piece)
        return list(zip(range(s, e), range(s + 1, e + 1)))

    # -- decoding -----------------------------------------------------------------------
    def token_bytes(self, id: int) -> bytes:
        """The bytes one token stands for. Example (byte-level): id of 'Ġthe' -> b' the'."""
        tok = self.id_to_token(id)
        if id in self._special_ids:
            return tok.encode("utf-8")
        return self.decoder.token_bytes(tok) if self.decoder else tok.encode("utf-8")

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The raw bytes of a sequence of ids (may be invalid UTF-8 for a partial sequence)."""
        if self.spec.get("source") == "tokenizer.json":
            # imported from HF: every token goes through the decoder, special ones too, as in HF
            tokens = [self.id_to_token(i) for i in ids]
            if self.decoder is None:  # HF joins the tokens with spaces when a file has no decoder
                return " ".join(tokens).encode("utf-8")
            return self.decoder.decode_bytes(tokens)
        out: list[bytes] = []
        run: list[str] = []  # the tokens of a run decoded together
        unk = getattr(self.model, "unk_id", None)
        for i in ids:
            tok = self.id_to_token(i)
            # subtle: the unk token stands for model output (a word), so it is decoded in
            # line with its neighbours; other special tokens are inserted verbatim
            if i in self._special_ids and i != unk:
                if run:
                    out.append(self._decode_run(run))
                    run = []
                out.append(tok.encode("utf-8"))
            else:
                run.append(tok)
        if run:
            out.append(self._decode_run(run))
        return b"".join(out)

    def _decode_run(self, tokens: list[str]) -> bytes:
        """The bytes of a run of tokens: through the decoder, or, for a model file saved
        without one ("decoder": null), the tokens' own text one after another."""
        if self.decoder is None:
            return "".join(tokens).encode("utf-8")
        return self.decoder.decode_bytes(tokens)

    def decode(self, ids: Iterable[int]) -> str:
        """Text of a sequence of ids; invalid UTF-8 becomes U+FFFD."""
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def __repr__(self) -> str:
        preset = self.spec.get("preset", "custom")
        return f"<Tokenizer {preset} {self.model.type} vocab_size={self.vocab_size}>"


def _local_normalizer(n):
    """Whether a normalizer treats the text on both sides of a space independently
    (so a run can be cut just before a space)."""
    if n is None:
        return True
    if type(n) is N.Sequence:
        return all(_local_normalizer(x) for x in n.normalizers)
    if type(n) is N.Replace:
        return " " not in n.pattern
    return type(n) in (N.Unicode, N.Lowercase, N.StripAccents, N.Strip, N.Collapse, N.BertNormalizer)
