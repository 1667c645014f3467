#!/usr/bin/env bash
# Idempotent project setup.
#
#   bash scripts/setup.sh [--no-browser]
#
# * creates .venv (python3 -m venv) in the repo root if it is missing/broken;
# * installs requirements-dev.txt and the project itself (editable) into it;
# * installs Debian's graphviz and fonts (image export) via apt-get if missing;
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

# --- Debian packages ----------------------------------------------------------
# apt_install PACKAGE...: install with apt-get (listing packages once per run), as root or via sudo.
apt_updated=0
apt_install() {
    local sudo=""
    [[ "$(id -u)" == "0" ]] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    if [[ "$apt_updated" == "0" ]]; then
        $sudo apt-get update -qq
        apt_updated=1
    fi
    $sudo apt-get install -y -qq --no-install-recommends \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
        "$@" </dev/null >/dev/null
}
# require COMMAND_OR_FILE: fail when it is still missing after the install.
require() {
    [[ -e "$1" ]] || command -v "$1" >/dev/null 2>&1 || { log "ERROR: $1 still missing after apt-get install"; exit 1; }
}

# Graphviz and fonts for image export (the app needs them too).
fonts=(/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
       /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf)
missing_font=0
for font in "${fonts[@]}"; do [[ -f "$font" ]] || missing_font=1; done
if ! command -v dot >/dev/null 2>&1 || [[ "$missing_font" == "1" ]]; then
    log "installing Debian's graphviz and fonts via apt-get"
    apt_install graphviz fonts-dejavu-core fonts-droid-fallback
    require dot
fi

# Chromium (browser tests) and Virtuoso (a real SPARQL server for the endpoint tests).
if [[ "$skip_browser" != "1" ]]; then
    if [[ ! -x /usr/bin/chromium ]]; then
        log "installing Debian's chromium via apt-get"
        apt_install chromium fonts-dejavu-core
        require /usr/bin/chromium
    fi
    if [[ ! -x /usr/bin/virtuoso-t ]]; then
        log "installing Debian's virtuoso-opensource via apt-get"
        apt_install virtuoso-opensource-7-bin
        require /usr/bin/virtuoso-t
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
stamp="$(cat requirements.txt requirements-dev.txt requirements-trustgraph.txt pyproject.toml | sha256sum | cut -d' ' -f1)"
stamp="$stamp pkg=$([[ -f trace_explorer/__init__.py ]] && echo yes || echo no)"
if [[ "${TRACE_EXPLORER_FORCE_PIP:-0}" == "1" || ! -f "$stamp_file" || "$(cat "$stamp_file")" != "$stamp" ]]; then
    log "installing Python packages into .venv"
    rm -f "$stamp_file"
    .venv/bin/python -m pip install -q --disable-pip-version-check \
        -r requirements-dev.txt -e .
    # TrustGraph's translators for the tests' stand-in gateway, without its messaging clients
    .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -r requirements-trustgraph.txt
    echo "$stamp" > "$stamp_file"
else
    log ".venv is up to date"
fi
