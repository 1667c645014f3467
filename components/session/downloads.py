"""Downloads: the session view's "Export" menu and the session list's CSV / JSON buttons.

The session view gets one ``st.popover("Export")`` (``session_exports``) with five tabs:

- Images: the DAG (Graphviz) and the timeline (vl-convert) as SVG, PNG or PDF;
- Page: one self-contained HTML file (interactive DAG, timeline, every step's details);
- Data: the session's own triples as Turtle, TriG, N-Quads, JSON-LD or TrustGraph wire JSON.
  When the triples point at loaded texts (thoughts, observations, answers) the download is a ZIP
  of the data file and its ``.documents.json`` sidecar (``trace_explorer.export.data.data_archive``): load both
  to get the same session back. Without texts it is the plain data file;
- PROV: PROV-N or PROV-JSON, with the triples PROV-DM cannot say listed in a warning;
- Copy as Markdown: the Markdown in ``st.code`` (its copy button copies the text) and a ``.md``.

A "sub-sessions too" checkbox (shown when the session has sub-sessions) puts their steps and
triples in the page, the data, PROV and Markdown.

Nothing is built while the menu is closed (the popover tracks its state and its content only
runs when open). Images and the page are built when their button is clicked (``data`` is a
callable, run by Streamlit on a thread of its own without a script context, so it uses no
Streamlit API); data, PROV and Markdown are cheap and built when the menu opens, because what
they show (the sidecar, the unmapped triples, the text) depends on them. Every file is kept in
this user's ``st.session_state``, keyed by format and the sub-sessions choice, for the session
on show (the cache is emptied when another session or collection comes up).

File names come from the UUID in the session IRI (``session-62c33a4f-dag.svg``); an IRI without
one gives a slug of its last characters and a hash, so a name never carries a path or odd
characters. Trace text is untrusted: it reaches Markdown only through ``md_escape``, and the
Markdown export is shown as code, never rendered.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import streamlit as st

from trace_explorer.export.data import DataExport, data_archive, documents_path, export_session_data
from trace_explorer.export.images import dag_image
from trace_explorer.export.timeline_image import timeline_image
from trace_explorer.analysis.support.support import AnswerSupport
from trace_explorer.export.markdown import session_markdown
from trace_explorer.export.page import session_page
from trace_explorer.export.prov import ProvExport, export_session_prov, nquad_line
from trace_explorer.export.quads import subjects_sessions
from trace_explorer.export.table import sessions_csv, sessions_json
from trace_explorer.export.suffixes import PROV_SUFFIXES
from trace_explorer.model.session import Session
from trace_explorer.read.collection import TraceStore
from trace_explorer.sources.source_texts import SourceTexts

from .answer_support import answer_support
from ..text import md_escape

# label -> (format / suffix, MIME type)
IMAGE_FORMATS: dict[str, tuple[str, str]] = {
    "SVG": ("svg", "image/svg+xml"),
    "PNG": ("png", "image/png"),
    "PDF": ("pdf", "application/pdf"),
}
DATA_FORMATS: dict[str, tuple[str, str]] = {
    "Turtle": (".ttl", "text/turtle"),
    "TriG": (".trig", "application/trig"),
    "N-Quads": (".nq", "application/n-quads"),
    "JSON-LD": (".jsonld", "application/ld+json"),
    "Wire JSON": (".json", "application/json"),
}
_PROV_MIMES = {".provn": "text/provenance-notation", ".provjson": "application/json"}
# the PROV serialisation's name -> (its file suffix, its MIME type), in the menu's order
PROV_FORMATS: dict[str, tuple[str, str]] = {name: (suffix, _PROV_MIMES[suffix])
                                            for suffix, name in PROV_SUFFIXES.items()}
ZIP_MIME = "application/zip"
HTML_MIME = "text/html"
MARKDOWN_MIME = "text/markdown"
CSV_MIME = "text/csv"
JSON_MIME = "application/json"
LIST_CSV_NAME = "sessions.csv"
LIST_JSON_NAME = "sessions.json"
UNMAPPED_SHOWN = 20  # unmapped PROV triples listed in the warning; more go in a box below it
MARKDOWN_BOX_PX = 320
NO_STORE = ("The triples are exported from a local copy: files or a local store. A SPARQL endpoint "
            "source has none (the images, the page and Markdown still work).")

POPOVER_KEY = "te_export"
CHILDREN_KEY = "te_export_children"
IMAGE_FORMAT_KEY = "te_export_image_format"
DATA_FORMAT_KEY = "te_export_data_format"
PROV_FORMAT_KEY = "te_export_prov_format"
BUTTON_KEYS = {"dag": "te_dl_dag", "timeline": "te_dl_timeline", "page": "te_dl_page",
               "data": "te_dl_data", "prov": "te_dl_prov", "markdown": "te_dl_markdown",
               "list_csv": "te_dl_list_csv", "list_json": "te_dl_list_json"}
_CACHE_KEY = "te_export_files"

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_NOT_SLUG = re.compile(r"[^A-Za-z0-9]+")


# -- names and builders (no Streamlit: the tests call them directly) ------------------------------
def file_stem(session_id: str) -> str:
    """A safe file name stem for a session: ``session-`` and the first 8 hex digits of the UUID in
    its IRI (the last one, when there are several); otherwise a slug of the IRI's last letters and
    digits (at most 24) and 6 hex digits of its SHA-256, so two such IRIs do not share a name."""
    found = _UUID.findall(session_id or "")
    if found:
        return f"session-{found[-1][:8].lower()}"
    digest = hashlib.sha256((session_id or "").encode("utf-8")).hexdigest()[:6]
    slug = _NOT_SLUG.sub("-", session_id or "").strip("-")[-24:].strip("-").lower()
    return f"session-{slug}-{digest}" if slug else f"session-{digest}"


@dataclass(frozen=True)
class ExportFile:
    """One download: its file name, MIME type and bytes; ``note`` says what is in it (plain
    text, no trace text); ``export`` is the ``DataExport`` / ``ProvExport`` it came from."""

    name: str
    mime: str
    data: bytes
    note: str = ""
    export: DataExport | ProvExport | None = None


def image_target(session: Session, what: str, label: str) -> tuple[str, str]:
    """(file name, MIME type) of the ``what`` ("dag" or "timeline") image in format ``label``."""
    fmt, mime = IMAGE_FORMATS[label]
    return f"{file_stem(session.id)}-{what}.{fmt}", mime


def image_file(session: Session, sessions: Mapping[str, Session], what: str, label: str) -> ExportFile:
    """The DAG or timeline of ``session`` as an image (``label``: "SVG", "PNG" or "PDF").
    Raises ``ImageExportError`` when Graphviz or vl-convert is missing or fails."""
    fmt = IMAGE_FORMATS[label][0]
    data = dag_image(session, fmt, sessions) if what == "dag" else timeline_image(session, fmt, sessions)
    return ExportFile(*image_target(session, what, label), data)


def page_target(session: Session) -> tuple[str, str]:
    return f"{file_stem(session.id)}.html", HTML_MIME


def page_file(session: Session, sessions: Mapping[str, Session], children: bool,
              support: AnswerSupport | None = None) -> ExportFile:
    """The self-contained HTML page of ``session`` (sub-sessions' steps too when ``children``),
    with its answer's ``support`` (worked out from the session alone when None)."""
    html = session_page(session, sessions, include_children=children, support=support)
    return ExportFile(*page_target(session), html.encode("utf-8"))


def data_file(store: Any, session: Session, sessions: Mapping[str, Session], label: str,
              children: bool) -> ExportFile:
    """The session's triples in the data format ``label`` (a ``DATA_FORMATS`` key): the plain data
    file, or a ZIP of it and its ``.documents.json`` sidecar when the triples point at texts."""
    suffix, mime = DATA_FORMATS[label]
    export = export_session_data(store, session, sessions, suffix, include_children=children)
    name = file_stem(session.id) + suffix
    triples = f"{export.quads:,} triple{'s' if export.quads != 1 else ''}"
    if not export.documents:
        return ExportFile(name, mime, export.data, f"{triples} in {name}.", export)
    texts = f"{len(export.documents):,} text{'s' if len(export.documents) != 1 else ''}"
    sidecar = documents_path(name).name
    note = (f"{triples} and {texts}: a ZIP of {name} and {sidecar} (load both to get the "
            "session back with its words).")
    return ExportFile(name + ".zip", ZIP_MIME, data_archive(name, export), note, export)


def prov_file(store: Any, session: Session, sessions: Mapping[str, Session], label: str,
              children: bool) -> ExportFile:
    """The session as PROV-N or PROV-JSON (``label``); ``export.unmapped`` holds the triples
    PROV-DM cannot say."""
    suffix, mime = PROV_FORMATS[label]
    export = export_session_prov(store, session, sessions, suffix, include_children=children)
    note = f"{export.records:,} PROV record{'s' if export.records != 1 else ''} ({export.format})."
    return ExportFile(file_stem(session.id) + suffix, mime, export.data, note, export)


def markdown_file(session: Session, sessions: Mapping[str, Session], children: bool,
                  support: AnswerSupport | None = None) -> ExportFile:
    """The session as readable Markdown ("Copy as Markdown"), with its answer's ``support``."""
    text = session_markdown(session, sessions, include_children=children, support=support)
    return ExportFile(file_stem(session.id) + ".md", MARKDOWN_MIME, text.encode("utf-8"))


def list_file(sessions: Iterable[Session | dict], kind: str) -> ExportFile:
    """The session list (as given: the filtered rows, in order) as ``kind`` "csv" or "json"."""
    rows = list(sessions)
    if kind == "csv":
        return ExportFile(LIST_CSV_NAME, CSV_MIME, sessions_csv(rows).encode("utf-8"))
    return ExportFile(LIST_JSON_NAME, JSON_MIME, sessions_json(rows).encode("utf-8"))


def unmapped_warning(export: ProvExport, limit: int = UNMAPPED_SHOWN) -> str | None:
    """The words of the warning about the triples PROV-DM cannot say (None when there are none):
    how many, where they went, and the first ``limit`` of them as N-Quads lines. Plain text:
    the caller escapes it."""
    if not export.unmapped:
        return None
    count = len(export.unmapped)
    where = ("the file lists them in a comment at its top" if export.format == "PROV-N"
             else "PROV-JSON has no comments, so they are not in the file")
    lines = [f"{count} triple{'s' if count != 1 else ''} of this session cannot be said in PROV-DM "
             f"and {'are' if count != 1 else 'is'} not among the PROV records ({where}):"]
    lines += ["• " + nquad_line(q) for q in export.unmapped[:limit]]
    if count > limit:
        lines.append(f"… and {count - limit} more (all of them in the box below).")
    return "\n".join(lines)


# -- the per-user file cache -----------------------------------------------------------------------
def _collection_key(collection: Any) -> Any:
    key = getattr(collection, "key", None)
    try:
        hash(key)
    except TypeError:
        key = None
    return key if key is not None else id(collection)


def trace_store(collection: Any) -> TraceStore | None:
    """The quads and texts behind ``collection`` as the data exports read them: its TraceStore,
    or one over its source's pyoxigraph store (files, a local store); None for a source without
    a local store (a SPARQL endpoint)."""
    store = getattr(collection, "store", None)
    if isinstance(store, TraceStore):
        return store
    source = getattr(collection, "source", None)
    quads = getattr(source, "store", None)
    if source is not None and hasattr(quads, "quads_for_pattern"):
        return TraceStore(store=quads, documents=SourceTexts(source))  # type: ignore[arg-type]
    return None


def _files(collection: Any, session: Session) -> dict:
    """This user's built files for ``session`` (emptied when another session or collection shows)."""
    scope = (_collection_key(collection), session.id)
    cache = st.session_state.get(_CACHE_KEY)
    if not isinstance(cache, dict) or cache.get("scope") != scope:
        cache = {"scope": scope, "files": {}}
        st.session_state[_CACHE_KEY] = cache
    return cache["files"]


def _cached(files: dict, key: tuple, build: Callable[[], ExportFile]) -> ExportFile:
    """``files[key]``, built first if missing. Runs in the script thread or in Streamlit's
    download thread: plain dict operations only (a race builds a file twice, same bytes)."""
    found = files.get(key)
    if found is None:
        found = build()
        files[key] = found
    return found


def _deferred(files: dict, key: tuple, build: Callable[[], ExportFile]) -> Callable[[], bytes]:
    """A ``data`` callable for ``st.download_button``: the file's bytes, built on click."""
    return lambda: _cached(files, key, build).data


# -- what the tools need ---------------------------------------------------------------------------
def _graphviz_missing() -> str | None:
    if shutil.which("dot") is None:
        return "Graphviz 'dot' is not installed (Debian: apt-get install graphviz)."
    return None


def _vl_convert_missing() -> str | None:
    if importlib.util.find_spec("vl_convert") is None:
        return "vl-convert-python is not installed (pip install -r requirements.txt)."
    return None


def _page_missing() -> str | None:
    missing = [name for name in ("pyvis", "vl_convert") if importlib.util.find_spec(name) is None]
    return f"Needs {' and '.join(missing)} (pip install -r requirements.txt)." if missing else None


# -- the session view --------------------------------------------------------------------------------
def session_exports(session: Session, collection: Any) -> None:
    """The session view's "Export" menu (module docstring). ``collection``: the app's collection,
    read through ``by_id`` (IRI -> Session: the sub-sessions), ``key`` (what it was built from)
    and ``trace_store`` (its quads and texts, for data and PROV)."""
    row = st.container(horizontal=True, horizontal_alignment="right", vertical_alignment="center")
    with row:
        menu = st.popover("Export", icon=":material/download:", key=POPOVER_KEY, on_change="rerun",
                          help="Download this session as images, a page, data or PROV, or copy "
                               "it as Markdown")
    with menu:
        if menu.open:
            _export_menu(session, collection)


def _export_menu(session: Session, collection: Any) -> None:
    # a snapshot: the collection's own map may change while a download builds on another thread
    sessions: dict[str, Session] = dict(collection.by_id)
    sessions.setdefault(session.id, session)
    files = _files(collection, session)
    store = _cached(files, ("store",), lambda: trace_store(collection))
    subs = subjects_sessions(session, sessions)
    # the answer's support as the page shows it: with the chosen chunks' texts the collection holds
    support = answer_support(session, collection) if session.answer else None
    children = True
    if subs:
        children = st.checkbox(
            f"Sub-sessions too ({len(subs)})", value=True, key=CHILDREN_KEY, persist_state="session",
            help="Put the sub-sessions' steps and triples in the page, the data, PROV and "
                 "Markdown. The images show this session's own graph and timeline.")
    images, page, data, prov, markdown = st.tabs(
        ["Images", "Page", "Data", "PROV", "Copy as Markdown"], width=520)
    with images:
        _images_tab(session, sessions, files)
    with page:
        _page_tab(session, sessions, files, children, support)
    with data:
        _data_tab(session, sessions, store, files, children)
    with prov:
        _prov_tab(session, sessions, store, files, children)
    with markdown:
        _markdown_tab(session, sessions, files, children, support)


def _button(label: str, file: ExportFile | tuple[str, str], data: bytes | Callable[[], bytes], key: str,
            icon: str, disabled: str | None = None) -> None:
    name, mime = (file.name, file.mime) if isinstance(file, ExportFile) else file
    st.download_button(label, data, file_name=name, mime=mime, key=key, icon=icon,
                       on_click="ignore", disabled=disabled is not None,
                       help=md_escape(disabled) if disabled else None)


def _images_tab(session: Session, sessions: Mapping[str, Session], files: dict) -> None:
    label = st.segmented_control("Image format", list(IMAGE_FORMATS), default="SVG", required=True,
                                 key=IMAGE_FORMAT_KEY, persist_state="session")
    label = label or "SVG"
    with st.container(horizontal=True, gap="small"):
        for what, title, icon, missing in (
                ("dag", "Provenance graph", ":material/account_tree:", _graphviz_missing()),
                ("timeline", "Timeline", ":material/timeline:", _vl_convert_missing())):
            build = partial(image_file, session, sessions, what, label)
            _button(title, image_target(session, what, label), _deferred(files, (what, label), build),
                    BUTTON_KEYS[what], icon, missing)
    st.caption("The provenance graph as PROV draws it (Graphviz) and the timeline chart. "
               "Built when you click.")


def _page_tab(session: Session, sessions: Mapping[str, Session], files: dict, children: bool,
              support: AnswerSupport | None) -> None:
    st.caption("One HTML file with the interactive DAG, the timeline and every step's details. "
               "It opens in any browser, offline, and loads nothing from the network.")
    build = partial(page_file, session, sessions, children, support)
    _button("HTML page", page_target(session), _deferred(files, ("page", children), build),
            BUTTON_KEYS["page"], ":material/web:", _page_missing())


def _data_tab(session: Session, sessions: Mapping[str, Session], store: TraceStore | None, files: dict,
              children: bool) -> None:
    label = st.segmented_control("Data format", list(DATA_FORMATS), default="TriG", required=True,
                                 key=DATA_FORMAT_KEY, persist_state="session",
                                 help="Wire JSON: TrustGraph's gateway triples. Turtle has no "
                                      "graphs (their triples are merged).")
    label = label or "TriG"
    if store is None:
        st.caption(NO_STORE)
        _button(f"{label} data", (file_stem(session.id) + DATA_FORMATS[label][0], DATA_FORMATS[label][1]),
                b"", BUTTON_KEYS["data"], ":material/dataset:", NO_STORE)
        return
    file = _cached(files, ("data", label, children),
                   partial(data_file, store, session, sessions, label, children))
    st.caption(md_escape(file.note))
    for warning in getattr(file.export, "warnings", []):
        st.warning(md_escape(warning), icon=":material/warning:")
    _button(f"{label} data" + (" + texts (.zip)" if file.mime == ZIP_MIME else ""), file, file.data,
            BUTTON_KEYS["data"], ":material/dataset:")


def _prov_tab(session: Session, sessions: Mapping[str, Session], store: TraceStore | None, files: dict,
              children: bool) -> None:
    label = st.segmented_control("PROV format", list(PROV_FORMATS), default="PROV-N", required=True,
                                 key=PROV_FORMAT_KEY, persist_state="session")
    label = label or "PROV-N"
    if store is None:
        st.caption(NO_STORE)
        _button(label, (file_stem(session.id) + PROV_FORMATS[label][0], PROV_FORMATS[label][1]), b"",
                BUTTON_KEYS["prov"], ":material/schema:", NO_STORE)
        return
    file = _cached(files, ("prov", label, children),
                   partial(prov_file, store, session, sessions, label, children))
    export = file.export
    st.caption(md_escape(file.note))
    warning = unmapped_warning(export, UNMAPPED_SHOWN)
    if warning:
        st.warning(md_escape(warning), icon=":material/warning:")
        if len(export.unmapped) > UNMAPPED_SHOWN:
            st.code("\n".join(nquad_line(q) for q in export.unmapped), language=None, height=200)
    for message in export.warnings:
        st.warning(md_escape(message), icon=":material/warning:")
    _button(label, file, file.data, BUTTON_KEYS["prov"], ":material/schema:")


def _markdown_tab(session: Session, sessions: Mapping[str, Session], files: dict, children: bool,
                  support: AnswerSupport | None) -> None:
    file = _cached(files, ("markdown", children), partial(markdown_file, session, sessions, children, support))
    st.caption("The question, the answer and every step (thought, action, arguments, observation) "
               "as Markdown for a ticket or a chat: the button at the box's top right copies it.")
    st.code(file.data.decode("utf-8"), language="markdown", height=MARKDOWN_BOX_PX, wrap_lines=True)
    _button("Markdown (.md)", file, file.data, BUTTON_KEYS["markdown"], ":material/description:")


# -- the session list ----------------------------------------------------------------------------------
Rows = Sequence[Session | dict] | Callable[[], Iterable[Session | dict]]


def matching_sessions(collection: Any, filters: Any, order: Any = None) -> Callable[[], list[dict]]:
    """A callable giving the summary of every session of ``collection``'s source that passes
    ``filters`` (a ``catalog.SessionFilter``), in the list's order (``order``, a
    ``catalog.SessionOrder``; newest first when None), all pages: read when a download is
    clicked. Reads the source only (thread-safe), never the collection's caches."""
    from trace_explorer.index.catalog import SessionOrder, list_sessions

    source = collection.source

    def read() -> list[dict]:
        return list_sessions(source, filters, limit=0, order=order or SessionOrder()).rows
    return read


def session_list_downloads(sessions: Rows, count: int | None = None) -> None:
    """"Download CSV" / "Download JSON" of the session list with its current filters.

    ``sessions``: the rows (Sessions or their summaries, in the list's order) or a callable that reads them, called
    only when a button is clicked (``matching_sessions``); ``count``: how many there are (for the
    tooltip; no rows disables the buttons), by default ``len(sessions)``."""
    if not callable(sessions):
        rows = list(sessions)
        sessions, count = (lambda: rows), len(rows)
    what = (f"the {count:,} session{'s' if count != 1 else ''} matching the current filters (every page)"
            if count is not None else "the sessions matching the current filters")
    with st.container(horizontal=True, gap="small"):
        for label, name, mime, kind in (("Download CSV", LIST_CSV_NAME, CSV_MIME, "csv"),
                                        ("Download JSON", LIST_JSON_NAME, JSON_MIME, "json")):
            st.download_button(label, partial(_list_bytes, sessions, kind), file_name=name, mime=mime,
                               key=BUTTON_KEYS["list_" + kind], icon=":material/download:",
                               on_click="ignore", type="tertiary", disabled=count == 0,
                               help=f"{name}: {what}, one row each")


def _list_bytes(read: Callable[[], Iterable[Session | dict]], kind: str) -> bytes:
    return list_file(read(), kind).data
