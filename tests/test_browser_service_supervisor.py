"""The supervisor TrustGraph 2.11.1's own services made, opened from the demo in headless
Chromium: its Findings in the order the supervisor wrote them (``…/finding/0``, ``/1``, ``/2``),
each sub-agent's band at its own start relative to the supervisor, and the header's totals, all
against the service corpus's manifest (``demo_data/services/manifest.json``)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from tests.browser_session_support import row_ids, session_url, timeline, wait_drawn, workspace
from tests.browser_support import chromium_page, wait_for_streamlit_idle
from tests.conftest import SERVICES

pytestmark = pytest.mark.browser
pytest.importorskip("playwright")

BY_NAME = {s["name"]: s for s in SERVICES["sessions"]}
BY_ID = {s["session"]: s for s in SERVICES["sessions"]}
SUPERVISOR = BY_NAME["supervisor"]


def _offset_ms(session: dict, parent: dict) -> float:
    """Ms between the manifest's ``started`` of ``session`` and of ``parent``."""
    start, parent_start = (datetime.fromisoformat(s["started"].replace("Z", "+00:00")) for s in (session, parent))
    return (start - parent_start) / timedelta(milliseconds=1)


def test_the_service_supervisor_shows_its_findings_in_order_and_each_sub_agent_at_its_start(app_url):
    findings = [f["finding"] for f in SUPERVISOR["findings"]]
    subs = [BY_ID[c] for c in SUPERVISOR["children"]]
    with chromium_page(viewport=(1400, 1600)) as page:
        page.goto(session_url(app_url, SUPERVISOR["session"]))
        wait_drawn(page)
        wait_for_streamlit_idle(page)
        # the header: no tokens of its own recorded, and those of its sub-agents with them
        recorded = SUPERVISOR["recorded_with_children"]
        metric = page.locator('[data-testid="stMetric"]').filter(has_text="Tokens").inner_text()
        assert f"{recorded['in'] + recorded['out']:,} with sub-sessions" in metric
        # the Findings by their index, each labelled with the goal the manifest gives it
        rows = row_ids(page)
        assert [r for r in rows if "/finding/" in r] == findings
        labels = workspace(page, "(w, ids) => ids.map(id => w.steps[w.index.get(id)].label)", findings)
        goals = [f"#{i} Finding: {f['goal']}" for i, f in enumerate(SUPERVISOR["findings"], 1)]
        assert all(label and goal.startswith(label.removesuffix("…")) for label, goal in zip(labels, goals)), labels
        # each sub-agent's band starts where its Question started, less the supervisor's start
        headers = [s["session"] for s in subs]
        assert all(h in rows for h in headers)
        starts = timeline(page, "(w, ids) => ids.map((id) => w.steps[w.ws.index.get(id)].start)", headers)
        expected = [_offset_ms(s, SUPERVISOR) for s in subs]
        assert starts == pytest.approx(expected, abs=0.5)
        assert len(set(expected)) == len(expected) and all(e > 0 for e in expected)  # side by side, not at 0
