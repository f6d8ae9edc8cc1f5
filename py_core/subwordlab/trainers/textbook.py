"""The textbook trainers: BPE, WordPiece and Unigram as the papers and minbpe write them.

Each step recounts every pair of every word from scratch, picks the best one and rewrites
every word: a few lines each, easy to check by eye, and slow (a full pass over the corpus
per merge). They are the *reference*: the fast trainers (``bpe.py``, ``wordpiece.py``,
with their incremental ``PairIndex`` and heaps) are property-tested against them on
generated corpora (tests/unit/test_textbook.py), and bench/bench_bpe.py times them.
``unigram`` (seed -> EM -> prune -> finish) is the reference for trainers/unigram.py, its
lattices rebuilt from scratch for every word at every step (tests/unit/test_textbook_unigram.py).

Words are ``{word: count}`` in order of first appearance. Ties (``tie_break``) go to the
pair met first scanning the words in that order, each left to right (``"first"``), or
to the smallest or largest pair of strings (``"lex_min"``, ``"lex_max"``).

>>> [(pair, n) for pair, n, _ in bpe({"low": 5, "lower": 2, "newest": 6}, 3, end_of_word="</w>")]
[(('w', 'e'), 8), (('l', 'o'), 7), (('n', 'e'), 6)]
>>> [(pair, new) for pair, _, new in wordpiece({"hug": 10, "pug": 5, "hugs": 5}, 2)]
[(('h', '##u'), 'hu'), (('p', '##u'), 'pu')]
"""

import math

from ..base.portable_math import exp as portable_exp
from ..base.portable_math import log as portable_log


def best_pair(key, tie_break="first"):
    """The pair with the highest ``key[pair]``; equals by ``tie_break``. ``key`` is in
    order of first encounter. Example: {('a','b'): 2, ('b','c'): 2} -> ('a', 'b')."""
    top = max(key.values())
    tied = [pair for pair, k in key.items() if k == top]
    return {"first": tied[0], "lex_min": min(tied), "lex_max": max(tied)}[tie_break]


def ranked_pairs(key, tie_break="first"):
    """Every pair of ``key`` best first (what a step's candidates list): the highest
    ``key[pair]`` first, equals by ``tie_break`` as in ``best_pair``.
    Example: {('b','c'): 1, ('a','b'): 2, ('c','d'): 2} -> [('a','b'), ('c','d'), ('b','c')]."""
    ranked = list(key)  # (in order of first encounter)
    if tie_break != "first":
        ranked.sort(reverse=tie_break == "lex_max")
    ranked.sort(key=key.__getitem__, reverse=True)  # (stable: equals keep the order above)
    return ranked


def count_units_and_pairs(words):
    """Every unit's and every adjacent pair's count in ``[(symbols, count), ...]``, weighted
    by word counts, in order of first encounter.
    Example: [(['a', 'b'], 2)] -> ({'a': 2, 'b': 2}, {('a', 'b'): 2})."""
    units, pairs = {}, {}
    for symbols, n in words:
        for s in symbols:
            units[s] = units.get(s, 0) + n
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] = pairs.get(pair, 0) + n
    return units, pairs


def merge_pair(symbols, pair, new):
    """``symbols`` with every occurrence of ``pair`` (left to right, no overlaps) replaced
    by ``new``. Example: (a, b, a, b), (a, b), ab -> [ab, ab]."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def bpe(counts, num_merges, end_of_word=None, tie_break="first"):
    """Character-level BPE, full recount: ``[(pair, count, new_token), ...]`` in merge order."""
    # step 1: every word as characters (plus the end-of-word marker as its own symbol)
    words = [(list(w) + ([end_of_word] if end_of_word else []), n) for w, n in counts.items()]
    merges = []
    for _ in range(num_merges):
        # step 2: count every adjacent pair, weighted by word counts
        _, pairs = count_units_and_pairs(words)
        if not pairs:
            break
        # step 3: the most frequent pair becomes a token
        best = best_pair(pairs, tie_break)
        new = best[0] + best[1]
        merges.append((best, pairs[best], new))
        # step 4: merge it in every word
        words = [(merge_pair(symbols, best, new), n) for symbols, n in words]
    return merges


def wordpiece(counts, num_merges, prefix="##", tie_break="first", scoring="likelihood"):
    """WordPiece by score, full recount: ``[(pair, count, new_token), ...]`` in merge order.

    score(a, b) = count(ab) / (count(a) * count(b)), compared exactly (as fractions);
    ``scoring="frequency"`` (HF tokenizers' trainer): score(a, b) = count(ab), as in BPE.
    """
    # step 1: every word as its first character and ##-prefixed continuing characters
    words = [([w[0]] + [prefix + c for c in w[1:]], n) for w, n in counts.items()]
    merges = []
    for _ in range(num_merges):
        # step 2: count every unit and every adjacent pair, weighted by word counts
        units, pairs = count_units_and_pairs(words)
        if not pairs:
            break
        # step 3: the pair with the highest score (or the highest count)
        if scoring == "frequency":
            best = best_pair(pairs, tie_break)
        else:
            # (imported here: the page starts ~25 ms sooner without compiling `fractions`)
            from fractions import Fraction

            best = best_pair({p: Fraction(c, units[p[0]] * units[p[1]]) for p, c in pairs.items()}, tie_break)
        # step 4: a + ##b -> ab, ##a + ##b -> ##ab; merge it in every word
        new = best[0] + best[1][len(prefix):]
        merges.append((best, pairs[best], new))
        words = [(merge_pair(symbols, best, new), n) for symbols, n in words]
    return merges


# -- Unigram ------------------------------------------------------------------------------
# seed -> EM -> prune -> finish, as trainers/unigram.py computes it (Kudo 2018, SentencePiece),
# with none of its machinery: no suffix array (every substring is counted), no shared units
# (every word has its own lattice, rebuilt from the live pieces each time), no slices.


def word_edges(word, live, max_len):
    """Every ``(start, end, piece)`` of ``word`` whose text is a live piece, by start, then end.
    Example: ('abc', {'a', 'b', 'c', 'ab'}, 16) -> [(0,1,'a'), (0,2,'ab'), (1,2,'b'), (2,3,'c')]."""
    return [(s, e, word[s:e]) for s in range(len(word)) for e in range(s + 1, min(len(word), s + max_len) + 1)
            if word[s:e] in live]


def seed_substrings(counts, max_len):
    """``{substring: weighted count}`` of the substrings of 2..max_len characters that are
    nodes of the words' suffix tree (cut at max_len): seen at least twice (counting word
    counts), and either some occurrence ends its word (or is max_len long) or two occurrences
    continue with different characters. Example: {'▁hug': 1, '▁pug': 1} -> {'ug': 2}."""
    count, ends, nexts = {}, set(), {}
    for w, f in counts.items():
        for s in range(len(w)):
            for e in range(s + 2, min(len(w), s + max_len) + 1):
                sub = w[s:e]
                count[sub] = count.get(sub, 0) + f
                if e == len(w) or e - s == max_len:
                    ends.add(sub)
                else:
                    nexts.setdefault(sub, set()).add(w[e])
    return {sub: n for sub, n in count.items() if n >= 2 and (sub in ends or len(nexts[sub]) >= 2)}


def unigram_seed(counts, seed_size, max_len, split_digits):
    """The seed: ``(pieces, scores)``, every character (sorted) then the valid frequent
    substrings, most count x length first (ties by string), scored log(raw / sum of raws).
    Example: {'▁ab': 2} -> pieces ['a', 'b', '▁', '▁ab', 'ab'] ('▁a' is always followed by 'b')."""
    from .unigram_seed import is_valid_piece

    char_freq = {}
    for w, f in counts.items():
        for c in w:
            char_freq[c] = char_freq.get(c, 0) + f
    chars = sorted(char_freq)
    subs = [(s, n) for s, n in seed_substrings(counts, max_len).items() if is_valid_piece(s, max_len, split_digits)]
    subs = sorted(subs, key=lambda t: (-t[1] * len(t[0]), t[0]))[:seed_size]
    raw = [char_freq[c] for c in chars] + [n * len(s) for s, n in subs]
    logsum = portable_log(math.fsum(raw))
    return chars + [s for s, _ in subs], [portable_log(r) - logsum for r in raw]


def expected_counts(counts, pieces, scores, alive, max_len):
    """E-step: each piece's expected count, forward-backward over every word's lattice in
    probability space (words of at most 30 characters: no product underflows).
    Example: {'ab': 1}, pieces a, b, ab, each of probability 1 (score 0) -> [0.5, 0.5, 0.5]."""
    ids = {p: i for i, p in enumerate(pieces) if alive[i]}
    probs = [portable_exp(s) if a else 0.0 for s, a in zip(scores, alive)]
    expected = [0.0] * len(pieces)
    for w, f in counts.items():
        edges = [(s, e, ids[p]) for s, e, p in word_edges(w, ids, max_len)]
        n = len(w)
        fwd = [1.0] + [0.0] * n  # fwd[e]: the probability of all splits of w[:e]
        for s, e, i in edges:
            fwd[e] += fwd[s] * probs[i]
        bwd = [0.0] * n + [1.0]  # bwd[s]: the probability of all splits of w[s:]
        for s, e, i in reversed(edges):
            pb = probs[i] * bwd[e]
            bwd[s] += pb
            expected[i] += fwd[s] * pb * (f / fwd[n])  # the edge's posterior, times the count
    return expected


def m_step(expected, scores, alive, n_chars):
    """M-step, in place: pieces expected under 0.5 times die (never a character); the rest
    get digamma(count) - digamma(total), a rare character counting as 0.5.
    Example: expected [2, 0.1] with one character -> the second piece dies."""
    from .unigram import digamma

    for i in range(n_chars, len(scores)):
        if alive[i] and expected[i] < 0.5:
            alive[i], scores[i] = False, -math.inf
    log_total = digamma(math.fsum(max(x, 0.5) if i < n_chars else x for i, x in enumerate(expected) if alive[i]))
    for i in range(len(scores)):
        if alive[i]:
            scores[i] = digamma(max(expected[i], 0.5)) - log_total


def best_split(text, ids, scores, max_len):
    """Viterbi: ``(piece ids of the best split, its score)``; ties go to the edge from the
    earliest start. Example: 'ab' with a, b (-1 each) and ab (-1.5) -> ([id of ab], -1.5)."""
    best, back = [0.0] + [-math.inf] * len(text), [None] * (len(text) + 1)
    for s, e, p in word_edges(text, ids, max_len):
        if best[s] + scores[ids[p]] > best[e]:
            best[e], back[e] = best[s] + scores[ids[p]], (s, ids[p])
    path, e = [], len(text)
    while e > 0:
        e, i = back[e]
        path.append(i)
    return path[::-1], best[len(text)]


def prune_losses(counts, pieces, scores, alive, n_chars, max_len):
    """``{piece id: loss}`` of every live multi-character piece: the drop in log-likelihood if
    its uses (in the words' best splits) became its own best split without it; None: free
    to drop (never used, or not its own best split). Example: an unused piece -> None."""
    ids = {p: i for i, p in enumerate(pieces) if alive[i]}
    freq = [0] * len(pieces)  # how often each piece is in a best split
    for w, f in counts.items():
        for i in best_split(w, ids, scores, max_len)[0]:
            freq[i] += f
    total = math.fsum(freq)
    logsum = portable_log(total)
    losses = {}
    for i in range(n_chars, len(pieces)):
        if alive[i]:
            del ids[pieces[i]]  # (its best split without itself)
            alt, alt_score = best_split(pieces[i], ids, scores, max_len)
            ids[pieces[i]] = i
            if freq[i] == 0 or alt_score > scores[i]:
                losses[i] = None
                continue
            f_i = freq[i]
            logsum_alt = portable_log(total + f_i * (len(alt) - 1))
            logprob_alt = math.fsum(portable_log(freq[j] + f_i) - logsum_alt for j in alt)
            losses[i] = f_i / sum(counts.values()) * (portable_log(f_i) - logsum - logprob_alt)
    return losses


def unigram(counts, vocab_size, reserved=("<unk>",), seed_size=1_000_000, max_piece_length=16,
            shrinking_factor=0.75, n_sub_iterations=2, split_digits=False, margins=None):
    """Unigram, every step from scratch: ``[(piece, score), ...]``, the ``reserved`` pieces
    first (score 0), then the trained ones most probable first (ties by piece). ``counts``:
    ``{word: count}``, words carrying their ▁, each at most 30 characters. ``margins`` (a
    list, if given) receives how close each decision came to going the other way: each
    piece's expected count to 0.5, and the gap between the last piece kept and the first
    dropped (in loss when pruning, in score at the finish)."""
    # step 1: seed: every character and the most frequent substrings
    pieces, scores = unigram_seed(counts, seed_size, max_piece_length, split_digits)
    n_chars = sum(len(p) == 1 for p in pieces)
    alive = [True] * len(pieces)
    target, desired = vocab_size - len(reserved), int(vocab_size * 1.1)
    while True:
        # step 2: EM: expected counts (E), new scores and dead pieces (M)
        for _ in range(n_sub_iterations):
            expected = expected_counts(counts, pieces, scores, alive, max_piece_length)
            if margins is not None:
                margins += [abs(expected[i] - 0.5) for i in range(n_chars, len(pieces)) if alive[i]]
            m_step(expected, scores, alive, n_chars)
        size = sum(alive)
        if size <= desired or size <= target:
            break
        # step 3: prune: keep the characters and the most useful pieces (ties by id), down
        # to the shrinking factor's share (never below 1.1 x vocab_size)
        losses = prune_losses(counts, pieces, scores, alive, n_chars, max_piece_length)
        ranked = sorted((-loss, i) for i, loss in losses.items() if loss is not None)
        keep_n = max(desired, int(shrinking_factor * size))
        if margins is not None and 0 < keep_n - n_chars < len(ranked):
            margins.append(ranked[keep_n - n_chars][0] - ranked[keep_n - n_chars - 1][0])
        for i in [i for i, loss in losses.items() if loss is None] + [i for _, i in ranked[max(0, keep_n - n_chars):]]:
            alive[i] = False
    # step 4: finish: the characters and the most probable pieces, up to vocab_size
    live = sorted((i for i in range(n_chars, len(pieces)) if alive[i]), key=lambda i: (-scores[i], pieces[i]))
    if margins is not None and 0 < target - n_chars < len(live):
        margins.append(scores[live[target - n_chars - 1]] - scores[live[target - n_chars]])
    final = sorted([(pieces[i], scores[i]) for i in list(range(n_chars)) + live[:target - n_chars]],
                   key=lambda t: (-t[1], t[0]))
    return [(r, 0.0) for r in reserved] + final
