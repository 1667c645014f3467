"""Helpers for real-browser tests: a Streamlit server and headless Chromium.

Usage::

    import pytest
    from tests.browser_support import (
        streamlit_server, chromium_page, wait_for_streamlit_idle,
    )

    @pytest.mark.browser
    def test_app_loads():
        with streamlit_server() as url, chromium_page() as page:
            page.goto(url)
            wait_for_streamlit_idle(page)
            assert page.get_by_text("Trace Explorer").first.is_visible()

The tests' browser is Debian's ``/usr/bin/chromium-headless-shell``: the same
Chromium without a window system, lighter on a two-core machine. The benchmarks
time Debian's ``/usr/bin/chromium``, the browser people use (:func:`use_browser`).
Both are installed by ``scripts/setup.sh`` and driven by Playwright's driver only;
never run ``playwright install``. The ``CHROMIUM_PATH`` environment variable
overrides both.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator, Mapping

REPO_ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS_DIR = REPO_ROOT / "tests" / "artifacts"

CHROMIUM_PATH = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")  # the browser people use
HEADLESS_SHELL_PATH = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium-headless-shell")  # the tests'
EXPECT_TIMEOUT_MS = 15000
PORT_ATTEMPTS = 3  # a server whose free port was taken before it bound it starts again on another

# Flags needed for headless Chromium as root on a machine without internet.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_available(path: str | None = None) -> bool:
    """True if ``path`` (by default the binary :func:`chromium_page` runs) is executable."""
    return os.access(path or _CHROMIUM.executable, os.X_OK)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, limit: int = 8000) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "<unreadable>"
    return text if len(text) <= limit else "...\n" + text[-limit:]


@contextlib.contextmanager
def streamlit_server(
    app_path: str | os.PathLike = "app.py",
    env: Mapping[str, str] | None = None,
    timeout_s: float = 60,
) -> Iterator[str]:
    """Run ``streamlit run <app_path>`` on a free port; yield its base URL.

    ``app_path`` is relative to the repo root (or absolute); the server runs
    with the repo root as working directory and ``sys.executable`` as the
    interpreter.  ``env`` entries are added to (and override) ``os.environ``.
    The server is always stopped on exit (SIGTERM, then SIGKILL).  If it does
    not become healthy within ``timeout_s`` a ``RuntimeError`` carrying its
    stdout/stderr is raised; if the ``with`` body fails, the server log is
    attached to that exception as a note. A server whose port another process took between
    :func:`free_port` and its start ("Port … is not available") starts again on another port,
    up to ``PORT_ATTEMPTS`` times.
    """
    full_env = dict(os.environ)
    full_env.setdefault("PYTHONUNBUFFERED", "1")
    if env:
        full_env.update(env)

    with tempfile.TemporaryDirectory(prefix="streamlit-server-") as tmp:
        full_env.setdefault("TRACE_EXPLORER_UPLOAD_CACHE", str(Path(tmp) / "uploads"))  # never the user's cache
        for attempt in range(PORT_ATTEMPTS):
            port = free_port()
            base_url = f"http://127.0.0.1:{port}"
            cmd = [
                sys.executable, "-m", "streamlit", "run", str(app_path),
                "--server.headless", "true",
                "--server.port", str(port),
                "--server.address", "127.0.0.1",
                "--browser.gatherUsageStats", "false",
                "--server.fileWatcherType", "none",
            ]
            out_path = Path(tmp) / f"stdout-{attempt}.log"
            err_path = Path(tmp) / f"stderr-{attempt}.log"
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=full_env, stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=err, start_new_session=True)

            def logs(cmd=cmd, out_path=out_path, err_path=err_path) -> str:
                return (
                    f"command: {' '.join(cmd)}\n"
                    f"--- stdout ---\n{_tail(out_path)}\n"
                    f"--- stderr ---\n{_tail(err_path)}"
                )

            try:
                _wait_healthy(proc, base_url, timeout_s, logs)
            except RuntimeError:
                _stop(proc)
                # the port was free a moment ago, and another test's server or browser took it
                if attempt + 1 < PORT_ATTEMPTS and "is not available" in _tail(err_path):
                    continue
                raise
            break
        try:
            try:
                yield base_url
            except BaseException as exc:
                if hasattr(exc, "add_note"):
                    exc.add_note(f"streamlit server log:\n{logs()}")
                raise
        finally:
            _stop(proc)


def _wait_healthy(proc: subprocess.Popen, base_url: str, timeout_s: float, logs) -> None:
    deadline = time.monotonic() + timeout_s
    last_error = "no attempt yet"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"streamlit exited early with code {proc.returncode}\n{logs()}"
            )
        try:
            with urllib.request.urlopen(f"{base_url}/_stcore/health", timeout=2) as resp:
                body = resp.read().decode(errors="replace").strip()
                if resp.status == 200 and body == "ok":
                    return
                last_error = f"HTTP {resp.status}: {body!r}"
        except (urllib.error.URLError, OSError) as exc:
            last_error = repr(exc)
        time.sleep(0.2)
    raise RuntimeError(
        f"streamlit did not become healthy at {base_url} within {timeout_s}s "
        f"(last error: {last_error})\n{logs()}"
    )


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    # The server runs in its own session: signal its whole process group.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, 15)
    try:
        proc.wait(timeout=10)
        return
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, 9)
    proc.wait(timeout=10)


class _SharedChromium:
    """One headless Chromium per test process, started at first use and stopped at exit.

    Starting Chromium and Playwright's driver costs 2-4 s on the two-core CI machine, so the
    tests of a process share one browser. Its main context has a profile folder of its own (a
    temporary one), so its HTTP cache and V8's cache of compiled script live from one test to the
    next: a page load of the app costs Chromium about 3 CPU-seconds instead of about 5, once the
    app's scripts were loaded once. Each test gets a new page in it, with cookies and permissions
    cleared when it ends; the app keeps nothing in the browser's storage, and each page is a
    Streamlit session of its own. Tests that need people in separate browsers use separate
    (in-memory) contexts of the same browser. A browser that has died is started again.
    """

    def __init__(self, executable: str, reduced_motion: str | None) -> None:
        self.executable = executable
        self.reduced_motion = reduced_motion
        self._playwright = None
        self._context = None
        self._profile: tempfile.TemporaryDirectory | None = None

    def context(self):
        """The shared context with an on-disk profile (started at first use)."""
        if not chromium_available(self.executable):
            raise RuntimeError(
                f"Chromium not found at {self.executable}; run scripts/setup.sh "
                "(installs Debian's chromium packages)"
            )
        if self._context is not None and self._context.browser.is_connected():
            return self._context
        if self._playwright is None:
            from playwright.sync_api import expect, sync_playwright

            self._playwright = sync_playwright().start()
            atexit.register(self.stop)
            # expect(...) waits up to 15 s, not Playwright's 5: a page on a loaded two-core machine
            # can take longer than 5 s to show what a rerun wrote
            expect.set_options(timeout=EXPECT_TIMEOUT_MS)
        if self._profile is None:
            self._profile = tempfile.TemporaryDirectory(prefix="chromium-profile-")
        self._context = self._playwright.chromium.launch_persistent_context(
            self._profile.name, executable_path=self.executable, headless=True, args=CHROMIUM_ARGS,
            reduced_motion=self.reduced_motion)
        for page in list(self._context.pages):  # the blank page it opens with
            page.close()
        return self._context

    def browser(self):
        """The shared browser, for contexts of their own."""
        return self.context().browser

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            if self._context is not None:
                self._context.close()
        with contextlib.suppress(Exception):
            if self._playwright is not None:
                self._playwright.stop()
        with contextlib.suppress(Exception):
            if self._profile is not None:
                self._profile.cleanup()
        self._context = self._playwright = self._profile = None


# Tests ask for reduced motion: Streamlit's frontend then skips its animations, which cost the
# renderer about a tenth of its CPU through a test and are never what a test checks.
REDUCED_MOTION = "reduce"
_CHROMIUM = _SharedChromium(HEADLESS_SHELL_PATH, reduced_motion=REDUCED_MOTION)


def use_browser(executable: str = CHROMIUM_PATH) -> None:
    """Make :func:`chromium_page` and :func:`browser_contexts` run ``executable`` with the
    page's own motion, as a person's browser does (the benchmarks' choice). Call it before the
    first page: a browser already started stays as it is."""
    _CHROMIUM.executable = executable
    _CHROMIUM.reduced_motion = None


@contextlib.contextmanager
def browser_contexts(count: int, viewport: tuple[int, int] = (1400, 1000), *,
                     default_timeout_ms: float = 30000):
    """Yield ``count`` pages, each in a browser context of its own (own cookies and Streamlit
    session), open at the same time in this process's headless Chromium. All are closed on exit."""
    browser = _CHROMIUM.browser()
    width, height = viewport
    contexts = []
    try:
        pages = []
        for _ in range(count):
            context = browser.new_context(viewport={"width": width, "height": height},
                                          reduced_motion=_CHROMIUM.reduced_motion)
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(default_timeout_ms)
            pages.append(page)
        yield pages
    finally:
        for context in contexts:
            with contextlib.suppress(Exception):
                context.close()


@contextlib.contextmanager
def chromium_page(viewport: tuple[int, int] = (1400, 1000), *, default_timeout_ms: float = 30000):
    """Yield a Playwright (sync API) ``Page`` in headless Debian Chromium: a new page in the
    process's shared context (:class:`_SharedChromium`), closed on exit with every page the test
    opened beside it, and the context's cookies and granted permissions cleared.

    Raises RuntimeError when Chromium is not installed.
    """
    context = _CHROMIUM.context()
    before = set(context.pages)
    page = context.new_page()
    try:
        width, height = viewport
        page.set_viewport_size({"width": width, "height": height})
        page.set_default_timeout(default_timeout_ms)
        yield page
    except BaseException as failure:
        _note_failure(context, before, failure)
        raise
    finally:
        for opened in [p for p in context.pages if p not in before]:
            with contextlib.suppress(Exception):
                opened.close()
        with contextlib.suppress(Exception):
            context.clear_cookies()
            context.clear_permissions()


def _note_failure(context, before: set, failure: BaseException) -> None:
    """Keep what each page the failed test opened showed: a screenshot in tests/artifacts
    (``failed-<page>.png``), and its address and the start of its text in the failure's notes, for a failure seen only on a
    loaded machine."""
    for number, opened in enumerate(p for p in context.pages if p not in before):
        with contextlib.suppress(Exception):
            path = screenshot(opened, f"failed-{os.getpid()}-{number}")
            shown = " ".join(opened.locator('[data-testid="stMain"]').inner_text(timeout=2000).split())
            failure.add_note(f"page {number} at {opened.url} ({path}) showed: {shown[:600]}")


def run_async(coroutine):
    """Run ``coroutine`` to its end in a thread of its own and return its result.

    Playwright's sync API keeps an event loop current in the test's thread, so ``asyncio.run``
    there would refuse to start; a fresh thread has no loop.
    """
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


# JS predicate: the app root is mounted, connected to the server, its script
# is not running (or failed to compile) (data-test-script-state is Streamlit's own e2e hook), and
# the status widget does not show "Running...".
_IDLE_JS = """
() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  const conn = app.getAttribute('data-test-connection-state');
  if (conn !== null && conn !== 'CONNECTED' && conn !== 'STATIC_CONNECTED') return false;
  const state = app.getAttribute('data-test-script-state');
  // 'compilationError' = the script finished with a syntax error: idle too.
  if (state !== null && state !== 'notRunning' && state !== 'compilationError') return false;
  if (document.querySelector('[data-testid="stStatusWidgetRunningIcon"]')) return false;
  const status = document.querySelector('[data-testid="stStatusWidget"]');
  if (status && /Running/i.test(status.innerText || '')) return false;
  return true;
}
"""


def wait_for_streamlit_idle(page, timeout_ms: float = 30000, settle_ms: int = 250) -> None:
    """Wait until Streamlit has finished running the script.

    First waits ``settle_ms`` so that a rerun triggered by a just-performed
    interaction has time to start, then waits (up to ``timeout_ms``) for
    the app to be idle, and confirms it is still idle shortly afterwards
    (to ride over a rerun starting right at the first check).
    """
    if settle_ms:
        page.wait_for_timeout(settle_ms)
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        remaining_ms = max(1000.0, (deadline - time.monotonic()) * 1000)
        page.wait_for_function(_IDLE_JS, timeout=remaining_ms, polling=100)
        page.wait_for_timeout(150)
        if page.evaluate(_IDLE_JS):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"Streamlit app not idle after {timeout_ms} ms")


def poll(page, read, done, timeout_ms: float = 15000, every_ms: int = 200):
    """``read()`` again every ``every_ms`` until ``done(value)`` holds or ``timeout_ms`` has
    passed; returns the last value read. For what the page draws a moment after Streamlit
    looks idle (a component drawing the data of the run that just ended)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        value = read()
        if done(value) or time.monotonic() > deadline:
            return value
        page.wait_for_timeout(every_ms)


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot to tests/artifacts/<name>.png; return the path."""
    ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS_DIR / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def open_source_panel(page) -> None:
    """Open the sidebar's Source panel (the source, its forms, the uploader), closed on a first
    visit to the demo, with a click on its title as a person does; nothing when it is open."""
    summary = page.locator('[data-testid="stSidebar"] summary').filter(has_text="Source and files").first
    summary.wait_for()
    if summary.evaluate("s => s.parentElement.open"):
        return
    summary.click()
    page.locator('[data-testid="stSidebar"] .st-key-te_source_kind').wait_for()
    wait_for_streamlit_idle(page)
