"""The app's health and insights parts (AppTest, no browser): the list's Health column and
filter on the demo, the session page's panel on a broken upload, and the Insights page's numbers
against the corpus manifest."""

from __future__ import annotations

import json
from collections import Counter

from streamlit.testing.v1 import AppTest

from tests.answer_support_truth import UNSUPPORTED
from tests.conftest import demo_sessions, manifest_sessions, service_sessions
from tests.health_traces import BROKEN, BROKEN_ID, HEALTHY, documents, healthy
from tests.list_support import list_ids, list_rows
from tests.test_app import REPO, TOP, open_session, unescape
from tests.totals_support import family_of

# Only the unfinished sessions, those with a model reply that could not be parsed and those with
# a sentence nothing in their trace supports: demo-chunks.documents.json gives every DocRAG chunk
# of the demo a text.
INFOS = {s["session"] for s in TOP if not s["has_answer"] or s.get("parse_errors") or s["session"] in UNSUPPORTED}


def start() -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    return at


def test_the_list_shows_each_sessions_health_and_filters_by_it():
    at = start()
    health = {row["id"]: row["health"] for row in list_rows(at)}
    assert {s for s, h in health.items() if h != "clean"} == INFOS
    assert health["urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"] == "clean"
    at.selectbox(key="health").select("infos").run()
    assert sorted(list_ids(at)) == sorted(INFOS)
    at.selectbox(key="health").select("clean").run()
    assert len(list_ids(at)) == len(TOP) - len(INFOS)
    at.selectbox(key="health").select("unfinished").run()  # the parse errors are infos of their own
    assert sorted(list_ids(at)) == sorted(s["session"] for s in TOP if not s["has_answer"])


def test_the_session_panel_lists_each_problem_with_a_link_to_its_step():
    trace, texts, _ = BROKEN["unknown-type"]
    at = start()
    data = (healthy(HEALTHY) + trace.split("\n", 3)[3]).encode()
    docs = json.dumps({**documents(HEALTHY), **texts}).encode()
    at.sidebar.file_uploader[0].set_value([("h.trig", data, "application/octet-stream"),
                                           ("h.documents.json", docs, "application/json")]).run()
    at = open_session(BROKEN_ID, at=at)
    panel = [e for e in at.main.expander if e.label.startswith("Health")]
    assert [e.label for e in panel] == ["Health: 1 warning"]  # the index's counts: nothing checked yet
    assert not panel[0].get("page_link") and not panel[0].caption
    at.session_state["te_health_panel"] = True  # opened: the session is checked
    at.run()
    panel = [e for e in at.main.expander if e.label.startswith("Health")]
    assert [e.label for e in panel] == ["Health: 1 warning"]
    # each problem once (no table beside the links), with its step's whole IRI and its triple
    assert not panel[0].dataframe
    (link,) = [unescape(e.proto.label) for e in panel[0].get("page_link")] or [None]
    assert link is not None and link.startswith(f"⚠️ warning · unknown-type · {BROKEN_ID}/i1: ")
    assert [unescape(c.value) for c in panel[0].caption] == [
        f"Triple: <{BROKEN_ID}/i1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://trustgraph.ai/ns/Daydream>"]
    clean = open_session(HEALTHY, at=at)
    assert [e.label for e in clean.main.expander if e.label.startswith("Health")] == ["Health: clean"]


def test_the_insights_page_counts_what_the_manifest_says():
    at = start()
    at.switch_page("app_pages/insights.py").run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.main.metric}
    # the calls of the top-level sessions and of every session below them (docs/reading-traces.md, "Totals")
    below = {m for s in manifest_sessions() if s["parent"] is None for m in family_of(s["file"], s["session"])}
    # the service corpus names each session's sub-sessions (``children``)
    services = {s["session"]: s for s in service_sessions()}
    wanted = [s for s in services if services[s]["parent"] is None]
    while wanted:
        below.update(wanted)
        wanted = [c for w in wanted for c in services[w]["children"]]
    counted = [s for s in demo_sessions() if s["session"] in below]
    assert len(counted) == len(demo_sessions()) > len(TOP)
    calls = Counter(a for s in counted for a in s.get("actions") or [])
    errors = sum(s.get("tool_errors") or 0 for s in counted)
    assert metrics["Sessions"] == str(len(TOP))
    assert metrics["Tool calls"] == str(sum(calls.values()))
    assert metrics["Tool errors"] == f"{errors} ({100 * errors / sum(calls.values()):.1f}%)"
    assert "top-level sessions with their sub-sessions' calls" in unescape(at.main.caption[0].value)


def test_insights_follow_the_lists_filters():
    at = start()
    at.pills(key="type").set_value(["Agent"]).run()
    at.toggle(key="sub").set_value(True).run()
    at.switch_page("app_pages/insights.py").run()
    metrics = {m.label: m.value for m in at.main.metric}
    agents = [s for s in demo_sessions() if s["mechanism"] == "agent"]
    assert metrics["Sessions"] == str(len(agents))


def test_a_link_to_insights_with_filters_counts_those_sessions():
    """``/insights?type=agent&status=Unfinished`` opened in a new tab (the list's widgets never
    drawn) counts the unfinished Agent sessions, the URL's values read in any case."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params["type"] = "agent"
    at.query_params["status"] = "Unfinished"
    at.switch_page("app_pages/insights.py").run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.main.metric}
    unfinished = [s for s in TOP if s["mechanism"] == "agent" and not s["has_answer"]]
    assert len(unfinished) == 2
    assert metrics["Sessions"] == str(len(unfinished))
    assert "Agent · unfinished" in unescape(at.main.caption[0].value)


def test_a_link_to_insights_names_the_values_it_left_out():
    """A value no filter knows (``type=agnet``) is left out of the count and named in a
    warning, as the list names it; the values it knows still count."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params["type"] = ["agnet", "Agent"]
    at.query_params["status"] = "finished"
    at.switch_page("app_pages/insights.py").run()
    assert not at.exception, at.exception
    warnings = [unescape(w.value) for w in at.main.warning]
    assert any("left out: type=agnet, status=finished." in w for w in warnings), warnings
    metrics = {m.label: m.value for m in at.main.metric}
    assert metrics["Sessions"] == str(len([s for s in TOP if s["mechanism"] == "agent"]))


def test_links_from_insights_to_the_list_carry_the_filters_its_address_named():
    """On ``/insights?type=agent&status=Unfinished`` (a typed address: the list's widgets never
    drawn), "Change the filters" and a click on a tool's bar open the list of the sessions
    counted, not every session."""
    import urllib.parse

    from components.insights import list_params
    from trace_explorer.sources.filter import SessionFilter

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params["type"] = "agent"
    at.query_params["status"] = "Unfinished"
    at.switch_page("app_pages/insights.py").run()
    (link,) = [e for e in at.main.get("page_link") if "Change the filters" in e.proto.label]
    params = urllib.parse.parse_qs(link.proto.query_string)
    assert params == {"type": ["Agent"], "status": ["unfinished"]}
    unfinished = sorted(s["session"] for s in TOP if s["mechanism"] == "agent" and not s["has_answer"])
    listed = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    for name, values in params.items():
        listed.query_params[name] = values
    listed.run()
    assert sorted(list_ids(listed)) == unfinished
    chosen = SessionFilter(mechanism=("Agent",), status="unfinished")
    assert list_params("tool", {"tool": "calculator", "outcome": "any"}, chosen) == {
        "type": ["Agent"], "status": "unfinished", "tool": "calculator"}
    # a mechanism's bar takes the place of the chosen mechanism and pattern
    assert list_params("mechanism", {"mechanism": "GraphRAG"}, SessionFilter(mechanism=("Agent",), pattern=("react",),
                                                                              status="answered")) == {
        "type": "GraphRAG", "status": "answered"}
