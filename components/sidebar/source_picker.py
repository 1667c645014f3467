"""The sidebar: which traces this user explores, and how much is loaded.

The counts stay in view; the source, its form, the uploader and the files loaded sit in the
*Source and files* panel (``_panel_needed``): closed on a first visit to the demo, where its
content is not drawn at all (a dozen widgets a first view does not need, whose drawing was most
of what a first view cost over a bare page: docs/page-speed.md), and open whenever a link names
a source, one is not connected yet, or files could not be read. A store, endpoint or gateway
runs its form in every run, open or closed (a store opens its newer snapshot there).

Sources: *Files* (the bundled demo and uploaded files, read into memory), *Local store* (a
pyoxigraph store in a directory; uploads are saved into it, all or nothing, with a progress bar)
and *SPARQL endpoint* (read-only, checked against the deployment's endpoint policy).

A local store is read from its newest snapshot (``trace_explorer.store.local_store``): the app
never holds the store open for writing, except while it saves a person's uploads, so
``trace-explorer ingest`` may add files from another process while people browse; each page run
checks for a newer snapshot and opens it, so what the ingest added appears on the next run.
The stores are the operator's, picked by name (``components/sidebar/store_source.py``); the store a
person chose is remembered in their browser's address, as ``?store=NAME`` (a reload, a bookmark
or a shared link opens it again), never on the server: another visitor starts on the demo, or on
the deployment's ``TRACE_EXPLORER_STORE``. With no store offered, the *Local store* source is
not shown and ``?store=`` opens nothing.

Uploaded files are kept in session state and the uploader is emptied after each batch: the
uploader's own value does not survive a switch to another page. They are also kept on the
server under the digest of their content (``components/sidebar/kept_uploads.py``), which the address
carries as ``?files=<digest>``: a reload, a new tab or a shared link reads them again, exactly as
an upload is read. A TrustGraph gateway or SPARQL endpoint is in the address too (never its
token or password), and the operator's configured sources (``components/sidebar/configured_sources.py``)
are picked by name.

Bad files never break the page: each one that cannot be read is reported in the sidebar as
``file:line:column: expected ...`` (``TraceLoadError``) and adds nothing, and what was loaded
before stays. A file over the upload limit is refused before it is parsed: the limit is the
smaller of Streamlit's ``server.maxUploadSize`` (``.streamlit/config.toml`` or
``STREAMLIT_SERVER_MAX_UPLOAD_SIZE``, in MB) and ``TRACE_EXPLORER_MAX_FILE_MB``.
"""

from __future__ import annotations

import os

import pandas as pd
import streamlit as st

from trace_explorer.network.bounded_http import DEFAULT_TIMEOUT_S
from trace_explorer.network.endpoint_policy import EndpointRefused
from trace_explorer.sources.endpoint import EndpointSource
from trace_explorer.sources.source import SourceError
from trace_explorer.views.visible_text import visible_controls

from ..collection import (
    Collection,
    FileRead,
    credential_digest,
    current_collection,
    demo_files,
    files_collection,
    not_connected,
    set_collection,
)
from ..text import counted, md_escape
from .configured_sources import OTHER, TIMEOUT_LABEL, endpoint_policy, sources_config, typed_in_form
from .kept_uploads import FILES_PARAM, gone_message, limits_text
from .store_source import STORE_PARAM, store_source
from .trustgraph_form import KIND as TRUSTGRAPH_KIND
from .trustgraph_form import PARAMS as TRUSTGRAPH_PARAMS
from .trustgraph_form import URL_PARAM as TRUSTGRAPH_PARAM
from .trustgraph_form import trustgraph_source_form
from .uploads import (
    DEMO_KEY,
    DEMO_OFF_KEY,
    DIGEST_KEY,
    ERRORS_KEY,
    ERRORS_TOAST_KEY,
    GONE_KEY,
    UPLOADED_KEY,
    UPLOADER_GEN_KEY,
    demo_touched,
    read_link,
    remove_uploads,
    take_uploads,
    uploader,
)

KIND_KEY = "te_source_kind"


FILES_PANEL_KEY = "te_files_panel"  # the sidebar's Files panel: open or closed


SOURCE_PANEL_KEY = "te_source_panel"  # the sidebar's Source panel (the source, its form, the uploader): open or closed


ENDPOINT_PARAM, GRAPH_PARAM = "endpoint", "graph"


FILES, STORE, ENDPOINT, TRUSTGRAPH = "Files", "Local store", "SPARQL endpoint", "TrustGraph"




# each source's query parameters: only the shown source's stay in the address
SOURCE_PARAMS = {STORE: (STORE_PARAM,), FILES: (FILES_PARAM,), ENDPOINT: (ENDPOINT_PARAM, GRAPH_PARAM),
                 TRUSTGRAPH: TRUSTGRAPH_PARAMS}


def collection_sidebar() -> Collection:
    """Draw the sidebar (source, stats, loaders, errors); return this user's collection."""
    state = st.session_state
    state.setdefault(DEMO_KEY, True)
    state.setdefault(UPLOADED_KEY, [])
    state.setdefault(UPLOADER_GEN_KEY, 0)
    with st.sidebar:
        st.markdown("### :material/account_tree: Trace Explorer")
        st.caption("TrustGraph provenance traces (W3C PROV-O)")
        # a store named in the address (or by the deployment) opens; without one, the demo traces
        if KIND_KEY not in state:
            state[KIND_KEY] = _initial_kind()
        config_error = sources_config()[1]
        if config_error:
            st.error(md_escape(f"Configured sources: {config_error}"), icon=":material/settings_alert:")
        kinds = [FILES, STORE, ENDPOINT, TRUSTGRAPH] if _stores_offered() else [FILES, ENDPOINT, TRUSTGRAPH]
        if state.get(KIND_KEY) not in kinds:
            state[KIND_KEY] = FILES
        stats = st.container()
        if _panel_needed(state[KIND_KEY]):
            state[SOURCE_PANEL_KEY] = True
        panel = st.expander("Source and files", key=SOURCE_PANEL_KEY, on_change="rerun", icon=":material/database:")
        if panel.open or state[KIND_KEY] != FILES:  # a store, endpoint or gateway runs its form each run
            with panel:  # (a store opens its newer snapshot): drawn in the panel, open or closed
                kind = st.segmented_control("Source", kinds, key=KIND_KEY, persist_state="session") or FILES
                collection = _source(kind)
        else:  # the files, closed: the demo and this person's files go on, with nothing of the panel drawn
            kind = FILES
            read_link()
            collection = _files_collection()
        for other, params in SOURCE_PARAMS.items():
            for param in params if other != kind else ():
                if param in st.query_params:
                    del st.query_params[param]
        with stats:
            _stats(collection)
    return collection


def _source(kind: str) -> Collection:
    """Draw the form of source ``kind`` (in the open Source panel); this person's collection."""
    if kind == STORE:
        return _store_source()
    if kind == ENDPOINT:
        return _endpoint_source()
    if kind == TRUSTGRAPH:
        return trustgraph_source_form()
    return _files_source()


_COLLECTION_KINDS = {FILES: "files", STORE: "store", ENDPOINT: "endpoint", TRUSTGRAPH: TRUSTGRAPH_KIND}


def _panel_needed(kind: str) -> bool:
    """Whether the Source panel must be open in this run whatever its state: a first view opens
    it closed only on the files without a link to any (the demo: nothing to fill in, and a first
    view draws its dozen widgets only on request); a link to files, a store, an endpoint or a
    gateway, a source not connected yet, or files that could not be read open it."""
    state = st.session_state
    if SOURCE_PANEL_KEY not in state:
        return kind != FILES or bool(st.query_params.get(FILES_PARAM))
    if state.get(ERRORS_KEY) or state.get(GONE_KEY):
        return True
    return kind != FILES and current_collection().key[0] != _COLLECTION_KINDS[kind]


def _stores_offered() -> bool:
    """Whether the operator offers any local store, or a root to make them in."""
    from .store_source import store_offer  # here: it reads this module's uploader
    return store_offer().enabled


def source_query() -> list[tuple[str, str]]:
    """The query parameters that name the source shown (``[("store", "team-traces")]``, an
    endpoint with each of its graphs, a gateway with its flow and collection...), in the order a
    link gives them: what a link opened in a new tab needs to show the same source (a new tab
    starts a new browser session, which remembers nothing)."""
    params = st.query_params
    return [(name, value) for names in SOURCE_PARAMS.values() for name in names
            for value in params.get_all(name)]


def _initial_kind() -> str:
    """The source a new browser session starts on: the one its address names (files, a
    gateway, an endpoint, an offered store), else the deployment's store or TrustGraph
    (``TRACE_EXPLORER_STORE``, ``TRUSTGRAPH_URL``), else the files (the demo)."""
    params = st.query_params
    if params.get(FILES_PARAM):
        return FILES
    if params.get(TRUSTGRAPH_PARAM):
        return TRUSTGRAPH
    if params.get(ENDPOINT_PARAM):
        return ENDPOINT
    from .store_source import initial_store  # here: it reads this module's uploader
    if initial_store():
        return STORE
    return TRUSTGRAPH if os.environ.get("TRUSTGRAPH_URL", "").strip() else FILES


# -- files ------------------------------------------------------------------------------------
def _files_source() -> Collection:
    state = st.session_state
    read_link()
    uploads = uploader("Add trace files")
    if uploads:
        take_uploads(uploads)  # reruns with an empty uploader
    # a failed upload's errors under the drop zone the person just used (below the rest of the
    # sidebar they were out of view), and said once in a toast
    for error in state.get(ERRORS_KEY, []):
        st.error(md_escape(error), icon=":material/error:")
    if state.pop(ERRORS_TOAST_KEY, 0):
        failed = len(state.get(ERRORS_KEY, []))
        st.toast(f"{counted(failed, 'file')} could not be used: the reasons are under “Add trace files”.",
                 icon=":material/error:")
    st.caption(md_escape(f"Your files are {limits_text()}. The address (files=…) is their only way in: "
                         "nothing lists them, and anyone you give the link to can open them, as with an "
                         "unlisted paste link."))
    if state.get(GONE_KEY):
        st.warning(md_escape(gone_message()), icon=":material/auto_delete:")
    st.toggle("Include the demo traces", key=DEMO_KEY, persist_state="session", on_change=demo_touched)
    if state.get(DEMO_OFF_KEY) and not state[DEMO_KEY]:
        st.info("The demo traces were switched off so that your files are shown on their own. "
                "Switch “Include the demo traces” back on to see both.", icon=":material/visibility_off:")
        if state.pop("te_demo_toast", False):
            st.toast("Showing your files only: the demo traces were switched off.", icon=":material/visibility_off:")
    collection = _files_collection()
    uploaded: list[FileRead] = state[UPLOADED_KEY]
    # drawn only while open: the table's front end (Arrow, about 1 MB of JavaScript) is not loaded
    # with every page for a panel that is mostly closed; opening it reruns the sidebar
    panel = st.expander(f"Files ({len(collection.files)})", icon=":material/description:", key=FILES_PANEL_KEY,
                        on_change="rerun")
    with panel:
        if collection.files and panel.open:
            # a plain table, not the data grid
            st.table(pd.DataFrame([{"File": visible_controls(f.name), "Format": f.loaded.format,
                                    "Triples": len(f.loaded.quads), "Texts": len(f.loaded.documents)}
                                   for f in collection.files]), hide_index=True, border="horizontal")
        elif not collection.files:
            st.caption("No files loaded.")
        if uploaded:
            st.button("Remove my files", icon=":material/delete:", on_click=remove_uploads)
    return collection


def _files_collection() -> Collection:
    """This person's files (the demo while it is on, and their uploads) as a collection, made
    anew only when they changed; their kept set's digest written in the address. Draws nothing;
    the files an address names are read first (``read_link``)."""
    state = st.session_state
    uploaded: list[FileRead] = state[UPLOADED_KEY]
    files = (list(demo_files()) if state[DEMO_KEY] else []) + uploaded
    key = ("files", bool(state[DEMO_KEY])) + tuple(f.key for f in files if f.loaded is not None)
    collection = current_collection()
    if state.get(GONE_KEY) and not files:
        return not_connected("files", gone_message())
    if collection.key != key:
        collection = files_collection(files, bool(state[DEMO_KEY]))
        set_collection(collection)
    digest = state.get(DIGEST_KEY) if uploaded else None
    if digest is None:
        st.query_params.pop(FILES_PARAM, None)
    elif st.query_params.get(FILES_PARAM) != digest:
        st.query_params[FILES_PARAM] = digest
    return collection


# -- local store ------------------------------------------------------------------------------
def _store_source() -> Collection:
    return store_source()


# -- SPARQL endpoint --------------------------------------------------------------------------
def _endpoint_source() -> Collection:
    """An endpoint the operator configured (picked by name, connected at once; its password or
    token stays on the server), or one typed in. The connection is in the address
    (``?endpoint=URL&graph=IRI…``, never a user or secret): a reload reconnects to a configured
    endpoint, and fills in the form of another, naming it."""
    state = st.session_state
    configured = sources_config()[0].of_kind("sparql")
    if "te_endpoint_choice" not in state:
        _start_endpoint(configured)
    choice = (st.selectbox("Endpoint", [s.name for s in configured] + [OTHER], key="te_endpoint_choice")
              if configured else OTHER)
    chosen = next((s for s in configured if s.name == choice), None)
    with typed_in_form("te_endpoint_form", chosen is None):
        if chosen is None:
            url = st.text_input("Endpoint URL", key="te_endpoint_url", placeholder="https://example.org/sparql")
            graphs = st.text_input("Named graphs (optional)", key="te_endpoint_graphs",
                                   placeholder="graph IRIs, space-separated; empty: the default graph")
            user = st.text_input("User (optional)", key="te_endpoint_user")
            secret = st.text_input("Password or bearer token", key="te_endpoint_secret", type="password")
            bearer = st.checkbox("It is a bearer token", key="te_endpoint_bearer")
        else:
            url, graphs, user, secret, bearer = (chosen.url, " ".join(chosen.graphs), chosen.user, chosen.secret,
                                                 chosen.bearer)
            st.caption(md_escape(f"{chosen.url} · its credentials are kept on the server"))
        quoted = st.checkbox("The server holds RDF 1.2 quoted triples",
                             value=chosen.quoted_triples if chosen else True,
                             key=f"te_endpoint_quoted_{choice}" if chosen else "te_endpoint_quoted")
        timeout = st.number_input(TIMEOUT_LABEL, 1.0, 300.0, chosen.timeout_s if chosen else DEFAULT_TIMEOUT_S,
                                  key="te_endpoint_timeout")
        if chosen is None:
            st.form_submit_button("Connect", icon=":material/link:", key="te_endpoint_connect",
                                  on_click=_request_connect)
    submitted = st.session_state.pop("te_endpoint_requested", False)
    collection = current_collection()
    # shared caches are keyed on everything that decides what is visible: the secret too
    key = ("endpoint", url.strip(), graphs, user, bool(bearer), quoted, credential_digest(user, secret))
    failed = state.get("te_endpoint_failed")
    if chosen is not None and collection.key != key and not submitted and failed and failed[:2] == (choice, key):
        # a configured endpoint that failed is tried again when asked, not on every run of the page
        st.error(md_escape(failed[2]), icon=":material/error:")
        st.button("Try again", icon=":material/refresh:", key="te_endpoint_retry", on_click=_request_connect)
        return not_connected("endpoint", f"Not connected: {failed[2]}")
    if submitted or (chosen is not None and collection.key != key):
        try:
            pinned = endpoint_policy().pin(url)
            source = EndpointSource(url.strip(), tuple(graphs.split()), None if bearer or not user else user,
                                    None if bearer else secret, secret if bearer else None, float(timeout), quoted,
                                    pins=pinned.pins)
            candidate = Collection(source, key, f"endpoint {url.strip()}")
            candidate.count("top")  # one query: does it answer?
        except (EndpointRefused, SourceError) as error:
            st.error(md_escape(str(error)), icon=":material/error:")
            if chosen is not None:
                state["te_endpoint_failed"] = (choice, key, str(error))
            return not_connected("endpoint", f"Not connected: {error}")
        set_collection(candidate)
        state.pop("te_endpoint_reopen", None)
        state.pop("te_endpoint_failed", None)
        collection = candidate
    if collection.key[0] != "endpoint":
        asked = state.get("te_endpoint_reopen")
        if asked:
            message = (f"To reopen SPARQL endpoint {asked}, enter its user and password (or token) in the "
                       "sidebar if it needs them, and press Connect. Credentials are never kept in the address.")
            st.info(md_escape(message), icon=":material/key:")
            return not_connected("endpoint", message)
        st.info("Connect to a SPARQL endpoint to browse its traces.", icon=":material/info:")
        return not_connected("endpoint", "No SPARQL endpoint is connected. Enter its URL in the sidebar "
                                          "and press Connect.")
    if st.query_params.get(ENDPOINT_PARAM) != collection.key[1]:
        st.query_params[ENDPOINT_PARAM] = collection.key[1]
    graphs = collection.key[2].split()
    if st.query_params.get_all(GRAPH_PARAM) != graphs:
        if graphs:
            st.query_params[GRAPH_PARAM] = graphs
        else:
            st.query_params.pop(GRAPH_PARAM, None)
    return collection


def _start_endpoint(configured: list) -> None:
    """The form's first values in this browser session: the endpoint the address names (with
    the configured endpoint that serves its URL, if any), else the first configured one."""
    state, params = st.session_state, st.query_params
    url = (params.get(ENDPOINT_PARAM) or "").strip()
    serving = next((s for s in configured if url and s.serves(url)), None)
    first = serving or (configured[0] if configured and not url else None)
    state["te_endpoint_choice"] = first.name if first else OTHER
    state["te_endpoint_url"] = url
    state["te_endpoint_graphs"] = " ".join(params.get_all(GRAPH_PARAM))
    if url and serving is None:
        state["te_endpoint_reopen"] = url


def _request_connect() -> None:
    st.session_state["te_endpoint_requested"] = True


def _compact(count: int) -> str:
    """A count that fits a narrow metric: 60,298 as is, 768,266 as "768k", 1,250,000 as "1.25M",
    3,400,000,000 as "3.4B"; a count that rounds up to the next unit is given in it (999,600 as
    "1M", not "1000k")."""
    if count < 100_000:
        return f"{count:,}"
    if count < 999_500:
        return f"{count / 1000:.0f}k"
    if count < 999_500_000:
        return f"{count / 1_000_000:.3g}M"
    return f"{count / 1_000_000_000:.3g}B"


def _stats(collection: Collection) -> None:
    if collection.empty_state:
        st.caption("No source connected.")
        return
    # each figure as wide as its label (and the help icon of a rounded figure) needs, side by
    # side while they fit and wrapping when they do not: in three equal columns a label beside
    # its help icon was cut ("Sessi…" at 100,000 sessions)
    figures = st.container(horizontal=True, gap="small")
    try:
        for label, what in (("Sessions", "sessions"), ("Steps", "steps"), ("Triples", "triples")):
            count = collection.count(what)
            shown = _compact(count) if count >= 0 else "—"
            figures.metric(label, shown, width="content",
                           help=f"{count:,} {what}" if shown != f"{count:,}" and count >= 0 else None)
        st.caption(md_escape(f"{counted(collection.count('top'), 'top-level session')} · from {collection.label}"))
    except SourceError as error:
        st.error(md_escape(str(error)), icon=":material/error:")
