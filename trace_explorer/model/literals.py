"""Parse TrustGraph's literal values: every literal is a plain string (TRACE-MODEL.md, "Common
step metadata"), numbers and timestamps included. A value that does not parse is missing (None),
and the caller records a warning.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from typing import Any


def parse_int(text: str | None) -> int | None:
    """``"1200"`` -> 1200; ``"12.0"`` -> 12; anything else (or None) -> None."""
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        number = parse_float(text)
        return int(number) if number is not None and number.is_integer() else None


def parse_float(text: str | None) -> float | None:
    """``"0.87"`` -> 0.87; NaN, infinities and non-numbers -> None."""
    if text is None:
        return None
    try:
        number = float(text.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def parse_time(text: str | None) -> datetime | None:
    """An ISO-8601 timestamp (``"2026-03-09T09:44:56Z"``) as an aware datetime (UTC when no zone)."""
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def format_time(value: datetime | None) -> str | None:
    """``value`` in UTC for display and JSON, written with a Z: ``2026-03-09T09:44:56Z``, the
    same instant for ``2026-03-09T10:44:56+01:00`` (every time the explorer shows is UTC, as its
    columns say; a naive ``value`` is taken as UTC, as ``parse_time`` takes a time with no zone)."""
    if value is None:
        return None
    text = (value if value.tzinfo is None else value.astimezone(timezone.utc)).isoformat()
    if value.tzinfo is None:
        text += "+00:00"
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def parse_json(text: str | None) -> tuple[Any, bool]:
    """``(value, ok)``: the JSON value of ``text`` and True, or ``(text, False)`` when it is not JSON."""
    if text is None:
        return None, True
    try:
        return json.loads(text), True
    except (ValueError, RecursionError):
        return text, False
