"""Sources an operator names in one config file, as Grafana provisions data sources.

The file is TOML, at the path in ``TRACE_EXPLORER_SOURCES`` (default ``.streamlit/sources.toml``
in the app's working directory; a missing default file means no configured sources, a missing
named file is an error). Visitors pick a source by its name; its credentials stay on the server
(never in the page, the address or a log line: ``ConfiguredSource`` leaves them out of its
``repr``)::

    [uploads]                    # the upload cache (trace_explorer.read.upload_cache)
    folder = "/var/cache/trace-explorer/uploads"
    max_mb = 2048
    max_age_days = 7

    [reviews]                    # reviews (trace_explorer.reviews.settings)
    folder = "/srv/traces/reviews"
    labels = ["correct", "incorrect", "unsupported"]
    author = "night shift"

    [[trustgraph]]               # a TrustGraph API gateway
    name = "Production"
    url = "https://trustgraph.example.org/"
    token_env = "PROD_TRUSTGRAPH_TOKEN"   # or: token = "..."
    flow = "default"             # optional, as are collection, workspace and timeout_s; each one
    collection = "default"       # set here is pinned: visitors cannot change it

    [[sparql]]                   # a SPARQL endpoint
    name = "Archive"
    url = "https://sparql.example.org/sparql"
    graphs = ["urn:graph:retrieval"]
    user = "reader"              # with password / password_env (HTTP Basic),
    password_env = "ARCHIVE_PASSWORD"   # or token / token_env alone (a bearer token)
    quoted_triples = false       # the server cannot hold RDF 1.2 quoted triples (Virtuoso); default true

    [[store]]                    # a local store (a directory)
    name = "Team traces"
    path = "/srv/traces/store"

``TRUSTGRAPH_URL`` (and ``TRUSTGRAPH_TOKEN``) in the environment make one more TrustGraph
source, as TrustGraph's own command-line tools read them; ``TRUSTGRAPH_FLOW`` and
``TRUSTGRAPH_COLLECTION`` name its flow and collection (default ``default``; either one set is
pinned). Flow, collection and workspace ids are TrustGraph's (``trustgraph.ids``). A configured
URL is reachable whatever the endpoint policy says (``EndpointPolicy.configured``), loopback
included: the operator chose it.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ..network.bounded_http import DEFAULT_TIMEOUT_S
from ..network.endpoint_policy import same_endpoint
from .trustgraph.ids import KINDS as ID_KINDS
from .trustgraph.ids import InvalidId, checked_id

SOURCES_VARIABLE = "TRACE_EXPLORER_SOURCES"
DEFAULT_PATH = Path(".streamlit") / "sources.toml"
URL_VARIABLE, TOKEN_VARIABLE = "TRUSTGRAPH_URL", "TRUSTGRAPH_TOKEN"
FLOW_VARIABLE, COLLECTION_VARIABLE = "TRUSTGRAPH_FLOW", "TRUSTGRAPH_COLLECTION"
KINDS = ("trustgraph", "sparql", "store")


class SourcesConfigError(ValueError):
    """The config file cannot be used; the message names the file, the entry and what was
    expected (never a secret's value)."""


@dataclass(frozen=True)
class ConfiguredSource:
    """One named source. ``kind``: "trustgraph", "sparql" or "store"; ``url`` (a gateway's or
    endpoint's) or ``path`` (a store's); ``secret``: the token (bearer) or password, read from
    the file or from the environment variable it names, kept out of ``repr``. A gateway's
    ``flow``, ``collection`` and ``workspace`` named in ``pinned`` were set by the operator and
    are the only ones it is used with; the others are where a visitor starts."""

    name: str
    kind: str
    url: str = ""
    path: str = ""
    flow: str = "default"
    collection: str = "default"
    workspace: str = "default"
    pinned: frozenset[str] = frozenset()  # of "flow", "collection", "workspace": set by the operator
    graphs: tuple[str, ...] = ()
    user: str | None = None
    bearer: bool = True
    timeout_s: float = DEFAULT_TIMEOUT_S
    quoted_triples: bool = True
    secret: str | None = field(default=None, repr=False)

    def serves(self, url: str) -> bool:
        """Whether ``url`` names this source's gateway or endpoint (``same_endpoint``)."""
        return bool(self.url) and same_endpoint(self.url, url)


@dataclass(frozen=True)
class SourcesConfig:
    """The configured sources, in the file's order (the environment's TrustGraph first), and
    the ``[uploads]`` table; ``path``: the file read, if any; ``problems``: why each entry left
    out was left out (naming the file and entry, never a secret); ``reviews``: the ``[reviews]``
    table, as written (``trace_explorer.reviews.settings`` reads it)."""

    sources: tuple[ConfiguredSource, ...] = ()
    uploads: Mapping = field(default_factory=dict)
    path: Path | None = None
    problems: tuple[str, ...] = ()
    reviews: Mapping = field(default_factory=dict)

    def of_kind(self, kind: str) -> list[ConfiguredSource]:
        """The sources of ``kind`` ("trustgraph", "sparql", "store")."""
        return [s for s in self.sources if s.kind == kind]

    def named(self, kind: str, name: str) -> ConfiguredSource | None:
        """The source of ``kind`` called ``name``, or None."""
        return next((s for s in self.of_kind(kind) if s.name == name), None)

    def serving(self, kind: str, url: str) -> ConfiguredSource | None:
        """The first source of ``kind`` whose URL is ``url`` (``same_endpoint``), or None."""
        return next((s for s in self.of_kind(kind) if s.serves(url)), None)

    def urls(self) -> tuple[str, ...]:
        """Every configured gateway's and endpoint's URL (for the endpoint policy)."""
        return tuple(s.url for s in self.sources if s.url)

    def store_paths(self) -> tuple[str, ...]:
        """Every configured store's directory, resolved."""
        return tuple(str(Path(s.path).expanduser().resolve()) for s in self.sources if s.kind == "store")


def load_sources(environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> SourcesConfig:
    """The sources configured by the file (``TRACE_EXPLORER_SOURCES``, default
    ``.streamlit/sources.toml`` under ``cwd``) and by ``TRUSTGRAPH_URL``. Raises
    SourcesConfigError for a file that is named but missing or is not TOML. An entry without
    what it needs (a name, a URL or path, an environment variable it names that is unset), with a
    setting its kind does not know (a misspelt ``pasword_env`` would connect without the
    password), or with a name already used within its kind is left out, the others kept, and
    ``SourcesConfig.problems`` says why."""
    environ = environ if environ is not None else os.environ
    named = environ.get(SOURCES_VARIABLE, "").strip()
    path = Path(named).expanduser() if named else (cwd or Path.cwd()) / DEFAULT_PATH
    table: dict = {}
    if path.is_file():
        try:
            table = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeError, tomllib.TOMLDecodeError) as error:
            raise SourcesConfigError(f"{path}: expected a TOML file of sources ({error})") from None
    elif named:
        raise SourcesConfigError(f"{path}: no such file (named by {SOURCES_VARIABLE})")
    sources: list[ConfiguredSource] = []
    problems: list[str] = []
    if environ.get(URL_VARIABLE, "").strip():
        try:
            sources.append(_from_environment(environ))
        except SourcesConfigError as error:
            problems.append(str(error))
    for key in sorted(set(table) - set(KINDS) - {"uploads", "reviews"}):
        problems.append(f"{path}: unknown table {key!r} (expected [[trustgraph]], [[sparql]], [[store]], "
                        f"[uploads] or [reviews])")
    for kind in KINDS:
        entries = table.get(kind, [])
        if not isinstance(entries, list):
            problems.append(f"{path}: expected [[{kind}]] tables, found a single value")
            continue
        for number, entry in enumerate(entries, 1):
            try:
                source = _entry(path, kind, number, entry, environ)
            except SourcesConfigError as error:
                problems.append(str(error))
                continue
            if any((s.kind, s.name) == (kind, source.name) for s in sources):
                problems.append(f"{path}: two {kind} sources are called {source.name!r}; the second is left out")
                continue
            sources.append(source)
    uploads = table.get("uploads", {})
    if not isinstance(uploads, dict):
        problems.append(f"{path}: expected an [uploads] table")
        uploads = {}
    unknown = sorted(set(uploads) - {"folder", "max_mb", "max_age_days"})
    if unknown:
        problems.append(f"{path}: [uploads]: unknown setting {unknown[0]!r} (expected folder, max_mb, max_age_days)")
    for key in ("max_mb", "max_age_days"):
        if key in uploads and (isinstance(uploads[key], bool) or not isinstance(uploads[key], (int, float))
                               or uploads[key] <= 0):
            problems.append(f"{path}: [uploads]: expected {key} to be a positive number; the default is used")
    reviews = table.get("reviews", {})
    if not isinstance(reviews, dict):
        problems.append(f"{path}: expected a [reviews] table")
        reviews = {}
    return SourcesConfig(tuple(sources), uploads, path if path.is_file() else None, tuple(problems), reviews)


# The settings each kind of entry knows; another is a mistake (a misspelt secret would go unsent).
SETTINGS = {
    "store": {"name", "path"},
    "trustgraph": {"name", "url", "token", "token_env", "flow", "collection", "workspace", "timeout_s"},
    "sparql": {"name", "url", "graphs", "user", "password", "password_env", "token", "token_env", "timeout_s",
               "quoted_triples"},
}


def _from_environment(environ: Mapping[str, str]) -> ConfiguredSource:
    url = environ[URL_VARIABLE].strip()
    variables = {"flow": FLOW_VARIABLE, "collection": COLLECTION_VARIABLE}
    ids = {kind: environ.get(variable, "").strip() for kind, variable in variables.items()}
    for kind, value in ids.items():
        if value:
            _check_ids(f"{variables[kind]} (with {URL_VARIABLE})", {kind: value})
    return ConfiguredSource(f"{url} ({URL_VARIABLE})", "trustgraph", url=url, flow=ids["flow"] or "default",
                            collection=ids["collection"] or "default",
                            pinned=frozenset(kind for kind, value in ids.items() if value),
                            secret=environ.get(TOKEN_VARIABLE) or None)


def _check_ids(where: str, ids: Mapping[str, str]) -> None:
    """Raise SourcesConfigError when one of ``ids`` ({"flow": id, ...}) is not a TrustGraph id."""
    for kind, value in ids.items():
        try:
            checked_id(kind, value)
        except InvalidId as error:
            raise SourcesConfigError(f"{where}: {error}; the entry is left out") from None


def _entry(path: Path, kind: str, number: int, entry, environ: Mapping[str, str]) -> ConfiguredSource:
    where = f"{path}: [[{kind}]] number {number}"
    if not isinstance(entry, dict):
        raise SourcesConfigError(f"{where}: expected a table")

    def text(key: str, default: str | None = None) -> str | None:
        value = entry.get(key, default)
        if value is not None and not isinstance(value, str):
            raise SourcesConfigError(f"{where}: expected {key} to be a string")
        return value.strip() if isinstance(value, str) else value

    name = text("name")
    if not name:
        raise SourcesConfigError(f"{where}: expected a name")
    where = f"{path}: {kind} source {name!r}"
    unknown = sorted(set(entry) - SETTINGS[kind])
    if unknown:
        raise SourcesConfigError(f"{where}: unknown setting {unknown[0]!r} (expected one of "
                                 f"{', '.join(sorted(SETTINGS[kind]))}); the entry is left out")
    if kind == "store":
        if not text("path"):
            raise SourcesConfigError(f"{where}: expected a path (the store's directory)")
        return ConfiguredSource(name, kind, path=text("path"))
    url = text("url")
    if not url or urlsplit(url).scheme not in ("http", "https"):
        raise SourcesConfigError(f"{where}: expected an http:// or https:// url")
    password, token = _secret(where, entry, "password", environ), _secret(where, entry, "token", environ)
    graphs = entry.get("graphs", [])
    if not isinstance(graphs, list) or not all(isinstance(g, str) for g in graphs):
        raise SourcesConfigError(f"{where}: expected graphs to be a list of IRIs")
    try:
        timeout = float(entry.get("timeout_s", DEFAULT_TIMEOUT_S))
    except (TypeError, ValueError):
        raise SourcesConfigError(f"{where}: expected timeout_s to be a number of seconds") from None
    quoted = entry.get("quoted_triples", True)
    if not isinstance(quoted, bool):
        raise SourcesConfigError(f"{where}: expected quoted_triples to be true or false")
    ids = {key: text(key) for key in ID_KINDS if kind == "trustgraph" and text(key)}
    _check_ids(where, ids)
    return ConfiguredSource(name, kind, url=url, flow=ids.get("flow", "default"),
                            collection=ids.get("collection", "default"), workspace=ids.get("workspace", "default"),
                            pinned=frozenset(ids), graphs=tuple(graphs),
                            user=text("user"), bearer=password is None, timeout_s=timeout, quoted_triples=quoted,
                            secret=token if password is None else password)


def _secret(where: str, entry: dict, key: str, environ: Mapping[str, str]) -> str | None:
    """``entry[key]``, or the environment variable ``entry[key + "_env"]`` names."""
    variable = entry.get(f"{key}_env")
    if variable is not None:
        if not isinstance(variable, str) or not environ.get(variable):
            raise SourcesConfigError(f"{where}: expected the environment variable {variable!s:.80} "
                                     f"({key}_env) to be set")
        return environ[variable]
    value = entry.get(key)
    if value is not None and not isinstance(value, str):
        raise SourcesConfigError(f"{where}: expected {key} to be a string")
    return value or None
