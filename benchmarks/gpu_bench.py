"""GPU latency of run_accuracy on KernelBench level-1 problems, vs a spawn-per-candidate baseline.

    python benchmarks/gpu_bench.py [--warm-runs 5] [--spawn-runs 3] [--json out.json]

On a CUDA machine (scripts/gpu_check.sh runs it on the H200). For problems 1 (square matmul,
fp16), 6 (large K), 23 (softmax) and 47 (sum reduction), with the correct Triton candidates of
examples/level1/: run_accuracy's first call (golden computed) and warm calls (golden cached), split
into golden / candidate / compare; a KernelBench-style baseline that spawns `python -c` per
candidate (import torch and triton, inputs made on the CPU and moved to the GPU, reference and
candidate, torch.allclose) in the same run; and the FP64 golden of each reference on the device
vs on the CPU.
"""

from __future__ import annotations

import argparse
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
LEVEL1 = ROOT / "examples" / "level1"

_HEADER = "import torch\nimport torch.nn as nn\n\n\n"
TASKS = {
    "1_square_matmul_fp16_4096": (
        _HEADER
        + """class Model(nn.Module):
    def forward(self, A, B):
        return torch.matmul(A, B)


def get_inputs():
    return [torch.rand(4096, 4096, dtype=torch.float16), torch.rand(4096, 4096, dtype=torch.float16)]


def get_init_inputs():
    return []
""",
        LEVEL1 / "01_square_matmul" / "candidate.py",
    ),
    "6_matmul_large_k_256x131072x256": (
        _HEADER
        + """class Model(nn.Module):
    def forward(self, A, B):
        dtype = torch.promote_types(A.dtype, torch.float32)
        return torch.matmul(A.to(dtype), B.to(dtype))


def get_inputs():
    return [torch.rand(256, 131072, dtype=torch.float16), torch.rand(131072, 256, dtype=torch.float16)]


def get_init_inputs():
    return []
""",
        LEVEL1 / "06_matmul_large_k" / "candidate_kahan.py",
    ),
    "23_softmax_1024x16384": (
        _HEADER
        + """class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


def get_inputs():
    return [torch.randn(1024, 16384)]


def get_init_inputs():
    return []
""",
        LEVEL1 / "23_softmax" / "candidate.py",
    ),
    "47_sum_reduction_64x4096x256": (
        _HEADER
        + """class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.sum(x, dim=self.dim, keepdim=True)


def get_inputs():
    return [torch.rand(64, 4096, 256)]


def get_init_inputs():
    return [1]
""",
        LEVEL1 / "47_sum_reduction" / "candidate.py",
    ),
}

SPAWN = """
import importlib.util, sys, torch, triton
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m
ref, cand = load(sys.argv[1], "ref"), load(sys.argv[2], "cand")
torch.manual_seed(0)
init = ref.get_init_inputs()
inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in ref.get_inputs()]
expected = ref.Model(*init).cuda()(*inputs)
actual = cand.ModelNew(*init).cuda()(*inputs)
torch.cuda.synchronize()
print(torch.allclose(actual.float(), expected.float(), rtol=1e-2, atol=1e-2))
"""


def golden_device_vs_cpu(reference: str) -> tuple[float, float]:
    import torch

    namespace: dict = {}
    exec(compile(reference, "<reference>", "exec"), namespace)
    torch.manual_seed(0)
    model = namespace["Model"](*namespace["get_init_inputs"]()).double()
    inputs = [x.double() if x.is_floating_point() else x for x in namespace["get_inputs"]()]
    times = {}
    for device in ("cuda", "cpu"):
        moved = [x.to(device) for x in inputs]
        model.to(device)
        with torch.no_grad():
            model(*moved)  # warm-up
            torch.cuda.synchronize()
            start = time.perf_counter()
            model(*moved)
            torch.cuda.synchronize()
        times[device] = time.perf_counter() - start
    return times["cuda"], times["cpu"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm-runs", type=int, default=5)
    parser.add_argument("--spawn-runs", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    os.environ.setdefault("KERNEL_EVAL_HOME", tempfile.mkdtemp(prefix="kernel-eval-gpu-bench-"))
    import torch

    from tools.accuracy import run_accuracy
    from tools.models.accuracy import RunAccuracyRequest

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (reference, candidate) in TASKS.items():
            ref_path = Path(tmp, f"{name}.py")
            ref_path.write_text(reference)
            request = RunAccuracyRequest(
                reference=reference,
                candidate=str(candidate),
                backend="cuda",
                seeds=[1],
                determinism_check=False,
                timeout_s=600,
            )
            start = time.perf_counter()
            first = run_accuracy(request)
            first_s = time.perf_counter() - start
            warm = [run_accuracy(request) for _ in range(args.warm_runs)]
            spawns = []
            for _ in range(args.spawn_runs):
                start = time.perf_counter()
                done = subprocess.run(
                    [sys.executable, "-c", SPAWN, str(ref_path), str(candidate)], capture_output=True, text=True
                )
                spawns.append(time.perf_counter() - start)
                if done.returncode != 0:
                    print(f"  spawn baseline failed for {name}: {done.stderr[-500:]}")
            gold_dev, gold_cpu = golden_device_vs_cpu(reference)
            row = {
                "task": name,
                "verdict": first.verdict,
                "first_call_s": first_s,
                "first_golden_s": first.timings.golden_s,
                "golden_device": first.backend.golden_device if first.backend else None,
                "warm_total_s": statistics.median(r.timings.total_s for r in warm),
                "warm_candidate_s": statistics.median(r.timings.candidate_s for r in warm),
                "warm_compare_s": statistics.median(r.timings.compare_s for r in warm),
                "warm_forward_s": statistics.median(r.seeds[0].forward_s or 0.0 for r in warm),
                "first_forward_s": first.seeds[0].forward_s if first.seeds else None,
                "spawn_allclose_s": statistics.median(spawns),
                "fp64_golden_device_s": gold_dev,
                "fp64_golden_cpu_s": gold_cpu,
            }
            rows.append(row)
            print(f"  {name}: {first.verdict} ({first.summary[:100]})")
    print(
        "\n| task | verdict | first call s (golden s) | warm run_accuracy s | candidate job s (forward s) | compare s | spawn+allclose s | speed-up | fp64 golden GPU / CPU s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['task']} | {r['verdict']} | {r['first_call_s']:.2f} ({r['first_golden_s']:.2f}) | {r['warm_total_s']:.3f} | "
            f"{r['warm_candidate_s']:.3f} ({r['warm_forward_s']:.3f}) | {r['warm_compare_s']:.3f} | {r['spawn_allclose_s']:.2f} | "
            f"{r['spawn_allclose_s'] / r['warm_total_s']:.1f}x | {r['fp64_golden_device_s']:.4f} / {r['fp64_golden_cpu_s']:.2f} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
