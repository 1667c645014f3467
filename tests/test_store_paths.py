"""No visitor names a server path: the adversary's store attacks, replayed.

- ``?store=~/traces`` (the README's old example) with no store root set listed the operator's
  private sessions, and an upload into it planted a session;
- "Create an empty store here" in the app's folder or ``~/.config`` wrote there;
- a folder of another program's database (it holds a ``CURRENT``) got a lock and an SQLite
  file, had its ``LOG`` renamed, then an uncaught RuntimeError;
- the messages told a missing path, a folder and a file apart.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components.sidebar.store_source import BAD_NEW_NAME, cannot_open
from tests.conftest import CORPUS, demo_sessions, manifest_sessions
from tests.test_app import REPO, table_ids, unescape, walk
from trace_explorer.cli.main import main
from trace_explorer.store.local_store import local_source, open_local_store
from trace_explorer.sources.source import SourceError
from trace_explorer.store.offer import StoreOffer
from trace_explorer.sources.configured import SourcesConfig

SEED = sorted(s["session"] for s in manifest_sessions("seed-sessions.ttl"))
DEMO_TOP = sorted(s["session"] for s in demo_sessions() if s["parent"] is None)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Made once for the module: the operator's private store ``home/traces`` (the seed
    sessions), and a store root ``root`` holding a store of them (``team``), another program's
    database, a folder of files, an empty folder and a file."""
    base = tmp_path_factory.mktemp("store-paths")
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(base / "home" / "traces"), "--quiet"]) == 0
    root = base / "root"
    shutil.copytree(base / "home" / "traces", root / "team")
    _foreign_database(root / "chat-db")
    (root / "notes").mkdir()
    (root / "notes" / "a.txt").write_text("mine")
    (root / "empty").mkdir()
    (root / "a-file").write_text("not a store")
    return base


@pytest.fixture
def server(made, monkeypatch):
    """No store root, no configured store, no deployment store: the documented default."""
    for name in ("TRACE_EXPLORER_STORE", "TRACE_EXPLORER_STORE_ROOT", "TRUSTGRAPH_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TRACE_EXPLORER_SOURCES", "")
    monkeypatch.setenv("HOME", str(made / "home"))
    monkeypatch.chdir(made)
    return made


def _linked(store: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params["store"] = store
    at.run()
    assert not at.exception, at.exception
    return at


def _page_text(at: AppTest) -> str:
    return unescape(" ".join(str(getattr(e, "value", "")) for e in list(walk(at.main)) + list(walk(at.sidebar))))


def _files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with the digest of its bytes: what "untouched" compares (but
    the shared-memory files SQLite keeps beside a Trace Explorer store's index while it is read)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.name.endswith(("sqlite-wal", "sqlite-shm"))}


def test_with_no_root_a_link_to_the_operators_store_opens_nothing(server):
    before = _files(server / "home")
    for link in ("~/traces", str(server / "home" / "traces"), "traces"):
        at = _linked(link)
        assert at.sidebar.segmented_control(key="te_source_kind").options == ["Files", "SPARQL endpoint", "TrustGraph"]
        assert sorted(table_ids(at)) == DEMO_TOP  # the demo, never the operator's store
        assert "store" not in at.query_params and at.sidebar.file_uploader[0].label == "Add trace files"
        assert "from store" not in _page_text(at)
    assert _files(server / "home") == before


def _foreign_database(folder: Path) -> Path:
    """A folder as another program's RocksDB or LevelDB database leaves it."""
    folder.mkdir(parents=True)
    (folder / "CURRENT").write_text("MANIFEST-000001\n")
    (folder / "LOG").write_text("2026/12/01-10:00:00.000 started\n")
    (folder / "MANIFEST-000001").write_bytes(bytes(range(256)))
    (folder / "000003.log").write_bytes(b"\x00" * 64)
    return folder


@pytest.fixture
def rooted(server, monkeypatch):
    """``server`` with its store root set."""
    monkeypatch.setenv("TRACE_EXPLORER_STORE_ROOT", str(server / "root"))
    return server / "root"


def test_only_the_roots_trace_explorer_stores_are_offered(rooted):
    at = _linked("team")
    assert at.sidebar.selectbox(key="te_store_choice").options == ["team"]
    assert sorted(table_ids(at)) == SEED and at.query_params["store"] == "team"
    assert str(rooted) not in _page_text(at)


def test_one_message_for_every_store_that_cannot_be_opened(rooted):
    """Missing, a file, a folder of files, an empty folder, another program's database, a path,
    a path out of the root: the same words, naming what the link said, and nothing written."""
    before = _files(rooted.parent)
    for link in ("missing", "a-file", "notes", "empty", "chat-db", "../home/traces", str(rooted / "team"),
                 str(rooted / "chat-db"), "~/traces", "/etc"):
        at = _linked(link)
        assert [unescape(e.value) for e in at.sidebar.error] == [cannot_open(link)], link
        assert table_ids(at) == [] and "pid" not in _page_text(at).lower()
    assert _files(rooted.parent) == before
    assert sorted(p.name for p in (rooted / "empty").iterdir()) == []


def test_a_new_store_is_made_only_by_a_new_name_inside_the_root(rooted):
    before = _files(rooted.parent)
    at = _linked("team")
    for name in ("../outside", "/tmp/x", "~/.config", ".config", "a/b", "..", "chat-db", "notes", "team", "a-file", ""):
        at.sidebar.text_input(key="te_store_new").set_value(name)
        at.sidebar.button(key="te_store_create").click().run()
        assert not at.exception, at.exception
        errors = [unescape(e.value) for e in at.sidebar.error]
        assert errors == [cannot_open(name) if name in ("chat-db", "notes", "team", "a-file") else BAD_NEW_NAME], name
    assert _files(rooted.parent) == before and not (rooted.parent / "outside").exists()


def test_a_new_store_is_made_inside_the_root(rooted):
    at = _linked("team")
    at.sidebar.text_input(key="te_store_new").set_value("fresh.2")
    at.sidebar.button(key="te_store_create").click().run()
    assert not at.exception and not at.sidebar.error
    try:
        assert (rooted / "fresh.2" / "CURRENT").is_file() and at.query_params["store"] == "fresh.2"
        assert at.sidebar.selectbox(key="te_store_choice").options == ["fresh.2", "team"]
    finally:
        shutil.rmtree(rooted / "fresh.2")  # the root as the module's other tests know it


def test_another_programs_database_is_never_written(tmp_path):
    folder = _foreign_database(tmp_path / "chat-db")
    before = _files(folder)
    for attempt in (lambda: open_local_store(folder), lambda: local_source(folder)):
        with pytest.raises(SourceError, match="holds other files .* and no Trace Explorer store"):
            attempt()
        assert _files(folder) == before  # no lock, no SQLite file, its LOG where it was


def test_a_configured_store_that_is_another_programs_database_is_one_message(server, monkeypatch):
    folder = _foreign_database(server / "chat-db")
    before = _files(folder)
    config = server / "sources.toml"
    config.write_text(f'[[store]]\nname = "Chat"\npath = "{folder}"\n', encoding="utf-8")
    monkeypatch.setenv("TRACE_EXPLORER_SOURCES", str(config))
    at = _linked("Chat")
    assert [unescape(e.value) for e in at.sidebar.error] == [cannot_open("Chat")]
    assert _files(folder) == before and str(folder) not in _page_text(at)


def test_adopting_by_the_command_line_fails_cleanly_on_a_database_that_is_not_pyoxigraphs(tmp_path):
    """The operator's ``--store`` may adopt a pyoxigraph store filled by other tools; on another
    database it is an error (not RuntimeError) and takes back the lock and index it made."""
    folder = _foreign_database(tmp_path / "chat-db")
    with pytest.raises(SourceError, match="it is not a pyoxigraph store"):
        open_local_store(folder, adopt=True)
    assert not {"trace-explorer-writer.lock", "trace-explorer-sessions.sqlite"} & {p.name for p in folder.iterdir()}


def test_the_offer_names_given_stores_first_and_ignores_symlinks(tmp_path):
    root = tmp_path / "root"
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(root / "b"), "--quiet"]) == 0
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(tmp_path / "away"), "--quiet"]) == 0
    (root / "a-link").symlink_to(tmp_path / "away")
    offer = StoreOffer.from_settings(SourcesConfig(), {"TRACE_EXPLORER_STORE_ROOT": str(root),
                                                       "TRACE_EXPLORER_STORE": str(tmp_path / "away")})
    assert [(s.name, s.given) for s in offer.stores()] == [("away", True), ("b", False)]
    assert offer.start == "away" and offer.named("a-link") is None
    assert offer.new_store("a-link") is None and offer.new_store("c").path == root.resolve() / "c"


def test_a_save_that_fails_says_so_without_the_servers_words(rooted, monkeypatch):
    import components.sidebar.store_source as store_source

    def failing(*args, **kwargs):
        raise OSError(f"[Errno 28] No space left on device: '{rooted}/team/000042.sst' (pid 4242)")
    monkeypatch.setattr(store_source, "ingest_file", failing)
    at = _linked("team")
    at.sidebar.file_uploader[0].set_value([("seed.ttl", (CORPUS / "seed-sessions.ttl").read_bytes(), "text/turtle")]).run()
    assert not at.exception, at.exception
    assert [unescape(e.value) for e in at.sidebar.error] == [
        "seed.ttl: expected a trace file this app can save; saving it failed (the server's log says why)"]
    assert str(rooted) not in _page_text(at) and "4242" not in _page_text(at)


def test_the_deployments_store_is_made_when_it_first_opens(server, monkeypatch):
    store = server / "deployment" / "traces"
    monkeypatch.setenv("TRACE_EXPLORER_STORE", str(store))
    try:
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
        assert not at.exception and at.sidebar.selectbox(key="te_store_choice").value == "traces"
        assert (store / "CURRENT").is_file() and "No sessions in this store yet" in at.main.info[0].value
        assert at.query_params["store"] == "traces" and str(server) not in _page_text(at)
    finally:
        shutil.rmtree(server / "deployment", ignore_errors=True)
