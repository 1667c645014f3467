"""A fragment's timer (``st.fragment(run_every=…)``) never takes a person back to a page they
left.

The session list and a running session's page each run a fragment on a timer. Each tick is a
rerun request from the browser that names the page it was drawn on. A tick sent just before a
click opened another page (``st.switch_page``), or just before Back or Forward, reaches the
server after the change of page, and Streamlit (1.67) then takes it as the page to show:

- folded into a change of page still waiting to run, the later request's page and address win
  (``ScriptRequests._request_rerun_locked``): Back from a session showed the session again;
- waiting behind the new page's run, it runs the old page's fragment after it, and the browser,
  told of a page it no longer shows, sent no rerun for Back until the tab was reloaded.

``guard_timer_reruns`` mends both where Streamlit keeps its requests: a tick folded into a
waiting run of the whole app is dropped (that run draws the fragment anyway, on the right page),
and a tick that names another page than the one being run is dropped when the runner reaches
it. A person's own clicks and every other request are untouched.
"""

from __future__ import annotations

from streamlit.runtime.scriptrunner_utils import script_requests
from streamlit.runtime.scriptrunner_utils.script_requests import (
    RerunData,
    ScriptRequest,
    ScriptRequests,
    ScriptRequestType,
)
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

_GUARDED = "_te_timer_guard"


def page_being_run() -> str | None:
    """The page hash of the run in progress on this thread (the page a change of page asked
    for, else the page the app's navigation resolved), or None off a script thread."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return None
    pages = ctx.pages_manager
    return pages.intended_page_script_hash or pages.current_page_script_hash or None


def _tick(data: RerunData) -> bool:
    """Whether ``data`` is a fragment timer's tick (a fragment's rerun the browser's timer asked for)."""
    return bool(data.is_auto_rerun and (data.fragment_id or data.fragment_id_queue))


def is_stale_tick(data: RerunData, page_now: str | None) -> bool:
    """Whether ``data`` is a fragment timer's tick for another page than ``page_now``."""
    return _tick(data) and bool(data.page_script_hash and page_now and data.page_script_hash != page_now)


def guard_timer_reruns() -> None:
    """Install the guard on Streamlit's ``ScriptRequests`` (once a process; later calls do
    nothing). The page being run is read (``page_being_run``) when a runner takes its next
    request. Raises nothing: a Streamlit without these methods is left as it is."""
    if getattr(ScriptRequests, _GUARDED, False):
        return
    fold = getattr(ScriptRequests, "_request_rerun_locked", None)
    take_when_yielding = getattr(ScriptRequests, "on_scriptrunner_yield", None)
    take_when_ready = getattr(ScriptRequests, "on_scriptrunner_ready", None)
    if fold is None or take_when_yielding is None or take_when_ready is None:
        return

    def guarded_fold(self: ScriptRequests, new_data: RerunData) -> bool:
        if (self._state == ScriptRequestType.RERUN and _tick(new_data)
                and script_requests._is_full_app_rerun(self._rerun_data)):
            return True  # the waiting run draws the page it names, and the tick's page may be gone
        return fold(self, new_data)

    def drop_stale(self: ScriptRequests) -> None:
        if self._state != ScriptRequestType.RERUN:  # the common case, read without the lock
            return
        with self._lock:
            if self._state == ScriptRequestType.RERUN and is_stale_tick(self._rerun_data, page_being_run()):
                self._state = ScriptRequestType.CONTINUE

    def guarded_yield(self: ScriptRequests) -> ScriptRequest | None:
        drop_stale(self)
        return take_when_yielding(self)

    def guarded_ready(self: ScriptRequests) -> ScriptRequest:
        drop_stale(self)
        return take_when_ready(self)

    ScriptRequests._request_rerun_locked = guarded_fold
    ScriptRequests.on_scriptrunner_yield = guarded_yield
    ScriptRequests.on_scriptrunner_ready = guarded_ready
    setattr(ScriptRequests, _GUARDED, True)
