"""Word lattices and the algorithms over them: the ways to split a text into pieces, summed
(forward-backward: each piece's expected count, the log-likelihood) or maximized (Viterbi:
the best split).

A word's lattice holds an edge ``(start, end, piece_id)`` for every occurrence of a piece in
it, sorted by start, then end. ``Lattices`` keeps the lattices of a whole corpus as its
*units*, the spans of its words that no piece crosses (``unit_spans``): splits and
probabilities factor over them, so a stretch repeated in many words is done once. They are
built once from the seed vocabulary and filtered as pieces die (units split further, equal
ones merge).

One module: the lattice layout (edges sorted by start, units, shared edge tuples) is what
these algorithms are fast on, and they are the whole of what Unigram training
(trainers/unigram.py) asks of the lattices. ``forward_backward`` works in probability space
(products, no logs): plainly for units up to 30 characters, where no product can underflow,
and rescaled beyond (``forward_backward_scaled``).

>>> lat = Lattices(2)
>>> lat.build(["a", "b", "ab"], ["ab"], [3])
>>> lat.edges
[((0, 1, 0), (0, 2, 2), (1, 2, 1))]
>>> viterbi(lat.edges[0], 2, [-1.0, -1.0, -1.5])
([2], -1.5)
"""

import math
from functools import reduce
from math import frexp
from operator import add, mul

from ..base.portable_math import exp as portable_exp
from ..base.portable_math import log as portable_log
from ..base.portable_math import logs as portable_logs

_PROB_SPACE_MAX = 30  # longest unit forward_backward handles with plain products
_SHARE_MAX = 64  # a unit up to this long shares its edge tuples with the others (see Lattices.build)
_RENORM = 2.0 ** -500  # the log-likelihood's product of Z is renormalized below this
_LN2 = portable_log(2.0)
_TINY = 1e-30  # rescale a window of forward/backward values once they fall below this (keeps
# the stored values and the per-position factors well inside the range of floats)


def unit_spans(edges, n):
    """Where a lattice falls apart: ``[(start, end, first, last)]``, consecutive spans
    ``start..end`` of ``0..n`` that no edge crosses, and the span's edges ``edges[first:last]``
    (every position has its one-character edge, so the spans cover the text). ``edges`` are
    sorted by start. Splits and probabilities factor over the spans: each one is a lattice
    of its own, with the same posteriors and the same best path.

    Example: edges of 'abc' with pieces a, b, c, ab -> [(0, 2, 0, 3), (2, 3, 3, 4)].
    """
    out, start, first, reach = [], 0, 0, 0
    for k, (s, e, _) in enumerate(edges):
        if s >= reach and s > start:  # every edge so far ends at or before s: a cut
            out.append((start, s, first, k))
            start, first = s, k
        if e > reach:
            reach = e
    out.append((start, n, first, len(edges)))
    return out


class Lattices:
    """The lattices training works on, over the seed vocabulary: one entry per distinct
    *unit*, a span of a word that no piece crosses (``unit_spans``), with the summed frequency
    of its occurrences in every word. ``edges[k]`` is a tuple of ``(start, end, piece_id)``
    sorted by start, then end; ``lengths[k]``, ``freqs[k]`` and ``texts[k]`` its text's
    length, weight and text. Dead pieces are filtered out, and as they die units split
    further (new cuts appear) and equal spans merge; an entry that fell apart is left
    empty (text '', weight 0) until a quarter of them are, then dropped.

    Why units: splits and probabilities factor over the spans, so the E-step and the best
    splits are the same as over whole words, but a stretch repeated in many words is done
    once. Ordinary words mostly stay one unit, less their punctuation (``▁said,`` is
    ``▁said`` and ``,``: no piece mixes scripts). Random bytes and text without spaces fall
    apart into short spans, many of them repeated, and never need the E-step's rescaled
    pass (``forward_backward_scaled``). Measured (CPU, 1 MB of random bytes, ``unigram``):
    the E-steps 2.8 s instead of 5.6 s (units of words longer than 64 characters only),
    about 11 s in all instead of 15 s.

    >>> lat = Lattices(4)
    >>> lat.build(["a", "b", ",", "ab"], ["ab,", "b,"], [2, 1])
    >>> lat.texts, lat.freqs
    (['ab', ',', 'b'], [2, 3, 1])
    """

    def __init__(self, max_len):
        self.prefixes, self.max_len = {}, max_len
        self.edges, self.lengths, self.freqs = [], [], []
        self.texts = []  # each entry's text
        self._shared = {}  # (start, end, id) -> the one tuple the short units share
        self._at, self._empty = {}, 0  # unit text -> its entry; how many entries are empty
        self._own = {}  # piece id -> the live edges of the piece's own string, minus itself

    def build(self, pieces, words, freqs):
        """Every word's lattice over all pieces, as its units."""
        self.pieces = pieces
        self._table(None)
        # subtle: many units share an edge (the same piece at the same offset of a unit):
        # one tuple each, through a table (1 MB without spaces, whole: 270 MB at the peak,
        # 378 MB without it). Units longer than _SHARE_MAX are rare and keep their own.
        at = self._at
        for w, f in zip(words, freqs):
            self._add_units(w, self.piece_edges(w, None), f, at)
        # (the table is let go: it held 1.1 million tuples in 40 MB on 1 MB without spaces,
        # and kept the edges of dead pieces alive; later units and alternatives start a new one)
        self._shared = {}

    def _table(self, alive):
        """The prefix table of the live pieces (all if ``alive`` is None): every prefix of a
        piece -> the piece's id, or -1 if not a piece."""
        pieces, prefixes = self.pieces, {}
        self.prefixes = prefixes
        for i, p in enumerate(pieces):
            if alive is None or alive[i]:
                for k in range(1, len(p)):
                    prefixes.setdefault(p[:k], -1)
                prefixes[p] = i
        self._in_table = len(pieces) if alive is None else sum(alive)

    def _add_units(self, text, edges, f, at, new=True, units=None):
        """Add a word's (or unit's) live ``edges`` as its units (``units``: ``unit_spans`` of
        them, if known); ``at``: unit text -> its entry (a repeated unit adds its frequency);
        ``new``: as in ``_add_unit``, for a text that stays one unit."""
        if units is None:
            units = unit_spans(edges, len(text))
        if len(units) == 1:
            self._add_unit(text, edges, f, at, new)
            return
        for a, b, first, last in units:
            k = at.get(text[a:b])
            if k is not None:
                self.freqs[k] += f
            else:
                self._add_unit(text[a:b], [(s - a, e - a, i) for s, e, i in edges[first:last]], f, at)

    def _add_unit(self, unit, edges, f, at, new=True):
        """Add one unit (its edges start at 0), or its frequency if it is already in ``at``;
        ``new``: its edges are not yet a tuple of shared tuples."""
        k = at.get(unit)
        if k is None:
            at[unit] = len(self.edges)
            if new and len(unit) <= _SHARE_MAX:
                shared = self._shared
                edges = [shared.setdefault(t, t) for t in edges]
            self.edges.append(tuple(edges)), self.lengths.append(len(unit)), self.freqs.append(f)
            self.texts.append(unit)
        else:
            self.freqs[k] += f

    def alternatives(self, i, piece, alive, at=None):
        """The live edges of ``piece`` other than the piece itself (cached; pieces only die).
        ``at``: ``(a unit's edges, offset)`` where the piece occurs, if known: its edges are
        then the unit's edges inside the piece (every live piece at every place of the unit)."""
        edges = self._own.get(i)
        if edges is None:
            # (edges through the table of shared tuples: cached for tens of thousands of
            # pieces, tuples of their own cost 40 MB on 1 MB without spaces)
            shared = self._shared
            if at is None:
                edges = tuple([shared.setdefault(t, t) for t in self.piece_edges(piece, alive) if t[2] != i])
            else:
                # (cut from the unit: no prefix-table look-ups; udhr_many's first pruning
                # 5.5-6.1 s -> 3.7 s of CPU. At offset 0 the unit's own tuples serve as they are)
                unit, a = at
                b = a + len(piece)
                if a == 0:
                    edges = tuple([t for t in unit if t[1] <= b and t[2] != i and alive[t[2]]])
                else:
                    edges = tuple([shared.setdefault(t, t) for t in [
                        (s - a, e - a, j) for s, e, j in unit if s >= a and e <= b and j != i and alive[j]]])
        else:
            edges = tuple([t for t in edges if alive[t[2]]])
        self._own[i] = edges
        return edges

    def has_alternatives(self):
        """Whether ``alternatives`` was asked before (its answers are then cached)."""
        return bool(self._own)

    def piece_edges(self, text, alive):
        """Edges of one string over the live pieces (all pieces if ``alive`` is None)."""
        get, max_len, n = self.prefixes.get, self.max_len, len(text)
        out = []
        add = out.append
        for s in range(n):
            for e in range(s + 1, min(n, s + max_len) + 1):
                i = get(text[s:e])
                if i is None:
                    break
                if i >= 0 and (alive is None or alive[i]):
                    add((s, e, i))
        return out

    def filter(self, alive):
        """Drop the edges of dead pieces; a unit that falls apart becomes its units (each
        merged with an entry of equal text, if any)."""
        # step 1: the prefix table again once most of its pieces died (on 1 MB without
        # spaces, 80% of the seed pieces die in the first EM iteration: its table held 80 MB)
        if 2 * sum(alive) < self._in_table:
            self._table(alive)
        edges, lengths, freqs, texts, at = self.edges, self.lengths, self.freqs, self.texts, self._at

        # step 2, in place: an entry that lost no edge stays as it is; one that did keeps its
        # live edges, or, if it now falls apart, is emptied and its units are merged into the
        # entries of equal text or added at the end (no second copy of the lattices while
        # filtering, and an entry that lost nothing costs one scan of its edges)
        for k in range(len(edges)):  # (the entries before this filter: the units it adds come after them)
            es = edges[k]
            kept = [t for t in es if alive[t[2]]]
            if len(kept) == len(es):
                continue
            units = unit_spans(kept, lengths[k])
            if len(units) == 1:
                edges[k] = tuple(kept)
                continue
            text, f = texts[k], freqs[k]
            del at[text]
            edges[k], lengths[k], freqs[k], texts[k] = (), 0, 0, ""
            self._empty += 1
            self._add_units(text, kept, f, at, units=units)
        # step 3: once a quarter of the entries are empty, drop them (the order stays)
        if 4 * self._empty > len(edges):
            full = [k for k in range(len(edges)) if texts[k]]
            self.edges, self.lengths = [edges[k] for k in full], [lengths[k] for k in full]
            self.freqs, self.texts = [freqs[k] for k in full], [texts[k] for k in full]
            self._at = {t: k for k, t in enumerate(self.texts)}
            self._empty = 0


def forward_backward(edges_of, lengths, freqs, probs):
    """Forward-backward over every lattice (``edges_of[k]``, ``lengths[k]`` characters long,
    weight ``freqs[k]``; an entry of weight 0 is skipped), each piece ``i`` of probability
    ``probs[i]``: returns each piece's expected count (weighted) and the log-likelihood of
    all (the sum of weight x log Z).

    Example: the text 'ab' with pieces a, b (probability 0.5 each) and ab (0.25): the splits
    a+b and ab are each half of Z = 0.5.

    >>> expected, loglik = forward_backward([[(0, 1, 0), (0, 2, 2), (1, 2, 1)]], [2], [1], [0.5, 0.5, 0.25])
    >>> expected, round(math.exp(loglik), 12)
    ([0.5, 0.5, 0.5], 0.5)
    """
    expected = [0.0] * len(probs)
    # the log-likelihood: (sum of f x log Z, product of the Z of f = 1 as mantissa and
    # exponent), unit by unit in order. (One log per unit was 0.6 s of 12 on 1 MB of random
    # bytes, where nearly every unit occurs once; frexp is exact.)
    total, mant, expo = 0.0, 1.0, 0
    counts, zs = [], []  # the units of f > 1 and their Z, since the last _plus_logs
    for edges, n, f in zip(edges_of, lengths, freqs):
        if not f:  # (an entry emptied when its unit fell apart)
            continue
        if n <= _PROB_SPACE_MAX:
            # forward: fwd[e] = total probability of all splits of the first e characters
            fwd = [0.0] * (n + 1)
            fwd[0] = 1.0
            for s, e, i in edges:
                fwd[e] += fwd[s] * probs[i]
            z = fwd[n]
            # backward, collecting each edge's posterior: fwd[s] * p * bwd[e] / Z
            bwd = [0.0] * (n + 1)
            bwd[n] = 1.0
            scale = f / z
            for s, e, i in reversed(edges):
                pb = probs[i] * bwd[e]
                bwd[s] += pb
                expected[i] += fwd[s] * pb * scale
            if f == 1:
                m, e = frexp(z)
                mant *= m  # (m is in [0.5, 1): renormalized long before it could underflow)
                expo += e
                if mant < _RENORM:
                    m, e = frexp(mant)
                    mant, expo = m, expo + e
            else:
                counts.append(f)  # (total += f * log(z), below, for many units at once)
                zs.append(z)
        else:
            # a long word (a cut-up huge one): its probability could underflow
            total = _plus_logs(total, counts, zs)  # (the ones before it first: the same order)
            total += f * forward_backward_scaled(edges, n, probs, f, expected)
    total = _plus_logs(total, counts, zs)
    return expected, total + (portable_log(mant) + expo * _LN2)


def _plus_logs(total, counts, zs):
    """``total + counts[0] * log(zs[0]) + counts[1] * log(zs[1]) + ...``, added in that order
    (the same bits as a loop), with the portable log of all Z at once (a Python call per unit
    costs more, in WebAssembly most); empties both lists. Example: _plus_logs(1.0, [2], [1.0]) == 1.0."""
    if zs:
        total = reduce(add, map(mul, counts, portable_logs(zs)), total)
        counts.clear()
        zs.clear()
    return total


def forward_backward_scaled(edges, n, probs, f, expected):
    """Forward-backward over a long word's lattice in probability space with rescaling (no
    underflow, no logs per edge): adds each edge's posterior times ``f`` to ``expected`` and
    returns log Z. ``edges`` are sorted by start; no edge spans more than ``span`` characters,
    so when the pass reaches a position only the next ``span`` values are still being summed:
    those are divided by a small value together and its log is kept (``cum``).

    Example: a 1-character word with one piece of probability 0.5 -> log 0.5.
    """
    log, exp = portable_log, portable_exp
    # (the live edges' span: dead pieces' edges, probability 0, may still be there)
    span = max([e - s for s, e, i in edges if probs[i]], default=1)
    # forward: fwd[t] * exp(fcum[t]) is the total probability of the first t characters
    fwd = [0.0] * (n + 1)
    fwd[0] = 1.0
    fcum = [0.0] * (n + 1)
    cum, at = 0.0, -1
    for s, e, i in edges:
        if s != at:
            # fwd[s] is final: rescale the window s..s+span if it became tiny
            v = fwd[s]
            if 0.0 < v < _TINY:
                for t in range(s, min(n, s + span) + 1):
                    fwd[t] /= v
                cum += log(v)
            fcum[s], at = cum, s
        fwd[e] += fwd[s] * probs[i]
    log_z = log(fwd[n]) + cum
    # backward, collecting each edge's posterior fwd[s] * p * bwd[e] / Z (all rescaled)
    bwd = [0.0] * (n + 1)
    bwd[n] = 1.0
    bcum, at, scale, logs = 0.0, -1, 0.0, None
    for s, e, i in reversed(edges):
        if s != at:
            # the values after s are final: rescale the window s+1..s+span if it became tiny
            # (its largest value is at least bwd[s + 1]: no need to look further unless that is tiny)
            if bwd[s + 1] < _TINY:
                m = max(bwd[s + 1:s + span + 1])
                if 0.0 < m < _TINY:
                    for t in range(s + 1, min(n, s + span) + 1):
                        bwd[t] /= m
                    bcum += log(m)
            # (the same exponent as the position before gives the same scale: one exp per
            # rescaling, not one per position: on 1 MB of random bytes the E-steps took 9.8 s, not 11.3 s)
            if fcum[s] + bcum != logs:
                logs = fcum[s] + bcum
                scale = f * exp(logs - log_z)
            at = s
        pb = probs[i] * bwd[e]
        bwd[s] += pb
        expected[i] += fwd[s] * pb * scale
    return log_z


def viterbi(edges, n, scores):
    """The best path of one lattice as a list of piece ids, and its score. Ties go to the
    edge from the earliest start (the longest piece), as in SentencePiece."""
    best = [-math.inf] * (n + 1)
    best[0] = 0.0
    back = [None] * (n + 1)  # the best edge into each position (one store, not two: ~15 % faster)
    for t in edges:
        s, e, i = t
        v = best[s] + scores[i]
        if v > best[e]:
            best[e] = v
            back[e] = t
    path, e = [], n
    while e > 0:
        s, _, i = back[e]
        path.append(i)
        e = s
    return path, best[n]

