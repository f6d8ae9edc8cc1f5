#!/usr/bin/env bash
# Serve Subword Lab at http://127.0.0.1:8000 (PORT=... to change). Installs what is missing
# and builds the site first; prints the URL when the server is ready. Ctrl+C stops it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh" --no-test-wheels
exec "$PY" "$ROOT/build/serve.py" --port "${PORT:-8000}"
