"""Where the shared corpora live (../shared/corpora beside the repository), for tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT.parent / "shared" / "corpora"
UDHR = sorted((CORPORA / "udhr").glob("udhr_*.txt"))


def read(name):
    """Text of a corpus file relative to the corpora folder. Example: read('taylorswift.txt')."""
    return (CORPORA / name).read_text(encoding="utf-8")
