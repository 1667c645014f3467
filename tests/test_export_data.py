"""Data export: every corpus_collection session in every RDF format and wire JSON reads back as the same
session; triple terms survive; PROV-JSON / PROV-N come out of the ``prov`` package with the
triples PROV cannot say listed, not dropped."""

from __future__ import annotations

import io
import json
import zipfile

import prov.model as pm
import pyoxigraph as ox
import pytest

from tests.conftest import manifest_sessions
from trace_explorer.export.data import (DATA_SUFFIXES, RDF_JSON, data_archive, documents_path, export_quads,
                                        export_session_data, write_session_data)
from trace_explorer.export.prov import PROV_SUFFIXES, export_session_prov, nquad_line
from trace_explorer.export.quads import subjects_sessions
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import TraceStore, load_collection
from trace_explorer.views.report import session_detail

AGENT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
SESSIONS = [s["session"] for s in manifest_sessions()]
TG_EDGE = "https://trustgraph.ai/ns/edge"


def comparable(detail: dict) -> dict:
    # The session owning the step a sub-session derives from is not part of the sub-session's
    # own export (only the link to that step is), so it cannot be named after a round trip.
    return detail | {"parent_session": None}


def reload(paths) -> dict:
    collection, errors = load_collection(paths)
    assert errors == []
    return {s.id: s for s in read_sessions(collection)}


@pytest.mark.parametrize("suffix", DATA_SUFFIXES)
@pytest.mark.parametrize("iri", SESSIONS, ids=lambda i: i[-12:])
def test_every_session_reads_back_the_same_from_every_format(corpus_collection, tmp_path, iri, suffix):
    collection, sessions = corpus_collection
    written, export = write_session_data(tmp_path / f"session{suffix}", collection, sessions[iri], sessions)
    again = reload(written)
    assert comparable(session_detail(again[iri])) == comparable(session_detail(sessions[iri]))
    for child in subjects_sessions(sessions[iri], sessions):  # the sub-sessions come along whole
        assert comparable(session_detail(again[child])) == comparable(session_detail(sessions[child]))
    assert export.quads == len(export_quads(collection, sessions[iri], sessions))


@pytest.mark.parametrize("suffix", DATA_SUFFIXES)
def test_sub_sessions_left_out_on_request(corpus_collection, tmp_path, suffix):
    collection, sessions = corpus_collection
    supervisor = sessions[SUPERVISOR]
    written, _ = write_session_data(tmp_path / f"s{suffix}", collection, supervisor, sessions, include_children=False)
    again = reload(written)
    assert set(again) == {SUPERVISOR}
    assert [s.id for s in again[SUPERVISOR].steps] and {s.id for s in again[SUPERVISOR].steps} == {s.id for s in supervisor.steps}
    # without its sub-sessions the Findings no longer derive from anything in the file
    assert again[SUPERVISOR].children == []


@pytest.mark.parametrize("suffix", [".ttl", ".trig", ".nq"])
def test_quoted_triples_are_rdf_1_2_triple_terms(corpus_collection, suffix):
    collection, sessions = corpus_collection
    export = export_session_data(collection, sessions[GRAPHRAG], sessions, suffix)
    text = export.data.decode("utf-8")
    assert text.count("<<(") == 4 and "rdf:reifies" not in text
    fmt = {".ttl": ox.RdfFormat.TURTLE, ".trig": ox.RdfFormat.TRIG, ".nq": ox.RdfFormat.N_QUADS}[suffix]
    edges = [q.object for q in ox.parse(export.data, format=fmt) if q.predicate.value == TG_EDGE]
    assert len(edges) == 4 and all(isinstance(e, ox.Triple) for e in edges)
    assert ox.Triple(ox.NamedNode("http://trustgraph.ai/e/capital-city"), ox.NamedNode("http://trustgraph.ai/e/describedAs"),
                     ox.Literal("fact 1 about capital city")) in edges


def test_json_ld_carries_triple_terms_as_wire_json_that_our_loader_reads_back(corpus_collection, tmp_path):
    collection, sessions = corpus_collection
    export = export_session_data(collection, sessions[GRAPHRAG], sessions, ".jsonld")
    raw = [q for q in ox.parse(export.data, format=ox.RdfFormat.JSON_LD) if q.predicate.value == TG_EDGE]
    assert len(raw) == 4 and all(q.object.datatype.value == RDF_JSON for q in raw)
    assert json.loads(raw[0].object.value)["t"] == "t"
    path = tmp_path / "g.jsonld"
    path.write_bytes(export.data)
    loaded = TraceStore()
    loaded.add_file(str(path))
    assert loaded.sources[0].recovered == 4
    assert all(isinstance(q.object, ox.Triple) for q in loaded.store.quads_for_pattern(None, ox.NamedNode(TG_EDGE), None))


def test_wire_json_is_a_list_of_wire_triples_with_graphs(corpus_collection):
    collection, sessions = corpus_collection
    export = export_session_data(collection, sessions[GRAPHRAG], sessions, ".json")
    items = json.loads(export.data)
    assert len(items) == export.quads
    assert all(set(i) <= {"s", "p", "o", "g"} for i in items)
    edges = [i for i in items if i["p"] == {"t": "i", "i": TG_EDGE}]
    assert len(edges) == 4 and all(e["o"]["t"] == "t" and e["g"] == "urn:graph:retrieval" for e in edges)


def test_document_texts_go_to_a_sidecar_with_only_this_sessions_texts(corpus_collection, tmp_path):
    collection, sessions = corpus_collection
    written, export = write_session_data(tmp_path / "agent.trig", collection, sessions[AGENT_12], sessions)
    assert written == [tmp_path / "agent.trig", tmp_path / "agent.documents.json"]
    texts = json.loads(written[1].read_text(encoding="utf-8"))
    assert texts == export.documents and 0 < len(texts) < len(collection.documents)
    assert sessions[AGENT_12].answer in texts.values()
    # without the sidecar the words are missing: the round trip needs it
    alone = reload(written[:1])[AGENT_12]
    assert alone.answer is None and sessions[AGENT_12].answer


def test_one_archive_for_a_download_holds_data_and_texts(corpus_collection, tmp_path):
    collection, sessions = corpus_collection
    export = export_session_data(collection, sessions[AGENT_12], sessions, ".nq")
    archive = data_archive("agent.nq", export)
    assert archive == data_archive("agent.nq", export)
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        assert opened.namelist() == ["agent.nq", "agent.documents.json"]
        opened.extractall(tmp_path)
    again = reload([tmp_path / "agent.nq", tmp_path / "agent.documents.json"])
    assert session_detail(again[AGENT_12]) == session_detail(sessions[AGENT_12])


def test_same_session_same_bytes(corpus_collection):
    collection, sessions = corpus_collection
    for suffix in DATA_SUFFIXES + tuple(PROV_SUFFIXES):
        make = export_session_prov if suffix in PROV_SUFFIXES else export_session_data
        assert make(collection, sessions[SUPERVISOR], sessions, suffix).data == \
            make(collection, sessions[SUPERVISOR], sessions, suffix).data


def test_bad_names_are_refused(corpus_collection, tmp_path):
    collection, sessions = corpus_collection
    with pytest.raises(ValueError, match="unknown data format"):
        export_session_data(collection, sessions[GRAPHRAG], sessions, ".xml")
    with pytest.raises(ValueError, match="documents.json"):
        write_session_data(tmp_path / "x.documents.json", collection, sessions[GRAPHRAG], sessions)
    assert documents_path("out/a.b.ttl").as_posix() == "out/a.b.documents.json"


# -- PROV ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("iri", SESSIONS, ids=lambda i: i[-12:])
def test_prov_json_parses_back_with_the_prov_package(corpus_collection, iri):
    collection, sessions = corpus_collection
    export = export_session_prov(collection, sessions[iri], sessions, ".provjson")
    document = pm.ProvDocument.deserialize(content=export.data.decode("utf-8"), format="json")
    elements = {str(r.identifier.uri) for b in [document] + list(document.bundles)
                for r in b.get_records(pm.ProvElement)}
    # every step of the session (and of its sub-sessions) is a PROV element
    for current in [sessions[iri]] + [sessions[c] for c in subjects_sessions(sessions[iri], sessions)]:
        assert {s.id for s in current.steps} | {current.id} <= elements
    derivations = sum(len(list(b.get_records(pm.ProvDerivation))) for b in [document] + list(document.bundles))
    quads = export_quads(collection, sessions[iri], sessions)
    assert derivations == sum(1 for q in quads if q.predicate.value == "http://www.w3.org/ns/prov#wasDerivedFrom")


@pytest.mark.parametrize("iri", SESSIONS, ids=lambda i: i[-12:])
def test_prov_lists_what_it_cannot_say_instead_of_dropping_it(corpus_collection, iri):
    collection, sessions = corpus_collection
    export = export_session_prov(collection, sessions[iri], sessions, ".provn")
    quads = export_quads(collection, sessions[iri], sessions)
    # in this corpus_collection the only thing PROV-DM cannot say is a quoted triple as a value
    assert export.unmapped == [q for q in quads if isinstance(q.object, ox.Triple)]
    text = export.data.decode("utf-8")
    head, _, body = text.partition("\ndocument\n")
    assert body.rstrip().endswith("endDocument")
    for quad in export.unmapped:
        assert "//   " + nquad_line(quad) in head.splitlines()
    if not export.unmapped:
        assert "Every triple of the session is below." in head


def test_prov_n_of_a_graphrag_session(corpus_collection):
    collection, sessions = corpus_collection
    export = export_session_prov(collection, sessions[GRAPHRAG], sessions, ".provn")
    text = export.data.decode("utf-8")
    assert len(export.unmapped) == 4 and "4 triple(s) have no PROV-DM counterpart" in text
    assert "<<( <http://trustgraph.ai/e/france> <http://www.w3.org/2000/01/rdf-schema#seeAlso>" in text
    assert "bundle graph:retrieval" in text and "prov:type='tg:EdgeSelection'" in text
    # the Question's start time is the time it was generated (no activity in TrustGraph's data)
    assert "wasGeneratedBy(graphrag:1fb17c23-90c1-42cf-93ac-94af0f21ddb6, -, 2026-03-09T12:30:39" in text


def test_prov_unknown_suffix(corpus_collection):
    collection, sessions = corpus_collection
    with pytest.raises(ValueError, match="unknown PROV format"):
        export_session_prov(collection, sessions[GRAPHRAG], sessions, ".provx")


# -- the shared hostile corpus_collection ------------------------------------------------------------------
@pytest.fixture(scope="module")
def hostile_corpus():
    from tests import hostile_traces as hostile

    return hostile.hostile_collection()


@pytest.mark.parametrize("suffix", DATA_SUFFIXES)
def test_hostile_text_survives_every_format_exactly(hostile_corpus, tmp_path, suffix):
    collection, sessions = hostile_corpus
    for iri, session in sessions.items():
        written, _ = write_session_data(tmp_path / f"{iri[-1]}{suffix}", collection, session, sessions)
        assert session_detail(reload(written)[iri]) == session_detail(session)


def test_hostile_text_in_prov(hostile_corpus):
    from tests import hostile_traces as hostile

    collection, sessions = hostile_corpus
    export = export_session_prov(collection, sessions[hostile.AGENT], sessions, ".provjson")
    document = pm.ProvDocument.deserialize(content=export.data.decode("utf-8"), format="json")
    values = {str(v) for b in [document] + list(document.bundles) for r in b.get_records() for _, v in r.attributes}
    assert "Agent " + hostile.ALL_TEXT in values and hostile.IMG in values
    provn = export_session_prov(collection, sessions[hostile.GRAPHRAG], sessions, ".provn").data.decode("utf-8")
    comment = [line for line in provn.splitlines() if line.startswith("//   ")]
    assert len(comment) == 1 and "javascript:alert(6)" in comment[0]  # the quoted edge, on one line
