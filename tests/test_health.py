"""Trace health: each rule on a trace built to break it, beside a healthy session that nothing
names; the clean reference corpus has no error or warning; the shapes file and the rule catalog
agree; trace text in a message stays as it was (for the caller to escape)."""

from __future__ import annotations

from collections import Counter

import pytest
import rdflib
from rdflib.namespace import SH

from tests.conftest import CORPUS, TRACE_FILES, corpus_paths
from tests.health_traces import BROKEN, BROKEN_ID, HEALTHY, documents, healthy, sub
from trace_explorer.analysis.health import shacl
from trace_explorer.analysis.health.checks import check_source
from trace_explorer.analysis.health.rules import RULES
from trace_explorer.model.triple_index import TripleIndex
from trace_explorer.model.vocabulary import CONTENT
from trace_explorer.read.collection import TraceStore, load_collection
from trace_explorer.index.build import build_index
from trace_explorer.sources.store_source import StoreSource

THE_TEN = ("arguments-not-json", "bad-literal", "dangling-derivation", "unreachable-step", "cycle", "unknown-type",
           "time-before-parent", "damaged-quoted-triple", "missing-text", "unfinished")


def files_source(*files: tuple[str, bytes | str], texts: dict[str, str] | None = None) -> StoreSource:
    collection = TraceStore()
    for name, data in files:
        collection.add_file(name, data.encode() if isinstance(data, str) else data)
    collection.documents.update(texts or {})
    return StoreSource(collection.store, documents=collection.documents, index=build_index(collection.store))


def findings_of(trace: str, texts: dict[str, str]):
    both = {**documents(HEALTHY), **texts}
    source = files_source(("healthy.trig", healthy(HEALTHY)), ("broken.trig", trace), texts=both)
    return list(check_source(source))


@pytest.mark.parametrize("rule", THE_TEN)
def test_each_rule_finds_the_trace_built_to_break_it_and_names_nothing_healthy(rule):
    trace, texts, (session, step, triple) = BROKEN[rule]
    found = findings_of(trace, texts)
    assert not [f for f in found if HEALTHY in f.session or sub(HEALTHY) == f.session]
    mine = [f for f in found if f.rule == rule]
    assert mine, found
    assert {f.session for f in mine} == {session}
    if rule == "cycle":  # on one of the two derivations of the cycle, and the step it starts from
        other = f"<{BROKEN_ID}/i1> <http://www.w3.org/ns/prov#wasDerivedFrom> <{BROKEN_ID}/pattern-decision>"
        assert [(f.step, f.triple) for f in mine] in ([(step, triple)], [(f"{BROKEN_ID}/i1", other)])
    else:
        assert any(f.step == step for f in mine), mine
        assert any(f.triple == triple for f in mine), mine
    assert all(f.severity == RULES[rule].severity for f in mine)
    # nothing else is said of the broken session but what breaking this rule means
    others = {f.rule for f in found} - {rule}
    # a damaged edge or a missing observation leaves the answer that came from it unsupported
    expected_too = {"damaged-quoted-triple": {"unsupported-sentence"},
                    "missing-text": {"unsupported-sentence"}}.get(rule, set())
    assert others <= expected_too, found


def test_the_healthy_pair_alone_has_no_finding_at_all():
    source = files_source(("healthy.trig", healthy(HEALTHY)), texts=documents(HEALTHY))
    assert list(check_source(source)) == []


def test_severities_are_those_of_the_issue():
    assert RULES["unfinished"].severity == "info"
    assert {r: RULES[r].severity for r in THE_TEN if RULES[r].severity == "error"} == {
        "dangling-derivation": "error", "unreachable-step": "error", "cycle": "error", "damaged-quoted-triple": "error"}


def test_a_bad_time_is_a_bad_literal_on_the_root():
    trace = healthy(BROKEN_ID, started="not a time")
    found = [f for f in findings_of(trace, documents(BROKEN_ID)) if f.rule == "bad-literal"]
    assert [(f.session, f.step, f.triple) for f in found] == [
        (BROKEN_ID, BROKEN_ID, f'<{BROKEN_ID}> <http://www.w3.org/ns/prov#startedAtTime> "not a time"')]


@pytest.mark.parametrize("name", TRACE_FILES)
def test_each_clean_reference_file_has_no_error_or_warning(name):
    source = files_source(*[(p.name, p.read_bytes()) for p in corpus_paths(name)])
    found = list(check_source(source))
    assert [f for f in found if f.severity != "info"] == []


def test_the_whole_corpus_has_only_the_infos_it_should():
    collection, errors = load_collection([CORPUS])
    assert errors == []
    source = StoreSource(collection.store, documents=collection.documents, index=build_index(collection.store))
    found = list(check_source(source))
    unfinished = sorted(f.session for f in found if f.rule == "unfinished")
    from tests.conftest import manifest_sessions
    assert unfinished == sorted(s["session"] for s in manifest_sessions() if not s["has_answer"])
    # no "missing-chunk-text": demo-chunks.documents.json holds a text for every DocRAG chunk
    assert {f.rule for f in found} == {"unfinished", "unsupported-sentence"}
    from tests.answer_support_truth import UNSUPPORTED
    reference = {s["session"] for s in manifest_sessions()}
    unsupported = Counter(f.session for f in found if f.rule == "unsupported-sentence")
    assert unsupported == {s: n for s, n in UNSUPPORTED.items() if s in reference}


def test_the_shapes_file_names_each_shape_rule_with_the_catalog_severity():
    graph = shacl.shapes_graph()
    severity = {SH.Violation: "error", SH.Warning: "warning", SH.Info: "info"}
    seen = {}
    for shape, rule in graph.subject_objects(shacl.RULE):
        constraints = [shape] + list(graph.objects(shape, SH.property))
        for node in constraints:
            value = graph.value(node, SH.severity)
            if value is not None:
                seen.setdefault(str(rule), set()).add(severity[value])
    assert seen == {r.id: {r.severity} for r in RULES.values() if r.found_by == "shape"}


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pyshacl's own use of rdflib's Dataset
def test_the_shapes_are_plain_shacl_core_that_pyshacl_runs_on_a_file():
    import pyshacl

    trig = healthy(BROKEN_ID, extra=f"<{BROKEN_ID}/i1> a <https://trustgraph.ai/ns/Daydream> .") \
        .replace("<< <http://e/a> <http://e/knows> <http://e/b> >>", '"<<damaged"')
    turtle = trig.replace("<urn:graph:retrieval> {", "").rsplit("}", 1)[0]  # the one graph's triples
    data = rdflib.Graph().parse(data=turtle, format="turtle")
    conforms, report, _ = pyshacl.validate(data, shacl_graph=str(shacl.SHAPES_PATH), allow_warnings=True)
    messages = {str(m) for m in report.objects(None, SH.resultMessage)}
    assert not conforms
    assert "a class in the TrustGraph namespace that the trace model does not know" in messages
    assert "the chosen edge survives only as a literal that does not read as a quoted triple" in messages


ODD_SHAPE_DATA = """@prefix tg: <https://trustgraph.ai/ns/> . @prefix prov: <http://www.w3.org/ns/prov#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<urn:a> a "https://trustgraph.ai/ns/Bogus", tg:Weird, _:c, <http://other/X>, tg:Thought ;
    tg:document <urn:d1>, "lit", _:d2, <urn:d3> . <urn:d3> tg:content "x" .
_:b a tg:MyThought ; tg:document <urn:d4> . tg:MyThought rdfs:subClassOf tg:Sub . tg:Sub rdfs:subClassOf tg:Reflection .
_:c rdfs:subClassOf tg:ChunkSelection . <urn:e> a _:c ; tg:document <urn:d5> .
<urn:f> prov:wasDerivedFrom "lit", "01"^^xsd:integer, _:z, <urn:g>, <urn:h>, <urn:a> .
<urn:g> tg:query "q" . <urn:h> prov:wasGeneratedBy <urn:x> .
<urn:f> tg:edge "bad", "1.0"^^xsd:decimal, <urn:iri>, <<( <urn:s> <urn:p> <urn:o> )>> ; tg:contains "bad"@fr, _:y .
"""


def _shape_results(results):
    return sorted((r.rule, r.severity, r.focus, r.path, None if r.value is None else str(r.value), r.message)
                  for r in results)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pyshacl's own use of rdflib's Dataset
@pytest.mark.parametrize("case", ["corpus", "odd terms", *THE_TEN])
def test_the_shapes_checked_in_code_report_what_pyshacl_reports(case):
    import pyoxigraph as ox

    from trace_explorer.analysis.health import shape_checks

    if case == "corpus":
        collection, _ = load_collection([CORPUS])
        data = [q.triple for q in collection.store]
    elif case == "odd terms":
        data = list(ox.parse(ODD_SHAPE_DATA, format=ox.RdfFormat.TURTLE))
    else:
        trace, texts, _ = BROKEN[case]
        collection = TraceStore()
        collection.add_file("healthy.trig", healthy(HEALTHY).encode())
        collection.add_file("broken.trig", trace.encode())
        content = ox.NamedNode("https://trustgraph.ai/ns/content")
        data = [q.triple for q in collection.store] + [ox.Triple(ox.NamedNode(d), content, ox.Literal(t))
                                                       for d, t in {**documents(HEALTHY), **texts}.items()]
    expected = _shape_results(shacl.validate(data))
    assert _shape_results(shape_checks.check(data)) == expected
    # the same from a triple index of the data (as the health check gathers them), and with the
    # texts given apart from it
    assert _shape_results(shape_checks.check_indexed(TripleIndex(data))) == expected
    texts = [t for t in data if t.predicate.value == CONTENT and isinstance(t.subject, ox.NamedNode)]
    rest = [t for t in data if t not in texts]
    assert _shape_results(shape_checks.check_indexed(TripleIndex(rest), [],
                                                     [t.subject.value for t in texts])) == expected
    assert expected or case not in ("corpus", "odd terms", "unknown-type", "missing-text")


def test_messages_keep_hostile_text_as_text():
    hostile = '<script>alert(1)</script>'
    trace = healthy(BROKEN_ID, arguments=hostile)
    found = [f for f in findings_of(trace, documents(BROKEN_ID)) if f.rule == "arguments-not-json"]
    assert hostile in found[0].message and hostile.replace('"', '\\"') in found[0].triple


def test_lint_reads_a_store_and_an_in_memory_collection_alike(tmp_path):
    from trace_explorer.store.ingest import ingest_file
    from trace_explorer.store.local_store import local_source, open_local_store

    trace, texts, _ = BROKEN["missing-text"]
    (tmp_path / "broken.trig").write_text(trace)
    import json
    (tmp_path / "broken.documents.json").write_text(json.dumps(texts))
    store = open_local_store(tmp_path / "store")
    for name in ("broken.trig", "broken.documents.json"):
        ingest_file(store, str(tmp_path / name))
    store.close()
    from_store = list(check_source(local_source(tmp_path / "store")))
    in_memory = findings_of(trace, texts)
    assert from_store == in_memory
