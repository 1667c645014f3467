"""The corpus TrustGraph 2.11.1's own services made (``demo_data/services``, written by
``scripts/trustgraph_services/generate.py``) read back against its manifest, which holds what the
services' stand-ins were asked and answered: the session set, each session's mechanism, pattern,
question, start, parent and children, its answer (a multi-line reply joined as the service joins
it), its steps in the order the services emitted them, each tool call's arguments, thought,
observation, error and timings, GraphRAG's selected edges and DocRAG's chunks. The extraction
provenance (``urn:graph:source``) is in the same file, as in a real collection; the sessions
read the same from files, from a local store and through the stand-in TrustGraph gateway, which
serves ``urn:graph:source`` beside ``urn:graph:retrieval``."""

from __future__ import annotations

import json
from collections import Counter

import pyoxigraph as ox
import pytest

from tests.conftest import MECHANISM_NAMES, SERVICES, SERVICES_FILES
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, FakeGateway, corpus_deployment
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection
from trace_explorer.index.catalog import SessionFilter, fetch_session, list_sessions
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import local_source, open_local_store
from trace_explorer.sources.store_source import StoreSource
from trace_explorer.sources.trustgraph.gateway import Gateway
from trace_explorer.sources.trustgraph.source import TrustGraphSource

EXPECTED = {s["session"]: s for s in SERVICES["sessions"]}
AGENTS = [s for s in SERVICES["sessions"] if s["mechanism"] == "agent"]
# Analyses whose Observation derives from the Analysis itself (not from a sub-trace's Synthesis).
DIRECT_ACTIONS = [(s["session"], a) for s in AGENTS for a in s["actions"] if a["sub_session"] is None]
# Sessions none of whose steps point at entities of another graph (DocRAG's chunks do) and whose
# order needs no finding index (a supervisor's does).
PLAIN_ORDER = [s["session"] for s in SERVICES["sessions"]
               if s["mechanism"] != "docrag" and not s.get("findings")]
TEXTS = json.loads(SERVICES_FILES[1].read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def read():
    collection, errors = load_collection(SERVICES_FILES)
    assert errors == []
    return {s.id: s for s in read_sessions(collection)}


def test_the_corpus_covers_what_it_is_for():
    """The manifest's own account of the corpus: every mechanism and pattern, a failed tool, an
    unreadable LLM reply, tools that ran GraphRAG, a supervisor's three sub-agents (one answering
    at once), DocRAG with and without the reranker, non-English questions, a 20 KB observation."""
    kinds = Counter((s["mechanism"], s.get("pattern")) for s in SERVICES["sessions"])
    assert kinds == {("agent", "react"): 6, ("agent", "plan-then-execute"): 1, ("agent", "supervisor"): 1,
                     ("graphrag", None): 3, ("docrag", None): 2}
    actions = [a for s in AGENTS for a in s["actions"]]
    assert sum(1 for a in actions if a["tool_error"] and not a["parse_error"]) == 1
    assert sum(1 for a in actions if a["parse_error"]) == 1
    assert sum(1 for s in AGENTS for a in s["actions"] + s.get("plan_steps", []) if a["sub_session"]) == 2
    supervisor = next(s for s in AGENTS if s["pattern"] == "supervisor")
    assert len(supervisor["children"]) == 3
    assert [EXPECTED[c]["step_counts"].get("Analysis", 0) for c in supervisor["children"]].count(0) == 1
    assert sorted(s["reranked"] for s in SERVICES["sessions"] if s["mechanism"] == "docrag") == [False, True]
    assert max(len(t.encode("utf-8")) for t in TEXTS.values()) > 20_000
    assert any("\n" in s.get("answer_reply", "") for s in AGENTS)


def test_the_session_set_is_the_manifests(read):
    assert sorted(read) == sorted(EXPECTED)


@pytest.mark.parametrize("iri", sorted(EXPECTED))
def test_each_session_reads_as_the_services_wrote_it(read, iri):
    expected, session = EXPECTED[iri], read[iri]
    assert session.mechanism == MECHANISM_NAMES[expected["mechanism"]]
    assert session.question == expected["question"]
    assert session.time.isoformat().replace("+00:00", "Z") == expected["started"]
    assert session.parent == expected["parent"]
    assert session.shape == "current"  # the manifest's trustgraph: every session written by 2.11.1's services
    assert SERVICES["trustgraph"].startswith("trustgraph-flow 2.11.1")
    assert sorted(session.children) == sorted(expected["children"])
    assert session.answer == expected["answer"]
    if expected["mechanism"] == "agent":
        assert session.pattern == expected["pattern"]


@pytest.mark.parametrize("iri", PLAIN_ORDER)
def test_steps_come_in_the_order_the_services_emitted_them(read, iri):
    steps = [s for s in read[iri].steps if s.id != iri]
    assert [s.id for s in steps] == EXPECTED[iri]["step_order"]
    assert Counter(s.kind for s in steps) == EXPECTED[iri]["step_counts"]


@pytest.mark.parametrize("iri", [s["session"] for s in AGENTS])
def test_tools_are_called_in_the_manifests_order(read, iri):
    assert [a for a in read[iri].actions if a != "__parse_error__"] == EXPECTED[iri]["tool_order"]


@pytest.mark.parametrize("iri,action", DIRECT_ACTIONS, ids=[a["analysis"].rsplit(":", 1)[-1] for _, a in DIRECT_ACTIONS])
def test_each_tool_call_holds_what_the_llm_and_the_tool_answered(read, iri, action):
    nodes = read[iri].nodes
    analysis, observation = nodes[action["analysis"]].fields, nodes[action["observation"]].fields
    if action["action"] == "__parse_error__":  # the model's reply could not be parsed: no tool ran
        assert "action" not in analysis and observation.get("error") is None
        assert analysis["parse_error"] == observation["parse_error"] == action["tool_error"]
    else:
        assert analysis["action"] == action["action"]
        assert observation.get("error") == action["tool_error"]
    assert analysis.get("arguments", {}) == action["arguments"]
    assert int(analysis["llm_duration_ms"]) == action["llm_duration_ms"]
    assert (int(analysis["in_tokens"]), int(analysis["out_tokens"])) == (action["in_token"], action["out_token"])
    assert int(observation["tool_duration_ms"]) == action["tool_duration_ms"]
    assert analysis["observation_id"] == action["observation"]
    assert observation["observation"] == TEXTS[action["observation"]]  # the 20 KB one whole


def test_a_graphrag_focus_holds_the_edges_the_reranker_chose(read):
    for expected in (s for s in SERVICES["sessions"] if s["mechanism"] == "graphrag"):
        steps = {s.kind: s.fields for s in read[expected["session"]].steps}
        edges = steps["Focus"]["edges"]
        assert [[e["s"], e["p"], e["o"]] for e in edges] == [e["edge"] for e in expected["edges"]]
        assert [float(e["score"]) for e in edges] == [e["score"] for e in expected["edges"]]
        assert int(steps["Exploration"]["edge_count"]) == expected["edge_count"] > 0
        assert sorted(steps["Grounding"]["concepts"]) == sorted(expected["concepts"])


def test_a_docrag_exploration_and_focus_hold_the_chunks_the_stores_gave(read):
    for expected in (s for s in SERVICES["sessions"] if s["mechanism"] == "docrag"):
        steps = {s.kind: s.fields for s in read[expected["session"]].steps}
        assert sorted(steps["Exploration"]["chunks"]) == sorted(c["chunk"] for c in expected["chunks"])
        assert int(steps["Exploration"]["chunk_count"]) == expected["chunk_count"]
        assert ("Focus" in steps) == expected["reranked"]
        if expected["reranked"]:
            chosen = steps["Focus"]["chunks"]
            assert [(c["chunk"], c["score"]) for c in chosen] == [(c["chunk"], c["score"]) for c in expected["focus_chunks"]]


@pytest.mark.parametrize("iri", sorted(EXPECTED))
def test_the_tokens_on_the_steps_are_the_ones_the_llm_reported(read, iri):
    steps = read[iri].steps
    tokens = (sum(int(s.fields.get("in_tokens", 0)) for s in steps), sum(int(s.fields.get("out_tokens", 0)) for s in steps))
    assert tokens == (EXPECTED[iri]["recorded"]["in"], EXPECTED[iri]["recorded"]["out"])
    assert sum(int(s.fields.get("llm_duration_ms", 0)) for s in steps) == EXPECTED[iri]["recorded"]["llm_duration_ms"]


@pytest.fixture(scope="module", params=["files", "local store", "gateway"])
def source(request, tmp_path_factory):
    """The corpus on each kind of source."""
    if request.param == "files":
        collection, errors = load_collection(SERVICES_FILES)
        assert errors == []
        yield StoreSource(collection.store, documents=collection.documents)
    elif request.param == "local store":
        path = tmp_path_factory.mktemp("services-store")
        store = open_local_store(path)
        for file in SERVICES_FILES:
            ingest_file(store, str(file))
        del store
        yield local_source(path)
    else:
        quads, texts = corpus_deployment(SERVICES_FILES)
        assert ox.NamedNode("urn:graph:source") in {q.graph_name for q in quads}
        gateway = FakeGateway(quads, texts)
        gateway.start()
        yield TrustGraphSource(Gateway(gateway.url, TOKEN, flow=FLOW, collection=COLLECTION, timeout=10))
        gateway.stop()


def test_every_source_lists_and_reads_the_sessions_as_the_manifest_says(source):
    rows = list_sessions(source, SessionFilter(include_sub=True), limit=0).rows
    assert sorted(r["id"] for r in rows) == sorted(EXPECTED)
    for iri, expected in EXPECTED.items():
        session = fetch_session(source, iri)
        assert (session.question, session.parent, sorted(session.children)) == \
            (expected["question"], expected["parent"], sorted(expected["children"]))
        assert session.answer == expected["answer"]
        assert session.time.isoformat().replace("+00:00", "Z") == expected["started"]
