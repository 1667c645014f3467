"""The sidebar's *TrustGraph* source: a running deployment's API gateway, its bearer token, flow
and collection.

A gateway the operator configured (``components/sidebar/configured_sources.py``: the config file, or
``TRUSTGRAPH_URL`` and ``TRUSTGRAPH_TOKEN`` in the environment) is picked by its name and
connects at once; its token stays on the server. Another gateway's URL is typed in, with its
token, and checked against the deployment's endpoint policy (``TRACE_EXPLORER_ENDPOINT_ALLOW``)
exactly as a SPARQL endpoint's is, before anything is sent. A typed token lives in this
person's session only: it is never shown, never put in a cache key, a label, a message or the
address.

The connection is in the address (``?trustgraph=URL&flow=…&collection=…``, never the token), so
a reload or a shared link reopens it: with the configured token when the URL is a configured
gateway's, else the form is filled in and asks for the token again, naming the gateway. Texts are
fetched from the librarian when a step is shown (``components/session/step_texts.py``) and kept for the
session.
"""

from __future__ import annotations

import uuid
from urllib.parse import urlsplit, urlunsplit

import streamlit as st

from trace_explorer.network.bounded_http import DEFAULT_TIMEOUT_S
from trace_explorer.sources.configured import SOURCES_VARIABLE, TOKEN_VARIABLE, URL_VARIABLE, ConfiguredSource
from trace_explorer.network.endpoint_policy import EndpointRefused
from trace_explorer.sources.source import SourceError
from trace_explorer.sources.trustgraph.gateway import Gateway, api_base
from trace_explorer.sources.trustgraph.ids import KINDS as ID_KINDS
from trace_explorer.sources.trustgraph.ids import checked_id
from trace_explorer.sources.trustgraph.source import TrustGraphSource

from ..collection import Collection, current_collection, not_connected, set_collection
from .configured_sources import OTHER, TIMEOUT_LABEL, endpoint_policy, sources_config, typed_in_form
from ..text import md_escape

KIND = "trustgraph"
URL_PARAM, FLOW_PARAM, COLLECTION_PARAM = "trustgraph", "flow", "collection"
PARAMS = (URL_PARAM, FLOW_PARAM, COLLECTION_PARAM)
CHOICE_KEY = "te_tg_choice"
_ASK_KEY = "te_tg_reopen"  # the connection an address named, until it is connected
_OWN = "http://localhost:8888/"  # TrustGraph's default deployment: the form's example
_USERINFO_KEY = "te_tg_userinfo"  # the address's URL held credentials, left out
_FAILED_KEY = "te_tg_failed"  # the configured connection that failed last: (name, (URL, flow, collection), why)


def trustgraph_source_form() -> Collection:
    """Draw the TrustGraph form; connect when asked, or at once to a configured gateway.
    Returns this person's collection: the deployment once connected; until then (and when the
    connection fails, with the error) an empty one that says so, never the sessions of the
    source chosen before."""
    state = st.session_state
    configured = sources_config()[0].of_kind(KIND)
    if CHOICE_KEY not in state:
        _start(configured)
    names = [s.name for s in configured]
    choice = (st.selectbox("Gateway", names + [OTHER], key=CHOICE_KEY, on_change=_pick, args=(configured,))
              if configured else OTHER)
    chosen = next((s for s in configured if s.name == choice), None)
    with typed_in_form("te_tg_form", chosen is None):
        if chosen is None:
            url = st.text_input("Gateway URL", key="te_tg_url", placeholder=_OWN)
            token = st.text_input("Token", key="te_tg_token", type="password",
                                  placeholder="the gateway's bearer token, if it needs one")
        else:
            url, token = chosen.url, chosen.secret
            st.caption(md_escape(f"{chosen.url} · its token is kept on the server"))
        pinned = chosen.pinned if chosen else frozenset()
        flow = chosen.flow if "flow" in pinned else st.text_input("Flow", key="te_tg_flow")
        collection_id = (chosen.collection if "collection" in pinned
                         else st.text_input("Collection", key="te_tg_collection"))
        if pinned:
            st.caption(md_escape(", ".join(f"{kind} {getattr(chosen, kind)}" for kind in ID_KINDS if kind in pinned)
                                 + " · set by the operator"))
        timeout = st.number_input(TIMEOUT_LABEL, 1.0, 300.0,
                                  chosen.timeout_s if chosen else DEFAULT_TIMEOUT_S,
                                  key=f"te_tg_timeout_{choice}" if chosen else "te_tg_timeout")
        if chosen is None:
            st.form_submit_button("Connect", icon=":material/link:", key="te_tg_connect", on_click=_request)
    if state.pop(_USERINFO_KEY, False):
        st.warning("The address named the gateway with a user or password in its URL: they were left out. "
                   "Enter the gateway's token in the Token field.", icon=":material/key:")
    collection = current_collection()
    wanted = (url.strip(), flow.strip() or "default", collection_id.strip() or "default")
    try:
        connected = collection.key[0] == KIND and tuple(collection.key[1:4]) == _normal(*wanted)
    except SourceError as error:  # ids a visitor typed, or a link gave, that TrustGraph would not: nothing sent
        st.error(md_escape(str(error)), icon=":material/error:")
        return not_connected(KIND, f"Not connected: {error}")
    requested = state.pop("te_tg_requested", False)
    failed = state.get(_FAILED_KEY)
    if chosen is not None and not connected and not requested and failed and failed[:2] == (choice, wanted):
        # a configured gateway that failed is tried again when asked, not on every run of the page
        st.error(md_escape(failed[2]), icon=":material/error:")
        st.button("Try again", icon=":material/refresh:", key="te_tg_retry", on_click=_request)
        return not_connected(KIND, f"Not connected: {failed[2]}")
    if requested or (chosen is not None and not connected):
        try:
            collection = _connect(wanted, token, float(timeout), chosen.workspace if chosen else "default")
        except (EndpointRefused, SourceError) as error:
            st.error(md_escape(str(error)), icon=":material/error:")
            if isinstance(error, EndpointRefused) and chosen is None:
                st.caption(md_escape(f"To open a gateway of your own (such as {_OWN}), start the app with "
                                     f"{URL_VARIABLE}={_OWN} (and {TOKEN_VARIABLE}), or name it in the config file "
                                     f"of sources ({SOURCES_VARIABLE}): a configured gateway is always allowed."))
            if chosen is not None:
                state[_FAILED_KEY] = (choice, wanted, str(error))
            return not_connected(KIND, f"Not connected: {error}")
        state.pop(_ASK_KEY, None)
        state.pop(_FAILED_KEY, None)
    elif collection.key[0] != KIND:
        return _unconnected()
    _remember(collection)
    return collection


def _start(configured: list[ConfiguredSource]) -> None:
    """The form's first values in this browser session: the connection the address names (with
    the configured gateway that serves its URL, if any), else the first configured gateway."""
    state, params = st.session_state, st.query_params
    url = (params.get(URL_PARAM) or "").strip()
    parts = urlsplit(url)
    if "@" in parts.netloc:  # never echoed into the form, the page or the address
        url = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
        state[_USERINFO_KEY] = True
        params[URL_PARAM] = url
    serving = next((s for s in configured if url and s.serves(url)), None)
    first = serving or (configured[0] if configured and not url else None)
    state[CHOICE_KEY] = first.name if first else OTHER
    state["te_tg_url"] = url
    for kind, param in (("flow", FLOW_PARAM), ("collection", COLLECTION_PARAM)):
        pinned = first is not None and kind in first.pinned  # the operator's, whatever the address says
        state[f"te_tg_{kind}"] = (getattr(first, kind) if pinned else params.get(param)
                                  or (getattr(first, kind) if first else "default"))
    if url and serving is None:
        state[_ASK_KEY] = (url, state["te_tg_flow"], state["te_tg_collection"])


def _pick(configured: list[ConfiguredSource]) -> None:
    """A gateway picked by name brings its own flow and collection into the form (``default``
    for one typed in)."""
    chosen = next((s for s in configured if s.name == st.session_state.get(CHOICE_KEY)), None)
    st.session_state["te_tg_flow"] = chosen.flow if chosen else "default"
    st.session_state["te_tg_collection"] = chosen.collection if chosen else "default"


def _connect(wanted: tuple[str, str, str], token: str | None, timeout: float, workspace: str) -> Collection:
    """Connect to gateway ``wanted`` (URL, flow, collection) in ``workspace`` and make it this
    person's collection. Raises EndpointRefused (nothing sent) or SourceError."""
    url, flow, collection_id = wanted
    pinned = endpoint_policy().pin(url)
    gateway = Gateway(url, token or None, flow=flow, collection=collection_id, workspace=workspace, timeout=timeout,
                      pins=pinned.pins)
    source = TrustGraphSource(gateway, eager_texts=False)
    # a key of its own per connection: nothing read with one person's token is shared
    candidate = Collection(source, (KIND, gateway.url, gateway.flow, gateway.collection, uuid.uuid4().hex),
                           source.label)
    candidate.count("top")  # one round: does it answer, and does it hold sessions?
    set_collection(candidate)
    return candidate


def _normal(url: str, flow: str, collection_id: str) -> tuple[str, str, str]:
    """(URL, flow, collection) as a connection's key holds them (``Gateway.url``: with a final /).
    Raises SourceError for a URL or an id a gateway is never asked with (``gateway.api_base``,
    ``ids.checked_id``)."""
    return api_base(url) if url else url, checked_id("flow", flow), checked_id("collection", collection_id)


def _unconnected() -> Collection:
    asked = st.session_state.get(_ASK_KEY)
    if asked:
        url, flow, collection_id = asked
        message = (f"To reopen TrustGraph gateway {url} (flow {flow}, collection {collection_id}), enter its "
                   f"token in the sidebar if it needs one, and press Connect. Tokens are never kept in the "
                   f"address.")
        st.info(md_escape(message), icon=":material/key:")
        return not_connected(KIND, message)
    return not_connected(KIND, "No TrustGraph gateway is connected. Enter its URL (and token) in the "
                               "sidebar and press Connect.")


def _remember(collection: Collection) -> None:
    """Put the connection (never its token) in the address."""
    _, url, flow, collection_id = collection.key[:4]
    for name, value in ((URL_PARAM, url), (FLOW_PARAM, flow), (COLLECTION_PARAM, collection_id)):
        if st.query_params.get(name) != value:
            st.query_params[name] = value


def _request() -> None:
    st.session_state["te_tg_requested"] = True
