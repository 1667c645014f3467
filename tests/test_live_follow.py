"""``trace-explorer follow`` and the shared poller behind it (issue 41): on a stand-in gateway,
a local store and a SPARQL endpoint whose sessions are written while they are followed, each
new session and step shows within 3 s, with the words the corpus gives; ten followers of one
gateway cost it the requests one does; a source that stops answering says so once and resumes."""

from __future__ import annotations

import time

import pyoxigraph as ox
import pytest

from tests.conftest import manifest_sessions
from tests.follow_support import Following, expected_answer, write_over_time
from tests.live_support import copy_session
from tests.sparql_server import SparqlServer
from tests.trustgraph_server import TOKEN, FakeGateway, corpus_deployment, gateway_args
from trace_explorer.live import forget_pollers, new_steps, poller_for, subscribe
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store
from trace_explorer.sources.trustgraph.gateway import Gateway
from trace_explorer.sources.trustgraph.source import TrustGraphSource
from tests.trustgraph_server import COLLECTION, FLOW

pytestmark = pytest.mark.long  # sources written over a few seconds each: scheduled with the long tests

# A ReAct session of the corpus: PatternDecision, two Analysis/Observation rounds, Conclusion
FOLLOWED = "urn:trustgraph:agent:4ecadea2-81b6-4bb5-b866-64ae64a149f5"
WITHIN_S = 3.0


@pytest.fixture(scope="module")
def deployment():
    quads, documents = corpus_deployment()
    return quads, documents


@pytest.fixture(scope="module")
def growing_gateway(deployment):
    server = FakeGateway(*deployment)
    server.start()
    yield server
    server.stop()
    forget_pollers()


def question_of(root: str) -> str:
    return next(s["question"] for s in manifest_sessions() if s["session"] == root)


def check_followed(following: Following, live, delays: list[float]) -> None:
    """Every event of ``live``, in order, with the words the corpus gives, each within 3 s;
    nothing of the sessions that were there before."""
    assert max(delays) < WITHIN_S, delays
    events = following.events()
    assert {e["session"] for e in events} == {live.root}
    assert events[0] == events[0] | {"event": "session", "step": None, "kind": "AgentQuestion",
                                     "text": question_of(FOLLOWED)}
    steps = [(e["step"], e["kind"]) for e in events if e["event"] == "step"]
    assert steps == [(s, live.kinds[s]) for s in live.steps]
    assert [k for _, k in steps] == ["PatternDecision", "Analysis", "Observation", "Analysis", "Observation",
                                     "Conclusion"]
    answers = [e for e in events if e["event"] == "answer"]
    assert [(a["step"], a["text"]) for a in answers] == [(live.steps[-1], expected_answer(live))]
    assert all(e["at"].endswith("Z") for e in events)


def test_follow_a_gateway_shows_each_session_and_step_within_3_s(growing_gateway, deployment, monkeypatch):
    live = copy_session(*deployment, FOLLOWED)
    growing_gateway.documents.update(live.documents)  # the librarian holds each text before its step is written
    monkeypatch.setenv("TRUSTGRAPH_TOKEN", TOKEN)
    following = Following([*gateway_args(growing_gateway.url), "--format", "jsonl", "--interval", "0.1",
                           "--for", "30"], monkeypatch)
    assert following.err.wait_for(lambda line: "following TrustGraph" in line, 10.0)  # its first poll is made
    delays = write_over_time(live, growing_gateway.store.extend, following)
    check_followed(following, live, delays)
    # the gateway stops answering, then answers again: said once each, what was shown kept
    growing_gateway.fail_after = 0
    assert following.err.wait_for(lambda line: "stopped answering" in line, 3.0) is not None
    growing_gateway.fail_after = None
    assert following.err.wait_for(lambda line: "answers again" in line, 3.0) is not None
    errors = following.err.texts()
    assert sum("stopped answering" in line for line in errors) == 1, errors
    assert sum("answers again" in line for line in errors) == 1, errors
    second = copy_session(*deployment, FOLLOWED)
    growing_gateway.documents.update(second.documents)
    growing_gateway.store.extend(second.quads)  # written whole between two polls: reported whole
    assert following.out.wait_for(lambda line: second.steps[-1] in line and '"answer"' in line, WITHIN_S)
    assert following.interrupt() == 0  # Ctrl-C ends it cleanly


def test_ten_followers_cost_the_gateway_what_one_does(growing_gateway, deployment):
    def source():
        return TrustGraphSource(Gateway(growing_gateway.url, TOKEN, flow=FLOW, collection=COLLECTION), eager_texts=False)

    visitors = [source() for _ in range(10)]
    poller = poller_for(visitors[0], interval=3600)  # its thread polls once; the test polls by hand
    assert all(poller_for(v) is poller for v in visitors)  # one poller per deployment, whoever opened it
    poller.watch(FOLLOWED)
    counts = []
    for followers in (visitors[:1], visitors):
        subscriptions = [poller_for(v).follow() for v in followers]
        before = growing_gateway.requests
        for _ in range(5):
            poller.poll_now()
            for subscription in subscriptions:
                subscription.take()
                new_steps(followers[0], FOLLOWED, subscription.since)
        counts.append(growing_gateway.requests - before)
        for subscription in subscriptions:
            subscription.close()
    assert counts == [5, 5]  # one request a poll, with one follower and with ten
    # as the app's list does: each visitor's page run polls when the last poll is an interval old
    poller.interval = 0.3
    before, polls = growing_gateway.requests, poller.polls
    for _ in range(3):
        time.sleep(0.35)
        for visitor in visitors:
            poller_for(visitor).poll_if_due()
        poller.events(poller.cursor)
    assert poller.polls - polls == 3 and growing_gateway.requests - before == 3  # one a round, not ten
    bodies = [body for path, body, _ in growing_gateway.log[-5:]]
    assert all(path.endswith("/service/sparql-query") for path, _, _ in growing_gateway.log[-5:])
    assert all("startedAtTime" in body["query"] for body in bodies)


def test_follow_a_local_store_while_ingest_writes_it(tmp_path, deployment, monkeypatch):
    store = tmp_path / "store"
    with open_local_store(store) as local:
        ingest_file(local, str(_demo("seed-sessions.ttl")))
    live = copy_session(*deployment, FOLLOWED)
    following = Following(["--store", str(store), "--format", "jsonl", "--interval", "0.1", "--for", "30"],
                          monkeypatch)
    assert following.err.wait_for(lambda line: "following" in line, 10.0)
    texts = tmp_path / "texts.documents.json"
    texts.write_text(__import__("json").dumps(live.documents), encoding="utf-8")
    with open_local_store(store) as local:
        ingest_file(local, str(texts))
        written = iter(range(100))

        def ingest(quads):  # each stage a file of its own, added by ingest as a person's file would be
            path = tmp_path / f"stage-{next(written)}.nq"
            path.write_bytes(ox.serialize(quads, format=ox.RdfFormat.N_QUADS))
            ingest_file(local, str(path))

        delays = write_over_time(live, ingest, following)
    assert following.interrupt() == 0
    check_followed(following, live, delays)


def test_follow_a_sparql_endpoint(deployment, monkeypatch):
    store = ox.Store()
    store.extend(deployment[0])
    live = copy_session(*deployment, FOLLOWED)
    texts = ox.NamedNode("urn:trace-explorer:documents")
    store.extend(ox.Quad(ox.NamedNode(d), ox.NamedNode("https://trustgraph.ai/ns/content"), ox.Literal(t), texts)
                 for d, t in live.documents.items())
    with SparqlServer({None: store}) as server:
        following = Following(["--endpoint", server.url, "--format", "jsonl", "--interval", "0.1", "--for", "30"],
                              monkeypatch)
        assert following.err.wait_for(lambda line: "following" in line, 10.0)
        delays = write_over_time(live, store.extend, following)
        assert following.interrupt() == 0
        check_followed(following, live, delays)


def test_a_subscription_reads_what_came_after_its_place(growing_gateway, deployment):
    source = TrustGraphSource(Gateway(growing_gateway.url, TOKEN, flow=FLOW, collection=COLLECTION), eager_texts=False)
    with subscribe(source) as follower:
        poller = follower.poller
        poller.poll_now()
        follower.take()
        live = copy_session(*deployment, FOLLOWED)
        growing_gateway.documents.update(live.documents)
        growing_gateway.store.extend(live.stages[0])
        poller.poll_now()
        assert [(e.event, e.session, e.text) for e in follower.take()] == [("session", live.root, question_of(FOLLOWED))]
        assert poller.is_running(live.root) and poller.steps_of(live.root) == 0
        growing_gateway.store.extend(live.stages[1] + live.stages[2])
        poller.poll_now()
        assert [(e.step, e.kind) for e in new_steps(source, live.root)] == [(s, live.kinds[s]) for s in live.steps[:2]]
        assert poller.steps_of(live.root) == 2
        growing_gateway.store.extend([q for stage in live.stages[3:] for q in stage])
        poller.poll_now()
        assert not poller.is_running(live.root)
        assert follower.take()[-1].text == expected_answer(live)


def _demo(name: str):
    from trace_explorer.sources.demo import DEMO_DIR

    return DEMO_DIR / name


def test_follow_files_in_text_until_ctrl_c(tmp_path, deployment):
    """Trace files, followed as a person would in a terminal: a session appended to the file is
    printed as text lines; Ctrl-C (SIGINT) ends the command with status 0 and no traceback."""
    import json
    import signal
    import subprocess
    import sys
    import time

    live = copy_session(*deployment, FOLLOWED)
    trace = tmp_path / "traces.nq"
    trace.write_bytes(ox.serialize(live.stages[0], format=ox.RdfFormat.N_QUADS))
    texts = tmp_path / "traces.documents.json"
    texts.write_text(json.dumps(live.documents), encoding="utf-8")
    command = subprocess.Popen([sys.executable, "-m", "trace_explorer.cli", "follow", str(trace), str(texts),
                                "--interval", "0.1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = command.stderr.readline()
        assert ready.startswith("trace-explorer: following"), ready
        written = time.monotonic()
        trace.write_bytes(ox.serialize(live.quads, format=ox.RdfFormat.N_QUADS))  # the rest of the session lands
        lines = [command.stdout.readline() for _ in range(len(live.steps) + 1)]
        assert time.monotonic() - written < WITHIN_S
        command.send_signal(signal.SIGINT)
        out, err = command.communicate(timeout=10)
    finally:
        command.kill()
    assert command.returncode == 0 and "Traceback" not in err, err
    assert [line.split()[1:3] + [line.split()[3].rstrip(":")] for line in lines[:-1]] == \
        [["step", s, live.kinds[s]] for s in live.steps]
    assert lines[1].split(": ", 1)[1].startswith("Step 1: I should use knowledge-query")  # an Analysis's words: its Thought's
    assert lines[-1].split()[1:3] == ["answer", live.root + ":"]
    assert lines[-1].rstrip("\n").split(": ", 1)[1] == expected_answer(live)  # shorter than a line's 200 characters
    assert out == ""


def test_from_start_replays_the_sessions_there_and_session_keeps_to_one(tmp_path, deployment, monkeypatch):
    """``--from-start`` prints what the files hold already; ``--session`` only that session's
    events (named by the start of its UUID), its answer with the corpus's words. ``--for``
    counts from the first poll, so even a span shorter than the first read keeps the replay."""
    first, second = copy_session(*deployment, FOLLOWED), copy_session(*deployment, FOLLOWED)
    trace = tmp_path / "two.nq"
    trace.write_bytes(ox.serialize(first.quads + second.quads, format=ox.RdfFormat.N_QUADS))
    texts = tmp_path / "two.documents.json"
    texts.write_text(__import__("json").dumps(first.documents | second.documents), encoding="utf-8")
    short = second.root.rsplit(":", 1)[1][:8]
    following = Following([str(trace), str(texts), "--from-start", "--session", short, "--format", "jsonl",
                           "--interval", "0.1", "--for", "1"], monkeypatch)
    assert following.join(10) == 0
    events = following.events()
    assert {e["session"] for e in events} == {second.root}
    assert [e["step"] for e in events if e["event"] == "step"] == second.steps
    assert [e["text"] for e in events if e["event"] == "answer"] == [expected_answer(second)]


def test_a_flow_without_the_sparql_service_is_followed_with_triple_patterns(deployment, monkeypatch):
    server = FakeGateway(*deployment, sparql=False)
    server.start()
    live = copy_session(*deployment, FOLLOWED)
    server.documents.update(live.documents)
    try:
        monkeypatch.setenv("TRUSTGRAPH_TOKEN", TOKEN)
        following = Following([*gateway_args(server.url), "--format", "jsonl", "--interval", "0.1", "--for", "30"],
                              monkeypatch)
        assert following.err.wait_for(lambda line: "following TrustGraph" in line, 10.0)
        delays = write_over_time(live, server.store.extend, following)
        assert following.interrupt() == 0
    finally:
        server.stop()
    check_followed(following, live, delays)
    # the SPARQL service was asked once, whether the flow runs it (it does not: HTTP 404)
    assert sum(path.endswith("/sparql-query") for path, _, _ in server.log) == 1


def test_a_gateway_list_takes_in_a_new_session_without_reading_every_root_again(growing_gateway, deployment):
    from trace_explorer.live.absorb import take_in
    from trace_explorer.index.catalog import SessionFilter, list_sessions

    visitor = TrustGraphSource(Gateway(growing_gateway.url, TOKEN, flow=FLOW, collection=COLLECTION), eager_texts=False)
    before = list_sessions(visitor, SessionFilter(), limit=2)
    poller = poller_for(visitor)
    poller.poll_now()
    cursor = poller.cursor
    live = copy_session(*deployment, FOLLOWED)
    growing_gateway.documents.update(live.documents)
    growing_gateway.store.extend(live.quads)
    poller.poll_now()
    asked = len(growing_gateway.log)
    assert take_in(visitor, poller.events(cursor)) == {live.root}
    after = list_sessions(visitor, SessionFilter(), limit=2)
    assert after.total == before.total + 1 and after.rows[0]["id"] == live.root  # the newest first
    assert after.rows[0]["question"] == question_of(FOLLOWED) and after.rows[0]["step_count"] == len(live.steps)
    # only the new session was read: no request for the roots' list (its triple patterns)
    assert not any(body.get("p", {}).get("i") == "http://www.w3.org/ns/prov#startedAtTime"
                   for _, body, _ in growing_gateway.log[asked:])


def test_a_supervisor_s_findings_are_its_own_though_they_derive_from_its_sub_agents(deployment):
    """A supervisor's sub-agents answer first; its Findings, written a poll later, derive from
    their Conclusions: they are the supervisor's steps, and its Synthesis its answer."""
    from datetime import datetime, timezone

    from trace_explorer.live.poller import Poller
    from trace_explorer.live.probes import probe_for
    from trace_explorer.model.reader import SessionReader
    from trace_explorer.model.triple_index import TripleIndex
    from trace_explorer.model.vocabulary import STARTED_AT_TIME
    from trace_explorer.sources.endpoint import EndpointSource

    supervisor = next(s["session"] for s in manifest_sessions() if s.get("pattern") == "supervisor"
                      and s["parent"] is None)
    quads = deployment[0]
    reader = SessionReader(TripleIndex(quads))
    family, todo = [], [supervisor]
    while todo:
        root = todo.pop()
        family.append(root)
        todo += list(reader.read(root).children)
    members = {m for root in family for m in reader.members(root)}
    now = ox.Literal(datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    written = [ox.Quad(q.subject, q.predicate, now, q.graph_name) if q.predicate.value == STARTED_AT_TIME else q
               for q in quads if isinstance(q.subject, ox.NamedNode) and q.subject.value in members]
    late = [q for q in written if q.subject.value.startswith(supervisor + "/finding/")
            or q.subject.value == supervisor + "/synthesis"]
    store = ox.Store()
    store.extend(q for q in quads if not (isinstance(q.subject, ox.NamedNode) and q.subject.value in members))
    with SparqlServer({None: store}) as server:
        source = EndpointSource(server.url)
        poller = Poller(probe_for(source), interval=3600, label=source.label)
        poller.poll_now()
        store.extend(q for q in written if q not in set(late))
        first = poller.poll_now()
        running = poller.is_running(supervisor)  # its sub-agents answered; it has not yet
        store.extend(late)
        second = poller.poll_now()
    assert {e.session for e in first if e.event == "session"} == set(family)
    assert running
    steps = [(e.step, e.kind) for e in second if e.event == "step"]
    findings = sorted({q.subject.value for q in late if "/finding/" in q.subject.value})
    assert sorted(s for s, k in steps if k == "Finding") == findings and len(findings) >= 2
    assert all(e.session == supervisor for e in second)
    assert [(e.step, e.kind) for e in second if e.event == "answer"] == [(supervisor + "/synthesis", "Synthesis")]
    assert not poller.is_running(supervisor)


def test_a_follower_gets_the_first_poll_even_when_the_thread_makes_it_at_once(tmp_path, deployment):
    """The poller's thread may finish its first poll before ``follow`` returns (a busy machine
    runs it first): the follower's place is taken before the thread starts, so a
    ``--from-start`` replay is never skipped."""
    from trace_explorer.live.poller import Poller
    from trace_explorer.live.probes import FilesProbe

    live = copy_session(*deployment, FOLLOWED)
    trace = tmp_path / "one.nq"
    trace.write_bytes(ox.serialize(live.quads, format=ox.RdfFormat.N_QUADS))
    poller = Poller(FilesProbe([str(trace)]), interval=3600, label="files", from_start=True)
    started = Poller.touch
    poller.touch = lambda: (started(poller), poller.poll_now())  # a poll made before follow returns
    try:
        follower = poller.follow()
        assert poller.polls >= 1
        events = follower.take()
    finally:
        poller.stop()
    assert [e.step for e in events if e.event == "step"] == live.steps
    assert {e.session for e in events} == {live.root}


def test_for_counts_from_the_first_poll(tmp_path, deployment, monkeypatch):
    """``--for`` shorter than the first read of the files still prints what ``--from-start``
    replays: the span counts from the first poll made."""
    live = copy_session(*deployment, FOLLOWED)
    trace = tmp_path / "one.nq"
    trace.write_bytes(ox.serialize(live.quads, format=ox.RdfFormat.N_QUADS))
    following = Following([str(trace), "--from-start", "--format", "jsonl", "--interval", "0.1", "--for", "0.001"],
                          monkeypatch)
    assert following.join(10) == 0
    events = following.events()
    assert [e["step"] for e in events if e["event"] == "step"] == live.steps
    assert [e["event"] for e in events][0] == "session" and events[0]["session"] == live.root
