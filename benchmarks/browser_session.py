"""The session page in a real browser: how long a person waits, against a bare Streamlit page.

    python benchmarks/browser_session.py [--repeat 3] [--iterations 2000] [--keep DIR]

Starts three servers on free loopback ports (``streamlit run``, as the browser tests do): a bare
one-line Streamlit page, the app on the bundled demo, and the app on a local store holding one
synthetic ReAct session of ``--iterations`` iterations (``benchmarks/synthetic.py``; 2,000
iterations make 4,002 steps). Then, in headless Chromium (Debian's ``/usr/bin/chromium``,
``CHROMIUM_PATH`` overrides), each in a fresh browser context, it times:

- the bare page: from navigation start to its one line on screen with the script finished;
- the 26-step ReAct session of the demo opened from its link (``/session?session=IRI``), until
  the page is *settled*: the script finished, the heading, the step picker, the DAG drawn on its
  canvas and the timeline drawn;
- the 4,002-step session opened from its link, until the same: first the server's first open
  (the session read from the store), then again in a new context (read before, as when a link
  is shared or the page reloaded);
- a click on a DAG node and a "j" key press on the 26-step session, until the inspector shows
  the step picked and the script finished.

Times come from the page's own clock (``performance.now()``, zero at navigation start), polled
every 20 ms; each is the median of ``--repeat`` runs after one warm-up visit per server (the
server's first run imports the app and reads the demo). Ratios are against the bare page of the
same run. Numbers are printed, never asserted: speed targets live here, not in unit tests.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for path in (str(REPO), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from tests.browser_session_support import session_url  # noqa: E402
from tests.browser_support import CHROMIUM_ARGS, CHROMIUM_PATH, chromium_available, streamlit_server  # noqa: E402

REACT_26 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
BARE_TEXT = "Trace Explorer bare page"
TIMEOUT_MS = 120_000
POLL_MS = 20
# the session list drawn: its caption ("1–22 of 22 matching · ..."), written once the rows are read
LIST_READY = "() => document.querySelector('[data-testid=\"stMain\"]')?.innerText.includes(' matching · ') ? 1 : false"

# JS: the first element matching a selector, in the page or in a component's shadow root.
_DEEP = """
  const deep = (selector) => {
    const found = document.querySelector(selector);
    if (found) return found;
    for (const host of document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')) {
      const inner = host.shadowRoot && host.shadowRoot.querySelector(selector);
      if (inner) return inner;
    }
    return null;
  };
"""
# JS: the script is not running and the connection is up (tests/browser_support.py's test).
_IDLE = _DEEP + """
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  const conn = app.getAttribute('data-test-connection-state');
  if (conn !== null && conn !== 'CONNECTED') return false;
  const state = app.getAttribute('data-test-script-state');
  if (state !== null && state !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')) return false;
"""
# JS: the bare page's line is on screen.
BARE_READY = "() => {" + _IDLE + f"""
  const text = document.querySelector('[data-testid="stMain"]');
  return text && text.innerText.includes({json.dumps(BARE_TEXT)}) ? performance.now() : false;
}}"""
# JS: the session page is settled (heading, step picker, DAG and timeline drawn).
SESSION_READY = "() => {" + _IDLE + """
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main || !main.querySelector('[data-testid="stHeading"]')) return false;
  if (!main.querySelector('input[aria-label="Step"], [data-testid="stSelectbox"]')) return false;
  if (!deep('[data-te-dag="drawn"]') || !deep('[data-te-waterfall="drawn"]')) return false;
  return performance.now();
}"""


def bare_app(folder: Path) -> Path:
    """A one-line Streamlit page (the floor every Streamlit page pays)."""
    path = folder / "bare.py"
    path.write_text(f"import streamlit as st\n\nst.write({BARE_TEXT!r})\n", encoding="utf-8")
    return path


def long_store(folder: Path, iterations: int) -> tuple[Path, str, int]:
    """A local store in ``folder`` holding one synthetic ReAct session of ``iterations``
    iterations; returns (store directory, session IRI, its number of steps)."""
    import pyoxigraph as ox
    from synthetic import make_react_session

    from trace_explorer.sources.local_store import ingest_file, open_local_store

    root, quads, documents = make_react_session(iterations, question=f"A long run of {iterations} tool calls")
    trace = folder / "long.nq"
    trace.write_bytes(ox.serialize(quads, format=ox.RdfFormat.N_QUADS))
    texts = folder / "long.documents.json"
    texts.write_text(json.dumps(documents), encoding="utf-8")
    store_dir = folder / "store"
    store = open_local_store(store_dir)
    for path in (trace, texts):
        ingest_file(store, str(path))
    del store
    return store_dir, root, 2 * iterations + 2


def settled_at(page, ready_js: str, timeout_ms: float = TIMEOUT_MS) -> float:
    """Milliseconds from navigation start until ``ready_js`` holds, and still holds 300 ms later
    (a rerun that starts right after the first check moves the time to its own end)."""
    while True:
        first = page.wait_for_function(ready_js, timeout=timeout_ms, polling=POLL_MS).json_value()
        page.wait_for_timeout(300)
        if page.evaluate(ready_js):
            return float(first)


def open_timed(browser, url: str, ready_js: str, viewport: tuple[int, int]) -> float:
    """Open ``url`` in a fresh browser context; seconds until ``ready_js`` holds."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        return settled_at(page, ready_js) / 1000
    finally:
        context.close()


def interaction_timed(browser, url: str, viewport: tuple[int, int]) -> dict[str, float]:
    """On the 26-step session: a click on a DAG node and a "j" key press, each timed from the
    event until the inspector names the step it selected and the script finished."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    times: dict[str, float] = {}
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        settled_at(page, SESSION_READY)
        target = REACT_26 + "/i3"
        page.evaluate("() => {" + _DEEP + " deep('[data-te-dag=\"drawn\"]').scrollIntoView({block: 'center'}); }")
        page.wait_for_timeout(300)
        point = page.evaluate("(id) => {" + _DEEP + " return deep('[data-te-dag=\"drawn\"]').__teDag.pointOf(id); }",
                              target)
        start = page.evaluate("() => performance.now()")
        page.mouse.click(point["x"], point["y"])
        done = _wait_step(page, target)
        times["click a DAG node"] = (done - start) / 1000
        start = page.evaluate("() => performance.now()")
        page.keyboard.press("j")
        done = _wait_step(page, target + "/observation")
        times["press j (next step)"] = (done - start) / 1000
    finally:
        context.close()
    return times


def _wait_step(page, step: str) -> float:
    """performance.now() once the URL names ``step`` and the script finished."""
    ready = "() => {" + _IDLE + f"""
      const params = new URLSearchParams(location.search);
      return params.get('step') === {json.dumps(step)} ? performance.now() : false;
    }}"""
    return settled_at(page, ready)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each measurement (default 3)")
    parser.add_argument("--iterations", type=int, default=2000, help="iterations of the long session (default 2000)")
    parser.add_argument("--width", type=int, default=1400, help="browser viewport width in CSS pixels (default 1400)")
    parser.add_argument("--keep", help="build the long session's store in DIR and leave it there")
    args = parser.parse_args(argv)
    if not chromium_available():
        print(f"Chromium not found at {CHROMIUM_PATH}", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    viewport = (args.width, 1000)
    with contextlib.ExitStack() as stack:
        folder = Path(args.keep) if args.keep else Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="trace-explorer-browser-bench-")))
        folder.mkdir(parents=True, exist_ok=True)
        built = time.perf_counter()
        store_dir, long_iri, long_steps = long_store(folder, args.iterations)
        print(f"{platform.machine()}, Python {platform.python_version()}; viewport {viewport[0]}x{viewport[1]}; "
              f"long session: {long_steps:,} steps (store built in {time.perf_counter() - built:.1f} s); "
              f"medians of {args.repeat}")
        bare = stack.enter_context(streamlit_server(bare_app(folder)))
        demo = stack.enter_context(streamlit_server(env={"TRACE_EXPLORER_STORE": ""}))
        long = stack.enter_context(streamlit_server(env={"TRACE_EXPLORER_STORE": str(store_dir)}))
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=CHROMIUM_PATH, headless=True, args=CHROMIUM_ARGS)
        stack.callback(browser.close)

        # warm-up: each server's first run imports the app and reads its source
        open_timed(browser, bare, BARE_READY, viewport)
        open_timed(browser, demo + "/", LIST_READY, viewport)
        open_timed(browser, long + "/", LIST_READY, viewport)
        first_long = open_timed(browser, session_url(long, long_iri), SESSION_READY, viewport)

        rows: dict[str, list[float]] = {}
        for _ in range(args.repeat):
            rows.setdefault("bare one-line page", []).append(open_timed(browser, bare, BARE_READY, viewport))
            rows.setdefault("26-step session from a link, settled", []).append(
                open_timed(browser, session_url(demo, REACT_26), SESSION_READY, viewport))
            rows.setdefault(f"{long_steps:,}-step session from a link, drawn", []).append(
                open_timed(browser, session_url(long, long_iri), SESSION_READY, viewport))
            for name, seconds in interaction_timed(browser, session_url(demo, REACT_26), viewport).items():
                rows.setdefault(f"26-step session: {name}", []).append(seconds)

    bare_s = median(rows["bare one-line page"])
    targets = {"26-step session from a link, settled": ("<= 2x bare", lambda s: s <= 2 * bare_s),
               f"{long_steps:,}-step session from a link, drawn": ("<= 2 s", lambda s: s <= 2.0)}
    print(f"{'measurement':<46} {'median':>8} {'runs':>22} {'vs bare':>8}   {'target':<11} verdict")
    print("-" * 110)
    for name, values in rows.items():
        value = median(values)
        runs = ", ".join(f"{v:.2f}" for v in values)
        target, met = targets.get(name, ("", None))
        verdict = "" if met is None else ("PASS" if met(value) else "MISS")
        print(f"{name:<46} {value:>6.2f} s {runs:>22} {value / bare_s:>7.2f}x   {target:<11} {verdict}")
    print(f"{f'{long_steps:,}-step session, first open (read from the store)':<46} {first_long:>6.2f} s "
          f"{'':>22} {first_long / bare_s:>7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
