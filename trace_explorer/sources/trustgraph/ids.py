"""TrustGraph's ids as the gateway's paths and bodies carry them: a flow (a path segment of
``api/v1/flow/{flow}/service/...``), a collection and a workspace (fields of a request's body).

TrustGraph's OpenAPI spec (``specs/api/components/parameters/FlowId.yaml``, ``Collection.yaml``,
``schemas/iam/WorkspaceInput.yaml``) types them as strings and gives ids such as ``default``,
``my-flow``, ``research``, ``production``; a flow's id also names its message queues
(``persistent://tg/flow/chunk:{id}``, ``schemas/flow/FlowRequest.yaml``). ``ID_PATTERN`` takes
exactly that shape: letters, digits, ``-``, ``_`` and ``.``, starting with a letter or a digit (so
never ``.`` or ``..``), at most 128 characters. Anything else (a ``/``, ``%``, ``#``, ``?``, a space)
is refused before a request is made, and a path segment is URL-escaped all the same.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from ..source import SourceError

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
KINDS = ("flow", "collection", "workspace")


class InvalidId(SourceError):
    """A flow, collection or workspace id that is not of TrustGraph's id syntax."""


def checked_id(kind: str, value: object) -> str:
    """``value`` when it is a TrustGraph id (``ID_PATTERN``); ``kind`` ("flow", "collection",
    "workspace") names it in the message. Raises InvalidId, quoting at most 60 characters."""
    if isinstance(value, str) and ID_PATTERN.fullmatch(value):
        return value
    return _refuse(kind, value)


def _refuse(kind: str, value: object) -> str:
    raise InvalidId(f"expected a TrustGraph {kind} id (letters, digits, '-', '_' and '.', starting with a letter "
                    f"or a digit, at most 128 characters), got {str(value)!r:.60}")


def flow_service(flow: str, service: str) -> str:
    """The API path of ``flow``'s ``service`` (``flow/{flow}/service/{service}``,
    ``specs/api/paths/flow/*.yaml``), the flow's id URL-escaped as one path segment."""
    return f"flow/{quote(flow, safe='')}/service/{service}"
