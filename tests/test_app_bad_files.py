"""Bad files through the app's sidebar (the Files source), and problems inside a trace.

Each bad file is uploaded as a person would, and the sidebar must show one message that names the
file, its line and column when the parser gives them and what was expected; no exception, and the
sessions loaded before (the demo, or a person's own file) are still listed. Problems inside a
trace that loads (a cycle, values that do not parse, a root without types, a step two sessions
reach) are warnings on that session's page, never a failure of the collection.
"""

from __future__ import annotations

import gzip

import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from components.sidebar.source_picker import SOURCE_PANEL_KEY
from tests.conftest import CORPUS, MANIFEST
from tests.list_support import files_table
from tests.test_app import REPO, TOP, open_session, table_ids, unescape
from tests.test_loading import BAD_FILES
from tests.workspace_support import sent, step_of, texts, titled
from trace_explorer.sources.demo import demo_paths

DEMO = sorted(s["session"] for s in TOP)
SEED = sorted(s["session"] for s in MANIFEST["seed-sessions.ttl"]["sessions"])


@pytest.fixture(autouse=True)
def default_limits(monkeypatch):
    for name in ("TRACE_EXPLORER_MAX_FILE_MB", "TRACE_EXPLORER_MAX_EXPANDED_MB", "TRACE_EXPLORER_STORE"):
        monkeypatch.delenv(name, raising=False)


def start() -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.session_state[SOURCE_PANEL_KEY] = True  # the uploader is in it (a module's fixture starts one too)
    at.run()
    assert not at.exception
    return at


def upload(at: AppTest, *files: tuple[str, bytes]) -> AppTest:
    at.sidebar.file_uploader[0].set_value([(name, data, "application/octet-stream") for name, data in files]).run()
    return at


def sidebar_errors(at: AppTest) -> list[str]:
    return [unescape(e.value) for e in at.sidebar.error]


def assert_still_fine(at: AppTest, sessions: list[str] = DEMO) -> None:
    """No exception element, and the list still holds exactly ``sessions``."""
    assert not at.exception, at.exception
    assert sorted(table_ids(at)) == sessions


# The issue's list of bad files, each alone, with the message the sidebar must show.
BY_NAME = {name: (data, message) for name, data, message in BAD_FILES}
ISSUE_CASES = ["empty.ttl", "empty.json", "truncated.ttl", "cut.ttl", "bad-iri.ttl", "latin1.ttl", "image.ttl",
               "object.json", "numbers.json", "packed.trig"]


@pytest.mark.parametrize("name", ISSUE_CASES)
def test_each_bad_file_gives_its_message_and_the_demo_stays(name):
    data, message = BY_NAME[name]
    at = upload(start(), (name, data))
    assert sidebar_errors(at) == [message]
    assert_still_fine(at)


def test_a_batch_of_every_bad_file_gives_one_message_each_in_order():
    at = upload(start(), *[(name, data) for name, data, _ in BAD_FILES if not name.endswith(".txt")])
    assert sidebar_errors(at) == [message for name, _, message in BAD_FILES if not name.endswith(".txt")]
    assert_still_fine(at)
    files = files_table(at)  # the Files table lists only what loaded: the demo
    assert sorted(files["File"]) == sorted(path.name for path in demo_paths())


def test_a_bad_file_after_a_good_one_keeps_the_good_ones_sessions():
    at = upload(start(), ("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes()))
    assert_still_fine(at, SEED)
    data, message = BY_NAME["truncated.ttl"]
    upload(at, ("truncated.ttl", data))
    assert sidebar_errors(at) == [message]
    assert_still_fine(at, SEED)
    assert {m.label: m.value for m in at.sidebar.metric}["Sessions"] == str(len(SEED))


def test_the_next_batch_clears_the_last_batchs_messages():
    at = upload(start(), ("truncated.ttl", BY_NAME["truncated.ttl"][0]))
    assert len(sidebar_errors(at)) == 1
    upload(at, ("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes()))
    assert sidebar_errors(at) == []
    assert_still_fine(at, SEED)


def test_a_gzip_that_expands_past_the_configured_limit_is_refused(monkeypatch):
    monkeypatch.setenv("TRACE_EXPLORER_MAX_EXPANDED_MB", "0.25")  # 256 KiB; every demo file is smaller
    at = start()
    bomb = gzip.compress(b"# padding\n" * 40_000)  # 400,000 bytes (390.6 KiB) of text in under 1 KiB
    assert len(bomb) < 1024
    upload(at, ("bomb.ttl.gz", bomb))
    assert sidebar_errors(at) == [
        "bomb.ttl.gz: expected gzip content of at most 256 KiB when expanded (the limit set by "
        f"TRACE_EXPLORER_MAX_EXPANDED_MB); this file ({len(bomb)} bytes compressed) expands to more"]
    assert_still_fine(at)


def test_a_file_over_the_configured_file_limit_is_refused_before_it_is_read(monkeypatch):
    monkeypatch.setenv("TRACE_EXPLORER_MAX_FILE_MB", "0.25")  # 256 KiB
    at = start()
    big = b"# a comment line of a big trace file\n" * 8_000  # 296,000 bytes: 289.1 KiB
    upload(at, ("huge-upload.ttl", big), ("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes()))
    assert sidebar_errors(at) == ["huge-upload.ttl: expected a file of at most 256 KiB (the limit set by "
                                  "TRACE_EXPLORER_MAX_FILE_MB); this one is 289.1 KiB"]
    assert_still_fine(at, SEED)  # the other file of the batch loaded
    # the browser's own limit stays Streamlit's, so such a file reaches the app and this message
    assert at.sidebar.file_uploader[0].proto.max_upload_size_mb == 512


def test_a_file_over_streamlits_upload_limit_is_refused_with_the_setting_named():
    before = st_config.get_option("server.maxUploadSize")
    st_config.set_option("server.maxUploadSize", 1)
    try:
        at = start()
        big = b"#" * 1_400_000  # 1.3 MiB of one comment
        upload(at, ("too-big-for-streamlit.ttl", big))
        assert sidebar_errors(at) == [
            "too-big-for-streamlit.ttl: expected a file of at most 1 MiB (the limit set by server.maxUploadSize in "
            ".streamlit/config.toml or STREAMLIT_SERVER_MAX_UPLOAD_SIZE); this one is 1.3 MiB"]
        assert_still_fine(at)
    finally:
        st_config.set_option("server.maxUploadSize", before)


def test_the_shipped_upload_limit_matches_the_readers_default():
    text = (REPO / ".streamlit" / "config.toml").read_text(encoding="utf-8")
    assert "\nmaxUploadSize = 512\n" in text


# -- problems inside a trace that loads -------------------------------------------------------

AGENT = "urn:trustgraph:agent:00000000-bad0-4000-8000-00000000000a"
CYCLE = "urn:trustgraph:agent:00000000-bad0-4000-8000-00000000000b"
UNTYPED = "urn:trustgraph:question:00000000-bad0-4000-8000-00000000000c"
FIRST = "urn:trustgraph:question:00000000-bad0-4000-8000-00000000000d"
SECOND = "urn:trustgraph:question:00000000-bad0-4000-8000-00000000000e"
SHARED = "urn:trustgraph:prov:synthesis:00000000-shared"
PROBLEMS_TTL = f"""@prefix tg: <https://trustgraph.ai/ns/> .
@prefix prov: <http://www.w3.org/ns/prov#> .

<{AGENT}> a tg:Question, tg:AgentQuestion, prov:Entity ; tg:query "Values that do not parse" ;
    prov:startedAtTime "2026-05-01T10:00:00Z" .
<{AGENT}/i1> a tg:Analysis, tg:ToolUse ; prov:wasDerivedFrom <{AGENT}> ; tg:action "search" ;
    tg:arguments "{{not json" ; tg:llmDurationMs "fast" ; tg:inToken "12.5k" ; prov:startedAtTime "yesterday" .
<{AGENT}/final> a tg:Conclusion, tg:Answer ; prov:wasDerivedFrom <{AGENT}/i1> ; tg:answer "done anyway" .

<{CYCLE}> a tg:Question, tg:AgentQuestion, prov:Entity ; tg:query "Derivations in a cycle" ;
    prov:startedAtTime "2026-05-01T09:00:00Z" .
<{CYCLE}/i1> a tg:Analysis ; prov:wasDerivedFrom <{CYCLE}>, <{CYCLE}/i2> ; tg:action "first" .
<{CYCLE}/i2> a tg:Analysis ; prov:wasDerivedFrom <{CYCLE}/i1> ; tg:action "second" .

<{UNTYPED}> tg:query "A root with no types" ; prov:startedAtTime "2026-05-01T08:00:00Z" .
<urn:trustgraph:prov:grounding:00000000-c> a tg:Grounding ; prov:wasDerivedFrom <{UNTYPED}> ; tg:concept "types" .

<{FIRST}> a tg:Question, tg:GraphRagQuestion ; tg:query "First of two claimants" ; prov:startedAtTime "2026-05-01T07:00:00Z" .
<{SECOND}> a tg:Question, tg:GraphRagQuestion ; tg:query "Second of two claimants" ; prov:startedAtTime "2026-05-01T06:00:00Z" .
<urn:trustgraph:prov:grounding:00000000-d> a tg:Grounding ; prov:wasDerivedFrom <{FIRST}> .
<urn:trustgraph:prov:grounding:00000000-e> a tg:Grounding ; prov:wasDerivedFrom <{SECOND}> .
<{SHARED}> a tg:Synthesis, tg:Answer ; prov:wasDerivedFrom <urn:trustgraph:prov:grounding:00000000-d>,
    <urn:trustgraph:prov:grounding:00000000-e> .
""".encode()
INTRO = "This session's trace has {n} problem{s}; the values concerned are shown as missing or as they were recorded:"


@pytest.fixture(scope="module")
def problems_app():
    """The app with the problem trace uploaded: it loads as a whole, with no error."""
    at = upload(start(), ("problems.ttl", PROBLEMS_TTL))
    assert sidebar_errors(at) == []
    assert_still_fine(at, sorted([AGENT, CYCLE, UNTYPED, FIRST, SECOND]))
    return at


def open_uploaded(at: AppTest, iri: str, step: str | None = None) -> AppTest:
    return open_session(iri, step, at)


def header_warnings(at: AppTest) -> list[str]:
    return [unescape(w.value) for w in at.main.warning]


def test_values_that_do_not_parse_are_warnings_on_the_session_and_its_step(problems_app):
    at = open_uploaded(problems_app, AGENT, AGENT + "/i1")
    assert unescape(at.main.subheader[0].value) == "Values that do not parse"
    expected = ["…/i1: inToken '12.5k' is not a number", "…/i1: llmDurationMs 'fast' is not a number",
                "…/i1: arguments is not JSON: '{not json'", "…/i1: startedAtTime 'yesterday' is not an ISO-8601 time"]
    warnings = header_warnings(at)
    assert warnings[0].split("\n")[0] == INTRO.format(n=4, s="s")
    assert sorted(warnings[0].split("\n")[1:]) == sorted("• " + e for e in expected)
    # the step inspector (i1 is selected) repeats them, each a warning of its own
    assert len(warnings) == 1 and sent(at)["selected"] == AGENT + "/i1"
    step = step_of(at, AGENT + "/i1")
    assert sorted(texts(step, "warning")) == sorted(e.removeprefix("…/i1: ") for e in expected)
    assert titled(step, "Arguments")["text"] == "{not json"  # the arguments as recorded
    assert any("done anyway" in t for s in sent(at)["shape"]["steps"] for t in texts(s, "prose"))  # the rest reads normally


def test_a_cycle_in_was_derived_from_is_a_warning_and_both_steps_are_shown(problems_app):
    at = open_uploaded(problems_app, CYCLE)
    assert header_warnings(at) == [INTRO.format(n=1, s="") + f"\n• the derivations form a cycle through {CYCLE}/i1, "
                                                              f"{CYCLE}/i2; the steps inside it are in IRI order"]
    assert [s["label"] for s in sent(at)["shape"]["steps"]] == ["i1 Analysis: first", "i2 Analysis: second"]


def test_a_session_root_with_no_types_is_read_and_warned_about(problems_app):
    at = open_uploaded(problems_app, UNTYPED)
    assert unescape(at.main.subheader[0].value) == "A root with no types"
    assert header_warnings(at) == [INTRO.format(n=1, s="") + f"\n• {UNTYPED}: the session root has no rdf:type "
                                   "(expected tg:Question and a subtype); it was found by its tg:query and IRI, "
                                   "and read as GraphRAG"]


def test_a_step_two_sessions_reach_is_a_warning_on_both(problems_app):
    # A Synthesis deriving from a Grounding of each session. The app fetches one session at a time
    # (its own derivation closure), so each session shows the shared step, and says where else
    # it derives from.
    for iri, question, other in ((FIRST, "First of two claimants", "urn:trustgraph:prov:grounding:00000000-e"),
                                 (SECOND, "Second of two claimants", "urn:trustgraph:prov:grounding:00000000-d")):
        at = open_uploaded(problems_app, iri)
        assert unescape(at.main.subheader[0].value) == question
        assert [s["label"] for s in sent(at)["shape"]["steps"]] == ["Grounding", "Synthesis"]
        assert header_warnings(at) == [INTRO.format(n=1, s="") + f"\n• {SHARED}: also derives from {other} "
                                       "(not part of this session); it is shown in this session"]


def test_a_clean_session_has_no_problem_warning():
    at = open_uploaded(upload(start(), ("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes())), SEED[0])
    assert header_warnings(at) == []


def test_many_problems_are_cut_in_the_warning_and_all_listed_below_it(problems_app, monkeypatch):
    from components.session import session_header
    monkeypatch.setattr(session_header, "WARNINGS_SHOWN", 2)
    at = open_uploaded(problems_app, AGENT)
    lines = header_warnings(at)[0].split("\n")
    assert lines[0] == INTRO.format(n=4, s="s")
    assert len(lines) == 4 and all(line.startswith("• …/i1: ") for line in lines[1:3])
    assert lines[3] == "… and 2 more (all of them below)."
    table = [d.value for d in at.main.dataframe if list(d.value.columns) == ["Problem"]]
    assert len(table) == 1 and len(table[0]) == 4
    assert "…/i1: arguments is not JSON: '{not json'" in table[0]["Problem"].tolist()


def test_hostile_files_each_give_one_line_and_the_demo_and_a_later_file_stay():
    """Deep triple terms (a 7 KB .ttl.gz that crashed the parser), billion laughs, a 64 MiB
    ``[[],[],…]`` .json.gz and deep RDF/XML, in one batch: one line each, nothing lost; then a
    good file still loads beside the demo."""
    from tests.test_hostile_files import HOSTILE
    at = start()
    upload(at, *[(name, make()) for name, make, _ in HOSTILE])
    assert sidebar_errors(at) == [message for _, _, message in HOSTILE]
    assert_still_fine(at)
    upload(at, ("seed-sessions.ttl", (CORPUS / "seed-sessions.ttl").read_bytes()))
    assert sidebar_errors(at) == []
    assert not at.exception
    assert set(SEED) <= set(table_ids(at))
