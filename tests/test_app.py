"""The Streamlit app, run headless with ``streamlit.testing.v1.AppTest``, against the manifests of
the bundled demo: the reference corpus's and the service corpus's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pyoxigraph as ox
import pytest
from streamlit.testing.v1 import AppTest

from components.sessions.session_table import short_id
from tests.list_support import files_table, list_ids, list_rows, list_table
from tests.conftest import CORPUS, MANIFEST, SERVICES_FILES, demo_sessions
from tests.totals_support import expected_totals
from tests.workspace_support import sent, step_of, texts, titled
from tests.workspace_support import table as step_table
from trace_explorer.model.reader import read_sessions
from trace_explorer.model.summary import answer_preview
from trace_explorer.read.collection import load_collection
from trace_explorer.sources.demo import demo_paths
from trace_explorer.views.visible_text import visible_controls

REPO = Path(__file__).resolve().parents[1]

SESSIONS = demo_sessions()
TOP = [s for s in SESSIONS if s["parent"] is None]
BY_ID = {s["session"]: s for s in SESSIONS}
MECHANISMS = {"agent": "Agent", "graphrag": "GraphRAG", "docrag": "DocRAG"}
TG = "https://trustgraph.ai/ns/"

REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
PLAN = "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
DOCRAG = "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"
TOOL_PARENT = "urn:trustgraph:agent:fa7f0eab-4c4f-4b06-8732-2e25c215a82a"
SUB_GRAPHRAG = "urn:trustgraph:question:332dd331-3a0b-4965-8da6-c6fdbd685167"


def run_app() -> AppTest:
    return AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()


def open_session(iri: str, step: str | None = None, at: AppTest | None = None) -> AppTest:
    """Open the session page at ``?session=iri[&step=step]``, in ``at`` (an app already run,
    with its uploads) or in a fresh app on the demo."""
    at = at or AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("app_pages/session.py")
    at.query_params.clear()
    at.query_params["session"] = iri
    if step:
        at.query_params["step"] = step
    at.run()
    assert not at.exception, at.exception
    return at


def unescape(markdown: str) -> str:
    """Undo ``md_escape``: drop the backslash before escaped punctuation, the hard breaks and the
    word joiners that keep URLs from turning into links."""
    return re.sub(r"\\(.)", r"\1", markdown.replace("  \n", "\n")).replace("\u2060", "")


table, table_ids = list_table, list_ids


def walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from walk(child)


def page_links(at: AppTest) -> list:
    return [e for e in walk(at.main) if getattr(e, "type", None) == "page_link"]


def raw_literal(file: str, subject: str, predicate: str) -> str:
    store = ox.Store()
    store.bulk_load(path=str(CORPUS / file), format=ox.RdfFormat.TRIG if file.endswith(".trig") else ox.RdfFormat.N_QUADS)
    values = [q.object.value for q in store.quads_for_pattern(ox.NamedNode(subject), ox.NamedNode(TG + predicate), None)]
    assert len(values) == 1, values
    return values[0]


# -- session list -------------------------------------------------------------------------------

def test_list_shows_every_top_level_demo_session():
    at = run_app()
    assert not at.exception
    rows = list_rows(at)
    assert [c["key"] for c in table(at)["columns"]] == ["tick", "session", "question", "type", "time", "duration",
                                                         "tokens", "steps", "errors", "status", "health", "review"]
    assert {r["review"] for r in rows} == {"—"}  # no review in the test's review store
    # the reference traces are healthy: nothing above info (an unfinished session is one)
    assert all(r["health"] == "clean" or r["health"].startswith("ℹ️") for r in rows)
    assert all(r["health"] != "clean" for r in rows if r["status"] == "unfinished")
    # newest first, and each row says what the manifest says
    newest = sorted(TOP, key=lambda s: s["started"], reverse=True)
    assert [r["id"] for r in rows] == [s["session"] for s in newest]
    # to the second (the services' times carry microseconds)
    assert [f"{r['date']}T{r['clock'][:8]}" for r in rows] == [s["started"][:19] for s in newest]
    for row in rows:
        expected = BY_ID[row["id"]]
        assert row["short"] == short_id(row["id"]) == row["id"].rsplit(":", 1)[1][:8]
        assert row["type"] == MECHANISMS[expected["mechanism"]]
        assert row["question"] == expected["question"]
        assert row["pattern"] == (expected.get("pattern") or "")
        assert row["status"] == ("answered" if expected["has_answer"] else "unfinished")
        assert row["errors"] == expected.get("tool_errors", 0)
        assert row["sub"] is False and row["parent_id"] is None
        if expected.get("answer"):
            assert row["answer"] == answer_preview(expected["answer"])  # on one line
    steps = {r["id"]: r["steps"] for r in rows}
    assert steps[REACT_12] == "26"  # PatternDecision + 12 x (Analysis, Observation) + Conclusion
    assert steps[PLAN] == str(2 + len(BY_ID[PLAN]["plan_steps"]) + 1)


def test_sidebar_counts_sessions_steps_and_triples():
    at = run_app()
    metrics = {m.label: m.value for m in at.sidebar.metric}
    assert metrics["Sessions"] == str(len(SESSIONS))
    files = files_table(at)
    per_file = dict(zip(files["File"], files["Triples"]))
    assert {name: per_file[name] for name in MANIFEST} == {name: f["quads"] for name, f in MANIFEST.items()}
    # the service corpus's manifest counts no quads: the file read alone (a reifier and its
    # ``rdf:reifies`` are read as the one quoted triple they spell)
    services, _ = load_collection(SERVICES_FILES[:1])
    service_quads = len(services)
    assert per_file[SERVICES_FILES[0].name] == service_quads
    # distinct quads: files share vocabulary triples, so the store holds fewer than their sum
    collection, _ = load_collection(demo_paths())
    assert metrics["Triples"] == f"{len(collection):,}"
    assert len(collection) <= sum(f["quads"] for f in MANIFEST.values()) + service_quads
    assert int(metrics["Steps"]) == sum(len(s.steps) for s in read_sessions(collection))


def test_sub_sessions_toggle():
    at = run_app()
    at.toggle(key="sub").set_value(True).run()
    assert sorted(table_ids(at)) == sorted(s["session"] for s in SESSIONS)
    rows = {r["id"]: r for r in list_rows(at)}
    assert "parent" in [c["key"] for c in table(at)["columns"]]
    assert rows[SUB_GRAPHRAG]["sub"] is True and rows[SUB_GRAPHRAG]["parent_id"] == TOOL_PARENT
    assert rows[SUB_GRAPHRAG]["parent_short"] == "fa7f0eab" and rows[TOOL_PARENT]["children"] == "1 sub-session"


@pytest.mark.parametrize("mechanism", ["agent", "graphrag", "docrag"])
def test_mechanism_filter(mechanism):
    at = run_app()
    at.pills(key="type").set_value([MECHANISMS[mechanism]]).run()
    expected = [s["session"] for s in TOP if s["mechanism"] == mechanism]
    assert sorted(table_ids(at)) == sorted(expected) and expected


@pytest.mark.parametrize("pattern", ["react", "plan-then-execute", "supervisor"])
def test_pattern_filter(pattern):
    at = run_app()
    at.pills(key="pattern").set_value([pattern]).run()
    expected = [s["session"] for s in TOP if s.get("pattern") == pattern]
    assert sorted(table_ids(at)) == sorted(expected) and expected


@pytest.mark.parametrize("status,answered", [("answered", True), ("unfinished", False)])
def test_status_filter(status, answered):
    at = run_app()
    at.segmented_control(key="status").set_value(status).run()
    expected = [s["session"] for s in TOP if s["has_answer"] is answered]
    assert sorted(table_ids(at)) == sorted(expected) and expected


def test_text_search_and_combined_filters():
    at = run_app()
    at.text_input(key="q").input("trappist").run()
    expected = [s["session"] for s in TOP if "trappist" in s["question"].lower()]
    assert sorted(table_ids(at)) == sorted(expected) and len(expected) >= 2
    at.pills(key="type").set_value(["GraphRAG"]).run()
    assert sorted(table_ids(at)) == sorted(s for s in expected if BY_ID[s]["mechanism"] == "graphrag")
    at.text_input(key="q").input("no such words").run()
    assert table(at) is None
    assert any("No session matches" in i.value for i in at.info)


# -- session page -------------------------------------------------------------------------------

def header_question(at: AppTest) -> str:
    return unescape(at.main.subheader[0].value)


def test_react_session_page(tmp_path):
    at = open_session(REACT_12)
    expected = BY_ID[REACT_12]
    assert header_question(at) == expected["question"]
    assert any(expected["started"] in unescape(c.value) for c in at.main.caption)
    metrics = {m.label: m.value for m in at.main.metric}
    assert metrics["Steps"] == "26" and metrics["Tool calls"] == str(len(expected["actions"]))
    assert sent(at)["selected"] == REACT_12 + "/pattern-decision"
    # the failed tool call: error, arguments and timings straight from the trace
    step = REACT_12 + "/i2"
    inspected = step_of(at, step)
    error = raw_literal("collection.trig", step + "/observation", "toolError")
    assert texts(inspected, "error") == [f"Tool error: {error}"]
    arguments = json.loads(raw_literal("collection.trig", step, "arguments").replace("'", '"'))
    assert json.loads(titled(inspected, "Arguments")["text"]) == arguments
    assert titled(inspected, "Action")["text"] == "mcp:weather"
    metrics = dict(map(tuple, next(s for s in inspected["sections"] if s["t"] == "metrics")["items"]))
    llm_ms = int(raw_literal("collection.trig", step, "llmDurationMs"))
    assert metrics["LLM"] == f"{llm_ms / 1000:,.1f} s"
    assert metrics["Tokens in"] == f"{int(raw_literal('collection.trig', step, 'inToken')):,}"
    assert metrics["Model"] == raw_literal("collection.trig", step, "llmModel")


def test_step_named_in_the_url_is_selected():
    step = REACT_12 + "/i7"
    at = open_session(REACT_12, step=step)
    assert sent(at)["selected"] == step


def test_a_step_of_another_session_in_the_url_is_named_and_the_first_step_shown():
    at = open_session(REACT_12, step=PLAN + "/plan")
    data = sent(at)
    assert data["selected"] == data["shape"]["steps"][0]["id"] == REACT_12 + "/pattern-decision"
    said = [unescape(c.value) for c in at.main.caption if "is not a step of this session" in c.value]
    assert said == [f"The step in the address, {PLAN}/plan, is not a step of this session: its first step is shown."]


def test_plan_then_execute_session_page():
    at = open_session(PLAN)
    assert header_question(at) == BY_ID[PLAN]["question"]
    assert titled(step_of(at, PLAN + "/plan"), "Plan")["items"] == BY_ID[PLAN]["plan_steps"]
    labels = [s["label"] for s in sent(at)["shape"]["steps"]]
    assert labels[2].startswith("#1 StepResult: Step 1:") and labels[12].startswith("#11 StepResult: Step 11:")


def test_supervisor_session_page_links_its_sub_sessions():
    at = open_session(SUPERVISOR)
    expected = BY_ID[SUPERVISOR]
    assert header_question(at) == expected["question"]
    children = sorted(s["session"] for s in SESSIONS if s["parent"] == SUPERVISOR + "/decompose")
    # (the Health panel's links name a step of this session: its answer's unsupported sentence)
    links = [l.proto.query_string for l in page_links(at) if l.proto.page == "session" and "&step=" not in l.proto.query_string]
    assert sorted(links) == sorted("session=" + c.replace(":", "%3A") for c in children)
    # docs/reading-traces.md, "Totals": the header gives the supervisor's own figures and those with its sub-agents
    own = expected_totals("orchestrated.nq", SUPERVISOR, sub_sessions=False)
    total = expected_totals("orchestrated.nq", SUPERVISOR)
    metrics = {m.label: m.value for m in at.main.metric}
    assert metrics["Tokens"] == f"{own['tokens']:,} own · {total['tokens']:,} with sub-sessions" \
        == "780 own · 13,333 with sub-sessions"
    assert own["duration_ms"] is None and metrics["Duration"] == f"— own · {total['duration_ms'] / 1000:,.1f} s with sub-sessions"
    assert metrics["Sub-sessions"] == "2"
    assert titled(step_of(at, SUPERVISOR + "/decompose"), "Sub-agent goals")["items"] == expected["goals"]


def test_graphrag_session_page_shows_the_chosen_edges():
    at = open_session(GRAPHRAG)
    expected = BY_ID[GRAPHRAG]
    assert header_question(at) == expected["question"]
    grounding = sent(at)["shape"]["steps"][0]  # the first step, selected: the Grounding and its concepts
    assert grounding["id"] == GRAPHRAG.replace("question:", "prov:grounding:") == sent(at)["selected"]
    assert titled(grounding, "Concepts")["text"] == ", ".join(expected["concepts"])
    edges = step_table(step_of(at, GRAPHRAG.replace("question:", "prov:focus:")), "Selected edges")
    assert edges["Triple"].tolist() == [" ".join(e) for e in expected["selected_edges"]]
    assert set(edges["Concept"]) == set(expected["concepts"])
    assert edges["Score"].between(0, 1).all()


def test_docrag_session_page_shows_chunks_and_scores():
    at = open_session(DOCRAG)
    expected = BY_ID[DOCRAG]
    assert header_question(at) == expected["question"]
    explored = step_table(step_of(at, DOCRAG + "/exploration"), "Chunks")
    assert len(explored) == expected["chunk_count"] == 5
    chosen = step_table(step_of(at, DOCRAG + "/focus"), "Chunks")
    assert chosen["Score"].tolist() == [0.9, 0.8, 0.7]
    assert set(chosen["Chunk"]) <= set(explored["Chunk"])


def test_docrag_chunks_show_their_texts_and_scores_from_the_documents(corpus_sessions):
    session = corpus_sessions[DOCRAG]
    focus = next(s for s in session.steps if s.kind == "Focus")
    explored = next(s for s in session.steps if s.kind == "Exploration")
    texts = {c["chunk"]: f"Chunk text {n}: the Sea Peoples raided Ugarit." for n, c in enumerate(focus.fields["chunks"])}
    texts[explored.fields["chunks"][0]] = "An explored chunk's text."
    at = run_app()
    # the session's file with these texts beside it, not the demo (whose demo-chunks.documents.json
    # gives every chunk a text), so that some explored chunks have none
    trace = (CORPUS / "collection.trig").read_bytes()
    at.sidebar.file_uploader[0].set_value([("collection.trig", trace, "application/octet-stream"),
                                           ("chunks.documents.json", json.dumps(texts).encode(), "application/json")]).run()
    at = open_session(DOCRAG, step=focus.id, at=at)
    chosen = step_table(step_of(at, focus.id), "Chunks")
    assert chosen["Text"].tolist() == [texts[c["chunk"]] for c in focus.fields["chunks"]]
    assert chosen["Score"].tolist() == [0.9, 0.8, 0.7]
    assert titled(step_of(at, focus.id), "Chunks")["note"] is None
    explored_table = step_table(step_of(at, explored.id), "Chunks")
    expected = [texts.get(c) for c in explored.fields["chunks"]]
    assert "Score" not in explored_table.columns and explored_table["Text"].tolist()[0] == "An explored chunk's text."
    assert [None if pd.isna(t) else t for t in explored_table["Text"]] == expected
    missing = expected.count(None)
    assert missing and titled(step_of(at, explored.id), "Chunks")["note"].startswith(
        f"{missing} chunk texts are not in this source")


def test_agent_step_links_to_the_graphrag_sub_trace_and_back():
    parent_step = BY_ID[SUB_GRAPHRAG]["parent"]
    at = open_session(TOOL_PARENT, step=parent_step)
    started = [s for s in step_of(at, parent_step)["sections"] if s["t"] == "link" and s["text"] == "Started sub-session"]
    assert [s["session"] for s in started] == [SUB_GRAPHRAG]
    sub = open_session(SUB_GRAPHRAG)
    parents = [l for l in page_links(sub) if unescape(l.proto.label).startswith("Parent: ")]
    assert [l.proto.query_string for l in parents] == ["session=" + TOOL_PARENT.replace(":", "%3A")]


def test_unknown_session_says_so_and_links_back():
    at = open_session("urn:trustgraph:agent:does-not-exist")
    assert "Unknown session" in unescape(at.main.error[0].value)
    assert any(l.proto.label == "Back to the session list" for l in page_links(at))


# -- loading files ------------------------------------------------------------------------------

BAD_TTL = b"@prefix tg: <https://trustgraph.ai/ns/> .\n<urn:a> tg:query \"unterminated .\n"


def test_a_bad_upload_shows_the_error_and_keeps_the_loaded_sessions():
    at = run_app()
    at.sidebar.file_uploader[0].set_value(("bad.ttl", BAD_TTL, "text/turtle")).run()
    assert not at.exception
    errors = [unescape(e.value) for e in at.sidebar.error]
    assert len(errors) == 1 and re.match(r"bad\.ttl:2:\d+: ", errors[0]), errors
    assert sorted(table_ids(at)) == sorted(s["session"] for s in TOP)


def test_uploaded_files_replace_the_demo_and_a_bad_one_changes_nothing():
    at = run_app()
    good = (CORPUS / "seed-sessions.ttl").read_bytes()
    at.sidebar.file_uploader[0].set_value([("seed-sessions.ttl", good, "text/turtle"),
                                           ("bad.ttl", BAD_TTL, "text/turtle")]).run()
    assert not at.exception
    assert len(at.sidebar.error) == 1
    seed = [s["session"] for s in MANIFEST["seed-sessions.ttl"]["sessions"]]
    assert sorted(table_ids(at)) == sorted(seed)
    assert {m.label: m.value for m in at.sidebar.metric}["Triples"] == str(MANIFEST["seed-sessions.ttl"]["quads"])
    # the upload switched the demo off, and the sidebar says so until the switch is touched
    notes = [i.value for i in at.sidebar.info]
    assert any("demo traces were switched off" in n for n in notes), notes
    at.toggle(key="te_demo").set_value(True).run()  # the demo can come back
    assert len(table_ids(at)) == len(TOP)
    assert not any("switched off" in i.value for i in at.sidebar.info)


def test_one_session_is_counted_in_the_singular():
    ttl = ("@prefix tg: <https://trustgraph.ai/ns/> . @prefix prov: <http://www.w3.org/ns/prov#> .\n"
           "<urn:trustgraph:question:one> a tg:Question, tg:GraphRagQuestion, prov:Entity ;\n"
           '  tg:query "What is one?" ; prov:startedAtTime "2026-01-01T00:00:00Z" .\n').encode()
    at = run_app()
    at.sidebar.file_uploader[0].set_value(("one.ttl", ttl, "text/turtle")).run()
    assert table_ids(at) == ["urn:trustgraph:question:one"]
    sidebar = [unescape(c.value) for c in at.sidebar.caption]
    assert "1 top-level session · from 1 file of yours" in sidebar, sidebar
    main = [c.value for c in at.main.caption]
    assert any(c.startswith("1–1 of 1 matching · 1 top-level session in all · ") for c in main), main


def test_hostile_question_is_shown_as_text():
    hostile = "<img src=x onerror=alert(1)> **bold** [link](javascript:alert(2)) $x$"
    ttl = ("@prefix tg: <https://trustgraph.ai/ns/> . @prefix prov: <http://www.w3.org/ns/prov#> .\n"
           "<urn:trustgraph:question:evil> a tg:Question, tg:GraphRagQuestion, prov:Entity ;\n"
           f"  tg:query {json.dumps(hostile)} ; prov:startedAtTime \"2026-01-01T00:00:00Z\" .\n").encode()
    at = run_app()
    at.sidebar.file_uploader[0].set_value(("evil.ttl", ttl, "text/turtle")).run()
    assert table_ids(at) == ["urn:trustgraph:question:evil"]
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = "urn:trustgraph:question:evil"
    at.run()
    assert not at.exception
    shown = at.main.subheader[0].value
    assert unescape(shown) == hostile
    assert not re.search(r"(?<!\\)[<>*\[\]()$]", shown)  # every markup character is escaped


def test_uploaded_files_stay_loaded_on_the_session_page_and_can_be_removed():
    at = run_app()
    good = (CORPUS / "seed-sessions.ttl").read_bytes()
    at.sidebar.file_uploader[0].set_value(("seed-sessions.ttl", good, "text/turtle")).run()
    seed = MANIFEST["seed-sessions.ttl"]["sessions"]
    assert sorted(table_ids(at)) == sorted(s["session"] for s in seed)
    assert at.sidebar.file_uploader[0].value in (None, [])  # emptied: the files live in the collection
    iri = seed[1]["session"]
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = iri
    at.run()
    assert header_question(at) == seed[1]["question"]
    assert {m.label: m.value for m in at.sidebar.metric}["Sessions"] == str(len(seed))
    at.switch_page("app_pages/sessions.py").run()
    at.sidebar.button[0].click().run()  # "Remove my files": back to the demo
    assert sorted(table_ids(at)) == sorted(s["session"] for s in TOP)


# -- the hostile corpus (tests/hostile_traces.py): every text field is markup, script or 1 MB ----

def hostile_app() -> AppTest:
    from tests import hostile_traces as hostile
    at = run_app()
    files = [(name, data, "application/octet-stream") for name, data in hostile.hostile_files().items()]
    at.sidebar.file_uploader[0].set_value(files).run()
    assert not at.exception and not at.sidebar.error
    return at


def no_markup(markdown: str) -> bool:
    """True when no Markdown/HTML character in ``markdown`` is left unescaped."""
    return not re.search(r"(?<!\\)[<>*\[\]()!`_$:]", markdown.replace("  \n", "\n"))


def test_hostile_sessions_are_listed_with_their_text_shown():
    from tests import hostile_traces as hostile
    at = hostile_app()
    rows = list_rows(at)
    assert sorted(r["id"] for r in rows) == sorted([hostile.AGENT, hostile.GRAPHRAG, hostile.DOCRAG])
    questions = {r["id"]: r["question"] for r in rows}
    # shown as it is, its control and bidi characters made visible
    assert questions[hostile.AGENT] == visible_controls("Agent " + hostile.ALL_TEXT)
    assert "⟨U+202E⟩" in questions[hostile.AGENT] and "\u202e" not in questions[hostile.AGENT]


def test_hostile_agent_page_escapes_every_text():
    from tests import hostile_traces as hostile
    at = hostile_app()
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = hostile.AGENT
    at.query_params["step"] = hostile.AGENT + "/i1"
    at.run()
    assert not at.exception
    shown = visible_controls(hostile.ALL_TEXT)  # the text as is, its control and bidi characters visible
    heading = at.main.subheader[0].value
    assert unescape(heading) == "Agent " + shown and no_markup(heading)
    # the inspector's data: every text as recorded, its controls visible (the browser writes it as text)
    step = step_of(at, hostile.AGENT + "/i1")
    assert texts(step, "error") == ["Tool error: Tool error " + shown]
    metrics = dict(map(tuple, next(x for x in step["sections"] if x["t"] == "metrics")["items"]))
    assert metrics["Model"] == hostile.MD_IMAGE
    assert json.loads(titled(step, "Arguments")["text"]) == hostile.HTML_IN_JSON
    assert titled(step, "Thought")["text"] == "Thought " + shown
    observation = titled(step, "Observation")["text"]
    assert len(observation) < 70_000 and observation.endswith("characters in all)")  # 1 MB: its start


def test_hostile_graphrag_and_docrag_pages():
    from tests import hostile_traces as hostile
    at = hostile_app()
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = hostile.GRAPHRAG
    at.query_params["step"] = "urn:trustgraph:prov:focus:0bad"
    at.run()
    assert not at.exception
    edges = step_table(step_of(at, "urn:trustgraph:prov:focus:0bad"), "Selected edges")
    row = edges.iloc[0]
    assert (row["Subject"], row["Predicate"], row["Object"]) == (hostile.SCRIPT, hostile.MD_IMAGE, hostile.IMG)
    assert row["Reasoning"] == "Reasoning " + visible_controls(hostile.ALL_TEXT)
    assert row["Triple"].startswith(hostile.EVIL_IRI)
    at.query_params["session"] = hostile.DOCRAG
    at.query_params.pop("step", None)
    at.run()
    assert not at.exception
    answer = [t.value for t in at.main.text if t.value.startswith(hostile.BIG[:64])]
    assert len(answer) == 1 and len(answer[0]) < 5000  # the 1 MB answer is cut, not dumped


def test_header_says_why_a_session_stopped():
    at = open_session(REACT_12)
    badges = [m.value for m in at.main.markdown if "badge[" in m.value]  # st.badge is Markdown
    # one element holds them all (the browser draws each element of a first view in turn)
    assert badges == [":blue-badge[:material/hub: Agent] :gray-badge[:material/alt_route: react] "
                      ":green-badge[:material/check_circle: answered] :orange-badge[:material/block: stopped\\: "
                      "max\\-iterations] :red-badge[:material/error: 1 tool error]"], badges
    assert BY_ID[REACT_12]["tool_errors"] == 1 and BY_ID[REACT_12]["pattern"] == "react"


def test_inspector_says_when_a_thought_is_not_loaded():
    # the trace file uploaded without its documents file: the thought's text is not there
    at = run_app()
    at.sidebar.file_uploader[0].set_value(
        ("orchestrated.nq", (CORPUS / "orchestrated.nq").read_bytes(), "application/n-quads")).run()
    at = open_session(TOOL_PARENT, step=TOOL_PARENT + "/i1", at=at)
    notes = texts(step_of(at, TOOL_PARENT + "/i1"), "note")
    assert any(c.startswith("Thought text not loaded (urn:trustgraph:doc:") for c in notes), notes


def test_a_very_large_session_is_opened_only_when_asked(monkeypatch):
    # the session index gives a session's size before it is read; above the configured size the
    # page says how large it is and waits for "Open it"
    monkeypatch.setenv("TRACE_EXPLORER_LARGE_SESSION_STEPS", "20")
    iri = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"  # 26 steps
    at = open_session(iri)
    warning = [unescape(w.value) for w in at.main.warning]
    assert warning and warning[0].startswith("This session has 26 steps. Reading it takes a while")
    assert not at.main.metric  # nothing read or drawn yet
    next(b for b in at.main.button if b.label == "Open it").click().run()
    assert not at.exception and {m.label: m.value for m in at.main.metric}["Steps"] == "26"
    small = open_session("urn:trustgraph:agent:6b0a18e8-830e-47bc-9e39-8f1012bd4ace")  # 7 steps
    assert not [w for w in small.main.warning if "steps. Reading it" in w.value]


@pytest.mark.parametrize("bad", ['urn:x"> } ; DROP', "urn:trustgraph:agent:a> <b> } UNION { ?s ?p ?o",
                                 "urn:trustgraph:agent:x\n", "urn:x{y}", "urn:x y"])
def test_a_session_link_that_is_no_iri_is_an_unknown_session(bad):
    at = open_session(bad)
    assert [unescape(e.value) for e in at.main.error] == [
        f"Unknown session: {bad}. It is not in the loaded traces ({len(SESSIONS)} sessions from demo traces)."]


def test_a_short_id_that_matches_several_sessions_says_so():
    named = sorted(s["session"] for s in SESSIONS if s["session"].rsplit(":", 1)[1].startswith("6"))
    assert len(named) > 1
    at = open_session("6")
    assert not at.exception, at.exception
    (error,) = [unescape(e.value) for e in at.main.error]
    assert error.startswith("'6' matches several sessions (") and error.endswith(
        "): give more of its IRI, or pick one from the session list.")
    listed = error[len("'6' matches several sessions ("):].split("):")[0].removesuffix(", …").split(", ")
    assert listed and set(listed) <= set(named) and len(listed) == min(5, len(named))


def test_a_step_of_the_session_itself_is_never_called_a_sub_sessions():
    # opened again (a reload, a shared link), the page's session is read anew while the step walk
    # is kept: its own steps must still be its own, never "a step of the sub-session" linking to itself
    from components.session import session_cache

    docrag = "urn:trustgraph:docrag:e2015522-40cb-4cd0-a49a-45845dbe3023"
    for step in (docrag, docrag + "/focus", docrag + "/focus"):
        session_cache._read.clear()  # the session read anew, as after a store's ingest
        at = open_session(docrag, step=step)
        links = [s for x in sent(at)["shape"]["steps"] for s in x["sections"] if s["t"] == "link"]
        assert not links, links
    supervisor = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
    sessions = {s.id: s for s in read_sessions(load_collection([CORPUS])[0])}
    child = next(c for c in sessions[supervisor].children if c in sessions)
    first = sessions[child].steps[0].id
    at = open_session(supervisor, step=first)  # a sub-session's step: the link to it is right there
    assert sent(at)["selected"] == first
    links = [s for s in step_of(at, first)["sections"] if s["t"] == "link"]
    assert [(s["text"], s["session"]) for s in links] == [("A step of the sub-session", child)]
