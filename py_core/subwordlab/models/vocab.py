"""The one check every model makes on its vocabulary.

>>> index_vocab(["a", "b"])
{'a': 0, 'b': 1}
"""


def index_vocab(vocab):
    """Token string -> id; raises ValueError naming a token that appears twice."""
    token_to_id = {}
    for i, tok in enumerate(vocab):
        if tok in token_to_id:
            raise ValueError(f"token {tok!r} appears twice in the vocabulary (ids {token_to_id[tok]} and {i}); every token must be unique")
        token_to_id[tok] = i
    return token_to_id
