"""The textbook trainers: BPE and WordPiece as the papers and minbpe write them.

Each step recounts every pair of every word from scratch, picks the best one and rewrites
every word: a few lines each, easy to check by eye, and slow (a full pass over the corpus
per merge). They are the *reference*: the fast trainers (``bpe.py``, ``wordpiece.py``,
with their incremental ``PairIndex`` and heaps) are property-tested against them on
generated corpora (tests/unit/test_textbook.py), and bench/bench_bpe.py times them.

Words are ``{word: count}`` in order of first appearance. Ties (``tie_break``) go to the
pair met first scanning the words in that order, each left to right (``"first"``), or
to the smallest or largest pair of strings (``"lex_min"``, ``"lex_max"``).

>>> [(pair, n) for pair, n, _ in bpe({"low": 5, "lower": 2, "newest": 6}, 3, end_of_word="</w>")]
[(('w', 'e'), 8), (('l', 'o'), 7), (('n', 'e'), 6)]
>>> [(pair, new) for pair, _, new in wordpiece({"hug": 10, "pug": 5, "hugs": 5}, 2)]
[(('h', '##u'), 'hu'), (('p', '##u'), 'pu')]
"""


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
