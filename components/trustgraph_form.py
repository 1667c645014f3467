"""The sidebar's *TrustGraph* source: a running deployment's API gateway (URL, default
``TRUSTGRAPH_URL``), its bearer token, flow and collection. The URL is checked against the
deployment's endpoint policy (``TRACE_EXPLORER_ENDPOINT_ALLOW``) exactly as a SPARQL endpoint's
is, before anything is sent. The token lives in this person's session only: it is never shown,
never put in a cache key, a label or a message. Texts are fetched from the librarian when a step
is shown (``components/step_texts.py``) and kept for the session.
"""

from __future__ import annotations

import os
import uuid

import streamlit as st

from trace_explorer.sources.endpoint_policy import EndpointPolicy, EndpointRefused
from trace_explorer.sources.source import SourceError
from trace_explorer.sources.trustgraph.source import TrustGraphSource
from trace_explorer.sources.trustgraph.gateway import Gateway

from .collection import Collection, current_collection, not_connected, set_collection
from .text import md_escape

URL_VARIABLE = "TRUSTGRAPH_URL"
KIND = "trustgraph"


def trustgraph_source_form() -> Collection:
    """Draw the TrustGraph form; connect when asked. Returns this person's collection: the
    deployment once connected; until then (and when the connection fails, with the error) an
    empty one that says so, never the sessions of the source chosen before."""
    state = st.session_state
    url = st.text_input("Gateway URL", value=os.environ.get(URL_VARIABLE, ""), key="te_tg_url",
                        placeholder="http://localhost:8888/",
                        help=f"The TrustGraph API gateway's base URL (default: {URL_VARIABLE} on the server).")
    token = st.text_input("Token", key="te_tg_token", type="password", help="The gateway's bearer token, if it needs one.")
    flow = st.text_input("Flow", value="default", key="te_tg_flow")
    collection_id = st.text_input("Collection", value="default", key="te_tg_collection")
    timeout = st.number_input("Timeout (s)", 1.0, 300.0, 30.0, key="te_tg_timeout",
                              help="How long each request may take in all, its whole answer read.")
    st.button("Connect", icon=":material/link:", key="te_tg_connect", on_click=_request)
    collection = current_collection()
    if state.pop("te_tg_requested", False):
        try:
            pinned = EndpointPolicy.from_environment().pin(url)
            gateway = Gateway(url.strip(), token or None, flow=flow.strip() or "default",
                              collection=collection_id.strip() or "default", timeout=float(timeout),
                              pins=pinned.pins)
            source = TrustGraphSource(gateway, eager_texts=False)
            # a key of its own per connection: nothing read with one person's token is shared
            candidate = Collection(source, (KIND, gateway.url, gateway.flow, gateway.collection, uuid.uuid4().hex),
                                   source.label)
            candidate.count("top")  # one round: does it answer, and does it hold sessions?
        except (EndpointRefused, SourceError) as error:
            st.error(md_escape(str(error)), icon=":material/error:")
            return not_connected(KIND, f"Not connected: {error}")
        set_collection(candidate)
        return candidate
    if collection.key[0] != KIND:
        return not_connected(KIND, "No TrustGraph gateway is connected. Enter its URL (and token) in the "
                                   "sidebar and press Connect.")
    return collection


def _request() -> None:
    st.session_state["te_tg_requested"] = True
