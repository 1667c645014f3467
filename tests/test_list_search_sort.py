"""The session list's search (words in any order, case and accents ignored), its sort over the
whole result (never one page), short session ids, and the row's totals and answer preview, on
every kind of source: in memory without and with a session index, the local store on disk, and a
real SPARQL endpoint (Virtuoso)."""

from __future__ import annotations

import re
import sqlite3

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, manifest_sessions, newest_first
from tests.test_catalog import _memory, local_store_dir, source  # noqa: F401 - the same corpus on every kind of source
from trace_explorer.read.collection import load_collection
from trace_explorer.index.catalog import SPARQL_SORT_KEYS, SessionFilter, SessionOrder, find_session_ids, list_sessions, sort_keys, text_search
from trace_explorer.sources.filter import SORT_KEYS
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store
from trace_explorer.sources.search import (CONTAINS_SEARCH, INDEX_SEARCH, NO_SEARCH, REGEX_SEARCH, fts_query,
                                           search_words, word_regex)
from trace_explorer.index.schema import INDEX_FILE
from trace_explorer.index.session_index import SessionIndex
from trace_explorer.sources.source import SourceError

ALL = manifest_sessions()
TOP = [s for s in ALL if s["parent"] is None]
BY_ID = {s["session"]: s for s in ALL}
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
TG = "https://trustgraph.ai/ns/"


def ids(source, filters=None, order=SessionOrder(), limit=0, offset=0) -> list[str]:
    return [r["id"] for r in list_sessions(source, filters, limit=limit, offset=offset, order=order).rows]


# -- search -------------------------------------------------------------------------------------

def test_search_words_are_folded():
    assert search_words("  Montaña, MÁS alta?  montaña ") == ["montana", "mas", "alta"]
    assert search_words("urn:trustgraph:agent:62c33a4f-b774") == ["urn", "trustgraph", "agent", "62c33a4f", "b774"]
    assert search_words('"}) . ?x') == ["x"] and search_words("?!") == []
    assert fts_query(["france", "capital"]) == '"france"* AND "capital"*'
    assert re.fullmatch(word_regex("montana"), "MONTAÑA") and re.fullmatch(word_regex("creme"), "crème")
    assert not re.fullmatch(word_regex("montana"), "montagna")


@pytest.mark.parametrize("text,words", [
    ("france capital", ("capital", "france")),  # "What is the capital of France?", words in any order
    ("CAPITAL France", ("capital", "france")),
    ("montana", ("montaña",)),                  # accents ignored
    ("MONTAÑA europa", ("montaña", "europa")),
    ("trappist belgian", ("trappist", "belgian")),
])
def test_search_matches_every_word_in_any_order(source, text, words):
    expected = [s for s in TOP if all(w in s["question"].lower() for w in words)]
    assert expected and ids(source, SessionFilter(text=text)) == newest_first(expected)


def test_a_search_with_no_word_searches_nothing_and_a_bare_field_name_is_left_out(source):
    everything = ids(source)
    assert len(everything) == len(TOP)
    # no word at all searches nothing (the list says so: SessionFilter.wordless_note)
    assert ids(source, SessionFilter(text="?!")) == everything == ids(source, SessionFilter(text="question:"))
    capital = ids(source, SessionFilter(text="france capital"))
    assert capital and ids(source, SessionFilter(text="france capital question:")) == capital


def test_search_finds_a_session_by_the_start_of_its_uuid(source):
    assert ids(source, SessionFilter(text="62c33a4f")) == [REACT_12]
    assert ids(source, SessionFilter(text="capital 62c33a4f")) == []  # every word must match


def test_each_source_says_how_it_searches(source):
    expected = INDEX_SEARCH if getattr(source, "index", None) is not None else REGEX_SEARCH
    assert text_search(source) == expected


def test_a_source_may_search_by_contains_or_not_at_all():
    source = _memory(indexed=False)
    source.text_search = CONTAINS_SEARCH  # case ignored, accents not
    assert ids(source, SessionFilter(text="Montaña")) == newest_first([s for s in TOP if "montaña" in s["question"].lower()])
    assert ids(source, SessionFilter(text="montana")) == []
    source.text_search = NO_SEARCH
    with pytest.raises(SourceError, match="cannot search"):
        list_sessions(source, SessionFilter(text="france"))
    assert len(ids(source)) == len(TOP)  # the list itself still works


# -- sort ---------------------------------------------------------------------------------------

def _sorted(sessions, key, descending) -> list[str]:
    """The manifest's sessions in the list's order for ``key``: missing values last, ties newest
    first, then by IRI."""
    value = {
        "time": lambda s: s["started"],
        "id": lambda s: s["session"],
        "question": lambda s: s["question"].lower(),
        "type": lambda s: {"agent": "Agent", "graphrag": "GraphRAG", "docrag": "DocRAG"}[s["mechanism"]],
        "status": lambda s: "answered" if s["has_answer"] else "unfinished",
    }[key]
    present = sorted(sessions, key=lambda s: s["session"])
    present = sorted(present, key=lambda s: s["started"], reverse=True)
    return [s["session"] for s in sorted(present, key=value, reverse=descending)]


@pytest.mark.parametrize("key", sorted(SPARQL_SORT_KEYS))
@pytest.mark.parametrize("descending", [False, True])
def test_sort_orders_the_whole_result_not_a_page(source, key, descending):
    order = SessionOrder(key, descending)
    expected = _sorted(TOP, key, descending)
    if key in ("type", "status"):  # ties of many sessions: only the grouping is portable
        got = ids(source, order=order)
        assert [BY_ID[i]["mechanism" if key == "type" else "has_answer"] for i in got] == \
               [BY_ID[i]["mechanism" if key == "type" else "has_answer"] for i in expected]
        return
    assert ids(source, order=order, limit=5, offset=5) == expected[5:10]  # page 2 is the whole list's rows 6-10
    assert ids(source, order=order) == expected


def test_every_key_sorts_on_an_indexed_source():
    source = _memory(indexed=True)
    assert sort_keys(source) == frozenset(SORT_KEYS) and sort_keys(_memory(indexed=False)) == SPARQL_SORT_KEYS
    rows = list_sessions(source, SessionFilter(include_sub=True), limit=0).rows
    for key, field in (("steps", "step_count"), ("duration", "total_duration_ms"), ("tokens", "total_tokens"),
                       ("tool_errors", "tool_errors"), ("parent", "parent_session")):
        for descending in (True, False):
            got = list_sessions(source, SessionFilter(include_sub=True), limit=0, order=SessionOrder(key, descending)).rows
            values = [r[field] for r in got]
            known = [v for v in values if v is not None]
            assert known == sorted(known, reverse=descending), (key, descending)
            assert values == known + [None] * (len(values) - len(known)), "sessions without a value come last"
            assert sorted(r["id"] for r in got) == sorted(r["id"] for r in rows)
    by_duration = ids(source, order=SessionOrder("duration", True), limit=1)
    assert by_duration == [REACT_12]  # the 12-iteration run spent the most time


def test_a_source_without_an_index_refuses_a_key_it_cannot_sort_on():
    with pytest.raises(SourceError, match="cannot sort the list by duration"):
        list_sessions(_memory(indexed=False), order=SessionOrder("duration", True))


def test_order_round_trips_through_a_url_value():
    assert SessionOrder.parse("-duration") == SessionOrder("duration", True)
    assert SessionOrder.parse("question") == SessionOrder("question", False)
    assert SessionOrder.parse("nonsense") == SessionOrder() == SessionOrder.parse(None)
    assert str(SessionOrder("tokens", True)) == "-tokens"
    assert SessionOrder().toggled("time") == SessionOrder("time", False)
    assert SessionOrder().toggled("question") == SessionOrder("question", False)
    assert SessionOrder().toggled("steps") == SessionOrder("steps", True)


# -- short ids ----------------------------------------------------------------------------------

def test_short_ids_name_one_session(source):
    assert find_session_ids(source, "62c33a4f") == [REACT_12]
    assert find_session_ids(source, "62c33a4f-b774-4b52-88db-40af72158370") == [REACT_12]
    assert find_session_ids(source, REACT_12) == [REACT_12] == find_session_ids(source, f"<{REACT_12}>")
    assert find_session_ids(source, "no-such-session") == []
    # a UUID pasted in upper case, whole or its start, names the same session
    assert find_session_ids(source, "62C33A4F") == [REACT_12] == find_session_ids(source, "62C33A4F-B774-4B52-88DB-40AF72158370")
    assert find_session_ids(source, "URN:TrustGraph:agent:62C33A4F-b774-4b52-88db-40af72158370") == [REACT_12]
    # an id part that starts several sessions' ids names them all (the caller asks for more),
    # then the sessions whose ids hold it elsewhere
    first = sorted(s["session"] for s in ALL if s["session"].rsplit(":", 1)[-1].startswith("6"))
    inside = sorted(s["session"] for s in ALL if s["session"] not in first and "6" in s["session"].rsplit(":", 1)[-1])
    assert len(first) > 1 and find_session_ids(source, "6", limit=200) == first + inside


# -- the row: totals, parent and answer ----------------------------------------------------------

def _raw_sum(predicate: str, root: str) -> int:
    collection, _ = load_collection([CORPUS])
    return sum(int(q.object.value) for q in collection.store.quads_for_pattern(None, ox.NamedNode(TG + predicate), None)
               if q.subject.value.startswith(root + "/"))


def test_row_totals_are_the_sums_the_trace_records(source):
    row = next(r for r in list_sessions(source, limit=0).rows if r["id"] == REACT_12)
    llm, tool = _raw_sum("llmDurationMs", REACT_12), _raw_sum("toolDurationMs", REACT_12)
    tokens = _raw_sum("inToken", REACT_12) + _raw_sum("outToken", REACT_12)
    assert llm and tool and tokens
    assert (row["llm_ms"], row["tool_ms"], row["duration_ms"], row["tokens"]) == (llm, tool, llm + tool, tokens)
    assert row["tool_errors"] == BY_ID[REACT_12]["tool_errors"] == 1


def test_sub_session_rows_name_their_parent_session(source):
    rows = list_sessions(source, SessionFilter(include_sub=True), limit=0).rows
    for row in rows:
        parent = BY_ID[row["id"]]["parent"]
        assert row["parent_session"] == (parent.rsplit("/", 1)[0] if parent else None)


def test_answer_previews_come_from_the_texts(source):
    rows = {r["id"]: r for r in list_sessions(source, SessionFilter(include_sub=True), limit=0).rows}
    seed = [s for s in ALL if s.get("answer")]  # the seed shape's inline answers
    assert seed and all(rows[s["session"]]["answer_preview"] == s["answer"] for s in seed)
    # current data: the answer is a tg:document whose text a content file holds
    assert rows["urn:trustgraph:agent:6b0a18e8-830e-47bc-9e39-8f1012bd4ace"]["answer_preview"].startswith("Routes linked Lübeck")
    unanswered = [s["session"] for s in ALL if not s["has_answer"]]
    assert unanswered and all(rows[i]["answer_preview"] is None for i in unanswered)


# -- the index file -----------------------------------------------------------------------------

def test_an_index_of_an_older_version_is_built_again_on_opening(tmp_path):
    store = open_local_store(tmp_path / "s")
    ingest_file(store, str(CORPUS / "orchestrated.nq"))
    expected = ids(store.source(), SessionFilter(include_sub=True))
    del store
    with sqlite3.connect(tmp_path / "s" / INDEX_FILE) as db:  # what an older version left
        db.execute("UPDATE meta SET value = '1' WHERE key = 'version'")
    assert SessionIndex(tmp_path / "s" / INDEX_FILE, read_only=True).usable is False
    reopened = open_local_store(tmp_path / "s")
    assert reopened.index.usable and ids(reopened.source(), SessionFilter(include_sub=True)) == expected
    assert ids(reopened.source(), SessionFilter(text="sarbanes oxley")) == ["urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"]
