"""Totals with sub-sessions and sub-sessions at their own start, on the traces TrustGraph 2.11.1's
own services wrote (demo_data/services), checked against the manifest taken from what the
stand-ins were asked and answered: a supervisor with three sub-agents, a ReAct agent whose tool
ran GraphRAG, a plan whose step ran GraphRAG (docs/reading-traces.md, "Totals"; ``views.waterfall``)."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timedelta

import pytest

from tests.conftest import SERVICES, SERVICES_FILES
from trace_explorer.cli.main import main
from trace_explorer.model.reader import read_sessions
from trace_explorer.model.summary import session_summary
from trace_explorer.model.totals import FIGURES, TOTAL_PREFIX
from trace_explorer.read.collection import load_collection
from trace_explorer.index.catalog import SessionFilter, list_sessions
from trace_explorer.sources.filter import SessionOrder
from trace_explorer.index.build import build_index
from trace_explorer.sources.store_source import StoreSource
from trace_explorer.views.timeline import timeline_rows
from trace_explorer.views.waterfall import waterfall

BY_NAME = {s["name"]: s for s in SERVICES["sessions"]}
BY_IRI = {s["session"]: s for s in SERVICES["sessions"]}


def expected(entry: dict, with_children: bool) -> dict[str, int]:
    """``FIGURES`` of a manifest session, own or with its sub-sessions, as the manifest says the
    trace records them (``recorded``, ``recorded_with_children``: the LLM calls stamped on a
    step, the tool calls timed on an Observation; 0 where nothing is recorded)."""
    figures = entry["recorded_with_children" if with_children else "recorded"]
    out = {"tokens_in": figures["in"], "tokens_out": figures["out"], "llm_ms": figures["llm_duration_ms"],
           "tool_ms": figures["tool_duration_ms"]}
    out["tokens"] = out["tokens_in"] + out["tokens_out"]
    out["duration_ms"] = out["llm_ms"] + out["tool_ms"]
    return out


def shown(figures: dict) -> dict[str, int]:
    """Our figures with a figure no step records (None) as the manifest's 0."""
    return {name: figures[name] or 0 for name in FIGURES}


@pytest.fixture(scope="module")
def service_sessions():
    collection, errors = load_collection(SERVICES_FILES)
    assert errors == []
    return collection, {s.id: s for s in read_sessions(collection)}


def test_the_manifest_has_the_families_the_totals_count():
    assert len(BY_NAME["supervisor"]["children"]) == 3
    assert BY_NAME["react-graphrag"]["children"] == [BY_NAME["react-graphrag/knowledge-query"]["session"]]
    assert BY_NAME["plan"]["children"] == [BY_NAME["plan/knowledge-query"]["session"]]


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_each_sessions_own_figures_and_totals_are_the_manifests(service_sessions, name):
    _, sessions = service_sessions
    entry = BY_NAME[name]
    row = session_summary(sessions[entry["session"]], sessions)
    assert shown(row) == expected(entry, with_children=False)
    assert shown({f: row[TOTAL_PREFIX + f] for f in FIGURES}) == expected(entry, with_children=True)
    assert row["sub_sessions"] == len(entry["children"])


def test_a_supervisor_counts_its_three_sub_agents(service_sessions):
    _, sessions = service_sessions
    row = session_summary(sessions[BY_NAME["supervisor"]["session"]], sessions)
    subs = [BY_IRI[c] for c in BY_NAME["supervisor"]["children"]]
    # the supervisor's own steps record nothing; its sub-agents' Analysis steps do
    assert row["tokens"] is None and row["duration_ms"] is None
    assert row["total_tokens"] == sum(expected(s, True)["tokens"] for s in subs) == 1252
    assert row["total_duration_ms"] == sum(expected(s, True)["duration_ms"] for s in subs) == 4880


def test_the_index_the_sort_and_the_cli_give_the_same_totals(service_sessions, capsys):
    collection, sessions = service_sessions
    source = StoreSource(collection.store, index=build_index(collection.store))
    rows = {r["id"]: r for r in list_sessions(source, SessionFilter(include_sub=True), limit=0).rows}
    for entry in SERVICES["sessions"]:
        assert shown({f: rows[entry["session"]][TOTAL_PREFIX + f] for f in FIGURES}) == expected(entry, True), \
            entry["name"]
    top = [e for e in SERVICES["sessions"] if e["parent"] is None]
    by_tokens = list_sessions(source, SessionFilter(), limit=0, order=SessionOrder("tokens", True)).rows
    want = sorted((e for e in top if expected(e, True)["tokens"]),
                  key=lambda e: (-expected(e, True)["tokens"], -datetime.fromisoformat(e["started"]).timestamp()))
    assert [r["id"] for r in by_tokens][:len(want)] == [e["session"] for e in want]
    assert main(["list", *map(str, SERVICES_FILES), "--all", "--format", "json"]) == 0
    listed = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    supervisor = BY_NAME["supervisor"]["session"]
    assert (listed[supervisor]["tokens"], listed[supervisor]["total_tokens"]) == (None, 1252)


def started_ms(later: dict, earlier: dict) -> float:
    """Ms between two manifest sessions' ``started``."""
    times = [datetime.fromisoformat(e["started"].replace("Z", "+00:00")) for e in (later, earlier)]
    return (times[0] - times[1]) / timedelta(milliseconds=1)


def test_each_sub_agent_starts_at_its_own_start_time(service_sessions):
    _, sessions = service_sessions
    supervisor = BY_NAME["supervisor"]
    rows = waterfall(sessions[supervisor["session"]], sessions)
    assert rows.axis == "ms"
    starts = []
    for child in supervisor["children"]:
        sub = BY_IRI[child]
        header = rows.ids.index(child)
        start = started_ms(sub, supervisor)
        assert rows.headers[header] and rows.starts[header] == start
        inside = [i for i, band in enumerate(rows.bands) if band == header]
        assert [rows.ids[i] for i in inside] == sub["step_order"]
        clock = start  # its steps end to end from its own start, by the time each records
        for i in inside:
            assert rows.starts[i] == clock
            clock = rows.ends[i]
        assert rows.ends[header] == start + expected(sub, True)["duration_ms"]
        starts.append(start)
    assert starts == [1720.0, 4030.0, 4870.0]  # 09:40:02.32, :04.63 and :05.47 after 09:40:00.60
    # the exported timeline places them the same way
    exported = timeline_rows(sessions[supervisor["session"]], sessions)
    assert [exported[exported["step"] == c]["start_ms"].iloc[0] for c in supervisor["children"]] == starts


def test_a_tool_calls_graphrag_starts_at_its_own_start(service_sessions):
    _, sessions = service_sessions
    for parent_name in ("react-graphrag", "plan"):
        parent = BY_NAME[parent_name]
        [child] = parent["children"]
        rows = waterfall(sessions[parent["session"]], sessions)
        header = rows.ids.index(child)
        assert rows.starts[header] == started_ms(BY_IRI[child], parent) > 0, parent_name
        assert rows.ids[header - 1] == BY_IRI[child]["parent"]  # right under the step that ran it


def test_the_exports_give_own_figures_and_totals(service_sessions):
    from trace_explorer.export.markdown import session_markdown
    from trace_explorer.export.page import session_page
    from trace_explorer.export.table import COLUMNS, sessions_csv

    _, sessions = service_sessions
    supervisor = sessions[BY_NAME["supervisor"]["session"]]
    graphrag_agent = sessions[BY_NAME["react-graphrag"]["session"]]
    own, total = expected(BY_NAME["react-graphrag"], False), expected(BY_NAME["react-graphrag"], True)
    assert (own["tokens"], total["tokens"]) == (503, 1367)
    markdown = session_markdown(graphrag_agent, sessions)
    assert "**Tokens:** 503 own · 1,367 with sub-sessions" in markdown
    assert "**Duration:** 3,170 ms (LLM + tool time)" in markdown  # the GraphRAG run records no time of its own
    assert "<dt>Tokens</dt><dd>— own · 1,252 with sub-sessions</dd>" in session_page(supervisor, sessions)
    header, values = csv.reader(io.StringIO(sessions_csv([session_summary(supervisor, sessions)])))
    row = dict(zip(header, values))
    assert list(row) == list(COLUMNS) and (row["tokens"], row["total_tokens"], row["sub_sessions"]) == ("", "1252", "3")
