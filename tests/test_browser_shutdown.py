"""The app exits promptly on SIGTERM while it is reading from a hostile gateway: a visitor
connects the TrustGraph form to a server that drips one byte every 2 s, and while the app is
still reading it the server process gets SIGTERM. It must be gone within a few seconds, far
sooner than the form's 30 s deadline: the reads in flight are ended when the interpreter shuts
down (``trace_explorer.network.http_deadline.abort_all``), so no worker thread holds it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.browser_support import REPO_ROOT, _wait_healthy, chromium_page, free_port, wait_for_streamlit_idle
from tests.hostile_server import HostileServer
from tests.test_browser_trustgraph import choose_trustgraph

pytestmark = pytest.mark.browser
EXIT_S = 8  # far less than the form's 30 s deadline


def test_sigterm_ends_the_app_while_it_reads_a_dripping_gateway(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (tmp_path / "streamlit.log").open("wb")
    env = {**__import__("os").environ, "TRACE_EXPLORER_ENDPOINT_ALLOW": "127.0.0.1", "PYTHONUNBUFFERED": "1"}
    env.pop("TRACE_EXPLORER_STORE", None)
    app = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                            "--server.port", str(port), "--server.address", "127.0.0.1",
                            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                           cwd=REPO_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        with HostileServer("drip", drip_s=2.0) as server:
            _wait_healthy(app, base, 60, lambda: (tmp_path / "streamlit.log").read_text(errors="replace"))
            with chromium_page() as page:
                page.goto(base)
                wait_for_streamlit_idle(page)
                choose_trustgraph(page)
                field = page.locator(".st-key-te_tg_url input")
                field.fill(server.url)
                page.locator(".st-key-te_tg_connect button").click()  # the form's Connect, as Enter would
                waited = time.monotonic()
                while not server.open_connections and time.monotonic() - waited < 20:
                    time.sleep(0.1)
                assert server.open_connections, "the app never asked the dripping gateway"
                time.sleep(1.0)  # the app is now blocked on the drip
                app.send_signal(signal.SIGTERM)
                try:
                    code = app.wait(timeout=EXIT_S)
                except subprocess.TimeoutExpired:
                    code = None
            assert code is not None, f"still running {EXIT_S} s after SIGTERM"
            assert server.requests and server.requests[0][0].startswith("/api/v1/")
    finally:
        if app.poll() is None:
            app.kill()
            app.wait(timeout=10)
        log.close()
