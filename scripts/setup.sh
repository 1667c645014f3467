#!/usr/bin/env bash
# Idempotent project setup.
#
#   bash scripts/setup.sh [--no-browser]
#
# * creates .venv (python3 -m venv) in the repo root if it is missing/broken;
# * installs requirements-dev.txt and the project itself (editable) into it;
# * installs Debian's chromium (for the browser tests) via apt-get if
#   /usr/bin/chromium is missing, and Virtuoso (virtuoso-t) for the SPARQL
#   endpoint tests.  Skip both with --no-browser or
#   TRACE_EXPLORER_SKIP_BROWSER=1.
#
# The pip step is skipped when nothing relevant changed since the last
# successful run (stamp in .venv); force it with TRACE_EXPLORER_FORCE_PIP=1.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

skip_browser="${TRACE_EXPLORER_SKIP_BROWSER:-0}"
for arg in "$@"; do
    case "$arg" in
        --no-browser) skip_browser=1 ;;
        *) echo "setup.sh: unknown argument: $arg" >&2; exit 2 ;;
    esac
done

log() { echo "[setup] $*" >&2; }

# --- Debian chromium -------------------------------------------------------
if [[ "$skip_browser" != "1" && ! -x /usr/bin/chromium ]]; then
    log "installing Debian's chromium via apt-get"
    sudo=""
    if [[ "$(id -u)" != "0" ]]; then
        sudo="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
        chromium fonts-dejavu-core </dev/null >/dev/null
    if [[ ! -x /usr/bin/chromium ]]; then
        log "ERROR: /usr/bin/chromium still missing after apt-get install"
        exit 1
    fi
fi

# --- Virtuoso (a real SPARQL server for the endpoint tests) -------------------
if [[ "$skip_browser" != "1" && ! -x /usr/bin/virtuoso-t ]]; then
    log "installing Debian's virtuoso-opensource via apt-get"
    export DEBIAN_FRONTEND=noninteractive
    [[ -n "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v lock)" ]] || apt-get update -qq
    apt-get install -y -qq --no-install-recommends virtuoso-opensource-7-bin </dev/null >/dev/null \
        || { apt-get update -qq && apt-get install -y -qq --no-install-recommends virtuoso-opensource-7-bin </dev/null >/dev/null; }
    if [[ ! -x /usr/bin/virtuoso-t ]]; then
        log "ERROR: /usr/bin/virtuoso-t still missing after apt-get install"
        exit 1
    fi
fi

# --- virtualenv -------------------------------------------------------------
if [[ ! -x .venv/bin/python ]] || ! .venv/bin/python -c 'import sys' >/dev/null 2>&1; then
    log "creating .venv"
    rm -rf .venv
    python3 -m venv .venv
fi

# --- Python packages --------------------------------------------------------
# The stamp covers the dependency files and whether trace_explorer/ exists
# (an editable install made before the package existed cannot find it later).
stamp_file=.venv/.trace-explorer-setup-stamp
stamp="$(cat requirements.txt requirements-dev.txt pyproject.toml | sha256sum | cut -d' ' -f1)"
stamp="$stamp pkg=$([[ -f trace_explorer/__init__.py ]] && echo yes || echo no)"
if [[ "${TRACE_EXPLORER_FORCE_PIP:-0}" == "1" || ! -f "$stamp_file" || "$(cat "$stamp_file")" != "$stamp" ]]; then
    log "installing Python packages into .venv"
    rm -f "$stamp_file"
    .venv/bin/python -m pip install -q --disable-pip-version-check \
        -r requirements-dev.txt -e .
    echo "$stamp" > "$stamp_file"
else
    log ".venv is up to date"
fi
