"""The one check every model makes on its vocabulary.

>>> index_vocab(["a", "b"])
{'a': 0, 'b': 1}
"""


def index_vocab(vocab):
    """Token string -> id; raises ValueError naming a token that appears twice."""
    token_to_id = dict(zip(vocab, range(len(vocab))))  # (C speed; a repeated token keeps its last id)
    if len(token_to_id) == len(vocab):
        return token_to_id
    first = {}
    for i, tok in enumerate(vocab):
        if tok in first:
            raise ValueError(f"token {tok!r} appears twice in the vocabulary (ids {first[tok]} and {i}); every token must be unique")
        first[tok] = i
