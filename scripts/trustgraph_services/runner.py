"""Running sessions one after another on a started deployment, each from its own start time,
and keeping what each run exchanged: the slice of the transport's log and of the stand-ins'
ledger it made. Both generators (the corpus of ``scenarios`` and the labelled support cases)
run their sessions through here."""

from __future__ import annotations

import uuid


async def run_sessions(deployment, clock, runs, prepare=None) -> list:
    """Run each of ``runs`` in turn: dicts with ``name``, ``service`` ("agent", "graph-rag",
    "document-rag" or "document-rag-plain"), ``question``, ``start`` (ISO 8601 UTC) and, for
    DocumentRAG, an optional ``doc_limit``. ``prepare(run)`` is called before each (to set
    what the stand-ins hold for it). Returns ``[{name, service, question, log, ledger}]``.
    Raises RuntimeError when a stand-in failed or the LLM script holds a reply no service asked
    for; TimeoutError when a session never finishes."""
    out = []
    for run in runs:
        if prepare is not None:
            prepare(run)
        clock.set(run["start"])
        mark = len(deployment.backend.log)
        ledger_mark = len(deployment.ledger.entries)
        service, question = run["service"], run["question"]
        if service == "agent":
            await deployment.ask_agent(question, session_id=str(uuid.uuid4()))
        elif service == "graph-rag":
            await deployment.ask_graph_rag(question)
        else:
            await deployment.ask_document_rag(question, rerank=service == "document-rag",
                                              doc_limit=run.get("doc_limit", 4))
        out.append({"name": run["name"], "service": service, "question": question,
                    "log": deployment.backend.log[mark:],
                    "ledger": deployment.ledger.entries[ledger_mark:]})
    unused = deployment.llm.unused()
    if unused:
        raise RuntimeError(f"LLM replies never asked for: {[(r['session'], r['prompt']) for r in unused]}")
    return out
