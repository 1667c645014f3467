"""The Insights page's charts, drawn from the numbers of ``analysis.stats.collection_stats``
(a plain dict: this module reads nothing else): each chart is its data (a DataFrame, what its CSV
download holds) and an Altair chart of it, with a point selection named ``PICK`` whose field says
what a click on a bar filters the session list by (``InsightChart.filter_field``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import altair as alt
import pandas as pd

from ..model.periods import periods_between, unit_label
from .palette import ERROR_COLOUR

PICK = "pick"  # the name of each chart's point selection
FAILED = "failed"  # the ``outcome`` of the red part of a tool's bar (its failed calls; else "any")
WIDTH = 520
HEIGHT = 260


@dataclass
class InsightChart:
    """One chart: ``key`` (a file-name stem), ``title``, ``data`` (its rows, the CSV), ``chart``
    (Altair), and ``filter_field``: the data column a click filters the list by (a SessionFilter
    field of the same name: "mechanism", "tool", "model", "termination"), or None."""

    key: str
    title: str
    data: pd.DataFrame
    chart: alt.Chart
    filter_field: str | None = None


# an axis of counts: whole-number ticks only (a few sessions drew 0.2, 0.4, … between them)
_COUNT_AXIS = alt.Axis(tickMinStep=1, format="d")


def insight_charts(numbers: dict[str, Any]) -> list[InsightChart]:
    """The six charts of ``numbers`` (``collection_stats``), in page order."""
    return [sessions_over_time(numbers), tool_calls(numbers), steps_per_session(numbers), durations(numbers),
            tokens(numbers), termination(numbers)]


def _pick(*fields: str) -> alt.Parameter:
    return alt.selection_point(name=PICK, fields=list(fields), on="click", clear="dblclick")


def sessions_over_time(numbers: dict) -> InsightChart:
    """Sessions a period (``numbers["period"]``: a day, week, month or year), stacked by
    mechanism and pattern; the axis has every period from the first to the last, so that a
    period without sessions is a gap (the data, and its CSV, only the periods counted)."""
    unit = numbers["period"]
    counted = sorted({d["period"] for d in numbers["per_period"]})
    axis = periods_between(counted[0], counted[-1], unit) if counted else []
    rows = pd.DataFrame([{unit: d["period"], "mechanism": d["mechanism"], "pattern": d["pattern"] or "",
                          "kind": d["mechanism"] + (f" · {d['pattern']}" if d["pattern"] else ""),
                          "sessions": d["sessions"]} for d in numbers["per_period"]],
                        columns=[unit, "mechanism", "pattern", "kind", "sessions"])
    pick = _pick("mechanism", "pattern")
    chart = alt.Chart(rows).mark_bar().encode(
        x=alt.X(f"{unit}:O", title=unit_label(unit), scale=alt.Scale(domain=axis)),
        y=alt.Y("sessions:Q", title="Sessions", stack="zero", axis=_COUNT_AXIS),
        color=alt.Color("kind:N", title="Mechanism · pattern", scale=alt.Scale(scheme="tableau10")),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.35)),
        tooltip=[unit, "mechanism", "pattern", "sessions"],
    ).add_params(pick)
    title = f"Sessions per {unit}, by mechanism and pattern" + (
        f" ({numbers['undated']:,} with no start time left out)" if numbers.get("undated") else "")
    return InsightChart(f"sessions-per-{unit}", title, rows, _sized(chart), "mechanism")


def tool_calls(numbers: dict) -> InsightChart:
    rows = pd.DataFrame([{"tool": tool, "calls": t["calls"], "errors": t["errors"],
                          "error_rate": t["error_rate"], "p50_ms": t["p50_ms"], "p95_ms": t["p95_ms"]}
                         for tool, t in numbers["tools"].items()],
                        columns=["tool", "calls", "errors", "error_rate", "p50_ms", "p95_ms"])
    pick = _pick("tool", "outcome")  # a click on the red part picks the outcome "failed"
    base = alt.Chart(rows).encode(y=alt.Y("tool:N", title=None, sort="-x"))
    calls = base.transform_calculate(outcome="'any'").mark_bar(color="#2563eb").encode(
        x=alt.X("calls:Q", title="Calls", axis=_COUNT_AXIS),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.35)),
        tooltip=["tool", "calls", "errors", alt.Tooltip("error_rate:Q", format=".1%"), "p50_ms", "p95_ms"],
    ).add_params(pick)
    errors = base.transform_calculate(outcome=f"'{FAILED}'").mark_bar(color=ERROR_COLOUR).encode(
        x="errors:Q", tooltip=["tool", "errors"])
    labels = base.mark_text(align="left", dx=4, color="#374151").encode(
        x="calls:Q", text=alt.Text("error_rate:Q", format=".0%"))
    return InsightChart("tool-calls", "Tool calls (red: failed) and error rate, per tool", rows,
                        _sized(alt.layer(calls, errors, labels)), "tool")


def steps_per_session(numbers: dict) -> InsightChart:
    """Sessions by their number of steps, in at most 30 bins of whole numbers, each bin from its
    first number up to the next bin's (the last one's largest number in a bin of its own), so
    that 2 and 3 steps are two bars, not one bar from 2 to 3."""
    rows = pd.DataFrame(numbers["steps_per_session"], columns=["steps", "sessions"])
    extent = [int(rows["steps"].min()), int(rows["steps"].max()) + 1] if len(rows) else [0, 1]
    binned = alt.Bin(maxbins=30, minstep=1, extent=extent)
    chart = alt.Chart(rows).mark_bar(color="#0d9488").encode(
        x=alt.X("steps:Q", bin=binned, title="Steps in the session",
                axis=alt.Axis(format="d", labelFlush=True)),  # the last label inside the plot
        y=alt.Y("sum(sessions):Q", title="Sessions", axis=_COUNT_AXIS),
        tooltip=[alt.Tooltip("steps:Q", bin=binned, title="steps (from, up to)"),
                 alt.Tooltip("sum(sessions):Q", title="sessions")],
    )
    return InsightChart("steps-per-session", "Steps per session", rows, _sized(chart))


def durations(numbers: dict) -> InsightChart:
    """The p50, p95 and max of the timed LLM and tool calls; a kind with no timed call has no
    bars (and no rows: with neither, the page says there is nothing to draw)."""
    rows = pd.DataFrame([{"kind": "LLM" if kind == "llm" else "Tool", "measure": measure, "ms": d[f"{measure}_ms"],
                          "calls": d["calls"]}
                         for kind, d in numbers["durations"].items() for measure in ("p50", "p95", "max")
                         if d[f"{measure}_ms"] is not None],
                        columns=["kind", "measure", "ms", "calls"])
    chart = alt.Chart(rows).mark_bar().encode(
        x=alt.X("measure:N", title=None, sort=["p50", "p95", "max"]),
        xOffset=alt.XOffset("kind:N"),
        y=alt.Y("ms:Q", title="Duration (ms)"),
        color=alt.Color("kind:N", title=None, scale=alt.Scale(domain=["LLM", "Tool"], range=["#2563eb", "#0d9488"])),
        tooltip=["kind", "measure", alt.Tooltip("ms:Q", format=",.0f"), "calls"],
    )
    return InsightChart("durations", "LLM and tool durations (p50, p95, max)", rows, _sized(chart))


def tokens(numbers: dict) -> InsightChart:
    rows = pd.DataFrame([{"model": model, "direction": direction, "tokens": t[key], "calls": t["calls"]}
                         for model, t in numbers["tokens"].items() for direction, key in (("in", "in"), ("out", "out"))],
                        columns=["model", "direction", "tokens", "calls"])
    pick = _pick("model")
    chart = alt.Chart(rows).mark_bar().encode(
        y=alt.Y("model:N", title=None),
        yOffset=alt.YOffset("direction:N"),
        x=alt.X("tokens:Q", title="Tokens"),
        color=alt.Color("direction:N", title=None, scale=alt.Scale(domain=["in", "out"], range=["#6366f1", "#f59e0b"])),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.35)),
        tooltip=["model", "direction", alt.Tooltip("tokens:Q", format=","), "calls"],
    ).add_params(pick)
    return InsightChart("tokens", "Tokens in and out, by model", rows, _sized(chart), "model")


def termination(numbers: dict) -> InsightChart:
    rows = pd.DataFrame([{"termination": reason, "sessions": n} for reason, n in numbers["termination"].items()],
                        columns=["termination", "sessions"])
    pick = _pick("termination")
    chart = alt.Chart(rows).mark_bar(color="#4f46e5").encode(
        y=alt.Y("termination:N", title=None, sort="-x"),
        x=alt.X("sessions:Q", title="Sessions", axis=_COUNT_AXIS),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.35)),
        tooltip=["termination", "sessions"],
    ).add_params(pick)
    return InsightChart("termination", "Termination reasons", rows, _sized(chart), "termination")


def _sized(chart) -> alt.Chart:
    return chart.properties(width="container", height=HEIGHT)


def chart_png(chart: alt.Chart, scale: float = 2.0) -> bytes:
    """The chart as PNG bytes (``WIDTH`` px wide, at ``scale``), drawn by vl-convert without a browser."""
    import vl_convert as vlc

    return vlc.vegalite_to_png(chart.properties(width=WIDTH).to_dict(), scale=scale)
