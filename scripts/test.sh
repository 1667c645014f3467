#!/usr/bin/env bash
# Set up (venv, deps, Debian chromium) and run the test suite.
#   bash scripts/test.sh [pytest args...]
# The exit code is pytest's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
# -n 2: the tests run in two worker processes, one a core (each test gets its own servers, ports and
# temporary folders, so they need not wait for each other); a worker that runs out of tests takes
# some of the other's, so one long test at the end does not leave a core idle
# --only-rerun: a test runs again only when its browser process died under it, never for a failed
# assertion or any other error
exec .venv/bin/python -m pytest -q -n 2 --dist worksteal --reruns 1 --only-rerun TargetClosedError "$@"
