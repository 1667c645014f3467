"""Work that lasts, in headless Chromium: a session from uploaded files survives a reload, a new
tab and a copied link (the address carries the files' digest); a digest that is gone says so and
how to keep files; ``TRUSTGRAPH_URL`` on a loopback stand-in opens with no form, its token never
in the page or the address; a typed gateway survives a reload, which asks for its token again."""

from __future__ import annotations

import urllib.parse

import pytest

from tests.browser_support import (
    chromium_page,
    open_source_panel,
    screenshot,
    streamlit_server,
    wait_for_streamlit_idle,
)
from tests.conftest import CORPUS, MANIFEST, manifest_sessions
from tests.list_support import expect_rows, open_row
from tests.test_browser_trustgraph import connect
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, corpus_gateway  # noqa: F401 - a fixture

pytestmark = pytest.mark.browser
SEED = [s for s in MANIFEST["seed-sessions.ttl"]["sessions"] if s["parent"] is None]
TOP = [s["session"] for s in manifest_sessions() if s["parent"] is None]
REACT = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
REACT_QUESTION = "¿Cuál es la montaña más alta de Europa? — 最高峰は？"
SIDEBAR_ALERT = '[data-testid="stSidebar"] [data-testid="stAlert"]'


def params(url: str) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))


def wait_param(page, name: str, timeout_ms: float = 20000) -> str:
    page.wait_for_function(f"() => new URLSearchParams(location.search).get({name!r})", timeout=timeout_ms)
    return params(page.url)[name]


def test_a_session_from_uploaded_files_survives_a_reload_a_new_tab_and_a_copied_link(tmp_path):
    env = {"TRACE_EXPLORER_UPLOAD_CACHE": str(tmp_path / "uploads")}
    with streamlit_server(env=env) as url, chromium_page() as page:
        page.goto(url + "/")
        wait_for_streamlit_idle(page)
        open_source_panel(page)
        assert "nothing lists them" in page.locator('[data-testid="stSidebar"]').inner_text()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(CORPUS / "seed-sessions.ttl"))
        wait_for_streamlit_idle(page)
        digest = wait_param(page, "files")
        assert len(digest) == 64
        expect_rows(page, sorted(s["session"] for s in SEED), sorted)
        open_row(page, 0)
        page.wait_for_url("**/session?session=*", timeout=30000)
        wait_for_streamlit_idle(page, timeout_ms=60000)
        assert wait_param(page, "files") == digest
        opened = params(page.url)["session"]
        question = next(s["question"] for s in SEED if s["session"] == opened)
        page.get_by_text(question, exact=True).first.wait_for()

        page.reload()
        wait_for_streamlit_idle(page, timeout_ms=60000)
        page.get_by_text(question, exact=True).first.wait_for()
        assert page.get_by_text("Unknown session").count() == 0
        screenshot(page, "uploads-after-reload")

        link = page.url  # copied, opened in a new tab (a new Streamlit session)
        tab = page.context.new_page()
        tab.goto(link)
        wait_for_streamlit_idle(tab, timeout_ms=60000)
        tab.get_by_text(question, exact=True).first.wait_for()
        assert "1 file of yours" in tab.locator('[data-testid="stSidebar"]').inner_text().replace("\u2060", "")
        tab.close()

        # a link whose files are gone says so, and how to keep files
        page.goto(f"{url}/session?session={urllib.parse.quote(opened, safe='')}&files={'0' * 64}")
        wait_for_streamlit_idle(page, timeout_ms=60000)
        gone = page.locator(SIDEBAR_ALERT).first.inner_text()
        assert "The files of this link are gone" in gone and "trace-explorer ingest" in gone
        assert page.get_by_text("Unknown session").count() == 0
        screenshot(page, "uploads-gone")


def test_trustgraph_url_opens_with_no_form_and_a_typed_gateway_survives_a_reload(corpus_gateway):
    env = {"TRUSTGRAPH_URL": corpus_gateway.url, "TRUSTGRAPH_TOKEN": TOKEN, "TRUSTGRAPH_FLOW": FLOW,
           "TRUSTGRAPH_COLLECTION": COLLECTION, "TRACE_EXPLORER_ENDPOINT_ALLOW": "localhost"}
    with streamlit_server(env=env) as url, chromium_page() as page:
        page.goto(url + "/")
        wait_for_streamlit_idle(page, timeout_ms=60000)
        expect_rows(page, sorted(TOP), sorted)
        assert page.locator(".st-key-te_tg_url input").count() == 0  # no form to fill
        assert params(page.url)["trustgraph"] == corpus_gateway.url
        assert TOKEN not in page.content() and TOKEN not in page.url
        screenshot(page, "trustgraph-from-environment")
        page.goto(f"{url}/session?session={urllib.parse.quote(REACT, safe='')}&trustgraph={corpus_gateway.url}"
                  f"&flow={FLOW}&collection={COLLECTION}")
        wait_for_streamlit_idle(page, timeout_ms=60000)
        page.get_by_text(REACT_QUESTION).first.wait_for()  # the token came from the configuration
        assert TOKEN not in page.content()

        # a gateway typed in (the same stand-in, by another name): in the address, not its token
        typed = corpus_gateway.url.replace("127.0.0.1", "localhost")
        page.locator(".st-key-te_tg_choice").click()
        page.get_by_role("option", name="Another (enter it)").click()
        wait_for_streamlit_idle(page)
        connect(page, typed, TOKEN)
        page.wait_for_function(f"() => new URLSearchParams(location.search).get('trustgraph') === {typed!r}")
        assert TOKEN not in page.url

        page.reload()
        wait_for_streamlit_idle(page, timeout_ms=60000)
        asked = page.locator(SIDEBAR_ALERT).first.inner_text()
        assert f"To reopen TrustGraph gateway {typed} (flow {FLOW}, collection {COLLECTION})" in asked.replace("\u2060", "")
        main = page.locator('[data-testid="stMain"]').inner_text()
        assert "upload" not in main.lower() and "Unknown session" not in main
        screenshot(page, "trustgraph-token-asked-again")
        field = page.locator(".st-key-te_tg_token input")
        field.fill(TOKEN)
        field.press("Enter")
        wait_for_streamlit_idle(page)
        page.locator(".st-key-te_tg_connect button").click()
        wait_for_streamlit_idle(page, timeout_ms=60000)
        page.get_by_text(REACT_QUESTION).first.wait_for()
        # (the password field holds what this person typed; nothing else shows it)
        assert TOKEN not in page.locator("body").inner_text() and TOKEN not in page.url
