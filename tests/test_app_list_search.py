"""The app's list (AppTest): the search reaches answers and observations and says where it found
the words; filter values in the URL are read whatever their case, and an unknown one is named."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.conftest import demo_sessions, newest_first
from components.insights import list_params
from tests.list_support import list_ids, list_rows
from tests.test_app import unescape
from trace_explorer.views.insight_charts import FAILED, tool_calls

REPO = Path(__file__).resolve().parents[1]
TOP = [s for s in demo_sessions() if s["parent"] is None]
HIGHEST = sorted(s["session"] for s in TOP if s["question"].startswith("¿Cuál es la montaña más alta"))
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"


def app(**params: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def test_search_finds_an_answer_word_and_an_observation_and_marks_them():
    at = app()
    at.text_input(key="q").set_value("Elbrus").run()
    assert sorted(list_ids(at)) == HIGHEST
    assert {r["match_field"] for r in list_rows(at)} == {"answer"}
    assert all(["Elbrus", True] in r["match"] for r in list_rows(at))
    at.text_input(key="q").set_value("upstream timed out").run()
    assert list_ids(at) == [REACT_12]
    (row,) = list_rows(at)
    assert row["match_field"] == "observation"
    assert [text for text, hit in row["match"] if hit] == ["upstream", "timed", "out"]
    at.text_input(key="q").set_value("error:upstream").run()
    assert list_ids(at) == [REACT_12] and list_rows(at)[0]["match_field"] == "error"


def test_a_search_with_no_word_lists_every_session_and_a_bare_field_name_is_left_out():
    at = app(q="!!!")
    assert sorted(list_ids(at)) == sorted(s["session"] for s in TOP)
    notes = [c.value.replace("\\", "") for c in at.caption]
    assert "The search '!!!' has no word to look for (letters or digits), so the list is not searched." in notes
    at.text_input(key="q").set_value("Elbrus answer:").run()
    assert sorted(list_ids(at)) == HIGHEST
    assert not any("no word to look for" in c.value for c in at.caption)


def test_a_search_of_40_000_different_words_is_cut_and_says_so():
    # a 349 KB search once held the server two minutes (quadratic in its distinct words): the
    # search is cut to its first characters before any work (the box holds no more), and the
    # list says what was searched
    at = app(q="Elbrus " + " ".join(f"w{i}x" for i in range(40_000)))
    assert len(at.text_input(key="q").value) == 1_000
    assert list_ids(at) == []  # "elbrus" and the first 15 made-up words: no session holds them all
    notes = [c.value.replace("\\", "") for c in at.caption]
    assert "The search was cut to its first 16 different words; the rest was not searched." in notes


def test_url_values_are_read_whatever_their_case_and_unknown_ones_named():
    at = app(type="graphrag", status="ANSWERED")
    expected = [s["session"] for s in TOP if s["mechanism"] == "graphrag" and s["has_answer"]]
    assert sorted(list_ids(at)) == sorted(expected)
    assert at.query_params["type"] in (["GraphRAG"], "GraphRAG") and not at.warning
    at = app(type="graphrags")
    assert [w.value.replace("\\", "") for w in at.warning] == \
        ["Not a value of the list's filters, left out: type=graphrags."]
    assert len(list_ids(at)) == min(50, len(TOP))


def test_a_click_on_the_failed_part_of_a_tool_bar_lists_the_sessions_where_it_failed():
    assert list_params("tool", {"tool": "mcp:weather", "outcome": FAILED}) == {"failed_tool": "mcp:weather"}
    assert list_params("tool", {"tool": "mcp:weather", "outcome": "any"}) == {"tool": "mcp:weather"}
    spec = tool_calls({"tools": {"mcp:weather": {"calls": 3, "errors": 1, "error_rate": 0.33, "p50_ms": 1,
                                                 "p95_ms": 2}}}).chart.to_dict()
    outcomes = [t["calculate"] for layer in spec["layer"] for t in layer.get("transform", [])]
    assert outcomes == ["'any'", f"'{FAILED}'"]
    at = app(failed_tool="mcp:weather")
    used = [s["session"] for s in TOP if "mcp:weather" in (s.get("actions") or [])]
    assert list_ids(at) == [REACT_12] and len(used) > 1
    assert "Failed tool: mcp:weather" in [b.label.replace("\\", "") for b in at.button]


def test_a_page_number_past_any_list_opens_its_last_page():
    for value in ("999999999999999999999", "1e9", "-3"):
        at = app(page=value)
        assert not at.exception, (value, at.exception)
        assert sorted(list_ids(at)) == sorted(s["session"] for s in TOP)  # the demo's one page
        assert "page" not in at.query_params


def test_a_sort_or_page_the_list_cannot_read_is_named_and_the_default_taken():
    at = app(sort="-bogus", page="two")
    assert not at.exception, at.exception
    warnings = [unescape(w.value) for w in at.main.warning]
    assert len(warnings) == 1 and "sort=-bogus (a column: duration, id, " in warnings[0] and "page=two (a page number, from 1)" in warnings[0]
    assert list_ids(at) == newest_first(TOP)
    assert "sort" not in at.query_params and "page" not in at.query_params
    at = app(sort="-steps", page="1")  # what it reads, it takes silently
    assert not at.main.warning
    for params, said in (({"sort": "--time"}, "sort=--time"), ({"page": "0"}, "page=0 (a page number, from 1)"),
                         ({"sub": "maybe"}, "left out: sub=maybe.")):
        at = app(**params)
        assert not at.exception and [said in unescape(w.value) for w in at.main.warning] == [True], params
    at = app(sort="-STEPS")  # a sort key whatever its case, written back as the list spells it
    assert not at.main.warning and at.query_params["sort"] in ("-steps", ["-steps"])


def test_the_parent_column_is_on_every_page_that_lists_sub_sessions():
    """With sub-sessions listed, a page of top-level sessions alone still has the Parent column
    (its header sorts every page); without them, only a page holding a sub-session has it."""
    from components.sessions.session_table import table_columns, table_rows

    tops = table_rows([{"id": s["session"], "step_count": 1} for s in TOP[:3]])
    keys = lambda **kw: [c["key"] for c in table_columns(tops, {"parent", "time"}, **kw)]
    assert "parent" in keys(sub_sessions=True) and "parent" not in keys()
    (parent,) = [c for c in table_columns(tops, {"parent"}, sub_sessions=True) if c["key"] == "parent"]
    assert parent["sort"] == "parent"
    child = table_rows([{"id": "urn:trustgraph:question:x", "parent": "urn:s", "parent_session": TOP[0]["session"]}])
    assert "parent" in [c["key"] for c in table_columns(child, set())]


def test_a_run_asked_with_the_address_of_before_a_sort_keeps_the_sort():
    # while the list follows its source, the browser asks for a run every second with the address
    # it holds: one asked for before a header click's new address reached it carries the old sort
    # (and page), and the list must keep the click (a store's list once went back to the old page)
    at = app(sort="-steps")
    assert [len_steps(r) for r in list_rows(at)] == sorted((len_steps(r) for r in list_rows(at)), reverse=True)
    at.session_state["te_list_sort"] = "steps"  # a click on the Steps header, as its callback keeps it
    at.query_params["sort"] = "-steps"  # the address of before the click
    at.run()
    assert at.query_params["sort"] in ("steps", ["steps"])
    steps = [len_steps(r) for r in list_rows(at)]
    assert steps == sorted(steps) and steps[0] < steps[-1]
    assert sorted(list_ids(at)) == sorted(s["session"] for s in TOP)


def len_steps(row: dict) -> int:
    return int(str(row["steps"]).replace(",", ""))


def test_a_header_click_asks_for_the_order_from_what_it_saw_so_twice_is_once():
    from components.sessions.session_table import asked_order
    from trace_explorer.sources.filter import SessionOrder

    click = {"key": "steps", "shown": "-steps"}  # Steps clicked on a list by steps, highest first
    assert asked_order(click) == asked_order(dict(click)) == SessionOrder("steps", False)
    assert asked_order({"key": "steps", "shown": "steps"}) == SessionOrder("steps", True)
    assert asked_order({"key": "question", "shown": "-time"}) == SessionOrder("question", False)
    assert asked_order({"key": "time", "shown": "-steps"}) == SessionOrder("time", True)  # newest first
    for bad in ("steps", {"key": "bogus", "shown": "-time"}, {"shown": "-time"}, None, {"key": ["steps"]}):
        assert asked_order(bad) is None, bad


def _order_and_page_script():
    import streamlit as st

    from components.sessions.list_state import write_params

    if st.button("Sort by steps", key="go"):
        write_params({"sort": "steps", "page": None})
    if st.button("Nothing new", key="same"):
        write_params({"sort": "steps", "page": None})


def test_the_order_and_the_page_change_the_address_once(monkeypatch):
    # each change of st.query_params is an entry of the browser's history: a header click on page
    # 3 once left "the new order on page 3" there, a page never shown, for Back to land on
    from streamlit.runtime.state.query_params import QueryParams

    sent = []
    original = QueryParams._send_query_param_msg
    monkeypatch.setattr(QueryParams, "_send_query_param_msg",
                        lambda self: (sent.append(str(self)), original(self))[1])
    at = AppTest.from_function(_order_and_page_script)
    at.query_params["sort"], at.query_params["page"] = "-steps", "3"
    at.run()
    sent.clear()
    at.button(key="go").click().run()
    assert len(sent) == 1
    assert at.query_params.get("sort") in ("steps", ["steps"]) and "page" not in at.query_params
    at.button(key="same").click().run()
    assert len(sent) == 1  # nothing to change: no entry


def test_a_sort_the_list_cannot_read_stays_named_while_the_list_runs_again():
    # a followed list runs again every second, with the default then in the URL: the warning
    # stays until the person picks another order, page or filter
    at = app(sort="-bogus")
    assert ["sort=-bogus" in unescape(w.value) for w in at.main.warning] == [True]
    at.run()
    at.run()
    assert ["sort=-bogus" in unescape(w.value) for w in at.main.warning] == [True]
    at.pills(key="type").set_value(["Agent"]).run()
    assert not at.main.warning
