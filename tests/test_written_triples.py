"""The triples an ingest keeps by subject (``store.written_triples``): a session's triples come
back each once and in the order written, whatever graphs and batches repeated them, with the
entities its steps point at, and the derivations and typed IRIs read off the written text."""

from __future__ import annotations

import pyoxigraph as ox

from trace_explorer.sources.fetch import POINTERS
from trace_explorer.sources.triples_text import TriplesText, objects_of
from trace_explorer.store.written_triples import WrittenTriples

DERIVED = "<http://www.w3.org/ns/prov#wasDerivedFrom>"
GENERATED = "<http://www.w3.org/ns/prov#wasGeneratedBy>"
EDGE = "<https://trustgraph.ai/ns/selectedEdge>"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"

FIRST = f"""<urn:r:1> <urn:p> "x" <urn:g:1> .
<urn:r:1> <urn:p> "x" <urn:g:2> .
<urn:r:1/s> {DERIVED} <urn:r:1> <urn:g:1> .
<urn:r:1/s> {TYPE} <urn:T> .
<urn:r:1/s> <urn:p> "names {EDGE} <urn:e:9> in a literal" .
<urn:r:1/s> {EDGE} <urn:e:1> .
<urn:r:1/s> {EDGE} <urn:e:1> <urn:g:2> .
<urn:r:1/s> {EDGE} _:b1 .
<urn:e:1> <urn:q> "edge" .
_:b1 <urn:q> "blank" .
_:b2 {GENERATED} <urn:r:1/s> .
_:b2 <urn:q> "b2" .
<urn:other> <urn:q> "not of the session" .
"""
SECOND = """<urn:r:1> <urn:p> "x" <urn:g:3> .
<urn:r:1> <urn:p> "x2" .
<urn:e:1> <urn:q> "edge" <urn:g:5> .
<urn:e:1> <urn:q> "edge2" .
"""


def _quads(text: str) -> list[ox.Quad]:
    return list(ox.parse(text.encode(), format=ox.RdfFormat.N_QUADS))


def test_a_session_gets_each_triple_once_in_the_order_written_with_what_it_points_at():
    written = WrittenTriples()
    for text in (FIRST, SECOND, FIRST):
        written.add(_quads(text))
    assert written.triples == 2 * 13 + 4
    lines = written.session_text(["urn:r:1"]).decode().splitlines()
    assert lines == [  # by row: a subject and a batch, in the order written; then what the steps point at
        '<urn:r:1> <urn:p> "x" .',
        f"<urn:r:1/s> {DERIVED} <urn:r:1> .",
        f"<urn:r:1/s> {TYPE} <urn:T> .",
        f'<urn:r:1/s> <urn:p> "names {EDGE} <urn:e:9> in a literal" .',
        f"<urn:r:1/s> {EDGE} <urn:e:1> .",
        f"<urn:r:1/s> {EDGE} _:b1 .",
        f"_:b2 {GENERATED} <urn:r:1/s> .",
        '_:b2 <urn:q> "b2" .',
        '<urn:r:1> <urn:p> "x2" .',
        '<urn:e:1> <urn:q> "edge" .',
        '_:b1 <urn:q> "blank" .',
        '<urn:e:1> <urn:q> "edge2" .',
    ]
    quads = written.session_quads(["urn:r:1"])
    assert len(quads) == len(set(quads)) == 12
    assert all(q.graph_name == ox.DefaultGraph() for q in quads)
    assert list(written.typed_iris()) == ["urn:r:1/s"]
    assert written.typed_under(["urn:r:1"]) == ["urn:r:1/s"]
    assert written.session_text(["urn:none"]) == b""


def test_what_steps_point_at_is_read_off_the_ends_of_lines_whose_predicate_points():
    """``triples_text.objects_of`` finds a line by its end: text inside a literal that reads like
    such an end (before a quote, an escaped line break or a datatype), a triple term or a literal
    as the object are not one."""
    thought, chunk = "<https://trustgraph.ai/ns/thought>", "<https://trustgraph.ai/ns/selectedChunk>"
    text = TriplesText(_quads(f"""<urn:s> {thought} <urn:d> .
<urn:s> <urn:p> "x {thought} <urn:e> ." .
<urn:s> <urn:p> "x {thought} <urn:e> .\\n" .
<urn:s> <urn:p> "x\\n{thought} <urn:e> ."^^<urn:dt> .
_:b1 {chunk} _:b2 .
<urn:s> {EDGE} <<( <urn:a> {thought} <urn:b> )>> .
<urn:s> {EDGE} "lit" .
<urn:s> {EDGE} <urn:f> .
""")).text
    assert objects_of(text, POINTERS) == [b"<urn:d>", b"_:b2", b"<urn:f>"]


def test_the_subjects_given_a_text_are_read_off_the_lines_that_give_one():
    """``triples_text.subjects_of`` finds the IRIs whose line's predicate is ``tg:content``, as
    asking each quad finds them (``session_index.content_subjects``): not a literal that reads
    like such a line, not an object, not a blank node, any graph."""
    from trace_explorer.model.vocabulary import CONTENT
    from trace_explorer.index.build import content_subjects
    from trace_explorer.sources.triples_text import subjects_of

    quads = _quads(f"""<urn:a> <{CONTENT}> "x" <urn:g:documents> .
<urn:b> <urn:p> "y\\n<urn:c> <{CONTENT}> z" .
_:b1 <{CONTENT}> "t" .
<urn:d> <urn:p> <{CONTENT}> .
<urn:\\u00e9> <{CONTENT}> "t" .
<urn:a> <{CONTENT}> "x again" .
""")
    assert subjects_of(TriplesText(quads).text, CONTENT) == content_subjects(quads) == {"urn:a", "urn:é"}
