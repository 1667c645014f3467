"""The self-contained session page: no external URL, every step's details, hostile trace text
escaped; in a real browser (``-m browser``) it opens from disk, loads nothing from the network,
draws the DAG and the timeline, and a click on either opens that step's details."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser_support import chromium_page
from tests.test_export_images import react_session
from trace_explorer.export.page import script_json, session_page
from trace_explorer.model.reader import read_sessions
from trace_explorer.model.totals import step_duration_ms

AGENT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
GRAPHRAG = "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6"
HOSTILE = ('<script>window.__pwned = 1</script> ![x](http://evil.example/img) '
           '"><img src=x onerror="window.__pwned=2"> </script><b>bold</b> &amp; \u2028 end')


@pytest.fixture(scope="module")
def hostile():
    return react_session(3, question=HOSTILE, thought=HOSTILE, action="<img src=x>",
                         observation=HOSTILE, arguments='{{"q": "</script><script>window.__pwned=3</script>"}}',
                         answer=HOSTILE)


class Tags(HTMLParser):
    """Every start tag of the page with its attributes (the srcdoc frame's page parsed too)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        if tag == "iframe" and attributes.get("srcdoc"):
            inner = Tags()
            inner.feed(attributes["srcdoc"])
            self.tags.extend(inner.tags)


def tags_of(page: str) -> list[tuple[str, dict]]:
    parser = Tags()
    parser.feed(page)
    return parser.tags


@pytest.mark.parametrize("iri", [AGENT_12, SUPERVISOR, GRAPHRAG], ids=lambda i: i[-12:])
def test_no_external_url_and_every_step_is_there(sessions, iri):
    session = sessions[iri]
    page = session_page(session, sessions)
    tags = tags_of(page)
    for tag, attributes in tags:
        for name in ("src", "href", "data", "action", "poster", "background"):
            value = (attributes.get(name) or "").strip().lower()
            assert not value.startswith(("http:", "https:", "//")), (tag, name, value)
    assert not re.search(r"url\(\s*['\"]?\s*(?:https?:)?//", page, re.I)
    assert "@import" not in page
    assert any(tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"
               and "default-src 'none'" in a.get("content", "") for tag, a in tags)
    steps = {a["data-step"] for tag, a in tags if tag == "details" and "data-step" in a}
    assert {s.id for s in session.steps} <= steps
    for child in session.children:  # sub-sessions' steps are in the page too
        assert {s.id for s in sessions[child].steps} <= steps
    assert session_page(session, sessions) == page  # same session, same bytes


def test_sub_sessions_left_out_on_request(sessions):
    page = session_page(sessions[SUPERVISOR], sessions, include_children=False)
    steps = {a["data-step"] for tag, a in tags_of(page) if tag == "details" and "data-step" in a}
    assert steps == {s.id for s in sessions[SUPERVISOR].steps}


def test_hostile_text_is_escaped(hostile):
    collection, session = hostile
    page = session_page(session, {session.id: session})
    tags = tags_of(page)  # the page and the DAG frame's page, as a browser would parse them
    assert not any(tag in ("img", "b") for tag, _ in tags)
    top = Tags()
    top.handle_starttag = lambda tag, attrs: top.tags.append((tag, dict(attrs)))  # no frame
    top.feed(page)
    assert [t for t, _ in top.tags].count("script") == 3  # vega bundle, the chart's JSON, our own
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page  # shown as text
    assert "<script>window.__pwned" not in page and "</script><script>" not in page


def test_the_shared_hostile_corpus_is_escaped():
    from tests import hostile_traces as hostile

    _, sessions = hostile.hostile_collection()
    for iri in (hostile.AGENT, hostile.GRAPHRAG, hostile.DOCRAG):
        page = session_page(sessions[iri], sessions)
        tags = tags_of(page)
        assert not any(tag == "img" for tag, _ in tags), iri
        assert [a.get("id") for tag, a in tags if tag == "iframe"] == ["dag-frame"], iri
        for tag, attributes in tags:
            for name in ("src", "href"):
                assert not (attributes.get(name) or "").lower().startswith(("javascript:", "http")), (tag, attributes)
        assert "\x1b" not in page and "\u202e" not in page.split('srcdoc="', 1)[0]
        if iri == hostile.AGENT:  # the 1 MB observation is cut, saying how much is left out
            assert f"{len(hostile.BIG) + len(hostile.ALL_TEXT) + 13 - 20_000:,} more characters not shown" in page
            assert len(page) < 3_000_000


SCRAPED = ("scraped page: <link rel=stylesheet href=http://evil.example/x.css> <script src=//evil.example/a.js>"
           "</script> <img srcset='https://evil.example/p.png 2x'> <div style=\"background:url(http://evil.example/b)\">")


def test_trace_text_that_looks_like_external_elements_exports_as_text(tmp_path):
    """An observation holding a scraped page's ``<link href=http://…>``: the page and its DAG
    are made (the self-check looks at elements, and text is not one), and show it as text."""
    from trace_explorer.views.dag.network import dag_html
    from trace_explorer.views.external_resources import external_resources

    _, session = react_session(2, question="q", thought="t", action="fetch", observation=SCRAPED,
                               arguments='{{"url": "http://evil.example/"}}', answer=SCRAPED)
    page = session_page(session, {session.id: session})
    assert external_resources(page) == [] and external_resources(dag_html(session)) == []
    assert "&lt;link rel=stylesheet href=http://evil.example/x.css&gt;" in page
    for tag, attributes in tags_of(page):  # the frame's page is parsed as its own
        assert not any("evil.example" in (value or "") for name, value in attributes.items() if name != "srcdoc"), tag


def test_export_html_of_a_session_whose_observation_holds_a_scraped_page(tmp_path, capsys):
    """The command line, end to end: a trace file whose observation holds ``<link href=http://…>``."""
    import json

    import pyoxigraph as ox

    from trace_explorer.cli.main import main

    collection, session = react_session(2, observation=SCRAPED, answer=SCRAPED)
    trace = tmp_path / "scraped.trig"
    trace.write_bytes(ox.serialize(collection.store, format=ox.RdfFormat.TRIG))
    (tmp_path / "scraped.documents.json").write_text(json.dumps(collection.documents), encoding="utf-8")
    status = main(["export", str(trace), str(tmp_path / "scraped.documents.json"), "--session", session.id,
                   "--html", str(tmp_path / "s.html")])
    assert status == 0, capsys.readouterr().err
    page = (tmp_path / "s.html").read_text(encoding="utf-8")
    assert "&lt;link rel=stylesheet href=http://evil.example/x.css&gt;" in page


@pytest.mark.parametrize("element", [
    '<link rel=stylesheet href="http://evil.example/x.css">', "<script src=//evil.example/a.js></script>",
    "<img srcset='a.png 1x, https://evil.example/p.png 2x'>", '<div style="background:url( //evil.example/b)">',
    "<style>@import 'x.css';</style>", '<meta http-equiv="Refresh" content="0; url=https://evil.example/">',
    '<iframe srcdoc="&lt;img src=http://evil.example/i&gt;"></iframe>',
])
def test_the_self_check_finds_each_element_that_would_load_from_the_network(element):
    from trace_explorer.views.external_resources import external_resources

    page = f"<html><head></head><body><p>&lt;link href=http://text.example/&gt;</p>{element}</body></html>"
    assert len(external_resources(page)) == 1
    assert external_resources(page.replace(element, "")) == []


def test_script_json_cannot_close_its_element():
    text = script_json({"a": "</script><!-- \u2028 & >"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text


@pytest.mark.browser
def test_page_opens_from_disk_offline_and_clicks_open_details(sessions, hostile, tmp_path):
    from tests import hostile_traces as shared
    from trace_explorer.read.collection import TraceStore

    collection, session = hostile
    shared_collection = TraceStore()
    for file_name, data in shared.hostile_files().items():
        shared_collection.add_file(file_name, data)
    shared_sessions = {s.id: s for s in read_sessions(shared_collection)}
    pages = {"agent": (sessions[AGENT_12], sessions), "hostile": (session, {session.id: session}),
             "shared-hostile": (shared_sessions[shared.AGENT], shared_sessions)}
    for name, (current, sessions) in pages.items():
        path = tmp_path / f"{name}.html"
        path.write_text(session_page(current, sessions), encoding="utf-8")
        with chromium_page(viewport=(1200, 900)) as page:
            requests, problems = [], []
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("dialog", lambda d: (problems.append("dialog: " + d.message), d.dismiss()))
            page.goto(path.as_uri())
            page.wait_for_selector("#timeline[data-rendered=true]", timeout=30000)
            frame = page.frame_locator("#dag-frame")
            frame.locator("#mynetwork canvas").wait_for(timeout=30000)
            assert [u for u in requests if not u.startswith(("file:", "data:", "about:", "blob:"))] == []
            assert problems == []
            assert page.evaluate("window.__pwned") is None
            dag = page.frames[1]
            assert dag.evaluate("window.__pwned") is None
            assert int(frame.locator("#mynetwork").get_attribute("data-node-count")) == current.graph.number_of_nodes()
            bars = page.locator("#timeline path[aria-roledescription='bar']")
            marks = page.locator("#timeline path[aria-roledescription='point']")  # steps with no duration
            untimed = sum(1 for step in current.steps if step_duration_ms(step) is None)
            timed_axis = any(step_duration_ms(step) is not None for step in current.steps)
            assert (bars.count(), marks.count()) == ((len(current.steps) - untimed, untimed) if timed_axis
                                                      else (len(current.steps), 0))
            # a click on a DAG node opens that step's details
            target = current.steps[1].id
            page.locator("#dag-frame").evaluate("frame => frame.scrollIntoView({block: 'start'})")
            opened = "(id) => Array.from(document.querySelectorAll('details[open]')).some(d => d.getAttribute('data-step') === id)"
            for _ in range(5):  # the node is found again where it is now: a loaded machine may still be laying out
                point = dag.evaluate("(id) => { network.fit({animation: false}); const p = network.getPositions([id])[id];"
                                     " return network.canvasToDOM(p); }", target)
                box = frame.locator("#mynetwork").bounding_box()
                page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])
                try:
                    page.wait_for_function(opened, arg=target, timeout=3000)
                    break
                except PlaywrightTimeout:
                    continue
            assert page.evaluate(opened, target), "a click on the DAG node opened no details"
            # a click on a timeline bar (or diamond) opens that step's details
            last = current.steps[-1].id
            page.locator(f"#timeline path[aria-label*='IRI: {last}']").click()
            page.wait_for_function("(id) => Array.from(document.querySelectorAll('details[open]'))"
                                   ".some(d => d.getAttribute('data-step') === id)", arg=last, timeout=5000)
            if name == "hostile":
                details = page.locator("details[open]").first
                assert "<script>window.__pwned = 1</script>" in page.locator("main").inner_text()
                assert details.is_visible()


def test_the_page_timeline_axis_starts_at_0(sessions):
    """The page's timeline spec, drawn as the page's Vega draws it (here by vl-convert, at the
    width of a page's container), has no tick below "0 s" (it started at −1 s) and every bar
    inside the plot."""
    import json

    import vl_convert as vlc

    from tests.test_export_images import time_axis

    for iri in (AGENT_12, SUPERVISOR):
        page = session_page(sessions[iri], sessions)
        spec = json.loads(re.search(r'<script id="timeline-spec" type="application/json">(.*?)</script>',
                                    page, re.S).group(1))
        ticks, xs, width = time_axis(vlc.vegalite_to_svg(dict(spec, width=900)))
        assert ticks[0] == "0 s" and not [t for t in ticks if t.startswith(("-", "−"))], ticks
        assert spec["encoding"]["x"]["scale"].get("domainMin") == 0
        assert xs and min(xs) >= 0 and max(xs) <= width + 0.01


def test_the_vega_bundle_is_made_once_and_kept_on_disk(tmp_path, monkeypatch, request):
    """Making the bundle was most of a page export's time, paid by every ``export --html``: it is
    made once per vl-convert version and read back from the cache folder by the next process."""
    import vl_convert as vlc

    from trace_explorer.export.page import bundle_path, vega_bundle

    asked = []
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(vlc, "javascript_bundle", lambda *a, **k: asked.append(a) or "vega(); </script> <!-- x")
    request.addfinalizer(vega_bundle.cache_clear)  # no other test gets this fake bundle
    vega_bundle.cache_clear()
    first = vega_bundle()
    assert first == "vega(); <\\/script> <\\!-- x" and asked == [()]
    kept = tmp_path / "trace-explorer" / f"vega-bundle-{vlc.__version__}.js"
    assert bundle_path(vlc.__version__) == kept and kept.read_text(encoding="utf-8") == first
    vega_bundle.cache_clear()  # as a new process would
    assert vega_bundle() == first and asked == [()]  # read back, not made again
    assert [p.name for p in kept.parent.iterdir()] == [kept.name]  # no partial file left
