"""A running TrustGraph through its API gateway and librarian (the stand-in of
``tests/trustgraph_server.py``, which speaks TrustGraph's REST paths with TrustGraph's own
translators): the whole corpus read through it equals the corpus read from files, with and
without the SPARQL service and in both spellings of quoted triples; every answered session's
answer text comes from the librarian; faults are clear errors; the token never shows; texts
given later read the same as texts given at once; sync mirrors incrementally and keeps what it
finished when the gateway dies."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CORPUS, manifest_sessions
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, FakeGateway, corpus_deployment, gateway_args
from trace_explorer.cli.main import main
from trace_explorer.model.reader import SessionReader
from trace_explorer.model.texts import apply_texts
from trace_explorer.model.triple_index import TripleIndex
from trace_explorer.read.collection import load_collection
from trace_explorer.index.catalog import SessionFilter, list_sessions
from trace_explorer.store.local_store import open_local_store
from trace_explorer.sources.source import SourceError
from trace_explorer.sources.trustgraph.source import TrustGraphSource
from trace_explorer.sources.trustgraph.gateway import Gateway
from trace_explorer.store.trustgraph_sync import sync
from trace_explorer.views.report import session_detail

ALL = manifest_sessions()
# (SPARQL service in the flow, how quoted triples are spelled on the wire)
SHAPES = {"sparql+t": (True, "t"), "triples+r": (False, "r")}


@pytest.fixture(scope="module")
def deployment():
    return corpus_deployment()


@pytest.fixture(scope="module", params=sorted(SHAPES))
def server(request, deployment):
    sparql, quoted = SHAPES[request.param]
    gateway = FakeGateway(*deployment, sparql=sparql, quoted=quoted)
    gateway.start()
    yield gateway
    gateway.stop()


@pytest.fixture
def faulty(deployment):
    """A deployment of its own, for faults that must not reach the other tests."""
    gateway = FakeGateway(*deployment)
    gateway.start()
    yield gateway
    gateway.stop()


@pytest.fixture(scope="module")
def from_files():
    """Every session of the corpus read from its files with every text: ``{IRI: detail}``."""
    collection, errors = load_collection([CORPUS])
    assert errors == []
    reader = SessionReader(TripleIndex(collection.store), collection.documents)
    sessions = {s.id: s for s in reader.read_all()}
    return {iri: session_detail(s, sessions) for iri, s in sessions.items()}, collection.documents


def cli(capsys, monkeypatch, *argv, token=TOKEN):
    if token is None:
        monkeypatch.delenv("TRUSTGRAPH_TOKEN", raising=False)
    else:
        monkeypatch.setenv("TRUSTGRAPH_TOKEN", token)
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


def source(server: FakeGateway, **kwargs) -> TrustGraphSource:
    return TrustGraphSource(Gateway(server.url, TOKEN, flow=FLOW, collection=COLLECTION, timeout=10), **kwargs)


def _without_text_notes(detail: dict) -> dict:
    """A session's detail without the warnings about texts the librarian lacks."""
    out = dict(detail)
    out["warnings"] = [w for w in detail["warnings"] if "its text could not be had" not in w]
    out["steps"] = [dict(s) for s in detail["steps"]]
    return out


# -- the corpus through the gateway -------------------------------------------------------------
def test_the_service_used_is_the_one_the_flow_runs(server):
    assert source(server).sparql is server.sparql


def test_list_has_every_session_as_from_files(capsys, monkeypatch, server, from_files):
    status, out, err = cli(capsys, monkeypatch, "list", *gateway_args(server.url), "--all", "--limit", "0",
                           "--format", "json")
    assert status == 0, err
    rows = json.loads(out)
    details, _ = from_files
    assert sorted(r["id"] for r in rows) == sorted(s["session"] for s in ALL)
    keys = ("type", "pattern", "question", "time", "parent", "has_answer", "actions", "tool_errors")
    for row in rows:
        assert {k: row[k] for k in keys} == {k: details[row["id"]][k] for k in keys}
    # newest first, undated last, as every other source lists them
    top = [s for s in ALL if s["parent"] is None]
    status, out, _ = cli(capsys, monkeypatch, "list", *gateway_args(server.url), "--format", "json")
    assert [r["id"] for r in json.loads(out)] == [s["session"] for s in sorted(top, key=lambda s: s["started"],
                                                                               reverse=True)]


@pytest.mark.parametrize("expected", [pytest.param(s, id=s["session"][-12:]) for s in ALL])
def test_show_json_is_the_files_json(capsys, monkeypatch, server, from_files, expected):
    details, documents = from_files
    status, out, err = cli(capsys, monkeypatch, "show", *gateway_args(server.url), "--session", expected["session"],
                           "--format", "json")
    assert status == 0, err
    shown = json.loads(out)
    want = details[expected["session"]]
    assert _without_text_notes(shown) == want
    # every text the session points at and the librarian lacks is said on its step, once
    lacking = {s["document"] for s in want["steps"] if s.get("document") and s["document"] not in documents}
    noted = [w for w in shown["warnings"] if "its text could not be had" in w]
    assert len(noted) >= len(lacking) and all(any(d in w for w in noted) for d in lacking)


def test_every_answered_session_has_its_answer_text_from_the_librarian(server, from_files):
    details, documents = from_files
    found = source(server).read([s["session"] for s in ALL])
    answered = [s for s in ALL if s["has_answer"]]
    assert len(answered) == 24
    for expected in answered:
        session = found[expected["session"]]
        answer_step = session.nodes[session.answer_id]
        text = expected.get("answer") or documents[answer_step.fields["document"]]
        assert session.answer == text and text
        assert session.answer == details[expected["session"]]["answer"]


def test_quoted_triples_come_back_as_triple_terms(server):
    graphrag = next(s for s in ALL if s.get("evidence"))
    session = source(server).read([graphrag["session"]])[graphrag["session"]]
    edges = [e for step in session.steps_of("Focus") for e in step.fields["edges"]]
    assert [[e["s"], e["p"], e["o"]] for e in edges] == graphrag["selected_edges"]
    for edge, evidence in zip(edges, graphrag["evidence"]):
        if evidence["document"] is None:
            assert edge["sources"] == []
            continue
        chain = {link["kind"]: link for link in edge["sources"][0]}
        assert chain["Document"]["id"] == evidence["document"]
        assert chain["Document"]["label"] == evidence["title"]
        assert chain["Chunk"]["id"] == evidence["chunk"] and chain["Subgraph"]["id"] == evidence["subgraph"]


def test_filters_and_pages_agree_with_the_files(server, from_files):
    details, _ = from_files
    tg = source(server)
    for filters in (SessionFilter(mechanism="GraphRAG"), SessionFilter(pattern="react", include_sub=True),
                    SessionFilter(status="unfinished", include_sub=True), SessionFilter(text="question:bronze")):
        page = list_sessions(tg, filters, limit=3, offset=1)
        everything = list_sessions(tg, filters, limit=0)
        assert [r["id"] for r in page.rows] == [r["id"] for r in everything.rows][1:4]
        assert page.total == everything.total == len(everything.rows)
        for row in everything.rows:
            detail = details[row["id"]]
            assert not filters.mechanisms or detail["type"] in filters.mechanisms
            assert not filters.patterns or detail["pattern"] in filters.patterns
            assert not filters.status or detail["status"] == filters.status
            assert not filters.needle or "bronze" in (detail["question"] or "").lower()
    assert list_sessions(tg, SessionFilter(status="unfinished", include_sub=True), limit=0).total == \
        sum(1 for d in details.values() if d["status"] == "unfinished")


def test_search_finds_the_question_everywhere_and_every_word_of_sessions_read(server, from_files):
    """Before a session is read its question and IRI are searched; once read (opened), every
    word of it: "upstream timed out" is in one demo session's Observation only."""
    details, _ = from_files
    tg = source(server)
    errored = [d["id"] for d in details.values()
               if any("upstream timed out" in (s.get("error") or "") for s in d["steps"])]
    assert len(errored) == 1
    assert list_sessions(tg, SessionFilter(text="upstream timed out", include_sub=True), limit=0).total == 0
    tg.read(errored, context=True)
    found = list_sessions(tg, SessionFilter(text="error:upstream timed out", include_sub=True), limit=0)
    assert [r["id"] for r in found.rows] == errored
    assert found.rows[0]["match"] == {"field": "error",
                                      "snippet": "mcp:weather failed: \x02upstream\x03 \x02timed\x03 \x02out\x03 after 30 s"}
    question = details[errored[0]]["question"]
    asked = list_sessions(tg, SessionFilter(text=f"question:{question}", include_sub=True), limit=0)
    assert [r["id"] for r in asked.rows] == [i for i, d in details.items() if d["question"] == question]


def test_texts_given_later_read_as_texts_given_at_once(server, from_files):
    """The app reads a session first and asks the librarian for a step's texts when it is
    shown: the result is what a reader with every text gives."""
    details, _ = from_files
    lazy = source(server, eager_texts=False)
    roots = [s["session"] for s in ALL]
    sessions = lazy.read(roots)
    assert lazy.documents == {}  # nothing fetched before it is shown
    for root in roots:
        session = sessions[root]
        for step in [session.answer_id] + [s.id for s in session.steps]:
            if step:
                from trace_explorer.model.texts import step_documents
                lazy.fetch_texts(step_documents(session, step))
        apply_texts(session, lazy.documents)
        assert _without_text_notes(session_detail(session, sessions)) == details[root]


def test_requests_are_few_and_concurrent(server):
    """Opening the 26-step ReAct session: a bounded number of requests, none repeated."""
    tg = source(server)
    root = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
    tg.sparql  # the probe, counted apart
    before = len(server.log)
    session = tg.read([root])[root]
    assert len(session.steps) == 26
    sent = server.log[before:]
    bodies = [json.dumps(b, sort_keys=True) for _, b, _ in sent]
    assert len(bodies) == len(set(bodies))  # nothing asked twice
    graph = [path for path, _, _ in sent if not path.endswith("/librarian")]
    texts = [body["document-id"] for path, body, _ in sent if path.endswith("/librarian")]
    assert len(texts) == len(set(texts)) == len(tg.documents) == 25  # one request per text
    # the SPARQL service: one query per round (a 26-deep chain, named by TrustGraph's IRI shapes);
    # triple patterns: one per entity and question asked, in as many rounds
    assert len(graph) <= (4 if server.sparql else 200)


# -- faults ----------------------------------------------------------------------------------------
def test_a_wrong_token_is_a_clear_error(capsys, monkeypatch, faulty):
    status, out, err = cli(capsys, monkeypatch, "list", *gateway_args(faulty.url), token="not-the-token")
    assert status == 2 and out == ""
    assert "refused the token (HTTP 401)" in err and "TRUSTGRAPH_TOKEN" in err and "Traceback" not in err


def test_an_unknown_flow_is_a_clear_error(capsys, monkeypatch, faulty):
    status, _, err = cli(capsys, monkeypatch, "list", "--trustgraph", faulty.url, "--flow", "no-such-flow",
                         "--collection", COLLECTION)
    assert status == 2
    assert "HTTP 404" in err and "'no-such-flow'" in err and "Traceback" not in err


def test_an_unknown_collection_says_it_is_empty(capsys, monkeypatch, faulty):
    status, _, err = cli(capsys, monkeypatch, "show", "--trustgraph", faulty.url, "--flow", FLOW,
                         "--collection", "no-such-collection", "--session", "62c33a4f")
    assert status == 2
    assert "no sessions in collection 'no-such-collection'" in err and "Traceback" not in err


def test_a_hanging_gateway_times_out(capsys, monkeypatch, faulty):
    faulty.hang = 3.0
    status, _, err = cli(capsys, monkeypatch, "list", *gateway_args(faulty.url), "--timeout", "0.5")
    assert status == 2
    assert "no complete answer within 0.5 s" in err and "Traceback" not in err


# SPARQL requests answered before the drop -> SPARQL requests sent in all, each dropped one tried
# 4 times (read_retry): the probe; the probe and the list of roots' two concurrent queries (both
# dropped); those three and the first read's
DROPS = {0: 4, 1: 1 + 2 * 4, 3: 3 + 4}


@pytest.mark.parametrize("answered", sorted(DROPS), ids=["probe dropped", "list dropped", "read dropped"])
def test_a_sparql_service_that_drops_connections_gives_way_to_triple_patterns(capsys, monkeypatch, faulty, answered):
    """The SPARQL service closes its connections with no answer after ``answered`` requests (the
    probe, the list of roots, the first read): ``list`` falls back to triple patterns for that
    call and every later one, and lists the manifest's sessions."""
    faulty.drop_sparql_after = answered
    status, out, err = cli(capsys, monkeypatch, "list", *gateway_args(faulty.url), "--all", "--limit", "0",
                           "--format", "json")
    assert status == 0, err
    assert sorted(r["id"] for r in json.loads(out)) == sorted(s["session"] for s in ALL)
    if answered:  # a probe that is dropped only says there is no usable SPARQL service
        assert "warning: read with triple patterns instead of the SPARQL service" in err
        assert "sparql-query: cannot reach the server" in err
    services = [path.rsplit("/", 1)[1] for path, _, _ in faulty.log]
    last_sparql = max(i for i, s in enumerate(services) if s == "sparql-query")
    assert faulty.sparql_requests == DROPS[answered]  # the ones dropped, then none
    assert "triples" in services[last_sparql + 1:]  # the rest by triple patterns


def test_a_dropped_sparql_request_is_remembered_and_other_failures_still_fail(faulty):
    faulty.drop_sparql_after = 1  # the probe is answered, the next SPARQL request dropped
    tg = source(faulty)
    assert tg.sparql is True
    roots = tg.roots()
    assert tg.sparql is False and "sparql-query" in tg.sparql_failure
    assert sorted(roots) == sorted(s["session"] for s in ALL)
    asked = faulty.sparql_requests
    assert sorted(tg.read(sorted(roots))) == sorted(roots)  # by triple patterns from now on
    assert faulty.sparql_requests == asked
    faulty.fail_after = faulty.requests  # now the triples service fails too: that is an error
    tg.refresh()
    with pytest.raises(SourceError, match="HTTP 500"):
        tg.roots()


@pytest.mark.parametrize("kind", ["json", "shape", "term"])
def test_a_malformed_answer_is_a_clear_error(capsys, monkeypatch, faulty, kind):
    faulty.malformed = kind
    status, _, err = cli(capsys, monkeypatch, "list", *gateway_args(faulty.url))
    assert status == 2 and "Traceback" not in err
    assert {"json": "expected a JSON answer", "shape": "expected", "term": "malformed"}[kind] in err


def test_a_lost_document_is_said_on_its_step_and_the_rest_shows(capsys, monkeypatch, faulty, from_files):
    details, documents = from_files
    root = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
    lost = next(s for s in details[root]["steps"] if s["kind"] == "Observation" and s.get("document"))
    faulty.lost = {lost["document"]}
    status, out, err = cli(capsys, monkeypatch, "show", *gateway_args(faulty.url), "--session", root, "--format", "json")
    assert status == 0, err
    shown = json.loads(out)
    step = next(s for s in shown["steps"] if s["id"] == lost["id"])
    assert any(lost["document"] in w and "Document not found" in w for w in step["warnings"])
    assert "observation" not in step and lost["observation"]
    others = [s for s in shown["steps"] if s["id"] != lost["id"] and s.get("document") in documents]
    assert others and all(s.get("observation") or s.get("thought") or s.get("answer") for s in others)
    assert shown["answer"] == details[root]["answer"]


def test_a_librarian_without_stream_document_is_read_whole(faulty, from_files):
    details, _ = from_files
    faulty.stream = False
    root = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
    assert source(faulty).read([root])[root].answer == details[root]["answer"]


def test_the_token_is_in_no_output_error_log_or_export(capsys, monkeypatch, faulty, tmp_path, caplog):
    root = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
    written = []
    for argv in (["list", "--format", "json"], ["show", "--session", root], ["show", "--session", root, "--format", "json"],
                 ["export", "--session", root, "--data", tmp_path / "s.ttl", "--html", tmp_path / "s.html",
                  "--markdown", tmp_path / "s.md"]):
        status, out, err = cli(capsys, monkeypatch, *argv, *gateway_args(faulty.url))
        assert status == 0, err
        written += [out, err]
    faulty.token = "another-token"  # now ours is refused: the error names the refusal, not the token
    written += list(cli(capsys, monkeypatch, "list", *gateway_args(faulty.url))[1:])
    faulty.token, faulty.malformed = TOKEN, "json"
    written += list(cli(capsys, monkeypatch, "list", *gateway_args(faulty.url))[1:])
    written += [p.read_text(encoding="utf-8") for p in tmp_path.iterdir()]
    written += [caplog.text, repr(Gateway(faulty.url, TOKEN)), Gateway(faulty.url, TOKEN).label]
    assert any(root in w for w in written)
    assert not any(TOKEN in w for w in written)
    # ...while every request carried it, in the header only
    assert {auth for _, _, auth in faulty.log} >= {f"Bearer {TOKEN}"}
    assert not any(TOKEN in json.dumps(body) for _, body, _ in faulty.log)


# -- sync ------------------------------------------------------------------------------------------
@pytest.mark.long
def test_sync_mirrors_everything_then_nothing_new(capsys, monkeypatch, server, tmp_path, from_files):
    details, _ = from_files
    store = tmp_path / "store"
    status, _, err = cli(capsys, monkeypatch, "sync", *gateway_args(server.url), "--store", store, "--quiet")
    assert status == 0, err
    assert f"{len(ALL)} new sessions" in err
    before = len(server.log)
    status, _, err = cli(capsys, monkeypatch, "sync", *gateway_args(server.url), "--store", store, "--quiet")
    assert status == 0 and "0 new sessions" in err and f"{len(ALL)} of {len(ALL)} were there already" in err
    assert len(server.log) - before <= 10  # the list of roots only
    # the texts fetched by the sync are searched: "Elbrus" is in answers only
    highest = sorted(d["id"] for d in details.values() if "Elbrus" in (d.get("answer") or ""))
    assert len(highest) == 2
    status, out, err = cli(capsys, monkeypatch, "list", "--store", store, "--all", "--search", "answer:Elbrus",
                           "--format", "json", "--limit", 0)
    assert status == 0, err
    assert sorted(r["id"] for r in json.loads(out)) == highest
    for expected in ALL:
        status, out, err = cli(capsys, monkeypatch, "show", "--store", store, "--session", expected["session"],
                               "--format", "json")
        assert status == 0, err
        assert json.loads(out) == details[expected["session"]]


@pytest.mark.long
def test_a_sync_that_dies_keeps_the_sessions_it_finished(faulty, tmp_path, from_files):
    details, _ = from_files
    dying = faulty
    tg = TrustGraphSource(Gateway(dying.url, TOKEN, flow=FLOW, collection=COLLECTION, timeout=10))
    local = open_local_store(tmp_path / "store")
    written = []
    dying.fail_after = 150  # the deployment goes away part way through
    with pytest.raises(SourceError) as failure:
        sync(tg, local, progress=lambda done, total: written.append(done), batch_size=3)
    assert "HTTP 500" in str(failure.value)
    finished = local.index.roots()
    assert 0 < len(finished) < len(ALL) and len(finished) == max(written)
    reader = SessionReader(TripleIndex(local.store.quads_for_pattern(None, None, None, None)))
    # the sessions written are whole; of the others, not one triple is in the store
    for root in finished:
        assert len(reader.read(root).steps) == len(details[root]["steps"])
    assert set(reader.roots) == finished
    dying.fail_after = None
    report = sync(tg, local)
    assert report.added == len(ALL) - len(finished) and local.index.roots() == {s["session"] for s in ALL}
