"""A large N-Quads file's sessions are checked for health in the pass that reads them for their
index rows (``analysis.health.index.HealthInPass``): one read a session, not two. The rows and
findings must be exactly those of indexing first and checking from the store after, whatever
order the files are given in, and a later file that may mend a finding still has it checked
again."""

from __future__ import annotations

import importlib.util
import json
import re
import signal
import sqlite3
import sys

import pytest

from tests.conftest import CORPUS, MANIFEST, SERVICES_FILES, index_tables
from trace_explorer.analysis.health import in_pass
from trace_explorer.analysis.health import index as health_index
from trace_explorer.analysis.health.index import CONTEXT_RULES, refresh_health
from trace_explorer.cli.main import main
from trace_explorer.cli import ingest_progress as cli_progress
from trace_explorer.cli import store as cli_store
from trace_explorer.cli.store import texts_first
from trace_explorer.read import rdf_stream
from trace_explorer.store.ingest import ingest_file
from trace_explorer.index.updates import IndexUpdate
from trace_explorer.store.local_store import open_local_store
from trace_explorer.index.schema import INDEX_FILE

BENCHMARKS = CORPUS.parents[1] / "benchmarks"
SESSIONS = 120


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """``benchmarks/synthetic.py``'s mix, 120 sessions: ``[trace.nq, texts.documents.json]``."""
    spec = importlib.util.spec_from_file_location("health_in_pass_synthetic", BENCHMARKS / "synthetic.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    made = module.generate(tmp_path_factory.mktemp("made"), SESSIONS, long_steps=(7, 3))
    return [made.nquads, made.documents]


def _read_in_batches(monkeypatch) -> None:
    """Every N-Quads file is read a batch at a time (2,000 quads)."""
    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(rdf_stream, "BATCH", 2_000)


@pytest.fixture(scope="module")
def at_once(synthetic, tmp_path_factory):
    """``index_tables`` of a store that took the synthetic texts and trace in one ingest, read
    in batches as under ``streamed``: the rows the tests below compare a store against. Made
    once; no test writes to it."""
    trace, texts = synthetic
    store = tmp_path_factory.mktemp("at-once") / "store"
    with pytest.MonkeyPatch.context() as monkeypatch:
        _read_in_batches(monkeypatch)
        assert main(["ingest", str(texts), str(trace), "--store", str(store), "--quiet"]) == 0
    return index_tables(store)


@pytest.fixture
def streamed(monkeypatch):
    """Every N-Quads file is read a batch at a time, and the checks after an ingest are counted."""
    _read_in_batches(monkeypatch)
    checked_after: list[int] = []
    original = health_index.check_sessions

    def counted(source, roots, *args, **kwargs):
        checked_after.append(len(roots))
        return original(source, roots, *args, **kwargs)

    monkeypatch.setattr(health_index, "check_sessions", counted)
    return checked_after


def _checked_from_the_store(files, store):
    """The index and health rows of ``files`` added one by one, then every session checked."""
    with open_local_store(store) as local:
        for path in files:
            ingest_file(local, str(path))
        return refresh_health(local.writer_source(), after_ingest=True)


@pytest.mark.parametrize("which", ["synthetic", "services"])
def test_a_streamed_file_is_checked_as_it_is_indexed(tmp_path, synthetic, streamed, which):
    files = synthetic if which == "synthetic" else [p for p in SERVICES_FILES if p.suffix in (".nq", ".json")]
    assert main(["ingest", *map(str, files), "--store", str(tmp_path / "one"), "--quiet"]) == 0
    assert sum(streamed) == 0 or which == "services"  # nothing was left to check after the files
    del streamed[:]
    checked = _checked_from_the_store(texts_first(files), tmp_path / "two")
    one, two = index_tables(tmp_path / "one"), index_tables(tmp_path / "two")
    assert len(one["health"]) == len(one["sessions"]) == checked
    if which == "synthetic":
        assert checked == SESSIONS
        assert any(rules for _, _, _, _, rules, _ in one["health"])  # findings, not only clean rows
    assert one == two


def test_texts_go_first_whatever_the_order_given(tmp_path, synthetic, streamed, at_once):
    trace, texts = synthetic
    assert texts_first([trace, texts]) == [texts, trace]
    assert main(["ingest", str(trace), str(texts), "--store", str(tmp_path / "given"), "--quiet"]) == 0
    given = index_tables(tmp_path / "given")
    assert given == at_once  # the texts given first
    # many answers are texts of the content file: read with them, their rows show them
    assert main(["ingest", str(trace), "--store", str(tmp_path / "alone"), "--quiet"]) == 0
    previews = [sum(1 for _, s in index_tables(tmp_path / name)["summaries"] if json.loads(s)["answer_preview"])
                for name in ("given", "alone")]
    assert previews[0] > previews[1] + SESSIONS // 4


def test_a_file_after_the_pass_has_its_sessions_checked_again(tmp_path, synthetic, streamed, at_once):
    trace, texts = synthetic
    assert main(["ingest", str(trace), "--store", str(tmp_path / "store"), "--quiet"]) == 0
    assert sum(streamed) == 0  # checked in the pass, without their texts
    before = index_tables(tmp_path / "store")["health"]
    assert len(before) == SESSIONS and sum("missing-text" in rules.split() for _, _, _, _, rules, _ in before) > SESSIONS // 2
    given = set(json.loads(texts.read_text(encoding="utf-8")))  # the document IRIs the content file has texts for
    context = [(wants, rules) for _, _, _, _, rules, wants in before if any(r in rules.split() for r in CONTEXT_RULES)]
    mendable = [wants for wants, _ in context
                if wants is None or any(w.partition(":")[2] in given for w in wants.split())]
    assert any(w.partition(":")[2] == "chunk-id-1" for wants, _ in context for w in (wants or "").split())
    # (the services' DocRAG chunk ids are no IRIs: a content file gives no store a text for them)
    assert 0 < len(mendable) < len(context)  # some findings it cannot mend: their texts are not in it
    assert all(wants is not None for wants, rules in context if "time-before-parent" not in rules.split())
    assert main(["ingest", str(texts), "--store", str(tmp_path / "store"), "--quiet"]) == 0
    assert sum(streamed) == len(mendable)  # only what the texts may mend is checked again
    after = index_tables(tmp_path / "store")["health"]
    missing = [sum("missing-text" in rules.split() for _, _, _, _, rules, _ in rows) for rows in (before, after)]
    assert 0 < missing[1] < missing[0]  # mended where the content file has the text (it lacks some)
    assert after == at_once["health"]


def sent_batches(monkeypatch) -> list[int]:
    """The batches each pass's ``HealthInPass`` sent to worker processes, one count a pass,
    appended as the pass writes its health rows."""
    sent: list[int] = []

    class Counted(in_pass.HealthInPass):
        def write(self):
            sent.append(self.sent)  # not the reader itself: it holds the store open
            return super().write()

    monkeypatch.setattr(in_pass, "HealthInPass", Counted)
    return sent


@pytest.mark.long
def test_a_file_after_the_pass_has_its_sessions_checked_again_by_the_workers_too(tmp_path, synthetic, streamed,
                                                                                  at_once, monkeypatch):
    """The sessions a content file may mend, checked again after it, are shared with the worker
    processes as a pass's batches are: the same health rows as checked here, none of them left
    to this process's check."""
    trace, texts = synthetic
    store = str(tmp_path / "store")
    assert main(["ingest", str(trace), "--store", store, "--quiet", "--workers", "1"]) == 0
    monkeypatch.setattr(in_pass, "BATCH", 10)  # some batches to the worker, some here
    monkeypatch.setattr(in_pass, "PARALLEL_FROM", 0)
    sent = sent_batches(monkeypatch)
    assert main(["ingest", str(texts), "--store", store, "--quiet", "--workers", "1"]) == 0
    assert sum(streamed) == 0 and sent[-1] > 0  # checked again in the shared pass, with batches sent
    assert index_tables(tmp_path / "store")["health"] == at_once["health"]


@pytest.mark.long
def test_reindex_shares_its_health_check_with_the_workers(tmp_path, synthetic, at_once, monkeypatch, capsys):
    """``reindex`` checks every session again as it reads its row, in worker processes too: the
    same rows. Its bar says the workers are starting until their first batch is back."""
    store = str(tmp_path / "store")
    assert main(["ingest", *map(str, synthetic), "--store", store, "--quiet"]) == 0
    monkeypatch.setattr(in_pass, "BATCH", 10)
    monkeypatch.setattr(in_pass, "PARALLEL_FROM", 0)
    monkeypatch.setattr(in_pass, "workers_for", lambda: 1)  # its default, on any machine
    monkeypatch.setattr(cli_progress.BarPhases, "LIVE", True)  # each frame drawn, as on a terminal
    sent = sent_batches(monkeypatch)
    capsys.readouterr()
    assert main(["reindex", "--store", store]) == 0
    assert sent and sent[-1] > 0
    assert index_tables(tmp_path / "store") == at_once
    drawn = [line.rstrip() for line in capsys.readouterr().err.replace("\r", "\n").splitlines()]
    bar = [line for line in drawn if line.startswith("index+health")]
    starting = [line for line in bar if line.endswith("starting 1 worker process]")]
    assert starting and all(re.search(r"\| 0/\d+ \[", line) for line in starting)
    assert "starting" not in bar[-1] and "100%" in bar[-1]
    assert not any(line.startswith("health") for line in drawn)  # none left for a check after


def test_reindex_quiet_says_nothing_and_workers_0_reads_every_batch_here(tmp_path, monkeypatch, capsys):
    """``reindex --quiet --workers 0``: no bar and no last line, and no batch sent to a worker
    even where a pass would share them (every batch here); the index as before it."""
    store = tmp_path / "store"
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), "--store", str(store), "--quiet"]) == 0
    before = index_tables(store)
    monkeypatch.setattr(in_pass, "BATCH", 2)
    monkeypatch.setattr(in_pass, "PARALLEL_FROM", 0)
    sent = sent_batches(monkeypatch)
    capsys.readouterr()
    assert main(["reindex", "--store", str(store), "--quiet", "--workers", "0"]) == 0
    assert capsys.readouterr().err == ""
    assert sent == [0]
    assert index_tables(store) == before
    assert main(["reindex", "--store", str(store), "--quiet", "--workers", "1"]) == 0
    assert 0 < sent[-1] <= -(-len(MANIFEST["orchestrated.nq"]["sessions"]) // 2)  # the same, with a worker
    assert index_tables(store) == before


@pytest.mark.long
def test_a_ctrl_c_in_a_shared_check_keeps_the_health_of_the_batches_done(tmp_path, synthetic, at_once, monkeypatch):
    store = tmp_path / "store"
    assert main(["ingest", *map(str, synthetic), "--store", str(store), "--quiet", "--no-health"]) == 0
    monkeypatch.setattr(in_pass, "BATCH", 10)
    monkeypatch.setattr(in_pass, "PARALLEL_FROM", 0)
    done = []

    def progress(n):
        done.append(n)
        if len(done) == 3:
            raise KeyboardInterrupt

    with open_local_store(store) as local, pytest.raises(KeyboardInterrupt):
        refresh_health(local.writer_source(), progress=progress, shared=in_pass.HealthInPass(local, workers=1))
    kept_rows = index_tables(store)["health"]
    assert len(kept_rows) == sum(done) == 30  # the three batches done, and only those
    assert set(kept_rows) <= set(at_once["health"])


@pytest.mark.parametrize("kept", [True, False])
@pytest.mark.long
def test_worker_processes_give_the_rows_of_one_process(tmp_path, synthetic, streamed, monkeypatch, kept):
    """Batches read in worker processes (the store opened read-only there; the triples handed
    over as text when kept, else read from the store) give exactly the rows and health of
    batches read here; a store that held something first keeps nothing in memory."""
    monkeypatch.setattr(in_pass, "BATCH", 15)  # 8 batches: some to the worker, some here
    first = [] if kept else [str(CORPUS / "orchestrated.nq")]
    stores, sent = {}, sent_batches(monkeypatch)
    monkeypatch.setattr(in_pass, "PARALLEL_FROM", 0)
    for workers in (0, 1):
        store = tmp_path / f"workers-{workers}"
        for files in ([first] if first else []) + [list(map(str, synthetic))]:
            assert main(["ingest", *files, "--store", str(store), "--quiet", "--workers", str(workers)]) == 0
        stores[workers] = index_tables(store)
        assert (sent[-1] > 0) == bool(workers)
    assert len(stores[1]["health"]) == SESSIONS + (0 if kept else len(MANIFEST["orchestrated.nq"]["sessions"]))
    assert stores[0] == stores[1]


def test_a_worker_for_each_further_core_up_to_three():
    assert [in_pass.workers_for(cores) for cores in (1, 2, 3, 4, 16)] == [0, 1, 2, 3, 3]


@pytest.mark.long
def test_batches_of_a_worker_that_cannot_start_are_read_here(tmp_path, synthetic, streamed, monkeypatch):
    monkeypatch.setattr(in_pass, "BATCH", 15)
    monkeypatch.setattr(in_pass, "PARALLEL_FROM", 0)
    monkeypatch.setattr(in_pass, "workers_for", lambda cores=None: 1)

    class Unopened(in_pass.HealthInPass):
        def _checkpoint(self, source, target):
            return str(tmp_path / "no store here")  # the worker's start fails

    monkeypatch.setattr(in_pass, "HealthInPass", Unopened)
    assert main(["ingest", *map(str, synthetic), "--store", str(tmp_path / "store"), "--quiet"]) == 0
    monkeypatch.setattr(in_pass, "PARALLEL_FROM", 10 ** 9)
    monkeypatch.setattr(in_pass, "HealthInPass", Unopened.__mro__[1])  # the pass as it is
    assert main(["ingest", *map(str, synthetic), "--store", str(tmp_path / "here"), "--quiet"]) == 0
    rows = index_tables(tmp_path / "store")
    assert len(rows["health"]) == SESSIONS and rows == index_tables(tmp_path / "here")


def test_an_ingest_that_adds_nothing_checks_nothing_again(tmp_path, synthetic, streamed):
    trace, texts = synthetic
    assert main(["ingest", str(trace), "--store", str(tmp_path / "store"), "--quiet"]) == 0
    before = index_tables(tmp_path / "store")["health"]
    assert any("missing-text" in rules.split() for _, _, _, _, rules, _ in before)  # findings a later file may mend
    assert main(["ingest", str(trace), "--store", str(tmp_path / "store"), "--quiet"]) == 0  # already in
    assert main(["ingest", str(tmp_path / "none.nq"), "--store", str(tmp_path / "store"), "--quiet"]) == 1
    assert sum(streamed) == 0 and index_tables(tmp_path / "store")["health"] == before


def test_ctrl_c_ends_an_ingest_with_a_line_and_status_130(tmp_path, synthetic, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_store, "ingest_file", interrupted)
    assert main(["ingest", *map(str, synthetic), "--store", str(tmp_path / "store"), "--quiet"]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "trace-explorer: interrupted"


def test_what_a_killed_ingest_left_beside_the_store_goes_with_the_next_writer(tmp_path, synthetic):
    from trace_explorer.store.local_store import LEFTOVERS

    store = tmp_path / "store"
    assert main(["ingest", str(synthetic[1]), "--store", str(store), "--quiet"]) == 0
    checkpoint = store / f"{in_pass.PASS_PREFIX}x1" / "store"
    checkpoint.mkdir(parents=True)
    (checkpoint / "000009.sst").write_bytes(b"linked")
    (store / "bulk-1234.sst").write_bytes(b"built, never handed over")
    assert [p.name for pattern in LEFTOVERS for p in store.glob(pattern)] == [f"{in_pass.PASS_PREFIX}x1", "bulk-1234.sst"]
    assert main(["ingest", str(synthetic[0]), "--store", str(store), "--quiet"]) == 0
    assert not [p for pattern in LEFTOVERS for p in store.glob(pattern)]
    assert len(index_tables(store)["health"]) == SESSIONS


def test_an_index_written_before_wants_were_kept_has_its_sessions_checked_again(tmp_path, synthetic, streamed,
                                                                                at_once):
    """An index whose health table has no ``wants`` column (written by the code before it) gets
    the column, empty: every session with a finding a later file may mend is checked again once,
    as before, and its wants are kept from then on."""
    trace, texts = synthetic
    store = tmp_path / "store"
    assert main(["ingest", str(trace), "--store", str(store), "--quiet"]) == 0
    with sqlite3.connect(store / INDEX_FILE) as db:
        db.execute("ALTER TABLE health DROP COLUMN wants")
    before = index_tables(store)["health"]
    context = [row for row in before if any(r in row[4].split() for r in CONTEXT_RULES)]
    assert main(["ingest", str(texts), "--store", str(store), "--quiet"]) == 0
    assert sum(streamed) == len(context) > 0
    # the same rows as a store written with the column; a session with nothing a file may mend
    # keeps its unknown (NULL) wants, never read
    after, whole = ({row[:5]: row[5] if any(r in row[4].split() for r in CONTEXT_RULES) else "-" for row in rows}
                    for rows in (index_tables(store)["health"], at_once["health"]))
    assert after == whole


def test_ctrl_c_that_native_code_let_pass_still_ends_the_ingest(tmp_path, monkeypatch, capsys):
    """A SIGINT whose KeyboardInterrupt a native call swallowed (its handler ran, nothing raised
    after) still stops the ingest at the next phase step, with status 130; the next ingest of
    the file writes what a clean one writes."""
    original = IndexUpdate.apply

    def swallowed(self, *args, **kwargs):
        try:
            signal.raise_signal(signal.SIGINT)  # as a native call that checks for signals and carries on
        except KeyboardInterrupt:
            pass
        return original(self, *args, **kwargs)

    monkeypatch.setattr(IndexUpdate, "apply", swallowed)
    trace = str(CORPUS / "orchestrated.nq")
    assert main(["ingest", trace, "--store", str(tmp_path / "store"), "--quiet"]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "trace-explorer: interrupted"
    monkeypatch.setattr(IndexUpdate, "apply", original)
    assert main(["ingest", trace, "--store", str(tmp_path / "store"), "--quiet"]) == 0
    assert main(["ingest", trace, "--store", str(tmp_path / "clean"), "--quiet"]) == 0
    assert index_tables(tmp_path / "store") == index_tables(tmp_path / "clean")
