"""The session workspace's data as the app sends it (for ``AppTest`` tests: the component draws
it in the browser, so a test reads what it was sent: ``views.workspace``'s shape)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

COMPONENT = "trace_explorer_workspace"


def _elements(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _elements(child)


def sent(at) -> dict[str, Any]:
    """What the page sent the workspace: {"shape", "key", "selected"}."""
    found = [e for e in _elements(at.main) if getattr(e, "type", None) == "bidi_component"
             and e.proto.component_name.endswith(COMPONENT)]
    assert len(found) == 1, f"{len(found)} workspaces on the page"
    proto = found[0].proto
    return json.loads(proto.bytes.decode("utf-8") if proto.WhichOneof("data") == "bytes" else proto.json)


def step_of(at, iri: str) -> dict[str, Any]:
    """The step ``iri`` of the workspace's data."""
    return next(s for s in sent(at)["shape"]["steps"] if s["id"] == iri)


def titled(step: dict, title: str) -> dict[str, Any]:
    """The section of ``step`` whose title is (or starts with) ``title``."""
    return next(s for s in step["sections"] if (s.get("title") or "").startswith(title))


def texts(step: dict, kind: str) -> list[str]:
    """The texts of the sections of type ``kind`` ("error", "note", "warning", "line", ...)."""
    return [s["text"] for s in step["sections"] if s["t"] == kind]


def table(step: dict, title: str) -> pd.DataFrame:
    """The table section ``title`` of ``step`` as a DataFrame."""
    section = titled(step, title)
    return pd.DataFrame(section["rows"], columns=section["columns"])
