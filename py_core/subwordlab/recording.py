"""A recorded training run: the events of a trainer, kept so any step can be revisited.

The playground steps, plays and scrubs through training. Going back must be instant and
must not retrain, so a ``Recording`` keeps every event and rebuilds the tokenizer *as it
was after step k* from them (for BPE and WordPiece the vocabulary at step k is a prefix of
the final one, so ids are the final ones; for Unigram each round's event carries the
surviving pieces and their scores, with ids of their own).

Training advances in small slices (``advance(max_events)``), so a caller can yield to a
browser between slices; ``run()`` drains it. A recording can also mirror a run made
elsewhere (the page's compute worker): ``Recording.mirror(preset)`` has no trainer of its
own and is fed the run's events with ``take(event)``.

>>> rec = Recording({"low": 5, "lower": 2, "newest": 6, "widest": 3}, preset="bpe", num_merges=8)
>>> rec.run().steps[2].new_token
'est</w>'
>>> rec.tokenizer_at(2).tokenize("newest")
['n', 'e', 'w', 'est', '</w>']
>>> rec.tokenizer_at(8).tokenize("newest")
['newest</w>']
"""

from .api import iter_train
from .base.events import AlphabetReady, Done, Progress
from .models.bpe import BPE
from .models.unigram import Unigram
from .models.wordpiece import WordPiece
from .tokenizer import Tokenizer


class Recording:
    """The events of one training run, with the tokenizer at any step.

    ``steps``: the step events in order (merges, or Unigram EM/prune rounds); step ``k``
    (1-based) is ``steps[k - 1]``; step 0 is the starting vocabulary.
    """

    def __init__(self, corpus, preset="bpe", *, vocab_size=None, num_merges=None, progress=False, **options):
        # progress=True: the trainer's ``Progress`` events (a chunk of the corpus counted, a
        # phase started) come too, kept in ``self.progress`` for a progress bar
        self._events = iter_train(corpus, preset, vocab_size=vocab_size, num_merges=num_merges,
                                  progress=progress, **options)
        self._start(preset)

    @classmethod
    def mirror(cls, preset="bpe"):
        """A recording with no trainer: it is fed another run's events with ``take``.

        >>> source = Recording({"low": 5, "lower": 2}, preset="bpe", num_merges=2)
        >>> copy = Recording.mirror("bpe")
        >>> while not source.done:
        ...     copy.take(source.next_event())
        >>> copy.tokenizer_at(1).tokenize("low")
        ['lo', 'w', '</w>']
        """
        rec = cls.__new__(cls)
        rec._events = None
        rec._start(preset)
        return rec

    @classmethod
    def from_events(cls, events, preset):
        """A finished recording of events made elsewhere (``AlphabetReady``, the steps,
        ``Done``), without training: e.g. ``replay.replay`` rebuilds them from a model file.
        Example: Recording.from_events([alphabet, *merge_steps, Done(tok, n)], "bpe")."""
        rec = cls.mirror(preset)
        for event in events:
            rec.take(event)
        return rec

    def _start(self, preset):
        self.preset = preset
        self.progress = None
        self.progress_pass = 1  # which pass of ``progress.phase`` since the last step (see advance)
        self.alphabet = None
        self.steps = []
        self.tokenizer = None  # the final tokenizer, once done
        self._cache = {}

    @property
    def done(self):
        return self.tokenizer is not None

    @property
    def spec(self):
        return self.tokenizer.spec if self.tokenizer else None

    def advance(self, max_events=1):
        """Consume up to ``max_events`` events; return how many were consumed."""
        n = 0
        while n < max_events and not self.done:
            self.next_event()
            n += 1
        return n

    def next_event(self):
        """Consume the trainer's next event and return it (the run must not be done)."""
        if self._events is None:
            raise RuntimeError("a mirrored recording has no trainer: feed it with take(event)")
        event = next(self._events)
        self.take(event)
        return event

    def take(self, event):
        """Record one event (a trainer's, here or in another process)."""
        if isinstance(event, Progress):
            # a phase that starts over (its count goes back) is another pass of it,
            # numbered, so what a progress bar shows under one label never runs backwards
            last = self.progress
            if last is None or last.phase != event.phase:
                self.progress_pass = 1
            elif event.done < last.done:
                self.progress_pass += 1
            self.progress = event
        elif isinstance(event, AlphabetReady):
            self.alphabet = event
        elif isinstance(event, Done):
            self.tokenizer = event.tokenizer
        else:
            self.steps.append(event)
            self.progress, self.progress_pass = None, 1  # a step: its phases start afresh

    def run(self):
        """Train to the end; returns self."""
        while not self.done:
            self.advance(10_000)
        return self

    def tokenizer_at(self, step):
        """The tokenizer after ``step`` steps (0 = the starting vocabulary), same ids as the
        final one. Needs the run to be done (the pipeline comes from the final tokenizer)."""
        if not self.done:
            raise RuntimeError("training is still running; tokenizer_at() needs the finished run (call run())")
        if not 0 <= step <= len(self.steps):
            raise ValueError(f"step must be between 0 and {len(self.steps)}, not {step}")
        if step == len(self.steps):
            return self.tokenizer
        tok = self._cache.get(step)
        if tok is None:
            tok = self._cache[step] = self._rebuild(step)
            if len(self._cache) > 64:  # keep the cache small while scrubbing
                self._cache.pop(next(iter(self._cache)))
        return tok

    def _rebuild(self, step):
        final = self.tokenizer
        m = final.model
        if isinstance(m, BPE):
            return final.truncated(step)
        if isinstance(m, WordPiece):
            # every merge appends at most one token: the vocabulary then is a prefix
            size = self.steps[step - 1].vocab_size if step else self.alphabet.vocab_size
            model = WordPiece(m.vocab[:size], m.unk_token, m.prefix, m.max_input_chars_per_word)
            return Tokenizer(model, final.normalizer, final.pre_tokenizer, final.decoder, final.special_tokens, final.spec)
        if isinstance(m, Unigram):
            return self._unigram_at(step)
        raise TypeError(f"no step-by-step view for a {m.type} model")

    def _unigram_at(self, step):
        """Unigram: the pieces (and scores) of the latest event at or before ``step`` that
        carries them; step 0 (or EM rounds before the first prune) use the seed."""
        final = self.tokenizer
        snapshot = None
        for event in reversed(self.steps[:step]):
            snapshot = getattr(event, "pieces", None)
            if snapshot is not None:
                break
        if snapshot is None:
            snapshot = getattr(self.alphabet, "pieces", None)
        if snapshot is None:
            raise TypeError("this Unigram run recorded no piece snapshots")
        m = final.model
        # subtle: a snapshot has its own ids; special and user-defined pieces are found by name
        position = {piece: i for i, (piece, _) in enumerate(snapshot)}
        control = [position[m.vocab[i]] for i in m.control_ids if m.vocab[i] in position]
        defined = [position[m.vocab[i]] for i in m.user_defined_ids if m.vocab[i] in position]
        model = Unigram.from_pieces(snapshot, unk_id=position.get(m.vocab[m.unk_id], m.unk_id),
                                    byte_fallback=m.byte_fallback, control_ids=control, user_defined_ids=defined)
        specials = {t: model.token_to_id[t] for t in final.special_tokens if t in model.token_to_id}
        return Tokenizer(model, final.normalizer, final.pre_tokenizer, final.decoder, specials, final.spec)
