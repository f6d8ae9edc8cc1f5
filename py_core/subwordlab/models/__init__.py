"""Models: the data a trained tokenizer keeps, and pure functions that segment one piece."""
