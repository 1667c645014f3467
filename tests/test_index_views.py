"""``stats --all`` and a word search, as the session index answers them at any size (the
statistics from its kept counts, the series over time read in its order; a page of common words
walking the list against matches found once while the index is unchanged), give what counting
the rows and sorting every match give: on a generated collection (``benchmarks/synthetic.py``)
and on the demo data, after a second ingest adds sessions, and after rows are replaced and
dropped."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from collections import Counter

import pytest

from tests.conftest import CORPUS, manifest_sessions
from trace_explorer.analysis.stats import _from_index, _from_sessions, collection_stats, summarize
from trace_explorer.read.collection import expand_paths
from trace_explorer.sources.filter import SessionFilter, SessionOrder
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import local_source, open_local_store
from trace_explorer.sources.search import search_terms, text_match
from trace_explorer.index.list_pages import _WALK_PAGES
from trace_explorer.index.session_index import SessionIndex
from trace_explorer.sources.store_source import StoreSource

BENCHMARKS = CORPUS.parents[1] / "benchmarks"
EVERYTHING = SessionFilter(include_sub=True)
# In the generated mix "bronze" is in about one session in six (common: its pages of 7 walk the
# list), "sarbanes" in fewer than one in twenty and "alpine" in one (rare: their pages start from
# the matches); the others in between.
WORDS = ("bronze", "montana", "answer:paris", "upstream timed", "sarbanes", "alpine")


@pytest.fixture(scope="module")
def synthetic():
    spec = importlib.util.spec_from_file_location("index_views_synthetic", BENCHMARKS / "synthetic.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def made(synthetic, tmp_path_factory):
    """Two generated collections (other seeds: other sessions, on the same days): 160 and 60."""
    out = tmp_path_factory.mktemp("made")
    return (synthetic.generate(out / "a", 160, long_steps=(7, 3)),
            synthetic.generate(out / "b", 60, seed=8, long_steps=(5,)))


def stats_counted_from_rows(index: SessionIndex, filters: SessionFilter = EVERYTHING) -> dict:
    """``stats --all`` (or of ``filters``) from the index's rows, as before it kept counts
    (every row grouped)."""
    kept = index.aggregates
    index.aggregates = False
    try:
        return summarize(_from_index(index, filters))
    finally:
        index.aggregates = kept


def pages_sorting_every_match(index: SessionIndex, filters: SessionFilter, order: SessionOrder,
                              pages: list[tuple[int, int]]) -> list[list[dict]]:
    """The pages as a search that never walks gives them (every match found, then sorted)."""
    kept = index.aggregates
    index.aggregates = False
    try:
        assert index._common(filters) is None
        return [index.page(filters, limit, offset, order) for limit, offset in pages]
    finally:
        index.aggregates = kept


def found_in_texts(index: SessionIndex, filters: SessionFilter) -> set[str]:
    """The sessions whose words hold the search's (``search.text_match`` on the rows' texts, not
    the full-text index)."""
    terms = search_terms(filters.text)
    return {r["root"] for r in index.rows() if (filters.include_sub or r["top"]) and text_match(r["search"], terms)}


def check_stats(source, expected_sessions: int, days_at_least: int) -> dict:
    """``stats --all`` and the top-level sessions' from the kept counts equal the rows counted,
    with real values."""
    numbers = collection_stats(source, EVERYTHING)
    assert numbers == stats_counted_from_rows(source.index)
    assert collection_stats(source, SessionFilter()) == stats_counted_from_rows(source.index, SessionFilter())
    assert numbers["sessions"] == expected_sessions == source.index.count(EVERYTHING)
    assert numbers["period"] == "day"  # a few weeks of sessions
    days = numbers["per_period"]
    assert days == sorted(days, key=lambda d: (d["period"], d["mechanism"], d["pattern"] or ""))
    assert len({(d["period"], d["mechanism"], d["pattern"]) for d in days}) == len(days) >= days_at_least
    assert all(d["sessions"] > 0 and len(d["period"]) == 10 for d in days)
    dated = Counter()
    for d in days:
        dated[d["mechanism"]] += d["sessions"]
    assert all(dated[m] <= n for m, n in numbers["by_mechanism"].items())
    return numbers


def check_searches(index: SessionIndex) -> dict[str, int]:
    """Every page of each of ``WORDS`` (both orders, with and without sub-sessions) equals the
    page of a search that sorts every match, snippets and all; the count equals the sessions
    whose texts hold the words. Returns the counts of the top-level lists."""
    counts = {}
    for text, include_sub, (key, descending) in itertools.product(
            WORDS, (False, True), (("time", True), ("time", False), ("steps", True), ("question", False))):
        filters = SessionFilter(text=text, include_sub=include_sub)
        order = SessionOrder(key, descending)
        total = index.count(filters)
        assert total == len(found_in_texts(index, filters)), (text, include_sub)
        pages = [(7, offset) for offset in range(0, min(total + 7, 7 * _WALK_PAGES), 7)] + [(0, 0)]
        walked = [index.page(filters, limit, offset, order) for limit, offset in pages]
        assert walked == pages_sorting_every_match(index, filters, order, pages), (text, include_sub, order)
        paged = [r["id"] for page in walked[:-1] for r in page]
        assert paged == [r["id"] for r in walked[-1]][:len(paged)]
        assert len(walked[-1]) == total and all(r["match"]["snippet"] for r in walked[-1])
        if not include_sub and key == "time" and descending:
            counts[text] = total
    return counts


def test_stats_and_searches_on_a_generated_collection_through_a_second_ingest(made, tmp_path):
    first, second = made
    store = tmp_path / "store"
    with open_local_store(store) as local:
        ingest_file(local, str(first.documents))
        ingest_file(local, str(first.nquads))
    reader = local_source(store)  # kept open while a writer adds sessions: what it kept is counted again
    before = check_stats(reader, first.info["sessions"], 20)
    mix = Counter()
    for kind, n in first.info["mix"].items():
        mix[kind.split("/")[0]] += n
    assert before["by_mechanism"] == dict(mix)
    assert reader.index._common(SessionFilter(text="bronze"), 7) is not None  # common: walked
    assert reader.index._common(SessionFilter(text="sarbanes"), 7) is None  # rare: from the matches
    counts = check_searches(reader.index)
    assert counts["bronze"] > 20 and 0 < counts["sarbanes"] < first.info["sessions"] / 20 and counts["alpine"] == 1
    known = found_in_texts(reader.index, SessionFilter(text="bronze"))

    with open_local_store(store) as local:
        ingest_file(local, str(second.documents))
        ingest_file(local, str(second.nquads))
    after = check_stats(reader, first.info["sessions"] + second.info["sessions"], 20)
    assert sum(after["by_mechanism"].values()) == sum(before["by_mechanism"].values()) + second.info["sessions"]
    earlier = {(d["period"], d["mechanism"], d["pattern"]): d["sessions"] for d in before["per_period"]}
    grown = [d for d in after["per_period"] if earlier.get((d["period"], d["mechanism"], d["pattern"]), d["sessions"]) < d["sessions"]]
    assert grown  # the second collection's sessions counted on days the first had too
    again = check_searches(reader.index)
    assert again["bronze"] > counts["bronze"]
    assert found_in_texts(reader.index, SessionFilter(text="bronze")) > known

    # rows replaced and dropped (what a file extending a session, or an undone write, does): three
    # sessions asking about bronze, and every session of one day, mechanism and pattern
    with open_local_store(store) as local:
        index = local.index
        rows = {r["root"]: r for r in index.rows()}
        roots = sorted(r for r in rows if rows[r]["top"] and "bronze" in rows[r]["search"].get("question", "").lower())
        groups: dict[tuple, list[str]] = {}
        for root, row in rows.items():
            groups.setdefault(((row["time"] or "")[:10], row["mechanism"], row["pattern"]), []).append(root)
        day = next(d for d in after["per_period"] if d["sessions"] > 1
                   and not set(groups[(d["period"], d["mechanism"], d["pattern"])]) & set(roots[:5]))
        emptied = groups[(day["period"], day["mechanism"], day["pattern"])]
        assert len(emptied) == day["sessions"]
        index.replace(roots[:3] + emptied, [])
        index.replace([], [dict(rows[r], insights=None) for r in roots[3:5]])
    dropped = check_stats(reader, after["sessions"] - 3 - len(emptied), 20)
    assert [d for d in dropped["per_period"] if (d["period"], d["mechanism"]) == (day["period"], day["mechanism"])
            and d["pattern"] == day["pattern"]] == []
    assert check_searches(reader.index)["bronze"] == again["bronze"] - 3


def test_stats_and_searches_on_the_demo_data_file_by_file(tmp_path):
    store = tmp_path / "store"
    reader = None
    for path in expand_paths([CORPUS]):
        with open_local_store(store) as local:
            ingest_file(local, str(path))
        reader = reader or local_source(store)
        if reader.index.count(EVERYTHING) > 20:
            assert collection_stats(reader, EVERYTHING) == stats_counted_from_rows(reader.index)
    numbers = check_stats(reader, len(manifest_sessions()), 3)
    plain = StoreSource(local_source(store).store)  # no index: the sessions read and counted
    assert summarize(_from_sessions(plain, EVERYTHING)) == numbers
    assert numbers["durations"]["tool"]["calls"] == 26
    for text in ("weather", "the", "answer:paris"):
        for include_sub in (False, True):
            filters = SessionFilter(text=text, include_sub=include_sub)
            total = reader.index.count(filters)
            assert total == len(found_in_texts(reader.index, filters)) > 0
            pages = [(3, offset) for offset in range(0, min(total + 3, 3 * _WALK_PAGES), 3)]
            assert [reader.index.page(filters, *p) for p in pages] == \
                pages_sorting_every_match(reader.index, filters, SessionOrder(), pages)
    assert reader.index._common(SessionFilter(text="the"), 3) is not None
