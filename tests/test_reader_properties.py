"""Property-based tests: the readers see generated and mutated input and only ever return a
result or raise the project's own TraceLoadError; whatever they return reads as sessions."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
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
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def read_or_refuse(name: str, data: bytes):
    try:
        loaded = read_trace_file(name, data, max_bytes=1_000_000)
    except TraceLoadError as error:
        assert error.file == name and error.expected
        return None
    collection = TraceStore()
    collection.add(loaded)
    read_sessions(collection)  # never raises on odd data
    return loaded


@FAST
@given(name=NAMES, data=st.binary(max_size=2000))
def test_random_bytes(name, data):
    read_or_refuse(name, data)


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


wire_terms = st.recursive(
    st.fixed_dictionaries({"t": st.sampled_from(["i", "l", "b", "x", None]),
                           "i": st.one_of(st.text(max_size=20), st.just("urn:a"), st.integers()),
                           "v": st.one_of(st.text(max_size=20), st.integers()), "d": st.text(max_size=5)}),
    lambda inner: st.fixed_dictionaries({"t": st.sampled_from(["t", "r"]),
                                         "tr": st.fixed_dictionaries({"s": inner, "p": inner, "o": inner}),
                                         "r": st.fixed_dictionaries({"s": inner, "p": inner, "o": inner})}),
    max_leaves=6)


@FAST
@given(st.lists(st.fixed_dictionaries({"s": wire_terms, "p": wire_terms, "o": wire_terms,
                                       "g": st.one_of(st.none(), st.text(max_size=10), st.just("urn:g"))}),
                max_size=5))
def test_generated_wire_json(triples):
    read_or_refuse("wire.json", json.dumps(triples).encode())


@FAST
@given(st.text(max_size=300))
def test_damaged_literal_recovery_never_raises(text):
    result = triple_from_literal(text)
    assert result is None or result.__class__.__name__ == "Triple"
    triple_from_literal("<<" + text + ">>")
    triple_from_literal("{'t': 't', 'tr': " + text + "}")
