"""The answer's support in the Markdown and HTML exports: each sentence with the steps behind it
(the demo's supervisor answer, backed by its Findings), the unsupported ones marked, and hostile
trace text shown literally in both."""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from tests.test_export_images import react_session
from trace_explorer.analysis.support.support import session_support
from trace_explorer.export.markdown import session_markdown
from trace_explorer.export.support_section import support_html, support_markdown
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection
from trace_explorer.sources.demo import demo_paths

SUPERVISOR = "urn:trustgraph:agent:5ed00065-aae1-42a4-98cb-1f5634d607b4"
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
HOSTILE = "Lake Baikal is 1642 metres deep <script>alert(1)</script> ![x](http://evil.example/img) *bold* <b>b</b>"


def demo_session(iri):
    collection, _ = load_collection(list(demo_paths()))
    return {s.id: s for s in read_sessions(collection)}[iri]


def test_markdown_names_each_sentences_findings():
    text = session_markdown(demo_session(SUPERVISOR), include_children=False)
    section = text[text.index("## Answer support"):text.index("## Steps")]
    assert "2 sentence(s), 0 that nothing in this trace supports" in section
    assert re.findall(r"\*\*Sentence (\d) \((\w+)\):\*\*", section) == [("1", "supported"), ("2", "supported")]
    cited = re.findall(r"- Finding `[^`]+/(finding/\d)`, score", section)
    assert cited == ["finding/0", "finding/1", "finding/2"]
    assert "score 0.92: Baikal, reached, Trans, Siberian Railway, Irkutsk, Fuji, bus, Tokyo" in section


def test_html_marks_the_matching_words_of_each_backing_step():
    page = support_html(session_support(demo_session(SUPERVISOR)))
    assert page.startswith('<section id="answer-support">')
    assert page.count('<li class="supported">') == 2 and 'class="unsupported"' not in page
    assert "<mark>Trans</mark>-<mark>Siberian Railway</mark> to <mark>Irkutsk</mark>" in page


def test_hostile_text_shows_literally_and_the_invented_sentence_is_flagged():
    _, session = react_session(1, observation=HOSTILE + " Lake Baikal is the deepest lake.",
                               answer=HOSTILE + ". It is home to ten thousand species of seals and sponges.")
    support = session_support(session)
    assert [s.supported for s in support.sentences] == [True, False]
    page = support_html(support)
    assert "<script" not in page and "<b>" not in page and "<img" not in page
    assert re.findall(r"<(\w+)", page) and set(re.findall(r"<(\w+)", page)) <= {
        "section", "h2", "p", "ol", "li", "div", "code", "mark"}
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert ('<div class="verdict">Unsupported: nothing in this trace supports it (not found in any step: home, '
            'ten thousand, species, seals, sponges)</div>') in page
    rendered = MD.render(support_markdown(support))
    for tag in ("<script", "<img", "<em>", "<b>"):
        assert tag not in rendered
    shown = html.unescape(re.sub(r"<[^>]+>", "", rendered))
    for piece in ("<script>alert(1)</script>", "[x](http://evil.example/img) *bold* <b>b</b>"):
        assert piece in shown  # every character survives
    assert ("Sentence 2 (unsupported, nothing in this trace supports it (not found in any step: home, ten thousand, "
            "species, seals, sponges)):") in shown
