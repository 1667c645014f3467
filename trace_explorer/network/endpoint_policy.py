"""Which SPARQL endpoints a deployment lets the app reach.

Without an allowlist, any host on a public address may be used, and loopback, private,
link-local and other non-public addresses are refused, so the explorer cannot be used to reach
inside the network it runs in. With an allowlist (``TRACE_EXPLORER_ENDPOINT_ALLOW``: hosts,
``host:port`` pairs, IP addresses or CIDR ranges, comma-separated), only what it lists may be
reached; listing a loopback or private host is how a deployment opens it. Only ``http`` and
``https`` URLs are accepted. Names are resolved when checked, and every address a name resolves
to must pass. An IPv6 address that carries an IPv4 one (IPv4-mapped ``::ffff:0:0/96``,
IPv4-compatible ``::/96``, NAT64 ``64:ff9b::/96``, 6to4 ``2002::/16``) is public only when the
IPv4 address it carries is; the local-use NAT64 prefix ``64:ff9b:1::/48`` never is.

``pin`` returns the addresses it checked: the app connects to those and no others
(``pinned_http``), so a name that resolves elsewhere the second time (DNS rebinding) cannot
lead a request past the check.

When the app itself is served on this machine's loopback only (``served_on_loopback_only``:
no one else can reach it), the person using it is on this machine, and a gateway running
beside it (TrustGraph's own ``http://localhost:8888/``) is theirs to reach: the policy's
``loopback`` then lets loopback addresses (``127.0.0.0/8``, ``::1``) through, with or without an
allowlist. Private, link-local and other non-public addresses stay refused. An app served to
other machines keeps loopback closed, so that no visitor reaches the services of the machine
it runs on.

A source the operator configured (``trace_explorer.sources.configured``) is reachable
whatever the rest says, loopback included: ``configured`` holds its URLs.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit


ALLOWLIST_VARIABLE = "TRACE_EXPLORER_ENDPOINT_ALLOW"
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: the IPv4 address is the last 32 bits
NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: local use, never public
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # RFC 4291 2.5.5.1 (deprecated): the last 32 bits



def same_endpoint(a: str, b: str) -> bool:
    """Whether URLs ``a`` and ``b`` name the same endpoint: scheme, host and port (the
    scheme's default when absent) equal, paths equal but for a trailing slash; no user info."""
    try:
        x, y = urlsplit(a.strip()), urlsplit(b.strip())
        ports = (x.port or (443 if x.scheme == "https" else 80), y.port or (443 if y.scheme == "https" else 80))
    except ValueError:
        return False
    return (x.scheme.lower() == y.scheme.lower() and bool(x.hostname) and x.hostname == y.hostname
            and ports[0] == ports[1] and x.path.rstrip("/") == y.path.rstrip("/") and not (y.username or y.password)
            and not y.query and not y.fragment)

class EndpointRefused(ValueError):
    """The endpoint URL is not one this deployment may reach; the message says why."""


@dataclass(frozen=True)
class PinnedEndpoint:
    """A URL the policy let through: its ``host`` (lowercased, IPv6 without brackets), ``port``
    and the ``addresses`` it checked (strings), which are the only ones to connect to."""

    url: str
    host: str
    port: int
    addresses: tuple[str, ...]

    @property
    def pins(self) -> dict[tuple[str, int], tuple[str, ...]]:
        """``{(host, port): addresses}``, as ``pinned_http.pinned_session`` takes them."""
        return {(self.host, self.port): self.addresses}


def is_public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether ``address`` is a public one: globally routable, and for an IPv6 address that
    carries an IPv4 one, that IPv4 address too (module docstring)."""
    if not address.is_global:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        if address in NAT64_LOCAL:
            return False
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and (address in NAT64 or address in IPV4_COMPATIBLE):
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None and not embedded.is_global:
            return False
    return True


def is_loopback(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether ``address`` is this machine's loopback (``127.0.0.0/8``, ``::1``, or an
    IPv4-mapped ``::ffff:127.x.x.x``)."""
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def served_on_loopback_only(server_address: str | None) -> bool:
    """Whether an app bound to ``server_address`` (Streamlit's ``server.address`` option) is
    reachable from this machine alone: ``localhost`` or a loopback IP address. Empty, None,
    ``0.0.0.0`` and ``::`` mean every interface, and any other name or address is one that
    others may reach: False."""
    value = (server_address or "").strip().strip("[]").lower()
    if value == "localhost":
        return True
    try:
        return is_loopback(ipaddress.ip_address(value))
    except ValueError:
        return False


@dataclass(frozen=True)
class EndpointPolicy:
    """``allow``: hosts, ``host:port``, IP addresses or CIDR ranges (empty: public hosts only);
    ``configured``: the URLs of configured sources, always allowed; ``loopback``: the app is
    served on loopback only, so this machine's loopback addresses are allowed (module
    docstring)."""

    allow: tuple[str, ...] = ()
    configured: tuple[str, ...] = ()
    loopback: bool = False

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> EndpointPolicy:
        """The policy configured by ``TRACE_EXPLORER_ENDPOINT_ALLOW`` (comma-separated)."""
        value = (environ if environ is not None else os.environ).get(ALLOWLIST_VARIABLE, "")
        return cls(tuple(item.strip().lower() for item in value.split(",") if item.strip()))

    def check(self, url: str, resolve=socket.getaddrinfo) -> str:
        """Return ``url`` when it may be reached; raise EndpointRefused otherwise."""
        return self.pin(url, resolve).url

    def pin(self, url: str, resolve=socket.getaddrinfo) -> PinnedEndpoint:
        """``url`` with the addresses checked for it, when it may be reached (``resolve``:
        ``socket.getaddrinfo`` or a stand-in); raise EndpointRefused otherwise."""
        parts = urlsplit(url.strip())
        if parts.username or parts.password:  # first: the URL, which holds a secret, is not quoted
            raise EndpointRefused("put credentials in the user/password or token fields, not in the URL")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise EndpointRefused(f"{url!r:.200}: only http:// and https:// URLs with a host are accepted")
        host = parts.hostname.lower()
        port = parts.port or (443 if parts.scheme == "https" else 80)
        addresses = self._addresses(host, port, resolve)
        pinned = PinnedEndpoint(url, host.strip("[]"), port, tuple(str(a) for a in addresses))
        if any(same_endpoint(known, url) for known in self.configured):
            return pinned
        if self.loopback and addresses and all(is_loopback(a) for a in addresses):
            return pinned
        if self.allow:
            if self._listed(host, port, addresses):
                return pinned
            raise EndpointRefused(f"{host}:{port} is not in this deployment's endpoint allowlist")
        blocked = [a for a in addresses if not is_public(a)]
        if blocked:
            why = ("; this app is served to other machines, so its own machine's services are closed to them"
                   if all(is_loopback(a) for a in blocked) and not self.loopback else "")
            raise EndpointRefused(
                f"{host} resolves to a non-public address ({blocked[0]}){why}; a deployment opens such "
                f"hosts by listing them in {ALLOWLIST_VARIABLE}")
        return pinned

    def _listed(self, host: str, port: int, addresses: list) -> bool:
        for item in self.allow:
            if item in (host, f"{host}:{port}"):
                return True
            try:
                network = ipaddress.ip_network(item, strict=False)
            except ValueError:
                continue
            if addresses and all(a in network for a in addresses):
                return True
        return False

    @staticmethod
    def _addresses(host: str, port: int, resolve) -> list:
        try:
            return [ipaddress.ip_address(host.strip("[]"))]
        except ValueError:
            pass
        try:
            infos = resolve(host, port, proto=socket.IPPROTO_TCP)
        except (OSError, UnicodeError) as error:
            raise EndpointRefused(f"{host} cannot be resolved ({error})") from None
        return sorted({ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos}, key=str)
