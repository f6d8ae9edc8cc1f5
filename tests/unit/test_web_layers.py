"""The UI's layers hold: panels import no other panel, the test port implements the DOM
port's Protocol (as the browser port does), and no test helper ships in the product."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from fakedom import FakePort

from subwordlab_web import port as port_protocol

WEB = Path(port_protocol.__file__).resolve().parent


def _imports(path: Path) -> set[str]:
    """The modules a file imports (relative ones as '.name'). Example: 'from .x import y' -> {'.x'}."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_no_panel_imports_another_panel():
    panels = sorted(WEB.glob("*_panel.py"))
    assert len(panels) >= 6
    for path in panels:
        others = {i for i in _imports(path) if i.rsplit(".", 1)[-1].endswith("_panel")}
        assert not others, f"{path.name} imports {others}: share the code through a non-panel module"


# a panel's parts, named for what they hold: no other panel imports them (that would be
# a panel importing a panel); shared modules may (lessons.py names the tie rules too)
PANEL_PARTS = {"train_views.py": "train_panel", "train_sections.py": "train_panel",
               "compare_results.py": "compare_panel"}


def test_only_the_app_imports_panels_and_no_panel_imports_another_panels_parts():
    for path in WEB.glob("*.py"):
        if path.name.endswith("_panel.py") or path.name == "app.py":
            continue
        panels = {i for i in _imports(path) if i.rsplit(".", 1)[-1].endswith("_panel")}
        assert not panels, f"{path.name} imports {panels}: only app.py imports panels"
    for part, owner in PANEL_PARTS.items():
        assert (WEB / part).exists(), part
        panels = {p.name for p in WEB.glob("*_panel.py") if "." + part[:-3] in _imports(p)}
        assert panels <= {owner + ".py"}, f"{part} is {owner}'s, but {panels - {owner + '.py'}} import it"


def test_the_fake_port_implements_the_protocol_with_the_same_async_methods():
    for name, proto in port_protocol.methods().items():
        fake = getattr(FakePort, name, None)
        assert fake is not None, f"FakePort lacks {name}"
        assert inspect.iscoroutinefunction(fake) == inspect.iscoroutinefunction(proto), f"{name}: async differs"
        want = [p.name for p in inspect.signature(proto).parameters.values()]
        got = [p.name for p in inspect.signature(fake).parameters.values()]
        assert got[: len(want)] == want, f"FakePort.{name}{got} vs the Protocol's {want}"


def test_the_browser_port_implements_the_protocol_too():
    # dom.py imports `js`, so it is read, not imported
    tree = ast.parse((WEB / "dom.py").read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "BrowserPort")
    defs = {f.name: f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for name, proto in port_protocol.methods().items():
        assert name in defs, f"BrowserPort lacks {name}"
        assert isinstance(defs[name], ast.AsyncFunctionDef) == inspect.iscoroutinefunction(proto), name
        assert [a.arg for a in defs[name].args.args] == list(inspect.signature(proto).parameters), name
    public = {n for n in defs if not n.startswith("_")}
    assert public == set(port_protocol.methods()), "the Protocol must list every public BrowserPort method"


def test_test_helpers_do_not_ship_in_the_product():
    assert not (WEB / "fakedom.py").exists()
    for path in WEB.glob("*.py"):
        assert "fakedom" not in _imports(path), path.name


def test_no_two_ui_modules_import_each_other():
    # (state.py imported counts_corpus and embed, which led back to state through lessons and
    # train_views: a circle of seven modules, held apart only by imports inside functions)
    from test_core_layers import circles

    graph = {}
    for path in WEB.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[path.stem] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                names = [node.module] if node.module else [a.name for a in node.names]
                graph[path.stem].update(n.split(".")[0] for n in names if (WEB / f"{n.split('.')[0]}.py").exists())
    assert circles(graph) == []
