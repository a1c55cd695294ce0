"""What a user waits for: run_accuracy with default options on KernelBench level-1 #1 and #6, on the GPU,
beside KernelBench-style baselines measured in the same run.

    python benchmarks/gpu_bench.py [--tasks L1_1,L1_6] [--steady-runs 5] [--early-runs 6] [--json out.json]

Per task, in one server process whose sandbox pool is already warm (a tiny task ran first; the pool's own
start is reported apart): the first call (no golden cached), the early calls (default options draw 3 secret
seeds of 16 per call: some are not cached yet), then the steady state once every pool seed is cached
(median of --steady-runs). Each call is split into golden / candidate job / compare / store / rest, and the
candidate job's own stages (setup, CUDA and imports, forwards, result) come from its report.

Baselines, same process and machine, same reference and candidate files: "KernelBench in-process" (inputs
made on the CPU from a seed, moved to the GPU, reference and candidate forward, torch.allclose, 5 trials,
no isolation) and "KernelBench, a process per candidate" (the same in a fresh `python -c`, as a harness that
isolates by process does).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_MATMUL_REFERENCE = """import torch
import torch.nn as nn

M, N, K = {m}, {n}, {k}


class Model(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.rand(M, K), torch.rand(K, N)]


def get_init_inputs():
    return []
"""

#: An fp32 Triton matmul as an agent writes it: fp32 accumulator, IEEE dot (no tf32), masks, cdiv grid.
CANDIDATE = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + offs_k
        a = tl.load(a_ptr + offs_m[:, None] * sam + k[None, :] * sak,
                    mask=(offs_m[:, None] < M) & (k[None, :] < K), other=0.0)
        b = tl.load(b_ptr + k[:, None] * sbk + offs_n[None, :] * sbn,
                    mask=(k[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + offs_m[:, None] * scm + offs_n[None, :] * scn, acc,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, A, B):
        M, K = A.shape
        _, N = B.shape
        C = torch.empty((M, N), device=A.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
        matmul_kernel[grid](A, B, C, M, N, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1),
                            C.stride(0), C.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
        return C
"""

TASKS = {
    "L1_1": ("1_Square_matrix_multiplication, 4096^2 fp32", _MATMUL_REFERENCE.format(m=4096, n=4096, k=4096)),
    "L1_6": ("6_Matmul_with_large_K, 256x524288x256 fp32", _MATMUL_REFERENCE.format(m=256, n=256, k=524288)),
    "tiny": (
        "a 64^3 fp32 matmul (smoke test of this script, e.g. on --backend cpu)",
        _MATMUL_REFERENCE.format(m=64, n=64, k=64),
    ),
}

WARMUP_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    return [torch.rand(1024)]


def get_init_inputs():
    return []
"""

WARMUP_CANDIDATE = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def twice(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        twice[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
        return y
"""

#: KernelBench's way: inputs on the CPU from a seed, to the GPU, reference and candidate, allclose, N trials.
KERNELBENCH = """
import importlib.util, sys, time, torch
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m
def evaluate(ref, cand, trials, seed=42):
    torch.manual_seed(seed)
    init = ref.get_init_inputs()
    model, new = ref.Model(*init).cuda(), cand.ModelNew(*init).cuda()
    ok = True
    for trial in range(trials):
        torch.manual_seed(seed + trial)
        inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in ref.get_inputs()]
        with torch.no_grad():
            expected, actual = model(*inputs), new(*inputs)
        torch.cuda.synchronize()
        ok &= bool(torch.allclose(actual, expected, rtol=1e-2, atol=1e-2))
    return ok
if __name__ == "__main__":
    ref, cand = load(sys.argv[1], "ref"), load(sys.argv[2], "cand")
    print(evaluate(ref, cand, int(sys.argv[3])))
"""


class PhaseClock:
    """Times the stages of run_accuracy calls by wrapping the functions it calls (benchmark-only)."""

    def __init__(self):
        self.spent: dict[str, float] = {}
        self.job_meta: list[dict] = []

    def wrap(self, owner, name: str, phase: str, keep_meta: bool = False):
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                out = original(*args, **kwargs)
            finally:
                self.spent[phase] = self.spent.get(phase, 0.0) + time.perf_counter() - start
            if keep_meta and getattr(out, "meta", None):
                self.job_meta.append(out.meta)
            return out

        setattr(owner, name, timed)

    def take(self) -> tuple[dict[str, float], list[dict]]:
        spent, meta = self.spent, self.job_meta
        self.spent, self.job_meta = {}, []
        return spent, meta


def install_clock() -> PhaseClock:
    from tools import accuracy, services
    from tools.store import runs

    clock = PhaseClock()
    clock.wrap(services._Sandbox, "run", "jobs", keep_meta=True)
    clock.wrap(accuracy, "compare_outputs", "compare")
    clock.wrap(runs.RunStore, "save", "store")
    return clock


def timed_call(run_accuracy, request, clock: PhaseClock) -> dict:
    start = time.perf_counter()
    result = run_accuracy(request)
    total = time.perf_counter() - start
    spent, metas = clock.take()
    stages = {}
    for meta in metas:
        if "seeds" in meta and "launches" in meta:  # the candidate job's report
            stages = {k: meta[k] for k in ("setup_s", "job_s") if k in meta}
            stages |= {k: v for k, v in (meta.get("stages") or {}).items()}
            forwards = [s.get("forward_s", 0.0) for s in meta["seeds"]]
            stages["forwards_s"], stages["first_forward_s"] = sum(forwards), forwards[0] if forwards else 0.0
    return {
        "verdict": result.verdict,
        "summary": result.summary[:120],
        "total_s": total,
        "golden_s": result.timings.golden_s,
        "golden_cached": result.timings.golden_cached,
        "candidate_s": result.timings.candidate_s,
        "compare_s": spent.get("compare", 0.0),
        "store_s": spent.get("store", 0.0),
        "rest_s": total
        - result.timings.golden_s
        - result.timings.candidate_s
        - spent.get("compare", 0.0)
        - spent.get("store", 0.0),
        "job_stages": stages,
        "seeds": [s.seed for s in result.seeds],
    }


def kernelbench_in_process(ref_path: Path, cand_path: Path, runs: int) -> list[float]:
    namespace: dict = {"__name__": "kernelbench"}
    exec(compile(KERNELBENCH, "kernelbench", "exec"), namespace)
    ref, cand = namespace["load"](str(ref_path), "kb_ref"), namespace["load"](str(cand_path), "kb_cand")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        namespace["evaluate"](ref, cand, 5)
        times.append(time.perf_counter() - start)
    return times


def kernelbench_process(ref_path: Path, cand_path: Path, script: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, str(script), str(ref_path), str(cand_path), "5"], capture_output=True, text=True
        )
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            print(f"  process baseline failed: {done.stderr[-400:]}", flush=True)
    return times


def median(values) -> float:
    values = list(values)
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--tasks", default="L1_1,L1_6")
    parser.add_argument("--early-runs", type=int, default=6, help="default-option calls right after the first")
    parser.add_argument("--steady-runs", type=int, default=5)
    parser.add_argument("--baseline-runs", type=int, default=3)
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--json")
    args = parser.parse_args()
    os.environ.setdefault("KERNEL_EVAL_HOME", tempfile.mkdtemp(prefix="kernel-eval-gpu-bench-"))
    import torch

    from tools.accuracy import run_accuracy
    from tools.goldens import input_options, key_for
    from tools.models.accuracy import RunAccuracyRequest
    from tools.services import resolve_backend, services

    print(
        f"device: {torch.cuda.get_device_name() if torch.cuda.is_available() else 'cpu'}, torch {torch.__version__}",
        flush=True,
    )
    clock = install_clock()
    start = time.perf_counter()
    warm = run_accuracy(
        RunAccuracyRequest(reference=WARMUP_REFERENCE, candidate=WARMUP_CANDIDATE, backend=args.backend, seeds=[1])
    )
    pool_start_s = time.perf_counter() - start
    clock.take()
    print(f"pool start + first tiny call: {pool_start_s:.2f} s ({warm.verdict})", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp, "kernelbench_eval.py")
        script.write_text(KERNELBENCH)
        cand_path = Path(tmp, "candidate.py")
        cand_path.write_text(CANDIDATE)
        for name in args.tasks.split(","):
            title, reference = TASKS[name]
            ref_path = Path(tmp, f"{name}.py")
            ref_path.write_text(reference)
            request = RunAccuracyRequest(reference=reference, candidate=CANDIDATE, backend=args.backend, timeout_s=600)
            first = timed_call(run_accuracy, request, clock)
            print(f"{name} first: {json.dumps(first)}", flush=True)
            early = [timed_call(run_accuracy, request, clock) for _ in range(args.early_runs)]
            for call in early:
                print(f"{name} early: {json.dumps(call)}", flush=True)
            # every pool seed cached (pinning seeds already in the pool keeps them secret)
            backend = resolve_backend(args.backend)
            key = key_for(reference, input_options(None, None, "task"), backend)
            pool = services().seeds.secret(key)
            fill_start = time.perf_counter()
            run_accuracy(request.model_copy(update={"seeds": pool, "num_seeds": len(pool)}))
            fill_s = time.perf_counter() - fill_start
            clock.take()
            steady = [timed_call(run_accuracy, request, clock) for _ in range(args.steady_runs)]
            for call in steady:
                print(f"{name} steady: {json.dumps(call)}", flush=True)
            on_gpu = torch.cuda.is_available()
            kb_in = kernelbench_in_process(ref_path, cand_path, args.baseline_runs) if on_gpu else []
            kb_proc = kernelbench_process(ref_path, cand_path, script, args.baseline_runs) if on_gpu else []
            row = {
                "task": name,
                "title": title,
                "first": first,
                "early": early,
                "steady": steady,
                "pool_fill_s": fill_s,
                "kernelbench_in_process_s": kb_in,
                "kernelbench_process_s": kb_proc,
            }
            rows.append(row)
            print(f"{name}: kernelbench in-process {median(kb_in):.2f} s, process {median(kb_proc):.2f} s", flush=True)
    print_table(rows, pool_start_s)
    if args.json:
        Path(args.json).write_text(json.dumps({"pool_start_s": pool_start_s, "rows": rows}, indent=2))


def print_table(rows: list[dict], pool_start_s: float) -> None:
    print(f"\npool start (zygote: import torch + triton, first tiny call): {pool_start_s:.2f} s\n")
    print(
        "| task | verdict | first call s | early calls s (median, max) | steady s | steady: golden / candidate job / "
        "compare / store / rest s | KernelBench in-process s | KernelBench process s | steady vs in-process |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        steady = r["steady"]
        parts = " / ".join(
            f"{median(c[k] for c in steady):.3f}" for k in ("golden_s", "candidate_s", "compare_s", "store_s", "rest_s")
        )
        s = median(c["total_s"] for c in steady)
        kb_in, kb_proc = median(r["kernelbench_in_process_s"]), median(r["kernelbench_process_s"])
        early = [c["total_s"] for c in r["early"]]
        print(
            f"| {r['task']} {r['title']} | {r['first']['verdict']} | {r['first']['total_s']:.2f} | "
            f"{median(early):.2f}, {max(early, default=float('nan')):.2f} | {s:.3f} | {parts} | {kb_in:.2f} | "
            f"{kb_proc:.2f} | {kb_in / s:.2f}x |"
        )
    print("\ncandidate job stages (steady, median s):")
    for r in rows:
        keys = sorted({k for c in r["steady"] for k in c["job_stages"]})
        stages = ", ".join(f"{k} {median(c['job_stages'].get(k, 0.0) for c in r['steady']):.3f}" for k in keys)
        print(f"  {r['task']}: {stages}")


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        main()
