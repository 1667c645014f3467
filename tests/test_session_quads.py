"""A session's own quads: enough to read the same session again, nothing of other sessions."""

from __future__ import annotations

import pytest

from tests.conftest import manifest_sessions
from trace_explorer.export.quads import session_quads, subjects_sessions
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import TraceStore
from trace_explorer.views.report import session_detail

SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"


@pytest.mark.parametrize("iri", [s["session"] for s in manifest_sessions()], ids=lambda i: i[-12:])
def test_a_session_reads_the_same_from_its_own_quads(corpus_collection, iri):
    collection, sessions = corpus_collection
    alone = TraceStore(documents=collection.documents)
    alone.store.extend(session_quads(collection, sessions[iri], sessions))
    again = {s.id: s for s in read_sessions(alone)}
    assert session_detail(again[iri]) | {"parent_session": None} == session_detail(sessions[iri]) | {"parent_session": None}


def test_sub_sessions_come_along_unless_left_out(corpus_collection):
    collection, sessions = corpus_collection
    supervisor = sessions[SUPERVISOR]
    assert subjects_sessions(supervisor, sessions) == supervisor.children and len(supervisor.children) == 2
    with_children = {q.subject.value for q in session_quads(collection, supervisor, sessions)}
    without = {q.subject.value for q in session_quads(collection, supervisor, sessions, include_children=False)}
    assert set(supervisor.children) <= with_children
    assert not set(supervisor.children) & without
    assert all(s.startswith(SUPERVISOR) for s in without)
