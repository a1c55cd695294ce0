"""pyright (basic) is clean on the parts declared in pyproject.toml's [tool.pyright] include."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYRIGHT = Path(sys.executable).with_name("pyright")


@pytest.mark.skipif(
    not PYRIGHT.exists() or shutil.which("node") is None, reason="pyright (dev extra) and node are needed"
)
def test_pyright_basic_is_clean():
    # --project: this checkout's pyproject.toml, never a pyrightconfig.json in a folder above it
    done = subprocess.run(
        [str(PYRIGHT), "--outputjson", "--project", str(ROOT)], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
