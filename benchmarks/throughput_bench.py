"""Throughput for RL and autoresearch loops: distinct candidates a minute through `kernel-eval batch`,
beside KernelBench's batch path on the same candidates, in one run.

    python3 benchmarks/throughput_bench.py --backend cuda [--candidates 300] [--baseline-sample 40] [--json F]

Candidates (every one a distinct source, so every one a new Triton compile): for each task of
examples/level1 (ReLU, softmax, sum, 4096^2 matmul) and of the blind corpora tests/heldout7-8 (20 kernel
kinds), its correct candidate, its hand-made bug variants, the mutants `mutate`'s operators make of the
correct one, and one that does not compile (a name the kernel does not define). Some pass, most fail.
They are interleaved across tasks, as a loop that scores many tasks submits them.

Modes, each in a fresh process on a fresh $KERNEL_EVAL_HOME (cold: the sandbox's start and every golden
are paid):
- `kernel-eval batch MANIFEST --json` with default options (3 secret seeds, the determinism re-run, the
  shape check, provenance), the local engine: what a user runs;
- KernelBench's batch path on a random sample of the same candidates (--baseline-sample): one fresh
  process per candidate per GPU, one after another on one GPU, as its eval_from_generations script
  does (spawned process: import, model and inputs on the GPU, 5 correctness trials, torch.allclose
  at 1e-2). On cpu the same through the interpreter (for trying the script; no GPU numbers).
Printed: candidates/min, p50/p95 latency per candidate (run_accuracy's own total for ours, the
process's wall for KernelBench), the GPU's busy fraction (nvidia-smi's utilization, sampled every
200 ms over the mode's wall), the verdicts of both and every candidate on which they disagree.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LEVEL1 = ["19_relu", "23_softmax", "47_sum_reduction", "01_square_matmul"]
CORPORA = ["tests/heldout7", "tests/heldout8"]

#: KernelBench's evaluation of one candidate in its own process (the shape of its eval_kernel_against_ref:
#: load both modules, build the models with the init inputs, 5 trials of fresh inputs, allclose at 1e-2).
KERNELBENCH_ONE = """
import importlib.util, sys, torch
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m
device = sys.argv[3]
try:
    ref, cand = load(sys.argv[1], "ref"), load(sys.argv[2], "cand")
except Exception as exc:
    print("compile_error", type(exc).__name__); sys.exit(0)
torch.manual_seed(42)
init = ref.get_init_inputs()
try:
    model, new = ref.Model(*init).to(device), cand.ModelNew(*init).to(device)
    ok = True
    for trial in range(5):
        torch.manual_seed(42 + trial)
        inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in ref.get_inputs()]
        with torch.no_grad():
            expected, actual = model(*inputs), new(*inputs)
        if device == "cuda":
            torch.cuda.synchronize()
        same = isinstance(actual, torch.Tensor) and actual.shape == expected.shape
        ok &= bool(same and torch.allclose(actual.float(), expected.float(), rtol=1e-2, atol=1e-2))
    print("correct" if ok else "incorrect")
except Exception as exc:
    print("runtime_error", type(exc).__name__, str(exc)[:200].replace(chr(10), " "))
"""


@dataclass
class Candidate:
    task: str  # the task's directory
    kind: str  # correct, bug:<file>, mutant:<operator>, no_compile
    source: str

    @property
    def reference(self) -> Path:
        return ROOT / self.task / "reference.py"


def _tasks() -> dict[str, tuple[str, list[str]]]:
    """task directory -> (its correct candidate's file, its bug variants' files)."""
    tasks: dict[str, tuple[str, list[str]]] = {}
    for corpus in CORPORA:
        for entry in json.loads((ROOT / corpus / "manifest.json").read_text()):
            fixed, bugs = tasks.setdefault(entry["task"], (entry["fixed"], []))
            if entry["buggy"] not in bugs:
                bugs.append(entry["buggy"])
    for name in LEVEL1:
        task = f"examples/level1/{name}"
        tasks[task] = ("candidate.py", sorted(p.name for p in (ROOT / task).glob("candidate_*.py")))
    return tasks


def _no_compile(source: str) -> str | None:
    """The correct source with a name its first kernel does not define (a slip that fails to compile)."""
    import ast

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
            first = node.body[0]
            lines = source.splitlines(keepends=True)
            slip = " " * first.col_offset + "undefined_scale = undefined_name * 2\n"
            return "".join(lines[: first.lineno - 1] + [slip] + lines[first.lineno - 1 :])
    return None


def candidates(limit: int) -> list[Candidate]:
    from tools.mutate.operators import OPERATORS

    per_task: list[list[Candidate]] = []
    for task, (fixed, bugs) in _tasks().items():
        correct = (ROOT / task / fixed).read_text()
        made = [Candidate(task, "correct", correct)]
        made += [Candidate(task, f"bug:{b}", (ROOT / task / b).read_text()) for b in bugs]
        seen = {c.source for c in made}
        for op in OPERATORS.values():
            for mutant in op.mutants(correct):
                if mutant not in seen:
                    seen.add(mutant)
                    made.append(Candidate(task, f"mutant:{op.id}", mutant))
        broken = _no_compile(correct)
        if broken is not None:
            made.append(Candidate(task, "no_compile", broken))
        per_task.append(made)
    out: list[Candidate] = []
    while len(out) < limit and any(per_task):  # round robin over the tasks
        for made in per_task:
            if made and len(out) < limit:
                out.append(made.pop(0))
    return out


class GpuSampler:
    """nvidia-smi's utilization.gpu every 200 ms while running; mean() over the samples (None without one)."""

    def __init__(self):
        self.samples: list[float] = []
        self._proc: subprocess.Popen | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self):
        if shutil.which("nvidia-smi"):
            self._proc = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-lms", "200"],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            self._thread = threading.Thread(target=self._read, daemon=True)
            self._thread.start()
        return self

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                self.samples.append(float(line.split(",")[0]))
            except ValueError:
                continue

    def __exit__(self, *exc) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait(5)

    def mean(self) -> float | None:
        return statistics.mean(self.samples) / 100 if self.samples else None


def run_ours(todo: list[Candidate], backend: str, work: Path) -> dict:
    manifest = work / "manifest.jsonl"
    with manifest.open("w") as f:
        for c in todo:
            f.write(json.dumps({"reference": str(c.reference), "candidate": c.source, "backend": backend}) + "\n")
    home = tempfile.mkdtemp(prefix="kernel-eval-throughput-")
    python_path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = os.environ | {"KERNEL_EVAL_HOME": home, "KERNEL_EVAL_NO_DAEMON": "1", "PYTHONPATH": python_path}
    command = [sys.executable, "-m", "tools.cli", "batch", str(manifest), "--json"]
    started = time.perf_counter()
    with GpuSampler() as gpu:
        # the batch's progress (stderr) shows as it goes
        done = subprocess.run(command, env=env, stdout=subprocess.PIPE, text=True, timeout=3600, cwd=ROOT)
    wall = time.perf_counter() - started
    shutil.rmtree(home, ignore_errors=True)
    items = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if len(items) != len(todo):
        raise SystemExit(f"kernel-eval batch returned {len(items)} of {len(todo)} items (exit {done.returncode})")
    verdicts, latencies, stages = [], [], {}
    for item in items:
        result = item.get("result") or {}
        verdicts.append(result.get("verdict") or f"error:{(item.get('error') or {}).get('kind')}")
        if result.get("timings"):
            latencies.append(result["timings"]["total_s"])
            for key, value in result["timings"].items():
                if isinstance(value, float):
                    stages.setdefault(key, []).append(value)
    print("per candidate, median s: " + ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in stages.items()))
    return {
        "wall_s": wall,
        "verdicts": verdicts,
        "latencies_s": latencies,
        "gpu_busy": gpu.mean(),
        "summaries": [(i.get("result") or {}).get("summary", "")[:160] for i in items],
    }


def run_kernelbench(todo: list[Candidate], backend: str, work: Path) -> dict:
    script = work / "kernelbench_one.py"
    script.write_text(KERNELBENCH_ONE)
    device = "cuda" if backend == "cuda" else "cpu"
    env = os.environ | ({"TRITON_INTERPRET": "1"} if device == "cpu" else {})
    verdicts, latencies = [], []
    started = time.perf_counter()
    with GpuSampler() as gpu:
        for i, c in enumerate(todo):
            path = work / f"candidate_{i}.py"
            path.write_text(c.source)
            t0 = time.perf_counter()
            try:
                done = subprocess.run(
                    [sys.executable, str(script), str(c.reference), str(path), device],
                    capture_output=True,
                    text=True,
                    timeout=300,
                    env=env,
                )
                words = (done.stdout.strip().splitlines() or [f"crashed rc={done.returncode}"])[-1]
            except subprocess.TimeoutExpired:
                words = "timeout"
            latencies.append(time.perf_counter() - t0)
            verdicts.append(words.split()[0])
    return {
        "wall_s": time.perf_counter() - started,
        "verdicts": verdicts,
        "latencies_s": latencies,
        "gpu_busy": gpu.mean(),
    }


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _row(name: str, count: int, run: dict) -> str:
    busy = f"{run['gpu_busy']:.0%}" if run["gpu_busy"] is not None else "n/a"
    return (
        f"| {name} | {count} | {run['wall_s']:.1f} | {60 * count / run['wall_s']:.1f} | "
        f"{_pct(run['latencies_s'], 0.5):.2f} | {_pct(run['latencies_s'], 0.95):.2f} | {busy} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--backend", default="cuda", choices=["cpu", "cuda"])
    parser.add_argument("--candidates", type=int, default=300)
    parser.add_argument("--baseline-sample", type=int, default=40, help="KernelBench's path on this many (0: none)")
    parser.add_argument("--seed", type=int, default=0, help="which candidates the sample takes")
    parser.add_argument("--json", help="write every measurement here")
    args = parser.parse_args()

    todo = candidates(args.candidates)
    kinds = {k: sum(1 for c in todo if c.kind.split(":")[0] == k) for k in ("correct", "bug", "mutant", "no_compile")}
    print(
        f"{len(todo)} distinct candidates of {len({c.task for c in todo})} tasks: {kinds}; backend {args.backend}, "
        f"{os.cpu_count()} cores",
        flush=True,
    )
    sample = sorted(random.Random(args.seed).sample(range(len(todo)), min(args.baseline_sample, len(todo))))
    with tempfile.TemporaryDirectory(prefix="throughput-bench-") as tmp:
        ours = run_ours(todo, args.backend, Path(tmp))
        print(f"kernel-eval batch: {ours['wall_s']:.1f} s", flush=True)
        kb = run_kernelbench([todo[i] for i in sample], args.backend, Path(tmp)) if sample else None
    print("\n| path | candidates | wall s | candidates/min | p50 s | p95 s | GPU busy |")
    print("|---|---|---|---|---|---|---|")
    print(_row("kernel-eval batch (default options, local engine)", len(todo), ours))
    if kb is not None:
        print(_row("KernelBench batch path (a process per candidate)", len(sample), kb))
        rate = (60 * len(todo) / ours["wall_s"]) / (60 * len(sample) / kb["wall_s"])
        print(f"\nthroughput ratio (candidates/min, ours / KernelBench's): {rate:.2f}x")
    counts: dict[str, int] = {}
    for v in ours["verdicts"]:
        counts[v] = counts.get(v, 0) + 1
    print(f"our verdicts: {dict(sorted(counts.items()))}")
    disagree = []
    if kb is not None:
        for i, kb_verdict in zip(sample, kb["verdicts"], strict=True):
            if (ours["verdicts"][i] == "pass") != (kb_verdict == "correct"):
                disagree.append(i)
        print(
            f"verdicts on the {len(sample)} both judged: {len(sample) - len(disagree)} agree (pass = correct), "
            f"{len(disagree)} differ"
        )
        for i in disagree:
            c = todo[i]
            print(
                f"  {c.task} {c.kind}: ours {ours['verdicts'][i]} ({ours['summaries'][i][:110]}), "
                f"KernelBench {kb['verdicts'][sample.index(i)]}"
            )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "candidates": [asdict(c) | {"source": None} for c in todo],
                    "sample": sample,
                    "ours": ours,
                    "kernelbench": kb,
                    "disagree": disagree,
                    "cores": os.cpu_count(),
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
