"""Uploaded files kept on the server under their digest (``trace_explorer.read.upload_cache``),
so that the address ``?files=<digest>`` opens them again: after a reload, in a new tab, from a
shared link. A set is read back exactly as an upload is (``KeptFile``). Each set is kept under
its owner (``owner_id``: the signed-in user, else the browser session), whose quota it counts
toward, and whose own older sets make room for it first."""

from __future__ import annotations

import hashlib
import logging
import secrets

import streamlit as st

from trace_explorer.read.limits import format_size
from trace_explorer.read.upload_cache import (DAY_S, InvalidDigest, UploadCache, UploadsGone, UploadsTooLarge,
                                              cache_from_settings)

from .configured_sources import sources_config

FILES_PARAM = "files"
_OWNER_KEY = "te_upload_owner"  # this browser session's id, when nobody is signed in
_log = logging.getLogger(__name__)


def upload_cache() -> UploadCache:
    """The deployment's upload cache (environment, else the config file's ``[uploads]``)."""
    probe = cache_from_settings(dict(sources_config()[0].uploads))
    return _cache(str(probe.root), probe.max_bytes, probe.max_age_s, probe.quota)


@st.cache_resource(show_spinner=False, max_entries=4)
def _cache(root: str, max_bytes: int, max_age_s: float, quota: int) -> UploadCache:
    from pathlib import Path

    return UploadCache(Path(root), max_bytes, max_age_s, max_owner_bytes=quota)


def signed_in_email() -> str | None:
    """The signed-in user's email (Streamlit's ``st.user``), or None when sign-in is not
    configured or nobody is signed in (``st.user`` then says it is not logged in, has no email,
    or cannot be read)."""
    try:
        if not st.user.get("is_logged_in"):
            return None
        email = st.user.get("email")
    except Exception:  # noqa: BLE001 - no sign-in configured, or a test runner without it
        return None
    return email.strip().lower() if isinstance(email, str) and email.strip() else None


def owner_id() -> str:
    """Whose uploads these are, for the upload cache's quota: a digest of the signed-in user's
    email, else of an id of this browser session (a new tab or a reload keeps it, another
    browser does not). Opaque: the folder never holds an email."""
    email = signed_in_email()
    who = f"user:{email}" if email else "session:" + st.session_state.setdefault(_OWNER_KEY, secrets.token_hex(16))
    return hashlib.sha256(who.encode("utf-8")).hexdigest()[:32]


def limits_text() -> str:
    """The cache's limits for people: "kept for 7 days after their last use, at most 512 MiB of
    yours and 2 GiB for everyone's uploads"."""
    cache = upload_cache()
    days = cache.max_age_s / DAY_S
    age = f"{days:g} day{'s' if days != 1 else ''}"
    return (f"kept for {age} after their last use, at most {format_size(cache.quota)} of yours and "
            f"{format_size(cache.max_bytes)} for everyone's uploads")


def keep(files: list[tuple[str, bytes]]) -> tuple[str | None, str | None]:
    """Keep ``files`` ((name, bytes)) as one set of this visitor's (``owner_id``): (its digest,
    None), or (None, why not)."""
    try:
        return upload_cache().put(files, owner=owner_id()), None
    except UploadsTooLarge as error:
        return None, f"Your files are shown, but not kept for a reload or a link: {error}."
    except OSError as error:
        _log.warning("keeping uploads failed: %s", error)
        return None, "Your files are shown, but this server could not keep them for a reload or a link."


def kept_bytes(digest: str | None) -> list[tuple[str, bytes]]:
    """The files of set ``digest`` ((name, bytes)); [] when there is none or it is gone."""
    if not digest:
        return []
    try:
        return upload_cache().open(digest)
    except (InvalidDigest, UploadsGone, OSError):
        return []


class KeptFile:
    """A kept file as the uploader gives one (``name``, ``size``, ``getvalue()``), so that it is
    read exactly as an upload is."""

    def __init__(self, name: str, data: bytes):
        self.name, self.size, self._data = name, len(data), data

    def getvalue(self) -> bytes:
        return self._data


def reopen(digest: str) -> list[KeptFile] | None:
    """The files of set ``digest``; None when the value is not a digest or the set is gone."""
    try:
        return [KeptFile(name, data) for name, data in upload_cache().open(digest)]
    except (InvalidDigest, UploadsGone):
        return None
    except OSError as error:
        _log.warning("reopening uploads failed: %s", error)
        return None


def gone_message() -> str:
    """What the page says when ``?files=`` names no kept set."""
    return ("The files of this link are gone: uploaded files are " + limits_text() + ", and these were "
            "removed (or never uploaded to this server). Upload them again; to keep traces for good, "
            "ingest them into a local store (trace-explorer ingest FILE... --store DIR) and open the "
            "store.")
