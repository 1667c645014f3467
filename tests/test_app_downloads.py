"""The download buttons (components/session/downloads.py), run headless with Streamlit's AppTest.

AppTest cannot fetch what a download button serves (no runtime, no media server), so every call
to ``st.download_button`` is recorded (label, data, file name, MIME type, key, disabled): the
tests check the buttons each session gets, then call the recorded data (bytes or the callable a
click would run) and the component's builders, and check the real content against the corpus_collection
and its manifest (ground truth)."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from components.session import downloads
from components.session.downloads import BUTTON_KEYS, CHILDREN_KEY, DATA_FORMAT_KEY, DATA_FORMATS, IMAGE_FORMAT_KEY, POPOVER_KEY, PROV_FORMAT_KEY, PROV_FORMATS, data_file, file_stem, image_file, list_file, prov_file, trace_store, unmapped_warning
from tests.list_support import list_ids
from tests.test_app import BY_ID, CORPUS, MANIFEST, MECHANISMS, PLAN, REACT_12, REPO, SESSIONS, SUPERVISOR, TOP  # noqa: F401
from trace_explorer.export.data import export_session_data
from trace_explorer.export.prov import export_session_prov, nquad_line
from trace_explorer.export.quads import subjects_sessions
from trace_explorer.export.table import COLUMNS as CSV_COLUMNS
from trace_explorer.model.reader import read_sessions
from trace_explorer.read.collection import TraceStore, load_collection
from trace_explorer.views.report import session_detail

GRAPHRAG = "urn:trustgraph:question:95e60af5-93bd-44cf-8fd6-30f1f29d0da9"
DOCRAG = "urn:trustgraph:docrag:4a23d596-2217-4ead-9bc4-96cb8e81973e"
SEED = "urn:trustgraph:agent:6513270e-269e-4d37-b2a7-4de452e6b438"
ONE_OF_EACH = {"react": REACT_12, "plan": PLAN, "supervisor": SUPERVISOR, "graphrag": GRAPHRAG,
               "docrag": DOCRAG, "seed": SEED}
SESSION_BUTTONS = ["dag", "timeline", "page", "data", "prov", "markdown"]


@dataclass
class Recorded:
    label: str
    data: Any
    file_name: str
    mime: str
    key: str | None
    disabled: bool

    def content(self) -> bytes:
        """What a click downloads: the bytes, or what the callable builds."""
        value = self.data() if callable(self.data) else self.data
        return value.encode("utf-8") if isinstance(value, str) else value


@pytest.fixture
def recorded(monkeypatch) -> dict[str, Recorded]:
    """Every ``st.download_button`` of the next runs, by key (the last run's wins)."""
    calls: dict[str, Recorded] = {}
    original = st.download_button

    def record(label, data, file_name=None, mime=None, key=None, **kwargs):
        calls[key] = Recorded(label, data, file_name, mime, key, bool(kwargs.get("disabled")))
        return original(label, data, file_name=file_name, mime=mime, key=key, **kwargs)

    monkeypatch.setattr(st, "download_button", record)
    return calls


def open_session(iri: str, export_open: bool = True, **state) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=90)
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = iri
    if export_open:
        at.session_state[POPOVER_KEY] = True
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def unescape(markdown: str) -> str:
    """Undo ``md_escape``."""
    return re.sub(r"\\(.)", r"\1", markdown.replace("  \n", "\n")).replace("\u2060", "")


def session_keys(calls: dict[str, Recorded]) -> list[str]:
    return [name for name, key in BUTTON_KEYS.items() if key in calls and not name.startswith("list_")]


def reload(paths) -> dict:
    collection, errors = load_collection(paths)
    assert errors == []
    return {s.id: s for s in read_sessions(collection)}


def comparable(detail: dict) -> dict:
    return detail | {"parent_session": None}  # the parent is not part of a session's own export


def read_back(name: str, data: bytes, folder) -> dict:
    """The sessions a data download holds (a ZIP of the data and its texts, or the data alone)."""
    folder.mkdir(parents=True)
    if name.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            archive.extractall(folder)
    else:
        (folder / name).write_bytes(data)
    return reload(sorted(folder.iterdir()))


PROV_RECORD = re.compile(r"^\s*(?:entity|activity|agent)\(([^,)\s]+)", re.M)
PROV_PREFIX = re.compile(r"^\s*prefix (\S+) <([^>]*)>", re.M)


def provn_identifiers(text: str) -> set[str]:
    """The full IRIs of the entity, activity and agent records of a PROV-N document."""
    prefixes = dict(PROV_PREFIX.findall(text))
    out = set()
    for name in PROV_RECORD.findall(text):
        prefix, _, local = name.partition(":")
        out.add(prefixes[prefix] + local.replace("\\", "") if prefix in prefixes else name)  # "\:" is ":"
    return out


def provjson_identifiers(data: bytes) -> set[str]:
    """The same, of a PROV-JSON document (its bundles, one per named graph, together), read by
    the ``prov`` library."""
    from prov.model import ProvDocument

    document = ProvDocument.deserialize(content=data.decode("utf-8"), format="json").flattened()
    return {str(record.identifier.uri) for record in document.get_records() if record.is_element()}


# -- names ---------------------------------------------------------------------------------------
def test_file_names_are_safe_and_come_from_the_uuid():
    assert file_stem(REACT_12) == "session-62c33a4f"
    assert file_stem("urn:trustgraph:question:1FB17C23-90c1-42cf-93ac-94af0f21ddb6") == "session-1fb17c23"
    for odd in ("javascript:alert(6)", "urn:x:../../etc/passwd", "urn:x:<script>", "urn:x:CON", "", "urn:x:日本"):
        stem = file_stem(odd)
        assert re.fullmatch(r"session(-[a-z0-9]+)+", stem), stem
        assert len(stem) <= 40
    assert file_stem("urn:x:a/b") != file_stem("urn:x:a.b")  # the hash tells slug twins apart


# -- the session view's Export menu --------------------------------------------------------------
def test_export_menu_is_closed_and_builds_nothing_until_opened(recorded, monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("built too early")
    originals = {name: getattr(downloads, name) for name in ("data_file", "prov_file", "markdown_file")}
    for name in ("image_file", "page_file", *originals):
        monkeypatch.setattr(downloads, name, fail)
    at = open_session(REACT_12, export_open=False)
    assert session_keys(recorded) == []
    assert [p.proto.popover.label for p in at.main.get("popover")] == ["Export"]
    # open: data, PROV and Markdown are built for what the menu shows about them; images and
    # the page are not: their buttons carry a callable that builds on click
    for name, function in originals.items():
        monkeypatch.setattr(downloads, name, function)
    open_session(REACT_12)
    assert session_keys(recorded) == SESSION_BUTTONS
    for name in ("dag", "timeline", "page"):
        assert callable(recorded[BUTTON_KEYS[name]].data)
        with pytest.raises(AssertionError, match="built too early"):
            recorded[BUTTON_KEYS[name]].content()


@pytest.mark.parametrize("name", sorted(ONE_OF_EACH))
def test_every_mechanism_gets_every_button_with_its_file_name_and_type(recorded, corpus_collection, name):
    iri = ONE_OF_EACH[name]
    collection, sessions = corpus_collection
    at = open_session(iri)
    stem = file_stem(iri)
    assert session_keys(recorded) == SESSION_BUTTONS
    assert not any(recorded[BUTTON_KEYS[k]].disabled for k in SESSION_BUTTONS)
    got = {k: (recorded[BUTTON_KEYS[k]].file_name, recorded[BUTTON_KEYS[k]].mime) for k in SESSION_BUTTONS}
    texts = export_session_data(collection, sessions[iri], sessions, ".trig").documents
    assert got == {
        "dag": (f"{stem}-dag.svg", "image/svg+xml"),
        "timeline": (f"{stem}-timeline.svg", "image/svg+xml"),
        "page": (f"{stem}.html", "text/html"),
        "data": (f"{stem}.trig.zip", "application/zip") if texts else (f"{stem}.trig", "application/trig"),
        "prov": (f"{stem}.provn", "text/provenance-notation"),
        "markdown": (f"{stem}.md", "text/markdown"),
    }
    # the sub-sessions checkbox only where there are sub-sessions
    subs = subjects_sessions(sessions[iri], sessions)
    assert [c.label for c in at.main.checkbox] == ([f"Sub-sessions too ({len(subs)})"] if subs else [])
    assert [t.label for t in at.main.tabs] == ["Images", "Page", "Data", "PROV", "Copy as Markdown"]


def test_the_format_pickers_change_the_files(recorded):
    open_session(GRAPHRAG, **{IMAGE_FORMAT_KEY: "PNG", DATA_FORMAT_KEY: "Turtle", PROV_FORMAT_KEY: "PROV-JSON"})
    stem = file_stem(GRAPHRAG)
    assert (recorded[BUTTON_KEYS["dag"]].file_name, recorded[BUTTON_KEYS["dag"]].mime) == (f"{stem}-dag.png", "image/png")
    assert recorded[BUTTON_KEYS["timeline"]].file_name == f"{stem}-timeline.png"
    assert recorded[BUTTON_KEYS["data"]].file_name in (f"{stem}.ttl", f"{stem}.ttl.zip")
    assert (recorded[BUTTON_KEYS["prov"]].file_name, recorded[BUTTON_KEYS["prov"]].mime) == (f"{stem}.provjson", "application/json")
    open_session(GRAPHRAG, **{IMAGE_FORMAT_KEY: "PDF", DATA_FORMAT_KEY: "Wire JSON"})
    assert recorded[BUTTON_KEYS["timeline"]].file_name == f"{stem}-timeline.pdf"
    assert recorded[BUTTON_KEYS["timeline"]].mime == "application/pdf"
    assert recorded[BUTTON_KEYS["data"]].file_name in (f"{stem}.json", f"{stem}.json.zip")


def svg_titles(svg: bytes) -> list[str]:
    """The <title> of every Graphviz node group (class "node") of an SVG."""
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    return [g.find("s:title", ns).text for g in root.iter("{http://www.w3.org/2000/svg}g")
            if g.get("class") == "node"]


@pytest.mark.parametrize("iri", [REACT_12, SUPERVISOR, GRAPHRAG], ids=lambda i: i[-8:])
def test_the_dag_svg_a_click_builds_has_a_node_per_step(recorded, corpus_collection, iri):
    _, sessions = corpus_collection
    open_session(iri)
    svg = recorded[BUTTON_KEYS["dag"]].content()  # what the button's callable builds
    titles = svg_titles(svg)
    assert {s.id for s in sessions[iri].steps} | {iri} <= set(titles)
    assert svg == image_file(sessions[iri], sessions, "dag", "SVG").data


def test_the_timeline_png_and_the_page(recorded, corpus_collection):
    _, sessions = corpus_collection
    open_session(DOCRAG, **{IMAGE_FORMAT_KEY: "PNG"})
    png = recorded[BUTTON_KEYS["timeline"]].content()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width > 600 and height > 100
    page = recorded[BUTTON_KEYS["page"]].content().decode("utf-8")
    assert page.startswith("<!DOCTYPE html>") and 'id="dag-frame"' in page
    for step in sessions[DOCRAG].steps:  # each step has its own section in the page
        assert page.count(f'data-step="{step.id}"') == 1


@pytest.mark.long
def test_turtle_data_reloads_as_the_same_session(recorded, corpus_collection, tmp_path):
    collection, sessions = corpus_collection
    for iri in (REACT_12, SUPERVISOR, GRAPHRAG, SEED):
        open_session(iri, **{DATA_FORMAT_KEY: "Turtle"})
        button = recorded[BUTTON_KEYS["data"]]
        data = button.content()
        folder = tmp_path / iri[-8:]
        folder.mkdir()
        if button.file_name.endswith(".zip"):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                assert sorted(archive.namelist()) == sorted([file_stem(iri) + ".ttl", file_stem(iri) + ".documents.json"])
                archive.extractall(folder)
        else:
            (folder / button.file_name).write_bytes(data)
        again = reload(sorted(folder.iterdir()))
        assert comparable(session_detail(again[iri])) == comparable(session_detail(sessions[iri]))
        for child in subjects_sessions(sessions[iri], sessions):
            assert comparable(session_detail(again[child])) == comparable(session_detail(sessions[child]))


def test_react_data_is_a_zip_with_its_texts_and_the_caption_says_so(recorded, corpus_collection):
    collection, sessions = corpus_collection
    at = open_session(REACT_12)
    export = export_session_data(collection, sessions[REACT_12], sessions, ".trig")
    assert len(export.documents) == 25
    captions = [unescape(c.value) for c in at.main.caption]
    assert (f"{export.quads} triples and 25 texts: a ZIP of session-62c33a4f.trig and "
            "session-62c33a4f.documents.json (load both to get the session back with its words).") in captions
    assert recorded[BUTTON_KEYS["data"]].label == "TriG data + texts (.zip)"


@pytest.mark.parametrize("label", list(DATA_FORMATS))
def test_every_data_format_of_every_session_reads_back_as_the_same_session(corpus_collection, label, tmp_path):
    collection, sessions = corpus_collection
    for name, iri in ONE_OF_EACH.items():
        file = data_file(collection, sessions[iri], sessions, label, True)
        assert file.name.startswith(file_stem(iri) + DATA_FORMATS[label][0])
        again = read_back(file.name, file.data, tmp_path / name)
        assert set(again) == {iri, *subjects_sessions(sessions[iri], sessions)}
        for each in again:
            assert comparable(session_detail(again[each])) == comparable(session_detail(sessions[each])), (label, each)


def test_both_prov_formats_of_every_session_hold_its_steps(corpus_collection):
    collection, sessions = corpus_collection
    for iri in ONE_OF_EACH.values():
        provn = prov_file(collection, sessions[iri], sessions, "PROV-N", True).data.decode("utf-8")
        provjson = prov_file(collection, sessions[iri], sessions, "PROV-JSON", True).data
        assert provn.startswith(f"// PROV-N of the TrustGraph session <{iri}>")
        records = provn_identifiers(provn)
        assert records == provjson_identifiers(provjson)  # the two say the same records
        every = [sessions[iri]] + [sessions[c] for c in subjects_sessions(sessions[iri], sessions)]
        assert {s.id for s in every} | {step.id for s in every for step in s.steps} <= records


@pytest.mark.parametrize("label", list(PROV_FORMATS))
def test_prov_lists_the_unmapped_triples_in_an_escaped_warning(recorded, corpus_collection, label):
    collection, sessions = corpus_collection
    at = open_session(GRAPHRAG, **{PROV_FORMAT_KEY: label})
    export = export_session_prov(collection, sessions[GRAPHRAG], sessions, PROV_FORMATS[label][0])
    assert export.unmapped  # quoted edges (tg:edge) have no PROV-DM counterpart
    warnings = [w.value for w in at.main.warning]
    assert len(warnings) == 1
    shown = unescape(warnings[0])
    assert shown == unmapped_warning(export)
    assert shown.startswith(f"{len(export.unmapped)} triples of this session cannot be said in PROV-DM")
    for quad in export.unmapped:
        assert "• " + nquad_line(quad) in shown
    assert not re.search(r"(?<!\\)[<>*\[\]()`_]", warnings[0].replace("  \n", "\n"))  # escaped
    data = recorded[BUTTON_KEYS["prov"]].content()
    steps = {sessions[GRAPHRAG].id} | {s.id for s in sessions[GRAPHRAG].steps}
    if label == "PROV-N":
        assert all(nquad_line(q) in data.decode("utf-8") for q in export.unmapped)  # its comment
        assert steps <= provn_identifiers(data.decode("utf-8"))
    else:
        assert steps <= provjson_identifiers(data)


def test_a_long_unmapped_list_is_cut_in_the_warning_and_whole_in_a_box(recorded, corpus_collection, monkeypatch):
    collection, sessions = corpus_collection
    monkeypatch.setattr(downloads, "UNMAPPED_SHOWN", 2)
    at = open_session(GRAPHRAG, **{PROV_FORMAT_KEY: "PROV-JSON"})
    export = export_session_prov(collection, sessions[GRAPHRAG], sessions, ".provjson")
    shown = unescape(at.main.warning[0].value)
    lines = [nquad_line(q) for q in export.unmapped]
    assert shown.count("• ") == 2 and all(line in shown for line in lines[:2])
    assert shown.endswith(f"… and {len(lines) - 2} more (all of them in the box below).")
    boxes = [c.value for c in at.main.code if c.language in (None, "", "plaintext")]
    assert "\n".join(lines) in boxes


def test_no_warning_when_prov_maps_everything(recorded):
    at = open_session(REACT_12)
    assert [w.value for w in at.main.warning] == []


def test_copy_as_markdown_shows_the_text_as_code_and_downloads_it(recorded, corpus_collection):
    _, sessions = corpus_collection
    at = open_session(REACT_12)
    downloaded = recorded[BUTTON_KEYS["markdown"]].content().decode("utf-8")
    codes = [c for c in at.main.code if c.language == "markdown"]
    assert [c.value.rstrip("\n") for c in codes] == [downloaded.rstrip("\n")]  # shown is downloaded
    plain = downloaded.replace("\\", "")
    assert plain.splitlines()[0] == "# " + BY_ID[REACT_12]["question"]
    session = sessions[REACT_12]
    analyses = session.steps_of("Analysis")
    assert len(analyses) == 12 and plain.count("**Thought:**") == 12 and plain.count("**Observation:**") == 12
    for step in analyses:  # every iteration's words, in reading order
        assert step.fields["thought"] in plain and step.fields["action"] in plain
    positions = [plain.index(step.fields["thought"]) for step in analyses]
    assert positions == sorted(positions)
    assert session.answer in plain


def test_sub_sessions_checkbox(recorded, corpus_collection, tmp_path):
    collection, sessions = corpus_collection
    subs = subjects_sessions(sessions[SUPERVISOR], sessions)
    at = open_session(SUPERVISOR)
    whole = recorded[BUTTON_KEYS["markdown"]].content().decode("utf-8")
    assert all(f"## Sub-session: {sessions[s].question}" in whole.replace("\\", "") for s in subs)
    with_children = recorded[BUTTON_KEYS["data"]].content()
    at.checkbox(key=CHILDREN_KEY).uncheck().run()
    assert not at.exception
    own = recorded[BUTTON_KEYS["markdown"]].content().decode("utf-8")
    assert "## Sub-session: " not in own
    assert own.replace("\\", "").splitlines()[0] == "# " + sessions[SUPERVISOR].question
    alone = recorded[BUTTON_KEYS["data"]]
    assert len(alone.content()) < len(with_children)
    again = read_back(alone.file_name, alone.content(), tmp_path / "alone")
    assert set(again) == {SUPERVISOR}  # the supervisor's own triples: no sub-session in them
    # every step of its own, with the same fields (in another order: the sub-sessions its Findings
    # derive from are not there to order them by)
    steps = {d["id"]: d for d in session_detail(sessions[SUPERVISOR])["steps"]}
    assert {d["id"]: d for d in session_detail(again[SUPERVISOR])["steps"]} == steps
    page = recorded[BUTTON_KEYS["page"]].content().decode("utf-8")
    assert all(f'data-step="{step.id}"' in page for step in sessions[SUPERVISOR].steps)
    assert not any(f'data-step="{step.id}"' in page for s in subs for step in sessions[s].steps)


def test_hostile_session_exports_show_nothing_as_markup(recorded):
    from tests import hostile_traces as hostile
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=90).run()
    files = [(name, data, "application/octet-stream") for name, data in hostile.hostile_files().items()]
    at.sidebar.file_uploader[0].set_value(files).run()
    at.switch_page("app_pages/session.py")
    at.query_params["session"] = hostile.GRAPHRAG
    at.session_state[POPOVER_KEY] = True
    at.session_state[PROV_FORMAT_KEY] = "PROV-JSON"
    at.run()
    assert not at.exception
    assert session_keys(recorded) == SESSION_BUTTONS
    for element in list(at.main.warning) + list(at.main.caption):
        assert not re.search(r"(?<!\\)[<>*\[\]`]", element.value.replace("  \n", "\n")), element.value
    markdown = [c.value for c in at.main.code if c.language == "markdown"]
    assert len(markdown) == 1 and "\\<script\\>" in markdown[0]  # escaped in the Markdown, shown as code
    assert "<script>" not in recorded[BUTTON_KEYS["markdown"]].content().decode("utf-8")


def test_no_local_copy_means_no_data_or_prov(corpus_collection):
    collection, sessions = corpus_collection
    assert trace_store(SimpleNamespace(source=SimpleNamespace(url="http://x/sparql"))) is None
    assert trace_store(SimpleNamespace(store=collection)) is collection
    from trace_explorer.sources.store_source import StoreSource
    wrapped = trace_store(SimpleNamespace(source=StoreSource(collection.store, documents=collection.documents)))
    assert isinstance(wrapped, TraceStore)
    assert data_file(wrapped, sessions[REACT_12], sessions, "TriG", True).data == \
        data_file(collection, sessions[REACT_12], sessions, "TriG", True).data


# -- the session list ----------------------------------------------------------------------------
def list_app(**filters) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=90).run()
    for key, value in filters.items():
        widget = {"type": at.pills, "pattern": at.pills, "status": at.segmented_control,
                  "sub": at.toggle, "q": at.text_input}[key](key=key)
        (widget.input(value) if key == "q" else widget.set_value(value)).run()
    assert not at.exception
    return at


table_ids = list_ids


def csv_rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline="")))


@pytest.mark.parametrize("filters,expect", [
    ({}, lambda s: s["parent"] is None),
    ({"type": ["GraphRAG"]}, lambda s: s["parent"] is None and s["mechanism"] == "graphrag"),
    ({"pattern": ["react"], "status": "answered"},
     lambda s: s["parent"] is None and s.get("pattern") == "react" and s["has_answer"]),
    ({"sub": True, "q": "trappist"}, lambda s: "trappist" in s["question"].lower()),
], ids=["all", "graphrag", "react-answered", "sub-search"])
def test_list_csv_and_json_hold_the_filtered_rows(recorded, filters, expect):
    at = list_app(**filters)
    csv_button, json_button = recorded[BUTTON_KEYS["list_csv"]], recorded[BUTTON_KEYS["list_json"]]
    assert (csv_button.label, csv_button.file_name, csv_button.mime) == ("Download CSV", "sessions.csv", "text/csv")
    assert (json_button.label, json_button.file_name, json_button.mime) == ("Download JSON", "sessions.json", "application/json")
    assert callable(csv_button.data)  # read on click
    expected = sorted((s for s in SESSIONS if expect(s)), key=lambda s: s["started"], reverse=True)
    assert expected
    rows = csv_rows(csv_button.content())
    assert list(rows[0]) == list(CSV_COLUMNS)
    assert [r["id"] for r in rows] == [s["session"] for s in expected] == table_ids(at)
    for row, truth in zip(rows, expected):
        assert row["type"] == MECHANISMS[truth["mechanism"]]
        assert row["question"] == truth["question"]
        assert row["time"] == truth["started"]
        assert row["pattern"] == (truth.get("pattern") or "")
        assert row["has_answer"] == ("true" if truth["has_answer"] else "false")
        assert row["parent"] == (truth["parent"] or "")
        assert row["actions"] == "; ".join(truth.get("actions") or [])
    items = json.loads(json_button.content())
    assert [i["id"] for i in items] == [r["id"] for r in rows]
    assert all(i["question"] == BY_ID[i["id"]]["question"] for i in items)


def test_list_buttons_are_disabled_when_nothing_matches(recorded):
    list_app(q="no such words anywhere")
    assert recorded[BUTTON_KEYS["list_csv"]].disabled and recorded[BUTTON_KEYS["list_json"]].disabled


def test_list_file_of_a_plain_list(corpus_collection):
    _, sessions = corpus_collection
    chosen = [sessions[REACT_12], sessions[GRAPHRAG]]
    rows = csv_rows(list_file(chosen, "csv").data)
    assert [r["id"] for r in rows] == [REACT_12, GRAPHRAG]
    assert [i["id"] for i in json.loads(list_file(chosen, "json").data)] == [REACT_12, GRAPHRAG]


def test_the_answers_support_in_exports_reads_the_chunk_texts_kept_outside_the_session(recorded):
    # a DocRAG run without reranking: its chosen chunks' words live in the demo's content files,
    # not in the session; the page reads them for the Markdown and the HTML page as for its panel
    docrag = "urn:trustgraph:docrag:67f9d054-d3a9-4268-80a3-e212c205d168"
    open_session(docrag)
    markdown = recorded[BUTTON_KEYS["markdown"]].content().decode("utf-8").replace("\\", "")
    assert "1 sentence(s), 0 that nothing in this trace supports" in markdown
    assert "**Sentence 1 (supported):** The inverter warranty covers parts and labour" in markdown
    assert "chunk `urn:chunk:c1a54922-e27c-4421-8989-926f84b8b5fc`, score 1.00" in markdown
    page = recorded[BUTTON_KEYS["page"]].content().decode("utf-8")
    assert "urn:chunk:c1a54922-e27c-4421-8989-926f84b8b5fc" in page and "nothing in this trace supports it" not in page
