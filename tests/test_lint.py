"""``trace-explorer lint``: JSON and text output, the exit status by --fail-on, every source;
and the health rows the session index keeps for the list (written after ingest, mended when a
later file brings what was missing)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CORPUS, manifest_sessions
from tests.health_traces import BROKEN, BROKEN_ID, HEALTHY, documents, healthy
from trace_explorer.analysis.health.index import refresh_health
from trace_explorer.cli.main import main
from trace_explorer.index.catalog import list_sessions
from trace_explorer.sources.filter import SessionFilter
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store
from trace_explorer.index.insights import health_of

KEYS = ["rule", "severity", "session", "step", "message", "triple"]


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def broken_files(tmp_path):
    trace, texts, _ = BROKEN["dangling-derivation"]
    both = healthy(HEALTHY) + trace.split("\n", 3)[3]
    return [write(tmp_path, "traces.trig", both),
            write(tmp_path, "traces.documents.json", json.dumps({**documents(HEALTHY), **texts}))]


def test_json_is_an_array_of_findings_and_an_error_fails(capsys, broken_files):
    assert main(["lint", *map(str, broken_files), "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert [list(f) for f in found] == [KEYS]
    assert found[0] == {"rule": "dangling-derivation", "severity": "error", "session": BROKEN_ID,
                        "step": f"{BROKEN_ID}/final",
                        "message": "derives from urn:trustgraph:gone:1, which nothing loaded describes",
                        "triple": f"<{BROKEN_ID}/final> <http://www.w3.org/ns/prov#wasDerivedFrom> <urn:trustgraph:gone:1>"}


@pytest.mark.parametrize("fail_on, status", [("error", 0), ("warning", 0), ("info", 1)])
def test_the_clean_corpus_passes_unless_infos_fail(capsys, fail_on, status):
    assert main(["lint", str(CORPUS), "--fail-on", fail_on, "--format", "json"]) == status
    found = json.loads(capsys.readouterr().out)
    assert {f["severity"] for f in found} == {"info"}
    unfinished = {f["session"] for f in found if f["rule"] == "unfinished"}
    assert unfinished == {s["session"] for s in manifest_sessions() if not s["has_answer"]}


def test_text_names_each_session_rule_and_step_and_counts(capsys, broken_files):
    assert main(["lint", *map(str, broken_files), "--fail-on", "error"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0] == BROKEN_ID
    assert f"  error   dangling-derivation    {BROKEN_ID}/final: derives from urn:trustgraph:gone:1" in out
    assert out.rstrip().endswith("1 error, 0 warnings, 0 infos in 1 session")


def test_control_characters_in_a_message_are_shown_not_acted_on(capsys, tmp_path):
    trace = healthy(BROKEN_ID, arguments="\x1b[31mred{")
    path = write(tmp_path, "t.trig", trace)
    docs = write(tmp_path, "t.documents.json", json.dumps(documents(BROKEN_ID)))
    assert main(["lint", str(path), str(docs)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out  # the message quotes it escaped, the triple in N-Triples escapes
    assert "arguments is not JSON: '\\x1b[31mred{'" in out and '"\\u001B[31mred{"' in out


def test_bad_usage_is_status_2(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["lint", str(CORPUS), "--fail-on", "sometimes"])
    assert stop.value.code == 2
    assert main(["lint"]) == 2  # no source at all


def test_lint_reads_a_store(capsys, tmp_path, broken_files):
    store = open_local_store(tmp_path / "store")
    for path in broken_files:
        ingest_file(store, str(path))
    store.close()
    assert main(["lint", "--store", str(tmp_path / "store"), "--format", "json"]) == 1
    assert [f["rule"] for f in json.loads(capsys.readouterr().out)] == ["dangling-derivation"]


def test_the_index_keeps_health_rows_and_mends_them_when_texts_arrive(tmp_path):
    trace, texts, _ = BROKEN["missing-text"]
    store = open_local_store(tmp_path / "store")
    ingest_file(store, str(write(tmp_path, "broken.trig", healthy(HEALTHY) + trace.split("\n", 3)[3])))
    source = store.writer_source()
    assert refresh_health(source, after_ingest=True) == 4  # two agents, two GraphRAG sub-sessions
    rows = health_of(store.index, [HEALTHY, BROKEN_ID])
    assert rows[BROKEN_ID]["warning"] == 3 and rows[BROKEN_ID]["rules"] == ["missing-text"]  # no text at all yet
    assert list_sessions(source, SessionFilter(health="warnings")).total == 2
    assert list_sessions(source, SessionFilter(health="missing-text", include_sub=True)).total == 4
    # the texts arrive in a later file: the sessions missing them are checked again
    ingest_file(store, str(write(tmp_path, "texts.documents.json", json.dumps({**documents(HEALTHY), **texts}))))
    assert refresh_health(source, after_ingest=True) == 4
    rows = health_of(store.index, [HEALTHY, BROKEN_ID])
    assert rows[HEALTHY] == {"error": 0, "warning": 0, "info": 0, "rules": []}
    assert rows[BROKEN_ID]["warning"] == 1  # the one text still missing
    assert [r["id"] for r in list_sessions(source, SessionFilter(health="clean")).rows] == [HEALTHY]
    # a session whose row is rewritten (a later file adds a step) is unchecked until checked again
    more = (f"<{HEALTHY}/i2> a <https://trustgraph.ai/ns/Analysis> ; "
            f"<http://www.w3.org/ns/prov#wasDerivedFrom> <{HEALTHY}/i1/observation> .\n")
    ingest_file(store, str(write(tmp_path, "more.ttl", more)))
    assert HEALTHY not in health_of(store.index, [HEALTHY])
    assert list_sessions(source, SessionFilter(health="unchecked")).total == 1
    refresh_health(source, after_ingest=True)
    assert health_of(store.index, [HEALTHY])[HEALTHY]["rules"] == []


def test_lint_and_stats_read_a_sparql_endpoint(capsys, virtuoso_url):
    """A real Virtuoso holding the corpus (its quoted triples aside, which it cannot hold): lint
    finds the infos it finds in the files, and stats reads the sessions to count their tool calls."""
    assert main(["lint", "--endpoint", virtuoso_url, "--format", "json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert {f["severity"] for f in found} == {"info"}
    assert {f["session"] for f in found if f["rule"] == "unfinished"} == {
        s["session"] for s in manifest_sessions() if not s["has_answer"]}
    assert main(["stats", "--endpoint", virtuoso_url, "--all", "--format", "json"]) == 0
    numbers = json.loads(capsys.readouterr().out)
    calls: dict[str, int] = {}
    for s in manifest_sessions():
        for action in s.get("actions") or []:
            calls[action] = calls.get(action, 0) + 1
    assert {tool: t["calls"] for tool, t in numbers["tools"].items()} == calls
    assert sum(t["errors"] for t in numbers["tools"].values()) == 1
    assert main(["stats", "--endpoint", virtuoso_url, "--tool", "calculator", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["sessions"] == 3


def lint_json(capsys, *argv) -> tuple[int, list[dict]]:
    status = main([str(a) for a in argv] + ["--format", "json"])
    out = capsys.readouterr()
    assert status in (0, 1), out.err
    return status, json.loads(out.out)


def test_lint_reads_a_trustgraph_gateway_as_it_reads_the_demo(capsys, monkeypatch):
    """The gateway's SPARQL service answers basic graph patterns only, so lint reads every
    session through the gateway (as list and show do) and checks what it read: the stand-in
    deployment holding the demo gives exactly the findings of ``lint --demo``."""
    from tests.conftest import demo_sessions
    from tests.trustgraph_server import TOKEN, FakeGateway, corpus_deployment, gateway_args
    from trace_explorer.sources.demo import demo_paths

    monkeypatch.setenv("TRUSTGRAPH_TOKEN", TOKEN)
    gateway = FakeGateway(*corpus_deployment(demo_paths()))  # the whole demo, the services' corpus too
    try:
        status, found = lint_json(capsys, "lint", *gateway_args(gateway.start()), "--fail-on", "info")
    finally:
        gateway.stop()
    assert (status, found) == lint_json(capsys, "lint", "--demo", "--fail-on", "info")
    assert {f["session"] for f in found if f["rule"] == "unfinished"} == {
        s["session"] for s in demo_sessions() if not s["has_answer"]}
    assert any("/service/triples" in path for path, _, _ in gateway.log)


@pytest.mark.parametrize("rule", sorted(BROKEN))
def test_lint_finds_each_rule_through_a_trustgraph_gateway(capsys, monkeypatch, tmp_path, rule):
    """Each broken session, served by the stand-in deployment (texts from its librarian), gives
    the findings lint gives for the same files."""
    from tests.trustgraph_server import TOKEN, FakeGateway, corpus_deployment, gateway_args

    trace, texts, (session, _, _) = BROKEN[rule]
    files = [write(tmp_path, "broken.trig", healthy(HEALTHY) + trace.split("\n", 3)[3]),
             write(tmp_path, "broken.documents.json", json.dumps({**documents(HEALTHY), **texts}))]
    expected = lint_json(capsys, "lint", *files)
    assert (rule, session) in {(f["rule"], f["session"]) for f in expected[1]}
    monkeypatch.setenv("TRUSTGRAPH_TOKEN", TOKEN)
    gateway = FakeGateway(*corpus_deployment(files))
    try:
        assert lint_json(capsys, "lint", *gateway_args(gateway.start())) == expected
    finally:
        gateway.stop()


def test_a_bar_counts_the_sessions_checked_on_a_terminal_only(monkeypatch, capsys):
    """A large store takes minutes to lint: on a terminal a bar counts the sessions checked;
    in a log or a pipe (not a terminal) nothing is drawn."""
    import contextlib
    import io
    import sys

    from tests.conftest import demo_sessions

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    shown = Terminal()
    monkeypatch.setattr(sys, "stderr", shown)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["lint", "--demo", "--fail-on", "error"]) == 0
    total = len(demo_sessions())
    assert "lint: 100%" in shown.getvalue() and f"{total}/{total}" in shown.getvalue()
    monkeypatch.undo()
    assert main(["lint", "--demo", "--fail-on", "error"]) == 0
    assert "lint:" not in capsys.readouterr().err


def test_a_large_store_is_checked_in_worker_processes_with_the_same_findings(capsys, tmp_path, broken_files,
                                                                            monkeypatch):
    # what one process finds, in the same order, from batches of 3 sessions in two processes
    from trace_explorer.analysis.health import lint_workers

    store = open_local_store(tmp_path / "store")
    for path in [CORPUS / "collection.trig", CORPUS / "orchestrated.nq", CORPUS / "seed-sessions.ttl", *broken_files]:
        ingest_file(store, str(path))
    store.close()
    args = ["lint", "--store", str(tmp_path / "store"), "--format", "json"]
    assert main(args) == 1
    alone = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(lint_workers, "PARALLEL_FROM", 0)
    monkeypatch.setattr(lint_workers, "BATCH", 3)
    monkeypatch.setattr(lint_workers, "workers_for", lambda: 1)
    batches = []
    real = lint_workers.check_snapshot
    monkeypatch.setattr(lint_workers, "check_snapshot",
                        lambda *a, progress: real(*a, progress=lambda n: batches.append(n) or progress(n)))
    assert main(args) == 1
    assert json.loads(capsys.readouterr().out) == alone
    assert "dangling-derivation" in {f["rule"] for f in alone} and len(alone) > 5
    from trace_explorer.analysis.health.checks import all_roots
    from trace_explorer.store.local_store import local_source

    roots = all_roots(local_source(tmp_path / "store"))  # every session, 3 at a time
    assert len(roots) > 9 and sum(batches) == len(roots) and max(batches) == 3


def test_a_ctrl_c_while_workers_check_ends_them_and_the_command_says_interrupted(capsys, tmp_path, monkeypatch):
    import multiprocessing
    import time

    from trace_explorer.analysis.health import lint_workers
    from trace_explorer.analysis.health.checks import all_roots
    from trace_explorer.store.local_store import local_source

    store = open_local_store(tmp_path / "store")
    for path in [CORPUS / "collection.trig", CORPUS / "orchestrated.nq"]:
        ingest_file(store, str(path))
    store.close()
    source = local_source(tmp_path / "store")
    monkeypatch.setattr(lint_workers, "BATCH", 2)
    monkeypatch.setattr(lint_workers, "workers_for", lambda: 1)

    def ctrl_c(_):
        raise KeyboardInterrupt
    started = time.monotonic()
    others = set(multiprocessing.active_children())  # another test's pool (the uploads' parsers) may live on
    with pytest.raises(KeyboardInterrupt):
        list(lint_workers.check_snapshot(source, all_roots(source), progress=ctrl_c))
    assert set(multiprocessing.active_children()) <= others and time.monotonic() - started < 60  # no worker left waiting

    # the command: one line and 130, as ingest's Ctrl-C, not a traceback
    monkeypatch.setattr(lint_workers, "PARALLEL_FROM", 0)
    real = lint_workers.check_snapshot
    monkeypatch.setattr(lint_workers, "check_snapshot", lambda *a, progress: real(*a, progress=ctrl_c))
    assert main(["lint", "--store", str(tmp_path / "store")]) == 130
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines()[-1] == "trace-explorer: interrupted" and "Traceback" not in captured.err
