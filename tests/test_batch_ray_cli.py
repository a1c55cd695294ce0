"""`kernel-eval batch --engine ray --ray-address ADDR` against a cluster started by `ray start --head`
in a subprocess (its own module: one cluster per module), stopped with every process it started."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests import batch_cases
from tests.test_batch import wait_gone
from tests.test_batch_ray import descendants
from tools.models.batch import BatchItem

pytest.importorskip("ray", reason="the Ray engine is optional: pip install 'kernel-eval-mcp[ray]'")
pytestmark = pytest.mark.timeout(300)

BIN = Path(sys.executable).parent
PICK = [0, 1, 2, 5, 7, 13]  # pass, fail, rejected, crashed, pass on the other task, unreadable source


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_head():
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="ke-ray-", dir="/tmp")
    head = subprocess.Popen(
        [
            str(BIN / "ray"),
            "start",
            "--head",
            "--block",
            "--node-ip-address=127.0.0.1",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={temp}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield f"127.0.0.1:{port}"
    finally:
        tree = descendants(head.pid) | {head.pid}
        os.killpg(head.pid, signal.SIGTERM)
        try:
            head.wait(10)
        except subprocess.TimeoutExpired:
            pass
        for pid in tree:  # what did not drain in time
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        head.wait(10)
        assert not wait_gone(tree, 20), "processes of `ray start` outlived the test"


def test_cli_batch_on_a_ray_cluster_by_address(ray_head, tmp_path):
    requests = [batch_cases.requests()[i] for i in PICK]
    manifest = tmp_path / "batch.jsonl"
    manifest.write_text("\n".join(r.model_dump_json(exclude_unset=True) for r in requests) + "\n")
    command = [str(BIN / "kernel-eval"), "batch", str(manifest), "--engine", "ray", "--ray-address", ray_head, "--json"]
    deadline = time.monotonic() + 60  # the head may still be starting
    while True:
        done = subprocess.run(command, capture_output=True, text=True, timeout=240)
        if done.returncode != 2 or time.monotonic() > deadline:
            break
        time.sleep(2)
    assert done.returncode == 1, done.stderr[-2000:]
    items = [BatchItem.model_validate_json(line) for line in done.stdout.splitlines()]
    assert [i.verdict for i in items] == [batch_cases.expected()[i] for i in PICK]
    assert all(i.worker.startswith("ray:cpu") for i in items if i.result is not None)
    singles = batch_cases.single_results()
    for item, index in zip(items, PICK, strict=True):
        got = item.result if item.result is not None else item.error.message
        assert batch_cases.comparable(got) == batch_cases.comparable(singles[index]), f"request {index}"


def test_cli_batch_unreachable_ray_address_is_a_usage_error(tmp_path):
    manifest = tmp_path / "one.jsonl"
    manifest.write_text(batch_cases.requests()[0].model_dump_json(exclude_unset=True) + "\n")
    port = _free_port()
    done = subprocess.run(
        [str(BIN / "kernel-eval"), "batch", str(manifest), "--engine", "ray", "--ray-address", f"127.0.0.1:{port}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "cannot connect to Ray" in done.stderr and "Traceback" not in done.stderr
