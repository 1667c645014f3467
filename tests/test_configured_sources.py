"""The operator's config file of sources (``trace_explorer.sources.configured``): what each entry
gives, where its secret comes from, the errors that name the file and entry (never a secret),
``TRUSTGRAPH_URL`` as one more source, and the endpoint policy letting configured URLs through
(loopback included) while a typed loopback URL stays refused."""

from __future__ import annotations

import dataclasses
import socket

import pytest

from trace_explorer.network.endpoint_policy import same_endpoint
from trace_explorer.sources.configured import SourcesConfigError, load_sources
from trace_explorer.network.endpoint_policy import EndpointPolicy, EndpointRefused

FILE = """
[uploads]
max_mb = 64

[[trustgraph]]
name = "Production"
url = "https://trustgraph.example.org/"
token_env = "PROD_TOKEN"
flow = "explain"
collection = "research"

[[trustgraph]]
name = "Laptop"
url = "http://127.0.0.1:8888"
token = "inline-secret-91d2"

[[sparql]]
name = "Archive"
url = "https://sparql.example.org/sparql"
graphs = ["urn:graph:retrieval"]
user = "reader"
password_env = "ARCHIVE_PASSWORD"

[[store]]
name = "Team traces"
path = "/srv/traces/store"
"""


def write(tmp_path, text: str):
    path = tmp_path / "sources.toml"
    path.write_text(text, encoding="utf-8")
    return {"TRACE_EXPLORER_SOURCES": str(path), "PROD_TOKEN": "prod-secret-4c1f", "ARCHIVE_PASSWORD": "pw-secret-77a0"}


def test_each_entry_gives_its_source_with_its_secret_from_the_file_or_the_environment(tmp_path):
    config = load_sources(write(tmp_path, FILE))
    production, laptop = config.of_kind("trustgraph")
    assert (production.name, production.url, production.flow, production.collection, production.secret) == (
        "Production", "https://trustgraph.example.org/", "explain", "research", "prod-secret-4c1f")
    assert (laptop.url, laptop.flow, laptop.collection, laptop.secret, laptop.bearer) == (
        "http://127.0.0.1:8888", "default", "default", "inline-secret-91d2", True)
    archive = config.named("sparql", "Archive")
    assert (archive.graphs, archive.user, archive.secret, archive.bearer) == (
        ("urn:graph:retrieval",), "reader", "pw-secret-77a0", False)
    assert config.of_kind("store")[0].path == "/srv/traces/store"
    assert config.store_paths() == ("/srv/traces/store",)
    assert dict(config.uploads) == {"max_mb": 64}
    assert config.serving("trustgraph", "http://127.0.0.1:8888/") is laptop
    assert config.serving("trustgraph", "http://127.0.0.1:8889/") is None
    shown = repr(config) + str(config.sources)
    for secret in ("prod-secret-4c1f", "inline-secret-91d2", "pw-secret-77a0"):
        assert secret not in shown  # never in a log line


def test_trustgraph_url_in_the_environment_is_a_source_as_trustgraphs_own_tools_read_it(tmp_path):
    environ = {"TRUSTGRAPH_URL": "http://localhost:8888/", "TRUSTGRAPH_TOKEN": "env-secret-0b3e",
               "TRUSTGRAPH_FLOW": "explain-flow"}
    config = load_sources(environ, cwd=tmp_path)  # no file at .streamlit/sources.toml: no error
    (source,) = config.sources
    assert (source.name, source.kind, source.url, source.flow, source.collection, source.secret) == (
        "http://localhost:8888/ (TRUSTGRAPH_URL)", "trustgraph", "http://localhost:8888/", "explain-flow", "default",
        "env-secret-0b3e")
    assert config.path is None
    default = tmp_path / ".streamlit" / "sources.toml"
    default.parent.mkdir()
    default.write_text('[[store]]\nname = "Here"\npath = "store"\n')
    assert [s.name for s in load_sources(environ, cwd=tmp_path).sources] == [source.name, "Here"]


GOOD = "[[store]]\nname = 'Kept'\npath = '/srv/store'\n"


@pytest.mark.parametrize("text, expected", [
    ("[[trustgraph]]\nurl = 'http://x/'\n", "[[trustgraph]] number 1: expected a name"),
    ("[[trustgraph]]\nname = 'A'\nurl = 'ftp://x/'\n", "trustgraph source 'A': expected an http:// or https:// url"),
    ("[[trustgraph]]\nname = 'A'\nurl = 'http://x/'\ntoken_env = 'UNSET_TOKEN_VARIABLE'\n",
     "expected the environment variable UNSET_TOKEN_VARIABLE (token_env) to be set"),
    ("[[store]]\nname = 'S'\n", "store source 'S': expected a path"),
    ("[[store]]\nname = 'Kept'\npath = '/elsewhere'\n", "two store sources are called 'Kept'; the second is left out"),
    ("[[sparql]]\nname = 'V'\nurl = 'http://x/'\nquoted_triples = 'no'\n",
     "sparql source 'V': expected quoted_triples to be true or false"),
    ("[[sparql]]\nname = 'V'\nurl = 'http://x/'\nuser = 'me'\npasword_env = 'PW'\n",
     "sparql source 'V': unknown setting 'pasword_env' (expected one of graphs, name, password, password_env, "
     "quoted_triples, timeout_s, token, token_env, url, user); the entry is left out"),
    ("[[trustgraph]]\nname = 'T'\nurl = 'http://x/'\ncolection = 'c'\n", "trustgraph source 'T': unknown setting 'colection'"),
    ("[[sparql]]\nname = 'A'\nurl = 'http://x/'\n[[sparql]]\nname = 'A'\nurl = 'http://y/'\n",
     "two sparql sources are called 'A'; the second is left out"),
    ("trustgraph = 'http://x/'\n", "expected [[trustgraph]] tables, found a single value"),
    ("[[stores]]\nname = 'S'\npath = '/x'\n", "unknown table 'stores'"),
    ("[uploads]\nmax_mb = 'lots'\n", "[uploads]: expected max_mb to be a positive number; the default is used"),
])
def test_a_bad_entry_is_left_out_and_named_and_the_others_kept(tmp_path, text, expected):
    environ = write(tmp_path, text + GOOD)
    config = load_sources(environ)
    assert [s.name for s in config.of_kind("store")] == ["Kept"]
    assert len(config.problems) == 1, config.problems
    assert config.problems[0].startswith(str(tmp_path / "sources.toml")) and expected in config.problems[0]
    if "two sparql" in expected:  # the first of the two is kept
        assert [s.url for s in config.of_kind("sparql")] == ["http://x/"]


def test_a_file_that_is_not_toml_is_an_error(tmp_path):
    environ = write(tmp_path, "[[trustgraph]\nname = 'A'\n")
    with pytest.raises(SourcesConfigError) as error:
        load_sources(environ)
    assert str(error.value).startswith(str(tmp_path / "sources.toml"))
    assert "expected a TOML file of sources" in str(error.value)


def test_a_secret_in_a_bad_entry_is_never_in_the_problem(tmp_path):
    environ = write(tmp_path, "[[trustgraph]]\nname = 'A'\nurl = 'http://x/'\ntoken = 12345678\n")
    (problem,) = load_sources(environ).problems
    assert "expected token to be a string" in problem and "12345678" not in problem


def test_a_named_file_that_is_missing_is_an_error(tmp_path):
    with pytest.raises(SourcesConfigError, match="no such file"):
        load_sources({"TRACE_EXPLORER_SOURCES": str(tmp_path / "missing.toml")})


@pytest.mark.parametrize("a, b, same", [
    ("http://localhost:8888/", "http://localhost:8888", True),
    ("http://localhost/", "http://localhost:80/", True),
    ("https://x.example/sparql", "https://x.example:443/sparql/", True),
    ("http://localhost:8888/", "http://localhost:8889/", False),
    ("http://localhost:8888/", "https://localhost:8888/", False),
    ("http://localhost:8888/", "http://127.0.0.1:8888/", False),
    ("http://x.example/sparql", "http://x.example/other", False),
    ("http://x.example/", "http://user:pw@x.example/", False),
    ("http://x.example/", "http://x.example/?a=b", False),
])
def test_same_endpoint(a, b, same):
    assert same_endpoint(a, b) is same


def loopback(host, port, proto=0):
    return [(socket.AF_INET, socket.SOCK_STREAM, proto, "", ("127.0.0.1", port))]


def test_the_policy_lets_configured_urls_through_and_keeps_refusing_typed_ones():
    policy = dataclasses.replace(EndpointPolicy(), configured=("http://localhost:8888/",))
    assert policy.check("http://localhost:8888", resolve=loopback) == "http://localhost:8888"
    for typed in ("http://localhost:8889/", "http://127.0.0.1:8888/", "http://localhost:8888/admin"):
        with pytest.raises(EndpointRefused, match="non-public"):
            policy.check(typed, resolve=loopback)
    listed = dataclasses.replace(EndpointPolicy(("trustgraph.example.org",)), configured=("http://localhost:8888/",))
    assert listed.check("http://localhost:8888/", resolve=loopback)
    with pytest.raises(EndpointRefused, match="allowlist"):
        listed.check("http://localhost:9999/", resolve=loopback)
