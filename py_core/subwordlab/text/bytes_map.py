"""GPT-2's reversible byte <-> printable-character map.

Byte-level BPE works on the 256 byte values, but token strings must be printable, so each
byte is shown as one visible character: printable ASCII and Latin-1 bytes stand for
themselves, the others are shifted to U+0100 and up (space 0x20 becomes 'Ġ', newline 'Ċ').

>>> bytes_to_text(b"hi there")
'hiĠthere'
>>> text_to_bytes('hiĠthere')
b'hi there'
"""


def _build_byte_to_char():
    # step 1: bytes that are printable stand for themselves
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    table = {b: chr(b) for b in keep}
    # step 2: every other byte gets the next free code point from U+0100, in byte order
    shift = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + shift)
            shift += 1
    return [table[b] for b in range(256)]


BYTE_TO_CHAR = _build_byte_to_char()
CHAR_TO_BYTE = {ch: b for b, ch in enumerate(BYTE_TO_CHAR)}


# Latin-1 decodes byte b to chr(b): a C-speed translate then gives the GPT-2 characters
LATIN1_TO_BYTE_CHARS = str.maketrans({chr(b): ch for b, ch in enumerate(BYTE_TO_CHAR)})


def bytes_to_text(data: bytes) -> str:
    """Show raw bytes as GPT-2 characters. Example: b' a' -> 'Ġa'."""
    return bytes(data).decode("latin-1").translate(LATIN1_TO_BYTE_CHARS)


# the inverse, for a C-speed translate then encode("latin-1"): every other character below
# U+0100 (the space, controls...) becomes U+0100, which Latin-1 cannot encode; one above
# stays as it is and cannot either
BYTE_CHARS_TO_LATIN1 = str.maketrans({**{chr(c): "\u0100" for c in range(256)},
                                      **{ch: chr(b) for b, ch in enumerate(BYTE_TO_CHAR)}})


def text_to_bytes(text: str) -> bytes:
    """Inverse of bytes_to_text. Example: 'Ġa' -> b' a'.

    Raises ValueError naming the first character that is not a GPT-2 byte character.
    """
    try:
        return text.translate(BYTE_CHARS_TO_LATIN1).encode("latin-1")
    except UnicodeEncodeError:
        pass
    try:  # (the slow way, for the message: which character)
        return bytes([CHAR_TO_BYTE[ch] for ch in text])
    except KeyError as exc:
        raise ValueError(
            f"{exc.args[0]!r} is not one of GPT-2's 256 byte characters; "
            "byte-level token strings must come from bytes_to_text()"
        ) from None
