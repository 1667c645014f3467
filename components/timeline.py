"""The session's timeline: a waterfall as Jaeger draws a trace (``views.waterfall``), in a custom
component (``st.components.v2``: no iframe; a click comes back to Python).

One labelled row per stop of the step walk, each sub-session a band nested under the step it
derives from (▾ folds it), a step without a duration a diamond. The rows scroll (only those in
view are in the page, so 4,000 rows draw as fast as 20), the time axis zooms (+ / −, Ctrl or ⌘
with the mouse wheel, or a drag on the minimap of the whole run above the rows; a double click
on the minimap shows the whole run again); the label column widens by dragging its edge. A click
on a row selects that step; j / k (and the arrow keys while the timeline or the graph has the
focus) move to the next / previous row.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import streamlit as st

from trace_explorer.model.session import Session
from trace_explorer.views.step_walk import WalkEntry
from trace_explorer.views.waterfall import waterfall, waterfall_data

from .step_picker import select_step

COMPONENT_KEY = "te_timeline"
_HERE = Path(__file__).resolve().parent
_HTML = """
<div class="te-wf" tabindex="0" data-te-steps="timeline" role="group"
     aria-label="Timeline: click a row to select its step; j / k or arrows move">
  <div class="te-wf-bar">
    <div class="te-wf-legend"></div>
    <div class="te-wf-tools">
      <button type="button" data-zoom="in" title="Zoom in on the time axis">+</button>
      <button type="button" data-zoom="out" title="Zoom out">−</button>
      <button type="button" data-zoom="reset" title="Show the whole run">Whole run</button>
    </div>
  </div>
  <div class="te-wf-note"></div>
  <canvas class="te-wf-mini" title="The whole run: drag to zoom in on a stretch, click to go there, double-click for all of it"></canvas>
  <div class="te-wf-axis">
    <div class="te-wf-axis-label">Step<span class="te-wf-resize" title="Drag to widen the labels; double-click to reset"></span></div>
    <div class="te-wf-ticks"></div>
  </div>
  <div class="te-wf-body"><div class="te-wf-spacer"></div></div>
  <div class="te-wf-tip" role="tooltip"></div>
</div>
"""


@functools.lru_cache(maxsize=1)
def _component() -> Any:
    return st.components.v2.component(
        "trace_explorer_timeline", html=_HTML,
        css=(_HERE / "timeline.css").read_text(encoding="utf-8"),
        js=(_HERE / "timeline.js").read_text(encoding="utf-8"),
    )


@st.cache_resource(show_spinner=False, max_entries=8)
def _rows(collection_key: tuple, session_id: str, children: tuple[str, ...], _session: Session,
          _walk: list[WalkEntry]) -> dict[str, Any]:
    """The waterfall's data for one session and the sub-sessions at hand, once (shared: never
    changed by its users)."""
    data = waterfall_data(waterfall(_session, walk=_walk))
    digest = hashlib.sha256(repr((collection_key, session_id, children, len(_walk))).encode()).hexdigest()
    return {"rows": data, "key": digest[:16]}


def timeline(session: Session, collection_key: tuple, walk: list[WalkEntry], selected: str | None,
             children: tuple[str, ...] = ()) -> None:
    """Draw the waterfall of ``session`` (its ``walk``, with the sub-sessions ``children`` in
    it) with ``selected`` highlighted; a click or a key selects a step (``select_step``)."""
    if not walk:
        st.caption("This session has no steps to draw.")
        return
    cached = _rows(collection_key, session.id, children, session, walk)
    _component()(key=COMPONENT_KEY, data={"rows": cached["rows"], "key": cached["key"], "selected": selected},
                 on_select_change=functools.partial(_picked, walk))


def _picked(walk: list[WalkEntry]) -> None:
    """Callback of a click or key on the timeline: select that step."""
    state = st.session_state.get(COMPONENT_KEY)
    chosen = getattr(state, "select", None) if state is not None else None
    if chosen is None and isinstance(state, dict):
        chosen = state.get("select")
    select_step(walk, chosen)
