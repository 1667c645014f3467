"""``scripts/setup.sh`` on a stock Debian, played with stand-ins for apt-get, sudo, id and a
python3 without ensurepip (Debian keeps it in python3.X-venv): the functions of the script are
sourced and run in a scratch folder, and what they asked apt-get for, as whom, is checked, as
is the ``.venv`` they leave (a real one: a copy of one made by this machine's Python with pip,
once for the whole run, ``venv_template``: pip's install takes 10-20 s a time)."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.long  # every test here runs subprocesses for seconds

REPO = Path(__file__).resolve().parents[1]
SETUP = REPO / "scripts" / "setup.sh"
# This machine's python3, as the interpreter itself: where python3 is a wrapper (pyenv's shim, a
# bash script that costs about 0.1 s of CPU a start), the stand-in python3 below would run the
# wrapper several times a test.
REAL_PYTHON, VERSION = subprocess.run([shutil.which("python3") or sys.executable, "-c",
                                       "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])"],
                                      capture_output=True, text=True, check=True).stdout.splitlines()

# python3 as Debian has it before python3-venv: ensurepip missing, and `python3 -m venv DIR`
# leaving DIR half-made (a python, no pip) and failing; once apt-get has "installed"
# python3.X-venv (the marker file), the real python3.
PYTHON3 = f"""#!/bin/bash
if [[ ! -e "$STUB_DIR/venv-installed" ]]; then
    if [[ "$1" == "-c" && "$2" == *ensurepip* ]]; then exit 1; fi
    if [[ "$1" == "-m" && "$2" == "venv" ]]; then "{REAL_PYTHON}" -m venv --without-pip "$3"; exit 1; fi
fi
if [[ "$1" == "-m" && "$2" == "venv" && "$#" == 3 ]]; then exec cp -a "$VENV_TEMPLATE" "$3"; fi
exec "{REAL_PYTHON}" "$@"
"""
APT_GET = """#!/bin/bash
echo "apt-get $*" >> "$STUB_DIR/calls"
for package in "$@"; do
    if [[ "$package" == python3.*-venv ]]; then touch "$STUB_DIR/venv-installed"; fi
done
"""
SUDO = """#!/bin/bash
echo "sudo $*" >> "$STUB_DIR/calls"
exec "$@"
"""
ID = """#!/bin/bash
if [[ "$1" == "-u" ]]; then echo "$STUB_UID"; else exec /usr/bin/id "$@"; fi
"""


def _stubs(folder: Path, *, sudo: bool = True, ensurepip: bool = False) -> Path:
    folder.mkdir()
    for name, text in (("python3", PYTHON3), ("apt-get", APT_GET), ("id", ID)) + ((("sudo", SUDO),) if sudo else ()):
        (folder / name).write_text(text, encoding="utf-8")
        (folder / name).chmod(0o755)
    if ensurepip:
        (folder / "venv-installed").touch()
    return folder


@pytest.fixture(scope="session")
def venv_template(tmp_path_factory) -> Path:
    """A virtualenv with pip made by this machine's python3, once for every process of the test
    run (pytest-xdist's workers share their base folder's parent), for the stand-in python3 to copy."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    template = shared / "setup-script-venv"
    with open(shared / "setup-script-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one process makes it, the others wait for it
        if not (template / "done").exists():
            shutil.rmtree(template, ignore_errors=True)
            subprocess.run([REAL_PYTHON, "-m", "venv", str(template)], check=True)
            (template / "done").touch()
    return template


@pytest.fixture(autouse=True)
def _template_for_stubs(venv_template, monkeypatch):
    monkeypatch.setenv("VENV_TEMPLATE", str(venv_template))


def _run(work: Path, stubs: Path, script: str, uid: int = 0, path: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, STUB_DIR=str(stubs), STUB_UID=str(uid),
               PATH=path if path is not None else f"{stubs}:/usr/bin:/bin")
    return subprocess.run(["/bin/bash", "-c", f'source "{SETUP}"; cd "{work}"; {script}'], env=env,
                          capture_output=True, text=True, timeout=600)


def _calls(stubs: Path) -> list[str]:
    calls = stubs / "calls"
    return calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []


def _pip_works(work: Path) -> bool:
    return subprocess.run([str(work / ".venv" / "bin" / "python"), "-m", "pip", "--version"],
                          capture_output=True).returncode == 0


def test_as_root_a_half_made_venv_is_made_again_after_installing_python3_venv(tmp_path):
    stubs, work = _stubs(tmp_path / "stubs"), tmp_path / "work"
    work.mkdir()
    subprocess.run([REAL_PYTHON, "-m", "venv", "--without-pip", str(work / ".venv")], check=True)  # half-made
    done = _run(work, stubs, "ensure_python; ensure_venv")
    assert done.returncode == 0, done.stderr
    install = [c for c in _calls(stubs) if " install " in c]
    assert install and install[0].startswith("apt-get -o DPkg::Lock::Timeout=600 install ")  # as root: no sudo
    assert install[0].endswith(f"python3-venv python{VERSION}-venv")
    assert "making .venv again (it is half-made or broken)" in done.stderr
    assert _pip_works(work)


def test_as_a_user_apt_get_goes_through_sudo(tmp_path):
    stubs, work = _stubs(tmp_path / "stubs"), tmp_path / "work"
    work.mkdir()
    done = _run(work, stubs, "ensure_python; ensure_venv", uid=1000)
    assert done.returncode == 0, done.stderr
    calls = _calls(stubs)
    assert calls[0] == "sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq"
    assert any(c.startswith("sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install ")
               and c.endswith(f"python3-venv python{VERSION}-venv") for c in calls)
    assert "creating .venv" in done.stderr and _pip_works(work)


BUSY_APT_GET = """#!/bin/bash
echo "apt-get $*" >> "$STUB_DIR/calls"
if [[ "$*" != *"-o DPkg::Lock::Timeout="* ]]; then
    echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)" >&2
    exit 100
fi
for package in "$@"; do
    if [[ "$package" == python3.*-venv ]]; then touch "$STUB_DIR/venv-installed"; fi
done
"""


def test_a_busy_apt_is_waited_for(tmp_path):
    """Another apt run holds the lock (this apt-get fails at once unless told to wait for it)."""
    stubs, work = _stubs(tmp_path / "stubs"), tmp_path / "work"
    (stubs / "apt-get").write_text(BUSY_APT_GET)
    work.mkdir()
    done = _run(work, stubs, "APT_LOCK_WAIT_S=900; ensure_python; ensure_venv")
    assert done.returncode == 0, done.stderr
    calls = _calls(stubs)
    assert len(calls) == 2 and all(c.startswith("apt-get -o DPkg::Lock::Timeout=900 ") for c in calls), calls
    assert _pip_works(work)


def test_as_a_user_without_sudo_it_stops_and_says_so(tmp_path):
    stubs, work = _stubs(tmp_path / "stubs", sudo=False), tmp_path / "work"
    work.mkdir()
    done = _run(work, stubs, "apt_install python3-venv", uid=1000, path=str(stubs))  # no sudo anywhere
    assert done.returncode != 0
    assert "needs root: run this script as root, or install sudo" in done.stderr
    assert _calls(stubs) == []


def test_a_venv_whose_python_is_gone_is_made_again_without_apt(tmp_path):
    stubs, work = _stubs(tmp_path / "stubs", ensurepip=True), tmp_path / "work"
    (work / ".venv" / "bin").mkdir(parents=True)
    (work / ".venv" / "pyvenv.cfg").write_text("home = /nowhere\n", encoding="utf-8")
    (work / ".venv" / "bin" / "python").symlink_to("/nowhere/python3")
    done = _run(work, stubs, "ensure_python; ensure_venv")
    assert done.returncode == 0, done.stderr
    assert _calls(stubs) == [] and _pip_works(work)


def test_a_working_venv_is_left_alone(tmp_path):
    stubs, work = _stubs(tmp_path / "stubs", ensurepip=True), tmp_path / "work"
    work.mkdir()
    shutil.copytree(os.environ["VENV_TEMPLATE"], work / ".venv", symlinks=True)
    (work / ".venv" / "kept").touch()
    done = _run(work, stubs, "ensure_python; ensure_venv")
    assert done.returncode == 0, done.stderr
    assert (work / ".venv" / "kept").exists() and _calls(stubs) == []


def test_sourcing_the_script_runs_nothing(tmp_path):
    done = subprocess.run(["/bin/bash", "-c", f'source "{SETUP}"; declare -F main ensure_venv venv_packages'],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.split() == ["main", "ensure_venv", "venv_packages"]
    assert list(tmp_path.iterdir()) == []
