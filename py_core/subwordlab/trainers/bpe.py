"""How BPE trains: from word counts to a ``BPE`` model, merge by merge.

``train(counts, ...)`` is the whole algorithm, in four numbered steps:

1. the starting vocabulary: special tokens, then the base symbols (the characters the
   corpus uses, or the 256 bytes), then the end-of-word marker;
2. every word as a list of base-symbol ids (``symbol_runs``);
3. the pair index: every adjacent pair, its count and where it occurs (``PairIndex``);
4. the merge loop (``merge_steps``): merge the most frequent pair everywhere, repeat.

It is a generator of events (``AlphabetReady``, one ``MergeStep`` per merge; a
``Progress`` as steps 2 and 3 and the final model start) and returns the model. The preset
(``presets.py``) only builds the pipeline around it and counts the corpus's words.
The merge loop reads like the textbook one (``textbook.py``, which the tests check it
against), but pair counts come from a ``PairIndex`` (updated incrementally) and the best
pair from a heap with lazy deletion, so a merge costs only what it touches.

Ties between equally frequent pairs are broken by ``tie_break``:

- ``"first"`` (default): the pair met first when scanning the corpus words in order of
  first appearance, each left to right — what ``max(counts, key=counts.get)`` gives over
  an insertion-ordered counter, as in the textbooks;
- ``"lex_min"`` / ``"lex_max"``: the smallest / largest pair comparing its two symbols as
  strings (for byte-level BPE: as bytes).

>>> from subwordlab.trainers.pairs import PairIndex
>>> vocab = ["a", "b", "c"]
>>> index = PairIndex([(0, 1, 2), (0, 1)], [1, 1], [1, 1, 1])
>>> [(s.pair, s.count) for s in merge_steps(index, vocab, num_merges=2) if s.kind == "merge"]
[(('a', 'b'), 2), (('ab', 'c'), 1)]
"""

import bisect
import heapq

from ..base.events import AlphabetReady, MergeStep, Progress
from ..models.bpe import BPE
from ..text.bytes_map import BYTE_TO_CHAR, text_to_bytes
from ..text.corpus import MAX_SENTENCE_LENGTH, MAX_WORD_SYMBOLS, check_max_sentence_length, cut_long, head_bytes, long_words_note
from .alphabet import covered_characters
from .pairs import PairIndex

TIE_BREAKS = ("first", "lex_min", "lex_max")


def train(counts, *, special_tokens=(), unk_token=None, end_of_word=None, byte_level=False, byte_fallback=False,
          user_defined_symbols=(), character_coverage=1.0, initial_alphabet="", num_merges=None, vocab_size=None,
          min_frequency=1, tie_break="first", top_k=10, max_token_length=None,
          max_sentence_length=MAX_SENTENCE_LENGTH):
    """Train BPE on word counts: yields events, returns ``(model, special_ids, merges)``.

    ``counts``: ``{word: count}`` in order of first appearance (byte-level: words as GPT-2
    byte characters). ``user_defined_symbols`` are tokens of their own, never merged.
    ``max_sentence_length``: a longer word (in UTF-8 bytes) trains on its first
    ``max_sentence_length`` bytes only, as in Unigram (None: no limit), and
    ``AlphabetReady.notes`` says so.

    >>> events = list(train({"low": 5, "lower": 2}, end_of_word="</w>", num_merges=2))
    >>> [e.pair for e in events if e.kind == "merge"]
    [('l', 'o'), ('lo', 'w')]
    """
    check_max_sentence_length(max_sentence_length)
    if user_defined_symbols:
        defined = set(user_defined_symbols)
        counts = {w: n for w, n in counts.items() if w not in defined}

    # step 1: the starting vocabulary: special tokens first, then the base symbols
    unk = unk_token
    vocab = ([unk] if unk else []) + [s for s in special_tokens if s != unk]
    specials = {s: i for i, s in enumerate(vocab) if s in special_tokens}
    vocab += [s for s in user_defined_symbols if s not in vocab]
    if byte_level:
        vocab += BYTE_TO_CHAR
        alphabet = set(BYTE_TO_CHAR)
    else:
        if byte_fallback:
            vocab += [f"<0x{b:02X}>" for b in range(256)]
        alphabet = covered_characters(counts, character_coverage) | set(initial_alphabet or "")
        vocab += sorted(alphabet - set(vocab))
        if end_of_word and end_of_word not in vocab:
            vocab.append(end_of_word)
    token_to_id = {t: i for i, t in enumerate(vocab)}
    reserved = {token_to_id[s]: s for s in [unk, *special_tokens] if s}  # no merge may build these
    if len(token_to_id) != len(vocab):
        raise ValueError("a special token collides with a base symbol; rename the special token")
    if vocab_size is not None and vocab_size < len(vocab):
        raise ValueError(f"vocab_size={vocab_size} is smaller than the starting vocabulary "
                         f"({len(vocab)} base symbols and special tokens); use at least {len(vocab)}")

    # step 2: every word as base-symbol ids (uncovered characters split a word: they never merge;
    # a word longer than max_sentence_length bytes trains on its first max_sentence_length bytes)
    limited = []
    yield Progress("words", 0, len(counts))
    words, freqs = symbol_runs(counts, alphabet, token_to_id, end_of_word, max_sentence_length, byte_level, limited)
    notes = (long_words_note(len(limited), max(limited), max_sentence_length),) if limited else ()

    # step 3: the pair index: every adjacent pair, its count and where it occurs
    yield Progress("index", 0, len(words))
    index = PairIndex(words, freqs, [1] * len(vocab))
    del words  # (the index holds the words as slots now; their tuples were a tenth of a big run's memory)
    yield AlphabetReady(alphabet=list(vocab), vocab_size=len(vocab), distinct_words=len(counts), notes=notes)

    # step 4: the merge loop (byte-level ties compare the tokens' bytes)
    merges = yield from merge_steps(
        index, vocab, token_to_id, num_merges=num_merges, vocab_size=vocab_size, min_frequency=min_frequency,
        tie_break=tie_break, top_k=top_k, token_key=text_to_bytes if byte_level else None,
        max_token_length=max_token_length, reserved=reserved)
    # step 5: the model: the vocabulary and the merges in rank order
    yield Progress("model", 0, 0)
    del index, freqs
    model = BPE(vocab, merges, unk_token=unk, end_of_word=end_of_word, byte_level=byte_level, byte_fallback=byte_fallback)
    return model, specials, merges


def symbol_runs(counts, alphabet, token_to_id, eow, max_bytes=None, byte_level=False, limited=None):
    """The words of ``counts`` as runs of base-symbol ids, with their counts: ``(runs, freqs)``.

    Example (alphabet a-z, eow '</w>'): {'low': 5} -> ([[l, o, w, </w>]], [5]); an uncovered
    character ends a run: 'lo?w' -> [l, o], [w, </w>]. A word longer than ``max_bytes`` UTF-8
    bytes (None: no limit) gives its first ``max_bytes`` bytes only, with no end-of-word
    marker (that is not where it ends); ``limited``, a list, receives the byte length of each.
    Byte-level words (GPT-2 byte characters) have one byte per character.
    """
    words, freqs = [], []
    at = {}  # a cut-up word's part -> its index in words
    for word, n in counts.items():
        ends = True  # (the word ends here, so it gets the end-of-word marker)
        if max_bytes is not None and len(word) * (1 if byte_level else 4) > max_bytes:  # (a character: up to 4 bytes)
            size = len(word) if byte_level else len(word.encode("utf-8"))
            if size > max_bytes:
                limited.append(size)
                word, ends = (word[:max_bytes] if byte_level else head_bytes(word, max_bytes)), False
        if ends and word and len(word) < MAX_WORD_SYMBOLS and alphabet.issuperset(word):
            # every character covered (always, byte-level): the word is one run, mapped at C
            # speed (measured: 0.21 -> 0.15 s for udhr_many's 107k words)
            ids = tuple(map(token_to_id.__getitem__, word))
            words.append(ids + (token_to_id[eow],) if eow else ids), freqs.append(n)
            continue
        runs, run = [], []
        for ch in word:
            if ch in alphabet:
                run.append(token_to_id[ch])
            elif run:
                runs.append(run)
                run = []
        if eow and ends and run and word[-1] in alphabet:
            run.append(token_to_id[eow])
        if run:
            runs.append(run)
        for run in runs:
            parts = cut_long(run)
            if len(parts) == 1:
                words.append(tuple(run)), freqs.append(n)
                continue
            # subtle: a huge word (with max_sentence_length raised) trains as runs of bounded
            # length; parts that repeat (one character repeated) are one word with their counts
            # added (the same pair counts, and first occurrences stay first)
            for part in parts:
                part = tuple(part)
                k = at.setdefault(part, len(words))
                if k == len(words):
                    words.append(part), freqs.append(n)
                else:
                    freqs[k] += n
    return words, freqs


def merge_steps(index, vocab, token_to_id=None, *, num_merges=None, vocab_size=None,
                min_frequency=1, tie_break="first", top_k=10, token_key=None, max_token_length=None,
                reserved=None):
    """Run the merge loop on ``index``, appending new tokens to ``vocab`` (a list, grown in
    place) and yielding one ``MergeStep`` per merge. Stops after ``num_merges`` merges, when
    ``vocab`` reaches ``vocab_size`` entries, or when no pair reaches ``min_frequency``.
    The merges, as ``(left_id, right_id)`` in rank order, are the generator's return value.
    ``reserved`` maps the ids of special tokens to their text: a merge that builds one of
    them is refused (the text and the special token would share an id).
    """
    if token_to_id is None:
        token_to_id = {t: i for i, t in enumerate(vocab)}
    ranking = Ranking(index, vocab, tie_break, token_key)
    merges = []
    while (num_merges is None or len(merges) < num_merges) and (vocab_size is None or len(vocab) < vocab_size):
        # step 1: the best pairs by count (ties by the tie-break rule), best first
        top = ranking.top(max(1, top_k))
        if max_token_length:
            while top and index.sym_len[top[0][0][0]] + index.sym_len[top[0][0][1]] > max_token_length:
                # subtle: a pair that would make a too-long token is dropped for good
                ranking.current.pop(top[0][0])
                top = ranking.top(max(1, top_k))
        if not top or top[0][1] < min_frequency:
            break
        (a, b), count = top[0]
        # step 2: the new token (reusing the id if the string already exists)
        new_tok = vocab[a] + vocab[b]
        new = token_to_id.get(new_tok)
        if reserved and new in reserved:
            # subtle: reusing the id would make this corpus text encode as the special token
            raise ValueError(
                f"the special token {new_tok!r} is a piece the merges build from the corpus (merge "
                f"#{len(merges) + 1}: {vocab[a]!r} + {vocab[b]!r}), so BPE would give that text and the "
                f"special token the same id; choose a special token that is not in the text, such as '<unk>'")
        if new is None:
            new = token_to_id[new_tok] = len(vocab)
            vocab.append(new_tok)
            index.sym_len.append(index.sym_len[a] + index.sym_len[b])
            ranking.add_token()
        merges.append((a, b))
        # step 3: merge it everywhere and re-rank the pairs whose counts changed
        gained, shrunk, _ = index.merge((a, b), new)
        ranking.current.pop((a, b), None)
        ranking.update(gained, shrunk)
        yield MergeStep(
            rank=len(merges) - 1,
            pair=(vocab[a], vocab[b]),
            count=count,
            new_token=new_tok,
            candidates=[((vocab[p[0]], vocab[p[1]]), c) for p, c in top],
            vocab_size=len(vocab),
        )
    return merges


# -- the heap of pairs (step 4's ranking) -------------------------------------------------

def _power_below(n):
    """The highest power of two at most ``n`` (0 for 0). Example: 12 -> 8."""
    return 1 << (n.bit_length() - 1) if n > 0 else 0


def _reverse_key(key):
    """A key that sorts strings/bytes in reverse. Example: 'ab' sorts before 'a'."""
    return tuple(-c if isinstance(c, int) else -ord(c) for c in key) + (1,)


class Ranking:
    """The candidate pairs, best first: a heap of entries ``(key, pair)`` whose smallest
    entry is the best pair. ``current[pair]``: the pair's live key; heap entries with
    another key are stale and skipped (lazy deletion). Pairs occurring fewer than
    ``min_count`` times are not candidates.

    A key orders by count (highest first: ``-count``), then by the tie-break rule. For
    ``"first"`` the key is one integer, ``-count * 2**tie_bits + first_occurrence``: int
    comparisons instead of nested tuples make the heap's pops and pushes cheaper, and the
    entries smaller. For the lexical rules it is ``(-count, left_key, right_key)``.

    Measured (byte-BPE, Shakespeare, vocab 8,000, CPU): this key, ``held`` in ``best`` and
    the lazy ``worse`` pairs in ``update`` together take the ranking from 0.37 s to 0.20 s
    (``update`` 0.15 -> 0.09, ``best`` 0.22 -> 0.11).

    A pair whose value (its count, or WordPiece's score in fixed point) is below ``floor``
    (a power of two) need not be in the heap: it is *parked* (``parked[v.bit_length()]``
    holds the pairs parked with value ``v``; a pair may have changed since: every change
    re-ranks it, and a pair that rises to the floor joins the heap). Every candidate at or
    above the floor is in the heap, so the heap's ``k`` best pairs are the best of all when
    the ``k``-th reaches the floor; when it does not, ``best`` halves the floor and moves
    the parked pairs that reach it into the heap. Most pairs a merge makes or re-scores
    never come near the top: parked, they cost a list append, not a heap push, and the
    heap stays small (a pop in a heap of 200k entries is memory-bound: 6.7 us, udhr_many
    byte-BPE). Measured, training CPU, median of four interleaved runs: byte-BPE to 8,000 on udhr_many 2.61 ->
    2.15 s, on Shakespeare 0.45 -> 0.40 s; plain BPE on 1 MB of random bytes 2.26 -> 1.76 s;
    WordPiece by score (a merge re-scores every pair next to its two parts, ~340 on random
    bytes, mostly far from the top) on random bytes 4.02 -> 1.70 s, on Shakespeare 1.20 ->
    0.74 s.
    """

    unit = shift = None  # WordPiece's likelihood ranking (wordpiece._ScoreRanking) ranks by score

    def __init__(self, index, vocab, tie_break, token_key, min_count=1):
        if tie_break not in TIE_BREAKS:
            raise ValueError(f"tie_break must be one of {', '.join(TIE_BREAKS)}, not {tie_break!r}")
        self.index, self.vocab, self.tie_break = index, vocab, tie_break
        self.min_count = min_count
        self.token_key = token_key or (lambda tok: tok)
        self.keys = [self._token_key(t) for t in vocab]
        # first_occurrence < 2**tie_bits (PairIndex.first: a slot)
        self.tie_bits = index.slot_bound().bit_length()
        self.current = {}
        self.heap = []
        self.held = []  # the best entries, taken off the heap (see ``best``)
        self.dirty = set()  # pairs whose entry may rank them too high (see ``update``)
        # parking: the floor starts at half the highest count; by score at the highest value a score
        # can have (1: a pair is at most as frequent as its parts), halved by ``best`` as needed
        self.parked = {}
        self.floor = 1 << self.shift if self.unit else _power_below(max(index.counts.values(), default=0) // 2)
        self.update(index.counts)
        heapq.heapify(self.heap)

    def _token_key(self, tok):
        key = self.token_key(tok)
        return _reverse_key(key) if self.tie_break == "lex_max" else key

    def add_token(self):
        self.keys.append(self._token_key(self.vocab[-1]))

    def key(self, pair):
        """The ranking key of a live pair now (see the class docstring)."""
        n, (a, b) = self.index.counts[pair], pair
        # by score: -exact_score_key(n, unit[a], unit[b], shift) (wordpiece.py)
        value = -((n << self.shift) // (self.unit[a] * self.unit[b])) if self.unit else -n
        if self.tie_break == "first":
            return (value << self.tie_bits) + self.index.first_occurrence(pair)
        return (value, self.keys[a], self.keys[b])

    def update(self, pairs, worse=()):
        """Re-rank ``pairs`` (their counts changed): push a new entry for each whose key
        changed, forget those no longer candidates. One inlined loop, not a call to ``key``
        per pair (a likelihood-scored WordPiece merge re-keys ~100 pairs).

        ``worse``: pairs that only lost occurrences, so their key can only have got worse
        (a lower count, a later first occurrence). They are not re-keyed now but marked
        ``dirty``: their entry ranks them too high, and ``best`` re-keys them if they come
        up to the top. Most never do: a byte-BPE merge shrinks ~4 pairs and makes ~4 new
        ones, and re-keying the shrunk ones cost half the pushes and most of the
        first-occurrence searches.
        """
        counts, current, heap, push = self.index.counts, self.current, self.heap, heapq.heappush
        first, keys = self.index.first, self.keys
        by_first, min_count, tie_bits = self.tie_break == "first", self.min_count, self.tie_bits
        unit, shift, dirty = self.unit, self.shift, self.dirty
        floor, park = self.floor, self.parked.setdefault
        for pair in worse:
            if counts.get(pair, 0) < min_count:
                current.pop(pair, None)
                dirty.discard(pair)
            elif pair in current:
                dirty.add(pair)
        for pair in pairs:
            n = counts.get(pair, 0)
            if n < min_count:
                current.pop(pair, None)
                dirty.discard(pair)
                continue
            a, b = pair
            # by score: exact_score_key(n, unit[a], unit[b], shift) (wordpiece.py), inlined
            value = (n << shift) // (unit[a] * unit[b]) if unit else n
            if value < floor and pair not in current:
                park(value.bit_length(), []).append(pair)  # (not a candidate until the floor comes down)
                continue
            value = -value  # (best first)
            if by_first:
                tie = first.get(pair)
                if tie is None:
                    # where the pair comes first is not known: rank it as if at the very
                    # start (the key can only rise), dirty; ``best`` searches it only if it
                    # comes up to the top (measured: 180k of 190k searches saved, udhr_many)
                    key = value << tie_bits
                    dirty.add(pair)
                else:
                    key = (value << tie_bits) + tie
                    dirty.discard(pair)
            else:
                key = (value, keys[a], keys[b])
                dirty.discard(pair)
            if current.get(pair) != key:
                current[pair] = key
                push(heap, (key, pair))

    def _rekeyed_live(self, entry):
        """Whether the entry of a dirty pair (whose ``current`` key the entry holds) is
        still true: the pair is re-keyed, and pushed again with its true key when that
        differs."""
        key, pair = entry
        self.dirty.discard(pair)
        true = self.key(pair)
        if true == key:
            return True
        self.current[pair] = true
        heapq.heappush(self.heap, (true, pair))
        return False

    def best(self, k):
        """The ``k`` best live entries ``(key, pair)``, best first.

        The entries taken off the heap stay out of it, in ``held`` (sorted), while they are
        live: the next step takes from the heap only what beats them. Popping the k best
        and pushing them back every step cost 28 us of the ~100 us of a byte-BPE step on
        Shakespeare (20 heap operations); this costs the few pops of what changed.
        Stale entries are dropped as they come to the top (lazy deletion).
        """
        heap, current, dirty, rekeyed_live, pop = self.heap, self.current, self.dirty, self._rekeyed_live, heapq.heappop
        # the entries held since the last step whose pair did not change since (an entry is
        # live if it holds its pair's current key, re-keyed first if the pair is dirty)
        held = [e for e in self.held if current.get(e[1]) == e[0] and (e[1] not in dirty or rekeyed_live(e))]
        while True:
            # take from the heap every live entry that beats the k-th held one
            while heap and (len(held) < k or heap[0] < held[k - 1]):
                e = pop(heap)
                if current.get(e[1]) == e[0] and (e[1] not in dirty or rekeyed_live(e)):
                    i = bisect.bisect_left(held, e)
                    if i == len(held) or held[i] != e:  # (a pair whose key changed and changed back is in the heap twice)
                        held.insert(i, e)
            # the k-th beats every parked pair if it reaches the floor (or nothing is parked)
            if not self.parked or (len(held) >= k and self._value(held[k - 1][0]) >= self.floor):
                break
            self._lower_floor()
        for e in held[k:]:
            heapq.heappush(heap, e)
        del held[k:]
        self.held = held
        # keep the heap from filling up with stale entries
        if len(heap) > 4 * len(current) + 1024:
            out = {p for _, p in held}
            self.heap = [(key, p) for p, key in current.items() if p not in out]
            heapq.heapify(self.heap)
        return list(held)

    def _value(self, key):
        """The value (count, or score in fixed point) of a live entry's key."""
        return -(key >> self.tie_bits) if self.tie_break == "first" else -key[0]

    def _lower_floor(self):
        """Halve the floor: the parked pairs that reach it join the heap (``update``), the
        others (which lost occurrences while parked) are parked again with their value."""
        self.floor //= 2
        back, level = [], self.floor.bit_length()  # (values >= floor: bit length > level - 1)
        for n in [n for n in self.parked if n >= level]:
            back += self.parked.pop(n)
        current = self.current
        self.update([p for p in back if p not in current])

    def top(self, k):
        """The ``k`` best live pairs as ``(pair, count)``, best first."""
        counts = self.index.counts
        return [(p, counts[p]) for _, p in self.best(k)]
