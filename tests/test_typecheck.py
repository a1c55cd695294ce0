"""pyright (basic) is clean on the code pyproject.toml's [tool.pyright] includes: mcp_server/, tools/,
sandbox/, benchmarks/ and examples/ (not the kernel fixtures). No file is exempt: where the checker
cannot know a type (a monkey-patch, an optional import), the line says so with a
`# pyright: ignore[rule]` (or `# type: ignore[code]`) comment and its reason.
"""

from __future__ import annotations

import json
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
        [str(PYRIGHT), "--outputjson", "--project", str(ROOT)], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    try:
        report = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"pyright did not report (exit {done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}")
    assert report["summary"]["filesAnalyzed"] > 50, report["summary"]  # the include list was read
    errors = [
        f"{Path(d['file']).relative_to(ROOT)}:{d['range']['start']['line'] + 1}: {d.get('rule')}: {d['message']}"
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]
    assert not errors, "pyright errors:\n" + "\n".join(errors)
