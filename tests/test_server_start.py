"""What a server does as it starts: the sandbox's slots (operator setting, derived from the host) and the
warm start (the default backend's sandbox started before the first call, not by it)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sandbox import backends
from sandbox.pool import MAX_SLOTS, PoolError, default_slots, spares_for

ROOT = Path(__file__).resolve().parents[1]


def test_slots_follow_the_host_and_the_operator(monkeypatch):
    monkeypatch.delenv("KERNEL_EVAL_SLOTS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert default_slots(backends.CPU) == 4  # the interpreter: one core a job, at most 4
    assert default_slots(backends.CUDA) == 4  # one GPU: a slot per 4 cores
    assert default_slots(backends.CUDA, gpus=2) == 2  # two GPUs share the 16 cores
    assert default_slots(backends.CUDA, gpus=16) == 2  # never fewer than 2 a GPU
    monkeypatch.setattr(os, "cpu_count", lambda: 128)
    assert default_slots(backends.CUDA) == 16  # at most 16 a GPU (each job holds a device context)
    assert default_slots(backends.CUDA, gpus=8) == 4
    assert spares_for(backends.CUDA, 16) == 8 and spares_for(backends.CUDA, 4) == 3 and spares_for(backends.CPU, 4) == 0
    monkeypatch.setenv("KERNEL_EVAL_SLOTS", "6")
    assert default_slots(backends.CUDA) == default_slots(backends.CPU) == 6


@pytest.mark.parametrize("value", ["0", "lots", str(MAX_SLOTS + 1)])
def test_a_bad_slot_setting_says_what_to_give(monkeypatch, value):
    monkeypatch.setenv("KERNEL_EVAL_SLOTS", value)
    with pytest.raises(PoolError, match=f"KERNEL_EVAL_SLOTS={value!r}: give a whole number of sandbox slots"):
        default_slots(backends.CPU)


@pytest.mark.parametrize(
    "flags, env, message",
    [
        (["--slots", "0"], {}, "--slots 0: give a whole number of sandbox slots from 1 to"),
        ([], {"KERNEL_EVAL_SLOTS": "lots"}, "KERNEL_EVAL_SLOTS='lots': give a whole number of sandbox slots"),
    ],
)
def test_serve_refuses_a_bad_slot_setting_at_start(tmp_path, flags, env, message):
    done = subprocess.run(
        [sys.executable, "-m", "tools.cli", "serve", *flags],
        env=os.environ | {"KERNEL_EVAL_HOME": str(tmp_path)} | env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def _zygotes_of(pid: int) -> list[int]:
    """Processes started by `pid` that run the sandbox's zygote."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid and b"sandbox.zygote" in cmdline:
            found.append(int(entry.name))
    return found


def _serve(tmp_path, *flags) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "mcp_server", *flags],
        env=os.environ | {"KERNEL_EVAL_HOME": str(tmp_path)},
        cwd=ROOT,
        stdin=subprocess.PIPE,  # held open: a stdio server serves until its input ends
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_the_server_starts_its_sandbox_before_any_call(tmp_path):
    server = _serve(tmp_path)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not _zygotes_of(server.pid):
            assert server.poll() is None, "the server exited"
            time.sleep(0.2)
        assert _zygotes_of(server.pid), "no sandbox zygote was started without a call"
    finally:
        server.kill()
        server.wait(30)


def test_no_warm_start_leaves_the_sandbox_to_the_first_call(tmp_path):
    server = _serve(tmp_path, "--no-warm-start")
    try:
        time.sleep(8)  # a warm start begins at once (the test above sees it within seconds)
        assert server.poll() is None
        assert _zygotes_of(server.pid) == []
    finally:
        server.kill()
        server.wait(30)
