"""Another visitor's session list while an attack runs: idle, during long searches, during big
uploads, with the ratio to idle (the target: within 1.5 times).

    python benchmarks/list_under_attack.py [--lists 5] [--upload-mb 8] [--uploads 4] [--url URL]

Starts the app on the demo (``streamlit run app.py`` on a free loopback port, an upload cache of
its own; or uses ``--url``) and one headless Chromium (``CHROMIUM_PATH`` overrides Debian's).
A visitor opens the session list ``--lists`` times, each in a new browser context, timed from
navigation to the list's caption on screen (``concurrent_users.visit``'s first render), with the
caption checked against the manifest:

- idle: nobody else on the server;
- during searches: an attacker types a search of 349 KB (40,000 different words) into the list's
  search box, again and again (it once took 131 s and held the server: the list went from 0.6 s
  to 61-66 s; a search is now cut to its first 1,000 characters before any work);
- during uploads: an attacker uploads ``--uploads`` files of ``--upload-mb`` MB (triples, each
  round new content) again and again, each round in a new browser session (they are parsed in
  worker processes, within the memory budget for uploads).

The attacker and the visitor share the machine with the server: on a machine of two cores, the
attacker's browser and the parse workers take CPU the server would have, which no lock explains.
Numbers only, nothing asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from concurrent_users import (CHROMIUM_ARGS, CHROMIUM_PATH, TIMEOUT_MS, chromium_available,  # noqa: E402
                              expected_from_manifest, streamlit_server, visit, wait_idle)

SEARCH_WORDS = 40_000
TARGET = 1.5


def long_search() -> str:
    """The adversary's search: 40,000 different words, about 349 KB."""
    return " ".join(f"word{i}x{i * 7919 % 10007}" for i in range(SEARCH_WORDS))


def upload_file(folder: Path, round_: int, index: int, mb: float) -> Path:
    """A Turtle file of about ``mb`` MB of triples, its content new for each round."""
    path = folder / f"attack-{round_}-{index}.ttl"
    line = "<urn:attack:{r}:{i}:{n}> <urn:attack:p> \"a value of triple {n} in round {r}\" .\n"
    lines, size, n = [], 0, 0
    while size < mb * 1_000_000:
        text = line.format(r=round_, i=index, n=n)
        lines.append(text)
        size += len(text)
        n += 1
    path.write_text("".join(lines), encoding="utf-8")
    return path


@contextlib.asynccontextmanager
async def list_page(browser, url: str):
    """The session list in a new browser context (a new browser session), drawn; closed after."""
    context = await browser.new_context()
    try:
        page = await context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        await page.goto(url + "/")
        await wait_idle(page)
        yield page
    finally:
        await context.close()


async def searching(browser, url: str, stop: asyncio.Event) -> int:
    """Type the long search into the list's box until ``stop``; returns how many times."""
    text, rounds = long_search(), 0
    async with list_page(browser, url) as page:
        box = page.locator('[data-testid="stMain"] [data-testid="stTextInput"] input').first
        while not stop.is_set():
            await box.fill(f"round{rounds} {text}")  # a new search each time, in its first characters too
            await box.press("Enter")
            await wait_idle(page)
            rounds += 1
    return rounds


async def uploading(browser, url: str, stop: asyncio.Event, folder: Path, files: int, mb: float) -> int:
    """Upload ``files`` new files of ``mb`` MB in a new browser session until ``stop``;
    returns the rounds."""
    rounds = 0
    while not stop.is_set():
        paths = [upload_file(folder, rounds, i, mb) for i in range(files)]
        try:
            async with list_page(browser, url) as page:
                for path in paths:
                    await page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
                    await wait_idle(page)
        finally:
            for path in paths:
                path.unlink(missing_ok=True)
        rounds += 1
    return rounds


async def list_times(browser, url: str, expected, count: int) -> tuple[list[float], list[str]]:
    """The visitor's list ``count`` times, each in a new context: seconds and problems."""
    times, problems = [], []
    for n in range(count):
        context = await browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            seen = await visit(context, url, expected, [], n)
        finally:
            await context.close()
        problems += seen.problems(expected)
        if seen.first_render_s is not None:
            times.append(seen.first_render_s)
    return times, problems


async def measure(url: str, lists: int, files: int, mb: float, folder: Path) -> list[str]:
    from playwright.async_api import async_playwright

    expected = expected_from_manifest()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM_PATH, headless=True, args=CHROMIUM_ARGS)
        try:
            await list_times(browser, url, expected, 1)  # warm-up: the server reads the demo
            idle, problems = await list_times(browser, url, expected, lists)
            rows = [("idle", idle, "")]
            for name, attack in (("during 349 KB searches", lambda s: searching(browser, url, s)),
                                 (f"during uploads of {files} x {mb:g} MB",
                                  lambda s: uploading(browser, url, s, folder, files, mb))):
                stop = asyncio.Event()
                attacker = asyncio.create_task(attack(stop))
                await asyncio.sleep(3)  # the attack under way
                times, found = await list_times(browser, url, expected, lists)
                stop.set()
                rounds = await attacker
                problems += found
                rows.append((name, times, f"{rounds} attack rounds"))
        finally:
            await browser.close()
    base = statistics.median(idle) if idle else float("nan")
    print(f"{'visitor list':<32} {'median':>8} {'max':>8} {'vs idle':>8}   {'target':<10} verdict   attack")
    for name, times, note in rows:
        med = statistics.median(times) if times else float("nan")
        ratio = med / base
        verdict = "" if name == "idle" else ("PASS" if ratio <= TARGET else "MISS")
        print(f"{name:<32} {med:>7.2f}s {max(times, default=float('nan')):>7.2f}s {ratio:>7.2f}x   "
              f"{'' if name == 'idle' else f'<= {TARGET}x':<10} {verdict:<8}  {note}")
    for problem in problems:
        print(f"    {problem}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lists", type=int, default=5, help="list opens in each condition (default 5)")
    parser.add_argument("--uploads", type=int, default=4, help="files in an upload round (default 4)")
    parser.add_argument("--upload-mb", type=float, default=8, help="MB of each uploaded file (default 8)")
    parser.add_argument("--url", help="use the app already served at URL instead of starting one")
    args = parser.parse_args(argv)
    if not chromium_available(CHROMIUM_PATH):
        print(f"Chromium not found at {CHROMIUM_PATH}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="trace-explorer-attack-") as folder:
        print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; "
              f"{args.lists} list opens in each condition")
        started = time.perf_counter()
        if args.url:
            problems = asyncio.run(measure(args.url.rstrip("/"), args.lists, args.uploads, args.upload_mb, Path(folder)))
        else:
            env = {"TRACE_EXPLORER_STORE": "", "TRACE_EXPLORER_UPLOAD_CACHE": str(Path(folder) / "uploads")}
            with streamlit_server(env=env) as url:
                problems = asyncio.run(measure(url, args.lists, args.uploads, args.upload_mb, Path(folder)))
        print(f"({time.perf_counter() - started:.0f} s in all)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
