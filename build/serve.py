#!/usr/bin/env python3
"""Serve the built site (dist/site) on 127.0.0.1 with the MIME types Pyodide needs.

    python build/serve.py                 # http://127.0.0.1:8000/
    python build/serve.py --port 0        # any free port (the URL is printed)

Also used by tests/e2e (`start_server`), which serves on a free port in a thread.
"""

from __future__ import annotations

import argparse
import functools
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "dist" / "site"

MIME_TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
}


class SiteHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    quiet = False

    def end_headers(self) -> None:
        # A rebuilt wheel must never be served stale from the browser cache during development.
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


def make_server(site: Path = SITE, host: str = "127.0.0.1", port: int = 8000, quiet: bool = False) -> ThreadingHTTPServer:
    if not (site / "index.html").exists():
        raise SystemExit(f"{site} has no index.html; build the site first: python build/build_site.py")
    handler = type("Handler", (SiteHandler,), {"quiet": quiet})
    server = ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(site)))
    server.daemon_threads = True
    return server


def start_server(site: Path = SITE, host: str = "127.0.0.1") -> tuple[ThreadingHTTPServer, str]:
    """Serve `site` on a free port in a daemon thread; returns (server, base URL)."""
    server = make_server(site, host, 0, quiet=True)
    threading.Thread(target=server.serve_forever, name="site-server", daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}/"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve Subword Lab's built site.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--dir", type=Path, default=SITE, help="folder to serve (default: dist/site)")
    args = parser.parse_args(argv)
    try:
        server = make_server(args.dir, args.host, args.port)
    except OSError as exc:
        print(f"cannot listen on {args.host}:{args.port}: {exc.strerror}; is another server running?", file=sys.stderr)
        return 1
    print(f"Subword Lab is ready at http://{args.host}:{server.server_address[1]}/  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
