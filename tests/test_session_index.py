"""The session index says of every session what reading the session says, and stays true as
files are added to a store: whole sessions, sessions split over files in either order, a
sub-session arriving after its parent, and the same file twice."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, TRACE_FILES, corpus_paths, manifest_sessions
from tests.hostile_traces import hostile_collection
from trace_explorer.cli.main import main
from trace_explorer.model.reader import read_sessions
from trace_explorer.model.summary import session_summary
from trace_explorer.read.collection import expand_paths, load_collection
from tests.totals_support import expected_totals
from trace_explorer.model.totals import FIGURES, TOTAL_PREFIX
from trace_explorer.index.catalog import SessionFilter, count_sessions, count_steps, list_sessions
from trace_explorer.sources.filter import SessionOrder
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import local_source, open_local_store
from trace_explorer.index.schema import INDEX_FILE
from trace_explorer.index.session_index import SessionIndex
from trace_explorer.index.build import build_index
from trace_explorer.sources.store_source import StoreSource

SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"  # 12 iterations


# A row's answer preview is filled from the source's texts when a page is listed (the texts
# may be added after the traces): the index itself keeps the rest of the summary.
FILLED_WHEN_LISTED = "answer_preview"


def _rows(index) -> dict[str, dict]:
    """Every row's summary, by session IRI (``index``: a SessionIndex or a LocalStore)."""
    index = getattr(index, "index", index)
    return {summary["id"]: _without_preview(summary) for summary in index.page(SessionFilter(include_sub=True), limit=0)}


def _without_preview(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != FILLED_WHEN_LISTED}


def _summaries(collection) -> dict[str, dict]:
    """Each session's summary, its totals with its sub-sessions (docs/reading-traces.md, "Totals")."""
    sessions = {s.id: s for s in read_sessions(collection)}
    return {iri: _without_preview(session_summary(s, sessions)) for iri, s in sessions.items()}


@pytest.mark.parametrize("name", TRACE_FILES)
def test_rows_equal_the_sessions_read_in_full(name):
    collection, errors = load_collection(corpus_paths(name))
    assert not errors
    expected = _summaries(collection)
    index = build_index(collection.store)
    assert len(expected) == len(manifest_sessions(name))
    assert _rows(index) == expected


def test_rows_of_the_hostile_corpus_equal_its_sessions():
    collection, sessions = hostile_collection()
    expected = {iri: _without_preview(session_summary(s, sessions)) for iri, s in sessions.items()}
    assert _rows(build_index(collection.store)) == expected


def test_ingested_store_rows_equal_the_whole_corpus(tmp_path):
    store = open_local_store(tmp_path / "s")
    for path in expand_paths([CORPUS]):
        ingest_file(store, str(path))
    whole, _ = load_collection([CORPUS])
    assert (tmp_path / "s" / INDEX_FILE).is_file() and _rows(store) == _summaries(whole)
    source = store.source()
    assert count_sessions(source, SessionFilter(include_sub=True)) == len(manifest_sessions())
    assert count_steps(source) == sum(len(s.steps) for s in read_sessions(whole))


@pytest.mark.parametrize("texts", ["before their traces", "after their traces"])
def test_the_searched_words_of_a_store_are_those_of_the_files_read_together(tmp_path, texts):
    """Each session's words, field by field, whether its content file was ingested before its
    traces (read with them) or after (added to the sessions indexed already)."""
    store = open_local_store(tmp_path / "s")
    late = texts == "after their traces"
    for path in sorted(expand_paths([CORPUS]), key=lambda p: p.name.endswith(".documents.json") == late):
        ingest_file(store, str(path))
    whole, _ = load_collection([CORPUS])
    expected = {r["root"]: r["search"] for r in build_index(whole.store, documents=whole.documents).rows()}
    found = {r["root"]: r["search"] for r in store.index.rows()}
    assert set(found) == set(expected) == {s["session"] for s in manifest_sessions()}
    for root, words in expected.items():
        assert {f: set(t.split("\n")) for f, t in found[root].items()} == {f: set(t.split("\n")) for f, t in words.items()}, root
    elbrus = list_sessions(store.source(), SessionFilter(text="answer:Elbrus", include_sub=True), limit=0)
    assert sorted(r["id"] for r in elbrus.rows) == sorted(s["session"] for s in manifest_sessions()
                                                          if s["question"].startswith("¿Cuál es la montaña más alta"))


def _split(name: str, root: str, keep_in_first) -> tuple[bytes, bytes]:
    """The quads of corpus file ``name`` as two N-Quads files: the quads whose subject passes
    ``keep_in_first`` (and everything not of session ``root``) first, the rest second."""
    collection, _ = load_collection([CORPUS / name])
    session = {s.id: s for s in read_sessions(collection)}[root]
    members = set(session.nodes)
    first, second = [], []
    for quad in collection.store:
        subject = quad.subject.value if isinstance(quad.subject, ox.NamedNode) else None
        (second if subject in members and not keep_in_first(subject) else first).append(quad)
    return ox.serialize(first, format=ox.RdfFormat.N_QUADS), ox.serialize(second, format=ox.RdfFormat.N_QUADS)


@pytest.mark.parametrize("order", ["question first", "steps first"])
def test_a_session_split_over_two_files_is_indexed_whole(tmp_path, order):
    # the root and its first iterations in one file, the later iterations and the Conclusion
    # in the other, ingested in either order
    early = {REACT_12} | {f"{REACT_12}/i{n}" for n in range(1, 6)} | {f"{REACT_12}/i{n}/thought" for n in range(1, 6)}
    first, second = _split("collection.trig", REACT_12, lambda s: s in early)
    files = [("a.nq", first), ("b.nq", second)]
    store = open_local_store(tmp_path / "s")
    for name, data in (files if order == "question first" else files[::-1]):
        ingest_file(store, name, data)
    whole, _ = load_collection([CORPUS / "collection.trig"])
    expected = _summaries(whole)[REACT_12]
    assert _rows(store)[REACT_12] == expected
    assert expected["status"] == "answered" and expected["step_count"] == 26


def test_a_sub_session_added_later_joins_its_parents_row(tmp_path):
    whole, _ = load_collection([CORPUS / "orchestrated.nq"])
    sessions = {s.id: s for s in read_sessions(whole)}
    sub = sessions[SUPERVISOR].children[0]
    sub_members = set(sessions[sub].nodes)
    first, second = _split("orchestrated.nq", sub, lambda s: s not in sub_members)
    store = open_local_store(tmp_path / "s")
    ingest_file(store, "parent.nq", first)
    assert sub not in _rows(store)[SUPERVISOR]["children"]
    ingest_file(store, "sub.nq", second)
    rows = _rows(store)
    assert rows[SUPERVISOR] == _without_preview(session_summary(sessions[SUPERVISOR], sessions))
    assert sub in rows[SUPERVISOR]["children"] and rows[sub]["parent"] == sessions[sub].parent


@pytest.mark.parametrize("order", ["parent first", "sub-session first"])
def test_totals_count_a_sub_session_whichever_file_comes_first(tmp_path, order):
    # docs/reading-traces.md, "Totals": the supervisor's row counts its sub-agents' tokens and time, whether a
    # sub-agent's file is ingested before or after the supervisor's
    whole, _ = load_collection([CORPUS / "orchestrated.nq"])
    sessions = {s.id: s for s in read_sessions(whole)}
    sub, other = sessions[SUPERVISOR].children
    sub_members = set(sessions[sub].nodes)
    first, second = _split("orchestrated.nq", sub, lambda s: s not in sub_members)
    store = open_local_store(tmp_path / "s")
    files = [("parent.nq", first), ("sub.nq", second)]
    for name, data in (files if order == "parent first" else files[::-1]):
        ingest_file(store, name, data)
    rows = _rows(store)
    total = expected_totals("orchestrated.nq", SUPERVISOR)
    assert {f: rows[SUPERVISOR][TOTAL_PREFIX + f] for f in FIGURES} == total
    assert (rows[SUPERVISOR]["tokens"], rows[SUPERVISOR]["total_tokens"], rows[SUPERVISOR]["sub_sessions"]) == (780, 13_333, 2)
    assert rows[SUPERVISOR]["total_duration_ms"] == rows[sub]["duration_ms"] + rows[other]["duration_ms"]


def test_the_list_sorts_by_the_totals_with_sub_sessions(tmp_path):
    store = open_local_store(tmp_path / "s")
    ingest_file(store, str(CORPUS / "orchestrated.nq"))
    top = [s["session"] for s in manifest_sessions("orchestrated.nq") if s["parent"] is None]
    by_total = sorted(top, key=lambda r: expected_totals("orchestrated.nq", r)["tokens"], reverse=True)
    by_own = sorted(top, key=lambda r: expected_totals("orchestrated.nq", r, sub_sessions=False)["tokens"], reverse=True)
    listed = list_sessions(store.source(), SessionFilter(), limit=0, order=SessionOrder("tokens", True)).rows
    assert [r["id"] for r in listed] == by_total != by_own  # the supervisor first, not among the cheapest
    assert listed[0]["id"] == SUPERVISOR


def test_the_same_file_twice_is_skipped(tmp_path):
    store = open_local_store(tmp_path / "s")
    first = ingest_file(store, str(CORPUS / "graph-dump.ttl"))
    size, rows = len(store), _rows(store)
    again = ingest_file(store, str(CORPUS / "graph-dump.ttl"))
    assert not first.skipped and again.skipped
    assert len(store) == size and _rows(store) == rows
    assert len(rows) == len(manifest_sessions("graph-dump.ttl"))


def test_list_rows_come_from_the_index_without_reading_sessions(tmp_path):
    store = open_local_store(tmp_path / "s")
    ingest_file(store, str(CORPUS / "orchestrated.nq"))
    page = list_sessions(store.source(), SessionFilter(pattern="supervisor"))
    assert [r["id"] for r in page.rows] == [SUPERVISOR] and page.sessions == {}
    read = list_sessions(store.source(), SessionFilter(pattern="supervisor"), read=True)
    assert set(read.sessions) == {SUPERVISOR, *read.sessions[SUPERVISOR].children}  # its sub-agents too
    assert session_summary(read.sessions[SUPERVISOR], read.sessions) == page.rows[0]


def test_a_store_without_an_index_is_listed_from_its_traces_and_can_be_reindexed(tmp_path):
    store = open_local_store(tmp_path / "s")
    for path in corpus_paths("orchestrated.nq"):
        ingest_file(store, str(path))
    expected = list_sessions(store.source(), SessionFilter(include_sub=True), limit=0).rows
    del store
    (tmp_path / "s" / INDEX_FILE).unlink()
    bare = local_source(tmp_path / "s")
    assert bare.index is None  # a read-only store without an index: the list reads the traces
    assert list_sessions(bare, SessionFilter(include_sub=True), limit=0).rows == expected
    del bare
    writable = open_local_store(tmp_path / "s")  # opened for writing, it is indexed at once
    assert writable.index.count(SessionFilter(include_sub=True)) == len(expected)
    writable.index.replace(writable.index.roots(), [])  # rows lost: reindex rebuilds them
    writable.close()
    assert main(["reindex", "--store", str(tmp_path / "s")]) == 0
    reopened = local_source(tmp_path / "s")
    assert reopened.index is not None and reopened.index.count(SessionFilter(include_sub=True)) == len(expected)
    assert list_sessions(reopened, SessionFilter(include_sub=True), limit=0).rows == expected


def test_filters_on_the_index_equal_filters_on_the_traces():
    collection, _ = load_collection([CORPUS])
    bare = StoreSource(collection.store)
    indexed = StoreSource(collection.store, index=build_index(collection.store))
    for filters in (SessionFilter(), SessionFilter(include_sub=True), SessionFilter(mechanism=("GraphRAG", "DocRAG")),
                    SessionFilter(pattern=("react", "supervisor"), include_sub=True),
                    SessionFilter(mechanism="GraphRAG", pattern="react"), SessionFilter(status="unfinished", include_sub=True),
                    SessionFilter(text="question:LÜBECK"), SessionFilter(text="iri:4787f93b"),
                    SessionFilter(failed_tool="mcp:weather", include_sub=True), SessionFilter(failed_tool="calculator")):
        rows = list_sessions(indexed, filters, limit=0).rows
        # the index also says where a search found its words (the SPARQL search does not)
        assert [r.get("match", {}).get("field") for r in rows] == (["question"] * len(rows) if "question:" in (filters.text or "")
                                                                 else ["iri"] * len(rows) if filters.text else [None] * len(rows))
        assert [{k: v for k, v in r.items() if k != "match"} for r in rows] == list_sessions(bare, filters, limit=0).rows, filters
        assert count_sessions(indexed, filters) == count_sessions(bare, filters)
    for offset in (0, 3, 7):
        assert list_sessions(indexed, SessionFilter(include_sub=True), limit=4, offset=offset).rows == \
            list_sessions(bare, SessionFilter(include_sub=True), limit=4, offset=offset).rows


def test_a_tool_or_model_filter_keeps_the_sessions_whose_sub_sessions_made_the_call():
    # docs/reading-traces.md, "Totals": a session's calls count its sub-sessions', on an index as on the traces
    collection, _ = load_collection([CORPUS])
    bare = StoreSource(collection.store)
    indexed = StoreSource(collection.store, index=build_index(collection.store))
    orchestrated = manifest_sessions("orchestrated.nq")
    supervisor = next(s for s in orchestrated if s.get("pattern") == "supervisor")
    assert "actions" not in supervisor  # it calls no tool itself; its sub-agents do
    sub_tools = {a for s in orchestrated if (s["parent"] or "").startswith(SUPERVISOR + "/") for a in s["actions"]}
    assert "mcp:weather" in sub_tools
    for filters in (SessionFilter(tool="mcp:weather"), SessionFilter(tool="mcp:weather", include_sub=True),
                    SessionFilter(model="gpt-4o-mini"), SessionFilter(model="gpt-4o"), SessionFilter(tool="calculator")):
        rows = list_sessions(indexed, filters, limit=0).rows
        assert rows == list_sessions(bare, filters, limit=0).rows, filters
    assert SUPERVISOR in {r["id"] for r in list_sessions(indexed, SessionFilter(tool="mcp:weather"), limit=0).rows}
    assert SUPERVISOR not in {r["id"] for r in list_sessions(indexed, SessionFilter(tool="calculator"), limit=0).rows}


def test_tool_model_and_termination_names_match_whatever_their_case_on_an_index_as_on_the_traces():
    collection, _ = load_collection([CORPUS])
    bare = StoreSource(collection.store)
    indexed = StoreSource(collection.store, index=build_index(collection.store))
    orchestrated = manifest_sessions("orchestrated.nq")
    weather = {s["session"] for s in orchestrated if "mcp:weather" in (s.get("actions") or [])}
    for typed, recorded in ((SessionFilter(model="GPT-4o-Mini"), SessionFilter(model="gpt-4o-mini")),
                            (SessionFilter(tool="MCP:Weather", include_sub=True), SessionFilter(tool="mcp:weather", include_sub=True)),
                            (SessionFilter(failed_tool="MCP:weather", include_sub=True),
                             SessionFilter(failed_tool="mcp:weather", include_sub=True)),
                            (SessionFilter(termination="Final-Answer"), SessionFilter(termination="final-answer")),
                            (SessionFilter(termination="NONE"), SessionFilter(termination="none"))):
        expected = list_sessions(bare, recorded, limit=0).rows
        assert expected, recorded
        assert list_sessions(indexed, typed, limit=0).rows == expected, typed
        assert list_sessions(bare, typed, limit=0).rows == expected, typed
    assert weather <= {r["id"] for r in list_sessions(indexed, SessionFilter(tool="MCP:WEATHER", include_sub=True), limit=0).rows}


def test_index_files_are_shared_safely_between_threads(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    index = SessionIndex(tmp_path / INDEX_FILE)
    collection, _ = load_collection([CORPUS])
    build_index(collection.store, index)
    with ThreadPoolExecutor(8) as pool:
        counts = list(pool.map(lambda _: index.count(SessionFilter(include_sub=True)), range(64)))
    assert counts == [len(manifest_sessions())] * 64


def test_large_files_written_in_bulk_give_the_same_store(tmp_path, monkeypatch):
    # above BULK_QUADS a file's quads go in by Store.bulk_extend: the same result
    from trace_explorer.store import ingest

    small = open_local_store(tmp_path / "small")
    for path in expand_paths([CORPUS]):
        ingest_file(small, str(path))
    monkeypatch.setattr(ingest, "BULK_QUADS", 0)
    large = open_local_store(tmp_path / "large")
    timings: dict[str, float] = {}
    for path in expand_paths([CORPUS]):
        ingest_file(large, str(path), timings=timings)
    assert set(large.store) == set(small.store) and len(large) == len(small) > 1000
    assert _rows(large) == _rows(small)
    assert set(timings) == {"read", "write", "index", "read cpu", "write cpu", "index cpu"}
    assert all(timings[p] > 0 for p in ("read", "write", "index")) and all(t >= 0 for t in timings.values())


def test_the_stamp_changes_when_rows_are_written(tmp_path):
    store = open_local_store(tmp_path / "s")
    empty = store.index.stamp()
    ingest_file(store, str(CORPUS / "seed-sessions.ttl"))
    first = store.index.stamp()
    assert first != empty and store.index.stamp() == first  # reading changes nothing
    ingest_file(store, str(CORPUS / "seed-sessions.ttl"))  # the same file again: nothing written
    assert store.index.stamp() == first
    ingest_file(store, str(CORPUS / "orchestrated.nq"))
    assert store.index.stamp() not in (empty, first)


def test_totals_reach_up_every_level_whatever_order_the_rows_come_in():
    # a GraphRAG run (C) under a sub-agent (B) under a supervisor (A): C's row written last
    # still counts in A's, and dropping B takes B and C out of A's totals
    import json as _json

    def row(root: str, parent: str | None, tokens_in: int, llm_ms: int) -> dict:
        figures = {"tokens_in": tokens_in, "tokens_out": 0, "tokens": tokens_in, "llm_ms": llm_ms, "tool_ms": None,
                   "duration_ms": llm_ms}
        summary = dict(figures, id=root, **{TOTAL_PREFIX + k: v for k, v in figures.items()}, sub_sessions=0)
        return {"root": root, "top": int(parent is None), "time": None, "mechanism": "Agent", "pattern": None,
                "status": "answered", "steps": 1, "question_key": None, "duration": llm_ms, "tokens": tokens_in,
                "tool_errors": 0, "parent": parent, "search": {"iri": root}, "summary": _json.dumps(summary),
                "insights": None}

    index = SessionIndex()
    index.replace([], [row("urn:a", None, 780, 100)])
    index.replace([], [row("urn:b", "urn:a", 5000, 2000)])
    index.replace([], [row("urn:c", "urn:b", 900, 300)])
    top = index.summary("urn:a")
    assert (top["tokens"], top["total_tokens"], top["total_duration_ms"], top["sub_sessions"]) == (780, 6680, 2400, 2)
    assert index.summary("urn:b")["total_tokens"] == 5900
    assert [r["id"] for r in index.page(SessionFilter(include_sub=True), order=SessionOrder("tokens", True))] == \
        ["urn:a", "urn:b", "urn:c"]
    index.replace(["urn:b"], [])
    assert (index.summary("urn:a")["total_tokens"], index.summary("urn:a")["sub_sessions"]) == (780, 0)
