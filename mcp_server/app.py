"""The MCP server: the tools of tools/ registered with their models, plus resources. Protocol only."""

from __future__ import annotations

import json

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import ToolAnnotations

from mcp_server import text
from mcp_server.registration import ToolSpec, make_tool
from tools.accuracy import run_accuracy
from tools.compile import compile_kernel
from tools.errors import ToolInputError
from tools.models.accuracy import RunAccuracyRequest, RunAccuracyResult
from tools.models.compile import CompileKernelRequest, CompileKernelResult
from tools.services import services
from tools.thresholds import table

INSTRUCTIONS = """kernel-eval judges Triton / triton-ascend kernels written in KernelBench's format (reference:
class Model + get_inputs() + get_init_inputs(); candidate: class ModelNew). A loop: compile_kernel
(does it import and compile?) -> run_accuracy (is it numerically right against an FP64 golden, on
fresh secret seeds, in a sandbox?) -> on a negative verdict, explain_failure(run_id) (which failure
pattern, with evidence) -> suggest_fix(run_id) (a patch, optionally verified). Sources can be passed
as text or as .py paths. Verdicts: pass, fail, compile_error, runtime_error, timeout, crashed,
rejected, unsupported."""

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
outputs (empty allocations are NaN-poisoned) and determinism. Returns a verdict (pass, fail,
compile_error, runtime_error, timeout, crashed, rejected, unsupported), per-seed results with the
worst elements, warnings about latent defects, and a run_id. Use `input_profile` (small_values,
cancellation, special_values, large_magnitude) to probe what KernelBench's rand inputs never show.
Next: on anything but pass, explain_failure(run_id)."""


def tool_specs() -> list[ToolSpec]:
    return [
        ToolSpec(
            name="compile_kernel", title="Compile a Triton candidate", description=COMPILE_DESCRIPTION,
            request_model=CompileKernelRequest, result_model=CompileKernelResult, run=compile_kernel,
            text=text.compile_kernel,
            annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False),
        ),
        ToolSpec(
            name="run_accuracy", title="Judge a candidate's accuracy", description=RUN_DESCRIPTION,
            request_model=RunAccuracyRequest, result_model=RunAccuracyResult, run=run_accuracy,
            text=text.run_accuracy,
            annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False),
        ),
    ]


def _run_result(run_id: str) -> str:
    try:
        return json.dumps(services().runs.result(run_id), indent=2)
    except ToolInputError as exc:
        raise ResourceError(str(exc)) from None


def build_server(max_concurrent_calls: int = 16) -> MCPServer:
    limiter = anyio.CapacityLimiter(max_concurrent_calls)
    server = MCPServer(
        "kernel-eval",
        title="kernel-eval: Triton kernel accuracy",
        instructions=INSTRUCTIONS,
        tools=[make_tool(spec, limiter) for spec in tool_specs()],
        log_level="WARNING",
    )

    @server.resource("kernel-eval://thresholds", name="thresholds", mime_type="application/json",
                     description="Every threshold table of every comparison standard (three_dim, catlass, assert_close).")
    def thresholds() -> str:
        return json.dumps(table(), indent=2)

    @server.resource("kernel-eval://runs/{run_id}/result", name="run_result", mime_type="application/json",
                     description="The full stored result of a run_accuracy call, by run_id.")
    def run_result(run_id: str) -> str:
        return _run_result(run_id)

    return server
