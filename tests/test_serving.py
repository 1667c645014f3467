"""Who the app serves without sign-in: ``scripts/demo.sh`` listens on 127.0.0.1 only, refuses to
listen beyond it without sign-in or ``TRACE_EXPLORER_ALLOW_REMOTE=1``, and warns when so allowed;
the app turns away a visitor from another machine (``components/hosting/serving.py``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from streamlit.runtime.context import ContextProxy
from streamlit.testing.v1 import AppTest

from components.hosting.serving import REFUSAL, WARNING, is_loopback, serves_beyond_loopback
from tests.browser_support import REPO_ROOT, free_port
from tests.test_app import table_ids


def _listening(port: int) -> set[str]:
    """The local addresses of the sockets listening on ``port`` (``/proc/net/tcp`` and
    ``tcp6``, state 0A), as hex as the kernel writes them."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as lines:
            for line in list(lines)[1:]:
                local, state = line.split()[1], line.split()[3]
                address, _, hex_port = local.rpartition(":")
                if state == "0A" and int(hex_port, 16) == port:
                    found.add(address)
    return found


def _environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ADDRESS", "TRACE_EXPLORER_ALLOW_REMOTE",
                                                             "STREAMLIT_SERVER_ADDRESS")}
    env.update(extra)
    return env


def test_demo_sh_listens_on_loopback_only():
    port = free_port()
    demo = subprocess.Popen(["bash", "scripts/demo.sh", "--server.fileWatcherType", "none"], cwd=REPO_ROOT,
                            env=_environment(PORT=str(port)), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as answer:
                    assert answer.read() == b"ok"
                    break
            except OSError:
                assert demo.poll() is None and time.monotonic() < deadline, demo.stderr.read().decode()
                time.sleep(0.2)
        # 127.0.0.1 as /proc/net/tcp writes it; never 00000000 (every IPv4 interface) nor :: (every IPv6 one)
        assert _listening(port) == {"0100007F"}
    finally:
        os.killpg(demo.pid, signal.SIGTERM)
        demo.wait(30)


def test_demo_sh_refuses_every_interface_without_sign_in_or_the_setting():
    port = free_port()
    refused = subprocess.run(["bash", "scripts/demo.sh"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
                             env=_environment(PORT=str(port), ADDRESS="0.0.0.0"))
    assert refused.returncode == 2 and _listening(port) == set()
    assert refused.stderr.strip().endswith(
        "error: 0.0.0.0: not serving beyond this machine without sign-in; configure sign-in ([auth] in "
        ".streamlit/secrets.toml), or set TRACE_EXPLORER_ALLOW_REMOTE=1")


@pytest.mark.parametrize("secrets, allow, status, said", [
    ("", "", 2, "error: 0.0.0.0: not serving beyond this machine without sign-in"),
    ("", "1", 0, f"WARNING: {WARNING}"),
    ('[auth]\nredirect_uri = "http://localhost:8501/oauth2callback"\n', "", 0, ""),
])
def test_the_start_check_reads_sign_in_from_the_secrets_file(tmp_path, secrets, allow, status, said):
    (tmp_path / ".streamlit").mkdir()
    if secrets:
        (tmp_path / ".streamlit" / "secrets.toml").write_text(secrets, encoding="utf-8")
    env = _environment(PYTHONPATH=str(REPO_ROOT), HOME=str(tmp_path), TRACE_EXPLORER_ALLOW_REMOTE=allow)
    checked = subprocess.run([sys.executable, "-m", "components.hosting.serving", "0.0.0.0"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == status and checked.stderr.strip().startswith(said)
    assert bool(checked.stderr.strip()) == bool(said)


def test_loopback_addresses():
    assert [is_loopback(a) for a in ("127.0.0.1", "127.8.9.1", "::1", "[::1]", "localhost", "::ffff:127.0.0.1")] == [True] * 6
    assert [is_loopback(a) for a in ("0.0.0.0", "10.0.0.5", "203.0.113.7", "::", "example.org")] == [False] * 5
    assert [serves_beyond_loopback(a) for a in (None, "", "0.0.0.0", "::", "127.0.0.1", "localhost")] == \
        [True, True, True, True, False, False]


@pytest.fixture
def remote_visitor(monkeypatch):
    monkeypatch.setattr(ContextProxy, "ip_address", property(lambda self: "203.0.113.7"))
    monkeypatch.delenv("TRACE_EXPLORER_ALLOW_REMOTE", raising=False)
    monkeypatch.delenv("TRACE_EXPLORER_STORE", raising=False)


def test_a_visitor_from_another_machine_is_turned_away_without_sign_in(remote_visitor, monkeypatch):
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception and [e.value for e in at.error] == [REFUSAL] and table_ids(at) == []
    assert len(at.sidebar) == 0  # no source, no uploader, nothing
    monkeypatch.setenv("TRACE_EXPLORER_ALLOW_REMOTE", "1")  # the operator's leave
    assert table_ids(at.run()) and not at.error


def test_a_visitor_from_another_machine_is_served_when_sign_in_is_configured(remote_visitor):
    from tests.test_sign_in import ONE, SHARED

    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    at.secrets["auth"] = dict(SHARED, **ONE)
    at.user = {"is_logged_in": True, "email": "ada@team.example", "name": "Ada"}  # signed in: sign-in decides
    assert table_ids(at.run()) and not at.error


@pytest.mark.parametrize("allow, said", [
    ("1", f"WARNING: {WARNING}\n"),
    ("", "error: 0.0.0.0: not serving beyond this machine without sign-in; configure sign-in ([auth] in "
         ".streamlit/secrets.toml), or set TRACE_EXPLORER_ALLOW_REMOTE=1; visitors from other machines are turned "
         "away\n"),
])
def test_the_app_says_at_its_first_run_that_it_serves_beyond_loopback(monkeypatch, capsys, allow, said):
    import threading

    import streamlit as st

    import components.hosting.serving as serving

    monkeypatch.setattr(serving, "_warned", threading.Event())  # a new process, as far as the warning knows
    option = st.get_option
    monkeypatch.setattr(st, "get_option", lambda name: "0.0.0.0" if name == "server.address" else option(name))
    monkeypatch.setenv("TRACE_EXPLORER_ALLOW_REMOTE", allow)
    monkeypatch.delenv("TRACE_EXPLORER_STORE", raising=False)
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60).run()
    assert table_ids(at)  # a visitor on the machine itself is served either way
    at.run()
    assert capsys.readouterr().err.count(said) == 1  # once per process
