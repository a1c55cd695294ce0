"""Guard regions around the candidate's memory, so out-of-bounds accesses show instead of hiding.

- Inputs: each floating input is copied into the middle of a larger buffer whose margins hold a
  fill (NaN by default); on the interpreter integer and bool inputs too, with zero margins. An
  unmasked load past either end reads the fill: with NaN it poisons exactly the outputs that used
  out-of-bounds data; explain_failure re-runs with a finite fill to prove it (the NaNs vanish only
  if they came from the margins).
- Outputs: contiguous empty allocations get margins holding a known bit pattern; a store past
  either end changes them, which the forward check reports (the write landed in the margin
  instead of in someone else's memory).

Tensors stay ordinary contiguous tensors (a view with a storage offset): strides, data_ptr(),
.view() and .contiguous() behave as for any allocation. Margins are a multiple of 128 bytes, so
data_ptr() keeps its alignment.
"""

from __future__ import annotations

import torch

MARGIN_BYTES = 8192
FILLS = ("nan", "zero")
_OUTPUT_GUARD_BYTE = 0xA7


def margin_elements(t: torch.Tensor) -> int:
    return MARGIN_BYTES // t.element_size()


def _guardable(t) -> bool:
    return isinstance(t, torch.Tensor) and t.is_contiguous() and t.numel() > 0 and not t.requires_grad


def guard_input(t: torch.Tensor, fill: str, integers: bool = False) -> torch.Tensor:
    """A copy of `t` inside margins of `fill`. Integer and bool inputs (indices) get zero margins
    when `integers` (where the read watch records what reads them: an index read past the end is
    then 0, a valid index, and reported), else stay as they are."""
    if not _guardable(t) or not (t.is_floating_point() or integers):
        return t
    margin = margin_elements(t)
    value = float("nan") if fill == "nan" and t.is_floating_point() else 0
    buffer = torch.full((t.numel() + 2 * margin,), value, dtype=t.dtype, device=t.device)
    inner = buffer.narrow(0, margin, t.numel())
    inner.copy_(t.reshape(-1))
    return inner.view(t.shape)


class OutputGuards:
    """Margins around empty allocations, checked after the forward."""

    MAX_TRACKED = 256

    def __init__(self):
        self.tracked: list[
            tuple[torch.Tensor, int, int, tuple]
        ] = []  # (buffer bytes, margin bytes, inner bytes, shape)

    def allocate(self, out: torch.Tensor) -> torch.Tensor:
        """`out` re-made inside a guarded buffer (same shape, dtype, device), or `out` itself."""
        if not _guardable(out) or len(self.tracked) >= self.MAX_TRACKED:
            return out
        margin = margin_elements(out)
        buffer = torch.empty(out.numel() + 2 * margin, dtype=out.dtype, device=out.device)
        raw = buffer.view(torch.uint8)
        raw.fill_(_OUTPUT_GUARD_BYTE)
        inner = buffer.narrow(0, margin, out.numel()).view(out.shape)
        size = out.element_size()
        self.tracked.append((raw, margin * size, out.numel() * size, tuple(out.shape)))
        return inner

    def violations(self) -> list[dict]:
        """Allocations whose margins changed: how many bytes were written before and after."""
        found = []
        for raw, margin, inner, shape in self.tracked:
            before = int((raw[:margin] != _OUTPUT_GUARD_BYTE).sum())
            after = int((raw[margin + inner :] != _OUTPUT_GUARD_BYTE).sum())
            if before or after:
                found.append({"shape": list(shape), "bytes_before": before, "bytes_after": after})
        return found
