"""RDF files are streamed into the parser (a ``.gz`` decompressed on the way): what comes out is
what reading the whole text gave, and a token too long to hold, a bad byte deep in the file, a
cut-short ``.gz`` or a missing file each get an error naming the file and the place. Memory is
measured in ``benchmarks/huge_token.py`` (a 400 MiB comment line), not here."""

from __future__ import annotations

import gzip
import hashlib

import pytest

from tests.conftest import CORPUS, MANIFEST
from trace_explorer.read.errors import TraceLoadError
from trace_explorer.read.files import read_trace_file

MIB = 1024 * 1024


def _comment_file(mib: int) -> bytes:
    """A ``.ttl.gz``: a triple, a comment line of ``mib`` MiB (line 3), a triple."""
    return gzip.compress(b"@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\n# " + b"x" * (mib * MIB)
                        + b"\nex:d ex:e ex:f .\n", compresslevel=1)


@pytest.mark.parametrize("given", ["path", "bytes"])
def test_a_token_longer_than_the_parser_holds_is_an_error_naming_file_and_line(tmp_path, given):
    data = _comment_file(20)
    path = tmp_path / "huge-comment.ttl.gz"
    path.write_bytes(data)
    with pytest.raises(TraceLoadError) as raised:
        read_trace_file(str(path)) if given == "path" else read_trace_file(path.name, data)
    error = raised.value
    assert error.file.endswith("huge-comment.ttl.gz") and error.line == 3
    assert str(error) == (f"{error.file}:3: expected valid Turtle, each token (an IRI, a literal, a comment) under "
                          "16 MiB; a single token runs on for more than 16 MiB through this line, more than the parser "
                          "holds at once: is this really a trace file?")


def test_a_long_line_under_the_parsers_buffer_still_reads():
    data = gzip.compress(b"<urn:a> <urn:b> <urn:c> .\n# " + b"y" * (4 * MIB) + b"\n<urn:d> <urn:e> \"f\" .\n")
    loaded = read_trace_file("long-comment.nt.gz", data)
    assert sorted(q.subject.value for q in loaded.quads) == ["urn:a", "urn:d"]


@pytest.mark.parametrize("name", ["collection.trig", "orchestrated.nq", "seed-sessions.ttl", "graph-dump.ttl"])
def test_streamed_gz_and_plain_reads_give_the_same_quads_and_digest(tmp_path, name):
    text = (CORPUS / name).read_bytes()
    packed = tmp_path / f"{name}.gz"
    packed.write_bytes(gzip.compress(text))
    seen: list[int] = []
    plain, from_path, from_bytes = (read_trace_file(str(CORPUS / name), progress=seen.append),
                                    read_trace_file(str(packed)), read_trace_file(packed.name, packed.read_bytes()))
    assert len(plain.quads) == MANIFEST[name]["quads"]
    assert set(plain.quads) == set(from_path.quads) == set(from_bytes.quads)
    # the digest is of the text, wherever it came from: a store skips the same text sent packed
    assert plain.digest == from_path.digest == from_bytes.digest == hashlib.sha256(text).hexdigest()
    assert plain.size == from_path.size == len(text) and sum(seen) == len(text)


def test_a_bad_byte_deep_in_a_gz_is_placed_exactly(tmp_path):
    lines = [f"<urn:s{n}> <urn:p> \"value {n}\" .".encode() for n in range(20_000)]  # past many read chunks
    lines[15_000] = "<urn:s15000> <urn:p> \"caf\xe9\" .".encode("latin-1")
    with pytest.raises(TraceLoadError) as raised:
        read_trace_file("deep.nt.gz", gzip.compress(b"\n".join(lines) + b"\n"))
    assert str(raised.value) == ("deep.nt.gz:15001:26: expected N-Triples text in UTF-8; the byte 0xE9 is not UTF-8 "
                                 "(is the file in another encoding, such as Latin-1?)")


def test_a_cut_short_gz_is_a_decompression_error():
    data = gzip.compress((CORPUS / "orchestrated.nq").read_bytes())
    with pytest.raises(TraceLoadError) as raised:
        read_trace_file("cut.nq.gz", data[: len(data) // 2])
    assert str(raised.value) == ("cut.nq.gz: expected gzip data (the name ends in .gz); the decompressor says: "
                                 "Compressed file ended before the end-of-stream marker was reached")


def test_a_missing_file_is_said_to_be_missing(tmp_path):
    missing = tmp_path / "nowhere" / "corpus"
    with pytest.raises(TraceLoadError) as raised:
        read_trace_file(str(missing))
    assert str(raised.value) == f"{missing}: expected a trace file or a folder of them; there is no such file or folder"
