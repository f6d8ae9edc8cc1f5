"""The build's scripts (build/*.py) as modules, for tests that need what the build ships
(the well-known tokenizers' files, the reference vocabularies): one loader for them all.

Example: ``build_module("well_known_vocabs").ship(folder, build_module("build_site").npm_tarball)``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]


def build_module(name: str) -> ModuleType:
    """build/<name>.py, imported once per test run (its module is kept in sys.modules)."""
    key = f"subwordlab_test_build_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, REPO / "build" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module
