"""Helpers for the session page in a real browser: its workspace component (the waterfall, the
graph and the step inspector in one).

The component renders into a shadow root; Playwright's CSS locators pierce it, and its elements
carry their view objects (``__teWorkspace`` on the workspace, ``__teWaterfall`` on the
timeline, ``__teDag`` on the graph), so a test can ask where a node is drawn or which rows are
shown. The timeline and the graph share one pane (the "Timeline" / "Graph" switch): the helpers
switch to the view they look at.
"""

from __future__ import annotations

import urllib.parse

WORKSPACE = '[data-te-workspace="drawn"]'
TIMELINE = f"{WORKSPACE} .te-wf"
DAG = f"{WORKSPACE} .te-dag"
INSPECTOR = f"{WORKSPACE} .te-ins"


def session_url(base: str, iri: str, step: str | None = None) -> str:
    url = f"{base}/session?session={urllib.parse.quote(iri, safe='')}"
    return url + (f"&step={urllib.parse.quote(step, safe='')}" if step else "")


def wait_drawn(page, timeout_ms: float = 60000) -> None:
    """Wait until the workspace has drawn."""
    page.locator(WORKSPACE).wait_for(timeout=timeout_ms)


def show(page, view: str) -> None:
    """Switch the workspace's pane to ``view`` ("timeline" or "graph") when it is not."""
    if page.locator(WORKSPACE).get_attribute("data-view") != view:
        page.locator(f'{WORKSPACE} .te-ws-tabs [data-view="{view}"]').click()
    if view == "graph":
        page.locator(f'{DAG}[data-te-dag="drawn"]').wait_for(timeout=20000)


def workspace(page, script: str, arg=None):
    """Evaluate ``script`` (a function of the workspace object and ``arg``) on the workspace."""
    return page.locator(WORKSPACE).evaluate(f"(host, arg) => ({script})(host.__teWorkspace, arg)", arg)


def dag(page, script: str, arg=None):
    """Evaluate ``script`` (a function of the graph view and ``arg``) on the graph (shown first)."""
    show(page, "graph")
    return page.locator(DAG).evaluate(f"(host, arg) => ({script})(host.__teDag, arg)", arg)


def timeline(page, script: str, arg=None):
    """Evaluate ``script`` (a function of the waterfall view and ``arg``) on the timeline (shown first)."""
    show(page, "timeline")
    return page.locator(TIMELINE).evaluate(f"(host, arg) => ({script})(host.__teWaterfall, arg)", arg)


def node_point(page, node_id: str) -> tuple[float, float]:
    """Where ``node_id`` is drawn, in page coordinates, with the graph scrolled into view."""
    show(page, "graph")
    page.locator(f"{DAG} .te-dag-canvas").scroll_into_view_if_needed()
    page.wait_for_timeout(100)
    point = dag(page, "(v, id) => v.pointOf(id)", node_id)
    assert point is not None, f"{node_id} is not drawn"
    return point["x"], point["y"]


def click_node(page, node_id: str) -> None:
    """Click ``node_id``, moving the view to it first when it is off the canvas."""
    dag(page, "(v, id) => { if (!v.visible(id)) { v.network.focus(id, {scale: Math.max(v.network.getScale(), 0.9),"
              " animation: false}); } }", node_id)
    x, y = node_point(page, node_id)
    page.mouse.click(x, y)


def hover_node(page, node_id: str) -> str | None:
    """Hover ``node_id`` (centred on the canvas first) and return its tooltip's text."""
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


def scroll_to_timeline_end(page) -> None:
    """Scroll the page (the timeline has no scroll of its own) to its end, where the timeline's last
    rows show above the inspector."""
    show(page, "timeline")
    page.locator('[data-testid="stMain"]').evaluate("e => { e.scrollTop = e.scrollHeight; }")
    page.wait_for_timeout(200)  # the rows are drawn on the next frame


def step_in_url(page) -> str | None:
    """The URL's ``step`` as the page has it (``history.replaceState`` moves it without a navigation)."""
    return page.evaluate("() => new URLSearchParams(location.search).get('step')")


def wait_step(page, step: str, timeout_ms: float = 20000, first: bool = False) -> None:
    """Wait until the URL names ``step``; ``first``: the session's first step, which the URL
    names by leaving ``step`` out."""
    if first:
        page.wait_for_function("() => !new URLSearchParams(location.search).has('step')", timeout=timeout_ms)
        return
    page.wait_for_function("(step) => new URLSearchParams(location.search).get('step') === step", arg=step,
                           timeout=timeout_ms)


def selected(page) -> str | None:
    """The step the workspace has selected."""
    return page.locator(WORKSPACE).get_attribute("data-selected")


def shown_rows(page) -> list[str]:
    """The step IRIs of the timeline rows in the page (those in view), top to bottom."""
    show(page, "timeline")
    page.wait_for_timeout(50)  # the rows are drawn on the next frame
    return page.locator(f"{TIMELINE} .te-wf-row").evaluate_all(
        "rows => rows.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))"
        ".map(r => r.getAttribute('data-step'))")


def row_ids(page) -> list[str]:
    """The step IRIs of every row the timeline shows (in no folded band), in view or not, in order."""
    return workspace(page, "w => w.waterfall.shown.map(i => w.steps[i].id)")


_SELECT = """async (node, [a, b]) => {
  const text = [...node.childNodes].find((n) => n.nodeType === 3), range = document.createRange();
  range.setStart(text, a);
  if (b === null) { range.setEndAfter(node.lastChild); } else { range.setEnd(text, b); }
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  node.dispatchEvent(new MouseEvent("mouseup", {bubbles: true, composed: true}));
  await new Promise((done) => setTimeout(done, 50));
}"""


def select_words(text, start: int, end: int | None) -> dict | None:
    """Select, as a drag would, UTF-16 units ``start``..``end`` of the first run of words of the
    inspector's text ``text`` (a locator; ``end`` None: to the end of the element, its "Show all"
    button too), and return the span its "Review selection" button then holds (``{"step",
    "field", "quote", "start", "end"}``, offsets in code points), or None."""
    text.evaluate(_SELECT, [start, end])
    return text.page.locator(f"{INSPECTOR} .te-ins-review-span").evaluate("(b) => b.hidden ? null : b.__teSpan")
