"""vis-network, the library that draws the workspace's graph, sent to the browser only once the
graph is shown.

A session page opens on its timeline; the graph is one click away. vis-network is 470 KB of
script: inlined with the workspace, every first view of a session carried it over the
WebSocket, and the browser hashed, parsed and ran it before the page was idle. Now
``graph_library`` (its own ``st.fragment``, below the workspace) mounts a loader of a few
lines; when the workspace first shows its graph it sets ``globalThis.__teWantVis`` and fires
``WANT_EVENT`` (``workspace.js``, ``askForVis``); the loader answers with its trigger, which
reruns this fragment alone (not the workspace: a 4,000-step session's data is not sent again),
and the fragment then mounts vis-network as a component of its own. Its script sets
``globalThis.vis`` and fires ``LOADED_EVENT``, on which the workspace draws the graph. Once asked
in a browser session (``ASKED_KEY``), every later session page of it mounts the library at once.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import streamlit as st

from trace_explorer.views.dag.network import vis_network_js

ASKED_KEY = "te_graph_library"  # True once this browser session's workspace showed its graph
WANT_EVENT = "te-want-vis"  # workspace.js -> the loader: the graph is shown, send the library
LOADED_EVENT = "te-vis-network"  # the library's script -> workspace.js: globalThis.vis is set
_LOADER_JS = """
export default function (component) {
  const { setTriggerValue } = component;
  const ask = () => setTriggerValue("want", true);
  if (globalThis.__teWantVis && !globalThis.vis) { ask(); return; }
  window.addEventListener(%(want)s, ask, { once: true });
  return () => window.removeEventListener(%(want)s, ask);
}
"""


@functools.lru_cache(maxsize=1)
def _loader() -> Any:
    """The loader component (made once): a few lines, no HTML."""
    return st.components.v2.component("trace_explorer_graph_loader",
                                      js=_LOADER_JS % {"want": json.dumps(WANT_EVENT)})


@functools.lru_cache(maxsize=1)
def _library() -> Any:
    """vis-network as the pyvis package ships it, as a component (made once): mounted, its script
    sets ``globalThis.vis``, and each mount fires ``LOADED_EVENT``. It draws nothing."""
    script = vis_network_js().split("//# sourceMappingURL=")[0]
    return st.components.v2.component(
        "trace_explorer_vis_network",
        js=f"{script}\n;\nexport default function () {{ window.dispatchEvent(new Event({json.dumps(LOADED_EVENT)})); }}\n")


def _asked() -> None:
    state = st.session_state.get("te_graph_loader")
    if getattr(state, "want", None) or (isinstance(state, dict) and state.get("want")):
        st.session_state[ASKED_KEY] = True


@st.fragment
def graph_library() -> None:
    """Below the workspace: the loader until the graph is asked for, then vis-network."""
    if st.session_state.get(ASKED_KEY):
        _library()(key="te_vis_network")
    else:
        _loader()(key="te_graph_loader", on_want_change=_asked)
