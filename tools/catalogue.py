"""Every tool, once: its name, models, function, description, hints and CLI command.

The MCP server (mcp_server/app.py), the CLI's parser and commands (tools/cli/commands.py), the CLI's
fast path and daemon (tools/cli/forward.py, tools/cli/daemon/) and the README's tool table are all
built from TOOLS. Adding a tool is one entry here, its function and models, and its tests; a text
renderer (mcp_server/text.py) and a CLI printer (tools/cli/commands.py) are optional (both fall back
to the result's summary).

Standard library only: the CLI's fast path reads it before pydantic, torch or the tools load. Models
and functions are named as "module:attribute" and imported on first use.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Literal

ToolName = Literal[
    "compile_kernel",
    "run_accuracy",
    "run_accuracy_batch",
    "benchmark_kernel",
    "explain_failure",
    "mutate",
    "suggest_fix",
]

#: Candidates one run_accuracy_batch call may carry (a manifest given to the CLI or to run_batch has no limit).
MAX_BATCH_CANDIDATES = 64


def _load(dotted: str) -> Any:
    module, _, attribute = dotted.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Command:
    """The tool's `kernel-eval` subcommand."""

    name: str
    help: str
    #: Through the CLI's warm daemon unless --no-daemon (tools/cli/forward.py); else always in-process.
    served: bool = False
    #: Its flags are the request model's fields (tools/cli/args.py); False: the command defines its own.
    flags_from_request: bool = True
    #: `--run` as well as `--run-id`.
    run_alias: bool = False
    #: Request fields that may also be given as positional arguments, in this order
    #: (`kernel-eval run reference.py candidate.py`, `kernel-eval explain RUN_ID`).
    positional: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hints:
    """MCP tool annotations: what a client may assume about a call."""

    read_only: bool
    idempotent: bool
    destructive: bool = False
    open_world: bool = False


@dataclass(frozen=True)
class ToolEntry:
    name: ToolName
    title: str
    description: str
    request: str  # "module:Model"
    result: str
    function: str  # "module:function", called as function(request, progress, cancel) -> result
    hints: Hints
    command: Command

    @property
    def request_model(self) -> Any:
        return _load(self.request)

    @property
    def result_model(self) -> Any:
        return _load(self.result)

    def load(self) -> Any:
        """The tool's function; importing it loads torch, so only where it runs."""
        return _load(self.function)


INSTRUCTIONS = """kernel-eval judges Triton / triton-ascend kernels written in KernelBench's format (reference:
class Model + get_inputs() + get_init_inputs(); candidate: class ModelNew). A loop: compile_kernel
(does it import and compile?) -> run_accuracy (is it numerically right against an FP64 golden, on
fresh secret seeds, in a sandbox?) -> on pass, benchmark_kernel(run_id) (how fast, measured so the
speedup can be trusted) -> on a negative verdict, explain_failure(run_id) (which failure
pattern, with evidence) -> suggest_fix(run_id) (a patch, optionally verified). Sources can be passed
as text or as .py paths (relative paths resolve against the server's working directory). Verdicts:
pass, fail, compile_error, runtime_error, timeout, crashed, rejected, unsupported."""

_COMPILE = """Check that a Triton candidate imports and compiles, before spending time on accuracy.

Call it first on every new candidate. Without `reference` only the import is checked; with it, one
forward runs on the task's inputs so every launched kernel compiles: on a GPU you get each kernel's
registers, spills, shared memory, num_warps and num_stages; on the cpu backend the kernel runs in the
Triton interpreter and is also compiled offline for sm_90 by Triton's real front end, which catches
Python the interpreter accepts but the compiler rejects (break, plain globals, ...);
`estimate_resources` adds sm_90 register/spill estimates. Errors name the candidate's own file, line,
column and source line. Results are cached per source. Next: run_accuracy."""

_RUN = """Judge a Triton candidate against the task's reference on fresh inputs, in a sandbox.

Runs the reference in FP64 (the golden) and in its own precision on the CPU (the control), the
candidate on the backend, on several secret seeds (3 by default; pin `seeds` to reproduce a failure),
and judges every output with the three-dimension comparator (normal range MERE/MARE, small values
and cancellation positions relative to the CPU control, NaN/Inf/integer rules; or `standard`
catlass / assert_close). Also checks that Triton kernels launched, inputs were not mutated, unwritten
outputs (empty allocations are NaN-poisoned) and determinism (a warning by default;
determinism='require' fails a kernel whose re-run differs). Returns a verdict (pass, fail,
compile_error, runtime_error, timeout, crashed, rejected, unsupported), per-seed results with the
worst elements, warnings about latent defects, and a run_id. Use `input_profile` (small_values,
cancellation, special_values, large_magnitude) to probe what KernelBench's rand inputs never show.
Next: on anything but pass, explain_failure(run_id)."""

_BATCH = f"""Judge many candidates of one task at once (up to {MAX_BATCH_CANDIDATES}), \
on every sandbox slot and GPU.

Takes run_accuracy's arguments with `candidates` (sources or .py paths) instead of `candidate`.
Each candidate gets exactly what run_accuracy would give it alone (same verdict, checks, anti-cheat
rules, a run_id in the run store); the goldens are computed once for all. Progress is reported per
finished candidate; cancelling stops the whole batch. Returns one compact line per candidate
(verdict, summary, run_id) and `best`, the first passing one; the full result of each is at
kernel-eval://runs/{{run_id}}/result. Next: explain_failure(run_id) on a failing candidate."""

_EXPLAIN = """Explain why a run failed: which failure pattern, tested by experiment.

Call it with the run_id of a run_accuracy call whose verdict is not pass (or that passed with
warnings). Returns ranked diagnoses (pattern ids such as low_precision_accumulation,
large_k_accumulation_drift, reduced_precision_dot, boundary_mask_error, unwritten_output,
inf_overflow, nan_mismatch, rounding_mode_bias, small_value_outliers, cancellation_error,
layout_mismatch, formula_error, nondeterminism, input_mutation, no_kernel_launched, ...), each with
a one-sentence summary, evidence, a location and `tested`: proven by the run itself, confirmed or
refuted by an experiment, or untested. Experiments re-run reference and candidate in the sandbox
with one thing changed (NaN vs zero margins past the inputs, exact -1/0/+1 inputs, inputs times
powers of two, centred / shifted inputs, the leading hypothesis' patch) within
experiment_budget_s; `experiments` lists each with its trials. Also a precision fingerprint for
matmul-like ops and an error heatmap image. Trust confirmed and proven diagnoses first.
Next: suggest_fix."""

_FIX = """Suggest fixes for a failed run as concrete patches to the candidate.

Call it with the run_id of a failed run_accuracy call. Returns ranked fixes (fp32_accumulator,
kahan_summation, ieee_dot_precision, stable_formula, max_subtraction, cast_round_mode_rint,
boundary_mask, do_not_mutate_inputs, fix_layout, deterministic_reduction, ...), each with why (the
evidence it answers), guidance for Triton, triton-ascend and AscendC, and, where the pattern was
located in the source, a unified diff plus the patched source. verify=true re-runs every patched
candidate through run_accuracy on the same seeds: a fix is verified only when it passes. Next:
apply the verified patch."""

_MUTATE = """How strong is your accuracy test for this kernel? Plant the bugs agents make in a candidate that
passes (stride swaps, dropped masks, off-by-one bounds, low-precision accumulators, ... per operator)
and run each mutant through run_accuracy on the same seeds.

Returns the mutation score (caught / mutants), the survivors as diffs (a bug the test did not catch,
with the input profile that would catch it, where one does), per operator counts, and advice.
A survivor means more seeds, another input_profile or a tighter standard are needed before trusting a
pass. Progress is reported per mutant; cancellation stops it."""

_BENCH = """Time a candidate that passed run_accuracy against its reference on the device, with checks that
the speedup is real.

Give run_id (a passing run_accuracy run) or reference + candidate (run_accuracy runs first). Both
kernels run in the sandbox with the device to themselves, on the same inputs, timed do_bench-style
with CUDA events (npu: torch_npu events): warm-up, L2 flushed before every repetition (flush_l2=false
for a warm cache), optional CUDA graphs, input sets rotated between repetitions. Returns the median,
IQR and CV of each, the speedup with its ~95% interval, the method and device, and the roofline: the
task's bytes and FLOPs against the device's peaks (achieved GB/s and TFLOP/s). Flags say when not to
trust the speedup: stale_output (a cached output, work skipped on reused buffers),
timed_output_mismatch, faster_on_repeated_inputs, side_stream (work not waited for), beyond_roofline
(faster than the device allows). Verdicts: ok, flagged, not_accurate, unsupported (cpu: the
interpreter's time means nothing; a roofline estimate instead), runtime_error, timeout, crashed."""

_ENTRIES = (
    ToolEntry(
        name="compile_kernel",
        title="Compile a Triton candidate",
        description=_COMPILE,
        request="tools.models.compile:CompileKernelRequest",
        result="tools.models.compile:CompileKernelResult",
        function="tools.compile:compile_kernel",
        hints=Hints(read_only=True, idempotent=True),
        command=Command(
            "compile",
            "compile_kernel: does the candidate import and compile; per-kernel resources",
            served=True,
            positional=("candidate",),
        ),
    ),
    ToolEntry(
        name="run_accuracy",
        title="Judge a candidate's accuracy",
        description=_RUN,
        request="tools.models.accuracy:RunAccuracyRequest",
        result="tools.models.accuracy:RunAccuracyResult",
        function="tools.accuracy:run_accuracy",
        hints=Hints(read_only=False, idempotent=False),
        command=Command(
            "run",
            "run_accuracy: reference vs candidate in the sandbox, judged against the FP64 golden",
            served=True,
            positional=("reference", "candidate"),
        ),
    ),
    ToolEntry(
        name="run_accuracy_batch",
        title="Judge many candidates at once",
        description=_BATCH,
        request="tools.models.batch:RunAccuracyBatchRequest",
        result="tools.models.batch:RunAccuracyBatchResult",
        function="tools.batch:run_accuracy_batch",
        hints=Hints(read_only=False, idempotent=False),
        command=Command(
            "batch",
            "run_accuracy on many requests at once (a JSON-lines manifest), locally or on a Ray cluster",
            flags_from_request=False,
        ),
    ),
    ToolEntry(
        name="benchmark_kernel",
        title="Time a candidate against its reference",
        description=_BENCH,
        request="tools.models.bench:BenchmarkRequest",
        result="tools.models.bench:BenchmarkResult",
        function="tools.benchmark_kernel:benchmark_kernel",
        hints=Hints(read_only=False, idempotent=False),
        command=Command(
            "bench",
            "benchmark_kernel: time the candidate against the reference on the device, with trust checks",
            run_alias=True,
            positional=("reference", "candidate"),
        ),
    ),
    ToolEntry(
        name="explain_failure",
        title="Explain a failed run",
        description=_EXPLAIN,
        request="tools.models.diagnosis:ExplainRequest",
        result="tools.models.diagnosis:ExplainResult",
        function="tools.diagnosis:explain_failure",
        hints=Hints(read_only=True, idempotent=True),
        command=Command(
            "explain",
            "explain_failure: the failure pattern of a run, with evidence",
            served=True,
            run_alias=True,
            positional=("run_id",),
        ),
    ),
    ToolEntry(
        name="mutate",
        title="Score the accuracy test by planted bugs",
        description=_MUTATE,
        request="tools.models.mutate:MutateRequest",
        result="tools.models.mutate:MutateResult",
        function="tools.mutate:mutate",
        hints=Hints(read_only=True, idempotent=False),
        command=Command(
            "mutate",
            "plant known bugs in a correct candidate: which does the task's test catch?",
            served=True,
            positional=("reference", "candidate"),
        ),
    ),
    ToolEntry(
        name="suggest_fix",
        title="Suggest (and verify) a fix",
        description=_FIX,
        request="tools.models.diagnosis:FixRequest",
        result="tools.models.diagnosis:FixResult",
        function="tools.fixes:suggest_fix",
        hints=Hints(read_only=False, idempotent=False),
        command=Command(
            "fix",
            "suggest_fix: patches for a run's failure, optionally verified",
            served=True,
            run_alias=True,
            positional=("run_id",),
        ),
    ),
)

TOOLS: dict[str, ToolEntry] = {entry.name: entry for entry in _ENTRIES}


def by_command(command: str) -> ToolEntry | None:
    return next((e for e in TOOLS.values() if e.command.name == command), None)


def served_commands() -> tuple[str, ...]:
    """The CLI commands the warm daemon runs."""
    return tuple(e.command.name for e in TOOLS.values() if e.command.served)


def markdown_table() -> str:
    """The README's table of tools (tests/test_catalogue.py keeps the README's copy equal to it)."""
    rows = ["| MCP tool | CLI | what it does |", "|---|---|---|"]
    for e in TOOLS.values():
        first_paragraph = e.description.split("\n\n")[0].replace("\n", " ")
        rows.append(f"| `{e.name}` | `kernel-eval {e.command.name}` | {first_paragraph} |")
    return "\n".join(rows)
