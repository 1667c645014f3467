"""A fragment timer's tick that reaches the server after a change of page never takes the
person back to the page they left (``components/stale_reruns.py``), on Streamlit's own request
queue (``ScriptRequests``), as the app's runs use it."""

from __future__ import annotations

import pytest
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests, ScriptRequestType

import components.stale_reruns as stale_reruns
from components.stale_reruns import guard_timer_reruns, is_stale_tick

LIST, SESSION = "list-page-hash", "session-page-hash"
LIST_TIMER = "list-fragment"


@pytest.fixture
def page_run(monkeypatch):
    """The page the runner is on (set ``page_run["hash"]``), as ``page_being_run`` reads it."""
    guard_timer_reruns()
    now = {"hash": LIST}
    monkeypatch.setattr(stale_reruns, "page_being_run", lambda: now["hash"])
    return now


def tick(page: str = LIST, query: str = "type=Agent&page=2") -> RerunData:
    return RerunData(page_script_hash=page, query_string=query, fragment_id=LIST_TIMER, is_auto_rerun=True)


def back_to(page: str, query: str) -> RerunData:
    return RerunData(page_script_hash=page, query_string=query, is_history_navigation=True)


def test_a_tick_that_comes_after_back_leaves_the_page_back_asked_for(page_run):
    """Back from the list to a session waits for the list's run to end; the list's tick, sent
    before Back, comes next. Streamlit's fold takes the later request's page: the list again."""
    requests = ScriptRequests()
    requests.request_rerun(back_to(SESSION, "session=urn%3Ax&store=s"))
    requests.request_rerun(tick())
    taken = requests.on_scriptrunner_ready()
    assert taken.type == ScriptRequestType.RERUN
    data = taken.rerun_data
    assert (data.page_script_hash, data.query_string) == (SESSION, "session=urn%3Ax&store=s")
    assert data.is_history_navigation and not data.fragment_id_queue


def test_a_tick_for_a_page_no_longer_run_is_dropped_when_the_runner_reaches_it(page_run):
    """A click opened the session (``st.switch_page``); the list's tick waits behind the
    session's run and is dropped there, and after it: nothing is left to run."""
    requests = ScriptRequests()
    requests.request_rerun(tick())
    page_run["hash"] = SESSION
    assert requests.on_scriptrunner_yield() is None  # the session's run goes on
    assert requests.on_scriptrunner_ready().type == ScriptRequestType.STOP


def test_a_tick_for_the_page_shown_runs_its_fragment(page_run):
    requests = ScriptRequests()
    requests.request_rerun(tick())
    requests.request_rerun(tick())  # two ticks fold into one run of the fragment
    taken = requests.on_scriptrunner_ready()
    assert taken.type == ScriptRequestType.RERUN
    assert taken.rerun_data.fragment_id_queue == [LIST_TIMER] and taken.rerun_data.page_script_hash == LIST


def test_a_click_is_never_dropped_whatever_page_the_runner_is_on(page_run):
    """Only timers' ticks are weighed: a person's click in a fragment runs as Streamlit has it."""
    requests = ScriptRequests()
    click = RerunData(page_script_hash=LIST, query_string="type=Agent", fragment_id=LIST_TIMER)
    requests.request_rerun(click)
    page_run["hash"] = SESSION
    taken = requests.on_scriptrunner_ready()
    assert taken.type == ScriptRequestType.RERUN and taken.rerun_data.fragment_id_queue == [LIST_TIMER]


def test_a_tick_folded_into_a_waiting_click_of_the_same_page_is_dropped_and_the_click_runs(page_run):
    requests = ScriptRequests()
    requests.request_rerun(RerunData(page_script_hash=LIST, query_string="type=Agent&page=3"))
    requests.request_rerun(tick(query="type=Agent&page=2"))  # sent before the click's address
    data = requests.on_scriptrunner_ready().rerun_data
    assert (data.page_script_hash, data.query_string, data.is_auto_rerun) == (LIST, "type=Agent&page=3", False)


@pytest.mark.parametrize(("data", "page_now", "stale"), [
    (RerunData(page_script_hash=LIST, fragment_id_queue=[LIST_TIMER], is_auto_rerun=True), SESSION, True),
    (RerunData(page_script_hash=LIST, fragment_id_queue=[LIST_TIMER], is_auto_rerun=True), LIST, False),
    (RerunData(page_script_hash=LIST, fragment_id_queue=[LIST_TIMER]), SESSION, False),  # a click
    (RerunData(page_script_hash=LIST, is_auto_rerun=True), SESSION, False),  # a whole run
    (RerunData(page_script_hash="", fragment_id_queue=[LIST_TIMER], is_auto_rerun=True), SESSION, False),
    (RerunData(page_script_hash=LIST, fragment_id_queue=[LIST_TIMER], is_auto_rerun=True), None, False),
])
def test_which_requests_are_stale_ticks(data, page_now, stale):
    assert is_stale_tick(data, page_now) is stale


def test_the_guard_is_installed_once_a_process():
    guard_timer_reruns()
    installed = ScriptRequests.on_scriptrunner_ready
    guard_timer_reruns()
    assert ScriptRequests.on_scriptrunner_ready is installed
    assert getattr(ScriptRequests, "_te_timer_guard") is True
