"""One catalogue (tools/catalogue.py) makes every surface: the MCP tools, the CLI commands, the daemon's
served commands and the README's table. These tests hold the surfaces to it, and add a tool through
one entry to show that nothing else needs an edit."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
from mcp import Client

from mcp_server.app import build_server
from tools import catalogue
from tools.catalogue import TOOLS, Command, Hints, ToolEntry, markdown_table, served_commands
from tools.cli.commands import build_parser, main
from tools.cli.forward import SERVED
from tools.models.common import Model

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def anyio_backend():
    return "asyncio"


def _subcommands() -> dict:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return action.choices


@pytest.mark.anyio
async def test_the_mcp_server_serves_exactly_the_catalogue():
    async with Client(build_server(), mode="legacy") as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
    assert list(listed) == list(TOOLS)
    for name, entry in TOOLS.items():
        tool = listed[name]
        assert tool.description == entry.description and tool.title == entry.title
        assert tool.input_schema == entry.request_model.model_json_schema()
        assert tool.output_schema["title"] == entry.result_model.__name__
        assert tool.annotations.read_only_hint is entry.hints.read_only
        assert tool.annotations.idempotent_hint is entry.hints.idempotent


def test_every_tool_has_its_cli_command_with_the_request_flags():
    commands = _subcommands()
    for entry in TOOLS.values():
        parser = commands[entry.command.name]
        flags = {a.dest for a in parser._actions}
        if entry.command.flags_from_request:
            assert set(entry.request_model.model_fields) <= flags, entry.name
        assert ("no_daemon" in flags) is entry.command.served, entry.name


def test_the_daemon_serves_the_catalogue_commands():
    assert SERVED == served_commands() == ("compile", "run", "explain", "mutate", "fix")


def test_the_readme_table_is_the_catalogue():
    assert markdown_table() in (ROOT / "README.md").read_text()


def test_the_catalogue_is_light_for_the_cli_fast_path():
    """tools/cli/forward.py imports it before anything heavy: it must not load pydantic or torch."""
    import subprocess

    code = "import sys, tools.catalogue; print('pydantic' in sys.modules, 'torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


# --- a tool added by one entry ---------------------------------------------------------------------


class EchoRequest(Model):
    """Say a word back."""

    word: str


class EchoResult(Model):
    summary: str  # and no verdict: the command still exits 0 (nothing failed) without a printer entry


def echo(request: EchoRequest, progress=None, cancel=None) -> EchoResult:
    return EchoResult(summary=f"echo: {request.word}")


@pytest.fixture
def echo_tool(monkeypatch):
    module = types.ModuleType("echo_tool_for_test")
    module.EchoRequest, module.EchoResult, module.echo = EchoRequest, EchoResult, echo
    monkeypatch.setitem(sys.modules, module.__name__, module)
    entry = ToolEntry(
        name="echo",  # type: ignore[arg-type] - a name the ToolName literal does not know
        title="Echo",
        description="Say a word back.\n\nA tool added by one catalogue entry.",
        request=f"{module.__name__}:EchoRequest",
        result=f"{module.__name__}:EchoResult",
        function=f"{module.__name__}:echo",
        hints=Hints(read_only=True, idempotent=True),
        command=Command("echo", "say a word back"),
    )
    monkeypatch.setitem(catalogue.TOOLS, "echo", entry)
    from tools.cli import commands

    commands._parser.cache_clear()
    yield entry
    commands._parser.cache_clear()


@pytest.mark.anyio
async def test_a_new_tool_is_one_entry_on_mcp_and_the_cli(echo_tool, capsys):
    async with Client(build_server(), mode="legacy") as client:
        assert "echo" in {t.name for t in (await client.list_tools()).tools}
        called = await client.call_tool("echo", {"word": "hello"})
    assert not called.is_error and called.structured_content["summary"] == "echo: hello"
    assert called.content[0].text == "echo: hello"  # the summary: no text renderer was written
    assert main(["echo", "--word", "hi"]) == 0
    assert capsys.readouterr().out.strip() == "echo: hi"
    assert "| `echo` | `kernel-eval echo` | Say a word back. |" in markdown_table()
