"""The periods the statistics count sessions by over time: days while the sessions span at most
``MAX_PERIODS`` of them, else weeks, else months, else years, so that the series (a chart's
bars, a table's rows) stays readable and its cost stays flat however long the collection's
history (a dashboard's time buckets, as Langfuse and Phoenix choose them by the range shown).

Periods are UTC and named by text that sorts in time order: a day ``YYYY-MM-DD``, a week by its
Monday's day ``YYYY-MM-DD`` (ISO 8601 weeks start on Monday), a month ``YYYY-MM``, a year
``YYYY``. The session index keeps the same three first periods (``index.aggregates``'
``PERIODS``); a year is summed from its months.
"""

from __future__ import annotations

from datetime import date, timedelta

MAX_PERIODS = 100  # the most periods a series has before the next longer unit is taken (but years)
UNITS = ("day", "week", "month", "year")


def period_unit(first_day: str, last_day: str) -> str:
    """The unit ("day", "week", "month" or "year") of a series from ``first_day`` to
    ``last_day`` (``YYYY-MM-DD``, UTC): the shortest that needs at most ``MAX_PERIODS``
    periods. Raises ValueError on a day that is not ``YYYY-MM-DD``."""
    first, last = date.fromisoformat(first_day), date.fromisoformat(last_day)
    if (last - first).days + 1 <= MAX_PERIODS:
        return "day"
    if (_monday(last) - _monday(first)).days // 7 + 1 <= MAX_PERIODS:
        return "week"
    if (last.year * 12 + last.month) - (first.year * 12 + first.month) + 1 <= MAX_PERIODS:
        return "month"
    return "year"


def period_of(day: str, unit: str) -> str:
    """The name of the period of ``unit`` that ``day`` (``YYYY-MM-DD``) falls in. Raises
    ValueError on an unknown unit or a day that is not ``YYYY-MM-DD``."""
    if unit == "day":
        return date.fromisoformat(day).isoformat()
    if unit == "week":
        return _monday(date.fromisoformat(day)).isoformat()
    if unit == "month":
        return date.fromisoformat(day).isoformat()[:7]
    if unit == "year":
        return date.fromisoformat(day).isoformat()[:4]
    raise ValueError(f"unknown period unit {unit!r}; expected one of {', '.join(UNITS)}")


def periods_between(first: str, last: str, unit: str) -> list[str]:
    """Every period of ``unit`` from ``first`` to ``last`` (periods named as ``period_of`` names
    them), in time order, those no session falls in included: a chart's axis, where an empty
    period is a gap rather than nothing. ``[]`` when ``last`` is before ``first``. Raises
    ValueError on an unknown unit or a name that is not one of ``unit``."""
    if unit in ("day", "week"):
        start, end = date.fromisoformat(first), date.fromisoformat(last)
        step = 1 if unit == "day" else 7
        return [(start + timedelta(days=n)).isoformat() for n in range(0, (end - start).days + 1, step)]
    if unit == "month":
        start, end = _month_number(first), _month_number(last)
        return [f"{n // 12:04d}-{n % 12 + 1:02d}" for n in range(start, end + 1)]
    if unit == "year":
        return [f"{n:04d}" for n in range(int(first), int(last) + 1)]
    raise ValueError(f"unknown period unit {unit!r}; expected one of {', '.join(UNITS)}")


def unit_label(unit: str) -> str:
    """A column or axis title for periods of ``unit``: "Day (UTC)", "Week (UTC, from Monday)", …"""
    return {"week": "Week (UTC, from Monday)"}.get(unit, f"{unit.capitalize()} (UTC)")


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _month_number(month: str) -> int:
    year, number = month.split("-")
    if len(year) != 4 or len(number) != 2 or not 1 <= int(number) <= 12:
        raise ValueError(f"not a month (YYYY-MM): {month!r}")
    return int(year) * 12 + int(number) - 1
