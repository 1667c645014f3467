"""One local store, many users: readers beside a busy writer (in this process and in another),
the writer shared within a process, and a second writer told the store is busy."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import CORPUS, manifest_sessions
from tests.store_copies import SESSIONS_PER_COPY, TOP_PER_COPY, copies
from trace_explorer.cli.main import main
from trace_explorer.index.catalog import SessionFilter, count_sessions, fetch_session
from trace_explorer.store.local_store import StoreBusy, local_source, open_local_store
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.snapshots import SNAPSHOTS_DIR, current_generation

REPO = Path(__file__).resolve().parents[1]
COPIES_PER_FILE = 17  # about 10,400 quads a file: written by bulk_extend, which sets compactions going
FILES = 7
SEED_SESSION = "urn:trustgraph:agent:6513270e-269e-4d37-b2a7-4de452e6b438"


@pytest.mark.long
def test_readers_beside_a_busy_writer_never_fail(tmp_path):
    # A read-only open of a directory whose writer is compacting failed with "Corruption: ...
    # MANIFEST may be corrupted" about one time in ten; readers now open published snapshots.
    path = tmp_path / "store"
    published: list[tuple[int, int]] = []  # (quads, sessions) after each file
    failures: list[BaseException] = []

    def write() -> None:
        try:
            with open_local_store(path) as local:
                for n in range(FILES):
                    ingest_file(local, f"copies-{n}.nq", copies(n * COPIES_PER_FILE, COPIES_PER_FILE))
                    published.append((len(local), local.index.count(SessionFilter(include_sub=True))))
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            failures.append(error)

    with open_local_store(path):
        pass  # the empty store and its first snapshot
    writer = threading.Thread(target=write)
    writer.start()
    reads: list[tuple[int, int]] = []
    while writer.is_alive() or not reads:
        source = local_source(path)  # raised before, now and then, while the writer compacted
        quads = len(source.store)
        sessions = count_sessions(source, SessionFilter(include_sub=True))
        reads.append((quads, sessions))
        assert sessions % SESSIONS_PER_COPY == 0  # whole files only
    writer.join()
    assert failures == []
    assert len(reads) >= 10, "the readers should have overlapped the writes many times"
    sizes = {0} | {quads for quads, _ in published}
    assert {quads for quads, _ in reads} <= sizes  # every reader saw a whole published state
    final = local_source(path)
    assert count_sessions(final, SessionFilter(include_sub=True)) == FILES * COPIES_PER_FILE * SESSIONS_PER_COPY
    assert count_sessions(final) == FILES * COPIES_PER_FILE * TOP_PER_COPY
    assert len(final.store) == published[-1][0]


def test_a_directory_is_opened_once_per_process(tmp_path):
    path = tmp_path / "store"
    first = open_local_store(path)
    second = open_local_store(tmp_path / "." / "store")
    assert second is first and first.users == 2
    ingest_file(first, str(CORPUS / "seed-sessions.ttl"))
    reader = local_source(path)  # beside the writer, in the same process: a snapshot
    again = local_source(path)
    assert again.snapshot is reader.snapshot
    assert count_sessions(reader, SessionFilter(include_sub=True)) == len(manifest_sessions("seed-sessions.ttl"))
    second.close()
    ingest_file(first, str(CORPUS / "graph-dump.ttl"))  # still open for its other user
    assert not reader.is_current() and local_source(path).generation == reader.generation + 1
    first.close()
    assert first.store is None
    # closed for good: another process may now write it
    done = subprocess.run([sys.executable, "-m", "trace_explorer.cli", "ingest", str(CORPUS / "orchestrated.nq"),
                           "--store", str(path), "--quiet"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    expected = sum(len(manifest_sessions(n)) for n in ("seed-sessions.ttl", "graph-dump.ttl", "orchestrated.nq"))
    assert count_sessions(local_source(path), SessionFilter(include_sub=True)) == expected


HOLD = """
import sys, time
from trace_explorer.store.local_store import open_local_store
with open_local_store(sys.argv[1]):
    print("open", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _hold(path: Path, seconds: float) -> subprocess.Popen:
    """Another process holding the store at ``path`` open for writing for ``seconds``."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE,
                              text=True, cwd=REPO)
    assert holder.stdout.readline().strip() == "open"
    return holder


def test_a_second_writer_is_told_the_store_is_busy(tmp_path, capsys):
    path = tmp_path / "store"
    with open_local_store(path) as local:
        ingest_file(local, str(CORPUS / "seed-sessions.ttl"))
    holder = _hold(path, 60)
    try:
        with pytest.raises(StoreBusy, match="is being written by another process"):
            open_local_store(path)
        assert main(["ingest", str(CORPUS / "graph-dump.ttl"), "--store", str(path), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"the store at {path} is being written by another process" in err and "Traceback" not in err
        # reading goes on meanwhile
        assert count_sessions(local_source(path), SessionFilter(include_sub=True)) == len(manifest_sessions("seed-sessions.ttl"))
    finally:
        holder.kill()
        holder.wait()
    # and the store took no harm: the second writer gets in once the first is gone
    assert main(["ingest", str(CORPUS / "graph-dump.ttl"), "--store", str(path), "--quiet"]) == 0
    expected = len(manifest_sessions("seed-sessions.ttl")) + len(manifest_sessions("graph-dump.ttl"))
    assert count_sessions(local_source(path), SessionFilter(include_sub=True)) == expected


def test_a_writer_waits_its_turn_when_asked(tmp_path):
    path = tmp_path / "store"
    holder = _hold(path, 1.5)
    start = time.monotonic()
    with open_local_store(path, wait_s=60) as local:
        waited = time.monotonic() - start
        ingest_file(local, str(CORPUS / "seed-sessions.ttl"))
    holder.wait()
    assert waited > 0.5  # it did wait for the other writer (no bound on how fast: not a timing test)
    assert count_sessions(local_source(path), SessionFilter(include_sub=True)) == len(manifest_sessions("seed-sessions.ttl"))


def test_superseded_snapshots_go_unless_a_reader_holds_them(tmp_path):
    path = tmp_path / "store"
    with open_local_store(path) as local:
        ingest_file(local, str(CORPUS / "seed-sessions.ttl"))
        held, quads = local_source(path), len(local)
        ingest_file(local, str(CORPUS / "graph-dump.ttl"))
        ingest_file(local, str(CORPUS / "orchestrated.nq"))
        kept = sorted(int(p.name) for p in (path / SNAPSHOTS_DIR).iterdir() if p.name.isdigit())
        assert kept == [held.generation, current_generation(path)]  # the one in between is gone
        # the held snapshot still reads the traces it held
        assert len(held.store) == quads < len(local)
        assert fetch_session(held, SEED_SESSION).answer == "Paris is the capital of France."
        held.snapshot.close()
        ingest_file(local, str(CORPUS / "wire-triples.json"))
        kept = sorted(int(p.name) for p in (path / SNAPSHOTS_DIR).iterdir() if p.name.isdigit())
        assert kept == [current_generation(path)]


def test_a_folder_that_is_no_store_is_not_made_one_by_reading(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(Exception, match="holds no pyoxigraph store"):
        local_source(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


def test_a_store_filled_by_other_tools_gets_an_index_and_a_snapshot_and_reindex_catches_up(tmp_path):
    import pyoxigraph as ox

    path = tmp_path / "store"
    other = ox.Store(str(path))  # another tool writes the traces, with no index and no snapshot
    other.load(path=str(CORPUS / "seed-sessions.ttl"), format=ox.RdfFormat.TURTLE)
    other.flush()
    del other
    seed = len(manifest_sessions("seed-sessions.ttl"))
    first = local_source(path, adopt=True)  # opened for the first time: indexed, and its first snapshot published
    assert first.index is not None and count_sessions(first, SessionFilter(include_sub=True)) == seed
    other = ox.Store(str(path))  # the tool adds more: readers go on with what was published
    other.load(path=str(CORPUS / "graph-dump.ttl"), format=ox.RdfFormat.TURTLE)
    other.flush()
    del other
    assert count_sessions(local_source(path), SessionFilter(include_sub=True)) == seed
    assert main(["reindex", "--store", str(path)]) == 0
    now = local_source(path)
    assert now.generation > first.generation
    assert count_sessions(now, SessionFilter(include_sub=True)) == seed + len(manifest_sessions("graph-dump.ttl"))
    assert fetch_session(now, SEED_SESSION).answer == "Paris is the capital of France."
