"""`python -m mcp_server` / `kernel-eval-mcp` / `kernel-eval serve`: serve over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import sys

DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                        help="stdio (default: for Claude Code, Codex, IDEs) or streamable HTTP at /mcp")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default loopback only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT})")


def serve(transport: str, host: str, port: int) -> int:
    from mcp_server.app import build_server
    from sandbox.pool import Pool

    server = build_server()
    try:
        if transport == "http":
            server.run("streamable-http", host=host, port=port)
        else:
            server.run("stdio")
    finally:
        Pool.close_all()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kernel-eval-mcp", description="kernel-eval MCP server")
    add_arguments(parser)
    args = parser.parse_args(argv)
    return serve(args.transport, args.host, args.port)


if __name__ == "__main__":
    sys.exit(main())
