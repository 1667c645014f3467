"""Answer support: the matcher on the labelled set (the issue's targets), its parts (numbers,
sentences, evidence texts) and the JSON contract on demo sessions, through the command line."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tests.conftest import demo_sessions
from trace_explorer.analysis.support.evidence import edge_text, session_sources
from trace_explorer.analysis.support.sentences import split_sentences
from trace_explorer.analysis.support.support import session_support, step_support
from trace_explorer.analysis.support.words import text_words
from trace_explorer.cli.main import main
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection
from trace_explorer.sources.demo import demo_paths

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("benchmark_answer_support", REPO / "benchmarks" / "answer_support.py")
bench = importlib.util.module_from_spec(_spec)
sys.modules["benchmark_answer_support"] = bench
_spec.loader.exec_module(bench)

AGE_EDGE = "urn:trustgraph:question:4b265ce1-6dda-4a8d-ae8e-4124f8728de6"
FOCUS = "urn:trustgraph:prov:focus:4b265ce1-6dda-4a8d-ae8e-4124f8728de6"
SUPERVISOR = "urn:trustgraph:agent:5ed00065-aae1-42a4-98cb-1f5634d607b4"
WARRANTY = "urn:trustgraph:docrag:67f9d054-d3a9-4268-80a3-e212c205d168"
ELBRUS_26 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"


@pytest.fixture(scope="module")
def demo():
    collection, errors = load_collection(list(demo_paths()))
    assert errors == []
    return collection, {s.id: s for s in read_sessions(collection)}


def test_labelled_set_meets_the_targets():
    cases = bench.labelled_cases()
    figures = bench.score(cases, vectors=bench.word_vectors())
    assert figures["sentences"] == 138 and figures["unsupported"] == 67
    assert figures["pairs"] >= 0.9
    assert figures["cited"] >= 0.5
    assert figures["flag_precision"] >= 0.8 and figures["flag_recall"] >= 0.8


def test_plain_word_overlap_misses_invented_sentences():
    cases = bench.labelled_cases()
    _, figures = bench._best(cases, bench.VARIANTS["plain word overlap"], None)
    assert figures["flag_recall"] < 0.8


def test_labelled_answers_split_into_their_sentences():
    for case in bench.labelled_cases():
        spans = split_sentences(case["answer"])
        assert [case["answer"][a:b] for a, b in spans] == [s["text"] for s in case["sentences"]], case["id"]


@pytest.mark.parametrize("a, b", [("Elbrus (5,642 m)", "Elbrus 5642 metres"), ("1 642 м", "1642 metres"),
                                  ("37.4 million", "37,400,000"), ("3,2 millones", "3.200.000"),
                                  ("ten years", "10 years"), ("1.233 Kilometer", "1233 km")])
def test_numbers_and_units_written_differently_share_keys(a, b):
    def keys(text):
        return [w.key for w in text_words(text, "en") if not w.stop]
    assert keys(a) == keys(b)


def test_edge_text_reads_labels_then_iri_names():
    assert edge_text({"s": "http://trustgraph.ai/e/baikal", "p": "http://trustgraph.ai/e/maximumDepth",
                      "o": "1642 metres", "o_is_literal": True, "s_label": "Lake Baikal"}) \
        == "Lake Baikal maximum depth 1642 metres"
    assert edge_text({"s": "http://trustgraph.ai/e/westmalle-abbey", "p": "http://trustgraph.ai/e/order",
                      "o": "http://trustgraph.ai/e/trappists", "o_is_literal": False}) == "westmalle abbey order trappists"


def test_graphrag_sentence_is_backed_by_both_selected_edges(demo):
    collection, sessions = demo
    support = session_support(sessions[AGE_EDGE], collection.documents)
    [sentence] = support.sentences
    assert (sentence.start, sentence.end, sentence.supported) == (0, 86, True)
    edges = [b.source.edge for b in sentence.support]
    assert edges == [("http://trustgraph.ai/e/baikal", "http://trustgraph.ai/e/age", "about 25 million years"),
                     ("http://trustgraph.ai/e/omul", "http://trustgraph.ai/e/endemicTo", "http://trustgraph.ai/e/baikal")]
    assert {b.source.step for b in sentence.support} == {FOCUS}
    first = sentence.support[0]
    assert first.source.text == "Lake Baikal age about 25 million years"
    assert [first.source.text[a:b] for a, b in first.spans] == ["Lake Baikal age", "25 million years"]
    assert step_support(support)[FOCUS]["sentences"] == [0]


def test_supervisor_sentences_are_backed_by_their_findings(demo):
    collection, sessions = demo
    support = session_support(sessions[SUPERVISOR], collection.documents)
    steps = [[b.source.step.rsplit("/", 2)[-2:] for b in s.support] for s in support.sentences]
    assert steps == [[["finding", "0"], ["finding", "1"]], [["finding", "2"]]]
    assert all(s.supported for s in support.sentences)
    answer = sessions[SUPERVISOR].answer
    assert [answer[s.start:s.end] for s in support.sentences] == [s.text for s in support.sentences]


def test_exploration_chunks_are_read_from_the_content_files(demo):
    collection, sessions = demo
    kinds = [(s.kind, s.chunk) for s in session_sources(sessions[WARRANTY], collection.documents)]
    assert kinds == [("Chunk", "urn:chunk:5dbbcf7c-225d-4050-bc82-8906c03dd4d3"),
                     ("Chunk", "urn:chunk:c1a54922-e27c-4421-8989-926f84b8b5fc")]
    support = session_support(sessions[WARRANTY], collection.documents)
    assert [b.source.chunk for b in support.sentences[0].support] == ["urn:chunk:c1a54922-e27c-4421-8989-926f84b8b5fc"]


def test_answer_with_facts_no_step_holds_is_unsupported(demo):
    collection, sessions = demo
    session = sessions[ELBRUS_26]
    assert len(session.steps) == 26
    support = session_support(session, collection.documents)
    assert [(s.supported, s.missing) for s in support.sentences] == [(False, ["5,642", "5,642"])]


def test_every_demo_answer_is_cut_into_sentences_that_cover_it(demo):
    collection, sessions = demo
    answers = {s["session"]: s["answer"] for s in demo_sessions() if s.get("answer")}
    for iri, answer in answers.items():
        support = session_support(sessions[iri], collection.documents)
        assert support.answer == answer
        assert support.sentences and all(answer[s.start:s.end] == s.text for s in support.sentences)


def test_cli_json_is_the_contract(capsys):
    assert main(["support", "--demo", "--session", "4b265ce1", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert set(record) == {"session", "answer", "sentences"}
    assert record["session"] == AGE_EDGE
    [sentence] = record["sentences"]
    assert set(sentence) == {"text", "start", "end", "supported", "support"}
    assert [set(s) for s in sentence["support"]] == [{"step", "kind", "score", "chunk", "edge", "spans"}] * 2
    assert sentence["support"][0] | {"score": None} == {
        "step": FOCUS, "kind": "Edge", "score": None, "chunk": None,
        "edge": ["http://trustgraph.ai/e/baikal", "http://trustgraph.ai/e/age", "about 25 million years"],
        "spans": [[0, 15], [22, 38]]}
    assert 0 < sentence["support"][0]["score"] <= 1


def test_cli_text_names_unsupported_sentences(capsys):
    assert main(["support", "--demo", "--session", "62c33a4f"]) == 0
    out = capsys.readouterr().out
    assert "UNSUPPORTED: nothing in this trace supports it (not found: 5,642)" in out
    assert out.endswith("1 sentence, 1 unsupported\n")


def test_cli_json_on_a_docrag_exploration_names_the_chunk(capsys):
    assert main(["support", "--demo", "--session", "67f9d054", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    [backing] = record["sentences"][0]["support"]
    assert (backing["kind"], backing["chunk"], backing["edge"]) == (
        "Chunk", "urn:chunk:c1a54922-e27c-4421-8989-926f84b8b5fc", None)
    assert backing["step"] == WARRANTY + "/exploration"


def test_the_demo_answers_nothing_backs_are_those_read_by_hand(demo):
    from tests.answer_support_truth import UNSUPPORTED
    collection, sessions = demo
    found = {}
    for iri, session in sessions.items():
        count = len(session_support(session, collection.documents).unsupported)
        if count:
            found[iri] = count
    assert found == UNSUPPORTED


SOURCES_SESSIONS = [WARRANTY, AGE_EDGE, SUPERVISOR]


@pytest.fixture(scope="module")
def service_sources(tmp_path_factory):
    """The services' corpus as each kind of source: CLI arguments by name (files, a local store,
    a SPARQL endpoint holding the texts in its documents graph, a TrustGraph gateway)."""
    import pyoxigraph as ox

    from tests.conftest import SERVICES_FILES
    from tests.sparql_server import SparqlServer
    from tests.trustgraph_server import TOKEN, FakeGateway, corpus_deployment, gateway_args
    from trace_explorer.model.vocabulary import CONTENT
    from trace_explorer.sources.local_store import ingest_file, open_local_store
    from trace_explorer.sources.source import DOCUMENTS_GRAPH

    folder = tmp_path_factory.mktemp("support-store")
    with open_local_store(folder) as store:
        for path in SERVICES_FILES:
            ingest_file(store, str(path))
    collection, errors = load_collection(SERVICES_FILES)
    assert errors == []
    dataset = ox.Store()
    dataset.extend(list(collection.store))
    dataset.extend(ox.Quad(ox.NamedNode(d), ox.NamedNode(CONTENT), ox.Literal(t), ox.NamedNode(DOCUMENTS_GRAPH))
                   for d, t in collection.documents.items())
    gateway = FakeGateway(*corpus_deployment(SERVICES_FILES))
    with SparqlServer({None: dataset}) as endpoint:
        yield {"files": [str(p) for p in SERVICES_FILES], "store": ["--store", str(folder)],
               "endpoint": ["--endpoint", endpoint.url], "trustgraph": gateway_args(gateway.start()),
               "token": TOKEN}
    gateway.stop()


@pytest.mark.parametrize("kind", ["store", "endpoint", "trustgraph"])
def test_every_source_gives_the_json_files_give(capsys, monkeypatch, service_sources, kind):
    monkeypatch.setenv("TRUSTGRAPH_TOKEN", service_sources["token"])
    for session in SOURCES_SESSIONS:
        assert main(["support", *service_sources["files"], "--session", session, "--format", "json"]) == 0
        expected = json.loads(capsys.readouterr().out)
        assert main(["support", *service_sources[kind], "--session", session, "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out) == expected
        assert all(s["supported"] and s["support"] for s in expected["sentences"]), session
