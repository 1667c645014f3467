#!/usr/bin/env bash
# Set up (no browser needed) and run the Streamlit app.
#   PORT=8502 bash scripts/demo.sh [extra streamlit args...]
#   TRUSTGRAPH_URL=http://localhost:8888/ bash scripts/demo.sh   opens that TrustGraph gateway
#     (TRUSTGRAPH_TOKEN, TRUSTGRAPH_FLOW, TRUSTGRAPH_COLLECTION if it needs them; README, "Configured sources")
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh --no-browser
exec .venv/bin/streamlit run app.py \
    --server.headless true \
    --server.port "${PORT:-8501}" \
    --browser.gatherUsageStats false \
    "$@"
