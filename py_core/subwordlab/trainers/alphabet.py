"""The characters a trainer starts from (shared by the BPE and Unigram trainers).

>>> sorted(covered_characters({"aab": 2, "c": 1}, 1.0))
['a', 'b', 'c']
>>> sorted(covered_characters({"aab": 2, "c": 1}, 0.8))   # a: 4 of 7, b: 2 of 7
['a', 'b']
"""


def covered_characters(counts, coverage):
    """The characters kept by ``character_coverage``: most frequent first until that share
    of all character occurrences is covered. Example: coverage 1.0 keeps all."""
    if coverage >= 1.0:
        return set("".join(counts))  # every character of every word (a C-speed join)
    # step 1: how often each character occurs, weighted by word counts
    freq = {}
    for word, n in counts.items():
        for ch in word:
            freq[ch] = freq.get(ch, 0) + n
    # step 2: the most frequent characters until the share is covered (ties by character)
    total, kept, seen = sum(freq.values()), set(), 0
    for ch, n in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0])):
        if seen >= coverage * total:
            break
        kept.add(ch)
        seen += n
    # step 3: the word-boundary mark ▁ is always kept (SentencePiece)
    if "\u2581" in freq:
        kept.add("\u2581")
    return kept
