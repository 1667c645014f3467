"""The sidebar loader: which trace files make up this user's collection.

The collection starts as the bundled demo. Files a person uploads are added to it (the demo
switches off when the first one loads, so their own traces show "instead"; the toggle brings it
back). A file that fails shows its ``TraceLoadError`` text (file:line:column: expected) and
changes nothing: files are read one by one, all or nothing, and the ones read before it stay.
Uploaded files are kept in session state and the uploader is emptied after each batch: the
uploader's own value does not survive a switch to another page.

Per user: the collection lives in ``st.session_state`` (never in a module global). Parsing is
cached with ``st.cache_resource`` keyed by the file's name and a SHA-256 of its bytes, so the same
content is parsed once for every user (the cached LoadedFile is only ever read).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from trace_explorer.demo import demo_paths
from trace_explorer.errors import TraceLoadError
from trace_explorer.loading import SUPPORTED_SUFFIXES, LoadedFile, read_trace_file
from trace_explorer.model import Session
from trace_explorer.sessions import read_sessions
from trace_explorer.store import TraceStore

from .text import md_escape

STATE_KEY = "te_collection"
DEMO_KEY = "te_demo"
UPLOAD_KEY = "te_upload"
_UPLOADED_KEY = "te_uploaded_files"
_ERRORS_KEY = "te_upload_errors"
_UPLOADER_GEN_KEY = "te_uploader_generation"
UPLOAD_TYPES = sorted({s.lstrip(".") for s in SUPPORTED_SUFFIXES} | {"gz"})


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


@dataclass
class Collection:
    """A user's loaded traces: the TraceStore, its sessions (newest first), sessions by IRI,
    the files in it and ``key`` (what it was built from, to know when to rebuild)."""

    store: TraceStore
    sessions: list[Session]
    by_id: dict[str, Session]
    files: list[FileRead]
    key: tuple
    demo: bool = False
    step_count: int = field(init=False)

    def __post_init__(self) -> None:
        self.step_count = sum(len(s.steps) for s in self.sessions)

    @property
    def top_level(self) -> list[Session]:
        """Sessions that derive from no other session's step."""
        return [s for s in self.sessions if s.parent is None]


@st.cache_resource(show_spinner=False, max_entries=32)
def _read_cached(name: str, digest: str, _data: bytes) -> FileRead:
    """Parse one file; cached by (name, content digest). Never raises on bad input."""
    try:
        return FileRead(name, digest, read_trace_file(name, _data), None)
    except TraceLoadError as error:
        return FileRead(name, digest, None, str(error))


def read_file(name: str, data: bytes) -> FileRead:
    """Read ``data`` (the bytes of a file called ``name``) through the parse cache."""
    return _read_cached(name, hashlib.sha256(data).hexdigest(), data)


@st.cache_resource(show_spinner=False)
def _demo_bytes() -> tuple[tuple[str, bytes], ...]:
    return tuple((p.name, Path(p).read_bytes()) for p in demo_paths())


def build_collection(files: list[FileRead], demo: bool) -> Collection:
    """A new TraceStore holding ``files`` (those that loaded), and its sessions."""
    store = TraceStore()
    good = [f for f in files if f.loaded is not None]
    for f in good:
        store.add(f.loaded)
    sessions = read_sessions(store)
    return Collection(store, sessions, {s.id: s for s in sessions}, good,
                      (demo,) + tuple(f.key for f in good), demo)


def current_collection() -> Collection:
    """This user's collection (the demo until ``collection_sidebar`` has run)."""
    collection = st.session_state.get(STATE_KEY)
    if collection is None:
        collection = build_collection([read_file(n, d) for n, d in _demo_bytes()], True)
        st.session_state[STATE_KEY] = collection
    return collection


def collection_sidebar() -> Collection:
    """Draw the sidebar (stats, uploader, demo toggle, errors, file list); return the collection."""
    state = st.session_state
    state.setdefault(DEMO_KEY, True)
    state.setdefault(_UPLOADED_KEY, [])
    state.setdefault(_UPLOADER_GEN_KEY, 0)
    with st.sidebar:
        st.markdown("### :material/account_tree: Trace Explorer")
        st.caption("TrustGraph provenance traces (W3C PROV-O)")
        stats = st.container()
        uploads = st.file_uploader(
            "Add trace files", type=UPLOAD_TYPES, accept_multiple_files=True,
            key=f"{UPLOAD_KEY}_{state[_UPLOADER_GEN_KEY]}",
            help="Turtle, TriG, N-Quads, N-Triples, JSON-LD, RDF/XML, TrustGraph wire JSON and "
                 "*.documents.json content files, optionally .gz. Several at once.")
        if uploads:
            _take(uploads)  # reruns with an empty uploader
        st.toggle("Include the demo traces", key=DEMO_KEY, persist_state="session")
        for error in state.get(_ERRORS_KEY, []):
            st.error(md_escape(error), icon=":material/error:")
        uploaded: list[FileRead] = state[_UPLOADED_KEY]
        files = ([read_file(n, d) for n, d in _demo_bytes()] if state[DEMO_KEY] else []) + uploaded
        collection = state.get(STATE_KEY)
        key = (bool(state[DEMO_KEY]),) + tuple(f.key for f in files)
        if collection is None or collection.key != key:
            collection = build_collection(files, bool(state[DEMO_KEY]))
            state[STATE_KEY] = collection
        with stats:
            _stats(collection, len(uploaded))
        with st.expander(f"Files ({len(collection.files)})", icon=":material/description:"):
            if collection.files:
                st.dataframe(
                    [{"File": f.name, "Format": f.loaded.format, "Triples": len(f.loaded.quads),
                      "Texts": len(f.loaded.documents)} for f in collection.files],
                    hide_index=True, width="stretch")
            else:
                st.caption("No files loaded.")
            if uploaded:
                st.button("Remove my files", icon=":material/delete:", on_click=_remove_uploads)
    return collection


def _take(uploads: list) -> None:
    """Read a batch of uploaded files into this user's collection and reset the uploader.

    Files that load are kept (in session state: the uploader's own value does not survive a
    page switch); the errors of the others are shown until the next batch.
    """
    state = st.session_state
    reads = [read_file(u.name, u.getvalue()) for u in uploads]
    kept: list[FileRead] = state[_UPLOADED_KEY]
    good = [r for r in reads if r.loaded is not None and r.key not in {k.key for k in kept}]
    if good and not kept:
        state[DEMO_KEY] = False  # a person's own traces, instead of the demo
    state[_UPLOADED_KEY] = kept + good
    state[_ERRORS_KEY] = [r.error for r in reads if r.error]
    state[_UPLOADER_GEN_KEY] += 1
    st.rerun()


def _remove_uploads() -> None:
    st.session_state[_UPLOADED_KEY] = []
    st.session_state[_ERRORS_KEY] = []
    st.session_state[DEMO_KEY] = True


def _stats(collection: Collection, uploaded: int) -> None:
    sessions, steps, triples = st.columns(3, gap="small")
    sessions.metric("Sessions", f"{len(collection.sessions):,}")
    steps.metric("Steps", f"{collection.step_count:,}")
    triples.metric("Triples", f"{len(collection.store):,}")
    parts = ["demo traces"] if collection.demo else []
    if uploaded:
        parts.append(f"{uploaded} file{'s' if uploaded != 1 else ''} of yours")
    source = " + ".join(parts) or "nothing (switch the demo on or add files)"
    st.caption(f"{len(collection.top_level)} top-level sessions · from {source}")
