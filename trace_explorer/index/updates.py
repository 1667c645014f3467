"""Keeping the index current as a write adds triples: the sessions they touch (new roots,
steps under known roots, texts) are read again and their rows replaced, whether the write
came whole (``IndexUpdate``) or streamed in batches (``StreamedIndexUpdate``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import pyoxigraph as ox

from ..model.reader import SessionReader
from ..model.roots import ROOT_PREFIXES, SUBTYPES, root_iris, step_owner
from ..model.triple_index import TripleIndex
from ..model.vocabulary import QUERY, QUESTION, RDF_TYPE, WAS_DERIVED_FROM
from ..read.collector import collector_paused
from ..sources.triples_text import TriplesText, is_iri, subjects_of
from ..sources.triples_text import iri as triple_iri
from . import typed as index_typed
from .build import (
    _BATCH,
    RowsReader,
    _roots_of,
    add_words_of_new_texts,
    content_subjects,
    rows_from_store,
    summary_quads,
    texts_in_documents_graph,
)
from .ingest_phases import FULL_TEXT, INDEX, NO_PHASES, Phases
from .schema import _CONTENT, index_row
from .session_index import SessionIndex
from .typed import TypedWrite
from .words import GraphTexts, documents_named


class IndexUpdate:
    """What adding one file's quads to a store does to the index, in three steps:

    1. ``IndexUpdate(store, index, quads)``, before the quads go in: keeps the triples a summary
       needs and notes which of the file's sessions the store already has (indexed, or with
       steps derived from their Question);
    2. ``read()``, before, during or after the write (it does not touch the store): reads the
       sessions whose Question is in the file and new to the store, from the file, and finds
       the sessions outside the file that its steps extend (by IRI, ``model.roots.step_owner``,
       or by a derivation to an entity outside the file: a later step, a sub-session's parent);
    3. ``apply(files)``, after the write: reads those and the known ones again from the store
       and writes every row, with the file's typed IRIs (``index_typed``; ``fresh``: the store
       was empty before the file).
    """

    def __init__(self, store: ox.Store, index: SessionIndex, quads: Sequence[ox.Quad],
                 documents: Mapping[str, str] | None = None, fresh: bool = False):
        self.store, self.index = store, index
        self.texts = GraphTexts(store, documents)  # the file's texts, then the store's
        with collector_paused():  # a file's quads are millions of live objects: nothing to collect
            self.quads = summary_quads(quads)
            in_file = root_iris(self.quads)
            keep = fresh or index.typed_complete()
            self.typed = TypedWrite(fresh, set(index_typed.typed_iris_of(self.quads))) if keep else index_typed.UNKNOWN
        self.known = index.has(in_file) | _derived_from(store, in_file)
        # texts new to the store whose steps are already there: their sessions' words (and
        # answers' previews) change; a file's documents graph may bring them as well as a content file
        # the texts among the file's quads, found in one pass (none looked for in a store empty
        # before: no step of it lacks them, and it held no finding to mend)
        given = [] if fresh else [q for q in quads if q.predicate.value == _CONTENT]
        self.documents_of_known = documents_named(store, {**texts_in_documents_graph(given), **(documents or {})})
        # the IRIs the file gives a text to, for the health check's mending
        self.texts_given = content_subjects(given) | set(documents or ())
        self.rows: list[dict] = []
        self.outside: set[str] = set(self.known)
        self.from_file: list[str] = []
        self.dangling: list[str] = []

    def read(self, phases: Phases = NO_PHASES) -> None:
        """Read the file's new sessions and what else it extends (step 2); ``phases`` hears of
        the sessions read (``ingest_phases.INDEX``)."""
        with collector_paused():
            self._read(phases)

    def _read(self, phases: Phases) -> None:
        triples = TripleIndex(self.quads)
        self.quads = []
        reader = SessionReader(triples, self.texts, graphs=False)
        self.from_file = [r for r in reader.roots if r not in self.known]
        phases.begin(INDEX, len(self.from_file))
        self.rows = []
        for start in range(0, len(self.from_file), _BATCH):
            self.rows += [index_row(reader.read(r)) for r in self.from_file[start:start + _BATCH]]
            phases.advance(len(self.from_file[start:start + _BATCH]))
        members = {m for r in reader.roots for m in reader.members(r)}
        dangling: set[str] = set()
        for subject in triples.properties:
            owner = step_owner(subject) if subject not in members else None
            if owner is not None:
                self.outside.add(owner)
            for parent in triples.iris(subject, WAS_DERIVED_FROM):
                if parent not in triples.properties:
                    owner = step_owner(parent)
                    if owner is not None:
                        self.outside.add(owner)
                    else:
                        dangling.add(parent)
        self.dangling = sorted(dangling)

    def apply(self, files: Iterable[tuple[str, str]] = (), phases: Phases = NO_PHASES) -> int:
        """Write the rows, once the file's quads are in the store (step 3); returns how many.
        ``phases`` hears of the rows written (``ingest_phases.FULL_TEXT``)."""
        outside = (self.outside | _roots_above(self.store, self.dangling)) - set(self.from_file)
        rows = self.rows + rows_from_store(self.store, sorted(outside), self.texts)
        phases.begin(FULL_TEXT, len(rows))
        self.index.replace(sorted(outside), rows, files, self.typed)
        phases.advance(len(rows))
        add_words_of_new_texts(self.index, self.store, self.texts, self.documents_of_known,
                               outside | set(self.from_file), phases)
        return len(rows)


_ROOT_TYPES = frozenset({QUESTION}) | SUBTYPES.keys()  # a subject typed one of these is a root (``model.roots.is_root``)
_ROOT_SHAPES = tuple(prefix for prefix, _ in ROOT_PREFIXES)  # ... as is one of these with a ``tg:query``
_ROOT_TYPES_WRITTEN = frozenset(f"<{t}>".encode() for t in _ROOT_TYPES)  # as ``TriplesText`` writes them
_ROOT_SHAPES_WRITTEN = tuple(f"<{p}".encode() for p in _ROOT_SHAPES)
_RDF_TYPE_BYTES, _QUERY_BYTES, _DERIVED_BYTES = RDF_TYPE.encode(), QUERY.encode(), WAS_DERIVED_FROM.encode()
_CONTENT_WRITTEN = f" <{_CONTENT}> ".encode()


class StreamedIndexUpdate:
    """What adding a file's quads to a store a batch at a time (``read.rdf_stream``) does to the
    index, holding IRIs (a few a session), never the quads:

    1. ``note(quads)`` for each batch, as it goes in: the sessions it touches (the roots among
       its subjects, as ``model.roots.is_root`` tells them; the roots its steps' IRIs name,
       ``model.roots.step_owner``) and the entities its steps derive from that the file has not
       described so far (another session's step, a sub-session's parent);
    2. ``apply(files)``, once every batch is in: adds the sessions those entities belong to in
       the store, reads every touched session from the store (all its steps, wherever they came
       from), ``_BATCH`` at a time, and writes their rows batch by batch in one transaction,
       with the file's digest (``SessionIndex.replace_batches``); then adds the words (and
       answers' previews) of the texts the file brought for sessions it did not re-read, as
       ``IndexUpdate`` does (``words_of_new_texts``).

    The same sessions get the same rows as ``IndexUpdate`` gives them, read from the store
    rather than from the file; or, when ``triples_of`` is given (``written_triples``: what was
    written into a store empty before, kept in memory), from what it gives
    (``triples_of(roots)``: the sessions' triples as ``fetch.session_triples`` reads them, or as
    quads of the default graph).

    ``stage_typed``: each batch's typed IRIs are kept in a temporary table of the index
    (``SessionIndex.stage_typed``) and added to the store's in the rows' transaction
    (``typed_write``), so that the index keeps every typed IRI of the store without holding a
    file's in memory."""

    def __init__(self, store: ox.Store, index: SessionIndex,
                 triples_of: Callable[[list[str]], list[ox.Triple | ox.Quad]] | None = None,
                 stage_typed: bool = False, fresh: bool = False):
        self.store, self.index, self.triples_of = store, index, triples_of
        # texts (in the documents graph) for steps the store had: their sessions' words and
        # answers' previews change (``apply``); only IRIs are held. None in a store empty before
        self.fresh = fresh
        self.documents_of_known: list[str] = []
        self.touched: set[str] = set()
        self.undescribed: set[str] = set()  # derivation targets no batch so far described
        self.texts_given: set[str] = set()  # as ``IndexUpdate.texts_given``
        self.stage_typed = stage_typed
        index.clear_staged_typed()  # nothing of a write that failed

    def note(self, quads: Sequence[ox.Quad], text: TriplesText | None = None) -> None:
        """Note what one batch touches (step 1). ``text``: ``quads`` as ``TriplesText``, when
        the caller has it already."""
        text = text if text is not None else TriplesText(quads)
        if not self.fresh and _CONTENT_WRITTEN in text.text:
            self.documents_of_known += documents_named(self.store, texts_in_documents_graph(quads))
            self.texts_given |= subjects_of(text.text, _CONTENT)
        subjects = text.subjects()
        touched = self.touched
        typed: set[bytes] = set()
        stage_typed = self.stage_typed
        targets: set[str] = set()
        for subject, predicate, obj in text.noted():
            if subject[:1] != b"<":
                continue
            if predicate == _RDF_TYPE_BYTES:
                if stage_typed and b"/" in subject:
                    typed.add(subject)
                if obj in _ROOT_TYPES_WRITTEN:
                    touched.add(triple_iri(subject))
            elif predicate == _QUERY_BYTES:
                if subject.startswith(_ROOT_SHAPES_WRITTEN):
                    touched.add(triple_iri(subject))
            elif predicate == _DERIVED_BYTES and is_iri(obj):
                targets.add(triple_iri(obj))
        for iri in subjects:
            owner = step_owner(iri)
            if owner is not None:
                touched.add(owner)
        self.undescribed -= subjects
        for target in targets - subjects:
            owner = step_owner(target)
            if owner is not None:
                touched.add(owner)
            else:
                self.undescribed.add(target)
        if typed:
            self.index.stage_typed({triple_iri(subject) for subject in typed})

    def typed_write(self, fresh: bool) -> TypedWrite:
        """What the file did to the store's typed IRIs (``fresh``: the store was empty before
        it): those staged, or, when they were not, unknown (the index's are no longer whole)."""
        return TypedWrite(fresh) if self.stage_typed else index_typed.UNKNOWN

    def apply(self, files: Iterable[tuple[str, str]] = (), phases: Phases = NO_PHASES,
              rows_reader: RowsReader | None = None, typed: TypedWrite | None = None) -> int:
        """Read and write the rows, once every batch is in the store (step 2); returns how
        many. ``phases`` hears of the sessions read, their rows written as they are read
        (``ingest_phases.INDEX``), then of the rows in all (``FULL_TEXT``, at once).
        ``rows_reader``: reads the rows instead (``RowsReader``). ``typed``: what the file did
        to the store's typed IRIs (``index_typed.TypedWrite``; by default ``typed_write(False)``)."""
        roots = sorted(self.touched | _roots_above(self.store, sorted(self.undescribed)))
        texts = GraphTexts(self.store)
        phases.begin(INDEX if rows_reader is None else rows_reader.phase, len(roots))

        def read() -> Iterable[list[dict]]:
            for rows in rows_reader.rows(roots, self.triples_of, phases.step):
                phases.advance(len(rows))
                yield rows
            phases.step("writing the rows")  # what follows the last: the typed IRIs, the commit

        def batches() -> Iterable[list[dict]]:
            for start in range(0, len(roots), _BATCH):
                chunk = roots[start:start + _BATCH]
                with collector_paused():
                    if self.triples_of is None:
                        rows = rows_from_store(self.store, chunk, texts)
                    else:
                        reader = SessionReader(TripleIndex(summary_quads(self.triples_of(chunk))), texts,
                                               graphs=False)
                        rows = [index_row(reader.read(r)) for r in chunk if r in reader.roots]
                phases.advance(len(chunk))
                yield rows
            phases.step("writing the rows")

        written = self.index.replace_batches(roots, batches() if rows_reader is None else read(), files,
                                             typed if typed is not None else self.typed_write(False))
        phases.counted(FULL_TEXT, written)
        add_words_of_new_texts(self.index, self.store, texts, self.documents_of_known, set(roots), phases)  # written as they were read: the index pass took their time
        return written


def _derived_from(store: ox.Store, roots: Sequence[str]) -> set[str]:
    """Those of ``roots`` that ``store`` already has steps derived from."""
    derived = ox.NamedNode(WAS_DERIVED_FROM)
    return {r for r in roots if any(True for _ in store.quads_for_pattern(None, derived, ox.NamedNode(r), None))}


def _roots_above(store: ox.Store, entities: Sequence[str]) -> set[str]:
    """The session roots that ``entities`` (IRIs in the store) derive from, through
    ``prov:wasDerivedFrom``/``prov:wasGeneratedBy``; those that are roots themselves too."""
    return set().union(*_roots_of(store, entities).values())
