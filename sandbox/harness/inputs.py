"""Inputs for one seed: the task's get_inputs(), then the task options (dtype, value range, profile).

Only floating-point tensors are changed; integer tensors (indices, shapes) and non-tensors stay
as the task made them. Profiles exist because KernelBench's torch.rand inputs (all >= 0) never
exercise cancellation, NaN or overflow:

- task:            the task's own inputs
- small_values:    magnitudes log-uniform over ~2^-20..2^-4 (16-bit) or 2^-30..2^-8, random sign:
                   many outputs land in the comparator's small-value domain
- cancellation:    zero-mean values of magnitude ~16, in pairs along the last dimension of nearly
                   equal size and opposite sign, and equal pairs along the dimension before:
                   sums over the last dimension and matmuls (A's K pairs meet B's equal K pairs)
                   cancel to tiny results
- special_values:  randn with ~2% each of NaN, +Inf, -Inf, +-0 and subnormals
- large_magnitude: magnitudes 2^(emax/4)..2^(3 emax/4) of the dtype (fp16: 16..4096): overflow
"""

from __future__ import annotations

import math

import torch

PROFILES = ("task", "small_values", "cancellation", "special_values", "large_magnitude")


def _log_uniform(shape, low_exp: float, high_exp: float, gen) -> torch.Tensor:
    exps = low_exp + (high_exp - low_exp) * torch.rand(shape, generator=gen, dtype=torch.float64)
    signs = torch.where(torch.rand(shape, generator=gen) < 0.5, -1.0, 1.0).to(torch.float64)
    return signs * torch.exp2(exps)


def _small_values(t, gen):
    wide = t.element_size() > 2
    return _log_uniform(t.shape, -30 if wide else -20, -8 if wide else -4, gen)


def _cancellation(t, gen):
    x = 16.0 * torch.randn(t.shape, generator=gen, dtype=torch.float64)
    if t.dim() >= 1 and t.shape[-1] >= 2:
        n = t.shape[-1] // 2 * 2
        even = x[..., 0:n:2]
        x[..., 1:n:2] = -even * (1 + 1e-3 * torch.randn(even.shape, generator=gen, dtype=torch.float64))
    if t.dim() >= 2 and t.shape[-2] >= 2:
        m = t.shape[-2] // 2 * 2
        x[..., 1:m:2, :] = x[..., 0:m:2, :]
    return x


def _special_values(t, gen):
    x = torch.randn(t.shape, generator=gen, dtype=torch.float64)
    finfo = torch.finfo(t.dtype)
    u = torch.rand(t.shape, generator=gen, dtype=torch.float64)
    specials = [math.nan, math.inf, -math.inf, 0.0, -0.0, finfo.tiny / 4]
    for i, value in enumerate(specials):
        x[(u >= 0.02 * i) & (u < 0.02 * (i + 1))] = value
    return x


def _large_magnitude(t, gen):
    emax = math.log2(torch.finfo(t.dtype).max)
    return _log_uniform(t.shape, emax / 4, 3 * emax / 4, gen)


_PROFILE_FNS = {
    "small_values": _small_values,
    "cancellation": _cancellation,
    "special_values": _special_values,
    "large_magnitude": _large_magnitude,
}


def transform(inputs: list, seed: int, dtype: torch.dtype | None, value_range, profile: str) -> list:
    gen = torch.Generator().manual_seed((seed * 2654435761 + 12345) % (2**63))
    out = []
    for t in inputs:
        if isinstance(t, torch.Tensor) and t.is_floating_point():
            if dtype is not None:
                t = t.to(dtype)
            if value_range is not None:
                low, high = value_range
                t = (low + (high - low) * torch.rand(t.shape, generator=gen, dtype=torch.float64)).to(t.dtype)
            if profile != "task":
                t = _PROFILE_FNS[profile](t, gen).to(t.dtype)
        out.append(t)
    return out
