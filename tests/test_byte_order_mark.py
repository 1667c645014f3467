"""A file saved with a UTF-8 byte order mark (EF BB BF) at its very start reads as the same file
without it, in every format, from a path, an upload's bytes or a ``.gz``, read whole or a batch
at a time (``read.rdf_stream``), and into a local store: the mark is not handed to the parser
(pyoxigraph's Turtle-family parsers refuse it), errors keep their line numbers, and a mark
anywhere else is still the parser's to refuse."""

from __future__ import annotations

import gzip
import io

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, MANIFEST
from trace_explorer.cli.main import main
from trace_explorer.read import rdf_stream
from trace_explorer.read.errors import TraceLoadError
from trace_explorer.read.files import read_trace_file, stream_trace_file
from trace_explorer.read.streams import TextStream
from trace_explorer.store.ingest import ingest_file
from trace_explorer.store.local_store import local_source, open_local_store

BOM = b"\xef\xbb\xbf"
RDF_FILES = ["orchestrated.nq", "collection.trig", "seed-sessions.ttl", "graph-dump.ttl"]
TEXTS = "collection.documents.json"


def _n_triples() -> bytes:
    """orchestrated.nq's quads as N-Triples (their graphs dropped), one a line."""
    quads = list(ox.parse((CORPUS / "orchestrated.nq").read_bytes(), format=ox.RdfFormat.N_QUADS))
    return ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for q in quads], format=ox.RdfFormat.N_TRIPLES)


def _read(tmp_path, name: str, data: bytes, given: str):
    """``data`` read as the file ``name``: from a path, from an upload's bytes, or gzipped."""
    if given == "gz":
        name, data = f"{name}.gz", gzip.compress(data)
    if given == "bytes":
        return read_trace_file(name, data)
    path = tmp_path / name
    path.write_bytes(data)
    return read_trace_file(str(path))


@pytest.mark.parametrize("given", ["path", "bytes", "gz"])
@pytest.mark.parametrize("name", RDF_FILES + ["wire-triples.json", "orchestrated.nt"])
def test_a_byte_order_mark_at_the_start_reads_as_the_file_without_it(tmp_path, name, given):
    text = _n_triples() if name == "orchestrated.nt" else (CORPUS / name).read_bytes()
    (tmp_path / "plain").mkdir()
    plain = _read(tmp_path / "plain", name, text, given)
    marked = _read(tmp_path, name, BOM + text, given)
    expected = MANIFEST["orchestrated.nq"]["quads"] if name == "orchestrated.nt" else MANIFEST[name]["quads"]
    assert len(marked.quads) == len(plain.quads) == expected
    assert set(marked.quads) == set(plain.quads)
    assert marked.size == len(text) + 3  # the mark is read and counted, only not parsed


@pytest.mark.parametrize("given", ["path", "bytes", "gz"])
def test_a_content_file_with_a_byte_order_mark_gives_its_texts(tmp_path, given):
    text = (CORPUS / TEXTS).read_bytes()
    assert not text.startswith(BOM)
    marked = _read(tmp_path, TEXTS, BOM + text, given)
    assert marked.documents == read_trace_file(TEXTS, text).documents
    assert len(marked.documents) == 36


@pytest.mark.parametrize("name", ["broken.nq", "broken.ttl"])
def test_an_error_after_a_byte_order_mark_names_the_same_line(tmp_path, name):
    lines = (CORPUS / ("orchestrated.nq" if name.endswith(".nq") else "seed-sessions.ttl")).read_bytes().split(b"\n")
    lines[40] = b"<urn:x> <urn:p> this is not a term ."
    text = b"\n".join(lines)
    with pytest.raises(TraceLoadError) as plain:
        read_trace_file(name, text)
    with pytest.raises(TraceLoadError) as marked:
        read_trace_file(name, BOM + text)
    assert plain.value.line == marked.value.line == 41
    assert str(marked.value) == str(plain.value)


def test_a_byte_order_mark_after_the_start_is_still_refused_on_its_line():
    lines = (CORPUS / "orchestrated.nq").read_bytes().split(b"\n")
    lines[9] = BOM + lines[9]
    with pytest.raises(TraceLoadError) as raised:
        read_trace_file("late-mark.nq", BOM + b"\n".join(lines))
    assert raised.value.file == "late-mark.nq" and raised.value.line == 10


@pytest.fixture
def streamed(monkeypatch):
    """Every N-Quads and N-Triples file is read a batch of 100 lines at a time."""
    monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
    monkeypatch.setattr(rdf_stream, "BATCH", 100)


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_a_streamed_file_skips_the_mark_in_its_first_batch_only(tmp_path, streamed, suffix):
    text = (CORPUS / "orchestrated.nq").read_bytes()
    path = tmp_path / f"marked.nq{suffix}"
    path.write_bytes(gzip.compress(BOM + text) if suffix else BOM + text)
    file = stream_trace_file(str(path))
    assert file is not None and file.size == len(text) + 3
    batches = list(file.batches())
    assert len(batches) == 7  # 635 lines, 100 at a time
    assert batches[0].text == b"".join(text.splitlines(keepends=True)[:100])  # what the store loads itself
    assert set(q for b in batches for q in b.quads) == set(read_trace_file(str(CORPUS / "orchestrated.nq")).quads)


def test_a_streamed_error_after_a_byte_order_mark_names_the_line(tmp_path, streamed):
    lines = (CORPUS / "orchestrated.nq").read_bytes().split(b"\n")
    lines[349] = b"<urn:x> <urn:p> this is not a term ."
    path = tmp_path / "broken.nq"
    path.write_bytes(BOM + b"\n".join(lines))
    with pytest.raises(TraceLoadError) as raised:
        list(stream_trace_file(str(path)).batches())
    assert raised.value.line == 350


@pytest.mark.parametrize("read", ["whole", "streamed"])
def test_ingest_of_a_marked_file_fills_the_store_as_the_file_without_it(tmp_path, capsys, monkeypatch, read):
    if read == "streamed":
        monkeypatch.setattr(rdf_stream, "STREAM_BYTES", 0)
        monkeypatch.setattr(rdf_stream, "BATCH", 100)
    for name in ("orchestrated.nq", "collection.trig"):
        (tmp_path / name).write_bytes(BOM + (CORPUS / name).read_bytes())
    assert main(["ingest", str(tmp_path / "orchestrated.nq"), str(tmp_path / "collection.trig"),
                 "--store", str(tmp_path / "marked")]) == 0
    err = capsys.readouterr().err
    assert f"orchestrated.nq: {MANIFEST['orchestrated.nq']['quads']:,} quads, 0 texts (N-Quads)" in err
    assert f"collection.trig: {MANIFEST['collection.trig']['quads']:,} quads, 0 texts (TriG)" in err
    assert main(["ingest", str(CORPUS / "orchestrated.nq"), str(CORPUS / "collection.trig"),
                 "--store", str(tmp_path / "plain"), "--quiet"]) == 0
    marked, plain = local_source(tmp_path / "marked"), local_source(tmp_path / "plain")
    assert set(marked.store) == set(plain.store)
    sessions = len(MANIFEST["orchestrated.nq"]["sessions"]) + len(MANIFEST["collection.trig"]["sessions"])
    assert len(list(marked.index.rows())) == len(list(plain.index.rows())) == sessions


class _Trickle(io.RawIOBase):
    """``data`` given one byte a read, as a decompressor may give fewer bytes than asked."""

    def __init__(self, data: bytes):
        self.data = data

    def readable(self) -> bool:
        return True

    def read(self, size=-1) -> bytes:
        out, self.data = self.data[:1], self.data[1:]
        return out


def test_a_mark_given_a_byte_at_a_time_is_still_taken_off():
    stream = TextStream(lambda: _Trickle(BOM + b"<urn:a> <urn:b> <urn:c> .\n"))
    assert stream.buffered().read() == b"<urn:a> <urn:b> <urn:c> .\n"
    assert stream.size == 29 and not stream.blank


@pytest.mark.parametrize("name", ["only-a-mark.nq", "only-a-mark.ttl", "only-a-mark.documents.json"])
def test_a_file_of_only_a_byte_order_mark_is_empty(name):
    with pytest.raises(TraceLoadError) as raised:
        read_trace_file(name, BOM + b"\n")
    assert str(raised.value).endswith("; the file is empty")


def test_an_upload_with_a_byte_order_mark_is_saved_as_the_file_without_it(tmp_path):
    """The app's path: the bytes parsed in a worker process under the upload limits."""
    text = (CORPUS / "orchestrated.nq").read_bytes()
    with open_local_store(tmp_path / "store") as local:
        done = ingest_file(local, "orchestrated.nq", BOM + text, untrusted=True)
        assert done.quads == MANIFEST["orchestrated.nq"]["quads"] and done.size == len(text) + 3
        assert set(local.store) == set(ox.parse(text, format=ox.RdfFormat.N_QUADS))
