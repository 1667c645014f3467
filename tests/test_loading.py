"""Reading files: every format, quoted triples in all four spellings, content files, bad input."""

from __future__ import annotations

import gzip
import json

import pyoxigraph as ox
import pytest

from tests.conftest import CORPUS, MANIFEST, TRACE_FILES, corpus_paths, manifest_sessions
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import TraceStore, load_collection
from trace_explorer.read.errors import TraceLoadError
from trace_explorer.read.files import read_trace_file
from trace_explorer.read.limits import limit_from_environment, max_expanded_bytes, max_file_bytes
from trace_explorer.read.quoted_triples import triple_from_literal

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


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(40)
WIRE_EXPECTED = 'a TrustGraph wire triple ({"s", "p", "o", "g"?}) as item 0 of the array'
NOT_WIRE = ('expected a JSON array of TrustGraph wire triples ({"s", "p", "o", "g"?}), or an object mapping '
            "document IRIs to texts (content files are best named *.documents.json)")
CUT_SHORT = "(the file may be cut short)"
NO_SUBJECT = "The subject of a triple must be an IRI or a blank node"
NOT_TEXT = "expected a JSON string (the document's text) as the value of"
LATIN_1 = "is not UTF-8 (is the file in another encoding, such as Latin-1?)"
BAD_FILES = [  # name, bytes, the whole message
    ("truncated.ttl", b'<urn:a> <urn:b> "unterminated',
     f"truncated.ttl:1:17: expected valid Turtle; the parser says: Unexpected end of file {CUT_SHORT}"),
    ("cut.ttl", b'@prefix tg: <https://trustgraph.ai/ns/> .\n<urn:a> tg:query "q" ;\n',
     f"cut.ttl:3:1: expected valid Turtle; the parser says: Unexpected end {CUT_SHORT}"),
    ("two.ttl", b"<urn:a> <urn:b> <urn:c> .\n<urn:a> <urn:b> .\n",
     "two.ttl:2:17: expected valid Turtle; the parser says: . is not a valid RDF object"),
    ("bad-iri.ttl", b'<urn:a> <http://exa mple/p> "x" .\n',
     "bad-iri.ttl:1:9: expected valid Turtle; the parser says: Invalid IRI code point ' '"),
    ("relative.nt", b'<relative> <urn:p> "x" .\n',
     "relative.nt:1:1: expected valid N-Triples; the parser says: No scheme found in an absolute IRI"),
    ("turtle.nq", b'@prefix tg: <https://trustgraph.ai/ns/> .\n<urn:a> tg:query "q" .\n',
     f"turtle.nq:1:1: expected valid N-Quads; the parser says: {NO_SUBJECT} (this looks like Turtle; name the file "
     "turtle.ttl)"),
    ("trig.nq", b'# a trace\nPREFIX tg: <https://trustgraph.ai/ns/>\n<urn:g> {\n  <urn:a> tg:query "q" .\n}\n',
     f"trig.nq:2:1: expected valid N-Quads; the parser says: {NO_SUBJECT} (this looks like TriG; name the file trig.trig)"),
    ("wire.nt", b'[{"s": {"t": "i", "i": "urn:a"}}]',
     f"wire.nt:1:1: expected valid N-Triples; the parser says: {NO_SUBJECT} (this looks like TrustGraph wire JSON; "
     "name the file wire.json)"),
    ("texts.ttl", b'{"urn:a": "text"}',
     "texts.ttl:1:1: expected valid Turtle; the parser says: { is not a valid subject or graph name (this looks like "
     "a content file; name the file texts.documents.json)"),
    ("quads.ttl", b"<urn:a> <urn:b> <urn:c> <urn:g> .\n",
     "quads.ttl:1:25: expected valid Turtle; the parser says: A dot is expected at the end of statements (this looks "
     "like N-Quads; name the file quads.nq)"),
    ("quads.trig", b"<urn:a> <urn:b> <urn:c> <urn:g> .\n",
     "quads.trig:1:25: expected valid TriG; the parser says: A dot is expected at the end of statements (this looks "
     "like N-Quads; name the file quads.nq)"),
    ("latin1.ttl", b'<urn:a> <urn:p> "ok" .\n<urn:a> <urn:p> "caf\xe9" .\n',
     f"latin1.ttl:2:21: expected Turtle text in UTF-8; the byte 0xE9 {LATIN_1}"),
    ("latin1.json", b'["caf\xe9"]', f"latin1.json:1:6: expected JSON text in UTF-8; the byte 0xE9 {LATIN_1}"),
    ("image.ttl", PNG, "image.ttl:3:1: expected Turtle text; found binary data (a NUL byte): is this really a trace file?"),
    ("random.nq", bytes(range(256)) * 4,
     "random.nq:1:1: expected N-Quads text; found binary data (a NUL byte): is this really a trace file?"),
    ("packed.trig", gzip.compress(b"<urn:a> <urn:b> <urn:c> ."),
     "packed.trig:1:1: expected TriG text; found gzip-compressed data (name the file packed.trig.gz to read it)"),
    ("utf16.ttl", "<urn:a> <urn:b> <urn:c> .".encode("utf-16"),
     "utf16.ttl:1:1: expected Turtle text in UTF-8; found UTF-16 text (save it as UTF-8)"),
    ("empty.ttl", b"", "empty.ttl: expected Turtle data; the file is empty"),
    ("blank.nq", b" \n\t\n", "blank.nq: expected N-Quads data; the file is empty"),
    ("empty.json", b"", "empty.json: expected TrustGraph wire JSON data; the file is empty"),
    ("empty.ttl.gz", gzip.compress(b"\n"), "empty.ttl.gz: expected Turtle data; the file is empty once decompressed"),
    ("bad.json", b'[{"s": 1]', """bad.json:1:9: expected "," or "}" after the value of a key; found ']'"""),
    ("cut.json", b'[{"s": {"t": "i", "i": "urn:a"}, ',
     f"cut.json:1:34: expected a key in double quotes; found the end of the file {CUT_SHORT}"),
    ("unended.documents.json", b'{"urn:a": "x",\n "urn:b": "y',
     f'unended.documents.json:2:11: expected a " to end the string that begins here; found the end of the file {CUT_SHORT}'),
    ("joined.documents.json", b'{"urn:a": "x",\n "urn:b": "y" "urn:c": "z"}',
     """joined.documents.json:2:15: expected "," or "}" after the value of a key; found '"urn:c": "z"}'"""),
    ("comma.documents.json", b'{"urn:a": "x",}',
     """comma.documents.json:1:15: expected a key in double quotes, or "}" (JSON allows no "," before it); found '}'"""),
    ("more.documents.json", b'{"urn:a": "x"}\n{"urn:b": "y"}',
     """more.documents.json:2:1: expected the end of the file after its JSON value; found '{"urn:b": "y"}'"""),
    ("line.documents.json", b'{"urn:a": "one\ntwo"}',
     "line.documents.json:1:15: expected no control character inside a string (a line break is written \\n, "
     "a tab \\t); found the character U+000A"),
    ("object.json", b'{"hello": "world", "n": 1}', f'object.json: {NOT_WIRE}; found an object with keys "hello", "n"'),
    ("string.json", b'"hello"', f'string.json: {NOT_WIRE}; found a string: "hello"'),
    ("numbers.json", b"[1, 2, 3]", f'numbers.json: expected {WIRE_EXPECTED}; it needs a triple object with "s", "p" and "o"'),
    ("notwire.json", b'[{"s": {"t": "i", "i": "urn:a"}, "p": {"t": "x"}, "o": {"t": "l", "v": "1"}}]',
     f"notwire.json: expected {WIRE_EXPECTED}; it needs a term with \"t\" of i, l, b, t or r, got 'x'"),
    ("texts.documents.json", b'["not", "a", "mapping"]',
     "texts.documents.json: expected a JSON object mapping document IRIs to their text; found an array of 3 items"),
    ("number.documents.json", b'{"urn:a": "text",\n "urn:b":  42}',
     f'number.documents.json:2:12: {NOT_TEXT} "urn:b"; found a number: 42'),
    ("null.documents.json", b'{"urn:a": null}', f'null.documents.json:1:11: {NOT_TEXT} "urn:a"; found null'),
    ("list.documents.json", b'{"urn:a": ["one", "two"]}',
     f'list.documents.json:1:11: {NOT_TEXT} "urn:a"; found an array of 2 items'),
    ("object.documents.json", b'{"urn:a": "x", "urn:\\u0062": {"text": "y"}, "urn:c": 1}',
     f'object.documents.json:1:30: {NOT_TEXT} "urn:b"; found an object with keys "text"'),
    ("twice.documents.json", b'{"urn:a": "x",\n"urn:a": false}',  # the value read is the last
     f'twice.documents.json:2:10: {NOT_TEXT} "urn:a"; found a boolean: false'),
    ("again.documents.json", b'{"urn:a": "x", "urn:b": "y",\n"urn:a": "z"}',
     'again.documents.json:2:1: expected one text for each document IRI; the key "urn:a" is given again, with another '
     "text (first at line 1)"),
    ("again.json", b'{"urn:a": "x",\n  "urn:a": "z"}',
     'again.json:2:3: expected one text for each document IRI; the key "urn:a" is given again, with another '
     "text (first at line 1)"),
    ("long.documents.json", b'{"urn:' + b"x" * 500 + b'": true}',
     f'long.documents.json:1:510: {NOT_TEXT} "urn:{"x" * 94}…; found a boolean: true'),
    ("empty.trig.gz", b"not gzip",
     "empty.trig.gz: expected gzip data (the name ends in .gz); the decompressor says: Not a gzipped file (b'no')"),
    ("notes.txt", b"hello", "notes.txt: expected a file name ending in one of .ttl, .turtle, .trig, .nq, .nquads, .nt, "
                           ".ntriples, .n3, .jsonld, .json-ld, .rdf, .xml, .owl, .json (optionally .gz); "
                           "the format of .txt is not one this reader knows"),
]


@pytest.mark.parametrize("name,data,message", BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_bad_file_gives_one_clear_error_and_adds_nothing(name, data, message):
    collection, _ = load_collection(corpus_paths("seed-sessions.ttl"))
    before = len(collection)
    with pytest.raises(TraceLoadError) as raised:
        collection.add_file(name, data)
    error = raised.value
    assert str(error) == message
    where = message.split(": expected ")[0].split(":")
    assert error.file == name == where[0]
    assert (error.line, error.column) == ((int(where[1]), int(where[2])) if len(where) == 3 else (None, None))
    assert len(collection) == before and len(collection.sources) == 1
    assert len(read_sessions(collection)) == len(manifest_sessions("seed-sessions.ttl"))


def test_a_nul_byte_inside_valid_text_is_not_called_binary():
    loaded = read_trace_file("nul.nt", b'<urn:a> <urn:p> "a\x00b" .\n')
    assert [q.object.value for q in loaded.quads] == ["a\x00b"]


def test_gzip_bomb_is_refused():
    with pytest.raises(TraceLoadError) as raised:
        read_trace_file("big.ttl.gz", gzip.compress(b" " * 10_000), max_bytes=1_000)
    assert str(raised.value) == ("big.ttl.gz: expected gzip content of at most 1,000 bytes when expanded (the limit "
                                 "set by TRACE_EXPLORER_MAX_EXPANDED_MB); this file (46 bytes compressed) expands to more")


def test_the_limits_come_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TRACE_EXPLORER_MAX_FILE_MB", "0.01")  # 10 KiB (10,485 bytes)
    monkeypatch.setenv("TRACE_EXPLORER_MAX_EXPANDED_MB", "0.02")  # 20.5 KiB (20,971 bytes)
    assert (max_file_bytes(), max_expanded_bytes()) == (10_485, 20_971)
    seed = (CORPUS / "seed-sessions.ttl").read_bytes()  # 14.5 KiB
    with pytest.raises(TraceLoadError) as raised:
        read_trace_file("seed-sessions.ttl", seed)
    assert str(raised.value) == ("seed-sessions.ttl: expected a file of at most 10.2 KiB (the limit set by "
                                 "TRACE_EXPLORER_MAX_FILE_MB); this one is 14.5 KiB")
    on_disk = tmp_path / "seed-sessions.ttl"
    on_disk.write_bytes(seed)
    with pytest.raises(TraceLoadError, match=r": expected a file of at most 10\.2 KiB .*; this one is 14\.5 KiB$"):
        read_trace_file(str(on_disk))
    packed = gzip.compress(seed + b"\n" * 8_000)  # small when packed, 22 KiB expanded
    assert len(packed) < 10_485
    with pytest.raises(TraceLoadError, match=r"expected gzip content of at most 20\.5 KiB when expanded \(the limit "
                                             r"set by TRACE_EXPLORER_MAX_EXPANDED_MB\)"):
        read_trace_file("seed.ttl.gz", packed)
    assert len(read_trace_file("seed.ttl.gz", gzip.compress(seed)).quads) == MANIFEST["seed-sessions.ttl"]["quads"]


@pytest.mark.parametrize("value,expected", [("", 512), ("2", 2), ("0.5", 0.5), ("lots", 512), ("-1", 512),
                                            ("0", 512), ("inf", 512), ("nan", 512)])
def test_a_limit_that_is_not_a_positive_number_falls_back_to_the_default(value, expected):
    assert limit_from_environment("X", {"X": value}) == int(expected * 1024 * 1024)


def test_wire_triple_with_a_bad_graph_iri_is_a_load_error():
    data = json.dumps([{"s": {"t": "i", "i": "urn:a"}, "p": {"t": "i", "i": "urn:a"}, "o": {"t": "l", "v": ""}, "g": "0"}])
    with pytest.raises(TraceLoadError, match=r'as item 0 of the array; it needs a graph IRI in "g", got \'0\''):
        read_trace_file("wire.json", data.encode())


def test_a_json_object_that_is_neither_wire_triples_nor_content_is_refused():
    with pytest.raises(TraceLoadError, match="a JSON array of TrustGraph wire triples"):
        read_trace_file("notwire.json", b'{"hello": "world"}')
    content = read_trace_file("texts.json", b'{"urn:trustgraph:doc:1": "words"}')
    assert content.documents == {"urn:trustgraph:doc:1": "words"}


@pytest.mark.parametrize("chunk", [5, 7, 64, 65_536])
def test_a_chunk_that_ends_inside_an_iri_does_not_hide_the_end_of_a_triple_term(monkeypatch, tmp_path, chunk):
    """The nesting scan reads a file a chunk at a time: an IRI cut by a chunk's end waits for the
    rest (read as text, the "#" of ``rdf-schema#seeAlso`` began a comment that hid the ``)>>``
    after it, and every such cut counted one level deeper, until a large dump was refused)."""
    from trace_explorer.read import prescan

    monkeypatch.setattr(prescan, "CHUNK", chunk)
    lines = [f"<urn:trustgraph:prov:edge:{n}> <https://trustgraph.ai/ns/edge> <<( <http://trustgraph.ai/e/a{n}> "
             f"<http://www.w3.org/2000/01/rdf-schema#seeAlso> <http://trustgraph.ai/e/b{n}> )>> <urn:graph:retrieval> .\n"
             for n in range(3 * prescan.MAX_TRIPLE_DEPTH if chunk < 100 else 3_000)]
    path = tmp_path / "edges.nq"
    path.write_text("".join(lines), encoding="utf-8")
    loaded = read_trace_file(str(path))
    assert len(loaded.quads) == len(lines)
    assert {str(q.object.predicate.value) for q in loaded.quads} == {"http://www.w3.org/2000/01/rdf-schema#seeAlso"}
