"""What the interpreter's two speed pieces (sandbox/harness/interpreter_compat.py) give a forward on the cpu
backend: no integer overflow check nothing reads, and the language patched once per module and launch.

    python benchmarks/interpreter_bench.py [--repeat 3] [--corpora tests/heldout20,tests/heldout21]

Each task's correct candidate runs its forward on the reference's inputs under the Triton interpreter with
the compatibility layer installed, in a fresh process per mode: "before" without the two pieces (everything
else of the layer installed), "after" with them (the default). Modes alternate task by task; each process
times --repeat forwards after one warm-up and reports the median. The outputs of both modes are compared
bit for bit (the pieces change no value). No sandbox: it adds the same fixed cost to both.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EXAMPLES = [
    "examples/level1/19_relu",
    "examples/level1/23_softmax",
    "tests/mutation_corpus/kernels/layernorm",
    "tests/mutation_corpus/kernels/attention",
    "tests/mutation_corpus/kernels/cumsum",
]

#: One forward timed in a fresh process: prints {"median_s": ..., "digest": ...}.
CHILD = textwrap.dedent(
    """
    import hashlib, importlib.util, json, statistics, sys, time
    import torch
    from sandbox.harness import interpreter_compat
    if sys.argv[2] == "before":
        interpreter_compat._install_patch_once_per_launch = lambda interpreter: None
        interpreter_compat._install_overflow_checks_off = lambda interpreter: None
    interpreter_compat.install()

    def load(path, name):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    task, repeat = sys.argv[1], int(sys.argv[3])
    reference, candidate = load(f"{task}/reference.py", "reference"), load(f"{task}/candidate.py", "candidate")
    torch.manual_seed(0)
    inputs = reference.get_inputs()
    model = candidate.ModelNew(*reference.get_init_inputs())
    out = model(*inputs)  # warm-up
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        out = model(*inputs)
        times.append(time.perf_counter() - started)
    outs = out if isinstance(out, (tuple, list)) else [out]
    digest = hashlib.sha256(b"".join(o.detach().contiguous().view(torch.uint8).numpy().tobytes() for o in outs))
    print(json.dumps({"median_s": statistics.median(times), "digest": digest.hexdigest()}))
    """
)


def forward(task: str, mode: str, repeat: int) -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, task, mode, str(repeat)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def tasks(corpora: list[str]) -> list[str]:
    found = [t for t in EXAMPLES if (ROOT / t / "candidate.py").exists()]
    for corpus in corpora:
        found += sorted(str(p.parent.relative_to(ROOT)) for p in (ROOT / corpus).glob("*/candidate.py"))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--corpora", default="tests/heldout20,tests/heldout21")
    args = parser.parse_args()
    print("| task | before s | after s | before / after | same output |")
    print("|---|---|---|---|---|")
    ratios = []
    for task in tasks([c for c in args.corpora.split(",") if c]):
        before, after = forward(task, "before", args.repeat), forward(task, "after", args.repeat)
        if "error" in before or "error" in after:
            print(f"| {task} | {before.get('error', '')} | {after.get('error', '')} | | |", flush=True)
            continue
        ratio = before["median_s"] / after["median_s"]
        ratios.append(ratio)
        same = "yes" if before["digest"] == after["digest"] else "NO"
        print(
            f"| {task} | {before['median_s']:.3f} | {after['median_s']:.3f} | {ratio:.2f}x | {same} |",
            flush=True,
        )
    if ratios:
        print(
            f"\n{len(ratios)} tasks: before / after median {statistics.median(ratios):.2f}x, "
            f"min {min(ratios):.2f}x, max {max(ratios):.2f}x"
        )


if __name__ == "__main__":
    main()
