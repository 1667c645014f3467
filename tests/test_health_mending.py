"""What a later file may mend (``analysis.health.mending``): each finding that depends on what
else is loaded names the IRIs whose arrival would change it, and a store says which of them it
now has."""

from __future__ import annotations

import pyoxigraph as ox

from trace_explorer.analysis.health.mending import finding_wants, mended, session_wants, text_wants
from trace_explorer.analysis.health.rules import (DANGLING_DERIVATION, MISSING_CHUNK_TEXT, MISSING_TEXT,
                                                  TIME_BEFORE_PARENT, UNFINISHED, UNSUPPORTED_SENTENCE)
from trace_explorer.model.problems import triple_text
from trace_explorer.model.vocabulary import CONTENT, DOCUMENT, RDF_TYPE, STARTED_AT_TIME, TG, WAS_DERIVED_FROM

STEP = "urn:trustgraph:question:q1/i1"
TARGET = "urn:trustgraph:question:q0/i3"
DOC = "urn:trustgraph:doc:answer-1"


def test_each_context_finding_names_what_would_mend_it():
    assert finding_wants(DANGLING_DERIVATION, triple_text(STEP, WAS_DERIVED_FROM, TARGET), None) == (f"d:{TARGET}",)
    assert finding_wants(MISSING_TEXT, triple_text(STEP, DOCUMENT, DOC), None) == (f"t:{DOC}",)
    assert finding_wants(MISSING_CHUNK_TEXT, triple_text(STEP, DOCUMENT, DOC), None) == (f"t:{DOC}",)
    given = text_wants(["urn:chunk:1", "chunk-id-2"])
    assert finding_wants(UNSUPPORTED_SENTENCE, None, given) == ("t:urn:chunk:1", "t:chunk-id-2")
    assert finding_wants(UNSUPPORTED_SENTENCE, None, ()) == ()  # every chunk read: no file changes it
    # what cannot be said: a parent's start time, a literal where an IRI was wanted
    assert finding_wants(TIME_BEFORE_PARENT, triple_text(STEP, STARTED_AT_TIME, ox.Literal("2026")), None) is None
    assert finding_wants(MISSING_TEXT, triple_text(STEP, DOCUMENT, ox.Literal("a text")), None) is None
    assert finding_wants(UNFINISHED, None, None) == ()  # no other file changes a rule of the session's own


def test_a_session_wants_each_iri_once_and_is_unknown_when_any_finding_is():
    assert session_wants([("t:a", "t:b"), (), ("t:a", "d:c")]) == "t:a t:b d:c"
    assert session_wants([(), ()]) == ""
    assert session_wants([("t:a",), None]) is None


def test_the_store_says_which_wants_it_now_has():
    store = ox.Store()
    graph = ox.NamedNode("urn:graph:documents")
    store.add(ox.Quad(ox.NamedNode(DOC), ox.NamedNode(CONTENT), ox.Literal("the answer"), graph))
    store.add(ox.Quad(ox.NamedNode(TARGET), ox.NamedNode(RDF_TYPE), ox.NamedNode(TG + "Analysis")))
    store.add(ox.Quad(ox.NamedNode("urn:doc:labelled"), ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label"),
                      ox.Literal("a label, no text")))
    wants = [f"t:{DOC}", f"d:{TARGET}", f"d:{DOC}", "t:urn:doc:labelled", "t:urn:doc:absent", "t:chunk-id-1", "x:urn:y"]
    # a text mends a text, a type a description; a label is neither; a key that is no IRI is
    # never in a store; a kind not known is always checked again
    assert mended(store, wants) == {f"t:{DOC}", f"d:{TARGET}", "x:urn:y"}
    # an ingest that added no text looks none up: only the description is asked for
    assert mended(store, wants, texts_given=set()) == {f"d:{TARGET}", "x:urn:y"}
    # the IRIs an ingest gave a text to mend their text wants with no look-up (DOC's text, in
    # the store, came before); descriptions are still looked up
    assert mended(store, wants, texts_given={"urn:doc:absent"}) == {"t:urn:doc:absent", f"d:{TARGET}", "x:urn:y"}
    # an ingest of content files alone mends no description either
    assert mended(store, wants, texts_given={"urn:doc:absent"}, only_texts=True) == {"t:urn:doc:absent", "x:urn:y"}
    assert mended(store, wants, texts_given=set(), only_texts=True) == {"x:urn:y"}
