"""A huge stdio message is refused early: a real server subprocess, a 256 MiB line, bounded memory.

The line is streamed in 1 MiB pieces (the test never holds it), the server answers the request's id
with a JSON-RPC error naming the limit, keeps serving, and its peak RSS (VmHWM) barely moves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import mcp.types
import pytest

from mcp_server import stdio_limit

ROOT = Path(__file__).resolve().parents[1]
HUGE_MIB = 256


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


class _Lines:
    """JSON-RPC lines from the server's stdout, read by a thread so a stuck server fails the test."""

    def __init__(self, proc: subprocess.Popen):
        self.proc, self.lines, self.ready = proc, [], threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.ready:
                self.lines.append(json.loads(line))
                self.ready.notify_all()

    def response(self, request_id, timeout=60.0) -> dict:
        def found():
            return next((m for m in self.lines if m.get("id") == request_id), None)

        with self.ready:
            self.ready.wait_for(lambda: found() is not None, timeout=timeout)
            message = found()
        if message is None and self.proc.poll() is not None:
            pytest.fail(f"the server exited (status {self.proc.returncode}; killed for memory?) before answering")
        assert message is not None, f"no response to id {request_id} in {timeout} s; got {self.lines}"
        return message


def _send(proc: subprocess.Popen, message: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _kill_above(proc: subprocess.Popen, limit_mib: float, stop: threading.Event) -> None:
    """Bounded even if the limit fails: kill the server once its RSS passes `limit_mib`."""
    while not stop.wait(0.02) and proc.poll() is None:
        if _rss_mib(proc.pid) > limit_mib:
            proc.kill()
            return


@pytest.fixture
def server():
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_server"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=30)


@pytest.mark.timeout(300)
def test_a_256_mib_message_is_refused_with_bounded_memory(server):
    lines = _Lines(server)
    _send(
        server,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": mcp.types.LATEST_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        },
    )
    assert "result" in lines.response(1), lines.lines
    _send(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    before = _peak_rss_mib(server.pid)
    stop = threading.Event()
    threading.Thread(target=_kill_above, args=(server, before + 512, stop), daemon=True).start()

    assert server.stdin is not None
    head = b'{"jsonrpc": "2.0", "id": "big-1", "method": "tools/call", "params": {"name": "compile_kernel", '
    server.stdin.write(head + b'"arguments": {"candidate": "')
    piece = b"x" * (1 << 20)
    try:
        for _ in range(HUGE_MIB):
            server.stdin.write(piece)
        server.stdin.write(b'"}}}\n')
        server.stdin.flush()
    except BrokenPipeError:
        pytest.fail(f"the server passed {before + 512:.0f} MiB of RSS reading a {HUGE_MIB} MiB message (killed)")

    error = lines.response("big-1")["error"]
    assert error["code"] == stdio_limit.INVALID_REQUEST
    assert f"{stdio_limit.MAX_MESSAGE_BYTES}-byte limit" in error["message"], error
    assert "file paths" in error["message"]
    growth = _peak_rss_mib(server.pid) - before
    stop.set()
    assert growth < 64, f"the server's peak RSS grew {growth:.0f} MiB reading a {HUGE_MIB} MiB message"

    _send(server, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"})  # still serving
    assert {t["name"] for t in lines.response(3)["result"]["tools"]} >= {"compile_kernel", "run_accuracy"}


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"arguments": {"id": 9', 7),
        (b'{"method": "tools/call", "params": {"arguments": {"id": 9, "x": "}{\\"id\\": 5"}}, "id": "a"', "a"),
        (b'{"jsonrpc": "2.0", "method": "tools/call", "params": {"arguments": {"id": 9, "candidate": "xxxx', None),
        (b'{"jsonrpc": "2.0", "id": true', None),
        (b"not json at all", None),
    ],
)
def test_only_the_top_level_id_is_answered(head, expected):
    assert stdio_limit.top_level_id(head) == expected
