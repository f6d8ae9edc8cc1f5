"""Words as symbol-id tuples with frequency-weighted pair counts kept up to date.

This is the incremental bookkeeping that makes merge-based training fast: after a merge
only the words that contained the pair are touched, and only the pairs next to the merged
occurrences change (an index from pair to the words that contain it), never a full recount.

>>> idx = PairIndex([(0, 1, 2), (0, 1)], [2, 3], [1, 1, 1, 1])
>>> idx.counts[(0, 1)], idx.counts[(1, 2)]
(5, 2)
>>> changed, merged = idx.merge((0, 1), 3)
>>> idx.words, idx.counts, merged
([(3, 2), (3,)], {(3, 2): 2}, 5)
"""

from ..events import sliced


def find_pair(syms, a, b, start=0):
    """The position of the first ``a, b`` in ``syms`` at or after ``start``, or -1.
    Example: ((1, 2, 1, 3), 1, 3) -> 2."""
    last = len(syms) - 1
    try:
        i = syms.index(a, start)  # a C-speed scan to each `a`: long words have few of them
        while i < last and syms[i + 1] != b:
            i = syms.index(a, i + 1)
    except ValueError:
        return -1
    return i if i < last else -1


class PairIndex:
    """``words[w]``: symbol ids of distinct word ``w`` (a tuple, in order of first
    appearance); ``freqs[w]``: its count; ``counts[pair]``: weighted count (only pairs that
    occur); ``where[pair]``: ``{w: n}``, the words containing the pair and how many times;
    ``sym_len[id]``: how many base symbols a token spans (for first-occurrence offsets).

    Words are tuples, not lists, and ``where`` holds dicts of ints, not sets: the cyclic
    garbage collector stops watching a tuple or a dict that holds only ints, never a list
    or a set, and its passes over ~100k lists or ~300k sets (udhr_many) cost a quarter of
    the merge loop (measured: 4.2 s with lists, 3.3 s with the collector off)."""

    def __init__(self, words, freqs, sym_len):
        self.words = words
        self.freqs = freqs
        self.sym_len = sym_len
        self.counts, self.where = {}, {}
        # pair -> where the textbook scan meets it first, as one int: (word << 32) + the
        # base-symbol offset in the word (an int, not a tuple: Ranking's keys add it to the count)
        self.first = {}
        self._add_words(0, len(words))

    @classmethod
    def in_slices(cls, words, freqs, sym_len, **slicing):
        """``PairIndex(words, freqs, sym_len)`` built in slices (``events.sliced``): a
        generator that yields ``(words_done, words_total)`` every few milliseconds and returns
        the index (the same index, so a caller can yield to a browser while a big corpus is
        indexed). ``slicing``: ``seconds`` and ``clock`` for ``sliced``."""
        index = cls([], [], sym_len)
        index.words, index.freqs = words, freqs
        yield from sliced(len(words), index._add_words, **slicing)
        return index

    def _add_words(self, lo, hi):
        """Count the pairs of words ``lo..hi-1`` (in order: first occurrences stay first)."""
        words, freqs, sym_len = self.words, self.freqs, self.sym_len
        counts, where, first = self.counts, self.where, self.first
        get = counts.get
        for w in range(lo, hi):
            syms = words[w]
            f = freqs[w]
            # zip builds the pair tuples at C speed
            for i, p in enumerate(zip(syms, syms[1:])):
                counts[p] = get(p, 0) + f
                ws = where.get(p)
                if ws is None:
                    where[p] = {w: 1}
                    first[p] = (w << 32) + sum(map(sym_len.__getitem__, syms[:i]))
                else:
                    ws[w] = ws.get(w, 0) + 1

    def first_occurrence(self, pair):
        """Where the textbook scan meets ``pair`` first: ``(word index << 32) + base-symbol
        offset`` (see ``first``). Example: pair (1, 2) in words ((0, 1, 2),) -> 1."""
        got = self.first.get(pair)
        if got is not None:
            return got
        w = min(self.where[pair])
        syms = self.words[w]
        i = find_pair(syms, pair[0], pair[1])  # the pair is in the word, so this finds it
        self.first[pair] = got = (w << 32) + sum(map(self.sym_len.__getitem__, syms[:i]))
        return got

    def merge(self, pair, new):
        """Merge ``pair`` into ``new`` in every word that has it. Returns ``(touched,
        merged)``: the pairs whose count changed, each with the first word where it changed,
        in a deterministic order, and how many occurrences were merged (weighted by word
        counts). The merged pair's entry and every pair whose count reached 0 are removed.
        """
        a, b = pair
        words, freqs, counts, where, first = self.words, self.freqs, self.counts, self.where, self.first
        get = counts.get
        occ = where.pop(pair, ())
        counts.pop(pair, None)
        first.pop(pair, None)
        touched = {}
        mark = touched.setdefault
        merged = 0

        for w in sorted(occ):  # sorted: deterministic, and the first change per pair is its smallest word
            syms, f = words[w], freqs[w]
            # step 1: where the pair occurs in the word (left to right, not overlapping)
            if occ[w] == 1:
                # most words hold the pair once (``where`` says how many times): one C-speed
                # scan, no search loop, the new word by two slices (measured, udhr_many's
                # merges replayed: PairIndex.merge 3.1 -> 2.6 s)
                j = syms.index(a)
                if syms[j + 1] != b:
                    j = find_pair(syms, a, b, j + 1)
                sites = (j,)
            else:
                sites, j = [], find_pair(syms, a, b)
                while j >= 0:
                    sites.append(j)
                    j = find_pair(syms, a, b, j + 2)
            # step 2: each occurrence's neighbours now pair with `new`:
            # (prev, a) and (b, next) lose one occurrence, (prev, new) and (new, next) gain one
            end, n = -1, len(syms)
            for j in sites:
                sides = []  # (the pair that loses one, the pair that gains one), left and right
                if j:
                    prev = new if j == end else syms[j - 1]  # the previous occurrence, merged
                    sides.append(((prev, a), (prev, new)))
                end = j + 2
                if end < n:
                    nxt = syms[end]
                    sides.append(((b, nxt), (new, nxt)))
                for p, q in sides:
                    # subtle: in a, a, a the right side's (a, a) is the merged pair, already gone
                    # (the left side's never is: an (a, a) before j would have been merged)
                    if p != pair:
                        counts[p] -= f
                        ws = where[p]
                        c = ws[w] - 1
                        if c:
                            ws[w] = c
                        else:
                            del ws[w]
                        mark(p, w)
                    counts[q] = get(q, 0) + f
                    ws = where.get(q)
                    if ws is None:
                        where[q] = {w: 1}
                    else:
                        ws[w] = ws.get(w, 0) + 1
                    mark(q, w)
            # step 3: the word with every occurrence replaced by `new`
            merged += f * len(sites)
            if len(sites) == 1:
                words[w] = syms[:j] + (new,) + syms[j + 2:]
            else:
                out, i = [], 0
                for j in sites:
                    out += syms[i:j]
                    out.append(new)
                    i = j + 2
                out += syms[i:]
                words[w] = tuple(out)

        # a cached first occurrence stays valid unless a word at or before it changed
        for p, w in touched.items():
            cached = first.get(p)
            if cached is not None and w <= cached >> 32:
                del first[p]
            if get(p) == 0:
                del counts[p], where[p]
                first.pop(p, None)
        return touched, merged
