"""How much a reader takes in from an untrusted file (an upload): a deployment sets the limits
in the environment; both default to 512 MiB. ``TRACE_EXPLORER_MAX_FILE_MB`` caps a file as given
(a ``.gz`` by its compressed size) and ``TRACE_EXPLORER_MAX_EXPANDED_MB`` caps the text parsed
(what a ``.gz`` expands to; a plain file counts its own size). A file over either is refused
with a message naming the limit and the variable, before it is parsed. A person's own files,
read by the command line (``ingest``, ``list``, …), pass ``NO_LIMIT``: they need no variable."""

from __future__ import annotations

import os

from .errors import TraceLoadError

MIB = 1024 * 1024
MAX_FILE_VARIABLE = "TRACE_EXPLORER_MAX_FILE_MB"
MAX_EXPANDED_VARIABLE = "TRACE_EXPLORER_MAX_EXPANDED_MB"
DEFAULT_LIMIT_MB = 512
NO_LIMIT = 1 << 62  # bytes: a limit no file reaches (a local file read on its owner's behalf)


def limit_from_environment(variable: str, environ: dict[str, str] | None = None) -> int:
    """The limit in bytes that ``variable`` sets (a number of MiB, fractions allowed), or
    DEFAULT_LIMIT_MB when it is unset, empty or not a positive number."""
    raw = (environ if environ is not None else os.environ).get(variable, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_LIMIT_MB
    except ValueError:
        value = DEFAULT_LIMIT_MB
    if not value > 0 or value == float("inf"):
        value = DEFAULT_LIMIT_MB
    return int(value * MIB)


def max_file_bytes() -> int:
    """The largest file read, as given (``TRACE_EXPLORER_MAX_FILE_MB``, default 512 MiB)."""
    return limit_from_environment(MAX_FILE_VARIABLE)


def max_expanded_bytes() -> int:
    """The most text parsed from one file, after decompression (``TRACE_EXPLORER_MAX_EXPANDED_MB``)."""
    return limit_from_environment(MAX_EXPANDED_VARIABLE)


def format_size(count: int) -> str:
    """Bytes for people: "900 bytes", "1.5 KiB", "512 MiB", "1.2 GiB"."""
    if count < 1024:
        return f"{count:,} byte{'s' if count != 1 else ''}"
    for unit, scale in (("GiB", 1024 * MIB), ("MiB", MIB), ("KiB", 1024)):
        if count >= scale:
            return f"{count / scale:,.1f}".removesuffix(".0") + f" {unit}"
    return f"{count:,} bytes"  # not reached


def file_too_big(name: str, size: int, limit: int, setting: str = MAX_FILE_VARIABLE) -> TraceLoadError:
    """The error for a file of ``size`` bytes over ``limit`` (``setting`` names how to raise it)."""
    return TraceLoadError(name, f"a file of at most {format_size(limit)} (the limit set by {setting})",
                          found=f"this one is {format_size(size)}")
