"""Who the app serves: people on the server's own machine (loopback) unless sign-in is
configured, or the operator says, in so many words, that people elsewhere may come in without it.

- ``sign_in.sign_in_configured``: whether ``.streamlit/secrets.toml`` (``st.secrets``) has an
  ``[auth]`` section, which is what Streamlit's ``st.login`` reads (OIDC providers).
- Without sign-in, ``.streamlit/config.toml`` binds the server to 127.0.0.1 (``server.address``),
  and a visitor that reaches it from another address anyway (the option set to ``0.0.0.0`` on
  the command line, a config file elsewhere) is shown a refusal instead of the app, unless
  ``TRACE_EXPLORER_ALLOW_REMOTE=1`` (``ALLOW_REMOTE_VARIABLE``) is set.
- Serving beyond loopback without sign-in, so allowed, prints a warning (``WARNING``) to
  stderr at start: ``scripts/demo.sh`` prints it before the server starts, and the app prints it
  once per process on its first run, for a server started some other way.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import sys
import threading
from collections.abc import Mapping

import streamlit as st

from .sign_in import sign_in_configured

ALLOW_REMOTE_VARIABLE = "TRACE_EXPLORER_ALLOW_REMOTE"
WARNING = (f"Trace Explorer serves beyond this machine without sign-in ({ALLOW_REMOTE_VARIABLE}=1 and no [auth] "
           f"in .streamlit/secrets.toml): anyone who reaches it sees every source it offers")
REFUSAL = ("This Trace Explorer serves its own machine only: sign-in is not configured. The operator may "
           "configure sign-in, or allow visitors from elsewhere without it "
           f"({ALLOW_REMOTE_VARIABLE}=1).")
_log = logging.getLogger(__name__)
_warned = threading.Event()


def remote_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the operator allowed visitors from other machines without sign-in:
    ``TRACE_EXPLORER_ALLOW_REMOTE`` is ``1``, ``true`` or ``yes`` (any case)."""
    value = (environ if environ is not None else os.environ).get(ALLOW_REMOTE_VARIABLE, "")
    return value.strip().lower() in ("1", "true", "yes")


def is_loopback(address: str | None) -> bool:
    """Whether ``address`` (an IP address, or a bind address such as ``127.0.0.1`` or
    ``localhost``) is this machine's own. None and "" (Streamlit's "every interface" bind, and
    ``st.context.ip_address`` for a loopback visitor) count as loopback only for a visitor: the
    caller decides (``serves_beyond_loopback`` treats an empty bind address as every interface)."""
    if address is None:
        return True
    text = address.strip().strip("[]")
    if text == "localhost":
        return True
    try:
        parsed = ipaddress.ip_address(text)
    except ValueError:
        return False
    mapped = getattr(parsed, "ipv4_mapped", None)
    return (mapped or parsed).is_loopback


def serves_beyond_loopback(bind_address: str | None) -> bool:
    """Whether a server bound to ``bind_address`` (``server.address``; None or "": every
    interface) may be reached from other machines."""
    return not bind_address or not is_loopback(bind_address)


def guard() -> None:
    """Run at the top of every page run: print ``start_check``'s words once per process, and stop the
    run with ``REFUSAL`` for a visitor from another machine when sign-in is not configured and
    remote visitors are not allowed."""
    if not _warned.is_set():
        _warned.set()
        status, said = start_check(st.get_option("server.address"))
        if said:  # the warning; or, bound beyond loopback with no leave, that others are turned away
            said = said if status == 0 else f"{said}; visitors from other machines are turned away"
            print(f"{'WARNING' if status == 0 else 'error'}: {said}", file=sys.stderr, flush=True)
            _log.warning(said)
    visitor = st.context.ip_address  # None from loopback; a str address otherwise (not one under AppTest)
    if not isinstance(visitor, str) or is_loopback(visitor) or remote_allowed() or sign_in_configured():
        return
    st.error(REFUSAL, icon=":material/lock:")
    st.stop()


def start_check(bind_address: str | None, environ: Mapping[str, str] | None = None) -> tuple[int, str | None]:
    """What a launcher does before the server starts on ``bind_address``: ``(0, None)`` to
    start quietly, ``(0, WARNING)`` to start and print the warning, ``(2, message)`` to refuse
    (beyond loopback with neither sign-in nor ``TRACE_EXPLORER_ALLOW_REMOTE``)."""
    if not serves_beyond_loopback(bind_address) or sign_in_configured():
        return 0, None
    if remote_allowed(environ):
        return 0, WARNING
    return 2, (f"{bind_address or 'every interface'}: not serving beyond this machine without sign-in; configure "
               f"sign-in ([auth] in .streamlit/secrets.toml), or set {ALLOW_REMOTE_VARIABLE}=1")


if __name__ == "__main__":  # scripts/demo.sh, before the server starts: python -m components.hosting.serving ADDRESS
    status, said = start_check(sys.argv[1] if len(sys.argv) > 1 else None)
    if said:
        print(f"{'WARNING' if status == 0 else 'error'}: {said}", file=sys.stderr)
    sys.exit(status)
