"""Text, the bottom layer: what Unicode says of a character (the pinned tables), regular
expressions that behave the same in every runtime (and Oniguruma's, translated), the named
pre-tokenization patterns, GPT-2's byte map, special-token splitting and reading a corpus.
Nothing here knows a tokenizer; it imports only the standard library and itself."""
