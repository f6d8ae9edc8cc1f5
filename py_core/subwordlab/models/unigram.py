"""The Unigram model (Kudo 2018): pieces with log-probabilities; a piece of text is split
into the segmentation with the highest probability, the product of its pieces'.

Every split of a piece is a path through its *lattice*: one node per position, one edge
per vocabulary entry that matches there. Viterbi finds the best path, ``nbest`` the n
best, and ``sample_piece`` draws a path with probability proportional to P(path) ** alpha
(forward filtering, backward sampling; subword regularization).

>>> m = Unigram.from_pieces([("<unk>", 0.0), ("a", math.log(0.4)), ("b", math.log(0.3)), ("ab", math.log(0.1))])
>>> [m.vocab[i] for i in m.encode_piece("ab")]         # a|b: 0.4 * 0.3 = 0.12 > 0.1
['a', 'b']
>>> [([m.vocab[i] for i in ids], round(math.exp(lp), 2)) for ids, lp in m.nbest(["ab"], 3)]
[(['a', 'b'], 0.12), (['ab'], 0.1)]

Characters no piece covers become the unknown piece (consecutive ones fused into one), or
with ``byte_fallback`` their UTF-8 bytes as ``<0xHH>`` pieces. Special (control) pieces,
byte pieces and user-defined symbols never take part in the lattice; a piece equal to a
user-defined symbol (the pre-tokenizer isolates them) is that symbol's id.
"""

import math
import random

from ..base.events import drain, in_chunks
from ..base.registry import component
from .vocab import check_id, index_vocab, read_scored_pieces

UNK_PENALTY = 10.0  # SentencePiece's kUnkPenalty: an unknown character scores min_score - 10


@component("model", "Unigram")
class Unigram:
    """Unigram model.

    ``vocab``: piece strings by id; ``scores``: their log-probabilities (natural log);
    ``unk_id``: the unknown piece (None: an uncovered character is an error);
    ``byte_fallback``: uncovered characters become ``<0xHH>`` pieces (all 256 must exist);
    ``control_ids``: special tokens (never matched in text);
    ``user_defined_ids``: symbols that are only ever whole pieces.
    """

    type = "Unigram"

    def __init__(self, vocab, scores, unk_id=0, byte_fallback=False, control_ids=(), user_defined_ids=()):
        drain(self._build(vocab, scores, unk_id, byte_fallback, control_ids, user_defined_ids))

    @classmethod
    def building(cls, vocab, scores, **options):
        """``Unigram(vocab, scores, **options)`` with its progress: yields ``(done, total)``
        while it indexes the pieces (thousands of pieces are tens of ms in a browser); returns
        the model. Example: ``model = drain(Unigram.building(["<unk>", "a"], [0.0, -1.0]))``.
        """
        model = cls.__new__(cls)
        yield from model._build(vocab, scores, **options)
        return model

    def _build(self, vocab, scores, unk_id=0, byte_fallback=False, control_ids=(), user_defined_ids=()):
        self.vocab = list(vocab)
        self.scores = [float(s) for s in scores]
        if len(self.scores) != len(self.vocab):
            raise ValueError(f"{len(self.vocab)} pieces but {len(self.scores)} scores; give one score per piece")
        for i, tok in enumerate(self.vocab):
            if not isinstance(tok, str) or not tok:
                raise ValueError(f"piece #{i} must be a non-empty string, not {tok!r}")
        yield 0, len(self.vocab)
        self.token_to_id = index_vocab(self.vocab, "piece")
        yield 0, len(self.vocab)
        if unk_id is not None and not (isinstance(unk_id, int) and 0 <= unk_id < len(self.vocab)):
            raise ValueError(f"unk_id {unk_id!r} is not an id of the vocabulary (0..{len(self.vocab) - 1})")
        self.unk_id = unk_id
        self.unk_token = self.vocab[unk_id] if unk_id is not None else None
        self.byte_fallback = bool(byte_fallback)
        self.control_ids = sorted(set(control_ids))
        self.user_defined_ids = sorted(set(user_defined_ids))
        self.user_defined = {self.vocab[i]: i for i in self.user_defined_ids}
        self.byte_ids = None
        if self.byte_fallback:
            missing = [f"<0x{b:02X}>" for b in range(256) if f"<0x{b:02X}>" not in self.token_to_id]
            if missing:
                raise ValueError(f"byte_fallback needs all 256 byte pieces; {missing[0]} is missing")
            self.byte_ids = [self.token_to_id[f"<0x{b:02X}>"] for b in range(256)]
        # the pieces that take part in segmentation ("normal" pieces)
        reserved = set(self.control_ids) | set(self.user_defined_ids) | set(self.byte_ids or ())
        if unk_id is not None:
            reserved.add(unk_id)
        yield from self._index_normal([i for i in range(len(self.vocab)) if i not in reserved])

    def set_normal_ids(self, normal_ids):
        """The pieces that take part in the lattice, and what the lattice needs of them."""
        drain(self._index_normal(normal_ids))

    def _index_normal(self, normal_ids):
        """``set_normal_ids`` with its progress (yields ``(done, total)``)."""
        self.normal_ids = normal_ids
        # prefix table: every prefix of a normal piece -> its id, or -1 if only a prefix
        self._prefixes = prefixes = {}
        vocab = self.vocab

        def add_prefixes(lo, hi):
            for i in normal_ids[lo:hi]:
                tok = vocab[i]
                for k in range(1, len(tok)):
                    prefixes.setdefault(tok[:k], -1)
                prefixes[tok] = i

        yield from in_chunks(len(normal_ids), add_prefixes)
        yield len(normal_ids), len(normal_ids)
        self.max_piece_length = max((len(self.vocab[i]) for i in self.normal_ids), default=0)
        self.min_score = min((self.scores[i] for i in self.normal_ids), default=0.0)
        self.unk_score = self.min_score - UNK_PENALTY

    @classmethod
    def from_pieces(cls, pieces, unk_id=0, byte_fallback=False, control_ids=(), user_defined_ids=()):
        """A model from ``[(piece, score), ...]`` in id order, e.g. a SentencePiece model's
        ``[(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]``."""
        pieces = list(pieces)
        return cls([p for p, _ in pieces], [s for _, s in pieces], unk_id, byte_fallback, control_ids, user_defined_ids)

    # -- the lattice ----------------------------------------------------------------------
    def lattice(self, piece):
        """Edges by start position: ``edges[s] = [(end, id, score), ...]`` (shortest first);
        an uncovered character gets a length-1 edge with id -1 (unknown).

        Example: 'ab' with pieces a, b, ab -> [[(1, a, ..), (2, ab, ..)], [(2, b, ..)]].
        """
        prefixes, scores, maxlen, n = self._prefixes, self.scores, self.max_piece_length, len(piece)
        edges = []
        for s in range(n):
            out = []
            for e in range(s + 1, min(n, s + maxlen) + 1):
                i = prefixes.get(piece[s:e])
                if i is None:
                    break
                if i >= 0:
                    out.append((e, i, scores[i]))
            if not out or out[0][0] != s + 1:
                # subtle: as SentencePiece, an unknown node whenever the single character is
                # not a piece, even if longer pieces start here
                out.insert(0, (s + 1, -1, self.unk_score))
            edges.append(out)
        return edges

    def _finish(self, piece, path):
        """``[(id, start, end)]`` of a lattice path ``[(id, start, end)]`` with id -1 for
        unknown characters: unknown runs fused into one unk, or spelled as bytes."""
        out = []
        for tid, s, e in path:
            if tid >= 0:
                out.append((tid, s, e))
            elif self.byte_fallback:
                out.extend((self.byte_ids[b], s, e) for b in piece[s:e].encode("utf-8"))
            elif self.unk_id is None:
                raise ValueError(f"the character {piece[s]!r} (U+{ord(piece[s]):04X}) is not in the vocabulary and there is "
                                 "no unk piece; train on text that contains it, or use unk_id / byte_fallback")
            elif out and out[-1][0] == self.unk_id and out[-1][2] == s:
                out[-1] = (self.unk_id, out[-1][1], e)  # consecutive unknowns become one
            else:
                out.append((self.unk_id, s, e))
        return out

    # -- Viterbi --------------------------------------------------------------------------
    def tokenize_piece(self, piece):
        """``[(id, start, end), ...]`` of the best segmentation, spans in the piece.

        Example: 'ab' (a 0.4, b 0.3, ab 0.1) -> [(id('a'), 0, 1), (id('b'), 1, 2)].
        """
        if not piece:
            return []
        ud = self.user_defined.get(piece)
        if ud is not None:
            return [(ud, 0, len(piece))]
        n = len(piece)
        best = [-math.inf] * (n + 1)
        back = [None] * (n + 1)
        best[0] = 0.0
        for s, out in enumerate(self.lattice(piece)):
            base = best[s]
            for e, i, sc in out:
                v = base + sc
                # subtle: strictly greater, so on a tie the edge from the earliest start
                # (the longest piece) wins, as in SentencePiece
                if v > best[e]:
                    best[e], back[e] = v, (s, i)
        path, e = [], n
        while e > 0:
            s, i = back[e]
            path.append((i, s, e))
            e = s
        path.reverse()
        return self._finish(piece, path)

    def encode_piece(self, piece):
        """Ids of the best segmentation of one piece. Example: '▁lowest' -> ids of ['▁low', 'est']."""
        return [t for t, _, _ in self.tokenize_piece(piece)]

    def piece_score(self, piece, path):
        """Log-probability of a lattice path (unknown characters score ``unk_score``)."""
        return sum(self.scores[i] if i >= 0 else self.unk_score for i, _, _ in path)

    # -- n-best ---------------------------------------------------------------------------
    def nbest_piece(self, piece, n):
        """The ``n`` best segmentations of one piece as ``[(spans, log_prob), ...]``, best
        first, where spans is ``[(id, start, end), ...]``. Equal scores keep lattice order."""
        if not piece:
            return [([], 0.0)]
        ud = self.user_defined.get(piece)
        if ud is not None:
            return [([(ud, 0, len(piece))], 0.0)]
        size = len(piece)
        # tops[p]: the n best partial paths ending at p, as (score, back pointer)
        tops = [[] for _ in range(size + 1)]
        tops[0] = [(0.0, None)]
        incoming = [[] for _ in range(size + 1)]
        for s, out in enumerate(self.lattice(piece)):
            for e, i, sc in out:
                incoming[e].append((s, i, sc))
        for e in range(1, size + 1):
            cands = []
            for s, i, sc in incoming[e]:
                for k, (v, _) in enumerate(tops[s]):
                    cands.append((v + sc, (s, k, i)))
            cands.sort(key=lambda c: -c[0])  # stable: ties keep lattice order
            tops[e] = cands[:n]
        out = []
        for v, bp in tops[size]:
            path, e = [], size
            while bp is not None:
                s, k, i = bp
                path.append((i, s, e))
                e, bp = s, tops[s][k][1]
            path.reverse()
            out.append((self._finish(piece, path), v))
        return out

    def nbest(self, pieces, n):
        """The ``n`` best segmentations of a sequence of pieces (each split independently) as
        ``[(ids, log_prob), ...]``, best first. An ``int`` in ``pieces`` is a fixed token
        (a special token) with log-probability 0.

        Example: ['ab'] (a 0.4, b 0.3, ab 0.1), n=2 -> [([a, b], log 0.12), ([ab], log 0.1)].
        """
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError(f"n must be a positive integer, not {n!r}")
        combined = [((), 0.0)]
        for piece in pieces:
            if isinstance(piece, int):
                options = [((piece,), 0.0)]
            else:
                options = [(tuple(t for t, _, _ in spans), v) for spans, v in self.nbest_piece(piece, n)]
            # the n best sums of one choice from each list (both lists are sorted)
            sums = [(v1 + v2, ids1 + ids2) for ids1, v1 in combined for ids2, v2 in options]
            sums.sort(key=lambda c: -c[0])
            combined = [(ids, v) for v, ids in sums[:n]]
        return [(list(ids), v) for ids, v in combined]

    # -- sampling -------------------------------------------------------------------------
    def sample_spans(self, piece, alpha, rng):
        """One segmentation of a piece drawn with probability proportional to P ** alpha
        (forward filtering, backward sampling), as ``[(id, start, end), ...]``.

        ``alpha`` sharpens (> 1) or flattens (< 1) the distribution; 0 makes every
        segmentation equally likely. ``rng`` is a ``random.Random``.
        """
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha >= 0:
            raise ValueError(f"alpha must be a number >= 0 (e.g. 0.1), not {alpha!r}")
        if not piece:
            return []
        ud = self.user_defined.get(piece)
        if ud is not None:
            return [(ud, 0, len(piece))]
        size = len(piece)
        incoming = [[] for _ in range(size + 1)]
        for s, out in enumerate(self.lattice(piece)):
            for e, i, sc in out:
                incoming[e].append((s, i, alpha * sc))
        # forward filtering: fwd[e] = log of the summed weight of all paths from 0 to e
        fwd = [0.0] * (size + 1)
        for e in range(1, size + 1):
            terms = [fwd[s] + w for s, _, w in incoming[e]]
            top = max(terms)
            fwd[e] = top + math.log(math.fsum(math.exp(t - top) for t in terms))
        # backward sampling: from the end, draw the incoming edge by its share of fwd[e]
        path, e = [], size
        while e > 0:
            r, acc, chosen = rng.random(), 0.0, None
            for s, i, w in incoming[e]:
                acc += math.exp(fwd[s] + w - fwd[e])
                chosen = (s, i)
                if r < acc:
                    break
            s, i = chosen
            path.append((i, s, e))
            e = s
        path.reverse()
        return self._finish(piece, path)

    def sample_piece(self, piece, alpha, rng):
        """Ids of a sampled segmentation of one piece (see ``sample_spans``); what
        ``Tokenizer.sample_encode`` calls for subword regularization."""
        return [t for t, _, _ in self.sample_spans(piece, alpha, rng)]

    # -- our model file (registry.py) --------------------------------------------------

    def dump(self):
        return {"unk_id": self.unk_id, "byte_fallback": self.byte_fallback, "control_ids": list(self.control_ids),
                "user_defined_ids": list(self.user_defined_ids), "vocab": [[p, s] for p, s in zip(self.vocab, self.scores)]}

    @classmethod
    def load(cls, f, ctx):
        return drain(cls.load_steps(f, ctx))

    @classmethod
    def load_steps(cls, f, ctx):
        # step 1: the pieces and their scores, read and checked
        vocab, scores = read_scored_pieces(f)
        yield 0, len(vocab)
        unk_id = f.get("unk_id", "nat", nullable=True)
        check_id(f, "unk_id", unk_id, len(vocab))
        control, user = f.nat_list("control_ids"), f.nat_list("user_defined_ids")
        for key, ids in (("control_ids", control), ("user_defined_ids", user)):
            for i in ids:
                check_id(f, key, i, len(vocab))
        # step 2: the model, indexed a chunk of pieces at a time
        return (yield from cls.building(vocab, scores, unk_id=unk_id, byte_fallback=f.get("byte_fallback", "bool"),
                                        control_ids=control, user_defined_ids=user))


def make_rng(seed):
    """The random source for sampling; the same seed gives the same draws everywhere."""
    return random.Random(seed)
