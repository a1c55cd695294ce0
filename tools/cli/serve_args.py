"""The flags of `kernel-eval serve` / `kernel-eval-mcp`: defined here, below both, so that the CLI builds
its parser without importing the MCP server, and starts that server as a process of its own
(`python -m mcp_server`, with argv_of(ns)).
"""

from __future__ import annotations

import argparse

DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio (default: for Claude Code, Codex, IDEs) or streamable HTTP at /mcp",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="HTTP bind address (default loopback only; any other needs a token)"
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT})")
    parser.add_argument(
        "--auth-token-file",
        metavar="FILE",
        help="HTTP: require 'Authorization: Bearer <the token in FILE>' (or set $KERNEL_EVAL_TOKEN)",
    )
    parser.add_argument(
        "--no-token",
        action="store_true",
        help="HTTP on loopback: serve without a token (any local user can then use the server and read the "
        "files under its roots); by default one is generated into the home",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME[:PORT]",
        help="HTTP: also accept this Host header (the name clients use to reach the server); repeatable",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="HTTP: also accept requests from this browser Origin (e.g. https://ide.example); repeatable",
    )
    parser.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="a directory whose .py files tools may read by path, besides the working directory; repeatable",
    )
    parser.add_argument(
        "--max-memory-mb",
        type=int,
        metavar="MiB",
        help="the most memory a client may give a sandboxed job; more is lowered to it, and the result says so "
        "(default $KERNEL_EVAL_MAX_MEMORY_MB, else half of this machine's memory)",
    )
    parser.add_argument(
        "--max-timeout-s",
        type=float,
        metavar="S",
        help="the longest wall time a client may give a sandboxed job (default $KERNEL_EVAL_MAX_TIMEOUT_S, else 900)",
    )
    parser.add_argument(
        "--slots",
        type=int,
        metavar="N",
        help="sandboxed jobs run at once per backend (default $KERNEL_EVAL_SLOTS, else up to 4 on cpu and, on a GPU, "
        "one per 4 of the host's cores per GPU, 2 to 16)",
    )
    parser.add_argument(
        "--no-warm-start",
        action="store_true",
        help="start the sandbox at the first call instead of at start-up (by default the server starts the "
        "default backend's sandbox, and on a GPU its device contexts, in the background as it starts)",
    )


def argv_of(ns: argparse.Namespace) -> list[str]:
    """The command line that add_arguments() parses into `ns` (its serve flags only)."""
    argv = ["--transport", ns.transport, "--host", ns.host, "--port", str(ns.port)]
    if ns.auth_token_file:
        argv += ["--auth-token-file", ns.auth_token_file]
    if ns.no_token:
        argv.append("--no-token")
    for flag, values in (
        ("--allowed-host", ns.allowed_host),
        ("--allowed-origin", ns.allowed_origin),
        ("--root", ns.root),
    ):
        for value in values:
            argv += [flag, value]
    if ns.max_memory_mb is not None:
        argv += ["--max-memory-mb", str(ns.max_memory_mb)]
    if ns.max_timeout_s is not None:
        argv += ["--max-timeout-s", repr(ns.max_timeout_s)]
    if ns.slots is not None:
        argv += ["--slots", str(ns.slots)]
    if ns.no_warm_start:
        argv.append("--no-warm-start")
    return argv
