"""A warm local server for the CLI: one daemon per KERNEL_EVAL_HOME and code version, over a private
Unix socket, serving the tools' typed functions (not MCP: see mcp_server/ for that).

location: paths, code version, peer checks; protocol: the messages; server: the daemon;
client: what the CLI uses; catalogue: the tools served.
"""
