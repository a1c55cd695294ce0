"""The MCP server: the tools of tools/catalogue.py registered with their models, plus resources. Protocol only."""

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
from tools.catalogue import INSTRUCTIONS, TOOLS, Hints
from tools.diagnosis import HEATMAP_NAME
from tools.errors import ToolInputError
from tools.models.diagnosis import ExplainResult
from tools.services import services
from tools.thresholds import table


def _heatmap_image(result: ExplainResult) -> list[ContentBlock]:
    import base64

    if not result.heatmap:
        return []
    path = services().runs.path(result.run_id) / HEATMAP_NAME
    return [ImageContent(type="image", data=base64.b64encode(path.read_bytes()).decode(), mime_type="image/png")]


def _annotations(hints: Hints) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=hints.read_only,
        destructive_hint=hints.destructive,
        idempotent_hint=hints.idempotent,
        open_world_hint=hints.open_world,
    )


#: Content beside a tool's text block, by tool.
EXTRA_CONTENT = {"explain_failure": _heatmap_image}


def tool_specs() -> list[ToolSpec]:
    """One MCP tool per catalogue entry (tools/catalogue.py)."""
    return [
        ToolSpec(
            name=entry.name,
            title=entry.title,
            description=entry.description,
            request_model=entry.request_model,
            result_model=entry.result_model,
            run=entry.load(),
            text=text.renderer(entry.name),
            annotations=_annotations(entry.hints),
            extra_content=EXTRA_CONTENT.get(entry.name),
        )
        for entry in TOOLS.values()
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
