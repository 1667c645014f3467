"""The totals rule (docs/reading-traces.md, "Totals"; ``model.totals``) on the corpus's seed shape and current
shape: tool time once per tool call, figures missing stay missing, sub-sessions counted once."""

from __future__ import annotations

from dataclasses import replace

from tests.conftest import manifest_sessions
from tests.totals_support import expected_totals
from trace_explorer.analysis.compare.compare import comparison_totals
from trace_explorer.model.session import Step
from trace_explorer.model.totals import family, own_totals, session_totals, totals_text

SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
TOOL_PARENT = "urn:trustgraph:agent:fa7f0eab-4c4f-4b06-8732-2e25c215a82a"


def test_tool_time_is_counted_once_per_call(sessions):
    session = sessions[TOOL_PARENT]
    expected = expected_totals("orchestrated.nq", TOOL_PARENT, sub_sessions=False)
    assert own_totals(session)["tool_ms"] == expected["tool_ms"] == 917 + 804
    # an Analysis that repeats its Observation's tool time adds nothing ...
    analysis = next(s for s in session.steps if s.kind == "Analysis")
    repeated = replace(analysis, fields=dict(analysis.fields, tool_duration_ms=917))
    doubled = replace(session, steps=[repeated if s is analysis else s for s in session.steps])
    assert own_totals(doubled)["tool_ms"] == 917 + 804
    # ... but one with no Observation of its own (the seed shape keeps it inline) is the call's
    inline = Step(id=TOOL_PARENT + "/i9", kind="Analysis", fields={"tool_duration_ms": 50, "action": "calculator"})
    assert own_totals(replace(session, steps=session.steps + [inline]))["tool_ms"] == 917 + 804 + 50


def test_a_session_family_is_counted_once_and_missing_figures_stay_missing(sessions):
    figures = session_totals(sessions[SUPERVISOR], sessions)
    assert figures["own"]["duration_ms"] is None and figures["own"]["tokens"] == 780
    assert figures["total"] == expected_totals("orchestrated.nq", SUPERVISOR) and figures["sub_sessions"] == 2
    # a sub-session listed twice, or its parent listed under it (a loop), is counted once
    child = sessions[SUPERVISOR].children[0]
    looped = dict(sessions)
    looped[child] = replace(sessions[child], children=[SUPERVISOR, child])
    looped[SUPERVISOR] = replace(sessions[SUPERVISOR], children=sessions[SUPERVISOR].children * 2)
    assert [s.id for s in family(looped[SUPERVISOR], looped)] == [SUPERVISOR, *sessions[SUPERVISOR].children]
    assert session_totals(looped[SUPERVISOR], looped)["total"] == figures["total"]
    # the comparison's totals are the same figures with their counts
    compared = comparison_totals(sessions[SUPERVISOR], sessions)
    assert (compared["tokens"], compared["time_ms"], compared["tool_ms"]) == \
        (figures["total"]["tokens"], figures["total"]["duration_ms"], figures["total"]["tool_ms"])
    top = [s["session"] for s in manifest_sessions("orchestrated.nq") if s["parent"] is None]
    assert all(session_totals(sessions[t], sessions)["total"] == expected_totals("orchestrated.nq", t) for t in top)


def test_figures_for_people():
    assert totals_text(780, 13_333) == "780 own · 13,333 with sub-sessions"
    assert totals_text(780, 780) == "780" and totals_text(None, None) == "—"
    assert totals_text(None, 22_538, " ms") == "— own · 22,538 ms with sub-sessions"
