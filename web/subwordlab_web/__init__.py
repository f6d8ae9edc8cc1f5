"""Subword Lab's page: a Python UI on Pyodide over the `subwordlab` core.

Layout (layers: the panels use the state and the pure logic, which use the core; only
`dom` touches the browser):

- `dom`      the only module that imports `js` / `pyodide.ffi`: a thin DOM port.
- `port`     the DOM port's interface (a Protocol); tests/unit/fakedom.py implements it in memory.
- `app`      the shell: tabs over panels, the panel registry (its docstring says how to add one).
- `state`    the one shared state object (corpus, spec, recording, player, inspector settings).
- `player`, `charts`, `tasks`, `tokens`, `samples`, `corpus_data`, `build`: pure logic.
- `*_panel`  one view per panel; views only talk to a port.

The JS bootstrap calls `start()` once the wheels are installed.
"""

__version__ = "0.1.0"

_app = None  # the live App; kept so its listeners stay owned for the page's lifetime


def start() -> None:
    """Build the first screen in the real browser document.

    Returns nothing on purpose: the caller is JavaScript, and a returned Python object
    would become a PyProxy that JavaScript would have to destroy.
    """
    global _app
    from .app import App
    from .dom import BrowserPort

    if _app is not None:
        _app.teardown()
    port = BrowserPort()
    app = App(port)
    app.start()
    _app = app
