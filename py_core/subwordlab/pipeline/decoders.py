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

from ..base.registry import component, dump_component
from ..text.bytes_map import text_to_bytes
from ..text.regex_compat import compile_pattern, onig_sub

_BYTE_TOKEN = re.compile(r"<0x([0-9A-F]{2})>\Z")


class Decoder:
    type = "Decoder"

    def token_bytes(self, token):
        return token.encode("utf-8")

    def decode_bytes(self, tokens):
        return b"".join(self.token_bytes(t) for t in tokens)

    def decode_chain(self, tokens):
        """HF-style step: token strings in, strings out (inside a ``SequenceDecoder``)."""
        return [self.decode_bytes(tokens).decode("utf-8", errors="replace")]

    def dump(self):
        """Its fields for our model file (``registry.py``); none by default."""
        return {}

    @classmethod
    def load(cls, f, ctx):
        """The inverse of ``dump`` (``f``: a ``jsonio.Fields`` reader)."""
        return cls()


@component("decoder", "Concat")
class ConcatDecoder(Decoder):
    """Tokens are joined as they are (char-level BPE with no end-of-word marker)."""

    type = "Concat"


@component("decoder", "ByteLevel")
class ByteLevelDecoder(Decoder):
    """GPT-2 byte characters back to raw bytes. Example: 'Ġa' -> b' a'."""

    type = "ByteLevel"

    def token_bytes(self, token):
        try:
            return text_to_bytes(token)
        except ValueError:
            # subtle: a token that is not made of byte characters (an added token from a
            # tokenizer.json) stands for its own UTF-8, as in HF's ByteLevel decoder
            return token.encode("utf-8")

    def decode_bytes(self, tokens):
        try:  # (all byte characters, the usual case: one C-speed pass over the whole text)
            return text_to_bytes("".join(tokens))
        except ValueError:
            return super().decode_bytes(tokens)


@component("decoder", "Suffix")
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

    def decode_chain(self, tokens):
        # HF's BPEDecoder: the suffix becomes a space, or nothing in the last token
        n = len(tokens)
        return [t.replace(self.suffix, "" if i == n - 1 else " ") for i, t in enumerate(tokens)]

    def dump(self):
        return {"suffix": self.suffix}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("suffix", "str"))


@component("decoder", "Metaspace")
class MetaspaceDecoder(Decoder):
    """▁ becomes a space, ``<0xHH>`` tokens become raw bytes, and the dummy-prefix space
    at the very start is dropped."""

    type = "Metaspace"

    def __init__(self, add_dummy_prefix=True, *, replacement="\u2581", byte_tokens=True):
        self.add_dummy_prefix = add_dummy_prefix
        # ``byte_tokens=False``: ``<0xHH>`` stays text, as in HF's Metaspace decoder
        self.replacement, self.byte_tokens = replacement, byte_tokens

    def token_bytes(self, token):
        m = _BYTE_TOKEN.match(token) if self.byte_tokens else None
        if m:
            return bytes([int(m.group(1), 16)])
        return token.replace(self.replacement, " ").encode("utf-8")

    def decode_bytes(self, tokens):
        if not self.byte_tokens:
            return "".join(self.decode_chain(tokens)).encode("utf-8")
        out = super().decode_bytes(tokens)
        return out[1:] if self.add_dummy_prefix and out.startswith(b" ") else out

    def decode_chain(self, tokens):
        # HF's Metaspace decoder: per token, and only the first token loses its leading space
        out = []
        for i, t in enumerate(tokens):
            t = t.replace(self.replacement, " ")
            out.append(t[1:] if i == 0 and self.add_dummy_prefix and t.startswith(" ") else t)
        return out

    def dump(self):
        return {"add_dummy_prefix": self.add_dummy_prefix, "replacement": self.replacement, "byte_tokens": self.byte_tokens}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("add_dummy_prefix", "bool"), replacement=f.get("replacement", "str"), byte_tokens=f.get("byte_tokens", "bool"))


@component("decoder", "WordPiece")
class WordPieceDecoder(Decoder):
    """``##`` pieces glue to the previous one; other pieces start a new word after a space."""

    type = "WordPiece"

    def __init__(self, prefix="##", cleanup=False):
        # ``cleanup``: HF's clean-up of spaces before punctuation (" ." -> ".")
        self.prefix, self.cleanup = prefix, cleanup

    def decode_chain(self, tokens):
        # HF's WordPiece decoder (the first token keeps a leading prefix)
        out = []
        for i, t in enumerate(tokens):
            if i:
                t = t.replace(self.prefix, "", 1) if t.startswith(self.prefix) else " " + t
            if self.cleanup:
                for a, b in _CLEANUPS:
                    t = t.replace(a, b)
            out.append(t)
        return out

    def token_bytes(self, token):
        return (token[len(self.prefix):] if token.startswith(self.prefix) else token).encode("utf-8")

    def decode_bytes(self, tokens):
        if self.cleanup:
            return "".join(self.decode_chain(tokens)).encode("utf-8")
        parts = []
        for i, t in enumerate(tokens):
            if t.startswith(self.prefix):
                parts.append(t[len(self.prefix):])
            else:
                parts.append((" " if i else "") + t)
        return "".join(parts).encode("utf-8")

    def dump(self):
        return {"prefix": self.prefix, "cleanup": self.cleanup}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("prefix", "str"), f.get("cleanup", "bool"))


# -- HF-style steps (for tokenizer.json files imported from HF tokenizers) -----------------
# Each works on token strings (``decode_chain``) exactly as the HF decoder of the same name;
# ``decode_bytes`` is the UTF-8 of the joined result.

_CLEANUPS = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
             (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


class ChainDecoder(Decoder):
    """Base of the HF-style steps: bytes are the UTF-8 of the joined chain output."""

    def decode_bytes(self, tokens):
        return "".join(self.decode_chain(list(tokens))).encode("utf-8")

    def token_bytes(self, token):
        return self.decode_bytes([token])


@component("decoder", "Join")
class JoinDecoder(ChainDecoder):
    """No decoder in a tokenizer.json: HF joins the tokens with a space. Example: ['a', 'b'] -> 'a b'."""

    type = "Join"

    def decode_chain(self, tokens):
        return [" ".join(tokens)]


@component("decoder", "Fuse")
class FuseDecoder(ChainDecoder):
    """All tokens fused into one string. Example: ['a', 'b'] -> ['ab']."""

    type = "Fuse"

    def decode_chain(self, tokens):
        return ["".join(tokens)]


@component("decoder", "ByteFallback")
class ByteFallbackDecoder(ChainDecoder):
    """Runs of ``<0xHH>`` tokens become the text of their bytes (U+FFFD per byte if the run
    is not valid UTF-8). Example: ['<0xC3>', '<0xA9>', 'x'] -> ['é', 'x']."""

    type = "ByteFallback"

    @staticmethod
    def _byte(token):
        if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
            digits = token[3:5]
            # subtle: like Rust's u8::from_str_radix (a leading '+' is accepted)
            if all(c in "0123456789abcdefABCDEF" for c in digits.lstrip("+")) and digits.lstrip("+"):
                return int(digits, 16)
        return None

    def decode_chain(self, tokens):
        out, run = [], []

        def flush():
            if run:
                try:
                    out.append(bytes(run).decode("utf-8"))
                except UnicodeDecodeError:
                    out.extend("\ufffd" * len(run))
                run.clear()

        for t in tokens:
            b = self._byte(t)
            if b is not None:
                run.append(b)
            else:
                flush()
                out.append(t)
        flush()
        return out


@component("decoder", "Strip")
class StripDecoder(ChainDecoder):
    """Remove up to ``start`` leading and ``stop`` trailing ``content`` characters from every
    token. Example (' ', 1, 0): [' a', ' b'] -> ['a', 'b']."""

    type = "Strip"

    def __init__(self, content=" ", start=0, stop=0):
        if not isinstance(content, str) or len(content) != 1:
            raise ValueError(f"Strip content must be one character, not {content!r}")
        self.content, self.start, self.stop = content, start, stop

    def decode_chain(self, tokens):
        out, c = [], self.content
        for t in tokens:
            lo = 0
            while lo < min(self.start, len(t)) and t[lo] == c:
                lo += 1
            hi = len(t)
            while len(t) - hi < self.stop and hi > 0 and t[hi - 1] == c:
                hi -= 1
            out.append(t[lo:hi] if lo <= hi else "")
        return out

    def dump(self):
        return {"content": self.content, "start": self.start, "stop": self.stop}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("content", "str"), f.get("start", "nat"), f.get("stop", "nat"))


@component("decoder", "Replace")
class ReplaceDecoder(ChainDecoder):
    """Replace a literal string (or, with ``regex=True``, every regex match) in every
    token. Example ('▁' -> ' '): ['▁a'] -> [' a']."""

    type = "Replace"

    def __init__(self, pattern, content, regex=False):
        self.pattern, self.content, self.is_regex = pattern, content, bool(regex)
        self._regex = None
        if regex:
            try:
                self._regex = compile_pattern(pattern)
            except Exception as exc:  # noqa: BLE001 - re.error or regex.error (regex is optional)
                raise ValueError(f"the Replace pattern {pattern!r} does not compile: {exc}") from None
        elif not pattern:
            raise ValueError("Replace needs a non-empty pattern")

    def decode_chain(self, tokens):
        if self._regex is not None:
            return [self._sub(t) for t in tokens]
        return [t.replace(self.pattern, self.content) for t in tokens]

    def _sub(self, token):
        """Every match in one token replaced, the matches found as HF finds them."""
        return onig_sub(self._regex, self.content, token)

    def dump(self):
        return {"pattern": self.pattern, "content": self.content, "regex": self.is_regex}

    @classmethod
    def load(cls, f, ctx):
        return cls(f.get("pattern", "str"), f.get("content", "str"), f.get("regex", "bool"))


@component("decoder", "Sequence")
class SequenceDecoder(ChainDecoder):
    """Several HF-style steps, each on the output of the previous one."""

    type = "Sequence"

    def __init__(self, decoders):
        self.decoders = list(decoders)

    def decode_chain(self, tokens):
        for d in self.decoders:
            tokens = d.decode_chain(tokens)
        return tokens

    def dump(self):
        return {"decoders": [dump_component("decoder", d) for d in self.decoders]}

    @classmethod
    def load(cls, f, ctx):
        return cls(ctx.components("decoder", f, "decoders"))
