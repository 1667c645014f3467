"""The statistics' series over time is counted by day, week, month or year, whichever keeps it
within ``MAX_PERIODS`` periods, and the numbers of every session and of the top-level sessions
read from the counts the index keeps equal those counted from its rows: over spans that take
each unit, with sub-sessions whose parent is not indexed (their calls are then not the
top-level sessions'), after rows are replaced and dropped, and in an index written before these
counts were kept."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, timedelta, timezone

import pytest

from tests.test_index_aggregates import counted_afresh, kept
from trace_explorer.model.periods import MAX_PERIODS, period_of, period_unit, periods_between, unit_label
from trace_explorer.analysis.stats import _from_index, collection_stats, summarize
from trace_explorer.index import aggregates as index_aggregates, reach as index_reach
from trace_explorer.sources.filter import SessionFilter
from trace_explorer.index.schema import INDEX_FILE
from trace_explorer.index.session_index import SessionIndex
from trace_explorer.sources.store_source import StoreSource

TOP, EVERY = SessionFilter(), SessionFilter(include_sub=True)


def test_the_unit_is_the_shortest_that_keeps_the_series_within_the_most_periods():
    first = date(2024, 1, 1)  # a Monday
    assert period_unit("2024-01-01", (first + timedelta(days=MAX_PERIODS - 1)).isoformat()) == "day"
    assert period_unit("2024-01-01", (first + timedelta(days=MAX_PERIODS)).isoformat()) == "week"
    assert period_unit("2024-01-01", (first + timedelta(weeks=MAX_PERIODS - 1, days=6)).isoformat()) == "week"
    assert period_unit("2024-01-01", (first + timedelta(weeks=MAX_PERIODS)).isoformat()) == "month"
    assert period_unit("2024-01-01", "2032-04-30") == "month"  # 100 months
    assert period_unit("2024-01-01", "2032-05-01") == "year"
    assert period_unit("2024-03-05", "2024-03-05") == "day"
    # a Sunday and the next Monday are in two weeks: the weeks counted, not the days / 7
    assert period_unit("2024-01-07", (date(2024, 1, 8) + timedelta(weeks=MAX_PERIODS - 1)).isoformat()) == "month"


def test_a_day_falls_in_its_week_from_monday_its_month_and_its_year():
    assert [period_of(d, "week") for d in ("2024-01-01", "2024-01-07", "2024-01-08", "2023-01-01")] == [
        "2024-01-01", "2024-01-01", "2024-01-08", "2022-12-26"]
    assert (period_of("2024-02-29", "day"), period_of("2024-02-29", "month"), period_of("2024-02-29", "year")) == (
        "2024-02-29", "2024-02", "2024")
    assert unit_label("week") == "Week (UTC, from Monday)" and unit_label("month") == "Month (UTC)"
    with pytest.raises(ValueError, match="unknown period unit 'hour'"):
        period_of("2024-01-01", "hour")


def test_the_periods_between_two_name_the_empty_ones_too_and_the_chart_axis_has_them():
    assert periods_between("2023-12-30", "2024-01-02", "day") == ["2023-12-30", "2023-12-31", "2024-01-01",
                                                                 "2024-01-02"]
    assert periods_between("2023-12-25", "2024-01-15", "week") == ["2023-12-25", "2024-01-01", "2024-01-08",
                                                                  "2024-01-15"]
    assert periods_between("2023-11", "2024-02", "month") == ["2023-11", "2023-12", "2024-01", "2024-02"]
    assert periods_between("1999", "2001", "year") == ["1999", "2000", "2001"]
    assert periods_between("2024-02", "2024-01", "month") == []
    with pytest.raises(ValueError, match="not a month"):
        periods_between("2024-13", "2024-14", "month")
    from trace_explorer.views.insight_charts import sessions_over_time

    numbers = {"period": "month", "per_period": [
        {"period": "2023-11", "mechanism": "Agent", "pattern": "react", "sessions": 2},
        {"period": "2024-02", "mechanism": "GraphRAG", "pattern": None, "sessions": 1}]}
    chart = sessions_over_time(numbers)
    assert list(chart.data["month"]) == ["2023-11", "2024-02"]  # the data (its CSV): the periods counted
    axis = chart.chart.to_dict()
    assert _find(axis, "domain") == ["2023-11", "2023-12", "2024-01", "2024-02"]  # the axis: the gaps too


def _find(spec, key):
    """The first value of ``key`` anywhere in a Vega-Lite spec."""
    if isinstance(spec, dict):
        if key in spec:
            return spec[key]
        spec = list(spec.values())
    for item in spec if isinstance(spec, list) else ():
        found = _find(item, key)
        if found is not None:
            return found
    return None


def rows_over(days: int, count: int, *, orphans: int = 0) -> list[dict]:
    """``count`` top-level sessions spread over ``days`` days (some undated), each of the even
    ones with a sub-session below it, and ``orphans`` sub-sessions whose parent is not indexed;
    each with a tool call, an LLM call and a termination reason (a few with none)."""
    start = datetime(2023, 11, 30, 23, 30, tzinfo=timezone.utc)
    rows = []

    def row(root: str, top: int, parent: str | None, moment: datetime | None, n: int) -> dict:
        return {"root": root, "top": top, "time": moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if moment else None,
                "mechanism": ("Agent", "GraphRAG", "DocRAG")[n % 3], "pattern": "react" if n % 3 == 0 else None,
                "status": "answered", "steps": 1 + n % 5, "question_key": None, "duration": None, "tokens": None,
                "tool_errors": 0, "parent": parent, "search": {}, "summary": "{}",
                "insights": {"tools": [[f"tool-{n % 4}", 10 * n, n % 7 == 0]], "llm": [[f"m{n % 2}", n, 3, 4]],
                             "termination": None if n % 6 == 5 else ("final-answer", "max-iterations")[n % 2],
                             "parse_errors": n % 3}}

    for n in range(count):
        moment = None if n % 17 == 16 else start + timedelta(days=days * n / max(1, count - 1))
        rows.append(row(f"urn:s{n}", 1, None, moment, n))
        if n % 2 == 0:
            rows.append(row(f"urn:s{n}/sub", 0, f"urn:s{n}", moment, n + 1))
    rows += [row(f"urn:orphan{n}", 0, f"urn:missing{n}", start, n) for n in range(orphans)]
    return rows


def from_rows(index: SessionIndex, filters: SessionFilter) -> dict:
    """The numbers counted from the index's rows (no kept counts)."""
    index.aggregates = False
    try:
        return summarize(_from_index(index, filters))
    finally:
        index.aggregates = True


@pytest.mark.parametrize(("days", "unit"), [(40, "day"), (300, "week"), (1500, "month"), (4000, "year")])
def test_both_views_from_the_kept_counts_equal_the_rows_counted_over_each_unit(days, unit):
    index = SessionIndex()
    index.replace([], rows_over(days, 120))
    assert index_reach.unreached(index._query) == 0
    source = StoreSource(None, index=index)
    for filters, sessions in ((TOP, 120), (EVERY, 180)):
        numbers = collection_stats(source, filters)
        assert numbers == from_rows(index, filters), (filters, unit)
        assert numbers["period"] == unit and numbers["sessions"] == sessions
        undated = [n for n in range(120) if n % 17 == 16]  # and their sub-sessions, of the even ones
        dated = sessions - len(undated) - (0 if filters is TOP else len([n for n in undated if n % 2 == 0]))
        assert sum(d["sessions"] for d in numbers["per_period"]) == dated
        assert len({d["period"] for d in numbers["per_period"]}) <= MAX_PERIODS or unit == "year"
    # the top-level sessions' calls are those of every session: every sub-session is below one
    assert collection_stats(source, TOP)["tools"] == collection_stats(source, EVERY)["tools"]


def test_the_calls_of_sub_sessions_no_top_level_session_reaches_are_not_the_top_level_ones():
    index = SessionIndex()
    index.replace([], rows_over(300, 60, orphans=5))
    assert index_reach.unreached(index._query) == 5
    source = StoreSource(None, index=index)
    top, every = collection_stats(source, TOP), collection_stats(source, EVERY)
    assert top == from_rows(index, TOP) and every == from_rows(index, EVERY)
    assert sum(t["calls"] for t in every["tools"].values()) - sum(t["calls"] for t in top["tools"].values()) == 5
    # their parent indexed at last: every session is reached, and counted from the kept counts
    parents = [r for r in rows_over(300, 5) if r["top"]]
    index.replace([], [dict(r, root=f"urn:missing{n}") for n, r in enumerate(parents)])
    assert index_reach.unreached(index._query) == 0
    assert collection_stats(source, TOP) == from_rows(index, TOP)
    assert collection_stats(source, TOP)["tools"] == collection_stats(source, EVERY)["tools"]
    index.replace(["urn:s0"], [])  # a parent dropped: its sub-session is no longer reached
    assert index_reach.unreached(index._query) == 1
    assert collection_stats(source, TOP) == from_rows(index, TOP)


def test_the_top_level_counts_follow_rows_and_termination_rows_written_in_either_order():
    index = SessionIndex()
    rows = rows_over(300, 60)
    index.replace([], [dict(r, insights=None) for r in rows])  # sessions first, their insight rows after
    assert kept(index) == counted_afresh(index)
    with index._lock, index._db:
        index._db.executemany("INSERT INTO insight_sessions VALUES (?, ?, ?)",
                              [(r["root"], r["insights"]["termination"], 1) for r in rows[::2]])
        index._db.execute("INSERT OR REPLACE INTO insight_sessions VALUES (?, 'stopped', 0)", (rows[0]["root"],))
        index._db.execute("UPDATE sessions SET top = 0 WHERE root = ?", (rows[2]["root"],))
        index._db.execute("DELETE FROM sessions WHERE root = ?", (rows[4]["root"],))
        index._db.execute("DELETE FROM insight_sessions WHERE root = ?", (rows[6]["root"],))
    assert kept(index) == counted_afresh(index)
    assert dict(index_aggregates.counts_of("stats_top_termination", index._query))["stopped"] == 1


def test_an_index_kept_before_the_periods_gets_them_when_opened_for_writing(tmp_path):
    path = tmp_path / INDEX_FILE
    index = SessionIndex(path)
    index.replace([], rows_over(300, 60, orphans=2))
    expected = kept(index)
    top, every = collection_stats(StoreSource(None, index=index), TOP), collection_stats(StoreSource(None, index=index), EVERY)
    index.close()
    db = sqlite3.connect(path)
    with db:  # as the index was: a per-day table, triggers counting into it, no unreached count
        for table in index_aggregates.PERIOD_TABLES:
            db.execute(f"DROP TABLE {table}")
        db.execute("DELETE FROM meta WHERE key = ?", (index_reach.UNREACHED_KEY,))
        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            db.execute(f"DROP TRIGGER {name}")
        db.execute("CREATE TABLE stats_days (day NOT NULL, mechanism NOT NULL, pattern NOT NULL, n INTEGER NOT NULL, "
                   "PRIMARY KEY (day, mechanism, pattern)) WITHOUT ROWID")
        db.execute("CREATE TRIGGER aggregate_session_insert AFTER INSERT ON sessions BEGIN INSERT INTO stats_days "
                   "VALUES (substr(new.time, 1, 10), new.mechanism, IFNULL(new.pattern, ''), 1) "
                   "ON CONFLICT DO UPDATE SET n = n + 1; END")
    db.close()
    read_only = SessionIndex(path, read_only=True)  # the list's counts are still kept; the statistics read the rows
    assert read_only.aggregates and collection_stats(StoreSource(None, index=read_only), TOP) == top
    read_only.close()
    again = SessionIndex(path)
    assert kept(again) == expected and index_reach.unreached(again._query) == 2
    names = [n for (n,) in again._query("SELECT name FROM sqlite_master")]
    assert "stats_days" not in names
    assert not any("stats_days" in (sql or "") for (sql,) in again._query("SELECT sql FROM sqlite_master"))
    source = StoreSource(None, index=again)
    assert collection_stats(source, TOP) == top and collection_stats(source, EVERY) == every
    again.replace(["urn:s1"], rows_over(300, 3))  # the triggers made anew count a later write
    assert kept(again) == counted_afresh(again)


def test_the_unreached_count_a_write_keeps_is_every_session_counted_again():
    """Rows written and dropped in many mixes (parents before and after their sub-sessions, a
    loop of parents, a top-level session made a sub-session, rows rewritten): after each write
    the count kept by looking at what it touched equals every session counted."""
    import random

    rng = random.Random(7)
    index = SessionIndex()
    base = rows_over(300, 40, orphans=6)
    index.replace([], base[:30])
    assert index_reach.unreached(index._query) == index_reach.count_all(index._db)
    pool = {r["root"]: r for r in base}
    pool.update({f"urn:missing{n}": dict(base[2 * n], root=f"urn:missing{n}") for n in range(6)})
    pool["urn:loop-a"] = dict(base[1], root="urn:loop-a", top=0, parent="urn:loop-b")
    pool["urn:loop-b"] = dict(base[1], root="urn:loop-b", top=0, parent="urn:loop-a")
    pool["urn:under-loop"] = dict(base[1], root="urn:under-loop", top=0, parent="urn:loop-a")
    pool["urn:s3"] = dict(pool["urn:s3"], top=0, parent="urn:s5")  # a top-level session made a sub-session
    roots = sorted(pool)
    counts = set()
    for _ in range(60):
        have = set(index.roots())
        drop = rng.sample(sorted(have), rng.randint(0, 3)) if have else []
        if rng.random() < 0.5:  # rewritten rows dropped first, as ``replace`` does
            write = rng.sample(roots, rng.randint(0, 4))
            index.replace(drop, [pool[r] for r in write])
        else:  # new rows only, not named among those dropped
            write = rng.sample(sorted(set(roots) - have), min(4, len(set(roots) - have)))
            index.replace_batches(drop, [[pool[r] for r in write]], [])
        kept_count = index_reach.unreached(index._query)
        assert kept_count == index_reach.count_all(index._db), (drop, write)
        counts.add(kept_count)
    assert len(counts) > 3  # the mixes did move the count
