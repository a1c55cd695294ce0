"""How far above the CPU control's error does an honest passing kernel's error go? (LATENT_ERROR_RATIO)

For every correct candidate in examples/level1 and tests/heldout2-7 (the fixed candidates), and every
candidate those manifests list as passing with a defect (latent: an fp16 accumulator that passes
loose thresholds), runs run_accuracy on cpu (2 seeds) and prints the largest ratio of an output's
mean relative error to the CPU same-precision control's. The warning threshold must sit above every
honest ratio.

    .venv/bin/python benchmarks/latent_error_ratio.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ["KERNEL_EVAL_HOME"] = tempfile.mkdtemp(prefix="kernel-eval-latent-")
os.environ.setdefault("KERNEL_EVAL_FILL_POOL", "0")
sys.path.insert(0, str(ROOT))

from tools.accuracy import run_accuracy  # noqa: E402 - after KERNEL_EVAL_HOME is set
from tools.errors import ToolInputError  # noqa: E402
from tools.models.accuracy import RunAccuracyRequest  # noqa: E402


def cases() -> list[tuple[str, Path, Path, str, str]]:
    """(kind, reference, candidate, profile, label): kind is honest or latent."""
    found = []
    level1 = ROOT / "examples" / "level1"
    for e in json.loads((level1 / "manifest.json").read_text()):
        if e["expected_cpu_verdict"] == "pass":
            kind = "honest" if e["pattern"] is None else "latent"
            folder = level1 / e["problem"]
            found.append(
                (
                    kind,
                    folder / "reference.py",
                    folder / e["candidate"],
                    e["profile"],
                    f"{e['problem']}/{e['candidate']}",
                )
            )
    for n in range(2, 8):
        manifest = ROOT / "tests" / f"heldout{n}" / "manifest.json"
        seen = set()
        for e in json.loads(manifest.read_text()):
            folder = ROOT / e["task"]
            if e["fixed"] and (folder, e["fixed"]) not in seen:
                seen.add((folder, e["fixed"]))
                found.append(
                    ("honest", folder / "reference.py", folder / e["fixed"], "task", f"{e['task']}/{e['fixed']}")
                )
            if e.get("verdict") == "pass":
                found.append(
                    (
                        "latent",
                        folder / "reference.py",
                        folder / e["buggy"],
                        e.get("profile", "task"),
                        f"{e['task']}/{e['buggy']}",
                    )
                )
    return found


def ratio(result) -> float | None:
    best = None
    for seed in result.seeds:
        for out in seed.outputs:
            cpu = out.cpu_control
            if cpu is None or not isinstance(out.mere, float) or not isinstance(cpu.mere, float) or cpu.mere <= 0:
                continue
            best = max(best or 0.0, out.mere / cpu.mere)
    return best


def main() -> int:
    rows = []
    for kind, reference, candidate, profile, label in cases():
        try:
            r = run_accuracy(
                RunAccuracyRequest(
                    reference=str(reference),
                    candidate=str(candidate),
                    backend="cpu",
                    num_seeds=2,
                    input_profile=profile,  # pyright: ignore[reportArgumentType] - a manifest's profile name
                    determinism_check=False,
                    require_kernel_launch=False,
                )
            )
        except ToolInputError as exc:
            print(f"{label}: error {exc}"[:160])
            continue
        value = ratio(r) if r.verdict == "pass" else None
        rows.append((kind, label, r.verdict, value))
        print(f"{kind:7} {r.verdict:8} {'-' if value is None else f'{value:10.2f}'}  {label}", flush=True)
    honest = [v for k, _, verdict, v in rows if k == "honest" and v is not None]
    latent = [(label, v) for k, label, verdict, v in rows if k == "latent" and v is not None]
    median = sorted(honest)[len(honest) // 2]
    print(f"\nhonest passing candidates: {len(honest)}; largest ratio {max(honest):.2f}; median {median:.2f}")
    print("latent defects that pass:", ", ".join(f"{label} {v:.1f}" for label, v in latent) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
