"""One autoresearch iteration through a real MCP session (what an agent does), over stdio.

Starts the kernel-eval MCP server as a subprocess, then on examples/level1/01_square_matmul:
compile_kernel -> run_accuracy (the candidate accumulates in fp16: FAIL) -> explain_failure ->
suggest_fix (verified) -> run_accuracy on the fixed candidate (PASS). Steps whose tool the server
does not offer are skipped with a note.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

TASK = Path(__file__).resolve().parent / "level1" / "01_square_matmul"
REFERENCE = str(TASK / "reference.py")
BUGGY = str(TASK / "candidate_fp16_accumulator.py")
CORRECT = str(TASK / "candidate.py")
COMMON = {"reference": REFERENCE, "backend": "cpu"}


def show(step: str, result) -> dict:
    print(f"\n=== {step}")
    print(result.content[0].text)
    if result.is_error:
        raise SystemExit(f"{step} failed")
    return result.structured_content


async def main() -> int:
    # env: the SDK's stdio client gives the server only HOME, PATH and a few more; KERNEL_EVAL_HOME and the
    # server's other settings must be passed on
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "mcp_server"], cwd=str(TASK.parents[2]), env=dict(os.environ)
    )
    async with Client(server, mode="legacy") as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        print("kernel-eval MCP server tools:", ", ".join(sorted(tools)))

        show(
            "compile_kernel (buggy candidate)", await client.call_tool("compile_kernel", {"candidate": BUGGY, **COMMON})
        )
        run = show(
            "run_accuracy (buggy candidate)", await client.call_tool("run_accuracy", {"candidate": BUGGY, **COMMON})
        )
        fixed_source = None
        if run["verdict"] != "pass" and "explain_failure" in tools:
            show("explain_failure", await client.call_tool("explain_failure", {"run_id": run["run_id"]}))
        if run["verdict"] != "pass" and "suggest_fix" in tools:
            fix = show(
                "suggest_fix (verify=true)",
                await client.call_tool("suggest_fix", {"run_id": run["run_id"], "verify": True}),
            )
            verified = [f for f in fix.get("fixes", []) if f.get("verified")]
            if verified:
                fixed_source = verified[0]["patched_source"]
        if fixed_source is None:
            print("\n(no verified patch from the server: using the example's corrected candidate)")
            fixed_source = CORRECT
        final = show(
            "run_accuracy (fixed candidate)",
            await client.call_tool("run_accuracy", {"candidate": fixed_source, **COMMON}),
        )
        print(f"\niteration done: {run['verdict']} -> {final['verdict']}")
        return 0 if final["verdict"] == "pass" else 1


if __name__ == "__main__":
    raise SystemExit(anyio.run(main))
