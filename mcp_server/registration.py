"""Turn a plain tool function into an MCP tool: schemas from its pydantic models, our own errors.

The function is `run(request, progress, cancel) -> result` (blocking, in tools/). Here it gets:
- inputSchema = the request model's JSON schema, outputSchema = the result model's;
- arguments validated by the request model inside the handler, so a bad call gets one concise
  isError text (the same wording the CLI prints), never a pydantic dump or a traceback;
- a worker thread, progress notifications (increasing), and cancellation that sets the
  function's cancel event so the sandbox job is killed and its slot freed;
- a result with structuredContent (the model) and a short text block (first line: the summary);
- .py path arguments confined to the server's roots (plus the client's declared roots on stdio);
- an HTTP client that drops the call cancels it (mcp_server.http.disconnects);
- an unexpected exception logged here with an id; the client gets the id, not the text.

The raw-arguments model below replaces a part of the SDK's FastMCP-style tool (`fn_metadata`),
which is not public API: `mcp` is pinned to the exact version this was tested with
(TESTED_MCP_VERSION, pyproject.toml), and tests/test_mcp_server.py fails when they differ.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp.types import CallToolResult, ContentBlock, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, ValidationError

from mcp_server.http import call_tag, disconnects
from sandbox.protocol import KernelEvalError
from tools import sources
from tools.errors import describe_validation_error

log = logging.getLogger("kernel_eval.mcp")

TESTED_MCP_VERSION = "2.3.0"
CLIENT_ROOTS_TIMEOUT_S = 5.0

#: Arguments larger than this are refused before validation (sources are capped at 1 MiB each).
MAX_ARGUMENT_BYTES = 4 << 20


@dataclass
class ToolSpec:
    name: str
    title: str
    description: str
    request_model: type[BaseModel]
    result_model: type[BaseModel]
    run: Callable[..., BaseModel]  # run(request, progress, cancel)
    text: Callable[[Any], str]  # the text block for a result
    annotations: ToolAnnotations
    extra_content: Callable[[Any], list[ContentBlock]] | None = None  # e.g. a heatmap image


def error_result(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


class _Progress:
    """progress(fraction, message) from the worker thread; only ever increasing."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.last = -1.0

    def __call__(self, fraction: float, message: str) -> None:
        fraction = max(self.last, min(1.0, float(fraction)))
        if fraction == self.last and fraction != 0.0:
            fraction = min(1.0, fraction + 1e-6)
        self.last = fraction
        try:
            anyio.from_thread.run(self.ctx.report_progress, fraction, 1.0, message)
        except Exception:  # noqa: BLE001 - the client may be gone; progress is best effort
            pass


def _check_size(arguments: dict) -> str | None:
    size = len(json.dumps(arguments, default=str))
    if size > MAX_ARGUMENT_BYTES:
        return f"arguments of {size} bytes exceed the {MAX_ARGUMENT_BYTES}-byte limit; pass large sources as file paths"
    return None


@dataclass
class ServeContext:
    """What every tool call shares: the worker limit and the roots paths may be read from."""

    limiter: anyio.CapacityLimiter
    roots: tuple  # of Path; the server's working directory and --root dirs
    client_roots: bool = False  # also accept the roots the client declares (stdio: the same machine)


async def _declared_roots(ctx: Context) -> list:
    """The client's file:// roots, if it declares the capability and answers in time."""
    from pathlib import Path
    from urllib.parse import unquote, urlsplit

    caps = ctx.client_capabilities
    if caps is None or caps.roots is None:
        return []
    with anyio.move_on_after(CLIENT_ROOTS_TIMEOUT_S):
        try:
            with warnings.catch_warnings():  # roots are deprecated in a later protocol revision, still served
                warnings.simplefilter("ignore")
                listed = await ctx.session.list_roots()
        except Exception:  # noqa: BLE001 - a client that cannot answer simply declares none
            return []
        found = []
        for root in listed.roots:
            uri = urlsplit(str(root.uri))
            if uri.scheme == "file" and uri.path:
                found.append(Path(unquote(uri.path)).resolve())
        return found
    return []


def _disconnect_key(ctx: Context) -> str | None:
    """The HTTP request that carried this call, as the guard tagged it (None on stdio, where a
    cancellation comes as a notification)."""
    return call_tag(ctx.request_context.request)


def _internal_error(name: str, exc: BaseException) -> CallToolResult:
    incident = secrets.token_hex(4)
    log.error("tool %s failed (incident %s)", name, incident, exc_info=exc)
    return error_result(f"{name}: internal error (incident {incident}, logged by the server); the server keeps running")


def make_tool(spec: ToolSpec, serving: ServeContext) -> Tool:
    limiter = serving.limiter

    async def handler(arguments: dict, ctx: Context) -> Annotated[CallToolResult, spec.result_model]:
        too_big = _check_size(arguments)
        if too_big:
            return error_result(f"{spec.name}: {too_big}")
        try:
            request = spec.request_model.model_validate(arguments)
        except ValidationError as exc:
            fields = ", ".join(spec.request_model.model_fields)
            return error_result(
                f"{spec.name}: invalid arguments: {describe_validation_error(exc)}. Known fields: {fields}"
            )
        roots = tuple(serving.roots) + tuple(await _declared_roots(ctx) if serving.client_roots else ())
        progress = _Progress(ctx)
        cancel = threading.Event()

        def confined_run():
            with sources.confined(roots):
                return spec.run(request, progress, cancel)

        key = _disconnect_key(ctx)
        with anyio.CancelScope() as scope:

            def dropped() -> None:
                cancel.set()  # the worker's sandbox job is killed; its slot frees at once
                scope.cancel()

            forget = disconnects.watch(key, dropped) if key is not None else (lambda: None)
            try:
                if limiter.available_tokens == 0:
                    await ctx.report_progress(0.0, 1.0, "queued: waiting for a free worker")
                async with limiter:
                    try:
                        result = await anyio.to_thread.run_sync(confined_run, abandon_on_cancel=True)
                    except anyio.get_cancelled_exc_class():
                        cancel.set()
                        raise
                    except KernelEvalError as exc:  # the one root: the caller's or the server's, said in its text
                        return error_result(f"{spec.name}: {exc.client_text()}")
                    except Exception as exc:  # noqa: BLE001 - keep serving; the details stay in the server's log
                        return _internal_error(spec.name, exc)
            finally:
                forget()
        if scope.cancelled_caught:
            return error_result(f"{spec.name}: cancelled: the client disconnected")
        try:
            content: list[ContentBlock] = [TextContent(type="text", text=spec.text(result))]
            if spec.extra_content is not None:
                content.extend(spec.extra_content(result))
            return CallToolResult(content=content, structured_content=result.model_dump(mode="json"))
        except Exception as exc:  # noqa: BLE001
            return _internal_error(spec.name, exc)

    handler.__doc__ = spec.description
    # real objects, not the strings `from __future__ import annotations` leaves: the SDK reads them
    handler.__annotations__ = {
        "arguments": dict,
        "ctx": Context,
        "return": Annotated[CallToolResult, spec.result_model],
    }
    tool = Tool.from_function(
        handler, name=spec.name, title=spec.title, description=spec.description, annotations=spec.annotations
    )

    class RawArguments(ArgModelBase):
        """Accepts any object: the handler validates with the request model and words the errors."""

        model_config = ConfigDict(extra="allow")

        def model_dump_one_level(self) -> dict[str, Any]:
            return {"arguments": dict(self.model_extra or {})}

    tool.fn_metadata.arg_model = RawArguments
    tool.parameters = spec.request_model.model_json_schema()
    return tool
