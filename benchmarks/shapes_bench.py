"""What the default shape check costs a warm run_accuracy call: the same passing candidates with
shapes_mode='off' and with the defaults (two fuzzed shapes, warn), alternating, median of R calls each
after one warm-up of both (goldens cached, pools warm, as in a loop on one task).

    .venv/bin/python benchmarks/shapes_bench.py [--backend cpu|cuda] [--repeats R]

Candidates: the general kernels of tests/shapes_corpus and the level-1 examples' correct candidates
(their references have module-level size constants). Prints one row per candidate and the median ratio.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ["KERNEL_EVAL_HOME"] = tempfile.mkdtemp(prefix="kernel-eval-shapes-")
os.environ.setdefault("KERNEL_EVAL_FILL_POOL", "0")
sys.path.insert(0, str(ROOT))

from tools.accuracy import run_accuracy  # noqa: E402 - after KERNEL_EVAL_HOME is set
from tools.models.accuracy import RunAccuracyRequest  # noqa: E402


def cases() -> list[tuple[str, Path, Path]]:
    corpus = ROOT / "tests" / "shapes_corpus"
    found = [(f"corpus/{p.parent.name}", p.parent / "reference.py", p) for p in sorted(corpus.glob("*/general.py"))]
    level1 = ROOT / "examples" / "level1"
    for folder in sorted(p for p in level1.iterdir() if (p / "candidate.py").exists()):
        found.append((f"level1/{folder.name}", folder / "reference.py", folder / "candidate.py"))
    return found


def timed(reference: Path, candidate: Path, backend: str, mode: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    fields = {"reference": str(reference), "candidate": str(candidate), "backend": backend, "shapes_mode": mode}
    result = run_accuracy(RunAccuracyRequest.model_validate(fields))
    shapes = "-"
    if result.shapes is not None:
        shapes = ",".join(r.verdict for r in result.shapes.runs) or (result.shapes.note or "")
    return time.perf_counter() - t0, f"{result.verdict} [{shapes}]"


def main(argv: list[str]) -> int:
    backend = argv[argv.index("--backend") + 1] if "--backend" in argv else "cpu"
    repeats = int(argv[argv.index("--repeats") + 1]) if "--repeats" in argv else 5
    print("| candidate | off (s, median) | default (s, median) | ratio | default's verdict [shape runs] |")
    print("| --- | --- | --- | --- | --- |")
    ratios = []
    for name, reference, candidate in cases():
        timed(reference, candidate, backend, "off")  # warm-up: goldens, pools, compile caches
        timed(reference, candidate, backend, "warn")
        off, on, verdict = [], [], ""
        for _ in range(repeats):
            off.append(timed(reference, candidate, backend, "off")[0])
            seconds, verdict = timed(reference, candidate, backend, "warn")
            on.append(seconds)
        a, b = statistics.median(off), statistics.median(on)
        ratios.append(b / a)
        print(f"| {name} | {a:.3f} | {b:.3f} | {b / a:.2f}x | {verdict} |", flush=True)
    print(f"\nmedian ratio default / off: {statistics.median(ratios):.2f}x over {len(ratios)} candidates ({backend})")
    print(f"command: .venv/bin/python benchmarks/shapes_bench.py --backend {backend} --repeats {repeats}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
