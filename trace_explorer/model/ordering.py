"""Reading order of a session's steps: the DAG's topological order, ties broken by the numbers in
the IRI after the session id (``/i2`` before ``/i10``, ``/step/2`` before ``/step/10``:
TRACE-MODEL.md, "Plan-then-execute"), then the kind (a Thought before its Observation), then
time. A cycle in the derivations is ordered by its strongly connected parts."""

from __future__ import annotations

import heapq
import re
from functools import lru_cache
from collections.abc import Callable
from datetime import datetime
from typing import Any

import networkx as nx

from .roots import session_id
from .session import SESSION_NODE, Step

KIND_RANK = {kind: rank for rank, kind in enumerate(
    ("Question", "PatternDecision", "Grounding", "Exploration", "Focus", "Decomposition", "Plan",
     "Analysis", "Thought", "Observation", "StepResult", SESSION_NODE, "Finding", "Conclusion",
     "Synthesis"))}
_NUMBER = re.compile(r"\d+")


def natural_key(value: Any) -> tuple:
    """Sort key that compares the numbers inside a string as numbers (``/step/2`` < ``/step/10``)."""
    return _natural_key("" if value is None else str(value))


@lru_cache(maxsize=1 << 12)  # an IRI is sorted again and again while its session is read; a
# session's IRIs are its own (UUIDs), so a cache that outlived sessions would hold dead keys
# (at 65,536 keys it held 36 MB of them by the end of an ingest)
def _natural_key(text: str) -> tuple:
    parts = _NUMBER.split(text)
    numbers = _NUMBER.findall(text)
    out: list = []
    for i, part in enumerate(parts):
        out.append((0, part))
        if i < len(numbers):
            out.append((1, int(numbers[i])))
    return tuple(out)


def _parents_first(graph: Any, key: Callable[[str], Any]) -> list[str] | None:
    """The nodes of ``graph`` (edges child -> parent) with every parent before its children,
    the smallest ``key`` first among those ready (what ``networkx.lexicographical_topological_sort``
    gives on the reversed graph, without its views: a session is read many times over when a
    store is indexed); None when the derivations form a cycle."""
    waiting = {node: count for node, count in graph.out_degree() if count}
    ready = [(key(node), node) for node, count in graph.out_degree() if not count]
    heapq.heapify(ready)
    out = []
    children = graph.pred
    while ready:
        node = heapq.heappop(ready)[1]
        out.append(node)
        for child in children[node]:
            waiting[child] -= 1
            if not waiting[child]:
                del waiting[child]
                heapq.heappush(ready, (key(child), child))
    return None if waiting else out


def reading_order(graph: Any, root: str, nodes: dict[str, Step],
                  time_of: Callable[[str], datetime | None],
                  sub_sessions: dict[str, int] | None = None) -> tuple[list[str], list[str]]:
    """Every node of ``graph`` (a networkx DiGraph, or ``reader.Links``; edges child -> parent)
    in reading order, and the nodes on cycles of the derivations ([] when there is none).
    ``nodes``: the session's steps by IRI (a node without one is a sub-session);
    ``time_of(iri)``: a node's start time, if any; ``sub_sessions``: the sub-sessions' places
    (IRI -> 0, 1, ...: the order they started). A sub-session comes right after the parts of the
    step it derives from (``/i1/thought`` ... then the sub-session of ``/i1``), and sub-sessions of
    one step in the order they started: their IRIs (random UUIDs) decide nothing, and a
    supervisor's Findings, each derived from one sub-session, come after them all, by their own
    index (``/finding/0``, ...)."""
    tail_of = session_id(root)
    places = sub_sessions or {}

    def tail(node: str) -> str:
        return node.split(tail_of, 1)[1] if tail_of and tail_of in node else node

    def key(node: str):
        step = nodes.get(node)
        kind = step.kind if step else SESSION_NODE
        started = (step.fields.get("started") if step else None) or time_of(node)
        if step is None:  # another session: placed by the step of this one it derives from
            ups = [tail(up) for up in graph.succ[node] if up in nodes]
            where = natural_key(min(ups, key=natural_key) + "/\uffff") if ups else natural_key(node)
        else:
            where = natural_key(tail(node))
        return (where, KIND_RANK.get(kind, 50), started.timestamp() if started else 0.0,
                places.get(node, len(places)), node)

    ordered = _parents_first(graph, key)
    if ordered is not None:
        return ordered, []
    # a cycle in the derivations: order the strongly connected parts topologically and the
    # steps inside each part by their keys
    if not isinstance(graph, nx.DiGraph):
        graph = graph.to_networkx()
    reading = graph.reverse(copy=False)  # parent -> child (a view)
    parts = nx.condensation(reading)
    members = parts.graph["mapping"]
    groups: dict[int, list[str]] = {}
    for node, part in members.items():
        groups.setdefault(part, []).append(node)
    first = {part: min(key(n) for n in group) for part, group in groups.items()}
    part_order = nx.lexicographical_topological_sort(parts, key=lambda part: first[part])
    looped = sorted((n for group in groups.values() if len(group) > 1 for n in group), key=key)
    return [n for part in part_order for n in sorted(groups[part], key=key)], looped
