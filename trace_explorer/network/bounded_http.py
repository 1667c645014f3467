"""One HTTP POST to a server the app does not control, read with limits: a byte cap on the
answer, one deadline for the whole exchange (connect, wait, every read), a streamed read that
stops at either, and the connection closed on the way out.

What a hostile server gets: a huge or endless body stops at the cap (``TRACE_EXPLORER_
RESPONSE_MAX_MB``, 128 MiB by default) with one error line and no more memory than the cap; a
body that drips a byte at a time stops at the deadline (``http_deadline``); the connection of
an answer not read to its end is closed, never reused. An error answer (not HTTP 200) is read
to 16 KiB at most, for its message.

A connection that fails is named by its real cause (``connection_cause``): refused, reset,
closed with no answer, a name that does not resolve. Reset and closed connections are what a
busy server whose queue of connections is full does to some of them; ``HttpFailure.transient``
marks those (and refused ones) as worth another try (``read_retry``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from .http_deadline import Deadline
from ..read.errors import SourceError

MAX_BYTES_VARIABLE = "TRACE_EXPLORER_RESPONSE_MAX_MB"
DEFAULT_MAX_MB = 128
# the default deadline of one exchange with a server, s: a hostile one costs a request at most this
DEFAULT_TIMEOUT_S = 25.0
ERROR_BODY_BYTES = 16 * 1024  # what is read of an error answer, for its message
READ_CHUNK = 16 * 1024  # bytes per streamed read (and the most a compressed read expands at once is bounded by it)


class HttpFailure(SourceError):
    """The exchange failed: no connection, the deadline passed, or the answer was larger than
    the cap. The message says which, without naming the server (the caller does).
    ``transient``: the connection was refused, reset or closed before an answer, so the same
    request may succeed when sent again."""

    def __init__(self, message: str, transient: bool = False):
        super().__init__(message)
        self.transient = transient


# (exception class name, what happened, whether another try may succeed), first match wins
_CAUSES = (
    ("ConnectionRefusedError", "the server refused the connection: is it running, at this address and port?", True),
    ("ConnectionResetError", "the server reset the connection, as a busy server does when its queue of "
                             "connections is full", True),
    ("ConnectionAbortedError", "the connection was aborted", True),
    ("BrokenPipeError", "the server closed the connection while the request was sent", True),
    ("RemoteDisconnected", "the server closed the connection without an answer", True),
    ("gaierror", "the server's name does not resolve", False),
    ("NameResolutionError", "the server's name does not resolve", False),
)


def connection_cause(error: BaseException) -> tuple[str, bool]:
    """What ended a failed connection, for people, and whether it is transient: the first known
    cause (``_CAUSES``) found in ``error``'s chain (``requests`` wraps urllib3's error, which
    wraps the socket's, in ``args``, ``reason``, ``__cause__`` and ``__context__``); otherwise
    ``the connection failed (its class name)``, not transient."""
    seen, queue = set(), [error]
    while queue:
        current = queue.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        for cls in type(current).__mro__:
            for name, words, transient in _CAUSES:
                if cls.__name__ == name:
                    return f"{words} ({type(current).__name__})", transient
        linked = [current.__cause__, current.__context__, getattr(current, "reason", None), *current.args]
        queue.extend(e for e in linked if isinstance(e, BaseException))
    return f"the connection failed ({type(error).__name__})", False


@dataclass(frozen=True)
class Answer:
    """A server's answer: HTTP ``status``, ``content_type`` (without parameters), ``body``
    (a bytearray, not copied into bytes: an answer near the cap is held once; for an error
    answer at most ``ERROR_BODY_BYTES``), ``cut_short`` when the body is only the start of what
    the server sent."""

    status: int
    content_type: str
    body: bytearray
    cut_short: bool = False


def max_response_bytes() -> int:
    """The cap on one answer, in bytes: ``TRACE_EXPLORER_RESPONSE_MAX_MB`` MiB (default 128)."""
    try:
        value = float(os.environ.get(MAX_BYTES_VARIABLE, "").strip() or DEFAULT_MAX_MB)
    except ValueError:
        value = DEFAULT_MAX_MB
    return int((value if value > 0 else DEFAULT_MAX_MB) * 1024 * 1024)


def bounded_post(session: Any, url: str, *, timeout: float, max_bytes: int | None = None, **kwargs: Any) -> Answer:
    """POST to ``url`` with ``session`` (a ``pinned_http.pinned_session``; ``kwargs`` as
    ``requests`` takes them: data, json, headers, auth) and read the answer within ``timeout``
    seconds in all and ``max_bytes`` (default ``max_response_bytes()``). Redirects are not
    followed. Raises HttpFailure: "cannot reach the server: the server reset the connection, ...
    (ConnectionResetError)" (``connection_cause``), "no complete answer within 30 s", "the answer is larger than the 128 MiB limit (...)"."""
    import requests

    cap = max_response_bytes() if max_bytes is None else max_bytes
    with Deadline(time.monotonic() + timeout) as deadline:
        try:
            with session.post(url, stream=True, timeout=(timeout, timeout), allow_redirects=False,
                              **kwargs) as response:
                if response.status_code != 200:
                    body, cut = _read(response, ERROR_BODY_BYTES, deadline, stop_at_cap=True)
                else:
                    _check_length(response, cap)
                    body, cut = _read(response, cap, deadline, stop_at_cap=False)
                if deadline.expired:
                    raise HttpFailure(_late(timeout))
                content_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
                return Answer(response.status_code, content_type, body, cut)
        except requests.RequestException as error:
            if deadline.expired or isinstance(error, requests.Timeout):
                raise HttpFailure(_late(timeout)) from None
            raise _unreachable(error) from None
        except OSError as error:  # a socket shut down by the deadline, below requests' wrapping
            if deadline.expired:
                raise HttpFailure(_late(timeout)) from None
            raise _unreachable(error) from None


def _unreachable(error: BaseException) -> HttpFailure:
    cause, transient = connection_cause(error)
    return HttpFailure(f"cannot reach the server: {cause}", transient)


def _late(timeout: float) -> str:
    return f"no complete answer within {timeout:g} s"


def _too_large(cap: int) -> str:
    return (f"the answer is larger than the {cap / 1024 / 1024:g} MiB limit "
            f"(a deployment may raise it with {MAX_BYTES_VARIABLE})")


def _check_length(response: Any, cap: int) -> None:
    try:
        declared = int(response.headers.get("Content-Length", ""))
    except ValueError:
        return
    if declared > cap:
        raise HttpFailure(_too_large(cap))


def _read(response: Any, cap: int, deadline: Deadline, stop_at_cap: bool) -> tuple[bytearray, bool]:
    """The body, streamed: at most ``cap`` bytes (more: HttpFailure, or with ``stop_at_cap``
    the first ``cap`` bytes and True), ending when the deadline passes."""
    body = bytearray()
    for chunk in response.iter_content(READ_CHUNK):
        if deadline.expired or deadline.remaining() <= 0:
            deadline.expire()
            break
        if len(body) + len(chunk) > cap:
            if stop_at_cap:
                body += chunk[: cap - len(body)]
                return body, True
            raise HttpFailure(_too_large(cap))
        body += chunk
    return body, False
