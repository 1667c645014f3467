"""Helpers for the session page in a real browser: its DAG and timeline components.

Both components render into shadow roots; Playwright's CSS locators pierce them, and each host
element carries its view object (``__teDag`` for the DAG, ``__teWaterfall`` for the timeline),
so a test can ask where a node is drawn or which rows are shown.
"""

from __future__ import annotations

import urllib.parse

DAG = '[data-te-dag="drawn"]'
TIMELINE = '[data-te-waterfall="drawn"]'


def session_url(base: str, iri: str, step: str | None = None) -> str:
    url = f"{base}/session?session={urllib.parse.quote(iri, safe='')}"
    return url + (f"&step={urllib.parse.quote(step, safe='')}" if step else "")


def wait_drawn(page, timeout_ms: float = 60000) -> None:
    """Wait until the DAG and the timeline have drawn."""
    page.locator(DAG).wait_for(timeout=timeout_ms)
    page.locator(TIMELINE).wait_for(timeout=timeout_ms)


def dag(page, script: str, arg=None):
    """Evaluate ``script`` (a function of the DAG view and ``arg``) on the DAG view."""
    return page.locator(DAG).evaluate(f"(host, arg) => ({script})(host.__teDag, arg)", arg)


def timeline(page, script: str, arg=None):
    """Evaluate ``script`` (a function of the timeline view and ``arg``) on the timeline view."""
    return page.locator(TIMELINE).evaluate(f"(host, arg) => ({script})(host.__teWaterfall, arg)", arg)


def node_point(page, node_id: str) -> tuple[float, float]:
    """Where ``node_id`` is drawn, in page coordinates, with the DAG scrolled into view."""
    page.locator(DAG).scroll_into_view_if_needed()
    page.wait_for_timeout(150)
    point = dag(page, "(v, id) => v.pointOf(id)", node_id)
    assert point is not None, f"{node_id} is not drawn"
    return point["x"], point["y"]


def click_node(page, node_id: str) -> None:
    """Click ``node_id``, moving the view to it first when it is off the canvas."""
    page.locator(DAG).scroll_into_view_if_needed()
    dag(page, "(v, id) => { if (!v.visible(id)) { v.network.focus(id, {scale: Math.max(v.network.getScale(), 0.8),"
              " animation: false}); } }", node_id)
    x, y = node_point(page, node_id)
    page.mouse.click(x, y)


def hover_node(page, node_id: str) -> str | None:
    """Hover ``node_id`` (centred on the canvas first) and return its tooltip's text."""
    page.locator(DAG).scroll_into_view_if_needed()
    dag(page, "(v, id) => v.network.focus(id, {scale: 1, animation: false})", node_id)
    x, y = node_point(page, node_id)
    tip = page.locator(f"{DAG} div.vis-tooltip")
    for dx in (0, 3, -3, 6):
        page.mouse.move(x + dx - 25, y - 25)
        page.mouse.move(x + dx, y, steps=3)
        page.wait_for_timeout(300)
        if tip.is_visible() and node_id in tip.inner_text():
            return tip.inner_text()
    return None


def step_in_url(page) -> str | None:
    return urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).get("step", [None])[0]


def wait_step(page, step: str, timeout_ms: float = 20000, first: bool = False) -> None:
    """Wait until the URL names ``step``; ``first``: the session's first step, which the URL
    names by leaving ``step`` out."""
    if first:
        page.wait_for_function("() => !new URLSearchParams(location.search).has('step')", timeout=timeout_ms)
        return
    page.wait_for_function("(step) => new URLSearchParams(location.search).get('step') === step", arg=step,
                           timeout=timeout_ms)


def shown_rows(page) -> list[str]:
    """The step IRIs of the timeline rows in the page (those in view), top to bottom."""
    return page.locator(f"{TIMELINE} .te-wf-row").evaluate_all(
        "rows => rows.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))"
        ".map(r => r.getAttribute('data-step'))")
