"""The endpoint allowlist: loopback and private ranges refused unless listed."""

from __future__ import annotations

import socket

import pytest

from trace_explorer.sources.endpoint_policy import EndpointPolicy, EndpointRefused


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


def test_public_hosts_pass_without_an_allowlist():
    assert EndpointPolicy().check("https://sparql.example.org/sparql", resolve=DNS)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://sparql.example.org/", "gopher://x", "http:///nohost",
                                 "http://user:pw@sparql.example.org/sparql"])
def test_other_schemes_and_credentials_in_urls_are_refused(url):
    with pytest.raises(EndpointRefused):
        EndpointPolicy().check(url, resolve=DNS)


def test_an_allowlist_opens_listed_hosts_and_closes_everything_else():
    policy = EndpointPolicy.from_environment({"TRACE_EXPLORER_ENDPOINT_ALLOW": "127.0.0.1:8890, intranet.example.org,10.9.0.0/16"})
    assert policy.check("http://127.0.0.1:8890/sparql", resolve=DNS)
    assert policy.check("http://intranet.example.org/sparql", resolve=DNS)
    assert policy.check("http://10.9.4.4/sparql", resolve=DNS)
    for refused in ("http://127.0.0.1:8891/sparql", "https://sparql.example.org/sparql", "http://10.8.0.1/"):
        with pytest.raises(EndpointRefused, match="allowlist"):
            policy.check(refused, resolve=DNS)
