"""Ask and watch: ``trace-explorer ask`` and ``trace_explorer.ask`` against the stand-in gateway's
websocket, which replays what TrustGraph 2.11.1's own services sent for the same questions
(``tests/data/socket_runs.json``) and writes each explain event's triples to its store."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time

import pyoxigraph as ox
import pytest

from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, FakeGateway, gateway_args
from tests.trustgraph_socket import recorded, recorded_deployment, recorded_quads, run_question, run_steps
from trace_explorer.ask.client import AskError, Question, ask
from trace_explorer.ask.events import CANCELLED, DONE, FAILED, STEP
from trace_explorer.ask.live_trace import LiveTrace
from trace_explorer.cli.main import main
from trace_explorer.network.endpoint_policy import EndpointPolicy
from trace_explorer.read.wire import decode_quad
from trace_explorer.views.report import session_detail

QUADS, DOCUMENTS, RUNS = recorded_deployment()
BY_NAME = {run["name"]: run for run in RUNS}


@pytest.fixture(scope="module")
def gateway():
    """A stand-in deployment holding the recording's knowledge and texts, and no session until
    one is asked."""
    server = FakeGateway(QUADS, DOCUMENTS, socket_runs=RUNS)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def fresh_gateway():
    server = FakeGateway(QUADS, DOCUMENTS, socket_runs=RUNS)
    server.start()
    yield server
    server.stop()


def question(server: FakeGateway, name: str, **kwargs) -> Question:
    run = BY_NAME[name]
    return Question(server.url, run_question(run), token=TOKEN, flow=FLOW, collection=COLLECTION,
                    mechanism=run["service"], **kwargs)


def cli(capsys, monkeypatch, *argv):
    monkeypatch.setenv("TRUSTGRAPH_TOKEN", TOKEN)
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_recording_is_what_the_services_stored():
    """What arrived live (every explain frame's triples) is, triple for triple, what the services
    wrote to the collection's retrieval graph."""
    stored = {q for q in recorded_quads() if q.graph_name == ox.NamedNode("urn:graph:retrieval")}
    live = {decode_quad(t) for run in recorded()["runs"] for f in run["frames"]
            for t in f["response"].get("explain_triples", [])}
    assert live == stored
    assert len(stored) == 138


@pytest.mark.parametrize("name", ["agent", "graph-rag", "document-rag"])
def test_ask_prints_every_step_as_it_arrives_then_the_answer_and_equals_show(capsys, monkeypatch, gateway, name):
    run = BY_NAME[name]
    status, out, err = cli(capsys, monkeypatch, "ask", *gateway_args(gateway.url), "--mechanism", run["service"],
                           "--format", "jsonl", run_question(run))
    assert (status, err) == (0, "")
    lines = [json.loads(line) for line in out.splitlines()]
    steps = run_steps(run)
    root = steps[0]
    # the kinds as ``follow`` names them: the root's Question subtype, the answering step's class
    question_kind = {"agent": "AgentQuestion", "graph-rag": "GraphRagQuestion", "document-rag": "DocRagQuestion"}[name]
    assert lines[0] == {"event": "session", "session": root, "step": None, "kind": question_kind,
                        "text": run_question(run), "at": lines[0]["at"]}
    # one line a step, in the order the explain events came (the Question is the session line)
    assert [line["step"] for line in lines[1:-1]] == steps[1:]
    answer = lines[-1]
    assert answer["event"] == "answer" and answer["kind"] == {"agent": "Conclusion"}.get(name, "Synthesis")
    expected = {"agent": "Lake Baikal is 1642 metres deep at its deepest point, in the central basin.",
                "graph-rag": "The omul, a whitefish, is endemic to Lake Baikal, which is about 25 million years old.",
                "document-rag": "Clean the panels every six months, or monthly in dusty regions, with soft brushes "
                                "and deionised water."}[name]
    assert answer["text"] == expected
    # then the store holds the very session: `show` reads the same one
    status, shown, err = cli(capsys, monkeypatch, "show", *gateway_args(gateway.url), "--session", root,
                             "--format", "json")
    assert status == 0, err
    trace = LiveTrace()
    trace.extend(ask(question(gateway, name)))
    live = json.loads(json.dumps(session_detail(trace.session()), default=str))
    assert own(json.loads(shown)) == own(live)
    assert [s["id"] for s in live["steps"]] == steps[1:]


def own(detail: dict) -> dict:
    """A session's detail without what the collection adds around it (labels of the knowledge
    graph's terms, an edge's extraction sources, a chunk's text): the triples themselves stay."""
    def bare(value):
        if isinstance(value, dict):
            return {k: bare(v) for k, v in value.items()
                    if k not in ("s_label", "p_label", "o_label", "sources") and not (k == "text" and "chunk" in value)}
        if isinstance(value, list):
            return [bare(v) for v in value]
        return value
    return bare(detail)


def test_ask_text_lines_name_each_step_with_its_words(capsys, monkeypatch, gateway):
    status, out, _ = cli(capsys, monkeypatch, "ask", *gateway_args(gateway.url), run_question(BY_NAME["agent"]))
    assert status == 0
    lines = out.splitlines()
    assert lines[0].endswith(": How deep is Lake Baikal?")
    assert [line.split()[1:3] for line in lines[1:4]] == [["Analysis", "i1"], ["Observation", "i1"],
                                                           ["Conclusion", "Lake"]]
    assert all(line.startswith("+") and line.split()[0].endswith("s") for line in lines[1:4])
    assert lines[1].endswith("I should look the depth up.")
    assert lines[-1] == "answer: Lake Baikal is 1642 metres deep at its deepest point, in the central basin."


def test_each_step_arrives_before_the_next_is_sent(fresh_gateway):
    """The run is watched as it goes: every step is in the caller's hands before the gateway
    sends the next one (frames 0.3 s apart)."""
    fresh_gateway.socket.pace = 0.3
    arrived = {e.step: e.at for e in ask(question(fresh_gateway, "graph-rag")) if e.kind == STEP}
    steps = run_steps(BY_NAME["graph-rag"])
    assert list(arrived) == steps
    for step, following in zip(steps, steps[1:]):
        assert arrived[step] < fresh_gateway.socket.sent_at[following]


def test_a_failed_run_says_so_and_keeps_what_came(capsys, monkeypatch, gateway):
    run = BY_NAME["agent-failed"]
    status, out, err = cli(capsys, monkeypatch, "ask", *gateway_args(gateway.url), run_question(run))
    assert status == 1
    root = run_steps(run)[0]
    # the gateway of 2.11.1 words an agent's error so (its translator reads a field Error lacks)
    assert out.splitlines() == [f"session {root}: What is the water temperature of Lake Baikal in winter?",
                                "failed: 'Error' object has no attribute 'code' (0 steps came)"]
    trace = LiveTrace()
    trace.extend(ask(question(gateway, "agent-failed")))
    assert (trace.status, trace.session().id, trace.session().has_answer) == (FAILED, root, False)


def test_a_connection_lost_part_way_fails_the_run_and_keeps_its_steps(fresh_gateway):
    fresh_gateway.socket.drop_after = 3
    trace = LiveTrace()
    trace.extend(ask(question(fresh_gateway, "agent")))
    assert trace.status == FAILED
    assert trace.ending.text == "the gateway closed the connection before the run ended"
    assert [s.kind for s in trace.session().steps] == ["Analysis"]
    assert trace.session().steps[0].fields["thought"] == "I should look the depth up."


def test_a_cancelled_run_stops_and_keeps_its_steps(fresh_gateway):
    fresh_gateway.socket.pace = 0.05
    stop, trace = threading.Event(), LiveTrace()
    for event in ask(question(fresh_gateway, "graph-rag"), stop):
        trace.add(event)
        if len(trace.steps) == 2:
            stop.set()
    assert trace.status == CANCELLED
    assert [s.kind for s in trace.session().steps] == ["Grounding"]


def test_a_wrong_token_fails_the_run(fresh_gateway):
    events = list(ask(Question(fresh_gateway.url, "How deep is Lake Baikal?", token="wrong", flow=FLOW,
                               collection=COLLECTION)))
    assert [(e.kind, e.text) for e in events] == [(FAILED, "the gateway refused the token: give a token this "
                                                           "deployment accepts (the command line reads it from "
                                                           "TRUSTGRAPH_TOKEN)")]
    assert fresh_gateway.socket.requests == []


def test_ask_ends_done_with_the_answer_when_all_came(gateway):
    trace = LiveTrace()
    trace.extend(ask(question(gateway, "agent")))
    assert trace.status == DONE
    assert trace.session().answer == "Lake Baikal is 1642 metres deep at its deepest point, in the central basin."


@pytest.mark.long
def test_the_command_prints_each_step_before_the_next_is_sent(fresh_gateway):
    """Read as a person watching the terminal reads it: each step's line is out before the
    gateway sends the next step (frames 0.4 s apart; both processes read the one monotonic
    clock of this machine)."""
    fresh_gateway.socket.pace = 0.4
    run = BY_NAME["agent"]
    command = [sys.executable, "-m", "trace_explorer.cli", "ask", *gateway_args(fresh_gateway.url), run_question(run)]
    printed = {}
    environment = dict(os.environ, TRUSTGRAPH_TOKEN=TOKEN)
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=environment) as proc:
        for line in proc.stdout:
            printed[line.split()[1] if line.startswith("+") else line.split()[0]] = time.monotonic()
    assert proc.returncode == 0
    sent = fresh_gateway.socket.sent_at
    analysis, observation, conclusion = run_steps(run)[1:]
    assert printed["Analysis"] < sent[observation]
    assert printed["Observation"] < sent[conclusion]
    assert printed["answer:"] >= printed["Conclusion"] >= sent[conclusion]


def test_the_stand_in_socket_speaks_the_gateways_first_frame_protocol(gateway):
    """As TrustGraph's Mux: nothing before auth-ok, a failed auth keeps the socket open, then
    the Mux's frames ``{"id", "response", "complete"}``."""
    from websockets.sync.client import connect as ws_connect

    run = BY_NAME["graph-rag"]
    url = gateway.url.replace("http://", "ws://") + "api/v1/socket"
    with ws_connect(url) as socket:
        socket.send(json.dumps({"id": "r0", "service": "graph-rag", "flow": FLOW, "request": run["request"]}))
        assert json.loads(socket.recv()) == {"id": "r0", "complete": True,
                                             "error": {"message": "auth failure", "type": "auth-required"}}
        socket.send(json.dumps({"type": "auth", "token": "wrong"}))
        assert json.loads(socket.recv()) == {"type": "auth-failed", "error": "auth failure"}
        socket.send(json.dumps({"type": "auth", "token": TOKEN}))
        assert json.loads(socket.recv()) == {"type": "auth-ok", "default_workspace": "default"}
        socket.send(json.dumps({"id": "r1", "workspace": "default", "service": "graph-rag", "flow": FLOW,
                                "request": run["request"]}))
        frames = [json.loads(socket.recv()) for _ in run["frames"]]
    assert [f["id"] for f in frames] == ["r1"] * len(run["frames"])
    assert [f["complete"] for f in frames] == [False] * (len(frames) - 1) + [True]
    assert [f["response"] for f in frames] == [f["response"] for f in run["frames"]]


def test_an_unknown_flow_fails_the_run_with_the_gateways_words(gateway):
    events = list(ask(Question(gateway.url, run_question(BY_NAME["agent"]), token=TOKEN, flow="no-such-flow",
                               collection=COLLECTION)))
    assert [(e.kind, e.text) for e in events] == [(FAILED, "Flow no-such-flow not found")]


def test_a_gateway_that_goes_quiet_or_is_not_there_fails_the_run(fresh_gateway):
    fresh_gateway.socket.pace = 3.0
    events = list(ask(question(fresh_gateway, "graph-rag", idle_s=0.5)))
    assert [(e.kind, e.text) for e in events] == [(FAILED, "the gateway sent nothing for 0.5 s")]
    from tests.browser_support import free_port

    events = list(ask(Question(f"http://127.0.0.1:{free_port()}/", "How deep is Lake Baikal?", token=TOKEN)))
    assert len(events) == 1 and events[0].kind == FAILED and events[0].text.startswith(
        "cannot reach the gateway (ConnectionRefusedError: ") and events[0].text.endswith(
        "is it running, at this address and port?")
    events = list(ask(Question("http://no-such-host.invalid/", "How deep is Lake Baikal?", token=TOKEN)))
    assert len(events) == 1 and events[0].text.startswith("cannot find the gateway's host (")


def test_a_gateway_the_endpoint_policy_refuses_is_never_connected(gateway):
    from components.ask.ask_run import AskRun

    # the stand-in listens on loopback, which an app served to other machines keeps closed
    asked = len(gateway.socket.requests)
    refused = "the gateway is refused: 127.0.0.1 resolves to a non-public address (127.0.0.1); this app is served"
    with pytest.raises(AskError, match=re.escape(refused)):
        next(ask(question(gateway, "agent"), policy=EndpointPolicy()))
    with pytest.raises(AskError, match="is not in this deployment's endpoint allowlist"):
        next(ask(question(gateway, "agent"), policy=EndpointPolicy(allow=("trustgraph.example.org",))))
    # the Ask page's run: failed, with the reason, and nothing sent
    run = AskRun(question(gateway, "agent"), EndpointPolicy())
    run._thread.join(timeout=10)
    view = run.view()
    assert (view.status, view.steps) == (FAILED, 0) and view.reason.startswith(refused)
    assert len(gateway.socket.requests) == asked
    # listed by the deployment, the same gateway is asked
    trace = LiveTrace()
    trace.extend(ask(question(gateway, "agent"), policy=EndpointPolicy(allow=("127.0.0.1",))))
    assert trace.status == DONE and len(gateway.socket.requests) == asked + 1
