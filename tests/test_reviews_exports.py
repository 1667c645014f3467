"""The exports carry the session's reviews (issue 42): the page and Markdown show them escaped
(review text is untrusted), with reviewers' disagreement; the data export writes them beside
the triples as Web Annotations that import back, and a folder of trace files leaves them out."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.conftest import corpus_paths
from tests.review_targets import AGENT
from trace_explorer.analysis.support.support import AnswerSupport
from trace_explorer.export.data import data_archive, export_session_data, reviews_path, write_session_data
from trace_explorer.export.markdown import session_markdown
from trace_explorer.export.page import session_page
from trace_explorer.export.reviews_section import reviews_html
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import folder_files, load_collection
from trace_explorer.reviews import Review, Selector
from trace_explorer.reviews.exchange import read_reviews
from trace_explorer.reviews.review import now

HOSTILE = '<script>alert("x")</script> **bold** [link](javascript:alert(1)) \x1b[31m'


@pytest.fixture(scope="module")
def seed():
    collection, errors = load_collection(corpus_paths("seed-sessions.ttl"))
    assert errors == []
    sessions = {s.id: s for s in read_sessions(collection)}
    return collection, sessions, sessions[AGENT["session"]]


@pytest.fixture(scope="module")
def reviews():
    t = now()
    step = AGENT["session"] + "/i1"
    return [Review(id="urn:uuid:00000000-0000-4000-8000-000000000001", target=step, label="wrong-tool", author="alice",
                   created=t, modified=t, session=AGENT["session"], comment=HOSTILE, score=0.5),
            Review(id="urn:uuid:00000000-0000-4000-8000-000000000002", target=step, label="correct", author="bob",
                   created=t, modified=t, session=AGENT["session"]),
            Review(id="urn:uuid:00000000-0000-4000-8000-000000000003", target=AGENT["session"], label="unsupported",
                   author="<b>eve</b>", created=t, modified=t, session=AGENT["session"],
                   selector=Selector(AGENT["answer"][:5], 0, 5))]


def test_the_page_shows_the_reviews_escaped_with_disagreement(seed, reviews):
    _, sessions, session = seed
    # the answer's support is another section's: left unchecked here, so that its models need not load
    unchecked = AnswerSupport(session.id, session.answer, [], [], unchecked="not checked here")
    page = session_page(session, sessions, reviews=reviews, support=unchecked)
    section = page[page.index('<section id="reviews">'):page.index("</section>", page.index('<section id="reviews">'))]
    assert section.count("<tr>") == 4  # the heading row and three reviews
    assert "&lt;script&gt;alert(\"x\")&lt;/script&gt;" in section and "<script>alert" not in page
    assert "&lt;b&gt;eve&lt;/b&gt;" in section and "␛[31m" in section
    assert section.count("reviewers disagree") == 1 and "“Paris” (0–5)" in section
    assert reviews_html([]) == ""  # no section without a review


def test_markdown_shows_the_reviews_escaped(seed, reviews):
    _, sessions, session = seed
    unchecked = AnswerSupport(session.id, session.answer, [], [], unchecked="not checked here")
    text = session_markdown(session, sessions, reviews=reviews, support=unchecked)
    part = text[text.index("## Reviews"):]
    assert "\\<script\\>" in part and "\\*\\*bold\\*\\*" in part and "<script>" not in part
    assert "**wrong-tool**" in part and ", score 0.5 by alice" in part and "— **reviewers disagree**" in part
    assert "## Reviews" not in session_markdown(session, sessions, support=unchecked)


def test_the_data_export_writes_the_reviews_beside_the_triples(seed, reviews, tmp_path):
    collection, sessions, session = seed
    path = tmp_path / "session.trig"
    written, export = write_session_data(path, collection, session, sessions, reviews=reviews)
    assert reviews_path(path) == tmp_path / "session.reviews.jsonld" and reviews_path(path) in written
    assert read_reviews(reviews_path(path)) == sorted(reviews, key=lambda r: (r.created, r.id))
    assert "oa#Annotation" not in path.read_text(encoding="utf-8")  # never among the session's triples
    assert reviews_path(path) not in folder_files(tmp_path) and path in folder_files(tmp_path)
    archive = zipfile.ZipFile(io.BytesIO(data_archive("session.trig", export)))
    assert "session.reviews.jsonld" in archive.namelist()
    without = export_session_data(collection, session, sessions, ".trig")
    assert without.reviews == [] and "session.reviews.jsonld" not in zipfile.ZipFile(
        io.BytesIO(data_archive("session.trig", without))).namelist()
