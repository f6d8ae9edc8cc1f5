"""Files in and out, above the ``Tokenizer`` they build: our JSON model file, Hugging Face's
``tokenizer.json`` (import and export), GPT-2's and tiktoken's files, and ``detect``, which
tells what kind of model file some bytes are."""
