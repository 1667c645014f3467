"""The DAG's "evidence" branch: the nodes and edges a session's provenance graph gains when its
evidence is drawn (edge -> chunk -> page -> document).

Each chosen edge held by an extraction hangs its chunk from the EdgeSelection
(``extractedFrom``: the fact's Subgraph, folded into the arrow, derives from that chunk), the
chunk its page and the page its document (``wasDerivedFrom``, as recorded). A DocRAG
ChunkSelection (or, without reranker, the Exploration) hangs its chunk the same way. A
sub-session (an agent's GraphRAG or DocRAG run) is one node of its parent's graph: its
documents hang from it (``evidenceFrom``). A chunk, page or document met twice is one node.

``anchors`` says which branch nodes each session-graph node opens, so a drawing can keep the
branch folded and expand it from the node it hangs from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...views.dag.folding import DagLayout, DagNode
from ...views.dag.layout import with_branch
from ...views.step_labels import clip
from .evidence import Lineage, SessionEvidence

TOOLTIP_TEXT_CHARS = 300


@dataclass(frozen=True)
class BranchNode:
    """One node of the branch: ``id`` (the entity's IRI), ``kind`` ("Chunk", "Page" or
    "Document"), ``label`` (one short line: "Chunk 0", "Page 2", a title) and ``tooltip``
    (plain text: the IRI, title, MIME type, extraction, the chunk's first words)."""

    id: str
    kind: str
    label: str
    tooltip: str


@dataclass
class EvidenceBranch:
    """``nodes`` in order of first use, ``edges`` as ``(source, target, relation)`` in PROV's
    direction, ``anchors``: session-graph node -> the branch nodes reachable from it."""

    nodes: list[BranchNode] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    anchors: dict[str, list[str]] = field(default_factory=dict)


def evidence_branch(evidence: SessionEvidence) -> EvidenceBranch:
    """The branch for ``evidence``'s session: its own edges' and chunks' lineage, and each
    sub-session's documents (module docstring). Empty when nothing resolves."""
    branch = EvidenceBranch()
    known: dict[str, BranchNode] = {}

    def add(node: BranchNode | None, source: str, relation: str, anchor: str) -> str | None:
        if node is None:
            return None
        if node.id not in known:
            known[node.id] = node
            branch.nodes.append(node)
        if (source, node.id, relation) not in branch.edges:
            branch.edges.append((source, node.id, relation))
        reach = branch.anchors.setdefault(anchor, [])
        if node.id not in reach:
            reach.append(node.id)
        return node.id

    def hang(anchor: str, relation: str, lineage: Lineage) -> None:
        at = anchor
        for node in _chain(lineage):
            at = add(node, at, relation, anchor) or at
            relation = "wasDerivedFrom"

    for edge in evidence.edges:
        for lineage in edge.sources:
            hang(edge.selection, "extractedFrom", lineage)
    for chunk in evidence.chunks:
        hang(chunk.selection or chunk.step or evidence.session.id, "document" if chunk.selection else "selectedChunk",
             chunk.lineage)
    for _, child in evidence.children:
        for lineage in child.document_lineages().values():
            add(_document(lineage), child.session.id, "evidenceFrom", child.session.id)
    return branch


def _chain(lineage: Lineage) -> list[BranchNode]:
    nodes = []
    if lineage.chunk:
        label = lineage.chunk_label or (f"Chunk {lineage.chunk_index}" if lineage.chunk_index is not None else "Chunk")
        tip = [f"Chunk — {label}", lineage.chunk]
        if lineage.holder:
            tip.append(f"fact held by {lineage.holder} (tg:{lineage.held_by})")
        made = lineage.extraction
        if made:
            tip.append("extracted by " + made.summary())
        if lineage.chunk_text:
            tip.append("text: " + clip(lineage.chunk_text, TOOLTIP_TEXT_CHARS))
        nodes.append(BranchNode(lineage.chunk, "Chunk", label, "\n".join(tip)))
    if lineage.page:
        label = f"Page {lineage.page_number}" if lineage.page_number is not None else "Page"
        nodes.append(BranchNode(lineage.page, "Page", label, f"{label}\n{lineage.page}"))
    if lineage.document:
        nodes.append(_document(lineage))
    return nodes


def _document(lineage: Lineage) -> BranchNode:
    title = lineage.title or "Document"
    tip = [f"Document — {title}", lineage.document or ""]
    if lineage.mime_type:
        tip.append(f"MIME type: {lineage.mime_type}")
    return BranchNode(lineage.document or "", "Document", title, "\n".join(tip))


def with_evidence(layout: DagLayout, branch: EvidenceBranch) -> DagLayout:
    """A new layout: ``layout`` with ``branch`` hung on it (``views.dag.layout.with_branch``),
    each branch node a DagNode of role "evidence"; an edge from a grouped or folded selection
    starts at the drawn node that holds it, and one from a node not drawn is left out."""
    drawn = {m: node.id for node in layout.nodes for m in node.members}
    nodes = [DagNode(n.id, [n.id], n.kind, "Entity", [n.label], n.tooltip, role="evidence") for n in branch.nodes]
    drawn.update((n.id, n.id) for n in nodes)
    edges = list(dict.fromkeys((drawn[s], t, r) for s, t, r in branch.edges if s in drawn))
    return with_branch(layout, nodes, edges)
