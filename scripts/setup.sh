#!/usr/bin/env bash
# Shared first half of scripts/serve.sh and scripts/test.sh (source it; arguments go to
# build/build_site.py). On a fresh Debian/Ubuntu machine it installs what is missing:
#   - .venv with the pinned dev/test packages (requirements-dev.txt),
#   - a Chromium for Playwright (Debian's `chromium` package; Playwright's own as a fallback),
#   - Firefox and WebKitGTK for the engine tiers (Debian's `firefox-esr`, `webkit2gtk-driver`
#     with its MiniBrowser, and `xvfb`: MiniBrowser has no headless mode),
# then builds the static site into dist/site. A second run skips every install and only
# rebuilds the site (a few seconds).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

APT_UPDATED=""
apt_install() {
  if [ -z "$APT_UPDATED" ]; then as_root apt-get update -qq; APT_UPDATED=1; fi
  as_root apt-get install -y -qq "$@"
}

# --- Python 3.11+ and a virtual environment -------------------------------------------
command -v python3 >/dev/null || apt_install python3
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "Subword Lab needs Python 3.11 or newer; python3 is $(python3 --version 2>&1)" >&2; exit 1; }
if [ ! -x "$PY" ]; then
  say "creating .venv"
  python3 -m venv "$VENV" 2>/dev/null || { apt_install python3-venv; rm -rf "$VENV"; python3 -m venv "$VENV"; }
fi

REQS="$ROOT/requirements-dev.txt"
STAMP="$VENV/.requirements-dev.sha256"
want="$(sha256sum "$REQS" | cut -d' ' -f1)"
if [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ] || ! "$PY" -c 'import pytest, xdist, pytest_rerunfailures, hypothesis, regex, tokenizers, tiktoken, sentencepiece, tokenization_scorer, dask.distributed, playwright, pytest_playwright, selenium, build, wheel, setuptools, ruff, mypy' 2>/dev/null; then
  say "installing the dev environment into .venv (requirements-dev.txt)"
  "$PY" -m pip install -q --upgrade pip
  "$PY" -m pip install -q -r "$REQS"
  echo "$want" > "$STAMP"
fi

# --- Node (runs Pyodide for the test tier; npm fetches the pinned Pyodide) ------------
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  say "installing Node.js and npm"
  apt_install nodejs npm
fi
node -e 'process.exit(+process.versions.node.split(".")[0] < 18 ? 1 : 0)' || {
  echo "Subword Lab needs Node.js 18 or newer; node is $(node --version)" >&2; exit 1; }

# --- a Chromium for Playwright --------------------------------------------------------
playwright_chromium() { compgen -G "${PLAYWRIGHT_BROWSERS_PATH:-$HOME/.cache/ms-playwright}/chromium*" >/dev/null; }
if [ ! -x /usr/bin/chromium ] && ! playwright_chromium; then
  say "installing Chromium"
  apt_install chromium || "$PY" -m playwright install --with-deps chromium
fi

# --- Firefox and WebKitGTK (the e2e-firefox and e2e-webkitgtk tiers) ---------------------
engines=()
[ -x /usr/bin/firefox-esr ] || engines+=(firefox-esr)
[ -x /usr/bin/WebKitWebDriver ] || engines+=(webkit2gtk-driver)
command -v Xvfb >/dev/null || engines+=(xvfb)
if [ "${#engines[@]}" -gt 0 ]; then
  say "installing ${engines[*]} (Firefox and WebKitGTK for the engine tiers)"
  apt_install "${engines[@]}" || say "could not install ${engines[*]}: the e2e-firefox and e2e-webkitgtk tiers will say what is missing"
fi

# --- the site (not for scripts/test.sh --quick, which sets SUBWORDLAB_NO_SITE=1) ----------
if [ -z "${SUBWORDLAB_NO_SITE:-}" ]; then
  "$PY" "$ROOT/build/build_site.py" "$@"
fi
