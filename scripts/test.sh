#!/usr/bin/env bash
# Set up (venv, deps, Debian chromium) and run the test suite.
#   bash scripts/test.sh [pytest args...]
# The exit code is pytest's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
exec .venv/bin/python -m pytest -q "$@"
