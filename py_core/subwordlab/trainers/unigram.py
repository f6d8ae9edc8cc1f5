"""Unigram training (Kudo 2018, as SentencePiece does it): start big, prune.

``unigram_steps`` is the algorithm, a short driver over its steps, each a function below:

1. ``seed_pieces``: every character plus the most frequent substrings of the words (at most
   ``seed_size``, each at most ``max_piece_length`` characters), scored frequency x length.
   The candidates, and what a valid piece is, come from trainers/unigram_seed.py (a
   depth-limited suffix array over the distinct words).
2. ``em_step``: the E-step (``e_step``) runs forward-backward over each distinct word's
   lattice (all the ways to split it into current pieces; trainers/lattice.py) and collects
   each piece's expected count; the M-step (``m_step``) turns the expected counts into new
   log-probabilities. As SentencePiece, the M-step is the Bayesian (Dirichlet-process)
   update ``digamma(count) - digamma(total)``, which acts as a sparse prior, and pieces
   expected less than 0.5 times are dropped. ``n_sub_iterations`` EM steps per round.
3. ``prune``: for every piece, the loss in corpus log-likelihood if it were removed,
   assuming its occurrences are re-split into its best alternative segmentation
   (SentencePiece's ``PruneSentencePieces``, ``prune_losses``); keep the most useful
   ``shrinking_factor`` share. Single characters are never dropped, so every word can
   always be spelled.
4. ``finish``: once at most ``1.1 x vocab_size`` pieces are left (2-3 repeat until then),
   keep the characters and the most probable pieces up to exactly ``vocab_size``
   (SentencePiece's finalize).

``train``, at the bottom, adds the reserved pieces around ``unigram_steps`` and makes the
model. Why one module: the steps share the vocabulary in training (``Vocab``) and the
lattices, and read top to bottom as the algorithm; the seed's candidates and the lattices
are tools of their own, in their own modules.

Events: ``AlphabetReady`` (the seed vocabulary), an ``EmStep`` per EM iteration and a
``PruneStep`` per pruning round, each with ``pieces``, the whole vocabulary at that moment
(so a player can show the tokenizer at any step). Each phase starts with a ``Progress``
event naming it (``seed``, ``lattice``, ``em``, ``prune``, ``model``), so a progress bar
can say what runs; ``iter_train`` drops them unless asked with ``progress=True``.

Determinism: the words are processed in their (first appearance) order, pieces by id,
every sort has an explicit key and no set or dict of strings is iterated in hash order, so
the same corpus gives the same pieces and scores in CPython and in Pyodide.

Speed: the lattices are built once from the seed vocabulary, one per distinct *unit* (a
span of a word no piece crosses: a word's lattice factors over them, ``lattice.Lattices``),
and filtered as pieces die (units split further, equal ones merge). The E-step works in
probability space (products, no logs): plainly for units up to 30 characters, where no
product can underflow, and rescaled beyond (``lattice.forward_backward_scaled``).
"""

import math
from itertools import compress

from ..base.events import AlphabetReady, EmStep, Progress, PruneStep
from ..base.portable_math import exps as portable_exps
from ..base.portable_math import log as portable_log
from ..models.unigram import Unigram
from ..text.corpus import MAX_SENTENCE_LENGTH, check_max_sentence_length, long_words_note
from .alphabet import covered_characters
from .lattice import Lattices, forward_backward, viterbi
from .snapshot import PieceOrder
from .unigram_seed import check_unigram_settings, freq_x_length, frequent_substrings, is_valid_piece, words_in_alphabet

_EXPECTED_MIN = 0.5  # SentencePiece's kExpectedFrequencyThreshold
_FILTER_SHARE = 20  # filter the lattices after an M-step once 1/20 of the live pieces died


def unigram_steps(counts, *, vocab_size, alphabet=None, meta=(), seed_size=1_000_000, max_piece_length=16,
                  shrinking_factor=0.75, n_sub_iterations=2, split_digits=False,
                  max_sentence_length=MAX_SENTENCE_LENGTH):
    """Train a Unigram vocabulary on word counts, yielding ``AlphabetReady``, one ``EmStep``
    per EM iteration and one ``PruneStep`` per pruning round (the last one trims to exactly
    ``vocab_size``). Returns the pieces as ``[(piece, log_prob), ...]``, most probable
    first (ties by piece).

    ``counts``: ``{word: count}`` (words already carry their ▁); ``vocab_size``: the whole
    vocabulary, ``meta`` pieces (unk, special tokens, bytes, user-defined symbols) included;
    ``alphabet``: the characters to keep (others split words and never join a piece; None:
    all); ``max_sentence_length``: a longer word (in UTF-8 bytes) trains on its first
    ``max_sentence_length`` bytes (None: no limit), and ``AlphabetReady.notes`` says so.

    >>> from subwordlab.base.events import drain
    >>> [piece for piece, _ in drain(unigram_steps({"▁ab": 3, "▁a": 1}, vocab_size=4))]
    ['▁ab', 'a', '▁', 'b']
    """
    check_unigram_settings(shrinking_factor, n_sub_iterations, max_piece_length, seed_size)
    check_max_sentence_length(max_sentence_length)
    target = vocab_size - len(meta)

    # step 1: the seed vocabulary, and the words it was found in
    yield Progress("seed", 0, 0)
    vocab, words, freqs, notes = seed_pieces(counts, vocab_size=vocab_size, alphabet=alphabet, meta=meta,
                                             seed_size=seed_size, max_piece_length=max_piece_length,
                                             split_digits=split_digits, max_sentence_length=max_sentence_length)
    yield AlphabetReady(alphabet=list(meta) + vocab.pieces[:vocab.n_chars], vocab_size=len(meta) + len(vocab.pieces),
                        distinct_words=len(counts), pieces=vocab.snapshot(), notes=notes)

    # step 2: the words' lattices, built once
    yield Progress("lattice", 0, 0)
    lattices = Lattices(max_piece_length)
    lattices.build(vocab.pieces, words, freqs)
    total_freq = sum(freqs)
    desired = int(vocab_size * 1.1)  # SentencePiece stops pruning at 1.1 x vocab_size

    rnd = 0
    while True:
        # step 3: EM, n_sub_iterations times
        for it in range(n_sub_iterations):
            yield Progress("em", 0, 0)
            loglik = em_step(vocab, lattices)
            yield EmStep(round=rnd, iteration=it, log_likelihood=loglik, vocab_size=len(meta) + vocab.size(),
                         pieces=vocab.snapshot())
        size = vocab.size()
        if size <= desired or size <= target:
            break
        # step 4: prune the least useful pieces, down to a shrinking_factor share (not below desired)
        yield Progress("prune", 0, 0)
        dropped = prune(vocab, lattices, total_freq, max(desired, int(shrinking_factor * size)))
        yield PruneStep(round=rnd, dropped=dropped, vocab_size=len(meta) + vocab.size(), pieces=vocab.snapshot())
        rnd += 1

    # step 5: finish: exactly vocab_size (a last PruneStep if pieces had to go)
    return (yield from finish(vocab, lattices, total_freq, target, rnd))


class Vocab:
    """The vocabulary in training: piece ``i`` is ``pieces[i]``, its score (log-probability)
    ``scores[i]``, and ``alive[i]`` while it is kept. Ids below ``n_chars`` are the
    characters, never dropped; ``meta``, the reserved pieces, come first in a snapshot.

    >>> Vocab(["a", "b", "ab"], [-1.0, -2.0, -1.0], 2, ["<unk>"]).snapshot()
    [('<unk>', 0.0), ('a', -1.0), ('ab', -1.0), ('b', -2.0)]
    """

    def __init__(self, pieces, scores, n_chars, meta):
        self.pieces, self.scores, self.n_chars, self.meta = pieces, scores, n_chars, meta
        self.alive = [True] * len(pieces)
        # the ids in piece order, less any piece that is also a reserved one (a substring of
        # the corpus can be a special piece's name): the snapshot's order for equal scores
        reserved = set(meta)
        self._order = PieceOrder(pieces, skip=() if reserved.isdisjoint(pieces) else
                                 [i for i, p in enumerate(pieces) if p in reserved])

    def size(self):
        """How many pieces are alive."""
        return sum(self.alive)

    def snapshot(self):
        """The vocabulary now, as the final model would hold it: reserved pieces first
        (score 0), then the live pieces by probability, ties by piece."""
        return self._order.snapshot(self.alive, self.scores, self.meta)

def seed_pieces(counts, *, vocab_size, alphabet=None, meta=(), seed_size=1_000_000, max_piece_length=16,
                split_digits=False, max_sentence_length=MAX_SENTENCE_LENGTH):
    """Step 1, the seed: ``(vocab, words, freqs, notes)``, the seed ``Vocab`` (every character,
    sorted, then the valid frequent substrings, most count x length first, ties by string;
    each scored log(raw / sum of raws)), the distinct words it was found in (cut at characters
    outside ``alphabet``) and their counts, and the notes on words cut to
    ``max_sentence_length`` bytes. The arguments are ``unigram_steps``'s.

    >>> vocab, words, freqs, notes = seed_pieces({"▁ab": 2, "▁b": 1}, vocab_size=8)
    >>> vocab.pieces, words, freqs
    (['a', 'b', '▁', '▁ab', 'ab'], ['▁ab', '▁b'], [2, 1])
    """
    # the words (cut at characters outside the alphabet, a too long one limited to its
    # first max_sentence_length bytes) and the characters
    limited = []
    words, freqs, char_freq = words_in_alphabet(counts, alphabet, max_sentence_length, limited)
    notes = (long_words_note(len(limited), max(limited), max_sentence_length),) if limited else ()
    chars = sorted(char_freq)
    if vocab_size - len(meta) < len(chars):
        raise ValueError(f"vocab_size={vocab_size} cannot hold the {len(chars)} characters of the corpus plus "
                         f"{len(meta)} special pieces; use at least {len(chars) + len(meta)} (or lower character_coverage)")

    # the seed vocabulary: characters + frequent substrings, scored freq x length
    found = frequent_substrings(words, freqs, max_piece_length,
                                lambda head: is_valid_piece(head, max_piece_length, split_digits))
    subs = [pair for pair in found if is_valid_piece(pair[0], max_piece_length, split_digits)]
    del found
    subs = sorted(subs, key=lambda t: (-t[1] * len(t[0]), t[0]))[:seed_size]
    pieces = chars + [piece for piece, _ in subs]
    raw = [char_freq[c] for c in chars] + [freq_x_length(pair) for pair in subs]
    del subs
    logsum = portable_log(math.fsum(raw))
    scores = [portable_log(r) - logsum for r in raw]
    return Vocab(pieces, scores, len(chars), meta), words, freqs, notes


def em_step(vocab, lattices):
    """Step 2, one EM iteration: the E-step's expected counts become the M-step's new scores
    (in ``vocab``); the lattices drop the dead pieces' edges once many died. Returns the
    corpus log-likelihood before the update."""
    expected, loglik = e_step(lattices, vocab.scores, vocab.alive)
    died = m_step(expected, vocab.scores, vocab.alive, vocab.n_chars)
    # A dead piece's edges cost the E-step time but change nothing (its probability
    # is 0, its score -inf): a pass over every edge to drop them pays only when many
    # died (on 1 MB of random bytes, filtering after every M-step was 2.7 s of 27 s;
    # filtering before each pruning, 0.5 s of 10)
    if died * _FILTER_SHARE >= vocab.size():
        lattices.filter(vocab.alive)
    return loglik


def e_step(lattices, scores, alive):
    """The E-step: every piece's expected count (frequency-weighted) over the lattices, and
    the corpus log-likelihood, with the live pieces' probabilities ``exp(score)``."""
    # each live piece's probability (a dead one's is 0; compress skips them at C speed: on
    # random bytes most pieces die early, and a call per piece was 0.4 s of 10), the portable
    # exp of all at once (math.exp's last bit differs between C libraries:
    # portable_math.py): ~2x faster than a call per piece, in CPython and in Pyodide
    probs = [0.0] * len(scores)
    live = list(compress(range(len(scores)), alive))
    for i, p in zip(live, portable_exps(list(map(scores.__getitem__, live)))):
        probs[i] = p
    return forward_backward(lattices.edges, lattices.lengths, lattices.freqs, probs)


def m_step(expected, scores, alive, n_chars):
    """The M-step: new scores from the expected counts, in place; pieces expected less than
    0.5 times die (never a character). Returns how many died."""
    n = len(scores)
    # step 1: drop the rarely used pieces (score -inf: a best split never takes a dead
    # piece's edge left in the lattices)
    died = 0
    for i in range(n_chars, n):
        if alive[i] and expected[i] < _EXPECTED_MIN:
            alive[i] = False
            scores[i] = -math.inf
            died += 1
    # step 2: the Bayesian update: digamma(count) - digamma(total) (subtle: a rarely used
    # character keeps a score as if expected 0.5 times)
    kept = [max(expected[i], _EXPECTED_MIN) if i < n_chars else expected[i] for i in range(n) if alive[i]]
    log_total = digamma(math.fsum(kept))
    for i in compress(range(n), alive):
        scores[i] = digamma(max(expected[i], _EXPECTED_MIN)) - log_total
    return died


def digamma(x):
    """The digamma function (as SentencePiece computes it). Example: digamma(1) ≈ -0.5772."""
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return result + portable_log(x) + xx2 / 24 - 7 * xx4 / 960 + 31 * xx4 * xx2 / 8064 - 127 * xx4 * xx4 / 30720


def prune(vocab, lattices, total_freq, keep_n):
    """Step 3, one pruning round: keep the characters and the most useful pieces up to
    ``keep_n``, drop the others (and their edges). Returns the dropped pieces as
    ``[(piece, loss), ...]``: those that go at no cost first (loss 0, by id), then the
    least useful first (ties by id)."""
    losses = prune_losses(vocab, lattices, total_freq)
    free = sorted(i for i, loss in losses.items() if loss is None)
    # most useful first, ties by id
    ranked = sorted((-loss, i) for i, loss in losses.items() if loss is not None)
    # the characters stay; the most useful pieces fill the rest of keep_n
    dropped = sorted(((i, -neg) for neg, i in ranked[max(0, keep_n - vocab.n_chars):]),
                     key=lambda t: (t[1], t[0]))  # least useful first
    dropped = [(i, 0.0) for i in free] + dropped
    for i, _ in dropped:
        vocab.alive[i] = False
    lattices.filter(vocab.alive)
    return [(vocab.pieces[i], loss) for i, loss in dropped]


def finish(vocab, lattices, total_freq, target, rnd):
    """Step 4, SentencePiece's finalize: the characters, then the most probable live pieces
    up to ``target``; if that cut any, yields ``Progress`` and a last ``PruneStep`` (round
    ``rnd``) for them. Returns ``[(piece, score), ...]``, most probable first (ties by piece)."""
    pieces, scores, alive, n_chars = vocab.pieces, vocab.scores, vocab.alive, vocab.n_chars
    live = [i for i in range(n_chars, len(pieces)) if alive[i]]
    live.sort(key=lambda i: (-scores[i], pieces[i]))
    final = list(range(n_chars)) + live[:target - n_chars]
    cut = live[target - n_chars:]
    if cut:
        yield Progress("prune", 0, 0)
        losses = prune_losses(vocab, lattices, total_freq)
        trimmed = sorted(((i, losses.get(i) or 0.0) for i in cut), key=lambda t: (t[1], t[0]))
        for i in cut:
            alive[i] = False
        yield PruneStep(round=rnd, dropped=[(pieces[i], loss) for i, loss in trimmed],
                        vocab_size=len(vocab.meta) + len(final), pieces=vocab.snapshot())
    result = [(pieces[i], scores[i]) for i in final]
    result.sort(key=lambda t: (-t[1], t[0]))
    return result


def prune_losses(vocab, lattices, total_freq):
    """``{piece id: loss}`` for every live multi-character piece: how much the corpus
    log-likelihood drops if the piece is removed and its occurrences are re-split into its
    best alternative (SentencePiece's approximation). ``None``: the piece can go at no cost
    (it is not in any best split, or it is not its own best split).
    """
    pieces, scores, alive = vocab.pieces, vocab.scores, vocab.alive
    # step 1: the best split of every word: how often each piece is used
    freq = [0.0] * len(pieces)
    # (the first time, where each piece is used (a unit's edges, the offset; one at offset 0
    # if any): its alternative is cut from there in step 2, not looked up piece by piece)
    record, occ = not lattices.has_alternatives(), {}
    # (``viterbi`` inlined: ~20 % less time per round on udhr_many)
    neg = -math.inf
    for edges, n, f in zip(lattices.edges, lattices.lengths, lattices.freqs):
        best = [neg] * (n + 1)
        best[0] = 0.0
        back = [None] * (n + 1)
        for t in edges:
            s, e, i = t
            v = best[s] + scores[i]
            if v > best[e]:
                best[e] = v
                back[e] = t
        while n > 0:  # each piece of the best split, from the end (as viterbi's path)
            s, _, i = back[n]
            freq[i] += f
            n = s
            if record and (s == 0 or i not in occ):
                occ[i] = edges, s
    total = math.fsum(freq)
    logsum = portable_log(total)
    # step 2: each piece's best alternative: its own best split without the piece itself
    losses = {}
    log = portable_log
    for i in range(vocab.n_chars, len(pieces)):
        if not alive[i]:
            continue
        p = pieces[i]
        alt, alt_score = viterbi(lattices.alternatives(i, p, alive, occ.get(i)), len(p), scores)
        if freq[i] == 0 or alt_score > scores[i]:
            losses[i] = None
            continue
        # step 3: the loss if every use of the piece became its alternative
        f_i = freq[i]
        logprob_sp = log(f_i) - logsum
        logsum_alt = log(total + f_i * (len(alt) - 1))
        logprob_alt = math.fsum(log(freq[j] + f_i) - logsum_alt for j in alt)
        losses[i] = f_i / total_freq * (logprob_sp - logprob_alt)
    return losses


# -- the whole training: reserved pieces, seed + EM + prune, the model -----------------

def train(counts, *, unk_token="<unk>", special_tokens=(), user_defined_symbols=(), byte_fallback=False,
          character_coverage=1.0, vocab_size, seed_size=1_000_000, max_piece_length=16, shrinking_factor=0.75,
          n_sub_iterations=2, split_digits=False, max_sentence_length=MAX_SENTENCE_LENGTH):
    """Train Unigram on word counts (words carry their ▁): yields the events of
    ``unigram_steps``, returns ``(model, special_ids, rounds)`` (rounds: EM + prune steps).

    >>> from subwordlab.base.events import drain
    >>> model, specials, rounds = drain(train({"▁ab": 3, "▁a": 1}, vocab_size=5))
    >>> model.vocab[0], specials
    ('<unk>', {})
    """
    # user-defined symbols are always whole pieces: they are not trained on
    if user_defined_symbols:
        defined = set(user_defined_symbols)
        counts = {w: n for w, n in counts.items() if w not in defined}

    # step 1: the reserved pieces: unk, special tokens, user-defined symbols, bytes
    unk = unk_token
    if not unk:
        raise ValueError("Unigram needs an unk_token (e.g. '<unk>')")
    meta = [unk] + [s for s in special_tokens if s != unk]
    meta += [s for s in user_defined_symbols if s not in meta]
    if byte_fallback:
        meta += [f"<0x{b:02X}>" for b in range(256) if f"<0x{b:02X}>" not in meta]
    alphabet = covered_characters(counts, character_coverage)
    clash = sorted(alphabet & set(meta))
    if clash:
        raise ValueError(f"the special piece {clash[0]!r} is also a character of the corpus; rename it")

    # step 2: seed, EM, prune (the events pass through)
    steps = unigram_steps(counts, vocab_size=vocab_size, alphabet=alphabet, meta=meta, seed_size=seed_size,
                          max_piece_length=max_piece_length, shrinking_factor=shrinking_factor,
                          n_sub_iterations=n_sub_iterations, split_digits=split_digits,
                          max_sentence_length=max_sentence_length)
    rounds = 0
    while True:
        try:
            event = next(steps)
        except StopIteration as stop:
            pieces = stop.value
            break
        rounds += event.kind in ("em", "prune")
        yield event
    yield Progress("model", 0, 0)
    reserved = set(meta)
    pieces = [(p, s) for p, s in pieces if p not in reserved]

    # step 3: the model: reserved pieces first (score 0), then by probability
    vocab = meta + [p for p, _ in pieces]
    ids = {p: i for i, p in enumerate(vocab)}
    model = Unigram(vocab, [0.0] * len(meta) + [s for _, s in pieces], unk_id=0, byte_fallback=byte_fallback,
                    control_ids=[ids[s] for s in special_tokens if s != unk],
                    user_defined_ids=[ids[s] for s in user_defined_symbols])
    return model, {s: ids[s] for s in special_tokens}, rounds
