"""A running TrustGraph deployment as a source: sessions from its API gateway, their words from
its librarian (TRACE-MODEL.md, "Where the words live").

TrustGraph's SPARQL service is not a full engine (basic graph patterns only, no property
paths), so this source lists and reads its sessions itself (``lookup``; the catalog and
``fetch`` hand over to it): the roots in one round (``trustgraph.catalog``), a session's
triples in a few rounds (``trustgraph.walk``), then the reader (``model.reader``) reads them
with the same rules as a whole file. The SPARQL service is used when the deployment runs it
(and it sees the sessions); otherwise triple patterns.

Texts come from the librarian: all at once, concurrently, when ``eager_texts`` (the CLI's
``show``/``export``, ``sync``), or when asked (``fetch_texts``: the app, a step at a time).
Either way each text is kept (``documents``) for as long as the source lives. A text the
librarian has lost is a warning on the step that points at it; the rest of the session shows.
Everything fetched is also kept in ``store`` (a pyoxigraph Store), so a session can be exported
as data like one read from files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

import pyoxigraph as ox

from ...model.reader import SessionReader
from ...model.roots import named_by, step_owner
from ...model.session import Session
from ...model.summary import session_summary
from ...model.texts import note_missing_texts
from ...model.triple_index import TripleIndex
from ...model.words import session_words
from ...model.vocabulary import DOCUMENT, QUESTION, RDF_TYPE, RETRIEVAL_GRAPH, SELECTED_CHUNK, WAS_DERIVED_FROM
from ...read.collector import collector_paused
from ..filter import SessionFilter
from ..search import GATEWAY_SEARCH, text_match
from ..store import StoreSource
from ..source import SourceError, Term, TraceSource
from .catalog import RootInfo, candidates, fetch_roots, row_matches
from .gateway import Gateway, GatewayError, MissingDocument, ServiceRefusal
from .lineage import GatewayLineage
from .walk import Walk, edge_context

READ_BATCH = 100  # sessions read together when a filter needs every candidate read
T = TypeVar("T")
NAMED_ROOTS = 4  # with triple patterns, sessions read at once up to which their steps are named


class TrustGraphSource(TraceSource):
    """A TrustGraph deployment reached through ``gateway``. ``eager_texts``: read sessions with
    all their texts (else texts wait for ``fetch_texts``); ``sparql``: use the SPARQL service
    (None: when the deployment answers with it)."""

    def __init__(self, gateway: Gateway, *, eager_texts: bool = True, sparql: bool | None = None):
        self.gateway = gateway
        self.eager_texts = eager_texts
        self._sparql = sparql
        self.sparql_failure: str | None = None  # why the SPARQL service was given up, if it was
        self.store = ox.Store()
        self.documents: dict[str, str] = {}
        self.missing_texts: dict[str, str] = {}
        self._roots: dict[str, RootInfo] | None = None
        self._rows: dict[str, dict] = {}
        self.words: dict[str, dict[str, str]] = {}  # root -> the searched words of a session read
        self.lookup = self
        self.text_search = GATEWAY_SEARCH
        self._lineage = GatewayLineage(gateway, lambda: self.sparql)

    @property
    def label(self) -> str:  # type: ignore[override]
        return self.gateway.label

    def select(self, query: str) -> list[dict[str, Term]]:
        raise SourceError(f"{self.label}: not a SPARQL endpoint (its sessions are read through the gateway)")

    def construct(self, query: str) -> list[ox.Triple]:
        raise SourceError(f"{self.label}: not a SPARQL endpoint (its sessions are read through the gateway)")

    def lineage(self) -> GatewayLineage:
        """The lineage lookups, asked of the gateway as rounds of triple patterns (and of its
        SPARQL service, when the flow runs it): ``trustgraph.lineage``."""
        return self._lineage

    # -- which service ----------------------------------------------------------------------
    @property
    def sparql(self) -> bool:
        """Whether sessions are read with the SPARQL service: it must answer, and see the
        Questions the triples service sees (one probe of each, at once)."""
        if self._sparql is None:
            probes = ["sparql", "triples"]
            answers = self.gateway.map(self._probe, probes)
            self._sparql = answers[0] is not None and (answers[0] or not answers[1])
        return self._sparql

    def _probe(self, service: str) -> bool | None:
        if service == "triples":
            return bool(self.gateway.triples(p=ox.NamedNode(RDF_TYPE), o=ox.NamedNode(QUESTION), g=RETRIEVAL_GRAPH,
                                             limit=1)[0])
        try:
            return bool(self.gateway.sparql_select(f"SELECT ?q WHERE {{ ?q <{RDF_TYPE}> <{QUESTION}> }} LIMIT 1"))
        except ServiceRefusal:
            return None  # the flow has the service, but it cannot answer this
        except GatewayError as error:
            if error.status == 404 or error.sparql_dropped:
                return None  # no SPARQL service in this flow, or one that drops its connections
            raise

    # -- the list ---------------------------------------------------------------------------
    def roots(self) -> dict[str, RootInfo]:
        """Every session root, fetched once per source (``refresh`` forgets them). Raises
        SourceError when there are none (an unknown collection is empty) or the gateway fails."""
        if self._roots is None:
            roots = sparql_or_patterns(self, lambda sparql: fetch_roots(self.gateway, sparql))
            if not roots:  # TrustGraph answers an unknown collection with nothing at all
                raise SourceError(f"{self.label}: no sessions in collection {self.gateway.collection!r} "
                                  f"(is the collection name right? an unknown collection is simply empty)")
            self._roots = roots
        return self._roots

    def refresh(self) -> None:
        """Forget the roots and rows read so far (a deployment keeps answering questions)."""
        self._roots, self._rows = None, {}

    def page(self, filters: SessionFilter, limit: int, offset: int) -> tuple[list[dict], int]:
        """One page of the list: ``(rows, total)``; ``limit`` 0: all."""
        found, must_read = candidates(self.roots(), filters, self.words)
        if must_read:
            missing = [i.root for i in found if i.root not in self._rows]
            for start in range(0, len(missing), READ_BATCH):
                self._summarise(missing[start:start + READ_BATCH])
            rows = [self._rows[i.root] for i in found if i.root in self._rows and row_matches(self._rows[i.root], filters)]
            window = rows[offset:offset + limit] if limit else rows[offset:]
            return self._matched(window, filters), len(rows)
        window = found[offset:offset + limit] if limit else found[offset:]
        self._summarise([i.root for i in window if i.root not in self._rows])
        rows = [self._rows[i.root] for i in window if i.root in self._rows]
        return self._matched(rows, filters), len(found)

    def _matched(self, rows: list[dict], filters: SessionFilter) -> list[dict]:
        """``rows`` each with ``match`` (``search.text_match``) under a search."""
        if not filters.needle:
            return rows
        roots = self.roots()
        out = []
        for row in rows:
            info = roots.get(row["id"])
            words = self.words.get(row["id"]) or (info.words() if info else {})
            found = text_match(words, filters.terms)
            out.append(dict(row, match=found) if found else row)
        return out

    def _summarise(self, roots: list[str]) -> None:
        found = self.read(roots, context=False, family=True) if roots else {}
        self._rows.update((r, session_summary(found[r], found)) for r in roots if r in found)

    def count(self, filters: SessionFilter) -> int:
        """How many sessions match ``filters``."""
        return self.page(filters, 1, 0)[1]

    def steps(self) -> int:
        """Steps of every session: unknown without reading them all (-1)."""
        return -1

    def summary(self, root: str) -> dict | None:
        """The row of session ``root`` when it has been read, else None."""
        return self._rows.get(root)

    def find(self, key: str) -> list[str]:
        """The roots ``key`` may name (``model.roots.named_by``), at most six."""
        return named_by(key, self.roots())[:6]

    # -- sessions ---------------------------------------------------------------------------
    def read(self, roots: list[str], context: bool = True, family: bool = False) -> dict[str, Session]:
        """The sessions ``roots`` (those found), read by the reader from their triples; with
        ``context`` also the labels and provenance of their edges, their parent sessions and
        (when ``eager_texts``) every text; with ``family`` also every sub-session of ``roots``
        the walk reached. Raises SourceError when the gateway fails."""
        with collector_paused():
            # naming steps by IRI shape saves rounds; with triple patterns it costs a request a
            # name, worth it for a few sessions, not for a page of them
            quads = sparql_or_patterns(self, lambda sparql: Walk(self.gateway, sparql).closure(
                roots, named=sparql or len(roots) <= NAMED_ROOTS))
            if context:
                quads += edge_context(self.gateway, quads)
            self.store.extend(quads)
            if context and self.eager_texts:
                self.fetch_texts(documents_in(quads))
            reader = SessionReader(TripleIndex(quads), self.documents)
            found = {r: reader.read(r) for r in (reader.roots if family else roots) if r in reader.roots}
        for root, session in found.items():
            if context or root not in self.words:
                self.words[root] = session_words(session)
        for session in found.values():
            note_missing_texts(session, self.missing_texts)
            if context and session.parent is not None:
                session.parent_session = self._parent_session(session.parent)
        return found

    def _parent_session(self, step: str) -> str | None:
        """The session owning ``step``: named by its IRI, else found by walking up its
        derivations (a few requests)."""
        owner = step_owner(step)
        node, seen = step, set()
        while owner is None and node not in seen and len(seen) < 64:
            seen.add(node)
            if self._roots is not None and node in self._roots:
                return node
            props = self.gateway.triples(s=ox.NamedNode(node), g=RETRIEVAL_GRAPH)[0]
            if any(q.predicate.value == RDF_TYPE and q.object.value.endswith("Question") for q in props):
                return node
            up = [q.object.value for q in props if q.predicate.value == WAS_DERIVED_FROM and isinstance(q.object, ox.NamedNode)]
            if not up:
                return None
            node = up[0]
        return owner

    def fetch_texts(self, documents: Iterable[str]) -> dict[str, str]:
        """Fetch from the librarian, at once, the texts of ``documents`` not fetched before;
        those it has lost go to ``missing_texts``. Returns every text asked for that is known.
        Raises SourceError when the gateway fails otherwise."""
        wanted = list(dict.fromkeys(documents))
        todo = [d for d in wanted if d not in self.documents and d not in self.missing_texts]
        for document, text in zip(todo, self.gateway.map(self._text, todo)):
            if isinstance(text, MissingDocument):
                self.missing_texts[document] = str(text)
            else:
                self.documents[document] = text
        return {d: self.documents[d] for d in wanted if d in self.documents}

    def _text(self, document: str) -> str | MissingDocument:
        try:
            return self.gateway.document_text(document)
        except MissingDocument as missing:
            return missing

    def document_texts(self, iris: Iterable[str]) -> dict[str, str]:
        """Texts behind ``tg:document`` IRIs, from the librarian (kept once fetched)."""
        return self.fetch_texts(iris)

    def fetched_copy(self) -> StoreSource:
        """What was fetched so far (the sessions' quads and the texts read) as a source that
        answers SPARQL, for work that asks it of a session already read (its health check).
        A text the librarian was not asked for yet is not in it."""
        return StoreSource(self.store, label=self.label, documents=self.documents)


def note_written(source: TrustGraphSource, roots: Iterable[RootInfo] = (), changed: Iterable[str] = ()) -> None:
    """Take into ``source`` what was written since its roots were read, as a poll found it
    (``live``), without reading every root again: ``roots`` join its list (once it has been
    read), and the rows and words of the ``changed`` sessions are read again when next listed."""
    if source._roots is not None:
        source._roots.update((info.root, info) for info in roots)
    for root in changed:
        source._rows.pop(root, None)
        source.words.pop(root, None)


def sparql_or_patterns(source: TrustGraphSource, work: Callable[[bool], T]) -> T:
    """``work(sparql)`` with the SPARQL service when ``source`` uses it; when that service drops
    the request (``GatewayError.sparql_dropped``), ``work(False)`` with triple patterns instead,
    for this call and every later one (``source.sparql_failure`` keeps why). Raises what
    ``work`` raises otherwise."""
    if not source.sparql:
        return work(False)
    try:
        return work(True)
    except GatewayError as error:
        if not error.sparql_dropped:
            raise
        source._sparql, source.sparql_failure = False, str(error)
        return work(False)


def copy_of_all(source: TrustGraphSource) -> StoreSource:
    """Every session of ``source``'s deployment (sub-sessions, edge context and texts included)
    read ``READ_BATCH`` at a time into its ``store``, returned as ``fetched_copy()``: for work
    that asks SPARQL of a whole collection (``lint``), which the gateway's SPARQL service (basic
    graph patterns only) cannot answer. Raises SourceError when the gateway fails."""
    roots = sorted(source.roots())
    for start in range(0, len(roots), READ_BATCH):
        source.read(roots[start:start + READ_BATCH], family=True)
    # the texts of the chunks a DocRAG Exploration chose (they back its answer): the librarian
    # holds them under the chunk's IRI
    chunks = {q.object.value for q in source.store.quads_for_pattern(None, ox.NamedNode(SELECTED_CHUNK), None)
              if isinstance(q.object, ox.NamedNode)}
    source.fetch_texts(chunks - set(source.documents))
    return source.fetched_copy()


def documents_in(quads: Iterable[ox.Quad]) -> list[str]:
    """The ``tg:document`` IRIs among ``quads``' objects, each once."""
    return list(dict.fromkeys(q.object.value for q in quads
                              if q.predicate.value == DOCUMENT and isinstance(q.object, ox.NamedNode)))
