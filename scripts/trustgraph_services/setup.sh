#!/usr/bin/env bash
# Make the generator's own virtualenv (.venv-services at the repository root) with TrustGraph
# 2.11.1's service code, then run the generator:
#   bash scripts/trustgraph_services/setup.sh
#   .venv-services/bin/python scripts/trustgraph_services/generate.py
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python3 -m venv "$root/.venv-services"
"$root/.venv-services/bin/pip" install --quiet --no-deps -r "$root/requirements-trustgraph-services.txt"
"$root/.venv-services/bin/python" -c "import trustgraph.agent.orchestrator.service, trustgraph.retrieval.graph_rag.rag, trustgraph.retrieval.document_rag.rag"
echo "ready: $root/.venv-services"
