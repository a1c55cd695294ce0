"""Load: several MCP clients over HTTP on one home, a mix of verdicts and cancellations.

    python benchmarks/load_bench.py [--clients 8] [--calls 200] [--deadline 900]

Starts the server (`python -m mcp_server --transport http`) on loopback with a fresh home, then
`--clients` SDK clients, each its own HTTP session, share `--calls` run_accuracy calls round-robin
over five kinds: pass, fail, crash (SIGSEGV from a null read), timeout (an endless loop, timeout_s=3) and cancel
(an endless loop the client abandons after 1 s: the SDK sends notifications/cancelled). Counts:
internal errors (must be 0), lost runs (a run_id whose stored result cannot be read back: must
be 0), verdicts other than expected; and the server's own queueing time (timings.queued_s, time
a job waited for a sandbox slot) p50 / p99, with the client-side latency. Everything is bounded
by --deadline; the home is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.types import TextContent, TextResourceContents

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with  # noqa: E402

BASE = {"reference": VECTOR_ADD_REFERENCE, "backend": "cpu", "num_seeds": 1, "determinism_check": False}
LOOP = candidate_with("while True:\n    pass")
KINDS = {
    "pass": ({"candidate": VECTOR_ADD_CANDIDATE}, "pass"),
    "fail": ({"candidate": VECTOR_ADD_CANDIDATE.replace("x + y, mask=mask", "x - y, mask=mask")}, "fail"),
    "crash": ({"candidate": candidate_with("import ctypes\nctypes.string_at(0)\nreturn triton_add(x, y)")}, "crashed"),
    "timeout": ({"candidate": LOOP, "timeout_s": 3}, "timeout"),
    "cancel": ({"candidate": LOOP, "timeout_s": 300}, None),
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def _client(url: str, calls: list[str], stats: dict) -> None:
    from mcp import Client

    async with Client(url) as client:
        for kind in calls:
            arguments, expected = KINDS[kind]
            start = time.monotonic()
            if expected is None:
                with anyio.move_on_after(1.0):
                    await client.call_tool("run_accuracy", {**BASE, **arguments})
                stats["cancelled"] += 1
                continue
            result = await client.call_tool("run_accuracy", {**BASE, **arguments})
            stats["latency"].append(time.monotonic() - start)
            text = next((c.text for c in result.content if isinstance(c, TextContent)), "")
            if result.is_error:
                stats["internal" if "internal error" in text else "errors"].append(f"{kind}: {text[:200]}")
                continue
            data = result.structured_content
            stats["queued"].append(data["timings"]["queued_s"])
            if data["verdict"] != expected:
                stats["unexpected"].append(f"{kind}: {data['verdict']}: {data['summary'][:120]}")
            try:
                contents = (await client.read_resource(f"kernel-eval://runs/{data['run_id']}/result")).contents
                if not isinstance(contents[0], TextResourceContents):
                    raise ValueError("not a text resource")
                stored = json.loads(contents[0].text)
                if stored["run_id"] != data["run_id"]:
                    raise ValueError("another run")
            except Exception as exc:  # noqa: BLE001 - counted, the load goes on
                stats["lost"].append(f"{data['run_id']}: {exc}")


async def _load(url: str, clients: int, calls: int, deadline: float) -> dict:
    kinds = list(KINDS)
    plan = [kinds[i % len(kinds)] for i in range(calls)]
    stats = {"latency": [], "queued": [], "internal": [], "errors": [], "unexpected": [], "lost": [], "cancelled": 0}
    with anyio.fail_after(deadline):
        async with anyio.create_task_group() as tg:
            for c in range(clients):
                tg.start_soon(_client, url, plan[c::clients], stats)
    return stats


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--deadline", type=float, default=900.0, help="seconds for the whole load")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="kernel-eval-load-")
    port = _free_port()
    env = {**os.environ, "KERNEL_EVAL_HOME": home, "PYTHONUNBUFFERED": "1"}
    env.pop("KERNEL_EVAL_TOKEN", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "mcp_server", "--transport", "http", "--port", str(port), "--no-token"],
        cwd=str(ROOT),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        started = time.monotonic()
        stats = anyio.run(_load, f"http://127.0.0.1:{port}/mcp", args.clients, args.calls, args.deadline)
        wall = time.monotonic() - started
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(home, ignore_errors=True)
    answered = len(stats["latency"])
    print(
        f"clients {args.clients}, calls {args.calls} "
        f"({answered} answered, {stats['cancelled']} cancelled by the client), "
        f"slots {min(4, os.cpu_count() or 1)}, wall {wall:.1f} s"
    )
    print("| measure | value |\n|---|---|")
    print(f"| internal errors | {len(stats['internal'])} |")
    print(f"| lost runs (result not readable back) | {len(stats['lost'])} |")
    print(f"| other errors | {len(stats['errors'])} |")
    print(f"| unexpected verdicts | {len(stats['unexpected'])} |")
    print(
        "| queueing (queued_s) p50 / p99 / max | "
        f"{statistics.median(stats['queued']) if stats['queued'] else float('nan'):.3f} / "
        f"{_percentile(stats['queued'], 0.99):.3f} / {max(stats['queued'], default=float('nan')):.3f} s |"
    )
    print(
        f"| client latency p50 / p99 | {_percentile(stats['latency'], 0.5):.2f} / "
        f"{_percentile(stats['latency'], 0.99):.2f} s |"
    )
    for name in ("internal", "lost", "errors", "unexpected"):
        for line in stats[name][:5]:
            print(f"  {name}: {line}")
    return 0 if not stats["internal"] and not stats["lost"] else 1


if __name__ == "__main__":
    sys.exit(main())
