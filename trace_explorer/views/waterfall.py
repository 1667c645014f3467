"""A session as a waterfall, as Jaeger draws a trace: one labelled row per stop of the step walk
(``step_walk``), each sub-session a band nested under the step it derives from.

TrustGraph records durations, not start times (``tg:llmDurationMs`` on an Analysis and other LLM
steps, ``tg:toolDurationMs`` on an Observation; TRACE-MODEL.md, "Common step metadata"); only a
session's Question has a ``prov:startedAtTime``. So a session's own steps are laid end to end
from its start in reading order, and

- a sub-session starts at its own start time: its Question's ``prov:startedAtTime`` less its
  parent session's, from the parent's place on the axis (a supervisor's sub-agents run side by
  side, each from its own start); one whose start, or whose parent's, is not recorded starts
  when the step it derives from ends. Its steps are laid end to end from there; its header row
  spans the whole band, from its start to the end of its last step;
- a step that derives from a step of a sub-session (a supervisor's Finding from a sub-agent's
  Conclusion) starts no earlier than that step ends;
- a step that records no time and derives from its own session's steps alone (a plan's next
  StepResult, its Synthesis) starts no earlier than the sub-sessions before it in its session
  end: its session's work so far includes theirs (at 0 s it would sit before the sub-session it
  follows);
- a step with no duration is a *marker*: an instant at its start, never a bar.

When no row records a duration and no sub-session starts after its parent, the axis is
"order": stop ``i`` is a marker at ``i`` and a header spans its band's rows. Times are in ms from the session's start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..model.session import Session
from .palette import kind_colour
from .step_labels import clip, has_error, timeline_label
from .step_walk import WalkEntry, step_walk
from ..model.totals import step_duration_ms

HEADER_KIND = "Sub-session"
# An idle stretch of the "ms" axis (no step, no band running) is drawn compressed when it lasts
# at least IDLE_MIN_MS and takes at least IDLE_SHARE of the axis: a supervisor whose sub-agents
# started an hour apart would otherwise draw seconds of work as slivers of an 83-minute axis.
IDLE_MIN_MS = 60_000.0
IDLE_SHARE = 0.2
GAP_SHARE = 0.06  # of the drawn axis, per idle stretch drawn compressed


@dataclass
class Waterfall:
    """The rows of a waterfall, as columns of equal length (one entry per row, in walk order):
    ``ids`` (step IRI; a header's is its sub-session's IRI), ``labels``, ``kinds``, ``depths``,
    ``starts`` / ``ends`` (ms, or row numbers on the "order" axis), ``durations`` (ms or None),
    ``markers`` (no duration: an instant), ``errors``, ``headers``, ``bands`` (the row index of
    the header whose band holds the row, -1 at depth 0), ``models``, ``tokens_in`` /
    ``tokens_out``; ``axis`` is "ms" or "order"."""

    axis: str = "ms"
    ids: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    depths: list[int] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)
    ends: list[float] = field(default_factory=list)
    durations: list[float | None] = field(default_factory=list)
    markers: list[bool] = field(default_factory=list)
    errors: list[bool] = field(default_factory=list)
    headers: list[bool] = field(default_factory=list)
    bands: list[int] = field(default_factory=list)
    models: list[str | None] = field(default_factory=list)
    tokens_in: list[int | None] = field(default_factory=list)
    tokens_out: list[int | None] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)

    def row(self, index: int) -> dict[str, Any]:
        """Row ``index`` as a dict of the column names (singular: "id", "label", "start", ...)."""
        names = ("id", "label", "kind", "depth", "start", "end", "duration", "marker", "error", "header",
                 "band", "model", "tokens_in", "tokens_out")
        columns = (self.ids, self.labels, self.kinds, self.depths, self.starts, self.ends, self.durations,
                   self.markers, self.errors, self.headers, self.bands, self.models, self.tokens_in,
                   self.tokens_out)
        return {name: column[index] for name, column in zip(names, columns)}


def waterfall(session: Session, sessions: Mapping[str, Session] | None = None,
              walk: list[WalkEntry] | None = None) -> Waterfall:
    """The waterfall of ``session`` with the sub-sessions found in ``sessions`` (module
    docstring); ``walk`` is ``step_walk(session, sessions)`` when already made. Linear in the
    rows."""
    walk = step_walk(session, sessions) if walk is None else walk
    durations = [None if entry.header else step_duration_ms(entry.step) for entry in walk]
    enclosing = _enclosing(walk)
    dated = any(_started_after(entry.session, enclosing[i]) for i, entry in enumerate(walk) if entry.header)
    out = Waterfall(axis="ms" if dated or any(d is not None for d in durations) else "order")
    end_of: dict[str, float] = {}  # step IRI (and sub-session IRI) -> when it ends
    clock: dict[str, float] = {}  # session IRI -> when its next step starts
    began: dict[str, tuple[float, datetime | None]] = {walk[0].session.id: (0.0, walk[0].session.time)} if walk else {}
    header_of: dict[str, int] = {}  # sub-session IRI -> the row of its header
    bands_end: dict[str, float] = {}  # session IRI -> when the sub-session bands in it so far end
    for index, (entry, duration) in enumerate(zip(walk, durations)):
        owner = entry.session
        band = header_of.get(owner.id, -1) if entry.depth else -1
        if out.axis == "order":  # no durations at all: each step an instant at its place in order
            start = end = float(index)
        elif entry.header:
            parent = enclosing[index]
            start = _dated_start(owner, began.get(parent.id) if parent is not None else None)
            if start is None:  # no start time to go by: when the step it derives from ends
                start = end_of.get(owner.parent or "", clock.get(parent.id if parent is not None else "", 0.0))
            end = start
            clock[owner.id] = start
            began[owner.id] = (start, owner.time)
        else:
            start = clock.get(owner.id, 0.0)
            outside = [p for p in entry.step.parents if p not in owner.nodes and p in end_of]
            for parent in outside:
                start = max(start, end_of[parent])
            if duration is None and not outside:
                start = max(start, bands_end.get(owner.id, 0.0))
            end = start + (duration or 0.0)
            clock[owner.id] = end
        if entry.header:
            header_of[owner.id] = index
        end_of[entry.id] = end
        _append(out, entry, start, end, duration, band)
        _stretch(out, band, end)
        while band >= 0 and out.axis == "ms":  # the bands' ends, for the later steps of the sessions they hang in
            outer = enclosing[band]
            if outer is not None:
                bands_end[outer.id] = max(bands_end.get(outer.id, 0.0), out.ends[band])
            band = out.bands[band]
        if entry.depth and not entry.header and out.axis == "ms":
            end_of[owner.id] = max(end_of.get(owner.id, end), end)
    return out


def _enclosing(walk: list[WalkEntry]) -> list[Session | None]:
    """For each stop of ``walk``, the session the stop's session hangs in (None at depth 0): for
    a header, the session one level up at that place of the walk."""
    out: list[Session | None] = []
    at_depth: list[Session] = []
    for entry in walk:
        del at_depth[entry.depth:]
        out.append(at_depth[-1] if entry.depth and at_depth else None)
        at_depth.append(entry.session)
    return out


def _started_after(child: Session, parent: Session | None) -> bool:
    """Whether both sessions record their start and ``child`` starts after ``parent``."""
    return parent is not None and child.time is not None and parent.time is not None and child.time > parent.time


def _dated_start(child: Session, parent: tuple[float, datetime | None] | None) -> float | None:
    """Where sub-session ``child`` starts on the axis (ms): its parent's place plus the time
    between the two Questions' ``prov:startedAtTime``, never before its parent's start (a clock
    that went back); None when either time is missing."""
    if parent is None or parent[1] is None or child.time is None:
        return None
    return parent[0] + max(0.0, (child.time - parent[1]) / timedelta(milliseconds=1))


def _append(out: Waterfall, entry: WalkEntry, start: float, end: float, duration: float | None, band: int) -> None:
    step = entry.step
    if entry.header:
        child = entry.session
        kind = HEADER_KIND
        label = f"{child.mechanism}" + (f" {child.pattern}" if child.pattern else "") + ": " + clip(
            child.question or "(no question)", 40)
    else:
        kind = step.kind
        label = timeline_label(step)
    out.ids.append(step.id)
    out.labels.append(label)
    out.kinds.append(kind)
    out.depths.append(entry.depth)
    out.starts.append(start)
    out.ends.append(end)
    out.durations.append(duration)
    out.markers.append(not entry.header and duration is None)
    out.errors.append(has_error(step) if not entry.header else False)
    out.headers.append(entry.header)
    out.bands.append(band)
    out.models.append(step.fields.get("model") if isinstance(step.fields.get("model"), str) else None)
    out.tokens_in.append(_int(step.fields.get("in_tokens")))
    out.tokens_out.append(_int(step.fields.get("out_tokens")))


def _stretch(out: Waterfall, band: int, end: float) -> None:
    """Make the header of ``band`` (and the headers it sits in) reach at least ``end``."""
    while band >= 0:
        if out.ends[band] < end:
            out.ends[band] = end
        band = out.bands[band]


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def idle_gaps(rows: Waterfall) -> list[tuple[float, float]]:
    """The idle stretches of ``rows``' "ms" axis to draw compressed: (start, end) ms, in order,
    each at least ``IDLE_MIN_MS`` long and ``IDLE_SHARE`` of the axis, when no row (step, band)
    runs; [] on the "order" axis."""
    return idle_stretches(rows.starts, rows.ends) if rows.axis == "ms" else []


def idle_stretches(starts: list[float], ends: list[float]) -> list[tuple[float, float]]:
    """``idle_gaps`` of rows given by their ``starts`` and ``ends`` (ms from 0)."""
    if not len(starts):
        return []
    least = max(IDLE_MIN_MS, IDLE_SHARE * max(ends))
    gaps, reached = [], 0.0
    for start, end in sorted(zip(starts, ends)):
        if start - reached >= least:
            gaps.append((reached, start))
        reached = max(reached, end)
    return gaps


def compressed_axis(gaps: list[tuple[float, float]], end: float) -> list[tuple[float, float, float]]:
    """The drawn axis of a span of ``end`` ms whose idle ``gaps`` are drawn ``GAP_SHARE`` of it
    each: its pieces in order as (drawn start, real start, real ms per drawn ms), the last piece
    running to the end. Without gaps, one piece ``(0, 0, 1)``."""
    idle = sum(b - a for a, b in gaps)
    width = max(end - idle, 1.0) * GAP_SHARE / max(0.05, 1 - GAP_SHARE * len(gaps)) if gaps else 0.0
    pieces, cut = [(0.0, 0.0, 1.0)], 0.0
    for a, b in gaps:
        pieces.append((a - cut, a, (b - a) / width))
        cut += (b - a) - width
        pieces.append((b - cut, b, 1.0))
    return pieces


def drawn_ms(t: float, pieces: list[tuple[float, float, float]]) -> float:
    """Real time ``t`` (ms) on the drawn axis of ``compressed_axis``'s ``pieces``."""
    drawn = t
    for at, real, rate in pieces:
        if t >= real:
            drawn = at + (t - real) / rate
    return drawn


def waterfall_data(rows: Waterfall) -> dict[str, Any]:
    """``rows`` as the waterfall component's data: the columns, with ``kinds`` and ``models`` as
    indices into ``kind_names`` / ``model_names``, each kind's colour, and the axis. The step
    IRIs are front-coded (``id_shared[i]`` characters of the IRI before, then ``id_rest[i]``:
    a 4,002-step session's IRIs take 60 KB instead of 290 KB); a duration is ``end - start``
    of a row that is no marker. Plain JSON values only; the component writes every text with
    ``textContent``."""
    kind_names = list(dict.fromkeys(rows.kinds))
    model_names = list(dict.fromkeys(m for m in rows.models if m))
    kind_index = {k: i for i, k in enumerate(kind_names)}
    model_index = {m: i for i, m in enumerate(model_names)}
    shared, rest = front_coded(rows.ids)
    return {
        "axis": rows.axis,
        "id_shared": shared, "id_rest": rest, "labels": rows.labels,
        "kinds": [kind_index[k] for k in rows.kinds], "kind_names": kind_names,
        "colours": [kind_colour(k) for k in kind_names],
        "depths": rows.depths,
        "starts": [round(v, 3) for v in rows.starts], "ends": [round(v, 3) for v in rows.ends],
        "markers": [int(m) for m in rows.markers], "errors": [int(e) for e in rows.errors],
        "headers": [int(h) for h in rows.headers], "bands": rows.bands,
        "models": [model_index.get(m, -1) if m else -1 for m in rows.models], "model_names": model_names,
        "tokens_in": rows.tokens_in, "tokens_out": rows.tokens_out,
    }


def front_coded(texts: list[str]) -> tuple[list[int], list[str]]:
    """``texts`` as (shared, rest): text ``i`` is the first ``shared[i]`` characters of text
    ``i - 1`` followed by ``rest[i]`` (``shared[0]`` is 0)."""
    shared: list[int] = []
    rest: list[str] = []
    before = ""
    for text in texts:
        common = 0
        for a, b in zip(before, text):
            if a != b:
                break
            common += 1
        shared.append(common)
        rest.append(text[common:])
        before = text
    return shared, rest
