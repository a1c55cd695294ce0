"""Offline comparator demo (`python examples/compare_demo.py`): judge three dumped fp16 matmul outputs.

Makes an fp16 matmul task, its FP64 golden and CPU same-precision control, and three candidate
outputs (correct; fp16 accumulation per K-block; round-toward-zero output cast), dumps them as
.npy files and runs `kernel-eval compare` on each.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import torch

from tools.cli import main as kernel_eval


def candidates(x: torch.Tensor, y: torch.Tensor) -> dict[str, torch.Tensor]:
    exact32 = x.float() @ y.float()
    nearest = exact32.half()
    fp16_acc = torch.zeros(x.shape[0], y.shape[1], dtype=torch.float16)
    for k in range(0, x.shape[1], 32):  # the accumulator itself is fp16: a classic bug
        fp16_acc += (x[:, k : k + 32].float() @ y[k : k + 32].float()).half()
    toward_zero = torch.where(
        nearest.float().abs() > exact32.abs(), torch.nextafter(nearest, torch.zeros_like(nearest)), nearest
    )
    return {"correct": nearest, "fp16_accumulator": fp16_acc, "round_toward_zero_cast": toward_zero}


def run() -> int:
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(128, 4096, generator=gen).half()  # KernelBench-style rand inputs
    y = torch.rand(4096, 128, generator=gen).half()
    golden = x.double() @ y.double()
    cpu = x @ y
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        np.save(d / "golden.npy", golden.numpy())
        np.save(d / "cpu.npy", cpu.numpy())
        for name, out in candidates(x, y).items():
            np.save(d / f"{name}.npy", out.numpy())
            print(f"\n$ kernel-eval compare --actual {name}.npy --golden golden.npy --cpu cpu.npy")
            code = kernel_eval(
                [
                    "compare",
                    "--actual",
                    str(d / f"{name}.npy"),
                    "--golden",
                    str(d / "golden.npy"),
                    "--cpu",
                    str(d / "cpu.npy"),
                ]
            )
            print(f"(exit {code})")
    return 0


if __name__ == "__main__":
    raise SystemExit(run())
