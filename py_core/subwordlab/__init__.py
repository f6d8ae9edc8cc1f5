"""Subword Lab: train and inspect subword tokenizers, merge by merge.

>>> import subwordlab
>>> tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> tok.tokenize("lowest")
['low', 'est</w>']
"""

__version__ = "0.1.0"
