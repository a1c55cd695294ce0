"""The CLI's latency: in-process vs through the warm daemon vs the server's own (cpu backend).

    python benchmarks/cli_bench.py [--calls 8] [--backend cpu] [--task DIR]

Same machine, same run, same task (vector add, or --task: a folder with reference.py and
candidate.py such as examples/level1/01_square_matmul; default options: 3 seeds, determinism
check, store), one fresh KERNEL_EVAL_HOME for the whole run:
1. daemon: `kernel-eval run ...` as a script would call it; the first call starts the daemon.
2. in-process: `kernel-eval run --no-daemon ...`: every call starts its own sandbox pool.
3. server: run_accuracy() called directly in this warm process (what an MCP call costs the server,
   without the protocol): the latency the CLI should reach.
First call and the median of the rest (steady state). Goal: the CLI via the daemon within 20% of
the server's latency once warm. Also compile_kernel (cached after its first call) the same way.
4. the floor: `python -c pass` with this interpreter (and with -S, without site and the .pth files of
   its environment): no Python CLI starts faster, so server + floor is the best a CLI can reach.
The daemon, the server and the floor are measured call by call, in turn, so that they share the load.
--python-flags -S starts every CLI (and floor) process without `site` (site-packages put on PYTHONPATH
instead): what an environment whose .pth files cost nothing would give; the daemon starts as usual.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE  # noqa: E402


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: Interpreter flags of every CLI and floor process (--python-flags).
PYTHON_FLAGS: list[str] = []


def _cli_times(args: list[str], calls: int, env: dict, cwd: Path, cpu: list[float]) -> list[float]:
    """Wall time of each call; `cpu` gets the CPU time the CLI process itself used (not the daemon's)."""
    times = []
    for _ in range(calls):
        started, cpu_before = time.perf_counter(), _children_cpu_s()
        command = [sys.executable, *PYTHON_FLAGS, "-m", "tools.cli", *args]
        done = subprocess.run(command, env=env, cwd=cwd, capture_output=True)
        times.append(time.perf_counter() - started)
        cpu.append(_children_cpu_s() - cpu_before)
        if done.returncode != 0:
            raise SystemExit(f"kernel-eval {' '.join(args)} failed ({done.returncode}): {done.stderr.decode()[-800:]}")
    return times


def _cli_times_raw(python_args: list[str], calls: int, env: dict, cwd: Path) -> list[float]:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        subprocess.run([sys.executable, *PYTHON_FLAGS, *python_args], env=env, cwd=cwd, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return times


def _direct_times(tool: str, request, calls: int, cwd: Path) -> list[float]:
    from tools.catalogue import TOOLS

    run = TOOLS[tool].load()
    times = []
    old = os.getcwd()
    os.chdir(cwd)
    try:
        for _ in range(calls):
            started = time.perf_counter()
            run(request, None, None)
            times.append(time.perf_counter() - started)
    finally:
        os.chdir(old)
    return times


def _row(label: str, times: list[float], server_steady: float, cpu: list[float] | None = None) -> str:
    steady = statistics.median(times[1:])
    ratio = f"{steady / server_steady:.2f}x" if server_steady > 1e-3 else "n/a (the server's cache)"
    own_cpu = f"{statistics.median(cpu[1:]):.2f} s" if cpu else ""
    return f"| {label} | {times[0]:.2f} s | {steady:.3f} s | {ratio} | {own_cpu} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=8, help="calls per path (the first is reported apart)")
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--task", type=Path, help="a folder with reference.py and candidate.py (default: vector add)")
    parser.add_argument("--python-flags", default="", help="interpreter flags of the CLI processes, e.g. -S")
    ns = parser.parse_args()
    PYTHON_FLAGS[:] = ns.python_flags.split()
    home = Path(tempfile.mkdtemp(prefix="kernel-eval-cli-bench-"))
    work = home / "work"
    work.mkdir()
    for name, default in (("reference.py", VECTOR_ADD_REFERENCE), ("candidate.py", VECTOR_ADD_CANDIDATE)):
        (work / name).write_text((ns.task / name).read_text() if ns.task else default)
    os.environ["KERNEL_EVAL_HOME"] = str(home)
    env = {k: v for k, v in os.environ.items() if k != "KERNEL_EVAL_NO_DAEMON"}
    # the repository first, and what the caller had (a GPU machine's carried wheels live there)
    import site

    no_site = site.getsitepackages() + [site.getusersitepackages()] if "-S" in PYTHON_FLAGS else []
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", ""), *no_site) if p)
    env.update(PYTHONPATH=path, KERNEL_EVAL_DAEMON_IDLE_S="120")
    task = ["--reference", "reference.py", "--candidate", "candidate.py", "--backend", ns.backend]
    from tools.models.accuracy import RunAccuracyRequest
    from tools.models.compile import CompileKernelRequest

    rows: list[str] = []
    floors: list[str] = []
    try:
        for tool, command, request in (
            (
                "run_accuracy",
                "run",
                RunAccuracyRequest(reference="reference.py", candidate="candidate.py", backend=ns.backend),
            ),
            (
                "compile_kernel",
                "compile",
                CompileKernelRequest(reference="reference.py", candidate="candidate.py", backend=ns.backend),
            ),
        ):
            daemon_cpu: list[float] = []
            local_cpu: list[float] = []
            local = _cli_times([command, *task, "--json", "--no-daemon"], max(3, ns.calls // 2), env, work, local_cpu)
            # the daemon, the server and the floor call by call, so that all three see the same load
            daemon, server, floor, floor_s = [], [], [], []
            for _ in range(ns.calls):
                daemon += _cli_times([command, *task, "--json"], 1, env, work, daemon_cpu)
                server += _direct_times(tool, request, 1, work)
                floor += _cli_times_raw(["-c", "pass"], 1, env, work)
                floor_s += _cli_times_raw(["-S", "-c", "pass"], 1, env, work)
            server_steady = statistics.median(server[1:])
            rows += [
                f"| **{tool}** | | | | |",
                _row(f"`kernel-eval {command}` in-process (`--no-daemon`)", local, server_steady, local_cpu),
                _row(f"`kernel-eval {command}` via the daemon (first: starts it)", daemon, server_steady, daemon_cpu),
                _row(f"{tool}() in a warm process (the server)", server, server_steady),
                _row(
                    "the server + `python -c pass` (the floor: no Python CLI can be faster)",
                    [a + b for a, b in zip(server, floor, strict=True)],
                    server_steady,
                ),
            ]
            floors.append(
                f"`python -c pass` {statistics.median(floor):.3f} s, `python -S -c pass` "
                f"{statistics.median(floor_s):.3f} s (during {command})"
            )
    finally:
        subprocess.run([sys.executable, "-m", "tools.cli", "serve", "--stop"], env=env, cwd=work, capture_output=True)
        from sandbox.pool import Pool

        Pool.close_all()
        shutil.rmtree(home, ignore_errors=True)
    print(
        f"task {ns.task or 'vector add'}, backend {ns.backend}, "
        f"{ns.calls} calls per path ({max(3, ns.calls // 2)} in-process), "
        f"interpreter flags {ns.python_flags or 'none'}, "
        "medians of all but the first\n"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print("| path | first call | steady (median) | steady vs server | the CLI process's own CPU (median) |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nthe interpreter's own start here (medians): {'; '.join(floors)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
