"""``python -m subwordlab``: the command line (``cli``)."""

from .cli import main

raise SystemExit(main())
