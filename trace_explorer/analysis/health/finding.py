"""One problem the health check found in a trace (``Finding``), as every rule reports it and
``trace-explorer lint`` prints it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Finding:
    """One problem: ``rule`` (a ``rules.RULES`` id), ``severity`` ("error", "warning", "info"),
    ``session`` (the session root's IRI), ``step`` (the entity's IRI, None when it is the
    session's as a whole), ``message`` (words; may quote trace text, so escape it where it is
    shown) and ``triple`` (the triple behind it in N-Triples form, or None). ``as_json()`` is
    what ``trace-explorer lint --format json`` prints for it. ``wants``: what another file could
    add to mend it, when its check says so (``mending.finding_wants``; not compared)."""

    rule: str
    severity: str
    session: str
    step: str | None
    message: str
    triple: str | None = None
    wants: tuple[str, ...] | None = field(default=None, compare=False)

    def as_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "session": self.session, "step": self.step,
                "message": self.message, "triple": self.triple}
