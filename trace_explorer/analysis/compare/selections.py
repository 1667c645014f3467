"""The chosen GraphRAG edges and DocRAG chunks of two sessions, split three ways: only in A,
only in B, in both, with the score each side gave the ones in both (TRACE-MODEL.md, "GraphRAG
steps", "DocRAG steps").

An edge is its quoted triple ``(s, p, o)``; an edge the source could not store as a triple term
is ``(None, None, raw)`` with its stored value, and one with neither is left out. A session may
choose the same triple twice (two EdgeSelections, two scores): the split counts them as a
multiset, pairing the occurrences in order. The chosen chunks are a reranker Focus's
ChunkSelections (with scores) when the session has one, else the Exploration's chunks (no
score), each chunk once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ...model.session import Step


@dataclass
class Split:
    """Keys (edge triples or chunk IRIs) ``only_a``, ``only_b`` and in ``both``;
    ``both_scores[k]``: ``(score in A, score in B)`` of ``both[k]`` (None: no score)."""

    only_a: list[Hashable] = field(default_factory=list)
    only_b: list[Hashable] = field(default_factory=list)
    both: list[Hashable] = field(default_factory=list)
    both_scores: list[tuple[float | None, float | None]] = field(default_factory=list)

    @property
    def scores(self) -> list[tuple[Hashable, float | None, float | None]]:
        """``(key, score in A, score in B)`` of the keys in both where either side has a score."""
        return [(k, a, b) for k, (a, b) in zip(self.both, self.both_scores) if a is not None or b is not None]

    def record(self, name: str) -> dict[str, Any]:
        """JSON-ready: the three lists (a triple as ``[s, p, o]``) and ``scores`` as
        ``{name: key, "a": score, "b": score, "delta": b - a (None unless both are numbers)}``."""
        def plain(key: Hashable) -> Any:
            return list(key) if isinstance(key, tuple) else key
        return {"only_a": [plain(k) for k in self.only_a], "only_b": [plain(k) for k in self.only_b],
                "both": [plain(k) for k in self.both],
                "scores": [{name: plain(k), "a": sa, "b": sb, "delta": score_delta(sa, sb)}
                           for k, sa, sb in self.scores]}


def score_delta(a: float | None, b: float | None) -> float | None:
    """``b - a`` rounded to 6 places (scores are 0..1 floats), None unless both are numbers."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return round(b - a, 6)
    return None


def edge_split(steps_a: list[Step], steps_b: list[Step]) -> Split:
    """The Focus edge selections of two sessions' steps split three ways (module docstring)."""
    return _split(_edges(steps_a), _edges(steps_b))


def chunk_split(steps_a: list[Step], steps_b: list[Step]) -> Split:
    """The chosen chunks of two sessions' steps split three ways (module docstring)."""
    return _split(_chunks(steps_a), _chunks(steps_b))


def _edges(steps: Iterable[Step]) -> list[tuple[Hashable, float | None]]:
    out = []
    for step in steps:
        if step.kind != "Focus":
            continue
        for edge in step.fields.get("edges", []):
            if edge.get("stored"):
                key: tuple = (edge.get("s"), edge.get("p"), edge.get("o"))
            elif edge.get("raw"):
                key = (None, None, edge["raw"])
            else:
                continue
            out.append((key, edge.get("score")))
    return out


def _chunks(steps: list[Step]) -> list[tuple[Hashable, float | None]]:
    chosen: dict[str, float | None] = {}
    for step in steps:
        if step.kind == "Focus":
            for chunk in step.fields.get("chunks", []):
                if isinstance(chunk, dict) and chunk.get("chunk") is not None:
                    chosen.setdefault(chunk["chunk"], chunk.get("score"))
    if not chosen:
        for step in steps:
            if step.kind == "Exploration":
                for chunk in step.fields.get("chunks", []):
                    chosen.setdefault(str(chunk), None)
    return list(chosen.items())


def _split(a: list[tuple[Hashable, float | None]], b: list[tuple[Hashable, float | None]]) -> Split:
    pending: dict[Hashable, list[float | None]] = {}
    for key, score in b:
        pending.setdefault(key, []).append(score)
    split = Split()
    for key, score in a:
        waiting = pending.get(key)
        if waiting:
            other = waiting.pop(0)
            split.both.append(key)
            split.both_scores.append((score, other))
        else:
            split.only_a.append(key)
    in_a = Counter(key for key, _ in a)
    seen_b: Counter = Counter()
    for key, _ in b:
        seen_b[key] += 1
        if seen_b[key] > in_a[key]:
            split.only_b.append(key)
    return split
