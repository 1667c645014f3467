"""Reading the session list's table in ``streamlit.testing.v1.AppTest``: the table is an
``st.components.v2`` component, which AppTest keeps as its proto; the rows are the JSON it was
given (``components.sessions.session_table.table_rows``)."""

from __future__ import annotations

import json

from components.sessions.session_list import TABLE_KEY
from components.sidebar.source_picker import FILES_PANEL_KEY
from tests.browser_support import poll


def _walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)


def list_table(at) -> dict | None:
    """The data the session table was drawn with (``rows``, ``columns``, ``sort``), or None
    when no table is on the page."""
    for element in _walk(at.main):
        proto = getattr(element, "proto", None)
        if getattr(element, "type", None) == "bidi_component" and proto.id.endswith(TABLE_KEY):
            return json.loads(proto.json)
    return None


def list_rows(at) -> list[dict]:
    """The table's rows, in order ([] when there is no table)."""
    table = list_table(at)
    return table["rows"] if table else []


def list_ids(at) -> list[str]:
    """The IRIs of the table's rows, in order."""
    return [row["id"] for row in list_rows(at)]


def files_table(at):
    """The sidebar's Files table (a DataFrame), after opening its panel (it is drawn only while
    open)."""
    if not at.sidebar.table:
        at.session_state[FILES_PANEL_KEY] = True
        at.run()
    return at.sidebar.table[0].value


# -- in the browser -------------------------------------------------------------------------------
# Playwright's CSS selectors look inside open shadow roots, where the table is drawn.
LIST_ROW = '[data-testid="stMain"] tr.te-row'


def open_row(page, index: int = 0) -> None:
    """Click the question of the list's row ``index`` (a click anywhere on a row opens it)."""
    page.locator(LIST_ROW).nth(index).locator("td.c-question").click()


def row_ids(page) -> list[str]:
    """The IRIs of the list's rows as drawn, in order."""
    page.locator(LIST_ROW).first.wait_for()
    return page.locator(LIST_ROW).evaluate_all("rows => rows.map(r => r.dataset.session)")


def expect_rows(page, expected, seen=list, timeout_ms: float = 15000) -> None:
    """Assert that the list's rows become ``expected`` (compared as ``seen(row_ids)``: ``list``
    for the order too, ``sorted`` or ``set`` for the rows only) within ``timeout_ms``.

    The table is a component that draws after the script run that sent it, so an idle app can
    still show the rows of the run before for a moment on a loaded machine."""
    want = seen(expected)
    assert poll(page, lambda: seen(row_ids(page)), lambda shown: shown == want, timeout_ms) == want
