"""A browser test fails, never skips, when Chromium is missing (``scripts/setup.sh`` installs it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.long
def test_a_browser_test_without_chromium_fails_and_says_why(tmp_path):
    missing = tmp_path / "no-chromium"
    # the smallest browser test module, in one process: the hook under test is the same for all
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-m", "browser", "tests/test_browser_sidebar.py"],
                          env={**os.environ, "CHROMIUM_PATH": str(missing)},
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout[-3000:]
    assert "skipped" not in done.stdout and " error" in done.stdout.splitlines()[-1]
    assert f"Chromium not found at {missing}: run scripts/setup.sh" in done.stdout
