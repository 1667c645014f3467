#!/usr/bin/env bash
# Idempotent project setup, on a stock Debian 12 or 13 (as root, or as a user with sudo).
#
#   bash scripts/setup.sh [--no-browser]
#
# * installs Debian's python3 and python3-venv (with the versioned python3.X-venv that holds
#   ensurepip) via apt-get when `python3 -m venv` cannot make a virtualenv with pip;
# * creates .venv (python3 -m venv) in the repo root, and makes it again when it is missing,
#   half-made (no pip: an earlier `python3 -m venv` stopped without ensurepip) or broken (its
#   python gone or not starting);
# * installs requirements-dev.txt and the project itself (editable) into it, with uv (pinned,
#   from PyPI) or with pip when uv cannot be installed;
# * installs Debian's graphviz and fonts (image export) via apt-get if missing;
# * installs Debian's chromium and chromium-headless-shell (for the browser
#   tests and benchmarks) via apt-get if either is missing, and Virtuoso (virtuoso-t) for the SPARQL
#   endpoint tests.  Skip all three with --no-browser or
#   TRACE_EXPLORER_SKIP_BROWSER=1.
#
# apt-get runs directly as root, through sudo otherwise; without either it stops and says so.
# The pip step is skipped when nothing relevant changed since the last
# successful run (stamp in .venv); force it with TRACE_EXPLORER_FORCE_PIP=1.
#
# Sourcing the file (`source scripts/setup.sh`) defines its functions without running them
# (tests/test_setup_script.py checks them one by one).
set -euo pipefail

log() { echo "[setup] $*" >&2; }

# --- Debian packages ----------------------------------------------------------
# as_root COMMAND...: run a command as root: directly when root, through sudo otherwise.
as_root() {
    if [[ "$(id -u)" == "0" ]]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        log "ERROR: '$*' needs root: run this script as root, or install sudo"
        return 1
    fi
}

# apt_install PACKAGE...: install with apt-get (listing packages once per run). Another apt run
# holding the lock (unattended upgrades on a fresh cloud machine) is waited for, up to
# APT_LOCK_WAIT_S seconds (default 600), rather than ending the setup at once.
apt_updated=0
apt_install() {
    local wait="-o DPkg::Lock::Timeout=${APT_LOCK_WAIT_S:-600}"
    if [[ "$apt_updated" == "0" ]]; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get $wait update -qq
        apt_updated=1
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get $wait install -y -qq --no-install-recommends \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
        "$@" </dev/null >/dev/null
}

# require COMMAND_OR_FILE: fail when it is still missing after the install.
require() {
    [[ -e "$1" ]] || command -v "$1" >/dev/null 2>&1 || { log "ERROR: $1 still missing after apt-get install"; exit 1; }
}

# --- Python and its venv module -------------------------------------------------
# venv_works: can python3 make a virtualenv with pip? (Debian splits ensurepip, which
# `python3 -m venv` needs, into python3.X-venv.)
venv_works() {
    python3 -c 'import ensurepip, venv' >/dev/null 2>&1
}

# venv_packages: the Debian packages that give this python3 its venv module with pip.
venv_packages() {
    local version
    version="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    echo "python3-venv python${version}-venv"
}

ensure_python() {
    if ! command -v python3 >/dev/null 2>&1; then
        log "installing Debian's python3 via apt-get"
        apt_install python3
        require python3
    fi
}

# install_venv_support: install what `python3 -m venv` needs, once per run.
venv_support_installed=0
install_venv_support() {
    [[ "$venv_support_installed" == "0" ]] || return 1
    local packages
    packages="$(venv_packages)"
    log "installing Debian's $packages via apt-get (python3 -m venv needs them)"
    # shellcheck disable=SC2086 # two package names, split on purpose
    apt_install $packages
    venv_support_installed=1
}

# venv_ok: .venv exists with a python that starts and a pip it can run.
venv_ok() {
    [[ -f .venv/pyvenv.cfg && -x .venv/bin/python ]] &&
        .venv/bin/python -c 'import sys' >/dev/null 2>&1 &&
        .venv/bin/python -m pip --version >/dev/null 2>&1
}

# ensure_venv: a working .venv, made (again) when missing, half-made or broken; python3-venv is
# installed first when python3 lacks ensurepip, or when a first attempt still made no pip.
ensure_venv() {
    venv_ok && return 0
    if [[ -e .venv ]]; then log "making .venv again (it is half-made or broken)"; else log "creating .venv"; fi
    if ! venv_works; then
        install_venv_support
    fi
    while true; do
        rm -rf .venv
        python3 -m venv .venv >/dev/null 2>&1 && venv_ok && return 0
        install_venv_support || break
    done
    log "ERROR: python3 -m venv cannot make a virtualenv with pip (tried with $(venv_packages) installed)"
    exit 1
}

# --- Python packages --------------------------------------------------------
# The stamp covers the dependency files and whether trace_explorer/ exists
# (an editable install made before the package existed cannot find it later).
UV_VERSION=0.13.9
use_uv=0

# python_packages ARGS...: `pip install ARGS` into .venv, by uv when it was installed (use_uv=1),
# by pip when uv was not or fails: uv reads no pip configuration, so a machine whose pip is set to
# a mirror it alone can reach still gets its packages.
python_packages() {
    if [[ "$use_uv" == "1" ]]; then
        # --compile-bytecode: pip writes each module's .pyc as it installs, uv only when asked;
        # without them, a machine with PYTHONDONTWRITEBYTECODE set compiles every import again in
        # every process (the suite then takes about a third more CPU)
        UV_HTTP_TIMEOUT="${UV_HTTP_TIMEOUT:-30}" .venv/bin/uv pip install -q --compile-bytecode \
            --python .venv/bin/python "$@" && return 0
        log "uv could not install them; installing with pip (and the rest too)"
        use_uv=0
    fi
    .venv/bin/python -m pip install -q --disable-pip-version-check "$@"
}

install_packages() {
    local stamp_file=.venv/.trace-explorer-setup-stamp stamp
    stamp="$( (cat requirements.txt requirements-dev.txt requirements-trustgraph.txt pyproject.toml; echo "uv $UV_VERSION") | sha256sum | cut -d' ' -f1)"
    stamp="$stamp pkg=$([[ -f trace_explorer/__init__.py ]] && echo yes || echo no)"
    if [[ "${TRACE_EXPLORER_FORCE_PIP:-0}" == "1" || ! -f "$stamp_file" || "$(cat "$stamp_file")" != "$stamp" ]]; then
        log "installing Python packages into .venv"
        rm -f "$stamp_file"
        # uv (Astral's installer, from PyPI) installs the ~100 pinned wheels in about 9 s of wall
        # time where pip takes about 75 s on a 2-core machine; pip does it when uv cannot be had.
        use_uv=0
        if .venv/bin/python -m pip install -q --disable-pip-version-check "uv==$UV_VERSION" >/dev/null 2>&1; then
            use_uv=1
        else
            log "uv $UV_VERSION could not be installed from the package index; installing with pip"
        fi
        python_packages -r requirements-dev.txt -e .
        # TrustGraph's translators for the tests' stand-in gateway, without its messaging clients
        python_packages --no-deps -r requirements-trustgraph.txt
        # the page export's Vega bundle (~2 s of CPU), made here once per vl-convert version rather
        # than by the user's first export
        .venv/bin/python -c "from trace_explorer.export.page import vega_bundle; vega_bundle()" \
            || log "the Vega bundle for page exports could not be made now; the first export makes it"
        echo "$stamp" > "$stamp_file"
    else
        log ".venv is up to date"
    fi
}

# compile_sources: the project's own modules compiled once here, so that each process of the app,
# the command line and the tests reads them compiled, on a machine with PYTHONDONTWRITEBYTECODE set
# too (each process would compile them again: about 0.1 s of CPU each). A module changed later is
# compiled again by the process that imports it, as Python always does with an older .pyc.
compile_sources() {
    .venv/bin/python -m compileall -q -j 0 app.py app_pages components trace_explorer tests benchmarks >/dev/null ||
        log "some of the project's modules could not be compiled now; they are compiled as they are imported"
}

# build_lemma_tries: simplemma's dictionaries as tries on disk (trace_explorer/analysis/support/
# lemmas.py), made here once (about 17 s of CPU for the eleven languages, in two processes) rather
# than by the first answer a process checks; languages already built are only opened.
build_lemma_tries() {
    local module=trace_explorer.analysis.support.lemmas
    .venv/bin/python -m "$module" de ru en fr it nl & local first=$!
    .venv/bin/python -m "$module" es pt sv da tr || log "some lemma tries could not be built now; each is built when first needed"
    wait "$first" || log "some lemma tries could not be built now; each is built when first needed"
}

# --- the tools outside Python -----------------------------------------------------
ensure_tools() {
    local skip_browser="$1" font missing_font=0
    # Graphviz and fonts for image export (the app needs them too).
    local fonts=(/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
                 /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf)
    for font in "${fonts[@]}"; do [[ -f "$font" ]] || missing_font=1; done
    if ! command -v dot >/dev/null 2>&1 || [[ "$missing_font" == "1" ]]; then
        log "installing Debian's graphviz and fonts via apt-get"
        apt_install graphviz fonts-dejavu-core fonts-droid-fallback
        require dot
    fi
    # Chromium (browser tests) and Virtuoso (a real SPARQL server for the endpoint tests).
    if [[ "$skip_browser" != "1" ]]; then
        # chromium-headless-shell runs the tests (lighter: no window system, a simpler
        # compositor); chromium, the browser people use, runs the benchmarks
        if [[ ! -x /usr/bin/chromium || ! -x /usr/bin/chromium-headless-shell ]]; then
            log "installing Debian's chromium and chromium-headless-shell via apt-get"
            apt_install chromium chromium-headless-shell fonts-dejavu-core
            require /usr/bin/chromium
            require /usr/bin/chromium-headless-shell
        fi
        if [[ ! -x /usr/bin/virtuoso-t ]]; then
            log "installing Debian's virtuoso-opensource via apt-get"
            apt_install virtuoso-opensource-7-bin
            require /usr/bin/virtuoso-t
        fi
    fi
}

main() {
    cd "$(dirname "${BASH_SOURCE[0]}")/.."
    local skip_browser="${TRACE_EXPLORER_SKIP_BROWSER:-0}" arg
    for arg in "$@"; do
        case "$arg" in
            --no-browser) skip_browser=1 ;;
            *) echo "setup.sh: unknown argument: $arg" >&2; exit 2 ;;
        esac
    done
    ensure_tools "$skip_browser"
    ensure_python
    ensure_venv
    install_packages
    compile_sources
    build_lemma_tries
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
