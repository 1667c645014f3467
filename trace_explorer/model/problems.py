"""Problems the reader finds while it reads a session: each with a stable rule id, the entity it is
on and the triple behind it (TRACE-MODEL.md, "Common step metadata": a value that does not parse
is missing, and said so). ``analysis.health.checks`` adds the rules that need more than one step.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

# Rule ids the reader finds (analysis/health/rules.py gives each its severity and its words for people).
ARGUMENTS_NOT_JSON = "arguments-not-json"  # tg:arguments that does not parse as JSON
BAD_LITERAL = "bad-literal"  # a number or time that does not parse
CYCLE = "cycle"  # a cycle in prov:wasDerivedFrom
UNTYPED_ROOT = "untyped-root"  # a session root without rdf:type, found by tg:query and its IRI
SHARED_STEP = "shared-step"  # a step that two sessions claim
MISSING_TEXT = "missing-text"  # a tg:document whose text the documents or the librarian do not have


@dataclass(frozen=True)
class Problem:
    """One problem in a trace. ``rule``: a stable rule id; ``step``: the IRI of the entity it is on
    (None when it is the session's as a whole); ``message``: what is wrong, in words (it may quote
    trace text: escape it wherever it is shown); ``triple``: the triple behind it in N-Triples
    form (``<s> <p> "o"``), or None."""

    rule: str
    step: str | None
    message: str
    triple: str | None = None

    @property
    def text(self) -> str:
        """The problem as one line: ``"{step}: {message}"`` (just the message without a step)."""
        return f"{self.step}: {self.message}" if self.step else self.message


TRIPLE_LITERAL_LIMIT = 300  # characters of a literal object kept in a problem's triple


def triple_text(subject: str, predicate: str, obj: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | str) -> str:
    """``<s> <p> o`` in N-Triples form: ``subject`` an IRI (or ``_:id``), ``predicate`` an IRI,
    ``obj`` a pyoxigraph term (a str is taken as an IRI, or a blank node key ``_:id``). A literal
    longer than ``TRIPLE_LITERAL_LIMIT`` characters is cut there, with "…" at its end."""
    if isinstance(obj, ox.Literal) and len(obj.value) > TRIPLE_LITERAL_LIMIT:
        obj = ox.Literal(obj.value[:TRIPLE_LITERAL_LIMIT] + "…")
    shown = _node(obj) if isinstance(obj, str) else str(obj)
    return f"{_node(subject)} {_node(predicate)} {shown}"


def _node(key: str) -> str:
    return key if key.startswith("_:") else f"<{key}>"
