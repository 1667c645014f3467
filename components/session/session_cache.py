"""Sessions read once for everyone who opens them, where that is safe.

Reading a session of 4,000 steps from a store takes a second or two; each person's collection
keeps what it read (``Collection.get``), but a link opened in a new tab is a new person to
Streamlit. So a session read from files or a local store is also kept in a cache shared by
everyone, keyed by what it was read from:

- files (the demo, uploads): the collection's key names every file by its content digest, so
  the same key means the same bytes;
- a local store: its path, and the modification times of its session index (SQLite and its
  write-ahead log), which every ingest writes (a file's digest at least), so a session read
  before another file went in is read again.

A SPARQL endpoint may change under the app without telling it: its sessions are not shared.
Sessions are never changed after they are read, so sharing them is safe.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from trace_explorer.model.session import Session

from ..collection import Collection

CACHE_SESSIONS = 16  # opened sessions kept (each with its sub-sessions and parent)


def shared_session(collection: Collection, session_id: str) -> Session | None:
    """``collection.get(session_id)``, through the shared cache when ``collection`` allows
    it (module docstring). Raises what ``Collection.get`` raises."""
    version = _version(collection)
    if version is None or session_id in collection.fetched:
        return collection.get(session_id)
    found = _read(collection.key, version, session_id, collection)
    if found is None:
        return None
    for iri, session in found.items():
        collection.fetched.setdefault(iri, session)
    return collection.get(session_id)


@st.cache_resource(show_spinner=False, max_entries=CACHE_SESSIONS)
def _read(key: tuple, version: tuple, session_id: str, _collection: Collection) -> dict[str, Session] | None:
    """The session and what ``Collection.get`` reads with it (sub-sessions, parent), by IRI."""
    session = _collection.get(session_id)
    if session is None:
        return None
    related = [session.id, *session.children, session.parent_session]
    return {iri: _collection.fetched[iri] for iri in related if iri and iri in _collection.fetched}


def _version(collection: Collection) -> tuple | None:
    """What tells one state of the collection's data from another (None: do not share)."""
    kind = collection.key[0] if collection.key else None
    if kind == "files":
        return ("content",)
    if kind == "store":
        index = getattr(collection.source, "index", None)
        path = getattr(index, "path", None)
        if path is None:
            return None
        return tuple(_mtime(Path(f"{path}{suffix}")) for suffix in ("", "-wal"))
    return None


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0
