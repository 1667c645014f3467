"""The download buttons in a real browser (headless Debian Chromium through Playwright's driver):
each kind of download is clicked, arrives as a file with its name, and opens: the DAG as SVG
with a node per step, the timeline as PNG, the HTML page (opened from file:// with its DAG
drawn), the Turtle data (read back by the project's loader as the same session), the Markdown
(copied by the code box's button) and the session list as CSV with the filtered rows.
Screenshots of the Export menu go to tests/artifacts/."""

from __future__ import annotations

import csv
import io
import json
import urllib.parse
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from components.session.downloads import BUTTON_KEYS, file_stem
from tests.browser_support import chromium_page, screenshot, wait_for_streamlit_idle
from tests.list_support import LIST_ROW
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import load_collection
from trace_explorer.views.report import session_detail

pytestmark = pytest.mark.browser  # fails (never skips) without Chromium: see tests/conftest.py

from tests.conftest import demo_sessions  # noqa: E402

SESSIONS = demo_sessions()
REACT_12 = "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370"
SUPERVISOR = "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926"
GRAPHRAG = "urn:trustgraph:question:95e60af5-93bd-44cf-8fd6-30f1f29d0da9"
SVG = "{http://www.w3.org/2000/svg}"



def open_export(page, base: str, iri: str, tab: str | None = None) -> None:
    """Open the session page of ``iri``, its Export menu and the tab ``tab``."""
    page.goto(f"{base}/session?session={urllib.parse.quote(iri, safe='')}")
    wait_for_streamlit_idle(page)
    page.locator(".st-key-te_export button").first.click()
    wait_for_streamlit_idle(page)
    page.get_by_role("tab", name="Images").wait_for()
    if tab:
        page.get_by_role("tab", name=tab).click()
        wait_for_streamlit_idle(page)


def pick(page, key: str, option: str) -> None:
    """Choose ``option`` in the segmented control ``key``."""
    page.mouse.move(1, 1)  # no tooltip of the last button hovered in the way
    page.locator(f".st-key-{key}").get_by_text(option, exact=True).click()
    wait_for_streamlit_idle(page)


def download(page, key: str, folder: Path) -> Path:
    """Click the download button ``key`` and save what arrives; returns its path."""
    button = page.locator(f".st-key-{key} button:visible")
    button.wait_for()
    with page.expect_download(timeout=60000) as info:
        button.click()
    arrived = info.value
    assert arrived.failure() is None
    path = folder / arrived.suggested_filename
    arrived.save_as(path)
    assert path.stat().st_size > 0
    return path


def svg_titles(data: bytes) -> list[str]:
    root = ET.fromstring(data)
    return [g.find(SVG + "title").text for g in root.iter(SVG + "g") if g.get("class") == "node"]


def test_dag_svg_and_timeline_png(app_url, sessions, tmp_path):
    with chromium_page(viewport=(1440, 1100)) as page:
        open_export(page, app_url, REACT_12)
        page.wait_for_timeout(300)
        screenshot(page, "export-images")
        svg = download(page, BUTTON_KEYS["dag"], tmp_path)
        assert svg.name == "session-62c33a4f-dag.svg"
        titles = svg_titles(svg.read_bytes())
        assert {s.id for s in sessions[REACT_12].steps} | {REACT_12} <= set(titles)

        pick(page, "te_export_image_format", "PNG")
        png = download(page, BUTTON_KEYS["timeline"], tmp_path)
        assert png.name == "session-62c33a4f-timeline.png"
        data = png.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert width > 1000 and height > 26 * 13  # 2x, a row for each of the 26 steps
        opened = page.context.new_page()  # and the browser shows it
        opened.goto(png.as_uri())
        assert opened.evaluate("() => document.images[0].naturalWidth") == width
        opened.close()


def test_html_page_opens_from_disk_with_its_dag_and_timeline(app_url, sessions, tmp_path):
    with chromium_page(viewport=(1440, 1100)) as page:
        open_export(page, app_url, SUPERVISOR, "Page")
        screenshot(page, "export-page")
        html = download(page, BUTTON_KEYS["page"], tmp_path)
        assert html.name == "session-4787f93b.html"
        opened = page.context.new_page()
        requests = []
        opened.on("request", lambda r: requests.append(r.url))
        opened.goto(html.as_uri())
        frame = opened.frame_locator("#dag-frame")
        frame.locator("#mynetwork canvas").wait_for(timeout=30000)
        opened.locator("#timeline canvas, #timeline svg").first.wait_for(timeout=30000)
        text = opened.locator("main").inner_text()
        assert sessions[SUPERVISOR].question in text
        for child in sessions[SUPERVISOR].children:  # sub-sessions too (the checkbox's default)
            assert sessions[child].question in text
        assert all(u.startswith(("file:", "about:", "data:", "blob:")) for u in requests), requests
        opened.wait_for_timeout(500)
        # the graph's Fit button sits inside the frame, and a wheel over the graph scrolls the
        # page (the frame is as tall as its content; the graph zooms only with Ctrl held)
        box = opened.locator("#dag-frame").bounding_box()
        fit = frame.locator(".te-fit").bounding_box()
        assert box["x"] < fit["x"] and fit["x"] + fit["width"] <= box["x"] + box["width"]
        opened.locator("#dag-frame").scroll_into_view_if_needed()
        graph = frame.locator("#mynetwork").bounding_box()
        opened.mouse.move(graph["x"] + graph["width"] / 2, graph["y"] + min(graph["height"], 300) / 2)
        frame_window = next(f for f in opened.frames if f != opened.main_frame)
        scale = frame_window.evaluate("network.getScale()")
        top = opened.evaluate("window.scrollY")
        opened.mouse.wheel(0, 200)
        opened.wait_for_function("(top) => window.scrollY > top", arg=top, timeout=5000)
        assert frame_window.evaluate("network.getScale()") == scale
        assert frame_window.evaluate("document.scrollingElement.scrollTop") == 0
        opened.keyboard.down("Control")
        opened.mouse.wheel(0, -200)
        opened.keyboard.up("Control")
        opened.wait_for_timeout(200)
        assert frame_window.evaluate("network.getScale()") > scale
        opened.screenshot(path=str(Path(__file__).parent / "artifacts" / "export-page-opened.png"), full_page=False)


def test_the_export_menu_opens_in_view_on_a_laptop_screen(app_url):
    # the menu sits at the top of the page: under the answer and its panels it opened below the
    # fold of a 720 px window, its tabs the only part in view
    with chromium_page(viewport=(1280, 720)) as page:
        open_export(page, app_url, REACT_12)
        menu = page.locator('[data-testid="stPopoverBody"]').first.bounding_box()
        assert page.evaluate("window.scrollY") == 0
        assert menu["height"] > 150 and menu["y"] + menu["height"] <= 720
        assert page.get_by_role("button", name="Provenance graph").bounding_box()["y"] < 720


def test_turtle_data_loads_back_as_the_same_session(app_url, sessions, tmp_path):
    with chromium_page(viewport=(1440, 1100)) as page:
        open_export(page, app_url, REACT_12, "Data")
        pick(page, "te_export_data_format", "Turtle")
        screenshot(page, "export-data")
        arrived = download(page, BUTTON_KEYS["data"], tmp_path)
    # the session points at 25 texts: a ZIP of the Turtle file and its documents sidecar
    assert arrived.name == "session-62c33a4f.ttl.zip"
    folder = tmp_path / "unzipped"
    with zipfile.ZipFile(arrived) as archive:
        assert sorted(archive.namelist()) == ["session-62c33a4f.documents.json", "session-62c33a4f.ttl"]
        archive.extractall(folder)
    collection, errors = load_collection(sorted(folder.iterdir()))
    assert errors == []
    again = {s.id: s for s in read_sessions(collection)}
    assert session_detail(again[REACT_12]) | {"parent_session": None} == \
        session_detail(sessions[REACT_12]) | {"parent_session": None}
    assert again[REACT_12].answer == sessions[REACT_12].answer and "Elbrus" in again[REACT_12].answer


def test_prov_warning_and_markdown_copy(app_url, sessions, tmp_path):
    with chromium_page(viewport=(1440, 1100)) as page:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url)
        open_export(page, app_url, GRAPHRAG, "PROV")
        warning = page.locator('[data-testid="stAlertContentWarning"]').first
        warning.wait_for()
        shown = warning.inner_text().replace("\u2060", "")  # md_escape's word joiners (no autolinks)
        assert "6 triples of this session cannot be said in PROV-DM" in shown
        assert "<<( <http://trustgraph.ai/e/belgian-beer>" in shown
        screenshot(page, "export-prov")
        provn = download(page, BUTTON_KEYS["prov"], tmp_path)
        assert provn.name == "session-95e60af5.provn"
        assert provn.read_text(encoding="utf-8").startswith("// PROV-N of the TrustGraph session")

        page.get_by_role("tab", name="Copy as Markdown").click()
        wait_for_streamlit_idle(page)
        screenshot(page, "export-markdown")
        box = page.locator('[data-testid="stPopoverBody"] [data-testid="stCode"]').first
        box.hover()
        box.get_by_role("button").first.click()
        copied = page.evaluate("() => navigator.clipboard.readText()")
        md = download(page, BUTTON_KEYS["markdown"], tmp_path)
        assert md.name == f"{file_stem(GRAPHRAG)}.md"
        text = md.read_text(encoding="utf-8")
        assert copied.rstrip("\n") == text.rstrip("\n")  # what is copied is what is downloaded
    # and it says the session: its question, answer, steps in order and every chosen edge's score
    session = sessions[GRAPHRAG]
    plain = text.replace("\\", "")
    assert plain.splitlines()[0] == f"# {session.question}" and session.answer in plain
    headings = [line for line in plain.splitlines() if line.startswith("### ")]
    assert headings == [f"### {n}. {step.kind}" for n, step in enumerate(session.steps, 1)]
    edges = session_detail(session)["edges"]
    assert len(edges) == plain.count("- **Edge:** ") == 6
    assert all(f"score {edge['score']:g})" in plain for edge in edges)


def test_list_csv_holds_the_filtered_rows(app_url, tmp_path):
    with chromium_page(viewport=(1440, 1100)) as page:
        page.goto(app_url + "/")
        wait_for_streamlit_idle(page)
        page.locator(LIST_ROW).first.wait_for()
        pick(page, "type", "GraphRAG")
        expected = sorted((s for s in SESSIONS if s["parent"] is None and s["mechanism"] == "graphrag"),
                          key=lambda s: s["started"], reverse=True)
        page.get_by_text(f"of {len(expected)} matching", exact=False).wait_for()
        screenshot(page, "export-list")
        arrived = download(page, BUTTON_KEYS["list_csv"], tmp_path)
        assert arrived.name == "sessions.csv"
        rows = list(csv.DictReader(io.StringIO(arrived.read_text(encoding="utf-8"), newline="")))
        assert [r["id"] for r in rows] == [s["session"] for s in expected]
        assert [r["question"] for r in rows] == [s["question"] for s in expected]
        assert {r["type"] for r in rows} == {"GraphRAG"}
        listed = download(page, BUTTON_KEYS["list_json"], tmp_path)
        assert [i["id"] for i in json.loads(listed.read_text(encoding="utf-8"))] == [r["id"] for r in rows]
