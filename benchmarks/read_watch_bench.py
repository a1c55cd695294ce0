"""What recording out-of-bounds reads costs the cpu backend: a forward under the Triton interpreter
with the read watch off and on, on the level-1 examples and kernels of the mutation corpus.

    python benchmarks/read_watch_bench.py [--repeat 5]

Each candidate's forward runs in this process (no sandbox: the sandbox adds the same fixed cost to
both) on its guarded inputs, alternating off / on, --repeat times each after one warm-up; the
table has the medians and their ratio. "Off" is the watch installed with nothing to watch (what
a load costs without it); "on" watches the inputs' margins (a run also watches the parameters'
and the output allocations': more regions, the same one search per load).
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sandbox.harness import common, guards, hooks  # noqa: E402
from sandbox.harness.read_watch import ReadWatch  # noqa: E402

TASKS = [
    "examples/level1/01_square_matmul",
    "examples/level1/19_relu",
    "examples/level1/23_softmax",
    "examples/level1/47_sum_reduction",
    "tests/mutation_corpus/kernels/layernorm",
    "tests/mutation_corpus/kernels/attention",
    "tests/mutation_corpus/kernels/cumsum",
]


def _forward(folder: Path, watch: ReadWatch, on: bool) -> float:
    reference = common.load_module(str(folder / "reference.py"), "bench_reference")
    candidate = common.load_module(str(folder / "candidate.py"), "bench_candidate")
    common.seed_all(1)
    inputs = [guards.guard_input(t, "nan") if isinstance(t, torch.Tensor) else t for t in reference.get_inputs()]
    model = candidate.ModelNew(*reference.get_init_inputs()).eval()
    watch.reset()
    if on:
        for i, t in enumerate(inputs):
            if isinstance(t, torch.Tensor) and t.untyped_storage().nbytes() > t.numel() * t.element_size():
                watch.watch(t, f"input {i}")
    start = time.perf_counter()
    with torch.no_grad():
        model(*inputs)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    hooks.LaunchRecorder(interpreter=True).install()  # the interpreter as a run has it
    watch = ReadWatch()
    watch.install()
    print(f"torch {torch.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    print("\n| candidate | forward, watch off (median s) | watch on (median s) | on / off |")
    print("|---|---|---|---|")
    ratios = []
    for task in TASKS:
        folder = ROOT / task
        _forward(folder, watch, True)  # warm-up
        off, on = [], []
        for _ in range(args.repeat):
            off.append(_forward(folder, watch, False))
            on.append(_forward(folder, watch, True))
        ratio = statistics.median(on) / statistics.median(off)
        ratios.append(ratio)
        print(f"| {task} | {statistics.median(off):.3f} | {statistics.median(on):.3f} | {ratio:.2f}x |", flush=True)
    print(f"\nmedian ratio {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
