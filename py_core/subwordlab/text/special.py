"""Special tokens in user text, with tiktoken's safe policy.

Special tokens (``<|endoftext|>``) are control symbols. Text typed by a user that happens to
contain one must not silently become the control token, so by default finding one raises
an error; ``allowed_special`` lists the ones to encode as special, and
``disallowed_special=()`` encodes all others as ordinary text. When specials overlap at the
same position the longest match wins.

>>> split_special("a<|eot|>b", {"<|eot|>": 9}, allowed_special="all")
[('a', 0), (9, 1), ('b', 8)]
"""

import re


class SpecialTokenInText(ValueError):
    """The text holds a special token the policy refuses: ``token`` at character ``position``
    (the message says which argument to pass; a front end can word it for its own controls).

    >>> try:
    ...     split_special("hi <|eot|>", {"<|eot|>": 9})
    ... except SpecialTokenInText as exc:
    ...     exc.token, exc.position
    ('<|eot|>', 3)
    """

    def __init__(self, token, position):
        super().__init__(
            f"the text contains the special token {token!r} at position {position}. "
            f"To encode it as the special token pass allowed_special={{{token!r}}} (or 'all'); "
            "to encode it as ordinary text pass disallowed_special=()")
        self.token, self.position = token, position


def _policy(special_tokens, allowed_special, disallowed_special):
    """The sets of allowed and disallowed special strings."""
    names = set(special_tokens)
    allowed = names if allowed_special == "all" else set(allowed_special)
    unknown = allowed - names
    if unknown:
        raise ValueError(f"allowed_special names {sorted(unknown)!r}, which are not special tokens of this tokenizer; known: {sorted(names)!r}")
    disallowed = (names - allowed) if disallowed_special == "all" else set(disallowed_special)
    return allowed, disallowed


def alternation(strings):
    """One regex matching any of the strings, longest first (so the longest match wins)."""
    return re.compile("|".join(re.escape(s) for s in sorted(strings, key=lambda s: (-len(s), s))))


def split_special(text, special_tokens, allowed_special=(), disallowed_special="all"):
    """Cut ``text`` at allowed special tokens: ``[(ordinary_text, start) | (special_id, start)]``.

    Raises ``SpecialTokenInText`` (a ValueError) when a disallowed special token occurs in the text.
    """
    if not special_tokens:
        return [(text, 0)] if text else []
    allowed, disallowed = _policy(special_tokens, allowed_special, disallowed_special)
    if disallowed:
        m = alternation(disallowed).search(text)
        if m:
            raise SpecialTokenInText(m.group(), m.start())
    if not allowed:
        return [(text, 0)] if text else []
    out, pos = [], 0
    for m in alternation(allowed).finditer(text):
        if m.start() > pos:
            out.append((text[pos:m.start()], pos))
        out.append((special_tokens[m.group()], m.start()))
        pos = m.end()
    if pos < len(text):
        out.append((text[pos:], pos))
    return out
