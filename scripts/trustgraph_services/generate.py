"""Make the service-made test corpus: run TrustGraph 2.11.1's own services on the scripted
sessions of ``scenarios`` and write what they emitted.

Run with the generator's own virtualenv (see ``setup.sh``):

    .venv-services/bin/python scripts/trustgraph_services/generate.py [OUT_DIR]
    .venv-services/bin/python scripts/trustgraph_services/generate.py --support SPEC.json OUT_DIR

The second form runs a file of labelled answer-support cases instead (``support_cases``).

OUT_DIR defaults to ``trace_explorer/demo_data/services``. Writes ``services.trig`` (the
default graph, ``urn:graph:source`` and ``urn:graph:retrieval`` as the triple store holds
them), ``services.documents.json`` (every text the librarian holds, chunks included) and
``manifest.json`` (from what the stand-ins were asked and answered). The output is the same,
byte for byte, on every run: the process re-executes itself with a fixed
``PYTHONHASHSEED`` (GraphRAG iterates sets), and uuids and time come from fixed sources.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
HASH_SEED = "0"
UUID_SEED = 20261130
SUPPORT_UUID_SEED = 20261201

if os.environ.get("PYTHONHASHSEED") != HASH_SEED:
    os.environ["PYTHONHASHSEED"] = HASH_SEED
    os.execv(sys.executable, [sys.executable, *sys.argv])

sys.path.insert(0, str(HERE))

import services

services.deterministic_uuids(UUID_SEED)

import collection
import fakes
import manifest
import runner
import scenarios
import writers


async def run_all():
    """Start the services on the collection and run every session of ``scenarios.RUNS`` in
    turn (``runner.run_sessions``). Returns ``(deployment, collection layout, runs)``."""
    clock = fakes.Clock(collection.EXTRACTED_AT)
    deployment = services.Deployment(clock, {
        "entities": scenarios.ENTITY_MATCHES, "chunks": {}, "llm": scenarios.llm_script(),
        "model": scenarios.MODEL, "mcp": scenarios.MCP_SCRIPT,
    })
    layout = collection.load(deployment)
    deployment.document_vectors.chunks = layout["chunks"]
    await deployment.start(scenarios.tool_config())
    runs = [{"name": name, "service": service, "question": question, "start": start}
            for name, service, question, start in scenarios.RUNS]
    return deployment, layout, await runner.run_sessions(deployment, clock, runs)


def main(argv):
    support = len(argv) > 1 and argv[1] == "--support"
    # The services log a reply they cannot parse with its words; a labelled case's answer
    # stays out of the output (its held-out half is not to be read).
    logging.basicConfig(level=logging.CRITICAL if support else logging.ERROR)
    if support:
        if len(argv) != 4:
            print("usage: generate.py --support SPEC.json OUT_DIR", file=sys.stderr)
            return 2
        import support_cases
        services.deterministic_uuids(SUPPORT_UUID_SEED)  # IRIs apart from the corpus's
        labels = asyncio.run(support_cases.generate(Path(argv[2]), Path(argv[3])))
        print(f"{len(labels)} cases written to {argv[3]}")
        return 0
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "trace_explorer" / "demo_data" / "services"
    deployment, layout, runs = asyncio.run(run_all())
    writers.write_all(out, deployment, manifest.build(deployment, layout, runs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
