"""`python -m mcp_server` / `kernel-eval-mcp` / `kernel-eval serve`: serve over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def serve(
    transport: str,
    host: str,
    port: int,
    auth_token_file: str | None = None,
    allowed_hosts: list[str] | None = None,
    allowed_origins: list[str] | None = None,
    roots: list[str] | None = None,
    max_memory_mb: int | None = None,
    max_timeout_s: float | None = None,
    no_token: bool = False,
    slots: int | None = None,
    warm_start: bool = True,
) -> int:
    from mcp_server import http
    from mcp_server.app import build_server
    from sandbox.pool import Pool, PoolError, configure_slots
    from tools import ceilings, sources, store, warm

    try:
        configure_slots(slots)
        limits = ceilings.configure(max_memory_mb, max_timeout_s)
        server_roots = sources.server_roots(roots or [])
        security = (
            http.HttpSecurity.configure(
                host, auth_token_file, allowed_hosts, allowed_origins, home=store.home(), no_token=no_token
            )
            if transport == "http"
            else None
        )
        sock = http.bind(host, port) if security is not None else None
    except (http.ServeConfigError, sources.RootsError, ceilings.CeilingError, PoolError) as exc:
        print(f"kernel-eval-mcp: error: {exc}", file=sys.stderr)
        return 2
    server = build_server(roots=server_roots, client_roots=transport == "stdio")
    if warm_start:
        warm.warm_start_in_background()
    try:
        if security is not None and sock is not None:
            if security.note:
                print(f"kernel-eval-mcp: {security.note}", file=sys.stderr, flush=True)
            shown = f"[{host}]" if ":" in host else host
            print(
                f"kernel-eval-mcp: serving MCP at http://{shown}:{sock.getsockname()[1]}/mcp; each job at most "
                f"{limits.memory_mb} MiB and {limits.timeout_s:g} s (--max-memory-mb, --max-timeout-s)",
                file=sys.stderr,
                flush=True,
            )
            http.run(server, sock, security)
        else:
            from mcp_server import stdio_limit

            stdio_limit.install(server)  # a huge message is refused before it is read whole
            server.run("stdio")
    finally:
        Pool.close_all()
    return 0


def serve_from(ns: argparse.Namespace) -> int:
    """serve() with the arguments add_arguments() defined."""
    return serve(
        ns.transport,
        ns.host,
        ns.port,
        ns.auth_token_file,
        ns.allowed_host,
        ns.allowed_origin,
        ns.root,
        ns.max_memory_mb,
        ns.max_timeout_s,
        ns.no_token,
        ns.slots,
        not ns.no_warm_start,
    )


def _unshadow() -> None:
    """`python -m mcp_server` puts the working directory first on sys.path, where a user's tools.py
    or sandbox.py would shadow this project's packages (and run inside the server). Keep it only
    where it is this project's own checkout (run without installing)."""
    project = Path(__file__).resolve().parents[1]
    first = Path(sys.path[0] or ".").resolve() if sys.path else None
    if first is not None and first == Path.cwd().resolve() and first != project:
        sys.path.pop(0)


def main(argv: list[str] | None = None) -> int:
    _unshadow()
    from tools.cli.serve_args import add_arguments  # after _unshadow: a user's tools.py must not be imported

    parser = argparse.ArgumentParser(prog="kernel-eval-mcp", description="kernel-eval MCP server")
    add_arguments(parser)
    return serve_from(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
