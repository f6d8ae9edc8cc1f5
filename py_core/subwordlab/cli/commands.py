"""What each command of the command line does (``subwordlab train``, ``encode``, ...): one
``cmd_<name>(args)`` per command, reading the parsed arguments and printing the result, and
the helpers they share (reading texts and models, the progress bar, atomic writes).
cli.py builds the arguments and runs these; a problem is a ``CliError`` with one line.

Example: ``cmd_decode(argparse.Namespace(model='model.json', ids=['15', '7']))`` prints the text.
"""

import codecs
import inspect as _inspect
import io
import json
import os
import sys
import time

from .. import api
from .. import counts as counts_file
from ..base.events import PHASES
from ..base.gc_pause import no_cyclic_gc
from ..base.jsonio import MAX_FILE_BYTES, ModelFileError, write_atomic
from ..base.parallel import default_workers, encode_stream, ordered_map
from ..formats.detect import KINDS, kind_of, looks_like_rank_file, read_model
from ..formats.hf_json import HFExportError, export_hf
from ..formats.our_json import format_vocab_table, to_json, vocab_table
from ..options import PRESETS, OptionError, all_options, options_markdown
from ..presets import counting_spec, resolve_options
from ..stats import compare_corpus, embedding_parameters, first_difference, format_table
from ..text.corpus import UTF16_SNIFF_BYTES, parse_word_counts, text_encoding, utf16_advice, why_not_text

EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 1, 2, 130


class CliError(Exception):
    """A problem to report in one line."""


# -- helpers ----------------------------------------------------------------------------

def _text_stream(fh):
    """A binary stream as text exactly as stored: no newline translation (CRLF stays CRLF),
    UTF-8 unless a UTF-16/32 byte-order mark says otherwise, a leading byte-order mark
    dropped (as the page reads files)."""
    head = fh.peek(UTF16_SNIFF_BYTES)[:UTF16_SNIFF_BYTES] if hasattr(fh, "peek") else b""
    encoding = text_encoding(head[:4])
    name = getattr(fh, "name", None)
    _refuse_if_not_text(name if isinstance(name, str) and name != "<stdin>" else "standard input", head, whole=False)
    return io.TextIOWrapper(fh, encoding="utf-8-sig" if encoding == "utf-8" else encoding, newline="")


def _decode_file(name, data):
    """A file's bytes as text, read as ``_text_stream`` reads them; a decoding problem says
    where (the byte's position in the file) and what to do.
    Example: _decode_file('a.txt', b'caf\\xe9') raises CliError('a.txt is not UTF-8 text: byte 0xE9 at position 3 ...')."""
    encoding = text_encoding(data[:4])
    _refuse_if_not_text(name, data)
    try:
        return data.decode("utf-8-sig" if encoding == "utf-8" else encoding)
    except UnicodeDecodeError as exc:
        raise _not_text(name, encoding, data[exc.start:exc.start + 1], exc.start) from None


def _refuse_if_not_text(name, data, whole=True):
    """Refuse, as the page does (``corpus.why_not_text``), a file that is no text the page
    reads: UTF-16 without a byte-order mark (named, with the command that converts it), or
    binary data (before, an ELF program was "not UTF-8 ... for a Windows Latin-1 file").
    ``data``: the file, or with ``whole=False`` a stream's first bytes.
    Example: b'\\x7fELF\\x02\\x01\\x01\\x00' -> CliError('... looks like a binary file, not text
    (a NUL byte at position 7); ...')."""
    refused = why_not_text(data, whole)
    if refused is None:
        return
    kind, what = refused
    if kind == "utf16":
        file = "FILE" if name == "standard input" else name
        raise CliError(utf16_advice(name, what) + f" (e.g. iconv -f {what} -t UTF-8 {file} > {file}.utf8.txt)")
    raise CliError(f"{name} looks like a binary file, not text (a NUL byte at position {what:,}); "
                   "give a text file (UTF-8, or UTF-16/32 with a byte-order mark)")


def _not_text(name, encoding, byte, position):
    """The error for a file that is not text in `encoding`: the bad byte, its position in
    the file, and how to convert the file."""
    label = encoding.upper()
    return CliError(f"{name} is not {label} text: byte 0x{byte.hex().upper()} at position {position:,} is not "
                    f"valid {label}; save it as UTF-8 first (e.g. iconv -f CP1252 -t UTF-8 {name} > "
                    f"{name}.utf8.txt, for a Windows Latin-1 file)")


def _first_bad_byte(path, encoding, block=1 << 16):
    """(byte, position in the file) of the first byte that is not valid `encoding`, read in
    blocks (a streamed encode meets the error far from where its text reader can say).
    Example: a file b'ok\\xff' -> (b'\\xff', 2)."""
    decoder = codecs.getincrementaldecoder(encoding)()
    offset = 0
    with open(path, "rb") as fh:
        while True:
            data = fh.read(block)
            pending = decoder.getstate()[0]  # (bytes of a character cut by the last block)
            try:
                decoder.decode(data, final=not data)
            except UnicodeDecodeError as exc:
                position = offset - len(pending) + exc.start
                return exc.object[exc.start:exc.start + 1], position
            if not data:
                return b"", offset
            offset += len(data)


def _stdin_text():
    """Standard input as text, its bytes kept (a text-only stream, e.g. under a test, as is)."""
    buffer = getattr(sys.stdin, "buffer", None)
    return _text_stream(buffer) if buffer is not None else sys.stdin


def _read_text(path):
    """The file's text exactly: the corpus is the user's bytes (no CRLF folded)."""
    try:
        if path == "-":
            buffer = getattr(sys.stdin, "buffer", None)
            return _decode_file("standard input", buffer.read()) if buffer is not None else sys.stdin.read()
        with open(path, "rb") as fh:
            return _decode_file(path, fh.read())
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}") from None


def _read_bytes(path, what="files"):
    """The bytes of a model or rank file, refused before reading if it is too big for one.
    Example: _read_bytes('model.json', 'model files') -> b'{...}'."""
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise CliError(f"{path} is {size:,} bytes; {what} are limited to {MAX_FILE_BYTES:,} bytes")
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}") from None


def _load_model(path):
    """The tokenizer in a model file of any kind (``formats.detect``): ours, a tokenizer.json
    (its post-processor left out, and said) or one of OpenAI's tiktoken rank files."""
    if path is None:
        raise CliError("give the model file with -m model.json")
    data = _read_bytes(path, "model files")
    try:
        loaded = read_model(data, path)
    except ModelFileError as exc:
        if kind_of(data) is None:  # not a model at all (another file given by mistake): say what -m takes
            raise CliError(f"{exc}; -m takes a model file written by subwordlab train -o or subwordlab import, a "
                           "tokenizer.json or a .tiktoken rank file") from None
        raise CliError(str(exc)) from None
    dropped = loaded.tokenizer.spec.get("dropped") if loaded.kind == "hf" else None
    if dropped:
        print(f"note: {path}: left out its {', '.join(dropped)} (the text's own tokens, as HF's "
              "encode(text, add_special_tokens=False))", file=sys.stderr)
    return loaded.tokenizer


def _write_atomic(path, text):
    """Write ``text`` to ``path`` via a temporary file and a rename: on any failure or
    interruption nothing (not even a partial file) is left at ``path``."""
    try:
        write_atomic(path, text)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror}") from None


def _policy(args):
    if getattr(args, "allow_special", False):
        return {"allowed_special": "all"}
    if getattr(args, "special_as_text", False):
        return {"disallowed_special": ()}
    return {}


# -- train --------------------------------------------------------------------------------

def _option_value(preset, name, raw):
    """A preset option's command-line text as its value, checked by the schema (options.py)."""
    option = preset.option(name)
    try:
        return option.parse(raw)
    except OptionError:
        what = option.allowed().replace("a whole number", "an integer", 1)
        raise CliError(f"{option.flag} takes {what}, not {raw!r} ({option.help})") from None


def _phase_line(event):
    """A Progress event as a line of the progress bar: the phase in words, and how far it is
    when the trainer says (a corpus counted chunk by chunk), else how much it works on.

    >>> from subwordlab.base.events import Progress
    >>> _phase_line(Progress("count", 4096, 8192)), _phase_line(Progress("index", 0, 1200))
    ("count: counting the corpus's words, 4,096/8,192", 'index: counting adjacent pairs (1,200)')
    """
    words = PHASES.get(event.phase, event.phase)
    words = words[0].lower() + words[1:] if words[1:2].islower() else words  # ("EM" stays)
    if event.done:
        return f"{event.phase}: {words}, {event.done:,}" + (f"/{event.total:,}" if event.total else "")
    return f"{event.phase}: {words}" + (f" ({event.total:,})" if event.total else "")


class _Progress:
    """Progress on stderr: step, merges/s (or rounds for Unigram), ETA. On a terminal, one
    line redrawn in place (``\\r``, every 0.2 s); into a file or a pipe (a CI log), whole
    lines, one every ``LOG_EVERY`` seconds and when a phase starts, never a ``\\r``.

    >>> _Progress(enabled=False).show("count: 10")  # (-q: nothing at all)
    """

    LOG_EVERY = 5.0  # seconds between two progress lines in a log

    def __init__(self, enabled, total=None, tty=None):
        self.enabled, self.total = enabled, total
        self.tty = sys.stderr.isatty() if tty is None else tty
        self.start = self.last = time.monotonic()
        self.steps = 0
        self.width = 0

    def show(self, text, force=False):
        now = time.monotonic()
        if not self.enabled or (not force and now - self.last < (0.2 if self.tty else self.LOG_EVERY)):
            return
        self.last = now
        line = text[:110]
        if self.tty:
            sys.stderr.write("\r" + line + " " * max(0, self.width - len(line)))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()
        self.width = len(line)

    def merge(self, event):
        self.steps += 1
        elapsed = max(time.monotonic() - self.start, 1e-9)
        rate = self.steps / elapsed
        if self.total:
            done = min(self.steps, self.total)
            frac = done / self.total
            bar = "#" * int(frac * 24)
            eta = (self.total - done) / rate if rate else 0
            text = f"[{bar:<24}] {done}/{self.total} merges  {rate:,.0f} merges/s  ETA {_fmt_time(eta)}"
        else:
            text = f"{self.steps} merges  {rate:,.0f} merges/s"
        self.show(f"{text}  vocab {event.vocab_size}", force=self.steps == 1)

    def done(self, message):
        if self.enabled:
            self.show(message, force=True)
            if self.tty:
                sys.stderr.write("\n")
            sys.stderr.flush()


def _fmt_time(seconds):
    seconds = int(seconds + 0.5)
    return f"{seconds // 60}:{seconds % 60:02d}"


def _preset_options(args, preset):
    """The preset options given on the command line, each checked by the schema; an option
    of another preset is refused, naming the presets it belongs to."""
    options = {}
    for name, (option, presets) in all_options().items():
        value = getattr(args, "opt_" + name, None)
        if value is None or name in ("vocab_size", "num_merges"):
            continue
        if not preset.has(name):
            raise CliError(f"{option.flag} is not an option of preset {preset.name!r} (it is one of "
                           f"{', '.join(presets)}); see: subwordlab {args.command} --help")
        options[name] = _option_value(preset, name, value)
    return options


def _fmt_mb(n):
    return f"{n / 1e6:,.1f} MB"


def _count_files(paths, spec, workers, bar):
    """The pre-token counts of ``paths`` (each one document; '-' is stdin) under ``spec``'s
    pipeline, counted in ``workers`` processes (``counts.count_inputs``), with one progress
    bar: bytes counted of the inputs' total."""
    sizes = [os.path.getsize(p) if p != "-" and os.path.isfile(p) else 0 for p in paths]
    total, done = sum(sizes), [0]
    start = time.monotonic()

    def on_done(nbytes):
        done[0] += nbytes
        rate = done[0] / max(time.monotonic() - start, 1e-9)
        if total and "-" not in paths:
            frac = min(1.0, done[0] / total)
            eta = (total - min(done[0], total)) / rate if rate else 0
            bar.show(f"count: [{'#' * int(frac * 24):<24}] {_fmt_mb(done[0])}/{_fmt_mb(total)}  {rate / 1e6:,.1f} MB/s  "
                     f"ETA {_fmt_time(eta)}")
        else:
            bar.show(f"count: {_fmt_mb(done[0])}  {rate / 1e6:,.1f} MB/s")

    def inputs():
        # one stream open at a time (the reading is lazy: as the workers ask for chunks)
        for path in paths:
            with _open_text(path) as fh:
                current[:] = [path, fh.encoding]
                yield ("standard input" if path == "-" else path), fh

    current = ["-", "utf-8"]
    try:
        counted = counts_file.count_inputs(inputs(), spec, lambda f, xs: ordered_map(f, xs, workers), on_done)
    except UnicodeDecodeError:
        raise _decode_error(*current) from None
    n = len(paths)
    bar.show(f"count: {_fmt_mb(done[0])} of {n} input{'s' * (n != 1)} in {time.monotonic() - start:.1f} s "
             f"({workers} worker{'s' * (workers != 1)}), {counted.distinct:,} distinct pre-tokens")
    return counted


class _open_text:
    """A file ('-': stdin) as a text stream, as ``_text_stream`` reads it; closed at the end
    (stdin is left open). Example: ``with _open_text('a.txt') as fh: fh.read()``."""

    def __init__(self, path):
        self.path = path
        try:
            self.fh = _stdin_text() if path == "-" else _text_stream(open(path, "rb"))
        except OSError as exc:
            raise CliError(f"cannot read {path}: {exc.strerror}") from None

    def __enter__(self):
        return self.fh

    def __exit__(self, *exc):
        if self.fh is not sys.stdin:
            self.fh.close()


def _decode_error(path, encoding):
    """The CliError for a file that stopped decoding midway (read as ``encoding``): the first
    bad byte and its position in the file, and how to convert it."""
    encoding = encoding.removesuffix("-sig")
    if path == "-":
        return CliError(f"standard input is not {encoding.upper()} text; save it as UTF-8 first (e.g. "
                        "iconv -f CP1252 -t UTF-8, for a Windows Latin-1 file)")
    return _not_text(path, encoding, *_first_bad_byte(path, encoding))


def _read_counts(path):
    """A counts file written by ``subwordlab count`` as a ``Counted``; one line if it is not one."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return counts_file.from_json(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CliError(f"{path} is not a counts file (not UTF-8 text); give a file written by 'subwordlab count -o'") from None
    except counts_file.CountsFileError as exc:
        raise CliError(f"{path}: {exc}") from None


def _worker_count(args):
    return args.workers if args.workers is not None else default_workers()


def cmd_train(args):
    preset = PRESETS[args.preset]
    options = _preset_options(args, preset)
    if args.vocab_size is None and args.num_merges is None:
        raise CliError("give --vocab-size N or --num-merges N")
    if args.counts is not None and (args.files or args.word_counts):
        raise CliError("give either corpus files (or --word-counts) or --counts COUNTS.json, not both")
    if not args.output:
        raise CliError("give the output file with -o model.json")
    bar = _Progress(not args.quiet)
    # the corpus: counts written by 'subwordlab count', a word-frequency list, or files (each
    # one document; none: stdin) counted here, in worker processes
    if args.counts is not None:
        corpus = _read_counts(args.counts)
    elif args.word_counts:
        corpus = parse_word_counts("\n".join(_read_text(p) for p in args.files or ["-"]))
    else:
        spec = resolve_options(preset.name, args.vocab_size, args.num_merges, options)
        corpus = _count_files(args.files or ["-"], spec, _worker_count(args), bar)
    kwargs = {}
    if "progress" in _inspect.signature(api.iter_train).parameters:
        kwargs["progress"] = True
    events = api.iter_train(corpus, preset.name, vocab_size=args.vocab_size, num_merges=args.num_merges, **options, **kwargs)
    tok, notes, phases = None, [], set()
    with no_cyclic_gc():  # (the whole run read here: as api.train, the collector paused throughout)
        for event in events:
            kind = event.kind
            if kind == "progress":
                bar.show(_phase_line(event), force=event.phase not in phases)
                phases.add(event.phase)  # (a phase's first report is always shown)
            elif kind == "alphabet":
                if args.num_merges is not None:
                    bar.total = args.num_merges
                elif args.vocab_size is not None and preset.learns_merges:
                    bar.total = max(0, args.vocab_size - event.vocab_size)
                bar.start = time.monotonic()
                bar.show(f"alphabet: {event.vocab_size} symbols, {event.distinct_words:,} distinct words", force=True)
                notes += getattr(event, "notes", ())  # (what the run limited, said after the bar)
            elif kind == "merge":
                bar.merge(event)
            elif kind == "em":
                bar.show(f"EM round {event.round}.{event.iteration}: log-likelihood {event.log_likelihood:,.1f}, "
                         f"vocab {event.vocab_size:,} -> {args.vocab_size:,}")
            elif kind == "prune":
                bar.show(f"prune round {event.round}: vocab {event.vocab_size:,} -> {args.vocab_size:,}")
            elif kind == "done":
                tok = event.tokenizer
    elapsed = time.monotonic() - bar.start
    rate = f", {bar.steps / elapsed:,.0f} merges/s" if bar.steps and elapsed > 0 else ""
    bar.done(f"done: {tok.vocab_size:,} tokens in {elapsed:.1f} s{rate}")
    short = api.shortfall(tok, merges=bar.steps if preset.learns_merges else None)
    for note in notes + ([short] if short else []):
        print(f"note: {note}", file=sys.stderr)
    _write_atomic(args.output, to_json(tok))
    if not args.quiet:
        print(f"wrote {args.output} ({tok!r})", file=sys.stderr)
    return 0


def _count_on_dask(address, paths, spec, bar):
    """The counts of ``paths`` made on the Dask cluster at ``address`` (dask_counts.py)."""
    if not paths or "-" in paths:
        raise CliError("--dask counts files the workers can read (paths on storage they share), not standard input")
    try:
        from dask.distributed import Client

        from ..dask_counts import count_files_dask
    except ImportError:
        raise CliError("--dask needs dask.distributed: pip install 'dask[distributed]' (here and on the workers)") from None
    bar.show(f"count: {len(paths)} files on the Dask cluster at {address}", force=True)
    try:
        client = Client(address, timeout=30)
    except (OSError, TimeoutError) as exc:
        raise CliError(f"cannot reach the Dask scheduler at {address} ({exc}); start one (dask scheduler) or check the address") from None
    with client:
        try:
            return count_files_dask(client, paths, spec)
        except FileNotFoundError as exc:
            raise CliError(f"a Dask worker cannot read {exc.filename}: give paths every worker can read") from None


def cmd_count(args):
    if not args.output:
        raise CliError("give the output file with -o counts.json")
    bar = _Progress(not args.quiet)
    if args.merge:
        # merge counts files, in the order given
        if len(args.files) < 1 or "-" in args.files:
            raise CliError("--merge takes the counts files to merge (written by 'subwordlab count -o'), in order")
        parts = [_read_counts(p) for p in args.files]
        try:
            counted = counts_file.merge_counted(parts)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    else:
        preset = PRESETS[args.preset]
        spec = counting_spec(preset.name, _preset_options(args, preset))
        if args.dask:
            counted = _count_on_dask(args.dask, args.files, spec, bar)
        else:
            counted = _count_files(args.files or ["-"], spec, _worker_count(args), bar)
        if not counted.counts:
            raise CliError("the corpus is empty (no pre-tokens after pre-tokenization): give some text")
    _write_atomic(args.output, counts_file.to_json(counted))
    bar.done(f"wrote {args.output} ({counted.distinct:,} distinct pre-tokens, {sum(counted.counts.values()):,} in all, "
             f"{len(counted.inputs)} input{'s' * (len(counted.inputs) != 1)})")
    return 0


# -- encode / decode ------------------------------------------------------------------------

def _chunks(fh, size=1 << 16):
    while True:
        block = fh.read(size)
        if not block:
            return
        yield block


def cmd_encode(args):
    tok = _load_model(args.model)
    policy = _policy(args)
    out = sys.stdout
    if args.file is not None and args.text is not None:
        raise CliError("give either a text or --file, not both")
    if args.file is None and args.text is None:
        raise CliError("give a text to encode (or --file FILE, or --file - for stdin)")
    if args.tokens:
        def emit(ids, first):
            for k, i in enumerate(ids):
                out.write(("" if first and k == 0 else " ") + json.dumps(tok.id_to_token(i), ensure_ascii=False))
    else:
        def emit(ids, first):
            if ids:
                out.write(("" if first else " ") + " ".join(map(str, ids)))
    if args.text is not None:
        emit(tok.encode(args.text, **policy), True)
        out.write("\n")
        return 0
    # streaming: the file in blocks, ids written as soon as they are final
    try:
        fh = _stdin_text() if args.file == "-" else _text_stream(open(args.file, "rb"))
    except OSError as exc:
        raise CliError(f"cannot read {args.file}: {exc.strerror}") from None
    workers = _worker_count(args)
    try:
        if workers > 1:
            # in worker processes: chunks cut where encode_iter cuts, written in order
            for part in encode_stream(tok, fh, policy, workers, as_tokens=args.tokens):
                out.write(part)
            out.write("\n")
            return 0
        first, batch = True, []
        for i in tok.encode_iter(_chunks(fh), **policy):
            batch.append(i)
            if len(batch) >= 4096:
                emit(batch, first)
                first, batch = False, []
        emit(batch, first)
    except UnicodeDecodeError:
        raise _decode_error(args.file, fh.encoding) from None
    finally:
        if fh is not sys.stdin:
            fh.close()
    out.write("\n")
    return 0


def cmd_decode(args):
    tok = _load_model(args.model)
    raw = args.ids if args.ids else sys.stdin.read().split()
    ids = []
    for r in raw:
        for part in r.replace(",", " ").replace("[", " ").replace("]", " ").split():
            try:
                ids.append(int(part))
            except ValueError:
                raise CliError(f"{part!r} is not an id (ids are integers, e.g. 12 34 56)") from None
    sys.stdout.write(tok.decode(ids) + "\n")
    return 0


# -- stats / inspect / vocab ----------------------------------------------------------------

def cmd_stats(args):
    tok = _load_model(args.model)
    texts = {}
    for path in args.files:
        name = "stdin" if path == "-" else os.path.basename(path)
        texts[name] = _read_text(path)
    for item in args.text or []:
        name, sep, text = item.partition("=")
        if not sep:
            raise CliError(f"--text takes NAME=TEXT, got {item!r}")
        texts[name] = text
    if not texts:
        raise CliError("give files or --text NAME=TEXT to measure")
    if args.reference is not None and args.reference not in texts:
        raise CliError(f"--reference {args.reference!r} is not one of the texts: {', '.join(texts)}")
    measured = compare_corpus(tok, texts, args.alpha, args.reference)
    extra = {}
    if args.d_model:
        extra = {"vocab_size": tok.vocab_size, "d_model": args.d_model,
                 "embedding_parameters": embedding_parameters(tok.vocab_size, args.d_model),
                 "with_separate_output_projection": embedding_parameters(tok.vocab_size, args.d_model, True)}
    if args.json:
        print(json.dumps({**measured, **({"parameters": extra} if extra else {})}, ensure_ascii=False, indent=2))
    else:
        print(format_table(measured["texts"], measured["all_texts"]))
        if extra:
            print(f"embedding parameters V*d = {extra['vocab_size']:,} x {args.d_model:,} = {extra['embedding_parameters']:,}"
                  f" ({extra['with_separate_output_projection']:,} with a separate output projection)")
    return 0


def cmd_inspect(args):
    tok = _load_model(args.model)
    text = args.text if args.text is not None else _read_text(args.file or "-")
    policy = _policy(args)
    normalized = tok.normalize_str(text)
    pieces = tok.pre_tokenize_str(normalized)
    enc = tok.encode_full(text, **policy)
    decoded = tok.decode(enc.ids)
    report = {
        "text": text,
        "normalized": normalized,
        "pre_tokens": [{"piece": p, "start": s, "end": e} for p, (s, e) in pieces],
        "tokens": [{"id": i, "token": t, "start": o[0], "end": o[1], "byte_start": b[0], "byte_end": b[1], "special": sp}
                   for i, t, o, b, sp in zip(enc.ids, enc.tokens, enc.offsets, enc.byte_offsets, enc.special)],
        "decoded": decoded,
        "round_trip": decoded == normalized,
        "round_trip_difference": first_difference(normalized, decoded),
    }
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    print(f"text        {text!r}")
    print(f"normalized  {normalized!r}")
    print(f"pre-tokens  {' '.join(repr(p['piece']) for p in report['pre_tokens'])}")
    print("tokens")
    width = max([len(repr(t["token"])) for t in report["tokens"]] + [5])
    for t in report["tokens"]:
        piece = text[t["start"]:t["end"]]
        mark = "  special" if t["special"] else ""
        print(f"  {t['id']:>7}  {repr(t['token']):<{width}}  chars {t['start']}-{t['end']} {piece!r}  bytes {t['byte_start']}-{t['byte_end']}{mark}")
    print(f"decoded     {decoded!r}")
    if report["round_trip"]:
        print("round trip  ok (decoded == normalized)")
    else:
        d = report["round_trip_difference"]
        print(f"round trip  FAILS at character {d['index']}: expected {d['expected']!r}, got {d['got']!r}")
    return 0


def cmd_vocab(args):
    tok = _load_model(args.model)
    print(format_vocab_table(vocab_table(tok), args.limit))
    return 0


def cmd_presets(args):
    if args.markdown:
        sys.stdout.write(options_markdown())
        return 0
    for preset in PRESETS.values():
        print(f"{preset.name}: {preset.title}\n  {preset.help}\n  pipeline: {preset.pipeline}")
        for option in preset.options:
            default = "none" if option.default is None else (option.text(option.default) or "''")
            print(f"  {option.flag:<28} {option.allowed()}; default {default}\n  {'':<28} {option.help}")
        print()
    return 0


# -- export / import ------------------------------------------------------------------------

def cmd_export(args):
    if not args.hf:
        raise CliError("say which format: export --hf (a Hugging Face tokenizer.json)")
    tok = _load_model(args.model)
    try:
        result = export_hf(tok)
    except HFExportError as exc:
        raise CliError(f"cannot export to tokenizer.json: {exc}") from None
    for w in result.warnings:
        print(f"subwordlab: warning: {w}", file=sys.stderr)
    if args.output in (None, "-"):
        sys.stdout.write(result.text)
    else:
        _write_atomic(args.output, result.text)
    return 0


def cmd_import(args):
    path = args.source
    data = _read_bytes(path) if path != "-" else sys.stdin.buffer.read()
    # what the file is comes from its content; --hf / --tiktoken, if given, must agree
    kind = "tiktoken" if looks_like_rank_file(data) else "hf"
    said = "hf" if args.hf else "tiktoken" if args.tiktoken else None
    if args.hf and args.tiktoken:
        raise CliError("give at most one of --hf and --tiktoken (the file's kind is read from its content anyway)")
    if said and said != kind:
        raise CliError(f"{path} is not a {KINDS[said]}: it reads as a {KINDS[kind]}; leave out --{said}")
    try:
        loaded = read_model(data, path, args.drop_post_processing, args.pattern, _special_ids(args.special_tokens),
                            said)
    except ModelFileError as exc:
        raise CliError(str(exc)) from None
    if loaded.kind == "ours":
        raise CliError(f"{path} is a Subword Lab model file already: use it as it is (-m {path})")
    if not args.output:
        raise CliError("give the output file with -o model.json")
    _write_atomic(args.output, to_json(loaded.tokenizer))
    print(f"wrote {args.output} ({loaded.tokenizer!r})", file=sys.stderr)
    return 0


def _special_ids(text):
    """'<|a|>=100,<|b|>=101' -> {'<|a|>': 100, '<|b|>': 101}; None stays None."""
    if text is None:
        return None
    out = {}
    for item in text.split(","):
        name, eq, num = item.rpartition("=")
        if not eq or not name or not num.strip().isdigit():
            raise CliError(f"--special-tokens takes TOKEN=ID pairs separated by commas (e.g. '<|endoftext|>=50256'), "
                           f"not {item!r}")
        out[name] = int(num)
    return out
