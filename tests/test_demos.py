"""The README's demo and the scripted loop example run as users run them (subprocesses, real MCP over stdio)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELU = ROOT / "examples" / "level1" / "19_relu"


def test_demo_runs_one_autoresearch_iteration():
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py")], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "=== run_accuracy (buggy candidate)\nFAIL" in done.stdout
    assert "iteration done: fail -> pass" in done.stdout
    # the server it starts keeps its runs in the caller's $KERNEL_EVAL_HOME (the SDK's stdio client passes
    # no variable it is not told to): `kernel-eval explain RUN_ID` afterwards finds them
    run_ids = set(re.findall(r"\br-\d{8}-\d{6}-[0-9a-f]{6}\b", done.stdout))
    home = Path(os.environ["KERNEL_EVAL_HOME"])
    assert run_ids and all((home / "runs" / run_id).is_dir() for run_id in run_ids), (run_ids, home)


def test_scripted_loop_stops_at_the_first_pass():
    candidates = [RELU / "candidate_torch_op.py", RELU / "candidate.py", RELU / "candidate_inplace.py"]
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "autoresearch_loop.py"),
            str(RELU / "reference.py"),
            *map(str, candidates),
            "--backend",
            "cpu",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 2 and "rejected" in lines[0] and " pass " in lines[1]
