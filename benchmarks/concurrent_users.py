"""Many people on one server: time to first render, and correct pages, at 1 and at 10 users.

    python benchmarks/concurrent_users.py [--users 1,10] [--sessions 3] [--repeat 1] [--url URL]

Starts the app (``streamlit run app.py`` on a free loopback port, as the browser tests do; or
uses ``--url``), then for each number of users N opens N browser contexts of one headless
Chromium at once (asyncio Playwright; Debian's ``/usr/bin/chromium``, ``CHROMIUM_PATH``
overrides). A context is a person: its own cookies, its own Streamlit session. Each person

1. opens the session list and waits for it: the *time to first render* is from navigation
   start to the list's caption being on screen ("1–19 of 19 matching · 19 top-level sessions
   in all"); the caption and the sidebar's "Sessions" count must match
   ``trace_explorer/demo_data/manifest.json`` (the demo is the reference corpus);
2. opens ``--sessions`` session pages by their shareable URL (different ones per person) and
   waits for each page to finish; the heading must be the manifest's question, the session's
   IRI must be on the page and no exception may show.

Each row also gives when Streamlit's front end was up in each browser (its app shell on screen,
before the server is asked for the list: the time to fetch and run Streamlit's JavaScript), and
the CPU seconds the server and the browsers spent on the run: with the browsers on the same
machine as the server, these say whose work the wait is. The header gives the machine's load.

A warm-up visit (the server's first, which parses the demo into the shared cache) runs first and
is reported on its own. Every figure is printed, none asserted (speed targets live in
benchmarks, never in unit tests); ``tests/test_browser_users.py`` runs the same visits with ten
people and asserts only that every page was right. Exit status 1 when any page was wrong.
``benchmarks/list_under_attack.py`` times one visitor's list while another searches and uploads.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.browser_support import _IDLE_JS, CHROMIUM_ARGS, CHROMIUM_PATH, chromium_available, streamlit_server  # noqa: E402

CORPUS = REPO / "trace_explorer" / "demo_data"
LIST_CAPTION = re.compile(r"^\d+–\d+ of [\d,]+ matching")
TIMEOUT_MS = 180_000  # ten people on a 2-core machine: generous, a hang still ends


@dataclass(frozen=True)
class Expected:
    """What the demo must show, from the corpus manifests: the top-level sessions (IRI ->
    question) and how many sessions there are in all."""

    top: dict[str, str]
    total: int

    @property
    def caption(self) -> str:
        """The start of the list's caption on its first page."""
        n = len(self.top)
        return f"1–{n} of {n} matching · {n} top-level sessions in all"


def expected_from_manifest(path: Path = CORPUS / "manifest.json",
                           services: Path = CORPUS / "services" / "manifest.json") -> Expected:
    """What the demo shows: the sessions of the reference corpus's manifest (``path``) and of the
    service corpus's (``services``, a list under ``"sessions"``)."""
    manifest = json.loads(path.read_text(encoding="utf-8"))
    sessions = [s for f in manifest.values() for s in f["sessions"]]
    sessions += json.loads(services.read_text(encoding="utf-8"))["sessions"]
    return Expected({s["session"]: s["question"] for s in sessions if s["parent"] is None}, len(sessions))


def picks_for(user: int, expected: Expected, count: int) -> list[str]:
    """The sessions person ``user`` opens: ``count`` of the top-level ones, a different run per person."""
    iris = sorted(expected.top)
    return [iris[(user * count + j) % len(iris)] for j in range(count)]


@dataclass
class Opened:
    iri: str
    question: str  # the manifest's
    heading: str  # what the page showed
    iri_shown: bool
    exception: str | None  # the text of an exception shown on the page
    seconds: float


@dataclass
class Visit:
    """One person's visit: what they saw, how long it took, what went wrong."""

    user: int
    first_render_s: float | None = None
    caption: str = ""
    sessions_metric: str = ""
    opened: list[Opened] = field(default_factory=list)
    error: str | None = None
    front_end_s: float | None = None  # from navigation to Streamlit's front end up (its app shell on screen)

    def problems(self, expected: Expected) -> list[str]:
        """Every way this visit's pages differ from the manifest (empty: all correct)."""
        found = [f"user {self.user}: {self.error}"] if self.error else []
        if not self.caption.startswith(expected.caption):
            found.append(f"user {self.user}: list caption {self.caption!r}, expected {expected.caption!r}…")
        if self.sessions_metric != str(expected.total):
            found.append(f"user {self.user}: sidebar Sessions {self.sessions_metric!r}, expected {expected.total}")
        for page in self.opened:
            if page.heading != page.question:
                found.append(f"user {self.user}: {page.iri} shows {page.heading!r}, expected {page.question!r}")
            if not page.iri_shown:
                found.append(f"user {self.user}: {page.iri} is not named on its page")
            if page.exception is not None:
                found.append(f"user {self.user}: {page.iri} shows an exception: {page.exception}")
        return found


async def wait_idle(page, timeout_ms: float = TIMEOUT_MS) -> None:
    """Wait until the Streamlit script has finished (tests/browser_support.py's test, async)."""
    await page.wait_for_timeout(250)
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        await page.wait_for_function(_IDLE_JS, timeout=max(1000.0, (deadline - time.monotonic()) * 1000), polling=100)
        await page.wait_for_timeout(150)
        if await page.evaluate(_IDLE_JS) or time.monotonic() > deadline:
            return


def session_url(base: str, iri: str) -> str:
    return f"{base}/session?session={urllib.parse.quote(iri, safe='')}"


async def visit(context, url: str, expected: Expected, picks: list[str], user: int) -> Visit:
    """One person's visit in ``context``: the list, then each session of ``picks``."""
    result = Visit(user)
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        start = time.perf_counter()
        await page.goto(url + "/")
        await page.locator('[data-testid="stApp"]').first.wait_for()
        result.front_end_s = time.perf_counter() - start
        caption = page.get_by_text(LIST_CAPTION).first
        await caption.wait_for()
        result.first_render_s = time.perf_counter() - start
        await wait_idle(page)
        result.caption = await caption.inner_text()
        metric = page.locator('[data-testid="stSidebar"] [data-testid="stMetric"]').filter(has_text="Sessions").first
        result.sessions_metric = (await metric.locator('[data-testid="stMetricValue"]').inner_text()).strip()
        for iri in picks:
            start = time.perf_counter()
            await page.goto(session_url(url, iri))
            heading = page.locator('[data-testid="stMain"] [data-testid="stHeading"]').first
            await heading.wait_for()
            await wait_idle(page)
            seconds = time.perf_counter() - start
            text = await page.locator('[data-testid="stMain"]').inner_text()
            shown = page.locator('[data-testid="stException"]')
            exception = " ".join((await shown.first.inner_text()).split())[:300] if await shown.count() else None
            result.opened.append(Opened(iri, expected.top[iri], (await heading.inner_text()).strip(),
                                        iri in text, exception, seconds))
    except Exception as error:  # noqa: BLE001 - a failed visit is a result to report
        result.error = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    finally:
        await page.close()
    return result


async def run_users(url: str, users: int, expected: Expected, sessions: int = 3,
                    viewport: tuple[int, int] = (1400, 1000), executable: str = CHROMIUM_PATH,
                    reduced_motion: str | None = None) -> list[Visit]:
    """``users`` people at once, each in a browser context of its own, on the app at ``url``, in
    the Chromium at ``executable`` (Debian's chromium unless told)."""
    from playwright.async_api import async_playwright

    if not chromium_available(executable):
        raise RuntimeError(f"Chromium not found at {executable}")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            contexts = [await browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                                  reduced_motion=reduced_motion)
                        for _ in range(users)]
            return list(await asyncio.gather(*(visit(c, url, expected, picks_for(i, expected, sessions), i)
                                               for i, c in enumerate(contexts))))
        finally:
            await browser.close()


def server_cpu_seconds(url: str) -> float | None:
    """CPU time (user + system) used so far by the Streamlit server serving ``url``, from /proc
    (None when it cannot be found: another machine, or not Linux)."""
    port = urllib.parse.urlparse(url).port
    try:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                if b"streamlit" not in b" ".join(argv) or f"{port}".encode() not in argv:
                    continue
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return None
    return None


def _seconds(values: list[float]) -> str:
    if not values:
        return "—"
    return f"{statistics.median(values):.2f} s / {max(values):.2f} s"


def browsers_cpu_seconds() -> float:
    """CPU time (user + system) of the child processes this process has waited for: the
    Playwright driver and the Chromium it ran, once a run of visits has closed them."""
    times = os.times()
    return times.children_user + times.children_system


def report(label: str, visits: list[Visit], expected: Expected, cpu: float | None = None,
           browsers: float | None = None) -> list[str]:
    """Print one row for a run of visits (``cpu``: the server's CPU seconds during it,
    ``browsers``: the browsers'); return the problems found."""
    first = [v.first_render_s for v in visits if v.first_render_s is not None]
    shell = [v.front_end_s for v in visits if v.front_end_s is not None]
    pages = [p.seconds for v in visits for p in v.opened]
    problems = [p for v in visits for p in v.problems(expected)]
    checked = 2 * len(visits) + sum(3 * len(v.opened) for v in visits)
    print(f"{label:<22} {_seconds(shell):>20} {_seconds(first):>20} {_seconds(pages):>20}   {len(pages):>5}   "
          f"{'—' if cpu is None else f'{cpu:.1f} s':>10}   "
          f"{'—' if browsers is None else f'{browsers:.1f} s':>12}   "
          f"{'all correct' if not problems else f'{len(problems)} wrong'} ({checked} checks)")
    for problem in problems:
        print(f"    {problem}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", default="1,10", help="numbers of people at once, comma-separated (default 1,10)")
    parser.add_argument("--sessions", type=int, default=3, help="session pages each person opens (default 3)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each number of people (default 1)")
    parser.add_argument("--url", help="use the app already served at URL instead of starting one")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.users.split(",") if n.strip()]
    expected = expected_from_manifest()

    def measure(url: str) -> int:
        print(f"app {url}; {platform.machine()}, {platform.python_version()}, {os.cpu_count()} cores, load average "
              f"{os.getloadavg()[0]:.1f} at start; "
              f"{len(expected.top)} top-level sessions, {expected.total} in all; {args.sessions} session pages a person")
        print(f"{'run':<22} {'front end med/max':>20} {'first render med/max':>20} "
              f"{'session page med/max':>20}   {'pages':>5}   {'server CPU':>10}   {'browsers CPU':>12}   result")

        def run(label: str, users: int) -> list[str]:
            before, browsers = server_cpu_seconds(url), browsers_cpu_seconds()
            visits = asyncio.run(run_users(url, users, expected, args.sessions))
            after, browsers = server_cpu_seconds(url), browsers_cpu_seconds() - browsers
            return report(label, visits, expected, None if before is None or after is None else after - before,
                          browsers)

        wrong = run("warm-up (1 user)", 1)
        for users in counts:
            for number in range(args.repeat):
                wrong += run(f"{users} user{'s' if users != 1 else ''}"
                             + (f" (run {number + 1})" if args.repeat > 1 else ""), users)
        return 1 if wrong else 0

    if args.url:
        return measure(args.url.rstrip("/"))
    # the app must start on the demo, not on a deployment's store
    with streamlit_server(env={"TRACE_EXPLORER_STORE": ""}) as url:
        return measure(url)


if __name__ == "__main__":
    sys.exit(main())
