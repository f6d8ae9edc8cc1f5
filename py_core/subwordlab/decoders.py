"""Decoders: the last pipeline stage, token strings -> bytes of text.

``decode_bytes(tokens)`` turns a whole sequence back into text bytes (undoing markers);
``token_bytes(token)`` is what one token stands for on its own (for display and stats).

>>> ByteLevelDecoder().decode_bytes(["Hi", "Ġthere"])
b'Hi there'
>>> SuffixDecoder("</w>").decode_bytes(["low", "est</w>", "new</w>"])
b'lowest new'
>>> MetaspaceDecoder().decode_bytes(["▁Hi", "▁the", "re"])
b'Hi there'
>>> WordPieceDecoder().decode_bytes(["play", "##ing", "now"])
b'playing now'
"""

import re

from .bytes_map import text_to_bytes

_BYTE_TOKEN = re.compile(r"<0x([0-9A-F]{2})>\Z")


class Decoder:
    type = "Decoder"

    def token_bytes(self, token):
        return token.encode("utf-8")

    def decode_bytes(self, tokens):
        return b"".join(self.token_bytes(t) for t in tokens)

    def to_dict(self):
        return {"type": self.type}


class ConcatDecoder(Decoder):
    """Tokens are joined as they are (char-level BPE with no end-of-word marker)."""

    type = "Concat"


class ByteLevelDecoder(Decoder):
    """GPT-2 byte characters back to raw bytes. Example: 'Ġa' -> b' a'."""

    type = "ByteLevel"

    def token_bytes(self, token):
        return text_to_bytes(token)


class SuffixDecoder(Decoder):
    """The end-of-word marker becomes a space; the trailing one is dropped."""

    type = "Suffix"

    def __init__(self, suffix="</w>"):
        self.suffix = suffix

    def token_bytes(self, token):
        return token.replace(self.suffix, " ").encode("utf-8")

    def decode_bytes(self, tokens):
        out = super().decode_bytes(tokens)
        return out[:-1] if tokens and tokens[-1].endswith(self.suffix) else out

    def to_dict(self):
        return {"type": "Suffix", "suffix": self.suffix}


class MetaspaceDecoder(Decoder):
    """▁ becomes a space, ``<0xHH>`` tokens become raw bytes, and the dummy-prefix space
    at the very start is dropped."""

    type = "Metaspace"

    def __init__(self, add_dummy_prefix=True):
        self.add_dummy_prefix = add_dummy_prefix

    def token_bytes(self, token):
        m = _BYTE_TOKEN.match(token)
        if m:
            return bytes([int(m.group(1), 16)])
        return token.replace("\u2581", " ").encode("utf-8")

    def decode_bytes(self, tokens):
        out = super().decode_bytes(tokens)
        return out[1:] if self.add_dummy_prefix and out.startswith(b" ") else out

    def to_dict(self):
        return {"type": "Metaspace", "add_dummy_prefix": self.add_dummy_prefix}


class WordPieceDecoder(Decoder):
    """``##`` pieces glue to the previous one; other pieces start a new word after a space."""

    type = "WordPiece"

    def __init__(self, prefix="##"):
        self.prefix = prefix

    def token_bytes(self, token):
        return (token[len(self.prefix):] if token.startswith(self.prefix) else token).encode("utf-8")

    def decode_bytes(self, tokens):
        parts = []
        for i, t in enumerate(tokens):
            if t.startswith(self.prefix):
                parts.append(t[len(self.prefix):])
            else:
                parts.append((" " if i else "") + t)
        return "".join(parts).encode("utf-8")

    def to_dict(self):
        return {"type": "WordPiece", "prefix": self.prefix}
