"""The browser tests' own helpers (tests/browser_support.py)."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from tests import browser_support
from tests.browser_support import streamlit_server

pytestmark = pytest.mark.browser


def test_a_server_whose_port_was_taken_starts_on_another(monkeypatch):
    # four test workers start servers, gateways and browsers at once: a port free a moment ago
    # may be taken before the server binds it, and the test then failed with "Port … is not available"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        ports = iter([busy, browser_support.free_port()])
        monkeypatch.setattr(browser_support, "free_port", lambda: next(ports))
        with streamlit_server() as url:
            assert not url.endswith(f":{busy}")
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=10) as answer:
                assert answer.read() == b"ok"
