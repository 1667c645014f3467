#!/usr/bin/env bash
# Set up (no browser needed) and run the Streamlit app, on this machine only (127.0.0.1).
#   PORT=8502 bash scripts/demo.sh [extra streamlit args...]
#   TRUSTGRAPH_URL=http://localhost:8888/ bash scripts/demo.sh   opens that TrustGraph gateway
#     (TRUSTGRAPH_TOKEN, TRUSTGRAPH_FLOW, TRUSTGRAPH_COLLECTION if it needs them;
#     docs/sources-and-hosting.md, "Configured sources")
#   ADDRESS=0.0.0.0 TRACE_EXPLORER_ALLOW_REMOTE=1 bash scripts/demo.sh   serves every interface
#     without sign-in, with a warning (docs/sources-and-hosting.md, "Hosting"); without either it refuses to start
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh --no-browser
ADDRESS="${ADDRESS:-127.0.0.1}"
.venv/bin/python -m components.hosting.serving "$ADDRESS"   # refuses, or warns, before anything listens
exec .venv/bin/streamlit run app.py \
    --server.headless true \
    --server.address "$ADDRESS" \
    --server.port "${PORT:-8501}" \
    --browser.gatherUsageStats false \
    "$@"
