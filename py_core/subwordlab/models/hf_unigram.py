"""Unigram with the exact semantics of Hugging Face ``tokenizers`` (for imported tokenizer.json).

Our ``Unigram`` keeps reserved pieces (unk, control, byte pieces) out of the lattice, as
SentencePiece does. HF's Unigram has no reserved pieces: every vocabulary entry can match
text (so a literal "<unk>" in the text is the unk piece), the unknown score is the lowest
score of the *whole* vocabulary minus 10, consecutive unk nodes are fused into one string
which is then looked up again (an unknown run that spells a piece is that piece), and
byte fallback applies to the fused string.

>>> import math
>>> m = HFUnigram(["<unk>", "a", "b"], [0.0, math.log(0.5), math.log(0.5)])
>>> [m.vocab[i] for i in m.encode_piece("a<unk>xb")]
['a', '<unk>', 'b']
"""

from ..base.registry import component
from .unigram import Unigram


@component("model", "HFUnigram")
class HFUnigram(Unigram):
    """Unigram as HF encodes. ``control_ids`` here are ids HF's model does not know (added
    tokens beyond the model's vocabulary): they never match text."""

    def _build(self, vocab, scores, unk_id=0, byte_fallback=False, control_ids=(), user_defined_ids=()):
        # (Unigram's __init__, building and load_steps all build through here)
        # subtle: HF allows byte_fallback with missing byte pieces (those bytes become unk)
        yield from super()._build(vocab, scores, unk_id, False, control_ids, user_defined_ids)
        self.byte_fallback = bool(byte_fallback)
        hidden = set(self.control_ids) | set(self.user_defined_ids)
        self._lookup = {t: i for t, i in self.token_to_id.items() if i not in hidden}
        self._byte_tok = [self._lookup.get(f"<0x{b:02X}>") for b in range(256)]
        # every piece the model knows takes part in the lattice
        yield from self._index_normal([i for i in range(len(self.vocab)) if i not in hidden])

    def _finish(self, piece, path):
        """Fuse runs of unk nodes (unknown characters and the unk piece itself), then look
        each fused string up: a piece, else its bytes (byte fallback), else unk."""
        out, run = [], None

        def flush(s, e):
            string = piece[s:e]
            tid = self._lookup.get(string)
            if tid is not None:
                out.append((tid, s, e))
                return
            if self.byte_fallback:
                ids = [self._byte_tok[b] for b in string.encode("utf-8")]
                if all(i is not None for i in ids):
                    out.extend((i, s, e) for i in ids)
                    return
            if self.unk_id is None:
                raise ValueError(f"the text {string[:20]!r} is not covered by the vocabulary and the model has no unk piece")
            out.append((self.unk_id, s, e))

        for tid, s, e in path:
            if tid < 0 or tid == self.unk_id:
                run = (run[0], e) if run else (s, e)
                continue
            if run:
                flush(*run)
                run = None
            out.append((tid, s, e))
        if run:
            flush(*run)
        return out
