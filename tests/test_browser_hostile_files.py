"""Hostile files uploaded in a real browser (headless Debian Chromium through Playwright): each
gives one line in the sidebar, the server keeps serving, the sessions the visitor loaded before
stay, a good file after them loads, and another visitor, browsing at the same time, sees none of
it."""

from __future__ import annotations

import re

import pytest

from tests.browser_support import chromium_page, open_source_panel, screenshot, wait_for_streamlit_idle
from tests.conftest import CORPUS, MANIFEST, demo_sessions
from tests.list_support import LIST_ROW
from tests.test_hostile_files import HOSTILE

pytestmark = pytest.mark.browser  # fails (never skips) without Chromium: see tests/conftest.py

TOP = [s for s in demo_sessions() if s["parent"] is None]  # what the demo lists
SEED_TOP = [s for s in MANIFEST["seed-sessions.ttl"]["sessions"] if s["parent"] is None]
DUMP_TOP = [s for s in MANIFEST["graph-dump.ttl"]["sessions"] if s["parent"] is None]
ERRORS = '[data-testid="stSidebar"] [data-testid="stAlertContentError"]'
MESSAGE = ' [data-testid="stMarkdownContainer"]'  # an error's words, without its icon


def list_total(page, count: int) -> None:
    """Wait until the list says it holds ``count`` top-level sessions."""
    page.get_by_text(re.compile(rf"· {count} top-level sessions")).first.wait_for(timeout=60000)


def test_hostile_uploads_cost_one_line_each_and_disturb_no_one(app_url, tmp_path):
    paths = []
    for name, make, _ in HOSTILE:
        (tmp_path / name).write_bytes(make())
        paths.append(str(tmp_path / name))
    good = {}
    for name in ("seed-sessions.ttl", "graph-dump.ttl"):
        good[name] = tmp_path / name
        good[name].write_bytes((CORPUS / name).read_bytes())
    uploader = '[data-testid="stFileUploaderDropzoneInput"]'
    with chromium_page(viewport=(1440, 1400)) as page:
        other = page.context.browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
        other.set_default_timeout(60000)
        page.goto(app_url + "/")
        wait_for_streamlit_idle(page)
        open_source_panel(page)
        page.locator(uploader).set_input_files(str(good["seed-sessions.ttl"]))  # the visitor's own file first
        wait_for_streamlit_idle(page)
        list_total(page, len(SEED_TOP))
        page.locator(uploader).set_input_files(paths)
        wait_for_streamlit_idle(page, timeout_ms=120000)
        page.locator(ERRORS).nth(len(HOSTILE) - 1).wait_for(timeout=60000)
        shown = [" ".join(e.inner_text().split()) for e in page.locator(ERRORS + MESSAGE).all()]
        assert shown == [" ".join(message.split()) for _, _, message in HOSTILE]
        # where the person looks: right under the drop zone (above the rest of the sidebar), and
        # said in a toast
        zone = page.locator('[data-testid="stSidebar"] [data-testid="stFileUploader"]').bounding_box()
        first = page.locator(ERRORS).first.bounding_box()
        toggle = page.locator('[data-testid="stSidebar"]').get_by_text("Include the demo traces", exact=True).bounding_box()
        assert zone["y"] + zone["height"] <= first["y"] < toggle["y"]
        assert f"{len(HOSTILE)} files could not be used" in page.locator('[data-testid="stToast"]').first.inner_text()
        list_total(page, len(SEED_TOP))  # what was loaded before stays
        screenshot(page, "hostile-files-refused")

        # another visitor, meanwhile: the server serves the demo, and none of the first one's errors
        other.goto(app_url + "/")
        wait_for_streamlit_idle(other)
        list_total(other, len(TOP))
        other.locator(LIST_ROW).first.wait_for()
        assert other.locator(ERRORS).count() == 0

        # a good file after them loads beside the first
        page.locator(uploader).set_input_files(str(good["graph-dump.ttl"]))
        wait_for_streamlit_idle(page)
        list_total(page, len(SEED_TOP) + len(DUMP_TOP))
        assert page.locator(ERRORS).count() == 0
        other.reload()
        wait_for_streamlit_idle(other)
        list_total(other, len(TOP))
        other.context.close()
