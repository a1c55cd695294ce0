"""Every numeric threshold of every comparison standard, in one place.

Rows marked ``source="seed"`` are the values of the three-dimension comparator specification
(docs/comparator.md), of CATLASS's CompareData / ErrorMetrics and of the triton-ascend accuracy
tutorial. Rows marked ``"derived"`` fill gaps the specification leaves (it gives only the MERE
threshold for hifloat32 and the float8 types); each says how.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

# --- three_dim (default) -----------------------------------------------------------------------

#: eps in MERE/MARE = avg/max(|actual - golden| / (|golden| + eps)) (docs/comparator.md).
RELATIVE_ERROR_EPS = 1e-7
#: MARE threshold = exactly 10 x the MERE threshold (not rounded to a power of two).
MARE_FACTOR = 10.0
#: Small-value and cancellation dimensions pass when npu_count / max(cpu_count, 1) <= this.
ERROR_COUNT_RATIO_LIMIT = 2.0


@dataclass(frozen=True)
class DtypeThresholds:
    """The three_dim thresholds for one output dtype."""

    precision: float  # MERE must stay below this (seed: "精度阈值 Threshold")
    small_value: float  # |golden| below this is the small-value domain
    small_value_error: float  # absolute error above this counts as a small-value error
    cancel_boundary: float  # |golden| below this (and not small) may be a cancellation position
    cancel_zero: float  # |output| below this means the output cancelled to ~0
    source: str  # "seed" or "derived: <how>"

    @property
    def mare(self) -> float:
        return MARE_FACTOR * self.precision

    def as_dict(self) -> dict:
        return {
            "precision": self.precision,
            "mare": self.mare,
            "small_value": self.small_value,
            "small_value_error": self.small_value_error,
            "cancel_boundary": self.cancel_boundary,
            "cancel_zero": self.cancel_zero,
            "source": self.source,
        }


THREE_DIM: dict[str, DtypeThresholds] = {
    "float16": DtypeThresholds(2**-10, 2**-11, 2**-16, 2**-5, 2**-5, "seed"),
    "bfloat16": DtypeThresholds(2**-7, 2**-8, 2**-16, 2**-3, 2**-3, "seed"),
    "float32": DtypeThresholds(2**-13, 2**-14, 2**-30, 2**-8, 2**-8, "seed"),
    # hifloat32 is a compute precision of float32 tensors (Ascend HF32, ~11 significant bits):
    # MERE threshold from the spec; small-value threshold = threshold / 2 as in every spec row;
    # small-value error and cancellation rows of float16, whose significand is the closest.
    "hifloat32": DtypeThresholds(
        2**-11, 2**-12, 2**-16, 2**-5, 2**-5, "derived: threshold from seed, others as float16"
    ),
    # float8: MERE threshold from the spec; small-value threshold = threshold / 2; small-value
    # error = the type's smallest subnormal (no smaller error is representable); cancellation
    # boundary 2**-1 (the spec's rows put it ~half the significand bits above 1 ulp).
    "float8_e4m3fn": DtypeThresholds(
        2**-3, 2**-4, 2**-9, 2**-1, 2**-1, "derived: threshold from seed, others by seed rules"
    ),
    "float8_e5m2": DtypeThresholds(
        2**-2, 2**-3, 2**-16, 2**-1, 2**-1, "derived: threshold from seed, others by seed rules"
    ),
    # float64 outputs (the golden is then no more precise than the output): by analogy with
    # float32's row, 13 bits below the significand for the threshold.
    "float64": DtypeThresholds(2**-39, 2**-40, 2**-60, 2**-20, 2**-20, "derived: float32 row scaled to 52 bits"),
}

#: The spec advises against a custom threshold above this multiple of the default.
CUSTOM_THRESHOLD_ADVISED_MAX_FACTOR = 10.0

#: normal_range="cpu_relative" never relaxes beyond the advised maximum: the candidate's (and the
#: licensing CPU control's) MERE must stay below this multiple of the default threshold, its MARE
#: below this multiple of the default MARE threshold.
CPU_RELATIVE_MAX_FACTOR = CUSTOM_THRESHOLD_ADVISED_MAX_FACTOR


def cpu_relative_bounds(name: str) -> tuple[float, float]:
    """(MERE bound, MARE bound) that cpu_relative never relaxes beyond, for a float dtype."""
    row = THREE_DIM[name]
    return CPU_RELATIVE_MAX_FACTOR * row.precision, CPU_RELATIVE_MAX_FACTOR * row.mare


# --- catlass ------------------------------------------------------------------------------------

#: CompareData switches to the looser rtol at this computeNum (CATLASS CompareData).
CATLASS_COMPUTE_NUM_SPLIT = 2048
#: (rtol below the split, rtol at or above it); bfloat16 has its own row.
CATLASS_RTOL: dict[str, tuple[float, float]] = {
    "default": (1 / 256, 1 / 128),
    "bfloat16": (1 / 128, 1 / 64),
}
#: ErrorMetrics: candidate error / CPU same-precision error must stay at or below these (CATLASS ErrorMetrics).
CATLASS_METRIC_LIMITS: dict[str, float] = {"mare": 5.0, "mere": 1.5, "rmse": 1.5}


def cpu_error_floor(storage: torch.dtype) -> float:
    """Denominator floor of candidate/CPU relative-error ratios (not in the seeds).

    Only guards against a CPU error of exactly zero (an exact op): 2**-10 of the dtype's unit
    roundoff, far below any real rounding error, so it never changes a ratio otherwise.
    """
    return torch.finfo(storage).eps / 2 * 2**-10


# --- assert_close (triton-ascend tutorial) --------------------------------------------------------

#: (rtol, atol) per dtype; bfloat16 is compared after a cast to float32.
ASSERT_CLOSE_TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-3, 1e-3),
    "float32": (1e-4, 1e-4),
}

# --- dtype names --------------------------------------------------------------------------------

#: Comparison dtype name -> the torch dtype its tensors are stored in.
STORAGE_DTYPES: dict[str, torch.dtype] = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
    "hifloat32": torch.float32,
    "float8_e4m3fn": torch.float8_e4m3fn,
    "float8_e5m2": torch.float8_e5m2,
    "float64": torch.float64,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
    "bool": torch.bool,
}

_ALIASES = {
    "fp16": "float16",
    "half": "float16",
    "bf16": "bfloat16",
    "fp32": "float32",
    "float": "float32",
    "hf32": "hifloat32",
    "fp64": "float64",
    "double": "float64",
    "fp8_e4m3": "float8_e4m3fn",
    "float8_e4m3": "float8_e4m3fn",
    "fp8_e5m2": "float8_e5m2",
    "long": "int64",
    "int": "int32",
}


def canonical_dtype_name(dtype: str | torch.dtype) -> str:
    """'fp16', 'torch.float16' or torch.float16 -> 'float16'. Raises ValueError if unknown."""
    name = str(dtype).removeprefix("torch.").strip().lower()
    name = _ALIASES.get(name, name)
    if name not in STORAGE_DTYPES:
        known = ", ".join(sorted(STORAGE_DTYPES))
        raise ValueError(f"unknown dtype {str(dtype)!r}; use one of: {known}")
    return name


def three_dim_thresholds(name: str, precision_override: float | None = None) -> DtypeThresholds:
    """The row for a float dtype, with the MERE threshold optionally replaced (a custom threshold)."""
    row = THREE_DIM[name]
    if precision_override is None:
        return row
    return DtypeThresholds(
        precision_override,
        row.small_value,
        row.small_value_error,
        row.cancel_boundary,
        row.cancel_zero,
        f"custom precision threshold; other rows {row.source}",
    )


def catlass_rtol(name: str, compute_num: int | None) -> float:
    low, high = CATLASS_RTOL["bfloat16" if name == "bfloat16" else "default"]
    if compute_num is None or compute_num < CATLASS_COMPUTE_NUM_SPLIT:
        return low
    return high


def table() -> dict:
    """All tables as plain data (served as an MCP resource and printed by the CLI)."""
    return {
        "three_dim": {
            "relative_error_eps": RELATIVE_ERROR_EPS,
            "mare_factor": MARE_FACTOR,
            "error_count_ratio_limit": ERROR_COUNT_RATIO_LIMIT,
            "cpu_relative": {
                "mere_ratio_limit": CATLASS_METRIC_LIMITS["mere"],
                "mare_ratio_limit": CATLASS_METRIC_LIMITS["mare"],
                "max_factor_of_default": CPU_RELATIVE_MAX_FACTOR,
            },
            "dtypes": {name: row.as_dict() for name, row in THREE_DIM.items()},
        },
        "catlass": {
            "compute_num_split": CATLASS_COMPUTE_NUM_SPLIT,
            "rtol": {k: {"below_split": lo, "at_or_above_split": hi} for k, (lo, hi) in CATLASS_RTOL.items()},
            "metric_limits": CATLASS_METRIC_LIMITS,
        },
        "assert_close": {k: {"rtol": r, "atol": a} for k, (r, a) in ASSERT_CLOSE_TOLERANCES.items()},
        "benchmark_kernel": benchmark_table(),
        "shapes": {"timeout_factor": SHAPE_TIMEOUT_FACTOR, "timeout_min_s": SHAPE_TIMEOUT_MIN_S},
        "provenance": {
            "partly_from_kernels": PARTLY_FROM_KERNELS,
            "triton_device_share_warn": TRITON_DEVICE_SHARE_WARN,
        },
    }


# --- output provenance (run_accuracy's require_kernel_launch) ---------------------------------------

#: A warning when a share of the output below this depends on what the Triton kernels stored.
PARTLY_FROM_KERNELS = 0.5
#: cuda: a warning when the forward's Triton kernels take less than this share of its device time (the
#: rest is torch's kernels, cuBLAS, copies): the output may depend on the kernels and still be computed
#: mostly by torch.
TRITON_DEVICE_SHARE_WARN = 0.5


# --- shapes beyond the task's (run_accuracy's shape check) -------------------------------------------

#: A fuzzed size's jobs get this many times the task's candidate job wall time, at least SHAPE_TIMEOUT_MIN_S
#: (fuzzed sizes are smaller than the task's; a kernel reading past a small input can spin until killed).
SHAPE_TIMEOUT_FACTOR = 4.0
SHAPE_TIMEOUT_MIN_S = 15.0


# --- benchmark_kernel ---------------------------------------------------------------------------

#: A time below the roofline's lower bound by more than this factor is physically implausible
#: (bytes and FLOPs are lower bounds, the peaks vendor maxima): 1.10 leaves 10% for the peaks'
#: rounding and clock boost.
ROOFLINE_PLAUSIBLE_MAX_FRACTION = 1.10
#: A timed output counts as stale when max|out - accepted| > this x max|accepted| (or its NaN
#: positions differ): a cached or skipped output differs by O(1), an atomics reordering by ~1e-6.
TIMED_OUTPUT_RTOL = 1e-2
#: The candidate is "faster on repeated inputs" when its median on the same input every repetition
#: is below this fraction of its median on varied inputs (L2 is flushed in both).
REPEATED_INPUT_SPEEDUP_LIMIT = 0.7
#: Work left on a side stream: the candidate's device-synchronised time exceeds its event time by more
#: than the synchronize costs the reference (timed the same way in the same job), by more than
#: SIDE_STREAM_MIN_GAP_MS and the synchronised times' spread, and by this factor over events + that cost.
#: On the H200 a synchronize alone costs ~12 us in a plain process and up to ~200 us in the sandbox.
SIDE_STREAM_RATIO_LIMIT = 1.5
SIDE_STREAM_MIN_GAP_MS = 0.01
#: The reference timed beside the candidate is "slowed" when its median exceeds this factor times its
#: median alone (a process the candidate's code never ran in) and the two middle halves do not overlap:
#: a candidate's import can patch the reference's forward. A hypothesis checked on the H200 (BENCHMARKS.md,
#: "Reference timed alone"): honest tasks stay well inside it.
REFERENCE_SLOWED_RATIO = 1.25
#: Diagnosis: an untested accumulation-precision hypothesis for a kernel that already accumulates in
#: fp32 is capped at this confidence, below the source's logic suspects (0.45) and any formula finding.
FP32_KERNEL_PRECISION_CONFIDENCE = 0.4
#: Diagnosis: when that hypothesis is the only one (no logic suspect, nothing refuted formula_error, no
#: experiment showed rounding), it is refuted by the source and replaced by formula_error at this confidence:
#: an inference by elimination (an fp32 kernel erring orders beyond the fp32 CPU control, as the heldout3 misses
#: cumprod carry, kl_div divisor and tail did), below the 0.5 of a claimed diagnosis and the source suspects (0.45).
FP32_KERNEL_LOGIC_CONFIDENCE = 0.35
#: Diagnosis: wrong outputs are blamed on a masked load's padding that won a max / min when at least
#: this share of them equal that padding exactly (a reduction over data plus padding returns the
#: padding where the data lie below it; a rounding or formula error hits an exact constant rarely).
PADDING_WINS_MIN_SHARE = 0.5
#: Diagnosis: a rounding_mode_bias (errors one-sided toward zero) is claimed only over at least this many
#: inexact elements. Round to nearest errs toward zero with probability ~1/2 per element, so >= 95% of n
#: toward zero by chance has binomial probability 0.5 at n = 1, 2^-10 at n = 10 and 2e-5 at n = 20
#: (19 of 20): below 20 a one-sided sign is no evidence (a scalar loss has a single inexact element).
ROUNDING_BIAS_MIN_INEXACT = 20
#: Diagnosis, constant scale factor of a single-number output (a loss): the ratio output / golden must agree
#: on at least SCALAR_SCALE_MIN_SEEDS seeds to within SCALAR_SCALE_SPREAD_FACTOR x the rounding level (the
#: output dtype's eps or the CPU control's relative error, whichever is larger), the factor and the golden's
#: own change across seeds must exceed SCALAR_SCALE_MIN_OFFSET_FACTOR x that level, and the level must be at
#: most SCALAR_SCALE_MAX_ROUNDING. A logic error that drops part of a sum of N random terms moves the ratio by
#: ~1/sqrt(N) from seed to seed (3e-3 at N = 1e5, kl_div's skipped tail), orders above 16 x fp32's 1.2e-7;
#: a true divisor error (kl_div 'mean' for 'batchmean', huber's padded count) is the same number on every
#: seed. Where the output rounds coarser than 1e-5 (bf16, fp16) the two cannot be told apart: no claim.
SCALAR_SCALE_MIN_SEEDS = 2
SCALAR_SCALE_SPREAD_FACTOR = 16
SCALAR_SCALE_MIN_OFFSET_FACTOR = 100
SCALAR_SCALE_MAX_ROUNDING = 1e-5
#: Diagnosis, exact_inputs: the reference's output on the -1/0/+1 inputs must be finite and nonzero on at
#: least this share of the share it is on the run's own inputs, or the trial is inconclusive. An op whose
#: output stays informative there keeps most of it (relu: 1/3 nonzero against 1/2 on randn, 0.67; sums and
#: dots of K terms: nearly all); a running product is 0 from its first 0 on ((2/3)^k nonzero after k terms:
#: 0.2 at k = 4, cumprod_rows 0.4%), a log of non-positive values is NaN: such inputs cannot show the logic.
EXACT_INPUTS_MIN_INFORMATIVE_SHARE = 0.25
#: Diagnosis, misplaced values (layout_mismatch): the outputs wrong beyond rounding (more than
#: max(MISPLACED_MIN_ULPS, MISPLACED_ULP_FACTOR x the CPU control's 99th-percentile error) ulps of the golden
#: as the output dtype stores it; ulps taken at no less than MISPLACED_ABS_FLOOR x the largest |golden|, so
#: near-zero results of cancellation do not count as wrong) are looked up among all the golden's values. At
#: least MISPLACED_MIN_WRONG of them, MISPLACED_MIN_DISTINCT distinct (a constant the golden also holds, such
#: as zeros, is no evidence), at least MISPLACED_MIN_MATCHED of them within that rounding of a golden value,
#: and at most MISPLACED_MAX_CHANCE of the same values displaced by 1.6-12.5% matching anyway (the golden's
#: density: a fp16 output of 25k randn values holds a third of the codes near 1, an fp32 one few).
#: Outputs (and, for copy_sources, inputs and golden together) above VALUE_LOOKUP_MAX_ELEMENTS are not sorted for
#: these lookups (float64 copies of 16M elements are 128 MiB each): no claim is made on them.
VALUE_LOOKUP_MAX_ELEMENTS = 1 << 24
MISPLACED_MIN_WRONG = 16
#: The golden itself must hold at least this share of distinct values: an int4 dequantisation (16 codes x 8 group
#: scales: 128 values over 5120 outputs) lands any wrong scale on a golden value, by construction, not by chance.
#: Computed outputs of continuous inputs are nearly all distinct (fp32); 25k fp16 outputs of randn about 40%.
MISPLACED_MIN_GOLDEN_DISTINCT_SHARE = 0.25
MISPLACED_MIN_DISTINCT = 8
MISPLACED_MIN_ULPS = 1.0
MISPLACED_ULP_FACTOR = 2.0
MISPLACED_ABS_FLOOR = 2.0**-10
MISPLACED_MIN_MATCHED = 0.9
MISPLACED_MAX_CHANCE = 0.2
#: ... and at most MISPLACED_MAX_CHANCE of them reflected about their own golden value (2 g - a) matching too: on a
#: golden whose values lie on a lattice (a quantised output, k * s), a rounding step (k s for (k + 1) s) lands on a
#: golden value either way; a value moved from elsewhere, reflected, lands on one only by chance.
#: ... or, where the golden is too dense for that, at least this share of the wrong outputs sorted must equal the
#: golden's values at those positions sorted (a reordering; rounding at the edge of the allowance breaks a few
#: pairs), while the same values nudged just past the allowance must not reach it.
MISPLACED_MIN_MATCHED_REORDERED = 0.99
#: Diagnosis, input_layout: after a logic error is established (exact_inputs), each input of 2 to
#: INPUT_LAYOUT_MAX_DIMS dims is given to the candidate stored in another order of its dims, fewest swaps
#: first, at most INPUT_LAYOUT_MAX_TRIALS trials (a 4-D input's transposes and channels-last orders come
#: within 2 swaps: 8 orders), stopping while INPUT_LAYOUT_RESERVE_S of the budget is left for the patch
#: trial.
INPUT_LAYOUT_MAX_DIMS = 4
INPUT_LAYOUT_MAX_TRIALS = 12
INPUT_LAYOUT_RESERVE_S = 20.0
#: contiguous_inputs gives each of the first CONTIGUOUS_MAX_INPUTS strided inputs to the candidate as a contiguous
#: copy (one trial each, then all at once): a cost bound, not a judgement (tasks rarely have more views).
CONTIGUOUS_MAX_INPUTS = 4
#: Diagnosis: the confidence of what copy_sources, input_layout and padding_value find by an intervention that
#: makes the candidate pass or names each output's source: above exact_inputs' formula_error (0.8), which they
#: refine into a cause.
FOUND_BY_EXPERIMENT_CONFIDENCE = 0.97
#: Diagnosis, copy_sources: an op counts as moving data when at least COPY_SOURCES_MIN_SHARE of its finite
#: golden values are input values (on the run's inputs, then on the tagged ones); the candidate copies the
#: wrong elements when at least that share of its wrong outputs (at least COPY_SOURCES_MIN_WRONG of them) are
#: tags. A computed value is a tag by chance at most as often as tags fill the dtype's codes (25k of fp16's
#: 61k normal values: 0.4), far below 0.99 over 16 or more outputs.
COPY_SOURCES_MIN_SHARE = 0.99
COPY_SOURCES_MIN_WRONG = 16
#: Diagnosis, unread_tail: a trial copies each row's head over its tail (the last element, or the last partial
#: block). An output counts as depending on the change where the CPU same-precision control moved by
#: UNREAD_TAIL_CHANGE_ULPS ulps of the output dtype or more (rounding can hide a 1-ulp change, not a 4-ulp one).
#: The kernel "never reads the tail" when at least UNREAD_TAIL_MIN_UNMOVED_SHARE of those outputs stay bit for
#: bit the same: a loop bound or mask that stops short leaves every one of them unmoved (1.0 measured), while a
#: kernel computing another function that reads the tail less often (upsampling with the align_corners=True
#: scale: 0.56, heldout5) is no boundary error. The control (the tail copied over the head) must move all but
#: UNREAD_TAIL_MAX_HEAD_UNMOVED_SHARE of its dependent outputs. At most UNREAD_TAIL_MAX_TRIALS tail regions.
#: At least UNREAD_TAIL_MIN_OUTPUTS outputs must depend on the tail: a causal mask that also hides its diagonal
#: ignores the last element of the last row only (3 outputs over 3 batches), which says nothing about tails.
UNREAD_TAIL_MIN_OUTPUTS = 16
UNREAD_TAIL_CHANGE_ULPS = 4
UNREAD_TAIL_MIN_UNMOVED_SHARE = 0.95
UNREAD_TAIL_MAX_HEAD_UNMOVED_SHARE = 0.5
UNREAD_TAIL_MAX_TRIALS = 4
#: Diagnosis: share of the error beyond the CPU control's (tail_block), or of the misplaced outputs (the layout
#: detector), that must sit in the last partial block of a BLOCK tiling (which holds at most half the
#: elements) for the failure to be the tail's: rounding spreads its error in proportion to the elements, and
#: a layout error moves data everywhere, so a 90% share in under half of them is neither.
TAIL_SHARE = 0.9
#: Diagnosis, padding_value: after a logic error is established, at most PADDING_MAX_TRIALS re-runs, each with one
#: masked load's constant `other=` replaced by 0, 1, -inf or +inf (the identities of sum, product, max, min),
#: keeping INPUT_LAYOUT_RESERVE_S of the budget for the patch trial.
PADDING_MAX_TRIALS = 9
#: Diagnosis, layout detector: the output as the golden times one of a few constant factors (a count or divisor
#: that differs between positions: a window's length, a per-row scale). Ratios actual / golden within
#: FEW_SCALES_ROUNDING output epsilons of each other are one factor; 2..FEW_SCALES_MAX factors, each held by at
#: least FEW_SCALES_MIN_SHARE of the elements and FEW_SCALES_MIN_VALUES distinct golden values, together
#: FEW_SCALES_COVER of them, over at least FEW_SCALES_MIN_ELEMENTS elements. fp16 rounding of a correct window
#: mean leaves ratios spread over +-1 eps continuously; a divisor 76 for 77 and 78 gives exactly two steps.
FEW_SCALES_ROUNDING = 2.0
FEW_SCALES_MAX = 4
FEW_SCALES_MIN_SHARE = 0.05
FEW_SCALES_MIN_VALUES = 8
FEW_SCALES_COVER = 0.95
FEW_SCALES_MIN_ELEMENTS = 64
#: Diagnosis: an integer output's poison sentinel (0xAB in uint8, the minimum in wider integers) proves an element
#: never written only where the outputs hold it at least this many times as often as any of the two values on
#: either side of it: a wrong kernel of narrow integers computes the sentinel by chance (1 value in 256 of uint8)
#: as often as its neighbours, while unwritten memory holds the sentinel alone.
SENTINEL_OVER_NEIGHBOURS = 4.0
#: Diagnosis, access_trace: sampled output elements, wrong and right (the control), whose reads are traced; a
#: claim needs ACCESS_MIN_JUDGED wrong ones judged, at least ACCESS_WRONG_SHARE of them missing reads the
#: reference's gradient needs, and at most ACCESS_RIGHT_SHARE of the right ones missing any (a right output
#: that misses a needed read means the reads do not separate right from wrong: no claim).
ACCESS_WRONG_SAMPLES = 24
ACCESS_RIGHT_SAMPLES = 16  # enough right outputs that ACCESS_LANE_RIGHT_AGREE tells a share, not a coin
ACCESS_MIN_JUDGED = 3
ACCESS_WRONG_SHARE = 0.5
ACCESS_RIGHT_SHARE = 0.1
#: ... an element is "wrong" where it is off the golden by more than this share of |golden| + the output's typical
#: magnitude (a right one: 1e-5): 1e-3 for 32- and 64-bit floats, whose rounding stays orders below (a geodetic
#: Z off by its factor 1 / (1 - e^2) = 1.0067 was "not wrong" at 1e-2, so nothing was traced); 1e-2 for 16-bit
#: floats (a few ulp of bf16) and integers (as before: an exact rule moved which wrong lanes are sampled).
ACCESS_WRONG_RELATIVE = {"narrow": 1e-2, "wide": 1e-3}
#: ... and this many right elements of each other output of the run that passed are traced beside them (the
#: controls): a store that writes only right elements says the lines feeding it alone compute right values.
ACCESS_CONTROL_SAMPLES = 4
#: ... the lines that feed the store of the wrong elements and no store of right ones are named as where the wrong
#: value is made only where they are at most this many (more is no localization; the search still starts there).
ACCESS_DIFFERENTIAL_MAX_LINES = 3
#: The wrong dimension of a misaddressed load is read from its lanes only where the reference computes the
#: output element from at most this many elements of that input (a copy, a gather, a stencil: the element a lane
#: should read is the one no other load of the input read); a reduction's lanes say nothing of it.
ACCESS_ALIGNED_MAX_NEEDED = 8
#: ... and the lanes are taken to align only where at least this share of the sampled right outputs' lanes read the
#: element they need (not all: a right output may barely depend on a value read wrongly, a tiny softmax weight's).
#: Measured (16 right samples a run, 2026-12-06): misaddressed loads 81-100% (heldout12's softmax backward 13 and 14
#: of 16; crop, next_diff_int, centred_product all); a max pool's window one tap short, whose lanes read taps the
#: output does not depend on, 19-63% on 8 seeds. At 0.5 with 8 samples the max pool was called layout on 5 seeds of 8.
ACCESS_LANE_RIGHT_AGREE = 0.75
#: suggest_fix's repair search (verify=true, when no fix verified): its default budget per backend (the
#: interpreter runs a small kernel in ~1 s, a GPU in ms plus a compile), and how many edits one batch gives each
#: sandbox slot (a batch stops at the first edit that passes; progress is reported per batch).
REPAIR_SEARCH_BUDGET_S = {"interpreter": 60.0, "compiled": 20.0}
#: ... counted from suggest_fix's start (the fixes it verified first take their share), down to this share of it
#: left for the search (a call whose verifications took the whole budget still searches a little).
REPAIR_SEARCH_MIN_SHARE = 0.25
#: explain_failure's share of that search (its repair_search experiment, once a logic error is shown): enough for
#: the edits at a located line and the lines its values come from; suggest_fix goes on where it stopped.
EXPLAIN_SEARCH_BUDGET_S = {"interpreter": 12.0, "compiled": 8.0}
#: ... and its second search, at the loads of an input input_layout found read in another layout (after the first
#: ran out of budget): the edits at a load and the lines its address comes from, a few dozen.
LAYOUT_SEARCH_BUDGET_S = {"interpreter": 8.0, "compiled": 4.0}

#: access_trace: every sampled wrong element stored by one line and right ones by others locates that line's value;
#: as a hypothesis of its own (no other diagnosis of the output to locate), it ranks below what experiments confirm.
STORED_WRONG_CONFIDENCE = 0.6
#: The output is its golden times a factor that the data decides (one per seed, or one per row): a shared value
#: (a norm, a sum, a max, a count) is made wrongly. The factor is exact, the value it points at a hypothesis that
#: the repair search (which searches the lines making shared values first) confirms or not; it is often the symptom
#: of another cause (padding lanes in a row's sum scale the row): a suspect's confidence (below 0.5, so that
#: exact_inputs still confirms a logic error and the experiments that name its cause run), ranked below them.
SHARED_FACTOR_CONFIDENCE = 0.45
#: The share of the rows whose golden is not zero that a factor must explain (the rest are right as they are).
SHARED_FACTOR_MIN_ROWS = 0.5

#: A refuted diagnosis keeps this share of its confidence (it stays visible, ranked low).
REFUTED_FACTOR = 0.3

#: Diagnosis, stored_value: a relation of the stored value to a kernel local or a constant (a term or factor it
#: lacks) is tried as a repair where it holds on every sampled element to max(STORED_VALUE_TOLERANCE, 4 eps of the
#: output dtype) of |golden| + |actual| (+ STORED_VALUE_FLOOR of the median |golden|, for elements near zero), on
#: at least STORED_VALUE_MIN_WRONG wrong ones, with a local whose sampled values spread over more than
#: STORED_VALUE_MIN_SPREAD of their largest (a constant factor is the scale-factor detectors'). A fit is a
#: hypothesis only: the re-run of the kernel with the relation written in decides.
STORED_VALUE_TOLERANCE = 1e-3
STORED_VALUE_FLOOR = 1e-3
STORED_VALUE_MIN_WRONG = 6
STORED_VALUE_MIN_SPREAD = 1e-3
REPAIR_BATCH_PER_SLOT = 4
#: The search's operator order: (bugs undone + this) / (edits proposed + REPAIR_PRIOR_EDITS) per operator over
#: the held-out corpora (benchmarks/repair_prior.py). Checked leave-one-corpus-out on heldout2-16 (595 bugs, 263
#: undone exactly): first undo within 16 / 32 / 64 edits for 133 / 165 / 198 bugs, against 80 / 117 / 156 with
#: the hand-set order it replaced; 0.25/10, 1/40 and 0.5/40 give 131-136 / 165-167 / 194-201 (not sensitive). Now
#: measured on heldout2-17 (646 bugs, heldout17 added after its first sight): 141 / 176 / 218 leave-one-out.
REPAIR_PRIOR_UNDONE = 0.5
REPAIR_PRIOR_EDITS = 20
#: The search's plan gives each located line (and each line its values come from) its first this-many edits
#: before any line's further ones, so that a located load's long address line (95 edits on heldout11's resize
#: kernel) does not use the budget before the index line it reads through. With the bug's own line located, 4
#: of 89 exact undos of heldout7-11 come later (none past the 100th edit); with the load located instead of its
#: index line, heldout11's two resize slips move from the 194th / 134th edit to the 96th / 46th.
REPAIR_EDITS_PER_LINE_FIRST = 24
#: The search's trials at a quarter of the task's sizes (tools/diagnosis/repair.py) each get the stored run's
#: whole candidate job time (every seed, the determinism re-run) as their timeout, and at least this: a
#: smaller run of the same kernel that takes longer (a launch sized for the task's shape) is no screen.
SCREEN_TRIAL_MIN_TIMEOUT_S = 3.0
#: The coefficient of variation above which a measurement is reported as noisy.
# A passing output whose mean relative error is this many times the CPU same-precision control's (and
# above LATENT_ERROR_MIN_MERE): a warning, with the low-precision accumulator the source shows, if any.
# Measured (benchmarks/latent_error_ratio.py, BENCHMARKS.md): 49 honest passing candidates of
# examples/level1 and tests/heldout2-7 stay at or below 19.7x (median 1.0; a log-cumsum-exp scan the
# largest), so 50x warns of none of them; a scale off by 4e-6 in fp32 passes at ~100x.
LATENT_ERROR_RATIO = 50.0
LATENT_ERROR_MIN_MERE = 1e-6

NOISY_CV = 0.10
#: CUDA event resolution (about 0.5 us), added in quadrature to each median's standard error.
EVENT_RESOLUTION_MS = 0.0005


def benchmark_table() -> dict:
    return {
        "roofline_plausible_max_fraction": ROOFLINE_PLAUSIBLE_MAX_FRACTION,
        "timed_output_rtol": TIMED_OUTPUT_RTOL,
        "repeated_input_speedup_limit": REPEATED_INPUT_SPEEDUP_LIMIT,
        "side_stream_ratio_limit": SIDE_STREAM_RATIO_LIMIT,
        "side_stream_min_gap_ms": SIDE_STREAM_MIN_GAP_MS,
        "reference_slowed_ratio": REFERENCE_SLOWED_RATIO,
        "noisy_cv": NOISY_CV,
        "event_resolution_ms": EVENT_RESOLUTION_MS,
    }
