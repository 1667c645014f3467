"""The trace model on corpus data: the six faults of today's tools never happen here, steps come
in order with parsed fields, and each session is a networkx DiGraph in PROV's direction."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import networkx as nx

from tests.conftest import CORPUS, manifest_sessions
from trace_explorer.cli.main import main
from trace_explorer.model.ordering import natural_key
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import TraceStore

TWELVE_STEPS = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
RERANKED_DOCRAG = "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
AGENT_WITH_SUBTRACE = "urn:trustgraph:agent:fa7f0eab-4c4f-4b06-8732-2e25c215a82a"
GRAPHRAG_SUBTRACE = "urn:trustgraph:question:332dd331-3a0b-4965-8da6-c6fdbd685167"


def manifest_entry(iri: str) -> dict:
    return next(s for s in manifest_sessions() if s["session"] == iri)


def test_fault_1_pattern_decision_session_shows_every_step(corpus_sessions):
    session = corpus_sessions[TWELVE_STEPS]
    expected = manifest_entry(TWELVE_STEPS)
    assert [s.kind for s in session.steps[:3]] == ["PatternDecision", "Analysis", "Observation"]
    assert len(session.steps_of("Analysis")) == expected["analysis_steps"] == 12
    assert len(session.steps_of("Observation")) == 12
    assert session.steps[-1].kind == "Conclusion"
    assert session.steps[-1].fields["termination_reason"] == "max-iterations"


def test_fault_2_reranked_docrag_keeps_its_answer(corpus_sessions):
    session = corpus_sessions[RERANKED_DOCRAG]
    documents = json.loads((CORPUS / "collection.documents.json").read_text(encoding="utf-8"))
    assert [s.kind for s in session.steps] == ["Grounding", "Exploration", "Focus", "Synthesis"]
    assert session.answer_id == RERANKED_DOCRAG + "/synthesis"
    assert session.answer == documents[session.steps[-1].fields["document"]]
    chunks = session.steps_of("Focus")[0].fields["chunks"]
    assert [c["score"] for c in chunks] == [0.9, 0.8, 0.7]


def test_fault_3_plan_steps_in_numeric_order(corpus_sessions):
    session = corpus_sessions[PLAN]
    results = session.steps_of("StepResult")
    assert [r.id.rsplit("/", 1)[1] for r in results] == [str(i) for i in range(11)]
    assert [r.fields["plan_step"] for r in results] == manifest_entry(PLAN)["plan_steps"]
    assert session.steps_of("Plan")[0].fields["plan_steps"] == manifest_entry(PLAN)["plan_steps"]


def test_fault_4_supervisor_findings_are_reached(corpus_sessions):
    session = corpus_sessions[SUPERVISOR]
    expected = manifest_entry(SUPERVISOR)
    findings = session.steps_of("Finding")
    assert len(findings) == expected["findings"]
    synthesis = session.steps_of("Synthesis")[0]
    assert sorted(synthesis.parents) == sorted(f.id for f in findings)
    assert len(synthesis.parents) == expected["synthesis_parents"]
    assert session.answer_id == synthesis.id
    # the real DAG: Synthesis -> Finding -> sub-session -> Decomposition
    decomposition = session.steps_of("Decomposition")[0]
    for child in session.children:
        assert nx.has_path(session.graph, synthesis.id, child)
        assert session.graph.edges[child, decomposition.id]["relation"] == "wasDerivedFrom"
    # the Findings belong to the supervisor, not to the sub-sessions they derive from
    for child in session.children:
        assert not corpus_sessions[child].steps_of("Finding")


def test_fault_5_json_of_an_agent_session_with_a_subtrace(capsys):
    status = main(["show", str(CORPUS / "orchestrated.nq"), "--session", AGENT_WITH_SUBTRACE, "--format", "json"])
    shown = json.loads(capsys.readouterr().out)
    assert status == 0
    assert shown["children"] == [GRAPHRAG_SUBTRACE]
    sub = json.loads(json.dumps(shown))  # the whole thing is plain JSON
    assert [s["kind"] for s in sub["steps"]].count("Analysis") == 2


def test_subtrace_knows_its_parent_step_and_session(corpus_sessions):
    sub = corpus_sessions[GRAPHRAG_SUBTRACE]
    assert sub.parent == AGENT_WITH_SUBTRACE + "/i1"
    assert sub.parent_session == AGENT_WITH_SUBTRACE
    assert corpus_sessions[AGENT_WITH_SUBTRACE].graph.edges[GRAPHRAG_SUBTRACE, AGENT_WITH_SUBTRACE + "/i1"]


def test_ties_break_by_the_number_in_the_iri():
    assert natural_key("x/i2") < natural_key("x/i10")
    assert natural_key("x/step/2") < natural_key("x/step/10")
    assert sorted(["/step/10", "/step/2", "/step/1"], key=natural_key) == ["/step/1", "/step/2", "/step/10"]


def test_twelve_step_session_in_order_with_parsed_fields(corpus_sessions):
    session = corpus_sessions[TWELVE_STEPS]
    analyses = session.steps_of("Analysis")
    assert [a.fields["step_number"] for a in analyses] == list(range(1, 13))
    assert [a.id.rsplit("/", 1)[1] for a in analyses] == [f"i{n}" for n in range(1, 13)]
    first = analyses[0]
    assert first.fields["llm_duration_ms"] == 7864 and isinstance(first.fields["llm_duration_ms"], int)
    assert first.fields["arguments"] == {"expression": "5642 - 4808"}
    assert first.fields["in_tokens"] == 1655 and first.fields["model"] == "gpt-4o-mini"
    assert first.fields["thought"] == "Step 1: I should use calculator to learn about Elbrus."
    failed = analyses[1]
    assert failed.fields["error"] == "mcp:weather failed: upstream timed out after 30 s"
    assert session.nodes[failed.fields["observation_id"]].fields["tool_duration_ms"] == 686
    assert session.time == datetime(2026, 3, 9, 15, 2, 3, tzinfo=timezone.utc)
    assert session.tool_errors == 1


def test_graphrag_edge_selections_with_scores(corpus_sessions):
    expected = manifest_entry("urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6")
    session = corpus_sessions[expected["session"]]
    edges = session.steps_of("Focus")[0].fields["edges"]
    assert [[e["s"], e["p"], e["o"]] for e in edges] == expected["selected_edges"]
    assert [e["score"] for e in edges] == [0.99, 0.92, 0.85, 0.78]
    assert edges[1]["o_is_literal"] and not edges[0]["o_is_literal"]
    assert session.steps_of("Exploration")[0].fields["edge_count"] == 28


def test_session_graph_is_a_dag_in_prov_direction(corpus_sessions):
    for session in corpus_sessions.values():
        assert isinstance(session.graph, nx.DiGraph)
        assert nx.is_directed_acyclic_graph(session.graph)
        assert set(session.order) == set(session.graph.nodes)
        for step in session.steps:
            assert step.id in session.graph
    twelve = corpus_sessions[TWELVE_STEPS]
    assert twelve.graph.edges[TWELVE_STEPS + "/i2", TWELVE_STEPS + "/i1/observation"]["relation"] == "wasDerivedFrom"
    assert twelve.graph.edges[TWELVE_STEPS + "/i1/thought", TWELVE_STEPS + "/i1"]["relation"] == "wasDerivedFrom"
    assert twelve.graph.number_of_nodes() == 1 + 1 + 12 * 3 + 1  # question, decision, 12 x (analysis, thought, observation), conclusion


def test_seed_docrag_hangs_off_its_question_by_was_generated_by(corpus_sessions):
    iri = "urn:trustgraph:docrag:8d116ece-1738-47d9-bd9c-172411e20b8f"
    session = corpus_sessions[iri]
    assert session.graph.edges[iri + "/exploration", iri]["relation"] == "wasGeneratedBy"
    assert session.steps_of("Exploration")[0].fields["chunks"] == ["chunk-id-1", "chunk-id-2", "chunk-id-3"]
    assert session.shape == "seed" and session.root.prov_class == "Activity"


MISSING_SUBTYPE = b"""
@prefix tg: <https://trustgraph.ai/ns/> . @prefix prov: <http://www.w3.org/ns/prov#> .
<urn:x:1> a tg:Question ; tg:query "plan?" ; prov:startedAtTime "not a time" .
<urn:x:1/plan> a tg:Plan ; prov:wasDerivedFrom <urn:x:1> ; tg:planStep "b", "a" .
<urn:x:1/step/10> prov:wasDerivedFrom <urn:x:1/plan> ; tg:planStep "b" ; tg:inToken "many" .
<urn:x:1/step/2> prov:wasDerivedFrom <urn:x:1/plan> ; tg:planStep "a" .
<urn:x:2> a tg:Question ; tg:query "edges?" .
<urn:x:2/exploration> a tg:Exploration ; prov:wasDerivedFrom <urn:x:2> ; tg:edgeCount "3" .
<urn:x:3> a tg:Question ; tg:query "react?" .
<urn:x:3/i1> prov:wasDerivedFrom <urn:x:3> ; tg:action "search" ; tg:arguments "{not json" .
"""


def test_without_subtype_or_uri_pattern_the_steps_decide():
    collection = TraceStore()
    collection.add_file("odd.ttl", MISSING_SUBTYPE)
    sessions = {s.id: s for s in read_sessions(collection)}
    plan = sessions["urn:x:1"]
    assert (plan.mechanism, plan.pattern) == ("Agent", "plan-then-execute")
    assert [s.kind for s in plan.steps] == ["Plan", "StepResult", "StepResult"]
    assert [s.id for s in plan.steps_of("StepResult")] == ["urn:x:1/step/2", "urn:x:1/step/10"]
    assert plan.time is None and any("not an ISO-8601 time" in w for w in plan.warnings)
    assert any("'many' is not a number" in w for w in plan.warnings)
    assert sessions["urn:x:2"].mechanism == "GraphRAG"
    react = sessions["urn:x:3"]
    assert (react.mechanism, react.pattern, react.actions) == ("Agent", "react", ["search"])
    assert react.steps[0].fields["arguments"] == "{not json"
    assert any("arguments is not JSON" in w for w in react.warnings)


EDGE_WITH_SOURCE = b"""
@prefix tg: <https://trustgraph.ai/ns/> . @prefix prov: <http://www.w3.org/ns/prov#> .
@prefix dc: <http://purl.org/dc/elements/1.1/> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<urn:trustgraph:question:q> a tg:Question, tg:GraphRagQuestion ; tg:query "where from?" .
<urn:trustgraph:prov:focus:q> a tg:Focus ; prov:wasDerivedFrom <urn:trustgraph:question:q> ;
    tg:selectedEdge <urn:trustgraph:prov:edge:q:0> .
<urn:trustgraph:prov:edge:q:0> a tg:EdgeSelection ; tg:edge << <http://e/a> <http://e/p> "fact" >> ; tg:score "0.5" .
<https://trustgraph.ai/subgraph/1> a tg:Subgraph ; tg:contains << <http://e/a> <http://e/p> "fact" >> ;
    prov:wasDerivedFrom <urn:chunk:1> .
<urn:chunk:1> a tg:Chunk ; rdfs:label "Chunk 0" ; prov:wasDerivedFrom <urn:page:1> .
<urn:page:1> a tg:Page ; rdfs:label "Page 3" ; prov:wasDerivedFrom <http://doc/1> .
<http://doc/1> a tg:Document ; dc:title "Field notes" .
<http://e/a> rdfs:label "Alpha" .
"""


def test_a_chosen_edge_is_traced_back_to_its_document():
    collection = TraceStore()
    collection.add_file("edge-source.ttl", EDGE_WITH_SOURCE)
    session = read_sessions(collection)[0]
    edge = session.steps_of("Focus")[0].fields["edges"][0]
    assert (edge["s_label"], edge["o"], edge["score"]) == ("Alpha", "fact", 0.5)
    assert [[(link["kind"], link["label"]) for link in chain] for chain in edge["sources"]] == [
        [("Subgraph", None), ("Chunk", "Chunk 0"), ("Page", "Page 3"), ("Document", "Field notes")]]


CYCLE = b"""
@prefix tg: <https://trustgraph.ai/ns/> . @prefix prov: <http://www.w3.org/ns/prov#> .
<urn:trustgraph:agent:c> a tg:Question, tg:AgentQuestion ; tg:query "loop?" .
<urn:trustgraph:agent:c/i1> a tg:Analysis ; prov:wasDerivedFrom <urn:trustgraph:agent:c>, <urn:trustgraph:agent:c/i2> ; tg:action "a" .
<urn:trustgraph:agent:c/i2> a tg:Analysis ; prov:wasDerivedFrom <urn:trustgraph:agent:c/i1> ; tg:action "b" .
<urn:trustgraph:agent:c/final> a tg:Conclusion ; prov:wasDerivedFrom <urn:trustgraph:agent:c/i2> ; tg:answer "done" .
"""


def test_a_cycle_in_the_derivations_is_a_warning_and_the_rest_stays_in_order():
    collection = TraceStore()
    collection.add_file("cycle.ttl", CYCLE)
    session = read_sessions(collection)[0]
    assert [s.id.rsplit("/", 1)[1] for s in session.steps] == ["i1", "i2", "final"]
    assert session.actions == ["a", "b"] and session.answer == "done"
    assert any("cycle" in w for w in session.warnings)


SHARED_STEP = b"""@prefix tg: <https://trustgraph.ai/ns/> .
@prefix prov: <http://www.w3.org/ns/prov#> .
<urn:trustgraph:question:a> a tg:Question, tg:GraphRagQuestion ; tg:query "first" ; prov:startedAtTime "2026-05-01T07:00:00Z" .
<urn:trustgraph:question:b> a tg:Question, tg:GraphRagQuestion ; tg:query "second" ; prov:startedAtTime "2026-05-01T06:00:00Z" .
<urn:trustgraph:prov:grounding:a> a tg:Grounding ; prov:wasDerivedFrom <urn:trustgraph:question:a> .
<urn:trustgraph:prov:grounding:b> a tg:Grounding ; prov:wasDerivedFrom <urn:trustgraph:question:b> .
<urn:trustgraph:prov:synthesis:x> a tg:Synthesis ; prov:wasDerivedFrom <urn:trustgraph:prov:grounding:a>, <urn:trustgraph:prov:grounding:b> .
<urn:trustgraph:question:c> tg:query "untyped" .
"""


def test_a_step_two_sessions_claim_is_a_warning_on_both_and_an_untyped_root_is_named():
    collection = TraceStore()
    collection.add_file("shared.ttl", SHARED_STEP)
    sessions = {s.id: s for s in read_sessions(collection)}
    first, second = sessions["urn:trustgraph:question:a"], sessions["urn:trustgraph:question:b"]
    # the first root read claims the step; both sessions say so
    assert [s.id for s in first.steps] == ["urn:trustgraph:prov:grounding:a", "urn:trustgraph:prov:synthesis:x"]
    assert first.warnings == ["urn:trustgraph:prov:synthesis:x: also derives from urn:trustgraph:prov:grounding:b "
                              "(a step of session urn:trustgraph:question:b); it is shown in this session"]
    assert second.warnings == ["urn:trustgraph:prov:synthesis:x: derives from urn:trustgraph:prov:grounding:b of "
                               "this session, but is shown in session urn:trustgraph:question:a"]
    assert sessions["urn:trustgraph:question:c"].warnings == [
        "urn:trustgraph:question:c: the session root has no rdf:type (expected tg:Question and a subtype); it was "
        "found by its tg:query and IRI, and read as GraphRAG"]


def test_a_cycle_warning_names_the_steps_on_it():
    collection = TraceStore()
    collection.add_file("cycle.ttl", CYCLE)
    session = read_sessions(collection)[0]
    cycle = [w for w in session.warnings if "cycle" in w]
    assert len(cycle) == 1 and f"{session.id}/i1, {session.id}/i2" in cycle[0]


def test_the_text_of_a_session_lists_its_own_warnings_once():
    from trace_explorer.views.report import session_text

    collection = TraceStore()
    collection.add_file("shared.ttl", SHARED_STEP)
    sessions = {s.id: s for s in read_sessions(collection)}
    text = session_text(sessions["urn:trustgraph:question:b"])
    assert ("Warnings:\n    urn:trustgraph:prov:synthesis:x: derives from urn:trustgraph:prov:grounding:b of this "
            "session, but is shown in session urn:trustgraph:question:a\n") in text
    cycle = TraceStore()
    cycle.add_file("cycle.ttl", CYCLE)
    text = session_text(read_sessions(cycle)[0])
    assert text.count("the derivations form a cycle") == 1 and "\nWarnings:\n" in text
