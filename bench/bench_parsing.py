"""Parsing cost of crafted worst cases, for every kind of file or link a user can hand the
page: model files (our JSON, a tokenizer.json) through the Files panel's ``import_model``,
tiktoken rank files (``from_tiktoken``, as the command line reads them), word-count lists (``parse_word_counts``) and share-link fragments
(``decode_fragment``). Each case is built at 0.1, 1 and 10 MB and timed in CPU seconds (a share link at most its own
limits); the time should grow linearly (10x per step), and none may take more than a few
seconds at the size limit. Every case must be refused (or read) with one message.

    .venv/bin/python bench/bench_parsing.py [--sizes 0.1 1 10]
"""

import argparse
import base64
import sys
import time
import zlib

from common import ROOT

sys.path.insert(0, str(ROOT / "web"))

from subwordlab import CorpusError, parse_word_counts
from subwordlab.formats.openai_files import MAX_RANK_TOKEN_BYTES, from_tiktoken
from subwordlab_web.exports import ImportFailed, import_model
from subwordlab_web.share import ShareLinkError, decode_fragment


def model_cases(n):
    """name -> bytes of about n bytes: JSON documents crafted against a parser."""
    return {
        "json: unterminated string of \\\"": ('{"format": "subwordlab", "a": "' + '\\"' * (n // 2)).encode(),
        "json: terminated string of \\\\": ('{"format": "subwordlab", "a": "' + "\\\\" * (n // 2) + '"}').encode(),
        "json: deep nesting [[[[": b"[" * n,
        "json: nesting [[..]] at the limit": (b"[" * 60 + b"1" + b"]" * 60) * max(1, n // 121),
        "json: many tiny strings": b'["' + b'","'.join([b"a"] * (n // 4)) + b'"]',
        "tokenizer.json: huge vocab of escapes": (
            '{"model": {"type": "BPE", "vocab": {' + ",".join(f'"\\u00{k % 100:02d}{k}": {k}' for k in range(n // 16))
            + '}, "merges": []}, "added_tokens": []}').encode(),
        "tiktoken: one long line": b"QQ==" * (n // 4),
        "tiktoken: short lines, bad rank": b"".join(base64.b64encode(bytes([k % 256, k // 256 % 256])) + b" x\n"
                                                    for k in range(n // 8)),
    }


def rank_cases(n):
    """Rank files that reach the rank-file parser, read as the command line reads them (with a
    pattern, so a parsed file goes on to its merges; the page refuses an unknown file first)."""
    lines = b"".join(base64.b64encode(k.to_bytes(3, "big")) + b" %d\n" % k for k in range(n // 12))
    return {
        "tiktoken: many good lines, last bad": lines + b"QQ== x\n",
        "tiktoken: one huge token": base64.b64encode(b"a" * (n * 3 // 4)) + b" 0\n",
        "tiktoken: staircase a, aa, aaa, …": _staircase(n),
        "tiktoken: 5,000-digit ranks": b"".join(base64.b64encode(bytes([k])) + b" " + b"9" * 5000 + b"\n"
                                                for k in range(min(256, max(1, n // 5010)))),
    }


def _staircase(n):
    """Tokens a, aa, aaa, … up to the longest token the loader takes, then the same runs of
    b, c, … (any byte), until the file has ``n`` bytes: every split of every token is a token,
    the worst case for deriving the merges."""
    out, size = [], 0
    for byte in range(256):
        for length in range(1, MAX_RANK_TOKEN_BYTES + 1):
            out.append(base64.b64encode(bytes([byte]) * length) + b" %d\n" % len(out))
            size += len(out[-1])
            if size >= n:
                return b"".join(out)
    return b"".join(out)


def count_cases(n):
    return {
        "word counts: one long line": "a" * n,
        "word counts: 5,000-digit counts": "".join(f"w{k} {'9' * 5000}\n" for k in range(max(1, n // 5010))),
        "word counts: many good lines, last bad": "".join(f"w{k} 5\n" for k in range(n // 8)) + "bad ²\n",
        "word counts: one word repeated": "low 5\n" * (n // 6),
    }


def link_cases(n):
    """Share-link fragments: the payload inflates to about n bytes (a link may inflate to 1 MB)."""
    def link(raw):
        return "v1." + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")
    return {
        "link: inflates to a run of \\\"": link(b'{"v": 1, "a": "' + b'\\"' * (n // 2)),
        "link: inflates to deep nesting": link(b"[" * n),
        "link: long garbage": "v1." + "A" * min(n, 40_000),
        # repaired before it is read (share.repair_fragment): escapes and white space to the raw limit
        "link: escapes and spaces": "v1." + ("%2D%2 %%41 \t" * (n // 10))[: min(n, 130_000)],
        "link: a percent-encoded link": "v1." + "%2D" * (min(n, 98_000) // 3),
    }


def measure(fn, data):
    """(CPU seconds, outcome) of ``fn(data)``: CPU time, as a loaded machine's wall clock
    would mostly measure the other processes."""
    t = time.process_time()
    try:
        fn(data)
        outcome = "read"
    except (ImportFailed, CorpusError, ShareLinkError, ValueError) as exc:
        outcome = "refused: " + str(exc).splitlines()[0][:70]
    return time.process_time() - t, outcome


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", nargs="*", type=float, default=[0.1, 1, 10], help="sizes in MB")
    args = ap.parse_args()
    rows = {}
    for mb in args.sizes:
        n = int(mb * 1_000_000)
        for name, data in model_cases(n).items():
            file_name = "crafted.tiktoken" if name.startswith("tiktoken") else "crafted.json"
            rows.setdefault(name, []).append((mb, *measure(lambda d, f=file_name: import_model(f, d), data)))
        for name, data in rank_cases(n).items():
            rows.setdefault(name, []).append((mb, *measure(lambda d: from_tiktoken(d, pattern="gpt2"), data)))
        for name, data in count_cases(n).items():
            rows.setdefault(name, []).append((mb, *measure(parse_word_counts, data)))
        for name, data in link_cases(n).items():
            rows.setdefault(name, []).append((mb, *measure(decode_fragment, data)))
    width = max(map(len, rows))
    print(f"{'case (CPU seconds)':<{width}}  " + "  ".join(f"{mb:>6g} MB" for mb in args.sizes)
          + "   outcome at the largest size")
    for name, got in rows.items():
        print(f"{name:<{width}}  " + "  ".join(f"{t:7.3f} s" for _, t, _ in got) + f"   {got[-1][2]}")


if __name__ == "__main__":
    main()
