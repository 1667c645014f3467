"""Where the nodes of a DAG go: a *level* in the flow's direction and a *slot* within it.

The flow runs from the Question to the answer: a node's level is the length of the longest
derivation path from a start node to it (a derived entity comes after what it derives from). A
step's *parts* (a Thought, the edge or chunk selections of a Focus: ``SUB_ENTITY_KINDS``) take
their step's level and sit below it, as the DAG image draws a Thought beside its Analysis.
Within a level, slot 0 is the top: the level's steps in reading order, then the parts.

A *branch* is a group of nodes of another role than the session's own (any role but
``OWN_ROLES``: say, the chunk, page and document a chosen edge was extracted from). It is laid
out from the node it hangs on, one level further for each hop, in the slot of that node or
below, whichever way its edges point (``with_branch`` adds one); where a step of the session
stands in that place, the branch hangs right under its node instead.

The browser turns levels into places (``view.js``): levels run left to right and wrap into
rows as words do on a line, so a 26-step ReAct chain reads as a paragraph of a few rows instead of
one line of 38 columns; a row is as tall as its tallest level. Nothing here is random: the same
layout always gets the same levels and slots. Linear in nodes and edges (a cycle in
``wasDerivedFrom`` falls back to reading order for the levels).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...model.session import SUB_ENTITY_KINDS
from .folding import DagLayout, DagNode

# Relations whose *target* is a part of the source (a step points at its parts).
PART_RELATIONS = frozenset({"selectedEdge", "selectedChunk", "thought"})
OWN_ROLES = frozenset({"step", "session", "folded"})  # a node of another role is in a branch


def with_branch(layout: DagLayout, nodes: Iterable[DagNode], edges: Iterable[tuple[str, str, str]]) -> DagLayout:
    """A new layout: ``layout`` and a branch of more nodes (their ``role`` not one of
    ``OWN_ROLES``; each with its own ``lines``, ``tooltip``, ``kind`` and ``prov_class``, which
    is how it is drawn) and the edges (source, target, relation) that hang them on it."""
    return DagLayout(layout.nodes + list(nodes), layout.edges + list(edges), layout.grouped, layout.folded)


def branch_levels(layout: DagLayout, levels: dict[str, int]) -> dict[str, tuple[int, str]]:
    """Branch node id -> (level, the id of the node it hangs from): one level past that node,
    found by walking the edges (either way) out from the nodes that have a level."""
    branch = {node.id for node in layout.nodes if node.role not in OWN_ROLES}
    near: dict[str, list[str]] = {}
    for source, target, _ in layout.edges:
        near.setdefault(source, []).append(target)
        near.setdefault(target, []).append(source)
    found: dict[str, tuple[int, str]] = {}
    frontier = [n.id for n in layout.nodes if n.id in levels and n.id not in branch]
    while frontier:
        after: list[str] = []
        for node in frontier:
            level = levels[node] if node in levels else found[node][0]
            for other in near.get(node, ()):
                if other in branch and other not in found:
                    found[other] = (level + 1, node)
                    after.append(other)
        frontier = after
    return found


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
    ids = [node.id for node in layout.nodes if node.id not in owners and node.role in OWN_ROLES]
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
    for node, (level, _) in branch_levels(layout, levels).items():
        levels[node] = level
    for node in layout.nodes:  # a branch node hanging from nothing drawn
        levels.setdefault(node.id, 0)
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
    branches = branch_levels(layout, levels)
    parts_of: dict[str, list[str]] = {}
    columns: dict[int, list[str]] = {}
    for node in layout.nodes:  # reading order
        if node.id in owners:
            parts_of.setdefault(owners[node.id], []).append(node.id)
        elif node.id not in branches:
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
    _place_branches(places, branches, [node.id for node in layout.nodes])
    return places


def _place_branches(places: dict[str, tuple[int, int]], branches: dict[str, tuple[int, str]],
                    order: list[str]) -> None:
    """Put each branch node one level past the node it hangs from, in that node's slot. Where a
    node of the session's own already stands there (an agent's sub-session mid-chain: the next
    level holds the chain's next step), the branch hangs right under its node instead, at its
    node's level, so it never reads as part of another step; where another branch node stands
    there, it goes to the next free slot below."""
    own = {place: node for node, place in places.items()}
    taken = set(own)
    position = {node: i for i, node in enumerate(order)}
    for node in sorted(branches, key=lambda n: (branches[n][0], position.get(n, 0))):
        anchor = places.get(branches[node][1])
        if anchor is None:
            continue
        level, slot = anchor[0] + 1, anchor[1]
        if (level, slot) in own:
            level, slot = anchor[0], anchor[1] + 1
        while (level, slot) in taken:
            slot += 1
        places[node] = (level, slot)
        taken.add((level, slot))


def tallest_level(layout: DagLayout) -> int:
    """The number of nodes in the fullest level of ``layout`` (at least 1)."""
    counts: dict[int, int] = {}
    for level in layout_levels(layout).values():
        counts[level] = counts.get(level, 0) + 1
    return max(counts.values(), default=1)
