"""The session index keeps every typed IRI of its store (``index.typed``), so that the
health check finds the entities under a few roots without scanning the store. Whatever path the
store was filled by (an empty store's ingest, a small file after, a large file streamed into a
store that has sessions, a reindex, a streamed file that failed), the table must hold exactly
the store's typed IRIs, ``entities_under`` must give what the scan gives, and the health rows
must be those of a store whose health was found by the scan. An index without the table's
mark scans, as before, with the same findings."""

from __future__ import annotations

import importlib.util
import sqlite3
import sys

import pytest

from tests.conftest import CONTENT_FILES, CORPUS, TRACE_FILES, index_tables
from trace_explorer.analysis.health.checks import check_source, entities_under
from trace_explorer.cli.main import main
from trace_explorer.read import rdf_stream
from trace_explorer.read.errors import TraceLoadError
from trace_explorer.index import typed as index_typed
from trace_explorer.index.typed import COMPLETE_KEY, TABLE
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import open_local_store
from trace_explorer.index.schema import INDEX_FILE

BENCHMARKS = CORPUS.parents[1] / "benchmarks"
SESSIONS = 60
SCAN = 'SELECT DISTINCT ?s WHERE { ?s a ?t FILTER(isIRI(?s) && CONTAINS(STR(?s), "/")) }'


def _generated(folder, seed: int):
    spec = importlib.util.spec_from_file_location("index_typed_synthetic", BENCHMARKS / "synthetic.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    made = module.generate(folder, SESSIONS, long_steps=(7, 3), seed=seed)
    return [made.documents, made.nquads]


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """Two generated collections of 60 sessions (different seeds: different sessions)."""
    return [_generated(tmp_path_factory.mktemp(f"made{seed}"), seed) for seed in (1, 2)]


CORPUS_FILES = [CORPUS / CONTENT_FILES[n] for n in TRACE_FILES if n in CONTENT_FILES] + [CORPUS / n for n in TRACE_FILES]


@pytest.fixture
def streamed(monkeypatch):
    """Every N-Quads file is read a batch at a time."""
    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(rdf_stream, "BATCH", 1_000)


def _state(store) -> tuple[bool, set[str]]:
    """(marked complete, the table's IRIs) of the store's index."""
    with sqlite3.connect(store / INDEX_FILE) as db:
        complete = db.execute("SELECT 1 FROM meta WHERE key = ?", (COMPLETE_KEY,)).fetchone() is not None
        return complete, {iri for (iri,) in db.execute(f"SELECT iri FROM {TABLE}")}


def _assert_kept(store) -> int:
    """The table is complete and holds exactly the store's typed IRIs, and ``entities_under``
    gives what the scan gives for every session; returns how many typed IRIs."""
    complete, table = _state(store)
    with open_local_store(store) as local:
        source = local.writer_source()
        scanned = {row["s"].value for row in source.select(SCAN)}
        roots = sorted(local.index.roots())
        from_table = entities_under(source, roots)
        from_scan = entities_under(source, roots, scan=True, from_index=False)
    assert complete
    assert table == scanned
    assert {r: sorted(v) for r, v in from_table.items()} == {r: sorted(v) for r, v in from_scan.items()}
    assert sum(map(len, from_table.values())) > len(roots)  # steps under roots, not only a few
    return len(table)


def _ingest(store, *files) -> None:
    assert main(["ingest", *map(str, files), "--store", str(store), "--quiet"]) == 0


def _by_scan(monkeypatch, store, *batches) -> None:
    """Ingest ``batches`` of files in turn into ``store`` with every typed IRI found by the scan."""
    with monkeypatch.context() as patched:
        patched.setattr(index_typed, "is_complete", lambda db: False)
        for files in batches:
            _ingest(store, *files)
    assert not _state(store)[0]


def test_corpus_into_an_empty_store_then_a_second_file(tmp_path, monkeypatch):
    *first, last = CORPUS_FILES
    _ingest(tmp_path / "kept", *first)
    before = _assert_kept(tmp_path / "kept")
    _ingest(tmp_path / "kept", last)  # a small file read whole into a store that has sessions
    after = _assert_kept(tmp_path / "kept")
    assert 0 < before < after
    _by_scan(monkeypatch, tmp_path / "scanned", first, [last])
    assert index_tables(tmp_path / "kept") == index_tables(tmp_path / "scanned")


@pytest.mark.long
def test_generated_streamed_into_an_empty_then_a_non_empty_store(tmp_path, monkeypatch, synthetic, streamed):
    (texts, one), two = synthetic
    _ingest(tmp_path / "kept", one)  # streamed into an empty store: from what the ingest kept
    first = _assert_kept(tmp_path / "kept")
    _ingest(tmp_path / "kept", texts)  # texts only: no typed IRI
    assert _assert_kept(tmp_path / "kept") == first
    _ingest(tmp_path / "kept", *two)  # streamed into a store with sessions: staged batch by batch
    second = _assert_kept(tmp_path / "kept")
    _ingest(tmp_path / "kept", CORPUS / "collection.trig")  # then a small file read whole
    third = _assert_kept(tmp_path / "kept")
    assert 0 < first < second < third
    _by_scan(monkeypatch, tmp_path / "scanned", [one], [texts], two, [CORPUS / "collection.trig"])
    kept, scanned = index_tables(tmp_path / "kept"), index_tables(tmp_path / "scanned")
    assert len(kept["health"]) == len(kept["sessions"]) > 2 * SESSIONS
    assert any(rules for _, _, _, _, rules, _ in kept["health"])  # findings, not only clean rows
    assert kept == scanned


def test_a_streamed_file_into_a_store_that_has_sessions_whole(tmp_path, monkeypatch, synthetic, streamed):
    _ingest(tmp_path / "kept", *CORPUS_FILES[:3])  # read whole into an empty store
    _ingest(tmp_path / "kept", *synthetic[0])
    assert _assert_kept(tmp_path / "kept") > SESSIONS
    _by_scan(monkeypatch, tmp_path / "scanned", CORPUS_FILES[:3], synthetic[0])
    assert index_tables(tmp_path / "kept") == index_tables(tmp_path / "scanned")


def test_a_failed_streamed_file_leaves_the_table_as_it_was(tmp_path, synthetic, streamed):
    _ingest(tmp_path / "kept", *synthetic[0])
    before = _state(tmp_path / "kept")
    bad = tmp_path / "bad.nq"
    bad.write_bytes(synthetic[1][1].read_bytes() + b"<urn:x> <urn:y> not a term .\n")  # fails after every batch
    with open_local_store(tmp_path / "kept") as local:
        with pytest.raises(TraceLoadError):
            ingest_file(local, str(bad))
        assert _state(tmp_path / "kept") == before
        ingest_file(local, str(CORPUS / "orchestrated.nq"))  # streamed next by the same writer
    complete, after = _state(tmp_path / "kept")
    assert complete and before[1] < after
    assert _assert_kept(tmp_path / "kept") == len(after)


def test_reindex_rebuilds_the_table(tmp_path, synthetic, streamed):
    _ingest(tmp_path / "kept", *synthetic[0])
    count = _assert_kept(tmp_path / "kept")
    with sqlite3.connect(tmp_path / "kept" / INDEX_FILE) as db:
        db.execute(f"DELETE FROM {TABLE}")
        db.execute("DELETE FROM meta WHERE key = ?", (COMPLETE_KEY,))
    assert main(["reindex", "--store", str(tmp_path / "kept")]) == 0
    assert _assert_kept(tmp_path / "kept") == count


@pytest.mark.long
def test_an_index_without_the_table_scans_with_the_same_findings(tmp_path, monkeypatch, synthetic, streamed):
    _ingest(tmp_path / "kept", *synthetic[0], CORPUS / "collection.trig")
    with open_local_store(tmp_path / "kept") as local:
        roots = sorted(local.index.roots())
        with_table = list(check_source(local.writer_source(), roots))
    with sqlite3.connect(tmp_path / "kept" / INDEX_FILE) as db:  # an index written before the table
        db.execute(f"DROP TABLE {TABLE}")
        db.execute("DELETE FROM meta WHERE key = ?", (COMPLETE_KEY,))
    with open_local_store(tmp_path / "kept") as local:
        assert not local.index.typed_complete()
        assert local.index.typed_under(roots) == []  # the table is there again, empty
        scanned = list(check_source(local.writer_source(), roots))
    assert with_table and scanned == with_table
    _ingest(tmp_path / "kept", *synthetic[1])  # a store with sessions: the table stays unmarked
    assert _state(tmp_path / "kept") == (False, set())
    _by_scan(monkeypatch, tmp_path / "scanned", [*synthetic[0], CORPUS / "collection.trig"], synthetic[1])
    assert index_tables(tmp_path / "kept") == index_tables(tmp_path / "scanned")


def test_a_pending_write_makes_the_table_untrusted_until_it_is_undone(tmp_path, monkeypatch):
    """A write whose quads went in and whose rows never came (``write_journal``) holds typed
    IRIs the table lacks: while it is pending the store is scanned; once the next writer undoes
    it, the table is the store's again, without a ``reindex``."""
    store = tmp_path / "store"
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(store), "--quiet"]) == 0
    scans = []
    original = index_typed.under

    def counted(db, roots):
        scans.append("index")
        return original(db, roots)

    monkeypatch.setattr(index_typed, "under", counted)
    with open_local_store(store) as local:
        roots = sorted(local.index.roots())
        def found():
            return {root: sorted(entities) for root, entities in entities_under(local.writer_source(), roots).items()}

        from_table = found()
        assert scans == ["index"] and from_table
        local.index.begin_write("a write killed after its quads went in", undo=b"")
        assert found() == from_table and scans == ["index"]  # the store scanned
        local.index.end_write()  # as the next writer does once it has undone the write
        assert found() == from_table and scans == ["index", "index"]
        assert local.index.typed_complete()
