"""The project's own error types: every reader raises ``TraceLoadError`` (and only it) on bad
input; every source, and the HTTP guard rails under them, raise ``SourceError`` when they cannot
answer."""

from __future__ import annotations


class TraceLoadError(ValueError):
    """A trace or content file could not be read.

    Attributes: ``file`` (the name the user gave), ``line`` and ``column`` (1-based, or None when
    the reader cannot tell), ``expected`` (what the reader wanted to see there, in words) and
    ``found`` (what it saw instead, or what the parser said, when that helps; may be None).
    ``str(error)`` reads ``file:line:column: expected EXPECTED; FOUND`` so it can be shown as is
    (line and column are left out when unknown).
    """

    def __init__(self, file: str, expected: str, line: int | None = None, column: int | None = None,
                 found: str | None = None):
        self.file = file
        self.line = line
        self.column = column
        self.expected = expected
        self.found = found
        where = file
        if line is not None:
            where += f":{line}"
            if column is not None:
                where += f":{column}"
        super().__init__(f"{where}: expected {expected}" + (f"; {found}" if found else ""))


class SourceError(RuntimeError):
    """A source could not answer: the store is unavailable, the endpoint failed or timed out,
    or the query was refused (an update). The message says which and where."""
