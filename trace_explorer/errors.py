"""The project's own error type: every reader raises it (and only it) on bad input."""

from __future__ import annotations


class TraceLoadError(ValueError):
    """A trace or content file could not be read.

    Attributes: ``file`` (the name the user gave), ``line`` and ``column`` (1-based, or None when
    the reader cannot tell), ``expected`` (what the reader wanted to see there, in words).
    ``str(error)`` reads ``file:line:column: expected`` so it can be shown as is.
    """

    def __init__(self, file: str, expected: str, line: int | None = None, column: int | None = None):
        self.file = file
        self.line = line
        self.column = column
        self.expected = expected
        where = file
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        super().__init__(f"{where}: {expected}")
