"""The comparator: judge a candidate's outputs against an FP64 golden and a CPU control.

    compare_outputs(actual, golden, cpu, dtype=..., options=CompareOptions(standard=...))

returns a CompareReport (one CompareResult per output tensor). Structural problems of the
candidate (shape, dtype, number of outputs) are verdicts; problems of the golden or the CPU
control are the caller's mistake and raise CompareInputError.
"""

from __future__ import annotations

import dataclasses

import torch

from tools import thresholds as T
from tools.compare.assert_close import compare_assert_close
from tools.compare.catlass import compare_catlass
from tools.compare.exact import compare_exact
from tools.compare.options import CompareInputError, CompareOptions
from tools.compare.outputs import normalize_outputs
from tools.compare.three_dim import compare_three_dim
from tools.models.compare import CompareReport, CompareResult, StructuralError

__all__ = [
    "CompareInputError",
    "CompareOptions",
    "STANDARDS",
    "compare_outputs",
    "compare_tensors",
    "normalize_outputs",
]

STANDARDS = {
    "three_dim": compare_three_dim,
    "catlass": compare_catlass,
    "assert_close": compare_assert_close,
}
NORMAL_RANGE_MODES = ("absolute", "cpu_relative")
GPU_CHUNK = 1 << 24


def _check_options(options: CompareOptions) -> None:
    if options.standard not in STANDARDS:
        raise CompareInputError(f"unknown standard {options.standard!r}; use one of: {', '.join(STANDARDS)}")
    if options.normal_range not in NORMAL_RANGE_MODES:
        raise CompareInputError(
            f"unknown normal_range {options.normal_range!r}; use one of: {', '.join(NORMAL_RANGE_MODES)}"
        )
    for name, value in options.thresholds.items():
        if name not in T.THREE_DIM:
            raise CompareInputError(
                f"custom threshold for {name!r}: only float dtypes have thresholds ({', '.join(T.THREE_DIM)})"
            )
        if not (isinstance(value, int | float) and 0 < value < 1):
            raise CompareInputError(f"custom threshold for {name} must be a number in (0, 1), got {value!r}")
    if options.compute_num is not None and options.compute_num < 1:
        raise CompareInputError(f"compute_num must be a positive integer, got {options.compute_num}")
    if options.chunk < 1 or options.top_k < 0:
        raise CompareInputError("chunk must be >= 1 and top_k >= 0")


def _structural(name: str, kind: StructuralError, message: str, actual, dtype_name: str, standard) -> CompareResult:
    shape = list(actual.shape) if isinstance(actual, torch.Tensor) else []
    return CompareResult(
        name=name,
        standard=standard,
        passed=False,
        dtype=dtype_name,
        threshold=0.0,
        mere=0.0,
        mare=0.0,
        max_diff=0.0,
        mean_diff=0.0,
        mismatch_count=0,
        total_count=0,
        mismatch_ratio=0.0,
        summary=f"FAIL {kind} {name}: {message}",
        error_kind=kind,
        error_msg=message,
        shape=shape,
        actual_dtype=str(actual.dtype).removeprefix("torch.") if kind == "dtype_mismatch" else None,
    )


def _lossless_downcast(t: torch.Tensor, storage: torch.dtype) -> torch.Tensor | None:
    """t in the storage dtype when every value survives the round trip, else None."""
    if not (t.is_floating_point() and storage.is_floating_point and t.dtype.itemsize > storage.itemsize):
        return None
    down = t.to(storage)
    back = down.to(t.dtype)
    return down if bool(((back == t) | (torch.isnan(back) & torch.isnan(t))).all()) else None


def _fit_dtype(t: torch.Tensor, storage: torch.dtype, options: CompareOptions) -> torch.Tensor | None:
    """t in the storage dtype, or None when its dtype is wrong."""
    if t.dtype == storage:
        return t
    return _lossless_downcast(t, storage) if options.allow_lossless_upcast else None


def compare_tensors(
    actual: object,
    golden: object,
    cpu: object | None = None,
    *,
    dtype: str | torch.dtype | None = None,
    options: CompareOptions | None = None,
    name: str = "output",
) -> CompareResult:
    """Judge one output tensor. `dtype` is the output's expected dtype (default: the CPU
    control's dtype, else the actual's); the golden may be any dtype, ideally float64."""
    options = options or CompareOptions()
    _check_options(options)
    if not isinstance(golden, torch.Tensor):
        raise CompareInputError(f"golden {name} is not a tensor (got {type(golden).__name__})")
    if cpu is not None and not isinstance(cpu, torch.Tensor):
        raise CompareInputError(f"CPU control {name} is not a tensor (got {type(cpu).__name__})")
    if golden.is_complex():
        raise CompareInputError(
            f"{name}: complex outputs are not supported; compare real and imaginary parts as two outputs"
        )
    complex_actual = isinstance(actual, torch.Tensor) and actual.is_complex()
    real_actual = actual if isinstance(actual, torch.Tensor) and not complex_actual else None
    default = cpu.dtype if cpu is not None else real_actual.dtype if real_actual is not None else golden.dtype
    try:
        dtype_name = T.canonical_dtype_name(dtype if dtype is not None else default)
    except ValueError as exc:
        raise CompareInputError(str(exc)) from None
    storage = T.STORAGE_DTYPES[dtype_name]

    if not isinstance(actual, torch.Tensor):
        return _structural(
            name,
            "not_a_tensor",
            f"expected a {dtype_name} tensor of shape {tuple(golden.shape)}, got {type(actual).__name__}",
            actual,
            dtype_name,
            options.standard,
        )
    if tuple(actual.shape) != tuple(golden.shape):
        return _structural(
            name,
            "shape_mismatch",
            f"shape mismatch: actual {tuple(actual.shape)} vs golden {tuple(golden.shape)}",
            actual,
            dtype_name,
            options.standard,
        )
    if complex_actual:  # the candidate's own output: a fail it can fix, never an error of the call
        return _structural(
            name,
            "dtype_mismatch",
            f"dtype mismatch: actual {str(actual.dtype).removeprefix('torch.')} vs expected {dtype_name} "
            "(a complex output where the reference's is real)",
            actual,
            dtype_name,
            options.standard,
        )
    if cpu is not None and tuple(cpu.shape) != tuple(golden.shape):
        raise CompareInputError(
            f"{name}: CPU control shape {tuple(cpu.shape)} differs from golden {tuple(golden.shape)}"
        )
    fitted = _fit_dtype(actual, storage, options)
    if fitted is None:
        wider = actual.is_floating_point() and actual.dtype.itemsize > storage.itemsize
        hint = "; its values are not all exact in that dtype" if options.allow_lossless_upcast and wider else ""
        return _structural(
            name,
            "dtype_mismatch",
            f"dtype mismatch: actual {str(actual.dtype).removeprefix('torch.')} vs expected {dtype_name}{hint}",
            actual,
            dtype_name,
            options.standard,
        )
    if cpu is not None:
        cpu_fitted = _fit_dtype(cpu, storage, options)
        if cpu_fitted is None:
            raise CompareInputError(
                f"{name}: CPU control dtype {str(cpu.dtype).removeprefix('torch.')} differs from {dtype_name}"
            )
        cpu = cpu_fitted.to(golden.device)
    actual = fitted.to(golden.device)
    if golden.device.type != "cpu" and options.chunk < GPU_CHUNK:
        # chunks sized for CPU caches would be thousands of tiny kernel launches on a GPU
        options = dataclasses.replace(options, chunk=GPU_CHUNK)

    judge = compare_exact if not storage.is_floating_point else STANDARDS[options.standard]
    result = judge(name, actual, golden, cpu, dtype_name, options)
    if not result.passed:
        result.error_msg = result.summary
    return result


def _dtype_for(dtype, index: int, names: list[str]):
    if isinstance(dtype, list | tuple):
        if len(dtype) != len(names):
            raise CompareInputError(f"{len(dtype)} dtypes given for {len(names)} outputs")
        return dtype[index]
    if isinstance(dtype, dict):
        return dtype.get(names[index])
    return dtype


def compare_outputs(
    actual,
    golden,
    cpu=None,
    *,
    dtype=None,
    options: CompareOptions | None = None,
) -> CompareReport:
    """Judge every output of an op (tensor, tuple, list or dict, nested) and combine them."""
    options = options or CompareOptions()
    _check_options(options)
    golden_leaves = normalize_outputs(golden)
    actual_leaves = normalize_outputs(actual)
    cpu_leaves = normalize_outputs(cpu) if cpu is not None else None
    names = [n for n, _ in golden_leaves]
    if cpu_leaves is not None and [n for n, _ in cpu_leaves] != names:
        raise CompareInputError(f"CPU control outputs {[n for n, _ in cpu_leaves]} differ from golden outputs {names}")
    if [n for n, _ in actual_leaves] != names:
        message = (
            f"the candidate returned {len(actual_leaves)} output(s) "
            f"({', '.join(n for n, _ in actual_leaves) or 'none'}), the reference {len(names)} "
            f"({', '.join(names)})"
        )
        return CompareReport(
            passed=False,
            verdict="fail",
            standard=options.standard,  # type: ignore[arg-type]
            summary=f"FAIL output_count_mismatch: {message}",
            outputs=[],
            error_kind="output_count_mismatch",
            error_msg=message,
        )
    results = []
    for i, ((leaf_name, g), (_, a)) in enumerate(zip(golden_leaves, actual_leaves, strict=True)):
        c = cpu_leaves[i][1] if cpu_leaves is not None else None
        if g is None and a is None:
            continue
        results.append(compare_tensors(a, g, c, dtype=_dtype_for(dtype, i, names), options=options, name=leaf_name))
    return combine(results, options.standard)


def combine(results: list[CompareResult], standard: str) -> CompareReport:
    passed = all(r.passed for r in results)
    failing = [r for r in results if not r.passed]
    if len(results) == 1:
        summary = results[0].summary
    elif passed:
        summary = f"PASS {standard}: all {len(results)} outputs pass"
    else:
        summary = f"FAIL {standard}: {len(failing)} of {len(results)} outputs fail; first: {failing[0].summary}"
    error_kinds: list[StructuralError] = [r.error_kind for r in failing if r.error_kind]
    return CompareReport(
        passed=passed,
        verdict="pass" if passed else "fail",
        standard=standard,  # type: ignore[arg-type]
        summary=summary,
        outputs=results,
        error_kind=error_kinds[0] if error_kinds else None,
        error_msg=None if passed else summary,
        warnings=[f"{r.name}: {w}" for r in results for w in r.warnings],
    )
