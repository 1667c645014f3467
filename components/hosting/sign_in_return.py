"""Where a person was going when the app sent them to sign in: the link they opened (a session,
a store, a set of uploaded files…) opens once they are back.

Streamlit's sign-in always comes back to the app's home page, in a new session, so the address
is kept in the browser tab's own ``sessionStorage`` (per tab and origin, it outlives the trip to
the provider and back, and nothing of it reaches the server or another tab). A small
``st.components.v2`` component (inline, no iframe, nothing fetched) does both halves:

- ``keep``: stores ``location.pathname + location.search`` and fires the trigger ``kept``; the run
  that trigger starts sends the browser to the provider (so the address is stored before it
  leaves);
- ``back``: in a signed-in person's first run, takes the stored address out and, when it is on
  this origin and not where the tab already is, goes there (``location.replace``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

STORAGE_KEY = "te-sign-in-return"
_RETURNED = "te_sign_in_returned"  # this session already went back to the kept address

_JS = """
export default function (component) {
  const { data, setTriggerValue } = component;
  const key = %(key)s;
  const here = location.pathname + location.search;
  if (data && data.mode === "keep") {
    try { sessionStorage.setItem(key, here); } catch (e) { /* storage off: the list it is */ }
    setTriggerValue("kept", true);
    return;
  }
  let wanted = null;
  try { wanted = sessionStorage.getItem(key); sessionStorage.removeItem(key); } catch (e) { return; }
  if (!wanted || wanted === here || !wanted.startsWith("/") || wanted.startsWith("//")) return;
  const target = new URL(wanted, location.origin);
  if (target.origin === location.origin) location.replace(target.href);
}
"""

_COMPONENT: Callable[..., Any] | None = None


def _component() -> Callable[..., Any]:
    global _COMPONENT
    if _COMPONENT is None:
        _COMPONENT = st.components.v2.component("trace_explorer.sign_in_return",
                                                js=_JS % {"key": repr(STORAGE_KEY)})
    return _COMPONENT


def _ignore() -> None:
    """The trigger is read from the component's result in the run it starts."""


def keep_address() -> bool:
    """Store the tab's address for after sign-in; True in the run the browser's confirmation
    starts (the stored address is then safe to leave), False before it (and in ``AppTest``,
    which runs no script of the browser's)."""
    result = _component()(key="te_sign_in_keep", data={"mode": "keep"}, on_kept_change=_ignore)
    return bool(result is not None and result.get("kept"))


def go_back_once() -> None:
    """In a signed-in session's first run, send the tab to the address kept before sign-in (if
    any, on this origin); later runs draw nothing."""
    if st.session_state.get(_RETURNED):
        return
    st.session_state[_RETURNED] = True
    _component()(key="te_sign_in_back", data={"mode": "back"})
