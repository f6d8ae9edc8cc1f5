"""Words as symbol-id lists with frequency-weighted pair counts kept up to date.

This is the incremental bookkeeping that makes merge-based training fast: after a merge
only the words that contained the pair are touched, and only the pairs next to the merged
occurrences change (an index from pair to the words that contain it), never a full recount.

>>> idx = PairIndex([[0, 1, 2], [0, 1]], [2, 3], [1, 1, 1, 1])
>>> idx.counts[(0, 1)], idx.counts[(1, 2)]
(5, 2)
>>> changed = idx.merge((0, 1), 3)
>>> idx.words, idx.counts
([[3, 2], [3]], {(3, 2): 2})
"""

from ..events import sliced


class PairIndex:
    """``words[w]``: symbol ids of distinct word ``w`` (in order of first appearance);
    ``freqs[w]``: its count; ``counts[pair]``: weighted count; ``where[pair]``: ``{w: n}``,
    the words containing the pair and how many times; ``sym_len[id]``: how many base
    symbols a token spans (for first-occurrence offsets)."""

    def __init__(self, words, freqs, sym_len):
        self.words = words
        self.freqs = freqs
        self.sym_len = sym_len
        self.counts, self.where = {}, {}
        self.first = {}  # pair -> (first word, base-symbol offset in it): "first encountered"
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
        for w in range(lo, hi):
            syms = words[w]
            f = freqs[w]
            off = 0
            for i in range(len(syms) - 1):
                p = (syms[i], syms[i + 1])
                counts[p] = counts.get(p, 0) + f
                ow = where.get(p)
                if ow is None:
                    where[p] = {w: 1}
                    first[p] = (w, off)
                else:
                    ow[w] = ow.get(w, 0) + 1
                off += sym_len[syms[i]]

    def first_occurrence(self, pair):
        """(word index, base-symbol offset) where the textbook scan meets ``pair`` first."""
        got = self.first.get(pair)
        if got is not None:
            return got
        w = min(self.where[pair])
        syms, a, b = self.words[w], pair[0], pair[1]
        i = syms.index(a)
        while syms[i + 1] != b:  # the pair is in the word, so this finds it
            i = syms.index(a, i + 1)
        self.first[pair] = got = (w, sum(map(self.sym_len.__getitem__, syms[:i])))
        return got

    def merge(self, pair, new):
        """Merge ``pair`` into ``new`` in every word that has it; return the pairs whose
        count changed, each with the first word where it changed, in a deterministic order.
        The merged pair's entry and every pair whose count reached 0 are removed.
        """
        a, b = pair
        words, freqs, counts, where, first = self.words, self.freqs, self.counts, self.where, self.first
        occ = where.pop(pair, {})
        counts.pop(pair, None)
        first.pop(pair, None)
        touched = {}

        for w in sorted(occ):  # sorted: deterministic, and the first change per pair is its smallest word
            syms, f = words[w], freqs[w]
            out, i, n = [], 0, len(syms)
            while True:
                # jump to the next `a` (a C-speed scan: long words have few occurrences)
                try:
                    j = syms.index(a, i)
                except ValueError:
                    out.extend(syms[i:])
                    break
                if j + 1 >= n or syms[j + 1] != b:
                    out.extend(syms[i:j + 1])
                    i = j + 1
                    continue
                out.extend(syms[i:j])
                # one occurrence of (a, b) at j: its neighbours now pair with `new`
                # (prev, a) and (b, next) lose one occurrence, (prev, new), (new, next) gain one
                lost, gained = [], []
                if out:
                    prev = out[-1]
                    lost.append((prev, a))
                    gained.append((prev, new))
                if j + 2 < n:
                    nxt = syms[j + 2]
                    lost.append((b, nxt))
                    gained.append((new, nxt))
                for p in lost:
                    if p != pair:  # subtle: the merged pair's own entry is already gone
                        counts[p] -= f
                        ow = where[p]
                        c = ow[w] - 1
                        if c:
                            ow[w] = c
                        else:
                            del ow[w]
                        touched.setdefault(p, w)
                for p in gained:
                    counts[p] = counts.get(p, 0) + f
                    ow = where.get(p)
                    if ow is None:
                        where[p] = {w: 1}
                    else:
                        ow[w] = ow.get(w, 0) + 1
                    touched.setdefault(p, w)
                out.append(new)
                i = j + 2
            words[w] = out

        # a cached first occurrence stays valid unless a word at or before it changed
        for p, w in touched.items():
            cached = first.get(p)
            if cached is not None and w <= cached[0]:
                del first[p]
            if counts.get(p) == 0:
                del counts[p], where[p]
                first.pop(p, None)
        return touched
