"""The app on each source: a local store (remembered in the browser's address, uploads saved into
it all or nothing, files ingested by another process while it is shown) and a SPARQL endpoint (a
real Virtuoso), with the list paged by queries."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from tests.workspace_support import sent, titled
from tests.conftest import CORPUS, MANIFEST, demo_sessions, file_graph, manifest_sessions, index_tables
from tests.store_copies import SESSIONS_PER_COPY, SOURCE, TOP_PER_COPY, copies, copy_iri
from tests.test_app import REPO, header_question, table_ids, unescape
from trace_explorer.cli.main import main
from trace_explorer.index.catalog import SessionFilter, count_sessions, fetch_session
from trace_explorer.store.local_store import local_source

DEMO_TOP = [s["session"] for s in demo_sessions() if s["parent"] is None]
SEED = [s["session"] for s in manifest_sessions("seed-sessions.ttl")]
SEED_BY_ID = {s["session"]: s for s in manifest_sessions("seed-sessions.ttl")}


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    """A folder that is the server's store root (``TRACE_EXPLORER_STORE_ROOT``): its stores are
    offered by their folder's name."""
    monkeypatch.delenv("TRACE_EXPLORER_STORE", raising=False)
    monkeypatch.delenv("TRACE_EXPLORER_ENDPOINT_ALLOW", raising=False)
    monkeypatch.setenv("TRACE_EXPLORER_STORE_ROOT", str(tmp_path))
    return tmp_path


def start() -> AppTest:
    return AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()


def _param(at: AppTest, name: str) -> str | None:
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) else value


def _choose_store(at: AppTest, path) -> AppTest:
    """Pick the store in folder ``path`` of the store root by its name."""
    at.sidebar.segmented_control(key="te_source_kind").set_value("Local store").run()
    at.sidebar.selectbox(key="te_store_choice").set_value(path.name).run()
    assert not at.exception, at.exception
    return at


def _create_store(at: AppTest, name: str) -> AppTest:
    """Make a new store called ``name`` in the store root, from the sidebar."""
    at.sidebar.segmented_control(key="te_source_kind").set_value("Local store").run()
    at.sidebar.text_input(key="te_store_new").set_value(name)
    at.sidebar.button(key="te_store_create").click().run()
    assert not at.exception, at.exception
    return at


def test_the_store_is_remembered_in_the_browsers_address_never_on_the_server(app_env):
    store = app_env / "store"
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(store), "--quiet"]) == 0
    at = _choose_store(start(), store)
    assert sorted(table_ids(at)) == sorted(SEED)
    metrics = {m.label: m.value for m in at.sidebar.metric}
    assert metrics["Sessions"] == str(len(SEED)) and metrics["Triples"] == str(MANIFEST["seed-sessions.ttl"]["quads"])
    assert _param(at, "store") == "store"  # in this person's address, by its name
    # another visitor (a new browser session, no address of theirs) lands on the demo
    other = start()
    assert other.sidebar.segmented_control(key="te_source_kind").value == "Files"
    assert sorted(table_ids(other)) == sorted(DEMO_TOP) and _param(other, "store") is None
    # the first person's reload, bookmark or shared link (the address) opens the store again
    again = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    again.query_params["store"] = "store"
    again.run()
    assert again.sidebar.segmented_control(key="te_source_kind").value == "Local store"
    assert again.sidebar.selectbox(key="te_store_choice").value == "store"
    assert sorted(table_ids(again)) == sorted(SEED)
    # back to the files: the address forgets the store
    again.sidebar.segmented_control(key="te_source_kind").set_value("Files").run()
    assert _param(again, "store") is None and sorted(table_ids(again)) == sorted(DEMO_TOP)
    assert not list((app_env).glob("**/app.json"))  # nothing remembered server-side


def test_uploads_are_saved_into_the_store_all_or_nothing(app_env):
    fresh = app_env / "fresh"
    at = _create_store(start(), "fresh")
    assert (fresh / "CURRENT").exists() and "No sessions in this store yet" in at.main.info[0].value
    assert at.sidebar.selectbox(key="te_store_choice").value == "fresh" and _param(at, "store") == "fresh"
    bad = ("bad.ttl", b"<urn:a> <urn:b> .\n", "text/turtle")
    at.sidebar.file_uploader[0].set_value([("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes(), "text/turtle"),
                                           bad]).run()
    assert not at.exception
    errors = [unescape(e.value) for e in at.sidebar.error]
    assert len(errors) == 1 and re.match(r"bad\.ttl:1:\d+: ", errors[0])
    assert sorted(table_ids(at)) == sorted(SEED)
    # reopened from disk by another process: the seed file's quads and sessions, nothing of bad.ttl
    listed = subprocess.run([sys.executable, "-m", "trace_explorer.cli", "list", "--store", str(fresh), "--all",
                             "--limit", "0", "--format", "json"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert sorted(r["id"] for r in json.loads(listed.stdout)) == sorted(SEED)
    reopened = local_source(fresh)
    assert len(reopened.store) == MANIFEST["seed-sessions.ttl"]["quads"]
    assert fetch_session(reopened, SEED[0]).answer == SEED_BY_ID[SEED[0]]["answer"]


INGESTS = 3
COPIES_PER_INGEST = 2


def _caption_total(at: AppTest) -> int:
    """The number of top-level sessions the list's caption gives ("… · N top-level sessions in all")."""
    for caption in at.main.caption:
        found = re.search(r"([\d,]+) top-level sessions in all", unescape(caption.value))
        if found:
            return int(found.group(1).replace(",", ""))
    raise AssertionError([c.value for c in at.main.caption])


@pytest.mark.long
def test_files_ingested_by_another_process_appear_while_the_app_shows_the_store(app_env):
    # The app reads the store's published snapshots and never holds it for writing, so
    # `trace-explorer ingest` runs beside it; the app keeps answering during each ingest and
    # shows the new sessions once it is done. Three times, nothing lost.
    store = app_env / "store"
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(store), "--quiet"]) == 0
    at = _choose_store(start(), store)
    top = len(SEED)
    assert _caption_total(at) == top
    runs_during = 0
    for n in range(INGESTS):
        file = app_env / f"copies-{n}.nq"
        file.write_bytes(copies(n * COPIES_PER_INGEST, COPIES_PER_INGEST))
        ingest = subprocess.Popen([sys.executable, "-m", "trace_explorer.cli", "ingest", str(file), "--store", str(store),
                                   "--quiet"], stderr=subprocess.PIPE, text=True, cwd=REPO)
        while ingest.poll() is None:
            at.run()  # the app keeps serving meanwhile: the list before the file, or after it
            assert not at.exception, at.exception
            assert _caption_total(at) in (top, top + COPIES_PER_INGEST * TOP_PER_COPY)
            runs_during += 1
        assert ingest.returncode == 0, ingest.stderr.read()
        top += COPIES_PER_INGEST * TOP_PER_COPY
        at.run()
        assert _caption_total(at) == top
    assert runs_during >= INGESTS  # the app was asked during every ingest
    metrics = {m.label: m.value for m in at.sidebar.metric}
    every = len(SEED) + INGESTS * COPIES_PER_INGEST * SESSIONS_PER_COPY
    assert metrics["Sessions"] == f"{every:,}"
    # the last file's sessions open on the session page, read from the new snapshot
    original = manifest_sessions(SOURCE)[0]
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = copy_iri(original["session"], INGESTS * COPIES_PER_INGEST - 1)
    at.run()
    assert not at.exception and header_question(at) == original["question"]
    assert count_sessions(local_source(store), SessionFilter(include_sub=True)) == every


def test_sparql_endpoint_source(app_env, monkeypatch, virtuoso_url):
    monkeypatch.setenv("TRACE_EXPLORER_ENDPOINT_ALLOW", "127.0.0.1")
    at = start()
    at.sidebar.segmented_control(key="te_source_kind").set_value("SPARQL endpoint").run()
    at.sidebar.text_input(key="te_endpoint_url").set_value(virtuoso_url)
    at.sidebar.text_input(key="te_endpoint_graphs").set_value(file_graph("seed-sessions.ttl"))
    at.sidebar.checkbox(key="te_endpoint_quoted").uncheck()
    at.sidebar.button(key="te_endpoint_connect").click().run()
    assert not at.exception, at.exception
    assert sorted(table_ids(at)) == sorted(SEED)
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = SEED[1]
    at.run()
    assert not at.exception
    # the page shows the endpoint's session: its question, answer, steps and their tools
    expected = SEED_BY_ID[SEED[1]]
    assert header_question(at) == expected["question"]
    metrics = {m.label: m.value for m in at.main.metric}
    assert metrics["Steps"] == str(expected["analysis_steps"] + 1)
    assert metrics["Tool calls"] == str(len(expected["actions"]))
    assert expected["answer"] in [t.value for t in at.main.text]
    shape = sent(at)["shape"]
    assert [s["label"] for s in shape["steps"]] == [f"i{n} Analysis: {a}" for n, a in enumerate(expected["actions"], 1)] \
        + ["Conclusion"]
    assert titled(shape["steps"][0], "Action")["text"] == "document-query"  # the first step's action, inspected


def test_loopback_endpoint_refused_without_an_allowlist(app_env, virtuoso_url, served_at):
    served_at("0.0.0.0")  # served to other machines: this machine's services are not theirs to reach
    at = start()
    at.sidebar.segmented_control(key="te_source_kind").set_value("SPARQL endpoint").run()
    at.sidebar.text_input(key="te_endpoint_url").set_value(virtuoso_url)
    at.sidebar.button(key="te_endpoint_connect").click().run()
    assert any("non-public address" in unescape(e.value) for e in at.sidebar.error)
    # not connected: the list says so, and never shows the sessions of the source chosen before
    assert table_ids(at) == []
    assert any("Not connected" in unescape(i.value) and "non-public address" in unescape(i.value) for i in at.main.info)


def test_a_source_not_connected_shows_an_empty_state_never_the_last_sources_sessions(app_env):
    at = start()
    assert sorted(table_ids(at)) == sorted(DEMO_TOP)  # the demo, first
    at.sidebar.segmented_control(key="te_source_kind").set_value("SPARQL endpoint").run()
    assert table_ids(at) == [] and not at.exception
    assert any("No SPARQL endpoint is connected" in unescape(i.value) for i in at.main.info)
    assert not at.sidebar.metric  # no counts of a source that is not there
    at.sidebar.segmented_control(key="te_source_kind").set_value("Local store").run()
    assert table_ids(at) == []
    assert any("No local store is open" in unescape(i.value) for i in at.main.info)
    at.sidebar.segmented_control(key="te_source_kind").set_value("Files").run()
    assert sorted(table_ids(at)) == sorted(DEMO_TOP)  # and back


def test_large_counts_fit_the_sidebar_metrics():
    from components.sidebar.source_picker import _compact

    assert [_compact(n) for n in (0, 60_298, 99_999, 768_266, 999_499, 999_600, 1_000_000, 1_254_000,
                                  999_499_999, 999_600_000, 3_400_000_000)] == \
        ["0", "60,298", "99,999", "768k", "999k", "1M", "1M", "1.25M", "999M", "1B", "3.4B"]


def test_the_list_says_how_many_sub_sessions_no_top_level_session_reaches(app_env):
    """orchestrated.nq without agent fa7f0eab: the GraphRAG sub-session its tool call started is
    in no top-level session's family; the list says so under its count, and Show sub-sessions
    lists it."""
    orphan = "urn:trustgraph:question:332dd331-3a0b-4965-8da6-c6fdbd685167"
    lines = (CORPUS / "orchestrated.nq").read_text(encoding="utf-8").splitlines(keepends=True)
    trace = app_env / "without-parent.nq"
    trace.write_text("".join(l for l in lines if not l.startswith("<urn:trustgraph:agent:fa7f0eab-")), encoding="utf-8")
    assert main(["ingest", str(trace), "--store", str(app_env / "store"), "--quiet"]) == 0
    at = _choose_store(start(), app_env / "store")
    assert orphan not in table_ids(at)
    notes = [c.value for c in at.main.caption]
    assert "1 sub-session below a session not in this source is not listed here: Show sub-sessions lists it." in notes
    at.toggle(key="sub").set_value(True).run()
    assert orphan in table_ids(at)
    assert not any("not listed here" in c.value for c in at.main.caption)


def test_a_content_file_uploaded_into_the_store_mends_what_its_texts_lacked(app_env):
    """An upload of the texts a store's sessions lacked leaves the health rows that ingesting
    the trace and its texts at once leaves (the IRIs the upload gave a text to mend their
    findings)."""
    trace, content = CORPUS / "collection.trig", CORPUS / "collection.documents.json"
    assert main(["ingest", str(trace), str(content), "--store", str(app_env / "both"), "--quiet"]) == 0
    store = app_env / "store"
    assert main(["ingest", str(trace), "--store", str(store), "--quiet"]) == 0
    lacking = index_tables(store)["health"]
    assert any("missing-text" in row[4].split() for row in lacking)
    at = _choose_store(start(), store)
    at.sidebar.file_uploader[0].set_value([(content.name, content.read_bytes(), "application/json")]).run()
    assert not at.exception and not at.sidebar.error
    assert index_tables(store)["health"] == index_tables(app_env / "both")["health"] != lacking


def _ingest_copies(app_env, name: str, first: int, count: int) -> None:
    """Ingest ``count`` copies of the orchestrated run (``TOP_PER_COPY`` top-level sessions
    each), from copy ``first`` on, into the store ``app_env / "store"``."""
    made = app_env / name
    made.write_bytes(copies(first, count))
    assert main(["ingest", str(made), "--store", str(app_env / "store"), "--quiet"]) == 0


def test_a_page_of_a_store_stays_when_an_ingest_publishes_into_it(app_env):
    # an ingest publishes a new snapshot of the store the list shows (and follows): the same
    # source, so the page chosen stays, where it once went back to the first
    _ingest_copies(app_env, "copies-a.nq", 0, 20)  # 60 top-level sessions: two pages
    at = _choose_store(start(), app_env / "store")
    at.button(key="te_list_next_1").click().run()
    assert _param(at, "page") == "2" and _caption_total(at) == 20 * TOP_PER_COPY
    shown = table_ids(at)
    _ingest_copies(app_env, "copies-b.nq", 20, 20)
    at.run()
    assert not at.exception, at.exception
    assert _caption_total(at) == 40 * TOP_PER_COPY  # the new snapshot is shown
    assert _param(at, "page") == "2" and any("page 2 of 3" in c.value for c in at.main.caption)
    assert table_ids(at) != shown  # its page 2, newest first: the later copies moved the rows on


def test_a_click_on_next_delivered_twice_moves_one_page(app_env):
    # while the list follows its source, a run asked for every second can carry a click again:
    # Next then once moved two pages (page 3 after one click on page 1)
    _ingest_copies(app_env, "copies.nq", 0, 40)  # 120 top-level sessions: three pages
    at = _choose_store(start(), app_env / "store")
    clicked = at.button(key="te_list_next_1")
    clicked.click().run()
    assert _param(at, "page") == "2"
    clicked.click().run()  # the same click, delivered again
    assert not at.exception, at.exception
    assert _param(at, "page") == "2" and any("page 2 of 3" in c.value for c in at.main.caption)
    at.button(key="te_list_next_2").click().run()
    assert _param(at, "page") == "3"


def test_the_links_of_a_page_of_a_store_name_the_store(app_env):
    """Every link from a page of a store to another page carries ``store=``: opened in a new tab
    (a new browser session, which knows the store by its address alone) it shows the same store,
    and a click leaves one history entry, not a second one when the sidebar writes ``store=``
    back (``components/navigation.py``, ``page_params``)."""
    from tests.test_app import SUB_GRAPHRAG, TOOL_PARENT, page_links

    store = app_env / "links"
    assert main(["ingest", "--demo", "--store", str(store), "--quiet"]) == 0
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("app_pages/session.py")
    at.query_params["store"], at.query_params["session"] = "links", SUB_GRAPHRAG
    at.run()
    assert not at.exception, at.exception
    links = {unescape(link.proto.label): link.proto.query_string for link in page_links(at)}
    assert links["Sessions"] == "store=links"
    parent = [query for label, query in links.items() if label.startswith("Parent: ")]
    assert parent == [f"session={TOOL_PARENT.replace(':', '%3A')}&store=links"]
    at.query_params["session"] = "urn:trustgraph:agent:not-in-the-store"
    at.run()
    links = {unescape(link.proto.label): link.proto.query_string for link in page_links(at)}
    assert links["Back to the session list"] == "store=links"
