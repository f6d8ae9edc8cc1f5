"""The WordPiece model (BERT): greedy longest-match-first with ``##`` continuation pieces.

A word is encoded left to right: take the longest vocabulary entry that matches the start
of the word, then the longest ``##`` entry that matches the start of the rest, and so on.
If some part of the word cannot be matched the **whole word** becomes the unknown token
(so does a word longer than ``max_input_chars_per_word``). WordPiece does not replay
merges: the vocabulary alone decides.

>>> m = WordPiece(["[UNK]", "play", "##ing", "##s"])
>>> [m.vocab[i] for i in m.encode_piece("playing")]
['play', '##ing']
>>> [m.vocab[i] for i in m.encode_piece("plays")]
['play', '##s']
>>> [m.vocab[i] for i in m.encode_piece("playz")]
['[UNK]']
"""

from ..base.registry import component
from .vocab import index_vocab, read_vocab


@component("model", "WordPiece")
class WordPiece:
    """WordPiece model.

    ``vocab``: token strings by id; ``unk_token``: what an uncoverable word becomes (None:
    such a word is an error); ``continuing_subword_prefix``: the marker of a piece that
    continues a word; ``max_input_chars_per_word``: longer words become ``unk_token``.
    """

    type = "WordPiece"

    def __init__(self, vocab, unk_token="[UNK]", continuing_subword_prefix="##", max_input_chars_per_word=100):
        self.vocab = list(vocab)
        self.token_to_id = index_vocab(self.vocab)
        if unk_token is not None and unk_token not in self.token_to_id:
            raise ValueError(f"unk_token {unk_token!r} is not in the vocabulary; add it or set unk_token=None")
        if not isinstance(max_input_chars_per_word, int) or max_input_chars_per_word < 1:
            raise ValueError(f"max_input_chars_per_word must be a positive integer, not {max_input_chars_per_word!r}")
        self.unk_token = unk_token
        self.unk_id = self.token_to_id.get(unk_token) if unk_token is not None else None
        self.prefix = continuing_subword_prefix or ""
        self.max_input_chars_per_word = max_input_chars_per_word
        # the longest word-initial token and the longest continuation (without its prefix),
        # so the longest-match search starts at a length that can match
        p = self.prefix
        self._max_first = max((len(t) for t in self.vocab if not (p and t.startswith(p))), default=0)
        self._max_next = max((len(t) - len(p) for t in self.vocab if t.startswith(p)), default=0)

    def tokenize_piece(self, piece):
        """``[(id, start, end), ...]`` of one word, spans in its characters.

        Example: 'playing' -> [(id('play'), 0, 4), (id('##ing'), 4, 7)]; 'playz' -> [(unk, 0, 5)].
        """
        n = len(piece)
        if not n:
            return []
        if n > self.max_input_chars_per_word:
            return self._unknown(piece)
        t2i, prefix, out, start = self.token_to_id, self.prefix, [], 0
        while start < n:
            # step 1: the longest vocabulary entry at `start` (with ## after the first piece)
            if start:
                end = min(n, start + self._max_next)
                while end > start and (prefix + piece[start:end]) not in t2i:
                    end -= 1
                tid = t2i.get(prefix + piece[start:end]) if end > start else None
            else:
                end = min(n, self._max_first)
                while end > 0 and piece[:end] not in t2i:
                    end -= 1
                tid = t2i.get(piece[:end]) if end else None
            # step 2: nothing matches: the whole word is unknown
            if tid is None:
                return self._unknown(piece)
            out.append((tid, start, end))
            start = end
        return out

    def _unknown(self, piece):
        if self.unk_id is None:
            raise ValueError(f"the word {piece[:40]!r} cannot be spelled with this vocabulary and there is no unk_token; "
                             "set unk_token='[UNK]' or train on a corpus that covers it")
        return [(self.unk_id, 0, len(piece))]

    def encode_piece(self, piece):
        """Ids of one word. Example: 'plays' -> ids of ['play', '##s']."""
        return [t for t, _, _ in self.tokenize_piece(piece)]

    # -- our model file (registry.py) --------------------------------------------------

    def dump(self):
        return {"unk_token": self.unk_token, "continuing_subword_prefix": self.prefix,
                "max_input_chars_per_word": self.max_input_chars_per_word, "vocab": self.vocab}

    @classmethod
    def load(cls, f, ctx):
        return cls(read_vocab(f), f.get("unk_token", "str", nullable=True), f.get("continuing_subword_prefix", "str"),
                   f.get("max_input_chars_per_word", "int"))
