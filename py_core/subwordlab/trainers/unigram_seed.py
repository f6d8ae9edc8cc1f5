"""What a Unigram seed may be, and where the seed's candidates come from: SentencePiece's
rules for a valid piece (``is_valid_piece``: one script, ▁ only first, digits alone with
``split_digits``), the words cut to the kept alphabet (``words_in_alphabet``), and the
frequent substrings of the words (``frequent_substrings``, a depth-limited suffix array).
One module: together they are the seed of trainers/unigram.py (``seed_pieces``), and the
BPE trainers that follow SentencePiece's rules share ``is_valid_piece``.

Scripts are Unicode's Scripts.txt from the core's pinned tables (``subwordlab.text.unicode_data``),
grouped as SentencePiece groups them (``script_of``).

One deliberate difference from SentencePiece 0.2's seeds: it takes the right-maximal
substrings of the running text, on UTF-8 bytes, so a frequent word that is always followed
by a space (Hindi के, 80 times in the UDHR) is never a seed, nor is a substring that
branches only inside a multi-byte character. We work on characters and keep a substring
that ends a word occurring twice or more. On large English text the two agree (held-out
tokens per character within 0.5%); on small texts in other scripts ours is markedly better.

>>> frequent_substrings(["▁hug", "▁pug", "▁hugs"], [2, 1, 1], 4)
[('hug', 3), ('ug', 4), ('▁hug', 3)]
>>> is_valid_piece("▁hug"), is_valid_piece("hug▁"), is_valid_piece("hug,")
(True, False, False)
>>> is_valid_piece("ք։"), is_valid_piece("ք։", spm=True)
(True, False)
"""

from bisect import bisect_right
from itertools import chain

from ..text.corpus import cut_long, head_bytes
from ..text.spm_scripts import SPM_SCRIPT_EXCEPTIONS
from ..text.unicode_data import SPM_DIGITS, category, script

SPACE_MARK = "\u2581"
_ANY, _INHERITED = "", "Inherited"


# Scripts as SentencePiece groups them: Hiragana and Katakana count as Han (so Japanese
# words mix them), and the unassigned "Zzzz" as Common.
_SCRIPT_GROUPS = {"Hira": "Hani", "Kana": "Hani", "Zyyy": "Common", "Zzzz": "Common", "Zinh": "Inherited"}
_SCRIPT_CACHE: dict = {}
_SPM_SCRIPT_CACHE: dict = {}
_SPM_FIRSTS = [a for a, _, _ in SPM_SCRIPT_EXCEPTIONS]


def check_unigram_settings(shrinking_factor, n_sub_iterations, max_piece_length, seed_size, who="SentencePiece"):
    """Raise ValueError, saying what is allowed, for a Unigram trainer's settings out of range
    (``who``: whose default 0.75 the message quotes). Example: shrinking_factor=1.0 raises
    'shrinking_factor must be between 0 and 1 (SentencePiece uses 0.75), not 1.0'."""
    if not 0 < shrinking_factor < 1:
        raise ValueError(f"shrinking_factor must be between 0 and 1 ({who} uses 0.75), not {shrinking_factor!r}")
    if not isinstance(n_sub_iterations, int) or n_sub_iterations < 1:
        raise ValueError(f"n_sub_iterations must be a positive integer, not {n_sub_iterations!r}")
    if not isinstance(max_piece_length, int) or max_piece_length < 1:
        raise ValueError(f"max_piece_length must be a positive integer, not {max_piece_length!r}")
    if not isinstance(seed_size, int) or seed_size < 0:
        raise ValueError(f"seed_size must be a non-negative integer, not {seed_size!r}")


def script_of(ch):
    """The Unicode script of a character (Scripts.txt, from the core's pinned tables) as
    SentencePiece groups them: 'Latn', 'Cyrl', 'Hani' (also kana), 'Common' (punctuation,
    symbols, digits, spaces) or 'Inherited' (combining marks). Example: 'é' -> 'Latn',
    ',' -> 'Common', 'カ' -> 'Hani'."""
    got = _SCRIPT_CACHE.get(ch)
    if got is None:
        s = "Hani" if ch == "\u30fc" else script(ch)  # (ー, a Common mark, counts as Han too)
        got = _SCRIPT_CACHE[ch] = _SCRIPT_GROUPS.get(s, s)
    return got


def spm_script_of(ch):
    """``script_of`` as sentencepiece 0.2.3's own table has it (an older Unicode:
    ``text/spm_scripts.py``, the exceptions). Example: the Armenian full stop '։' -> 'Common'
    (Armenian in Unicode 16), 'ա' -> 'Armn'."""
    got = _SPM_SCRIPT_CACHE.get(ch)
    if got is None:
        cp = ord(ch)
        k = bisect_right(_SPM_FIRSTS, cp) - 1
        first, last, group = SPM_SCRIPT_EXCEPTIONS[k] if k >= 0 else (0, -1, None)
        got = _SPM_SCRIPT_CACHE[ch] = group if first <= cp <= last else script_of(ch)
    return got


def is_valid_piece(piece, max_piece_length=16, split_digits=False, spm=False):
    """SentencePiece's rules for a piece: not too long, ▁ only first, one script (marks take
    the script before them), and with ``split_digits`` no digit in a longer piece (any
    decimal digit, Unicode's Nd). ``spm``: by sentencepiece 0.2.3's own tables, as
    ``rules="sentencepiece"`` reproduces it: its scripts (``spm_script_of``) and its digits
    (``is_unicode_decimal_number``: 0-9 and the fullwidth ０-９; a Khmer ១ is a letter to it).

    Example: '▁the' -> True, 'he▁' -> False, 'd,' -> False, ',"' -> True; 'ք։' -> True, but
    False with ``spm`` (։ is Common to spm).
    """
    if not piece or len(piece) > max_piece_length:
        return False
    script_for = spm_script_of if spm else script_of
    prev = _ANY
    for pos, c in enumerate(piece):
        if c == SPACE_MARK:
            if pos > 0:
                return False
            continue
        s = script_for(c)
        if s == _INHERITED:
            s = prev
        if split_digits and len(piece) > 1 and (c in SPM_DIGITS if spm else category(c) == "Nd"):
            return False
        if s != _ANY and prev != _ANY and s != prev:
            return False
        prev = s
    return True


def lcp_intervals(keys):
    """The lcp intervals of depth 2 or more of sorted ``keys`` that share their first two
    characters (one bucket of a suffix array cut into buckets): ``(depth, first, end)`` each,
    ``keys[first:end]`` sharing exactly their first ``depth`` characters, an interval before
    the one that holds it, in the order esaxx numbers its suffix-tree nodes.

    >>> list(lcp_intervals(["hug", "hugs", "hum"]))
    [(3, 0, 2), (2, 0, 3)]
    """
    stack = []  # (depth, first index) of the intervals still open
    prev = keys[0]
    for j in range(1, len(keys) + 1):
        if j == len(keys):
            h = 1  # (past the last key: every interval of 2 or more closes)
        else:
            key = keys[j]
            n = min(len(prev), len(key))
            h = 0
            while h < n and prev[h] == key[h]:
                h += 1
            prev = key
        lb = j - 1
        while stack and stack[-1][0] > h:
            depth, lb = stack.pop()
            yield depth, lb, j
        if h >= 2 and (not stack or stack[-1][0] < h):
            stack.append((h, lb))


def _lcp(a, b):
    """Length of the common prefix. Example: ('hear', 'heat') -> 3."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def frequent_substrings(words, freqs, max_len, keep=None):
    """``[(substring, weighted count)]`` of every substring of length 2..max_len that is a
    node of the words' suffix tree: it occurs at more than one place with different
    continuations (the end of a word counts as one), or ends one word occurring twice or
    more. Each occurrence counts with its word's frequency. ``keep`` (None: all): a test of
    a substring's first two characters; the substrings that fail it are left out, and the
    suffixes that start with them are never sorted.

    How: a depth-limited suffix array. Every suffix of every distinct word, cut at
    ``max_len``, is sorted; suffixes sharing a prefix form an interval, and the intervals
    come out of one pass over the longest-common-prefix values with a stack.

    Example: words ['▁hug', '▁pug'], freqs [1, 1] -> [('ug', 2)].
    """
    # step 1: every suffix's start, in buckets by its first two characters (buckets in
    # order, each sorted, is the whole list sorted). A start is one int, word index << bits
    # | offset: the suffix's text (cut at max_len) is cut out only when its bucket is
    # sorted, in step 2 (every suffix's text at once would cost ~180 bytes a character of
    # the corpus)
    bits = max(map(len, words), default=0).bit_length()
    mask = (1 << bits) - 1
    two = min(2, max_len)
    buckets = {}
    # (no bucket for two characters ``keep`` rejects: every interval in it would be a
    # substring starting with them, and no interval of 2 characters or more spans two
    # buckets. On 1 MB of random bytes, U+FFFD next to letters and the like: 38% of the
    # suffixes, never sorted)
    verdicts = {}  # two characters -> whether keep takes them
    for k, w in enumerate(words):
        base = k << bits
        for i in range(len(w)):
            head = w[i:i + two]
            bucket = buckets.get(head)
            if bucket is None:
                if keep is not None and len(head) == 2:
                    ok = verdicts.get(head)
                    if ok is None:
                        ok = verdicts[head] = keep(head)
                    if not ok:
                        continue
                bucket = buckets[head] = []
            bucket.append(base | i)
    if not buckets:
        return []

    def sorted_suffixes():
        """(suffix cut at max_len, its word's frequency), all in order, one bucket at a time."""
        for head in sorted(buckets):
            bucket = buckets.pop(head)
            yield from sorted([(words[c >> bits][(c & mask):(c & mask) + max_len], freqs[c >> bits]) for c in bucket])

    # step 2: lcp intervals, bottom-up: a stack of (depth, weight of the suffixes before its
    # left bound, its suffix); an interval's weight is the running weight minus its entry's
    out = []
    stack = [(0, 0, "")]
    suffixes = sorted_suffixes()
    # the suffix before, its frequency, its lcp with the one before it, the weight before it
    prev_key, prev_f = next(suffixes)
    prev_lcp = before = 0
    for key, f in chain(suffixes, [(None, 0)]):  # (None: past the last suffix)
        upto = before + prev_f  # the weight of the suffixes up to prev_key
        h = _lcp(prev_key, key) if key is not None else -1
        # a suffix that no neighbour extends and whose word occurs twice or more
        if len(prev_key) > max(prev_lcp, h) and len(prev_key) >= 2 and prev_f >= 2:
            out.append((prev_key, prev_f))
        lb_before, lb_key = before, prev_key
        while stack and h < stack[-1][0]:
            depth, lb_before, lb_key = stack.pop()
            if depth >= 2:
                out.append((lb_key[:depth], upto - lb_before))
        if stack and h > stack[-1][0]:
            stack.append((h, lb_before, lb_key))
        prev_key, prev_lcp, prev_f, before = key, h, f, upto
    return out


def words_in_alphabet(counts, alphabet, max_bytes=None, limited=None):
    """``(words, freqs, char_freq)``: the words cut at characters outside ``alphabet`` (None:
    keep all), their counts, and each character's weighted count. A word longer than
    ``max_bytes`` bytes (None: no limit) trains on its first ``max_bytes`` bytes only (its
    characters all count); ``limited``, a list, receives the byte length of each."""
    words, freqs, char_freq = [], [], {}
    at = {}  # a cut-up huge word's parts repeat: each distinct part is one word, counts added

    def add(run, f):
        for part in cut_long("".join(run)):
            k = at.get(part)
            if k is None:
                at[part] = len(words)
                words.append(part), freqs.append(f)
            else:
                freqs[k] += f

    for word, f in counts.items():
        head = word
        if max_bytes is not None and len(word) * 4 > max_bytes:  # (a character has at most 4 bytes)
            size = len(word.encode("utf-8"))
            if size > max_bytes:
                head = head_bytes(word, max_bytes)
                limited.append(size)
                for ch in word[len(head):]:  # (the characters past the limit: for the alphabet only)
                    if alphabet is None or ch in alphabet:
                        char_freq[ch] = char_freq.get(ch, 0) + f
        run = []
        for ch in head:
            if alphabet is None or ch in alphabet:
                run.append(ch)
                char_freq[ch] = char_freq.get(ch, 0) + f
            elif run:
                add(run, f)
                run = []
        if run:
            add(run, f)
    return words, freqs, char_freq


def freq_x_length(pair):
    """A seed substring's raw score: its count times its length. Example: ('ab', 3) -> 6."""
    return pair[1] * len(pair[0])
