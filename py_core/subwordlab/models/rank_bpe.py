"""BPE defined by token ranks alone, as OpenAI's tiktoken rank files define it.

A rank file lists byte strings by rank and nothing else: no merges. tiktoken encodes a
piece by starting from its bytes and merging, again and again, the adjacent pair whose
concatenation is the token of lowest rank (the leftmost on a tie), until no adjacent pair
makes a token. That rule needs only ``{token bytes: rank}``, so a model loaded from ranks
keeps just that table and encodes with it (``RankBPE``).

The merges list (what a ``tokenizer.json``, our JSON and the vocabulary views need) is
derived from the ranks as HF's converters do (``derive_merges``: every split of a token
into two tokens is a merge), but only when first asked for: for cl100k that is ~0.9M
look-ups, which made a load 7-8x tiktoken's while encoding never needed them.

>>> ranks = {bytes([b]): b for b in range(256)}
>>> ranks.update({b"lo": 256, b"low": 257, b"er": 258})
>>> m = RankBPE.from_ranks(list(ranks))
>>> m.encode_bytes(b"lower")
[257, 258]
>>> [(m.vocab[a], m.vocab[b]) for a, b in m.merges]  # derived on first use
[('l', 'o'), ('lo', 'w'), ('e', 'r')]
"""

from itertools import islice, repeat

from ..base.events import drain, in_chunks
from ..base.jsonio import ModelFileError
from ..text.bytes_map import bytes_to_text
from .bpe import BPE
from .merge_queue import LONG_PIECE, queue_merge, queue_merge_spans
from .vocab import index_vocab

_NO_TOKEN = 1 << 62  # the "rank" of a pair whose concatenation is no token: after every real rank
_SINGLE_BYTES = [bytes([b]) for b in range(256)]


def derive_merges(ranks, by_rank, as_ids=False, table=None, most=None):
    """The merges of a rank table as HF's converters derive them, with their progress
    (``events.in_chunks``: yields ``(done, total)`` every 256 tokens; returns the merges): every split of a
    token into two tokens is a merge, ordered by the rank of the result, then of its parts.

    ``ranks``: ``{token bytes: rank}``; ``by_rank``: the tokens in rank order; ``as_ids``: the
    merges as rank pairs, else as byte pairs. ``table``: a dict to fill, as the merges are
    found, with the BPE model's rank table ``{(left id, right id): (merge number, merged id)}``
    (ids are the ranks). ``most``: refuse a table that derives more merges than this (OpenAI's
    files derive about 2.3 per token; a crafted file can derive one per byte of every token).
    Example: {a:0, b:1, c:2, ab:3, bc:4, abc:5} -> [(a,b), (b,c), (a,bc), (ab,c)].
    """
    merges = []
    get = ranks.get
    # both parts of a split are tokens, so neither is longer than the longest token but one
    # (``longest``): a split point k lies in [len - longest, longest]. Then one huge token
    # among short ones costs nothing (each k tried costs a copy of the token).
    lengths = sorted(map(len, by_rank))
    longest = lengths[-2] if len(lengths) > 1 else 0

    def split(lo, hi):
        for token in by_rank[lo:hi]:
            n = len(token)
            if n < 2:
                continue
            # every split into two tokens (one look-up per half, the left half first: most
            # prefixes of a long token are tokens, fewer suffixes), ordered by the ranks of its parts
            local = []
            for k in range(max(1, n - longest), min(n, longest + 1)):
                a = get(token[:k])
                if a is not None:
                    b = get(token[k:])
                    if b is not None:
                        local.append((a, b, k))
            if not local:
                continue
            if len(local) > 1:
                local.sort()
            if table is not None:
                merged, number = ranks[token], len(merges)
                for i, (a, b, _) in enumerate(local):
                    table.setdefault((a, b), (number + i, merged))
            merges.extend([(a, b) for a, b, _ in local] if as_ids else [(token[:k], token[k:]) for _, _, k in local])
            if most is not None and len(merges) > most:
                raise ModelFileError(f"the rank file's {len(by_rank):,} tokens split into more than {most:,} merges "
                                     "(OpenAI's files: about 2.3 per token); it is not a BPE rank file tiktoken "
                                     "or this loader can use: check that it is the file you meant")

    yield from in_chunks(len(by_rank), split, 256)
    return merges


class _BytePairRanks(dict):
    """``rows[a][b]``: the rank of the token ``bytes([a, b])``, ``_NO_TOKEN`` if there is none.
    A row (256 look-ups at C speed, ~50 us) is made when its first byte is first met, so a
    short text pays for the few bytes it has, not for all 65,536 pairs (13-22 ms).

    >>> rows = _BytePairRanks({b"ab": 256}.get)
    >>> rows[97][98], rows[97][97] == _NO_TOKEN
    (256, True)
    """

    def __init__(self, rank_of):
        super().__init__()
        self.rank_of = rank_of

    def __missing__(self, a):
        row = self[a] = list(map(self.rank_of, map(bytes.__add__, repeat(_SINGLE_BYTES[a]), _SINGLE_BYTES), repeat(_NO_TOKEN)))
        return row


class RankBPE(BPE):
    """A byte-level BPE model that is its rank table: ``tokens`` (bytes) by rank, id = rank;
    ``vocab`` may go on past them (special tokens, unused ids). Encodes by tiktoken's rule;
    ``merges``, ``ranks`` (the pair table) and ``base_size`` are derived on first use.

    It is saved (our JSON, tokenizer.json) as the ``BPE`` it equals: its vocabulary and
    derived merges. ``token_to_id`` (of ``vocab``), ``token_ranks`` (``{token: rank}``),
    ``merges`` and ``table`` may be given when the caller already has them.
    """

    def __init__(self, vocab, tokens, token_to_id=None, merges=None, table=None, token_ranks=None):
        self.vocab = vocab if isinstance(vocab, list) else list(vocab)
        self.token_to_id = index_vocab(self.vocab) if token_to_id is None else token_to_id
        self.tokens = tokens
        self.token_ranks = dict(zip(tokens, range(len(tokens)))) if token_ranks is None else token_ranks
        self.unk_token = self.end_of_word = self.unk_id = self.eow_id = None
        self.byte_level, self.byte_fallback = True, False
        missing = [b for b in range(256) if _SINGLE_BYTES[b] not in self.token_ranks]
        if missing:
            raise ValueError(f"the rank table has no token for the byte 0x{missing[0]:02X}; "
                             "a byte-level BPE needs all 256 byte tokens")
        self.byte_ids = [self.token_ranks[b] for b in _SINGLE_BYTES]
        self._merges, self._table = merges, table
        self._pair_rows = _BytePairRanks(self.token_ranks.get)  # the first pair ranks of encode_bytes

    @classmethod
    def from_ranks(cls, tokens):
        """The model of ``tokens`` (bytes, in rank order), its vocabulary their GPT-2 strings."""
        return cls(list(map(bytes_to_text, tokens)), list(tokens))

    # -- derived on first use ----------------------------------------------------------
    def _derive(self):
        table = {}
        self._merges = drain(derive_merges(self.token_ranks, self.tokens, as_ids=True, table=table))
        self._table = table

    @property
    def merges(self):
        """``(left id, right id)`` in rank order, derived from the ranks (HF's converters' way)."""
        if self._merges is None:
            self._derive()
        return self._merges

    @property
    def ranks(self):
        """The pair table ``{(left, right): (merge number, merged id)}`` of the derived merges."""
        if self._table is None:
            self._derive()
        return self._table

    @property
    def base_size(self):
        """The ids before the first token some split makes: the tokens no merge produces."""
        get = self.token_ranks.get
        for i, token in enumerate(self.tokens):
            if any(get(token[:k]) is not None and get(token[k:]) is not None for k in range(1, len(token))):
                return i
        return len(self.vocab)

    # -- encoding: tiktoken's rule ---------------------------------------------------------
    def encode_bytes(self, data):
        """Ids of one piece's bytes by tiktoken's rule: the piece's own id if it is a token
        (tiktoken's first look, which also saves merging it), else its bytes merged, again and
        again, at the adjacent pair whose concatenation has the lowest rank (the leftmost on a
        tie). Example: b'lower' -> [b'l', b'o', b'w', b'e', b'r'] -> [b'low', b'er'] ->
        [id of b'low', id of b'er'].

        Cost (udhr_many: 107k distinct chunks of ~10 bytes, ~4.5 merges each with GPT-2's
        ranks; CPU time on the shared 2-core machine): about 2.5 us to set a chunk up and 0.9 us
        a merge, ~0.7 s in all. The first pair ranks come from a table of byte pairs (two list
        indexings at C speed, not a new 2-byte string hashed and looked up) and the merge loop
        runs here, not in a second method: together 7-10 % less time (interleaved A/B).
        """
        get = self.token_ranks.get
        whole = get(data)
        if whole is not None:
            return [whole]
        parts = list(map(_SINGLE_BYTES.__getitem__, data))
        if len(parts) >= LONG_PIECE:  # a long piece: the same rule in O(n log n) (merge_queue.py)
            return list(map(self.token_ranks.__getitem__, queue_merge(parts, self._rank_of)[0]))
        # the rank of every adjacent pair's concatenation, kept up to date as pairs merge:
        # each merge is then C-level work (min, index, del) plus two look-ups
        none = _NO_TOKEN
        rs = list(map(list.__getitem__, map(self._pair_rows.__getitem__, data), islice(data, 1, None)))
        while rs:
            # step 1: the lowest-ranked concatenation present, the leftmost on a tie
            best = min(rs)
            if best == none:
                break
            i = rs.index(best)
            # step 2: merge that one pair; its neighbours now pair with the new token
            new = parts[i] + parts[i + 1]
            parts[i] = new
            del parts[i + 1], rs[i]
            if i:
                rs[i - 1] = get(parts[i - 1] + new, none)
            if i < len(rs):
                rs[i] = get(new + parts[i + 1], none)
        return list(map(self.token_ranks.__getitem__, parts))

    def _rank_of(self, a, b):
        """tiktoken's rank of a pair: that of the concatenation, if it is a token."""
        r = self.token_ranks.get(a + b)
        return None if r is None else (r, a + b)

    def merge_ids(self, ids):
        """The ids of the piece that ``ids`` spell, by tiktoken's rule (which starts from the
        piece's bytes). Example: [id of b'l', id of b'o', id of b'w'] -> [id of b'low']."""
        return self.encode_bytes(b"".join(map(self.tokens.__getitem__, ids))) if ids else []

    def merge_spans(self, syms, dropout=0.0, rng=None):
        """``[(id, start, end), ...]`` merged by tiktoken's rule, spans joined as tokens merge;
        with BPE-dropout every candidate pair is first dropped with probability ``dropout``."""
        get, tokens = self.token_ranks.get, self.tokens
        syms = list(syms)
        parts = [tokens[t] for t, _, _ in syms]
        whole = get(b"".join(parts)) if len(syms) > 1 and not dropout else None
        if whole is not None:  # tiktoken's first look: the whole piece is a token
            return [(whole, syms[0][1], syms[-1][2])]
        if not dropout and all(len(p) == 1 for p in parts):
            # single bytes, tiktoken's start: merged by encode_bytes (its pair ranks kept up to
            # date at C speed), then each token takes the spans of the bytes it joins
            # (o200k on the UDHR in 47 languages: the offsets' encode 3.4x faster)
            out, k = [], 0
            for t in self.encode_bytes(b"".join(parts)):
                n = len(tokens[t])
                out.append((t, syms[k][1], syms[k + n - 1][2]))
                k += n
            return out
        if not dropout and len(syms) >= LONG_PIECE:  # a long piece: O(n log n) (merge_queue.py)
            return queue_merge_spans([(p, a, b) for p, (_, a, b) in zip(parts, syms)], self._rank_of,
                                     token_id=self.token_ranks.__getitem__)
        while len(syms) > 1:
            # step 1: the pair whose concatenation has the lowest rank (the leftmost on a tie)
            best, at = None, -1
            for i in range(len(parts) - 1):
                r = get(parts[i] + parts[i + 1])
                if r is not None and (best is None or r < best):
                    if dropout and rng.random() < dropout:
                        continue
                    best, at = r, i
            if best is None:
                break
            # step 2: merge that one occurrence
            syms[at:at + 2] = [(best, syms[at][1], syms[at + 1][2])]
            parts[at:at + 2] = [parts[at] + parts[at + 1]]
        return syms
