"""Where the corpora live (corpora/ in the repository, with their attribution), for tests."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPORA = ROOT / "corpora"
UDHR = sorted((CORPORA / "udhr").glob("udhr_*.txt"))


def read(name):
    """Text of a corpus file relative to the corpora folder. Example: read('taylorswift.txt')."""
    return (CORPORA / name).read_text(encoding="utf-8")
