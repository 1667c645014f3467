"""The session page on traces made by TrustGraph 2.11.1's own services
(``demo_data/services``), uploaded to the app run headless with ``AppTest``: what the inspector
says of an unreadable model reply and of a tool that ran a sub-trace. Values from the corpus's
manifest and texts."""

from __future__ import annotations

from tests.test_app import open_session, run_app, walk
from tests.test_service_traces import BY_NAME, DOCUMENTS, MANIFEST, TEXTS, TRACES
from tests.workspace_support import sent, step_of, texts, titled
from trace_explorer.views.step_labels import UNPARSED_REPLY


def uploaded():
    at = run_app()
    files = [(p.name, p.read_bytes(), "application/octet-stream") for p in (TRACES, TEXTS)]
    at.sidebar.file_uploader[0].set_value(files).run()
    assert not at.exception and not at.sidebar.error
    return at


def test_an_unreadable_reply_is_shown_as_such_not_as_a_tool():
    expected = BY_NAME["react-parse-error"]
    at = open_session(expected["session"], at=uploaded())
    action = next(a for a in expected["actions"] if a["parse_error"])
    assert len(expected["parse_errors"]) == 1
    badges = [m.value for m in walk(at.main) if getattr(m, "type", None) == "markdown" and "-badge[" in m.value]
    assert len(badges) == 1 and ":orange-badge[:material/error: 1 model reply not parsed]" in badges[0]
    assert "tool error" not in badges[0]
    metrics = {m.label: m.value for m in at.main.metric}
    assert metrics["Tool calls"] == str(len(expected["tool_order"]))
    step = step_of(at, action["analysis"])
    assert texts(step, "error") == [f"The model's reply could not be parsed: no tool ran ({action['tool_error']})"]
    assert "__parse_error__" not in texts(step, "line") and step["tool"] is None
    assert step["label"].startswith("i") and UNPARSED_REPLY[:30] in step["label"]


def test_a_tool_that_ran_a_sub_trace_shows_its_observation():
    expected = BY_NAME["react-graphrag"]
    action = expected["actions"][0]
    at = open_session(expected["session"], step=action["analysis"], at=uploaded())
    assert sent(at)["selected"] == action["analysis"]
    step = step_of(at, action["analysis"])
    assert titled(step, "Action")["text"] == action["action"] == step["tool"]
    assert titled(step, "Observation")["text"] == DOCUMENTS[action["observation"]]
    assert "Observation text not loaded: see the Observation step." not in texts(step, "note")


def test_the_insights_page_counts_unreadable_replies_apart_from_tools():
    at = uploaded()
    at.toggle(key="sub").set_value(True).run()
    at.switch_page("app_pages/insights.py").run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.main.metric}
    tools = [a for s in MANIFEST["sessions"] for a in s.get("actions", []) if not a["parse_error"]]
    errors = sum(1 for a in tools if a["tool_error"])
    assert metrics["Sessions"] == str(len(MANIFEST["sessions"]))
    assert metrics["Tool calls"] == str(len(tools))
    assert metrics["Tool errors"] == f"{errors} ({100 * errors / len(tools):.1f}%)"
    assert metrics["Unparsed replies"] == str(sum(len(s.get("parse_errors", [])) for s in MANIFEST["sessions"]))
