"""Result models of the comparator (the result record of docs/comparator.md, and more)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tools.models.common import Model, Number

StandardName = Literal["three_dim", "catlass", "assert_close"]
NormalRangeMode = Literal["absolute", "cpu_relative"]
Domain = Literal["normal", "small_value", "cancellation", "nan", "exact", "tolerance"]
StructuralError = Literal["shape_mismatch", "dtype_mismatch", "output_count_mismatch", "not_a_tensor"]


class WorstElement(Model):
    """One of the elements that violate their bound the most (largest error / bound first)."""

    index: list[int] = Field(description="Multi-dimensional index into the output.")
    actual: Number | None
    golden: Number | None
    cpu: Number | None = Field(default=None, description="CPU same-precision control at this index.")
    abs_error: Number
    rel_error: Number = Field(description="|actual - golden| / (|golden| + eps).")
    domain: Domain = Field(description="Which rule judged this element.")
    violation: Number = Field(description="Error divided by the element's bound: >= 1 violates it.")


class Dimensions(Model):
    """Pass flags per dimension; None where the standard does not judge that dimension."""

    normal_range: bool | None = None
    small_value: bool | None = None
    cancellation: bool | None = None
    nan_positions: bool | None = None
    exact: bool | None = Field(default=None, description="Integer / bool outputs: bit-exact match.")
    tolerance: bool | None = Field(default=None, description="catlass CompareData / assert_close rule.")
    error_metrics: bool | None = Field(default=None, description="catlass ErrorMetrics ratios vs CPU.")


class CpuControl(Model):
    """The CPU same-precision output judged against the same golden by the same rules."""

    mere: Number
    mare: Number
    max_diff: Number
    normal_passed: bool | None = Field(
        description="Would the CPU output itself pass the normal-range thresholds? If not, the "
        "threshold, not necessarily the kernel, is at issue."
    )
    mismatch_count: int
    nan_count: int


class SignedBias(Model):
    """Direction of the errors: a correct round-to-nearest output errs both ways about equally."""

    nonzero_count: int = Field(description="Elements where actual != golden.")
    toward_zero_fraction: float = Field(description="Share of those with |actual| < |golden|.")
    positive_fraction: float = Field(description="Share of those with actual > golden.")
    cpu_toward_zero_fraction: float | None = None


class CatlassDetails(Model):
    kind: Literal["catlass"] = "catlass"
    rtol: float
    compute_num: int | None
    compare_data_error_count: int
    error_indices: list[int] = Field(description="Flat indices of CompareData errors (first 100).")
    metrics: dict[str, Number] | None = Field(
        default=None, description="mare/mere/rmse of candidate and cpu, and their ratios."
    )
    metric_limits: dict[str, float]


class AssertCloseDetails(Model):
    kind: Literal["assert_close"] = "assert_close"
    rtol: float
    atol: float
    compared_in: str = Field(description="dtype both sides were cast to before comparing.")
    greatest_abs_diff: Number
    greatest_rel_diff: Number


class CompareResult(Model):
    """One output tensor judged by one standard. The specification's result fields come first."""

    name: str
    standard: StandardName
    passed: bool
    dtype: str
    threshold: float = Field(description="MERE threshold (three_dim) or rtol (catlass, assert_close).")
    mere: Number = Field(description="Mean relative error over the normal-range positions.")
    mare: Number = Field(description="Max relative error over the normal-range positions.")
    max_diff: Number
    mean_diff: Number
    mismatch_count: int
    total_count: int
    mismatch_ratio: float
    small_value_error_count: int | None = None
    small_value_cpu_error_count: int | None = None
    small_value_total_count: int | None = None
    cancel_error_count: int | None = None
    cancel_cpu_error_count: int | None = None
    cancel_total_count: int | None = None
    error_msg: str | None = None
    # --- beyond the specification: what an agent needs to act ---
    summary: str = Field(description="One line in the style of torch.testing.")
    error_kind: StructuralError | None = None
    shape: list[int] = Field(default_factory=list)
    golden_dtype: str | None = None
    actual_dtype: str | None = Field(default=None, description="The candidate's output dtype, on a dtype_mismatch.")
    mare_threshold: float | None = None
    normal_total_count: int | None = None
    nan_mismatch_count: int = 0
    saturated_count: int = Field(default=0, description="Inf / out-of-range values replaced by the dtype max.")
    dimensions: Dimensions = Field(default_factory=Dimensions)
    cpu_control: CpuControl | None = None
    bias: SignedBias | None = None
    worst: list[WorstElement] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    thresholds_used: dict[str, float | str] = Field(default_factory=dict)
    details: CatlassDetails | AssertCloseDetails | None = Field(default=None, discriminator="kind")


class CompareReport(Model):
    """All outputs of one op judged together: passes only when every output passes."""

    passed: bool
    verdict: Literal["pass", "fail"]
    standard: StandardName
    summary: str
    outputs: list[CompareResult]
    error_kind: StructuralError | None = None
    error_msg: str | None = None
    warnings: list[str] = Field(default_factory=list)


class CompareSettings(Model):
    """How outputs are judged: shared by offline compare and run_accuracy."""

    standard: StandardName = Field(
        default="three_dim",
        description="three_dim (default: FP64 golden + CPU control, normal/small-value/cancellation), "
        "catlass (CompareData rtol by computeNum + ErrorMetrics ratios), or assert_close "
        "(triton-ascend tutorial rtol/atol).",
    )
    thresholds: dict[str, float] = Field(
        default_factory=dict,
        description='Custom MERE thresholds per dtype, e.g. {"float16": 0.002} (MARE stays 10x '
        "the threshold). More than 10x the default draws a warning.",
    )
    compute_num: int | None = Field(
        default=None,
        ge=1,
        le=1 << 40,
        description="Reduction length (e.g. K of a matmul): catlass rtol switch at 2048; diagnosis.",
    )
    normal_range: NormalRangeMode = Field(
        default="absolute",
        description="three_dim normal range: absolute thresholds, or cpu_relative: also pass when "
        "MERE/MARE stay within 1.5x/5x of the CPU control's own error and below 10x the default "
        "thresholds; applied only when the CPU control is finite, NaN where the golden is, and "
        "itself below those bounds.",
    )


class CompareFilesRequest(CompareSettings):
    """Judge dumped tensors offline (e.g. NPU outputs dumped and compared elsewhere)."""

    actual: str = Field(description="Path of the candidate's output: .npy, .npz (multi-output) or .pt.")
    golden: str = Field(description="Path of the golden (ideally float64) output.")
    cpu: str | None = Field(default=None, description="Path of the CPU same-precision output (the control).")
    dtype: str | None = Field(
        default=None,
        description="Output dtype to judge as (float16, bfloat16, float32, hifloat32, float8_e4m3fn, "
        "float8_e5m2, int*, bool). Default: the CPU output's dtype, else the actual's. A wider "
        "float dump (numpy has no bfloat16) is accepted when its values are exact in this dtype.",
    )
    key: str | None = Field(default=None, description="Pick one entry of an .npz / dict .pt in every file.")
