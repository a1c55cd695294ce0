"""The MCP server: the tools of tools/ registered with their models, plus resources. Protocol only."""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import ContentBlock, ImageContent, ToolAnnotations

from mcp_server import text
from mcp_server.registration import ServeContext, ToolSpec, make_tool
from tools import sources
from tools.accuracy import run_accuracy
from tools.batch import run_accuracy_batch
from tools.benchmark_kernel import benchmark_kernel
from tools.compile import compile_kernel
from tools.diagnosis import HEATMAP_NAME, explain_failure
from tools.errors import ToolInputError
from tools.fixes import suggest_fix
from tools.models.accuracy import RunAccuracyRequest, RunAccuracyResult
from tools.models.batch import MAX_BATCH_CANDIDATES, RunAccuracyBatchRequest, RunAccuracyBatchResult
from tools.models.bench import BenchmarkRequest, BenchmarkResult
from tools.models.compile import CompileKernelRequest, CompileKernelResult
from tools.models.diagnosis import ExplainRequest, ExplainResult, FixRequest, FixResult
from tools.models.mutate import MutateRequest, MutateResult
from tools.mutate import mutate
from tools.services import services
from tools.thresholds import table

INSTRUCTIONS = """kernel-eval judges Triton / triton-ascend kernels written in KernelBench's format (reference:
class Model + get_inputs() + get_init_inputs(); candidate: class ModelNew). A loop: compile_kernel
(does it import and compile?) -> run_accuracy (is it numerically right against an FP64 golden, on
fresh secret seeds, in a sandbox?) -> on pass, benchmark_kernel(run_id) (how fast, measured so the
speedup can be trusted) -> on a negative verdict, explain_failure(run_id) (which failure
pattern, with evidence) -> suggest_fix(run_id) (a patch, optionally verified). Sources can be passed
as text or as .py paths (relative paths resolve against the server's working directory). Verdicts:
pass, fail, compile_error, runtime_error, timeout, crashed, rejected, unsupported."""

COMPILE_DESCRIPTION = """Check that a Triton candidate imports and compiles, before spending time on accuracy.

Call it first on every new candidate. Without `reference` only the import is checked; with it, one
forward runs on the task's inputs so every launched kernel compiles: on a GPU you get each kernel's
registers, spills, shared memory, num_warps and num_stages; on the cpu backend the kernel runs in the
Triton interpreter and is also compiled offline for sm_90 by Triton's real front end, which catches
Python the interpreter accepts but the compiler rejects (break, plain globals, ...);
`estimate_resources` adds sm_90 register/spill estimates. Errors name the candidate's own file, line,
column and source line. Results are cached per source. Next: run_accuracy."""

RUN_DESCRIPTION = """Judge a Triton candidate against the task's reference on fresh inputs, in a sandbox.

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


BATCH_DESCRIPTION = f"""Judge many candidates of one task at once (up to {MAX_BATCH_CANDIDATES}), \
on every sandbox slot and GPU.

Takes run_accuracy's arguments with `candidates` (sources or .py paths) instead of `candidate`.
Each candidate gets exactly what run_accuracy would give it alone (same verdict, checks, anti-cheat
rules, a run_id in the run store); the goldens are computed once for all. Progress is reported per
finished candidate; cancelling stops the whole batch. Returns one compact line per candidate
(verdict, summary, run_id) and `best`, the first passing one; the full result of each is at
kernel-eval://runs/{{run_id}}/result. Next: explain_failure(run_id) on a failing candidate."""


EXPLAIN_DESCRIPTION = """Explain why a run failed: which failure pattern, tested by experiment.

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

FIX_DESCRIPTION = """Suggest fixes for a failed run as concrete patches to the candidate.

Call it with the run_id of a failed run_accuracy call. Returns ranked fixes (fp32_accumulator,
kahan_summation, ieee_dot_precision, stable_formula, max_subtraction, cast_round_mode_rint,
boundary_mask, do_not_mutate_inputs, fix_layout, deterministic_reduction, ...), each with why (the
evidence it answers), guidance for Triton, triton-ascend and AscendC, and, where the pattern was
located in the source, a unified diff plus the patched source. verify=true re-runs every patched
candidate through run_accuracy on the same seeds: a fix is verified only when it passes. Next:
apply the verified patch."""


MUTATE_DESCRIPTION = """How strong is your accuracy test for this kernel? Plant the bugs agents make in a candidate that
passes (stride swaps, dropped masks, off-by-one bounds, low-precision accumulators, ... per operator)
and run each mutant through run_accuracy on the same seeds.

Returns the mutation score (caught / mutants), the survivors as diffs (a bug the test did not catch,
with the input profile that would catch it, where one does), per operator counts, and advice.
A survivor means more seeds, another input_profile or a tighter standard are needed before trusting a
pass. Progress is reported per mutant; cancellation stops it."""

BENCH_DESCRIPTION = """Time a candidate that passed run_accuracy against its reference on the device, with checks that
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


def _heatmap_image(result: ExplainResult) -> list[ContentBlock]:
    import base64

    if not result.heatmap:
        return []
    path = services().runs.path(result.run_id) / HEATMAP_NAME
    return [ImageContent(type="image", data=base64.b64encode(path.read_bytes()).decode(), mime_type="image/png")]


def tool_specs() -> list[ToolSpec]:
    return [
        ToolSpec(
            name="compile_kernel",
            title="Compile a Triton candidate",
            description=COMPILE_DESCRIPTION,
            request_model=CompileKernelRequest,
            result_model=CompileKernelResult,
            run=compile_kernel,
            text=text.compile_kernel,
            annotations=ToolAnnotations(
                read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
            ),
        ),
        ToolSpec(
            name="run_accuracy",
            title="Judge a candidate's accuracy",
            description=RUN_DESCRIPTION,
            request_model=RunAccuracyRequest,
            result_model=RunAccuracyResult,
            run=run_accuracy,
            text=text.run_accuracy,
            annotations=ToolAnnotations(
                read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
            ),
        ),
        ToolSpec(
            name="run_accuracy_batch",
            title="Judge many candidates at once",
            description=BATCH_DESCRIPTION,
            request_model=RunAccuracyBatchRequest,
            result_model=RunAccuracyBatchResult,
            run=run_accuracy_batch,
            text=text.run_accuracy_batch,
            annotations=ToolAnnotations(
                read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
            ),
        ),
        ToolSpec(
            name="benchmark_kernel",
            title="Time a candidate against its reference",
            description=BENCH_DESCRIPTION,
            request_model=BenchmarkRequest,
            result_model=BenchmarkResult,
            run=benchmark_kernel,
            text=text.benchmark_kernel,
            annotations=ToolAnnotations(
                read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
            ),
        ),
        ToolSpec(
            name="explain_failure",
            title="Explain a failed run",
            description=EXPLAIN_DESCRIPTION,
            request_model=ExplainRequest,
            result_model=ExplainResult,
            run=explain_failure,
            text=text.explain_failure,
            extra_content=_heatmap_image,
            annotations=ToolAnnotations(
                read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
            ),
        ),
        ToolSpec(
            name="mutate",
            title="Score the accuracy test by planted bugs",
            description=MUTATE_DESCRIPTION,
            request_model=MutateRequest,
            result_model=MutateResult,
            run=mutate,
            text=text.mutate,
            annotations=ToolAnnotations(
                read_only_hint=True, destructive_hint=False, idempotent_hint=False, open_world_hint=False
            ),
        ),
        ToolSpec(
            name="suggest_fix",
            title="Suggest (and verify) a fix",
            description=FIX_DESCRIPTION,
            request_model=FixRequest,
            result_model=FixResult,
            run=suggest_fix,
            text=text.suggest_fix,
            annotations=ToolAnnotations(
                read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
            ),
        ),
    ]


def _run_result(run_id: str) -> str:
    try:
        return json.dumps(services().runs.result(run_id), indent=2)
    except ToolInputError as exc:
        raise ResourceError(str(exc)) from None


def server_version() -> str:
    """The installed package's version (pyproject.toml), announced in the MCP handshake."""
    try:
        return version("kernel-eval-mcp")
    except PackageNotFoundError:  # run from a checkout that was never pip-installed
        return "0+unknown"


def build_server(max_concurrent_calls: int = 16, roots: tuple | None = None, client_roots: bool = False) -> MCPServer:
    """`roots`: where .py path arguments may be read (default: the working directory);
    `client_roots`: also the roots the client declares (stdio, where client and server share a machine)."""
    serving = ServeContext(
        anyio.CapacityLimiter(max_concurrent_calls),
        roots if roots is not None else sources.server_roots(),
        client_roots,
    )
    server = MCPServer(
        "kernel-eval",
        version=server_version(),
        title="kernel-eval: Triton kernel accuracy",
        instructions=INSTRUCTIONS,
        tools=[make_tool(spec, serving) for spec in tool_specs()],
        log_level="WARNING",
    )

    @server.resource(
        "kernel-eval://thresholds",
        name="thresholds",
        mime_type="application/json",
        description="Every threshold table of every comparison standard (three_dim, catlass, assert_close).",
    )
    def thresholds() -> str:
        return json.dumps(table(), indent=2)

    @server.resource(
        "kernel-eval://runs/{run_id}/result",
        name="run_result",
        mime_type="application/json",
        description="The full stored result of a run_accuracy call, by run_id.",
    )
    def run_result(run_id: str) -> str:
        return _run_result(run_id)

    @server.resource(
        "kernel-eval://runs/{run_id}/heatmap.png",
        name="run_heatmap",
        mime_type="image/png",
        description="The error heatmap of a run (made by explain_failure).",
    )
    def run_heatmap(run_id: str) -> bytes:
        try:
            path = services().runs.path(run_id) / HEATMAP_NAME
        except ToolInputError as exc:
            raise ResourceError(str(exc)) from None
        if not path.exists():
            raise ResourceError(f"run {run_id} has no heatmap yet: call explain_failure(run_id) first")
        return path.read_bytes()

    return server
