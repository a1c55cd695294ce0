"""Which per-process limit bounds a CUDA job's host memory? An experiment for the GPU machine.

    python3 benchmarks/host_memory_probe.py            # each case in a fresh process, a table at the end

A sandboxed job on cuda makes its CUDA context (and loads Triton's driver utilities) while it waits,
then applies its limits, then runs the candidate. RLIMIT_AS cannot hold it the way it holds a cpu job
(the driver reserves address ranges far larger than memory), so this measures, in that order (device
warm, then the limit, then the case): whether honest GPU work still runs under RLIMIT_DATA or under
an RLIMIT_AS set above what the warm process maps, and which ways of taking host memory each stops.
Every case asks for BUDGET + 1 GiB at most, so a limit that fails costs the machine that much.
"""

from __future__ import annotations

import json
import subprocess
import sys

import torch
import triton
import triton.language as tl

BUDGET = 2 << 30  # what the job may take beyond what the warm process holds
SLACK_AS = 8 << 30  # address space added for libraries an honest job maps later (cuBLAS, cuDNN)
CASES = [
    "honest",
    "bytearray",
    "torch_cpu",
    "numpy",
    "pinned",
    "mmap_shared_anon",
    "mmap_private_anon",
    "dev_zero_shared",
]


def status(field: str) -> int:
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) << 10
    return 0


@triton.jit
def _add(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs, mask=offs < n) + 1, mask=offs < n)


@triton.jit
def _scale(x, y, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + offs, tl.load(x + offs, mask=offs < n) * s, mask=offs < n)


def warm() -> None:
    """What a spare does before its job: the CUDA context, a launch, the pinned staging buffers."""
    x = torch.zeros(1024, device="cuda")
    _add[(1,)](x, x, 1024, BLOCK=1024)  # pyright: ignore[reportArgumentType] (a tl.constexpr)
    torch.empty(64 << 20, dtype=torch.uint8, pin_memory=True)
    torch.cuda.synchronize()


def honest() -> str:
    a = torch.randn(4096, 4096, device="cuda")
    c = a @ a  # cuBLAS
    big = torch.empty(20 << 30, dtype=torch.uint8, device="cuda")  # 20 GiB on the GPU
    big.fill_(1)
    y = torch.empty_like(a)
    grid = (triton.cdiv(a.numel(), 1024),)
    _scale[grid](a, y, a.numel(), 2.0, BLOCK=1024)  # pyright: ignore[reportArgumentType] (a new compile: ptxas)
    conv = torch.nn.functional.conv2d(
        torch.randn(8, 16, 64, 64, device="cuda"), torch.randn(32, 16, 3, 3, device="cuda")
    )
    host = a.cpu()  # 64 MiB back to the host
    torch.cuda.synchronize()
    size = status("VmSize") >> 30
    return f"ok: matmul {float(c[0, 0]):.1f}, conv {tuple(conv.shape)}, copy {host.numel()}; VmSize {size} GiB"


def take(case: str) -> str:
    size = BUDGET + (1 << 30)
    if case == "bytearray":
        b = bytearray(size)
        b[::4096] = b"\1" * (size // 4096)
    elif case == "torch_cpu":
        torch.empty(size, dtype=torch.uint8).fill_(1)
    elif case == "numpy":
        import numpy

        numpy.ones(size, dtype=numpy.uint8)
    elif case == "pinned":
        torch.empty(size, dtype=torch.uint8, pin_memory=True).fill_(1)
    elif case in ("mmap_shared_anon", "mmap_private_anon", "dev_zero_shared"):
        import mmap

        if case == "dev_zero_shared":
            with open("/dev/zero", "r+b") as f:
                m = mmap.mmap(f.fileno(), size, flags=mmap.MAP_SHARED)
        else:
            flags = mmap.MAP_SHARED if case == "mmap_shared_anon" else mmap.MAP_PRIVATE
            m = mmap.mmap(-1, size, flags=flags | mmap.MAP_ANONYMOUS)
        for i in range(0, size, 4096):
            m[i] = 1
    return f"ESCAPED: took {size >> 30} GiB"


def one(case: str, limit: str) -> dict:
    import resource

    warm()
    warm_rss, warm_data, warm_size = status("VmRSS"), status("VmData"), status("VmSize")
    if limit == "data":
        resource.setrlimit(resource.RLIMIT_DATA, (warm_data + BUDGET, warm_data + BUDGET))
    elif limit == "as":
        ceiling = warm_size + BUDGET + SLACK_AS
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))
    try:
        outcome = honest() if case == "honest" else take(case)
    except (MemoryError, RuntimeError, OSError, ValueError) as exc:
        outcome = f"stopped: {type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:100]}"
    return {
        "case": case,
        "limit": limit,
        "outcome": outcome,
        "warm_rss_mib": warm_rss >> 20,
        "warm_data_mib": warm_data >> 20,
        "warm_vmsize_gib": warm_size >> 30,
    }


def main() -> int:
    if len(sys.argv) == 3:
        print(json.dumps(one(sys.argv[1], sys.argv[2])), flush=True)
        return 0
    rows = []
    for limit in ("data", "as"):
        for case in CASES:
            try:
                done = subprocess.run(
                    [sys.executable, __file__, case, limit], capture_output=True, text=True, timeout=120
                )
                line = (done.stdout.strip().splitlines() or [""])[-1]
                row = (
                    json.loads(line)
                    if line.startswith("{")
                    else {"case": case, "limit": limit, "outcome": f"died rc={done.returncode}: {done.stderr[-200:]!r}"}
                )
            except subprocess.TimeoutExpired:
                row = {"case": case, "limit": limit, "outcome": "timed out"}
            rows.append(row)
            print(
                f"| {limit} | {case} | {row['outcome']} | {row.get('warm_data_mib')} | {row.get('warm_vmsize_gib')} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
