"""The session list asked of the traces themselves (a source without a session index, as a
SPARQL endpoint is) in the shapes that keep it fast on a large endpoint: sessions found by
type before their IRI is read, a page first asked for without grouping rows by session, and
the count asked beside the page. What the list shows must not change: the rows, their order
and the count, against the manifest's sessions."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from tests.conftest import manifest_sessions, newest_first
from tests.test_catalog import _memory
from trace_explorer.index import catalog
from trace_explorer.index.catalog import SessionFilter, SessionOrder, count_sessions, list_sessions

TOP = [s for s in manifest_sessions() if s["parent"] is None]
TG = "https://trustgraph.ai/ns/"
STARTED = ox.NamedNode("http://www.w3.org/ns/prov#startedAtTime")
QUERY = ox.NamedNode(TG + "query")
UNTYPED = "urn:trustgraph:agent:0a0a0a0a-untyped-root"  # a root by its IRI's shape alone


def _with(*triples: tuple[str, ox.NamedNode, str]):
    """The corpus in memory, without a session index, with ``triples`` (subject IRI,
    predicate, literal) added."""
    source = _memory()
    for subject, predicate, value in triples:
        source.store.add(ox.Quad(ox.NamedNode(subject), predicate, ox.Literal(value)))
    return source


def ids(source, **kwargs) -> list[str]:
    return [r["id"] for r in list_sessions(source, **kwargs).rows]


def test_a_root_known_by_its_iri_alone_is_listed_and_other_questions_are_not():
    source = _with((UNTYPED, QUERY, "Who keeps the lighthouse?"), (UNTYPED, STARTED, "2031-01-01T00:00:00Z"),
                   ("urn:example:not-a-session", QUERY, "A question on no root's IRI"))
    assert ids(source, limit=0) == [UNTYPED] + newest_first(TOP)
    assert count_sessions(source) == len(TOP) + 1
    assert list_sessions(source, limit=3).total == len(TOP) + 1


@pytest.mark.parametrize("key", ["time", "question"])
def test_a_session_with_two_values_of_its_sort_key_is_listed_once(key):
    """The newest session given a second start time (newer still) or a second question: its
    ungrouped rows come twice, so the page is asked again grouped by session."""
    newest = newest_first(TOP)[0]
    extra = (STARTED, "2031-01-01T00:00:00Z") if key == "time" else (QUERY, "aaa a second question")
    source = _with((newest, *extra))
    order = SessionOrder(key, key == "time")
    first = ids(source, limit=5, order=order)
    assert len(set(first)) == 5 and first[0] == newest
    for limit in (len(TOP) + 5, 0):  # one page of every row (ungrouped first), and all (grouped)
        assert sorted(ids(source, limit=limit, order=order)) == sorted(s["session"] for s in TOP)
    assert list_sessions(source, limit=5, order=order).total == len(TOP)


def test_pages_past_the_ungrouped_rows_are_the_same(monkeypatch):
    source = _memory()
    expected = newest_first(TOP)
    monkeypatch.setattr(catalog, "UNGROUPED_ROWS", 4)  # page 2 of 3 rows then asks grouped
    assert ids(source, limit=3) == expected[:3]
    assert ids(source, limit=3, offset=3) == expected[3:6]


def test_the_count_asked_beside_the_page_is_the_page_total(monkeypatch):
    source = _memory()
    monkeypatch.setattr(type(source), "concurrent_queries", True)
    page = list_sessions(source, SessionFilter(mechanism="DocRAG"), limit=2)
    expected = [s for s in TOP if s["mechanism"] == "docrag"]
    assert [r["id"] for r in page.rows] == newest_first(expected)[:2] and page.total == len(expected)
