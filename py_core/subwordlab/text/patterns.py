"""Built-in pre-tokenization patterns: the exact ``pat_str`` strings tiktoken ships.

Pre-tokenization cuts text into chunks with a regex before BPE runs on each chunk,
so merges never cross a chunk boundary. Each pattern is copied verbatim from
``tiktoken_ext/openai_public.py`` (tiktoken 0.14.0); compile them with
:func:`subwordlab.text.regex_compat.compile_pattern`, which works with or without the
third-party ``regex`` module.

``GPT2`` (tiktoken's ``r50k_pat_str``, also used by p50k): English contractions,
optional-space + letter run, optional-space + digit run, optional-space + other run,
and whitespace; runs of digits stay whole.
    "Hello world's 123  !!" -> ['Hello', ' world', "'s", ' 123', ' ', ' !!']

``CL100K`` (cl100k_base): contractions case-insensitively, a letter run may take one
leading non-letter (so " world" and "(world" stay whole), digits in groups of at most
three, newlines kept with their whitespace.
    "I'LL pay 1234567!" -> ['I', "'LL", ' pay', ' ', '123', '456', '7', '!']

``O200K`` (o200k_base, also o200k_harmony): like cl100k but letter runs also split at
case changes (an upper-case run then a lower-case run is one chunk), contractions are
glued to the word, and "/" sticks to punctuation runs.
    "HelloWorld don't" -> ['Hello', 'World', " don't"]
"""

GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""

CL100K = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""

O200K = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

PATTERNS = {"gpt2": GPT2, "cl100k": CL100K, "o200k": O200K}
