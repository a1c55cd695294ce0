"""One error root (sandbox.protocol.KernelEvalError) with a blame, mapped once per surface: the CLI's exit
code, MCP's error text, a batch item's error kind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sandbox.pool import PoolBusy, PoolError
from sandbox.protocol import EXIT_CODES, KernelEvalError
from tools.batch.jobs import BLAME_KINDS
from tools.cli.args import UsageError
from tools.compare import CompareInputError
from tools.errors import ServerFault, ToolInputError
from tools.tensor_files import TensorFileError

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = {
    ToolInputError: "caller",
    UsageError: "caller",
    CompareInputError: "caller",
    TensorFileError: "caller",
    ServerFault: "server",
    PoolError: "server",
    PoolBusy: "server",
}


@pytest.mark.parametrize("cls", list(EXPECTED), ids=lambda c: c.__name__)
def test_every_deliberate_error_has_the_one_root_and_its_blame(cls):
    assert issubclass(cls, KernelEvalError) and cls.blame == EXPECTED[cls]
    assert cls.blame in EXIT_CODES and cls.blame in BLAME_KINDS


def test_a_server_fault_is_not_the_callers_to_fix():
    assert not issubclass(ServerFault, ToolInputError)
    assert EXIT_CODES["server"] == 3 and EXIT_CODES["caller"] == 2
    assert "not your kernel's" in PoolError("zygote died").client_text()


def test_surfaces_map_errors_through_the_root_only():
    """The MCP tool handler and the CLI's entry never list error classes of their own: the root's blame decides."""
    listed = re.compile(r"except\s*\(?[^:\n]*\b(ToolInputError|ServerFault|PoolError|PoolBusy|CompareInputError)\b")
    offenders = []
    for path in (ROOT / "mcp_server" / "registration.py", ROOT / "tools" / "cli" / "commands.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if listed.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, offenders
    for path in (ROOT / "mcp_server" / "registration.py", ROOT / "tools" / "cli" / "commands.py"):
        assert "except KernelEvalError" in path.read_text(), path
