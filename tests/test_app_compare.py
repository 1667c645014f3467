"""The compare page and the list's Compare action, run headless with Streamlit's AppTest: the
summary's numbers against the comparison, the rows' statuses, paging a long pair, a bad link."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.test_compare import FORTS, TRAPPIST_AGENT
from trace_explorer.analysis.compare.compare import compare_sessions

REPO = Path(__file__).resolve().parents[1]


def open_compare(value: str | None) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("app_pages/compare.py")
    if value is not None:
        at.query_params["compare"] = value
    return at.run()


def test_a_link_shows_the_summary_and_the_rows(sessions):
    at = open_compare("fa7f0eab,4ecadea2")
    assert not at.exception
    comparison = compare_sessions(sessions[FORTS], sessions[TRAPPIST_AGENT], sessions)
    metrics = {m.label: (m.value, m.delta) for m in at.metric}
    assert metrics["Steps (A → B)"] == ("10 → 10", "")
    assert metrics["Tokens (A → B)"] == ("10,122 → 10,273", "+151")
    assert metrics["Time (LLM + tools) (A → B)"] == ("12,000 ms → 9,833 ms", "-2,167 ms")
    assert at.query_params["compare"] == f"{FORTS},{TRAPPIST_AGENT}"
    steps = [h for h in at.get("html") if "class='cmp steps'" in h.proto.body]
    assert len(steps) == 1
    body = steps[0].proto.body
    assert [body.count(f'<tr class="{s}">') for s in ("same", "changed")] == [comparison.count("same"), comparison.count("changed")]
    [child] = [e for e in at.main.expander]
    assert "4 changed" in child.label


def test_without_a_pair_or_with_a_bad_one():
    at = open_compare(None)
    assert not at.exception and "Pick two sessions above" in at.info[0].value
    at = open_compare("nothing-like-this,62c33a4f")
    assert not at.exception
    assert [e.value for e in at.error] == ["Session A\\: No session matches \\'nothing\\-like\\-this\\'\\."]
    assert not at.main.metric
