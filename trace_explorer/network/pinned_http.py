"""HTTP sessions that connect only where the endpoint policy looked, and under a deadline.

``EndpointPolicy.pin`` resolves a host and checks every address; a plain ``requests`` session
would resolve the name again when it connects, and a DNS server that answers differently the
second time (DNS rebinding) would lead it to an address never checked. A session made here by
``pinned_session`` connects to the checked addresses themselves, and to no other host, while
the URL keeps its name: the ``Host`` header, TLS SNI and certificate verification use the name,
as they would without pinning.

Every connection also registers its socket with the deadline of the exchange in progress
(``http_deadline``), so the deadline can end a read blocked on it.
"""

from __future__ import annotations

from collections.abc import Mapping

from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from .http_deadline import attach_to_current

Pins = Mapping[tuple[str, int], tuple[str, ...]]  # (host, port) -> the addresses checked for it


class _GuardedConnection:
    """Mixed into urllib3's connections: connects to the pinned addresses of its host (when the
    session has pins) and attaches every socket it uses to the current deadline."""

    pins: Pins = {}

    def _new_conn(self):
        if not self.pins:
            sock = super()._new_conn()
        else:
            sock = self._pinned_conn()
        attach_to_current(sock, duplicate=True)  # a TLS wrap detaches this object: the duplicate stays
        return sock

    def _pinned_conn(self):
        host = self._dns_host.rstrip(".").strip("[]").lower()
        addresses = self.pins.get((host, int(self.port)))
        if not addresses:
            raise NewConnectionError(self, f"{host}:{self.port} is not the host this connection was checked for")
        named, failure = self._dns_host, None
        try:
            for address in addresses:
                self._dns_host = address  # the socket goes to the checked address; Host, SNI keep the name
                try:
                    return super()._new_conn()
                except (NewConnectionError, ConnectTimeoutError) as error:
                    failure = error
        finally:
            self._dns_host = named
        raise failure

    def connect(self):
        super().connect()
        attach_to_current(self.sock)  # for https, the TLS socket wrapped around the one above

    def request(self, *args, **kwargs):
        attach_to_current(self.sock)  # a connection reused from the pool
        return super().request(*args, **kwargs)


def pinned_session(pins: Pins | None = None):
    """A ``requests.Session`` whose connections go only to ``pins`` (``{(host, port):
    (address, ...)}``, host lowercased, IPv6 without brackets) when given, else where DNS
    says; in both cases under the current deadline, with no retries. With pins, proxies from
    the environment are not used (a proxy would resolve the name itself)."""
    import requests
    from requests.adapters import HTTPAdapter

    class GuardedAdapter(HTTPAdapter):
        def init_poolmanager(self, *args, **kwargs):
            super().init_poolmanager(*args, **kwargs)
            plain = type("GuardedHTTPConnection", (_GuardedConnection, HTTPConnection), {"pins": dict(pins or {})})
            tls = type("GuardedHTTPSConnection", (_GuardedConnection, HTTPSConnection), {"pins": dict(pins or {})})
            self.poolmanager.pool_classes_by_scheme = {
                "http": type("GuardedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": plain}),
                "https": type("GuardedHTTPSPool", (HTTPSConnectionPool,), {"ConnectionCls": tls})}

    session = requests.Session()
    adapter = GuardedAdapter(max_retries=0)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    if pins:
        session.trust_env = False
    return session
