"""benchmark_kernel's speedups of the level-1 examples beside KernelBench-style timing, in one run.

    python benchmarks/kernel_timing_bench.py [--repetitions 100] [--runs 2] [--json out.json]

CUDA only. For each correct level-1 candidate of examples/level1/, and for the cheating candidates
of tests/bench_cheats.py on a 4096 x 4096 relu:
- benchmark_kernel, `--runs` times (sandboxed; do_bench-style CUDA events, L2 flushed, inputs
  varied, timed outputs checked): medians, the speedup with its interval, the candidate's fraction
  of the roofline, the flags, and whether the runs agree within their spread;
- KernelBench-style timing in this process, as KernelBench's eval times (time_execution_with_cuda_event):
  3 warm-up calls, then 100 trials of start event, forward, end event, torch.cuda.synchronize(), on
  one fixed input with a warm L2; the mean is what it reports.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LEVEL1 = ROOT / "examples" / "level1"
CORRECT = [
    ("01_square_matmul", "candidate.py"),
    ("06_matmul_large_k", "candidate_kahan.py"),
    ("19_relu", "candidate.py"),
    ("23_softmax", "candidate.py"),
    ("47_sum_reduction", "candidate.py"),
]
CHEATS = ("HONEST", "CACHED_OUTPUT", "SKIP_SAME_BUFFER", "SKIP_UNCHANGED_INPUT", "SIDE_STREAM")
KERNELBENCH_WARMUP, KERNELBENCH_TRIALS = 3, 100


def _module(name: str, source: str) -> types.ModuleType:
    path = Path("/tmp") / f"kernel_timing_bench_{name}.py"  # Triton's JIT needs the source in a file
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"ktb_{name}", path)
    assert spec is not None and spec.loader is not None  # a .py path always has a source loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def kernelbench_style(reference: str, candidate: str, tag: str) -> dict:
    """KernelBench's timing of reference and candidate on one fixed input (seed 0)."""
    import torch

    ref, cand = _module(f"{tag}_ref", reference), _module(f"{tag}_cand", candidate)
    torch.manual_seed(0)
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in ref.get_inputs()]
    init = ref.get_init_inputs()
    out = {}
    for role, cls in (("reference", ref.Model), ("candidate", cand.ModelNew)):
        torch.manual_seed(0)
        model = cls(*init).cuda().eval()
        times = []
        with torch.no_grad():
            for _ in range(KERNELBENCH_WARMUP):
                model(*inputs)
            torch.cuda.synchronize()
            for _ in range(KERNELBENCH_TRIALS):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                model(*inputs)
                end.record()
                torch.cuda.synchronize()
                times.append(start.elapsed_time(end))
        out[role] = {
            "mean_ms": statistics.fmean(times),
            "std_ms": statistics.stdev(times),
            "min_ms": min(times),
            "max_ms": max(times),
        }
    out["speedup"] = out["reference"]["mean_ms"] / out["candidate"]["mean_ms"]
    return out


def ours(reference: str, candidate: str, repetitions: int, runs: int) -> list:
    from tools.benchmark_kernel import benchmark_kernel
    from tools.models.bench import BenchmarkRequest

    request = BenchmarkRequest(reference=reference, candidate=candidate, backend="cuda", repetitions=repetitions)
    return [benchmark_kernel(request) for _ in range(runs)]


def row(name: str, results: list, kb: dict) -> dict:
    from tools.bench import stats

    first = results[0]
    entry = {
        "task": name,
        "verdict": first.verdict,
        "summary": first.summary,
        "flags": [f.id for f in first.flags],
        "kernelbench_style": kb,
        "runs": [r.model_dump(mode="json", exclude={"stdout", "stderr", "isolation"}) for r in results],
    }
    if first.speedup is not None:
        speedups = [r.speedup for r in results if r.speedup is not None]
        entry["agree"] = all(stats.agree(speedups[0], s) for s in speedups[1:])
    return entry


def _us(ms) -> str:
    return f"{ms * 1e3:.2f}" if ms is not None else "-"


def table(rows: list) -> str:
    lines = [
        "| task | ref us | cand us | speedup [95%] | runs agree | roofline | flags | KB-style ref us | "
        "KB-style cand us | KB-style speedup |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for e in rows:
        run = e["runs"][0]
        kb = e["kernelbench_style"]
        sp = run.get("speedup")
        roof = (run.get("roofline") or {}).get("candidate") or {}
        fraction = roof.get("fraction_of_roofline")
        lines.append(
            f"| {e['task']} | {_us((run.get('reference') or {}).get('median_ms'))} | "
            f"{_us((run.get('candidate') or {}).get('median_ms'))} | "
            + (f"{sp['value']:.3f} [{sp['low']:.3f}, {sp['high']:.3f}]" if sp else run["verdict"])
            + f" | {e.get('agree', '-')} | "
            + (f"{fraction:.0%}" if fraction is not None else "-")
            + f" | {', '.join(e['flags']) or '-'}"
            f" | {_us(kb['reference']['mean_ms'])} ± {_us(kb['reference']['std_ms'])}"
            f" | {_us(kb['candidate']['mean_ms'])} ± {_us(kb['candidate']['std_ms'])} | {kb['speedup']:.3f} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=100)
    parser.add_argument("--runs", type=int, default=2, help="benchmark_kernel runs per task (agreement)")
    parser.add_argument("--no-cheats", action="store_true", help="only the level-1 examples")
    parser.add_argument("--json", help="write every result here")
    args = parser.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("needs a CUDA device", file=sys.stderr)
        return 2
    from tests import bench_cheats

    tasks = [
        (p, (LEVEL1 / p / "reference.py").read_text(), (LEVEL1 / p / c).read_text(), p.split("_")[0])
        for p, c in CORRECT
    ]
    if not args.no_cheats:
        big = bench_cheats.relu_task(4096, 4096)
        tasks += [(f"relu4096 {name}", big, getattr(bench_cheats, name), name.lower()) for name in CHEATS]
    rows = []
    print(f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}", flush=True)
    for name, reference, candidate, tag in tasks:
        results = ours(reference, candidate, args.repetitions, args.runs)
        kb = kernelbench_style(reference, candidate, tag)
        rows.append(row(name, results, kb))
        print(f"{name}: {results[0].summary}", flush=True)
    print()
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
