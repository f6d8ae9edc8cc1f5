"""The ``subwordlab`` command: ``parser`` builds the arguments and runs a command,
``commands`` holds what each command does."""

from .parser import main

__all__ = ["main"]
