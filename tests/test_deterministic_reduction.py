"""deterministic_reduction: split reductions through tl.atomic_add patched into per-split partials
plus a fixed-order sum. On the cpu backend the interpreter runs programs in one fixed order, so the
atomics are deterministic here too: what these tests verify is that the patched candidate is still
correct (run_accuracy passes on the task) and launches no atomics. Bitwise-stable re-runs need a GPU
(tests/gpu/test_cuda.py)."""

from __future__ import annotations

from pathlib import Path

from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest
from tools.repair.reduction import deterministic_reduction
from tools.repair.registry import patch
from tools.repair.source import analyze

ROOT = Path(__file__).resolve().parents[1]
SPLITK = ROOT / "examples" / "gpu" / "splitk_atomic"

ROW_SUM_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.sum(dim=1)


def get_inputs():
    return [torch.randn(37, 3000)]


def get_init_inputs():
    return []
"""

ATOMIC_ROW_SUM = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    out_row = out_ptr + row
    tl.atomic_add(out_row, tl.sum(x, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.zeros(x.shape[0], device=x.device, dtype=x.dtype)
        grid = lambda meta: (x.shape[0], triton.cdiv(x.shape[1], meta["BLOCK"]))
        row_sum_kernel[grid](x, out, x.shape[1], x.stride(0), BLOCK=512)
        return out
"""


def _passes(tmp_path: Path, reference: Path, candidate_source: str) -> bool:
    candidate = tmp_path / "patched.py"
    candidate.write_text(candidate_source)
    run = run_accuracy(
        RunAccuracyRequest(reference=str(reference), candidate=str(candidate), backend="cpu", num_seeds=1)
    )
    assert run.verdict == "pass", run.model_dump_json()[:2000]
    return True


def test_split_k_matmul_atomics_become_partials_and_a_fixed_order_sum(tmp_path):
    patched = patch("deterministic_reduction", (SPLITK / "candidate_atomic_add.py").read_text())
    assert patched is not None and not analyze(patched).atomic_add
    assert "tl.program_id(2)) * split_stride" in patched  # the split axis is the K split, program id 2
    assert _passes(tmp_path, SPLITK / "reference.py", patched)


def test_atomic_row_sum_over_column_blocks_with_a_meta_grid(tmp_path):
    reference = tmp_path / "reference.py"
    reference.write_text(ROW_SUM_REFERENCE)
    patched = deterministic_reduction(ATOMIC_ROW_SUM)
    assert patched is not None and not analyze(patched).atomic_add
    assert "tl.program_id(1)) * split_stride" in patched
    assert _passes(tmp_path, reference, patched)


def test_atomics_that_are_not_a_split_reduction_are_left_alone():
    one_program_per_row = ATOMIC_ROW_SUM.replace("tl.program_id(1) * BLOCK + ", "")
    assert deterministic_reduction(one_program_per_row) is None  # no split axis: one order already
    in_a_loop = ATOMIC_ROW_SUM.replace(
        "    tl.atomic_add(out_row, tl.sum(x, axis=0))",
        "    for i in range(2):\n        tl.atomic_add(out_row, tl.sum(x, axis=0))",
    )
    assert deterministic_reduction(in_a_loop) is None  # repeated adds to one element cannot become a store
    used_value = ATOMIC_ROW_SUM.replace("    tl.atomic_add(out_row", "    old = tl.atomic_add(out_row")
    assert deterministic_reduction(used_value) is None
    assert deterministic_reduction("def broken(:\n") is None


def test_verification_of_the_patch_requires_an_atomic_free_source_and_says_so_on_cpu():
    from tools.fixes import _atomic_free
    from tools.models.diagnosis import Verification

    check = Verification(verdict="pass", summary="pass", run_id="r", before={})
    assert _atomic_free(check, deterministic_reduction(ATOMIC_ROW_SUM), "cpu")
    assert "no tl.atomic_add" in check.summary and "needs a GPU re-run" in check.summary
    still = Verification(verdict="pass", summary="pass", run_id="r", before={})
    assert not _atomic_free(still, ATOMIC_ROW_SUM, "cuda")
    assert "still launched" in still.summary and "GPU" not in still.summary
