"""The BPE model: a vocabulary and a ranked list of merges, and how a piece is encoded.

A piece (one pre-token) starts as its base symbols (characters, or bytes for byte-level
BPE, plus the end-of-word marker when there is one); then the adjacent pair with the lowest
merge rank is merged, left to right without overlaps, until no pair has a rank. This is
equivalent to replaying the merges in the order they were learned.

>>> m = BPE(["<unk>", "a", "b", "c", "ab", "abc"], merges=[(1, 2), (4, 3)], unk_token="<unk>")
>>> [m.vocab[i] for i in m.encode_piece("abcab")]
['abc', 'ab']
>>> [m.vocab[i] for i in m.encode_piece("abx")]
['ab', '<unk>']
"""

import random
from itertools import repeat

from ..base.events import drain, in_chunks
from ..base.registry import component
from ..text.bytes_map import BYTE_TO_CHAR
from .merge_queue import LONG_PIECE, queue_merge, queue_merge_spans
from .vocab import index_vocab, read_merges, read_vocab

_NO_MERGE = (float("inf"), -1)  # the rank of a pair that has no merge: after every real rank


# The symbol of a character outside the alphabet when it passes through (``keep_unknown``):
# not an id (ids are >= 0), so no merge rank ever matches a pair with it.
UNKNOWN = -1


class UnknownSymbolError(ValueError):
    """A character that is not in the vocabulary, with no unk token or byte fallback."""


@component("model", "BPE")
class BPE:
    """BPE model.

    ``vocab``: token strings by id. ``merges``: ``(left_id, right_id)`` in rank order.
    ``end_of_word``: a marker appended to every piece as a separate base symbol (``"</w>"``),
    or ``None``. ``byte_level``: pieces are GPT-2 byte strings and every byte is a token.
    ``byte_fallback``: an unknown character becomes its UTF-8 bytes as ``<0xHH>`` tokens.
    ``fuse_unk``: a run of unknown characters is one unk token (SentencePiece's BPE, HF's
    ``fuse_unk``), not one each.
    """

    type = "BPE"
    fuse_unk = False  # (a subclass built another way, RankBPE, never fuses)

    def __init__(self, vocab, merges, unk_token=None, end_of_word=None, byte_level=False, byte_fallback=False,
                 fuse_unk=False):
        drain(self._build(vocab, merges, unk_token, end_of_word, byte_level, byte_fallback, fuse_unk))

    @classmethod
    def building(cls, vocab, merges, **options):
        """``BPE(vocab, merges, **options)`` with its progress: yields ``(done, total)`` while it
        indexes the merges (hundreds of thousands for an imported vocabulary); returns the model.
        """
        model = cls.__new__(cls)
        yield from model._build(vocab, merges, **options)
        return model

    def _build(self, vocab, merges, unk_token=None, end_of_word=None, byte_level=False, byte_fallback=False,
               fuse_unk=False):
        self.vocab = list(vocab)
        self.token_to_id = index_vocab(self.vocab)
        yield 0, len(merges)
        self.merges = merges = [tuple(m) for m in merges]
        yield 0, len(merges)
        self.unk_token = unk_token
        self.end_of_word = end_of_word
        self.byte_level = byte_level
        self.byte_fallback = byte_fallback
        self.fuse_unk = bool(fuse_unk)
        if unk_token is not None and unk_token not in self.token_to_id:
            raise ValueError(f"unk_token {unk_token!r} is not in the vocabulary; add it or set unk_token=None")
        self.unk_id = self.token_to_id.get(unk_token) if unk_token is not None else None
        self.eow_id = self.token_to_id.get(end_of_word) if end_of_word else None
        # rank table: (left, right) -> (rank, merged id)
        self.ranks = ranks = {}
        vocab, token_to_id = self.vocab, self.token_to_id

        def index_merges(lo, hi):
            for rank in range(lo, hi):
                a, b = merges[rank]
                if not (0 <= a < len(vocab) and 0 <= b < len(vocab)):
                    raise ValueError(f"merge #{rank} ({a}, {b}) refers to an id outside the vocabulary (size {len(vocab)})")
                merged = vocab[a] + vocab[b]
                if merged not in token_to_id:
                    raise ValueError(f"merge #{rank} {vocab[a]!r} + {vocab[b]!r}: the result {merged!r} is not in the vocabulary")
                ranks.setdefault((a, b), (rank, token_to_id[merged]))

        yield from in_chunks(len(merges), index_merges)
        # the base vocabulary (before any merge) is the prefix up to the first merge result
        yield len(merges), len(merges)
        results = {r[1] for r in self.ranks.values()}
        self.base_size = next((i for i in range(len(self.vocab)) if i in results), len(self.vocab))
        self.byte_ids = None
        if byte_level:
            missing = [(b, ch) for b, ch in enumerate(BYTE_TO_CHAR) if ch not in self.token_to_id]
            if missing:
                b, ch = missing[0]
                raise ValueError(f"a byte-level vocabulary needs all 256 byte tokens; the token {ch!r} (byte 0x{b:02X}) "
                                 f"is missing{f' (and {len(missing) - 1} more)' if len(missing) > 1 else ''}: the file "
                                 "was edited or is damaged; export the model again")
            self.byte_ids = [self.token_to_id[ch] for ch in BYTE_TO_CHAR]
        elif byte_fallback:
            missing = [f"<0x{b:02X}>" for b in range(256) if f"<0x{b:02X}>" not in self.token_to_id]
            if missing:
                raise ValueError(f"byte_fallback needs all 256 byte tokens; {missing[0]} is missing")
            self.byte_ids = [self.token_to_id[f"<0x{b:02X}>"] for b in range(256)]

    # -- base symbols -------------------------------------------------------------------
    def initial_symbols(self, piece, keep_unknown=False):
        """Base symbol ids of a piece with their spans in the piece.

        Example (char-level, end_of_word '</w>'): 'ab' -> [(id('a'),0,1), (id('b'),1,2), (id('</w>'),2,2)].
        A character outside the alphabet (no unk token, no byte fallback) raises
        UnknownSymbolError, or with ``keep_unknown`` passes through as the symbol
        ``UNKNOWN`` (no id; no merge involves it), to be shown as itself.
        """
        t2i = self.token_to_id
        out = []
        for i, ch in enumerate(piece):
            tid = t2i.get(ch)
            if tid is not None:
                out.append((tid, i, i + 1))
            elif self.byte_fallback:
                # an unknown character becomes its UTF-8 bytes, all spanning the character
                out.extend((self.byte_ids[b], i, i + 1) for b in ch.encode("utf-8"))
            elif self.unk_id is not None:
                if self.fuse_unk and out and out[-1][0] == self.unk_id and out[-1][2] == i:
                    out[-1] = (self.unk_id, out[-1][1], i + 1)  # (the run so far, one character longer)
                else:
                    out.append((self.unk_id, i, i + 1))
            elif keep_unknown:
                out.append((UNKNOWN, i, i + 1))
            else:
                raise UnknownSymbolError(
                    f"the character {ch!r} (U+{ord(ch):04X}) is not in the vocabulary; "
                    "train on a corpus that contains it, or set unk_token='<unk>' (or byte_fallback=True)"
                )
        if self.eow_id is not None and out:
            out.append((self.eow_id, len(piece), len(piece)))
        return out

    # -- merging ------------------------------------------------------------------------
    def merge_ids(self, ids):
        """Apply merges by rank to a list of ids (the fast path, no spans, no dropout); the
        list is merged in place and returned.

        Example: [id('a'), id('b'), id('c')] -> [id('abc')].
        """
        n = len(ids)
        if n < 2:
            return ids
        if n >= LONG_PIECE:  # a long piece: the same merges in O(n log n) (merge_queue.py)
            return queue_merge(ids, lambda a, b: self.ranks.get((a, b)), rounds=True)[0]
        # the (rank, merged id) of every adjacent pair, kept up to date as pairs merge: each
        # merge is then C-level work (min, index, del) plus two look-ups, not a Python loop
        # over every pair (udhr_many's 107k distinct GPT-2 chunks: 0.78 -> 0.65 s CPU)
        get, none = self.ranks.get, _NO_MERGE
        rs = list(map(get, zip(ids, ids[1:]), repeat(none, n - 1)))
        while True:
            # step 1: the lowest-ranked pair present
            best = min(rs)
            if best is none:
                return ids
            new = best[1]
            # step 2: merge all its occurrences, left to right, without overlaps
            i = rs.index(best)
            while True:
                ids[i] = new
                del ids[i + 1], rs[i]
                # its neighbours now pair with the new token (an overlapping occurrence is gone)
                if i:
                    rs[i - 1] = get((ids[i - 1], new), none)
                if i < len(rs):
                    rs[i] = get((new, ids[i + 1]), none)
                if best not in rs:
                    break
                i = rs.index(best, i)
            if not rs:
                return ids

    def encode_bytes(self, data):
        """Byte-level: the ids of one piece's UTF-8 bytes. Example: b'ab' -> [id('ab')]."""
        return self.merge_ids(list(map(self.byte_ids.__getitem__, data)))

    def merge_spans(self, syms, dropout=0.0, rng=None):
        """Apply merges by rank to ``[(id, start, end), ...]``; spans are joined as tokens merge."""
        ranks = self.ranks
        syms = list(syms)
        if not dropout and len(syms) >= LONG_PIECE:  # a long piece: O(n log n) (merge_queue.py)
            return queue_merge_spans(syms, lambda a, b: ranks.get((a, b)), rounds=True)
        while len(syms) > 1:
            # step 1: find the lowest-ranked pair present (leftmost on a tie); with
            # BPE-dropout every candidate occurrence is first dropped with probability p
            best, at = None, -1
            for i in range(len(syms) - 1):
                r = ranks.get((syms[i][0], syms[i + 1][0]))
                if r is not None and (best is None or r[0] < best[0]):
                    if dropout and rng.random() < dropout:
                        continue
                    best, at = r, i
            if best is None:
                break
            rank, new = best
            if dropout:
                # subtle: under dropout only the chosen occurrence merges, the others roll again
                syms[at:at + 2] = [(new, syms[at][1], syms[at + 1][2])]
                continue
            left, right = self.merges[rank]
            # step 2: merge every occurrence of it, left to right, without overlaps
            out, i, n = [], 0, len(syms)
            while i < n:
                if i + 1 < n and syms[i][0] == left and syms[i + 1][0] == right:
                    out.append((new, syms[i][1], syms[i + 1][2]))
                    i += 2
                else:
                    out.append(syms[i])
                    i += 1
            syms = out
        return syms

    def encode_piece(self, piece, dropout=0.0, rng=None):
        """Ids of one piece. Example: 'lowest' -> ids of ['low', 'est</w>']."""
        if not dropout:
            return self.merge_ids([t for t, _, _ in self.initial_symbols(piece)])
        return [t for t, _, _ in self.merge_spans(self.initial_symbols(piece), dropout, rng)]

    def sample_piece(self, piece, alpha, rng):
        """BPE-dropout on one piece: each merge skipped with probability ``alpha``."""
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"the BPE-dropout probability must be between 0 and 1, not {alpha!r}")
        return self.encode_piece(piece, dropout=alpha, rng=rng) if alpha else self.encode_piece(piece)

    def tokenize_piece(self, piece, dropout=0.0, rng=None, keep_unknown=False):
        """``[(id, start, end), ...]`` of one piece, spans in the piece's characters; with
        ``keep_unknown`` a character outside the alphabet is ``(UNKNOWN, i, i + 1)``."""
        return self.merge_spans(self.initial_symbols(piece, keep_unknown), dropout, rng)

    # -- our model file (registry.py) --------------------------------------------------

    def dump(self):
        return {"unk_token": self.unk_token, "end_of_word": self.end_of_word, "byte_level": self.byte_level,
                "byte_fallback": self.byte_fallback, **({"fuse_unk": True} if self.fuse_unk else {}),
                "vocab": self.vocab, "merges": self.merges}

    @classmethod
    def load(cls, f, ctx):
        vocab = read_vocab(f)
        merges = read_merges(f, len(vocab), check_results_in=vocab)
        return cls(vocab, merges, f.get("unk_token", "str", nullable=True), f.get("end_of_word", "str", nullable=True),
                   f.get("byte_level", "bool"), f.get("byte_fallback", "bool"), f.get("fuse_unk", "bool", False))


def make_rng(seed):
    """The random source for BPE-dropout; the same seed gives the same choices everywhere."""
    return random.Random(seed)
