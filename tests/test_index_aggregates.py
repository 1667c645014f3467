"""The counts the session index keeps as rows are written (``index_aggregates``) equal the rows
counted afresh after every kind of write (rows replaced and dropped, health written, replaced
and forgotten, a store ingested file by file), and answer the list's counts, its pages past the
middle and ``stats --all`` with what counting the rows answers."""

from __future__ import annotations

import itertools
import sqlite3

import pytest

from tests.conftest import CORPUS, corpus_paths, manifest_sessions
from trace_explorer.analysis.stats import _from_index, _from_sessions, collection_stats, summarize
from trace_explorer.read.collection import expand_paths, load_collection
from trace_explorer.index import aggregates as index_aggregates
from trace_explorer.sources.filter import SORT_KEYS, SessionFilter, SessionOrder
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import local_source, open_local_store
from trace_explorer.index.schema import INDEX_FILE
from trace_explorer.index.session_index import SessionIndex
from trace_explorer.index.list_pages import _where
from trace_explorer.index.build import build_index
from trace_explorer.index.insights import HEALTH_CHOICES, forget_health, write_health
from trace_explorer.sources.store_source import StoreSource

REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"


def kept(index: SessionIndex) -> dict[str, set[tuple]]:
    """Every aggregate table's rows with a count above 0."""
    return {t: set(index_aggregates.counts_of(t, index._query)) for t in index_aggregates.TABLES}


def counted_afresh(index: SessionIndex) -> dict[str, set[tuple]]:
    """The same tables counted from the rows (``fill``), the index left as it was."""
    with index._lock:
        index._db.execute("SAVEPOINT afresh")
        try:
            index_aggregates.fill(index._db)
            return {t: set(index._db.execute(f"SELECT * FROM {t} WHERE {index_aggregates._AGGREGATES[t][1][0]} > 0"))
                    for t in index_aggregates.TABLES}
        finally:
            index._db.execute("ROLLBACK TO afresh")
            index._db.execute("RELEASE afresh")


def counted_rows(index: SessionIndex, filters: SessionFilter) -> int:
    where, params = _where(filters)
    return index._query(f"SELECT COUNT(*) {where}", params)[0][0]


@pytest.fixture(scope="module")
def corpus():
    collection, errors = load_collection([CORPUS])
    assert errors == []
    return collection, build_index(collection.store)


def test_the_kept_counts_equal_the_rows_counted_afresh_after_every_write(corpus):
    collection, built = corpus
    index = SessionIndex()
    rows = built.rows()
    assert kept(index) == counted_afresh(index) and not any(kept(index).values())
    index.replace([], [dict(r, insights=None) for r in rows])  # rows without insight rows
    assert kept(index) == counted_afresh(index)
    index = build_index(collection.store)
    sessions = kept(index)
    assert sum(n for *_, n in sessions["list_counts"]) == len(rows) == len(manifest_sessions())
    assert sum(n for *_, n in sessions["stats_steps"]) == len(rows)
    assert sessions == counted_afresh(index)
    roots = sorted(index.roots())
    write_health(index, {r: {"error": i % 2, "warning": i % 3, "info": 1, "rules": [f"rule-{i % 4}"]}
                         for i, r in enumerate(roots)})
    assert kept(index) == counted_afresh(index)
    assert {h for *_, h, _ in kept(index)["list_counts"]} == {"errors", "warnings", "infos"}
    write_health(index, {r: {"error": 0, "warning": 0, "info": 0, "rules": []} for r in roots[::3]})  # replaced
    assert kept(index) == counted_afresh(index)
    assert forget_health(index, ["rule-1"]) > 0
    assert kept(index) == counted_afresh(index)
    with index._lock, index._db:
        index._db.execute("UPDATE health SET errors = 5 WHERE root = ?", (roots[0],))
        index._db.execute("INSERT OR REPLACE INTO insight_sessions VALUES (?, 'stopped', 3)", (roots[1],))
    assert kept(index) == counted_afresh(index)
    index.replace(roots[:4], [r for r in rows if r["root"] in roots[4:8]])  # dropped, and rewritten
    assert kept(index) == counted_afresh(index)
    assert sum(n for *_, n in kept(index)["list_counts"]) == len(rows) - 4
    assert sum(n for *_, h, n in kept(index)["list_counts"] if h == "unchecked") >= 4


def test_an_ingested_store_keeps_its_counts_file_by_file(tmp_path):
    with open_local_store(tmp_path / "s") as store:
        for path in expand_paths([CORPUS]):
            ingest_file(store, str(path))
            assert kept(store.index) == counted_afresh(store.index), path
    source = local_source(tmp_path / "s")
    assert source.index.aggregates and source.index.count(SessionFilter(include_sub=True)) == len(manifest_sessions())


def test_counts_of_every_mix_of_kept_filters_equal_the_rows_counted(corpus):
    _, index = corpus
    write_health(index, {r: {"error": 0, "warning": i % 2, "info": i % 3, "rules": []}
                         for i, r in enumerate(sorted(index.roots())[:20])})
    answered = 0
    for mechanism, pattern, status, health, include_sub in itertools.product(
            [None, "Agent", ("DocRAG", "GraphRAG")], [None, "react", ("supervisor", "react")],
            [None, "answered", "unfinished"], [None, *HEALTH_CHOICES, "rule-x"], [False, True]):
        filters = SessionFilter(mechanism=mechanism, pattern=pattern, status=status, health=health,
                                include_sub=include_sub)
        assert index.count(filters) == counted_rows(index, filters), filters
        answered += index._kept_count(filters) is not None
    assert answered == 3 * 3 * 3 * 6 * 2  # all but the rule id
    for filters in (SessionFilter(text="weather"), SessionFilter(tool="calculator"), SessionFilter(termination="none")):
        assert index._kept_count(filters) is None and index.count(filters) == counted_rows(index, filters)


def test_a_page_of_the_list_in_its_default_order_reads_an_index_in_order_with_or_without_sub_sessions(corpus):
    """No page sorts every row (at 100,000 sessions the list with sub-sessions took 22 ms a
    page sorting them, 0.02 ms reading an index)."""
    from trace_explorer.sources.filter import DEFAULT_ORDER
    from trace_explorer.index.list_pages import _order_by

    _, index = corpus
    for filters in (SessionFilter(), SessionFilter(include_sub=True), SessionFilter(include_sub=True, mechanism="Agent")):
        where, params = _where(filters)
        plan = index._query(f"EXPLAIN QUERY PLAN SELECT sessions.id {where} {_order_by(DEFAULT_ORDER)} LIMIT 50", params)
        assert not any("TEMP B-TREE" in detail for *_, detail in plan), (filters, plan)


@pytest.mark.parametrize("key", sorted(SORT_KEYS))
def test_pages_past_the_middle_are_the_whole_lists_slices(corpus, key):
    _, index = corpus
    for descending, filters in itertools.product((True, False), (SessionFilter(), SessionFilter(include_sub=True),
                                                                 SessionFilter(mechanism="Agent"))):
        order = SessionOrder(key, descending)
        whole = [r["id"] for r in index.page(filters, limit=0, order=order)]
        assert len(whole) == index.count(filters) > 4
        for limit in (3, 7):
            for offset in range(limit + 1, len(whole) + 2):
                assert [r["id"] for r in index.page(filters, limit, offset, order)] == whole[offset:offset + limit]


def test_stats_of_every_session_from_the_kept_counts_equal_the_rows_and_the_sessions(corpus):
    collection, index = corpus
    everything = SessionFilter(include_sub=True)
    source = StoreSource(collection.store, documents=collection.documents, index=index)
    assert index.aggregates
    from_counts = collection_stats(source, everything)
    index.aggregates = False
    try:
        assert summarize(_from_index(index, everything)) == from_counts
    finally:
        index.aggregates = True
    plain = StoreSource(collection.store, documents=collection.documents)
    assert summarize(_from_sessions(plain, everything)) == from_counts
    assert from_counts["sessions"] == len(manifest_sessions()) and from_counts["durations"]["tool"]["calls"] == 26


def test_durations_spread_over_buckets_give_the_nearest_rank_percentiles():
    """Values in many buckets, below 0, fractional, and repeated: the percentiles read from the
    buckets are those of the sorted values."""
    from trace_explorer.analysis.stats import rank, spread

    index = SessionIndex()
    values = [5, 5, 63, 64, 65, 127.5, 128, 1000, 1000, 1001, 4096, 70000, -3, -64, -65, 0, 7, 64, 64, 2]
    rows = [{"root": f"urn:r{i}", "top": 1, "time": None, "mechanism": "Agent", "pattern": None, "status": "answered",
             "steps": 1, "question_key": None, "duration": None, "tokens": None, "tool_errors": 0, "parent": None,
             "search": {}, "summary": "{}", "insights": None} for i in range(2)]
    index.replace([], rows)
    with index._lock, index._db:
        index._db.executemany("INSERT INTO insight_tools VALUES (?, ?, ?, 0)",
                              [(f"urn:r{i % 2}", "t" if i % 3 else "u", v) for i, v in enumerate(values)])
        index._db.executemany("INSERT INTO insight_llm VALUES ('urn:r0', NULL, ?, 1, 2)", [(v,) for v in values])
    for n in range(1, len(values) + 1):
        with index._lock, index._db:
            index._db.execute("DELETE FROM insight_llm")
            index._db.executemany("INSERT INTO insight_llm VALUES ('urn:r0', NULL, ?, 1, 2)", [(v,) for v in values[:n]])
        assert index_aggregates.spread(index._query, "llm", rank) == spread(list(values[:n]))
    for tool in ("t", "u", None):
        chosen = [v for i, v in enumerate(values) if tool is None or ("t" if i % 3 else "u") == tool]
        assert index_aggregates.spread(index._query, "tool", rank, tool) == spread(chosen)


def test_a_rebuild_over_every_row_empties_the_index_at_once_and_counts_as_before(corpus, tmp_path, monkeypatch):
    """``reindex`` replaces every row: the index is emptied at once (``_emptied``), its counts,
    rows, triggers and indexes then as a new index's, and a write after it counted as ever."""
    from trace_explorer.index import table_writes

    collection, _ = corpus
    index = build_index(collection.store, SessionIndex(tmp_path / INDEX_FILE))
    roots = sorted(index.roots())
    write_health(index, {r: {"error": i % 2, "warning": 0, "info": 1, "rules": ["r"]} for i, r in enumerate(roots)})
    schema = index._query("SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'index') ORDER BY name")
    original, emptied = table_writes._emptied, []

    def counted(db):
        emptied.append(1)
        original(db)

    monkeypatch.setattr(table_writes, "_emptied", counted)
    build_index(collection.store, index)
    assert emptied == [1]
    assert sorted(r["root"] for r in index.rows()) == roots
    assert index._query("SELECT COUNT(*) FROM health") == [(0,)]  # to be checked again
    assert kept(index) == counted_afresh(index) == kept(build_index(collection.store))
    assert index._query("SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'index') "
                        "ORDER BY name") == schema
    write_health(index, {r: {"error": 1, "warning": 0, "info": 0, "rules": ["r"]} for r in roots[::2]})
    assert kept(index) == counted_afresh(index)
    index.close()


def test_an_index_without_the_counts_gets_them_when_opened_for_writing(tmp_path):
    path = tmp_path / INDEX_FILE
    collection, _ = load_collection(corpus_paths("collection.trig"))
    index = build_index(collection.store, SessionIndex(path))
    expected = kept(index)
    index.close()
    db = sqlite3.connect(path)
    with db:
        for table in index_aggregates.TABLES:
            db.execute(f"DROP TABLE {table}")
    db.close()
    read_only = SessionIndex(path, read_only=True)  # answered by counting the rows
    assert not read_only.aggregates and read_only.count(SessionFilter()) == counted_rows(read_only, SessionFilter())
    read_only.close()
    again = SessionIndex(path)
    assert again.aggregates and not again.created and kept(again) == expected


def test_a_count_not_kept_is_counted_again_once_the_index_changes(tmp_path):
    """A search's count is kept between writes, and counted again after a write by this
    connection or by another (the app reads while ``ingest`` writes)."""
    path = tmp_path / INDEX_FILE
    collection, _ = load_collection([CORPUS])
    writer = build_index(collection.store, SessionIndex(path))
    reader = SessionIndex(path, read_only=True)
    searched = SessionFilter(text="weather", include_sub=True)
    before = counted_rows(writer, searched)
    assert before > 2 and writer.count(searched) == reader.count(searched) == before
    gone = [r for r in writer.page(searched, limit=2)]
    writer.replace([r["id"] for r in gone], [])
    assert writer.count(searched) == reader.count(searched) == before - 2 == counted_rows(writer, searched)
    other = sqlite3.connect(path)
    with other:
        other.execute("DELETE FROM sessions WHERE id = (SELECT MIN(rowid) FROM search WHERE search MATCH 'weather')")
    other.close()
    assert writer.count(searched) == reader.count(searched) == before - 3


@pytest.mark.parametrize("key", sorted(SORT_KEYS))
def test_a_search_walking_the_list_gives_the_pages_of_one_starting_from_its_matches(corpus, key):
    """A page of common words walks the list in its order, checking each row against the
    matches; the same pages, with the same snippets, as one that sorts every match."""
    _, index = corpus
    for text, descending in itertools.product(("weather", "the", "answer:paris", "zzzz nothing"), (True, False)):
        filters = SessionFilter(text=text, include_sub=descending)
        order = SessionOrder(key, descending)
        walked = [index.page(filters, limit, offset, order) for limit, offset in ((5, 0), (5, 5), (0, 0))]
        index.aggregates = False  # no kept counts: never walks
        try:
            assert not index._common(filters)
            assert walked == [index.page(filters, limit, offset, order) for limit, offset in ((5, 0), (5, 5), (0, 0))]
        finally:
            index.aggregates = True
    assert index._common(SessionFilter(text="the"), 5) and not index._common(SessionFilter(text="zzzz"), 5)
