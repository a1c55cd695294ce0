"""Precision fingerprint of a matmul-like candidate: which precision model does it match?

The candidate's output is compared with goldens emulating one precision choice each: the exact
product, fp32 accumulation, tf32- or bf16-rounded inputs (what tl.dot does on fp32 inputs
without input_precision="ieee"), fp16 accumulation per K-block, a round-toward-zero output cast.
The model the candidate sits closest to names the cause. All in the trusted process, on the
stored inputs; nothing of the candidate runs.
"""

from __future__ import annotations

import torch

from tools.models.diagnosis import PrecisionModel
from tools.thresholds import RELATIVE_ERROR_EPS

MAX_WORK = 2**31  # M*N*K beyond this: skip the emulations


def _round_mantissa(t: torch.Tensor, bits: int, truncate: bool = False) -> torch.Tensor:
    """float32 values reduced to `bits` explicit mantissa bits: round to nearest even, or truncated
    (what NVIDIA tensor cores do to fp32 operands in tf32 mode: errors then lean toward zero)."""
    i = t.to(torch.float32).contiguous().view(torch.int32).to(torch.int64)
    drop = 23 - bits
    if truncate:
        return ((i >> drop) << drop).to(torch.int32).view(torch.float32)
    half = 1 << (drop - 1)
    lsb = (i >> drop) & 1
    rounded = ((i + half - 1 + lsb) >> drop) << drop
    return rounded.to(torch.int32).view(torch.float32)


def _rtz(exact: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    nearest = exact.to(dtype)
    back = nearest.to(exact.dtype)
    toward = torch.nextafter(nearest, torch.zeros_like(nearest))
    return torch.where(back.abs() > exact.abs(), toward, nearest)


def _block_k(source: str) -> list[int]:
    from tools.repair.source import analyze

    return analyze(source).blocks("_K") or [32, 64]


def _mere(actual: torch.Tensor, model: torch.Tensor) -> float:
    a, m = actual.to(torch.float64), model.to(torch.float64)
    valid = torch.isfinite(a) & torch.isfinite(m)
    if not bool(valid.any()):
        return float("inf")
    return float(((a - m).abs() / (m.abs() + RELATIVE_ERROR_EPS))[valid].mean())


def matmul_models(a: torch.Tensor, b: torch.Tensor, actual: torch.Tensor, source: str) -> list[PrecisionModel]:
    m, k = a.shape[-2], a.shape[-1]
    n = b.shape[-1]
    if m * n * k > MAX_WORK or a.dim() != 2 or b.dim() != 2:
        return []
    out_dtype = actual.dtype
    a64, b64 = a.to(torch.float64), b.to(torch.float64)
    exact = a64 @ b64
    f32 = a.to(torch.float32) @ b.to(torch.float32)
    models = {
        "exact product rounded to the output dtype": exact.to(out_dtype),
        "fp32 accumulation (a correct kernel)": f32.to(out_dtype),
        "tf32 inputs (tl.dot default on fp32 inputs)": (
            _round_mantissa(a, 10).double() @ _round_mantissa(b, 10).double()
        ).to(out_dtype),
        "tf32 inputs, truncated (tensor cores)": (
            _round_mantissa(a, 10, True).double() @ _round_mantissa(b, 10, True).double()
        ).to(out_dtype),
        "bf16 inputs": (a.to(torch.bfloat16).double() @ b.to(torch.bfloat16).double()).to(out_dtype),
        "round-toward-zero output cast": _rtz(f32.double(), out_dtype) if out_dtype != torch.float64 else exact,
    }
    for block in _block_k(source):
        acc = torch.zeros(m, n, dtype=torch.float16)
        for k0 in range(0, k, block):
            partial = (a[:, k0 : k0 + block].float() @ b[k0 : k0 + block].float()).half()  # tl.dot(...).to(fp16)
            acc = (acc.float() + partial.float()).half()  # an fp16 add
        models[f"fp16 accumulator between K-blocks of {block}"] = acc.to(out_dtype)
    ranked = sorted(((_mere(actual, model), name) for name, model in models.items()), key=lambda x: x[0])
    return [PrecisionModel(model=name, mere_vs_candidate=value) for value, name in ranked]
