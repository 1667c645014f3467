"""Hostile files: each costs its sender one clear error line, in bounded memory and time, and
loses nothing loaded before. The files are made here, in tmp_path: triple terms nested 2,000,
5,000 and 100,000 deep (the last a 7 KB .ttl.gz), a billion-laughs RDF/XML under 1 KB, a
.json.gz of ``[[],[],…]`` that expands to 64 MiB, RDF/XML nested 20,000 and 100,000 deep.

Each is read twice: in a worker under a 500 MiB address-space cap and a 60 s deadline (a
worker that needed more would give the limit's message instead of the refusal asserted), and in
this process (as the command line reads a local file), whose peak resident memory is measured
from /proc (``VmHWM``, reset before each read).
"""

from __future__ import annotations

import gzip
import os
import signal
import threading
import time
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, MANIFEST
from tests.loopback_server import serve_in_thread
from trace_explorer.read.collection import TraceStore
from trace_explorer.read.errors import TraceLoadError
from trace_explorer.read.files import read_trace_file
from trace_explorer.read.json_stream import MAX_JSON_VALUES
from trace_explorer.read.prescan import MAX_JSON_DEPTH, MAX_TRIPLE_DEPTH, MAX_XML_DEPTH
from trace_explorer.read.worker import WorkerLimits, read_in_worker

MIB = 1024 * 1024
BOUNDED = WorkerLimits(memory=500 * MIB, cpu=60, wall=60)
TRIPLE_REFUSAL = (f"expected quoted triples and triple terms (<< >>, <<( )>>) nested at most {MAX_TRIPLE_DEPTH} deep; "
                  f"they nest deeper than {MAX_TRIPLE_DEPTH} here (a trace needs one or two; refused before parsing)")
XML_REFUSAL = (f"expected XML elements nested at most {MAX_XML_DEPTH} deep; they nest deeper than {MAX_XML_DEPTH} "
               "here (refused before parsing)")
DTD_REFUSAL = ("expected RDF/XML without DTD declarations; found '<!DOCTYPE'…: a DTD's entities expand without "
               "bound, so DTD declarations are refused before parsing")
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def nested_triple_terms(depth: int) -> bytes:
    """A Turtle file of one triple whose object nests triple terms ``depth`` deep (on line 2)."""
    return ("@prefix : <http://example.org/> .\n:s :p " + "<<( :a :b " * depth + ":c" + " )>>" * depth
            + " .\n").encode()


def billion_laughs() -> bytes:
    """Nine levels of tenfold entity expansion (10^9 "lol"s) in an RDF/XML file under 1 KB."""
    entities = '<!ENTITY lol "lol">\n' + "".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">\n' for i in range(1, 10))
    return (f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n{entities}]>\n<rdf:RDF xmlns:rdf="{RDF_NS}" '
            'xmlns:e="http://example.org/">\n<rdf:Description rdf:about="http://example.org/s">'
            "<e:p>&lol9;</e:p></rdf:Description>\n</rdf:RDF>\n").encode()


def nested_xml(depth: int) -> bytes:
    """RDF/XML whose node and property elements nest ``depth`` deep (each pair on its own line)."""
    return (f'<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="{RDF_NS}" xmlns:e="http://example.org/">\n'
            + "<rdf:Description><e:p>\n" * (depth // 2) + "</e:p></rdf:Description>" * (depth // 2)
            + "\n</rdf:RDF>\n").encode()


def empty_arrays(expanded: int) -> bytes:
    """``[[],[],…]`` of ``expanded`` bytes, gzip-compressed."""
    return gzip.compress(b"[" + b"[]," * ((expanded - 3) // 3) + b"[]]", 6)


def peak_rss_reset() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS


def peak_rss() -> int:
    """This process's peak resident memory since the last reset, in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc/self/status")


def refusal(name: str, data: bytes, *, in_worker: bool) -> str:
    """The one line a reader gives for the file; fails the test if it reads it."""
    with pytest.raises(TraceLoadError) as raised:
        if in_worker:
            read_in_worker(name, data, limits=BOUNDED)
        else:
            read_trace_file(name, data)
    return str(raised.value)


HOSTILE = [
    ("deep-100000.ttl.gz", lambda: gzip.compress(nested_triple_terms(100_000), 9), f"deep-100000.ttl.gz:2: {TRIPLE_REFUSAL}"),
    ("deep-5000.ttl", lambda: nested_triple_terms(5_000), f"deep-5000.ttl:2: {TRIPLE_REFUSAL}"),
    ("deep-2000.ttl", lambda: nested_triple_terms(2_000), f"deep-2000.ttl:2: {TRIPLE_REFUSAL}"),
    ("laughs.rdf", billion_laughs, f"laughs.rdf:2: {DTD_REFUSAL}"),
    ("arrays.json.gz", lambda: empty_arrays(64 * MIB),
     'arrays.json.gz: expected a TrustGraph wire triple ({"s", "p", "o", "g"?}) as item 0 of the array; '
     'it needs a triple object with "s", "p" and "o"'),
    ("deep-20000.rdf", lambda: nested_xml(20_000), f"deep-20000.rdf:{2 + MAX_XML_DEPTH // 2}: {XML_REFUSAL}"),
    ("deep-100000.rdf", lambda: nested_xml(100_000), f"deep-100000.rdf:{2 + MAX_XML_DEPTH // 2}: {XML_REFUSAL}"),
]


def test_the_hostile_files_are_what_they_claim():
    packed = gzip.compress(nested_triple_terms(100_000), 9)
    assert len(packed) < 8 * 1024 and gzip.decompress(packed).count(b"<<(") == 100_000
    assert len(billion_laughs()) < 1024 and billion_laughs().count(b"<!ENTITY") == 10
    arrays = empty_arrays(64 * MIB)
    assert len(arrays) < 100 * 1024 and len(gzip.decompress(arrays)) == 64 * MIB
    assert nested_xml(20_000).count(b"<rdf:Description>") == 10_000


@pytest.mark.parametrize("name,make,message", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_file_is_one_line_in_a_bounded_worker(name, make, message):
    assert refusal(name, make(), in_worker=True) == message


@pytest.mark.parametrize("name,make,message", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_hostile_file_read_in_this_process_is_refused_in_bounded_memory(name, make, message):
    data = make()
    peak_rss_reset()
    before = peak_rss()
    assert refusal(name, data, in_worker=False) == message
    assert peak_rss() - before < 500 * MIB


@pytest.mark.long
def test_json_values_are_capped_where_no_wire_triple_is_expected(tmp_path):
    held = gzip.compress(b'{"a": [' + b"[]," * (MAX_JSON_VALUES + 10) + b"[]]}")
    assert refusal("held.json.gz", held, in_worker=True) == (
        f"held.json.gz: expected JSON of at most {MAX_JSON_VALUES:,} values held at once; it holds more "
        "(refused as it was read)")
    # one value under the cap (the object, the outer array, its arrays) is read, and is no trace
    under = gzip.compress(b'{"a": [' + b"[]," * (MAX_JSON_VALUES - 4) + b"[]]}")
    assert refusal("under.json.gz", under, in_worker=True).startswith(
        'under.json.gz: expected a JSON array of TrustGraph wire triples ({"s", "p", "o", "g"?}), or an object '
        "mapping document IRIs to texts")
    deep = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert refusal("deep.json", deep, in_worker=False) == (
        f"deep.json: expected JSON arrays and objects nested at most {MAX_JSON_DEPTH} deep; they nest deeper "
        "(refused as it was read)")
    assert refusal("deep.jsonld", deep, in_worker=False) == (
        f"deep.jsonld:1: expected JSON arrays and objects nested at most {MAX_JSON_DEPTH} deep; they nest deeper "
        f"than {MAX_JSON_DEPTH} here (a trace needs a handful; refused before parsing)")


def test_what_a_trace_needs_still_reads():
    at_limit = read_trace_file("sixteen.ttl", nested_triple_terms(MAX_TRIPLE_DEPTH))
    term, depth = at_limit.quads[0].object, 0
    while hasattr(term, "object"):
        term, depth = term.object, depth + 1
    assert depth == MAX_TRIPLE_DEPTH and term.value == "http://example.org/c"
    # "<<" in literals and comments is text, not nesting (a merge conflict in a tool's output)
    conflict = read_trace_file("conflict.ttl", b'@prefix : <http://example.org/> .\n:s :p "' + b"<<<<<<< HEAD " * 40
                               + b'" .\n:s :q """\n' + b"<<" * 40 + b'\n""" . # <<<<<<<<<<<<<<<<<<<<<<<<\n')
    assert [q.object.value.count("<<") for q in conflict.quads] == [120, 40]
    # a DOCTYPE without an internal subset declares nothing
    plain = read_trace_file("plain.rdf", f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF>\n<!-- <!ENTITY x "y"> -->\n'
                            f'<rdf:RDF xmlns:rdf="{RDF_NS}" xmlns:e="http://example.org/"><rdf:Description '
                            'rdf:about="http://example.org/s"><e:p>x</e:p></rdf:Description></rdf:RDF>'.encode())
    assert [(q.subject.value, q.object.value) for q in plain.quads] == [("http://example.org/s", "x")]


def test_n_quads_lines_with_brackets_are_judged_and_the_rest_passed_over():
    """In N-Quads only the lines holding "<<" or ">>" are matched: those in a literal on such a
    line are text, and a line nesting past the limit is named, however many lines come before."""
    plain = b'<http://e.org/s> <http://e.org/p> "plain, with a \\" and a # in it" <http://e.org/g> .\n' * 3_000
    term = b"<<( <http://e.org/a> <http://e.org/b> <http://e.org/c> )>>"
    quoted = b'<http://e.org/s> <http://e.org/p> "<<<<<<< HEAD >>" <http://e.org/g> .\n'
    held = b"<http://e.org/s> <http://e.org/p> " + term + b' <http://e.org/g> . # << >> <<\n'
    loaded = read_trace_file("ok.nq", plain + quoted * 50 + held + plain)
    assert len(loaded.quads) == 2 * 3_000 + 51
    assert sum(q.object == ox.Literal("<<<<<<< HEAD >>") for q in loaded.quads) == 50
    assert sum(isinstance(q.object, ox.Triple) for q in loaded.quads) == 1
    deep = b"<<( " * (MAX_TRIPLE_DEPTH + 1)
    line = 2 * 3_000 + 50 + 2
    assert refusal("deep.nq", plain + quoted * 50 + held + plain + b"<http://e.org/s> <http://e.org/p> " + deep
                   + b"\n", in_worker=False) == f"deep.nq:{line}: {TRIPLE_REFUSAL}"


def test_a_file_over_the_workers_memory_is_one_line_and_the_next_file_reads():
    big = (CORPUS / "collection.trig").read_bytes() * 400  # 39 MB of TriG: far more than 100 MiB parsed
    with pytest.raises(TraceLoadError) as raised:
        read_in_worker("big.trig", big, limits=WorkerLimits(memory=100 * MIB, cpu=60, wall=60))
    assert str(raised.value) == ("big.trig: expected a file the parser can read within the limits on uploads; the "
                                 "parser stopped: it needed more than 100 MiB of memory (the limit set by "
                                 "TRACE_EXPLORER_WORKER_MB)")
    seed = read_in_worker("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes())
    assert len(seed.quads) == MANIFEST["seed-sessions.ttl"]["quads"]


def test_a_file_past_the_cpu_or_wall_limit_is_one_line():
    # 20 million brackets, side by side: each is a step of the JSON pre-scan (seconds of CPU), in 30 KB
    big = gzip.compress(b'{"@context": {}, "@graph": [' + b"[]," * 10_000_000 + b"[]]}")
    assert len(big) < 64 * 1024
    with pytest.raises(TraceLoadError) as raised:
        read_in_worker("slow.jsonld.gz", big, limits=WorkerLimits(memory=500 * MIB, cpu=1, wall=600))
    assert str(raised.value).endswith("the parser stopped: it needed more than 1 s of CPU time (the limit set by "
                                      "TRACE_EXPLORER_WORKER_CPU_S)")
    with pytest.raises(TraceLoadError) as raised:
        read_in_worker("slow.jsonld.gz", big, limits=WorkerLimits(memory=500 * MIB, cpu=600, wall=0.2))
    assert str(raised.value).endswith("the parser stopped: it ran past the deadline of 0.2 s (the limit set by "
                                      "TRACE_EXPLORER_WORKER_WALL_S)")


def test_the_worker_gives_the_same_file_as_this_process():
    for name in ("collection.trig", "wire-triples.json", "collection.documents.json", "orchestrated.nq"):
        data = (CORPUS / name).read_bytes()
        here, there = read_trace_file(name, data), read_in_worker(name, data)
        assert (there.quads, there.documents, there.digest, there.size, there.format, there.recovered) == \
               (here.quads, here.documents, here.digest, here.size, here.format, here.recovered)


def test_after_a_hostile_file_a_good_file_loads_and_the_earlier_ones_stay():
    collection = TraceStore()
    collection.add(read_in_worker("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes()))
    before = len(collection)
    for name, make, message in HOSTILE:
        with pytest.raises(TraceLoadError, match="^" + name):
            collection.add(read_in_worker(name, make(), limits=BOUNDED))
        assert len(collection) == before
    good = read_in_worker("graph-dump.ttl", (CORPUS / "graph-dump.ttl").read_bytes())
    collection.add(good)
    assert len(good.quads) == MANIFEST["graph-dump.ttl"]["quads"]
    assert len(collection) == len(set(collection.store)) > before
    assert [s.name for s in collection.sources] == ["seed-sessions.ttl", "graph-dump.ttl"]


def test_an_upload_saved_into_a_store_is_read_in_the_worker_and_a_hostile_one_adds_nothing(tmp_path):
    from trace_explorer.store.ingest import ingest_file
    from trace_explorer.store.local_store import open_local_store

    with open_local_store(tmp_path / "store") as store:
        done = ingest_file(store, "seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes(), untrusted=True)
        assert done.quads == MANIFEST["seed-sessions.ttl"]["quads"]
        for name, make, message in HOSTILE[:1] + HOSTILE[3:4]:  # deep triple terms, billion laughs
            with pytest.raises(TraceLoadError) as raised:
                ingest_file(store, name, make(), untrusted=True)
            assert str(raised.value) == message
        assert len(store.writer_source().store) == MANIFEST["seed-sessions.ttl"]["quads"]


def test_limits_belong_to_uploads_and_a_local_file_needs_no_variable(monkeypatch, tmp_path):
    from trace_explorer.cli.main import main
    from trace_explorer.store.local_store import local_source

    monkeypatch.setenv("TRACE_EXPLORER_MAX_FILE_MB", "0.01")  # 10 KiB
    monkeypatch.setenv("TRACE_EXPLORER_MAX_EXPANDED_MB", "0.01")
    seed = CORPUS / "seed-sessions.ttl"  # 14.5 KiB
    with pytest.raises(TraceLoadError, match=r"^seed-sessions\.ttl: expected a file of at most 10\.2 KiB"):
        read_in_worker("seed-sessions.ttl", seed.read_bytes())  # an upload obeys the limits
    assert main(["ingest", str(seed), "--store", str(tmp_path / "store"), "--quiet"]) == 0  # the CLI does not
    assert len(local_source(tmp_path / "store").store) == MANIFEST["seed-sessions.ttl"]["quads"]
    collection = TraceStore()
    assert collection.add_paths([seed]) == [] and len(collection) == MANIFEST["seed-sessions.ttl"]["quads"]


def test_an_endpoint_answer_nesting_triple_terms_deeply_is_refused_before_parsing():
    """A fetched answer gets the pre-scan too: 100,000 nested triple terms crashed the parser."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from trace_explorer.sources.endpoint import EndpointSource
    from trace_explorer.sources.source import SourceError

    deep = ("<http://example.org/s> <http://example.org/p> " + "<<( <http://example.org/a> <http://example.org/b> "
            * 100_000 + "<http://example.org/c>" + " )>>" * 100_000 + " .\n").encode()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "application/n-triples")
            self.send_header("Content-Length", str(len(deep)))
            self.end_headers()
            self.wfile.write(deep)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serve_in_thread(server)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/sparql"
        with pytest.raises(SourceError) as raised:
            EndpointSource(url).construct("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")
    finally:
        server.shutdown()
    assert str(raised.value) == (f"endpoint {url}: unreadable answer ({TRIPLE_REFUSAL.removeprefix('expected ')})")


@pytest.mark.long
def test_a_piece_too_long_to_judge_is_refused_in_xml_and_left_to_the_turtle_parser():
    """A 33 MiB XML comment does not hide the billion laughs after it, and one that never ends
    is refused past 32 MiB; a Turtle token that long the parser refuses itself (its buffer holds
    16 MiB), naming the line."""
    hidden = gzip.compress(b'<?xml version="1.0"?>\n<!-- ' + b"x" * (33 * MIB) + b" -->\n" + billion_laughs()[22:])
    assert refusal("hidden.rdf.gz", hidden, in_worker=True) == f"hidden.rdf.gz:3: {DTD_REFUSAL}"
    endless = gzip.compress(b'<?xml version="1.0"?>\n<!-- ' + b"x" * (40 * MIB))
    assert refusal("endless.rdf.gz", endless, in_worker=True) == (
        "endless.rdf.gz:2: expected no single tag, comment or string longer than 32 MiB; one runs on for longer "
        "from here (refused before parsing)")
    long_comment = gzip.compress(b"<urn:a> <urn:b> <urn:c> .\n#" + b"x" * (33 * MIB) + b"\n<urn:a> <urn:b> <urn:d> .\n")
    assert refusal("long.nt.gz", long_comment, in_worker=True).startswith(
        "long.nt.gz:2: expected valid N-Triples, each token (an IRI, a literal, a comment) under 16 MiB")


def test_wire_triple_terms_nested_past_the_limit_are_refused():
    from trace_explorer.read.wire import MAX_WIRE_DEPTH

    def nested(depth: int) -> dict:
        term = {"t": "i", "i": "http://example.org/c"}
        for _ in range(depth):
            term = {"t": "t", "tr": {"s": {"t": "i", "i": "http://example.org/a"},
                                     "p": {"t": "i", "i": "http://example.org/b"}, "o": term}}
        return {"s": {"t": "i", "i": "http://example.org/s"}, "p": {"t": "i", "i": "http://example.org/p"}, "o": term}

    import json
    assert len(read_trace_file("ok.json", json.dumps([nested(MAX_WIRE_DEPTH)]).encode()).quads) == 1
    assert refusal("deep.json", json.dumps([nested(MAX_WIRE_DEPTH + 1)]).encode(), in_worker=False) == (
        'deep.json: expected a TrustGraph wire triple ({"s", "p", "o", "g"?}) as item 0 of the array; it needs '
        f"triple terms nested at most {MAX_WIRE_DEPTH} deep")


def _worker_pids() -> list[int]:
    """The pids of this process's parse workers: the children of its fork server."""
    def children(pid: int) -> list[int]:
        found = []
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
        return found

    servers = [c for c in children(os.getpid())
               if b"forkserver" in Path(f"/proc/{c}/cmdline").read_bytes()]
    return [w for s in servers for w in children(s)]


def test_a_parser_that_crashes_costs_its_file_one_line_and_the_next_file_reads():
    """A worker killed by a segmentation fault mid-parse (as pyoxigraph did on deep nesting)."""
    read_in_worker("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes())  # the pool is up
    slow = gzip.compress(b'{"@context": {}, "@graph": [' + b"[]," * 10_000_000 + b"[]]}")
    outcome: list = []

    def parse() -> None:
        try:
            read_in_worker("crash.jsonld.gz", slow, limits=WorkerLimits(memory=500 * MIB, cpu=600, wall=600))
        except TraceLoadError as error:
            outcome.append(str(error))

    before = {pid: _cpu_ticks(pid) for pid in _worker_pids()}  # earlier files' CPU time
    thread = threading.Thread(target=parse)
    thread.start()
    busy: list[int] = []
    for _ in range(200):  # the worker that took the file is the one using CPU now
        busy = [p for p in _worker_pids() if _cpu_ticks(p) - before.get(p, 0) > 20]
        if busy:
            break
        time.sleep(0.05)
    assert busy, "no worker took the file"
    for pid in busy:
        os.kill(pid, signal.SIGSEGV)
    thread.join(60)
    assert outcome == ["crash.jsonld.gz: expected a file the parser can read within the limits on uploads; the "
                       "parser stopped: the parser crashed on it (a segmentation fault)"]
    seed = read_in_worker("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes())
    assert len(seed.quads) == MANIFEST["seed-sessions.ttl"]["quads"]


def _cpu_ticks(pid: int) -> int:
    """User and system clock ticks the process has used so far (/proc/PID/stat)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def test_deep_nesting_after_a_long_line_without_white_space_is_still_found():
    """35 MiB of triples on one line with no white space, then the deep triple term: the
    pre-scan judges the line as it comes, rather than waiting for a line end or a space."""
    flat = b"<urn:a><urn:b><urn:c>." * 1_700_000
    deep = b"<urn:s><urn:p>" + b"<<(<urn:a><urn:b>" * 100 + b"<urn:c>" + b")>>" * 100 + b".\n"
    assert refusal("flat.nt.gz", gzip.compress(flat + deep), in_worker=True) == f"flat.nt.gz:1: {TRIPLE_REFUSAL}"
