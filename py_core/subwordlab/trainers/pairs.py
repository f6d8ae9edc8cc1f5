"""Pair counts over the corpus's words, kept up to date merge by merge.

This is the incremental bookkeeping that makes merge-based training fast: a merge touches
only the places where the pair occurs, and only the pairs next to them change, never a
full recount.

The words are laid out one after another in *slots*, as SentencePiece's BPE trainer keeps
its symbols: ``sym[i]`` is the symbol id in slot ``i``, ``nxt[i]`` / ``prv[i]`` the slots of
its neighbours in the same word, and each word is followed by a separator slot (symbol
``-1``, which pairs with nothing). A merge rewrites the left slot of an occurrence and
unlinks the right one: no word is rebuilt, no word is searched for the pair.

>>> idx = PairIndex([(0, 1, 2), (0, 1)], [2, 3], [1, 1, 1, 1])
>>> idx.counts[(0, 1)], idx.counts[(1, 2)]
(5, 2)
>>> gained, shrunk, merged = idx.merge((0, 1), 3)
>>> idx.words, idx.counts, merged
([(3, 2), (3,)], {(3, 2): 2}, 5)
"""

from array import array
from collections import defaultdict


def slots_of(packed):
    """The slots a ``PairIndex.where`` entry holds, packed as 4-byte ints, as a sequence.

    >>> list(slots_of(array("i", [3, 9]).tobytes()))
    [3, 9]
    """
    return memoryview(packed).cast("i")


class PairIndex:
    """``freqs[w]``: the count of distinct word ``w`` (in order of first appearance);
    ``counts[pair]``: the pair's weighted count (only pairs that occur);
    ``where[pair]``: the slots in order, packed (``slots_of`` reads them), a superset of those where the pair starts (a slot
    that lost the pair stays until the pair is merged: checking it then is cheaper than
    removing it at every change); ``first[pair]``: the slot where the textbook scan (words
    in order, each left to right) meets the pair first, when known (slots are in that
    order); ``sym_len[id]``: how many base symbols a token spans. ``words``: the words now,
    as symbol-id tuples (rebuilt from the slots).

    Slots, not word tuples (measured, byte-BPE to 8,000 on udhr_many, ``merge`` CPU time,
    three interleaved pairs of runs on a loaded machine): rewriting every word that holds
    the pair (a search for it, a new tuple, four pair updates of ~5 dict operations per
    occurrence) cost 2.5-3.3 s, median 2.7; linked slots, with the neighbours' counts added
    up per neighbour symbol, 2.2-2.8 s, median 2.6 (and 31 % fewer instructions for the
    whole training under cachegrind, which a loaded machine does not disturb).
    """

    def __init__(self, words, freqs, sym_len):
        self.freqs = freqs
        self.sym_len = sym_len
        # slot 0: the separator before the first word. Arrays, not lists: the garbage
        # collector never walks an array (it walks every item of a list at each full
        # collection: measured, udhr_many's merge loop 2.7 s, 3.3 s with lists), and an
        # item takes 4 or 8 bytes, not 8 + 32
        self.sym, self.nxt, self.prv = array("i", (-1,)), array("i", (1,)), array("i", (-1,))
        self.freq_at, self.starts = array("q", (0,)), []
        self.counts, self.where, self.first = {}, {}, {}
        self._add_words(words)
        # each pair's slots packed as bytes (4 per slot): no int objects, no array header,
        # and bytes are never tracked by the garbage collector (measured, byte-BPE to 32,000 on
        # 1 GB: the index held most of the training's memory, as tuples of int objects)
        where = self.where
        for p, ws in where.items():
            where[p] = ws.tobytes()

    def _add_words(self, words):
        """Lay out the words in slots and count their pairs (in order: first occurrences
        stay first)."""
        freqs, starts = self.freqs, self.starts
        counts, where, first = self.counts, self.where, self.first
        get = counts.get
        syms_here, freqs_here = [], []  # (lists while the words are laid out: faster to grow)
        base = len(self.sym)
        for syms, f in zip(words, freqs):
            at = base + len(syms_here)  # the word's first slot
            starts.append(at)
            syms_here += syms
            syms_here.append(-1)  # the separator after the word
            freqs_here += [f] * (len(syms) + 1)
            # zip builds the pair tuples at C speed
            for i, p in enumerate(zip(syms, syms[1:]), at):
                counts[p] = get(p, 0) + f
                ws = where.get(p)
                if ws is None:
                    where[p] = array("i", (i,))
                    first[p] = i
                else:
                    ws.append(i)
        # the new slots join the arrays; each slot's neighbours are the slots next to it
        # (a word's ends: its separators)
        n = base + len(syms_here)
        self.sym.fromlist(syms_here)
        self.freq_at.fromlist(freqs_here)
        self.nxt.extend(range(base + 1, n + 1))
        self.prv.extend(range(base - 1, n - 1))

    @property
    def words(self):
        """The words now, as tuples of symbol ids (rebuilt from the slots)."""
        sym, nxt = self.sym, self.nxt
        out = []
        for i in self.starts:
            syms = []
            while sym[i] >= 0:
                syms.append(sym[i])
                i = nxt[i]
            out.append(tuple(syms))
        return out

    def unit_counts(self, size):
        """Frequency-weighted occurrences of every symbol id below ``size``.
        Example: words [(0, 1), (0,)] with freqs [2, 3] -> [5, 2]."""
        unit = [0] * size
        for s, f in zip(self.sym, self.freq_at):
            if s >= 0:  # (dead slots and separators hold -1)
                unit[s] += f
        return unit

    def slot_bound(self):
        """Every slot is below this number (so ``first`` values are too)."""
        return len(self.sym)

    def first_occurrence(self, pair):
        """The slot where the textbook scan meets ``pair`` first (see ``first``).
        Example: pair (1, 2) in words ((0, 1, 2),) -> slot 2 (slot 0 is a separator)."""
        got = self.first.get(pair)
        if got is not None:
            return got
        a, b = pair
        sym, nxt = self.sym, self.nxt
        for i in slots_of(self.where[pair]):  # (in slot order)
            if sym[i] == a and sym[nxt[i]] == b:
                self.first[pair] = i
                return i
        raise KeyError(pair)

    def merge(self, pair, new):
        """Merge ``pair`` into ``new`` everywhere. Returns ``(gained, shrunk, merged)``: the
        pairs that gained occurrences (each holds ``new``), the pairs that lost some (a pair
        can be in both lists, or twice in one), and how many occurrences were merged
        (weighted by word counts). The merged pair's entry and every pair whose count
        reached 0 are removed.
        """
        a, b = pair
        sym, nxt, prv, freq_at = self.sym, self.nxt, self.prv, self.freq_at
        counts, where, first = self.counts, self.where, self.first
        # left to right (``where`` is in slot order), so that in a, a, a the first (a, a) is
        # merged, not the second
        occ = slots_of(where.pop(pair, b""))
        counts.pop(pair, None)
        first.pop(pair, None)
        # the merged occurrences' neighbours: symbol x -> the slots h of the (x, a) that
        # become (x, new); symbol y -> the slots i of the (b, y) that become (new, y)
        left, right = defaultdict(list), defaultdict(list)

        for i in occ:
            # step 1: is the pair still at slot i? (``where`` keeps slots that lost it)
            if sym[i] != a:
                continue
            j = nxt[i]
            if sym[j] != b:
                continue
            # step 2: slot i becomes `new`, slot j leaves the word
            k = nxt[j]
            sym[i] = new
            sym[j] = -1
            nxt[i] = k
            prv[k] = i
            # step 3: note the neighbours, read now: in a, a, a the left one of the second
            # occurrence is the first, already `new` (a separator's -1 is noted and dropped)
            h = prv[i]
            left[sym[h]].append(h)
            right[sym[k]].append(i)

        # step 4: the pair counts move by the neighbours' weighted counts, added up per
        # neighbour symbol at C speed (sum over map), not one dict update per occurrence:
        # (x, a) and (b, y) lose, (x, new) and (new, y) gain, and the gained pairs' slots
        # join ``where`` (one C call per pair). One pass per neighbour symbol does it all, with
        # no table of deltas in between (measured, plain BPE on 1 MB of random bytes, ~190
        # neighbour symbols a merge, ``merge`` CPU: 1.50 -> 1.37 s and 1.55 -> 1.44 s, two
        # interleaved pairs of runs).
        weight = freq_at.__getitem__
        merged = sum(map(weight, right.pop(-1, ())))  # (those that end a word; the others below)
        left.pop(-1, None)
        get, fget, wget = counts.get, first.get, where.get
        gained, shrunk = [], []
        for side, slots_by in ((0, left), (1, right)):
            for s, slots in slots_by.items():
                # (most neighbours of a rare pair occur once there: no sum over one item)
                n = sum(map(weight, slots)) if len(slots) > 1 else weight(slots[0])
                at = slots[0]  # (the lists are in slot order)
                if side == 0:
                    lost, won = (s, a), (s, new)
                else:
                    lost, won = (b, s), (new, s)
                    merged += n
                # a cached first occurrence stays valid unless a slot at or before it changed
                if lost != pair:  # subtle: in a, a, a the right side's (a, a) is the merged pair, already gone
                    counts[lost] = get(lost, 0) - n
                    shrunk.append(lost)
                    if fget(lost, -1) >= at:
                        del first[lost]
                counts[won] = get(won, 0) + n
                gained.append(won)
                ws = wget(won)
                if ws is None:
                    # packed bytes, not a tuple or an array: an array stays tracked by the
                    # garbage collector (hundreds of thousands of them made the full
                    # collections run twice as often: plain BPE on 1 MB of random bytes,
                    # training 2.71 -> 2.31 s CPU as tuples), and a tuple holds an int object
                    # per slot (~36 bytes, not 4). A merge makes a pair's entry once: only a
                    # token built twice (an id reused) adds slots to a pair it made.
                    where[won] = array("i", slots).tobytes()
                else:
                    where[won] = array("i", sorted((*slots_of(ws), *slots))).tobytes()
                    if fget(won, -1) >= at:
                        del first[won]
        # only a pair that lost occurrences can be left with none
        for p in shrunk:
            if get(p) == 0:
                del counts[p], where[p]
                first.pop(p, None)
        return gained, shrunk, merged
