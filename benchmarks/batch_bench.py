"""Batch throughput: candidates per minute, one run_accuracy call after another vs the local batch
engine vs the Ray engine, on the same candidates.

    python benchmarks/batch_bench.py [--candidates 21] [--backend cpu] [--modes single,local,ray] [--json F]

The candidates are the level-1 examples of three tasks (ReLU, softmax, sum reduction: passing,
failing and rejected ones), repeated until there are --candidates of them (each copy a distinct
source), with run_accuracy's defaults (3 secret seeds, the determinism re-run). Each mode runs in a
fresh process on a fresh $KERNEL_EVAL_HOME, so every mode pays the same cold costs: the sandbox's
start, every golden, Ray's actors (the Ray cluster's own start, `ray.init`, is reported apart).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from tools.models.batch import Engine
    from tools.models.task import Backend

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
LEVEL1 = ROOT / "examples" / "level1"
TASKS = {
    "19_relu": ["candidate.py", "candidate_torch_op.py", "candidate_inplace.py"],
    "23_softmax": ["candidate.py", "candidate_no_max_subtraction.py"],
    "47_sum_reduction": ["candidate.py", "candidate_fp16_accumulator.py"],
}


def requests(count: int, backend: str):
    from tools.models.accuracy import RunAccuracyRequest

    pairs = [(task, name) for task, names in TASKS.items() for name in names]
    out = []
    for i in range(count):
        task, name = pairs[i % len(pairs)]
        source = (LEVEL1 / task / name).read_text() + f"\n# copy {i // len(pairs)}\n"
        out.append(
            RunAccuracyRequest(
                reference=str(LEVEL1 / task / "reference.py"), candidate=source, backend=cast("Backend", backend)
            )
        )
    return out


def run_mode(mode: str, count: int, backend: str) -> dict:
    """In this (fresh) process: judge the candidates one way and time it."""
    from tools.accuracy import run_accuracy
    from tools.batch import run_batch

    todo = requests(count, backend)
    ray_init_s = None
    if mode == "ray":
        import ray

        t0 = time.perf_counter()
        ray.init(include_dashboard=False, log_to_driver=False, _temp_dir=tempfile.mkdtemp(prefix="ke-ray-", dir="/tmp"))
        ray_init_s = time.perf_counter() - t0
    started = time.perf_counter()
    if mode == "single":
        verdicts = [run_accuracy(r).verdict for r in todo]
        workers = ["local (one call at a time)"]
    else:
        report = run_batch(todo, cast("Engine", mode))  # local or ray: "single" is taken above
        verdicts = [i.verdict for i in report.items]
        workers = report.workers
    wall = time.perf_counter() - started
    if mode == "ray":
        import ray

        ray.shutdown()
    return {
        "mode": mode,
        "candidates": count,
        "wall_s": wall,
        "candidates_per_minute": 60 * count / wall,
        "ray_init_s": ray_init_s,
        "workers": workers,
        "verdicts": verdicts,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--candidates", type=int, default=21)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--modes", default="single,local,ray")
    parser.add_argument("--json", help="write the measurements here")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: run one mode in this process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_mode(args.one, args.candidates, args.backend)))
        return 0
    env = os.environ | {
        # Ray on loopback only, no auth token written to ~/.ray, no usage report
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    rows = []
    for mode in args.modes.split(","):
        home = tempfile.mkdtemp(prefix="kernel-eval-batch-bench-")
        try:
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--one",
                    mode,
                    "--candidates",
                    str(args.candidates),
                    "--backend",
                    args.backend,
                ],
                env=env | {"KERNEL_EVAL_HOME": home},
                capture_output=True,
                text=True,
                timeout=1800,
            )
        finally:
            shutil.rmtree(home, ignore_errors=True)
        if done.returncode != 0:
            print(f"{mode}: failed\n{done.stderr[-3000:]}", file=sys.stderr)
            return 1
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    reference = rows[0]["verdicts"]
    print(f"{args.candidates} candidates, backend {args.backend}, {os.cpu_count()} cores")
    print("| mode | workers | wall s | candidates/min | speed-up | verdicts as single |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        init = f" (+ {row['ray_init_s']:.1f} s ray.init)" if row["ray_init_s"] is not None else ""
        print(
            f"| {row['mode']} | {', '.join(row['workers'])} | {row['wall_s']:.1f}{init} | "
            f"{row['candidates_per_minute']:.1f} | {rows[0]['wall_s'] / row['wall_s']:.2f}x | "
            f"{'yes' if row['verdicts'] == reference else 'NO'} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0 if all(row["verdicts"] == reference for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
