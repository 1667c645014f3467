"""Property-based tests: the readers see generated and mutated input and only ever return a
result or raise the project's own TraceLoadError, whose place lies inside the file; what they
return is stable (the same bytes, the same quads), round-trips through N-Quads, is what its
bytes say (its digest and size) and reads as sessions made of its own subjects. N-Quads cut at
any line keep exactly the quads of the lines kept; wire triples come back one quad each; a
damaged quoted-triple literal comes back as the triple it spells; literal text of brackets,
quotes, comment marks and markup never trips the pre-scan that refuses deep nesting and DTDs."""

from __future__ import annotations

import gzip
import hashlib
import json
import re

import pyoxigraph as ox
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.conftest import CORPUS
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import TraceStore
from trace_explorer.read.errors import TraceLoadError
from trace_explorer.read.files import read_trace_file
from trace_explorer.read.quoted_triples import triple_from_literal

SAMPLES = {name: (CORPUS / name).read_bytes()[:6000] for name in
           ("seed-sessions.ttl", "collection.trig", "orchestrated.nq", "wire-triples.json", "graph-dump.ttl")}
NAMES = st.sampled_from(["x.ttl", "x.trig", "x.nq", "x.nt", "x.jsonld", "x.rdf", "x.json", "x.documents.json",
                         "x.ttl.gz", "x.n3"])
# a line ends at LF, CR or CR LF, as the RDF text grammars say (EOL ::= [#xD#xA]+) and the parsers count
LINE_END = re.compile(rb"\r\n|\r|\n")
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _text(name: str, data: bytes) -> bytes | None:
    """The text a reader parses: ``data``, or its decompression (None when it is no gzip)."""
    if not name.endswith(".gz"):
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError, ValueError):
        return None


def read_or_refuse(name: str, data: bytes):
    """Read ``data`` as file ``name``; check what came back (or the refusal); return it or None."""
    text = _text(name, data)
    try:
        loaded = read_trace_file(name, data, max_bytes=1_000_000)
    except TraceLoadError as error:
        assert error.file == name and error.expected and str(error).startswith(f"{name}")
        if error.line is not None:  # the place named lies inside the file
            assert text is not None and 1 <= error.line <= len(LINE_END.findall(text)) + 1
            assert error.column is None or error.column >= 1
        return None
    assert text is not None and loaded.size == len(text) and loaded.digest == hashlib.sha256(text).hexdigest()
    again = read_trace_file(name, data, max_bytes=1_000_000)
    assert again.quads == loaded.quads and again.documents == loaded.documents  # stable, blank nodes too
    assert all(isinstance(q, ox.Quad) for q in loaded.quads)
    assert set(ox.parse(ox.serialize(loaded.quads, format=ox.RdfFormat.N_QUADS), format=ox.RdfFormat.N_QUADS)) \
        == set(loaded.quads)
    collection = TraceStore()
    collection.add(loaded)
    subjects = {q.subject.value for q in loaded.quads if isinstance(q.subject, ox.NamedNode)}
    for session in read_sessions(collection):  # never raises on odd data
        assert session.id in subjects
        assert {step.id for step in session.steps} <= subjects
    return loaded


@FAST
@given(name=NAMES, data=st.binary(max_size=2000))
@example(name="x.ttl", data=b"\r\x01")  # a lone CR ends a line (it was once counted as none)
def test_random_bytes(name, data):
    read_or_refuse(name, data)


def test_a_lone_cr_ends_a_line_for_the_parser_and_for_our_own_messages():
    """Turtle's EOL is [#xD#xA]+: pyoxigraph puts the byte after a lone CR on line 2, and so do the
    messages this reader words itself (a byte that is not UTF-8, binary data)."""
    cases = {"x.ttl": (b"\r\x01", 2), "y.ttl": (b'<urn:a> <urn:b> "x" .\r<urn:a> <urn:b> "\xe9" .\r\n', 2),
             "z.ttl": (b'\r\n\r\n<urn:a> <urn:b> "\xe9" .', 3), "w.ttl": (b"\r\r\n\x00", 3)}
    for name, (data, line) in cases.items():
        try:
            read_trace_file(name, data)
        except TraceLoadError as error:
            assert error.line == line, error
            continue
        raise AssertionError(f"{name} was read")


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(SAMPLES)))
    data = bytearray(SAMPLES[name])
    for _ in range(draw(st.integers(1, 6))):
        position = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["flip", "cut", "insert", "delete"]))
        if action == "flip" and position < len(data):
            data[position] = draw(st.integers(0, 255))
        elif action == "cut":
            del data[position:]
        elif action == "insert":
            data[position:position] = draw(st.sampled_from([b"<", b">", b'"', b"<<", b">>", b"{", b"}", b"\x00",
                                                             b"\xff", b"\n", b"@prefix", b"\\", b"'t': 't'"]))
        elif position < len(data):
            del data[position:position + draw(st.integers(1, 50))]
    return name, bytes(data)


@FAST
@given(mutated())
def test_mutated_corpus_files(case):
    read_or_refuse(*case)


NQUAD_LINES = (CORPUS / "orchestrated.nq").read_bytes().splitlines(keepends=True)
LINE_QUADS = [set(ox.parse(line, format=ox.RdfFormat.N_QUADS)) for line in NQUAD_LINES]


@FAST
@given(st.lists(st.integers(0, len(NQUAD_LINES) - 1), unique=True, max_size=80))
def test_n_quads_keep_exactly_the_quads_of_the_lines_kept(kept):
    loaded = read_or_refuse("kept.nq", b"".join(NQUAD_LINES[i] for i in sorted(kept)))
    if not kept:
        assert loaded is None  # an empty file is refused as such
        return
    assert set(loaded.quads) == set().union(*(LINE_QUADS[i] for i in kept))


wire_terms = st.recursive(
    st.fixed_dictionaries({"t": st.sampled_from(["i", "l", "b", "x", None]),
                           "i": st.one_of(st.text(max_size=20), st.just("urn:a"), st.integers()),
                           "v": st.one_of(st.text(max_size=20), st.integers()), "d": st.text(max_size=5)}),
    lambda inner: st.fixed_dictionaries({"t": st.sampled_from(["t", "r"]),
                                         "tr": st.fixed_dictionaries({"s": inner, "p": inner, "o": inner}),
                                         "r": st.fixed_dictionaries({"s": inner, "p": inner, "o": inner})}),
    max_leaves=6)


# fewer examples than the others: Hypothesis takes about 80 ms to draw one of these nested
# terms, the reading about a millisecond
@settings(FAST, max_examples=50)
@given(st.lists(st.fixed_dictionaries({"s": wire_terms, "p": wire_terms, "o": wire_terms,
                                       "g": st.one_of(st.none(), st.text(max_size=10), st.just("urn:g"))}),
                max_size=5))
def test_generated_wire_json(triples):
    loaded = read_or_refuse("wire.json", json.dumps(triples).encode())
    if loaded is not None:  # all or nothing: one quad per wire triple, in its graph
        assert len(loaded.quads) == len(triples)
        for quad, triple in zip(loaded.quads, triples):
            graph = triple["g"]
            assert quad.graph_name == (ox.NamedNode(graph) if graph else ox.DefaultGraph())


IRI_PART = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)


@FAST
@given(IRI_PART, IRI_PART, st.one_of(IRI_PART.map(lambda t: ("iri", t)),
                                     st.text(alphabet="abc xyz,.", min_size=1, max_size=20).map(lambda t: ("literal", t))))
def test_a_damaged_quoted_triple_comes_back_as_the_triple_it_spells(s, p, o):
    kind, value = o
    obj = ox.NamedNode(f"urn:o:{value}") if kind == "iri" else ox.Literal(value.strip())
    spelled = f"<urn:o:{value}>" if kind == "iri" else f'"{value.strip()}"'
    expected = ox.Triple(ox.NamedNode(f"urn:s:{s}"), ox.NamedNode(f"http://p/{p}"), obj)
    assert triple_from_literal(f"<<<urn:s:{s}> <http://p/{p}> {spelled}>>") == expected
    wire = {"t": "t", "tr": {"s": {"t": "i", "i": f"urn:s:{s}"}, "p": {"t": "i", "i": f"http://p/{p}"},
                             "o": {"t": "i", "i": obj.value} if kind == "iri" else {"t": "l", "v": obj.value}}}
    assert triple_from_literal(repr(wire)) == expected == triple_from_literal(json.dumps(wire))


@FAST
@given(st.text(max_size=300))
def test_damaged_literal_recovery_never_raises(text):
    result = triple_from_literal(text)
    assert result is None or result.__class__.__name__ == "Triple"
    triple_from_literal("<<" + text + ">>")
    triple_from_literal("{'t': 't', 'tr': " + text + "}")


PRE_SCANNED = {".ttl": ox.RdfFormat.TURTLE, ".nt": ox.RdfFormat.N_TRIPLES, ".trig": ox.RdfFormat.TRIG,
               ".nq": ox.RdfFormat.N_QUADS, ".rdf": ox.RdfFormat.RDF_XML, ".jsonld": ox.RdfFormat.JSON_LD}
TRICKY_TEXT = st.lists(st.sampled_from(list("<>\"'#\\\n\r\t {}()|[]!-?]&;é\u2028") + [
    "<<", ">>", "<<(", ")>>", '"""', "'''", "<!--", "<!DOCTYPE", "<!ENTITY", "]]>"]), max_size=60).map("".join)


@FAST
@given(text=TRICKY_TEXT, depth=st.integers(0, 16), suffix=st.sampled_from(sorted(PRE_SCANNED)))
def test_literal_text_never_looks_like_nesting_to_the_pre_scan(text, depth, suffix):
    """Whatever a literal says (brackets, quotes, comment marks, markup), a file written by
    pyoxigraph with triple terms up to the limit reads back whole: the pre-scan passes over strings."""
    fmt = PRE_SCANNED[suffix]
    term = ox.Literal(text)
    if fmt in (ox.RdfFormat.RDF_XML, ox.RdfFormat.JSON_LD):
        depth = 0  # these writers have no triple terms
    for _ in range(depth):
        term = ox.Triple(ox.NamedNode("urn:a"), ox.NamedNode("urn:b"), term)
    quad = ox.Quad(ox.NamedNode("urn:s"), ox.NamedNode("urn:p"), term, ox.DefaultGraph())
    try:
        data = ox.serialize([quad], format=fmt)
    except (ValueError, SyntaxError):
        return  # text this format cannot hold (RDF/XML and control characters)
    loaded = read_trace_file("x" + suffix, data)
    assert loaded.quads == [quad]


@FAST
@given(text=TRICKY_TEXT)
def test_rdflibs_long_strings_pass_the_pre_scan(text):
    """rdflib writes text with a line end as a long string (\"\"\"…\"\"\"), which the pre-scan follows
    across lines."""
    import rdflib

    graph = rdflib.Graph()
    graph.add((rdflib.URIRef("urn:s"), rdflib.URIRef("urn:p"), rdflib.Literal(text)))
    data = graph.serialize(format="turtle").encode()
    assert [q.object.value for q in read_trace_file("x.ttl", data).quads] == [text]
