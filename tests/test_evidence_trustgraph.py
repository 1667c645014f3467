"""Evidence lineage on a TrustGraph gateway (the stand-in deployment, ``tests/trustgraph_server.py``,
serving ``evidence.trig`` and its texts), with the flow's SPARQL service and without it: the
``evidence`` and ``used-by`` JSON equal the JSON the same traces give from files, and the
corpus manifest's values; the lookups take the SPARQL service only when the flow runs it;
many patterns of one predicate are read whole, and a read cut at the limit falls back."""

from __future__ import annotations

import json

import pyoxigraph as ox
import pytest

from tests.evidence_traces import (AGENT, BRONZE, DOCRAG_PLAIN, DOCRAG_RERANKED, EVIDENCE, EVIDENCE_TEXTS,
                                   GRAPHRAG_BRONZE, GRAPHRAG_TRAPPIST, SUB_GRAPHRAG, TIN, TRAPPIST, docrag_trig,
                                   reified_trig)
from tests.test_evidence import EXPECTED, WITH_EVIDENCE, expected_edges, files_source
from tests.test_evidence_cli import USED_TRAPPIST
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, FakeGateway, corpus_deployment, gateway_args
from trace_explorer.analysis.evidence.evidence import session_evidence
from trace_explorer.analysis.evidence.report import evidence_record
from trace_explorer.analysis.evidence.used_by import used_by
from trace_explorer.cli.main import main
from trace_explorer.model.vocabulary import SOURCE_GRAPH, WAS_DERIVED_FROM
from trace_explorer.sources.trustgraph import patterns as trustgraph_patterns
from trace_explorer.index.catalog import fetch_session
from trace_explorer.sources.source import SourceError
from trace_explorer.sources.trustgraph.source import TrustGraphSource
from trace_explorer.sources.trustgraph.gateway import Gateway
from trace_explorer.sources.trustgraph.patterns import PatternRounds, about

FILES = [str(EVIDENCE), str(EVIDENCE_TEXTS)]
MODES = {"sparql": True, "patterns": False}
SESSIONS = [s["session"] for s in WITH_EVIDENCE] + [AGENT]
USED_BRONZE = [{"id": GRAPHRAG_BRONZE, "via": "urn:trustgraph:prov:focus:6ea330a1-a66d-48b5-91a4-c01ea887ae22",
                "edges": 2, "chunks": 0}]


@pytest.fixture(scope="module", params=list(MODES))
def gateway(request):
    """``evidence.trig`` and its texts in a stand-in deployment, with or without SPARQL."""
    server = FakeGateway(*corpus_deployment([EVIDENCE, EVIDENCE_TEXTS]), sparql=MODES[request.param])
    server.start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def token(monkeypatch):
    monkeypatch.setenv("TRUSTGRAPH_TOKEN", TOKEN)


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def both(capsys, server: FakeGateway, *argv) -> tuple[str, str]:
    """The output of one command on files and on the gateway (each must succeed)."""
    outputs = []
    for where in (FILES, gateway_args(server.url)):
        status, out, err = run(capsys, argv[0], *where, *argv[1:])
        assert status == 0, err
        outputs.append(out)
    return outputs[0], outputs[1]


def connect(server: FakeGateway) -> TrustGraphSource:
    return TrustGraphSource(Gateway(server.url, TOKEN, flow=FLOW, collection=COLLECTION), eager_texts=True)


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s[-12:])
def test_evidence_json_and_text_equal_the_files(capsys, gateway, session):
    on_files, on_gateway = both(capsys, gateway, "evidence", "--session", session, "--format", "json")
    assert json.loads(on_gateway) == json.loads(on_files)
    expected = EXPECTED[SUB_GRAPHRAG if session == AGENT else session]
    assert json.loads(on_gateway) == {"session": session, "edges": expected_edges(expected), "chunks": [],
                                      "documents": expected["documents_used"]}
    text_files, text_gateway = both(capsys, gateway, "evidence", "--session", session)
    assert text_gateway == text_files


def test_the_edge_no_document_holds_gives_nulls(capsys, gateway):
    _, out, _ = run(capsys, "evidence", *gateway_args(gateway.url), "--session", GRAPHRAG_BRONZE, "--format", "json")
    [tin] = [e for e in json.loads(out)["edges"] if (e["s"], e["p"], e["o"]) == TIN]
    assert tin == dict(zip(("s", "p", "o"), TIN), subgraph=None, chunk=None, page=None, document=None, title=None,
                       chunk_text=None)


@pytest.mark.parametrize("document, expected", [(TRAPPIST, USED_TRAPPIST), (BRONZE, USED_BRONZE)])
def test_used_by_json_and_text_equal_the_files(capsys, gateway, document, expected):
    on_files, on_gateway = both(capsys, gateway, "used-by", "--document", document, "--format", "json")
    assert json.loads(on_gateway) == json.loads(on_files) == expected
    assert both(capsys, gateway, "used-by", "--document", document)[1] == \
        both(capsys, gateway, "used-by", "--document", document)[0]


def test_an_unknown_document_is_used_by_nothing(capsys, gateway):
    status, out, err = run(capsys, "used-by", *gateway_args(gateway.url), "--document",
                           "https://trustgraph.ai/doc/none", "--format", "json")
    assert status == 0 and json.loads(out) == []
    assert "holds nothing about https://trustgraph.ai/doc/none" in err


def test_the_documents_list_equals_the_files(gateway):
    files = files_source(EVIDENCE, EVIDENCE_TEXTS).lineage()
    lookups = connect(gateway).lineage()
    assert lookups.list_documents() == files.list_documents()
    assert [d["title"] for d in lookups.list_documents()] == ["The Late Bronze Age collapse",
                                                              "Trappist breweries of Belgium"]
    assert lookups.list_documents(limit=1, offset=1) == files.list_documents(limit=1, offset=1)


def test_lookups_take_the_sparql_service_only_when_the_flow_runs_it(gateway):
    source = connect(gateway)
    session = fetch_session(source, GRAPHRAG_TRAPPIST)
    mark = len(gateway.log)
    session_evidence(source, session)
    used_by(source, TRAPPIST)
    services = {path.rsplit("/", 1)[-1] for path, _, _ in gateway.log[mark:]}
    assert services == ({"triples", "sparql-query", "librarian"} if gateway.sparql else {"triples", "librarian"})


@pytest.mark.parametrize("mode", list(MODES))
def test_docrag_chunks_and_reifies_statements_on_a_gateway(tmp_path, mode):
    """The older ``tg:reifies`` spelling of the extraction and DocRAG sessions that chose its
    chunks: the same evidence and uses as from files."""
    reified, docrag = tmp_path / "reified.trig", tmp_path / "docrag.trig"
    reified.write_text(reified_trig(), encoding="utf-8")
    docrag.write_text(docrag_trig(), encoding="utf-8")
    paths = [reified, EVIDENCE_TEXTS, docrag]
    files = files_source(*paths)
    server = FakeGateway(*corpus_deployment(paths), sparql=MODES[mode])
    server.start()
    try:
        source = connect(server)
        for root in (DOCRAG_RERANKED, DOCRAG_PLAIN, GRAPHRAG_TRAPPIST):
            record = evidence_record(session_evidence(source, fetch_session(source, root)))
            assert record == evidence_record(session_evidence(files, fetch_session(files, root)))
        assert [c["chunk"] for c in record_chunks(source, DOCRAG_RERANKED)] == [
            "urn:chunk:16ac4191-a26a-40ae-844f-1574f037afc6", "urn:chunk:c26e7a42-87f5-4ddd-8e14-d571a0f096da"]
        for document in (TRAPPIST, BRONZE):
            assert [u.record() for u in used_by(source, document)] == [u.record() for u in used_by(files, document)]
        assert {u.id: u.chunks for u in used_by(source, BRONZE)} == {DOCRAG_RERANKED: 1, GRAPHRAG_BRONZE: 0}
    finally:
        server.stop()


def record_chunks(source, root: str) -> list[dict]:
    return evidence_record(session_evidence(source, fetch_session(source, root)))["chunks"]


def test_many_patterns_of_a_predicate_are_read_whole_and_a_cut_read_falls_back(gateway, monkeypatch):
    entities = sorted({q.subject.value for q in gateway.store.quads_for_pattern(None, None, None, ox.NamedNode(SOURCE_GRAPH))
                       if isinstance(q.subject, ox.NamedNode)})
    patterns = [about(e, SOURCE_GRAPH, WAS_DERIVED_FROM) for e in entities]
    client = Gateway(gateway.url, TOKEN, flow=FLOW, collection=COLLECTION)
    rounds = PatternRounds(client, lambda: False)
    one_each = rounds.ask(patterns)
    assert client.requests == len(patterns)
    assert sum(len(q) for q in one_each.values()) == len(list(gateway.store.quads_for_pattern(
        None, ox.NamedNode(WAS_DERIVED_FROM), None, ox.NamedNode(SOURCE_GRAPH))))
    monkeypatch.setattr(trustgraph_patterns, "SCAN_ABOVE", 4)
    before = client.requests
    assert rounds.ask(patterns) == one_each
    assert client.requests - before == 1  # the predicate read whole
    monkeypatch.setattr(trustgraph_patterns, "SCAN_FACTOR", 0.05)  # a read cut short
    before = client.requests
    assert rounds.ask(patterns) == one_each
    assert client.requests - before == 1 + len(patterns)


def test_a_gateway_failing_during_the_lineage_is_one_clear_error(capsys):
    server = FakeGateway(*corpus_deployment([EVIDENCE, EVIDENCE_TEXTS]))
    server.start()
    try:
        source = connect(server)
        session = fetch_session(source, GRAPHRAG_TRAPPIST)
        server.fail_after = server.requests  # every further request fails
        with pytest.raises(SourceError, match=r"service/triples: HTTP 500: .*the deployment went away"):
            session_evidence(source, session)
        status, out, err = run(capsys, "used-by", *gateway_args(server.url), "--document", TRAPPIST)
        assert status == 2 and out == ""
        assert "HTTP 500" in err and "Traceback" not in err and TOKEN not in err
    finally:
        server.stop()
