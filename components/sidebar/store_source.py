"""The sidebar's *Local store* source: a store the operator offers, picked by name
(``trace_explorer.store.offer``: the configured stores, ``TRACE_EXPLORER_STORE``, the
stores inside ``TRACE_EXPLORER_STORE_ROOT``), or a new one made by name inside the root. A
visitor never names a server path: the page and the address (``?store=NAME``) carry the
store's name only, and any name that cannot be opened (unknown, gone, not a store, refused by
the system) gets one message, ``CANNOT_OPEN``, the reason going to the server's log.

A store is read from its newest snapshot (``trace_explorer.store.local_store``): the app never
holds it open for writing, except while it saves a person's uploads, so ``trace-explorer
ingest`` may add files from another process while people browse; each page run checks for a
newer snapshot and opens it. The app never writes into a folder that is not a Trace Explorer
store (``local_store.ours``): a store is made only in a missing or empty folder.
"""

from __future__ import annotations

import logging

import streamlit as st

from trace_explorer.analysis.health.index import refresh_health
from trace_explorer.analysis.support.bounded import supports_in_worker
from trace_explorer.index.ingest_phases import HEALTH, UNITS, Phases
from trace_explorer.read.errors import TraceLoadError
from trace_explorer.sources.source import SourceError
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import StoreBusy, local_source, open_local_store
from trace_explorer.store.offer import NEW_NAME, OfferedStore, StoreOffer

from ..collection import Collection, current_collection, not_connected, set_collection
from ..text import md_escape
from .configured_sources import sources_config
from .uploads import ERRORS_KEY, UPLOADER_GEN_KEY, oversized, upload_limit, uploader

STORE_PARAM = "store"  # the query parameter that remembers a person's store (its name) in their address

CHOICE_KEY, NEW_KEY, CREATE_KEY = "te_store_choice", "te_store_new", "te_store_create"
_ASKED_KEY = "te_store_asked"  # a name the address gave that no offered store has
UPLOAD_WAIT_S = 30.0  # how long saving uploads waits for another writer of the store (an ingest)
CANNOT_OPEN = "No store called “{name}” can be opened here."
BAD_NEW_NAME = ("A new store needs a name of letters, digits, '-', '_' and '.' (starting with a letter or a digit, "
                "at most 64) that no store here has yet.")
_log = logging.getLogger(__name__)


def store_offer() -> StoreOffer:
    """The stores this server offers (the configured sources and the environment)."""
    return StoreOffer.from_settings(sources_config()[0])


def initial_store() -> str | None:
    """The name of the store a new browser session starts on: the one its address names
    (``?store=NAME``), else ``TRACE_EXPLORER_STORE``'s; None when no store is offered at all,
    whatever the address says."""
    offer = store_offer()
    if not offer.enabled:
        return None
    return st.query_params.get(STORE_PARAM) or offer.start


def cannot_open(name: str) -> str:
    """``CANNOT_OPEN`` for ``name`` (cut to 80 characters)."""
    return CANNOT_OPEN.format(name=name if len(name) <= 80 else name[:80] + "…")


def store_source() -> Collection:
    """Draw the store picker (and, with a root, the maker of new stores); open the picked store.
    Returns this person's collection: the store's, or an empty one that says why not."""
    state, offer = st.session_state, store_offer()
    stores = offer.stores()
    names = [s.name for s in stores]
    if CHOICE_KEY not in state:
        asked = initial_store()
        state[CHOICE_KEY] = asked if asked in names else None
        if asked and asked not in names:
            state[_ASKED_KEY] = asked
    if state.get(CHOICE_KEY) not in names:
        state[CHOICE_KEY] = None  # gone since it was picked
    choice = st.selectbox("Store", names, key=CHOICE_KEY, index=None, placeholder="Pick a store",
                          on_change=state.pop, args=(_ASKED_KEY, None),
                          help="The stores this server offers. `trace-explorer ingest FILE... --store DIR` fills "
                               "one from the command line, also while the app shows it.")
    if offer.roots:
        st.text_input("New store", key=NEW_KEY, placeholder="a name, such as team-traces",
                      help="Makes an empty store of that name among this server's stores.")
        st.button("Create an empty store here", icon=":material/create_new_folder:", key=CREATE_KEY,
                  on_click=_create, args=(offer,))
    for error in state.get(ERRORS_KEY, []):
        st.error(md_escape(error), icon=":material/error:")
    picked = next((s for s in stores if s.name == choice), None)  # the listing just made, not another
    if picked is None:
        asked = state.get(_ASKED_KEY)
        if asked:
            st.error(md_escape(cannot_open(asked)), icon=":material/block:")
            return not_connected("store", cannot_open(asked))
        st.query_params.pop(STORE_PARAM, None)
        return not_connected("store", "No local store is open. Pick one in the sidebar (Store)"
                             + (", or make a new one." if offer.roots else "."))
    collection = current_collection()
    if collection.key[:2] != ("store", str(picked.path)) or not collection.source.is_current():
        try:
            source = _read_store(picked)
        except SourceError as error:
            _log.warning("the store %r (%s) cannot be opened: %s", picked.name, picked.path, error)
            st.error(md_escape(cannot_open(picked.name)), icon=":material/error:")
            return not_connected("store", cannot_open(picked.name))
        collection = Collection(source, ("store", str(picked.path), source.generation), f"store {picked.name}")
        set_collection(collection)
    if st.query_params.get(STORE_PARAM) != picked.name:
        st.query_params[STORE_PARAM] = picked.name  # remembered by this browser's address only
    uploads = uploader("Add files to this store")
    if uploads:
        _ingest(picked, uploads)
    return collection


def _create(offer: StoreOffer) -> None:
    """Make the store the *New store* box names, inside the root, and pick it."""
    state = st.session_state
    name = (state.get(NEW_KEY) or "").strip()
    target = offer.new_store(name)
    if target is None:
        state[ERRORS_KEY] = [BAD_NEW_NAME if not NEW_NAME.fullmatch(name) else cannot_open(name)]
        return
    try:
        open_local_store(target.path).close()
    except SourceError as error:
        _log.warning("a new store %r (%s) cannot be made: %s", name, target.path, error)
        state[ERRORS_KEY] = [cannot_open(name)]
        return
    state[ERRORS_KEY], state[NEW_KEY], state[CHOICE_KEY] = [], "", name
    state.pop(_ASKED_KEY, None)


def _read_store(store: OfferedStore):
    """A reader of ``store`` (its newest snapshot). A store the operator gave that is missing or
    an empty folder is made first; nothing else is ever written. Raises SourceError."""
    folder = store.path
    try:
        if store.given and (not folder.exists() or (folder.is_dir() and not any(folder.iterdir()))):
            open_local_store(folder).close()
    except OSError as error:
        raise SourceError(f"{folder}: {error.strerror or error}") from None
    return local_source(folder, label=f"store {store.name}")


def _ingest(store: OfferedStore, uploads: list) -> None:
    """Save uploaded files into ``store``, each all or nothing, with a progress bar by bytes.
    The store is open for writing only meanwhile; when another process writes it (an ingest),
    saving waits up to ``UPLOAD_WAIT_S`` for its turn, then says so."""
    state = st.session_state
    state[UPLOADER_GEN_KEY] += 1
    bar = st.progress(0.0, text="Saving into the store…")
    try:
        writer = open_local_store(store.path, wait_s=UPLOAD_WAIT_S)
    except StoreBusy:
        state[ERRORS_KEY] = [f"The store {store.name} is being written by another process (an ingest, a sync, or "
                              f"someone's upload); try again once it is done. Reading it goes on meanwhile."]
        st.rerun()
    except SourceError as error:
        _log.warning("the store %r (%s) cannot be opened for writing: %s", store.name, store.path, error)
        state[ERRORS_KEY] = [cannot_open(store.name)]
        st.rerun()
    with writer:
        state[ERRORS_KEY] = _save(writer, uploads, bar)
    st.rerun()


def _save(store, uploads: list, bar) -> list[str]:
    """Ingest each upload into ``store``, advancing ``bar``; returns the error messages."""
    total = sum(u.size for u in uploads) or 1
    done = 0
    errors = []
    limit, setting = upload_limit()
    texts_given: set[str] = set()  # the IRIs the files gave a text to: what mends a missing text
    for upload in uploads:
        refusal = oversized(upload, limit, setting)
        if refusal:
            errors.append(refusal)
            done += upload.size
            continue

        def advance(n: int, start=done) -> None:
            nonlocal done
            done = min(done + n, start + upload.size)
            bar.progress(min(done / total, 1.0), text=f"Saving {upload.name}…")
        try:
            saved = ingest_file(store, upload.name, upload.getvalue(), progress=advance, untrusted=True,
                                phases=_PhaseText(bar, lambda: done / total, upload.name))
            texts_given.update(saved.text_iris)
        except TraceLoadError as error:
            errors.append(str(error))
        except Exception:  # noqa: BLE001 - a bad file must not become a traceback in the page
            # the error's words may name the server's folders: they go to the log only
            _log.exception("saving the upload %r failed", upload.name)
            errors.append(f"{upload.name}: expected a trace file this app can save; saving it failed (the server's "
                          f"log says why)")
        done = sum(u.size for u in uploads[: uploads.index(upload) + 1])
        bar.progress(min(done / total, 1.0))
    health = _PhaseText(bar, lambda: 1.0, "the changed sessions")
    health.begin(HEALTH)
    refresh_health(store.writer_source(), after_ingest=True, progress=health.advance, total=health.set_total,
                   texts_given=texts_given, supports=supports_in_worker)  # a visitor's answers: in a worker
    return errors


class _PhaseText(Phases):
    """The phases of saving a file (``ingest_phases``: parse, index, store, full-text, health),
    shown in the progress bar's text with their counts and the step that runs after a phase's
    last unit (a flush, a commit); the bar itself stays at ``fraction()``."""

    def __init__(self, bar, fraction, name: str):
        self.bar, self.fraction, self.name = bar, fraction, name
        self.phase, self.total, self.done, self.what = "", None, 0, ""

    def begin(self, phase: str, total: int | None = None) -> None:
        self.phase, self.total, self.done, self.what = phase, total, 0, ""
        self._show()

    def step(self, what: str) -> None:
        self.what = what
        self._show()

    def set_total(self, total: int) -> None:
        self.total = total
        self._show()

    def advance(self, n: int) -> None:
        self.done += n
        self._show()

    def _show(self) -> None:
        count = f"{self.done:,} of {self.total:,}" if self.total is not None else f"{self.done:,}"
        text = (f"Checking the health of {self.name}: {count} sessions…" if self.phase == HEALTH
                else f"Saving {self.name}: {self.phase}, {count} {UNITS[self.phase]}"
                     + (f", {self.what}…" if self.what else "…"))
        self.bar.progress(min(self.fraction(), 1.0), text=text)

