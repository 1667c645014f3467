"""Where the nodes of a DAG go: a *level* in the flow's direction and a *slot* within it.

The flow runs from the Question to the answer: a node's level is the length of the longest
derivation path from a start node to it (a derived entity comes after what it derives from). A
step's *parts* (a Thought, the edge or chunk selections of a Focus: ``SUB_ENTITY_KINDS``) take
their step's level and sit below it, as the DAG image draws a Thought beside its Analysis.
Within a level, slot 0 is the top: the level's steps in reading order, then the parts.

The browser turns levels into places (``dag_view.js``): levels run left to right and wrap into
rows as words do on a line, so a 26-step ReAct chain reads as a paragraph of a few rows instead of
one line of 38 columns; a row is as tall as its tallest level. Nothing here is random: the same
layout always gets the same levels and slots. Linear in nodes and edges (a cycle in
``wasDerivedFrom`` falls back to reading order for the levels).
"""

from __future__ import annotations

from .dag_folding import DagLayout
from ..model.session import SUB_ENTITY_KINDS

# Relations whose *target* is a part of the source (a step points at its parts).
PART_RELATIONS = frozenset({"selectedEdge", "selectedChunk", "thought"})


def part_owners(layout: DagLayout) -> dict[str, str]:
    """Part node id -> the id of the step it belongs to, for every node of ``layout`` whose kind
    is a part kind and that hangs on another node (``thought`` / ``selectedEdge`` /
    ``selectedChunk`` from the step, or its own ``wasDerivedFrom`` to it); the first such edge
    wins."""
    parts = {node.id for node in layout.nodes if node.kind in SUB_ENTITY_KINDS}
    owners: dict[str, str] = {}
    for source, target, relation in layout.edges:
        if relation in PART_RELATIONS and target in parts and source not in parts:
            owners.setdefault(target, source)
        elif source in parts and target not in parts:
            owners.setdefault(source, target)
    return owners


def layout_levels(layout: DagLayout) -> dict[str, int]:
    """Level of each node of ``layout`` (0 = a start node): the longest derivation path from a
    start node to it, a part at its step's level. A cycle falls back to reading order."""
    owners = part_owners(layout)
    ids = [node.id for node in layout.nodes if node.id not in owners]
    later: dict[str, list[str]] = {i: [] for i in ids}
    waiting = dict.fromkeys(ids, 0)
    for source, target, relation in layout.edges:
        first, then = (source, target) if relation in PART_RELATIONS else (target, source)
        if first in later and then in waiting and first != then:
            later[first].append(then)
            waiting[then] += 1
    levels = dict.fromkeys(ids, 0)
    ready = [i for i in reversed(ids) if waiting[i] == 0]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for after in later[node]:
            levels[after] = max(levels[after], levels[node] + 1)
            waiting[after] -= 1
            if waiting[after] == 0:
                ready.append(after)
    if done < len(ids):
        levels = {i: n for n, i in enumerate(ids)}
    for part, owner in owners.items():
        levels[part] = levels.get(owner, 0)
    return levels


def layout_slots(layout: DagLayout, levels: dict[str, int] | None = None) -> dict[str, tuple[int, int]]:
    """Node id -> (level, slot). Within a level the steps keep reading order; each goes to the
    slot of what it derives from (the mean, when several), or below the step before it, so a
    chain runs straight across and a plan's Synthesis sits beside its last step. A step's parts
    go right under it, before the next step of their level."""
    levels = layout_levels(layout) if levels is None else levels
    owners = part_owners(layout)
    sources: dict[str, list[str]] = {}
    for source, target, relation in layout.edges:
        if relation not in PART_RELATIONS and source not in owners and target not in owners:
            sources.setdefault(source, []).append(target)  # ``source`` derives from ``target``
    parts_of: dict[str, list[str]] = {}
    columns: dict[int, list[str]] = {}
    for node in layout.nodes:  # reading order
        if node.id in owners:
            parts_of.setdefault(owners[node.id], []).append(node.id)
        else:
            columns.setdefault(levels.get(node.id, 0), []).append(node.id)
    places: dict[str, tuple[int, int]] = {}
    for level in sorted(columns):
        next_free = 0
        for node in columns[level]:
            earlier = [places[t][1] for t in sources.get(node, ()) if t in places and places[t][0] < level]
            wanted = round(sum(earlier) / len(earlier)) if earlier else 0
            places[node] = (level, max(wanted, next_free))
            next_free = places[node][1] + 1
            for part in parts_of.pop(node, ()):
                places[part] = (level, next_free)
                next_free += 1
    for stray in (part for parts in parts_of.values() for part in parts):  # a part of a node not drawn
        level = levels.get(stray, 0)
        places[stray] = (level, 1 + max((slot for lv, slot in places.values() if lv == level), default=-1))
    return places


def tallest_level(layout: DagLayout) -> int:
    """The number of nodes in the fullest level of ``layout`` (at least 1)."""
    counts: dict[int, int] = {}
    for level in layout_levels(layout).values():
        counts[level] = counts.get(level, 0) + 1
    return max(counts.values(), default=1)
