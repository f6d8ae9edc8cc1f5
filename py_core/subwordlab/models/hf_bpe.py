"""BPE with the exact semantics of Hugging Face ``tokenizers`` (for imported tokenizer.json).

Our own ``BPE`` replays merges the textbook way: the lowest-ranked pair present, all its
occurrences left to right, then the next. HF keeps a priority queue of (rank, position)
and merges one occurrence at a time, so a pair *created* by a merge can jump the queue
when its rank is lower than the current one. For merge lists a trainer produces the two
agree; for arbitrary files (vocabularies that contain tokens before the merge that makes
them, duplicate merges) only this class gives HF's result. It also has HF's options:

- ``continuing_subword_prefix`` (every symbol but the first starts with it, e.g. "##"),
- ``end_of_word_suffix`` (glued to the *last character* of a word, e.g. "</w>"),
- ``fuse_unk`` (consecutive unknown characters become one unk token),
- ``byte_fallback`` (an unknown character becomes its ``<0xHH>`` bytes, if all exist),
- ``ignore_merges`` (a word that is itself a token is not split),

and HF's unknown-character rule: with no ``unk_token`` an unknown character is dropped.

>>> m = HFBPE(["x", "y", "xy", "xyx"], merges=[(2, 0), (0, 1)])
>>> [m.vocab[i] for i in m.encode_piece("xyxy")]   # (xy, x) jumps ahead of the 2nd (x, y)
['xyx', 'y']
"""

import operator
from itertools import islice

from ..base.events import drain, in_chunks, scaled
from ..base.registry import component
from ..text.bytes_map import BYTE_TO_CHAR
from .merge_queue import LONG_PIECE, queue_merge_spans
from .vocab import index_vocab_steps, read_merges, read_vocab

_MERGE_CHUNK = 1 << 13  # merges per chunk of the rank table (~10 ms of CPython, ~25 in the page)
_NO_PAIR = (float("inf"), -1)  # (rank, merged id) of a pair no merge makes: above every rank


@component("model", "HFBPE")
class HFBPE:
    """BPE exactly as HF ``tokenizers`` encodes.

    ``vocab``: token strings by id; ``merges``: ``(left_id, right_id)`` in rank order (a
    duplicate pair takes its *last* rank, as in HF).
    """

    type = "BPE"

    def __init__(self, vocab, merges, unk_token=None, **options):
        drain(self._build(vocab, merges, unk_token, **options))

    @classmethod
    def building(cls, vocab, merges, unk_token=None, **options):
        """``HFBPE(vocab, merges, unk_token, **options)`` with its progress: yields ``(done,
        total)`` merges while it builds the rank table (446,000 for gpt-oss), so a page can
        paint between chunks; returns the model.

        >>> model = drain(HFBPE.building(["a", "b", "ab"], [(0, 1)]))
        >>> model.ranks
        {(0, 1): (0, 2)}
        """
        model = cls.__new__(cls)
        yield from model._build(vocab, merges, unk_token, **options)
        return model

    def _build(self, vocab, merges, unk_token=None, *, continuing_subword_prefix=None, end_of_word_suffix=None,
               fuse_unk=False, byte_fallback=False, ignore_merges=False):
        self.vocab = list(vocab)
        merges = merges if isinstance(merges, (list, tuple)) else list(merges)
        self.token_to_id = yield from scaled(index_vocab_steps(self.vocab), 0, 0, len(merges))  # (0 merges so far)
        yield 0, len(merges)
        self.merges = []
        yield from in_chunks(len(merges), lambda lo, hi: self.merges.extend(map(tuple, merges[lo:hi])), _MERGE_CHUNK)
        self.unk_token = unk_token
        self.prefix = continuing_subword_prefix or None
        self.suffix = end_of_word_suffix or None
        self.fuse_unk, self.byte_fallback, self.ignore_merges = bool(fuse_unk), bool(byte_fallback), bool(ignore_merges)
        if unk_token is not None and unk_token not in self.token_to_id:
            raise ValueError(f"unk_token {unk_token!r} is not in the vocabulary; add it or set unk_token=None")
        self.unk_id = self.token_to_id.get(unk_token) if unk_token is not None else None
        # rank table: (left, right) -> (rank, merged id), a chunk of merges at a time;
        # subtle: a later duplicate wins (HF), as a later chunk's update does
        self.ranks = {}
        yield from in_chunks(len(self.merges), self._index_merges, _MERGE_CHUNK)
        yield len(self.merges), len(self.merges)
        byte_tokens = [self.token_to_id.get(f"<0x{b:02X}>") for b in range(256)]
        self._byte_tokens = byte_tokens
        # the byte-level fast path (Tokenizer): every GPT-2 byte character is a token and
        # nothing is added to the symbols
        self.byte_ids = None
        if not (self.prefix or self.suffix or self.ignore_merges) and all(ch in self.token_to_id for ch in BYTE_TO_CHAR):
            self.byte_ids = [self.token_to_id[ch] for ch in BYTE_TO_CHAR]
        self.byte_level = False  # set by the importer when the pre-tokenizer is byte-level

    def _index_merges(self, lo, hi):
        """Merges ``lo..hi`` into the rank table: at C speed when every one is well formed,
        else one by one, naming the first that is not."""
        plen = len(self.prefix.encode("utf-8")) if self.prefix else 0
        fast = None if plen else self._ranks_at_c_speed(lo, hi)
        if fast is not None:
            self.ranks.update(fast)
            return
        for rank in range(lo, hi):
            a, b = self.merges[rank]
            if not (0 <= a < len(self.vocab) and 0 <= b < len(self.vocab)):
                raise ValueError(f"merge #{rank} ({a}, {b}) refers to an id outside the vocabulary (size {len(self.vocab)})")
            right = self.vocab[b]
            if plen:
                # HF drops the prefix's length from the right part, whatever it is
                try:
                    right = right.encode("utf-8")[plen:].decode("utf-8")
                except UnicodeDecodeError:
                    right = None
                if right is None or len(self.vocab[b].encode("utf-8")) < plen:
                    raise ValueError(f"merge #{rank} {self.vocab[a]!r} + {self.vocab[b]!r}: the right part is shorter than "
                                     f"the continuing_subword_prefix {self.prefix!r}")
            merged = self.vocab[a] + right
            if merged not in self.token_to_id:
                raise ValueError(f"merge #{rank} {self.vocab[a]!r} + {self.vocab[b]!r}: the result {merged!r} is not in the vocabulary")
            self.ranks[(a, b)] = (rank, self.token_to_id[merged])

    def _ranks_at_c_speed(self, lo, hi):
        """The rank table's entries for merges ``lo..hi`` without a Python loop (a 446,000-merge
        file: 1.8 s -> 0.3 s), or None when a merge refers to an id outside the vocabulary or
        makes a token it lacks (``_index_merges``' loop then names which)."""
        n, merges = len(self.vocab), self.merges[lo:hi]
        if merges and not (0 <= min(map(min, merges)) and max(map(max, merges)) < n):
            return None
        get = self.vocab.__getitem__
        merged = map(operator.add, map(get, map(operator.itemgetter(0), merges)),
                     map(get, map(operator.itemgetter(1), merges)))
        ids = list(map(self.token_to_id.get, merged))
        if None in ids:
            return None
        # subtle: a later duplicate pair overwrites an earlier one, as in the loop (and HF)
        return dict(zip(merges, zip(range(lo, hi), ids)))

    # -- base symbols -------------------------------------------------------------------
    def initial_symbols(self, piece):
        """``[(id, start, end)]`` before merging, as HF's ``merge_word`` builds them.

        Example (prefix '##'): 'ab' -> [(id('a'), 0, 1), (id('##b'), 1, 2)].
        """
        t2i, out, unk = self.token_to_id, [], None
        n = len(piece)
        for i, ch in enumerate(piece):
            s = ch
            if i and self.prefix:
                s = self.prefix + s
            if i == n - 1 and self.suffix:
                s = s + self.suffix
            tid = t2i.get(s)
            if tid is not None:
                if unk is not None:
                    out.append(unk)
                    unk = None
                out.append((tid, i, i + 1))
                continue
            if self.byte_fallback:
                ids = [self._byte_tokens[b] for b in s.encode("utf-8")]
                if all(t is not None for t in ids):
                    # subtle: HF does not flush a pending unk before byte tokens
                    out.extend((t, i, i + 1) for t in ids)
                    continue
            if self.unk_id is not None:
                if unk is not None and self.fuse_unk:
                    unk = (self.unk_id, unk[1], i + 1)
                else:
                    if unk is not None:
                        out.append(unk)
                    unk = (self.unk_id, i, i + 1)
            # no unk token: the character is dropped (HF's behaviour)
        if unk is not None:
            out.append(unk)
        return out

    # -- merging ------------------------------------------------------------------------
    def merge_spans(self, syms):
        """Merge ``[(id, start, end)]`` with HF's queue: lowest rank first, then leftmost,
        one occurrence at a time (merge_queue.py)."""
        if len(syms) < 2:
            return list(syms)
        if len(syms) >= LONG_PIECE:  # a long piece: O(n log n) (merge_queue.py)
            return queue_merge_spans(list(syms), lambda a, b: self.ranks.get((a, b)))
        # a short piece: the same rule over lists, each merge C-level work (min, index, del);
        # rs[i]: (rank, merged id) of the pair at i, kept up to date as pairs merge (ranks are
        # unique, so the first equal to the minimum is the leftmost lowest: the queue's choice)
        get, none = self.ranks.get, _NO_PAIR
        ids, starts, ends = map(list, zip(*syms))
        rs = list(map(get, zip(ids, islice(ids, 1, None)), [none] * (len(ids) - 1)))
        while rs:
            # step 1: the lowest-ranked pair present, the leftmost on a tie
            best = min(rs)
            if best is none:
                break
            i = rs.index(best)
            # step 2: merge that one pair; its neighbours now pair with the new token
            new = ids[i] = best[1]
            ends[i] = ends[i + 1]
            del ids[i + 1], starts[i + 1], ends[i + 1], rs[i]
            if i:
                rs[i - 1] = get((ids[i - 1], new), none)
            if i < len(rs):
                rs[i] = get((new, ids[i + 1]), none)
        return list(zip(ids, starts, ends))

    def merge_ids(self, ids):
        """The fast path: merge a list of ids (no spans)."""
        return [t for t, _, _ in self.merge_spans([(t, 0, 0) for t in ids])]

    def encode_bytes(self, data):
        """Byte-level: the ids of one piece's UTF-8 bytes (the tokenizer's byte-level fast path)."""
        return self.merge_ids([self.byte_ids[b] for b in data])

    def tokenize_piece(self, piece):
        """``[(id, start, end), ...]`` of one piece, spans in the piece's characters."""
        if self.ignore_merges:
            tid = self.token_to_id.get(piece)
            if tid is not None:
                return [(tid, 0, len(piece))]
        return self.merge_spans(self.initial_symbols(piece))

    def encode_piece(self, piece):
        """Ids of one piece."""
        return [t for t, _, _ in self.tokenize_piece(piece)]

    # -- our model file (registry.py) --------------------------------------------------

    def dump(self):
        return {"unk_token": self.unk_token, "continuing_subword_prefix": self.prefix, "end_of_word_suffix": self.suffix,
                "fuse_unk": self.fuse_unk, "byte_fallback": self.byte_fallback, "ignore_merges": self.ignore_merges,
                "byte_level": self.byte_level, "vocab": self.vocab, "merges": self.merges}

    @classmethod
    def load(cls, f, ctx):
        vocab = read_vocab(f)
        merges = read_merges(f, len(vocab))
        m = cls(vocab, merges, f.get("unk_token", "str", nullable=True),
                continuing_subword_prefix=f.get("continuing_subword_prefix", "str", nullable=True),
                end_of_word_suffix=f.get("end_of_word_suffix", "str", nullable=True), fuse_unk=f.get("fuse_unk", "bool"),
                byte_fallback=f.get("byte_fallback", "bool"), ignore_merges=f.get("ignore_merges", "bool"))
        m.byte_level = f.get("byte_level", "bool") and m.byte_ids is not None
        return m
