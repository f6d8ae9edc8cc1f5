"""Generate py_core/subwordlab/text/spm_scripts.py: where sentencepiece's own script table
differs from the core's pinned Unicode 16 scripts.

``spm_train`` keeps a piece to one script (``IsValidSentencePiece``) by its own table,
``unicode_script_map.h``, written from an older Unicode: characters assigned since are
Common to it (every CJK ideograph of the later extensions, the Armenian letters ՠ and ֈ),
and a few changed script (the Armenian full stop ։ is Common to it, Armenian to Unicode 16;
Devanagari's ॓ ॔ are Devanagari to it, Inherited now). So ``rules="sentencepiece"``
reads scripts through this table of exceptions (``unigram_seed.is_valid_piece(spm=True)``):
on the Armenian UDHR spm never merges a word with its ։, which Unicode 16 would allow.

The table is ``sentencepiece`` 0.2.3's (the version the tests run against), read from its
source distribution on PyPI:

    pip download sentencepiece==0.2.3 --no-binary :all: --no-deps -d /tmp/spm
    tar xzf /tmp/spm/sentencepiece-0.2.3.tar.gz -C /tmp/spm
    .venv/bin/python build/spm_scripts.py /tmp/spm/sentencepiece-0.2.3/sentencepiece/src/unicode_script_map.h
"""

import collections
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "py_core" / "subwordlab" / "text" / "spm_scripts.py"
sys.path.insert(0, str(ROOT / "py_core"))

from subwordlab.trainers.unigram_seed import script_of  # noqa: E402


def spm_table(header: str) -> dict:
    """{code point: spm's script name} as ``InitTable`` fills it (a missing one is Common)."""
    table = {}
    for a, b, name in re.findall(r"for \(char32_t c = 0x([0-9A-F]+); c <= 0x([0-9A-F]+); \+\+c\)\s*"
                                 r"\(\*smap\)\[c\] = U_(\w+);", header, re.I):
        for cp in range(int(a, 16), int(b, 16) + 1):
            table[cp] = name
    for cp, name in re.findall(r"\(\*smap\)\[0x([0-9A-F]+)\] = U_(\w+);", header, re.I):
        table[int(cp, 16)] = name
    return table


def main() -> None:
    table = spm_table(Path(sys.argv[1]).read_text(encoding="utf-8"))

    def spm_group(cp: int) -> str:  # (as IsValidSentencePiece groups them: kana and ー are Han)
        name = table.get(cp, "Common")
        return "Han" if name in ("Hiragana", "Katakana") or cp == 0x30FC else name

    # step 1: our group names for spm's, by majority over the code points both tables name
    votes = collections.defaultdict(collections.Counter)
    for cp in table:
        votes[spm_group(cp)][script_of(chr(cp))] += 1
    ours_for = {name: c.most_common(1)[0][0] for name, c in votes.items()}
    # step 2: the code points whose group differs, as runs (start, end, our name for spm's group)
    runs: list = []
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        theirs = ours_for[spm_group(cp)]
        if theirs != script_of(chr(cp)):
            if runs and runs[-1][1] == cp - 1 and runs[-1][2] == theirs:
                runs[-1][1] = cp
            else:
                runs.append([cp, cp, theirs])
    body = ",\n    ".join(f"(0x{a:04X}, 0x{b:04X}, {g!r})" for a, b, g in runs)
    OUT.write_text(f'''"""Where sentencepiece 0.2.3's script table (``unicode_script_map.h``) differs from the
pinned Unicode 16 scripts (``unigram_seed.script_of``): ``(first, last, group)`` runs of code
points, the group in ``script_of``'s names. Written by build/spm_scripts.py; do not edit.
{len(runs)} runs, {sum(b - a + 1 for a, b, _ in runs):,} code points.
"""

SPM_SCRIPT_EXCEPTIONS = (
    {body},
)
''', encoding="utf-8")
    print(f"wrote {OUT} ({len(runs)} runs)")


if __name__ == "__main__":
    main()
