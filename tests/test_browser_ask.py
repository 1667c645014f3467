"""The app's question box in headless Chromium, against the stand-in gateway's websocket (which
replays what TrustGraph 2.11.1's own services sent for the question, a frame every 0.3 s): the
trace builds in the workspace step by step, with the streamed thought and the answer, and at
the end the session is the one the deployment holds; a run that fails says so."""

from __future__ import annotations

import pytest

from tests.browser_session_support import TIMELINE, WORKSPACE
from tests.browser_support import chromium_page, poll, screenshot, streamlit_server, wait_for_streamlit_idle
from tests.trustgraph_server import COLLECTION, FLOW, TOKEN, FakeGateway
from tests.trustgraph_socket import recorded_deployment, run_question, run_steps
from trace_explorer.read.wire import decode_quad

pytestmark = pytest.mark.browser
QUADS, DOCUMENTS, RUNS = recorded_deployment()
AGENT = next(r for r in RUNS if r["name"] == "agent")
FAILING = next(r for r in RUNS if r["name"] == "agent-failed")
ROOT, *STEPS = run_steps(AGENT)


# the deployment holds a session already (the app connects to a collection that holds some)
EARLIER = [decode_quad(t) for r in RUNS if r["name"] == "graph-rag" for f in r["frames"]
           for t in f["response"].get("explain_triples", [])]


@pytest.fixture
def gateway():
    server = FakeGateway(QUADS + EARLIER, DOCUMENTS, socket_runs=RUNS)
    server.start()
    server.socket.pace = 0.3
    yield server
    server.stop()


@pytest.fixture
def ask_url(gateway):
    """The app with the stand-in as its configured deployment (it opens on it at once)."""
    env = {"TRUSTGRAPH_URL": gateway.url, "TRUSTGRAPH_TOKEN": TOKEN, "TRUSTGRAPH_FLOW": FLOW,
           "TRUSTGRAPH_COLLECTION": COLLECTION, "TRACE_EXPLORER_ENDPOINT_ALLOW": ""}
    with streamlit_server(env=env) as url:
        yield url


def rows(page) -> list[str]:
    return page.locator(f"{TIMELINE} .te-wf-row").evaluate_all("(rows) => rows.map((r) => r.getAttribute('data-step'))")


def test_a_question_asked_in_the_app_builds_its_trace_step_by_step(ask_url, gateway):
    with chromium_page() as page:
        page.goto(ask_url + "/ask")
        box = page.get_by_label("Question")
        box.wait_for(timeout=60000)
        wait_for_streamlit_idle(page, timeout_ms=60000)
        box.fill(run_question(AGENT))
        page.get_by_role("button", name="Ask").click()
        # the trace builds: the Analysis is drawn while the run goes on
        page.locator(f'{TIMELINE} .te-wf-row[data-step="{STEPS[0]}"]').wait_for(timeout=30000)
        seen_running = "Running:" in page.locator('[data-testid="stMain"]').inner_text()
        partial = rows(page)
        screenshot(page, "ask-running")
        page.get_by_text(f"Done: {len(STEPS)} steps came.").wait_for(timeout=30000)  # as the workspace lists them
        assert seen_running and len(partial) < len(STEPS)
        poll(page, lambda: rows(page), lambda found: found == STEPS, timeout_ms=15000)
        main = page.locator('[data-testid="stMain"]').inner_text()
        assert "Lake Baikal is 1642 metres deep at its deepest point, in the central basin." in main
        # read back from the deployment: the link opens the stored session
        link = page.get_by_role("link", name="Open it as a session")
        assert ROOT.rsplit(":", 1)[-1] in link.get_attribute("href")
        assert page.locator(WORKSPACE).get_attribute("data-newest") == ""  # marked while it runs only
        screenshot(page, "ask-done")
        # a run that fails says so, and keeps what came (its Question)
        box.fill(run_question(FAILING))
        page.get_by_role("button", name="Ask").click()
        page.get_by_text("The run failed: 'Error' object has no attribute 'code'. What came is kept (0 steps came).")\
            .wait_for(timeout=30000)
