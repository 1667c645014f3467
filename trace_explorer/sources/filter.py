"""What the session list shows: the filters of the list page and of ``trace-explorer list``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SessionFilter:
    """What the session list shows. ``mechanism``: one of "Agent", "GraphRAG", "DocRAG", or a
    tuple of them (any of); ``pattern``: "react", "plan-then-execute", "supervisor", or a tuple;
    ``status``: "answered" | "unfinished"; ``text``: case-insensitive, in the question or the
    session IRI; ``include_sub``: sub-sessions too; ``tool``: sessions that called this tool;
    ``model``: that called this LLM; ``termination``: that stopped for this reason ("none": that
    record none); ``health``: "errors", "warnings", "infos" (the worst severity found), "clean",
    "unchecked", or a rule id (``analysis.rules``; on a source with a session index only).
    Empty values filter nothing."""

    mechanism: str | tuple[str, ...] | None = None
    pattern: str | tuple[str, ...] | None = None
    status: str | None = None
    text: str | None = None
    include_sub: bool = False
    tool: str | None = None
    model: str | None = None
    termination: str | None = None
    health: str | None = None

    @property
    def mechanisms(self) -> tuple[str, ...]:
        """``mechanism`` as a tuple (empty: any)."""
        return _choices(self.mechanism)

    @property
    def patterns(self) -> tuple[str, ...]:
        """``pattern`` as a tuple (empty: any)."""
        return _choices(self.pattern)

    @property
    def needle(self) -> str | None:
        """The search text, stripped, or None when there is none."""
        return self.text.strip() if self.text and self.text.strip() else None


def _choices(value: str | tuple[str, ...] | None) -> tuple[str, ...]:
    if not value:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)
