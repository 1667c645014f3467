"""The ``trace-explorer`` command line: one module per group of commands, over the core."""

from .main import main

__all__ = ["main"]
