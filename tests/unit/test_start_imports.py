"""The page's start imports no standard module it does not need: a few are costly in Pyodide
(measured in Chromium, Pyodide 0.27, Python 3.14), so the modules that use them import them
where they are used, inside a function (the first screen never calls it).

- ``urllib.parse``: it imports ``ipaddress``; ~60 ms of the page's ~310 ms from runtime to
  ready (embed.query_pairs);
- ``decimal``: ~8 ms, for spm_unigram's rare correctly-rounded fallback;
- ``xml.sax``: imports ``urllib.request``, ``http.client`` and ``email`` (~0.2 s; chart_export).

CPython's own ``pathlib`` imports ``urllib.parse`` before 3.13, so an import check in this
process would prove nothing: the test reads each module's top-level statements instead.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (ROOT / "py_core" / "subwordlab", ROOT / "web" / "subwordlab_web")
LATE = ("urllib", "decimal", "xml")  # imported inside the function that uses them, never at the top


def top_level_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, module)`` of every import a module runs when it is imported: its top-level
    statements, and those of top-level ``if``/``try`` blocks (not functions or classes).

    >>> top_level_imports(ast.parse("import a\\ndef f():\\n    import b\\ntry:\\n    from c import d\\nexcept E: pass"))
    [(1, 'a'), (5, 'c')]
    """
    found, todo = [], list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, (ast.If, ast.Try)):
            todo += node.body + node.orelse + getattr(node, "finalbody", []) \
                + [s for h in getattr(node, "handlers", []) for s in h.body]
    return sorted(found)


def modules():
    return sorted(p for package in PACKAGES for p in package.rglob("*.py"))


def test_the_scan_finds_what_it_looks_for():
    assert (1, "urllib.parse") in top_level_imports(ast.parse("from urllib.parse import urlsplit"))
    assert top_level_imports(ast.parse("def f():\n    from decimal import Decimal")) == []
    assert len(modules()) > 100  # both packages were found


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_costly_standard_module_is_imported_where_it_is_used(path):
    late = [f"line {line}: {name}" for line, name in top_level_imports(ast.parse(path.read_text(encoding="utf-8")))
            if name.split(".")[0] in LATE]
    assert not late, f"{path.name} imports at its top {late}: import it inside the function that uses it " \
                     f"(this test's docstring says why)"
