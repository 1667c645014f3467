#!/usr/bin/env bash
# Set up (venv, deps, Debian chromium) and run the test suite.
#   bash scripts/test.sh [pytest args...]
# The exit code is pytest's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
# -n 3: three worker processes on two cores. A browser test spends much of its time waiting for
# a page, a server or a subprocess, and a third worker fills that wait: on a 2-core machine, the
# 2,569 tests took 503 s with -n 3 against 681 s with -n 2, in the same hour. Each test gets its
# own servers, ports and temporary folders, so they need not wait for each other; a worker that
# runs out of tests takes some of another's, so one long test at the end does not leave a core idle.
# --only-rerun: a test runs again only when its browser process died under it, never for a failed
# assertion or any other error
exec .venv/bin/python -m pytest -q -n 3 --dist worksteal --reruns 1 --only-rerun TargetClosedError "$@"
