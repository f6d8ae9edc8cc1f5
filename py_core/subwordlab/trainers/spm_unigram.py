"""Unigram trained as ``spm_train --model_type=unigram`` trains it (``rules="sentencepiece"``):
a port of sentencepiece/src/unigram_model_trainer.cc and the parts of unigram_model.cc
(the lattice) and trainer_interface.cc it uses, one thread.

What it does differently from the textbook trainer (``unigram.py``) and from HF's port of
the same C++ (``hf_unigram.py``):

- the seed comes from the *sentences* (a line each, or a word each for a word-count list,
  which spm reads as its TSV input, every word twice): the characters (by count, then
  character), then the substrings at the internal nodes of the suffix tree of all the
  sentences (occurring twice or more and followed by two different characters), valid
  SentencePiece pieces, scored occurrences x length, ties in the suffix tree's order;
- EM then runs on the words (the sentences split before each ▁), most frequent first,
  ties by the word;
- every number the C++ keeps in a ``float`` is a float32 here (``f32``): the scores, the
  lattice's forward and backward sums, the expected counts, the sums and losses of pruning.
  ``exp`` and ``log`` are the C library's (``math``) with one guard (``_settled``): where a
  result lies so close to a float32 rounding boundary that two C libraries could round it
  apart (about 1 call in 10**8), it is computed again correctly rounded (``decimal``), which
  is what glibc gives there; so CPython and the page give the same bits, and spm's;
- a piece's alternative for pruning is the second-best path of ``Lattice::NBest(2)``, an A*
  search whose ties follow ``std::priority_queue`` (libstdc++'s binary heap: ``_Agenda``);
- after pruning, the pieces kept without a loss come first, then the others by loss: the
  order (and so the unknown nodes' piece, which is piece 0) is spm's;
- finalize: the required characters (a missing one scores just above the lowest score),
  then the pieces by score, ties by piece, until ``vocab_size``; the model lists ``<unk>``,
  the special tokens (and bytes with ``byte_fallback``), then the pieces by score.

>>> from subwordlab.base.events import drain
>>> model, specials, rounds = drain(train(["▁hug▁pug", "▁pun▁bun▁hugs", "▁hug"], vocab_size=12))
>>> model.vocab[:5], specials
(['<unk>', '<s>', '</s>', '▁hug', 'n'], {'<s>': 1, '</s>': 2})
"""

import math
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import compress, repeat
from operator import and_, eq, sub

from ..base.events import AlphabetReady, EmStep, Progress, PruneStep
from ..base.gc_pause import no_cyclic_gc
from .hf_unigram import SharedSums, candidates, live_nodes
from .snapshot import PieceOrder
from .spm_bpe import BOUNDARY_CHAR, UNK_CHAR, required_chars, reserved_pieces
from .unigram_seed import SPACE_MARK, check_unigram_settings, is_valid_piece, lcp_intervals

UNK_PENALTY = 10.0  # kUnkPenalty: an unknown node scores min_score - 10
MIN_SCORE_DELTA = 0.0001  # kMinScorePenaltyDelta: finalize's missing required characters
EXPECTED_MIN = 0.5  # kExpectedFrequencyThreshold: the M-step drops pieces expected less often
LOG_EPSILON = 50.0  # kMinusLogEpsilon: LogSumExp drops an addend this far below the other

# -- float32 arithmetic, and exp/log that give the same float32 in every runtime ---------------

_F = array("f", [0.0])
_MINUS_ONE, _PLUS_ONE = (-1).__add__, (1).__add__  # (a lattice's ids are the seed ids, its candidates' one more)


def f32(x):
    """``x`` rounded to a C float (float32), as a Python float. Example: f32(0.1) -> 0.10000000149011612."""
    _F[0] = x
    return _F[0]


def _settled(v, eps):
    """``f32(v)`` when every value within ``eps`` of ``v`` rounds to the same float32 (so a C
    library a few units off in the last place gives it too), else None."""
    _F[0] = v - eps
    lo = _F[0]
    _F[0] = v + eps
    return lo if _F[0] == lo else None


def _exp(x):
    """exp(x) correctly rounded (what glibc's exp gives; only for the rare unsettled case)."""
    from decimal import Context, Decimal  # (here: the page starts ~8 ms sooner without decimal)

    return float(Decimal(x).exp(Context(prec=40)))


def _log(x):
    """log(x) correctly rounded (see ``_exp``)."""
    from decimal import Context, Decimal

    return float(Decimal(x).ln(Context(prec=40)))


def _log1p(x):
    """log(1 + x) correctly rounded (see ``_exp``): 1 + x exactly (80 digits: x may be as
    small as exp(-50)), then its log."""
    from decimal import Context, Decimal

    return float(Context(prec=80).add(Decimal(1), Decimal(x)).ln(Context(prec=40)))


_EPS1 = 16.0 * math.ulp(1.0)  # (_slack of terms within 1)


def _slack(*terms):
    """How far two C libraries' results of an expression over these terms may lie apart."""
    return 16.0 * math.ulp(max(1.0, *map(abs, terms)))


def f32_log_minus(x, sub):
    """``(float)(std::log((double) x) - sub)``. Example: f32_log_minus(1.0, 0.5) -> -0.5."""
    lx = math.log(x)
    v = lx - sub
    r = _settled(v, _slack(lx, sub))
    return f32(_log(x) - sub) if r is None else r


def digamma(x, log=math.log):
    """unigram_model_trainer.cc's Digamma (double), term for term. Example: digamma(1.0) ≈ -0.5772."""
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 1.0 / 2.0
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += (log(x) + (1.0 / 24.0) * xx2 - (7.0 / 960.0) * xx4 + (31.0 / 8064.0) * xx4 * xx2
               - (127.0 / 30720.0) * xx4 * xx4)
    return result


def f32_digamma_minus(x, sub):
    """``(float)(Digamma((double) x) - sub)``."""
    v = digamma(x) - sub
    r = _settled(v, _slack(v, sub, math.log(x + 7.0)))
    return f32(digamma(x, _log) - sub) if r is None else r


def log_sum_exp(x, y):
    """``LogSumExp(x, y, false)`` of the lattice (float32 in, float32 out):
    vmax + log1p(exp(vmin - vmax)) in double, rounded to float32 (settled as ``_settled``
    does, written out: the E-step makes millions of these)."""
    F = _F
    if x < y:
        vmin, vmax = x, y
    else:
        vmin, vmax = y, x
    F[0] = vmin + LOG_EPSILON
    if vmax > F[0]:
        return vmax
    F[0] = vmin - vmax
    d = F[0]
    v = vmax + math.log1p(math.exp(d))
    eps = 16.0 * math.ulp(v if v > 0 else -v) if (v > 1.0 or v < -1.0) else _EPS1
    F[0] = v - eps
    lo = F[0]
    F[0] = v + eps
    return lo if F[0] == lo else f32(vmax + _log1p(_exp(d)))


# -- the seed -------------------------------------------------------------------------------

def split_into_words(sentence):
    """trainer_interface.cc's SplitIntoWords: a new word before each ▁ (and at the start).
    Example: '▁hug▁s' -> ['▁hug', '▁s']."""
    head, *rest = sentence.split(SPACE_MARK)  # (head: before the first ▁, a word unless empty)
    return ([head] if head else []) + [SPACE_MARK + w for w in rest]


def _lead(c):
    """The first byte of a character in UTF-8 (0 for the sentence boundary). Example: 'é' -> 195."""
    o = ord(c)
    return o if o < 0x80 else 0xC0 | (o >> 6) if o < 0x800 else 0xE0 | (o >> 12) if o < 0x10000 else 0xF0 | (o >> 18)


def branching_substrings(entries, max_len):
    """``{X: occurrences}`` for every X of 2 to ``max_len`` characters that is an internal
    node of the suffix tree spm builds on the UTF-8 *bytes* of its chunk (each sentence
    ``weight`` times, each followed by ``\\0``): X occurs at two places or more that go on
    with different first bytes (a sentence's end goes on with ``\\0``).

    How: a piece never holds a ▁ but first, so X lies in one word, and what follows a word
    matters only by its first byte: the next word's ▁ or the sentence's end. So each
    distinct word with what follows it (``w▁`` or ``w\\0``) is counted, and the suffixes of
    these, cut after ``max_len + 1`` characters, sorted in buckets by their first two
    characters; their lcp intervals are the character-level nodes; a node is a byte-level
    one when the characters after it start with different bytes (sorted by code point, so
    the first and the last of the interval tell).

    >>> branching_substrings([("▁hug▁pug", 1), ("▁hugs", 1)], 4)
    {'hug': 2, 'ug': 3, '▁hug': 2}
    """
    weights = {}
    for s, m in entries:
        words = split_into_words(s)
        last = len(words) - 1
        for j, w in enumerate(words):
            key = w + ("\0" if j == last else SPACE_MARK)
            weights[key] = weights.get(key, 0) + m
    buckets = {}
    cut = max_len + 1
    for s, m in weights.items():
        padded = s
        for i in range(len(s) - 2):
            key = padded[i:i + cut]
            bucket = buckets.get(key[:2])
            if bucket is None:
                buckets[key[:2]] = [(key, m)]
            else:
                bucket.append((key, m))
    out = {}
    for head in sorted(buckets):
        items = buckets.pop(head)
        if len(items) < 2:
            continue  # (one distinct suffix, however often: it always goes on the same way)
        items.sort()
        keys = [k for k, _ in items]
        acc = [0]
        for _, m in items:
            acc.append(acc[-1] + m)
        for depth, lb, end in lcp_intervals(keys):
            first, last = keys[lb], keys[end - 1]
            if (depth <= max_len and depth < len(first) and depth < len(last) and "\0" not in first[:depth]
                    and _lead(first[depth]) != _lead(last[depth])):
                out[first[:depth]] = acc[end] - acc[lb]
    return out


def sentence_end_substrings(entries, max_len):
    """``{X: occurrences}`` for the X (2 to ``max_len`` characters) ending sentences whose
    ``X\\0`` is a node of spm's byte suffix tree too: at sentence ends that go on with
    different next sentences' first bytes (or the chunk's end). spm trims the ``\\0`` and
    adds these occurrences to X's (``BoundedPriorityQueue::Add``), so they count twice."""
    last = len(entries) - 1
    if len({_lead(s[0]) for s, _ in entries}) == 1:
        # every sentence starts with the same byte (▁'s, with the dummy prefix): an end goes on
        # like any other but the chunk's last, so only the last sentence's endings can branch
        s = entries[last][0]
        ends = [s[-n:] for n in range(2, min(max_len, len(s)) + 1)]
        occ = {x: sum(m for t, m in entries if t.endswith(x)) for x in ends}
        return {x: n for x, n in occ.items() if n >= 2}
    found = {}
    for k, (s, m) in enumerate(entries):
        after = _lead(entries[k + 1][0][0]) if k < last else -1  # (-1: the chunk's end)
        own = _lead(s[0])
        for n in range(2, min(max_len, len(s)) + 1):
            rec = found.get(s[-n:])
            if rec is None:
                rec = found[s[-n:]] = [0, set()]
            rec[0] += m
            if m > 1:
                rec[1].add(own)  # (a repeated sentence's copies follow each other)
            rec[1].add(after)
    return {x: occ for x, (occ, nexts) in found.items() if occ >= 2 and len(nexts) >= 2}


def seed_pieces(entries, max_piece_length=16, seed_size=1_000_000, split_digits=False):
    """``MakeSeedSentencePiecesFromCorpus``: ``[(piece, float32 score)]``: every character
    (but the unknown one) by count, then character; then the valid substrings of the byte
    suffix tree (``branching_substrings``, ``sentence_end_substrings``) scored occurrences x
    length (float32), by score, then byte length (longer first), then piece, at most
    ``seed_size``; the scores made log-probabilities (``ToLogProb``). ``entries``:
    ``[(sentence, weight)]`` in spm's order.

    >>> [p for p, _ in seed_pieces([("▁hug▁hug", 1), ("▁hugs", 1)])]
    ['g', 'h', 'u', '▁', 's', '▁hug', 'hug', 'ug']
    """
    # step 1: the characters, each counted with its sentence's weight (the sentences of each
    # weight counted together, by Counter)
    by_weight = {}
    for s, m in entries:
        by_weight.setdefault(m, []).append(s)
    chars = Counter()
    for m, group in by_weight.items():
        for c, n in Counter("".join(group)).items():
            chars[c] += n * m
    chars.pop(UNK_CHAR, None)
    chars.pop(BOUNDARY_CHAR, None)
    seed = [(c, f32(float(n))) for c, n in sorted(chars.items(), key=lambda kv: (-kv[1], kv[0]))]
    # step 2: the substrings of the byte suffix tree, valid pieces, scored and sorted
    found = branching_substrings(entries, max_piece_length)
    for x, occ in sentence_end_substrings(entries, max_piece_length).items():
        found[x] = found.get(x, 0) + occ
    subs = []
    for x, occ in found.items():
        if occ >= 2 and UNK_CHAR not in x and BOUNDARY_CHAR not in x and is_valid_piece(x, max_piece_length, split_digits, spm=True):
            subs.append((f32(f32(float(occ)) * f32(float(len(x)))), len(x.encode("utf-8")), x))
    subs.sort(key=lambda t: (-t[0], -t[1], t[2]))
    seed += [(x, score) for score, _, x in subs[:seed_size]]
    # step 3: ToLogProb: log(score) - log(sum), the sum and the log in double, each score a float32
    total = 0.0
    for _, score in seed:
        total += score
    logsum = math.log(total)
    out = []
    for p, score in seed:
        ls = math.log(score)
        r = _settled(ls - logsum, _slack(ls, logsum))
        out.append((p, f32(_log(score) - _log(total)) if r is None else r))
    return out


# -- the lattice (unigram_model.cc's Lattice, float32) -----------------------------------------

def lattice(cands, n, alive):
    """The nodes of a text of ``n`` characters as ``PopulateNodes`` inserts them, from its
    ``candidates`` (every seed piece in it; ids from 1): ``(starts, ends, ids, by end)``,
    the live pieces' nodes and an unknown node (id -1) where no live one-character piece starts."""
    live = list(map(alive.__getitem__, cands[2]))
    singles = set(compress(cands[0], map(and_, live, map(eq, map(sub, cands[1], cands[0]), repeat(1)))))
    if len(singles) == n:  # (the common case: no unknown node; the live candidates, in order)
        starts, ends, ids = list(compress(cands[0], live)), list(compress(cands[1], live)), list(compress(cands[2], live))
        order = sorted(range(len(starts)), key=ends.__getitem__)
    else:
        starts, ends, ids, order = live_nodes(cands, alive, n)
    return starts, ends, list(map(_MINUS_ONE, ids)), order


def marginals(nodes, n, scores, freq, expected, unk, A=None, B=None, last_new=None):
    """``Lattice::PopulateMarginal``: adds ``freq`` x each node's posterior to ``expected``
    (by piece id; an unknown node's to ``unk``, the piece spm's trainer model numbers 0);
    returns Z. ``A``, ``B``, ``last_new``: the alphas and betas known already, completed
    here (as ``hf_unigram.marginals``: ``SharedSums``). (Hot: the float32 roundings are
    written out, ``F[0] = x; x = F[0]``.)"""
    F, exp, ulp = _F, math.exp, math.ulp
    starts, ends, ids, order = nodes
    sc = list(map(scores.__getitem__, ids))
    if -1 in ids:
        ids = [unk if i == -1 else i for i in ids]
    if A is None:
        A, B, last_new = [0.0], [0.0] * (n + 1), n - 1
    # step 1: alpha[pos], the log-sum over the nodes ending at pos (float32), from the first
    # position not known
    e0 = len(A)
    A.extend([0.0] * (n + 1 - e0))
    cur, acc = -1, 0.0
    for k in order[bisect_left(order, e0, key=ends.__getitem__):]:
        e = ends[k]
        F[0] = sc[k] + A[starts[k]]
        if e != cur:
            if cur >= 0:
                A[cur] = acc  # (all the nodes ending at cur are in)
                F[0] = sc[k] + A[starts[k]]
            cur, acc = e, F[0]  # (the first node: init mode)
        else:
            acc = log_sum_exp(acc, F[0])
    if cur >= 0:
        A[cur] = acc
    # step 2: beta[pos], the log-sum over the nodes starting at pos, in insertion order, for
    # the positions up to the last not known
    k = bisect_right(starts, last_new)
    while k > 0:
        b = starts[k - 1]
        j = k - 1
        while j > 0 and starts[j - 1] == b:
            j -= 1
        F[0] = sc[j] + B[ends[j]]
        acc = F[0]
        for t in range(j + 1, k):
            F[0] = sc[t] + B[ends[t]]
            acc = log_sum_exp(acc, F[0])
        B[b] = acc
        k = j
    # step 3: each node's expected count: freq x exp(alpha + score + beta - Z), added in
    # float32 (settled as _settled does, written out: v >= 0)
    z = A[n]
    for b, e, s, i in zip(starts, ends, sc, ids):
        F[0] = A[b] + s
        F[0] = F[0] + B[e]
        F[0] = F[0] - z
        x = F[0]
        old = expected[i]
        v = old + freq * exp(x)
        eps = 16.0 * ulp(v) if v > 1.0 else _EPS1
        F[0] = v - eps
        lo = F[0]
        F[0] = v + eps
        expected[i] = lo if F[0] == lo else f32(old + freq * _exp(x))
    return z


def best_scores(nodes, n, sc):
    """``Lattice::Viterbi``'s forward pass: each node's backtrace score (the best path up to
    it, itself included, float32) and its best predecessor (-1: bos), the first best."""
    starts, ends, _, order = nodes
    ending = [[] for _ in range(n + 1)]
    for k in order:
        ending[ends[k]].append(k)
    bt = [0.0] * len(starts)
    prev = [-1] * len(starts)
    for k in range(len(starts)):  # (by start: every predecessor is done)
        lefts = ending[starts[k]]
        if not lefts:  # (the start: bos)
            bt[k] = sc[k]
            continue
        best, best_l = 0.0, None
        s = sc[k]
        for lk in lefts:
            v = f32(bt[lk] + s)
            if best_l is None or v > best:
                best, best_l = v, lk
        bt[k], prev[k] = best, best_l
    return bt, prev, ending


def viterbi(nodes, n, sc, with_score=False):
    """``Lattice::Viterbi``: the best path's node indices, left to right (and its score)."""
    if n == 0:
        return ([], 0.0) if with_score else []
    bt, prev, ending = best_scores(nodes, n, sc)
    best, k = 0.0, None
    for lk in ending[n]:  # (eos scores 0: its backtrace score is the best of these)
        v = f32(bt[lk] + 0.0)
        if k is None or v > best:
            best, k = v, lk
    path = []
    while k != -1:
        path.append(k)
        k = prev[k]
    path.reverse()
    return (path, best) if with_score else path


class _Agenda:
    """``std::priority_queue<Hypothesis*>`` by fx (libstdc++'s binary heap: push_heap and
    pop_heap, term for term, so equal estimates come out in spm's order)."""

    def __init__(self):
        self.c = []

    def push(self, h):
        self.c.append(h)
        self._sift_up(len(self.c) - 1, h)

    def _sift_up(self, hole, value):
        """``__push_heap``: ``value`` into ``hole``, moved up past smaller parents."""
        c = self.c
        parent = (hole - 1) // 2
        while hole > 0 and c[parent][0] < value[0]:
            c[hole] = c[parent]
            hole = parent
            parent = (hole - 1) // 2
        c[hole] = value

    def pop(self):
        c = self.c
        top = c[0]
        value = c.pop()
        n = len(c)
        if n == 0:
            return top
        # __adjust_heap(first, 0, n, value)
        hole, child = 0, 0
        while child < (n - 1) // 2:
            child = 2 * (child + 1)
            if c[child][0] < c[child - 1][0]:
                child -= 1
            c[hole] = c[child]
            hole = child
        if n % 2 == 0 and child == (n - 2) // 2:
            child = 2 * (child + 1)
            c[hole] = c[child - 1]
            hole = child - 1
        self._sift_up(hole, value)
        return top

    def __bool__(self):
        return bool(self.c)


def nbest2(nodes, n, sc):
    """``Lattice::NBest(2, false, 0)``: at most the two best paths (node indices, left to
    right), by A* from eos with Viterbi's backtrace scores as the estimate."""
    if n == 0:
        return [[]]
    starts = nodes[0]
    bt, _, ending = best_scores(nodes, n, sc)
    eos_bt = None
    for lk in ending[n]:
        if eos_bt is None or bt[lk] > eos_bt:
            eos_bt = bt[lk]
    # a hypothesis: (fx, gx, node, next); eos is node -2, bos node -1
    agenda = _Agenda()
    agenda.push((eos_bt, 0.0, -2, None))
    found = []
    while agenda:
        top = agenda.pop()
        node = top[2]
        if node == -1:
            path, nxt = [], top[3]
            while nxt[3] is not None:
                path.append(nxt[2])
                nxt = nxt[3]
            found.append(path)
            if len(found) == 2:
                break
            continue
        gx = top[1]
        pos = n if node == -2 else starts[node]
        if pos == 0:
            agenda.push((f32(0.0 + gx), f32(0.0 + gx), -1, top))
            continue
        for lk in ending[pos]:
            agenda.push((f32(bt[lk] + gx), f32(sc[lk] + gx), lk, top))
    return found


# -- the training (unigram_model_trainer.cc's Trainer) ----------------------------------------

class Training:
    """The seed pieces (``pieces``, by seed id), the live ones in spm's order (``order``:
    a piece's position there is its id in spm's trainer model), their float32 scores, and
    the words with their lattices."""

    def __init__(self, seed, words, freqs, max_len):
        self.pieces = [p for p, _ in seed]
        self.scores = [s for _, s in seed]
        self.index = {p: i + 1 for i, p in enumerate(self.pieces)}  # (hf_unigram's lattice: 0 is its unk)
        self.max_len = max(map(len, self.pieces), default=1)
        self.alive = [True] * (len(self.pieces) + 1)
        self.order = list(range(len(self.pieces)))
        self.words, self.freqs = words, [f32(f) for f in freqs]
        # each word's lattice of the live pieces (from every seed piece in it; then from the
        # lattice itself, as pieces die: ``set_order``)
        self.lats = [lattice(candidates(w, self.index, self.max_len), len(w), self.alive) for w in words]
        self._own = {}  # seed id -> the candidates in the piece's own text (pruning)
        self.shared = SharedSums(words)  # (the E-step's alphas and betas shared by prefix and suffix)
        self._piece_order = PieceOrder(self.pieces)  # (the snapshots' order)

    def own_lattice(self, i):
        """The lattice of piece ``i``'s own text under the live pieces."""
        cands = self._own.get(i)
        if cands is None:
            cands = self._own[i] = candidates(self.pieces[i], self.index, self.max_len)
        return lattice(cands, len(self.pieces[i]), self.alive)

    def size(self):
        return len(self.order)

    def node_scores(self):
        """Each seed piece's score, and the unknown node's (``[-1]``: min_score - 10)."""
        low = min(self.scores[i] for i in self.order)
        return self.scores + [f32(low - UNK_PENALTY)]

    def set_order(self, order):
        """``SetSentencePieces``: the live pieces, in this order; the lattices follow."""
        alive = [False] * (len(self.pieces) + 1)
        for i in order:
            alive[i + 1] = True
        died = {k - 1 for k, (a, b) in enumerate(zip(self.alive, alive)) if a and not b}  # (seed ids)
        self.alive, self.order = alive, order
        if died:  # (only the words where a piece died change: their live nodes, the lattice's less the dead)
            lats, words = self.lats, self.words
            for k, lat in enumerate(lats):
                if not died.isdisjoint(lat[2]):
                    lats[k] = lattice((lat[0], lat[1], list(map(_PLUS_ONE, lat[2]))), len(words[k]), alive)

    def e_step(self):
        """``RunEStep``: the expected count of each live piece (by seed id, float32), word by word."""
        scores = self.node_scores()
        unk = self.order[0]  # (spm's trainer model: the unknown node's id is 0, the first piece)
        expected = [0.0] * len(self.pieces)
        objective = 0.0
        shared = self.shared
        shared.start()
        for k, (lat, w, f) in enumerate(zip(self.lats, self.words, self.freqs)):
            A, B, last_new = shared.known(k)
            z = marginals(lat, len(w), scores, f, expected, unk, A, B, last_new)
            shared.learn(A, B)
            if z != z:
                raise ValueError("the likelihood of a word is NaN (spm_train stops here: 'likelihood is NAN')")
            objective += f * z
        shared.finish()
        return expected, objective

    def m_step(self, expected):
        """``RunMStep``: pieces expected less than 0.5 times go; the others score
        digamma(expected) - digamma(sum of the kept), float32."""
        kept, total = [], 0.0
        for i in self.order:
            x = expected[i]
            if x < EXPECTED_MIN:
                continue
            kept.append(i)
            total = f32(total + x)
        logsum = f32_digamma_minus(total, 0.0)
        for i in kept:
            self.scores[i] = f32_digamma_minus(expected[i], logsum)
        self.set_order(kept)

    def prune(self, desired, shrinking_factor):
        """``PruneSentencePieces``: returns the dropped pieces as ``[(seed id, loss)]``: those
        in no Viterbi path or split by their own best path (loss 0.0), then the least useful."""
        order, pieces = self.order, self.pieces
        scores = self.node_scores()
        # step 1: each piece's alternative: the second best path of the piece itself
        always_keep, alternatives = {}, {}
        for i in order:
            nodes = self.own_lattice(i)
            sc = [scores[j] for j in nodes[2]]
            best = nbest2(nodes, len(pieces[i]), sc)
            always_keep[i] = not (len(best) > 1 and len(best[0]) >= 2)
            if len(best) > 1 and len(best[0]) == 1:
                alternatives[i] = [self._spm_id(nodes[2][k]) for k in best[1]]
        # step 2: the Viterbi path of every word: how often each piece is used (float32)
        freq = [0.0] * len(pieces)
        for lat, w, f in zip(self.lats, self.words, self.freqs):
            sc = [scores[j] for j in lat[2]]
            for k in viterbi(lat, len(w), sc):
                j = self._spm_id(lat[2][k])
                freq[j] = f32(freq[j] + f)
        total = 0.0
        for i in order:  # (std::accumulate into a double, then a float)
            total += freq[i]
        total = f32(total)
        logsum = f32_log_minus(total, 0.0)
        # step 3: the loss of each piece if its uses went to its alternative
        kept, cands, free = [], [], []
        for pos, i in enumerate(order):
            fi = freq[i]
            if fi == 0.0 or not always_keep[i]:
                free.append(i)  # in no Viterbi path, or split by its own best path: goes
                continue
            alt = alternatives.get(i)
            if not alt:
                kept.append(i)  # no alternative: stays
                continue
            logprob_sp = f32_log_minus(fi, logsum)
            logsum_alt = f32_log_minus(f32(total + f32(fi * f32(float(len(alt) - 1)))), 0.0)
            logprob_alt = 0.0
            for j in alt:
                s = f32(freq[j] + fi)
                ls = math.log(s)
                v = logprob_alt + (ls - logsum_alt)
                r = _settled(v, _slack(ls, logsum_alt, v))
                logprob_alt = f32(logprob_alt + (_log(s) - logsum_alt)) if r is None else r
            share = f32(fi / total)
            cands.append((pos, i, f32(share * f32(logprob_sp - logprob_alt))))
        # step 4: keep the most useful down to the new size (Sorted: by loss, then by id)
        pruned_size = max(desired, int(f32(f32(shrinking_factor) * f32(float(len(order))))))
        cands.sort(key=lambda t: (-t[2], t[0]))
        new, dropped = list(kept), []
        for _pos, i, loss in cands:
            if len(new) == pruned_size:
                dropped.append((i, loss))
            else:
                new.append(i)
        self.set_order(new)
        return [(i, 0.0) for i in free] + dropped[::-1]

    def prune_unreachable(self):
        """``PruneUnreachableSentencePieces``: a piece goes when another path through its own
        text scores higher than the piece itself (Viterbi never picks it). Returns them."""
        scores = self.node_scores()
        kept, gone = [], []
        for i in self.order:
            nodes = self.own_lattice(i)
            n = len(self.pieces[i])
            sc = [scores[j] for j in nodes[2]]
            own = next((k for k in range(len(sc)) if nodes[2][k] == i and nodes[0][k] == 0 and nodes[1][k] == n), None)
            if own is None:
                gone.append(i)
                continue
            sc[own] = -math.inf  # (its own node taken out: the best other path)
            path, score = viterbi(nodes, n, sc, with_score=True)
            if path and score > scores[i]:
                gone.append(i)
            else:
                kept.append(i)
        if gone:
            self.set_order(kept)
        return gone

    def _spm_id(self, lattice_id):
        """A lattice node's piece (seed id); the unknown node's is piece 0 of the order."""
        return self.order[0] if lattice_id == -1 else lattice_id

    def snapshot(self, meta):
        """The vocabulary now for the player: reserved pieces first (score 0), then the live
        pieces by score, ties by piece."""
        return self._piece_order.snapshot(self.alive[1:], self.scores, meta)  # (alive[i + 1]: seed id i)


def finalize(training, required, room):
    """``FinalizeSentencePieces``: the required characters (a missing one scores just above
    the lowest score), then the pieces by score, ties by piece, until ``room`` pieces; sorted
    by score, then piece."""
    live = {training.pieces[i]: training.scores[i] for i in training.order}
    low = min(live.values())
    final, penalty = {}, 0.0
    for c in required:  # (by count, then character)
        if c in live:
            final[c] = live[c]
        else:
            final[c] = f32(low + penalty)
            penalty = f32(penalty + f32(MIN_SCORE_DELTA))
    for p, s in sorted(live.items(), key=lambda kv: (-kv[1], kv[0])):
        if p in final:
            continue
        if len(final) == room:
            break
        final[p] = s
    return sorted(final.items(), key=lambda kv: (-kv[1], kv[0]))


def train(sentences, freqs=None, *, unk_token="<unk>", special_tokens=("<s>", "</s>"), user_defined_symbols=(),
          byte_fallback=False, character_coverage=1.0, vocab_size, seed_size=1_000_000, max_piece_length=16,
          shrinking_factor=0.75, n_sub_iterations=2, split_digits=False):
    """Unigram as spm_train trains it on ``sentences`` (normalized, ▁ for spaces, in spm's
    order; ``freqs`` their frequencies, 1 each by default: a word-count list is spm's TSV
    input, a word a sentence with its count).
    Yields ``AlphabetReady``, an ``EmStep`` per EM iteration, a ``PruneStep`` per pruning
    round (and one for finalize when it changes the vocabulary); returns ``(model,
    special_ids, rounds)``: a ``Unigram`` with spm's pieces, ids and float32 scores.
    """
    from ..models.unigram import Unigram

    check_unigram_settings(shrinking_factor, n_sub_iterations, max_piece_length, seed_size)
    freqs = [1] * len(sentences) if freqs is None else list(freqs)
    if not unk_token:
        raise ValueError("SentencePiece's Unigram needs an unk_token (e.g. '<unk>')")
    meta = reserved_pieces(unk_token, special_tokens, user_defined_symbols, byte_fallback)
    # step 1: the required characters; the rarer ones become the unknown character
    counts = {}
    for s, f in zip(sentences, freqs):
        counts[s] = counts.get(s, 0) + f
    required = required_chars(counts, character_coverage)
    if len(required) + len(meta) > vocab_size:
        raise ValueError(f"vocab_size={vocab_size} is smaller than the reserved pieces and required characters "
                         f"({len(meta) + len(required)}); raise it or lower character_coverage (spm_train refuses too)")
    unknown = dict.fromkeys(map(ord, set().union(*sentences).difference(required)), UNK_CHAR)
    sentences = [s.translate(unknown) for s in sentences]
    # step 2: the seed, from the sentences
    yield Progress("seed", 0, 0)
    with no_cyclic_gc():  # (here and below: allocation-heavy work with no cycles, between the events)
        seed = seed_pieces(list(zip(sentences, freqs)), max_piece_length, seed_size, split_digits)
        # step 3: the words (the sentences split before each ▁), most frequent first, then by word
        tokens = {}
        for s, f in zip(sentences, freqs):
            for w in split_into_words(s):
                tokens[w] = tokens.get(w, 0) + f
        words = sorted(tokens, key=lambda w: (-tokens[w], w))
        training = Training(seed, words, [tokens[w] for w in words], max_piece_length)
    chars = [p for p, _ in seed if len(p) == 1]
    yield AlphabetReady(alphabet=meta + chars, vocab_size=len(meta) + len(seed), distinct_words=len(words),
                        pieces=training.snapshot(meta))
    # step 4: EM, then pruning (always), until the pieces are at most 1.1 x vocab_size
    desired = int(vocab_size * 1.1)
    rounds = rnd = 0
    while True:
        for it in range(n_sub_iterations):
            yield Progress("em", 0, 0)
            with no_cyclic_gc():
                expected, objective = training.e_step()
                training.m_step(expected)
            rounds += 1
            yield EmStep(round=rnd, iteration=it, log_likelihood=objective, vocab_size=len(meta) + training.size(),
                         pieces=training.snapshot(meta))
        yield Progress("prune", 0, 0)
        with no_cyclic_gc():
            dropped = training.prune(desired, shrinking_factor)
        rounds += 1
        yield PruneStep(round=rnd, dropped=[(training.pieces[i], loss) for i, loss in dropped],
                        vocab_size=len(meta) + training.size(), pieces=training.snapshot(meta))
        rnd += 1
        if training.size() <= desired:
            break
    with no_cyclic_gc():
        gone = training.prune_unreachable()
    if gone:
        rounds += 1
        yield PruneStep(round=rnd, dropped=[(training.pieces[i], 0.0) for i in gone],
                        vocab_size=len(meta) + training.size(), pieces=training.snapshot(meta))
        rnd += 1
    # step 5: finalize: the required characters, then the pieces by score
    final = finalize(training, list(required), vocab_size - len(meta))
    if [p for p, _ in final] != [p for p, _ in training.snapshot(())]:
        kept = {p for p, _ in final}
        yield Progress("prune", 0, 0)
        rounds += 1
        yield PruneStep(round=rnd, dropped=[(training.pieces[i], 0.0) for i in training.order
                                            if training.pieces[i] not in kept],
                        vocab_size=len(meta) + len(final), pieces=[(m, 0.0) for m in meta] + final)
    if len(meta) + len(final) < vocab_size:  # (spm_train's hard_vocab_limit)
        raise ValueError(f"vocab_size={vocab_size} is more than this corpus gives: spm_train stops with 'Vocabulary "
                         f"size too high ({vocab_size}). Please set it to a value <= {len(meta) + len(final)}'; use "
                         f"vocab_size={len(meta) + len(final)} or less")
    yield Progress("model", 0, 0)
    vocab = meta + [p for p, _ in final]
    if len(set(vocab)) != len(vocab):
        twice = next(p for p in vocab if vocab.count(p) > 1)
        raise ValueError(f"{twice!r} is both a reserved piece and a piece learned from the text; rename it")
    ids = {p: i for i, p in enumerate(vocab)}
    model = Unigram(vocab, [0.0] * len(meta) + [s for _, s in final], unk_id=0, byte_fallback=byte_fallback,
                    control_ids=[ids[s] for s in special_tokens if s != unk_token])
    return model, {s: ids[s] for s in special_tokens if s != unk_token}, rounds
