"""The adversary's upload attacks, replayed in the app (``AppTest``: each ``fresh`` is a new
browser session): a file with no triple is refused and kept nowhere; one visitor's uploads at a
small cap never make another visitor's link "gone"; past the memory budget for parsed uploads
an upload is refused with a message."""

from __future__ import annotations

from tests.conftest import CORPUS, MANIFEST, demo_sessions
from streamlit.testing.v1 import AppTest

from tests.test_app import REPO, table_ids, unescape
from tests.test_app_links import app_env, fresh, param  # noqa: F401 - a fixture

SEED = sorted(s["session"] for s in MANIFEST["seed-sessions.ttl"]["sessions"])
DEMO_TOP = sorted(s["session"] for s in demo_sessions() if s["parent"] is None)


def errors(at) -> list[str]:
    return [unescape(e.value) for e in at.sidebar.error]


def padded(i: int, size: int) -> bytes:
    """A Turtle file of ``size`` bytes: one triple, then a comment."""
    head = f"<urn:x:{i}> <urn:x:p> <urn:x:o> .\n# ".encode()
    return head + b"x" * (size - len(head) - 1) + b"\n"


def test_a_file_with_no_triple_is_refused_and_kept_nowhere(app_env):
    at = fresh()
    at.sidebar.file_uploader[0].set_value(("comments.ttl", b"# only\n# comments\n\n", "text/turtle")).run()
    assert errors(at) == ["comments.ttl: expected triples (a trace file) or texts (a *.documents.json content "
                          "file); it holds neither (comments or blank lines only), so it was not kept"]
    assert param(at, "files") is None and not (app_env / "uploads" / "sets").exists()
    assert sorted(table_ids(at)) == DEMO_TOP  # the demo stays: nothing of the visitor's replaced it


def test_one_visitors_uploads_never_make_anothers_link_gone(app_env, monkeypatch):
    # the adversary: four uploads at an 8 MiB cap made another visitor's link "gone"; here the
    # cap is 200 KiB (quota 51.2 KiB, a quarter) and four files of 50 KB go up one after another:
    # with one shared cap, theirs (used longest ago) went
    monkeypatch.setenv("TRACE_EXPLORER_UPLOAD_CACHE_MB", "0.2")
    theirs = fresh()
    theirs.sidebar.file_uploader[0].set_value(("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes(),
                                               "text/turtle")).run()
    link = param(theirs, "files")
    mine, said = fresh(), []
    for i in range(4):
        mine.sidebar.file_uploader[0].set_value((f"big-{i}.ttl", padded(i, 50_000), "text/turtle")).run()
        said.append(errors(mine))
    assert said[:2] == [[], ["Your files are shown, but not kept for a reload or a link: 100,288 bytes of files is "
                             "more than this server keeps for one person (52,428 bytes)."]]
    assert said[3] == ["Your files are shown, but not kept for a reload or a link: earlier files of yours were not "
                       "kept (Remove my files starts again)."]
    assert sorted(table_ids(fresh(files=link))) == SEED  # their link still opens


def test_a_signed_in_users_quota_is_theirs_in_every_browser_session(app_env, monkeypatch):
    monkeypatch.setenv("TRACE_EXPLORER_UPLOAD_CACHE_MB", "0.2")
    links = []
    for i in range(2):  # the same person, two browsers: their second set pushes out their first
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
        at.user = {"is_logged_in": True, "email": "Ada@example.org", "name": "Ada"}
        at.run()
        at.sidebar.file_uploader[0].set_value((f"big-{i}.ttl", padded(i, 50_000), "text/turtle")).run()
        links.append(param(at, "files"))
    assert links[0] != links[1]
    assert [unescape(w.value)[:31] for w in fresh(files=links[0]).sidebar.warning] == ["The files of this link are gone"]
    assert not fresh(files=links[1]).sidebar.warning


def test_past_the_memory_budget_an_upload_is_refused_with_a_message(app_env, monkeypatch):
    monkeypatch.setenv("TRACE_EXPLORER_UPLOAD_MEMORY_MB", "0.05")  # 51.2 KiB: a 15 KB file counts 105 KB
    at = fresh()
    at.sidebar.file_uploader[0].set_value(("budget.ttl", padded(7, 15_000), "text/turtle")).run()
    assert errors(at) == ["budget.ttl: not read: this file would hold about 102.5 KiB of memory once read, more than "
                          "this server gives to everyone's uploads together (51.2 KiB, set by "
                          "TRACE_EXPLORER_UPLOAD_MEMORY_MB); ingest it into a local store instead (trace-explorer "
                          "ingest FILE --store DIR)"]
    assert param(at, "files") is None and sorted(table_ids(at)) == DEMO_TOP
