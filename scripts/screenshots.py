"""The README's screenshots, taken from the app on the bundled demo in headless Chromium.

    .venv/bin/python scripts/screenshots.py [--out docs/images]

Starts the app on a free loopback port (as the browser tests do), opens the session list and one
session page at 1400 px wide, and writes ``session-list.png`` and ``session-page.png``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.browser_session_support import session_url, wait_drawn  # noqa: E402
from tests.browser_support import chromium_page, streamlit_server, wait_for_streamlit_idle  # noqa: E402
from tests.list_support import LIST_ROW  # noqa: E402

# A ReAct agent whose tool call ran GraphRAG: a nested band in the waterfall, evidence behind it.
SESSION = "urn:trustgraph:agent:4ecadea2-81b6-4bb5-b866-64ae64a149f5"
WIDTH, LIST_HEIGHT, SESSION_HEIGHT = 1400, 1000, 1500


def take(out: Path) -> list[Path]:
    """Write the screenshots into ``out`` (created when missing); returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with streamlit_server() as url:
        with chromium_page(viewport=(WIDTH, LIST_HEIGHT)) as page:
            page.goto(url + "/")
            page.locator(LIST_ROW).first.wait_for(timeout=60000)
            wait_for_streamlit_idle(page)
            page.wait_for_timeout(500)
            written.append(out / "session-list.png")
            page.screenshot(path=str(written[-1]))
        with chromium_page(viewport=(WIDTH, SESSION_HEIGHT)) as page:
            page.goto(session_url(url, SESSION, step=SESSION + "/i1"))
            wait_drawn(page)
            wait_for_streamlit_idle(page)
            page.wait_for_timeout(800)
            written.append(out / "session-page.png")
            page.screenshot(path=str(written[-1]))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "images"), help="the folder to write into")
    args = parser.parse_args(argv)
    for path in take(Path(args.out)):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
