"""The labelled answer-support corpus (``benchmarks/data/support``, written by
``scripts/trustgraph_services/generate.py --support cases.json``: TrustGraph 2.11.1's own services
ran each case) read back by the project: every case's session is there with its mechanism and
pattern, its answer is the one the project reads, each sentence's span is its text, and each
labelled step is a step of that session (or of one of its sub-sessions) whose text answer support
reads (``evidence.session_sources``): the same step, kind, chunk and edge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_explorer.analysis.support.evidence import session_sources
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection

HERE = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "support"
FILES = [HERE / "support.trig", HERE / "support.documents.json"]
LABELS = json.loads((HERE / "labels.json").read_text(encoding="utf-8"))["cases"]
SPEC = json.loads((HERE / "cases.json").read_text(encoding="utf-8"))["cases"]
TEXTS = json.loads(FILES[1].read_text(encoding="utf-8"))
MECHANISM = {"react": ("Agent", "react"), "plan": ("Agent", "plan-then-execute"),
             "supervisor": ("Agent", "supervisor"), "graphrag": ("GraphRAG", None),
             "docrag": ("DocRAG", None)}
SOURCE_KINDS = {"Observation", "StepResult", "Finding", "Edge", "Chunk"}


@pytest.fixture(scope="module")
def sessions():
    collection, errors = load_collection(FILES)
    assert errors == []
    return {s.id: s for s in read_sessions(collection)}


def family(sessions, root):
    """The session ``root`` and every session below it."""
    out, todo = [], [root]
    while todo:
        session = sessions[todo.pop(0)]
        out.append(session)
        todo.extend(session.children)
    return out


def test_the_labels_are_the_spec_cases_in_order():
    """One labelled case per spec case, same id, half and mechanism, the same sentences (compared
    without printing them: the held-out half stays unread)."""
    assert [(c["id"], c["half"], c["mechanism"]) for c in LABELS] == \
        [(c["id"], c["half"], c["mechanism"]) for c in SPEC]
    for label, spec in zip(LABELS, SPEC):
        same = [s["text"] for s in label["sentences"]] == [s["text"] for s in spec["answer"]]
        assert same, f"{label['id']}: the sentences differ from the spec"
        assert [len(s["support"]) for s in label["sentences"]] == [len(s["support"]) for s in spec["answer"]]


def test_every_mechanism_and_half_is_there():
    """Each mechanism, DocRAG with and without the reranker, and both halves."""
    assert {c["mechanism"] for c in LABELS} == set(MECHANISM)
    assert {c["rerank"] for c in SPEC if c["mechanism"] == "docrag"} == {True, False}
    assert {c["half"] for c in LABELS} == {"dev", "held-out"}


@pytest.mark.parametrize("label", LABELS, ids=[c["id"] for c in LABELS])
def test_each_case_reads_as_labelled(sessions, label):
    session = sessions[label["session"]]
    assert (session.mechanism, session.pattern) == MECHANISM[label["mechanism"]]
    assert session.parent is None
    assert session.answer == label["answer"]
    assert [m.warnings for m in family(sessions, session.id)] == [[]] * len(family(sessions, session.id))
    for sentence in label["sentences"]:
        assert label["answer"][sentence["start"]:sentence["end"]] == sentence["text"]
    sources = {(s.step, s.kind, s.chunk, s.edge): s.text
               for member in family(sessions, session.id)
               for s in session_sources(member, TEXTS)}
    steps = {step.id: step for member in family(sessions, session.id) for step in member.steps}
    for sentence in label["sentences"]:
        for ref in sentence["support"]:
            assert ref["kind"] in SOURCE_KINDS
            key = (ref["step"], ref["kind"], ref["chunk"], tuple(ref["edge"]) if ref["edge"] else None)
            assert key in sources, f"{label['id']}: {key} is no source of the session"
            assert sources[key].strip()
            if "also" in ref:
                analysis = steps[ref["also"]["step"]]
                assert analysis.kind == ref["also"]["kind"] == "Analysis"
                assert analysis.fields["observation_id"] == ref["step"]
                assert "expression" in analysis.fields["arguments"]
