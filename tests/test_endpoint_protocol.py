"""What the endpoint source sends over the SPARQL 1.1 Protocol: basic or bearer authentication,
the named graphs as ``default-graph-uri``, queries only; and a timeout that ends a request to a
server that does not answer. A small HTTP server in the test records each request."""

from __future__ import annotations

import base64
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest

from tests.loopback_server import serve_in_thread
from trace_explorer.cli.main import main
from trace_explorer.sources.endpoint import EndpointSource
from trace_explorer.sources.source import SourceError

RESULT = {"head": {"vars": ["n"]}, "results": {"bindings": [{"n": {"type": "literal", "value": "0"}}]}}


@pytest.fixture
def endpoint():
    """``(url, requests)``: a SPARQL endpoint on loopback answering every query with one row, and
    the list of what each request carried; a query containing "SLOW" is answered after 3 s."""
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
            form = parse_qs(body)
            seen.append({"authorization": self.headers.get("Authorization"), "form": form})
            if "SLOW" in form.get("query", [""])[0]:
                time.sleep(3)
            data = json.dumps(RESULT).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the slow query's client gave up first (the timeout under test)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    serve_in_thread(server)
    yield f"http://127.0.0.1:{server.server_address[1]}/sparql", seen
    server.shutdown()


def test_basic_and_bearer_authentication_and_graphs_are_sent(endpoint):
    url, seen = endpoint
    EndpointSource(url, graphs=("urn:graph:retrieval", "urn:g2"), user="ana", password="s3cret").select("SELECT ?n {}")
    EndpointSource(url, token="tok-123").select("SELECT ?n {}")
    assert seen[0]["authorization"] == "Basic " + base64.b64encode(b"ana:s3cret").decode()
    assert seen[0]["form"]["default-graph-uri"] == ["urn:graph:retrieval", "urn:g2"]
    assert seen[0]["form"]["query"] == ["SELECT ?n {}"]
    assert seen[1]["authorization"] == "Bearer tok-123" and "default-graph-uri" not in seen[1]["form"]


def test_the_cli_takes_its_credentials_from_the_environment(endpoint, monkeypatch, capsys):
    url, seen = endpoint
    monkeypatch.setenv("TRACE_EXPLORER_PASSWORD", "pw")
    monkeypatch.setenv("MY_TOKEN", "abc")
    assert main(["list", "--endpoint", url, "--user", "bob", "--graph", "urn:graph:retrieval"]) == 0
    assert main(["list", "--endpoint", url, "--token-env", "MY_TOKEN"]) == 0
    basic = "Basic " + base64.b64encode(b"bob:pw").decode()
    assert seen and {r["authorization"] for r in seen} == {basic, "Bearer abc"}
    assert all(r["form"]["default-graph-uri"] == ["urn:graph:retrieval"] for r in seen if r["authorization"] == basic)
    # a variable named but not set is an error, not a silent request without the token
    asked = len(seen)
    monkeypatch.delenv("MY_TOKEN")
    assert main(["list", "--endpoint", url, "--token-env", "MY_TOKEN"]) == 2
    assert capsys.readouterr().err == ("trace-explorer: --token-env MY_TOKEN: expected that environment variable to "
                                       "hold the endpoint's token; it is not set\n")
    assert len(seen) == asked


def test_a_server_that_does_not_answer_is_given_up_after_the_timeout(endpoint):
    # (how soon: benchmarks/long_sessions.py)
    url, _ = endpoint
    with pytest.raises(SourceError) as raised:
        EndpointSource(url, timeout=0.5).select("SELECT ?n { # SLOW\n}")
    assert str(raised.value) == f"endpoint {url}: no complete answer within 0.5 s"


def test_an_update_never_leaves(endpoint):
    url, seen = endpoint
    with pytest.raises(SourceError, match="refused"):
        EndpointSource(url).select("DELETE WHERE { ?s ?p ?o }")
    assert seen == []


@pytest.fixture
def redirecting(endpoint):
    """``(url, target_requests)``: an endpoint that answers every request with a 307 to the
    recording ``endpoint`` (which could be any address, past the deployment's policy)."""
    target, seen = endpoint

    class Redirect(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(307)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    serve_in_thread(server)
    yield f"http://127.0.0.1:{server.server_address[1]}/sparql", seen
    server.shutdown()


def test_a_redirect_is_not_followed(redirecting):
    url, target_seen = redirecting
    with pytest.raises(SourceError) as raised:
        EndpointSource(url, user="ana", password="s3cret").select("SELECT ?n {}")
    assert str(raised.value).startswith(f"endpoint {url}: HTTP 307")
    assert target_seen == []  # neither the query nor the credentials went on


def test_the_apps_user_password_and_token_fields_reach_the_endpoint(endpoint, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from tests.test_app import REPO

    url, seen = endpoint
    monkeypatch.setenv("TRACE_EXPLORER_ENDPOINT_ALLOW", "127.0.0.1")
    monkeypatch.delenv("TRACE_EXPLORER_STORE", raising=False)

    def connect(user: str, secret: str, bearer: bool) -> dict:
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
        at.sidebar.segmented_control(key="te_source_kind").set_value("SPARQL endpoint").run()
        at.sidebar.text_input(key="te_endpoint_url").set_value(url)
        at.sidebar.text_input(key="te_endpoint_user").set_value(user)
        at.sidebar.text_input(key="te_endpoint_secret").set_value(secret)
        if bearer:
            at.sidebar.checkbox(key="te_endpoint_bearer").check()
        seen.clear()
        at.sidebar.button(key="te_endpoint_connect").click().run()
        assert not at.exception, at.exception
        assert at.sidebar.text_input(key="te_endpoint_secret").proto.type == at.sidebar.text_input(
            key="te_endpoint_secret").proto.PASSWORD  # typed out of sight
        assert seen, "the app sent nothing"
        return seen[0]

    basic = connect("ana", "s3cret", bearer=False)
    assert basic["authorization"] == "Basic " + base64.b64encode(b"ana:s3cret").decode()
    assert connect("", "tok-123", bearer=True)["authorization"] == "Bearer tok-123"
    assert connect("ana", "tok-123", bearer=True)["authorization"] == "Bearer tok-123"  # the user is not sent
    assert connect("", "", bearer=False)["authorization"] is None
