"""Which probe polls which source, and what identifies a source for sharing one poller
(``source_key``): a TrustGraph gateway and a SPARQL endpoint are asked with ``SparqlProbe`` (a
flow without the SPARQL service with ``PatternProbe``); a
local store with ``StoreProbe`` (its session index for new roots, its newest snapshot for the
steps); trace files with ``FilesProbe`` (read again when one of them changes)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ..read.collection import expand_paths, load_collection
from ..sources.local_store import local_source
from ..sources.session_index import INDEX_FILE
from ..sources.snapshots import current_generation
from ..sources.source import SourceError, TraceSource
from ..sources.store import StoreSource
from .pattern_probe import PatternProbe
from .sparql_probe import Edge, Found, RootFacts, SparqlProbe


def source_key(source: TraceSource) -> tuple:
    """What identifies ``source`` for sharing a poller: the kind, the address and a digest of
    the credentials (two visitors with different tokens may see different data, so they never
    share). A local store: its folder; anything else: the object itself."""
    gateway = getattr(source, "gateway", None)
    if gateway is not None:  # a TrustGraph deployment (``sources.trustgraph.source``)
        return ("trustgraph", gateway.url, gateway.flow, gateway.collection, gateway.workspace,
                _digest(getattr(gateway, "_token", None)))
    snapshot = getattr(source, "snapshot", None)
    if snapshot is not None:  # a local store's reader (``local_store.SnapshotSource``)
        return ("store", str(store_folder(source)))
    if hasattr(source, "url") and hasattr(source, "graphs"):  # ``sources.endpoint.EndpointSource``
        return ("endpoint", source.url, tuple(source.graphs), source.user, _digest(source.password, source.token))
    return ("object", id(source))


def probe_for(source: TraceSource):
    """The probe that polls ``source`` (see the module docstring): for a TrustGraph flow without
    the SPARQL service, ``PatternProbe`` (triple patterns). Raises SourceError when the gateway
    cannot say whether its flow runs that service."""
    gateway = getattr(source, "gateway", None)
    if gateway is not None:
        if not source.sparql:  # triple patterns: a request per running session's entity
            return PatternProbe(source)
        return SparqlProbe(gateway.sparql_select, source.fetch_texts)
    if getattr(source, "snapshot", None) is not None:
        return StoreProbe(store_folder(source))
    return SparqlProbe(source.select, source.document_texts)


def store_folder(source) -> Path:
    """The folder of the local store a ``SnapshotSource`` reads (its snapshots live in
    ``{folder}/{SNAPSHOTS_DIR}/{generation}``)."""
    return Path(source.snapshot.path).resolve().parent.parent


def _digest(*secrets: str | None) -> str:
    return hashlib.sha256("\0".join(s or "" for s in secrets).encode()).hexdigest()[:16]


class StoreProbe:
    """Polls the local store in ``path`` while ``ingest`` or ``sync`` writes it: new roots are
    the session index's rows added since the last seen (one SQLite query; taken once the
    snapshot that holds them is published), steps are asked of the newest snapshot, only when
    a new one was published. Raises SourceError when the store has no session index."""

    def __init__(self, path: str | Path):
        self.path = Path(path).resolve()
        index = self.path / INDEX_FILE
        if not index.is_file():
            raise SourceError(f"no session index in the store at {self.path} (create one with `trace-explorer ingest`)")
        try:
            self._db = sqlite3.connect(f"{index.as_uri()}?mode=ro", uri=True, check_same_thread=False)
        except sqlite3.Error as error:
            raise SourceError(f"cannot open the session index {index}: {error}") from None
        self.last_id = 0
        self.generation = current_generation(self.path)
        self._reader = None
        self._sparql = SparqlProbe(lambda query: self._newest().select(query),
                                   lambda iris: self._newest().document_texts(iris))
        self.details, self.children, self.texts = self._sparql.details, self._sparql.children, self._sparql.texts
        self.since = self._sparql.since

    def _newest(self):
        """A reader of the newest snapshot, opened again once a newer one is published."""
        if self._reader is None or not self._reader.is_current():
            self._reader = local_source(self.path)
        return self._reader

    def _rows(self, after: int) -> list[tuple]:
        try:
            return self._db.execute(
                "SELECT s.id, s.root, s.time, (SELECT value FROM meta WHERE key = 'published') "
                "FROM sessions s WHERE s.id > ? ORDER BY s.id", (after,)).fetchall()
        except sqlite3.Error as error:
            raise SourceError(f"cannot read the session index of the store at {self.path}: {error}") from None

    def baseline(self) -> dict[str, str | None]:
        """Every indexed session with its start time; the newest row noted."""
        rows = self._rows(0)
        self.last_id = max((r[0] for r in rows), default=0)
        found = {r[1]: r[2] for r in rows}
        self._sparql.note_times(found.values())
        return found

    def poll(self, frontier: list[str]) -> Found:
        """The rows added since the last poll (once published), and the children of
        ``frontier`` in the newest snapshot when a new one was published since."""
        found = Found()
        rows = self._rows(self.last_id)
        if rows and rows[-1][3] is not None:  # the snapshot that holds them is out
            self.last_id = rows[-1][0]
            found.roots = {r[1]: r[2] for r in rows}
            self._sparql.note_times(found.roots.values())
        generation = current_generation(self.path)
        if generation != self.generation:
            self.generation = generation
            if frontier:
                found.edges = self.children(frontier)
        return found

    def close(self) -> None:
        self._db.close()


class FilesProbe:
    """Polls trace files (``paths``: files and folders, as the command line takes them): when
    one of them changes (its size or time of change), they are read again and their roots and
    steps asked of the copy in memory. Raises SourceError when none can be read."""

    def __init__(self, paths: Sequence[str | os.PathLike]):
        self.paths = list(paths)
        self._seen: tuple | None = None
        self._source: StoreSource | None = None
        self._sparql = SparqlProbe(lambda query: self._source.select(query),
                                   lambda iris: self._source.document_texts(iris))
        self.details, self.children, self.texts = self._sparql.details, self._sparql.children, self._sparql.texts
        self.since = self._sparql.since

    def _signature(self) -> tuple:
        out = []
        for path in expand_paths(self.paths):
            try:
                stat = os.stat(path)
            except OSError:
                continue
            out.append((str(path), stat.st_size, stat.st_mtime_ns))
        return tuple(out)

    def _reload(self) -> bool:
        signature = self._signature()
        if signature == self._seen:
            return False
        collection, errors = load_collection(list(self.paths))
        if not len(collection.store) and errors:
            raise SourceError("; ".join(str(e) for e in errors[:3]))
        self._seen = signature
        self._source = StoreSource(collection.store, label="files", documents=collection.documents)
        return True

    def baseline(self) -> dict[str, str | None]:
        self._reload()
        return self._sparql.baseline()

    def poll(self, frontier: list[str]) -> Found:
        """Every root and the children of ``frontier`` when the files changed; else nothing."""
        if not self._reload():
            return Found()
        return Found(roots=self._sparql.baseline(), edges=self.children(frontier) if frontier else [])


__all__ = ["Edge", "FilesProbe", "Found", "RootFacts", "SparqlProbe", "StoreProbe", "probe_for", "source_key"]


