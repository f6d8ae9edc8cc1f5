"""The one check every model makes on its vocabulary, and how a model file's vocabulary,
merges and scored pieces are read (shared by the models' ``load``).

>>> index_vocab(["a", "b"])
{'a': 0, 'b': 1}
>>> index_vocab(["a", "b", "a"])
Traceback (most recent call last):
...
ValueError: token 'a' appears twice in the vocabulary (ids 0 and 2); every token must be unique
"""

import json
import math
from operator import itemgetter

from ..base.events import drain, in_chunks


def index_vocab(vocab, what="token"):
    """Token string -> id; raises ValueError naming a token that appears twice."""
    return drain(index_vocab_steps(vocab, what))


def index_vocab_steps(vocab, what="token", size=1 << 15):
    """``index_vocab`` a chunk of ``size`` tokens at a time, yielding ``(done, total)``
    between chunks (a 262,000-token vocabulary in eight C-speed steps)."""
    token_to_id = {}
    yield from in_chunks(len(vocab), lambda lo, hi: token_to_id.update(zip(vocab[lo:hi], range(lo, hi))), size)
    if len(token_to_id) == len(vocab):  # (a repeated token keeps its last id: the loop below names it)
        return token_to_id
    first = {}
    for i, tok in enumerate(vocab):
        if tok in first:
            raise ValueError(f"{what} {tok!r} appears twice in the vocabulary (ids {first[tok]} and {i}); "
                             f"every {what} must be unique")
        first[tok] = i
    raise AssertionError("unreachable: a shorter index means a repeated token")  # pragma: no cover


# -- reading a model file (``f``: a jsonio.Fields reader of the model object) -------------

def read_vocab(f):
    """``f["vocab"]``: a list of unique strings (the error names the repeated one's path)."""
    vocab = f.str_list("vocab")
    try:
        index_vocab(vocab)
    except ValueError:
        seen = {}
        for i, tok in enumerate(vocab):
            if tok in seen:
                raise f.error(f"vocab[{i}]", f"the token {tok!r} is also id {seen[tok]}; every token must be unique") from None
            seen[tok] = i
    return vocab


def read_merges(f, size, check_results_in=None):
    """``f["merges"]``: ``[[left_id, right_id], ...]`` with ids below ``size``; with
    ``check_results_in`` (the vocabulary) every merge's result must be a token too."""
    out = []
    for r, m in enumerate(f.get("merges", "list")):
        if (not isinstance(m, list) or len(m) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < size for x in m)):
            raise f.error(f"merges[{r}]", f"expected a pair of ids between 0 and {size - 1}, got {json.dumps(m)[:60]}")
        out.append((m[0], m[1]))
    if check_results_in is not None:
        vocab = check_results_in
        index = set(vocab)
        for r, (a, b) in enumerate(out):
            if vocab[a] + vocab[b] not in index:
                raise f.error(f"merges[{r}]", f"{vocab[a]!r} + {vocab[b]!r} gives {vocab[a] + vocab[b]!r}, "
                              "which is not in the vocabulary")
    return out


def read_scored_pieces(f, strict=True):
    """``f["vocab"]``: ``[[piece, score], ...]`` -> (pieces, scores); ``strict``: pieces unique, scores finite."""
    raw = f.get("vocab", "list")
    # the common case at C speed (8,000 pieces: 13 ms -> 2 ms): every entry a [str, number]
    # pair, and (strict) the pieces unique, the scores finite; the loop below names a problem
    if set(map(type, raw)) == {list} and set(map(len, raw)) == {2}:
        vocab, numbers = list(map(itemgetter(0), raw)), list(map(itemgetter(1), raw))
        if set(map(type, vocab)) == {str} and set(map(type, numbers)) <= {int, float}:
            scores = list(map(float, numbers))
            if not strict or (len(set(vocab)) == len(vocab) and all(map(math.isfinite, scores))):
                return vocab, scores
    vocab, scores, seen = [], [], {}
    for i, entry in enumerate(raw):
        if (not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str)
                or not isinstance(entry[1], (int, float)) or isinstance(entry[1], bool)):
            raise f.error(f"vocab[{i}]", f"expected [piece, score], got {json.dumps(entry, ensure_ascii=False)[:60]}")
        if strict and entry[0] in seen:
            raise f.error(f"vocab[{i}]", f"the piece {entry[0]!r} is also id {seen[entry[0]]}; every piece must be unique")
        if strict and not math.isfinite(float(entry[1])):
            raise f.error(f"vocab[{i}]", "the score must be a finite number")
        seen[entry[0]] = i
        vocab.append(entry[0])
        scores.append(float(entry[1]))
    return vocab, scores


def check_id(f, key, value, size):
    """``value`` (an id, or None) must be below ``size``."""
    if value is not None and value >= size:
        raise f.error(key, f"{value} is not an id of the vocabulary (0..{size - 1})")
