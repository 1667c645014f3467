"""Which SPARQL endpoints a deployment lets the app reach.

Without an allowlist, any host on a public address may be used, and loopback, private,
link-local and other non-public addresses are refused, so the explorer cannot be used to reach
inside the network it runs in. With an allowlist (``TRACE_EXPLORER_ENDPOINT_ALLOW``: hosts,
``host:port`` pairs, IP addresses or CIDR ranges, comma-separated), only what it lists may be
reached; listing a loopback or private host is how a deployment opens it. Only ``http`` and
``https`` URLs are accepted. Names are resolved when checked, and every address a name resolves
to must pass. A source the operator configured (``trace_explorer.sources.configured``) is
reachable whatever the rest says, loopback included: ``configured`` holds its URLs.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from .configured import same_endpoint

ALLOWLIST_VARIABLE = "TRACE_EXPLORER_ENDPOINT_ALLOW"


class EndpointRefused(ValueError):
    """The endpoint URL is not one this deployment may reach; the message says why."""


@dataclass(frozen=True)
class EndpointPolicy:
    """``allow``: hosts, ``host:port``, IP addresses or CIDR ranges (empty: public hosts only);
    ``configured``: the URLs of configured sources, always allowed."""

    allow: tuple[str, ...] = ()
    configured: tuple[str, ...] = ()

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> EndpointPolicy:
        """The policy configured by ``TRACE_EXPLORER_ENDPOINT_ALLOW`` (comma-separated)."""
        value = (environ if environ is not None else os.environ).get(ALLOWLIST_VARIABLE, "")
        return cls(tuple(item.strip().lower() for item in value.split(",") if item.strip()))

    def check(self, url: str, resolve=socket.getaddrinfo) -> str:
        """Return ``url`` when it may be reached; raise EndpointRefused otherwise."""
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise EndpointRefused(f"{url!r:.200}: only http:// and https:// URLs with a host are accepted")
        if parts.username or parts.password:
            raise EndpointRefused("put credentials in the user/password or token fields, not in the URL")
        if any(same_endpoint(known, url) for known in self.configured):
            return url
        host = parts.hostname.lower()
        port = parts.port or (443 if parts.scheme == "https" else 80)
        addresses = self._addresses(host, port, resolve)
        if self.allow:
            if self._listed(host, port, addresses):
                return url
            raise EndpointRefused(f"{host}:{port} is not in this deployment's endpoint allowlist")
        blocked = [a for a in addresses if not a.is_global]
        if blocked:
            raise EndpointRefused(
                f"{host} resolves to a non-public address ({blocked[0]}); a deployment opens such "
                f"hosts by listing them in {ALLOWLIST_VARIABLE}")
        return url

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
