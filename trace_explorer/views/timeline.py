"""A session's steps on a time axis: one row per step (``timeline_rows``) and the Altair chart
drawn from those rows (``timeline_chart``).

TrustGraph records durations, not start times: ``tg:llmDurationMs`` on an Analysis (and other
LLM steps) and ``tg:toolDurationMs`` on an Observation; only a Question has its start. The
timeline places its rows as the waterfall does (``views.waterfall``): a session's steps end to
end from its start in reading order, each sub-session (when given) from its own start time. A step without a duration is an instant (a marker at
its start, drawn as a diamond, never a bar). A session that records no duration at all is drawn
on an "order" axis: step ``i`` is a marker at ``i``. The app draws a session as a waterfall
(``views.waterfall``); this chart is the timeline of the exports (image and page).

Windows (``window_of``, ``window_bounds``, ``window_caption``) are consecutive pages of
``WINDOW_ROWS`` rows in reading order: the app's step picker lists a long session's steps a
window at a time, and a chart of a window spans its own time (the rows keep their times from
the session start).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import altair as alt
import pandas as pd

from ..model.session import Session
from .palette import ERROR_COLOUR, kind_colour
from .step_labels import clip, step_detail
from .step_walk import step_walk
from .waterfall import compressed_axis, drawn_ms, idle_stretches, waterfall

COLUMNS = ("step", "kind", "label", "index", "start_ms", "end_ms", "axis", "duration_ms",
           "error", "detail", "model", "in_tokens", "out_tokens")
SELECTION = "step"  # the name of the chart's point selection (Streamlit's selection key)
ROW_PX = 22  # height of one row while the rows fit in MAX_HEIGHT_PX
MAX_HEIGHT_PX = 720
SELECTED_OUTLINE = "#111827"
TOOLTIP_CHARS = 160  # a tooltip value is cut to this many characters
LABEL_PADDING_PX = 10  # room between a row's label and the plot, for a diamond at time 0
WINDOW_ROWS = 200  # a longer session's timeline shows a window of this many steps at a time


def timeline_rows(session: Session, sessions: Mapping[str, Session] | None = None) -> pd.DataFrame:
    """One row per stop of the step walk of ``session`` (``step_walk``: its steps in reading
    order, each sub-session found in ``sessions`` after the step it derives from, its Question a
    header row spanning the sub-session), placed as the waterfall places them
    (``views.waterfall``: a session's steps end to end from its start, a sub-session from its
    own start time).

    Columns: ``step`` (IRI), ``kind`` ("Sub-session" for a header), ``label`` (short and unique,
    e.g. "i3 Analysis: calculator"; a sub-session's rows marked "↳"), ``index`` (0-based),
    ``start_ms`` / ``end_ms`` (floats; equal for a step without a duration), ``axis`` ("ms" when
    any step has a duration or a sub-session starts after its parent, else "order" with start =
    end = index), ``duration_ms`` (None when not recorded; a header's: its band's span, None when that is nil),
    ``error`` (bool), ``detail`` (tool, pattern, plan step or goal; a header's question),
    ``model``, ``in_tokens``, ``out_tokens``. An empty session gives an empty frame with these
    columns.
    """
    walk = step_walk(session, sessions)
    placed = waterfall(session, sessions, walk=walk)
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(walk):
        step = entry.step
        label = ("↳ " * entry.depth) + placed.labels[index]
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:  # the y axis needs unique labels
            label = f"{label} ({seen[label]})"
        start, end = placed.starts[index], placed.ends[index]
        # a header spans its sub-session (an instant, a diamond, when it took no recorded time)
        duration = (end - start if placed.axis == "ms" and end > start else None) if entry.header \
            else placed.durations[index]
        rows.append({
            "step": step.id, "kind": placed.kinds[index], "label": label, "index": index,
            "start_ms": start, "end_ms": end, "axis": placed.axis,
            "duration_ms": duration, "error": placed.errors[index],
            "detail": entry.session.question if entry.header else step_detail(step),
            "model": step.fields.get("model"), "in_tokens": step.fields.get("in_tokens"),
            "out_tokens": step.fields.get("out_tokens"),
        })
    return pd.DataFrame(rows, columns=list(COLUMNS))


def timeline_chart(df: pd.DataFrame, selected: str | None = None) -> alt.LayerChart:
    """A horizontal bar per timed row of ``timeline_rows`` and a diamond per row without a
    duration (an instant, never a bar), coloured by kind (``palette``), in reading order top to
    bottom, with a tooltip, a red outline on failed tool calls, a dark outline on the
    ``selected`` step IRI, and a point selection named ``"step"`` on the ``step`` field.

    Builds for long sessions too (2,000 rows): the height is capped and the row labels are
    hidden once they would be unreadable. Nothing is clipped: the legend's labels are whole and
    the last tick label stays inside the plot. ``df`` may be a window of the rows
    (``window_bounds``): one that does not start at the first step spans its own time.
    """
    data = df.copy()
    count = len(data)
    by_ms = count > 0 and data["axis"].iloc[0] == "ms"
    data["selected"] = data["step"] == selected if selected is not None else False
    data["marker"] = [pd.isna(d) for d in data["duration_ms"]]
    data["tip_duration"] = [f"{d:,.0f} ms" if pd.notna(d) else "not recorded" for d in data["duration_ms"]]
    data["tip_start"] = [f"{v:,.0f} ms" if by_ms else f"step {int(v) + 1}" for v in data["start_ms"]]
    data["tip_detail"] = [clip(d, TOOLTIP_CHARS) if d else "—" for d in data["detail"]]
    data["tip_tokens"] = [f"{_count(i)} / {_count(o)}" if pd.notna(i) or pd.notna(o) else "—"
                          for i, o in zip(data["in_tokens"], data["out_tokens"])]
    data["tip_model"] = [clip(m, TOOLTIP_CHARS) if isinstance(m, str) and m else "—" for m in data["model"]]
    data["tip_status"] = ["failed ✗" if e else ("—" if k not in ("Analysis", "Observation") else "ok")
                          for e, k in zip(data["error"], data["kind"])]
    data["outline"] = [SELECTED_OUTLINE if sel else ERROR_COLOUR if err else "transparent"
                       for sel, err in zip(data["selected"], data["error"])]
    # long idle stretches drawn compressed (a session from its start only; a window spans its own time)
    late = count > 0 and int(data["index"].iloc[0]) > 0
    gaps = idle_stretches(list(data["start_ms"]), list(data["end_ms"])) if by_ms and not late else []
    pieces = compressed_axis(gaps, float(data["end_ms"].max())) if gaps else []
    if pieces:
        data["start_ms"] = [drawn_ms(v, pieces) for v in data["start_ms"]]
        data["end_ms"] = [drawn_ms(v, pieces) for v in data["end_ms"]]
    # only what the chart draws travels to the browser (a detail may be a 1 MB string)
    data = data[["step", "kind", "label", "index", "start_ms", "end_ms", "error", "selected", "marker",
                 "outline", "tip_duration", "tip_start", "tip_detail", "tip_tokens", "tip_model",
                 "tip_status"]]
    kinds = list(dict.fromkeys(data["kind"]))
    row_px = min(ROW_PX, MAX_HEIGHT_PX / max(count, 1))
    # a step per row while rows are full height (the chart grows with the session), else a
    # fixed plot height shared by every row
    height: Any = alt.Step(ROW_PX) if row_px >= ROW_PX else MAX_HEIGHT_PX
    pick = alt.selection_point(name=SELECTION, fields=["step"], on="click", toggle=False,
                               clear=False)
    y_axis = alt.Axis(title=None, labelLimit=260, labelFontSize=11 if row_px >= 14 else 9,
                      ticks=False, domain=False, labelPadding=LABEL_PADDING_PX) if row_px >= 9 else None
    x_title = ("time from the session start (a session's steps end to end, a sub-session from its own start; "
               "◆ no duration recorded)") if by_ms \
        else "step order"
    if gaps:
        x_title += "; idle time compressed: " + ", ".join(_minutes(b - a) for a, b in gaps)
    x_axis = alt.Axis(grid=True, labelFlush=True, labelExpr=_real_label(pieces)) if by_ms \
        else alt.Axis(grid=True, tickMinStep=1, labelFlush=True, labelExpr="'step ' + (datum.value + 1)")
    # a window of a long session (its first row is not the session's first step) spans its own
    # time, not the time from zero
    # (a few pixels of room at both ends, so a diamond at the start or end is drawn whole). From
    # the start the axis begins at 0, never below: no padding (Vega pads after ``domainMin``, so
    # padding would widen the axis below 0), a "nice" end above the last step instead; a diamond
    # at 0 overhangs the axis into the row labels' padding (marks are not clipped).
    x_scale = alt.Scale(domain=[float(data["start_ms"].min()), float(data["end_ms"].max())], nice=False,
                        zero=False, padding=8) if late else alt.Scale(domainMin=0, nice=True)
    tooltip = [
        alt.Tooltip("label:N", title="step"),
        alt.Tooltip("kind:N"),
        alt.Tooltip("tip_duration:N", title="duration"),
        alt.Tooltip("tip_start:N", title="starts at"),
        alt.Tooltip("tip_detail:N", title="tool / detail"),
        alt.Tooltip("tip_tokens:N", title="tokens in / out"),
        alt.Tooltip("tip_model:N", title="model"),
        alt.Tooltip("tip_status:N", title="tool call"),
        alt.Tooltip("step:N", title="IRI"),
    ]
    colour = alt.Color("kind:N", title=None,
                       scale=alt.Scale(domain=kinds, range=[kind_colour(k) for k in kinds]),
                       legend=alt.Legend(orient="top", direction="horizontal", symbolType="square",
                                         columns=min(4, max(1, len(kinds))), labelLimit=0))
    bars = alt.Chart().mark_bar(cornerRadius=2, cursor="pointer").encode(
        x2="end_ms:Q",
        stroke=alt.Stroke("outline:N", scale=None, legend=None),
        strokeWidth=alt.condition("datum.selected || datum.error", alt.value(2.5), alt.value(0)),
    ).transform_filter("!datum.marker").add_params(pick)
    markers = alt.Chart().mark_point(shape="diamond", filled=True, size=120, cursor="pointer", opacity=1).encode(
        stroke=alt.Stroke("outline:N", scale=None, legend=None),
        strokeWidth=alt.condition("datum.selected || datum.error", alt.value(2), alt.value(0)),
    ).transform_filter("datum.marker")
    return alt.layer(bars, markers, data=data).encode(
        y=alt.Y("label:N", sort=alt.EncodingSortField(field="index", order="ascending"),
                axis=y_axis, title=None if y_axis else "steps (hover for details)"),
        x=alt.X("start_ms:Q", title=x_title, axis=x_axis, scale=x_scale),
        color=colour,
        opacity=alt.condition("datum.selected", alt.value(1.0), alt.value(0.85)),
        tooltip=tooltip,
    ).properties(height=height)


def window_count(count: int, size: int = WINDOW_ROWS) -> int:
    """How many windows of ``size`` rows ``count`` rows make (at least 1)."""
    return max(1, -(-max(count, 0) // max(size, 1)))


def window_of(index: int | None, size: int = WINDOW_ROWS) -> int:
    """The 0-based window holding row ``index`` (0-based); the first when ``index`` is None."""
    return 0 if index is None or index < 0 else index // max(size, 1)


def window_bounds(count: int, window: int, size: int = WINDOW_ROWS) -> tuple[int, int]:
    """Rows ``[start, end)`` (0-based) of window ``window`` of ``count`` rows, the window
    clamped to those that exist: ``window_bounds(4002, 6) == (1200, 1400)``, the last window
    may be short, ``(0, 0)`` for no rows."""
    size = max(size, 1)
    window = min(max(window, 0), window_count(count, size) - 1)
    return min(window * size, max(count, 0)), min((window + 1) * size, max(count, 0))


def window_caption(start: int, end: int, count: int) -> str:
    """What a window shows, 1-based and inclusive: "steps 1,201–1,400 of 4,002"."""
    return f"steps {start + 1:,}–{end:,} of {count:,}"


def _real_label(pieces: list[tuple[float, float, float]]) -> str:
    """A Vega expression for an axis label: the real time at drawn time ``datum.value`` (the
    axis of ``compressed_axis``'s ``pieces``; none: the same), in s, or min and s past 2 min."""
    real = "datum.value"
    for at, start, rate in pieces:
        piece = f"({start!r} + (datum.value - {at!r}) * {rate!r})"
        real = piece if real == "datum.value" and at == 0.0 else f"(datum.value >= {at!r} ? {piece} : {real})"
    if not pieces:
        return "format(datum.value / 1000, '~r') + ' s'"
    return (f"{real} >= 120000 ? floor({real} / 60000) + ' min ' + round(({real} % 60000) / 1000) + ' s' "
            f": format({real} / 1000, '~r') + ' s'")


def _minutes(ms: float) -> str:
    """``ms`` as "65 min 47 s" (or "50 s")."""
    seconds = round(ms / 1000)
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def _count(value: Any) -> str:
    return f"{int(value):,}" if pd.notna(value) else "—"
