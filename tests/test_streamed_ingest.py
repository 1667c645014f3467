"""A large N-Quads file goes into a local store a batch at a time (``read.rdf_stream``), all or
nothing: it gives the store the quads and the session index the rows that reading it whole
gives, and a parse error part way, after batches were written, leaves the store, its snapshot
and its index exactly as they were. (The size from which a file is streamed and the batch are
made small here, so that small files take several batches.)"""

from __future__ import annotations

import gzip
import threading
import time
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS
from tests.store_copies import SESSIONS_PER_COPY, copies
from trace_explorer.read import rdf_stream
from trace_explorer.read.errors import TraceLoadError
from trace_explorer.read.files import read_trace_file, stream_trace_file
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import local_source, open_local_store
from trace_explorer.index.updates import StreamedIndexUpdate
from trace_explorer.store.written_triples import WrittenTriples

COPIES = 6
BATCH = 1_000


@pytest.fixture
def streamed(monkeypatch):
    """Every N-Quads file is streamed, ``BATCH`` quads at a time."""
    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(rdf_stream, "BATCH", BATCH)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("files")
    good = copies(0, COPIES)
    lines = good.split(b"\n")
    middle = len(lines) // 2
    bad = b"\n".join(lines[:middle] + [b"<urn:x> <urn:p> this is not a term ."] + lines[middle:])
    made = {"base.nq": copies(100, 1), "good.nq": good, "bad.nq": bad}
    for name, data in made.items():
        (folder / name).write_bytes(data)
    return folder, middle + 1


def _index(path):
    reader = local_source(path)
    rows = {r["root"]: (r["summary"], r["mechanism"], r["status"], r["steps"], r["parent"])
            for r in reader.index.rows()}
    return set(reader.store), rows


def test_a_streamed_file_gives_the_store_and_index_that_reading_it_whole_gives(tmp_path, files, monkeypatch):
    folder, _ = files
    whole = tmp_path / "whole"
    with open_local_store(whole) as local:
        ingest_file(local, str(folder / "base.nq"))
        done = ingest_file(local, str(folder / "good.nq"))
    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(rdf_stream, "BATCH", BATCH)
    assert stream_trace_file(str(folder / "good.nq")) is not None
    assert stream_trace_file(str(CORPUS / "seed-sessions.ttl")) is None  # Turtle is read whole
    batched = tmp_path / "batched"
    with open_local_store(batched) as local:
        ingest_file(local, str(folder / "base.nq"))
        timings: dict[str, float] = {}
        streamed = ingest_file(local, str(folder / "good.nq"), timings=timings)
        assert set(timings) == {"read", "write", "index", "read cpu", "write cpu", "index cpu"}
        assert ingest_file(local, str(folder / "good.nq")).skipped  # the same bytes again add nothing
    assert streamed.quads == done.quads > 3 * BATCH  # several batches
    quads, rows = _index(batched)
    want_quads, want_rows = _index(whole)
    assert quads == want_quads
    assert rows == want_rows and len(rows) == (COPIES + 1) * SESSIONS_PER_COPY


def test_a_parse_error_part_way_leaves_the_store_as_it_was(tmp_path, files, streamed):
    folder, bad_line = files
    path = tmp_path / "store"
    with open_local_store(path) as local:
        ingest_file(local, str(folder / "base.nq"))
    before_quads, before_rows = _index(path)
    generation = local_source(path).generation
    batches = []
    with open_local_store(path) as local:
        local.store = _Counting(local.store, batches)
        written = WrittenTriples()
        with pytest.raises(TraceLoadError) as raised:
            ingest_file(local, str(folder / "bad.nq"), written=written)
        assert raised.value.line == bad_line and raised.value.file == str(folder / "bad.nq")
        assert len(batches) == (bad_line - 1) // BATCH >= 1  # the batches before the bad line went in
        assert not written.kept  # the health check asks the store, which holds none of it
        assert local.index.pending_write() is None
        assert len(local) == len(before_quads)
    assert local_source(path).generation == generation  # no snapshot published
    assert _index(path) == (before_quads, before_rows)
    # the store takes the good file whole afterwards
    with open_local_store(path) as local:
        ingest_file(local, str(folder / "good.nq"))
    quads, rows = _index(path)
    assert len(rows) == (COPIES + 1) * SESSIONS_PER_COPY and quads > before_quads


def test_a_bad_iri_part_way_is_refused_before_the_store_loads_its_batch(tmp_path, files, streamed):
    """The store loads each batch's text leniently (no IRI checks of its own): the strict parse
    before it must refuse what it would let through, such as an IRI with a space or a bad
    language tag, and nothing of the file may stay."""
    folder, _ = files
    lines = (folder / "good.nq").read_bytes().split(b"\n")
    at = 3 * BATCH + 10
    for n, bad in enumerate((b'<urn:x> <urn:p> <urn:not an iri> .', b'<urn:x> <urn:p> "v"@-bad- .')):
        name = folder / f"bad-iri-{n}.nq"
        name.write_bytes(b"\n".join(lines[:at] + [bad] + lines[at:]))
        path = tmp_path / f"store-{n}"
        with open_local_store(path) as local:
            ingest_file(local, str(folder / "base.nq"))
        before = _index(path)
        batches = []
        with open_local_store(path) as local:
            local.store = _Counting(local.store, batches)
            with pytest.raises(TraceLoadError) as raised:
                ingest_file(local, str(name))
            assert raised.value.line == at + 1 and raised.value.file == str(name)
            assert len(batches) == 3  # the batches before it went in, and were taken out again
        assert _index(path) == before


def test_a_line_cut_short_at_a_batch_end_is_named_as_not_closed_with_its_own_line(tmp_path, files, streamed):
    """A string literal left open on the last line of a batch, with the file going on: the
    message gives that line (not the batch's own count) and says the line is not closed, not
    that the file may be cut short; a file that does end there is said to be cut short."""
    folder, _ = files
    lines = (folder / "good.nq").read_bytes().split(b"\n")
    at = 2 * BATCH  # the last line of the second batch
    cut = b'<urn:x> <urn:p> "abc'
    middle, end = tmp_path / "middle.nq", tmp_path / "end.nq"
    middle.write_bytes(b"\n".join(lines[:at - 1] + [cut] + lines[at - 1:]))
    end.write_bytes(b"\n".join(lines[:at - 1] + [cut]))
    with open_local_store(tmp_path / "store") as local:
        with pytest.raises(TraceLoadError) as raised:
            ingest_file(local, str(middle))
        message = str(raised.value)
        assert raised.value.line == at and message.startswith(f"{middle}:{at}:17: expected valid N-Quads; ")
        assert message.endswith("(a string or IRI opened on this line is not closed on it)")
        assert "between line" not in message and "cut short" not in message
        with pytest.raises(TraceLoadError) as raised:
            ingest_file(local, str(end))
        assert raised.value.line == at and str(raised.value).endswith("(the file may be cut short)")
        assert len(local) == 0


class _Counting:
    """A store that counts the batches it is given (``bulk_load`` of their text, or
    ``bulk_extend`` of their quads) into ``batches``."""

    def __init__(self, store, batches):
        self._store, self._batches = store, batches

    def __getattr__(self, name):
        return getattr(self._store, name)

    def __len__(self):
        return len(self._store)

    def bulk_extend(self, quads):
        self._store.bulk_extend(quads)
        self._batches.append(len(quads))

    def bulk_load(self, text, **kwargs):
        self._store.bulk_load(text, **kwargs)
        self._batches.append(text.count(b"\n"))


def test_the_streamed_quads_are_those_read_whole(files, streamed):
    folder, _ = files
    whole = read_trace_file(str(folder / "good.nq"))
    found = stream_trace_file(str(folder / "good.nq"))
    quads = [q for batch in found.batches() for q in batch.quads]
    assert quads == whole.quads and found.digest == whole.digest and found.quads == len(whole.quads)


def test_a_gzipped_file_is_streamed_by_what_it_holds_not_its_compressed_size(tmp_path, monkeypatch):
    import gzip

    from trace_explorer.read.files import GZ_RATIO, stream_trace_file

    packed = tmp_path / "orchestrated.nq.gz"
    packed.write_bytes(gzip.compress((CORPUS / "orchestrated.nq").read_bytes()))
    size = packed.stat().st_size
    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", size * GZ_RATIO)  # more than the .gz, not than its text
    found = stream_trace_file(str(packed))
    assert found is not None and found.size == (CORPUS / "orchestrated.nq").stat().st_size
    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", size * GZ_RATIO + 1)
    assert stream_trace_file(str(packed)) is None


def test_a_line_past_the_limit_is_named_whichever_batch_and_buffer_it_falls_in(tmp_path, files, streamed, monkeypatch):
    """Lines are taken a buffer at a time: one over ``LINE_BYTES`` is refused wherever it starts
    (first or middle of a buffer, across buffers) and the store keeps nothing of the file."""
    monkeypatch.setattr(rdf_stream, "LINE_BYTES", 300)
    folder, _ = files
    lines = (folder / "good.nq").read_bytes().split(b"\n")
    long = b'<urn:x> <urn:p> "' + b"y" * 400 + b'" .'
    for at in (1, 2, BATCH, BATCH + 1, len(lines) // 2):
        path = tmp_path / f"long-{at}.nq"
        path.write_bytes(b"\n".join(lines[:at - 1] + [long] + lines[at - 1:]))
        with open_local_store(tmp_path / f"store-{at}") as local:
            with pytest.raises(TraceLoadError) as raised:
                ingest_file(local, str(path))
            assert raised.value.line == at and "under 300 bytes" in str(raised.value)
            assert len(local) == 0


EDGE = "https://trustgraph.ai/ns/edge"


def _damaged(path):
    """An N-Quads file of ``3 * BATCH + 3`` lines, two of them damaged quoted triples in
    different batches (one of them spelled with an escape), between plain lines."""
    plain = b"<urn:s:%d> <urn:p> <urn:o> <urn:g> .\n"
    damaged = b'<urn:e:1> <%s> "<<http://a/x http://a/p http://a/o>>" <urn:g> .\n' % EDGE.encode()
    escaped = b'<urn:e:2> <https://trustgraph.ai/ns/\\u0065dge>\t"<<http://a/x http://a/p http://a/o>>" .\n'
    term = b"<urn:e:3> <%s> <<( <http://a/x> <http://a/p> <http://a/o> )>> .\n" % EDGE.encode()
    text = b"".join(plain % i for i in range(2 * BATCH)) + damaged + b"".join(plain % i for i in range(BATCH)) + escaped + term
    path.write_bytes(text)
    return path


def test_damaged_quoted_triples_are_recovered_batch_by_batch_however_the_predicate_is_spelled(tmp_path, streamed):
    """A batch is looked over for the damaged spelling of a quoted triple only when its text may
    hold one: a literal after ``tg:edge`` written as it is, or spelled with an escape."""
    edge = EDGE
    path = _damaged(tmp_path / "damaged.nq")
    streamed_file = stream_trace_file(str(path))
    quads = [q for batch in streamed_file.batches() for q in batch.quads]
    assert streamed_file.recovered == 2 and len(quads) == 3 * BATCH + 3
    triple = ox.Triple(ox.NamedNode("http://a/x"), ox.NamedNode("http://a/p"), ox.NamedNode("http://a/o"))
    assert [q.object for q in quads if q.predicate.value == edge] == [triple] * 3


def test_turtle_named_nq_streamed_is_refused_with_a_hint_of_its_format_and_the_store_kept(tmp_path, files, streamed):
    folder, _ = files
    path = tmp_path / "store"
    with open_local_store(path) as local:
        ingest_file(local, str(folder / "base.nq"))
    before = _index(path)
    turtle = tmp_path / "trace.nq.gz"
    turtle.write_bytes(gzip.compress(b"@prefix tg: <https://trustgraph.ai/ns/> .\n"
                                     + b"".join(b'<urn:s%d> tg:query "q" .\n' % i for i in range(3 * BATCH))))
    with open_local_store(path) as local, pytest.raises(TraceLoadError) as raised:
        ingest_file(local, str(turtle))
    assert str(raised.value) == (f"{turtle}:1:1: expected valid N-Quads; the parser says: The subject of a triple "
                                 "must be an IRI or a blank node (this looks like Turtle; name the file trace.ttl.gz)")
    assert _index(path) == before


class _Failing(_Counting):
    """A counting store whose ``bulk_load`` number ``fail_at`` (from 1) raises OSError, as a full
    disk would, and whose every load sets ``loading`` then takes a moment."""

    def __init__(self, store, batches, loading, fail_at=None):
        super().__init__(store, batches)
        self.fail_at, self.loading = fail_at, loading

    def bulk_load(self, text, **kwargs):
        if len(self._batches) + 1 == self.fail_at:
            del self  # the error keeps this frame, which must not keep the store open (a store's own error does not)
            raise OSError(28, "No space left on device")
        self.loading.set()
        time.sleep(0.3)
        super().bulk_load(text, **kwargs)


def _loading_threads():
    return [t for t in threading.enumerate() if t.name.startswith("bulk-load") and t.is_alive()]


@pytest.mark.parametrize("failure", ["parse error in the last batch", "the store's load fails",
                                     "Ctrl-C while a batch loads"])
def test_a_failure_after_batches_went_in_leaves_the_store_as_it_was_and_no_load_running(
        tmp_path, files, streamed, monkeypatch, failure):
    """Whatever stops a streamed ingest part way (a bad line in its last batch, the store failing
    to load a batch in its thread, Ctrl-C in the main thread while a batch loads), the store, its
    index and its snapshot are as before, no load is left running, and the error is raised."""
    folder, _ = files
    path = tmp_path / "store"
    with open_local_store(path) as local:
        ingest_file(local, str(folder / "base.nq"))
    before = _index(path)
    generation = local_source(path).generation
    name, raised = str(folder / "good.nq"), OSError
    if failure == "parse error in the last batch":
        lines = (folder / "good.nq").read_bytes().split(b"\n")
        name, raised = str(tmp_path / "late.nq"), TraceLoadError
        Path(name).write_bytes(b"\n".join(lines[:-2] + [b"<urn:x> <urn:p> not a term ."] + lines[-2:]))
    batches, loading = [], threading.Event()
    if failure == "Ctrl-C while a batch loads":
        raised, note = KeyboardInterrupt, StreamedIndexUpdate.note

        def interrupted(self, quads, text=None):
            if loading.is_set():
                raise KeyboardInterrupt
            note(self, quads, text)
        monkeypatch.setattr(StreamedIndexUpdate, "note", interrupted)
    with open_local_store(path) as local:
        local.store = _Failing(local.store, batches, loading, fail_at=2 if failure == "the store's load fails" else None)
        with pytest.raises(raised) as stopped:
            ingest_file(local, name)
        assert _loading_threads() == []
        assert len(batches) >= 1  # batches went in before it stopped
        assert local.index.pending_write() is None and len(local) == len(before[0])
        if raised is TraceLoadError:
            assert stopped.value.line == len(lines) - 1  # (the text ends with a line break)
    assert local_source(path).generation == generation
    assert _index(path) == before


def test_batches_loaded_from_their_text_and_batches_recovered_give_the_store_what_reading_whole_gives(
        tmp_path, streamed, monkeypatch):
    """A batch whose quads were recovered goes in by its quads, between batches whose text the
    store loads: the store holds what reading whole gives."""
    path = _damaged(tmp_path / "damaged.nq")
    with open_local_store(tmp_path / "batched") as local:
        ingest_file(local, str(path))
        batched = set(local.store)
    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 1 << 40)
    with open_local_store(tmp_path / "whole") as local:
        ingest_file(local, str(path))
        whole = set(local.store)
    assert batched == whole and len(whole) == 3 * BATCH + 3 - BATCH  # (the plain lines repeat BATCH subjects)
