"""GraphRAG sessions (TRACE-MODEL.md, "GraphRAG steps", "Extraction provenance"): a Focus's
edge selections, each with its quoted triple, labels, score and the chain of entities the edge
was extracted from."""

from __future__ import annotations

from typing import Any

import pyoxigraph as ox

from .fields import kind_of, show
from .session import Step
from .triple_index import TripleIndex
from .vocabulary import CONTAINS, DC, EDGE, REIFIES, WAS_DERIVED_FROM


class EdgeSources:
    """Where knowledge-graph edges came from, in one collection (``index``)."""

    def __init__(self, index: TripleIndex):
        self.index = index
        self._containers: dict[ox.Triple, list[str]] | None = None

    def chains(self, triple: ox.Triple) -> list[list[dict[str, str | None]]]:
        """For each Subgraph that ``tg:contains`` ``triple`` (or statement that ``tg:reifies`` it,
        as older extractors wrote), the chain Subgraph -> Chunk -> Page/Section -> Document found
        by walking ``prov:wasDerivedFrom`` up, each link as ``{"id", "kind", "label"}`` (the
        Document's label is its ``dc:title`` when it has one)."""
        if self._containers is None:
            self._containers = {}
            for subject, props in self.index.properties.items():
                for obj in (*props.get(CONTAINS, ()), *props.get(REIFIES, ())):
                    if isinstance(obj, ox.Triple) and subject not in self._containers.get(obj, ()):
                        self._containers.setdefault(obj, []).append(subject)
        chains = []
        for subgraph in sorted(self._containers.get(triple, ())):
            chain, node, seen = [], subgraph, set()
            while node is not None and node not in seen and len(chain) < 16:
                seen.add(node)
                kind = kind_of(node, self.index.types(node))
                label = self.index.literal(node, DC + "title") or self.index.label(node)
                chain.append({"id": node, "kind": kind, "label": label})
                parents = self.index.iris(node, WAS_DERIVED_FROM)
                node = parents[0] if parents else None
            chains.append(chain)
        return chains

    def edge(self, selection: Step) -> dict[str, Any]:
        """An EdgeSelection as data: ``id``, the edge's ``s``, ``p``, ``o`` (None when the edge is
        not stored as a quoted triple, with the stored value in ``raw``), ``o_is_literal``, the
        terms' labels, ``concept``, ``score``, ``reasoning``, ``stored`` and ``sources``
        (``chains``)."""
        index = self.index
        edge: dict[str, Any] = {"id": selection.id, "s": None, "p": None, "o": None, "o_is_literal": False,
                                "s_label": None, "p_label": None, "o_label": None,
                                "concept": (selection.fields.get("concepts") or [None])[0],
                                "score": selection.fields.get("score"),
                                "reasoning": selection.fields.get("reasoning"), "stored": False, "raw": None,
                                "sources": []}
        for obj in index.objects(selection.id, EDGE):
            if isinstance(obj, ox.Triple):
                edge.update(s=show(obj.subject), p=show(obj.predicate), o=show(obj.object),
                            o_is_literal=isinstance(obj.object, ox.Literal), stored=True)
                for part in ("s", "p", "o"):
                    if part == "o" and edge["o_is_literal"]:
                        continue
                    edge[part + "_label"] = index.label(edge[part])
                edge["sources"] = self.chains(obj)
                break
            edge["raw"] = show(obj)
        return edge
