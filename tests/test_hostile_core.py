"""The core keeps hostile text exactly as it came (escaping is the views' job) and reads the
hostile sessions like any other."""

from __future__ import annotations

from tests import hostile_traces as hostile
from trace_explorer.views.report import session_detail, session_text


def test_hostile_sessions_read_with_their_text_intact():
    _, sessions = hostile.hostile_collection()
    agent = sessions[hostile.AGENT]
    analysis = agent.steps_of("Analysis")[0]
    assert agent.question == "Agent " + hostile.ALL_TEXT
    assert analysis.fields["arguments"] == hostile.HTML_IN_JSON
    assert analysis.fields["thought"] == "Thought " + hostile.ALL_TEXT
    assert analysis.fields["action"] == hostile.IMG
    assert agent.tool_errors == 1 and agent.answer == "Answer " + hostile.ALL_TEXT
    edge = sessions[hostile.GRAPHRAG].steps_of("Focus")[0].fields["edges"][0]
    assert (edge["s"], edge["s_label"], edge["o"]) == (hostile.EVIL_IRI, hostile.SCRIPT, hostile.IMG)
    assert len(sessions[hostile.DOCRAG].answer) == len(hostile.BIG)
    assert hostile.CONTROL in session_text(agent)
    assert session_detail(agent)["question"] == agent.question
