"""Deterministic stand-ins for what a TrustGraph deployment calls out to: the LLM (behind the
prompt service), the MCP tools, the triple store and the librarian (the embeddings model, the
vector stores and the reranker's cross-encoder are in ``retrieval_fakes``).

Each answers TrustGraph's own request schema with its own response schema over the in-memory
transport, and writes down what it was asked and what it answered (``self.asked``), which is
where the manifest comes from. Nothing here is random: the LLM's replies are a script, scores
are computed from the texts, and the clock moves only when a stand-in says its call took time.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import typing
from datetime import datetime, timedelta
from fractions import Fraction

from trustgraph.schema import (
    IRI,
    LITERAL,
    TRIPLE,
    Error,
    LibrarianResponse,
    PromptResponse,
    Term,
    ToolResponse,
    Triple,
    TriplesQueryResponse,
)


class Clock:
    """The one clock every service reads: ``now()`` for ``prov:startedAtTime`` (datetime,
    UTC) and ``monotonic()`` for the durations the agent measures (seconds as an exact
    Fraction, so a 1200 ms call reads back as exactly 1200 ms)."""

    def __init__(self, start: str):
        self.set(start)

    def set(self, iso: str) -> None:
        self.epoch = datetime.fromisoformat(iso)
        self.ms = 0

    def advance(self, ms: int) -> None:
        self.ms += int(ms)

    def now(self) -> datetime:
        return self.epoch + timedelta(milliseconds=self.ms)

    def iso(self) -> str:
        return self.now().isoformat().replace("+00:00", "Z")

    def monotonic(self) -> Fraction:
        return Fraction(int(self.epoch.timestamp()) * 1000 + self.ms, 1000)


def clock_datetime(clock: Clock, starts: dict):
    """A ``datetime`` class whose ``now()`` reads ``clock``, to put in place of the name
    ``datetime`` in a service module. The services read the time only to stamp a new
    session's Question; ``starts`` gets ``{session IRI: time}`` for each, the IRI taken from
    the caller's own variable (``session_uri`` in the orchestrator, ``q_uri`` in the RAG
    services)."""

    class ClockDateTime(datetime):
        @classmethod
        def now(cls, tz=None):
            caller = sys._getframe(1).f_locals
            uri = caller.get("session_uri") or caller.get("q_uri")
            if uri:
                starts[uri] = clock.iso()
            return clock.now() if tz is not None else clock.now().replace(tzinfo=None)

    return ClockDateTime


class ClockTime:
    """Stands for the ``time`` module inside a service module: ``monotonic`` reads the clock."""

    def __init__(self, clock: Clock):
        self.clock = clock

    def monotonic(self):
        return self.clock.monotonic()

    def time(self):
        return float(self.clock.monotonic())


def term_key(term):
    """A hashable key for a schema ``Term`` (quoted triples included)."""
    if term is None:
        return None
    if term.type == TRIPLE and term.triple is not None:
        t = term.triple
        return ("t", term_key(t.s), term_key(t.p), term_key(t.o))
    if term.type == IRI:
        return ("i", term.iri)
    return (term.type, term.value or term.iri or term.id, term.language or "", term.datatype or "")


def iri(value: str) -> Term:
    return Term(type=IRI, iri=value)


def literal(value) -> Term:
    return Term(type=LITERAL, value=str(value))


def term_text(term) -> str:
    return term.iri if term.type == IRI else term.value


class Ledger:
    """What every stand-in was asked and answered, in order: dicts with ``service`` and the
    rest of the exchange."""

    def __init__(self, clock: Clock):
        self.clock = clock
        self.entries = []

    def note(self, service: str, **fields) -> dict:
        entry = {"service": service, "at": self.clock.iso(), **fields}
        self.entries.append(entry)
        return entry


class ScriptedLLM:
    """The LLM behind TrustGraph's prompt service. ``script`` is a list of replies, each a dict
    with ``prompt`` (the template id), ``key`` (the text that picks it: the question, goal or
    query the template is filled with), ``text`` or ``object``, ``in_token``, ``out_token``,
    ``ms`` (how long the call took) and ``session`` (the scenario's name for the session that
    asks). Replies with the same prompt and key are given out in order; a request nothing in
    the script answers is an error, as is a reply never asked for (``unused``)."""

    KEY_TERM: typing.ClassVar[dict[str, str]] = {
        "agent-react": "question", "task-type-classify": "question",
        "pattern-select": "question", "plan-create": "question",
        "plan-step-execute": "goal", "plan-synthesise": "question",
        "supervisor-decompose": "question", "supervisor-synthesise": "question",
        "extract-concepts": "query", "kg-synthesis": "query", "document-prompt": "query",
        "question": "question",
    }

    def __init__(self, script, clock: Clock, ledger: Ledger, model: str):
        self.script = [dict(reply, used=False) for reply in script]
        self.clock = clock
        self.ledger = ledger
        self.model = model

    def unused(self):
        return [r for r in self.script if not r["used"]]

    async def handle(self, request):
        variables = {k: json.loads(v) for k, v in request.terms.items()}
        key = variables.get(self.KEY_TERM.get(request.id, ""), "")
        for reply in self.script:
            if not reply["used"] and reply["prompt"] == request.id and reply["key"] == key:
                break
        else:
            raise LookupError(f"the LLM script has no reply for {request.id!r} on {key!r}")
        reply["used"] = True
        self.clock.advance(reply["ms"])
        self.ledger.note("llm", prompt=request.id, key=key, session=reply["session"],
                         in_token=reply["in_token"], out_token=reply["out_token"],
                         model=self.model, ms=reply["ms"],
                         reply=reply.get("text", reply.get("object")),
                         history=len(variables.get("history") or []))
        if "object" in reply:
            yield PromptResponse(object=json.dumps(reply["object"], ensure_ascii=False),
                                 end_of_stream=True, in_token=reply["in_token"],
                                 out_token=reply["out_token"], model=self.model)
        else:
            yield PromptResponse(text=reply["text"], end_of_stream=True,
                                 in_token=reply["in_token"], out_token=reply["out_token"],
                                 model=self.model)


class McpTools:
    """The MCP tool server: ``script`` maps a tool name to its replies in order, each a dict
    with ``ms`` and ``text`` or ``error``, and optionally ``arguments``: such a reply answers
    only a call with exactly those arguments (sub-agents running side by side call the same
    tool in an order no script can know)."""

    def __init__(self, script: dict, clock: Clock, ledger: Ledger):
        self.script = {name: list(replies) for name, replies in script.items()}
        self.clock = clock
        self.ledger = ledger

    async def handle(self, request):
        replies = self.script.get(request.name) or []
        arguments = json.loads(request.parameters or "{}")
        fitting = [r for r in replies if r.get("arguments", arguments) == arguments]
        if not fitting:
            raise LookupError(f"the MCP script has no reply for {request.name!r} on {arguments!r}")
        reply = fitting[0]
        replies.remove(reply)
        self.clock.advance(reply["ms"])
        self.ledger.note("mcp-tool", tool=request.name,
                         arguments=arguments, ms=reply["ms"],
                         text=reply.get("text"), error=reply.get("error"))
        if "error" in reply:
            yield ToolResponse(error=Error(type="tool-error", message=reply["error"]))
        else:
            yield ToolResponse(text=reply["text"])


class TripleStore:
    """The triple store: a list of schema ``Triple`` with their graph (``""`` is the default
    graph). Pattern queries match on ``s``, ``p``, ``o`` and the graph (none or ``""`` asks
    the default graph), as TrustGraph's triples query service answers them; streamed queries
    come back in batches. ``visible``, when set, is the set of ``key`` of the default graph's
    triples that queries see (the rest of the default graph is hidden; the named graphs never
    are): one labelled case's knowledge at a time."""

    def __init__(self):
        self.triples = []
        self.keys = set()
        self.visible = None

    @staticmethod
    def key(triple) -> tuple:
        """A hashable key for a schema ``Triple`` with its graph."""
        return (term_key(triple.s), term_key(triple.p), term_key(triple.o), triple.g or "")

    def add(self, triple) -> None:
        key = self.key(triple)
        if key not in self.keys:
            self.keys.add(key)
            self.triples.append(triple)

    def match(self, s, p, o, g):
        graph = g or ""
        want = [term_key(x) if x is not None and (x.iri or x.value or x.triple) else None
                for x in (s, p, o)]
        for t in self.triples:
            if (t.g or "") != graph:
                continue
            if not graph and self.visible is not None and self.key(t) not in self.visible:
                continue
            have = (term_key(t.s), term_key(t.p), term_key(t.o))
            if all(w is None or w == h for w, h in zip(want, have)):
                yield t

    async def handle(self, request):
        found = list(self.match(request.s, request.p, request.o, request.g))
        if request.limit:
            found = found[: request.limit]
        plain = [Triple(s=t.s, p=t.p, o=t.o) for t in found]
        if not request.streaming:
            yield TriplesQueryResponse(triples=plain, is_final=True)
            return
        size = request.batch_size or 20
        batches = [plain[i:i + size] for i in range(0, len(plain), size)] or [[]]
        for n, batch in enumerate(batches):
            yield TriplesQueryResponse(triples=batch, is_final=n == len(batches) - 1)

    async def take_explain(self, value, properties) -> None:
        """The explainability topic's consumer: store every triple the services emit."""
        for t in value.triples:
            self.add(t)


class Librarian:
    """The librarian: documents by id with their text; ``saved`` keeps the order they came
    in."""

    def __init__(self, ledger: Ledger):
        self.texts = {}
        self.saved = []
        self.ledger = ledger

    def put(self, doc_id: str, text: str) -> None:
        if doc_id not in self.texts:
            self.saved.append(doc_id)
        self.texts[doc_id] = text

    async def handle(self, request):
        if request.operation in ("add-document", "add-child-document"):
            doc_id = request.document_id or request.document_metadata.id
            content = request.content
            raw = content.encode("ascii") if isinstance(content, str) else content
            text = base64.b64decode(raw).decode("utf-8")
            self.put(doc_id, text)
            self.ledger.note("librarian", operation=request.operation, document=doc_id,
                             title=request.document_metadata.title)
            yield LibrarianResponse()
        elif request.operation == "stream-document":
            text = self.texts[request.document_id]
            self.ledger.note("librarian", operation="stream-document",
                             document=request.document_id)
            yield LibrarianResponse(content=base64.b64encode(text.encode("utf-8")),
                                    is_final=True)
        else:
            raise LookupError(f"the librarian stand-in does not do {request.operation!r}")
