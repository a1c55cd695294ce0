"""Which tl.load / tl.store can run past a partial last block: block-shaped accesses only."""

from __future__ import annotations

from tools.accuracy import run_accuracy
from tools.diagnosis import explain_failure
from tools.models.accuracy import RunAccuracyRequest
from tools.models.diagnosis import ExplainRequest
from tools.repair.source import analyze

ROW_SUM_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.sum(dim=1)


def get_inputs():
    return [torch.randn(48, 700)]


def get_init_inputs():
    return []
"""

#: Masked column loads, one scalar store per row; the bug is an added constant, not a mask.
ROW_SUM_OFFSET = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + row, total + 0.01)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        row_sum_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=256)
        return out
"""

ACCESSES = """
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, idx_ptr, w_ptr, b_ptr, y_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, D: tl.constexpr):
    pid = tl.program_id(0)
    bias = tl.load(b_ptr)                                   # 9 scalar
    first = tl.load(idx_ptr + pid)                          # 10 scalar
    w = tl.load(w_ptr + first * 3 + 1)                      # 11 scalar, through a loaded scalar
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    offs_d = tl.arange(0, D)
    rows = tl.load(idx_ptr + offs_m, mask=offs_m < M)       # 15 masked block
    g = tl.load(x_ptr + rows)                               # 16 block: a gather through loaded indices
    ptrs = x_ptr + offs_m[:, None] * K + offs_k[None, :]
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(ptrs, mask=offs_m[:, None] < M)         # 19 k never bounded
        kk = k0 + offs_k
        ok = (offs_m[:, None] < M) & (kk[None, :] < K)
        c = tl.load(x_ptr + offs_m[:, None] * K + kk[None, :], mask=ok)  # 22 both bounded
        ptrs += BLOCK_K
    e = tl.load(x_ptr + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < M)  # 24 D is whole
    tl.store(y_ptr + pid, bias + w)                         # 25 scalar
    tl.store(y_ptr + offs_m, g)                             # 26 block
"""


def test_scalar_accesses_need_no_mask_and_block_accesses_do():
    facts = analyze(ACCESSES)
    assert facts.unmasked_loads == [16]
    assert facts.unmasked_stores == [26]
    assert facts.partially_masked_loads == [19]
    assert facts.tail_loads == [16, 19]


def test_a_constant_table_read_whole_by_every_program_needs_no_mask():
    """An 8 x 8 table at the same addresses in every program (a quantisation table, a DCT basis) has no partial last
    block; the same block read at a program's offset, or a block sized by a constant parameter, does."""
    source = """
import triton.language as tl
def k(q_ptr, x_ptr, y_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    k = tl.arange(0, 8)
    q = tl.load(q_ptr + k[:, None] * 8 + k[None, :])        # 6 a constant table
    r = tl.load(x_ptr + pid * 64 + k[:, None] * 8 + k[None, :])  # 7 a program's block
    for i in range(0, 4):
        s = tl.load(x_ptr + i * 8 + k)                      # 9 a loop step's block
    t = tl.load(x_ptr + tl.arange(0, BLOCK))                # 10 a block sized by a parameter
    tl.store(y_ptr + k, q + r + s + t)                      # 11 a constant block stored
"""
    facts = analyze(source)
    assert sorted(facts.unmasked_loads) == [7, 9, 10]
    assert facts.unmasked_stores == []


def test_block_pointers_with_a_boundary_check_are_masked():
    source = """
import triton.language as tl
def k(a_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    block = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(K, 1), offsets=(0, 0),
                              block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    a = tl.load(block, boundary_check=(0, 1))
    b = tl.load(block)
"""
    facts = analyze(source)
    assert facts.unmasked_loads == [7]


def test_a_scalar_per_row_store_is_not_blamed_on_a_failing_run(tmp_path):
    (tmp_path / "reference.py").write_text(ROW_SUM_REFERENCE)
    (tmp_path / "candidate.py").write_text(ROW_SUM_OFFSET)
    run = run_accuracy(
        RunAccuracyRequest(
            reference=str(tmp_path / "reference.py"),
            candidate=str(tmp_path / "candidate.py"),
            backend="cpu",
            num_seeds=1,
        )
    )
    assert run.verdict == "fail"
    explained = explain_failure(ExplainRequest(run_id=run.run_id, heatmap=False))
    assert explained.diagnoses[0].pattern == "formula_error", explained.summary
    assert not any(d.pattern == "boundary_mask_error" for d in explained.diagnoses), explained.diagnoses


SCALE_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, w):
        return x * w


def get_inputs():
    return [torch.randn(64, 500), torch.randn(500)]


def get_init_inputs():
    return []
"""

#: fp32 in, fp32 arithmetic, fp32 out: a small constant added shows on the small values only.
SCALE_PLUS_CONSTANT = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, w_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, x * w + 1e-5, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, w):
        out = torch.empty_like(x)
        scale_kernel[(x.shape[0],)](x, w, out, x.shape[1], BLOCK=512)
        return out
"""


def test_an_fp32_kernel_is_not_offered_fp32_accumulation_or_an_unrelated_stable_formula(tmp_path):
    (tmp_path / "reference.py").write_text(SCALE_REFERENCE)
    (tmp_path / "candidate.py").write_text(SCALE_PLUS_CONSTANT)
    run = run_accuracy(
        RunAccuracyRequest(
            reference=str(tmp_path / "reference.py"),
            candidate=str(tmp_path / "candidate.py"),
            backend="cpu",
            num_seeds=1,
        )
    )
    assert run.verdict == "fail"
    # the detectors alone (no experiment to confirm the formula error)
    explained = explain_failure(ExplainRequest(run_id=run.run_id, heatmap=False, experiments=False))
    offered = {f for d in explained.diagnoses for f in d.suggested_fixes}
    assert explained.diagnoses, explained.summary
    assert "fp32_accumulator" not in offered and "stable_formula" not in offered, explained.diagnoses
    precision = [d for d in explained.diagnoses if d.pattern in ("small_value_outliers", "low_precision_accumulation")]
    assert precision and all(d.confidence <= 0.4 and "fix_formula" in d.suggested_fixes for d in precision)
