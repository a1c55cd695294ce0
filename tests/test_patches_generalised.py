"""suggest_fix patches that must hold on kernels nobody has written yet: a loaded index is never
upcast, a half-masked 2-D access gets the bound of every dimension, a t * log(t) term keeps the
xlogy convention at t == 0, and a kernel writing through an input's pointer gets a copy of it.
Each kernel is run, diagnosed and patched on the cpu backend, and the patch verified by re-running."""

from __future__ import annotations

from tests.test_patches_loops import _verified_fix
from tools.repair.registry import patch

BAG_SUM_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, table, idx):
        return table.float()[idx.long()].sum(dim=1).to(table.dtype)


def get_inputs():
    return [torch.randn(50, 96).to(torch.float16) * 4, torch.randint(0, 50, (7, 64), dtype=torch.int32)]


def get_init_inputs():
    return []
"""

#: Bags of token ids, each summing its tokens' table rows in an fp16 accumulator. The token id is
#: a load too: it addresses the table, so it must stay an integer when the data is upcast.
BAG_SUM_FP16 = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bag_sum_kernel(t_ptr, idx_ptr, out_ptr, L, D, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    keep = cols < D
    acc = tl.zeros((BLOCK_D,), dtype=tl.float16)
    for j in range(0, L):
        tok = tl.load(idx_ptr + bag * L + j)
        vec = tl.load(t_ptr + tok * D + cols, mask=keep, other=0.0)
        acc += vec
    tl.store(out_ptr + bag * D + cols, acc.to(out_ptr.dtype.element_ty), mask=keep)


class ModelNew(nn.Module):
    def forward(self, table, idx):
        out = torch.empty((idx.shape[0], table.shape[1]), device=table.device, dtype=table.dtype)
        bag_sum_kernel[(idx.shape[0],)](table, idx, out, idx.shape[1], table.shape[1], BLOCK_D=128)
        return out
"""


def test_a_loaded_index_is_never_upcast_with_the_data():
    fix = _verified_fix(BAG_SUM_REFERENCE, BAG_SUM_FP16, "fp32_accumulator")
    assert "tok = tl.load(idx_ptr + bag * L + j)\n" in fix.patched_source
    assert "vec = tl.load(t_ptr + tok * D + cols, mask=keep, other=0.0).to(tl.float32)" in fix.patched_source
    assert fix.verified, fix.verification


def test_an_index_that_only_bounds_a_mask_or_a_loop_stays_an_integer():
    # the segment's length is loaded and bounds the loop; its start is loaded and feeds the mask
    source = BAG_SUM_FP16.replace(
        "for j in range(0, L):\n        tok = tl.load(idx_ptr + bag * L + j)",
        "n = tl.load(idx_ptr + bag)\n    for j in range(0, n):\n        tok = tl.load(idx_ptr + bag * L + j)",
    )
    patched = patch("fp32_accumulator", source)
    assert "n = tl.load(idx_ptr + bag)\n" in patched and "tok = tl.load(idx_ptr + bag * L + j)\n" in patched


MATVEC_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, v):
        return a @ v


def get_inputs():
    return [torch.randn(37, 300), torch.randn(300)]


def get_init_inputs():
    return []
"""

#: Rows x a K loop over a 2-D pointer block; the matrix load is masked on the rows only, so the
#: last K block reads past each row (K = 300 is no multiple of 64).
MATVEC_ROWS_ONLY = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(a_ptr, v_ptr, y_ptr, R, K, stride_ar, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]
    ks = tl.arange(0, BLOCK_K)[None, :]
    row_ok = rows < R
    a_ptrs = a_ptr + rows * stride_ar + ks
    v_ptrs = v_ptr + ks
    acc = tl.zeros((BLOCK_R, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_ok = k0 + ks < K
        a = tl.load(a_ptrs, mask=row_ok, other=0.0)
        v = tl.load(v_ptrs, mask=k_ok, other=0.0)
        acc += a * v
        a_ptrs += BLOCK_K
        v_ptrs += BLOCK_K
    y = tl.sum(acc, axis=1)[:, None]
    tl.store(y_ptr + rows, y, mask=row_ok)


class ModelNew(nn.Module):
    def forward(self, a, v):
        R, K = a.shape
        y = torch.empty(R, device=a.device, dtype=a.dtype)
        matvec_kernel[(triton.cdiv(R, 16),)](a, v, y, R, K, a.stride(0), BLOCK_R=16, BLOCK_K=64)
        return y
"""

#: The same product with strided offsets subscripted where the pointer is built, the matrix load
#: unmasked and no mask on the K dimension anywhere in the shape the load uses: its bound is the
#: stop of the loop the pointer advances in.
MATVEC_UNMASKED = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(a_ptr, v_ptr, y_ptr, R, K, stride_ar, stride_ak, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_r[:, None] * stride_ar + offs_k[None, :] * stride_ak
    acc = tl.zeros((BLOCK_R, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        v = tl.load(v_ptr + k0 + offs_k, mask=k0 + offs_k < K, other=0.0)
        acc += a * v[None, :]
        a_ptrs += BLOCK_K * stride_ak
    tl.store(y_ptr + offs_r, tl.sum(acc, axis=1), mask=offs_r < R)


class ModelNew(nn.Module):
    def forward(self, a, v):
        R, K = a.shape
        y = torch.empty(R, device=a.device, dtype=a.dtype)
        matvec_kernel[(triton.cdiv(R, 16),)](a, v, y, R, K, a.stride(0), a.stride(1), BLOCK_R=16, BLOCK_K=64)
        return y
"""


def test_a_half_masked_k_loop_load_gets_the_k_bound_of_a_sibling_mask():
    fix = _verified_fix(MATVEC_REFERENCE, MATVEC_ROWS_ONLY, "boundary_mask")
    assert "a = tl.load(a_ptrs, mask=row_ok & k_ok, other=0.0)" in fix.patched_source
    assert fix.verified, fix.verification


def test_an_unmasked_2d_load_is_bounded_in_every_dimension():
    fix = _verified_fix(MATVEC_REFERENCE, MATVEC_UNMASKED, "boundary_mask")
    assert "mask=(offs_r[:, None] < R) & (k0 + offs_k[None, :] < K), other=0.0)" in fix.patched_source
    assert fix.verified, fix.verification


SCALE_2D_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2.0 + 1.0


def get_inputs():
    return [torch.randn(21, 150)]


def get_init_inputs():
    return []
"""

#: Tiles of rows x columns over a 2-D grid, masked on the rows only: the column tail of every
#: row spills into the next row. The columns' bound is what the grid's second axis divides.
SCALE_2D_ROWS_ONLY = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_c = tl.program_id(1)
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    inside = r[:, None] < n_rows
    x = tl.load(x_ptr + r[:, None] * n_cols + c[None, :], mask=inside, other=0.0)
    tl.store(y_ptr + r[:, None] * n_cols + c[None, :], x * 2.0 + 1.0, mask=inside)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        rows, cols = x.shape
        grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_R"]), triton.cdiv(cols, meta["BLOCK_C"]))  # noqa: E731
        affine_kernel[grid](x, y, rows, cols, BLOCK_R=8, BLOCK_C=64)
        return y
"""


def test_a_tile_index_is_bounded_by_the_extent_its_grid_axis_divides():
    fix = _verified_fix(SCALE_2D_REFERENCE, SCALE_2D_ROWS_ONLY, "boundary_mask")
    assert fix.patched_source.count("mask=inside & (c[None, :] < n_cols)") == 2
    assert fix.verified, fix.verification


ENTROPY_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, p):
        return -torch.xlogy(p, p).sum(dim=1)


def get_inputs():
    p = torch.rand(9, 300)
    p[p < 0.25] = 0.0  # zero-probability entries: xlogy counts them as 0
    return [p / p.sum(dim=1, keepdim=True)]


def get_init_inputs():
    return []
"""

#: Row entropy -sum p log p over column blocks: at p == 0 the kernel computes 0 * -inf = NaN.
ENTROPY_NAIVE = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def entropy_kernel(p_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        p = tl.load(p_ptr + row * n_cols + cols, mask=cols < n_cols, other=1.0)
        total += -p * tl.log(p)
    tl.store(out_ptr + row, tl.sum(total, axis=0))


class ModelNew(nn.Module):
    def forward(self, p):
        out = torch.empty(p.shape[0], device=p.device, dtype=p.dtype)
        entropy_kernel[(p.shape[0],)](p, out, p.shape[1], BLOCK=128)
        return out
"""


def test_t_log_t_at_zero_keeps_the_xlogy_convention():
    fix = _verified_fix(ENTROPY_REFERENCE, ENTROPY_NAIVE, "stable_formula")
    assert "total += tl.where(p == 0, 0.0, -p * tl.log(p))" in fix.patched_source
    assert fix.verified, fix.verification


def test_a_t_log_t_already_guarded_on_t_is_left_alone():
    guarded = ENTROPY_NAIVE.replace("-p * tl.log(p)", "tl.where(p > 0, -p * tl.log(p), 0.0)")
    assert patch("stable_formula", guarded) is None
    assert patch("stable_formula", ENTROPY_NAIVE.replace("-p * tl.log(p)", "-p * tl.log(q)")) is None


CLIP_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.clamp(x, -1.0, 1.0).sum() + 0.0 * x.sum()


def get_inputs():
    return [torch.randn(40, 50)]


def get_init_inputs():
    return []
"""

#: The kernel clips its input through the input's own pointer (a view of it) before summing
#: the block: the caller's tensor changes. No destination is passed twice at the launch.
CLIP_INTO_INPUT = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def clip_sum_kernel(x_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    v = tl.minimum(tl.maximum(tl.load(x_ptr + offs, mask=keep, other=0.0), -1.0), 1.0)
    tl.store(x_ptr + offs, v, mask=keep)
    tl.store(part_ptr + pid, tl.sum(v, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        flat = x.contiguous().view(-1)
        n = flat.numel()
        parts = torch.empty(triton.cdiv(n, 256), device=x.device, dtype=torch.float32)
        clip_sum_kernel[(triton.cdiv(n, 256),)](flat, parts, n, BLOCK=256)
        return parts.sum()
"""


def test_a_kernel_storing_through_an_input_pointer_gets_a_copy_of_that_input():
    fix = _verified_fix(CLIP_REFERENCE, CLIP_INTO_INPUT, "do_not_mutate_inputs")
    assert "_in_flat = flat.clone()" in fix.patched_source
    assert "clip_sum_kernel[(triton.cdiv(n, 256),)](_in_flat, parts, n, BLOCK=256)" in fix.patched_source
    assert fix.verified, fix.verification


def test_an_input_updated_in_place_and_returned_is_returned_from_its_copy():
    in_place = CLIP_INTO_INPUT.replace("        return parts.sum()", "        return flat.view(x.shape)")
    patched = patch("do_not_mutate_inputs", in_place)
    assert "_in_flat = flat.clone()" in patched and "return _in_flat.view(x.shape)" in patched
    # a kernel that only reads its inputs is left alone
    assert (
        patch("do_not_mutate_inputs", CLIP_INTO_INPUT.replace("    tl.store(x_ptr + offs, v, mask=keep)\n", "")) is None
    )


def test_a_mask_assigned_inside_a_loop_never_bounds_an_access_after_it():
    # k_ok is the K bound of the loop's blocks only: past the loop it is out of scope
    after_loop = MATVEC_ROWS_ONLY.replace(
        "    y = tl.sum(acc, axis=1)[:, None]",
        "    head = tl.load(v_ptr + ks)\n    y = tl.sum(acc * head, axis=1)[:, None]",
    )
    patched = patch("boundary_mask", after_loop)
    assert "a = tl.load(a_ptrs, mask=row_ok & k_ok, other=0.0)" in patched
    assert "head = tl.load(v_ptr + ks)\n" in patched


LOGSUMEXP_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.logsumexp(x, dim=1)


def get_inputs():
    return [torch.randn(64, 128) * 60]


def get_init_inputs():
    return []
"""

LOGSUMEXP_OVERFLOWING = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def lse_kernel(x_ptr, out_ptr, N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + row * N + cols)
    e = tl.exp(x)
    s = tl.sum(e, axis=0)
    tl.store(out_ptr + row, tl.log(s))


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        lse_kernel[(x.shape[0],)](x, out, N=x.shape[1])
        return out
"""


def test_max_subtraction_adds_the_max_back_to_a_log_of_the_shifted_sum():
    """A log-sum-exp patched by max subtraction alone is off by the max: the patch adds it back to the log
    of what the shifted exp feeds (here through two names), and the patched kernel passes."""
    from tools.accuracy import run_accuracy
    from tools.models.accuracy import RunAccuracyRequest
    from tools.repair.patches import max_subtraction

    patched = max_subtraction(LOGSUMEXP_OVERFLOWING)
    assert "e = tl.exp(x - tl.max(x, axis=0))" in patched
    assert "tl.store(out_ptr + row, tl.max(x, axis=0) + tl.log(s))" in patched
    for candidate, verdict in ((LOGSUMEXP_OVERFLOWING, "fail"), (patched, "pass")):
        r = run_accuracy(
            RunAccuracyRequest(reference=LOGSUMEXP_REFERENCE, candidate=candidate, backend="cpu", num_seeds=1)
        )
        assert r.verdict == verdict, r.summary
