"""Reviews made in the app, in a real browser (headless Debian Chromium through Playwright's
driver): one of each target kind (the session from its header, a step from the inspector, a
sentence of the answer from the support panel, words selected in a step's text from the
inspector's "Review selection", a GraphRAG edge and a DocRAG chunk from the evidence panel),
each saved through the review dialog; after a reload the page's Reviews panel
lists them and the store the command line reads holds them, with the author the operator set.
A comment that is an HTML payload is shown as text. One served app with a review store of its
own; screenshots go to tests/artifacts/ (gitignored)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.browser_session_support import INSPECTOR, select_words, session_url, wait_drawn
from tests.browser_support import chromium_page, screenshot, streamlit_server, wait_for_streamlit_idle
from trace_explorer.reviews import ReviewStore

pytestmark = pytest.mark.browser
pytest.importorskip("playwright")

GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
DOCRAG = "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"
PAYLOAD = '<img src=x onerror="window.__pwned=1">**bold**'
REVIEWER = "ana@example.org"
GROUNDING = GRAPHRAG.replace(":question:", ":prov:grounding:")  # its "Concepts": "France, capital city"


@pytest.fixture(scope="module")
def reviews_app(tmp_path_factory, app_store_root):
    """The app on the demo with a review store of its own and a configured reviewer name."""
    folder = tmp_path_factory.mktemp("reviews")
    env = {"TRACE_EXPLORER_STORE_ROOT": str(app_store_root), "TRACE_EXPLORER_REVIEWS": str(folder),
           "TRACE_EXPLORER_REVIEWER": REVIEWER}
    with streamlit_server(env=env) as url:
        yield url, folder


def caption_iri(page) -> str:
    """The IRI the open review dialog names (its target's)."""
    dialog = page.get_by_role("dialog")
    dialog.wait_for()
    return dialog.locator('[data-testid="stCaptionContainer"]').nth(1).inner_text().replace("\u2060", "")  # md_escape's joiners


def save_in_dialog(page, label: str, comment: str = "") -> None:
    """In the open review dialog: pick ``label``, write ``comment``, Save; wait until the dialog
    lists the review, then close it with Done."""
    dialog = page.get_by_role("dialog")
    dialog.wait_for()
    wait_for_streamlit_idle(page)
    listed = dialog.locator('[class*="st-key-te_dialog_review_"]')
    before = listed.count()
    dialog.get_by_role("radio", name=label, exact=True).click()
    if comment:
        dialog.get_by_label("Comment (optional)").fill(comment)
    dialog.get_by_role("button", name="Save").click()
    listed.nth(before).wait_for(timeout=15000)
    assert listed.nth(before).inner_text().startswith(label)
    dialog.get_by_role("button", name="Done").click()
    dialog.wait_for(state="detached", timeout=15000)
    wait_for_streamlit_idle(page)


def test_each_target_kind_is_reviewed_in_the_app_and_kept(reviews_app):
    url, folder = reviews_app
    with chromium_page(viewport=(1400, 1100)) as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        main = page.locator('[data-testid="stMain"]')
        page.goto(session_url(url, GRAPHRAG))
        wait_drawn(page)
        wait_for_streamlit_idle(page)

        main.get_by_role("button", name="Review session").click()  # the session, from its header
        save_in_dialog(page, "incorrect", PAYLOAD)

        page.locator(f"{INSPECTOR} .te-ins-review").click()  # the step the inspector shows
        save_in_dialog(page, "wrong-tool", PAYLOAD)
        step = page.locator(INSPECTOR).get_attribute("data-step")
        assert page.locator(f"{INSPECTOR} .te-ins-reviews").get_attribute("data-reviews") == "1"
        assert page.locator(f"{INSPECTOR} .te-ins-review-comment").inner_text() == PAYLOAD  # as text
        assert page.locator(f"{INSPECTOR} .te-ins-reviews img").count() == 0

        main.locator(".st-key-te_support_0 button").first.click()  # the answer's first sentence
        wait_for_streamlit_idle(page)
        main.get_by_role("button", name="Review sentence 1").click()
        save_in_dialog(page, "unsupported")

        main.locator('[class*="st-key-te_review_edge_"] button').first.click()  # the first edge
        edge = caption_iri(page)
        save_in_dialog(page, "correct")

        page.goto(session_url(url, DOCRAG))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        main.locator('[class*="st-key-te_review_chunk_"] button').first.click()  # the first chunk
        chunk = caption_iri(page)
        save_in_dialog(page, "correct", "the right evidence")

        page.goto(session_url(url, GRAPHRAG, GROUNDING))  # words of a step's text, selected
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        concepts = page.locator(f"{INSPECTOR} .te-ins-sec-line .te-ins-line")
        assert concepts.inner_text() == "France, capital city"
        assert select_words(concepts, 7, 20) == {  # " capital city": the space is left out
            "step": GROUNDING, "iri": None, "field": "Concepts", "quote": "capital city", "start": 8, "end": 20}
        screenshot(page, "reviews-span-selected")
        page.locator(f"{INSPECTOR} .te-ins-review-span").click()
        dialog = page.get_by_role("dialog")
        dialog.wait_for()
        assert "Concepts of step Grounding: “capital city”" in dialog.inner_text().replace("\u2060", "")
        assert caption_iri(page) == f"Characters 8–20 of {GROUNDING}"
        save_in_dialog(page, "unsupported", PAYLOAD)
        quoted = page.locator(f"{INSPECTOR} .te-ins-review-quote")
        quoted.wait_for()
        assert quoted.inner_text() == "“capital city”"

        react = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"  # an Analysis showing its Thought's words
        page.goto(session_url(url, react, react + "/i2"))
        wait_drawn(page)
        thought = page.locator(f"{INSPECTOR} .te-ins-sec-prose", has_text="Thought").locator(".te-ins-prose")
        first = thought.inner_text().split()[0]
        assert select_words(thought, 0, len(first)) == {
            "step": react + "/i2", "iri": react + "/i2/thought", "field": "Thought", "quote": first, "start": 0,
            "end": len(first)}  # on the Thought's own IRI

        page.goto(session_url(url, GRAPHRAG))  # after a reload, the panel lists the five
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        panel = main.locator('[data-testid="stExpander"]').filter(has_text="Reviews: 5 reviews")
        panel.locator("summary").click()
        assert panel.get_by_text(PAYLOAD).count() == 3  # the session's, the step's and the span's, as typed
        assert panel.get_by_text("Step Grounding: “capital city”").count() == 1
        assert page.evaluate("() => window.__pwned") is None
        screenshot(page, "reviews-session")
        assert dialogs == []

    listed = subprocess.run([sys.executable, "-m", "trace_explorer.cli", "review", "list", "--reviews", str(folder),
                             "--format", "json"], capture_output=True, text=True, check=True, timeout=60)
    found = json.loads(listed.stdout)  # the store the command line reads
    assert sorted((r["target"], r["label"], r["author"], r["comment"], r["session"]) for r in found
                  if r["selector"] is None) == sorted([
        (GRAPHRAG, "incorrect", REVIEWER, PAYLOAD, GRAPHRAG), (step, "wrong-tool", REVIEWER, PAYLOAD, GRAPHRAG),
        (edge, "correct", REVIEWER, None, GRAPHRAG), (chunk, "correct", REVIEWER, "the right evidence", DOCRAG)])
    span = next(r for r in found if r["target"] == GROUNDING and r["selector"] is not None)
    assert (span["label"], span["session"], span["author"], span["comment"], span["selector"]) == (
        "unsupported", GRAPHRAG, REVIEWER, PAYLOAD, {"quote": "capital city", "start": 8, "end": 20})
    sentence = next(r for r in found if r["selector"] is not None and r["target"] != GROUNDING)
    assert (sentence["label"], sentence["session"], sentence["selector"]["quote"]) == (
        "unsupported", GRAPHRAG, "Paris is the capital of France.")
    assert sentence["target"] == ReviewStore(folder).get(sentence["id"]).target
