"""Unigram trained as the Hugging Face ``tokenizers`` library trains it (``rules="hf"``): a
step-by-step port of ``UnigramTrainer::do_train`` (tokenizers/src/models/unigram/trainer.rs,
lattice.rs and model.rs, 0.2x), with the same arithmetic in the same order, so the pieces
and their scores come out bit for bit as HF's (where HF itself is deterministic: below).

What makes it differ from the textbook trainer (``unigram.py``, SentencePiece's rules):

- the seed: every character (by weighted count, then character, both descending), then the
  substrings of 2 to ``max_piece_length`` characters that are nodes of the suffix tree of
  the *distinct* words joined with ``\\0`` (right-branching: followed by two different
  characters somewhere, the word's end counting as ``\\0``), each scored by how many
  times it occurs in the distinct words (not weighted by their counts) x its length;
  ties by substring, descending. No script or ▁ rule: any substring may be a piece;
- a training ``<UNK>`` piece (id 0, score NaN) is in the vocabulary throughout; a
  character no live piece covers becomes an unk node scored lowest score - 10;
- characters are not protected: the M-step drops any piece expected less than 0.5 times,
  characters too (``finalize`` adds them back);
- pruning: a piece's alternative is the second best of HF's 2-best A* search (its
  4-ary heap decides ties), a piece not in any best split goes unless it has no
  alternative, a piece with no alternative stays, and the loss renormalises with
  ``(len(pieces) - 1)`` where SentencePiece uses the alternative's length (HF's quirk);
  the kept pieces stay in id order, then the candidates by loss; the loop stops once the
  pieces (training unk included) are at most ``1.1 x vocab_size``;
- ``finalize``: the required characters (the corpus's and ``initial_alphabet``) first, a
  missing one scored the lowest score + 0.0001 x k; then the pieces **in vocabulary
  order** (not by score) until ``vocab_size`` (less the special tokens) is reached; then
  all sorted by score (stable) after the special tokens (score 0).

Bit-exactness: the exp and log are ``base.portable_math``'s (the same bits in CPython and in
the page, whose C library rounds some results of ``math.exp`` and ``math.log`` differently),
so scores agree with HF's to about 12 digits; given the C library's own ``math.exp`` and
``math.log``, as Rust's ``f64::exp`` and ``ln`` are (``exp`` and ``log`` of this module,
which the tests replace), the bits are HF's. Two things HF leaves to a randomly
seeded hash map, which this module fixes: the order of the words (the E-step adds every
word's expected counts in that order, and float addition is not associative: scores may
differ in the last bits from run to run of HF itself when a piece occurs in three words or
more; here the order of first appearance) and the order of the required characters (their
order among pieces of equal score, and which missing character gets which +0.0001 x k;
here by code point). ``word_order`` replays a given word order (a test).

>>> from subwordlab.base.events import drain
>>> model, specials, rounds = drain(train_hf_unigram({"▁hug": 5, "▁pug": 2, "▁hugs": 1}, vocab_size=8))
>>> model.vocab[:4], round(model.scores[1], 6)       # UnigramTrainer(vocab_size=8, unk_token="<unk>")
(['<unk>', '▁hug', '▁', 'p'], -0.828191)
"""

import math
from bisect import bisect_left, bisect_right

from ..base.events import AlphabetReady, EmStep, Progress, PruneStep
from ..base.gc_pause import no_cyclic_gc
from ..base.portable_math import exp, log  # (the same bits in every runtime; see above)
from .snapshot import PieceOrder
from .unigram_seed import check_unigram_settings, lcp_intervals

UNK_PENALTY = 10.0  # model.rs's K_UNK_PENALTY: an unk node scores min_score - 10
MIN_SCORE_DELTA = 0.0001  # finalize: a missing required character scores min_score + k x this
EXPECTED_MIN = 0.5  # run_m_step's expected_frequency_threshold
TRAINING_UNK = "<UNK>"  # the unk piece do_train trains with, whatever unk_token is
NAN = math.nan


def digamma(x):
    """trainer.rs's digamma, term for term. Example: digamma(1.0) ≈ -0.5772."""
    result = 0.0
    while x < 7.0:
        result -= 1.0 / x
        x += 1.0
    x -= 1.0 / 2.0
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += (log(x) + (1.0 / 24.0) * xx2 - 7.0 / 960.0 * xx4 + (31.0 / 8064.0) * xx4 * xx2
               - (127.0 / 30720.0) * xx4 * xx4)
    return result


# -- step 1: the seed -----------------------------------------------------------------------

def suffix_tree_substrings(words, max_len):
    """``[(substring, occurrences)]``: every substring of 2 to ``max_len`` characters that is
    an internal node of the suffix tree of the words joined with ``\\0`` (what esaxx gives
    trainer.rs): it occurs twice or more, followed by two different characters (a word's
    end is ``\\0``). Occurrences count in the distinct words, unweighted.

    How: every suffix of every word, ``\\0`` appended and cut after ``max_len + 1``
    characters, sorted; the lcp intervals (one pass with a stack) are the nodes.

    >>> sorted(suffix_tree_substrings(["▁hug", "▁pug", "▁hugs"], 4))
    [('hug', 2), ('ug', 3), ('▁hug', 2)]
    """
    # step 1: the suffixes, in buckets by their first two characters (no node of 2 characters
    # or more spans two buckets; a suffix whose second character is the end is none's)
    buckets = {}
    cut = max_len + 1
    for w in words:
        padded = w + "\0"
        for i in range(len(w) - 1):
            key = padded[i:i + cut]
            bucket = buckets.get(key[:2])
            if bucket is None:
                buckets[key[:2]] = [key]
            else:
                bucket.append(key)
    # step 2: per bucket, sorted: the lcp intervals of depth 2..max_len without a \0
    out = []
    for head in sorted(buckets):
        keys = buckets.pop(head)
        if len(keys) < 2:
            continue
        keys.sort()
        for depth, lb, end in lcp_intervals(keys):
            x = keys[lb][:depth]
            if depth <= max_len and "\0" not in x:
                out.append((x, end - lb))
    return out


def seed_pieces(words, freqs, max_piece_length, seed_size):
    """``make_seed_sentence_pieces``: ``[(piece, raw score)]``, the characters (by weighted
    count, then character, descending) then the suffix-tree substrings (by occurrences x
    length, then substring, descending), at most ``seed_size`` in all (but every
    character, and at least one substring).

    >>> seed_pieces(["▁ab", "▁b"], [2, 1], 16, 100)
    [('▁', 3), ('b', 3), ('a', 2)]
    """
    chars = {}
    for w, n in zip(words, freqs):
        for c in w:
            chars[c] = chars.get(c, 0) + n
    chars.pop("\0", None)  # (the sentence boundary is never a piece: an unk node; finalize adds it)
    seed = sorted(((n, c) for c, n in chars.items()), reverse=True)
    pieces = [(c, n) for n, c in seed]
    subs = [(k * len(s), s) for s, k in suffix_tree_substrings(words, max_piece_length)]
    subs.sort(reverse=True)
    for score, s in subs:
        pieces.append((s, score))
        if len(pieces) >= seed_size:
            break
    return pieces


# -- the words' lattices ----------------------------------------------------------------------

def candidates(text, index, max_len):
    """Every seed piece in ``text`` as HF's ``populate_nodes`` inserts them: by start, then
    length: ``(starts, ends, ids)``. ``index``: piece -> id."""
    starts, ends, ids = [], [], []
    n = len(text)
    for b in range(n):
        for e in range(b + 1, min(n, b + max_len) + 1):
            i = index.get(text[b:e])
            if i is not None:
                starts.append(b)
                ends.append(e)
                ids.append(i)
    return starts, ends, ids


def live_nodes(cand, alive, n):
    """The nodes of ``cand`` (the nodes ``(starts, ends, ids, ...)`` of a text of ``n``
    characters, in HF's insertion order) whose pieces are alive: ``(starts, ends, ids, by
    end)``; where no live piece of one character starts, an unk node (id 0, scored when
    used) after that start's pieces, as ``populate_nodes`` inserts it."""
    starts, ends, ids = [], [], []
    pos, covered = 0, False  # (the start being filled, and whether a one-character node starts there)
    for b, e, i in zip(cand[0], cand[1], cand[2]):
        while pos < b:  # (past a start: its unk node if needed; a start without candidates too)
            if not covered:
                starts.append(pos), ends.append(pos + 1), ids.append(0)
            pos, covered = pos + 1, False
        if alive[i]:
            starts.append(b), ends.append(e), ids.append(i)
            if e == b + 1:
                covered = True
    while pos < n:
        if not covered:
            starts.append(pos), ends.append(pos + 1), ids.append(0)
        pos, covered = pos + 1, False
    return starts, ends, ids, by_end(starts, ends)


def by_end(starts, ends):
    """The node indices in ``end_nodes`` order: by end, then start."""
    return sorted(range(len(starts)), key=ends.__getitem__)


class SharedSums:
    """Which forward and backward sums a word shares with the words before it.

    Alpha at a position depends only on the text before it (the nodes ending there, in
    start order, and the alphas where they start), beta only on the text after it: words
    with a common prefix have the same alphas along it, bit for bit, and words with a
    common suffix the same betas. So an E-step computes each prefix's alpha and each
    suffix's beta once, in the first word that has it (the words go in a fixed order), and
    the later words copy them: half the log-sum-exps on Shakespeare.

    ``sources[k]``, for word k: ``(j, m, j2, at, last_new)``: its alphas at positions
    0..m - 1 are word j's (j = -1: m is 1, alpha 0.0 at 0); its betas after position
    ``last_new`` are word j2's from position ``at`` on (j2 = -1: beta 0.0 at n only).

    >>> SharedSums(["ab", "abc", "bc"]).sources
    [(-1, 1, -1, 0, 1), (0, 3, -1, 0, 2), (-1, 1, 1, 1, -1)]
    """

    def __init__(self, words):
        # the prefixes and suffixes seen, numbered (0: the empty one) by (the number of the
        # one a character shorter, that character); the word that first had each, and where
        # in it the suffix starts
        prefixes, prefix_word = {}, [-1]
        suffixes, suffix_word, suffix_at = {}, [-1], [0]
        self.sources = []
        for k, w in enumerate(words):
            n = len(w)
            # the longest known prefix w[:e] (a prefix of a known one is known), then the new ones
            i = e = 0
            while e < n and (i, w[e]) in prefixes:
                i, e = prefixes[i, w[e]], e + 1
            j, m = prefix_word[i], e + 1
            for e_new in range(e, n):
                prefixes[i, w[e_new]] = i = len(prefix_word)  # (the key with the shorter one's number)
                prefix_word.append(k)
            # the longest known suffix w[b:], from the end, then the new ones
            i, b = 0, n
            while b > 0 and (i, w[b - 1]) in suffixes:
                i, b = suffixes[i, w[b - 1]], b - 1
            j2, at = suffix_word[i], suffix_at[i]
            for b_new in range(b - 1, -1, -1):
                suffixes[i, w[b_new]] = i = len(suffix_word)
                suffix_word.append(k)
                suffix_at.append(b_new)
            self.sources.append((j, m, j2, at, b - 1))

    def start(self):
        """A new E-step: no word's sums known yet."""
        self.alphas, self.betas = [], []

    def known(self, k):
        """Word k's known alphas (positions 0, 1, ...), its betas (the known last ones, the
        others 0.0 for now), and its last position without a known beta."""
        j, m, j2, at, last_new = self.sources[k]
        return (self.alphas[j][:m] if j >= 0 else [0.0],
                [0.0] * (last_new + 1) + (self.betas[j2][at:] if j2 >= 0 else [0.0]), last_new)

    def learn(self, A, B):
        """The next word's alphas and betas (all of them), for the words after it."""
        self.alphas.append(A)
        self.betas.append(B)

    def finish(self):
        """The E-step is over: its sums go (two lists a word, else alive until the next)."""
        self.alphas = self.betas = []


def marginals(nodes, n, f, expected, A=None, B=None, last_new=None):
    """``Lattice::populate_marginal``: adds ``f`` x each node's posterior to ``expected`` (by
    piece id); returns log Z. Alpha and beta in log space with HF's log_sum_exp (an addend
    more than 50 below the other is dropped), in HF's node order. ``A``: the alphas known
    already (positions 0..len(A) - 1), completed here; ``B``: the betas, known at the
    positions after ``last_new`` (``SharedSums``), completed here; by default only A[0] and
    B[n] are known (0.0)."""
    starts, ends, sc, ids, order = nodes
    if A is None:
        A, B, last_new = [0.0], [0.0] * (n + 1), n - 1
    # alpha: A[pos], the log-sum over the nodes ending at pos (every node starting at pos
    # gets the same alpha in HF's double loop), from the first position not known
    e0 = len(A)
    A.extend([0.0] * (n + 1 - e0))
    cur, acc = -1, 0.0
    for k in order[bisect_left(order, e0, key=ends.__getitem__):]:
        e = ends[k]
        if e != cur:
            if cur >= 0:
                A[cur] = acc  # (all the nodes ending at cur are in)
            cur, acc = e, sc[k] + A[starts[k]]  # (the first node: init mode)
        else:
            y = sc[k] + A[starts[k]]
            if acc > y:
                vmin, vmax = y, acc
            else:
                vmin, vmax = acc, y
            acc = vmax if vmax > vmin + 50.0 else vmax + log(exp(vmin - vmax) + 1.0)
    if cur >= 0:
        A[cur] = acc
    # beta: B[pos], the log-sum over the nodes starting at pos, in insertion order, for the
    # positions up to the last not known
    k = bisect_right(starts, last_new)
    while k > 0:
        b = starts[k - 1]
        j = k - 1
        while j > 0 and starts[j - 1] == b:
            j -= 1
        acc = sc[j] + B[ends[j]]
        for t in range(j + 1, k):
            y = sc[t] + B[ends[t]]
            if acc > y:
                vmin, vmax = y, acc
            else:
                vmin, vmax = acc, y
            acc = vmax if vmax > vmin + 50.0 else vmax + log(exp(vmin - vmax) + 1.0)
        B[b] = acc
        k = j
    # each node's expected count, f x exp(alpha + score + beta - Z)
    z = A[n]
    for b, e, s, i in zip(starts, ends, sc, ids):
        expected[i] += f * exp(A[b] + s + B[e] - z)
    return z


def _best_scores(nodes, n):
    """Viterbi's forward pass: ``M[pos]``, the best score of a path up to ``pos``;
    ``bt[k]``, the best score of a path ending with node k (the best up to its start + its
    own); ``group[pos]``, the nodes ending at ``pos`` in HF's node order."""
    starts, ends, sc, _, order = nodes
    M = [0.0] * (n + 1)
    bt = [0.0] * len(starts)
    group = {}
    cur = -1
    for k in order:
        e = ends[k]
        v = bt[k] = M[starts[k]] + sc[k]
        if e != cur:
            cur = e
            M[e] = v
            group[e] = [k]
        else:
            group[e].append(k)
            if v > M[e]:
                M[e] = v
    return M, bt, group


def viterbi(nodes, n):
    """``Lattice::viterbi``: the best path's node indices, left to right. A node's best
    predecessor is the first (by start) whose score + the node's is highest."""
    starts, ends, sc, _, order = nodes
    M, bt, group = _best_scores(nodes, n)
    # the path, from the end: each node's predecessor is the first node (by start) ending
    # where it starts whose best score + its score is its best score (eos scores 0)
    path = []
    if n == 0:
        return path
    k = next(j for j in group[n] if bt[j] == M[n])
    while True:
        path.append(k)
        b = starts[k]
        if b == 0:
            break
        s, t = sc[k], bt[k]
        k = next(j for j in group[b] if bt[j] + s == t)
    path.reverse()
    return path


# -- HF's 2-best search (a piece's alternative) ------------------------------------------------

def _le(a, b):
    """``a <= b`` for HF's ``Hypothesis`` (ordered by fx; never equal: ``a.fx < b.fx``)."""
    return a[0] < b[0]


def _sift_up(heap, start, pos):
    """dary_heap's ``sift_up`` (4 children a node)."""
    elem = heap[pos]
    while pos > start:
        parent = (pos - 1) >> 2
        if elem[0] < heap[parent][0]:  # (elem <= parent)
            break
        heap[pos] = heap[parent]
        pos = parent
    heap[pos] = elem


def _push(heap, item):
    heap.append(item)
    _sift_up(heap, 0, len(heap) - 1)


def _pop(heap):
    """dary_heap's ``pop``: the last item to the root, down to the bottom along the greatest
    children, then up."""
    item = heap.pop()
    if not heap:
        return item
    item, heap[0] = heap[0], item
    end = len(heap)
    elem = heap[0]
    pos, child = 0, 1
    while child <= end - 4:
        # max_sibling for 4: the greater of each two, then of those (later wins ties)
        a = child + 1 if heap[child][0] < heap[child + 1][0] else child
        b = child + 3 if heap[child + 2][0] < heap[child + 3][0] else child + 2
        child = b if heap[a][0] < heap[b][0] else a
        heap[pos] = heap[child]
        pos = child
        child = 4 * pos + 1
    # max_sibling_to: the last greatest of the remaining children
    best = child
    for other in range(child + 1, end):
        if heap[best][0] < heap[other][0]:
            best = other
    if best < end:
        heap[pos] = heap[best]
        pos = best
    heap[pos] = elem
    _sift_up(heap, 0, pos)
    return item


def nbest2(nodes, n):
    """``Lattice::nbest(2)``: at most the two best paths, each as node indices left to right,
    in HF's A* order (its 4-ary heap breaks ties between equal estimates)."""
    starts, ends, sc, _, order = nodes
    # step 1: viterbi's backtrace scores: the best path score up to each node, itself included
    M, bt, group = _best_scores(nodes, n)
    group[0] = [-1]  # (-1: bos, backtrace score 0, score 0)
    # step 2: A* from the end: a hypothesis is (fx, gx, node, next hypothesis); eos is node -2
    heap = [(0.0, 0.0, -2, None)]
    found = []
    while heap:
        top = _pop(heap)
        node = top[2]
        if node == -1:  # bos: a whole path
            path, nxt = [], top[3]
            while nxt[3] is not None:
                path.append(nxt[2])
                nxt = nxt[3]
            found.append(path)
            if len(found) == 2:
                return found
            continue
        gx = top[1]
        for k in group[n if node == -2 else starts[node]]:
            if k == -1:
                _push(heap, (0.0 + gx, 0.0 + gx, -1, top))
            else:
                _push(heap, (bt[k] + gx, sc[k] + gx, k, top))
    return found


# -- step 2: EM ----------------------------------------------------------------------------------

class Training:
    """The state of a training: every seed piece (``pieces[0]`` is the training unk), the
    live ones in HF's vocabulary order (``order``), their scores, and the words with their
    lattices' candidates."""

    def __init__(self, seed, words, freqs, max_len):
        self.pieces = [TRAINING_UNK] + [p for p, _ in seed]
        self.index = {p: i for i, p in enumerate(self.pieces)}
        self.max_len = max(map(len, self.pieces[1:]), default=1)
        # to_log_prob: log(raw) - log(sum of raws) (a sum in order)
        total = 0.0
        for _, raw in seed:
            total += float(raw)
        logsum = log(total)
        self.scores = [NAN] + [log(float(raw)) - logsum for _, raw in seed]
        self.alive = [True] * len(self.pieces)
        self.order = list(range(len(self.pieces)))
        self.words, self.freqs = words, freqs
        # each word's lattice under the live pieces (kept up to date as pieces die: ``compact``)
        self.lats = [live_nodes(candidates(w, self.index, self.max_len), self.alive, len(w)) for w in words]
        self._own = {}  # piece id -> the lattice of the piece itself (pruning's alternatives)
        self.shared = SharedSums(words)  # (the E-step's alphas and betas shared by prefix and suffix)
        self._piece_order = PieceOrder(self.pieces, skip=[0])  # (the snapshots' order; never the training unk)

    def size(self):
        """How many pieces HF's vocabulary holds now (the training unk included)."""
        return len(self.order)

    def min_score(self):
        """``Unigram::from``'s min_score: the lowest score (NaN, the unk's, never counts)."""
        low = math.inf
        scores = self.scores
        for i in self.order:
            s = scores[i]
            if s < low:
                low = s
        return low

    def compact(self):
        """Drop the dead pieces' nodes from the words' lattices (a dead piece never returns)."""
        alive, lats, words = self.alive, self.lats, self.words
        for k, lat in enumerate(lats):
            if not all(map(alive.__getitem__, lat[2])):
                lats[k] = live_nodes(lat, alive, len(words[k]))

    def scored(self, lat, scores):
        """A lattice with its nodes' scores (``scores[0]``: the unk nodes')."""
        return lat[0], lat[1], list(map(scores.__getitem__, lat[2])), lat[2], lat[3]

    def unk_scores(self):
        """The scores with the unk nodes' in place of the unk piece's NaN: lowest - 10."""
        scores = self.scores[:]
        scores[0] = self.min_score() - UNK_PENALTY
        return scores

    def e_step(self):
        """``run_e_step``: every piece's expected count (by piece id) over all words, word by
        word in order; and the corpus log-likelihood sum of f x log Z."""
        expected = [0.0] * len(self.pieces)
        scores = self.unk_scores()
        loglik = 0.0
        shared = self.shared
        shared.start()
        for k, (lat, w, f) in enumerate(zip(self.lats, self.words, self.freqs)):
            A, B, last_new = shared.known(k)
            z = marginals(self.scored(lat, scores), len(w), float(f), expected, A, B, last_new)
            shared.learn(A, B)
            if z != z:
                raise ValueError("the likelihood of a word is NaN (HF panics here: 'likelihood is NAN')")
            loglik += f * z
        shared.finish()
        return expected, loglik

    def m_step(self, expected):
        """``run_m_step``: pieces expected less than 0.5 times go (characters too; never the
        unk); the others score digamma(expected) - digamma(sum of the kept). Returns how
        many went."""
        kept, total = [0], 0.0
        for i in self.order[1:]:
            x = expected[i]
            if x < EXPECTED_MIN:
                self.alive[i] = False
                continue
            kept.append(i)
            total += x
        logsum = digamma(total)
        for i in kept[1:]:
            self.scores[i] = digamma(expected[i]) - logsum
        died = len(self.order) - len(kept)
        self.order = kept
        if died:
            self.compact()
        return died

    # -- step 3: pruning --------------------------------------------------------------------

    def own_lattice(self, i):
        """The lattice of piece ``i``'s own text under the live pieces."""
        lat, n = self._own.get(i), len(self.pieces[i])
        if lat is None:
            lat = live_nodes(candidates(self.pieces[i], self.index, self.max_len), self.alive, n)
        elif not all(map(self.alive.__getitem__, lat[2])):
            lat = live_nodes(lat, self.alive, n)
        self._own[i] = lat
        return lat

    def prune(self, vocab_size, shrinking_factor):
        """``prune_sentence_pieces``: returns the dropped pieces as ``[(id, loss)]``, those that
        go at no cost first (loss 0.0, in vocabulary order), then the least useful first."""
        order, pieces, alive = self.order, self.pieces, self.alive
        scores = self.unk_scores()
        # step 1: each piece's alternative: the second best split of the piece itself
        always_keep, alternatives = {}, {}
        for i in order[1:]:
            p = pieces[i]
            if len(p) == 1:
                always_keep[i] = True  # (one path: nbest gives one)
                continue
            nodes = self.scored(self.own_lattice(i), scores)
            best = nbest2(nodes, len(p))
            if len(best) == 1:
                always_keep[i] = True
            elif len(best[0]) >= 2:
                always_keep[i] = False
            else:
                always_keep[i] = True
                alternatives[i] = [nodes[3][k] for k in best[1]]
        # step 2: the best split of every word: how often each piece is used
        freq = [0.0] * len(pieces)
        vsum = 0.0
        for lat, w, f in zip(self.lats, self.words, self.freqs):
            ids = lat[2]
            vsum += f
            for j in viterbi(self.scored(lat, scores), len(w)):
                freq[ids[j]] += f
        total = 0.0
        for i in order:
            total += freq[i]
        logsum = log(total)
        # step 3: the loss of each piece if its uses became its alternative
        kept, cands, free = [0], [], []
        n_alt = len(order) - 1  # (HF's quirk: the length of the whole alternatives table)
        for i in order[1:]:
            fi = freq[i]
            alt = alternatives.get(i)
            if fi == 0.0 and not always_keep[i]:
                free.append(i)  # in no best split: goes at no cost
            elif alt is None:
                kept.append(i)  # no alternative: stays
            elif fi == 0.0:
                free.append(i)
            else:
                logprob_sp = log(fi) - logsum
                logsum_alt = log(total + fi * n_alt)
                logprob_alt = 0.0
                for j in alt:
                    logprob_alt += log(freq[j] + fi) - logsum_alt
                cands.append((i, (fi / vsum) * (logprob_sp - logprob_alt)))
        # step 4: the most useful candidates fill the vocabulary up to its new size
        desired = vocab_size * 11 // 10
        pruned_size = max(desired, int(len(order) * shrinking_factor))
        cands.sort(key=lambda t: t[1], reverse=True)  # (stable: ties keep id order)
        cut = len(cands)
        for at in range(len(cands)):
            if len(kept) == pruned_size:
                cut = at
                break
            kept.append(cands[at][0])
        dropped = cands[cut:]
        for i in free:
            alive[i] = False
        for i, _ in dropped:
            alive[i] = False
        self.order = kept
        self.compact()
        for i in free:
            self._own.pop(i, None)
        for i, _ in dropped:
            self._own.pop(i, None)
        return [(i, 0.0) for i in free] + dropped[::-1]

    def snapshot(self, meta):
        """The vocabulary now for the player: reserved pieces first (score 0), then the live
        pieces by score, ties by piece."""
        return self._piece_order.snapshot(self.alive, self.scores, meta)


# -- step 4: finalize -------------------------------------------------------------------------

def finalize(training, required, specials, unk_token, vocab_size):
    """``UnigramTrainer::finalize``: ``[(piece, score)]``, the final vocabulary: the special
    tokens (the unk first when they lack it) at 0.0, then the required characters and
    the pieces in vocabulary order up to ``vocab_size``, sorted by score (stable).
    Also returns the live pieces it left out."""
    # step 1: the required characters first; a missing one scores just above the lowest score
    low = training.min_score()
    existing = {training.pieces[i]: training.scores[i] for i in training.order}
    pieces, inserted, penalty = [], {TRAINING_UNK}, 0.0
    for c in required:
        if c in existing:
            pieces.append((c, existing[c]))
        else:
            pieces.append((c, low + penalty))
            penalty += MIN_SCORE_DELTA
        inserted.add(c)
    # step 2: the pieces in vocabulary order (not by score) until the size is reached
    need_unk = unk_token is not None and unk_token not in specials
    room = vocab_size - len(specials) - (1 if need_unk else 0)
    left_out = []
    at = 0
    order = training.order
    while at < len(order):
        i = order[at]
        at += 1
        p = training.pieces[i]
        if p in inserted:
            continue
        inserted.add(p)
        s = training.scores[i]
        pieces.append((p, 0.0 if s != s else s))
        if len(pieces) == room:
            break
    left_out = [i for i in order[at:] if training.pieces[i] not in inserted]
    # step 3: by score, stable; the special tokens before them
    pieces.sort(key=lambda t: t[1], reverse=True)
    head = [(t, 0.0) for t in specials]
    if need_unk:
        head.insert(0, (unk_token, 0.0))
    return head + pieces, left_out


# -- the whole training ------------------------------------------------------------------------

def train_hf_unigram(counts, *, vocab_size, unk_token="<unk>", special_tokens=(), initial_alphabet="",
                     seed_size=1_000_000, max_piece_length=16, shrinking_factor=0.75, n_sub_iterations=2,
                     word_order=None):
    """Unigram as ``UnigramTrainer(vocab_size, special_tokens, unk_token, initial_alphabet,
    shrinking_factor, max_piece_length, n_sub_iterations)`` trains it on the words
    ``counts`` (``{word: count}``, ▁ included). Yields ``AlphabetReady``, an ``EmStep`` per EM
    iteration and a ``PruneStep`` per pruning round (and a last one when ``finalize``
    leaves pieces out or puts characters back); returns ``(model, special_ids, rounds)``: an ``HFUnigram`` whose vocabulary is
    HF's, id for id. ``vocab_size`` counts the special tokens; ``unk_token`` None: a model
    without one (as HF's). ``word_order``: the words in the order HF's hash map gave them.
    """
    from ..models.hf_unigram import HFUnigram

    check_unigram_settings(shrinking_factor, n_sub_iterations, max_piece_length, seed_size, who="HF")
    specials = list(dict.fromkeys(special_tokens))
    meta = ([unk_token] if unk_token is not None and unk_token not in specials else []) + specials
    words = list(word_order) if word_order is not None else list(counts)
    if sorted(words) != sorted(counts):
        raise ValueError("word_order must list every word of the counts once")
    freqs = [counts[w] for w in words]
    if any(TRAINING_UNK in w for w in words):
        raise ValueError(f"a word contains {TRAINING_UNK!r}, the piece HF's UnigramTrainer trains with as its unknown "
                         "piece (its score is NaN: HF fails with 'likelihood is NAN'); remove it from the text or "
                         "train with rules='textbook'")

    # step 1: the seed: characters, then the frequent suffix-tree substrings; the training
    # unk first; the required characters
    yield Progress("seed", 0, 0)
    with no_cyclic_gc():  # (here and below: allocation-heavy work with no cycles, between the events)
        seed = seed_pieces(words, freqs, max_piece_length, seed_size)
        training = Training(seed, words, freqs, max_piece_length)
    chars = [p for p, _ in seed if len(p) == 1]
    required = sorted(set("".join(words)) | set(initial_alphabet or ""))  # (HF: hash order)
    if len(required) > vocab_size:
        raise ValueError(f"vocab_size={vocab_size} cannot hold the {len(required)} characters of the corpus"
                         f"{' and initial_alphabet' if initial_alphabet else ''} (HF's UnigramTrainer fails: 'The "
                         f"vocabulary is not large enough to contain all chars'); use at least "
                         f"{len(required) + len(meta)}")
    yield AlphabetReady(alphabet=meta + chars, vocab_size=len(meta) + len(seed), distinct_words=len(counts),
                        pieces=training.snapshot(meta))

    desired = vocab_size * 11 // 10
    rounds = rnd = 0
    while True:
        # step 2: EM, n_sub_iterations times
        for it in range(n_sub_iterations):
            yield Progress("em", 0, 0)
            with no_cyclic_gc():
                expected, loglik = training.e_step()
                training.m_step(expected)
            rounds += 1
            yield EmStep(round=rnd, iteration=it, log_likelihood=loglik, vocab_size=len(meta) + training.size() - 1,
                         pieces=training.snapshot(meta))
        # (stop once the vocabulary, the training unk included, is at most 1.1 x vocab_size)
        if training.size() <= desired:
            break
        # step 3: prune down to a shrinking_factor share (not below 1.1 x vocab_size)
        yield Progress("prune", 0, 0)
        with no_cyclic_gc():
            dropped = training.prune(vocab_size, shrinking_factor)
        if not dropped:
            # (HF's loop has no other way out: it would run on and on, EM after EM)
            need = next(v for v in range(vocab_size, 10 * training.size() + 10) if v * 11 // 10 >= training.size())
            raise ValueError(f"a pruning round removed nothing: the {training.size() - 1} pieces it never removes (every "
                             f"character, and pieces with no alternative) are more than 1.1 x vocab_size={vocab_size} "
                             f"allows, so HF's UnigramTrainer would never stop; use vocab_size={need} or more")
        rounds += 1
        yield PruneStep(round=rnd, dropped=[(training.pieces[i], loss) for i, loss in dropped],
                        vocab_size=len(meta) + training.size() - 1, pieces=training.snapshot(meta))
        rnd += 1

    # step 4: finalize: required characters, the pieces in vocabulary order up to the size
    final, left_out = finalize(training, required, specials, unk_token, vocab_size)
    if left_out or final != training.snapshot(meta):  # (a last step shows the model's vocabulary as it is)
        yield Progress("prune", 0, 0)
        for i in left_out:
            training.alive[i] = False
        rounds += 1
        yield PruneStep(round=rnd, dropped=[(training.pieces[i], 0.0) for i in reversed(left_out)],
                        vocab_size=len(final), pieces=final)
    yield Progress("model", 0, 0)
    vocab = [p for p, _ in final]
    if len(set(vocab)) != len(vocab):
        twice = next(p for p in vocab if vocab.count(p) > 1)
        raise ValueError(f"{twice!r} is both a special token and a piece learned from the text (HF's vocabulary would "
                         "list it twice); rename the special token")
    ids = {p: i for i, p in enumerate(vocab)}
    model = HFUnigram(vocab, [s for _, s in final], unk_id=ids[unk_token] if unk_token is not None else None)
    return model, {s: ids[s] for s in specials}, rounds
