"""The judge against stand-ins that answer as the services do: TrustGraph's gateway with its
text-completion service (``tests/trustgraph_server.py``, TrustGraph's own translators) and an
OpenAI-compatible chat-completions endpoint (``tests/openai_server.py``), both on 127.0.0.1 and
checking the bearer token. The matcher's verdict is never changed; a slow or failing endpoint
costs one bounded wait and says why; the token is in no message."""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.openai_server import TOKEN as OPENAI_TOKEN
from tests.openai_server import FakeChatCompletions
from tests.trustgraph_server import FLOW, TOKEN, FakeGateway
from trace_explorer.analysis.support.evidence import Source
from trace_explorer.analysis.support.judge import CANNOT_TELL, SUPPORTED, UNSUPPORTED
from trace_explorer.analysis.support.judge_run import FAILURE_TTL_S, MAX_JUDGED, WORKERS, Judge, configured_judge
from trace_explorer.analysis.support.support import AnswerSupport, Backing, SentenceSupport
from trace_explorer.cli.main import main

CHUNK = Source("urn:step:focus", "Chunk", "Die Erstattung erfolgt innerhalb von 14 Tagen auf Ihr Bankkonto (IBAN).",
               chunk="urn:chunk:de")
RESULT = Source("urn:step:result", "StepResult", "834")
# The stand-in model: its verdict depends on the sentence it is asked about.
REPLIES = {
    "Refunds reach your bank account (IBAN) within 14 days.":
        '{"verdict": "supported", "reason": "the German chunk says 14 Tagen, IBAN"}',
    "The refund is paid in cash.": '```json\n{"verdict": "unsupported", "reason": "no text mentions cash"}\n```',
    "Mont Blanc is beaten by 834 m.": '{"verdict": "cannot tell", "reason": "834 is there, Mont Blanc is not"}',
    "Refunds are fast.": "Sure! The sentence looks supported to me.",
}
FDA = "urn:trustgraph:agent:fda01076-05c7-49ae-b2c8-e06e75031b24"


def model(system: str, prompt: str) -> str:
    sentence = json.loads(prompt.splitlines()[1])
    return REPLIES.get(sentence, '{"verdict": "unsupported", "reason": "made up"}')


def answer(*sentences: tuple[str, bool, bool]) -> AnswerSupport:
    """An answer whose sentences are (text, supported by the matcher, undecided)."""
    out, start = [], 0
    for text, supported, undecided in sentences:
        backing = [Backing(CHUNK, 0.4, [[0, 5]])] if supported else []
        out.append(SentenceSupport(text, start, start + len(text), supported, backing, [], undecided))
        start += len(text) + 1
    return AnswerSupport("urn:session:1", " ".join(t for t, _, _ in sentences), out, [CHUNK, RESULT])


@pytest.fixture(scope="module")
def gateway():
    server = FakeGateway([], {})
    server.completion = model
    server.start()
    yield server
    server.stop()


@pytest.fixture
def fresh(gateway):
    gateway.hang, gateway.fail_after, gateway.malformed, gateway.requests = 0.0, None, None, 0
    gateway.completion = model
    gateway.log.clear()
    return gateway


def trustgraph_env(url: str, **more: str) -> dict[str, str]:
    return {"TRACE_EXPLORER_JUDGE": "trustgraph", "TRACE_EXPLORER_JUDGE_URL": url,
            "TRACE_EXPLORER_JUDGE_TOKEN": TOKEN, "TRACE_EXPLORER_JUDGE_FLOW": FLOW, **more}


def tg_judge(url: str, tmp_path, **more: str) -> Judge:
    return configured_judge(trustgraph_env(url, **more), tmp_path)


def test_the_gateway_judge_gives_supported_unsupported_and_cannot_tell(fresh, tmp_path):
    support = answer(("Refunds reach your bank account (IBAN) within 14 days.", False, True),
                     ("The refund is paid in cash.", False, True),
                     ("Lakes are wet.", True, False),
                     ("Mont Blanc is beaten by 834 m.", True, True))
    judgement = tg_judge(fresh.url, tmp_path).judge(support)
    assert {i: (j.verdict.verdict, j.verdict.reason) for i, j in judgement.sentences.items()} == {
        0: (SUPPORTED, "the German chunk says 14 Tagen, IBAN"),
        1: (UNSUPPORTED, "no text mentions cash"),
        3: (CANNOT_TELL, "834 is there, Mont Blanc is not")}
    assert [s.supported for s in support.sentences] == [False, False, True, True]  # the matcher's, kept
    assert sorted(path for path, _, _ in fresh.log) == [f"/api/v1/flow/{FLOW}/service/text-completion"] * 3
    assert {header for _, _, header in fresh.log} == {f"Bearer {TOKEN}"}
    body = next(b for _, b, _ in fresh.log if "cash" in b["prompt"])
    assert set(body) == {"system", "prompt"} and "Reply with one JSON object" in body["system"]
    assert "[1] Chunk urn:step:focus" in body["prompt"] and "urn:step:result" in body["prompt"]
    assert judgement.endpoint == f"TrustGraph text-completion at {fresh.url} (flow {FLOW})"


def test_a_malformed_reply_is_cannot_tell_with_the_reply_shown(fresh, tmp_path):
    judgement = tg_judge(fresh.url, tmp_path).judge(answer(("Refunds are fast.", False, True)))
    verdict = judgement.sentences[0].verdict
    assert (verdict.verdict, verdict.reply, verdict.error) == (
        CANNOT_TELL, "Sure! The sentence looks supported to me.", None)


def test_verdicts_are_kept_by_sentence_and_evidence_and_failures_for_a_while(fresh, tmp_path):
    now = [1000.0]
    judge = tg_judge(fresh.url, tmp_path)
    judge._clock = lambda: now[0]
    first = answer(("The refund is paid in cash.", False, True))
    judge.judge(first)
    judge.judge(answer(("The refund is paid in cash.", False, True)))  # another object, same question
    assert fresh.requests == 1
    changed = answer(("The refund is paid in cash.", False, True))
    changed.sources.append(Source("urn:step:new", "Observation", "cash refund"))
    judge.judge(changed)  # other evidence: asked again
    assert fresh.requests == 2
    fresh.fail_after = 0
    failing = answer(("Refunds are fast.", False, True))
    assert judge.judge(failing).sentences[0].verdict.error
    fresh.fail_after = None
    judge.judge(failing)
    assert fresh.requests == 3  # a failure is kept for a while ...
    now[0] += FAILURE_TTL_S + 1
    assert judge.judge(failing).sentences[0].verdict.reply == "Sure! The sentence looks supported to me."
    assert fresh.requests == 4  # ... then asked again


def test_only_undecided_sentences_are_asked_about_unless_every_unsupported_one_is_wanted(fresh, tmp_path):
    support = answer(*[(f"Claim number {i}.", i % 2 == 0, i % 3 == 0) for i in range(20)])
    assert list(tg_judge(fresh.url, tmp_path).judge(support).sentences) == [0, 3, 6, 9, 12, 15, 18]
    every = tg_judge(fresh.url, tmp_path, TRACE_EXPLORER_JUDGE_UNSUPPORTED="true").judge(support)
    wanted = [i for i in range(20) if i % 2 or i % 3 == 0]
    assert list(every.sentences) == wanted[:MAX_JUDGED] and every.left_out == len(wanted) - MAX_JUDGED


def test_a_slow_gateway_costs_one_timeout_says_so_and_keeps_the_matchers_verdict(fresh, tmp_path):
    fresh.hang = 3.0
    support = answer(*[(f"Claim number {i}.", False, True) for i in range(8)])
    started = time.monotonic()
    judgement = tg_judge(fresh.url, tmp_path, TRACE_EXPLORER_JUDGE_TIMEOUT_S="0.5").judge(support)
    assert time.monotonic() - started < 2.0
    errors = [j.verdict.error for j in judgement.sentences.values()]
    assert all(j.verdict.verdict == CANNOT_TELL for j in judgement.sentences.values())
    assert errors[0].endswith(f"flow/{FLOW}/service/text-completion: no complete answer within 0.5 s")
    assert fresh.requests <= 4 and sum(e.startswith("not sent: an earlier request failed") for e in errors) >= 4
    assert not any(s.supported for s in support.sentences) and len(judgement.sentences) == 8


@pytest.mark.parametrize("fault, message", [
    ("fail", r"HTTP 500: .*the deployment went away"),
    ("token", r"the gateway refused the token \(HTTP 401\): give the judge a token this deployment accepts"),
    ("refusal", r"the service answered with an error: text-completion-error: model overloaded for"),
    ("flow", r"not found \(HTTP 404\): is there a flow 'no-such-flow' on this gateway\?"),
    ("json", r"expected a JSON answer, got"),
    ("shape", r"expected a \"response\" string in the answer, got dict"),
])
def test_a_failing_gateway_says_why_and_never_quotes_the_token(fresh, tmp_path, fault, message):
    more = {}
    if fault == "fail":
        fresh.fail_after = 0
    elif fault == "token":
        more["TRACE_EXPLORER_JUDGE_TOKEN"] = "wrong-" + TOKEN
    elif fault == "refusal":
        fresh.completion = lambda system, prompt: RuntimeError(f"model overloaded for Bearer {TOKEN}")
    elif fault == "flow":
        more["TRACE_EXPLORER_JUDGE_FLOW"] = "no-such-flow"
    else:
        fresh.malformed = fault
    judgement = tg_judge(fresh.url, tmp_path, **more).judge(answer(("The refund is paid in cash.", False, True)))
    verdict = judgement.sentences[0].verdict
    assert verdict.verdict == CANNOT_TELL and re.search(message, verdict.error), verdict.error
    assert TOKEN not in verdict.error and TOKEN.lower() not in verdict.error.lower()


def test_no_judge_is_asked_unless_one_is_configured_and_wanted(fresh, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name, value in trustgraph_env(fresh.url, TRACE_EXPLORER_JUDGE_UNSUPPORTED="1").items():
        monkeypatch.setenv(name, value)
    assert main(["support", "--demo", "--session", "fda01076", "--format", "json"]) == 0
    assert set(json.loads(capsys.readouterr().out)) == {"session", "answer", "sentences"}  # the contract, unchanged
    assert fresh.requests == 0
    monkeypatch.delenv("TRACE_EXPLORER_JUDGE")
    assert main(["support", "--demo", "--session", "fda01076", "--judge"]) == 2
    assert "--judge: no judge is configured" in capsys.readouterr().err
    assert fresh.requests == 0


def test_the_command_line_shows_the_judges_prompt_and_verdict_beside_the_matchers(fresh, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name, value in trustgraph_env(fresh.url, TRACE_EXPLORER_JUDGE_UNSUPPORTED="1").items():
        monkeypatch.setenv(name, value)
    assert main(["support", "--demo", "--session", "fda01076", "--judge", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    judge = record["judge"]
    assert [s["supported"] for s in record["sentences"]] == [True, False, False]
    assert [(s["index"], s["matcher"], s["verdict"], s["reason"], s["error"]) for s in judge["sentences"]] == [
        (1, "unsupported", UNSUPPORTED, "made up", None), (2, "unsupported", UNSUPPORTED, "made up", None)]
    assert judge["sentences"][0]["prompt"].splitlines()[1] == '"A third of that is about 547 metres."'
    # the calculator's call ("1642 / 3"), then its error
    assert judge["sentences"][1]["evidence"][:2] == [{"kind": "Analysis", "step": f"{FDA}/i1"},
                                                      {"kind": "Observation", "step": f"{FDA}/i1/observation"}]
    assert judge["endpoint"] == f"TrustGraph text-completion at {fresh.url} (flow {FLOW})" and judge["left_out"] == 0
    assert main(["support", "--demo", "--session", "fda01076", "--judge"]) == 0
    text = capsys.readouterr().out
    assert "   UNSUPPORTED: nothing in this trace supports it (not found in any step: 547 metres)\n" in text
    assert (f"judge: TrustGraph text-completion at {fresh.url} (flow {FLOW}), asked about 2 sentences\n"
            "2. A third of that is about 547 metres.\n"
            "   matcher: unsupported; judge: unsupported: made up\n"
            "   prompt:\n"
            "      | Sentence:\n"
            '      | "A third of that is about 547 metres."\n') in text
    assert fresh.requests == 4  # each run of the command asks anew: verdicts are kept within a process


@pytest.fixture(scope="module")
def chat():
    with FakeChatCompletions(model) as server:
        yield server


def openai_judge(url: str, tmp_path, token: str = OPENAI_TOKEN) -> Judge:
    return configured_judge({"TRACE_EXPLORER_JUDGE": "openai", "TRACE_EXPLORER_JUDGE_URL": url,
                             "TRACE_EXPLORER_JUDGE_MODEL": "judge-model", "TRACE_EXPLORER_JUDGE_TOKEN": token,
                             "TRACE_EXPLORER_JUDGE_TIMEOUT_S": "0.5"}, tmp_path)


def test_an_openai_compatible_judge_gets_the_chat_shape_and_gives_its_verdicts(chat, tmp_path):
    chat.log.clear()
    support = answer(("Refunds reach your bank account (IBAN) within 14 days.", False, True),
                     ("Refunds are fast.", True, True))
    judgement = openai_judge(chat.url, tmp_path).judge(support)
    assert [(j.verdict.verdict, j.verdict.reply) for j in judgement.sentences.values()] == [
        (SUPPORTED, None), (CANNOT_TELL, "Sure! The sentence looks supported to me.")]
    body, header = chat.log[0]
    assert header == f"Bearer {OPENAI_TOKEN}" and body["model"] == "judge-model" and body["temperature"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert judgement.endpoint == f"chat completions at {chat.url} (model judge-model)"


@pytest.mark.parametrize("fault, message", [
    ("token", r"the endpoint refused the token \(HTTP 401\)$"),
    ("status", r"HTTP 503: .*overloaded \(you sent Bearer \*\*\*\)"),
    ("slow", r"no complete answer within 0.5 s$"),
])
def test_a_failing_openai_endpoint_says_why_in_bounded_time_without_the_token(chat, tmp_path, fault, message):
    chat.hang, chat.status, token = (1.5 if fault == "slow" else 0.0), (503 if fault == "status" else 200), OPENAI_TOKEN
    if fault == "token":
        token = OPENAI_TOKEN + "-revoked"
    started = time.monotonic()
    try:
        judgement = openai_judge(chat.url, tmp_path, token).judge(answer(("The refund is paid in cash.", False, True)))
    finally:
        chat.hang, chat.status = 0.0, 200
    assert time.monotonic() - started < 1.5
    verdict = judgement.sentences[0].verdict
    assert verdict.verdict == CANNOT_TELL and re.search(message, verdict.error), verdict.error
    assert OPENAI_TOKEN not in verdict.error


def test_a_long_running_judge_keeps_a_connection_per_worker_not_per_answer(fresh, tmp_path):
    judge = tg_judge(fresh.url, tmp_path)
    for round in range(6):
        judge.judge(answer(*[(f"Claim {round}.{i}.", False, True) for i in range(5)]))
    assert fresh.requests == 30
    assert len(judge.completion._gateway._sessions) <= WORKERS
