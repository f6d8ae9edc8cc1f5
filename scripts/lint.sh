#!/usr/bin/env bash
# The lint tier: ruff (configured in pyproject.toml: pyflakes, pycodestyle, bugbear, sorted
# imports, pyupgrade) over the tree, and mypy over both packages (the core and the UI). Both
# run; either one's finding fails. scripts/test.sh runs it as its first tier, and
# .pre-commit-config.yaml before each commit (`pre-commit install`, once).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PY:-$ROOT/.venv/bin/python}"
cd "$ROOT"
rc=0
"$PY" -m ruff check py_core web tests build bench scripts || rc=1
"$PY" -m mypy || rc=1
"$PY" -m pre_commit validate-config .pre-commit-config.yaml || rc=1  # the hook that runs this file
exit "$rc"
