"""Reading files: every format, quoted triples in all four spellings, content files, bad input."""

from __future__ import annotations

import gzip
import json

import pyoxigraph as ox
import pytest

from trace_explorer.errors import TraceLoadError
from trace_explorer.loading import read_trace_file
from trace_explorer.quoted_triples import triple_from_literal
from trace_explorer.sessions import read_sessions
from trace_explorer.store import TraceStore, load_collection
from tests.conftest import CORPUS, MANIFEST, TRACE_FILES, corpus_paths, manifest_sessions

EDGE = "https://trustgraph.ai/ns/edge"
FRANCE = ox.NamedNode("http://trustgraph.ai/e/france")
SEE_ALSO = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#seeAlso")
CAPITAL = ox.NamedNode("http://trustgraph.ai/e/capital-city")
EXPECTED_TRIPLE = ox.Triple(FRANCE, SEE_ALSO, CAPITAL)


@pytest.mark.parametrize("name", TRACE_FILES)
def test_every_corpus_file_loads_with_the_manifest_quad_count(name):
    loaded = read_trace_file(str(CORPUS / name))
    assert len(loaded.quads) == MANIFEST[name]["quads"]


def test_named_graphs_are_kept():
    collection, _ = load_collection(corpus_paths("orchestrated.nq"))
    graphs = {q.graph_name for q in collection.store}
    assert {ox.NamedNode("urn:graph:retrieval"), ox.NamedNode("urn:graph:source")} <= graphs
    assert ox.DefaultGraph() in graphs


@pytest.mark.parametrize("suffix,fmt", [
    (".nt", ox.RdfFormat.N_TRIPLES), (".jsonld", ox.RdfFormat.JSON_LD), (".rdf", ox.RdfFormat.RDF_XML),
    (".ttl", ox.RdfFormat.TURTLE), (".trig", ox.RdfFormat.TRIG), (".nq", ox.RdfFormat.N_QUADS),
])
def test_seed_sessions_read_the_same_in_every_rdf_format(tmp_path, suffix, fmt):
    source = read_trace_file(str(CORPUS / "seed-sessions.ttl"))
    target = tmp_path / f"seed{suffix}"
    target.write_bytes(ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for q in source.quads]
                                    if fmt in (ox.RdfFormat.N_TRIPLES, ox.RdfFormat.RDF_XML, ox.RdfFormat.TURTLE)
                                    else source.quads, format=fmt))
    collection, errors = load_collection([target])
    assert errors == []
    sessions = {s.id: s for s in read_sessions(collection)}
    for expected in manifest_sessions("seed-sessions.ttl"):
        session = sessions[expected["session"]]
        assert session.question == expected["question"]
        assert session.actions == expected.get("actions", [])
        assert session.answer == expected["answer"]


def test_gzip_and_several_files_merge_into_one_collection(tmp_path):
    packed = tmp_path / "collection.trig.gz"
    packed.write_bytes(gzip.compress((CORPUS / "collection.trig").read_bytes()))
    collection, errors = load_collection([packed, CORPUS / "collection.documents.json", CORPUS / "wire-triples.json"])
    assert errors == []
    ids = {s.id for s in read_sessions(collection)}
    assert ids == {s["session"] for s in manifest_sessions("collection.trig") + manifest_sessions("wire-triples.json")}


def _edge_objects(collection: TraceStore) -> list:
    return [q.object for q in collection.store.quads_for_pattern(None, ox.NamedNode(EDGE), None)]


@pytest.mark.parametrize("spelling", [
    # 1. RDF-star Turtle (an RDF 1.2 parser reads a reifier blank node)
    ("edge.ttl", '<urn:e:0> <https://trustgraph.ai/ns/edge> << <http://trustgraph.ai/e/france> '
                 '<http://www.w3.org/2000/01/rdf-schema#seeAlso> <http://trustgraph.ai/e/capital-city> >> .'),
    # 2. RDF 1.2 triple term
    ("edge.nt", '<urn:e:0> <https://trustgraph.ai/ns/edge> <<( <http://trustgraph.ai/e/france> '
                '<http://www.w3.org/2000/01/rdf-schema#seeAlso> <http://trustgraph.ai/e/capital-city> )>> .'),
    # 3. TrustGraph wire JSON
    ("edge.json", json.dumps([{"s": {"t": "i", "i": "urn:e:0"}, "p": {"t": "i", "i": EDGE}, "o": {"t": "t", "tr": {
        "s": {"t": "i", "i": FRANCE.value}, "p": {"t": "i", "i": SEE_ALSO.value}, "o": {"t": "i", "i": CAPITAL.value}}}}])),
    ("edge-r.json", json.dumps([{"s": {"t": "i", "i": "urn:e:0"}, "p": {"t": "i", "i": EDGE}, "o": {"t": "r", "r": {
        "s": {"t": "i", "i": FRANCE.value}, "p": {"t": "i", "i": SEE_ALSO.value}, "o": {"t": "i", "i": CAPITAL.value}}}}])),
    # 4. damaged string literals
    ("edge-angle.ttl", '<urn:e:0> <https://trustgraph.ai/ns/edge> "<<http://trustgraph.ai/e/france '
                       'http://www.w3.org/2000/01/rdf-schema#seeAlso http://trustgraph.ai/e/capital-city>>" .'),
    ("edge-repr.ttl", '<urn:e:0> <https://trustgraph.ai/ns/edge> "{\'t\': \'t\', \'tr\': {\'s\': {\'t\': \'i\', '
                      '\'i\': \'http://trustgraph.ai/e/france\'}, \'p\': {\'t\': \'i\', \'i\': '
                      '\'http://www.w3.org/2000/01/rdf-schema#seeAlso\'}, \'o\': {\'t\': \'i\', '
                      '\'i\': \'http://trustgraph.ai/e/capital-city\'}}}" .'),
], ids=lambda s: s[0])
def test_every_quoted_triple_spelling_becomes_the_same_triple_term(spelling):
    name, text = spelling
    collection = TraceStore()
    collection.add_file(name, text.encode())
    assert _edge_objects(collection) == [EXPECTED_TRIPLE]
    assert len(collection) == 1  # the reifier's rdf:reifies quad is folded away


def test_damaged_literal_that_does_not_parse_stays_a_literal():
    collection = TraceStore()
    collection.add_file("edge.ttl", b'<urn:e:0> <https://trustgraph.ai/ns/edge> "<<not a triple>>" .')
    assert _edge_objects(collection) == [ox.Literal("<<not a triple>>")]
    assert triple_from_literal("{'t': 't', 'tr': {'s': 1}}") is None
    assert triple_from_literal("__import__('os').system('true')") is None


def test_damaged_literal_object_may_be_a_literal_with_spaces():
    triple = triple_from_literal("<<http://a/x http://a/p fact 1 about capital city>>")
    assert triple == ox.Triple(ox.NamedNode("http://a/x"), ox.NamedNode("http://a/p"),
                               ox.Literal("fact 1 about capital city"))


def test_graph_dump_edges_come_back_as_triple_terms():
    """Fault 6: a whole-collection Turtle dump turned quoted triples into string literals."""
    collection, _ = load_collection([CORPUS / "graph-dump.ttl"])
    objects = _edge_objects(collection)
    assert objects and all(isinstance(o, ox.Triple) for o in objects)
    contains = list(collection.store.quads_for_pattern(None, ox.NamedNode("https://trustgraph.ai/ns/contains"), None))
    assert contains and all(isinstance(q.object, ox.Triple) for q in contains)
    assert collection.sources[0].recovered == len(objects) + len(contains)


def test_content_file_supplies_the_words_behind_document_references():
    documents = json.loads((CORPUS / "collection.documents.json").read_text(encoding="utf-8"))
    with_text, _ = load_collection(corpus_paths("collection.trig"))
    without_text, _ = load_collection([CORPUS / "collection.trig"])
    iri = "urn:trustgraph:agent:6b0a18e8-830e-47bc-9e39-8f1012bd4ace"
    session = {s.id: s for s in read_sessions(with_text)}[iri]
    bare = {s.id: s for s in read_sessions(without_text)}[iri]
    first = session.steps_of("Analysis")[0]
    thought_document = session.nodes[first.fields["thought_id"]].fields["document"]
    assert first.fields["thought"] == documents[thought_document]
    assert session.answer == documents[session.nodes[session.answer_id].fields["document"]]
    assert "thought" not in bare.steps_of("Analysis")[0].fields and bare.answer is None and bare.has_answer


@pytest.mark.parametrize("name,data,line,column,expected", [
    ("truncated.ttl", b'<urn:a> <urn:b> "unterminated', 1, 17, "end of file"),
    ("two.ttl", b"<urn:a> <urn:b> <urn:c> .\n<urn:a> <urn:b> .\n", 2, 17, "not a valid RDF object"),
    ("bad.json", b'[{"s": 1]', 1, 9, "JSON"),
    ("notwire.json", b'[{"s": {"t": "i", "i": "urn:a"}, "p": {"t": "x"}, "o": {"t": "l", "v": "1"}}]', None, None, "item 0"),
    ("latin1.json", b'["caf\xe9"]', 1, 6, "UTF-8"),
    ("empty.trig.gz", b"not gzip", None, None, "gzip"),
    ("notes.txt", b"hello", None, None, "file name ending"),
])
def test_bad_file_gives_one_clear_error_and_adds_nothing(name, data, line, column, expected):
    collection, _ = load_collection(corpus_paths("seed-sessions.ttl"))
    before = len(collection)
    with pytest.raises(TraceLoadError) as raised:
        collection.add_file(name, data)
    error = raised.value
    assert error.file == name and expected in error.expected
    assert error.line == line
    if column is not None:
        assert error.column == column
    assert str(error).startswith(name + (f":{line}" if line else ""))
    assert len(collection) == before and len(collection.sources) == 1
    assert len(read_sessions(collection)) == len(manifest_sessions("seed-sessions.ttl"))


def test_gzip_bomb_is_refused():
    with pytest.raises(TraceLoadError, match="when expanded"):
        read_trace_file("big.ttl.gz", gzip.compress(b" " * 10_000), max_bytes=1_000)


def test_wire_triple_with_a_bad_graph_iri_is_a_load_error():
    data = json.dumps([{"s": {"t": "i", "i": "urn:a"}, "p": {"t": "i", "i": "urn:a"}, "o": {"t": "l", "v": ""}, "g": "0"}])
    with pytest.raises(TraceLoadError, match='item 0: expected a graph IRI in "g"'):
        read_trace_file("wire.json", data.encode())


def test_a_json_object_that_is_neither_wire_triples_nor_content_is_refused():
    with pytest.raises(TraceLoadError, match="a JSON array of TrustGraph wire triples"):
        read_trace_file("notwire.json", b'{"hello": "world"}')
    content = read_trace_file("texts.json", b'{"urn:trustgraph:doc:1": "words"}')
    assert content.documents == {"urn:trustgraph:doc:1": "words"}
