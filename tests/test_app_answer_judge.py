"""The judge in the session page's Answer support panel (AppTest, no browser), against the
stand-in gateway's text-completion service (without a judge nothing is shown:
test_app_answer_support.py): its verdict is shown under each sentence it was asked about, beside
the matcher's, its prompt with the selected sentence, the trace's text escaped, and a page shown
again asks nothing more."""

from __future__ import annotations

import pytest

from tests.test_app import open_session, unescape
from tests.trustgraph_server import FLOW, TOKEN, FakeGateway

FDA = "urn:trustgraph:agent:fda01076-05c7-49ae-b2c8-e06e75031b24"


@pytest.fixture(scope="module")
def gateway():
    server = FakeGateway([], {})
    server.completion = lambda system, prompt: (
        '{"verdict": "supported", "reason": "the *observation* says <b>547</b>"}' if "547" in prompt.splitlines()[1]
        else "I would rather not say.")
    server.start()
    yield server
    server.stop()


def _judge_captions(at) -> list[str]:
    return [unescape(c.value) for c in at.main.caption if "gavel" in c.value]


def test_the_judges_verdict_and_prompt_are_shown_beside_the_matchers(gateway, monkeypatch):
    for name, value in {"TRACE_EXPLORER_JUDGE": "trustgraph", "TRACE_EXPLORER_JUDGE_URL": gateway.url,
                        "TRACE_EXPLORER_JUDGE_TOKEN": TOKEN, "TRACE_EXPLORER_JUDGE_FLOW": FLOW,
                        "TRACE_EXPLORER_JUDGE_UNSUPPORTED": "1"}.items():
        monkeypatch.setenv(name, value)
    at = open_session(FDA)
    assert gateway.requests == 2
    buttons = [b for b in at.button if b.key and b.key.startswith("te_support_")]
    assert [b.label.startswith(":red[") for b in buttons] == [False, True, True]  # the matcher's verdicts, kept
    assert _judge_captions(at) == [
        ":green[:material/gavel: Judge: supported (the *observation* says <b>547</b>)]",
        ":gray[:material/gavel: Judge: cannot tell (the judge's reply is not the JSON verdict asked for)]"]
    assert "<b>" not in "".join(c.value for c in at.main.caption)  # escaped: shown as text
    buttons[2].click().run()
    assert not at.exception, at.exception
    [reply, prompt] = [c.value for c in at.main.code]
    assert reply == "I would rather not say."
    assert 'Sentence:\n"The calculator tool failed, so the division was done by hand."\n' in prompt
    assert f"[1] Analysis {FDA}/i1" in prompt and f"[2] Observation {FDA}/i1/observation" in prompt
    assert gateway.requests == 2  # shown again: nothing more asked
