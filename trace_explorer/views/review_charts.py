"""The Insights page's review charts (issue 42): how many reviews carry each label, per day and
per tool. Drawn from the review store's rows (``ReviewStore.rows``: dicts with ``session``,
``label`` and ``created``, ISO 8601 UTC) and the tools each reviewed session called (its
summary's ``actions``); each chart is an ``insight_charts.InsightChart`` (its data is its CSV
download).

A review counts once for each distinct tool its session called (a session that called none
counts under ``NO_TOOL``): the chart answers "which tools are in the sessions marked wrong",
whatever part of the session the review is about."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import altair as alt
import pandas as pd

from .insight_charts import HEIGHT, InsightChart

NO_TOOL = "(no tool)"
# the default labels' colours (reviews.DEFAULT_LABELS); another label takes the scheme's next colour
LABEL_COLOURS = {"correct": "#16a34a", "incorrect": "#dc2626", "unsupported": "#f59e0b", "wrong-tool": "#7c3aed",
                 "harmful": "#111827", "needs-review": "#0ea5e9"}
_COUNT_AXIS = alt.Axis(tickMinStep=1, format="d")


def _colour(labels: Sequence[str]) -> alt.Color:
    ordered = list(dict.fromkeys(labels))
    extra = ["#64748b", "#db2777", "#0d9488", "#a16207", "#4f46e5"]
    colours = [LABEL_COLOURS.get(label) or extra[i % len(extra)] for i, label in enumerate(ordered)]
    return alt.Color("label:N", title="Label", scale=alt.Scale(domain=ordered, range=colours))


def labels_per_day(reviews: Iterable[Mapping[str, Any]], labels: Sequence[str]) -> InsightChart:
    """Reviews a day (UTC, by ``created``), stacked by label (``labels``: the configured order)."""
    counts = Counter((str(r["created"])[:10], r["label"]) for r in reviews)
    rows = pd.DataFrame([{"day": day, "label": label, "reviews": n} for (day, label), n in sorted(counts.items())],
                        columns=["day", "label", "reviews"])
    chart = alt.Chart(rows).mark_bar().encode(
        x=alt.X("day:O", title="Day (UTC)"),
        y=alt.Y("reviews:Q", title="Reviews", stack="zero", axis=_COUNT_AXIS),
        color=_colour([*labels, *rows["label"]]), tooltip=["day", "label", "reviews"])
    return InsightChart("review-labels-per-day", "Review labels per day", rows,
                        chart.properties(width="container", height=HEIGHT))


def labels_by_tool(reviews: Iterable[Mapping[str, Any]], tools: Mapping[str, Sequence[str]],
                   labels: Sequence[str]) -> InsightChart:
    """Reviews by the tools their session called (``tools``: session IRI -> its tool calls'
    names), stacked by label; reviews of a session not in ``tools`` are left out."""
    counts: Counter = Counter()
    for review in reviews:
        if review["session"] not in tools:
            continue
        for tool in dict.fromkeys(tools[review["session"]]) or [NO_TOOL]:
            counts[(tool, review["label"])] += 1
    rows = pd.DataFrame([{"tool": tool, "label": label, "reviews": n} for (tool, label), n in sorted(counts.items())],
                        columns=["tool", "label", "reviews"])
    chart = alt.Chart(rows).mark_bar().encode(
        y=alt.Y("tool:N", title=None, sort="-x"),
        x=alt.X("reviews:Q", title="Reviews", stack="zero", axis=_COUNT_AXIS),
        color=_colour([*labels, *rows["label"]]), tooltip=["tool", "label", "reviews"])
    return InsightChart("review-labels-by-tool", "Review labels by the tools the reviewed session called", rows,
                        chart.properties(width="container", height=HEIGHT))
