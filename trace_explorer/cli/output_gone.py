"""When the command's output can no longer be written: its reader went away (``| head``), and
the exit status that says so, as a shell reports a program a closed pipe stopped."""

from __future__ import annotations

import os
import sys

READER_GONE = 128 + 13  # SIGPIPE's number: not 1, which says a file failed to load


def let_stdout_go() -> None:
    """Point standard output at /dev/null, so that what is left in its buffer raises no second
    error when Python flushes it at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (output captured in memory)
        pass
