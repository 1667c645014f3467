"""Sending a question through a TrustGraph gateway's websocket (``/api/v1/socket``) with
TrustGraph's own client, trustgraph-base's ``SocketClient`` (``agent_explain``,
``graph_rag_explain``, ``document_rag_explain``), and reading what comes back as ``AskEvent``s.

The client is driven in a thread of its own: its generators block on the socket, and a gateway
that goes away part way leaves them waiting for good (2.11.1's reader ends quietly on a closed
connection without waking the request it served). The events are handed over through a queue;
the run ends FAILED when the connection closes or nothing comes for ``idle_s`` seconds, and
CANCELLED when the caller's ``stop`` is set.
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pyoxigraph as ox

from ..network.endpoint_policy import EndpointPolicy, EndpointRefused
from ..read.wire import WireFormatError, decode_quad, decode_triple
from .events import (AGENT, ANSWER, CANCELLED, DOCUMENT_RAG, DONE, FAILED, GRAPH_RAG, MECHANISMS, OBSERVATION,
                     STEP, THOUGHT, AskEvent)

RETRIEVAL_GRAPH = "urn:graph:retrieval"
POLL_S = 0.25  # how often a wait for the next event looks at ``stop`` and at the connection


@dataclass(frozen=True)
class Question:
    """What to ask, and where: ``url`` the gateway's base URL (``http://host:8888/``);
    ``token`` its bearer token (sent in the first frame) or None; ``mechanism`` one of
    ``events.MECHANISMS``; ``idle_s`` how long the run may send nothing before it is given up."""

    url: str
    text: str
    token: str | None = None
    flow: str = "default"
    collection: str = "default"
    workspace: str = "default"
    mechanism: str = AGENT
    timeout_s: float = 30.0
    idle_s: float = 300.0


class AskError(RuntimeError):
    """The question could not be sent: TrustGraph's client library is not installed, the
    mechanism is not one of ``events.MECHANISMS``, or the endpoint policy refuses the gateway."""


def ask(question: Question, stop: threading.Event | None = None,
        policy: EndpointPolicy | None = None) -> Iterator[AskEvent]:
    """The run of ``question``, event by event, ending with one DONE, FAILED or CANCELLED event.

    ``policy``: the endpoint policy the gateway's URL must pass before the websocket connects,
    the same check its REST requests pass (``network.endpoint_policy``; the app gives its own,
    the command line, run by a person on their own machine, none). The websocket connects to
    the name again, not to the addresses the check saw.

    Raises AskError before anything is sent when the client library is missing, the mechanism
    unknown or the policy refuses the gateway (its reason in the message); every later failure
    (refused connection, auth failure, the service's error, a lost connection, ``idle_s`` of
    silence) is the FAILED event's ``text``."""
    if question.mechanism not in MECHANISMS:
        raise AskError(f"the mechanism is one of {', '.join(MECHANISMS)}, not {question.mechanism!r}")
    if policy is not None:
        try:
            policy.check(question.url)
        except EndpointRefused as error:
            raise AskError(f"the gateway is refused: {error}") from None
    try:
        from trustgraph.api.socket_client import SocketClient
    except ImportError as error:  # pragma: no cover - a broken install
        raise AskError(f"TrustGraph's client library (trustgraph-base) cannot be loaded: {error}") from None
    stop = stop or threading.Event()
    handed: queue.Queue = queue.Queue()
    client = SocketClient(question.url, timeout=int(max(1, question.timeout_s)), token=question.token,
                          workspace=question.workspace)
    worker = threading.Thread(target=_drive, args=(client, question, handed, stop), daemon=True,
                              name="trustgraph-ask")
    worker.start()
    last = time.monotonic()
    while True:
        if stop.is_set():
            yield AskEvent(CANCELLED, text="cancelled")
            return
        try:
            event = handed.get(timeout=POLL_S)
        except queue.Empty:
            if _lost(client):
                yield AskEvent(FAILED, text="the gateway closed the connection before the run ended")
                return
            if time.monotonic() - last > question.idle_s:
                stop.set()
                yield AskEvent(FAILED, text=f"the gateway sent nothing for {question.idle_s:g} s")
                return
            continue
        last = time.monotonic()
        yield event
        if event.kind in (DONE, FAILED):
            return


def _lost(client) -> bool:
    """Whether the client's connection was made and has since closed (the client keeps this in
    ``_connected``, false again once its reader saw the connection close)."""
    return getattr(client, "_reader_task", None) is not None and not getattr(client, "_connected", True)


def _drive(client, question: Question, handed: queue.Queue, stop: threading.Event) -> None:
    """Run the client's generator, putting an AskEvent on ``handed`` for each thing it yields,
    then DONE or FAILED; stop early (closing the socket) when ``stop`` is set."""
    try:
        flow = client.flow(question.flow)
        if question.mechanism == AGENT:
            chunks = flow.agent_explain(question=question.text, collection=question.collection)
        elif question.mechanism == GRAPH_RAG:
            chunks = flow.graph_rag_explain(query=question.text, collection=question.collection)
        else:
            chunks = flow.document_rag_explain(query=question.text, collection=question.collection)
        for chunk in chunks:
            event = to_event(chunk)
            if event is not None:
                handed.put(event)
            if stop.is_set():
                chunks.close()
                return
        handed.put(AskEvent(DONE))
    except Exception as error:  # noqa: BLE001 - the client raises many kinds (protocol, socket, service)
        handed.put(AskEvent(FAILED, text=_reason(error)))
    finally:
        try:
            client.close()
        except Exception:  # noqa: BLE001, S110 - closing a socket that is already gone
            pass


def _reason(error: Exception) -> str:
    """The words for a failed run, as ``follow`` says the same of a source: a refused token, a
    gateway not reached, an address that does not answer as TrustGraph's websocket; else the
    service's message, or the error's kind and message."""
    text = str(error) or type(error).__name__
    if "auth failure" in text:  # the gateway's first-frame answer (``auth-failed``)
        return ("the gateway refused the token: give a token this deployment accepts (the command line "
                "reads it from TRUSTGRAPH_TOKEN)")
    if isinstance(error, socket.gaierror):
        return f"cannot find the gateway's host ({error.strerror or text}): check the address"
    if isinstance(error, (ConnectionRefusedError, ConnectionResetError, TimeoutError)):
        return (f"cannot reach the gateway ({type(error).__name__}: {error.strerror or text}): is it running, "
                "at this address and port?")
    if type(error).__module__.startswith("websockets"):  # a handshake that is not a websocket's
        return (f"the address does not answer as a TrustGraph gateway's websocket (/api/v1/socket): "
                f"{type(error).__name__}: {text}")
    return text if type(error).__module__.startswith("trustgraph") else f"{type(error).__name__}: {text}"


def to_event(chunk) -> AskEvent | None:
    """One thing TrustGraph's client yielded as an AskEvent (None for one that says nothing:
    an empty closing chunk). ``ProvenanceEvent`` -> STEP with its quads (the message's graph
    for a triple that names none); ``AgentThought`` -> THOUGHT, ``AgentObservation`` ->
    OBSERVATION, ``AgentAnswer`` and ``RAGChunk`` -> ANSWER. A triple that is not valid wire
    form is left out (the rest of the step stays)."""
    name = type(chunk).__name__
    if name == "ProvenanceEvent":
        return AskEvent(STEP, step=chunk.explain_id, quads=tuple(_quads(chunk.triples, chunk.explain_graph)))
    kind = {"AgentThought": THOUGHT, "AgentObservation": OBSERVATION, "AgentAnswer": ANSWER,
            "RAGChunk": ANSWER}.get(name)
    text = getattr(chunk, "content", None)
    if kind is None or not text:
        return None
    return AskEvent(kind, step=getattr(chunk, "message_id", None) or None, text=text)


def _quads(triples, graph: str | None) -> list[ox.Quad]:
    out = []
    for triple in triples or ():
        try:
            if isinstance(triple, dict) and not triple.get("g") and graph:
                t = decode_triple(triple)
                out.append(ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(graph)))
            else:
                out.append(decode_quad(triple))
        except (WireFormatError, ValueError, TypeError):
            continue
    return out


__all__ = ["AGENT", "ANSWER", "CANCELLED", "DOCUMENT_RAG", "DONE", "FAILED", "GRAPH_RAG", "OBSERVATION",
           "STEP", "THOUGHT", "AskError", "Question", "ask", "to_event"]
