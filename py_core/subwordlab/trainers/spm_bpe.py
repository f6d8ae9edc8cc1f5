"""BPE trained as ``spm_train --model_type=bpe`` trains (``rules="sentencepiece"``): a port
of sentencepiece/src/bpe_model_trainer.cc and the parts of trainer_interface.cc it uses.

What it does differently from the textbook trainer (``bpe.py``):

- the alphabet is the *required characters*: by count (highest first, ties by code point)
  until ``character_coverage`` of all character occurrences is covered (the share compared
  as a float32, as spm does); any other character is unknown and never merges;
- a pair's merged piece must be a valid SentencePiece piece (``unigram_seed.is_valid_piece``:
  not longer than ``max_piece_length``, ▁ only first, one script, digits alone with
  ``split_digits``) or the pair is never a candidate;
- the best pair: the highest count, then the **shorter** piece, then the smaller string;
  a pair whose piece is already in the vocabulary (the same string reached by another
  path, e.g. ``aa + a`` and ``a + aa``) is dropped, never merged;
- the vocabulary: ``<unk>``, the control and other reserved pieces first, then the merged
  pieces in order (score ``-i`` for the i-th), then the required characters, most
  frequent first (scores continuing ``-i``).

- when no pair occurs any more, spm does not stop: the pairs it met and never merged (its
  cache keeps them, at count 0) become pieces, the shorter first, then the smaller string.

One thing is not ported: spm looks for the best pair only among its *active* pairs (the
top 5 % by count, at least 1,000, refreshed every 100 merges, ties at the cut in the order
of a ``std::unordered_map`` and ``std::partial_sort``); here every pair is a candidate.
The two choose differently only when a pair outside spm's active set ties with or beats
all those in it: none of the differential tests (up to 20,000 pieces on Shakespeare)
meets that, but the zero-count tail of an exhausted corpus with more than 1,000 such
pairs would.

>>> steps = list(train_spm_bpe({"▁ab": 3, "▁b": 1}, {"b": 4, "▁": 4, "a": 3}, num_pieces=2))
>>> [s.new_token for s in steps if s.kind == "merge"]   # ab: 3, ▁a: 3, ▁b: 1; ab is the smaller string
['ab', '▁ab']
"""

import functools
import heapq
import struct

from ..base.events import AlphabetReady, MergeStep
from ..text.special import alternation
from .unigram_seed import is_valid_piece

UNK_CHAR = "\u2585"  # kUNKChar: what a character outside the required ones becomes
BOUNDARY_CHAR = "\u001f"  # kPretokenizationBoundaryChar: a reserved piece's text becomes it; never in a piece


def float32(x):
    """``x`` rounded to a C float. Example: float32(0.1) -> 0.10000000149011612."""
    return struct.unpack("f", struct.pack("f", x))[0]


def required_chars(counts, character_coverage=1.0):
    """``{char: count}`` of the characters spm keeps (``LoadSentences``), in its order:
    count descending, then code point. ``counts``: ``{word: count}``.

    >>> required_chars({"▁aab": 2, "▁c": 1}, 0.7)
    {'a': 4, '▁': 3}
    >>> required_chars({"▁a\\x1f\\x1f": 2})  # (the boundary counts toward the coverage but is never kept)
    {'a': 2, '▁': 2}
    """
    # step 1: every character's count (a tab too: spm 0.2.3 keeps it, later versions leave it out)
    freq = {}
    for word, n in counts.items():
        for ch in word:
            freq[ch] = freq.get(ch, 0) + n
    total = sum(freq.values())
    # step 2: the most frequent until the covered share (a float32) reaches the coverage
    kept, seen, cover = {}, 0, float32(character_coverage)
    for ch, n in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0])):
        if float32(seen / total) >= cover:
            break
        seen += n
        if ch != BOUNDARY_CHAR:
            kept[ch] = n
    return dict(sorted(kept.items(), key=lambda kv: (-kv[1], kv[0])))


def reserved_pieces(unk_token, special_tokens=(), user_defined_symbols=(), byte_fallback=False):
    """The pieces spm_train reserves before any it learns, in its order: the unk, the special
    (control) tokens, the user-defined symbols, the 256 bytes (``byte_fallback``).

    >>> reserved_pieces("<unk>", ["<s>", "<unk>"], ["<sep>"])
    ['<unk>', '<s>', '<sep>']
    """
    meta = list(dict.fromkeys(([unk_token] if unk_token else []) + list(special_tokens) + list(user_defined_symbols)))
    return meta + [f"<0x{b:02X}>" for b in range(256)] if byte_fallback else meta


@functools.lru_cache(maxsize=8)
def _reserved_matcher(meta):
    return alternation(meta)  # (longest first: spm's PrefixMatcher takes the longest at each place)


def boundaries_for(sentence, meta):
    """The reserved pieces' text in a sentence replaced by ``BOUNDARY_CHAR`` (spm's
    PrefixMatcher: the longest one at each place). Example: ('▁a<s>b', ['<s>']) -> '▁a\\x1fb'."""
    return _reserved_matcher(tuple(meta)).sub(BOUNDARY_CHAR, sentence) if meta else sentence


def meta_as_boundaries(counts, meta):
    """``counts`` (``{word: count}``) with ``boundaries_for`` applied to each word; words
    made equal add up, at the first one's place.

    >>> meta_as_boundaries({"▁a<s>": 2, "▁a</s>": 1, "▁b": 4}, ["<unk>", "<s>", "</s>"])
    {'▁a\\x1f': 3, '▁b': 4}
    """
    out = {}
    for word, n in counts.items():
        word = boundaries_for(word, meta)
        out[word] = out.get(word, 0) + n
    return out


def train_spm_bpe(counts, required, *, num_pieces, max_piece_length=16, split_digits=False, top_k=10):
    """Yields ``AlphabetReady`` and one ``MergeStep`` per merged piece; returns ``(pieces,
    pairs)``: the merged pieces in order and the ``(left, right)`` strings that made each.

    ``counts``: ``{word: count}`` (words start with ▁); ``required``: ``required_chars``;
    ``num_pieces``: how many pieces to merge (spm: vocab_size minus the reserved pieces
    and the required characters).
    """
    # step 1: every word as its characters (unknown ones as UNK_CHAR)
    words, freqs = [], []
    for word, n in counts.items():
        words.append([c if c in required else UNK_CHAR for c in word])
        freqs.append(n)
    yield AlphabetReady(alphabet=list(required), vocab_size=len(required), distinct_words=len(counts))

    # step 2: every valid pair's count and the words it occurs in (GetPairSymbol: no unknown
    # character, a valid piece); ``order``: when the pair was first met (spm's allocation order)
    valid, order = {}, {}

    def is_pair(p):
        ok = valid.get(p)
        if ok is None:
            ok = valid[p] = (UNK_CHAR not in p and BOUNDARY_CHAR not in p  # (a reserved piece was there)
                             and is_valid_piece(p[0] + p[1], max_piece_length, split_digits, spm=True))
            if ok:
                order[p] = len(order)
        return ok

    count, where = {}, {}
    for w, syms in enumerate(words):
        n = freqs[w]
        for p in zip(syms, syms[1:]):
            if is_pair(p):
                count[p] = count.get(p, 0) + n
                where.setdefault(p, set()).add(w)

    def key(p):  # the best first: the highest count, the shorter piece, the smaller string
        piece = p[0] + p[1]
        return (-count[p], len(piece), piece, order[p], p)

    heap = [key(p) for p in count]
    heapq.heapify(heap)
    pieces, pairs, done, made = [], [], set(), set()

    # step 3: the merges
    while len(pieces) < num_pieces:
        top = _best(heap, count, done, max(1, top_k))
        if not top:
            # step 4: no pair occurs any more: spm goes on with the pairs it ever met, which
            # now occur 0 times (its cache keeps them; nothing stops at a count of 0), the
            # shorter piece first, then the smaller string
            yield from _zero_count_pieces(order, done, made, pieces, pairs, num_pieces, len(required))
            break
        p = heapq.heappop(heap)[4]
        piece = p[0] + p[1]
        done.add(p)
        if piece in made:
            # the same piece by another path: dropped, never merged (spm's ``dup``)
            count.pop(p, None)
            where.pop(p, None)
            continue
        made.add(piece)
        pieces.append(piece)
        pairs.append(p)
        # merge every occurrence, left to right; the neighbours' pairs move
        changed = set()
        for w in where.pop(p, ()):
            _merge_word(words[w], p, piece, freqs[w], w, count, where, changed, is_pair)
        count.pop(p, None)
        for q in changed:
            if q in count and q not in done:
                if count[q] > 0:
                    heapq.heappush(heap, key(q))
                else:
                    del count[q]
        yield MergeStep(rank=len(pieces) - 1, pair=p, count=-top[0][0][0], new_token=piece,
                        candidates=[(q, -k[0]) for k, q in top], vocab_size=len(required) + len(pieces))
    return pieces, pairs


def _zero_count_pieces(order, done, made, pieces, pairs, num_pieces, n_required):
    """Step 4 of ``train_spm_bpe``: the pairs met but never merged, as pieces that occur 0 times.

    Exact while spm's active set holds all of them (at most 1,000, or 5 % of its cache);
    beyond that spm keeps a subset that depends on its hash map's order (not ported)."""
    rest = sorted((p for p in order if p not in done), key=lambda p: (len(p[0] + p[1]), p[0] + p[1], order[p]))
    for p in rest:
        if len(pieces) >= num_pieces:
            break
        piece = p[0] + p[1]
        done.add(p)
        if piece in made:
            continue
        made.add(piece)
        pieces.append(piece)
        pairs.append(p)
        yield MergeStep(rank=len(pieces) - 1, pair=p, count=0, new_token=piece, candidates=[(p, 0)],
                        vocab_size=n_required + len(pieces))


def _merge_word(syms, p, piece, n, w, count, where, changed, is_pair):
    """Merge every ``p`` in ``syms`` (a list, changed in place) left to right; moves the
    neighbours' counts."""
    a, b = p
    i = 0
    while i < len(syms) - 1:
        if syms[i] == a and syms[i + 1] == b:
            if i > 0:
                _move(count, where, changed, is_pair, (syms[i - 1], a), (syms[i - 1], piece), n, w)
            if i + 2 < len(syms):
                _move(count, where, changed, is_pair, (b, syms[i + 2]), (piece, syms[i + 2]), n, w)
            syms[i:i + 2] = (piece,)
        i += 1


def _move(count, where, changed, is_pair, lost, won, n, w):
    """One occurrence (weight ``n``, word ``w``) of ``lost`` becomes one of ``won``."""
    if lost in count:
        count[lost] -= n
        changed.add(lost)
    if is_pair(won):
        count[won] = count.get(won, 0) + n
        where.setdefault(won, set()).add(w)
        changed.add(won)


def _best(heap, count, done, k):
    """The ``k`` best live pairs as ``(key, pair)``, best first; the best is left at the top
    of the heap. Entries whose count changed are pushed back with the count now."""
    out, live, seen = [], [], set()
    while heap and len(out) < k:
        e = heapq.heappop(heap)
        p = e[4]
        if p in done or p not in count or p in seen:
            continue
        if -e[0] != count[p]:
            if count[p] > 0:
                heapq.heappush(heap, (-count[p],) + e[1:])
            continue
        seen.add(p)
        live.append(e)
        out.append((e, p))
    for e in live:
        heapq.heappush(heap, e)
    return out


def train(counts, *, unk_token="<unk>", special_tokens=("<s>", "</s>"), user_defined_symbols=(), byte_fallback=False,
          character_coverage=1.0, vocab_size=None, num_merges=None, max_piece_length=16, split_digits=False, top_k=10):
    """SentencePiece BPE as spm_train: yields the events, returns ``(model, special_ids, merges)``
    as ``bpe.train`` does. The vocabulary: ``unk_token``, the special tokens, the
    user-defined symbols, the 256 ``<0xHH>`` bytes (``byte_fallback``), the merged pieces,
    the required characters.

    >>> from subwordlab.base.events import drain
    >>> model, _, _ = drain(train({"▁ab": 3, "▁b": 1}, vocab_size=7))
    >>> model.vocab
    ['<unk>', '<s>', '</s>', 'ab', 'b', '▁', 'a']
    """
    from ..models.bpe import BPE

    # step 1: the reserved pieces, in spm's order
    meta = reserved_pieces(unk_token, special_tokens, user_defined_symbols, byte_fallback)
    # (a reserved piece's text in a word, a user-defined symbol's too, is spm's boundary
    # character, which no pair crosses, and which only counts toward the coverage)
    counts = meta_as_boundaries(counts, meta)
    # step 2: the required characters; the number of pieces to merge
    required = required_chars(counts, character_coverage)
    if num_merges is None:
        num_pieces = vocab_size - len(meta) - len(required)
        if num_pieces < 0:
            raise ValueError(f"vocab_size={vocab_size} is smaller than the reserved pieces and required characters "
                             f"({len(meta) + len(required)}); raise it or lower character_coverage (spm_train refuses too)")
    else:
        num_pieces = num_merges
    # step 3: the merges
    pieces, pairs = yield from train_spm_bpe(counts, required, num_pieces=num_pieces, max_piece_length=max_piece_length,
                                             split_digits=split_digits, top_k=top_k)
    vocab = meta + pieces + [c for c in required if c not in meta]
    if vocab_size is not None and len(vocab) < vocab_size:  # (spm_train's hard_vocab_limit)
        raise ValueError(f"vocab_size={vocab_size} is more than this corpus gives: spm_train stops with 'Vocabulary "
                         f"size too high ({vocab_size}). Please set it to a value <= {len(vocab)}'; use "
                         f"vocab_size={len(vocab)} or less")
    ids = {t: i for i, t in enumerate(vocab)}
    merges = [(ids[a], ids[b]) for a, b in pairs]
    # (spm's encoder makes a run of unknown characters one unk piece)
    model = BPE(vocab, merges, unk_token=unk_token, byte_fallback=byte_fallback, fuse_unk=True)
    return model, {s: ids[s] for s in dict.fromkeys(([unk_token] if unk_token else []) + list(special_tokens))}, merges
