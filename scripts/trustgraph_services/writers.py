"""Writing what the services emitted: the triple store as TriG (RDF-star quoted triples), the
librarian's texts as ``{document id: text}`` and the manifest as JSON, all with a fixed order
and encoding so the same run gives the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

from trustgraph.schema import IRI, LITERAL, TRIPLE

GRAPHS = ["", "urn:graph:source", "urn:graph:retrieval"]
HEADER = ("# Made by TrustGraph 2.11.1's own services (agent orchestrator, GraphRAG, "
          "DocumentRAG)\n# with deterministic stand-ins: "
          "scripts/trustgraph_services/generate.py. Do not edit.\n")


def escape(text: str) -> str:
    return (text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            .replace("\r", "\\r").replace("\t", "\\t"))


def term(t) -> str:
    if t.type == IRI:
        return f"<{t.iri}>"
    if t.type == TRIPLE:
        q = t.triple
        return f"<< {term(q.s)} {term(q.p)} {term(q.o)} >>"
    if t.type == LITERAL:
        if t.language:
            return f'"{escape(t.value)}"@{t.language}'
        if t.datatype:
            return f'"{escape(t.value)}"^^<{t.datatype}>'
        return f'"{escape(t.value)}"'
    return f"_:{t.id}"


def trig(triples) -> str:
    lines = [HEADER]
    for graph in GRAPHS:
        # Grouped by subject, each subject's triples in the order its service emitted them:
        # two services write to the store side by side, so the store's own order is not
        # fixed, while each service's is.
        members = sorted((t for t in triples if (t.g or "") == graph), key=lambda t: term(t.s))
        indent = "  " if graph else ""
        if graph:
            lines.append(f"<{graph}> {{")
        lines.extend(f"{indent}{term(t.s)} {term(t.p)} {term(t.o)} ." for t in members)
        if graph:
            lines.append("}")
        lines.append("")
    unknown = {t.g for t in triples} - set(GRAPHS) - {None}
    if unknown:
        raise ValueError(f"triples in graphs the writer does not know: {sorted(unknown)}")
    return "\n".join(lines)


def dump_json(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1) + "\n"


def write_all(out: Path, deployment, manifest: dict) -> None:
    """Write ``services.trig``, ``services.documents.json`` and ``manifest.json`` into
    ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "services.trig").write_text(trig(deployment.store.triples), encoding="utf-8")
    texts = {doc_id: deployment.librarian.texts[doc_id] for doc_id in deployment.librarian.saved}
    (out / "services.documents.json").write_text(dump_json(texts), encoding="utf-8")
    (out / "manifest.json").write_text(dump_json(manifest), encoding="utf-8")
