"""ast.parse, one thread at a time.

CPython 3.11 keeps the AST constructor's recursion-depth check in state the threads share: two threads
parsing at once can fail with `SystemError: AST constructor recursion depth mismatch` (seen with eight
concurrent MCP calls). The server runs tools on worker threads, so every parse of the tools goes here.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str) -> ast.Module:
    with _LOCK:
        return ast.parse(source)
