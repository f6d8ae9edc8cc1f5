"""The core's folders are layers, bottom to top, and each module imports only from its own
layer or below (issue 32); no two modules import each other, even through others.

    text/      Unicode data, regexes and Oniguruma's, patterns, the byte map, corpus reading
    base/      events, JSON I/O, portable math, the component registry, the process pool
    pipeline/  normalizers, pre-tokenizers, added vocabulary, decoders
    models/    what a trained tokenizer keeps, and how it segments a piece
    trainers/  the training algorithms
    (root)     the package's face: tokenizer, options, presets, api, recording, stats, ...
    formats/   model files in and out (ours, tokenizer.json, GPT-2/tiktoken) and detect
    cli/       the command line

The package's ``__init__.py`` (it hands names on from every layer) and ``__main__.py`` (it
runs the CLI) stand outside the rule. The core imports only the standard library, plus
``regex`` when present and Dask for the optional cluster path.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "py_core" / "subwordlab"
LAYERS = ["text", "base", "pipeline", "models", "trainers", "", "formats", "cli"]  # "" = the root's modules
OUTSIDE_THE_RULE = {"subwordlab", "subwordlab.__main__"}
OPTIONAL = {"regex", "dask", "distributed"}


def module_name(path: Path) -> str:
    parts = ["subwordlab", *path.relative_to(CORE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(CORE.rglob("*.py"))}


def layer(module: str) -> int:
    """Example: 'subwordlab.text.corpus' -> 0; 'subwordlab.tokenizer' -> 5 (the root)."""
    parts = module.split(".")
    folder = parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in LAYERS) else ""
    return LAYERS.index(folder)


def imports(module: str, source: str) -> list[tuple[str, int]]:
    """(absolute module, line) for every import in ``source``, functions' imports included;
    ``from . import x`` names the module x when x is one."""
    package = module if MODULES.get(module, Path()).name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
            out += [(m, node.lineno) for m in subs] if subs else [(target, node.lineno)]
    return out


def violations(module: str, source: str) -> list[str]:
    """What in ``source`` (the text of ``module``) breaks the layer rule or the dependency rule."""
    found = []
    for target, line in imports(module, source):
        top = target.split(".")[0]
        if top == "subwordlab":
            target = target if target in MODULES else target.rpartition(".")[0]
            if layer(target) > layer(module):
                found.append(f"{module}:{line} imports {target}, a layer above it ({LAYERS[layer(target)] or 'the root'})")
        elif top not in sys.stdlib_module_names and top not in OPTIONAL and top != "__future__":
            found.append(f"{module}:{line} imports {target}: the core uses only the standard library")
    return found


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        targets = {t for t, _ in imports(module, path.read_text(encoding="utf-8"))}
        graph[module] = {t if t in MODULES else t.rpartition(".")[0] for t in targets if t.startswith("subwordlab.")}
        graph[module] -= {module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_folder_is_a_layer():
    folders = {p.parent.name for p in MODULES.values() if p.parent != CORE}
    assert folders == set(LAYERS) - {""}


@pytest.mark.parametrize("module", sorted(set(MODULES) - OUTSIDE_THE_RULE))
def test_a_module_imports_only_from_its_layer_or_below(module):
    assert violations(module, MODULES[module].read_text(encoding="utf-8")) == []


def test_no_import_circles():
    assert circles(import_graph()) == []


def test_the_rules_catch_what_they_forbid():
    # a Unicode module reaching up to the tokenizer, a model to a trainer, a third-party import
    assert violations("subwordlab.text.corpus", "from ..tokenizer import Tokenizer\n") == [
        "subwordlab.text.corpus:1 imports subwordlab.tokenizer, a layer above it (the root)"]
    assert violations("subwordlab.models.bpe", "def f():\n    from ..trainers import bpe\n")[0].startswith(
        "subwordlab.models.bpe:2 imports subwordlab.trainers.bpe")
    assert "only the standard library" in violations("subwordlab.stats", "import numpy\n")[0]
    assert violations("subwordlab.formats.our_json", "from ..tokenizer import Tokenizer\nimport regex\n") == []
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


HEADER_LINE_COUNT = re.compile(r"module[^.]*?~?\d[\d,]* lines")


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")) + sorted((CORE.parents[1] / "web" / "subwordlab_web").glob("*.py")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_module_opens_with_a_header_that_counts_no_lines(path):
    header = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert header, f"{path.name}: say in a docstring what the module holds and why it is one module"
    assert not HEADER_LINE_COUNT.search(header), f"{path.name}: a line count in the header drifts; say why instead"
