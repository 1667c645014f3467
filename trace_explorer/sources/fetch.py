"""One session, or a few, read from a source by a few queries (never one query per entity),
then read with the same rules as a whole collection (``model.reader.SessionReader``).
"""

from __future__ import annotations

from collections.abc import Mapping

import pyoxigraph as ox

from ..model.reader import SessionReader
from ..model.roots import step_owner
from ..model.session import Session
from ..model.triple_index import TripleIndex
from ..model.vocabulary import SELECTED_CHUNK, SELECTED_EDGE, THOUGHT
from ..read.collector import collector_paused
from .source import TraceSource
from .sparql_text import PREFIXES, iri, iri_batches, term, values_clause

DERIVED = "(prov:wasDerivedFrom|prov:wasGeneratedBy)"
# A session root: typed tg:Question (or a subtype), or a tg:query on an IRI of TrustGraph's
# root shapes (TRACE-MODEL.md, "Sessions"). The IRI of a root typed tg:Question is not read:
# the first branch has it already, and Virtuoso reads the text of every tg:query subject
# otherwise (0.3 s of its CPU at 100,000 sessions, where the rest of the set takes 0.02 s; the
# IF keeps the look-up first, which a FILTER NOT EXISTS beside the FILTER does not).
ROOTS = """
  { ?root a tg:Question } UNION { ?root a tg:GraphRagQuestion } UNION { ?root a tg:DocRagQuestion }
  UNION { ?root a tg:AgentQuestion }
  UNION { ?root tg:query ?anyQuery FILTER(IF(EXISTS { ?root a tg:Question }, false,
          STRSTARTS(STR(?root), "urn:trustgraph:question:") || STRSTARTS(STR(?root), "urn:trustgraph:docrag:")
          || STRSTARTS(STR(?root), "urn:trustgraph:agent:"))) }"""


def queried_roots(source: TraceSource) -> list[str]:
    """Every session root of ``source`` (``ROOTS``) in IRI order, by one query (its session
    index, when it has one, is not asked). Raises SourceError when the source fails."""
    rows = source.select(PREFIXES + f"SELECT DISTINCT ?root WHERE {{ {ROOTS} }}")
    return sorted(r["root"].value for r in rows if isinstance(r.get("root"), ox.NamedNode))


def fetch_session(source: TraceSource, session_id: str) -> Session | None:
    """One session read from ``source`` by a few queries, or None when there is no such root.
    An IRI that is not a valid IRI (``>``, spaces, quotes...) is simply not found."""
    try:
        iri(session_id)
    except ValueError:
        return None
    return fetch_sessions(source, [session_id]).get(session_id)


def fetch_sessions(source: TraceSource, roots: list[str], *, context: bool = True,
                   family: bool = False, documents: Mapping[str, str] | None = None) -> dict[str, Session]:
    """Read several sessions at once (``{root IRI: Session}``, roots not found left out): their
    entities (and their sub-sessions'), and with ``context`` the labels and extraction
    provenance of their chosen edges, the texts of their documents and each sub-session's
    parent session (what the session page shows; a summary needs none of it). With ``family``
    the result also holds every sub-session of ``roots``, recursively, read from the same
    triples (no more queries: what a summary's totals count, ``model.totals``).
    ``documents``: without ``context``, texts to read the sessions with (document IRI -> text; a
    session index reads its words from them). Raises SourceError when the source fails;
    ValueError for a root that is not an IRI."""
    if not roots:
        return {}
    if source.lookup is not None:
        return source.lookup.read(list(roots), context, family=family)
    with collector_paused():  # a long session is a great many objects, all kept
        return _fetch(source, roots, context, family, documents)


POINTERS = frozenset({SELECTED_EDGE, SELECTED_CHUNK, THOUGHT})  # what a step points at


def session_triples(source: TraceSource, roots: list[str]) -> list[ox.Triple]:
    """Every triple of the entities of sessions ``roots`` (IRIs) and of what derives from them
    (their sub-sessions too), with the thoughts and selections their steps point at: what
    ``model.reader.SessionReader`` needs to read them. Two queries (the second a few, of 500
    IRIs each). Raises SourceError when the source fails; ValueError for a root that is not an IRI."""
    def derived(entity: str) -> str:  # ``entity`` derived from one of the roots, at any depth
        if source.anchors_as_union:
            return " UNION ".join(f"{{ {entity} {DERIVED}* {iri(r)} }}" for r in roots)
        return f"{values_clause('root', [iri(r) for r in roots])}\n  {entity} {DERIVED}* ?root ."

    # two queries, not one UNION: joined with ``?s ?p ?o`` a union is evaluated triple by triple
    # by some engines (pyoxigraph among them), which is quadratic in the store's size
    triples = source.construct(PREFIXES + f"""CONSTRUCT {{ ?s ?p ?o }} WHERE {{ {derived('?s')}
  ?s ?p ?o }}""")
    # what the steps point at: named by the steps' own triples, so fetched by IRI (a fifth of the
    # cost of walking the derivations again); a blank node cannot be named in a query, so then walk
    pointed = list(dict.fromkeys(t.object for t in triples if t.predicate.value in POINTERS))
    if any(isinstance(o, ox.BlankNode) for o in pointed):
        return triples + source.construct(PREFIXES + f"""CONSTRUCT {{ ?s ?p ?o }} WHERE {{ {derived('?x')}
  ?x tg:selectedEdge|tg:selectedChunk|tg:thought ?s . ?s ?p ?o }}""")
    for chunk in iri_batches(o.value for o in pointed if isinstance(o, ox.NamedNode)):
        triples += source.construct(PREFIXES + f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ {values_clause('s', chunk)} ?s ?p ?o }}")
    return triples


def _fetch(source: TraceSource, roots: list[str], context: bool, family: bool = False,
           documents: Mapping[str, str] | None = None) -> dict[str, Session]:
    triples = session_triples(source, roots)
    if not context:  # a summary: no graph to draw
        reader = SessionReader(TripleIndex(triples), documents, graphs=False)
        return {r: reader.read(r) for r in (reader.roots if family else roots) if r in reader.roots}
    triples += _edge_context(source, triples)
    index = TripleIndex(triples)
    documents = [o.value for t in triples if t.predicate.value == "https://trustgraph.ai/ns/document"
                 for o in [t.object] if isinstance(o, ox.NamedNode)]
    reader = SessionReader(index, source.document_texts(documents))
    found = {r: reader.read(r) for r in (reader.roots if family else roots) if r in reader.roots}
    for session in found.values():
        if session.parent is not None:
            session.parent_session = parent_session(source, session.parent)
    return found


def _edge_context(source: TraceSource, triples: list[ox.Triple]) -> list[ox.Triple]:
    """Labels of the terms of chosen edges, and the Subgraph -> Chunk -> Page -> Document chain
    of each edge (TRACE-MODEL.md, "Extraction provenance")."""
    edges = [t.object for t in triples if t.predicate.value == "https://trustgraph.ai/ns/edge"
             and isinstance(t.object, ox.Triple)]
    if not edges:
        return []
    named = sorted({x.value for e in edges for x in (e.subject, e.predicate, e.object) if isinstance(x, ox.NamedNode)})
    out = source.construct(PREFIXES + f"CONSTRUCT {{ ?x rdfs:label ?l }} WHERE {{ "
                           f"{values_clause('x', [iri(n) for n in named])} ?x rdfs:label ?l }}")
    if source.triple_terms:
        edge_terms = sorted({term(e) for e in edges})
        out += source.construct(PREFIXES + f"""CONSTRUCT {{ ?up ?p ?o }} WHERE {{ {values_clause('t', edge_terms)}
  {{ ?subgraph tg:contains ?t }} UNION {{ ?subgraph tg:reifies ?t }}
  ?subgraph prov:wasDerivedFrom* ?up . ?up ?p ?o }}""")
    return out


def parent_session(source: TraceSource, parent: str) -> str | None:
    """The session owning step ``parent``: named by the step's IRI when it extends an agent or
    DocRAG root (no query), else found by walking its derivations up to a Question."""
    owner = step_owner(parent)
    if owner is not None:
        return owner
    rows = source.select(PREFIXES + f"""SELECT ?root WHERE {{ {iri(parent)} {DERIVED}* ?root .
  {{ ?root a tg:Question }} UNION {{ ?root tg:query ?q }} }} LIMIT 1""")
    return rows[0]["root"].value if rows else None
