"""``trace-explorer list`` filters and sorts as the app's list does (``--search``, ``--sort``,
``--status``, ``--pattern``, ``--health``, ``--type``), on the demo traces, against the manifest."""

from __future__ import annotations

import json

import pytest

from tests.conftest import demo_sessions
from trace_explorer.cli.main import main
from trace_explorer.store.local_store import open_local_store
from trace_explorer.sources.search import fold

ALL = demo_sessions()
TOP = [s for s in ALL if s["parent"] is None]
# "Elbrus" is in the answers (documents) of the sessions asking for Europe's highest mountain,
# never in a question
HIGHEST = sorted(s["session"] for s in ALL if (s["question"] or "").startswith("¿Cuál es la montaña más alta"))
# "upstream timed out" is the error of the one mcp:weather call that failed
FAILED_WEATHER = sorted(s["session"] for s in ALL if s.get("tool_errors") and "mcp:weather" in (s.get("actions") or []))


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main(["list", "--demo", *map(str, argv)])
    out = capsys.readouterr()
    return status, out.out, out.err


def rows(capsys, *argv) -> list[dict]:
    status, out, err = run(capsys, *argv, "--format", "json", "--limit", 0)
    assert status == 0, err
    return json.loads(out)


def test_the_demo_has_what_the_search_tests_look_for():
    assert len(HIGHEST) == 2 and len(FAILED_WEATHER) == 1
    assert not any("elbrus" in (s["question"] or "").lower() for s in ALL)


def test_search_finds_a_word_of_an_answer(capsys):
    found = rows(capsys, "--all", "--search", "Elbrus")
    assert sorted(r["id"] for r in found) == HIGHEST
    assert {r["match"]["field"] for r in found} == {"answer"}
    assert all(r["match"]["found"] == ["Elbrus"] and "Elbrus" in r["match"]["snippet"] for r in found)
    assert sorted(r["id"] for r in rows(capsys, "--all", "--search", "answer:ELBRÚS")) == HIGHEST
    assert rows(capsys, "--all", "--search", "question:Elbrus") == []


def test_a_search_with_no_word_lists_every_session_and_says_so(capsys):
    for text in ("!!!", "?-", "answer:"):
        status, out, err = run(capsys, "--all", f"--search={text}", "--format", "json", "--limit", 0)
        assert status == 0 and sorted(r["id"] for r in json.loads(out)) == sorted(s["session"] for s in ALL)
        assert err == f"trace-explorer: the search {text!r} has no word to look for (letters or digits), " \
                      "so the list is not searched\n"
    # a field name with no word after it narrows nothing
    assert sorted(r["id"] for r in rows(capsys, "--all", "--search", "Elbrus answer:")) == HIGHEST
    status, _, err = run(capsys, "--search", "Elbrus")
    assert status == 0 and err == ""


def test_a_long_search_is_cut_and_says_so(capsys):
    # "elbrus", then 1,000 characters of spaces: the rest (40,000 words) is never read
    text = "Elbrus" + " " * 1_000 + " ".join(f"w{i}x" for i in range(40_000))
    status, out, err = run(capsys, "--all", f"--search={text}", "--format", "json", "--limit", 0)
    assert status == 0 and sorted(r["id"] for r in json.loads(out)) == HIGHEST
    assert err == ("trace-explorer: the search was cut to its first 1,000 characters; the rest was not "
                   "searched\n")


def test_search_finds_the_words_of_an_observation_and_an_error(capsys):
    found = rows(capsys, "--all", "--search", "upstream timed out")
    assert [r["id"] for r in found] == FAILED_WEATHER
    assert found[0]["match"]["found"] == ["upstream", "timed", "out"]
    assert [r["id"] for r in rows(capsys, "--all", "--search", "error:upstream")] == FAILED_WEATHER
    assert rows(capsys, "--all", "--search", "answer:upstream") == []
    status, out, _ = run(capsys, "--search", "upstream timed out")
    assert status == 0
    line = next(x for x in out.splitlines() if FAILED_WEATHER[0] in x)
    assert "[upstream] [timed] [out] after 30 s" in line and "Found in" in out


def test_search_for_a_tool_names_the_sessions_that_called_it(capsys):
    expected = sorted(s["session"] for s in ALL if "knowledge-query" in (s.get("actions") or []))
    found = rows(capsys, "--all", "--search", "tool:knowledge-query")
    assert sorted(r["id"] for r in found) == expected
    assert {r["match"]["field"] for r in found} == {"tool"}


def test_failed_tool_keeps_the_sessions_where_that_tool_failed(capsys):
    assert [r["id"] for r in rows(capsys, "--all", "--failed-tool", "mcp:weather")] == FAILED_WEATHER
    assert len(rows(capsys, "--all", "--tool", "mcp:weather")) > 1


def _made_or_above(recorded: set[str]) -> list[str]:
    """``recorded`` and every session above them (a session's calls count its sub-sessions')."""
    out = set()
    for session in recorded:
        while session:
            out.add(session)
            parent = next(s["parent"] for s in ALL if s["session"] == session)
            session = next((s["session"] for s in ALL if parent and parent.startswith(s["session"] + "/")), None)
    return sorted(out)


def test_a_model_is_found_whatever_the_case_it_is_typed_in(capsys):
    # the services' LLM calls the trace records (recorded_on: the step stamped with its tokens)
    claude = _made_or_above({s["session"] for s in ALL for call in s.get("llm_calls") or []
                             if call["model"] == "claude-sonnet-4" and call["recorded_on"]})
    assert len(claude) == 12
    for typed in ("claude-sonnet-4", "Claude-Sonnet-4", "CLAUDE-SONNET-4"):
        assert sorted(r["id"] for r in rows(capsys, "--all", "--model", typed)) == claude, typed
    assert [r["id"] for r in rows(capsys, "--all", "--failed-tool", "MCP:Weather")] == FAILED_WEATHER
    assert rows(capsys, "--model", "GPT-4O") == rows(capsys, "--model", "gpt-4o") != []


def test_json_rows_carry_every_column_of_the_table(capsys):
    found = {r["id"]: r for r in rows(capsys, "--all")}
    assert sorted(found) == sorted(s["session"] for s in ALL)
    assert {i: r["status"] for i, r in found.items()} == \
        {s["session"]: "answered" if s["has_answer"] else "unfinished" for s in ALL}
    assert sum(r["status"] == "unfinished" for r in found.values()) > 0
    services = [s for s in ALL if s["file"] == "services.trig"]
    assert {s["session"]: found[s["session"]]["step_count"] for s in services} == \
        {s["session"]: len(s["step_order"]) for s in services}
    # the table's Steps and Status are the JSON's step_count and status
    _, table, _ = run(capsys, "--all", "--limit", 0)
    for line in table.splitlines()[2:-2]:
        row = found[line.split()[0]]
        assert f"  {row['step_count']}  " in line and f"  {row['status']}" in line


def test_status_pattern_and_type_filters_keep_the_manifest_sessions(capsys):
    assert sorted(r["id"] for r in rows(capsys, "--all", "--status", "unfinished")) == \
        sorted(s["session"] for s in ALL if not s["has_answer"])
    assert sorted(r["id"] for r in rows(capsys, "--pattern", "react")) == \
        sorted(s["session"] for s in TOP if s.get("pattern") == "react")
    assert sorted(r["id"] for r in rows(capsys, "--type", "GraphRAG", "--status", "answered")) == \
        sorted(s["session"] for s in TOP if s["mechanism"] == "graphrag" and s["has_answer"])


def test_sort_on_a_column_either_way(capsys):
    ascending = [r["question"] for r in rows(capsys, "--sort", "question")]
    asked = sorted(fold(s["question"]) for s in TOP if s["question"])
    assert [fold(q) for q in ascending if q] == asked
    assert [fold(q) for q in [r["question"] for r in rows(capsys, "--sort", "question:desc")] if q] == asked[::-1]
    oldest = [r["time"] for r in rows(capsys, "--sort", "time")]
    assert oldest == sorted(s["started"] for s in TOP)
    with pytest.raises(SystemExit) as stopped:
        run(capsys, "--sort", "colour")
    assert stopped.value.code == 2 and "unknown column 'colour'" in capsys.readouterr().err


def test_health_filters_split_the_sessions(capsys):
    split = {which: sorted(r["id"] for r in rows(capsys, "--health", which))
             for which in ("errors", "warnings", "infos", "clean")}
    assert sorted(i for ids in split.values() for i in ids) == sorted(s["session"] for s in TOP)
    assert rows(capsys, "--health", "unchecked") == []
    with pytest.raises(SystemExit) as stopped:
        run(capsys, "--health", "sickly")
    assert stopped.value.code == 2 and "unknown health 'sickly'" in capsys.readouterr().err


@pytest.mark.parametrize("option, value", [("--limit", "-1"), ("--offset", "-5"), ("--limit", "ten"),
                                           ("--limit", str(2 ** 63)), ("--offset", "9" * 30)])
def test_a_negative_unreadable_or_too_large_page_size_or_offset_is_refused(capsys, option, value):
    with pytest.raises(SystemExit) as stopped:
        run(capsys, option, value)
    assert stopped.value.code == 2
    assert (f"argument {option}: expected a whole number from 0 to 9,223,372,036,854,775,807, got '{value}'"
            in capsys.readouterr().err)
    assert len(rows(capsys, "--offset", len(TOP) - 2)) == 2  # 0 and more are taken as before
    assert len(rows(capsys, "--offset", str(2 ** 63 - 1))) == 0  # the largest is taken: past the end


@pytest.mark.parametrize("value", ["0", "-1", "-0", "nan", "inf", "1e400", "86401", "soon"])
@pytest.mark.parametrize("command", [["list", "--endpoint", "http://127.0.0.1:9/sparql"],
                                     ["list", "--trustgraph", "http://127.0.0.1:9/"],
                                     ["sync", "--trustgraph", "http://127.0.0.1:9/", "--store", "unused"]])
def test_a_timeout_that_is_not_a_positive_number_of_seconds_is_refused(capsys, command, value):
    with pytest.raises(SystemExit) as stopped:
        main(command + ["--timeout", value])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --timeout: expected seconds, more than 0 and at most 86,400, got '{value}'" in err
    assert "Traceback" not in err


def test_an_empty_list_says_why_in_one_line(capsys, tmp_path):
    """No table of headers alone: a search that matches nothing, an offset past the end, and a
    store with no session each get a sentence (the demo's 30 top-level sessions)."""
    assert run(capsys, "--search", "zzzqqq") == (0, "No session matches these filters.\n", "")
    assert run(capsys, "--offset", 500) == (0, f"No session at --offset 500: {len(TOP)} match.\n", "")
    open_local_store(tmp_path / "empty").close()  # made, with nothing in it
    assert main(["list", "--store", str(tmp_path / "empty")]) == 0
    assert capsys.readouterr().out == "No session in this source.\n"


def test_stats_of_no_session_is_one_line(capsys):
    assert main(["stats", "--demo", "--search", "zzzqqq"]) == 0
    assert capsys.readouterr().out == "0 sessions\n"
    assert main(["stats", "--demo", "--type", "GraphRAG"]) == 0
    text = capsys.readouterr().out
    graphrag = sum(1 for s in TOP if s["mechanism"] == "graphrag")
    assert text.startswith(f"{graphrag:,} sessions\n\nby mechanism: GraphRAG {graphrag:,}\n")


def test_sub_sessions_no_top_level_session_reaches_are_counted_under_the_list(capsys, tmp_path):
    """The GraphRAG sub-session that a tool call of agent fa7f0eab started, loaded without that
    agent: the top-level list leaves it out and says so; ``--all`` lists it."""
    from tests.conftest import CORPUS

    parent, orphan = "urn:trustgraph:agent:fa7f0eab-", "urn:trustgraph:question:332dd331-3a0b-4965-8da6-c6fdbd685167"
    lines = (CORPUS / "orchestrated.nq").read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if not line.startswith(f"<{parent}")]
    assert len(kept) < len(lines)
    (tmp_path / "without-parent.nq").write_text("".join(kept), encoding="utf-8")
    store = str(tmp_path / "store")
    assert main(["ingest", str(tmp_path / "without-parent.nq"), "--store", store, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["list", "--store", store]) == 0
    out = capsys.readouterr().out
    assert orphan not in out
    assert out.endswith("\n1 sub-session below a session not in this source is not listed: --all lists it\n")
    assert main(["list", "--store", store, "--all"]) == 0
    out = capsys.readouterr().out
    assert orphan in out and "not listed" not in out


def test_a_session_whose_own_steps_record_no_tokens_shows_a_dash_for_its_own(capsys):
    """Supervisor 5ed00065's tokens are its sub-agents' alone: "1,252 (— own)", as the app
    writes it, not "(0 own)"; its JSON row has no own figure (null)."""
    listed = {r["id"]: r for r in rows(capsys)}
    supervisor = "urn:trustgraph:agent:5ed00065-aae1-42a4-98cb-1f5634d607b4"
    assert listed[supervisor]["tokens"] is None
    status, out, _ = run(capsys)
    line = next(l for l in out.splitlines() if l.startswith(supervisor))
    assert line.rstrip().endswith(" (— own)") and "(0 own)" not in out
