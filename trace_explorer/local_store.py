"""The embedded local store: a pyoxigraph store persisted in a directory.

``ingest_file`` adds one file all or nothing: the file is parsed in full first, then its quads
(and, for a content file, its texts as ``<doc> tg:content "text"`` in the documents graph) go
in with one atomic ``Store.extend``. A failing file leaves the store exactly as it was; the same
file twice adds nothing (quads are a set, and blank nodes get names derived from the bytes).
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox

from .errors import TraceLoadError
from .loading import DEFAULT_MAX_BYTES, Progress, read_trace_file
from .sources import CONTENT, DOCUMENTS_GRAPH, SourceError, StoreSource
from .store import LoadedSource


def open_local_store(path: str | Path, read_only: bool = False) -> ox.Store:
    """Open (creating it when missing, unless ``read_only``) the store in directory ``path``.

    Raises SourceError when the directory cannot be opened (held by another writer, not a
    store, no permission)."""
    path = Path(path)
    try:
        if read_only:
            return ox.Store.read_only(str(path))
        path.mkdir(parents=True, exist_ok=True)
        return ox.Store(str(path))
    except OSError as error:
        raise SourceError(f"cannot open the store at {path}: {error}") from None


def local_source(path: str | Path, read_only: bool = False) -> StoreSource:
    """A StoreSource over the local store at ``path`` (see ``open_local_store``)."""
    return StoreSource(open_local_store(path, read_only), label=f"store {path}")


def ingest_file(store: ox.Store, name: str, data: bytes | None = None, *,
                progress: Progress | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> LoadedSource:
    """Add the file ``name`` (or its bytes ``data``) to ``store``, all or nothing.

    ``progress(n)`` is called as each further ``n`` bytes are parsed. Returns what was added.
    Raises TraceLoadError on bad input (the store is untouched then)."""
    loaded = read_trace_file(name, data, max_bytes=max_bytes, progress=progress)
    quads = list(loaded.quads)
    graph = ox.NamedNode(DOCUMENTS_GRAPH)
    for document, text in loaded.documents.items():
        try:
            quads.append(ox.Quad(ox.NamedNode(document), ox.NamedNode(CONTENT), ox.Literal(text), graph))
        except ValueError:
            raise TraceLoadError(name, f"a document IRI as key, got {document!r:.100}") from None
    store.extend(quads)
    store.flush()
    return LoadedSource(name, loaded.format, loaded.size, len(loaded.quads), len(loaded.documents),
                        loaded.recovered)
