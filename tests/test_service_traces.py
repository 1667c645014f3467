"""Traces made by TrustGraph 2.11.1's own services (``demo_data/services/services.trig``, with
the collection's extraction provenance in ``urn:graph:source``, and the librarian's texts) read
as the services wrote them, from the files, from a local store and from a TrustGraph deployment
(the stand-in gateway and librarian of ``tests/trustgraph_server.py``): every value below comes from
the corpus's ``manifest.json``, which its generator took from what its fakes were asked and
answered.

- a tool that runs a sub-trace (``knowledge-query``): its Observation derives from the sub-trace's
  Synthesis, and is still the Observation of its Analysis (``show``, ``stats``);
- a supervisor: Findings by their index, goals in the order they were decomposed;
- DocRAG with the extraction provenance loaded: chunks are evidence, never steps;
- an unreadable model reply (``tg:action "__parse_error__"``): counted apart from tools.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import CORPUS
from tests.trustgraph_server import TOKEN, FakeGateway, corpus_deployment, gateway_args
from trace_explorer.cli.main import main
from trace_explorer.model.session import EVIDENCE_KINDS, PARSE_ERROR_ACTION
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store
from trace_explorer.views.step_labels import UNPARSED_REPLY, has_error, node_label, timeline_label, tool_note
from trace_explorer.views.waterfall import waterfall

SERVICES = CORPUS / "services"
TRACES = SERVICES / "services.trig"
TEXTS = SERVICES / "services.documents.json"
MANIFEST = json.loads((SERVICES / "manifest.json").read_text(encoding="utf-8"))
BY_NAME = {s["name"]: s for s in MANIFEST["sessions"]}
DOCUMENTS = json.loads(TEXTS.read_text(encoding="utf-8"))
ACTIONS = [a for s in MANIFEST["sessions"] for a in s.get("actions", [])]
SUB_TRACE_ACTIONS = [a for a in ACTIONS if a["sub_session"]]
SOURCES = ("files", "store", "trustgraph")


@pytest.fixture(scope="module")
def service_gateway():
    """The stand-in deployment serving these traces (``urn:graph:source`` too) and their texts."""
    server = FakeGateway(*corpus_deployment([TRACES, TEXTS]))
    yield server.start()
    server.stop()


@pytest.fixture(scope="module")
def service_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("services-store")
    with open_local_store(path) as store:
        for file in (TRACES, TEXTS):
            ingest_file(store, str(file))
    return path


@pytest.fixture(params=SOURCES)
def source(request):
    """The CLI arguments that read the service traces (and their texts) from this source."""
    return source_args(request, request.param)


@pytest.fixture(params=SOURCES[:2])
def checked_source(request):
    """The sources ``lint`` reads (a TrustGraph gateway is read session by session: no lint)."""
    return source_args(request, request.param)


def source_args(request, kind: str) -> list[str]:
    if kind == "files":
        return [str(TRACES), str(TEXTS)]
    if kind == "trustgraph":  # traces from the gateway, texts from its librarian
        request.getfixturevalue("monkeypatch").setenv("TRUSTGRAPH_TOKEN", TOKEN)
        return gateway_args(request.getfixturevalue("service_gateway"))
    return [str(TEXTS), "--store", str(request.getfixturevalue("service_store"))]


def run_json(capsys, *argv) -> object:
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out)


def show(capsys, source, session: str) -> dict:
    return run_json(capsys, "show", *source, "--session", session, "--format", "json")


def test_the_manifest_covers_what_each_fault_needs():
    """The corpus holds each shape these tests read (else they would pass on nothing)."""
    assert SUB_TRACE_ACTIONS and any(a["parse_error"] for a in ACTIONS)
    assert any(s.get("findings") for s in MANIFEST["sessions"])
    assert [s for s in MANIFEST["sessions"] if s["mechanism"] == "docrag" and s.get("chunks")]
    assert [d for d in MANIFEST["documents"] if d["pages"]]


@pytest.mark.parametrize("action", SUB_TRACE_ACTIONS, ids=lambda a: a["analysis"][-40:])
def test_a_tool_that_runs_a_sub_trace_keeps_its_observation(capsys, source, action):
    owner = next(s for s in MANIFEST["sessions"] if action in s.get("actions", []))
    shown = show(capsys, source, owner["session"])
    steps = {s["id"]: s for s in shown["steps"]}
    # the service derived the Observation from the sub-trace's Synthesis, not from the Analysis
    assert action["observation_derived_from"] != action["analysis"]
    analysis = steps[action["analysis"]]
    assert analysis["action"] == action["action"]
    assert analysis["observation"] == DOCUMENTS[action["observation"]]
    # the Observation stays a step of the agent, the sub-trace a sub-session of the Analysis
    assert [s["id"] for s in shown["steps"]] == owner["step_order"]
    assert steps[action["observation"]]["tool_duration_ms"] == action["tool_duration_ms"]
    assert action["sub_session"] in shown["children"]
    sub = show(capsys, source, action["sub_session"])
    assert sub["parent"] == action["analysis"] and sub["parent_session"] == owner["session"]
    assert [s["id"] for s in sub["steps"]] == BY_NAME[next(n for n, s in BY_NAME.items()
                                                           if s["session"] == action["sub_session"])]["step_order"]


def test_stats_count_every_tool_timing(capsys, source):
    numbers = run_json(capsys, "stats", *source, "--all", "--format", "json")
    tools = [a for a in ACTIONS if not a["parse_error"]]
    assert numbers["durations"]["tool"]["calls"] == len(tools) == sum(t["calls"] for t in numbers["tools"].values())
    assert numbers["durations"]["tool"]["max_ms"] == max(a["tool_duration_ms"] for a in tools)
    for name in {a["action"] for a in tools}:
        timings = sorted(a["tool_duration_ms"] for a in tools if a["action"] == name)
        assert numbers["tools"][name]["calls"] == len(timings)
        assert numbers["tools"][name]["max_ms"] == timings[-1]
        assert numbers["tools"][name]["errors"] == sum(1 for a in tools if a["action"] == name and a["tool_error"])


def test_supervisor_findings_by_index_and_goals_in_decomposed_order(capsys, source):
    for expected in (s for s in MANIFEST["sessions"] if s.get("findings")):
        shown = show(capsys, source, expected["session"])
        assert [s["id"] for s in shown["steps"]] == expected["step_order"]
        findings = [s for s in shown["steps"] if s["kind"] == "Finding"]
        assert [f["id"] for f in findings] == [f["finding"] for f in expected["findings"]]
        assert [f["goal"] for f in findings] == [f["goal"] for f in expected["findings"]]
        decomposition = next(s for s in shown["steps"] if s["kind"] == "Decomposition")
        assert decomposition["goals"] == expected["goals"]
        # the sub-agents in the order they were started, one per goal, each deriving from the Decomposition
        assert shown["children"] == expected["children"]
        questions = [show(capsys, source, child)["question"] for child in shown["children"]]
        assert questions == expected["goals"]
        # the findings come as the sub-agents finished: not the order of the goals
        assert [f["goal"] for f in findings] != expected["goals"]


def test_docrag_chunks_with_their_provenance_are_evidence_not_steps(capsys, source):
    for expected in (s for s in MANIFEST["sessions"] if s["mechanism"] == "docrag"):
        shown = show(capsys, source, expected["session"])
        assert [s["id"] for s in shown["steps"]] == expected["step_order"]
        assert not [s for s in shown["steps"] if s["kind"] in EVIDENCE_KINDS]
        assert shown["warnings"] == []
        assert shown["step_count"] == sum(expected["step_counts"].values())
        exploration = next(s for s in shown["steps"] if s["kind"] == "Exploration")
        assert exploration["chunk_count"] == expected["chunk_count"]
        assert sorted(exploration["chunks"]) == sorted(c["chunk"] for c in expected["chunks"])
        focus = [c for s in shown["steps"] if s["kind"] == "Focus" for c in s.get("chunks", [])]
        assert [(c["chunk"], c["score"]) for c in focus] == [(c["chunk"], c["score"])
                                                             for c in expected.get("focus_chunks", [])]


@pytest.mark.long
def test_every_session_reads_as_the_services_wrote_it(capsys, source):
    """Every session with the extraction provenance loaded beside it: no step shared with it, the
    steps in order, the PatternDecision (emitted before the Question) right after the Question,
    a multi-line answer joined with spaces, a sub-agent that answers directly without Analysis."""
    rows = run_json(capsys, "list", *source, "--all", "--format", "json")
    assert sorted(r["id"] for r in rows) == sorted(s["session"] for s in MANIFEST["sessions"])
    for expected in MANIFEST["sessions"]:
        shown = show(capsys, source, expected["session"])
        name = expected["name"]
        assert shown["warnings"] == [], name
        assert [s["id"] for s in shown["steps"]] == expected["step_order"], name
        kinds = [s["kind"] for s in shown["steps"]]
        assert {k: kinds.count(k) for k in kinds} == expected["step_counts"], name
        assert shown["answer"] == expected["answer"], name
        assert shown["parent"] == expected["parent"] and shown["children"] == expected["children"], name
        assert shown["type"].lower() == expected["mechanism"] and shown["pattern"] == expected.get("pattern"), name
        if expected["mechanism"] == "agent":
            assert kinds[0] == "PatternDecision" and shown["steps"][0]["pattern"] == expected["pattern"], name
    direct = [s for s in MANIFEST["sessions"] if s["parent"] and s["mechanism"] == "agent"
              and "Analysis" not in s["step_counts"]]
    assert direct and all(show(capsys, source, s["session"])["steps"][-1]["kind"] == "Conclusion" for s in direct)


def test_thoughts_and_observations_are_their_own_documents(capsys):
    """Thought and Observation entities name their own IRI as ``tg:document``: the Analysis shows
    both texts from the librarian's documents."""
    for expected in (s for s in MANIFEST["sessions"] if s.get("actions")):
        shown = show(capsys, [str(TRACES), str(TEXTS)], expected["session"])
        steps = {s["id"]: s for s in shown["steps"]}
        for action in expected["actions"]:
            observation = steps[action["observation"]]
            assert observation["document"] == action["observation"]
            assert steps[action["analysis"]]["observation"] == DOCUMENTS[action["observation"]]
            thought = action["analysis"] + "/thought"
            if thought in DOCUMENTS:
                assert steps[action["analysis"]]["thought"] == DOCUMENTS[thought]


def test_graphrag_edge_count_counts_the_selected_edges(capsys, source):
    for expected in (s for s in MANIFEST["sessions"] if s.get("edges")):
        shown = show(capsys, source, expected["session"])
        exploration = next(s for s in shown["steps"] if s["kind"] == "Exploration")
        assert exploration["edge_count"] == expected["edge_count"] == len(shown["edges"]) == len(expected["edges"])
        assert [(e["s"], e["p"], e["o"]) for e in shown["edges"]] == [tuple(e["edge"]) for e in expected["edges"]]


def test_an_unreadable_reply_is_not_a_tool(capsys, source):
    for expected in (s for s in MANIFEST["sessions"] if s.get("parse_errors")):
        rows = run_json(capsys, "list", *source, "--all", "--format", "json")
        row = next(r for r in rows if r["id"] == expected["session"])
        assert row["actions"] == expected["tool_order"]
        assert row["parse_errors"] == len(expected["parse_errors"])
        assert row["tool_errors"] == sum(1 for a in expected["actions"] if a["tool_error"] and not a["parse_error"])
        shown = show(capsys, source, expected["session"])
        steps = {s["id"]: s for s in shown["steps"]}
        for action in (a for a in expected["actions"] if a["parse_error"]):
            assert action["action"] == PARSE_ERROR_ACTION
            for part in (action["analysis"], action["observation"]):
                assert "action" not in steps[part] and "error" not in steps[part]
                assert steps[part]["parse_error"] == action["tool_error"]
    numbers = run_json(capsys, "stats", *source, "--all", "--format", "json")
    assert PARSE_ERROR_ACTION not in numbers["tools"]
    assert numbers["parse_errors"] == sum(len(s.get("parse_errors", [])) for s in MANIFEST["sessions"]) == 1
    assert main(["stats", *source, "--all"]) == 0
    assert "could not parse (no tool call): 1" in capsys.readouterr().out


def test_an_unreadable_reply_has_its_own_words(capsys):
    from trace_explorer.read.collection import load_collection
    from trace_explorer.model.reader import read_sessions

    collection, errors = load_collection([TRACES, TEXTS])
    assert errors == []
    sessions = {s.id: s for s in read_sessions(collection)}
    expected = next(s for s in MANIFEST["sessions"] if s.get("parse_errors"))
    session = sessions[expected["session"]]
    analysis = session.nodes[expected["parse_errors"][0]]
    assert tool_note(analysis) == UNPARSED_REPLY
    assert timeline_label(analysis, width=60).endswith(f"Analysis: {UNPARSED_REPLY}")
    assert PARSE_ERROR_ACTION not in node_label(analysis)
    # no failed tool call is drawn: its Observation (typed tg:Error) is not marked as a tool error
    observation = session.nodes[analysis.fields["observation_id"]]
    assert "Error" in {t.rsplit("/", 1)[-1] for t in observation.types} and not has_error(observation)
    rows = waterfall(session, sessions)
    failed = {a["observation"] for a in expected["actions"] if a["tool_error"] and not a["parse_error"]}
    assert {i for i, error in zip(rows.ids, rows.errors) if error} == failed
    assert main(["show", str(TRACES), str(TEXTS), "--session", expected["session"]]) == 0
    text = capsys.readouterr().out
    assert f"tool: {UNPARSED_REPLY}" in text and PARSE_ERROR_ACTION not in text


def test_plan_steps_record_no_tool(capsys):
    expected = next(s for s in MANIFEST["sessions"] if s.get("plan_steps"))
    shown = show(capsys, [str(TRACES), str(TEXTS)], expected["session"])
    results = [s for s in shown["steps"] if s["kind"] == "StepResult"]
    assert [r["id"] for r in results] == [p["step"] for p in expected["plan_steps"]]
    assert all("action" not in r for r in results) and shown["actions"] == []
    assert main(["show", str(TRACES), str(TEXTS), "--session", expected["session"]]) == 0
    assert capsys.readouterr().out.count("tool: no tool recorded") == len(results)


def test_health_counts_an_unreadable_reply_apart(capsys, checked_source):
    """``lint``: the reply the agent could not parse is an info of its own (``unparsed-reply``),
    on its Analysis; nothing else in the whole corpus (the chunks with their provenance loaded
    are no shared steps, and their texts are loaded)."""
    status = main(["lint", *checked_source, "--format", "json", "--fail-on", "warning"])
    found = json.loads(capsys.readouterr().out)
    assert status == 0
    expected = [(s["session"], step) for s in MANIFEST["sessions"] for step in s.get("parse_errors", [])]
    assert [(f["session"], f["step"]) for f in found if f["rule"] == "unparsed-reply"] == expected
    from tests.answer_support_truth import UNSUPPORTED
    unsupported = [f["session"] for f in found if f["rule"] == "unsupported-sentence"]
    assert sorted(unsupported) == sorted(s for s, n in UNSUPPORTED.items() if s in {m["session"] for m in MANIFEST["sessions"]}
                                         for _ in range(n))
    assert [f["severity"] for f in found] == ["info"] * (len(expected) + len(unsupported))


def test_any_extraction_entity_a_step_points_at_stays_evidence():
    """A step that points (``tg:selectedChunk``, ``tg:selectedEdge``, ``tg:thought``) at a page,
    a document, a subgraph or an extracting activity of ``urn:graph:source``: none of them joins
    the session, its steps and their order stay the manifest's, and nothing is shared."""
    import pyoxigraph as ox

    from trace_explorer.model.reader import read_sessions
    from trace_explorer.model.vocabulary import SELECTED_CHUNK, SELECTED_EDGE, THOUGHT
    from trace_explorer.read.collection import load_collection

    collection, errors = load_collection([TRACES, TEXTS])
    assert errors == []
    document = MANIFEST["documents"][0]
    page, chunk = document["pages"][0]["page"], document["pages"][0]["chunks"][0]
    activity = next(q.object for q in collection.store.quads_for_pattern(
        ox.NamedNode(chunk["chunk"]), ox.NamedNode("http://www.w3.org/ns/prov#wasGeneratedBy"), None))
    pointed = [ox.NamedNode(i) for i in (document["document"], page, chunk["subgraph"])] + [activity]
    docrag = next(s for s in MANIFEST["sessions"] if s["mechanism"] == "docrag")
    graphrag = next(s for s in MANIFEST["sessions"] if s.get("edges"))
    agent = next(s for s in MANIFEST["sessions"] if s.get("actions"))
    exploration = next(i for i in docrag["step_order"] if i.endswith("/exploration"))
    focus = next(i for i in graphrag["step_order"] if ":focus:" in i)
    retrieval = ox.NamedNode("urn:graph:retrieval")
    for subject, predicate in ((exploration, SELECTED_CHUNK), (focus, SELECTED_EDGE),
                               (agent["actions"][0]["analysis"], THOUGHT)):
        collection.store.extend(ox.Quad(ox.NamedNode(subject), ox.NamedNode(predicate), o, retrieval) for o in pointed)
    sessions = {s.id: s for s in read_sessions(collection)}
    for expected in (docrag, graphrag, agent):
        session = sessions[expected["session"]]
        assert [s.id for s in session.steps] == expected["step_order"]
        assert not {p.value for p in pointed} & set(session.nodes)
        assert session.warnings == []
