"""Mirror a TrustGraph deployment's sessions and their texts into a local store, incrementally.

Every session root is listed (one round, ``TrustGraphSource.roots``); those the store's session
index already has are skipped, so a second sync fetches only new sessions. The new ones are
fetched ``BATCH`` at a time (a few rounds of concurrent requests per batch, every text of the
batch at once from the librarian), then written one session at a time through
``local_store.ingest_loaded``: each session's quads and texts in one atomic write, then its
index row (the store's memory tables go to disk once a batch). A sync that fails (the gateway goes away, the process is stopped) has written the
sessions before the one it was on, whole, and nothing of that one: the next sync fetches it
again. (Stopped in the instant between a session's write and its index row, the store holds
that session's quads without its row; the next sync writes them again, which adds nothing, and
the row.)

A session's part of the store is what the reader counts as its (``SessionReader.members``: a
sub-session is a session of its own), with the labels and extraction provenance of its chosen
edges and the texts its entities point at.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

import pyoxigraph as ox

from ..model.reader import SessionReader
from ..model.triple_index import TripleIndex
from ..model.vocabulary import CONTAINS, EDGE, RDFS_LABEL, WAS_DERIVED_FROM
from ..read.collector import collector_paused
from ..read.loaded import LoadedFile
from .local_store import LocalStore
from .ingest import ingest_loaded, publish_snapshot
from ..sources.trustgraph.source import TrustGraphSource, documents_in, sparql_or_patterns
from ..sources.trustgraph.walk import Walk, edge_context

BATCH = 25  # sessions fetched together
FORMAT = "TrustGraph gateway"


@dataclass
class SyncReport:
    """What a sync did: ``listed`` sessions in the deployment, ``known`` already in the store,
    ``added`` sessions written, ``quads`` and ``texts`` written, ``missing_texts`` (document ->
    why the librarian could not give it), ``requests`` sent to the gateway."""

    listed: int = 0
    known: int = 0
    added: int = 0
    quads: int = 0
    texts: int = 0
    missing_texts: dict[str, str] = field(default_factory=dict)
    requests: int = 0


def sync(source: TrustGraphSource, local: LocalStore, progress: Callable[[int, int], None] | None = None,
         report: SyncReport | None = None, batch_size: int = BATCH) -> SyncReport:
    """Add the sessions of ``source`` that ``local`` lacks (see the module docstring).
    ``progress(done, total)`` is called after each session written. ``report`` (when given) is
    filled as the sync goes, so a caller still has it when the sync fails. ``batch_size``:
    sessions fetched together. Raises SourceError
    when the gateway fails (the sessions written before stay), OSError when the store cannot
    be written."""
    report = report or SyncReport()
    start = source.gateway.requests
    roots = source.roots()
    report.listed = len(roots)
    known = local.index.has(roots)
    report.known = len(known)
    new = [info.root for info in sorted(roots.values(), key=lambda i: i.order_key()) if info.root not in known]
    if progress:
        progress(0, len(new))
    for first in range(0, len(new), batch_size):
        batch = new[first:first + batch_size]
        for loaded in _fetch(source, batch):
            done = ingest_loaded(local, loaded, publish=False)
            report.added += 1
            report.quads += done.quads
            report.texts += done.documents
            if progress:
                progress(report.added, len(new))
        publish_snapshot(local)
        report.missing_texts.update(source.missing_texts)
        report.requests = source.gateway.requests - start
    report.requests = source.gateway.requests - start
    return report


def _fetch(source: TrustGraphSource, roots: list[str]) -> list[LoadedFile]:
    """The sessions ``roots``, fetched together, as one LoadedFile each (quads and texts)."""
    with collector_paused():
        quads = sparql_or_patterns(source, lambda sparql: Walk(source.gateway, sparql).closure(roots))
        quads += edge_context(source.gateway, quads)
        index = TripleIndex(quads)
        reader = SessionReader(index)
        by_subject: dict[str, list[ox.Quad]] = {}
        for quad in quads:
            if isinstance(quad.subject, ox.NamedNode):
                by_subject.setdefault(quad.subject.value, []).append(quad)
        sessions = {}
        for root in roots:
            if root in reader.roots:
                subjects = _session_subjects(reader, index, root)
                sessions[root] = list(dict.fromkeys(q for s in subjects for q in by_subject.get(s, ())))
        documents = {root: documents_in(own) for root, own in sessions.items()}
        texts = source.fetch_texts(d for docs in documents.values() for d in docs)  # all at once
        return [_loaded(root, own, {d: texts[d] for d in documents[root] if d in texts})
                for root, own in sessions.items()]


def _session_subjects(reader: SessionReader, index: TripleIndex, root: str) -> list[str]:
    """The session's entities, the terms of its chosen edges (for their labels) and each edge's
    extraction chain (the Subgraphs containing it and what they derive from)."""
    subjects = list(reader.members(root))
    edges = [o for m in subjects for o in index.objects(m, EDGE) if isinstance(o, ox.Triple)]
    for edge in edges:
        subjects += [t.value for t in (edge.subject, edge.predicate, edge.object)
                     if isinstance(t, ox.NamedNode) and index.objects(t.value, RDFS_LABEL)]
    containers = [s for s, props in index.properties.items() if any(o in edges for o in props.get(CONTAINS, ()))]
    stack, seen = containers, set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        subjects.append(node)
        stack += index.iris(node, WAS_DERIVED_FROM)
    return list(dict.fromkeys(subjects))


def _loaded(root: str, quads: list[ox.Quad], texts: dict[str, str]) -> LoadedFile:
    """One session as a LoadedFile named by its root; its digest covers its quads and texts."""
    digest = hashlib.sha256()
    for line in sorted(str(q) for q in quads):
        digest.update(line.encode("utf-8") + b"\n")
    for document in sorted(texts):
        digest.update(f"{document}\t{texts[document]}\n".encode())
    size = sum(len(str(q)) for q in quads) + sum(len(t) for t in texts.values())
    return LoadedFile(root, FORMAT, size, quads=quads, documents=dict(texts), digest=digest.hexdigest())
