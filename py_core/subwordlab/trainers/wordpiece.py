"""How WordPiece trains: merge the pair with the highest score, repeat.

``train(counts, ...)`` is the whole algorithm, in four numbered steps: (1) the starting
vocabulary (special tokens, every word-initial character, every ``##``-prefixed
continuing character), (2) every word as unit ids, (3) the pair index, (4) the merge loop
(``wordpiece_steps``), then the model. The preset (``presets.py``) only builds the BERT
pipeline around it; ``textbook.py`` holds the naive loop the tests compare it with.

Words start as characters, every non-initial one with the ``##`` prefix
(``stem -> s ##t ##e ##m``). Each step merges the adjacent pair with the highest

    score(a, b) = count(ab) / (count(a) * count(b))

where every count is weighted by word frequency and ``count(a)`` is how often the unit
``a`` occurs in the current segmentation of the corpus. ``a + ##b`` becomes ``ab``,
``##a + ##b`` becomes ``##ab``. A pair scores high when its parts rarely occur apart, not
when it is merely frequent.

This is the score rule of the original papers (Schuster & Nakajima 2012, as reconstructed
in the Hugging Face course's WordPiece chapter): ``scoring="likelihood"``, the default.
It is *not* what the Hugging Face ``tokenizers`` library's ``WordPieceTrainer`` does:
that trainer is BPE (highest count) with a ``##`` prefix, and writes the vocabulary as a
WordPiece model. ``scoring="frequency"`` trains that way, so the two can be compared:

- each merge joins the most frequent pair (ties by ``tie_break``, as in BPE);
- the starting vocabulary is HF's: every character of the corpus also as a word-initial
  token (``e`` even if ``e`` never starts a word), besides the ``##`` continuing ones.

Bookkeeping is incremental: pair counts come from the same ``PairIndex`` as BPE; unit
counts are updated from the merged occurrences. A merge changes ``count(a)``,
``count(b)`` and ``count(ab)``, so every pair next to one of those three units is
re-scored (an index unit -> its pairs), plus the pairs the merge created or shrank.

Scores are compared exactly, as fractions: the ranking key is the integer
``(count(ab) << shift) // (count(a) * count(b))``, the score in fixed point with ``shift``
fractional bits. Two different scores differ by at least ``1 / (den1 * den2)``, and every
denominator is at most ``T**2`` (``T``: all the units of the corpus, a number that merges
only lower), so with ``shift = 4 * T.bit_length()`` two different scores get different
keys and equal scores equal ones: integer arithmetic, the same in CPython and Pyodide, ties
included. (The float ``count / den`` is only shown, in the events.) Equal scores are broken by
``tie_break`` exactly as in BPE (``"first"``, ``"lex_min"``, ``"lex_max"``).

>>> from subwordlab.trainers.pairs import PairIndex
>>> vocab = ["b", "h", "p", "##g", "##n", "##s", "##u"]     # hug 10, pug 5, pun 12, bun 4, hugs 5
>>> words = [(1, 6, 3), (2, 6, 3), (2, 6, 4), (0, 6, 4), (1, 6, 3, 5)]
>>> steps = list(wordpiece_steps(PairIndex(words, [10, 5, 12, 4, 5], [1] * 7), vocab, num_merges=1))
>>> steps[0].pair, steps[0].count, steps[0].part_counts, round(steps[0].score, 4)
(('##g', '##s'), 5, (20, 5), 0.05)
"""


from ..base.events import AlphabetReady, MergeStep, Progress
from ..models.wordpiece import WordPiece
from ..text.corpus import CorpusError
from .bpe import TIE_BREAKS, Ranking
from .pairs import PairIndex

SCORINGS = ("likelihood", "frequency")  # count(ab)/(count(a)*count(b)), or count(ab) as HF's trainer


def train(counts, *, special_tokens=("[UNK]",), unk_token="[UNK]", continuing_subword_prefix="##",
          max_input_chars_per_word=100, num_merges=None, vocab_size=None, min_frequency=1, tie_break="first", top_k=10,
          scoring="likelihood"):
    """Train WordPiece on word counts: yields events, returns ``(model, special_ids, merges)``.
    ``scoring``: ``"likelihood"`` (the papers' score) or ``"frequency"`` (HF's trainer).

    >>> events = list(train({"hug": 10, "pug": 5, "hugs": 5}, num_merges=1))
    >>> [e.pair for e in events if e.kind == "merge"]
    [('h', '##u')]
    >>> events = list(train({"hug": 10, "pug": 5, "hugs": 5}, num_merges=1, scoring="frequency"))
    >>> [e.pair for e in events if e.kind == "merge"]
    [('##u', '##g')]
    """
    prefix, unk, max_chars = continuing_subword_prefix, unk_token, max_input_chars_per_word
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {', '.join(SCORINGS)}, not {scoring!r}")
    if not isinstance(prefix, str):
        raise ValueError(f"continuing_subword_prefix must be a string such as '##', not {prefix!r}")
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
        raise ValueError(f"max_input_chars_per_word must be a positive integer, not {max_chars!r}")

    # step 1: the starting vocabulary: special tokens (unk first if it is not among them),
    # then every character that starts a word and every ##character that continues one
    specials = ([unk] if unk and unk not in special_tokens else []) + list(special_tokens)
    kept = [(w, n) for w, n in counts.items() if len(w) <= max_chars]  # longer words are always unk
    if not kept:
        # a training that would end with no tokens (every word unknown) is refused
        longest = max(map(len, counts))
        raise CorpusError(f"every word of the corpus is longer than max_input_chars_per_word={max_chars} (the longest "
                          f"has {longest:,} characters), so WordPiece would learn no token; raise that option or use "
                          "text with shorter words")
    alphabet, inner = set(), set()  # inner: the characters that continue a word
    for w, _ in kept:
        # HF's trainer (frequency scoring) has every character word-initially too
        alphabet.update(w if scoring == "frequency" else w[0])
        inner.update(w[1:])
    alphabet.update(prefix + c for c in inner)
    clash = sorted(alphabet & set(specials))
    if clash:
        raise ValueError(f"the special token {clash[0]!r} is also a character of the corpus; rename the special token")
    kept_words = [w for w, _ in kept]
    # (one C-speed search of all the words rules out a special token that no word contains:
    # measured on udhr_many's 107k words, BERT's five special tokens: 34 ms word by word, 10 ms)
    kept_text = "\n".join(kept_words)
    for special in specials:
        # a merge could make a token with a special token's text: both would get one id
        piece = special[len(prefix):] if special.startswith(prefix) and len(special) > len(prefix) else special
        word = _word_that_builds(special, kept_words, prefix) if piece in kept_text else None
        if word is not None:
            what = "unk_token" if special == unk else "the special token"
            where = "is a word" if word == special else f"is a piece of the word {word!r}"
            raise ValueError(f"{what} {special!r} {where} of the corpus, so WordPiece would give that text and "
                             f"{'unknown characters' if special == unk else 'the special token'} the same id; "
                             f"choose {'an unk_token' if special == unk else 'a special token'} that is not in the "
                             f"text, such as {'[UNK]' if special == unk else '[SPECIAL]'!r}")
    vocab = specials + sorted(alphabet)
    token_to_id = {t: i for i, t in enumerate(vocab)}
    if vocab_size is not None and vocab_size < len(vocab):
        raise ValueError(f"vocab_size={vocab_size} is smaller than the starting vocabulary "
                         f"({len(vocab)} characters and special tokens); use at least {len(vocab)}")

    # step 2: every word as unit ids: s ##t ##e ##m
    cont = {c: token_to_id[prefix + c] for c in inner}  # c -> the id of ##c
    words = [(token_to_id[w[0]],) + tuple(map(cont.__getitem__, w[1:])) for w, _ in kept]

    # step 3: the pair index: every adjacent pair, its count and where it occurs
    yield Progress("index", 0, len(words))
    index = PairIndex(words, [n for _, n in kept], [1] * len(vocab))
    left_out = len(counts) - len(kept)
    notes = (long_words_left_out_note(left_out, max(map(len, counts)), max_chars, unk),) if left_out else ()
    yield AlphabetReady(alphabet=list(vocab), vocab_size=len(vocab), distinct_words=len(counts), notes=notes)

    # step 4: the merge loop, by score (or by count: scoring="frequency")
    merges = yield from wordpiece_steps(index, vocab, token_to_id, prefix=prefix, num_merges=num_merges,
                                        vocab_size=vocab_size, min_frequency=min_frequency, tie_break=tie_break,
                                        top_k=top_k, scoring=scoring)

    # the model: the vocabulary alone decides how words are split (the merges are not kept)
    model = WordPiece(vocab, unk_token=unk, continuing_subword_prefix=prefix, max_input_chars_per_word=max_chars)
    return model, {s: token_to_id[s] for s in specials}, merges


def long_words_left_out_note(count, longest, limit, unk):
    """What training says when ``count`` distinct words were longer than ``max_input_chars_per_word``.

    >>> long_words_left_out_note(2, 5000, 100, "[UNK]")[:72]
    '2 distinct words were longer than max_input_chars_per_word=100 character'
    """
    what = "1 distinct word was" if count == 1 else f"{count:,} distinct words were"
    return (f"{what} longer than max_input_chars_per_word={limit:,} characters (the longest: {longest:,}); "
            f"{'it was' if count == 1 else 'they were'} left out of training and encode{'s' * (count == 1)} as "
            f"{unk or 'the unknown token'}, as in BERT. To train on {'it' if count == 1 else 'them'}, raise "
            f"max_input_chars_per_word (training time and memory grow with it) or put spaces in the text.")


def _word_that_builds(token, words, prefix):
    """The first word whose merges could make ``token`` (a word-initial piece, or the prefix
    and a piece inside a word), or None. Example: ('the', ['then'], '##') -> 'then'."""
    inner = token[len(prefix):] if token.startswith(prefix) and len(token) > len(prefix) else None
    for w in words:
        if w.startswith(token) or (inner is not None and inner in w[1:]):
            return w
    return None


def wordpiece_steps(index, vocab, token_to_id=None, *, prefix="##", num_merges=None, vocab_size=None,
                    min_frequency=1, tie_break="first", top_k=10, scoring="likelihood"):
    """Run the WordPiece merge loop on ``index`` (a ``PairIndex`` over the words' unit ids),
    appending new tokens to ``vocab`` and yielding one ``MergeStep`` per merge. Stops after
    ``num_merges`` merges, when ``vocab`` reaches ``vocab_size`` entries, or when no pair
    occurring at least ``min_frequency`` times is left. Returns the merges made, as
    ``(left_id, right_id)``. ``scoring="frequency"`` ranks pairs by count (as BPE): its
    events then carry ``((left, right), count)`` candidates and no score.
    """
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {', '.join(TIE_BREAKS)}, not {tie_break!r}")
    if token_to_id is None:
        token_to_id = {t: i for i, t in enumerate(vocab)}
    by_score = scoring == "likelihood"
    unit = index.unit_counts(len(vocab)) if by_score else None  # (by count, never read: not counted)
    ranking = (_ScoreRanking(index, vocab, tie_break, unit, max(1, min_frequency)) if by_score
               else Ranking(index, vocab, tie_break, None, max(1, min_frequency)))
    # unit -> the pairs it is the left / right part of (to re-score when its count changes;
    # by count, a unit's own count never moves a pair, so none is kept)
    as_left, as_right = {}, {}
    for a, b in index.counts if by_score else ():
        as_left.setdefault(a, set()).add((a, b))
        as_right.setdefault(b, set()).add((a, b))
    cut = len(prefix)
    merges = []
    while (num_merges is None or len(merges) < num_merges) and (vocab_size is None or len(vocab) < vocab_size):
        # step 1: the best pairs by score (exact fractions) or by count; ties by the tie-break rule
        top = ranking.top(max(1, top_k))
        if not top:
            break
        (a, b), count = top[0][:2]
        parts = (unit[a], unit[b]) if by_score else None
        # step 2: the new token: a + ##b -> ab, ##a + ##b -> ##ab (reusing an existing id)
        new_tok = vocab[a] + (vocab[b][cut:] if vocab[b].startswith(prefix) else vocab[b])
        new = token_to_id.get(new_tok)
        if new is None:
            new = token_to_id[new_tok] = len(vocab)
            vocab.append(new_tok)
            index.sym_len.append(index.sym_len[a] + index.sym_len[b])
            ranking.add_token()
            if by_score:
                unit.append(0)
        merges.append((a, b))
        # step 3: merge it everywhere; the unit counts move by the occurrences merged
        # (subtle: for a == b overlapping pairs count twice in count(ab) but merge once)
        gained, shrunk, merged = index.merge((a, b), new)
        if by_score:
            unit[a] -= merged
            unit[b] -= merged
            unit[new] += merged
        ranking.current.pop((a, b), None)
        if by_score:
            # step 4: re-rank the pairs the merge touched and every pair next to a unit whose
            # count changed (a, b and the new unit)
            as_left.get(a, set()).discard((a, b))
            as_right.get(b, set()).discard((a, b))
            counts = index.counts
            for p in gained + shrunk:
                if p in counts:
                    as_left.setdefault(p[0], set()).add(p)
                    as_right.setdefault(p[1], set()).add(p)
                else:
                    as_left.get(p[0], set()).discard(p)
                    as_right.get(p[1], set()).discard(p)
            affected = {*gained, *shrunk}
            for u in (a, b, new):
                affected.update(as_left.get(u, ()))
                affected.update(as_right.get(u, ()))
            ranking.update(affected)
        else:
            # step 4 (by count): re-rank the pairs the merge touched
            ranking.update(gained, shrunk)
        yield MergeStep(
            rank=len(merges) - 1,
            pair=(vocab[a], vocab[b]),
            count=count,
            new_token=new_tok,
            candidates=[((vocab[p[0]], vocab[p[1]]), *rest) for p, *rest in top],
            vocab_size=len(vocab),
            score=top[0][2] if by_score else None,
            part_counts=parts,
        )
    return merges


# -- scores, exactly, and the heap of pairs by score (step 4's ranking) -------------------

def exact_score_key(count, left, right, shift):
    """The score ``count / (left * right)`` in fixed point, ``shift`` fractional bits: keys
    order exactly like the fractions when ``2**shift`` is at least the product of the two
    denominators compared. Example: (5, 7, 5, 8) -> 36, i.e. 5/35 = 0.142... ~ 36/256."""
    return (count << shift) // (left * right)


class _ScoreRanking(Ranking):
    """BPE's heap of pairs (``Ranking``), keyed by WordPiece score instead of count: the
    key's value is ``-exact_score_key(count, unit[a], unit[b], shift)``. Pairs occurring
    fewer than ``min_frequency`` times are not candidates.
    """

    def __init__(self, index, vocab, tie_break, unit, min_frequency):
        self.unit = unit
        # fixed-point bits that keep every two different scores apart (module docstring)
        self.shift = 4 * max(1, sum(unit)).bit_length()
        super().__init__(index, vocab, tie_break, None, min_frequency)

    def top(self, k):
        """The ``k`` best live pairs as ``(pair, count, score)``, best first."""
        counts, unit = self.index.counts, self.unit
        return [(p, counts[p], counts[p] / (unit[p[0]] * unit[p[1]])) for _, p in self.best(k)]

