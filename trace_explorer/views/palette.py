"""One colour per step kind, shared by the timeline and the DAG so a kind looks the same in both.

Colours are CSS hex strings. Kinds are TrustGraph class names (``Step.kind``) plus
``model.SESSION_NODE`` for a sub-session. PROV class fills follow the PROV-O diagram convention:
Entities yellow, Activities blue, Agents orange.
"""

from __future__ import annotations

from ..model.session import SESSION_NODE

# kind -> accent colour (timeline bar, DAG border). Related kinds share a hue family: agent
# reasoning blues, tool results teal, answers green, retrieval ambers/fuchsias, plans violets,
# the documents behind an answer browns.
# No kind uses red: red (ERROR_COLOUR) only ever means a failed tool call.
KIND_COLOURS: dict[str, str] = {
    "Question": "#475569",
    "PatternDecision": "#78716c",
    "Analysis": "#2563eb",
    "Thought": "#38bdf8",
    "Observation": "#0d9488",
    "Conclusion": "#16a34a",
    "Grounding": "#d97706",
    "Exploration": "#a16207",
    "Focus": "#c026d3",
    "EdgeSelection": "#e879f9",
    "ChunkSelection": "#e879f9",
    "Plan": "#4f46e5",
    "StepResult": "#0891b2",
    "Decomposition": "#9333ea",
    "Finding": "#65a30d",
    "Synthesis": "#15803d",
    SESSION_NODE: "#64748b",
    # extraction provenance, drawn in a session's evidence branch: browns
    "Chunk": "#b45309",
    "Page": "#92400e",
    "Document": "#78350f",
}
OTHER_KIND_COLOUR = "#94a3b8"
ERROR_COLOUR = "#dc2626"

# PROV class -> node fill (PROV-O's own diagrams use these hues).
PROV_FILLS: dict[str, str] = {
    "Entity": "#fffc87",
    "Activity": "#9fb1fc",
    "Agent": "#fed37f",
}


def kind_colour(kind: str | None) -> str:
    """The accent colour of ``kind`` (a grey for kinds this module does not name)."""
    return KIND_COLOURS.get(kind or "", OTHER_KIND_COLOUR)


def prov_fill(prov_class: str | None) -> str:
    """The fill colour of a PROV class ("Entity", "Activity", "Agent"); Entity's for anything else."""
    return PROV_FILLS.get(prov_class or "", PROV_FILLS["Entity"])
