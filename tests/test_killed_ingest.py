"""A file is in a local store whole or not at all after any kill: an ingest killed with SIGKILL
while its batches are written, while its rows are written, or before its snapshot is published,
leaves a store whose next snapshot, listed sessions and ``lint`` are those of a store that never
saw the file (or, killed after its rows, saw it whole); and the same file then goes in whole."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, manifest_sessions
from tests.killed_ingest import BATCH, ingest_until
from tests.store_copies import SESSIONS_PER_COPY, copies
from trace_explorer.cli.main import main
from trace_explorer.index.catalog import SessionFilter, count_sessions
from trace_explorer.store.ingest import BULK_QUADS, ingest_file
from trace_explorer.store.local_store import local_source, open_local_store
from trace_explorer.model.vocabulary import RDF_TYPE
from trace_explorer.index.typed import COMPLETE_KEY as TYPED_COMPLETE, TABLE as TYPED_TABLE
from trace_explorer.index.schema import INDEX_FILE
from trace_explorer.index.build import build_index

pytestmark = pytest.mark.long  # every test here runs subprocesses for seconds

BIG_COPIES = 25  # about 15,300 quads: three bulk_extend batches of the killed ingest
ALL = SessionFilter(include_sub=True)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The files: ``base`` (copies 0-1, in every store first), ``big`` (``BIG_COPIES`` copies from copy 1: it shares
    copy 1 with base), ``small`` and ``later`` (small files), ``seed``: a corpus file."""
    folder = tmp_path_factory.mktemp("files")
    made = {"base": copies(0, 2), "big": copies(1, BIG_COPIES), "small": copies(300, 2), "later": copies(301, 2)}
    paths = {}
    for name, data in made.items():
        paths[name] = folder / f"{name}.nq"
        paths[name].write_bytes(data)
    paths["seed"] = CORPUS / "seed-sessions.ttl"
    return paths


def _store(path, *names_files) -> None:
    with open_local_store(path) as local:
        for file in names_files:
            ingest_file(local, str(file))


def _lint(path) -> list:
    """``lint --format json`` of the store in ``path``: its findings, as printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["lint", "--store", str(path), "--format", "json"])
    return json.loads(out.getvalue())


def _state(path, lint: bool = True) -> tuple:
    """What readers of the store see: its snapshot's quads, the listed sessions, the sessions its
    traces hold (read again from the snapshot, without the index), and lint's findings."""
    reader = local_source(path)
    listed = reader.index.roots()
    in_traces = build_index(reader.store).roots()
    return set(reader.store), listed, in_traces, _lint(path) if lint else None


@pytest.fixture(scope="module")
def expected(files, tmp_path_factory):
    """What readers see (``_state``, lint included) of stores that were never killed, by name:
    ``without`` the big file and ``with`` it. Read once: no test writes to these stores."""
    folder = tmp_path_factory.mktemp("expected")
    _store(folder / "without", files["base"], files["seed"])
    _store(folder / "with", files["base"], files["big"], files["seed"])
    return {name: _state(folder / name) for name in ("without", "with")}


def _assert_like(path, reference, lint: bool = True) -> None:
    """The store in ``path`` reads as ``reference`` (a store's folder, or its ``_state``): the
    same quads, the same sessions listed and in its traces, and (``lint``) the same findings."""
    quads, listed, in_traces, findings = _state(path, lint)
    want_quads, want_listed, _, want_findings = reference if isinstance(reference, tuple) else _state(reference, lint)
    assert len(quads) == len(want_quads) and quads == want_quads
    assert listed == in_traces == want_listed
    if lint:
        assert findings == want_findings
    # the index still keeps exactly the store's typed IRIs (``index.typed``), and says so
    with sqlite3.connect(path / INDEX_FILE) as db:
        kept = {iri for (iri,) in db.execute(f"SELECT iri FROM {TYPED_TABLE}")}
        assert db.execute("SELECT 1 FROM meta WHERE key = ?", (TYPED_COMPLETE,)).fetchone()
    assert kept == {q.subject.value for q in quads if q.predicate.value == RDF_TYPE
                    and isinstance(q.subject, ox.NamedNode) and "/" in q.subject.value}


@pytest.mark.parametrize("stop, word, streamed", [("batch", "batch", False), ("write", "batch", False),
                                                   ("index", "index", False), ("batch", "batch", True),
                                                   ("index", "index", True)])
def test_a_killed_ingest_leaves_nothing_of_its_file(tmp_path, files, expected, stop, word, streamed):
    # streamed: the big file parsed and written a batch at a time, its rows read from the store
    path = tmp_path / "store"
    _store(path, files["base"])
    before = local_source(path)
    base_quads, base_sessions = set(before.store), before.index.roots()
    ingest_until(path, stop, [files["big"]], word=word, streamed=streamed)
    # readers see the store as it was, before a writer opens it again
    now = local_source(path)
    assert set(now.store) == base_quads and now.index.roots() == base_sessions
    # the next writer undoes the write, and the next snapshot holds nothing of the file
    _store(path, files["seed"])
    _assert_like(path, expected["without"])
    # the same file then goes in whole
    _store(path, files["big"])
    _assert_like(path, expected["with"], lint=False)
    assert count_sessions(local_source(path), ALL) == (
        (BIG_COPIES + 1) * SESSIONS_PER_COPY + len(manifest_sessions("seed-sessions.ttl")))


def test_the_big_file_is_written_in_batches(files):
    # what the kills above rely on: the file takes three bulk_extend batches
    from trace_explorer.read.files import read_trace_file

    quads = len(read_trace_file(str(files["big"])).quads)
    assert BULK_QUADS < 2 * BATCH < quads <= 3 * BATCH


def test_an_ingest_killed_after_its_rows_is_published_whole_by_the_next_writer(tmp_path, files, expected):
    path = tmp_path / "store"
    _store(path, files["base"])
    base_quads = set(local_source(path).store)
    ingest_until(path, "publish", [files["big"]], word="publish")
    assert set(local_source(path).store) == base_quads  # not published yet: readers see the store as it was
    _store(path, files["seed"])
    _assert_like(path, expected["with"])


def test_a_killed_small_write_on_an_unpublished_store_takes_out_only_what_it_added(tmp_path, files):
    # as sync writes: one session after another, published at the end; killed on the last, whose
    # copy 301 the store had already from "small"
    path = tmp_path / "store"
    _store(path, files["base"])
    ingest_until(path, "index", [files["small"], files["later"]], word="index", unpublished=True)
    _store(path, files["seed"])
    reference = tmp_path / "reference"
    _store(reference, files["base"], files["small"], files["seed"])
    _assert_like(path, reference)
    _store(path, files["later"])
    _store(reference, files["later"])
    _assert_like(path, reference)


def test_a_roll_back_cut_short_is_done_again_by_the_next_writer(tmp_path, files):
    # a writer left a pending write; the next one died while putting the snapshot's files back
    # (CURRENT is the first file it removes): the one after finishes the job
    import pyoxigraph as ox

    from trace_explorer.store.snapshots import current_generation

    path = tmp_path / "store"
    _store(path, files["base"])
    base_quads = set(local_source(path).store)
    with open_local_store(path) as local:
        local.index.begin_write("extra.nq", generation=current_generation(path))
        extra = ox.Quad(ox.NamedNode("urn:x:s"), ox.NamedNode("urn:x:p"), ox.Literal("half a file"), ox.DefaultGraph())
        local.store.extend([extra])
        local.store.flush()
    (path / "CURRENT").unlink()
    with open_local_store(path) as local:
        assert local.index.pending_write() is None
        assert set(local.store) == base_quads and extra not in local.store
