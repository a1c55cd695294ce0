"""The run store: each run's result, its task, and the tensors explain_failure needs."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import time
from pathlib import Path

from sandbox import tensorio
from tools.errors import ToolInputError

RUN_ID = re.compile(r"^r-\d{8}-\d{6}-[0-9a-f]{6}$")
MAX_RUNS = 500


class RunStore:
    def __init__(self, root: Path, max_runs: int = MAX_RUNS):
        self.root = root / "runs"
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.max_runs = max_runs

    @staticmethod
    def new_id() -> str:
        return time.strftime("r-%Y%m%d-%H%M%S-") + secrets.token_hex(3)

    def path(self, run_id: str) -> Path:
        if not isinstance(run_id, str) or not RUN_ID.match(run_id):
            raise ToolInputError(f"{run_id!r} is not a run id (they look like r-20261129-121500-a1b2c3); run_accuracy returns one")
        path = self.root / run_id
        if not path.is_dir():
            raise ToolInputError(f"unknown run_id {run_id!r}: no such run in the store (runs are kept for the last {self.max_runs} calls); call run_accuracy first")
        return path

    def save(self, run_id: str, result: dict, task: dict, tensors: dict | None) -> None:
        path = self.root / run_id
        path.mkdir(mode=0o700)
        (path / "task.json").write_text(json.dumps(task))
        if tensors:
            fd = os.open(path / "tensors.bin", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                tensorio.write_bundle(fd, tensors)
            finally:
                os.close(fd)
        (path / "result.json").write_text(json.dumps(result))  # last: its presence marks a whole run
        self._evict()

    def result(self, run_id: str) -> dict:
        return json.loads((self.path(run_id) / "result.json").read_text())

    def task(self, run_id: str) -> dict:
        return json.loads((self.path(run_id) / "task.json").read_text())

    def tensors(self, run_id: str) -> dict:
        file = self.path(run_id) / "tensors.bin"
        if not file.exists():
            return {}
        return tensorio.read_bundle(str(file), max_bytes=1 << 40)[1]

    def save_file(self, run_id: str, name: str, data: bytes) -> Path:
        target = self.path(run_id) / name
        target.write_bytes(data)
        return target

    def _evict(self) -> None:
        runs = sorted(p for p in self.root.iterdir() if p.is_dir())
        for old in runs[: max(0, len(runs) - self.max_runs)]:
            shutil.rmtree(old, ignore_errors=True)
