"""``trace-explorer diff`` and the comparison's outputs: the JSON contract on every source (files,
``--store``, ``--endpoint``; A and B from different files loaded together), the text, the
Markdown (rendered, trace text stays literal) and the self-contained HTML page (nothing runs,
nothing loads, hostile text escaped), by ``tests/hostile_traces.py`` too."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from tests import hostile_traces as hostile
from tests.compare_pairs import build_pair
from tests.conftest import CORPUS, CONTENT_FILES, corpus_paths, file_graph
from tests.test_compare import DUMP_FRANCE, SEED_FRANCE
from trace_explorer.analysis.compare.compare import compare_sessions, comparison_record
from trace_explorer.cli.main import main
from trace_explorer.export.comparison_markdown import comparison_markdown
from trace_explorer.export.comparison_page import comparison_page
from trace_explorer.export.comparison_text import comparison_text
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection

REACT_OLD = "urn:trustgraph:agent:6b0a18e8-830e-47bc-9e39-8f1012bd4ace"
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "main", "header", "p", "h1", "h2", "h3", "h4",
                "h5", "h6", "section", "div", "dl", "dt", "dd", "br", "code", "strong", "em", "span", "table",
                "colgroup", "col", "tr", "th", "td", "ul", "li", "del", "ins"}


def run(capsys, *argv) -> tuple[int, str, str]:
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture(params=("files", "store", "endpoint"))
def collection_trig(request):
    """CLI arguments that read collection.trig from files, a local store or Virtuoso."""
    name = "collection.trig"
    content = [str(CORPUS / CONTENT_FILES[name])]
    if request.param == "files":
        return [str(p) for p in corpus_paths(name)]
    if request.param == "store":
        return content + ["--store", str(request.getfixturevalue("corpus_stores")[name])]
    return content + ["--endpoint", request.getfixturevalue("virtuoso_url"), "--graph", file_graph(name),
                      "--no-quoted-triples"]


def test_diff_json_is_the_contract_on_every_source(capsys, collection_trig, sessions):
    status, out, err = run(capsys, "diff", *collection_trig, REACT_OLD[-12:], "62c33a4f", "--format", "json")
    assert status == 0, err
    record = json.loads(out)
    assert record == comparison_record(compare_sessions(sessions[REACT_OLD], sessions[REACT_12], sessions))
    assert set(record) == {"a", "b", "rows", "edges", "chunks", "answer", "totals", "children"}
    assert (record["a"], record["b"]) == (REACT_OLD, REACT_12)
    assert [r["b"] for r in record["rows"] if r["b"]] == [s.id for s in sessions[REACT_12].steps]
    assert set(record["edges"]) == {"only_a", "only_b", "both", "scores"}


def test_a_and_b_from_different_files_loaded_together(capsys):
    seed = CORPUS / "seed-sessions.ttl"
    dump = [str(p) for p in corpus_paths("graph-dump.ttl")]
    status, out, err = run(capsys, "diff", seed, *dump, SEED_FRANCE, DUMP_FRANCE, "--format", "json")
    assert status == 0, err
    record = json.loads(out)
    assert [(r["status"], r["kind"]) for r in record["rows"]] == [
        ("only_b", "PatternDecision"), ("changed", "Analysis"), ("only_b", "Observation"), ("only_b", "Analysis"),
        ("only_b", "Observation"), ("changed", "Conclusion")]
    assert record["answer"] == {"same": True, "a": "Paris is the capital of France.", "b": "Paris is the capital of France."}
    assert record["totals"]["a"]["tool_calls"] == 1 and record["totals"]["b"]["tool_calls"] == 2


def test_text_markdown_and_files(capsys, tmp_path):
    paths = [str(p) for p in corpus_paths("collection.trig")]
    status, out, _ = run(capsys, "diff", *paths, REACT_OLD, REACT_12)
    assert status == 0
    assert out.startswith(f"A: Agent (react): Which trade routes linked the Hanseatic League? <{REACT_OLD}>\n")
    assert "Totals" in out and "Steps (A | B):" in out
    status, out, _ = run(capsys, "diff", *paths, REACT_OLD, REACT_12, "--format", "markdown")
    assert out.startswith("# Comparison: Which trade routes linked the Hanseatic League? / ")
    page, markdown = tmp_path / "c.html", tmp_path / "c.md"
    status, out, err = run(capsys, "diff", *paths, REACT_OLD, REACT_12, "--html", page, "--markdown", markdown)
    assert (status, out) == (0, "")
    assert f"wrote {page}" in err and f"wrote {markdown}" in err
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    collection, _ = load_collection(paths)
    sessions = {s.id: s for s in read_sessions(collection)}
    comparison = compare_sessions(sessions[REACT_OLD], sessions[REACT_12], sessions)
    assert markdown.read_text(encoding="utf-8") == comparison_markdown(comparison)
    assert page.read_text(encoding="utf-8") == comparison_page(comparison)


def test_unknown_or_ambiguous_sessions_exit_2(capsys):
    paths = [str(p) for p in corpus_paths("collection.trig")]
    status, out, err = run(capsys, "diff", *paths, "62c33a4f", "no-such-session")
    assert (status, out) == (2, "") and "no session 'no-such-session'" in err
    status, out, err = run(capsys, "diff", *paths, "urn:trustgraph", "62c33a4f")
    assert status == 2 and "matches several sessions" in err
    with pytest.raises(SystemExit):
        main(["diff", *paths, "62c33a4f", "62c33a4f", "--html", "x.txt"])


# -- hostile trace text ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hostile_pairs():
    """Each hostile session compared with a corpus session of its mechanism (and back)."""
    collection, _ = load_collection([CORPUS])
    for name, data in hostile.hostile_files().items():
        collection.add_file(name, data)
    sessions = {s.id: s for s in read_sessions(collection)}
    pairs = [(hostile.AGENT, DUMP_FRANCE), ("urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6", hostile.GRAPHRAG),
             (hostile.DOCRAG, "urn:trustgraph:docrag:8d116ece-1738-47d9-bd9c-172411e20b8f")]
    return [compare_sessions(sessions[a], sessions[b], sessions) for a, b in pairs]


class Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_hostile_text_is_escaped_in_the_page(hostile_pairs):
    for comparison in hostile_pairs:
        page = comparison_page(comparison)
        parser = Tags()
        parser.feed(page)
        assert {tag for tag, _ in parser.tags} <= ALLOWED_TAGS
        for tag, attributes in parser.tags:
            assert not any(name.startswith("on") or name in ("src", "href") for name in attributes), (tag, attributes)
        assert any(tag == "meta" and "default-src 'none'" in a.get("content", "") and "script-src" not in a["content"]
                   for tag, a in parser.tags)
        assert "&lt;script&gt;" in page and "<script" not in page
        assert "\x1b" not in page and "\u202e" not in page and "␛" in page
        assert len(page) < 1_000_000  # 1 MB texts are cut, saying so
        assert comparison_page(comparison) == page


def test_hostile_text_stays_literal_in_markdown_and_text(hostile_pairs):
    for comparison in hostile_pairs:
        rendered = MD.render(comparison_markdown(comparison))
        assert "<script" not in rendered and "<img" not in rendered and "<iframe" not in rendered
        assert "<a " not in rendered
        assert "&lt;script&gt;window.__pwned = 1; alert(&quot;script&quot;)&lt;/script&gt;" in rendered
        text = comparison_text(comparison)
        assert hostile.SCRIPT in text  # the CLI prints text as it is, with controls made visible
    agent = hostile_pairs[0]
    assert [r.status for r in agent.rows][:2] == ["changed", "changed"]  # PatternDecision, Analysis
    assert agent.rows[1].changes["action"] == (hostile.IMG, "document-query")


def test_outputs_of_a_built_pair_name_the_change():
    pair = build_pair("tool_swapped")
    comparison = compare_sessions(pair.sessions[pair.a], pair.sessions[pair.b], pair.sessions)
    text = comparison_text(comparison)
    assert "  ~ i5 Analysis: web-search" in text and "      action: web-search → calculator" in text
    markdown = comparison_markdown(comparison)
    assert "- **action:** web-search → calculator" in markdown
    page = comparison_page(comparison)
    assert "<del>web-search</del>" in page and "<ins>calculator</ins>" in page
    assert page.count('<tr class="same">') == 25 and page.count('<tr class="changed">') == 1


def test_a_one_sided_steps_arguments_read_as_a_changed_rows_do():
    # an iteration only in B: its tool arguments are "key: value" lines, as on a changed row, not raw JSON
    pair = build_pair("extra_iteration")
    comparison = compare_sessions(pair.sessions[pair.a], pair.sessions[pair.b], pair.sessions)
    page = comparison_page(comparison)
    only_b = [row for row in page.split("<tr ")[1:] if row.startswith('class="only_b"')]
    with_arguments = [row for row in only_b if '<span class="name">arguments</span>' in row]
    assert with_arguments, only_b
    for row in with_arguments:
        assert '<span class="name">arguments</span><ul class="json"><li><code>' in row
        assert "{&quot;" not in row
