"""Shared fixtures: the reference corpus bundled as the demo data, and its manifest (ground truth)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pyoxigraph as ox
import pytest

from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection
from trace_explorer.sources.demo import DEMO_DIR, SERVICES_DIR, SERVICES_MANIFEST
from trace_explorer.sources.demo import MANIFEST as MANIFEST_PATH
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store
from trace_explorer.index.schema import INDEX_FILE
from trace_explorer.sources.source import CONTENT, DOCUMENTS_GRAPH

CORPUS = DEMO_DIR
MANIFEST = json.loads(MANIFEST_PATH.read_text(encoding="utf-8"))
TRACE_FILES = sorted(MANIFEST)
# The content file that goes with a trace file: ``NAME.documents.json`` beside ``NAME.ext``.
CONTENT_FILES = {name: f"{name.rsplit('.', 1)[0]}.documents.json" for name in TRACE_FILES
                 if (CORPUS / f"{name.rsplit('.', 1)[0]}.documents.json").is_file()}
# The corpus TrustGraph 2.11.1's own services made (demo_data/services), with its manifest
# (another schema: see demo_data/README.md).
SERVICES = json.loads(SERVICES_MANIFEST.read_text(encoding="utf-8"))
SERVICES_FILES = [SERVICES_DIR / "services.trig", SERVICES_DIR / "services.documents.json"]
MECHANISM_NAMES = {"agent": "Agent", "graphrag": "GraphRAG", "docrag": "DocRAG"}



# The parse and support workers yield the CPU to the server (``read.worker.NICENESS``). In the
# suite the server is one busy process among many (test workers, Chromium, other servers), and a
# yielding worker waited out its deadlines: 0.4 s tests took 33 s. Here they keep the priority of
# the process that started them.
os.environ.setdefault("TRACE_EXPLORER_WORKER_NICENESS", "0")


def _weight(item) -> int:
    """0 for a browser test, 1 for another marked ``long``, 2 for the rest."""
    if item.get_closest_marker("browser") is not None:
        return 0
    return 1 if item.get_closest_marker("long") is not None else 2


def pytest_collection_modifyitems(config, items):
    """The browser tests and the other tests marked ``long`` (5 to 80 s each) first, each
    module's tests still together and in order, so that the workers (``scripts/test.sh``'s
    ``-n``) end on short tests, not with one of them running a long test alone.

    xdist's ``worksteal`` gives each worker an equal, contiguous share of this order to begin
    with, and a worker that runs out takes the second half of another's queue. With every long
    test in the first share, the others took them from its end, last: the run ended with one
    long test after another on one worker. So with ``-n N`` the long modules are dealt into N
    shares of about equal count of long tests, and each share is filled up to its size with
    short ones: every worker begins with long tests."""
    items.sort(key=_weight)
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    if workers > 1:
        items[:] = _dealt(items, workers)


def _dealt(items: list, workers: int) -> list:
    """``items`` (long ones first) in ``workers`` contiguous shares of the sizes worksteal
    cuts: each share its long modules (dealt largest first to the share with fewest), then
    short tests in their order."""
    modules: dict[str, list] = {}
    short = []
    for item in items:
        if _weight(item) == 2:
            short.append(item)
        else:
            modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    shares: list[list] = [[] for _ in range(workers)]
    for group in sorted(modules.values(), key=len, reverse=True):
        min(shares, key=len).extend(group)
    left, out = len(items), []
    for n, share in enumerate(shares):
        size = left // (workers - n)  # what worksteal sends the n-th worker of those left
        take = max(0, size - len(share))
        share.extend(short[:take])
        del short[:take]
        left -= len(share)
        out.extend(share)
    return out + short


def pytest_runtest_setup(item):
    """A browser test fails, never skips, when Chromium is missing: ``scripts/setup.sh`` installs it."""
    if item.get_closest_marker("browser") is not None:
        from tests.browser_support import HEADLESS_SHELL_PATH, chromium_available

        if not chromium_available():
            pytest.fail(f"Chromium not found at {HEADLESS_SHELL_PATH}: run scripts/setup.sh (it installs Debian's "
                        f"chromium-headless-shell), or set CHROMIUM_PATH", pytrace=False)


def corpus_paths(name: str) -> list[Path]:
    """The trace file ``name`` plus its content file, if any."""
    paths = [CORPUS / name]
    if name in CONTENT_FILES:
        paths.append(CORPUS / CONTENT_FILES[name])
    return paths


def manifest_sessions(name: str | None = None) -> list[dict]:
    """The manifest's sessions of one file (or of every file), each with its ``file``."""
    names = [name] if name else TRACE_FILES
    return [dict(s, file=n) for n in names for s in MANIFEST[n]["sessions"]]


def service_sessions() -> list[dict]:
    """The service corpus manifest's sessions in the reference manifest's terms: ``session``,
    ``question``, ``parent``, ``started``, ``mechanism``, ``pattern``, ``answer``, ``file``,
    ``has_answer``, ``actions`` (the tools called, in order: a model reply that could not be
    parsed is no call) and ``tool_errors`` (the calls whose tool failed). The manifest's own
    action records stay in ``action_records``; its other keys are kept."""
    out = []
    for s in SERVICES["sessions"]:
        records = s.get("actions") or []
        calls = [a for a in records if not a["parse_error"]]
        out.append(dict(s, file="services.trig", has_answer=bool(s["answer"]), action_records=records,
                        actions=[a["action"] for a in calls],
                        tool_errors=sum(1 for a in calls if a["tool_error"])))
    return out


def demo_sessions() -> list[dict]:
    """Every session the demo shows: the reference corpus's (``manifest_sessions``) and the
    service corpus's (``service_sessions``)."""
    return manifest_sessions() + service_sessions()


def newest_first(sessions) -> list[str]:
    """The IRIs of manifest ``sessions``, newest first."""
    return [s["session"] for s in sorted(sessions, key=lambda s: s["started"], reverse=True)]


@pytest.fixture(scope="session")
def corpus_collection():
    """The whole corpus loaded together: ``(TraceStore, sessions by IRI)``. Shared: read only."""
    collection, errors = load_collection([CORPUS])
    assert errors == []
    return collection, {s.id: s for s in read_sessions(collection)}


@pytest.fixture(scope="session")
def corpus_sessions(corpus_collection):
    """Every session of the whole corpus loaded together, by IRI."""
    return corpus_collection[1]


def file_graph(name: str) -> str:
    """The named graph a corpus file is loaded into on the test Virtuoso."""
    return f"urn:corpus:{name}"


@pytest.fixture(scope="session")
def virtuoso_url(tmp_path_factory):
    """A real Virtuoso loaded with the whole corpus: each file's quads in a graph of its own
    (``file_graph``), quoted triples aside (Virtuoso cannot hold them), and the document texts in
    the documents graph as the local store keeps them."""
    from tests.virtuoso_support import virtuoso_endpoint

    quads = []
    for name in TRACE_FILES:
        collection, _ = load_collection([CORPUS / name])
        graph = ox.NamedNode(file_graph(name))
        quads += [ox.Quad(q.subject, q.predicate, q.object, graph) for q in collection.store
                  if not isinstance(q.object, ox.Triple)]
    documents, _ = load_collection(CORPUS.glob("*.documents.json"))
    quads += [ox.Quad(ox.NamedNode(d), ox.NamedNode(CONTENT), ox.Literal(t), ox.NamedNode(DOCUMENTS_GRAPH))
              for d, t in documents.documents.items()]
    with virtuoso_endpoint(tmp_path_factory.mktemp("virtuoso"), ox.serialize(quads, format=ox.RdfFormat.N_QUADS)) as url:
        yield url


@pytest.fixture(scope="session")
def corpus_stores(tmp_path_factory):
    """One local store per corpus trace file (with its content file), by file name."""
    stores = {}
    for name in TRACE_FILES:
        path = tmp_path_factory.mktemp("store")
        with open_local_store(path) as store:
            for file in corpus_paths(name):
                ingest_file(store, str(file))
        stores[name] = path
    return stores


@pytest.fixture(scope="module")
def sessions(corpus_sessions):
    """The corpus's sessions by IRI (read once per test run)."""
    return corpus_sessions


@pytest.fixture(scope="session")
def app_store_root(tmp_path_factory):
    """The store root (``TRACE_EXPLORER_STORE_ROOT``) of the shared ``app_url`` server: a store
    made in it is offered there by its folder's name."""
    return tmp_path_factory.mktemp("store-root")


@pytest.fixture(scope="session")
def app_url(app_store_root):
    """The app on the demo, served by Streamlit on a free loopback port, shared by the browser
    tests of one test process as visitors share a deployment (each test's browser context is a
    visitor of its own); a test that needs another configuration starts its own server."""
    from tests.browser_support import streamlit_server

    with streamlit_server(env={"TRACE_EXPLORER_STORE_ROOT": str(app_store_root)}) as url:
        yield url


@pytest.fixture(autouse=True)
def upload_cache_folder(tmp_path_factory, monkeypatch):
    """Uploads the app keeps go to a folder of the test run's, never the user's cache."""
    monkeypatch.setenv("TRACE_EXPLORER_UPLOAD_CACHE", str(tmp_path_factory.getbasetemp() / "upload-cache"))


@pytest.fixture(autouse=True)
def source_panel_open(request, monkeypatch):
    """An app run by AppTest starts as a person who opened the sidebar's Source panel: the
    panel's content (the source, its forms, the uploader) is what those tests drive. A test
    marked ``source_panel_closed`` sees the first view as a visitor does, the panel closed."""
    if request.node.get_closest_marker("source_panel_closed"):
        return
    from streamlit.testing.v1 import AppTest

    from components.sidebar.source_picker import SOURCE_PANEL_KEY

    made = AppTest.from_file.__func__

    def from_file(cls, *args, **kwargs):
        at = made(cls, *args, **kwargs)
        at.session_state[SOURCE_PANEL_KEY] = True
        return at

    monkeypatch.setattr(AppTest, "from_file", classmethod(from_file))


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    """The user's data folder (``XDG_DATA_HOME``: where reviews go by default for a source with
    no folder of its own) is a folder of the test's own, never the user's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def index_tables(store: Path) -> dict[str, list[tuple]]:
    """The rows of a local store's session index that an ingest writes, by table, each sorted:
    to compare two ingests' indexes."""
    with sqlite3.connect(store / INDEX_FILE) as db:
        return {table: sorted(db.execute(f"SELECT * FROM {table}").fetchall(), key=repr)
                for table in ("sessions", "summaries", "health", "insight_tools", "insight_llm", "insight_sessions")} | {
            "search": sorted(db.execute("SELECT rowid, * FROM search").fetchall(), key=repr)}


@pytest.fixture
def served_at():
    """Set Streamlit's ``server.address`` (the interface the app is served on) for a test."""
    from streamlit import config

    before = config.get_option("server.address")
    yield lambda address: config.set_option("server.address", address)
    config.set_option("server.address", before)
