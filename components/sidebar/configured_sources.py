"""The deployment's configured sources (``trace_explorer.sources.configured``), read once per
change of the config file, and the endpoint policy that lets them through."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from pathlib import Path

import streamlit as st

from trace_explorer.sources.configured import (DEFAULT_PATH, SOURCES_VARIABLE, SourcesConfig, SourcesConfigError,
                                               load_sources)
from trace_explorer.network.endpoint_policy import EndpointPolicy, served_on_loopback_only

OTHER = "Another (enter it)"  # the choice beside the configured sources' names
TIMEOUT_LABEL = "Timeout per request (s)"  # the typed-in sources' forms: each request, its answer read whole
_log = logging.getLogger(__name__)


def sources_config() -> tuple[SourcesConfig, str | None]:
    """The configured sources and what is wrong with the config file, if anything (for the page:
    the file is called "the sources file", its path going to the log only): an entry that
    cannot be used is left out and named, the others kept; a file that cannot be read at all
    leaves only the environment's TrustGraph, if any."""
    named = os.environ.get(SOURCES_VARIABLE, "").strip()
    # the environment too: TRUSTGRAPH_URL, and the variables that entries name for their secrets
    return _load(*config_key(Path(named).expanduser() if named else Path.cwd() / DEFAULT_PATH))


def config_key(path: Path) -> tuple[str, int | None, int]:
    """What a configuration read from the file ``path`` and the environment depends on: the
    path, its modification time (None: no such file) and a hash of the environment (a cache
    key: the configuration is read again when either changes)."""
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        stamp = None
    return str(path), stamp, hash(frozenset(os.environ.items()))


@st.cache_resource(show_spinner=False, max_entries=4)
def _load(path: str, stamp: int | None, environment: int) -> tuple[SourcesConfig, str | None]:
    try:
        config = load_sources()
        for problem in config.problems:
            _log.warning("configured sources: %s", problem)
        return config, _unplaced("; ".join(config.problems), path) or None
    except SourcesConfigError as error:
        _log.warning("configured sources: %s", error)
        without_file = {k: v for k, v in os.environ.items() if k != SOURCES_VARIABLE}
        try:
            config = load_sources(without_file, cwd=Path("/nonexistent-config-dir"))
        except SourcesConfigError:
            config = SourcesConfig()
        return config, _unplaced(str(error), path)


def _unplaced(message: str, path: str) -> str:
    """``message`` for the page: the file's path (a server detail, kept for the log) said as
    "the sources file"."""
    return message.replace(path, "the sources file")


def endpoint_policy() -> EndpointPolicy:
    """``TRACE_EXPLORER_ENDPOINT_ALLOW``'s policy, with the configured sources' URLs allowed, and
    this machine's loopback when the app is served on loopback only (Streamlit's
    ``server.address``: empty, ``0.0.0.0`` or ``::`` is every interface)."""
    return dataclasses.replace(EndpointPolicy.from_environment(), configured=sources_config()[0].urls(),
                               loopback=served_on_loopback_only(st.get_option("server.address")))


def typed_in_form(key: str, typed: bool):
    """A context for a source's fields: a borderless form (Connect its submit button) when they
    are typed in, else nothing. In a form every field's value goes with the click, typed or not
    yet committed: a password field left by Tab (through its show-password button) never commits
    its value on its own, so a token typed and left that way used to reach the gateway empty or
    stale (HTTP 401). Its labels carry no help icon either: an icon takes a Tab of its own."""
    return st.form(key, border=False, enter_to_submit=True) if typed else contextlib.nullcontext()
