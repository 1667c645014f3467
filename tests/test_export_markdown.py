"""Copy as Markdown: the session reads as question, steps (thought, action, arguments,
observation) and answer; trace text shows literally when rendered (CommonMark + GFM tables and
strikethrough, by markdown-it-py); arguments sit in a fence nothing inside can close."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from tests.test_export_images import react_session
from trace_explorer.export.markdown import session_markdown
from trace_explorer.export.markdown_text import code_block, code_span, escape_markdown

AGENT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def text_of(rendered_html: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rendered_html))


def test_an_agent_session_reads_step_by_step(sessions):
    session = sessions[AGENT_12]
    text = session_markdown(session, sessions)
    assert text.startswith("# ¿Cuál es la montaña más alta de Europa? — 最高峰は？\n")
    assert "## Answer\n\n" + escape_markdown(session.answer) in text
    analyses = session.steps_of("Analysis")
    assert len(analyses) == 12
    for step in analyses:
        block = text.split(f" Analysis {step.id.rsplit('/', 1)[1]}: ", 1)[1].split("\n### ", 1)[0]
        assert "**Thought:** " + escape_markdown(step.fields["thought"]) in block
        assert "**Action:** `" + step.fields["action"] + "`" in block
        assert "**Arguments:**\n\n```json\n" in block
        assert "**Observation:** " + escape_markdown(step.fields["observation"]) in block
    # an Observation shown under its Analysis is not repeated as a step of its own
    assert "Observation i1" not in text
    assert "**Tool error:** mcp:weather failed" in text
    rendered = MD.render(text)
    assert rendered.count("<h3>") == 14  # PatternDecision, 12 Analyses, Conclusion


def test_graphrag_edges_and_sub_sessions(sessions):
    text = session_markdown(sessions[GRAPHRAG], sessions)
    assert "- **Edge:** `http://trustgraph.ai/e/france` → `http://www.w3.org/2000/01/rdf-schema#seeAlso`" in text
    assert "fact 1 about capital city (concept capital city, score 0.92)" in text
    supervisor = session_markdown(sessions[SUPERVISOR], sessions)
    for child in sessions[SUPERVISOR].children:
        assert f"**Session:** `{child}`" in supervisor
    assert supervisor.count("\n## Sub-session: ") == 2
    alone = session_markdown(sessions[SUPERVISOR], sessions, include_children=False)
    assert "## Sub-session: " not in alone and f"**Sub-session:** `{sessions[SUPERVISOR].children[0]}`" in alone


def test_hostile_trace_text_shows_literally_when_rendered():
    hostile = ("![x](http://evil.example/img) <script>alert(1)</script> [link](javascript:x) "
               "*bold* _it_ ~~gone~~ | a | b | &amp; `code` <b>b</b>")
    lines = "# heading\n> quote\n- item\n1. one\n    indented\n===\n| c | d |\n|---|---|"
    collection, session = react_session(1, question=hostile, thought=hostile + "\n" + lines,
                                        observation=hostile, action="<img src=x>", answer=hostile,
                                        arguments='{{"code": "```` and ``` inside", "html": "<script>"}}')
    text = session_markdown(session)
    rendered = MD.render(text)
    for tag in ("<img", "<script", "<a ", "<em>", "<strong>b", "<s>", "<del>", "<table", "<blockquote",
                "<ul>\n<li>item", "<ol", "<b>", "<h1>heading"):
        assert tag not in rendered.replace("<strong>Thought:</strong>", ""), tag
    assert rendered.count("<h1>") == 1
    shown = text_of(rendered)
    assert hostile in shown  # every character survives
    for line in lines.splitlines():
        assert line.strip() in shown
    # the arguments are one code block whose content is exactly the JSON
    blocks = re.findall(r'<pre><code class="language-json">(.*?)</code></pre>', rendered, re.S)
    assert len(blocks) == 1 and "```` and ``` inside" in html.unescape(blocks[0])
    assert '"html": "<script>"' in html.unescape(blocks[0])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF, blacklist_categories=("Cc",)), max_size=60))
def test_escaped_text_renders_as_itself(value):
    line = " ".join(value.split())
    if not line:
        return
    rendered = MD.render(escape_markdown(line))
    assert text_of(rendered).strip() == line


@given(st.text(alphabet="`ab \n", max_size=30))
def test_code_fences_are_longer_than_anything_inside(value):
    value = value.strip("\n")
    rendered = MD.render(code_block(value, "json"))
    assert rendered.count("<pre>") == 1
    body = re.search(r"<code[^>]*>(.*)</code>", rendered, re.S).group(1)
    assert html.unescape(body).rstrip("\n") == value.rstrip()


def test_code_span_holds_backticks():
    assert text_of(MD.render(code_span("a `b` c"))).strip() == "a `b` c"
    assert text_of(MD.render(code_span("``x"))).strip() == "``x"


def test_the_shared_hostile_corpus_stays_text():
    from tests import hostile_traces as hostile

    _, sessions = hostile.hostile_collection()
    for iri in (hostile.AGENT, hostile.GRAPHRAG, hostile.DOCRAG):
        text = session_markdown(sessions[iri], sessions)
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text  # shown, not acted on
        rendered = MD.render(text)
        for tag in ("<img", "<script", "<a ", "<iframe", "<b>"):
            assert tag not in rendered, (iri, tag)
    agent = text_of(MD.render(session_markdown(sessions[hostile.AGENT], sessions)))
    assert hostile.SCRIPT in agent and hostile.IMG in agent and hostile.MD_IMAGE in agent
    assert "escape␛[31mred" in agent and "rtl⟨U+202E⟩gnirts⟨U+202C⟩" in agent
