"""The session list and single sessions answered by queries on a source, against the manifest,
on an in-memory store and on the embedded local store (on disk)."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, MECHANISM_NAMES, manifest_sessions, newest_first
from trace_explorer.read.collection import expand_paths, load_collection
from trace_explorer.read.errors import TraceLoadError
from trace_explorer.index.catalog import SessionFilter, count_sessions, fetch_session, list_sessions
from trace_explorer.sources.endpoint import EndpointSource
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import local_source, open_local_store
from trace_explorer.index.build import build_index
from trace_explorer.sources.source import SourceError, check_read_only
from trace_explorer.sources.store_source import StoreSource
from trace_explorer.views.report import session_detail

ALL = manifest_sessions()
TOP = [s for s in ALL if s["parent"] is None]


def _memory(indexed: bool = False):
    collection, errors = load_collection([CORPUS])
    assert not errors
    return StoreSource(collection.store, documents=collection.documents,
                       index=build_index(collection.store) if indexed else None)


@pytest.fixture(scope="module")
def local_store_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("store")
    store = open_local_store(path)
    for file in expand_paths([CORPUS]):
        ingest_file(store, str(file))
    del store
    return path


@pytest.fixture(scope="module", params=["memory", "memory indexed", "local store", "virtuoso"])
def source(request, local_store_dir):
    """The same corpus on every kind of source: without a session index the list is answered
    from the traces (memory, Virtuoso), with one from its rows (memory indexed, local store)."""
    if request.param.startswith("memory"):
        return _memory(indexed=request.param == "memory indexed")
    if request.param == "virtuoso":
        return EndpointSource(request.getfixturevalue("virtuoso_url"), triple_terms=False, timeout=30)
    return local_source(local_store_dir)


def test_list_pages_newest_first(source):
    page = list_sessions(source, limit=5)
    assert [r["id"] for r in page.rows] == newest_first(TOP)[:5]
    assert page.total == len(TOP)
    second = list_sessions(source, limit=5, offset=5)
    assert [r["id"] for r in second.rows] == newest_first(TOP)[5:10]
    everything = list_sessions(source, SessionFilter(include_sub=True), limit=0)
    assert [r["id"] for r in everything.rows] == newest_first(ALL)


@pytest.mark.parametrize("mechanism", sorted(MECHANISM_NAMES))
def test_mechanism_filter(source, mechanism):
    filters = SessionFilter(mechanism=MECHANISM_NAMES[mechanism])
    expected = [s for s in TOP if s["mechanism"] == mechanism]
    assert [r["id"] for r in list_sessions(source, filters, limit=0).rows] == newest_first(expected)
    assert count_sessions(source, filters) == len(expected)


@pytest.mark.parametrize("pattern", ["react", "plan-then-execute", "supervisor"])
def test_pattern_filter(source, pattern):
    rows = list_sessions(source, SessionFilter(pattern=pattern, include_sub=True), limit=0).rows
    assert [r["id"] for r in rows] == newest_first([s for s in ALL if s.get("pattern") == pattern])


@pytest.mark.parametrize("status,answered", [("answered", True), ("unfinished", False)])
def test_status_filter(source, status, answered):
    rows = list_sessions(source, SessionFilter(status=status, include_sub=True), limit=0).rows
    assert [r["id"] for r in rows] == newest_first([s for s in ALL if s["has_answer"] is answered])


def test_text_search_is_case_insensitive(source):
    rows = list_sessions(source, SessionFilter(text="BRONZE age"), limit=0).rows
    assert [r["id"] for r in rows] == newest_first([s for s in TOP if "bronze age" in s["question"].lower()])
    assert list_sessions(source, SessionFilter(text='"}) . ?x ?y ?z'), limit=0).rows == []


@pytest.mark.parametrize("expected", ALL, ids=lambda s: s["session"][-12:])
def test_fetched_session_matches_the_manifest(source, expected):
    session = fetch_session(source, expected["session"])
    detail = session_detail(session)
    assert detail["question"] == expected["question"] and detail["time"] == expected["started"]
    assert detail["parent"] == expected["parent"] and detail["has_answer"] is expected["has_answer"]
    assert detail["actions"] == expected.get("actions", [])
    if "selected_edges" in expected and source.triple_terms:
        assert [[e["s"], e["p"], e["o"]] for e in detail["edges"]] == expected["selected_edges"]
    elif "selected_edges" in expected:  # a server without quoted triples: the other fields stay
        assert [e["stored"] for e in detail["edges"]] == [False] * len(expected["selected_edges"])
        assert all(e["score"] is not None and e["concept"] for e in detail["edges"])
    if "plan_steps" in expected:
        assert [s["plan_step"] for s in detail["steps"] if s["kind"] == "StepResult"] == expected["plan_steps"]
    if "findings" in expected:
        assert [s["kind"] for s in detail["steps"]].count("Finding") == expected["findings"]
    if expected["parent"]:
        assert session.parent_session == expected["parent"].rsplit("/", 1)[0]


def test_fetched_sessions_equal_reading_the_whole_collection(corpus_sessions):
    source = _memory()
    for iri, whole in corpus_sessions.items():
        assert session_detail(fetch_session(source, iri)) == session_detail(whole)


@pytest.mark.parametrize("bad", ["urn:x>y", "urn:x y", 'urn:x"}', "urn:x\n} DROP ALL", "not an iri"])
def test_hostile_session_iris_are_simply_not_found(source, bad):
    assert fetch_session(source, bad) is None


def test_endpoint_failures_are_clear_errors():
    with pytest.raises(SourceError, match="endpoint http://127.0.0.1:9/sparql"):
        list_sessions(EndpointSource("http://127.0.0.1:9/sparql", timeout=2))


def test_only_queries_are_sent():
    for update in ("INSERT DATA { <urn:a> <urn:b> <urn:c> }", "PREFIX a: <urn:a>\nDROP ALL", "# c\nCLEAR DEFAULT"):
        with pytest.raises(SourceError, match="refused"):
            check_read_only(update)
        with pytest.raises(SourceError):
            _memory().select(update)
    assert check_read_only("PREFIX x: <urn:x>\n# note\nSELECT * WHERE { ?s ?p ?o }")


def test_ingest_is_all_or_nothing_and_idempotent(tmp_path):
    store = open_local_store(tmp_path / "s")
    ingest_file(store, str(CORPUS / "collection.trig"))
    ingest_file(store, str(CORPUS / "collection.documents.json"))
    count = len(store)
    ingest_file(store, str(CORPUS / "collection.trig"))
    assert len(store) == count
    with pytest.raises(TraceLoadError):
        ingest_file(store, "broken.nq", (CORPUS / "orchestrated.nq").read_bytes()[:5000] + b"<oops")
    assert len(store) == count
    del store
    reopened = local_source(tmp_path / "s")
    session = fetch_session(reopened, "urn:trustgraph:agent:6b0a18e8-830e-47bc-9e39-8f1012bd4ace")
    assert session.answer.startswith("Routes linked Lübeck")  # texts persisted with the store
    assert ox.NamedNode("urn:graph:retrieval") in set(reopened.store.named_graphs())
    assert reopened.index.count(SessionFilter(include_sub=True)) == len(manifest_sessions("collection.trig"))
