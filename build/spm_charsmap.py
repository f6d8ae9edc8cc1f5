"""Generate py_core/subwordlab/text/spm_nfkc_table.py: sentencepiece's own ``nfkc`` table.

``spm_train --normalization_rule_name=nfkc`` does not run Unicode's NFKC: it replaces text by
a table compiled from an older Unicode (``normalization_rule.h``, a "precompiled charsmap":
a double-array trie of UTF-8 keys and their replacements), longest match first. As a
table it neither reorders combining marks (Burmese ့ and ်) nor composes what it has no key
for, so on 124 of 10,136 UDHR lines it parts from Unicode's NFKC; ``rules="sentencepiece"``
normalizes with the table itself (``text/charsmap.py``). It is the blob HF's converter writes as a ``Precompiled`` normalizer.

The table is ``sentencepiece`` 0.2.3's (the version the tests run against), read from its
source distribution on PyPI:

    pip download sentencepiece==0.2.3 --no-binary :all: --no-deps -d /tmp/spm
    tar xzf /tmp/spm/sentencepiece-0.2.3.tar.gz -C /tmp/spm
    .venv/bin/python build/spm_charsmap.py /tmp/spm/sentencepiece-0.2.3/sentencepiece/src/normalization_rule.h
"""

import base64
import hashlib
import re
import struct
import sys
import textwrap
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "py_core" / "subwordlab" / "text" / "spm_nfkc_table.py"


def blobs(header: str) -> dict[str, bytes]:
    """{rule name: its precompiled charsmap} from ``normalization_rule.h`` (the Windows
    branch's array of little-endian 64-bit words holds every rule's bytes)."""
    start = header.index("kNormalizationRules_blob_uint64_t[] = {")
    words = [int(x, 16) for x in re.findall(r"0x([0-9A-F]{16})", header[start:header.index("};", start)])]
    data = struct.pack(f"<{len(words)}Q", *words)
    return {name: data[int(word) * 8:int(word) * 8 + int(size)] for name, size, word in re.findall(
        r'\{"(\w+)", (\d+),\s*reinterpret_cast<const char\*>\(kNormalizationRules_blob_uint64_t \+ (\d+)\)\}', header)}


def main() -> None:
    blob = blobs(Path(sys.argv[1]).read_text(encoding="utf-8"))["nfkc"]
    packed = base64.b64encode(zlib.compress(blob, 9)).decode("ascii")
    lines = "\n".join(f'    "{line}"' for line in textwrap.wrap(packed, 96))
    OUT.write_text(f'''"""sentencepiece 0.2.3's ``nfkc`` normalization table (its precompiled charsmap, {len(blob):,}
bytes, zlib-compressed, base64): read by ``text/charsmap.py``. Written by build/spm_charsmap.py
from ``normalization_rule.h``; do not edit. SHA-256 of the table: {hashlib.sha256(blob).hexdigest()}.
"""

SHA256 = "{hashlib.sha256(blob).hexdigest()}"
PACKED = (
{lines}
)
''', encoding="utf-8")
    print(f"wrote {OUT} ({len(blob):,} bytes of table, {OUT.stat().st_size:,} bytes of module)")


if __name__ == "__main__":
    main()
