"""A scripted autoresearch loop over MCP: judge a series of candidates for one task.

    python examples/autoresearch_loop.py REFERENCE CANDIDATE [CANDIDATE ...] [--backend cpu]
    python examples/autoresearch_loop.py REFERENCE --url http://127.0.0.1:8765/mcp CANDIDATE ...

An agent generates the candidates; here they are files. Each goes through compile_kernel, then
run_accuracy, and on a negative verdict explain_failure (when the server offers it). The loop
stops at the first candidate that passes and prints a table.
"""

from __future__ import annotations

import argparse
import os
import sys

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent


def text_of(result: CallToolResult) -> str:
    """The text a tool result carries (its first text block; errors come as text)."""
    return next((c.text for c in result.content if isinstance(c, TextContent)), "")


async def judge(client: Client, tools: set[str], reference: str, candidate: str, backend: str) -> dict:
    compiled = await client.call_tool(
        "compile_kernel", {"candidate": candidate, "reference": reference, "backend": backend}
    )
    if compiled.is_error:
        return {"candidate": candidate, "verdict": "error", "detail": text_of(compiled)}
    if not compiled.structured_content["ok"]:
        return {
            "candidate": candidate,
            "verdict": compiled.structured_content["verdict"],
            "detail": compiled.structured_content["summary"],
        }
    run = await client.call_tool("run_accuracy", {"candidate": candidate, "reference": reference, "backend": backend})
    if run.is_error:
        return {"candidate": candidate, "verdict": "error", "detail": text_of(run)}
    result = {
        "candidate": candidate,
        "verdict": run.structured_content["verdict"],
        "detail": run.structured_content["summary"],
    }
    if result["verdict"] != "pass" and "explain_failure" in tools:
        explained = await client.call_tool("explain_failure", {"run_id": run.structured_content["run_id"]})
        if not explained.is_error:
            result["detail"] = text_of(explained).partition("\n")[0]
    return result


async def loop(args) -> int:
    # env: the SDK's stdio client passes the server only HOME, PATH and a few more (not KERNEL_EVAL_HOME)
    server = args.url or StdioServerParameters(command=sys.executable, args=["-m", "mcp_server"], env=dict(os.environ))
    rows = []
    async with Client(server) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        for candidate in args.candidates:
            rows.append(await judge(client, tools, args.reference, candidate, args.backend))
            if rows[-1]["verdict"] == "pass":
                break
    width = max(len(r["candidate"]) for r in rows)
    for r in rows:
        print(f"{r['candidate']:<{width}}  {r['verdict']:<13}  {r['detail'][:160]}")
    return 0 if rows and rows[-1]["verdict"] == "pass" else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("reference")
    parser.add_argument("candidates", nargs="+")
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--url", help="a running server's streamable HTTP endpoint (default: start one over stdio)")
    return anyio.run(loop, parser.parse_args())


if __name__ == "__main__":
    raise SystemExit(main())
