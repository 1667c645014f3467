"""The endpoint allowlist: loopback and private ranges refused unless listed."""

from __future__ import annotations

import socket

import pytest

from tests.loopback_server import serve_in_thread
from trace_explorer.network.endpoint_policy import EndpointPolicy, EndpointRefused, served_on_loopback_only


def fake_dns(table):
    def resolve(host, port, proto=0):
        if host not in table:
            raise socket.gaierror("unknown host")
        return [(socket.AF_INET, socket.SOCK_STREAM, proto, "", (address, port)) for address in table[host]]
    return resolve


DNS = fake_dns({"sparql.example.org": ["93.184.216.34"], "intranet.example.org": ["10.1.2.3"],
                "sneaky.example.org": ["93.184.216.34", "127.0.0.1"]})


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8890/sparql", "http://localhost/sparql", "http://[::1]/sparql", "http://10.0.0.5/sparql",
    "http://192.168.1.1/sparql", "http://172.16.0.1/sparql", "http://169.254.169.254/latest", "http://0.0.0.0/",
    "http://intranet.example.org/sparql", "http://sneaky.example.org/sparql",
])
def test_non_public_addresses_are_refused_by_default(url):
    with pytest.raises(EndpointRefused, match="non-public|resolve"):
        EndpointPolicy().check(url, resolve=fake_dns({"localhost": ["127.0.0.1"], **{h: a for h, a in [
            ("intranet.example.org", ["10.1.2.3"]), ("sneaky.example.org", ["93.184.216.34", "127.0.0.1"])]}}))


@pytest.mark.parametrize("allow", ["", "sparql.example.org"])
def test_loopback_opens_when_the_app_is_served_on_loopback_only(allow):
    policy = EndpointPolicy.from_environment({"TRACE_EXPLORER_ENDPOINT_ALLOW": allow})
    served_locally = EndpointPolicy(policy.allow, loopback=True)
    resolve = fake_dns({"localhost": ["127.0.0.1", "::1"], "intranet.example.org": ["10.1.2.3"],
                        "sneaky.example.org": ["93.184.216.34", "127.0.0.1"]})
    for url in ("http://localhost:8888/", "http://127.0.0.2:8888/", "http://[::1]:8888/", "http://[::ffff:127.0.0.1]/"):
        assert served_locally.pin(url, resolve=resolve).url == url
        with pytest.raises(EndpointRefused):
            policy.check(url, resolve=resolve)
    for url in ("http://10.0.0.5/", "http://169.254.169.254/latest", "http://0.0.0.0/", "http://intranet.example.org/",
                "http://sneaky.example.org/"):  # the rest of the network stays closed
        with pytest.raises(EndpointRefused):
            served_locally.check(url, resolve=resolve)


@pytest.mark.parametrize("address, alone", [
    ("127.0.0.1", True), ("localhost", True), ("::1", True), ("[::1]", True), ("127.0.1.1", True),
    (None, False), ("", False), ("0.0.0.0", False), ("::", False), ("192.168.1.20", False), ("myhost", False),
])
def test_served_on_loopback_only_reads_streamlits_server_address(address, alone):
    assert served_on_loopback_only(address) is alone


def test_public_hosts_pass_without_an_allowlist():
    assert EndpointPolicy().check("https://sparql.example.org/sparql", resolve=DNS)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://sparql.example.org/", "gopher://x", "http:///nohost",
                                 "http://user:pw@sparql.example.org/sparql"])
def test_other_schemes_and_credentials_in_urls_are_refused(url):
    with pytest.raises(EndpointRefused):
        EndpointPolicy().check(url, resolve=DNS)


def test_a_url_with_credentials_is_refused_without_quoting_them():
    with pytest.raises(EndpointRefused) as raised:
        EndpointPolicy().check("ftp://ana:pa55-w0rd-91@sparql.example.org/", resolve=DNS)
    assert "pa55" not in str(raised.value) and "credentials" in str(raised.value)


def test_an_allowlist_opens_listed_hosts_and_closes_everything_else():
    policy = EndpointPolicy.from_environment({"TRACE_EXPLORER_ENDPOINT_ALLOW": "127.0.0.1:8890, intranet.example.org,10.9.0.0/16"})
    assert policy.check("http://127.0.0.1:8890/sparql", resolve=DNS)
    assert policy.check("http://intranet.example.org/sparql", resolve=DNS)
    assert policy.check("http://10.9.4.4/sparql", resolve=DNS)
    for refused in ("http://127.0.0.1:8891/sparql", "https://sparql.example.org/sparql", "http://10.8.0.1/"):
        with pytest.raises(EndpointRefused, match="allowlist"):
            policy.check(refused, resolve=DNS)


@pytest.mark.parametrize("url", [
    "http://[64:ff9b::7f00:1]/sparql", "http://[2002:7f00:1::]/sparql", "http://[::127.0.0.1]/sparql",
    "http://[::ffff:127.0.0.1]/sparql", "http://[64:ff9b::a00:5]/", "http://[2002:a9fe:a9fe::]/latest",
    "http://[64:ff9b:1::808:808]/sparql",
])
def test_ipv6_forms_that_carry_a_private_ipv4_address_are_refused(url):
    with pytest.raises(EndpointRefused, match="non-public"):
        EndpointPolicy().check(url, resolve=DNS)


@pytest.mark.parametrize("url", ["http://[64:ff9b::808:808]/sparql", "http://[2002:808:808::]/sparql"])
def test_ipv6_forms_that_carry_a_public_ipv4_address_pass(url):
    assert EndpointPolicy().check(url, resolve=DNS) == url


def test_pin_returns_the_addresses_it_checked():
    pinned = EndpointPolicy().pin("https://SPARQL.example.org:8443/sparql", resolve=DNS)
    assert pinned.pins == {("sparql.example.org", 8443): ("93.184.216.34",)}
    assert EndpointPolicy().pin("http://[2606:4700::1111]/q", resolve=DNS).pins == {("2606:4700::1111", 80): ("2606:4700::1111",)}


def test_a_pinned_session_connects_to_the_checked_address_whatever_dns_says_later():
    """DNS rebinding: the policy checked ``rebind.example`` -> 127.0.0.1 (listed); the request
    goes to that address (the name does not resolve at all now), keeping the name in Host; a
    request to any other host through the same session is refused."""
    import requests

    from tests.hostile_server import HostileServer
    from trace_explorer.network.pinned_http import pinned_session

    with HostileServer("json", body=b'{"ok": true}') as server:
        policy = EndpointPolicy.from_environment({"TRACE_EXPLORER_ENDPOINT_ALLOW": "127.0.0.0/8"})
        url = f"http://rebind.example:{server.port}/sparql"
        pinned = policy.pin(url, resolve=fake_dns({"rebind.example": ["127.0.0.1"]}))
        with pinned_session(pinned.pins) as session:
            answer = session.post(url, data=b"q", timeout=5)
            assert answer.json() == {"ok": True}
            assert server.requests[0][1]["Host"] == f"rebind.example:{server.port}"
            with pytest.raises(requests.ConnectionError, match="not the host this connection was checked for"):
                session.post(f"http://127.0.0.1:{server.port}/sparql", data=b"q", timeout=5)
    assert len(server.requests) == 1


def test_a_pinned_https_connection_keeps_the_name_for_sni_and_the_certificate(tmp_path):
    """The socket goes to the checked address; TLS still sends the name (SNI) and checks the
    certificate against it: a certificate for another name is refused."""
    import ssl
    import subprocess
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    import requests

    from trace_explorer.network.pinned_http import pinned_session

    def certificate(name: str):
        key, cert = tmp_path / f"{name}.key", tmp_path / f"{name}.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                        str(cert), "-days", "1", "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}"],
                       check=True, capture_output=True)
        return key, cert

    names: list[str | None] = []

    class Hello(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    for served, accepted in (("rebind.example", True), ("other.example", False)):
        key, cert = certificate(served)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        context.sni_callback = lambda sock, name, ctx: names.append(name)
        server = ThreadingHTTPServer(("127.0.0.1", 0), Hello)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        serve_in_thread(server)
        try:
            url = f"https://rebind.example:{server.server_address[1]}/sparql"
            pins = {("rebind.example", server.server_address[1]): ("127.0.0.1",)}
            with pinned_session(pins) as session:
                if accepted:
                    assert session.post(url, data=b"q", timeout=5, verify=str(cert)).text == "ok"
                else:
                    with pytest.raises(requests.exceptions.SSLError, match="rebind.example"):
                        session.post(url, data=b"q", timeout=5, verify=str(cert))
        finally:
            server.shutdown()
            server.server_close()
    assert names == ["rebind.example", "rebind.example"]
