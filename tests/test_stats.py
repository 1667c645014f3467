"""Collection insights: the numbers equal sums over the corpus manifest, read from the session
index (files, a local store) and from the sessions themselves (a source without an index) alike;
filters narrow them; ``trace-explorer stats`` prints them."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.conftest import CORPUS, MECHANISM_NAMES, manifest_sessions
from tests.totals_support import family_of
from trace_explorer.analysis.stats import collection_stats, percentile
from trace_explorer.cli.main import main
from trace_explorer.read.collection import load_collection
from trace_explorer.sources.filter import SessionFilter
from trace_explorer.index.build import build_index
from trace_explorer.sources.store_source import StoreSource


@pytest.fixture(scope="module")
def sources():
    collection, errors = load_collection([CORPUS])
    assert errors == []
    indexed = StoreSource(collection.store, documents=collection.documents, index=build_index(collection.store))
    plain = StoreSource(collection.store, documents=collection.documents)  # answered by SPARQL and reading sessions
    return indexed, plain


def expected(include_sub: bool) -> tuple[Counter, int, Counter, int]:
    """Tool calls, tool errors, sessions by mechanism and sessions of the chosen sessions: the
    calls and errors counted over the chosen sessions and every session below them (docs/reading-traces.md,
    "Totals"), each once."""
    chosen = [s for s in manifest_sessions() if include_sub or s["parent"] is None]
    below = {m for s in chosen for m in family_of(s["file"], s["session"])}
    counted = [s for s in manifest_sessions() if s["session"] in below]
    calls = Counter(a for s in counted for a in s.get("actions") or [])
    errors = sum(s.get("tool_errors") or 0 for s in counted)
    mechanisms = Counter(MECHANISM_NAMES[s["mechanism"]] for s in chosen)
    return calls, errors, mechanisms, len(chosen)


@pytest.mark.parametrize("include_sub", [False, True])
@pytest.mark.parametrize("which", ["indexed", "plain"])
def test_tool_calls_and_errors_are_the_manifests_sums(sources, which, include_sub):
    source = sources[0] if which == "indexed" else sources[1]
    numbers = collection_stats(source, SessionFilter(include_sub=include_sub))
    calls, errors, mechanisms, count = expected(include_sub)
    assert calls == expected(True)[0]  # every sub-session of the corpus sits under a top-level session
    assert numbers["sessions"] == count
    assert numbers["by_mechanism"] == dict(mechanisms)
    assert {tool: t["calls"] for tool, t in numbers["tools"].items()} == dict(calls)
    assert sum(t["errors"] for t in numbers["tools"].values()) == errors == 1
    assert numbers["tools"]["mcp:weather"]["errors"] == 1  # the 12-step run's failed call
    assert sum(d["sessions"] for d in numbers["per_period"]) == count
    assert sum(numbers["termination"].values()) == count


def test_the_index_and_the_sessions_give_the_same_numbers(sources):
    for filters in (SessionFilter(), SessionFilter(include_sub=True), SessionFilter(mechanism="Agent", include_sub=True),
                    SessionFilter(tool="calculator"), SessionFilter(termination="max-iterations")):
        assert collection_stats(sources[0], filters) == collection_stats(sources[1], filters), filters


def test_filters_narrow_the_numbers(sources):
    with_calculator = [s for s in manifest_sessions() if s["parent"] is None and "calculator" in (s.get("actions") or [])]
    numbers = collection_stats(sources[0], SessionFilter(tool="calculator"))
    assert numbers["sessions"] == len(with_calculator) == 3
    assert numbers["tools"]["calculator"]["calls"] == sum(s["actions"].count("calculator") for s in with_calculator)
    stopped = collection_stats(sources[0], SessionFilter(termination="max-iterations"))
    assert stopped["sessions"] == 1 and stopped["steps"]["max"] == max(stopped["steps"]["max"], 12)
    graphrag = collection_stats(sources[0], SessionFilter(mechanism="GraphRAG", include_sub=True))
    assert graphrag["tools"] == {} and graphrag["by_mechanism"] == {"GraphRAG": 8}
    assert set(graphrag["termination"]) == {"none"}


def test_percentiles_are_nearest_rank():
    assert percentile([], 50) is None
    assert percentile([10], 95) == 10
    assert percentile([1, 2, 3, 4], 50) == 2 and percentile([1, 2, 3, 4], 95) == 4
    assert percentile(list(range(1, 101)), 95) == 95


def test_tool_durations_are_the_observations(sources):
    numbers = collection_stats(sources[0], SessionFilter(include_sub=True))
    # every current-shape Observation records tg:toolDurationMs; the seed shape records none
    assert numbers["durations"]["tool"]["calls"] == 26
    assert numbers["durations"]["tool"]["max_ms"] == max(t["max_ms"] for t in numbers["tools"].values())


def test_the_stats_command_prints_the_same_numbers_as_json(capsys, sources):
    assert main(["stats", str(CORPUS), "--all", "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == collection_stats(sources[0], SessionFilter(include_sub=True))
    assert main(["stats", str(CORPUS), "--type", "agent", "--tool", "web-search"]) == 0
    text = capsys.readouterr().out
    searched = [s for s in manifest_sessions() if s["parent"] is None and "web-search" in (s.get("actions") or [])]
    assert text.startswith(f"{len(searched)} sessions\n") and len(searched) == 5 and "web-search" in text


def test_the_stats_text_names_what_each_count_counts(capsys, sources):
    assert main(["stats", str(CORPUS)]) == 0
    text = capsys.readouterr().out
    numbers = collection_stats(sources[0], SessionFilter())
    tool_calls = sum(t["calls"] for t in numbers["tools"].values())
    llm_calls = sum(t["calls"] for t in numbers["tokens"].values())
    timed = numbers["durations"]
    assert tool_calls != timed["tool"]["calls"] and llm_calls != timed["llm"]["calls"]  # why the words are needed
    assert f"Calls: every tool call (an Analysis with tg:action), {tool_calls:,} in all" in text
    assert "Durations  Timed calls" in text and "Timed calls: the LLM and tool calls that record their duration" in text
    assert f"LLM calls: every step that records an LLM call (a model, tokens or an LLM duration), {llm_calls:,} in all" in text
    assert "Model        LLM calls" in text


def test_the_stats_command_on_a_store(capsys, corpus_stores):
    store = corpus_stores["collection.trig"]
    assert main(["stats", "--store", str(store), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    calls = Counter(a for s in manifest_sessions("collection.trig") for a in s.get("actions") or [])
    assert {tool: t["calls"] for tool, t in printed["tools"].items()} == dict(calls)


def test_bad_usage_is_status_2(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["stats", str(CORPUS), "--type", "nonsense"])
    assert stop.value.code == 2


def test_the_health_filter_on_files_checks_them_first(capsys):
    assert main(["stats", str(CORPUS), "--all", "--health", "infos", "--format", "json"]) == 0
    numbers = json.loads(capsys.readouterr().out)
    from tests.answer_support_truth import UNSUPPORTED
    infos = [s for s in manifest_sessions() if not s["has_answer"] or s["session"] in UNSUPPORTED]
    assert numbers["sessions"] == len(infos)  # every DocRAG chunk has its text (demo-chunks.documents.json)
    assert main(["stats", str(CORPUS), "--all", "--health", "unchecked", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["sessions"] == 0


def test_the_insight_charts_hold_the_numbers_and_keep_their_labels_inside(sources):
    from trace_explorer.views.insight_charts import insight_charts

    numbers = collection_stats(sources[0], SessionFilter())
    charts = {c.key: c for c in insight_charts(numbers)}
    calls, errors, _, count = expected(False)
    assert charts["steps-per-session"].data["sessions"].sum() == count
    tools = charts["tool-calls"].data.set_index("tool")
    assert tools["calls"].to_dict() == dict(calls) and tools["errors"].sum() == errors
    # the histogram's last label (the longest session's steps) is drawn inside the plot, not cut
    x = charts["steps-per-session"].chart.to_dict()["encoding"]["x"]
    assert x["axis"]["labelFlush"] is True
    from trace_explorer.model.reader import read_sessions

    top = [s for s in read_sessions(load_collection([CORPUS])[0]) if not s.parent_session]
    assert charts["steps-per-session"].data["steps"].max() == max(len(s.steps) for s in top) == 26


def test_steps_per_session_bins_whole_numbers_so_neighbours_are_two_bars():
    """Two sessions of 2 and 3 steps were one bar from 2 to 3 (Vega's bins of the values'
    extent); the extent now reaches one past the largest, so each number has its bin."""
    from trace_explorer.views.insight_charts import steps_per_session

    spec = steps_per_session({"steps_per_session": [{"steps": 2, "sessions": 1},
                                                    {"steps": 3, "sessions": 1}]}).chart.to_dict()
    assert spec["encoding"]["x"]["bin"] == {"extent": [2, 4], "maxbins": 30, "minstep": 1}
    wide = steps_per_session({"steps_per_session": [{"steps": 1, "sessions": 5}, {"steps": 2000, "sessions": 1}]})
    assert wide.chart.to_dict()["encoding"]["x"]["bin"]["extent"] == [1, 2001]


def test_durations_with_no_timed_call_have_no_rows_so_the_page_says_nothing_to_draw():
    from trace_explorer.views.insight_charts import durations

    none = {"calls": 0, "p50_ms": None, "p95_ms": None, "max_ms": None}
    assert durations({"durations": {"llm": none, "tool": none}}).data.empty
    timed = durations({"durations": {"llm": {"calls": 2, "p50_ms": 10.0, "p95_ms": 19.0, "max_ms": 20.0},
                                     "tool": none}}).data
    assert timed.to_dict("records") == [{"kind": "LLM", "measure": m, "ms": v, "calls": 2}
                                        for m, v in (("p50", 10.0), ("p95", 19.0), ("max", 20.0))]


def test_count_axes_tick_whole_numbers_only(sources):
    """Sessions and calls are counted: their axes have no tick between two whole numbers."""
    from trace_explorer.views.insight_charts import insight_charts

    charts = {c.key: c.chart.to_dict() for c in insight_charts(collection_stats(sources[0], SessionFilter()))}

    def axes(spec):
        for layer in spec.get("layer", [spec]):
            for channel in ("x", "y"):
                encoding = layer.get("encoding", {}).get(channel, {})
                if encoding.get("title") in ("Sessions", "Calls"):
                    yield encoding["axis"]
    found = [axis for spec in charts.values() for axis in axes(spec)]
    assert len(found) >= 4 and all(a["tickMinStep"] == 1 and a["format"] == "d" for a in found)
