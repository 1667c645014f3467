"""The session list filtered by review (issue 42: label, reviewer, "not reviewed"), inside the
session index's own queries, as the type filter is: pages and counts of the demo's seed sessions
with reviews of some of them."""

from __future__ import annotations

import pytest

from tests.conftest import corpus_paths, manifest_sessions, newest_first
from trace_explorer.read.collection import load_collection
from trace_explorer.reviews import ReviewStore
from trace_explorer.sources.filter import SessionFilter, SessionOrder
from trace_explorer.sources.filter import ReviewFilter
from trace_explorer.index.build import build_index

SEED = [s for s in manifest_sessions("seed-sessions.ttl") if s["parent"] is None]
ORDER = newest_first(SEED)
MECHANISMS = {"agent": "Agent", "graphrag": "GraphRAG", "docrag": "DocRAG"}  # the manifest's names, the list's


@pytest.fixture(scope="module")
def index():
    collection, errors = load_collection(corpus_paths("seed-sessions.ttl"))
    assert errors == []
    return build_index(collection.store, documents=collection.documents)


@pytest.fixture
def reviews(tmp_path):
    store = ReviewStore(tmp_path / "reviews")
    store.add(ORDER[0], "incorrect", "alice")
    store.add(ORDER[0] + "/i1", "wrong-tool", "bob", session=ORDER[0])
    store.add(ORDER[2], "correct", "bob")
    store.add(ORDER[3], "incorrect", "bob")
    return store


def _listed(index, review_filter: ReviewFilter, **more) -> tuple[list[str], int]:
    filters = SessionFilter(reviews=review_filter, **more)
    return [row["id"] for row in index.page(filters, limit=0)], index.count(filters)


def test_the_list_keeps_the_sessions_a_review_filter_names(index, reviews):
    rows = reviews.filter_rows_path
    assert _listed(index, ReviewFilter(rows, label="incorrect")) == ([ORDER[0], ORDER[3]], 2)
    assert _listed(index, ReviewFilter(rows, author="bob")) == ([ORDER[0], ORDER[2], ORDER[3]], 3)
    assert _listed(index, ReviewFilter(rows, label="incorrect", author="bob")) == ([ORDER[3]], 1)
    assert _listed(index, ReviewFilter(rows, reviewed=True)) == ([ORDER[0], ORDER[2], ORDER[3]], 3)
    not_reviewed = [r for r in ORDER if r not in (ORDER[0], ORDER[2], ORDER[3])]
    assert _listed(index, ReviewFilter(rows, not_reviewed=True)) == (not_reviewed, len(SEED) - 3)
    # "not reviewed by bob": alice's review of the newest does not count
    assert _listed(index, ReviewFilter(rows, author="bob", not_reviewed=True))[1] == len(SEED) - 3
    assert _listed(index, ReviewFilter(rows, author="alice", not_reviewed=True))[1] == len(SEED) - 1
    # with the type filter too
    docrag = [s["session"] for s in SEED if s["mechanism"] == "docrag"]
    assert _listed(index, ReviewFilter(rows, author="bob"), mechanism="DocRAG")[1] == len(
        {ORDER[0], ORDER[2], ORDER[3]} & set(docrag))
    # an inactive review filter is no filter
    assert index.count(SessionFilter(reviews=ReviewFilter(rows))) == len(SEED)
    assert SessionFilter(reviews=ReviewFilter(rows)).unfiltered and not SessionFilter(
        reviews=ReviewFilter(rows, label="x")).unfiltered


def test_a_new_review_shows_in_the_next_page_and_count(index, reviews):
    review_filter = ReviewFilter(reviews.filter_rows_path, label="harmful")
    assert _listed(index, review_filter) == ([], 0)
    reviews.add(ORDER[1], "harmful", "carol")
    assert _listed(index, review_filter) == ([ORDER[1]], 1)
    reviews.delete(reviews.reviews_of(session=ORDER[1])[0].id, "carol")
    assert _listed(index, review_filter) == ([], 0)


def test_a_store_without_reviews_yet_reviews_no_session(index, tmp_path):
    empty = ReviewStore(tmp_path / "none")
    assert _listed(index, ReviewFilter(empty.filter_rows_path, label="correct")) == ([], 0)
    assert _listed(index, ReviewFilter(empty.filter_rows_path, not_reviewed=True))[1] == len(SEED)


def test_a_source_without_an_index_names_the_reviewed_sessions_in_its_query(reviews):
    from trace_explorer.index.catalog import _where as sparql_where
    from trace_explorer.sources.search import INDEX_SEARCH

    rows = reviews.filter_rows_path
    query = sparql_where(SessionFilter(reviews=ReviewFilter(rows, label="incorrect")), INDEX_SEARCH)
    assert f"FILTER(?root IN (<{min(ORDER[0], ORDER[3])}>, <{max(ORDER[0], ORDER[3])}>))" in query
    query = sparql_where(SessionFilter(reviews=ReviewFilter(rows, not_reviewed=True)), INDEX_SEARCH)
    assert "FILTER(?root NOT IN (" in query and f"<{ORDER[2]}>" in query


@pytest.mark.parametrize("key", ["time", "id", "tokens"])
@pytest.mark.parametrize("descending", [True, False])
@pytest.mark.parametrize("include_sub", [False, True])
def test_a_page_of_reviewed_rows_alone_is_the_list_s_own_page(index, reviews, key, descending, include_sub):
    # a review filter alone walks the reviewed rows in their own index (time and IRI orders): each
    # page is the page of the whole list in that order, kept to the reviewed sessions
    reviews.add(ORDER[4], "incorrect", "dan")
    order = SessionOrder(key, descending)
    review_filter = ReviewFilter(reviews.filter_rows_path, label="incorrect")
    whole = [row["id"] for row in index.page(SessionFilter(include_sub=include_sub), limit=0, order=order)]
    expected = [root for root in whole if root in (ORDER[0], ORDER[3], ORDER[4])]
    filters = SessionFilter(reviews=review_filter, include_sub=include_sub)
    pages = [[row["id"] for row in index.page(filters, limit=1, offset=offset, order=order)] for offset in (0, 1, 2, 3)]
    assert [root for page in pages for root in page] == expected and len(expected) == 3
    assert index.count(filters) == 3
    # with a type filter too: the reviewed rows walked in order, each tested against it
    mechanism = next(s["mechanism"] for s in SEED if s["session"] == ORDER[0])
    typed = [row["id"] for row in index.page(SessionFilter(include_sub=include_sub, mechanism=MECHANISMS[mechanism]),
                                             limit=0, order=order)]
    both = SessionFilter(reviews=review_filter, include_sub=include_sub, mechanism=MECHANISMS[mechanism])
    assert [row["id"] for row in index.page(both, limit=0, order=order)] == [r for r in typed if r in expected] != []
