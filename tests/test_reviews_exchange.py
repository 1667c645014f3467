"""Reviews out of the store and back (issue 42): JSON-LD that the W3C Web Annotation context
expands to exactly the store's triples, Turtle, and imports that are idempotent."""

from __future__ import annotations

import json

import pyoxigraph as ox
import pytest
from pyld import jsonld as pyld

from tests.review_targets import ANSWER, GRAPHRAG, TARGETS
from trace_explorer.reviews import ReviewError, ReviewStore, Selector
from trace_explorer.reviews.exchange import export_text, read_reviews
from trace_explorer.reviews.jsonld import CONTEXT_URL, context_document, document_loader
from trace_explorer.reviews.store import CURRENT, STORE_DIR

OA = "http://www.w3.org/ns/oa#"


def _reviewed(folder):
    """A store with a review of each target kind, by two reviewers, one a span with a score."""
    store = ReviewStore(folder)
    for n, target in enumerate(TARGETS):
        store.add(target.iri, ("correct", "incorrect", "wrong-tool", "unsupported", "harmful")[n],
                  ("alice", "bob")[n % 2], session=target.session, comment=f"{target.kind}: <b>&</b>" if n % 2 else None)
    store.add(TARGETS[2].iri, "unsupported", "Zoë Ünicode", selector=Selector(ANSWER[:5], 0, 5), score=0.25,
              session=GRAPHRAG["session"], comment='made up "Paris"\nsecond line')
    return store


def _normalised(statements) -> set:
    """Triples as pyoxigraph keeps them (numbers and times in their canonical forms)."""
    store = ox.Store()
    store.extend(ox.Quad(s.subject, s.predicate, s.object) for s in statements)
    return set(store)


def test_the_jsonld_export_expands_with_the_w3c_context_to_the_stores_triples(tmp_path):
    store = _reviewed(tmp_path / "reviews")
    path = tmp_path / "reviews.jsonld"
    path.write_bytes(export_text(store.reviews_of(), path))
    annotations = json.loads(path.read_text(encoding="utf-8"))
    assert len(annotations) == 6
    for a in annotations:
        assert a["@context"] == CONTEXT_URL == "http://www.w3.org/ns/anno.jsonld"
        assert {"id", "type", "target", "body", "motivation", "creator", "created"} <= set(a)
        assert a["type"] == "Annotation"
    expanded = pyld.expand(annotations, {"documentLoader": document_loader})
    span = next(e for e in expanded if isinstance(e[OA + "hasTarget"][0], dict) and OA + "hasSelector" in e[OA + "hasTarget"][0])
    assert span["@type"] == [OA + "Annotation"]
    assert span[OA + "motivatedBy"] == [{"@id": OA + "assessing"}]
    assert span["http://purl.org/dc/terms/created"][0]["@type"] == "http://www.w3.org/2001/XMLSchema#dateTime"
    nquads = pyld.to_rdf(annotations, {"documentLoader": document_loader, "format": "application/n-quads"})
    from_jsonld = _normalised(ox.parse(nquads, format=ox.RdfFormat.N_QUADS))
    store.fold()  # the saves journaled since the first, written into the annotation store's own directory
    kept = ox.Store.read_only(str(tmp_path / "reviews" / STORE_DIR))
    in_store = _normalised(kept.quads_for_pattern(None, None, None, CURRENT))
    assert from_jsonld == in_store and len(in_store) > 80


def test_the_bundled_context_is_the_w3c_one():
    context = context_document()["@context"]
    assert context["oa"] == OA and context["schema"] == "http://schema.org/"
    assert context["motivation"] == {"@type": "@vocab", "@id": "oa:motivatedBy"}
    assert context["purpose"] == {"@type": "@vocab", "@id": "oa:hasPurpose"}
    assert context["created"] == {"@id": "dcterms:created", "@type": "xsd:dateTime"}
    assert context["assessing"] == "oa:assessing" and context["tagging"] == "oa:tagging"


@pytest.mark.parametrize("suffix", [".jsonld", ".ttl"])
def test_an_export_reimports_into_an_empty_store_as_the_same_reviews(tmp_path, suffix):
    made = _reviewed(tmp_path / "a").reviews_of()
    path = tmp_path / f"reviews{suffix}"
    path.write_bytes(export_text(made, path))
    empty = ReviewStore(tmp_path / "b")
    assert empty.put(read_reviews(path)) == (6, 0, 0)
    assert empty.reviews_of() == made
    assert empty.reviews_of(target=TARGETS[2].iri)[1].selector == Selector("Paris", 0, 5)
    assert empty.sessions_with(author="Zoë Ünicode") == {GRAPHRAG["session"]}
    # idempotent: the same file again is the same reviews, with no new change kept
    assert empty.put(read_reviews(path)) == (0, 0, 6)
    assert empty.reviews_of() == made
    assert all(len(empty.history(r.id)) == 1 for r in made)


def test_an_import_takes_a_newer_edit_and_leaves_an_older_one(tmp_path):
    source = ReviewStore(tmp_path / "a")
    review = source.add(TARGETS[1].iri, "correct", "alice", session=TARGETS[1].session)
    old = tmp_path / "old.jsonld"
    old.write_bytes(export_text(source.reviews_of(), old))
    edited = source.edit(review.id, "alice", label="incorrect")
    new = tmp_path / "new.jsonld"
    new.write_bytes(export_text(source.reviews_of(), new))
    target = ReviewStore(tmp_path / "b")
    assert target.put(read_reviews(old)) == (1, 0, 0)
    assert target.put(read_reviews(new)) == (0, 1, 0)
    assert target.put(read_reviews(old)) == (0, 0, 1)
    assert target.get(review.id) == edited
    assert [v.change for v in target.history(review.id)] == ["add", "edit"]


def test_web_annotations_from_another_tool_import_once(tmp_path):
    foreign = {"@context": "https://www.w3.org/ns/anno.jsonld", "type": "Annotation", "motivation": "assessing",
               "creator": {"type": "Person", "nickname": "carol"}, "created": "2026-03-09T10:00:00Z",
               "body": {"type": "TextualBody", "value": "needs-review", "purpose": "tagging"},
               "target": TARGETS[4].iri}
    path = tmp_path / "foreign.jsonld"
    path.write_text(json.dumps(foreign), encoding="utf-8")
    store = ReviewStore(tmp_path / "reviews")
    first, second = read_reviews(path), read_reviews(path)
    assert first == second and len(first) == 1
    assert first[0].id.startswith("urn:uuid:") and (first[0].label, first[0].target) == ("needs-review", TARGETS[4].iri)
    assert store.put(first) == (1, 0, 0) and store.put(second) == (0, 0, 1)
    # a session root as the target: its session told from its form, as ``add`` tells it, so the
    # review shows on its page
    on_session = dict(foreign, target=TARGETS[0].session)
    path.write_text(json.dumps(on_session), encoding="utf-8")
    store.put(read_reviews(path))
    assert [r.session for r in store.reviews_of(target=TARGETS[0].session)] == [TARGETS[0].session]


def test_a_file_naming_another_context_is_refused_without_fetching_it(tmp_path):
    path = tmp_path / "elsewhere.jsonld"
    path.write_text(json.dumps({"@context": "http://127.0.0.1:9/context.jsonld", "type": "Annotation"}),
                    encoding="utf-8")
    with pytest.raises(ReviewError, match="not Web Annotation JSON-LD: its @context is http://127.0.0.1:9/context.jsonld"):
        read_reviews(path)
    bad = tmp_path / "bad.ttl"
    bad.write_text("<urn:a> <urn:b> .", encoding="utf-8")
    with pytest.raises(ReviewError, match="bad.ttl"):
        read_reviews(bad)
    other = tmp_path / "x.docx"
    other.write_text("x", encoding="utf-8")
    with pytest.raises(ReviewError, match="expected a .jsonld"):
        read_reviews(other)


def test_a_label_the_store_does_not_offer_is_refused_before_anything_is_written(tmp_path):
    made = _reviewed(tmp_path / "a").reviews_of()
    path = tmp_path / "r.jsonld"
    path.write_bytes(export_text(made, path))
    narrow = ReviewStore(tmp_path / "b", labels=("correct",))
    with pytest.raises(ReviewError, match="unknown label"):
        narrow.put(read_reviews(path))
    assert narrow.reviews_of() == []
