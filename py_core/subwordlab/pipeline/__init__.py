"""The stages a text passes through around the model: normalizers, pre-tokenizers, the added
vocabulary (special tokens), and decoders back to text; each serializes itself through the
registry."""
