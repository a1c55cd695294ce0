"""Executor latency: warm sandbox pool vs a spawn-per-candidate harness; golden cache.

    python benchmarks/executor_bench.py [--runs 30] [--spawn-runs 5]

1. Per-candidate latency on a small task (vector add, 1 seed, golden cached), run_accuracy on the
   warm pool vs a fresh `python -c` process per candidate that imports torch and triton, runs
   reference and candidate and calls torch.allclose (what a KernelBench-style loop does), same
   machine, same run. Goal: >= 15x faster.
2. Tool overhead = total - golden - the candidate's forward time: the price of the sandbox,
   the comparator and the bookkeeping. Goal: <= 30 ms p50.
3. Golden cache: a golden-heavy task (fp16 matmul 1024^3, 3 seeds: the FP64 golden and the fp16
   CPU control are slow on a CPU), first call (goldens computed) vs second call (cached).
   Goal: >= 5x faster.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return x + y


def get_inputs():
    return [torch.randn(4096), torch.randn(4096)]


def get_init_inputs():
    return []
"""

CANDIDATE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, y):
        out = torch.empty_like(x)
        add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
        return out
"""

# Golden-heavy: an fp16 matmul whose FP64 golden and fp16 CPU control are slow on the CPU, while
# the interpreter runs the candidate's tl.dot on 256x256 tiles through numpy.
MATMUL_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.rand(1024, 1024, dtype=torch.float16), torch.rand(1024, 1024, dtype=torch.float16)]


def get_init_inputs():
    return []
"""

MATMUL_CANDIDATE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a_mask = (rm[:, None] < M) & ((k + rk)[None, :] < K)
        b_mask = ((k + rk)[:, None] < K) & (rn[None, :] < N)
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=a_mask, other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=b_mask, other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        matmul_kernel[(triton.cdiv(M, 256), triton.cdiv(N, 256))](a, b, c, M, N, K, BM=256, BN=256, BK=256)
        return c
"""

SPAWN_HARNESS = """
import importlib.util, os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
ref, cand = load(sys.argv[1], "ref"), load(sys.argv[2], "cand")
torch.manual_seed(0)
inputs = ref.get_inputs()
expected = ref.Model(*ref.get_init_inputs())(*inputs)
actual = cand.ModelNew(*ref.get_init_inputs())(*inputs)
print(torch.allclose(actual, expected, rtol=1e-4, atol=1e-4))
"""


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--spawn-runs", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("KERNEL_EVAL_HOME", tempfile.mkdtemp(prefix="kernel-eval-bench-"))
    from tools.accuracy import run_accuracy
    from tools.models.accuracy import RunAccuracyRequest

    def request(reference, candidate, **kw):
        return RunAccuracyRequest(
            reference=reference, candidate=candidate, backend="cpu", determinism_check=False, **kw
        )

    # 1 + 2: warm pool, golden cached (pinned seed), vs spawn per candidate
    start = time.perf_counter()
    first = run_accuracy(request(REFERENCE, CANDIDATE, seeds=[1]))
    cold = time.perf_counter() - start
    assert first.verdict == "pass", first.summary
    totals, overheads, forwards = [], [], []
    for _ in range(args.runs):
        r = run_accuracy(request(REFERENCE, CANDIDATE, seeds=[1]))
        forward = sum(s.forward_s or 0 for s in r.seeds)
        totals.append(r.timings.total_s)
        forwards.append(forward)
        overheads.append(r.timings.total_s - r.timings.golden_s - forward)
    with tempfile.TemporaryDirectory() as tmp:
        ref_path, cand_path = Path(tmp, "ref.py"), Path(tmp, "cand.py")
        ref_path.write_text(REFERENCE)
        cand_path.write_text(CANDIDATE)
        spawns = []
        for _ in range(args.spawn_runs):
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", SPAWN_HARNESS, str(ref_path), str(cand_path)], capture_output=True, text=True
            )
            spawns.append(time.perf_counter() - start)
            assert done.stdout.strip() == "True", done.stderr
    warm = statistics.median(totals)
    spawn = statistics.median(spawns)
    print(f"machine: {os.cpu_count()} cores; {args.runs} warm runs, {args.spawn_runs} spawned runs")
    print("\n| per-candidate latency (vector add, 4096, 1 seed) | p50 ms | p90 ms |")
    print("|---|---|---|")
    print(f"| run_accuracy, warm pool, golden cached | {warm * 1e3:.1f} | {pct(totals, 90) * 1e3:.1f} |")
    print(
        f"| of which the candidate's forward | {statistics.median(forwards) * 1e3:.1f} | {pct(forwards, 90) * 1e3:.1f} "
        "|"
    )
    print(
        f"| tool overhead (total - golden - forward) | {statistics.median(overheads) * 1e3:.1f} | "
        f"{pct(overheads, 90) * 1e3:.1f} |"
    )
    print(f"| spawn-per-candidate baseline (python -c, allclose) | {spawn * 1e3:.0f} | {pct(spawns, 90) * 1e3:.0f} |")
    print(f"| first call (zygote start + golden) | {cold * 1e3:.0f} | |")
    print(
        f"\nwarm pool vs spawn: {spawn / warm:.1f}x faster (goal >= 15x); overhead p50 "
        f"{statistics.median(overheads) * 1e3:.1f} ms (goal <= 30 ms)"
    )

    # 3: golden cache
    seeds = [101, 102, 103]
    start = time.perf_counter()
    r1 = run_accuracy(request(MATMUL_REFERENCE, MATMUL_CANDIDATE, seeds=seeds))
    uncached = time.perf_counter() - start
    start = time.perf_counter()
    r2 = run_accuracy(request(MATMUL_REFERENCE, MATMUL_CANDIDATE, seeds=seeds))
    cached = time.perf_counter() - start
    assert r1.verdict == r2.verdict == "pass", (r1.summary, r2.summary)
    print("\n| golden-heavy task (fp16 matmul 1024^3, 3 seeds) | s | golden s | candidate s |")
    print("|---|---|---|---|")
    print(
        f"| first call (goldens computed) | {uncached:.3f} | {r1.timings.golden_s:.3f} | {r1.timings.candidate_s:.3f} |"
    )
    print(f"| second call (goldens cached) | {cached:.3f} | {r2.timings.golden_s:.3f} | {r2.timings.candidate_s:.3f} |")
    print(f"\ngolden cache: second call {uncached / cached:.1f}x faster (goal >= 5x)")


if __name__ == "__main__":
    main()
