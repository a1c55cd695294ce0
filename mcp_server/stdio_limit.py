"""A bound on one stdio message, refused with a JSON-RPC error before it costs memory.

The SDK's stdio transport reads a whole line, then parses it: a 256 MiB argument cost about
1.5 GiB before any size check could see it. `install()` puts a relay between the process's stdin
and the SDK (fd 0 becomes a pipe that a thread fills): lines up to MAX_MESSAGE_BYTES pass through
unchanged; a longer line is read in bounded chunks and dropped, and in its place the relay sends a
small request that the middleware answers with an error naming the limit (to the id the client
used, found in the line's first bytes). Public SDK API only: `stdio_server()` still owns the
streams, `MCPServer.middleware` answers.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any, BinaryIO

from mcp.shared.exceptions import MCPError

from mcp_server.registration import MAX_ARGUMENT_BYTES

#: The largest stdio message read: the arguments' own limit plus room for the JSON-RPC envelope.
MAX_MESSAGE_BYTES = 2 * MAX_ARGUMENT_BYTES
#: The head of an over-long line kept to find its id.
HEAD_BYTES = 64 << 10
_CHUNK = 1 << 20
#: The method of the stand-in request (never a real MCP method).
OVERSIZED_METHOD = "kernel-eval/message-too-large"
INVALID_REQUEST = -32600


def install(server: Any, limit: int = MAX_MESSAGE_BYTES) -> None:
    """Relay fd 0 through a bounded reader and answer stand-ins; call before server.run('stdio')."""
    server.middleware.append(_refuse_oversized)
    source = os.fdopen(os.dup(0), "rb", buffering=_CHUNK)
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)
    os.close(read_end)
    threading.Thread(target=relay, args=(source, write_end, limit), name="stdio-limit", daemon=True).start()


def relay(source: BinaryIO, write_end: int, limit: int) -> None:
    """Copy lines from `source` to the pipe; an over-long line becomes a stand-in request."""
    try:
        while True:
            line = source.readline(limit + 1)
            if not line:
                return
            if len(line) > limit and not line.endswith(b"\n"):
                size = len(line) + _drain_line(source)
                line = _stand_in(line[:HEAD_BYTES], size, limit)
                if line is None:
                    continue
            _write_all(write_end, line)
    except OSError:  # the server closed its end: it is shutting down
        return
    finally:
        os.close(write_end)


def _drain_line(source: BinaryIO) -> int:
    """Read and drop the rest of the current line, one chunk at a time; the bytes dropped."""
    dropped = 0
    while True:
        chunk = source.readline(_CHUNK)
        dropped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return dropped


def _stand_in(head: bytes, size: int, limit: int) -> bytes | None:
    request_id = top_level_id(head)
    if request_id is None:  # a notification, or an id past the head: nobody to answer
        print(f"kernel-eval-mcp: dropped a {size}-byte stdio message without an id", file=sys.stderr)
        return None
    params = {"bytes": size, "limit": limit}
    return (
        json.dumps({"jsonrpc": "2.0", "id": request_id, "method": OVERSIZED_METHOD, "params": params}).encode() + b"\n"
    )


async def _refuse_oversized(ctx: Any, call_next: Any) -> Any:
    if ctx.method != OVERSIZED_METHOD:
        return await call_next(ctx)
    params = ctx.params or {}
    raise MCPError(
        INVALID_REQUEST,
        f"message of {params.get('bytes')} bytes exceeds the {params.get('limit')}-byte limit of one stdio "
        "message; it was not read. Pass large sources as file paths.",
    )


def top_level_id(head: bytes) -> int | str | None:
    """The value of the top-level "id" key in the start of a JSON object, or None."""
    text = head.decode("utf-8", errors="replace")
    depth, i, n = 0, 0, len(text)
    decoder = json.JSONDecoder()
    while i < n:
        ch = text[i]
        if ch == '"':
            try:
                key, end = decoder.raw_decode(text, i)
            except ValueError:
                return None  # the head ends inside a string
            rest = text[end:].lstrip()
            if depth == 1 and key == "id" and rest.startswith(":"):
                value_at = end + (len(text[end:]) - len(rest)) + 1
                value_at += len(text[value_at:]) - len(text[value_at:].lstrip())
                try:
                    value, _ = decoder.raw_decode(text, value_at)
                except ValueError:
                    return None
                return value if isinstance(value, (int, str)) and not isinstance(value, bool) else None
            i = end
            continue
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        i += 1
    return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
