"""A person's own trace files in the sidebar: the uploader and its limit, reading a batch of
uploads into this person's collection (errors kept and said under the drop zone), the files an
address names (``?files=<digest>``), and the demo switched off by a first upload. Also used by
the local store's uploader (``store_source``)."""

from __future__ import annotations

import logging

import streamlit as st

from trace_explorer.read.formats import SUPPORTED_SUFFIXES
from trace_explorer.read.limits import (
    MAX_FILE_VARIABLE,
    MIB,
    file_too_big,
    format_size,
    max_expanded_bytes,
    max_file_bytes,
)

from ..collection import FileRead, read_file
from .kept_uploads import FILES_PARAM, keep, kept_bytes, reopen

DEMO_KEY = "te_demo"


DEMO_OFF_KEY = "te_demo_switched_off"  # the demo was switched off by an upload: say so until it is touched


UPLOAD_KEY = "te_upload"


UPLOADED_KEY = "te_uploaded_files"


ERRORS_KEY = "te_upload_errors"


ERRORS_TOAST_KEY = "te_upload_errors_toast"  # the last batch's errors are yet to be said in a toast


UPLOADER_GEN_KEY = "te_uploader_generation"


DIGEST_KEY = "te_uploads_digest"  # the kept set of this person's uploads


_SEEN_KEY = "te_files_seen"  # the digests this browser session has read or made: never read again


GONE_KEY = "te_files_gone"  # the address named a set that is gone


UPLOAD_TYPES = sorted({s.lstrip(".") for s in SUPPORTED_SUFFIXES} | {"gz"})


STREAMLIT_LIMIT = "server.maxUploadSize in .streamlit/config.toml or STREAMLIT_SERVER_MAX_UPLOAD_SIZE"


_log = logging.getLogger(__name__)


def upload_limit() -> tuple[int, str]:
    """The largest file a person may upload, in bytes, and the setting that makes it so: the
    smaller of Streamlit's ``server.maxUploadSize`` (MB) and ``TRACE_EXPLORER_MAX_FILE_MB``."""
    streamlit_limit = int(float(st.get_option("server.maxUploadSize")) * MIB)
    ours = max_file_bytes()
    return (ours, MAX_FILE_VARIABLE) if ours < streamlit_limit else (streamlit_limit, STREAMLIT_LIMIT)


# Streamlit's drop zone writes the limit rounded to a whole unit of 1,000 (512 MiB shows as
# "1GB per file"): its line is hidden and the true limit said under it (``uploader``).
_DROPZONE_SIZE_STYLE = "<style>[data-testid='stFileUploaderDropzoneInstructions'] span { display: none; }</style>"


def uploader(label: str):
    limit, setting = upload_limit()
    st.html(_DROPZONE_SIZE_STYLE)
    files = st.file_uploader(
        label, type=UPLOAD_TYPES, accept_multiple_files=True,
        key=f"{UPLOAD_KEY}_{st.session_state[UPLOADER_GEN_KEY]}",
        # Streamlit's own limit stays the browser's: a file under it but over ours is sent and
        # gets our message in the sidebar, which outlives the uploader's reset after a batch
        help="Turtle, TriG, N-Quads, N-Triples, JSON-LD, RDF/XML, TrustGraph wire JSON and "
             f"*.documents.json content files, optionally .gz. Several at once, up to {format_size(limit)} "
             f"a file; a .gz may expand to {format_size(max_expanded_bytes())}.")
    st.caption(f"Up to {format_size(limit)} a file (a .gz up to {format_size(max_expanded_bytes())} expanded).")
    return files


def oversized(upload, limit: int, setting: str) -> str | None:
    """The message for an upload over the limit, or None."""
    return str(file_too_big(upload.name, upload.size, limit, setting)) if upload.size > limit else None


def read_upload(upload) -> FileRead:
    """Read one upload through the parse cache; a reader bug is reported, never raised into the page."""
    try:
        return read_file(upload.name, upload.getvalue())
    except Exception as error:  # noqa: BLE001 - a bad file must not become a traceback in the page
        _log.exception("reading the upload %r failed", upload.name)
        return FileRead(upload.name, "", None, f"{upload.name}: expected a trace file this app can read; reading it "
                                                f"failed ({type(error).__name__}: {error})")


def take_uploads(uploads: list, rerun: bool = True) -> None:
    """Read a batch of uploaded files into this user's collection and reset the uploader.

    Files that load are kept (in this session, and on the server under the digest the address
    then carries); the errors of the others (unreadable, or over the upload limit) are shown
    until the next batch."""
    state = st.session_state
    limit, setting = upload_limit()
    reads, errors = [], []
    for upload in uploads:
        refusal = oversized(upload, limit, setting)
        read = None if refusal else read_upload(upload)
        if read is not None and read.loaded is not None:
            reads.append((upload, read))
        errors.append(refusal or (read.error if read is not None else None))
    kept: list[FileRead] = state[UPLOADED_KEY]
    known = {k.key for k in kept}
    good = [(u, r) for u, r in reads if r.key not in known and not known.add(r.key)]
    if good and not kept and state[DEMO_KEY]:
        state[DEMO_KEY] = False  # a person's own traces, instead of the demo: said in the sidebar
        state[DEMO_OFF_KEY] = state["te_demo_toast"] = True
    if good and kept and not state.get(DIGEST_KEY):  # earlier files not kept: a set of these alone would lack them
        state[DIGEST_KEY], refusal = None, "Your files are shown, but not kept for a reload or a link: " \
                                            "earlier files of yours were not kept (Remove my files starts again)."
        errors.append(refusal)
    elif good:
        digest, refusal = keep(kept_bytes(state.get(DIGEST_KEY) if kept else None) +
                               [(u.name, u.getvalue()) for u, _ in good])
        state[DIGEST_KEY] = digest
        state.setdefault(_SEEN_KEY, set()).add(digest)
        errors.append(refusal)
        state.pop(GONE_KEY, None)
    state[UPLOADED_KEY] = kept + [r for _, r in good]
    state[ERRORS_KEY] = [e for e in errors if e]
    state[ERRORS_TOAST_KEY] = bool(state[ERRORS_KEY])
    state[UPLOADER_GEN_KEY] += 1
    if rerun:
        st.rerun()


def read_link() -> None:
    """Read the files the address names (``?files=<digest>``) once per browser session, as an
    upload is read; when they are gone, say so (``GONE_KEY``)."""
    state = st.session_state
    digest = (st.query_params.get(FILES_PARAM) or "").strip().lower()
    seen = state.setdefault(_SEEN_KEY, set())
    if not digest or digest in seen:
        return  # read already, or this session's own (the address may lag behind a rerun)
    seen.add(digest)
    files = reopen(digest)
    state[UPLOADED_KEY], state[DEMO_KEY] = [], False
    if files is None:
        state[GONE_KEY] = True
        st.query_params.pop(FILES_PARAM, None)
        return
    state.pop(GONE_KEY, None)
    take_uploads(files, rerun=False)
    state[DIGEST_KEY] = digest


def demo_touched() -> None:
    st.session_state.pop(DEMO_OFF_KEY, None)
    st.session_state.pop(GONE_KEY, None)


def remove_uploads() -> None:
    st.session_state[UPLOADED_KEY] = []
    st.session_state.pop(DIGEST_KEY, None)
    st.session_state[ERRORS_KEY] = []
    st.session_state[DEMO_KEY] = True
