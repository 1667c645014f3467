"""The app's pages are declared by ``st.navigation`` only: no ``pages/`` folder beside ``app.py``
(Streamlit would take it for an old-style multipage app and draw its file names, "app, compare,
documents…", as the navigation on a server's first run; the browser test of the list reads the
titles the navigation shows)."""

from __future__ import annotations

from pathlib import Path

from components.text import ASK_PAGE, COMPARE_PAGE, DOCUMENTS_PAGE, INSIGHTS_PAGE, SESSION_PAGE, SESSIONS_PAGE

REPO = Path(__file__).resolve().parents[1]


def test_no_pages_folder_and_every_page_in_app_pages():
    assert not (REPO / "pages").exists()
    pages = (SESSIONS_PAGE, SESSION_PAGE, INSIGHTS_PAGE, DOCUMENTS_PAGE, COMPARE_PAGE, ASK_PAGE)
    assert all(p.startswith("app_pages/") and (REPO / p).is_file() for p in pages)
    assert sorted(p.name for p in (REPO / "app_pages").glob("*.py")) == sorted(Path(p).name for p in pages)
