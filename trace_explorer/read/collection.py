"""A trace collection: a pyoxigraph store of quads plus the document store's texts.

Files are added all or nothing (``pyoxigraph.Store.extend`` is atomic): a file that fails leaves
the collection exactly as it was, and the files loaded before it stay.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from .errors import TraceLoadError
from .files import read_trace_file
from .formats import REVIEWS_SUFFIX, SUPPORTED_SUFFIXES
from .limits import NO_LIMIT
from .loaded import LoadedFile


@dataclass
class LoadedSource:
    """One file in the collection: its name, format, bytes read and what it added
    (``skipped``: the same bytes were already in the store, nothing was added; ``gained``: the
    quads the store lacked, its texts' included, when they were counted; ``text_iris``: the IRIs
    the file gave a text to, a content file's or a trace file's ``tg:content``, when it went
    into a store that was not empty; () otherwise)."""

    name: str
    format: str
    size: int
    quads: int
    documents: int
    recovered: int
    skipped: bool = False
    gained: int | None = None
    text_iris: tuple[str, ...] = ()


@dataclass
class TraceStore:
    """The quads (``store``), document texts (``documents``: IRI -> text) and the files read."""

    store: ox.Store = field(default_factory=ox.Store)
    documents: dict[str, str] = field(default_factory=dict)
    sources: list[LoadedSource] = field(default_factory=list)

    def add(self, loaded: LoadedFile) -> None:
        """Add a file's quads and texts to the collection (atomic for the quads). Raises
        TraceLoadError, adding nothing, when the file gives a document another text than one
        added before (``LoadedFile.refuse_other_texts``)."""
        loaded.refuse_other_texts(lambda iris: {i: self.documents[i] for i in iris if i in self.documents})
        if loaded.quads:
            self.store.extend(loaded.quads)
        self.documents.update(loaded.documents)
        self.sources.append(
            LoadedSource(loaded.name, loaded.format, loaded.size, len(loaded.quads),
                         len(loaded.documents), loaded.recovered)
        )

    def add_file(self, name: str, data: bytes | None = None, *, max_bytes: int | None = None) -> LoadedSource:
        """Read ``name`` (or its bytes ``data``) and add it; raises TraceLoadError and adds nothing on bad input."""
        self.add(read_trace_file(name, data, max_bytes=max_bytes))
        return self.sources[-1]

    def add_paths(self, paths: Iterable[str | Path], *, max_bytes: int | None = None) -> list[TraceLoadError]:
        """Add every file in ``paths`` (a folder adds the trace files in it); returns the errors of those that failed.
        Local files are a person's own: no size limit unless ``max_bytes`` sets one (``limits``)."""
        errors = []
        for path in expand_paths(paths):
            try:
                self.add(read_trace_file(str(path), max_bytes=NO_LIMIT if max_bytes is None else max_bytes,
                                         file_limit=NO_LIMIT))
            except TraceLoadError as error:
                errors.append(error)
        return errors

    def __len__(self) -> int:
        """Number of quads in the store."""
        return len(self.store)


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Expand folders into the trace and content files they hold (sorted); files pass through."""
    out: list[Path] = []
    for path in map(Path, paths):
        out.extend(folder_files(path) if path.is_dir() else [path])
    return out


def folder_files(folder: Path) -> list[Path]:
    """The trace and content files directly in ``folder`` (sorted): regular files (links
    followed) whose names end in one of ``formats.SUPPORTED_SUFFIXES``, optionally ``.gz``,
    but for a corpus's ``manifest.json`` and a data export's reviews (``formats.REVIEWS_SUFFIX``)."""
    return [child for child in sorted(folder.iterdir())
            if child.is_file() and child.name != "manifest.json" and not child.name.lower().endswith(REVIEWS_SUFFIX)
            and child.name.lower().removesuffix(".gz").endswith(SUPPORTED_SUFFIXES)]


def empty_folders(paths: Iterable[str | Path]) -> list[TraceLoadError]:
    """An error for each folder among ``paths`` that holds no trace or content file
    (``folder_files``), naming it and the name endings looked for."""
    return [TraceLoadError(str(path), f"trace or content files, named *{', *'.join(SUPPORTED_SUFFIXES)} "
                                      "(any of them may end in .gz)", found="found none in this folder")
            for path in map(Path, paths) if path.is_dir() and not folder_files(path)]


def folders_left_out(paths: Iterable[str | Path]) -> list[str]:
    """A warning for each folder inside a folder among ``paths`` that holds trace or content
    files (``folder_files``): folders are read one level deep, so those files are left out
    unless the folder inside is given too."""
    given = {Path(p).resolve() for p in paths}
    out = []
    for path in map(Path, paths):
        if not path.is_dir():
            continue
        for child in sorted(path.iterdir()):
            if child.is_dir() and child.resolve() not in given and (count := len(folder_files(child))):
                out.append(f"{child}: left out, with its {count:,} trace or content file{'s' if count > 1 else ''}: "
                           f"a folder is read one level deep (give {child} as well)")
    return out


def load_collection(paths: Iterable[str | Path]) -> tuple[TraceStore, list[TraceLoadError]]:
    """Read ``paths`` into a new TraceStore; returns it with the errors of files that failed."""
    collection = TraceStore()
    errors = collection.add_paths(paths)
    return collection, errors
