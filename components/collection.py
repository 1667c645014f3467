"""This user's collection: where the traces come from, and the sessions read from it.

A collection is a source (``trace_explorer.sources``) with the queries the pages need: a page of
the session list with its filters and counts, and one session (with its sub-sessions and its
parent) fetched when it is opened. Nothing reads every session: the list, filters, counts and
pages are queries on the source, so a store of 100,000 sessions browses like one of ten.

Sources (``components/sidebar/source_picker.py`` draws the choice): files (the bundled demo and the
files a person uploads, read into memory), a local store (a directory) or a SPARQL endpoint.

Per user: the collection lives in ``st.session_state`` (never in a module global). Shared
caches are keyed by ``Collection.key``, which names everything that decides what is visible:
parsed files by name and SHA-256 of their bytes, the in-memory store and session index of a
set of files by their names and digests, an opened local store by its path, a SPARQL endpoint by
its URL, graphs, user and a digest of its password or token (``credential_digest``), a
TrustGraph connection by an id of its own (nothing read with one person's token is shared).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox
import streamlit as st

from trace_explorer.analysis.health.index import refresh_health
from trace_explorer.analysis.support.bounded import Supports, supports_in_worker, supports_trusted
from trace_explorer.model.session import Session
from trace_explorer.read.collection import TraceStore
from trace_explorer.read.errors import TraceLoadError
from trace_explorer.read.files import read_trace_file
from trace_explorer.read.loaded import LoadedFile
from trace_explorer.read.upload_budget import OverBudget
from trace_explorer.index.catalog import SessionFilter, SessionOrder, SessionPage, count_sessions, count_steps, fetch_sessions, find_session_ids, indexed_summary, list_sessions
from trace_explorer.sources.demo import demo_paths
from trace_explorer.index.session_index import SessionIndex
from trace_explorer.index.build import build_index
from trace_explorer.sources.source import SourceError, TraceSource
from trace_explorer.sources.sparql_text import iri
from trace_explorer.sources.store_source import StoreSource

from .sidebar.parsed_uploads import parse_upload

STATE_KEY = "te_collection"
CACHE_LIMIT = 64  # sessions kept per collection once fetched
_DIGEST_KEY = secrets.token_bytes(32)  # per process: a digest in a cache key cannot be tried offline


def credential_digest(*credentials: str | None) -> str:
    """A digest of ``credentials`` (user, password or token; None and "" alike), for a cache
    key: two visitors share cached answers only when their credentials are the same. An HMAC
    with a key of this process, so the key names the secret without revealing it."""
    joined = "\x00".join(c or "" for c in credentials).encode("utf-8")
    return hmac.new(_DIGEST_KEY, joined, hashlib.sha256).hexdigest()


FAMILY_DEPTH = 8  # levels of sub-sessions read with a session


@dataclass(frozen=True)
class FileRead:
    """One file's outcome: its name, content digest, what it held (or the error text)."""

    name: str
    digest: str
    loaded: LoadedFile | None
    error: str | None

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.digest)


class SessionsById(Mapping):
    """The sessions read so far, by IRI: an opened session, its sub-sessions and its parent
    (``Collection.get`` reads those together). Looking up anything else costs no query."""

    def __init__(self, collection: Collection):
        self._collection = collection

    def __getitem__(self, session_id: str) -> Session:
        return self._collection.fetched[session_id]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._collection.fetched))

    def __len__(self) -> int:
        return len(self._collection.fetched)


@dataclass(eq=False)
class Collection:
    """A source and what has been read from it. ``key`` names what it was built from (files,
    a store path, an endpoint), for caches; ``label`` says it for people; ``files`` are the
    files read into memory (for a files collection); ``demo`` whether the demo is among them;
    ``empty_state``, for a source chosen but not connected yet, what to do about it (the
    collection then holds nothing)."""

    source: TraceSource
    key: tuple
    label: str
    files: list[FileRead] = field(default_factory=list)
    demo: bool = False
    empty_state: str | None = None
    trusted: bool = False
    fetched: dict[str, Session] = field(default_factory=dict)
    _pages: dict[tuple, SessionPage] = field(default_factory=dict)
    _counts: dict[str, int] = field(default_factory=dict)
    _texts: dict[str, str | None] = field(default_factory=dict)

    @property
    def place(self) -> tuple:
        """Which source this is, whatever it holds now: ``key`` but a store's generation (a
        store is the same place after an ingest publishes into it)."""
        return self.key[:2] if self.key[:1] == ("store",) else self.key

    @property
    def by_id(self) -> SessionsById:
        """The sessions read so far, by IRI."""
        return SessionsById(self)

    def page(self, filters: SessionFilter, limit: int, offset: int, order: SessionOrder = SessionOrder()) -> SessionPage:
        """One page of the list (remembered per filters, order, limit and offset)."""
        key = (repr(filters), str(order), limit, offset)
        if key not in self._pages:
            if len(self._pages) > 32:
                self._pages.clear()
            page = list_sessions(self.source, filters, limit=limit, offset=offset, order=order)
            self._pages[key] = page
            self._remember(page.sessions)
        return self._pages[key]

    def resolve(self, key: str) -> list[str]:
        """The sessions ``key`` may name: itself when it is one, else those whose UUID starts
        with it (a short id, as the list shows it), at most six (``catalog.find_session_ids``)."""
        if key in self.fetched:
            return [key]
        if self.empty_state or not 0 < len(key) < 4096:
            return []
        return find_session_ids(self.source, key)

    def get(self, session_id: str) -> Session | None:
        """The session ``session_id`` (its IRI, or a unique start of its UUID: ``resolve``) with
        its sub-sessions and parent session read too; None when it names no session, or several."""
        if session_id not in self.fetched:
            found = fetch_sessions(self.source, [session_id]) if _plausible(session_id) else {}
            if session_id not in found:
                named = self.resolve(session_id)
                if len(named) != 1 or named[0] == session_id:
                    return None
                session_id = named[0]
                found = fetch_sessions(self.source, [session_id]) if session_id not in self.fetched else {}
            self._remember(found)
        session = self.fetched[session_id]
        related = [c for c in session.children if c not in self.fetched and _plausible(c)]
        if session.parent_session and session.parent_session not in self.fetched and _plausible(session.parent_session):
            related.append(session.parent_session)
        for _ in range(FAMILY_DEPTH):  # the sub-sessions' own sub-sessions too: the header's totals count them
            if not related:
                break
            found = fetch_sessions(self.source, related)
            self._remember(found)
            related = [c for s in found.values() if s.id != session.parent_session
                       for c in s.children if c not in self.fetched and _plausible(c)]
        return session

    def size(self, session_id: str) -> int | None:
        """How many steps session ``session_id`` has, when known without reading it (from the
        session index, or because it was read already); else None."""
        if session_id in self.fetched:
            return len(self.fetched[session_id].steps)
        summary = indexed_summary(self.source, session_id) if _plausible(session_id) else None
        if summary is None and self._indexed_prefix(session_id):
            named = self.resolve(session_id)
            summary = indexed_summary(self.source, named[0]) if len(named) == 1 else None
        return summary["step_count"] if summary else None

    def _indexed_prefix(self, key: str) -> bool:
        """Whether ``key`` may be a short id on a source whose index answers it at once."""
        return getattr(self.source, "index", None) is not None and 0 < len(key) < 200

    def texts(self, iris: list[str]) -> dict[str, str]:
        """The texts behind ``iris`` (``tg:document`` IRIs, chunk IRIs) that the source holds
        (a content file, the documents graph, the librarian), remembered; {} when it fails."""
        missing = [i for i in iris if i not in self._texts]
        if missing:
            try:
                found = self.source.document_texts(missing)
            except SourceError:
                found = {}
            if len(self._texts) > 4096:
                self._texts.clear()
            self._texts.update({i: found.get(i) for i in missing})
        return {i: self._texts[i] for i in iris if self._texts.get(i) is not None}

    def count(self, what: str) -> int:
        """"sessions" (all, sub-sessions included), "top" (top level), "steps" or "triples".
        A store with a session index shares its counts with everyone who opens it, until a file
        is added (``SessionIndex.stamp``): a large store's triples take a tenth of a second to
        count, for each new visitor otherwise."""
        if what not in self._counts:
            index = getattr(self.source, "index", None)
            if index is not None and index.usable:
                self._counts[what] = _shared_count(self.place, index.stamp(), what, self)
            else:
                self._counts[what] = self._count(what)
        return self._counts[what]

    def _count(self, what: str) -> int:
        if what == "sessions":
            return count_sessions(self.source, SessionFilter(include_sub=True))
        if what == "top":
            return count_sessions(self.source, SessionFilter())
        if what == "steps":
            return count_steps(self.source)
        return len(self.source.store) if isinstance(self.source, StoreSource) else -1

    def _remember(self, sessions: dict[str, Session]) -> None:
        if len(self.fetched) + len(sessions) > CACHE_LIMIT:
            self.fetched.clear()
        self.fetched.update(sessions)


@st.cache_resource(show_spinner=False, max_entries=256)
def _shared_count(key: tuple, stamp: tuple, what: str, _collection: Collection) -> int:
    """``_collection.count(what)`` for everyone whose collection is ``key`` in the state
    ``stamp``."""
    return _collection._count(what)


LARGE_SESSION_VARIABLE = "TRACE_EXPLORER_LARGE_SESSION_STEPS"


def large_session_steps() -> int:
    """Above this many steps the session page asks before reading a session (about a minute for
    100,000 steps): ``TRACE_EXPLORER_LARGE_SESSION_STEPS``, default 20,000."""
    try:
        value = int(os.environ.get(LARGE_SESSION_VARIABLE, "").strip() or 20_000)
    except ValueError:
        return 20_000
    return value if value > 0 else 20_000


def _plausible(session_id: str) -> bool:
    """Whether ``session_id`` could name a session: a valid IRI of sensible length (a value from
    a URL that is not one is simply not found)."""
    if not 0 < len(session_id) < 4096 or ":" not in session_id:
        return False
    try:
        iri(session_id)
    except ValueError:
        return False
    return True


@st.cache_resource(show_spinner=False, max_entries=32)
def _read_trusted(name: str, digest: str, _data: bytes) -> FileRead:
    """Parse one of the server's own files (the bundled demo) in this process; cached by
    (name, content digest). Never raises on bad input."""
    try:
        return FileRead(name, digest, read_trace_file(name, _data), None)
    except TraceLoadError as error:
        return FileRead(name, digest, None, str(error))


def read_file(name: str, data: bytes, *, trusted: bool = False) -> FileRead:
    """Read ``data`` (the bytes of a file called ``name``); ``trusted`` (the bundled demo) is
    parsed in this process through a cache, anything else in a worker within the memory budget
    for uploads (``parsed_uploads``: a hostile file costs one error line, never the server; a
    file that yields nothing, or one past the budget, is refused with its message). Never
    raises on bad input."""
    digest = hashlib.sha256(data).hexdigest()
    if trusted:
        return _read_trusted(name, digest, data)
    try:
        return FileRead(name, digest, parse_upload(name, digest, data, free=_files_source.clear), None)
    except TraceLoadError as error:
        return FileRead(name, digest, None, str(error))
    except OverBudget as error:
        return FileRead(name, digest, None, f"{name}: not read: {error}")


@st.cache_resource(show_spinner=False)
def demo_bytes() -> tuple[tuple[str, bytes], ...]:
    """The bundled demo files as (name, bytes)."""
    return tuple((p.name, Path(p).read_bytes()) for p in demo_paths())


@st.cache_resource(show_spinner=False)
def demo_files() -> tuple[FileRead, ...]:
    """The bundled demo files, read once per process for every visitor (they are the same for
    all, and never change while the server runs): no visitor's run hashes or parses them again."""
    return tuple(read_file(n, d, trusted=True) for n, d in demo_bytes())


@st.cache_resource(show_spinner=False, max_entries=16)
def _files_source(key: tuple, _files: tuple[FileRead, ...], trusted: bool) -> tuple[StoreSource, tuple[FileRead, ...]]:
    """The in-memory store and session index of ``_files``, built once per content (``key``:
    their names and digests) and only read after: the demo is indexed once for everyone.
    ``trusted``: the demo alone, whose answers' support is checked here (any other file's in a
    worker process: ``supports``). The files come back with it, so that the memory budget for
    uploads counts a parse for as long as a store built from it is cached (``parsed_uploads``);
    when the budget is short, this cache is emptied (the stores visitors hold stay theirs)."""
    store = TraceStore()
    for f in _files:
        store.add(f.loaded)
    source = StoreSource(store.store, label="files", documents=store.documents, index=build_index(store.store, documents=store.documents))
    refresh_health(source, supports=supports_trusted if trusted else supports_in_worker)  # the list's health column
    return source, _files


def empty_collection(kind: str, message: str) -> Collection:
    """The collection of a source chosen but not connected yet (``kind`` names it): no sessions,
    and ``message`` says what to do."""
    return Collection(StoreSource(ox.Store(), label="no source", index=SessionIndex()), ("none", kind),
                      "no source", empty_state=message)


def files_collection(files: list[FileRead], demo: bool) -> Collection:
    """A collection of the files that loaded, read into an in-memory store."""
    good = tuple(f for f in files if f.loaded is not None)
    key = ("files", demo) + tuple(f.key for f in good)
    yours = len(good) - (len(demo_files()) if demo else 0)
    parts = (["demo traces"] if demo else []) + ([f"{yours} file{'s' if yours != 1 else ''} of yours"] if yours > 0 else [])
    trusted = demo and yours <= 0
    return Collection(_files_source(key, good, trusted)[0], key, " + ".join(parts) or "no files", list(good), demo,
                      trusted=trusted)


def supports(collection: Collection) -> Supports:
    """What checks the support of ``collection``'s answers: in this process for the bundled
    demo, in a worker process under a deadline for anything a visitor gave or a source served
    (``analysis.support.bounded``)."""
    return supports_trusted if collection.trusted else supports_in_worker


def current_collection() -> Collection:
    """This user's collection (the demo until the sidebar has chosen another source)."""
    collection = st.session_state.get(STATE_KEY)
    if collection is None:
        collection = files_collection(list(demo_files()), True)
        st.session_state[STATE_KEY] = collection
    return collection


def set_collection(collection: Collection) -> None:
    """Make ``collection`` this user's collection."""
    st.session_state[STATE_KEY] = collection


def not_connected(kind: str, message: str) -> Collection:
    """Make this user's collection the empty one of a ``kind`` of source not connected (never
    the sessions of the source chosen before), saying ``message`` on the list."""
    collection = current_collection()
    if collection.key != ("none", kind) or collection.empty_state != message:
        collection = empty_collection(kind, message)
        set_collection(collection)
    return collection
