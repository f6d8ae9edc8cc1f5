"""BPE (and WordPiece) trained as the Hugging Face ``tokenizers`` library trains them
(``rules="hf"``): a step-by-step port of ``BpeTrainer::do_train``
(tokenizers/src/models/bpe/trainer.rs and word.rs, 0.2x), which ``WordPieceTrainer`` runs
with ``continuing_subword_prefix="##"``.

What makes it differ from the textbook trainer (``bpe.py``):

- ids: special tokens first, then the alphabet **sorted by code point** (for byte-level
  BPE the 256 GPT-2 byte characters sorted as characters, not by byte), then the
  ``##``-prefixed / suffixed characters in the order words are visited, then one id per merge;
- ties between equally frequent pairs go to the pair with the **smaller ids** (left id,
  then right id): its heap orders ``Merge`` by count, then ``other.pair.cmp(&self.pair)``;
- a character left out of the alphabet (``limit_alphabet``) is dropped from its word, so
  its neighbours become adjacent;
- its bookkeeping quirks, kept on purpose: a merged pair's count is never taken back, and
  a heap entry merges only the words it was pushed with, so a merge whose result is a
  token that already exists (an id reused) can later make the same pair merge again.

One thing HF itself does not fix: the ids of ``##x`` / ``x</w>`` tokens follow the
iteration order of a hash map (it changes from run to run; so can ties that depend on
those ids, and ``limit_alphabet``'s choice among equally frequent characters). Here words
are visited in order of first appearance (ties of ``limit_alphabet``: the smaller code
point goes first); ``decorated_order`` replays a given order (a test takes it from an HF run).

>>> steps = list(train_hf_bpe({"ab": 2, "ba": 2}, num_merges=1))
>>> steps[0].alphabet, steps[1].pair          # ties: the pair with the smaller ids
(['a', 'b'], ('a', 'b'))
"""

import heapq

from ..base.events import AlphabetReady, MergeStep

BIG = 1 << 64  # an initial-alphabet character counts more than any other (HF: usize::MAX)


def hf_alphabet(counts, initial_alphabet=(), limit_alphabet=None):
    """The characters ``BpeTrainer::compute_alphabet`` keeps, sorted by code point.

    >>> hf_alphabet({"aab": 2, "c": 1}, limit_alphabet=2)
    ['a', 'b']
    """
    # step 1: every character's count, weighted by word counts; the initial alphabet's are the highest
    freq = {}
    for word, n in counts.items():
        for ch in word:
            freq[ch] = freq.get(ch, 0) + n
    for ch in initial_alphabet or ():
        freq[ch] = BIG
    # step 2: limit_alphabet drops the rarest (HF breaks ties in hash order; here by code point)
    kept = sorted(freq.items(), key=lambda kv: (kv[1], kv[0]))
    if limit_alphabet is not None and len(kept) > limit_alphabet:
        kept = kept[len(kept) - limit_alphabet:]
    # step 3: sorted by code point
    return sorted(ch for ch, _ in kept)


def merge_word(word, a, b, new):
    """``Word::merge``: merge every ``(a, b)`` of ``word`` (a list, changed in place) left to
    right; returns the pair changes ``[(pair, +1 or -1), ...]``. The merged pair itself is
    not counted down (HF's quirk).

    >>> w = [1, 1, 1]
    >>> merge_word(w, 1, 1, 9), w
    ([((1, 1), -1), ((9, 1), 1)], [9, 1])
    """
    changes = []
    i, n = 0, len(word)
    while i < n - 1:
        if word[i] == a and word[i + 1] == b:
            if i > 0:
                prev = word[i - 1]
                changes += (((prev, a), -1), ((prev, new), 1))
            word[i:i + 2] = (new,)
            n -= 1
            if i < n - 1:
                nxt = word[i + 1]
                changes += (((b, nxt), -1), ((new, nxt), 1))
        i += 1
    return changes


def train_hf_bpe(counts, *, special_tokens=(), vocab_size=None, num_merges=None, min_frequency=0,
                 initial_alphabet=(), limit_alphabet=None, continuing_subword_prefix=None,
                 end_of_word_suffix=None, top_k=10, decorated_order=None):
    """Yields ``AlphabetReady`` and one ``MergeStep`` per merge; returns ``(vocab, merges)``:
    token strings by id, and ``(left_id, right_id, new_id)`` in merge order.

    ``counts``: ``{word: count}`` (byte-level: words as GPT-2 byte characters, with
    ``initial_alphabet`` the 256 of them). ``vocab_size`` counts the special tokens.
    """
    prefix, suffix = continuing_subword_prefix, end_of_word_suffix
    # step 1: the special tokens, in order
    vocab, ids = [], {}

    def add(tok):
        if tok not in ids:
            ids[tok] = len(vocab)
            vocab.append(tok)
        return ids[tok]

    for s in special_tokens:
        add(s)
    # step 2: the alphabet, by code point
    for ch in hf_alphabet(counts, initial_alphabet, limit_alphabet):
        add(ch)
    # step 3: the words as ids: a character outside the alphabet is dropped; the prefix goes
    # on every character but the first, the suffix on the last (new tokens get the next ids)
    if decorated_order:
        for tok in decorated_order:
            add(tok)
    words, freqs = [], []
    for word, n in counts.items():
        syms, last = [], len(word) - 1
        for i, ch in enumerate(word):
            if ch in ids:
                s = (prefix + ch if prefix and i else ch) + (suffix if suffix and i == last else "")
                syms.append(add(s))
        words.append(syms)
        freqs.append(n)
    # (a vocab_size below the starting vocabulary is no error: HF keeps it all and merges nothing)
    yield AlphabetReady(alphabet=list(vocab), vocab_size=len(vocab), distinct_words=len(counts))

    # step 4: every pair's count and the words it occurs in; one heap entry per pair:
    # [-count, left, right, seq, words] (the smallest is the best: highest count, then smaller ids)
    pair_counts, where = {}, {}
    for w, syms in enumerate(words):
        n = freqs[w]
        for p in zip(syms, syms[1:]):
            pair_counts[p] = pair_counts.get(p, 0) + n
            where.setdefault(p, set()).add(w)
    seq = 0
    queue = []
    for p, pos in where.items():
        queue.append((-pair_counts[p], p[0], p[1], seq, pos))
        seq += 1
    heapq.heapify(queue)

    # step 5: the merges
    merges = []
    cut = len(prefix) if prefix else 0
    while (vocab_size is None or len(ids) < vocab_size) and (num_merges is None or len(merges) < num_merges):
        # the best entries (a stale entry, whose count changed, goes back with its count, as HF pops it)
        top = _best(queue, pair_counts, max(1, top_k))
        if not top:
            break
        entry = heapq.heappop(queue)
        count, a, b = -entry[0], entry[1], entry[2]
        if count < 1 or min_frequency > count:
            break
        # the new token: a + b (a continuing part loses its prefix); an existing token keeps its id
        right = vocab[b]
        if cut and right.startswith(prefix):
            right = right[cut:]
        new_tok = vocab[a] + right
        new = add(new_tok)
        merges.append((a, b, new))
        # merge it in the words of this entry; count the changes; the pairs that gained go on the heap
        gained = {}
        for w in entry[4]:
            changes = merge_word(words[w], a, b, new)
            if changes:
                f = freqs[w]
                for p, change in changes:
                    pair_counts[p] = pair_counts.get(p, 0) + change * f
                    if change > 0:
                        gained.setdefault(p, set()).add(w)
        for p, pos in gained.items():
            c = pair_counts[p]
            if c > 0:
                heapq.heappush(queue, (-c, p[0], p[1], seq, pos))
                seq += 1
        yield MergeStep(rank=len(merges) - 1, pair=(vocab[a], vocab[b]), count=count, new_token=new_tok,
                        candidates=[((vocab[x], vocab[y]), c) for x, y, c in top], vocab_size=len(vocab))
    return vocab, merges


def _best(queue, pair_counts, k):
    """The ``k`` best distinct pairs ``(left, right, count)`` of the heap, best first; on
    return the best live entry is at the top. Stale entries met on the way are pushed
    back with their count now (what HF does when it pops one)."""
    live, out, seen = [], [], set()
    while queue and len(out) < k:
        e = heapq.heappop(queue)
        c = pair_counts[(e[1], e[2])]
        if -e[0] != c:
            heapq.heappush(queue, (-c,) + e[1:])
            continue
        live.append(e)
        if (e[1], e[2]) not in seen:
            seen.add((e[1], e[2]))
            out.append((e[1], e[2], c))
    for e in live:
        heapq.heappush(queue, e)
    return out


def train_byte_bpe(counts, *, special_tokens=(), vocab_size=None, num_merges=None, min_frequency=0, top_k=10):
    """Byte-level BPE as ``BpeTrainer(initial_alphabet=ByteLevel.alphabet())``: yields the
    events, returns ``(model, special_ids, merges)`` as ``bpe.train`` does.

    >>> from subwordlab.base.events import drain
    >>> model, _, merges = drain(train_byte_bpe({"ab": 2, "ba": 2}, num_merges=1))
    >>> model.vocab[0], model.vocab[merges[0][0]] + model.vocab[merges[0][1]]
    ('!', 'ab')
    """
    from ..models.bpe import BPE
    from ..text.bytes_map import BYTE_TO_CHAR

    vocab, merges = yield from train_hf_bpe(counts, special_tokens=special_tokens, vocab_size=vocab_size,
                                            num_merges=num_merges, min_frequency=min_frequency,
                                            initial_alphabet=BYTE_TO_CHAR, top_k=top_k)
    pairs = [(a, b) for a, b, _ in merges]
    model = BPE(vocab, pairs, byte_level=True)
    return model, {s: vocab.index(s) for s in dict.fromkeys(special_tokens)}, pairs


def train_wordpiece(counts, *, special_tokens=("[UNK]",), unk_token="[UNK]", continuing_subword_prefix="##",
                    max_input_chars_per_word=100, vocab_size=None, num_merges=None, min_frequency=0, top_k=10,
                    decorated_order=None):
    """WordPiece as ``WordPieceTrainer`` (BPE by count with ``##`` pieces, the vocabulary
    kept as a WordPiece model): yields the events, returns ``(model, special_ids, merges)``.
    ``unk_token`` comes first when ``special_tokens`` lacks it (HF would leave it out).

    >>> from subwordlab.base.events import drain
    >>> model, _, _ = drain(train_wordpiece({"hug": 10, "pug": 5, "hugs": 5}, num_merges=1))
    >>> model.vocab[-1]
    '##ug'
    """
    from ..models.wordpiece import WordPiece

    specials = ([unk_token] if unk_token and unk_token not in special_tokens else []) + list(special_tokens)
    vocab, merges = yield from train_hf_bpe(counts, special_tokens=specials, vocab_size=vocab_size,
                                            num_merges=num_merges, min_frequency=min_frequency,
                                            continuing_subword_prefix=continuing_subword_prefix, top_k=top_k,
                                            decorated_order=decorated_order)
    model = WordPiece(vocab, unk_token=unk_token, continuing_subword_prefix=continuing_subword_prefix,
                      max_input_chars_per_word=max_input_chars_per_word)
    ids = {t: i for i, t in enumerate(vocab)}
    return model, {s: ids[s] for s in specials}, [(a, b) for a, b, _ in merges]


def train_char_bpe(counts, *, special_tokens=(), unk_token=None, end_of_word_suffix="</w>", initial_alphabet="",
                   vocab_size=None, num_merges=None, min_frequency=0, top_k=10, decorated_order=None):
    """Character-level BPE as ``BpeTrainer(end_of_word_suffix=...)``: the suffix is glued to a
    word's last character (``t</w>`` is one starting symbol). Yields the events, returns
    ``(model, special_ids, merges)``; the model is an ``HFBPE`` (HF's encoding). ``unk_token``
    comes first when ``special_tokens`` lacks it (HF would leave it out).

    >>> from subwordlab.base.events import drain
    >>> model, _, _ = drain(train_char_bpe({"low": 5, "lower": 2}, num_merges=2))
    >>> model.vocab[-2:]
    ['lo', 'low</w>']
    """
    from ..models.hf_bpe import HFBPE

    specials = ([unk_token] if unk_token and unk_token not in special_tokens else []) + list(special_tokens)
    vocab, merges = yield from train_hf_bpe(counts, special_tokens=specials, vocab_size=vocab_size,
                                            num_merges=num_merges, min_frequency=min_frequency,
                                            initial_alphabet=initial_alphabet or (), end_of_word_suffix=end_of_word_suffix,
                                            top_k=top_k, decorated_order=decorated_order)
    pairs = [(a, b) for a, b, _ in merges]
    model = HFBPE(vocab, pairs, unk_token, end_of_word_suffix=end_of_word_suffix)
    ids = {t: i for i, t in enumerate(vocab)}
    return model, {s: ids[s] for s in specials}, pairs
