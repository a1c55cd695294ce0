"""The roofline: the least time a device needs for a task's bytes and FLOPs, and how close a time is.

Peaks are the vendors' datasheet maxima (dense tensor-core FLOP/s, no sparsity). Per dtype the
most generous peak applies (fp32 tasks get the TF32 tensor-core peak, since a kernel may use TF32
dots), so only the truly impossible is flagged. Bytes are a lower bound too (each input read once,
each output written once), so a measured time below the bound is a measurement that cannot be.
"""

from __future__ import annotations

from dataclasses import dataclass

from tools.models.bench import Roofline, RooflinePoint
from tools.thresholds import ROOFLINE_PLAUSIBLE_MAX_FRACTION


@dataclass(frozen=True)
class DevicePeak:
    name: str
    gbps: float  # memory bandwidth, GB/s (1e9 bytes)
    tflops: dict[str, float]  # dtype -> dense TFLOP/s


#: Datasheet values: the SXM parts unless named otherwise.
PEAKS = (
    DevicePeak("H200", 4800, {"float16": 989.5, "bfloat16": 989.5, "float32": 494.7, "float64": 66.9, "float8": 1979}),
    DevicePeak("H100 PCIe", 2000, {"float16": 756.0, "bfloat16": 756.0, "float32": 378.0, "float64": 51.2}),
    DevicePeak("H100", 3350, {"float16": 989.5, "bfloat16": 989.5, "float32": 494.7, "float64": 66.9, "float8": 1979}),
    DevicePeak("A100", 2039, {"float16": 312.0, "bfloat16": 312.0, "float32": 156.0, "float64": 19.5}),
    DevicePeak("L40S", 864, {"float16": 362.1, "bfloat16": 362.1, "float32": 183.0, "float64": 1.4, "float8": 733}),
)


def peak_for(device_name: str) -> DevicePeak | None:
    """The table row whose name the device's name contains (longest match first: 'H100 PCIe' before 'H100')."""
    upper = device_name.upper()
    for peak in sorted(PEAKS, key=lambda p: -len(p.name)):
        if peak.name.upper() in upper:
            return peak
    return None


def dtype_class(dtype: str | None) -> str | None:
    if dtype is None:
        return None
    name = dtype.removeprefix("torch.")
    return "float8" if name.startswith("float8") else name


def build(
    device: str,
    bytes_moved: int,
    bytes_source: str,
    flops: int,
    flops_source: str,
    dtype: str | None,
    peak_gbps: float | None,
    peak_tflops: float | None,
    bandwidth_checked: bool = True,
) -> Roofline:
    """The bounds for a device (given peaks override the table)."""
    row = peak_for(device)
    source = f"datasheet row {row.name!r}" if row else "no table row for this device"
    gbps = peak_gbps or (row.gbps if row else None)
    klass = dtype_class(dtype)
    tflops = peak_tflops or (row.tflops.get(klass or "", max(row.tflops.values())) if row else None)
    if peak_gbps or peak_tflops:
        source = "given" + (f" (other peak: {source})" if not (peak_gbps and peak_tflops) else "")
    memory_ms = bytes_moved / (gbps * 1e9) * 1e3 if gbps else None
    compute_ms = flops / (tflops * 1e12) * 1e3 if tflops and flops else (0.0 if tflops else None)
    bounds = [b for b in ((memory_ms if bandwidth_checked else None), compute_ms) if b is not None]
    return Roofline(
        device=device,
        bytes=bytes_moved,
        bytes_source=bytes_source,
        flops=flops,
        flops_source=flops_source,
        peak_gbps=gbps,
        peak_tflops=tflops,
        peak_source=source,
        dtype=klass,
        memory_bound_ms=memory_ms,
        compute_bound_ms=compute_ms,
        min_time_ms=max(bounds) if bounds else None,
        bandwidth_checked=bandwidth_checked,
    )


def point(roofline: Roofline, median_ms: float) -> RooflinePoint:
    seconds = max(median_ms, 1e-12) / 1e3
    return RooflinePoint(
        achieved_gbps=roofline.bytes / seconds / 1e9,
        achieved_tflops=roofline.flops / seconds / 1e12 if roofline.flops else None,
        fraction_of_roofline=roofline.min_time_ms / max(median_ms, 1e-12) if roofline.min_time_ms else None,
    )


def beyond(point_: RooflinePoint) -> bool:
    return point_.fraction_of_roofline is not None and point_.fraction_of_roofline > ROOFLINE_PLAUSIBLE_MAX_FRACTION
