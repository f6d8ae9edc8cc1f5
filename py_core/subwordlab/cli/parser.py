"""The command line: ``python -m subwordlab <command> ...`` (also installed as ``subwordlab``).

Commands: train, count, encode, decode, stats, inspect, vocab, export --hf, import (a tokenizer.json or a tiktoken rank file),
presets (the algorithms and their options; ``--markdown`` writes the README's options table).
Every command has ``--help`` with an example. Errors go to stderr as one line
(``subwordlab: error: ...``) with exit code 1 (2 for a wrong command line, 130 when
interrupted); set SUBWORDLAB_DEBUG=1 to see the traceback.

This module builds the arguments (from the option schema) and runs a command; what each
command does is in commands.py.
"""

import argparse
import os
import signal
import sys

from ..base.parallel import default_workers
from ..options import LIST_SYNTAX, PRESETS, all_options
from ..stats import RENYI_ALPHA, check_alpha
from ..version import __version__
from .commands import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    CliError,
    cmd_count,
    cmd_decode,
    cmd_encode,
    cmd_export,
    cmd_import,
    cmd_inspect,
    cmd_presets,
    cmd_stats,
    cmd_train,
    cmd_vocab,
)

# -- the parser -------------------------------------------------------------------------------

class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def _workers(text):
    """--workers N: a whole number of processes, at least 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"takes a whole number of processes, at least 1, not {text!r}")
    return n


def _alpha(text):
    """--alpha A: the Renyi efficiency's order, a positive number."""
    try:
        return check_alpha(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a positive number such as 2.5 (1 for Shannon's efficiency), "
                                         f"not {text!r}") from None


def workers_arg(p, what):
    p.add_argument("--workers", type=_workers, default=None, metavar="N",
                   help=f"{what} in N worker processes (default: this machine's cores, {default_workers()}); "
                        "the result is the same as with 1")


def preset_args(p, what):
    """--preset and every preset option as a flag (from the schema in options.py)."""
    p.add_argument("--preset", choices=list(PRESETS), default="bpe", help="the algorithm (default: bpe)")
    g = p.add_argument_group(f"preset options (each applies to the presets named in brackets){what}")
    for name, (option, presets) in sorted(all_options().items()):
        if name in ("vocab_size", "num_merges"):
            continue  # the target, apart
        text = f"{option.help}; {option.allowed()} [{', '.join(presets)}]".replace("%", "%%")
        if option.kind == "bool":
            g.add_argument(option.flag, dest="opt_" + name, action=argparse.BooleanOptionalAction, default=None, help=text)
        else:
            # (a choice's values across the presets: 'rules' offers different ones per preset)
            choices = dict.fromkeys(c for n in presets for c in PRESETS[n].option(name).choices)
            metavar = {"int": "N", "float": "X", "list": "'A B'", "choice": "|".join(choices)}.get(option.kind, "TEXT")
            g.add_argument(option.flag, dest="opt_" + name, metavar=metavar, default=None, help=text)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="subwordlab", formatter_class=_Formatter,
        description="Train and inspect subword tokenizers (BPE, WordPiece, Unigram).",
        epilog="examples:\n"
               "  subwordlab train corpus.txt --preset byte_bpe --vocab-size 1000 -o model.json\n"
               "  subwordlab encode -m model.json 'Hello world' --tokens\n"
               "  subwordlab export --hf -m model.json -o tokenizer.json\n"
               "run 'subwordlab COMMAND --help' for each command's options")
    parser.add_argument("--version", action="version", version=f"subwordlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name, help_, example, func):
        p = sub.add_parser(name, help=help_, description=help_, epilog="example:\n  " + example, formatter_class=_Formatter)
        p.set_defaults(func=func)
        return p

    def model_arg(p):
        p.add_argument("-m", "--model", required=True, metavar="MODEL.json", help="a model file written by 'subwordlab train'")

    def text_args(p, text_help, file_help):
        """A model and a text to encode: the text as an argument or --file (a file or stdin),
        and what to do with special tokens found in it."""
        model_arg(p)
        p.add_argument("text", nargs="?", help=text_help)
        p.add_argument("--file", metavar="FILE", help=file_help)
        g = p.add_mutually_exclusive_group()
        g.add_argument("--allow-special", action="store_true", help="encode special tokens found in the text as special tokens")
        g.add_argument("--special-as-text", action="store_true", help="encode special tokens found in the text as ordinary text")

    # train
    p = command("train", "train a tokenizer on corpus files (or stdin) and save it as our JSON model file",
                "subwordlab train corpus.txt --preset sentencepiece_bpe --vocab-size 2000 --byte-fallback -o model.json\n"
                "  cat words.txt | subwordlab train --word-counts --preset bpe --num-merges 10 -o model.json\n\n"
                "presets: " + ", ".join(PRESETS) + "\n"
                "  subwordlab train big.txt --preset byte_bpe --vocab-size 32000 --special-tokens '<|endoftext|>' --workers 8 -o m.json\n"
                "  subwordlab train --counts counts.json --preset byte_bpe --vocab-size 32000 -o model.json\n\n"
                "presets: " + ", ".join(PRESETS) + "\n"
                "lists (e.g. --special-tokens) are " + LIST_SYNTAX.replace("%", "%%") + "\n"
                "Ctrl-C stops training cleanly: nothing is written.", cmd_train)
    p.add_argument("files", nargs="*", metavar="FILE", help="corpus files, each one document ('-' or none: stdin)")
    p.add_argument("--vocab-size", type=int, help="target vocabulary size, counting every token")
    p.add_argument("--num-merges", type=int, help="number of merges to learn (BPE, WordPiece)")
    p.add_argument("--word-counts", action="store_true", help="the input is a word-frequency list: one 'word count' per line")
    p.add_argument("--counts", metavar="COUNTS.json", help="train from pre-token counts written by 'subwordlab count' (no FILEs)")
    p.add_argument("-o", "--output", metavar="MODEL.json", help="where to save the model")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    workers_arg(p, "count the corpus")
    preset_args(p, "")

    # count
    p = command("count", "count a corpus's pre-tokens for a preset's pipeline into a counts file (train --counts reads it)",
                "subwordlab count shard1.txt shard2.txt --preset byte_bpe --special-tokens '<|endoftext|>' -o counts1.json\n"
                "  subwordlab count --merge counts1.json counts2.json -o counts.json\n"
                "  subwordlab count /shared/corpus/*.txt --preset byte_bpe --dask tcp://scheduler:8786 -o counts.json\n"
                "  subwordlab train --counts counts.json --preset byte_bpe --special-tokens '<|endoftext|>' "
                "--vocab-size 32000 -o model.json\n\n"
                "the counts are the same whatever the number of workers or shards; merged in the order given,\n"
                "they train the model the text itself trains, byte for byte", cmd_count)
    p.add_argument("files", nargs="*", metavar="FILE", help="corpus files, each one document ('-' or none: stdin); "
                                                            "with --merge: counts files")
    p.add_argument("--merge", action="store_true", help="merge counts files (in the order given) instead of counting text")
    p.add_argument("--dask", metavar="ADDRESS", help="count on a Dask cluster (e.g. tcp://scheduler:8786), one task per "
                                                     "file; the workers must read the files at these paths")
    p.add_argument("-o", "--output", metavar="COUNTS.json", help="where to write the counts")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    workers_arg(p, "count")
    preset_args(p, " (only those that change the pre-tokens matter)")

    # encode
    p = command("encode", "encode a text (or a file, streamed) to ids or tokens",
                "subwordlab encode -m model.json 'Hello world'\n  subwordlab encode -m model.json --file big.txt > ids.txt", cmd_encode)
    text_args(p, "the text to encode", "encode this file instead, streamed ('-' for stdin)")
    p.add_argument("--tokens", action="store_true", help="print token strings (JSON-quoted) instead of ids")
    workers_arg(p, "--file: encode")

    # decode
    p = command("decode", "decode ids (arguments or stdin) back to text",
                "subwordlab decode -m model.json 15 7 2", cmd_decode)
    model_arg(p)
    p.add_argument("ids", nargs="*", help="ids (or read them from stdin)")

    # stats
    p = command("stats", "statistics of the tokenizer on texts: tokens, chars/token, fertility, continued words, "
                "byte fallback, Renyi efficiency, premium, round trip",
                "subwordlab stats -m model.json udhr_eng.txt udhr_kor.txt --reference udhr_eng.txt\n"
                "  subwordlab stats -m model.json --text en=cat --text ko=고양이 --alpha 3 --json\n\n"
                "words are runs of non-white-space characters; continued words: words cut into 2 or more tokens; "
                "premium (parity) is tokens / the reference's tokens; the Shannon and Renyi efficiencies are those "
                "of the token unigram distribution (Zouhar et al. 2023), per text and, on the 'all texts' line, "
                "of all the texts pooled", cmd_stats)
    model_arg(p)
    p.add_argument("files", nargs="*", metavar="FILE", help="texts to measure (named by file name)")
    p.add_argument("--text", action="append", metavar="NAME=TEXT", help="a named text to measure (repeatable)")
    p.add_argument("--reference", metavar="NAME", help="the text premium is relative to (default: the first)")
    p.add_argument("--alpha", type=_alpha, default=RENYI_ALPHA, metavar="A",
                   help=f"the order of the Renyi efficiency (default {RENYI_ALPHA}, the paper's; 1 is Shannon's)")
    p.add_argument("--d-model", type=int, metavar="D", help="also show the embedding parameters V*d for width D")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    # inspect
    p = command("inspect", "show a text at every pipeline stage: normalized, pre-tokens, tokens with offsets, decoded",
                "subwordlab inspect -m model.json 'Héllo  world!'", cmd_inspect)
    text_args(p, "the text (or --file)", "read the text from a file ('-' for stdin)")
    p.add_argument("--json", action="store_true", help="machine-readable output")

    # vocab
    p = command("vocab", "list the vocabulary: id, token, bytes, and for BPE the merge that made it",
                "subwordlab vocab -m model.json --limit 50", cmd_vocab)
    model_arg(p)
    p.add_argument("--limit", type=int, metavar="N", help="only the first N ids")

    # presets
    p = command("presets", "list the algorithms (presets) and every option they take: kind, range, default, help",
                "subwordlab presets\n  subwordlab presets --markdown   # the README's options table", cmd_presets)
    p.add_argument("--markdown", action="store_true", help="a Markdown table per preset")

    # export / import
    p = command("export", "export a model as a Hugging Face tokenizer.json (loads in the tokenizers library)",
                "subwordlab export --hf -m model.json -o tokenizer.json", cmd_export)
    model_arg(p)
    p.add_argument("--hf", action="store_true", help="Hugging Face tokenizer.json (the only format)")
    p.add_argument("-o", "--output", metavar="FILE", help="where to write (default: stdout)")
    p = command("import", "import a Hugging Face tokenizer.json or a tiktoken rank file as our JSON model file",
                "subwordlab import tokenizer.json -o model.json\n"
                "  subwordlab import o200k_base.tiktoken -o o200k.json\n"
                "  subwordlab import my.tiktoken --pattern cl100k --special-tokens '<|end|>=1000' -o m.json\n\n"
                "The file's kind is read from its content. OpenAI's own rank files (r50k_base,\n"
                "cl100k_base, o200k_base) are recognised by their SHA-256: their pattern and special\n"
                "tokens are tiktoken's", cmd_import)
    p.add_argument("source", metavar="FILE", help="the file to import ('-' for stdin)")
    p.add_argument("--hf", action="store_true", help="say that the file is a Hugging Face tokenizer.json (checked; optional)")
    p.add_argument("--tiktoken", action="store_true", help="say that the file is a tiktoken rank file (checked; optional)")
    p.add_argument("--pattern", metavar="P", help="a rank file's pattern: gpt2, cl100k, o200k or a regex (OpenAI's files: known)")
    p.add_argument("--special-tokens", metavar="T=ID,...", help="a rank file's special tokens with their ids")
    p.add_argument("--drop-post-processing", action="store_true",
                   help="leave out the file's post-processor (e.g. [CLS]/[SEP] around the text), truncation and padding")
    p.add_argument("-o", "--output", metavar="MODEL.json", help="where to save the model")
    return parser


def main(argv=None):
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    if args.command in ("train", "count"):
        # subtle: a process started in the background by a shell inherits SIGINT ignored;
        # training (and counting) is long, so Ctrl-C (or kill -INT) must always stop it cleanly
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        except (ValueError, OSError, AttributeError):  # not the main thread, or no signals (Pyodide)
            pass
    try:
        return args.func(args)
    except KeyboardInterrupt:
        sys.stderr.write("\nsubwordlab: interrupted; nothing was written\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (e.g. '| head'): stop quietly
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except (CliError, ValueError, OSError) as exc:
        if os.environ.get("SUBWORDLAB_DEBUG"):
            raise
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"subwordlab: error: {message}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # one readable line, never a traceback (it is re-raised with SUBWORDLAB_DEBUG)
        if os.environ.get("SUBWORDLAB_DEBUG"):
            raise
        print(f"subwordlab: internal error: {type(exc).__name__}: {exc} (SUBWORDLAB_DEBUG=1 shows the traceback)", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
