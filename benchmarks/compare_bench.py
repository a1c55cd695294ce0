"""Comparator speed and memory: our three standards vs torch.testing.assert_close and msprobe.

    python benchmarks/compare_bench.py [--n 16777216] [--big] [--repeat 5]

All methods judge the same fp16 output (golden float64, CPU same-precision control) in one run;
each row is the median of --repeat timed calls after one warm-up. Extra memory is the peak RSS
above the RSS before the call, sampled every 2 ms. msprobe (`pip install -e .[bench]`) runs its
two-stage benchmark standard (metrics of NPU and CPU vs golden, then the ratio verdict), the
same inputs ours use. Goal: three_dim <= 2x torch.testing.assert_close, >= 5x faster than msprobe.
"""

# msprobe is the optional `bench` extra, usually absent where the type checker runs.
# pyright: reportMissingImports=false

from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import threading
import time

import torch

from tools.compare import CompareOptions, compare_tensors


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRss:
    """Samples RSS in a thread while the block runs."""

    def __enter__(self):
        gc.collect()
        self.base = rss_bytes()
        self.peak = self.base
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self):
        while not self.done.is_set():
            self.peak = max(self.peak, rss_bytes())
            time.sleep(0.002)

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()
        self.peak = max(self.peak, rss_bytes())

    @property
    def extra_mib(self) -> float:
        return (self.peak - self.base) / 2**20


def measure(fn, repeat: int):
    fn()  # warm-up
    times, peaks, result = [], [], None
    for _ in range(repeat):
        with PeakRss() as mem:
            start = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - start)
        peaks.append(mem.extra_mib)
    return statistics.median(times), max(peaks), result


def make_case(n: int, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    golden = torch.randn(n, dtype=torch.float64, generator=gen)
    cpu = golden.to(torch.float16)
    actual = (golden * (1 + 2.0**-11 * torch.randn(n, dtype=torch.float64, generator=gen))).to(torch.float16)
    return actual, golden, cpu


def torch_assert_close(actual, expected):
    try:
        torch.testing.assert_close(actual, expected, rtol=1e-3, atol=1e-3)
        return "pass"
    except AssertionError:
        return "fail"


def msprobe_benchmark():
    """msprobe's benchmark standard as a callable (actual, golden, cpu) -> verdict, or None."""
    try:
        from msprobe.pytorch.api_accuracy_checker.compare.compare_column import (
            ApiPrecisionOutputColumn,
            CompareColumn,
        )
        from msprobe.pytorch.api_accuracy_checker.compare.compare_input import (
            CompareInput,
            PrecisionCompareInput,
        )
        from msprobe.pytorch.api_accuracy_checker.compare.compare_utils import (
            ApiPrecisionCompareColumn as Col,
        )
        from msprobe.pytorch.api_accuracy_checker.precision_standard.benchmark_compare import (
            BenchmarkCompare,
            BenchmarkPrecisionCompare,
        )
    except ImportError:
        return None

    def metrics(bench, device, dtype):
        col = CompareColumn()
        BenchmarkCompare(CompareInput(bench, device, col, dtype)).compare()
        return {
            Col.SMALL_VALUE_ERROR_RATE: col.small_value_err_ratio,
            Col.RMSE: col.rmse,
            Col.MAX_REL_ERR: col.max_rel_error,
            Col.MEAN_REL_ERR: col.mean_rel_error,
            Col.EB: col.eb,
            Col.DEVICE_DTYPE: str(dtype),
        }

    def run(actual, golden, cpu):
        bench = golden.numpy()
        npu_row = metrics(bench, actual.numpy(), actual.dtype)
        cpu_row = metrics(bench, cpu.numpy(), cpu.dtype)
        out = ApiPrecisionOutputColumn()
        return BenchmarkPrecisionCompare(PrecisionCompareInput(npu_row, cpu_row, actual.dtype, out)).compare()

    return run


def bench(n: int, repeat: int, with_msprobe: bool):
    actual, golden, cpu = make_case(n)
    expected = golden.to(torch.float16)  # assert_close compares same-dtype tensors
    rows = []
    for standard in ("three_dim", "catlass", "assert_close"):
        options = CompareOptions(standard=standard, compute_num=4096)
        t, mem, r = measure(lambda o=options: compare_tensors(actual, golden, cpu, options=o), repeat)
        rows.append((f"ours: {standard}", t, mem, "pass" if r is not None and r.passed else "fail"))
    t, mem, verdict = measure(lambda: torch_assert_close(actual, expected), repeat)
    rows.append(("torch.testing.assert_close", t, mem, verdict))
    base = t
    if with_msprobe:
        run = msprobe_benchmark()
        if run is None:
            rows.append(
                ("msprobe BenchmarkCompare", float("nan"), float("nan"), "not installed: pip install -e .[bench]")
            )
        else:
            t, mem, verdict = measure(lambda: run(actual, golden, cpu), repeat)
            rows.append(("msprobe BenchmarkCompare (2-stage)", t, mem, verdict))
    return rows, base


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--big", action="store_true", help="also 256M elements (ours and torch only)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__}, threads "
        f"{torch.get_num_threads()}"
    )
    sizes = [(args.n, True)] + ([(1 << 28, False)] if args.big else [])
    for n, with_msprobe in sizes:
        rows, base = bench(n, args.repeat if n <= 1 << 24 else 3, with_msprobe)
        golden_mib = n * 8 / 2**20
        print(
            f"\n{n:,} float16 elements (golden float64: {golden_mib:,.0f} MiB), median of "
            f"{args.repeat if n <= 1 << 24 else 3}"
        )
        print("| method | median s | vs torch assert_close | peak extra MiB | x golden size | verdict |")
        print("|---|---|---|---|---|---|")
        for name, t, mem, verdict in rows:
            print(f"| {name} | {t:.3f} | {t / base:.2f}x | {mem:,.0f} | {mem / golden_mib:.2f} | {verdict} |")


if __name__ == "__main__":
    main()
