"""A trained model as a recording: step through its merges without the corpus it came from.

A BPE or WordPiece model keeps what it learned, in order: BPE its merges by rank, WordPiece
its vocabulary (the starting alphabet, then one new token per merge). ``replay(tok)``
turns such a tokenizer (say, one the command line trained on gigabytes and saved with
``-o model.json``) into a ``ReplayedRecording``: the starting vocabulary, one
``MergeStep`` per merge in order, and the tokenizer after any step (``tokenizer_at``, the
same ids as the final one), as a ``Recording`` of the run would give them.

What only the corpus knew is not in a model file, and the replay does not invent it: each
step's ``count`` is None and its ``candidates`` (the pairs it beat) are empty; a WordPiece
step's ``pair`` is None too (its file keeps the new token, not the two it joined). A
Unigram model keeps its final pieces only, not the rounds that pruned them: ``replay``
refuses it with a ``ReplayError`` saying so.

>>> import subwordlab
>>> tok = subwordlab.train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> rec = replay(tok, "model.json")
>>> [(s.pair, s.new_token, s.count) for s in rec.steps[:2]]
[(('e', 's'), 'es', None), (('es', 't'), 'est', None)]
>>> rec.tokenizer_at(3).tokenize("newest")
['n', 'e', 'w', 'est</w>']
"""

from .base.events import AlphabetReady, Done, MergeStep
from .models.bpe import BPE
from .models.wordpiece import WordPiece
from .recording import Recording


class ReplayError(ValueError):
    """A tokenizer whose training steps cannot be rebuilt from the model alone; the message
    says what can be shown instead."""


class ReplayedRecording(Recording):
    """A finished ``Recording`` rebuilt from a model (``replay``), not from a run: its
    steps carry no counts and no candidates. ``source`` names where the model came from
    (a file name). Check ``getattr(rec, "replayed", False)`` to tell one from a real run."""

    replayed = True
    source = ""


def replay(tok, source=""):
    """The ``ReplayedRecording`` of a BPE or WordPiece tokenizer: its merges as steps, in
    the order they were learned. ``source``: where the model came from, for messages.
    Raises ``ReplayError`` (Unigram, a model of another type, a WordPiece vocabulary that
    is not in training order).

    Example: replay(subwordlab.load("model.json"), "model.json").tokenizer_at(3) is the
    model after its first three merges."""
    model = tok.model
    if isinstance(model, BPE):
        alphabet, steps = _bpe_steps(model)
    elif isinstance(model, WordPiece):
        alphabet, steps = _wordpiece_steps(model, tok.special_tokens)
    elif getattr(model, "type", "") == "Unigram":
        raise ReplayError("a Unigram model keeps its final pieces and their scores, not the training rounds that "
                          "pruned the others: it can be inspected as it is, but not stepped through")
    else:
        raise ReplayError(f"a {getattr(model, 'type', type(model).__name__)} model has no merges to step through; "
                          "only BPE and WordPiece models can be replayed")
    preset = tok.spec.get("preset") or model.type.lower()
    start = AlphabetReady(alphabet=alphabet, vocab_size=len(alphabet), distinct_words=0)
    rec = ReplayedRecording.from_events([start, *steps, Done(tok, len(steps))], preset)
    rec.source = source
    return rec


def _bpe_steps(model):
    """BPE: the base vocabulary, and one step per merge in rank order (the vocabulary after
    a merge ends at the newest id so far: a merge may rebuild a token made before)."""
    vocab, size = model.vocab, model.base_size
    steps = []
    for rank, (a, b) in enumerate(model.merges):
        new = model.ranks[(a, b)][1]
        size = max(size, new + 1)
        steps.append(MergeStep(rank=rank, pair=(vocab[a], vocab[b]), count=None, new_token=vocab[new],
                               candidates=[], vocab_size=size))
    return vocab[:model.base_size], steps


def _wordpiece_steps(model, special_tokens):
    """WordPiece: the special tokens and the one-character alphabet (``a``, ``##a``) first,
    then one step per token after them (WordPiece's training appends one per merge)."""
    vocab, prefix = model.vocab, model.prefix

    def one_char(token):
        return len(token[len(prefix):] if prefix and token.startswith(prefix) and len(token) > len(prefix) else token) == 1

    base = 0
    while base < len(vocab) and (vocab[base] in special_tokens or one_char(vocab[base])):
        base += 1
    late = next((i for i in range(base, len(vocab)) if one_char(vocab[i])), None)
    if late is not None:
        raise ReplayError(f"this WordPiece vocabulary is not in training order (the single character {vocab[late]!r} "
                          f"comes at id {late:,}, after merged tokens): it was not trained by Subword Lab, so its "
                          "merges cannot be stepped through; inspect it as it is")
    steps = [MergeStep(rank=k, pair=None, count=None, new_token=vocab[i], candidates=[], vocab_size=i + 1)
             for k, i in enumerate(range(base, len(vocab)))]
    return vocab[:base], steps
