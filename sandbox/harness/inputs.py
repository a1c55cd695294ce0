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
                drawn = low + (high - low) * torch.rand(t.shape, generator=gen, dtype=torch.float64)
                t = drawn.to(device=t.device, dtype=t.dtype)
            if profile != "task":  # drawn on the CPU (one generator for every device), kept where t was
                t = _PROFILE_FNS[profile](t, gen).to(device=t.device, dtype=t.dtype)
        out.append(t)
    return out


# --- making a seed's inputs inside a job ---------------------------------------------------------

#: chunk for fingerprints: bounded temporary memory (int64 copies) whatever the input size
_FINGERPRINT_CHUNK = 1 << 22
_BIT_VIEWS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def make(module, seed: int, dtype: torch.dtype | None, options: dict, device: str) -> tuple[list, list]:
    """(init, inputs) of one seed: get_init_inputs(), then get_inputs() with factories defaulting to
    `device` (random tensors made where they are used: no copies, no files), then the task's input
    options. The same code in the reference and the candidate job gives the same tensors."""
    from sandbox.harness.common import seed_all

    seed_all(seed)
    init = list(module.get_init_inputs())
    seed_all(seed)
    with torch.device(device):
        raw = list(module.get_inputs())
    return init, transform(raw, seed, dtype, options.get("value_range"), options.get("profile", "task"))


def make_where_possible(module, seed, dtype, options: dict, device: str) -> tuple[list, list, str]:
    """make() on `device`, or on the CPU where the task's get_inputs cannot run there (a CPU
    generator, numpy, ...): (init, inputs, where they were made)."""
    if device != "cpu":
        try:
            init, made = make(module, seed, dtype, options, device)
            return init, made, device
        except Exception:  # noqa: BLE001 - the CPU attempt below reports the task's own error
            pass
    init, made = make(module, seed, dtype, options, "cpu")
    return init, made, "cpu"


def _tensor_digest(t: torch.Tensor) -> list:
    flat = t.detach().contiguous().reshape(-1)
    if flat.is_complex():
        flat = torch.view_as_real(flat).reshape(-1)
    bits = flat.view(torch.uint8) if flat.dtype == torch.bool else flat.view(_BIT_VIEWS[flat.element_size()])
    if flat.is_floating_point():  # one NaN for all: a conversion's NaN bits depend on its (vector) path
        bits = bits.masked_fill(torch.isnan(flat), -1)
    plain = weighted = 0
    for start in range(0, bits.numel(), _FINGERPRINT_CHUNK):
        chunk = bits[start : start + _FINGERPRINT_CHUNK].to(torch.int64)
        weights = torch.arange(start, start + chunk.numel(), device=chunk.device, dtype=torch.int64) % 65521 + 1
        plain += int(chunk.sum())  # int64 sums wrap the same way on every device: order-free
        weighted += int((chunk * weights).sum())
    return [str(t.dtype), list(t.shape), plain, weighted]


def fingerprint(init, made) -> str:
    """A digest of a seed's (init, inputs), the same on any device: checks that two jobs made the
    same inputs (not a defence against an adversary: both jobs make them before candidate code runs)."""
    import hashlib
    import json

    def leaf(value):
        if isinstance(value, torch.Tensor):
            return _tensor_digest(value)
        if isinstance(value, (list, tuple)):
            return [type(value).__name__, [leaf(v) for v in value]]
        if isinstance(value, dict):
            return ["dict", [[str(k), leaf(v)] for k, v in value.items()]]
        return repr(value)

    return hashlib.sha256(json.dumps([leaf(init), leaf(made)]).encode()).hexdigest()[:32]
