"""OpenAI's real vocabularies (r50k_base, cl100k_base, o200k_base): loading a rank file and
encoding real text, ours against tiktoken, on the same files, in the same run.

Run: .venv/bin/python bench/bench_real_vocabularies.py
The files come from build/reference_vocabs.py (npm's js-tiktoken, rewritten byte for byte
into OpenAI's files; fetched once). Prints seconds, MB/s and ratios; ids are asserted equal.

- load: our ``from_tiktoken`` (parse; the model keeps the ranks and encodes by them as
  tiktoken does, its merges derived only when asked for) against tiktoken's
  ``load_tiktoken_bpe`` + ``Encoding``.
- encode: the whole of tinyshakespeare.txt, cold (first pass) and warm (chunk cache filled),
  against tiktoken's native encoder.
"""

import importlib.util
import os

from common import CORPORA, ROOT, report, timed

from subwordlab.formats.openai_files import from_tiktoken


def reference_files():
    spec = importlib.util.spec_from_file_location("reference_vocabs", ROOT / "build" / "reference_vocabs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ensure()


def main():
    folder = reference_files()
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    text = (CORPORA / "tinyshakespeare.txt").read_text(encoding="utf-8")
    mb = len(text.encode("utf-8")) / 1e6
    for name in ("r50k_base", "cl100k_base", "o200k_base"):
        path = folder / f"{name}.tiktoken"
        ours_load, tok = timed(from_tiktoken, path.read_text(encoding="ascii"))
        reference = tiktoken.get_encoding(name)

        def theirs(name=name, reference=reference, path=path):
            return tiktoken.Encoding(name + "-bench", pat_str=reference._pat_str,
                                     mergeable_ranks=load_tiktoken_bpe(str(path)),
                                     special_tokens=reference._special_tokens)

        their_load, enc = timed(theirs, repeat=3)
        cold, ids = timed(tok.encode, text)
        warm, ids2 = timed(tok.encode, text, repeat=3)
        native, expected = timed(enc.encode, text, repeat=3)
        assert ids == ids2 == expected, name
        report([
            ("load: ours (s)", f"{ours_load:.2f}"),
            ("load: tiktoken (s), best of 3", f"{their_load:.2f}"),
            ("load: ours / tiktoken", f"{ours_load / their_load:.1f}x"),
            ("encode Shakespeare: ours cold (MB/s)", f"{mb / cold:.2f}"),
            ("encode: ours warm (MB/s), best of 3", f"{mb / warm:.2f}"),
            ("encode: tiktoken (MB/s), best of 3", f"{mb / native:.2f}"),
            ("encode: tiktoken / ours warm", f"{warm / native:.1f}x"),
        ], f"{name}: {tok.vocab_size:,} tokens, {len(ids):,} ids for {mb:.2f} MB (identical to tiktoken's)")


if __name__ == "__main__":
    main()
