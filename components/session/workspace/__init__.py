"""The session workspace: one custom component (``st.components.v2``: no iframe) holding the
session's waterfall, its provenance graph and the step inspector, on the data of
``views.workspace.workspace_data`` (SHAPE.md beside this file), sent once.

Selecting a step (a click, j / k, the arrows), hovering, zooming, folding a band, opening a
long graph's folds (``folds.js``), the Evidence switch, the search and the quick filters run in
the browser (``workspace.js``): no rerun, and the URL's ``step=`` follows the selection. Python runs only for what needs the server, each a
trigger of the component:

- ``texts``: a step whose texts a TrustGraph librarian still holds was selected: fetch them (the
  data is sent again with them);
- ``open``: a link to another session, or a Document of the Evidence branch, was clicked;
- ``review``: the inspector's Review button was clicked on a step (``workspace``'s ``on_review``
  gets its IRI), or its "Review selection" under words selected in one of the step's texts
  (``on_review`` gets ``{"step", "field", "quote", "start", "end"}``); the data's ``reviews`` are the steps' reviews the inspector lists).

The data is ``{"key", "selected", "ask", "supporting", "matching", "shape"}`` as UTF-8 JSON bytes
(SHAPE.md), the shape serialized once per drawing and kept. Another part of the page selects a
step with ``select_step`` (the URL's ``step``, and ``ask`` counted up so that the browser selects
it even when it is the step the server last sent and the person has moved on since), marks the
steps that back a sentence of the answer (``supporting``) and, in the inspector, the words of
their texts that match it (``matching``).

The script is ``dom.js``, ``waterfall.js``, ``folds.js``, ``overview.js``, ``graph.js``,
``inspector.js`` and ``workspace.js``, inlined (nothing is fetched). vis-network, which draws the
graph, comes only when the graph is first shown (``graph_library.py``): a session opens on its
timeline.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from trace_explorer.analysis.evidence.graph import evidence_branch, with_evidence
from trace_explorer.model.session import Session
from trace_explorer.model.texts import step_documents
from trace_explorer.sources.source import SourceError
from trace_explorer.sources.trustgraph.source import TrustGraphSource
from trace_explorer.views.dag.folding import ITERATION
from trace_explorer.views.dag.network import (MAX_OPEN, OPEN_WINDOW, fold_base, folded_layout, is_long, script_safe,
                                              whole_layout)
from trace_explorer.views.step_labels import clip
from trace_explorer.views.step_walk import WalkEntry, step_walk
from trace_explorer.views.workspace import workspace_data

from ...collection import Collection
from ...navigation import open_page
from ..evidence import cached_evidence, has_evidence
from ..step_texts import show_texts
from ...text import DOCUMENTS_PAGE, md_escape

COMPONENT_KEY = "te_workspace"
TEXTS_KEY = "te_texts_wanted"  # a step IRI whose librarian texts the browser asked for
GOTO_KEY = "te_goto"  # {"page": "session" | "documents", "id": IRI}
ASK_KEY = "te_workspace_ask"  # how many times the server asked for a step to be selected (select_step)
MARKED_KEY = "te_workspace_marked"  # the step IRIs marked as backing the answer's chosen sentence
MATCHING_KEY = "te_workspace_matching"  # step IRI -> [{"text", "spans"}]: its words that match it
_HERE = Path(__file__).resolve().parent
_SCRIPTS = ("dom.js", "waterfall.js", "folds.js", "overview.js", "graph.js", "reviews.js", "inspector.js", "workspace.js")
_HTML = """
<div class="te-ws" data-view="timeline" data-te-steps="workspace" role="group" aria-label="Session workspace">
  <div class="te-ws-tools">
    <span class="te-ws-tabs" role="group" aria-label="View">
      <button type="button" data-view="timeline" aria-pressed="true" title="The waterfall of the steps">Timeline</button>
      <button type="button" data-view="graph" aria-pressed="false" title="The provenance graph">Graph</button>
    </span>
    <span class="te-ws-find">
      <input class="te-ws-search" type="search" placeholder="Search this session  ( / )" aria-label="Search this session"
             title="Words in thoughts, arguments, observations and answers; Enter: next match, Shift+Enter: previous">
      <button type="button" data-match="prev" title="Previous match">↑</button>
      <button type="button" data-match="next" title="Next match">↓</button>
      <span class="te-ws-count" aria-live="polite"></span>
    </span>
    <label class="te-ws-check" title="Only steps whose tool call failed"><input class="te-ws-errors" type="checkbox"> Errors</label>
    <select class="te-ws-slow" aria-label="Slow steps"></select>
    <select class="te-ws-kind" aria-label="Step kind"></select>
    <select class="te-ws-tool" aria-label="Tool"></select>
    <label class="te-ws-check" title="The chain of steps that decided the session's duration"><input class="te-ws-critical" type="checkbox"> Critical path</label>
    <label class="te-ws-check te-ws-follow" hidden title="As steps arrive, select the newest"><input type="checkbox" checked> Follow the newest step</label>
    <label class="te-ws-check te-ws-evidence" hidden title="Hang each chosen edge's and chunk's chunk, page and document on the graph"><input type="checkbox"> Evidence</label>
  </div>
  <div class="te-ws-pane">
    <div class="te-wf" tabindex="0" data-te-steps="timeline" data-te-waterfall="drawn" role="group"
         aria-label="Timeline: click a row to select its step; j / k or arrows move">
      <div class="te-wf-bar">
        <span class="te-wf-hint">Click a row or press j / k. Drag the bars to pan; Ctrl + wheel zooms.</span>
        <span class="te-wf-tools">
          <button type="button" data-zoom="in" title="Zoom in on the time axis">+</button>
          <button type="button" data-zoom="out" title="Zoom out">−</button>
          <button type="button" data-zoom="reset" title="Show the whole run">Whole run</button>
        </span>
      </div>
      <div class="te-wf-axis"><div class="te-wf-axis-label">Step</div><div class="te-wf-ticks"></div></div>
      <div class="te-wf-body"><div class="te-wf-spacer"></div></div>
      <div class="te-wf-tip" role="tooltip"></div>
    </div>
    <div class="te-dag" tabindex="0" data-te-steps="dag" role="group"
         aria-label="Provenance graph: click a node to select its step; j / k or arrows move">
      <div class="te-dag-top"><div class="te-legend"></div><span class="te-dag-buttons"><button type="button" class="te-refold" hidden title="Fold every run opened again">Fold again</button><button type="button" class="te-fit" title="Show the whole graph">Fit</button></span></div>
      <div class="te-dag-canvas"></div>
      <div class="te-dag-hint">Click a node to select its step; hover for its fields. Drag to pan; Ctrl + wheel
        (or the wheel once the graph has the focus) zooms.</div>
    </div>
  </div>
  <div class="te-ins" aria-live="polite"><p class="te-ins-note">Drawing the session's steps…</p></div>
</div>
"""


@functools.lru_cache(maxsize=1)
def _component() -> Any:
    """The registered workspace component (made once; about 90 KB of script)."""
    ours = "\n".join((_HERE / name).read_text(encoding="utf-8") for name in _SCRIPTS)
    return st.components.v2.component(
        "trace_explorer_workspace", html=_HTML, css=(_HERE / "workspace.css").read_text(encoding="utf-8"),
        js=script_safe(ours))


@st.cache_resource(show_spinner=False, max_entries=8)
def _walk(collection_key: tuple, session_id: str, children: tuple[str, ...], size: int, _session: Session,
          _sessions: Any) -> list[WalkEntry]:
    """The step walk of a session (of ``size`` entities: a session that grew is walked again)
    with the sub-sessions at hand (shared, never changed)."""
    return step_walk(_session, _sessions)


@st.cache_resource(show_spinner=False, max_entries=4)
def _fold_base(collection_key: tuple, session_id: str, size: int, _session: Session, _sessions: Any) -> Any:
    return fold_base(_session, _sessions)


@st.cache_resource(show_spinner=False, max_entries=16)
def _data(collection_key: tuple, session_id: str, children: tuple[str, ...], size: int, evidence: bool,
          texts_seen: int, pending: frozenset[str], _session: Session, _collection: Collection, _walk: list[WalkEntry]) -> dict[str, Any]:
    """The workspace shape of one session, drawing (evidence or not) and set of texts loaded;
    shared, never changed by its users. A long session's graph is sent folded, with what each
    fold holds: the browser opens its folds."""
    sessions = _collection.by_id
    base = _fold_base(collection_key, session_id, size, _session, sessions) if is_long(_session) else None
    layout = folded_layout(_session, sessions=sessions, base=base) if base else whole_layout(_session, sessions)
    evidence_layout = None
    if evidence:
        try:
            branch = evidence_branch(cached_evidence(_session, _collection))
        except SourceError:
            branch = None
        if branch is not None and branch.nodes:
            evidence_layout = with_evidence(layout, branch)
    chunks = [c.get("chunk") if isinstance(c, dict) else str(c)
              for entry in _walk for c in (entry.step.fields.get("chunks") or [])]
    texts = _collection.texts([c for c in chunks if c]) if chunks else {}
    shape = workspace_data(_session, sessions, walk=_walk, layout=layout, evidence_layout=evidence_layout,
                           texts=texts, pending=pending, unfolded=base.grouped if base else None)
    digest = hashlib.sha256(repr((collection_key, session_id, children, size, evidence, texts_seen,
                                  sorted(pending))).encode()).hexdigest()
    # sent as bytes, serialized here once: data given as a dict is serialized by Streamlit on
    # every run, twice (once more, key-sorted, for the element's identity): 0.5 s for 4,002 steps
    return {"shape": json.dumps(shape, ensure_ascii=False, separators=(",", ":")).encode(), "key": digest[:16],
            "drawn": len(layout.nodes), "iterations": any(n.kind == ITERATION for n in layout.nodes)}


def select_step(step: str | None, marked: tuple[str, ...] | list[str] = (),
                matching: dict[str, list[dict]] | None = None) -> None:
    """Have the workspace select ``step`` (a step IRI; None: leave the selection) and mark the
    steps ``marked`` (step IRIs: those backing a sentence of the answer) in its timeline and
    graph, and ``matching`` (step IRI -> ``[{"text": a text of the step, "spans": [[start,
    end], ...] of its words that match the sentence]}``, character offsets) in its inspector, on
    the page's next run: call from a widget's callback."""
    if step:
        st.query_params["step"] = step
        st.session_state[ASK_KEY] = st.session_state.get(ASK_KEY, 0) + 1
    st.session_state[MARKED_KEY] = list(marked)
    st.session_state[MATCHING_KEY] = dict(matching or {})


def workspace(session: Session, collection: Collection, reviews: dict[str, list[dict]] | None = None,
              on_review: Callable[[str], None] | None = None, *, newest: str | None = None,
              live: bool = False) -> None:
    """Draw the workspace of ``session``: the step named in the URL's ``step`` selected (else
    the first). ``reviews``: step IRI -> its reviews (``{"label", "score", "comment", "by",
    "at"}``), listed in the inspector; ``on_review(step IRI)``: called, before the run that
    follows, when the inspector's Review button is clicked (with a span's dict when words of
    a step's text were selected and reviewed) (no button without it). ``live``: the
    session is followed as it grows (the "Follow the newest step" switch is shown); ``newest``:
    the step that arrived last, marked (and selected while the switch is on). Drawn again with
    more steps, the browser keeps the selection and the view."""
    goto = st.session_state.pop(GOTO_KEY, None)
    if isinstance(goto, dict) and isinstance(goto.get("id"), str):
        if goto.get("page") == "documents":
            open_page(DOCUMENTS_PAGE, {"document": goto["id"]})
        # this page again, for another session: the address changes here (a switch to the same
        # page would keep the browser's address), then the whole page runs again
        st.query_params.pop("step", None)
        st.query_params["session"] = goto["id"]
        st.rerun(scope="app")
    children = tuple(c for c in session.children if c in collection.by_id)
    size = len(session.nodes)
    walk = _walk(collection.key, session.id, children, size, session, collection.by_id)
    if not walk:
        st.caption("This session has no steps to draw.")
        return
    step = st.query_params.get("step")
    selected = step if any(e.id == step for e in walk) else walk[0].id
    if step and selected != step:  # a link to a step of another session, or of none
        st.caption(md_escape(f"The step in the address, {clip(step, 120)}, is not a step of this session: "
                             f"its first step is shown."))
    wanted = st.session_state.pop(TEXTS_KEY, None)
    for iri in dict.fromkeys([selected, wanted]):  # the texts of the step shown (a librarian's), once
        owner = next((e.session for e in walk if e.id == iri), None)
        if owner is not None:
            show_texts(owner, [iri], collection)
    long = is_long(session)
    data = _data(collection.key, session.id, children, size, has_evidence(session) and not long,
                 _texts_seen(collection), _pending(walk, collection), session, collection, walk)
    if long:
        how = ("Each Analysis is drawn with its Thought and Observation as one Iteration node and long runs are "
               "folded into dashed nodes" if data["iterations"] else "Long runs of steps are folded into dashed nodes")
        st.caption(md_escape(f"Long session: {len(session.steps):,} steps, {session.graph.number_of_nodes():,} graph "
                             f"nodes. In the graph, {how[0].lower() + how[1:]}: {data['drawn']:,} nodes drawn. A click "
                             f"on a folded run opens it ({OPEN_WINDOW} nodes at a time, {MAX_OPEN} at once; Fold again folds them), "
                             f"and the run holding the selected step opens around it."))
    stops = {e.id for e in walk}
    marked = [m for m in st.session_state.get(MARKED_KEY, ()) if m in stops]
    matching = {k: v for k, v in st.session_state.get(MATCHING_KEY, {}).items() if k in stops}
    head = json.dumps({"key": data["key"], "selected": selected, "ask": st.session_state.get(ASK_KEY, 0),
                       "supporting": marked, "matching": matching, "newest": newest, "live": live,
                       "reviews": {k: v for k, v in (reviews or {}).items() if k in stops},
                       "reviewing": on_review is not None}, ensure_ascii=False, separators=(",", ":"))
    _component()(key=COMPONENT_KEY, data=head[:-1].encode() + b',"shape":' + data["shape"] + b"}",
                 on_texts_change=_texts_wanted, on_open_change=_open_clicked,
                 on_review_change=(lambda: on_review(_trigger("review"))) if on_review else _ignore, width="stretch")


def _texts_seen(collection: Collection) -> int:
    source = collection.source
    return len(source.documents) + len(source.missing_texts) if isinstance(source, TrustGraphSource) else 0


def _pending(walk: list[WalkEntry], collection: Collection) -> frozenset[str]:
    """The stops whose texts a TrustGraph librarian still holds (none for other sources)."""
    source = collection.source
    if not isinstance(source, TrustGraphSource):
        return frozenset()
    known = source.documents.keys() | source.missing_texts.keys()
    return frozenset(e.id for e in walk if any(d not in known for d in step_documents(e.session, e.id)))


def _trigger(name: str) -> Any:
    state = st.session_state.get(COMPONENT_KEY)
    value = getattr(state, name, None) if state is not None else None
    if value is None and isinstance(state, dict):
        value = state.get(name)
    return value


def _ignore() -> None:
    """A trigger nobody asked for."""


def _texts_wanted() -> None:
    value = _trigger("texts")
    if isinstance(value, str):
        st.session_state[TEXTS_KEY] = value


def _open_clicked() -> None:
    value = _trigger("open")
    if isinstance(value, dict):
        st.session_state[GOTO_KEY] = value
