"""The ``trace-explorer`` command line: one module per group of commands, over the core.

Its modules are imported under ``interrupt.loading()``: a Ctrl-C while they load (the first
half second of a command) gives the one line ``interrupted`` and status 130, not a traceback."""

from .interrupt import loading

with loading():
    from .main import main

__all__ = ["main"]
