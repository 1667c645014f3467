"""Several people on one server, in real browser contexts at the same time (headless Debian
Chromium through Playwright's driver): one person's uploads, filters and chosen session are never
another's, and several people at once all get correct pages. Timings are the business of
``benchmarks/concurrent_users.py``; nothing here is timed. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import csv
import importlib.util
import io
import re
import sys
import urllib.parse

import pytest
from playwright.sync_api import expect

from tests.browser_support import (
    HEADLESS_SHELL_PATH,
    REDUCED_MOTION,
    REPO_ROOT,
    browser_contexts,
    open_source_panel,
    poll,
    run_async,
    screenshot,
    wait_for_streamlit_idle,
)
from tests.conftest import CORPUS, MANIFEST, demo_sessions
from tests.list_support import open_row

browser = pytest.mark.browser  # fails (never skips) without Chromium: see tests/conftest.py


def _module(name: str, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


concurrent_users = _module("benchmark_concurrent_users", REPO_ROOT / "benchmarks" / "concurrent_users.py")

TOP = {s["session"]: s["question"] for s in demo_sessions() if s["parent"] is None}
SEED = {s["session"]: s["question"] for s in MANIFEST["seed-sessions.ttl"]["sessions"]}
DEMO_CAPTION = f"1–{len(TOP)} of {len(TOP)} matching · {len(TOP)} top-level sessions in all"
CAPTION = re.compile(r"^(?:\d+–\d+|0) of [\d,]+ matching")

# Person A's file: the corpus's seed sessions, one of them asking a question no one else has.
FRANCE = "urn:trustgraph:agent:6513270e-269e-4d37-b2a7-4de452e6b438"
SECRET = "zebra7781"
QUESTION_A = f"Which {SECRET} city did person A ask about?"
SECRET_TRACE = (CORPUS / "seed-sessions.ttl").read_bytes().replace(SEED[FRANCE].encode(), QUESTION_A.encode())
BRONZE = "Bronze"
# People at once in the suite; benchmarks/concurrent_users.py runs ten and times them.
PEOPLE = 3


def people(count: int, viewport=(1440, 1100)):
    """``count`` pages in browser contexts of their own (own cookies, own Streamlit session), open
    at the same time in one headless Chromium."""
    return browser_contexts(count, viewport, default_timeout_ms=60000)


def caption(page) -> str:
    return page.get_by_text(CAPTION).first.inner_text()


def caption_starts(page, prefix: str, timeout_s: float = 60) -> bool:
    """Whether the list's caption starts with ``prefix`` within ``timeout_s``: a rerun a click or
    an upload asks for may begin a moment after the page last looked idle."""
    text = poll(page, lambda: caption(page), lambda text: text.startswith(prefix), timeout_s * 1000)
    assert text.startswith(prefix), f"the caption is {text!r}, expected {prefix!r}…"
    return True


def search(page, text: str) -> None:
    box = page.get_by_placeholder("any words, or answer:, tool:, error:, question:")
    box.fill(text)
    box.press("Enter")
    wait_for_streamlit_idle(page)


def listed(page) -> list[dict]:
    """The rows of the list as this person sees them, from the page's own "Download CSV"."""
    with page.expect_download() as download:
        page.get_by_role("button", name="Download CSV").click()
    with open(download.value.path(), encoding="utf-8") as handle:
        return list(csv.DictReader(io.StringIO(handle.read())))


def heading(page) -> str:
    return page.locator('[data-testid="stMain"] [data-testid="stHeading"]').first.inner_text().strip()


def session_url(base: str, iri: str) -> str:
    return f"{base}/session?session={urllib.parse.quote(iri, safe='')}"


@browser
def test_two_people_at_once_never_see_each_others_uploads_filters_or_session(app_url):
    assert SECRET_TRACE.count(QUESTION_A.encode()) == 1
    with people(2) as (a, b):
        for page in (a, b):
            page.goto(app_url + "/")
        for page in (a, b):
            wait_for_streamlit_idle(page)
            assert caption_starts(page, DEMO_CAPTION)

        # A uploads a file of their own: A's list is that file's sessions, with A's question
        open_source_panel(a)
        a.locator('[data-testid="stSidebar"] [data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            files=[{"name": "person-a.ttl", "mimeType": "text/turtle", "buffer": SECRET_TRACE}])
        wait_for_streamlit_idle(a)
        assert caption_starts(a, f"1–{len(SEED)} of {len(SEED)} matching · {len(SEED)} top-level sessions in all")
        expect(a.get_by_text(f"{len(SEED)} top-level sessions · from 1 file of yours")).to_be_visible()
        rows_a = {r["id"]: r["question"] for r in listed(a)}
        assert rows_a == {**SEED, FRANCE: QUESTION_A}

        # B, on the same server at the same time, still has the demo and cannot find A's question
        search(b, SECRET)
        assert caption_starts(b, f"0 of 0 matching · {len(TOP)} top-level sessions in all")
        expect(b.get_by_text("No session matches these filters.")).to_be_visible()
        search(b, "")
        assert caption_starts(b, DEMO_CAPTION)
        rows_b = {r["id"]: r["question"] for r in listed(b)}
        assert rows_b == TOP and not any(SECRET in q for q in rows_b.values())

        # filters are each person's own: A narrows to the secret, B to "Bronze"
        search(a, SECRET)
        assert caption_starts(a, f"1–1 of 1 matching · {len(SEED)} top-level sessions in all")
        search(b, BRONZE)
        bronze = sum(BRONZE in q for q in TOP.values())
        assert caption_starts(b, f"1–{bronze} of {bronze} matching · {len(TOP)} top-level sessions in all")
        assert a.get_by_placeholder("any words, or answer:, tool:, error:, question:").input_value() == SECRET
        assert caption_starts(a, "1–1 of 1 matching")

        # A opens their one row; the same IRI is a different session for B (the demo's)
        open_row(a)
        a.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(a)
        assert urllib.parse.parse_qs(urllib.parse.urlparse(a.url).query)["session"] == [FRANCE]
        assert heading(a) == QUESTION_A
        screenshot(a, "users-a-own-session")
        b.goto(session_url(app_url, FRANCE))
        wait_for_streamlit_idle(b)
        assert heading(b) == SEED[FRANCE] == "What is the capital of France?"
        screenshot(b, "users-b-same-iri-demo-session")
        # A's choice of session is not B's: B's session page without a session asks for one
        b.goto(app_url + "/session")
        wait_for_streamlit_idle(b)
        expect(b.get_by_text("No session chosen yet. Pick one from the session list.")).to_be_visible()

        # back on A's list (in the app, same session): A's file and A's filter are still there
        a.locator('[data-testid="stMain"] [data-testid="stPageLink"]').filter(has_text="Sessions").first.click()
        wait_for_streamlit_idle(a)
        assert a.get_by_placeholder("any words, or answer:, tool:, error:, question:").input_value() == SECRET
        assert caption_starts(a, f"1–1 of 1 matching · {len(SEED)} top-level sessions in all")
        screenshot(a, "users-a-list-after")


@browser
def test_people_at_once_all_get_correct_pages(app_url):
    expected = concurrent_users.expected_from_manifest(CORPUS / "manifest.json")
    assert expected.top == TOP and expected.total == len(demo_sessions())
    visits = run_async(concurrent_users.run_users(app_url, PEOPLE, expected, sessions=2, executable=HEADLESS_SHELL_PATH,
                                                   reduced_motion=REDUCED_MOTION))
    assert [v.user for v in visits] == list(range(PEOPLE))
    for visit in visits:
        assert visit.problems(expected) == []
        assert visit.caption.startswith(DEMO_CAPTION)
        assert visit.sessions_metric == str(expected.total)
        assert [p.iri for p in visit.opened] == concurrent_users.picks_for(visit.user, expected, 2)
        assert [p.heading for p in visit.opened] == [TOP[p.iri] for p in visit.opened]
    # between them, the people open different sessions, two each (every one when there are fewer)
    assert len({p.iri for v in visits for p in v.opened}) == min(len(TOP), 2 * PEOPLE)


def test_a_wrong_page_is_reported_by_the_visit_checks():
    expected = concurrent_users.expected_from_manifest(CORPUS / "manifest.json")
    iri = sorted(TOP)[0]
    good = concurrent_users.Visit(0, 1.0, DEMO_CAPTION + " · newest first", str(expected.total),
                                  [concurrent_users.Opened(iri, TOP[iri], TOP[iri], True, None, 1.0)])
    assert good.problems(expected) == []
    wrong = concurrent_users.Visit(1, 1.0, "1–5 of 5 matching · 5 top-level sessions in all", "5",
                                   [concurrent_users.Opened(iri, TOP[iri], QUESTION_A, False, "KeyError: 'x'", 1.0)])
    assert wrong.problems(expected) == [
        f"user 1: list caption '1–5 of 5 matching · 5 top-level sessions in all', expected {DEMO_CAPTION!r}…",
        f"user 1: sidebar Sessions '5', expected {expected.total}",
        f"user 1: {iri} shows {QUESTION_A!r}, expected {TOP[iri]!r}",
        f"user 1: {iri} is not named on its page",
        f"user 1: {iri} shows an exception: KeyError: 'x'"]


@browser
def test_a_file_over_streamlits_upload_limit_is_refused_by_the_browser_with_its_name_and_the_limit():
    from tests.browser_support import streamlit_server

    with streamlit_server(env={"STREAMLIT_SERVER_MAX_UPLOAD_SIZE": "1"}) as url, people(1) as (page,):
        page.goto(url + "/")
        wait_for_streamlit_idle(page)
        open_source_panel(page)
        page.locator('[data-testid="stSidebar"] [data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            files=[{"name": "too-big.ttl", "mimeType": "text/turtle", "buffer": b"#" * 1_500_000}])
        wait_for_streamlit_idle(page)
        uploader = page.locator('[data-testid="stSidebar"] [data-testid="stFileUploader"]')
        assert "too-big.ttl\n1.5MB\nError: File must be 1.0MB or smaller." in uploader.inner_text()
        assert caption_starts(page, DEMO_CAPTION)  # nothing reached the app; the demo stays
        assert page.locator('[data-testid="stException"]').count() == 0
        screenshot(page, "users-upload-over-streamlit-limit")


def _address(page) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)


def _sidebar_says(page, text: str) -> bool:
    return page.locator('[data-testid="stSidebar"]').get_by_text(text).first.is_visible()


@browser
def test_a_persons_store_is_remembered_in_their_address_never_for_another(app_url, app_store_root):
    from trace_explorer.cli.main import main

    store = app_store_root / "store-of-a"
    assert main(["ingest", str(CORPUS / "seed-sessions.ttl"), "--store", str(store), "--quiet"]) == 0
    from_store = f"{len(SEED)} top-level sessions · from store store-of-a"
    with people(2) as (a, b):
        a.goto(app_url + "/")
        wait_for_streamlit_idle(a)
        open_source_panel(a)
        a.locator('[data-testid="stSidebar"]').get_by_role("radio", name="Local store").click()
        wait_for_streamlit_idle(a)
        a.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').click()  # the offered stores, by name
        a.get_by_role("option", name="store-of-a").click()
        wait_for_streamlit_idle(a)
        assert caption_starts(a, f"1–{len(SEED)} of {len(SEED)} matching")
        assert _sidebar_says(a, from_store)
        assert _address(a)["store"] == ["store-of-a"]  # its name, never its path
        # a reload keeps A on their store (a new Streamlit session, told by the address only)
        a.reload()
        wait_for_streamlit_idle(a)
        assert _sidebar_says(a, from_store) and {r["id"] for r in listed(a)} == set(SEED)
        # A opens a session: the address still names the store, so a reload there keeps it too
        open_row(a, 0)
        a.wait_for_url("**/session?*", timeout=30000)
        wait_for_streamlit_idle(a)
        assert "store" in _address(a), a.url
        assert _address(a)["store"] == ["store-of-a"] and _address(a)["session"][0] in SEED
        a.reload()
        wait_for_streamlit_idle(a)
        assert _sidebar_says(a, from_store) and heading(a) == SEED[_address(a)["session"][0]]
        screenshot(a, "users-a-store-in-address")
        # B, arriving afterwards at the app's own address, is on the demo, not on A's store
        b.goto(app_url + "/")
        wait_for_streamlit_idle(b)
        assert caption_starts(b, DEMO_CAPTION)
        assert _sidebar_says(b, f"{len(TOP)} top-level sessions · from demo traces")
        open_source_panel(b)
        assert "store" not in _address(b) and b.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').count() == 0
        assert b.locator('[data-testid="stSidebar"]').get_by_role("radio", name="Files").get_attribute("aria-checked") == "true"
        screenshot(b, "users-b-not-on-a-store")
