"""Two people on one server (two AppTest sessions in one process, sharing its caches) upload a
file of the same name with different bytes: each sees their own file's sessions, never the
other's, though the parse cache is shared (it is keyed by the name and the bytes' SHA-256)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.list_support import files_table, list_rows
from tests.conftest import CORPUS, manifest_sessions
from tests.test_app import REPO, open_session, table_ids

SEED = {s["session"]: s["question"] for s in manifest_sessions("seed-sessions.ttl")}
FRANCE = "urn:trustgraph:agent:6513270e-269e-4d37-b2a7-4de452e6b438"


def _trace(question: str) -> bytes:
    """The seed sessions, with the France session asking ``question``."""
    return (CORPUS / "seed-sessions.ttl").read_bytes().replace(SEED[FRANCE].encode(), question.encode())


def _person(question: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
    at.sidebar.file_uploader[0].set_value([("trace.ttl", _trace(question), "text/turtle")]).run()
    assert not at.exception, at.exception
    return at


def test_the_same_file_name_with_different_bytes_stays_each_persons_own():
    a = _person("Which city did person A ask about?")
    b = _person("Which river did person B ask about?")
    for at, mine, theirs in ((a, "person A", "person B"), (b, "person B", "person A")):
        assert sorted(table_ids(at)) == sorted(SEED)
        questions = {row["id"]: row["question"] for row in list_rows(at)}
        assert mine in questions[FRANCE] and theirs not in " ".join(questions.values())
        files = files_table(at)
        assert files["File"].tolist() == ["trace.ttl"]
    # the same IRI, each person's own session page
    a_page = open_session(FRANCE, at=a)
    b_page = open_session(FRANCE, at=b)
    assert a_page.main.subheader[0].value.replace("\\", "") == "Which city did person A ask about?"
    assert b_page.main.subheader[0].value.replace("\\", "") == "Which river did person B ask about?"
    # and a third person with the first person's exact bytes gets that parse, still their own
    c = _person("Which city did person A ask about?")
    assert "person A" in {row["id"]: row["question"] for row in list_rows(c)}[FRANCE]
