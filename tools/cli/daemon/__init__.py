"""A warm local server for the CLI: one daemon per KERNEL_EVAL_HOME and code version, over a private
Unix socket, running the CLI's own commands (not MCP: see mcp_server/ for that).

location: paths, code version, peer checks; connection: reaching (or starting) a daemon, framing;
protocol: the messages; server: the daemon; output: where a command it runs prints; client:
`serve --status/--stop`. It serves the tools tools/catalogue.py marks served. The CLI's side is
tools/cli/forward.py.
"""
