"""The DAG's legend: an entry for each thing the drawing holds, and nothing else.

Entries, in this order, each only when some drawn node (or edge) is of that sort: the PROV
classes by shape and fill (Entity, Activity, Agent), the kinds of steps (and of a branch's
nodes, ``layout.with_branch``) by border colour (an Iteration is an Analysis with its
Thought and Observation), a sub-session or the parent
session (dashed), a folded run (dashed box), a failed tool call (red border), and the arrow's
meaning when there is an edge. Each entry is ``{"label", "swatch", "fill", "border", "dashed"}``
(and ``"kind"`` for a kind of step) with ``swatch`` one of "ellipse", "box", "house", "arrow"; the page writes labels with
``textContent`` (a kind name comes from the trace).
"""

from __future__ import annotations

from typing import Any

from ...model.session import SESSION_NODE
from .folding import FOLDED, ITERATION, DagLayout
from .nodes import EDGE_COLOUR, FOLD_BORDER, FOLD_FILL, SESSION_FILL
from ..palette import ERROR_COLOUR, PROV_FILLS, kind_colour

_SWATCHES = {"Entity": "ellipse", "Activity": "box", "Agent": "house"}
_NEUTRAL = "#475569"


def legend_entries(layout: DagLayout) -> list[dict[str, Any]]:
    """The legend of ``layout`` as drawn (module docstring)."""
    steps = [n for n in layout.nodes if n.role not in ("session", "folded")]  # a branch's nodes too
    entries = [_entry(name, _SWATCHES[name], PROV_FILLS[name], _NEUTRAL)
               for name in _SWATCHES if any(n.prov_class == name for n in steps)]
    for kind in dict.fromkeys(n.kind for n in steps):
        colour = kind_colour("Analysis" if kind == ITERATION else kind)
        label = "Iteration (Analysis, Thought, Observation)" if kind == ITERATION else kind
        entries.append(dict(_entry(label, "box", "#ffffff", colour), kind=kind))
    roles = {n.role for n in layout.nodes}
    if "session" in roles:
        names = [(n.lines or ["Sub-session"])[0] for n in layout.nodes if n.role == "session"]
        label = " / ".join(dict.fromkeys(sorted(names, reverse=True)))
        entries.append(_entry(label, "ellipse", SESSION_FILL, kind_colour(SESSION_NODE), dashed=True))
    if any(n.kind == FOLDED for n in layout.nodes):
        entries.append(_entry("⋯ folded run (click to open)", "box", FOLD_FILL, FOLD_BORDER, dashed=True))
    if any(n.error for n in layout.nodes):
        entries.append(_entry("✗ tool error", "box", "#ffffff", ERROR_COLOUR))
    if layout.edges:
        entries.append(_entry("derived → source (PROV); hover an arrow for its relation", "arrow", "#ffffff",
                              EDGE_COLOUR))
    return entries


def _entry(label: str, swatch: str, fill: str, border: str, dashed: bool = False) -> dict[str, Any]:
    return {"label": label, "swatch": swatch, "fill": fill, "border": border, "dashed": dashed}
