"""How a poll asks a SPARQL source what is new: one query for the session roots that started
since the last seen and the steps that derive from the entities of the sessions still open
(``SparqlProbe.poll``), and, only when something new turned up, the new roots' facts, the next
level of steps and the new steps' words.

Only basic graph patterns, ``VALUES``, ``UNION`` and one ``FILTER`` are sent: TrustGraph's SPARQL
service evaluates no property paths (TRACE-MODEL.md, "Where the words live"), and a SPARQL 1.1
endpoint and a local store's snapshot answer the same text. A Question is the only entity with
``prov:startedAtTime`` in a session (TRACE-MODEL.md, "Common step metadata"); an extraction
activity that has one too is dropped when its facts show no Question.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import pyoxigraph as ox

from ..model.literals import parse_time
from ..model.roots import is_root
from ..model.vocabulary import (ANSWER, CONTENT, DOCUMENT, OBSERVATION, QUERY, RDF_TYPE, STARTED_AT_TIME, THOUGHT,
                                WAS_DERIVED_FROM, WAS_GENERATED_BY)
from ..sources.source import Term
from ..sources.sparql_text import PREFIXES, iri_batches, literal, values_clause

# A session counts as new when it started at most this long before the newest start seen (or
# before now, when the source's newest lies ahead of this machine's clock): sessions written
# late (sub-agents running side by side) or by a deployment whose clock lags are still found.
LATE_WINDOW = timedelta(minutes=10)
BATCH = 200  # IRIs in one VALUES block
Select = Callable[[str], list[dict[str, Term]]]
Edge = tuple[str, str, str]  # (step IRI, the entity it derives from, one of its rdf:type IRIs)
_TEXT_PREDICATES = (ANSWER, CONTENT, DOCUMENT, THOUGHT, OBSERVATION)


@dataclass
class RootFacts:
    """What a new session root says of itself: ``question``, rdf ``types``, ``parent`` (the
    step of another session it derives from, or None) and ``time`` (its start, text)."""

    root: str
    question: str | None = None
    types: set[str] = field(default_factory=set)
    parent: str | None = None
    time: str | None = None

    def take(self, predicate: str, value: Term) -> None:
        """Note one property of the root (the first of each kind kept; others ignored)."""
        if predicate == RDF_TYPE and isinstance(value, ox.NamedNode):
            self.types.add(value.value)
        elif predicate == QUERY and isinstance(value, ox.Literal):
            self.question = self.question or value.value
        elif predicate in (WAS_DERIVED_FROM, WAS_GENERATED_BY) and isinstance(value, ox.NamedNode):
            self.parent = self.parent or value.value
        elif predicate == STARTED_AT_TIME and isinstance(value, ox.Literal):
            self.time = self.time or value.value


def root_facts(facts: dict[str, RootFacts]) -> dict[str, RootFacts]:
    """Those of ``facts`` that are session roots (``model.roots.is_root``)."""
    return {r: f for r, f in facts.items() if is_root(r, f.types, f.question is not None)}


@dataclass
class Found:
    """What one poll found: candidate ``roots`` (IRI -> start time text, or None) and ``edges``
    ((step, parent, type) for each step deriving from an entity asked about)."""

    roots: dict[str, str | None] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)


class SparqlProbe:
    """Polls a source that answers SPARQL SELECT: ``select(query)`` -> rows, ``documents(iris)``
    -> ``{document IRI: text}`` (the source's documents graph, a librarian). Raises what they
    raise (``SourceError``)."""

    def __init__(self, select: Select, documents: Callable[[Iterable[str]], Mapping[str, str]]):
        self.select = select
        self.documents = documents
        self.newest: datetime | None = None  # the newest start seen

    # -- roots ------------------------------------------------------------------------------
    def baseline(self) -> dict[str, str | None]:
        """Every candidate root with its start time (one query: the first poll's), and the
        newest start noted for the polls after."""
        rows = self.select(PREFIXES + "SELECT ?root ?time WHERE { ?root prov:startedAtTime ?time }")
        found = {r["root"].value: r["time"].value for r in rows if isinstance(r.get("root"), ox.NamedNode)}
        self.note_times(found.values())
        return found

    def note_times(self, times: Iterable[str | None]) -> None:
        """Keep the newest of ``times`` (start times as written)."""
        for text in times:
            when = parse_time(text) if text else None
            if when is not None and (self.newest is None or when > self.newest):
                self.newest = when

    def since(self) -> str:
        """The start time from which roots are asked for: ``LATE_WINDOW`` before the newest start
        seen, or before now when that lies ahead; UTC text (``YYYY-MM-DDTHH:MM:SS``), compared
        with the written times as text."""
        now = datetime.now(timezone.utc)
        newest = min(self.newest, now) if self.newest is not None else now
        return (newest - LATE_WINDOW).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")

    def poll(self, frontier: list[str]) -> Found:
        """One query: the roots started since ``since()`` and the steps deriving from the first
        ``BATCH`` entities of ``frontier`` (the rest in ``children``)."""
        batches = list(iri_batches(frontier, BATCH))
        branch = f'{{ ?root prov:startedAtTime ?time FILTER(STR(?time) >= {literal(self.since())}) }}'
        if batches:
            branch += f" UNION {{ {_children_pattern(batches[0])} }}"
        found = self._found(self.select(PREFIXES + f"SELECT ?root ?time ?step ?parent ?type WHERE {{ {branch} }}"))
        for batch in batches[1:]:
            found.edges += self._children(batch)
        self.note_times(found.roots.values())
        return found

    def children(self, parents: Iterable[str]) -> list[Edge]:
        """(step, parent, type) for every entity typed and deriving (``prov:wasDerivedFrom`` or,
        in the seed shape, ``prov:wasGeneratedBy``) from one of ``parents``."""
        return [edge for batch in iri_batches(parents, BATCH) for edge in self._children(batch)]

    def _children(self, batch: list[str]) -> list[Edge]:
        return self._found(self.select(PREFIXES + f"SELECT ?step ?parent ?type WHERE {{ {_children_pattern(batch)} }}")).edges

    @staticmethod
    def _found(rows: list[dict[str, Term]]) -> Found:
        found = Found()
        for row in rows:
            root, step, parent, kind = row.get("root"), row.get("step"), row.get("parent"), row.get("type")
            if isinstance(root, ox.NamedNode):
                time = row.get("time")
                found.roots[root.value] = time.value if isinstance(time, ox.Literal) else None
            elif isinstance(step, ox.NamedNode) and parent is not None and isinstance(kind, ox.NamedNode):
                found.edges.append((step.value, parent.value, kind.value))
        return found

    # -- what new roots and steps say ---------------------------------------------------------
    def details(self, roots: Iterable[str]) -> dict[str, RootFacts]:
        """The facts of those of ``roots`` that are session roots (``model.roots.is_root``)."""
        facts: dict[str, RootFacts] = {}
        for batch in iri_batches(roots, BATCH):
            rows = self.select(PREFIXES + f"""SELECT ?root ?p ?o WHERE {{ {values_clause('root', batch)}
  VALUES ?p {{ rdf:type tg:query prov:startedAtTime prov:wasDerivedFrom prov:wasGeneratedBy }} ?root ?p ?o }}""")
            for row in rows:
                facts.setdefault(row["root"].value, RootFacts(row["root"].value)).take(row["p"].value, row["o"])
        return root_facts(facts)

    def texts(self, steps: Iterable[str]) -> dict[str, str]:
        """The words of ``steps``, by IRI: inline (``tg:answer``, ``tg:content``, seed
        ``tg:thought``/``tg:observation``) or behind ``tg:document``; an Analysis's are its
        Thought's (``tg:thought`` -> the Thought entity). Steps without words are left out."""
        inline, documents, thoughts = self._text_rows(steps)
        if thoughts:
            t_inline, t_documents, _ = self._text_rows(thoughts)
            for thought, step in thoughts.items():
                if thought in t_inline:
                    inline.setdefault(step, t_inline[thought])
            documents.update({d: thoughts[e] for d, e in t_documents.items() if e in thoughts})
        wanted = {d: e for d, e in documents.items() if e not in inline}
        if wanted:
            for document, text in self.documents(list(wanted)).items():
                if document in wanted:
                    inline.setdefault(wanted[document], text)
        return inline

    def _text_rows(self, entities: Iterable[str]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """(entity -> inline text, document IRI -> entity, thought IRI -> entity)."""
        inline: dict[str, str] = {}
        documents: dict[str, str] = {}
        thoughts: dict[str, str] = {}
        predicates = " ".join(f"<{p}>" for p in _TEXT_PREDICATES)
        for batch in iri_batches(entities, BATCH):
            rows = self.select(PREFIXES + f"SELECT ?e ?p ?o WHERE {{ {values_clause('e', batch)} "
                                          f"VALUES ?p {{ {predicates} }} ?e ?p ?o }}")
            for row in sorted(rows, key=lambda r: _TEXT_PREDICATES.index(r["p"].value)):
                entity, predicate, value = row["e"].value, row["p"].value, row["o"]
                if isinstance(value, ox.Literal):
                    inline.setdefault(entity, value.value)
                elif isinstance(value, ox.NamedNode):
                    (thoughts if predicate == THOUGHT else documents).setdefault(value.value, entity)
        return inline, documents, thoughts


def _children_pattern(batch: list[str]) -> str:
    return (f"{values_clause('parent', batch)} VALUES ?rel {{ prov:wasDerivedFrom prov:wasGeneratedBy }} "
            f"?step ?rel ?parent . ?step rdf:type ?type")
