#!/usr/bin/env bash
# Set up (venv, deps, Debian chromium) and run the test suite.
#   bash scripts/test.sh [pytest args...]
# The exit code is pytest's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
# -n 4: four worker processes on two cores. A browser test spends much of its time waiting for a
# page, a server or a subprocess, and the other workers fill that wait: on a 2-core machine the
# 3,340 tests took 444 s with -n 4 against 522 s with -n 3 and 472 s with -n 5, in the same hour
# (with -n 3, the processes used 1.3 cores of the 2). Each test gets its own servers, ports and
# temporary folders, so they need not wait for each other; a worker that runs out of tests takes
# some of another's, so one long test at the end does not leave a core idle.
# --only-rerun: a test runs again only when its browser process died under it, never for a failed
# assertion or any other error
exec .venv/bin/python -m pytest -q -n 4 --dist worksteal --reruns 1 --only-rerun TargetClosedError "$@"
