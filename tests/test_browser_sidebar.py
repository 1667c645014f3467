"""The sidebar's figures in a real browser (headless Chromium): at 100,000 sessions each label is
shown whole beside the help icon of its rounded figure (it was cut to "Sessi…" in three equal
columns). The screenshot goes to tests/artifacts/ (gitignored)."""

from __future__ import annotations

import pytest

from tests.browser_support import ARTIFACTS_DIR, chromium_page, streamlit_server, wait_for_streamlit_idle

pytestmark = pytest.mark.browser  # fails (never skips) without Chromium: see tests/conftest.py

COUNTS = {"sessions": 100_000, "top": 62_000, "steps": 1_234_567, "triples": 7_654_321}
METRIC = '[data-testid="stSidebar"] [data-testid="stMetric"]'


def test_the_sidebar_figures_fit_their_labels_at_100000_sessions():
    figures = ",".join(f"{name}={n}" for name, n in COUNTS.items())
    with streamlit_server("tests/sidebar_figures_app.py", env={"TE_FIGURES": figures}) as url, \
            chromium_page(viewport=(1400, 900)) as page:
        page.goto(url)
        wait_for_streamlit_idle(page)
        page.locator(METRIC).nth(2).wait_for()
        ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
        page.locator('[data-testid="stSidebar"]').screenshot(path=str(ARTIFACTS_DIR / "sidebar-figures-100000.png"))
        shown = [(m.locator('[data-testid="stMetricLabel"]').inner_text().strip(),
                  m.locator('[data-testid="stMetricValue"]').inner_text().strip()) for m in page.locator(METRIC).all()]
        assert shown == [("Sessions", "100k"), ("Steps", "1.23M"), ("Triples", "7.65M")]
        # no label is cut: every box of its text is as wide as the text it holds
        cut = page.locator(METRIC).evaluate_all("""metrics => metrics.flatMap(m =>
            [...m.querySelectorAll('[data-testid="stMetricLabel"] *')]
              .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth).map(e => e.innerText))""")
        assert cut == []
        # each rounded figure gives its exact count in its help
        assert page.locator(f'{METRIC} [data-testid="stTooltipHoverTarget"]').count() == 3
