"""Building the index from a store: every session's row read from its summary triples
(``build_index``), in batches with progress, and the words of texts a write adds."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import pyoxigraph as ox

from ..model.reader import SessionReader
from ..model.triple_index import TripleIndex
from ..read.collector import collector_paused
from ..sources.fetch import DERIVED, ROOTS, fetch_sessions, queried_roots
from ..sources.source import DOCUMENTS_GRAPH
from ..sources.sparql_text import PREFIXES, iri_batches, values_clause
from ..sources.store_source import StoreSource
from . import previews as index_previews
from . import typed as index_typed
from .ingest_phases import FULL_TEXT, INDEX, NO_PHASES, WORDS, Phases
from .insights import mark_complete
from .schema import _CONTENT, INDEX_PREDICATES, index_row
from .session_index import SessionIndex
from .words import GraphTexts, words_of_documents

_BATCH = 200  # sessions read from a store per query batch
_WRITE_BATCH = 1000  # rows a rebuild writes between two counts on its bar (``build_index``)


# -- keeping the rows true to the traces -------------------------------------------------------
def summary_quads(quads: Iterable[ox.Quad | ox.Triple]) -> list[ox.Quad | ox.Triple]:
    """The quads (or triples) a row is read from (``INDEX_PREDICATES``: the summary and the
    searched words), in their order; the texts of the documents graph are looked up, not read
    here."""
    documents = ox.NamedNode(DOCUMENTS_GRAPH)
    return [q for q in quads if q.predicate.value in INDEX_PREDICATES
            and (q.predicate.value != _CONTENT or getattr(q, "graph_name", None) != documents)]


def texts_in_documents_graph(quads: Iterable[ox.Quad | ox.Triple]) -> dict[str, str]:
    """Document IRI -> text of the ``tg:content`` quads of the documents graph among ``quads``
    (how a store, an export or ``sync`` keeps the librarian's texts)."""
    documents = ox.NamedNode(DOCUMENTS_GRAPH)
    return {q.subject.value: q.object.value for q in quads if q.predicate.value == _CONTENT
            and getattr(q, "graph_name", None) == documents and isinstance(q.subject, ox.NamedNode)
            and isinstance(q.object, ox.Literal)}


def content_subjects(quads: Iterable[ox.Quad | ox.Triple]) -> set[str]:
    """The IRIs given a text (a ``tg:content`` quad, in any graph) among ``quads``: what mends
    a health finding that lacked their text (``analysis.health.mending``)."""
    return {q.subject.value for q in quads if q.predicate.value == _CONTENT and isinstance(q.subject, ox.NamedNode)}


def rows_from_store(store: ox.Store, roots: Sequence[str], documents: Mapping[str, str] | None = None) -> list[dict]:
    """Rows of ``roots`` read from ``store`` (each session with all its steps, wherever they
    came from), ``_BATCH`` sessions per query batch; the texts behind ``tg:document`` from
    ``documents`` (by default the store's documents graph)."""
    source = StoreSource(store, label="store")
    texts = documents if documents is not None else GraphTexts(store)
    out: list[dict] = []
    for start in range(0, len(roots), _BATCH):
        found = fetch_sessions(source, list(roots[start:start + _BATCH]), context=False, documents=texts)
        out.extend(index_row(s) for s in found.values())
    return out


def build_index(store: ox.Store, index: SessionIndex | None = None,
                documents: Mapping[str, str] | None = None, phases: Phases = NO_PHASES,
                rows_reader: RowsReader | None = None) -> SessionIndex:
    """(Re)build the rows of every session in ``store`` into ``index`` (a new in-memory index
    when None); returns the index. Reads every session once, from the summary and word triples,
    with the texts behind ``tg:document`` from ``documents`` (texts loaded beside the store: a
    ``*.documents.json``) or the store's documents graph. ``phases`` hears of the sessions read
    (``ingest_phases.INDEX``, its total once the store's summary triples are read) and of the rows
    written (``FULL_TEXT``, a ``_WRITE_BATCH`` at a time), as an ingest's do. ``rows_reader``
    (``RowsReader``: the health check's, ``analysis.health.in_pass``) reads the rows instead, from
    the store a batch of sessions at a time, each written as it is read, in the one pass its
    phase names (``INDEX_HEALTH``), as a large file's ingest does. The store's typed IRIs are read
    again too (``index_typed.rebuild``: one pass over its ``rdf:type`` quads)."""
    index = index or SessionIndex()
    if rows_reader is not None:
        _rebuild_read_by(store, index, rows_reader, phases)
    else:
        texts = GraphTexts(store, documents)
        phases.begin(INDEX)
        with collector_paused():
            reader = SessionReader(TripleIndex(stored_summary_quads(store, phases.step)), texts, graphs=False)
            phases.set_total(len(reader.roots))
            phases.step("")
            rows = []
            for root in reader.roots:
                rows.append(index_row(reader.read(root)))
                phases.advance(1)
        phases.begin(FULL_TEXT, len(rows))
        index.replace_batches(set(index.roots()) | {r["root"] for r in rows}, _counted_batches(rows, phases))
    with index._lock, index._db:
        mark_complete(index._db)
        index_previews.mark(index._db, True)
        index_typed.rebuild(index._db, store)
    phases.finish()
    return index


def _rebuild_read_by(store: ox.Store, index: SessionIndex, rows_reader: RowsReader, phases: Phases) -> None:
    """``build_index``'s rows read by ``rows_reader``: every session root of ``store``
    (``fetch.queried_roots``) read and written a batch at a time, in one transaction."""
    phases.begin(rows_reader.phase)
    phases.step("finding the sessions")
    roots = queried_roots(StoreSource(store, label="store"))
    phases.set_total(len(roots))
    phases.step("")

    def read() -> Iterator[list[dict]]:
        for rows in rows_reader.rows(roots, None, phases.step):
            phases.advance(len(rows))
            yield rows
        phases.step("making the list's indexes")

    phases.counted(FULL_TEXT, index.replace_batches(set(index.roots()) | set(roots), read()))


def stored_summary_quads(store: ox.Store, step: Callable[[str], None] = lambda what: None) -> Iterator[ox.Quad]:
    """The quads of ``store`` a row is read from (``summary_quads`` of every quad), read a
    predicate at a time from the store's predicate-first index, so that ``step`` can tell how far
    the read is (they are about 8 in 10 of a store's quads: it takes about the time of a pass
    over every quad). Their order differs from that pass's, which no row depends on: a file's
    rows are read in the file's order. ``step`` hears, before each
    predicate, how many of ``INDEX_PREDICATES`` are read ("reading the summary triples: 3 of
    29 predicates")."""
    documents = ox.NamedNode(DOCUMENTS_GRAPH)
    predicates = sorted(INDEX_PREDICATES)
    for done, predicate in enumerate(predicates):
        step(f"reading the summary triples: {done} of {len(predicates)} predicates")
        quads = store.quads_for_pattern(None, ox.NamedNode(predicate), None, None)
        if predicate == _CONTENT:  # the librarian's texts are looked up, not read here
            quads = (q for q in quads if q.graph_name != documents)
        yield from quads


def _counted_batches(rows: Sequence[dict], phases: Phases) -> Iterator[Sequence[dict]]:
    """``rows`` ``_WRITE_BATCH`` at a time for ``SessionIndex.replace_batches``, each counted on
    ``phases``' open bar once it is written (when the next is asked for), then the step that
    ends the transaction named."""
    for start in range(0, len(rows), _WRITE_BATCH):
        yield rows[start:start + _WRITE_BATCH]
        phases.advance(len(rows[start:start + _WRITE_BATCH]))
    phases.step("making the list's indexes")


def add_words_of_new_texts(index: SessionIndex, store: ox.Store, texts: Mapping[str, str],
                           documents: Sequence[str], written: set[str], phases: Phases = NO_PHASES) -> None:
    """Add to ``index`` the words ``words_of_new_texts`` finds; ``phases`` hears of the
    documents looked up (``ingest_phases.WORDS``: seconds for a content file of 20,000 texts
    into a store of 10,000 sessions) and of the write after them."""
    if not documents:
        return
    phases.begin(WORDS, len(documents))
    words = words_of_new_texts(store, texts, documents, written, progress=phases.advance)
    phases.step("writing the words")
    index.add_words(words, store)


def words_of_new_texts(store: ox.Store, texts: Mapping[str, str], documents: Sequence[str],
                       written: set[str], progress: Callable[[int], None] | None = None,
                       ) -> dict[str, dict[str, list[str]]]:
    """The words that the texts of ``documents`` (new to the store, and pointed at by steps it
    had: ``documents_named``) add to sessions already indexed and not among ``written`` (read
    with the texts just now), ``{root: {field: [text, …]}}``, found in ``store`` once the texts
    are in it (``words_of_documents``, which calls ``progress``; a step whose IRI does not name
    its session is followed to its roots)."""
    by_root, by_step = words_of_documents(store, texts, documents, progress)
    owners = _roots_of(store, sorted(by_step), pointed=True)
    for step, words in by_step.items():
        for root in owners.get(step, ()):
            for field, found in words.items():
                by_root.setdefault(root, {}).setdefault(field, []).extend(found)
    return {root: words for root, words in by_root.items() if root not in written}


class RowsReader:
    """Reads the index rows of a streamed file's sessions (``StreamedIndexUpdate.apply``) in
    place of its own summary reader, for a reader that does more with each session as it goes
    (the health check: ``analysis.health.in_pass``). ``phase``: the ``ingest_phases`` phase
    its pass is reported as."""

    phase = INDEX

    def rows(self, roots: Sequence[str], triples_of: Callable[[list[str]], list[ox.Quad]] | None,
             step: Callable[[str], None] | None = None) -> Iterator[list[dict]]:
        """The ``index_row`` dicts of ``roots`` (IRI order), ``_BATCH`` roots a batch, batch by
        batch in their order (roots the store lacks left out). ``triples_of``: where their
        triples are kept (``written_triples``; None: in the store only). ``step(what)``: what
        the reader does before its first batch (starting its workers; "" once it is back)."""
        raise NotImplementedError


def _roots_of(store: ox.Store, entities: Sequence[str], pointed: bool = False) -> dict[str, set[str]]:
    """The session roots each of ``entities`` (IRIs in the store) derives from, through
    ``prov:wasDerivedFrom``/``prov:wasGeneratedBy`` (itself when it is one), by entity: one
    query a batch. ``pointed``: an entity a step points at (a reranker's ChunkSelection, an
    EdgeSelection, a Thought: ``tg:selectedChunk``, ``tg:selectedEdge``, ``tg:thought``), which
    derives from nothing, belongs to the sessions of that step."""
    out: dict[str, set[str]] = {}
    path = f"(^tg:selectedChunk|^tg:selectedEdge|^tg:thought)?/{DERIVED}*" if pointed else f"{DERIVED}*"
    for chunk in iri_batches(entities):
        rows = store.query(PREFIXES + f"""SELECT DISTINCT ?e ?root WHERE {{ {values_clause('e', chunk)}
  ?e {path} ?root . {ROOTS} }}""", use_default_graph_as_union=True)
        for row in rows:
            if isinstance(row["root"], ox.NamedNode) and isinstance(row["e"], ox.NamedNode):
                out.setdefault(row["e"].value, set()).add(row["root"].value)
    return out
