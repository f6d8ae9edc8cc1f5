"""Added tokens as HF ``tokenizers`` has them (for imported tokenizer.json files).

An added token is cut out of the text *before* the model sees it: special or not. Tokens
with ``normalized=False`` are found in the raw text first; the rest of the text is then
normalized and tokens with ``normalized=True`` are found in it (their content normalized
the same way). ``single_word`` only matches a whole word; ``lstrip``/``rstrip`` also take
the white space on their left/right. The longest token wins at the leftmost position.

Special tokens still follow our (tiktoken's) safe policy: by default one in the text raises
an error; ``allowed_special="all"`` gives HF's behaviour (always special).

>>> from subwordlab.models.bpe import BPE
>>> from subwordlab.tokenizer import Tokenizer
>>> model = BPE(["a", "b", "ab", "<x>"], [(0, 1)])
>>> tok = Tokenizer(model, added_vocab=AddedVocabulary([AddedToken("<x>", 3)]))
>>> tok.tokenize("ab<x>a")
['ab', '<x>', 'a']
"""

import re
from dataclasses import dataclass

from ..text.special import split_special
from .normalizers import WHITE_SPACE, identity_aligned


@dataclass(frozen=True)
class AddedToken:
    """One added token (the fields of a tokenizer.json ``added_tokens`` entry)."""

    content: str
    id: int
    special: bool = False
    normalized: bool = False
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False


def _is_word_char(ch):
    return ch.isalnum() or ch == "_"


def first_scheme(pre):
    """Whether a pre-tokenizer has a Metaspace with prepend_scheme "first", whose ▁ depends
    on where a segment starts in the original text (HF: only at original offset 0)."""
    if getattr(pre, "prepend_scheme", None) == "first":
        return True
    return any(first_scheme(p) for p in getattr(pre, "pre_tokenizers", ()))


def _pre_tokenize(tok, sub, origin, first):
    """Pieces of a normalized segment ``[(piece, (start, end))]``, offsets in ``sub``;
    ``origin`` is the original-text offset of its first character."""
    if tok.pre_tokenizer is None:
        return [(sub, (0, len(sub)))] if sub else []
    if not first or not sub:
        return tok.pre_tokenize_str(sub)
    pieces = tok.pre_tokenizer.split_pieces([(sub, (origin, origin + len(sub)))])
    return [(p, (x - origin, y - origin)) for p, (x, y) in pieces]


class AddedVocabulary:
    """The added tokens of a tokenizer, and how text is cut at them."""

    def __init__(self, tokens):
        self.tokens = sorted(tokens, key=lambda t: t.id)
        self._matchers = {}

    @property
    def special_tokens(self):
        return {t.content: t.id for t in self.tokens if t.special}

    def _active(self, tok, allowed_special, disallowed_special):
        """The tokens cut out of the text under the special-token policy."""
        specials = self.special_tokens
        if specials:
            allowed = set(specials) if allowed_special == "all" else set(allowed_special)
        else:
            allowed = set()
        return tuple(t for t in self.tokens if not t.special or t.content in allowed)

    def _matcher(self, tok, active, normalized):
        key = (active, normalized)
        m = self._matchers.get(key)
        if m is None:
            patterns = {}
            for t in active:
                if t.normalized != normalized:
                    continue
                p = tok.normalize_str(t.content) if normalized else t.content
                if p and p not in patterns:
                    patterns[p] = t
            rx = re.compile("|".join(re.escape(p) for p in sorted(patterns, key=lambda p: (-len(p), p)))) if patterns else None
            m = self._matchers[key] = (rx, patterns)
        return m

    @staticmethod
    def _split(text, matcher):
        """``[(token_or_None, (start, end))]`` covering ``text``, as HF's find_matches."""
        rx, patterns = matcher
        if rx is None or not text:
            return [(None, (0, len(text)))] if text else []
        out, offset = [], 0
        for m in rx.finditer(text):
            start, stop = m.span()
            t = patterns[m.group()]
            if t.single_word:
                before = start == 0 or not _is_word_char(text[start - 1])
                after = stop == len(text) or not _is_word_char(text[stop])
                if not (before and after):
                    continue
            if t.lstrip:
                s = start
                while s > 0 and text[s - 1] in WHITE_SPACE:
                    s -= 1
                start = max(s, offset)
            if t.rstrip:
                while stop < len(text) and text[stop] in WHITE_SPACE:
                    stop += 1
            if start > offset:
                out.append((None, (offset, start)))
            out.append((t, (start, stop)))
            offset = stop
        if offset < len(text):
            out.append((None, (offset, len(text))))
        return out

    def spans(self, tok, text, allowed_special=(), disallowed_special="all", offsets=True):
        """``[(id, start, end)]`` of ``text``, offsets into it (with ``offsets=False`` the
        spans are not computed and are (0, 0))."""
        if self.special_tokens:
            # the policy check (raises on a disallowed special token in the text)
            split_special(text, self.special_tokens, allowed_special, disallowed_special)
        active = self._active(tok, allowed_special, disallowed_special)
        raw, norm = self._matcher(tok, active, False), self._matcher(tok, active, True)
        first = first_scheme(tok.pre_tokenizer)
        out = []
        for t, (s, e) in self._split(text, raw):
            if t is not None:
                out.append((t.id, s, e))
                continue
            part = text[s:e]
            # step 2: normalize the rest, then cut out the normalized added tokens
            if offsets or first:
                normalized, starts, ends = (tok.normalizer.normalize_aligned(part) if tok.normalizer
                                            else identity_aligned(part))
            else:
                normalized, starts, ends = tok.normalize_str(part), None, None
            for t2, (a, b) in self._split(normalized, norm):
                if t2 is not None:
                    out.append((t2.id, s + starts[a], s + ends[b - 1]) if offsets and b > a else (t2.id, s, s))
                    continue
                sub = normalized[a:b]
                # subtle: with prepend_scheme "first" only a segment whose first character is
                # the text's first character gets the ▁ (HF looks at the original offset)
                origin = s + starts[a] if first and a < len(starts) else s
                if not offsets:
                    pieces = ([p for p, _ in _pre_tokenize(tok, sub, origin, True)] if first else
                              tok.pre_tokenizer.words(sub) if tok.pre_tokenizer else [sub])
                    for piece in pieces:
                        out.extend((i, 0, 0) for i in tok._encode_piece(piece))
                    continue
                # step 3: pre-tokenize and encode, offsets mapped back to the original text
                for piece, (ps, pe) in _pre_tokenize(tok, sub, origin, first):
                    char_spans = tok._piece_char_spans(piece, (ps, pe), sub)
                    for tid, ts, te in tok._tokenize_piece(piece):
                        ns = a + (char_spans[ts][0] if ts < len(char_spans) else pe)
                        ne = a + (char_spans[te - 1][1] if te > ts else ns - a)
                        if ne > ns:
                            out.append((tid, s + starts[ns], s + ends[ne - 1]))
                        else:
                            at = s + (starts[ns] if ns < len(starts) else (ends[-1] if ends else 0))
                            out.append((tid, at, at))
        return out

    def encode(self, tok, text, allowed_special=(), disallowed_special="all"):
        """Ids of ``text`` (see the module docstring)."""
        return [i for i, _, _ in self.spans(tok, text, allowed_special, disallowed_special, offsets=False)]
