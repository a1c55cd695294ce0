"""The MCP server with real clients: the SDK client in-process (JSON-RPC), over stdio and over HTTP,
and the MCP Inspector CLI (installed by scripts/test.sh into .mcp-inspector)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import jsonschema
import pytest
from mcp import Client, StdioServerParameters

from mcp_server.app import build_server
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with
from tools.catalogue import TOOLS
from tools.models.accuracy import RunAccuracyRequest
from tools.models.compile import CompileKernelRequest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "level1" / "19_relu"
INSPECTOR = ROOT / ".mcp-inspector"
FAST = {"backend": "cpu", "num_seeds": 1, "determinism_check": False}

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
async def client():
    async with Client(build_server(), mode="legacy") as c:  # the real JSON-RPC path stdio clients use
        yield c


def structured(result):
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def test_tools_list_schemas_and_annotations(client):
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert {"compile_kernel", "run_accuracy", "explain_failure", "suggest_fix"} <= set(tools)
    assert tools["explain_failure"].annotations.read_only_hint is True
    run = tools["run_accuracy"]
    assert run.input_schema == RunAccuracyRequest.model_json_schema()
    assert run.input_schema["additionalProperties"] is False and run.output_schema["title"] == "RunAccuracyResult"
    assert list(run.input_schema["properties"])[:2] == ["reference", "candidate"]
    assert run.annotations.read_only_hint is False and run.annotations.open_world_hint is False
    assert tools["compile_kernel"].input_schema == CompileKernelRequest.model_json_schema()
    assert tools["compile_kernel"].annotations.read_only_hint is True
    assert "explain_failure" in run.description  # what to call next


def _undescribed(schema: dict) -> list[str]:
    """Properties without a description, in the schema and in every model it refers to."""
    missing = [name for name, prop in schema.get("properties", {}).items() if not prop.get("description")]
    for model, sub in schema.get("$defs", {}).items():
        missing += [f"{model}.{name}" for name in _undescribed(sub)]
    return missing


async def test_every_tool_parameter_has_a_description(client):
    tools = (await client.list_tools()).tools
    assert {tool.name for tool in tools} == set(TOOLS)  # every catalogue entry, and nothing else
    assert {tool.name: _undescribed(tool.input_schema) for tool in tools} == {tool.name: [] for tool in tools}


async def test_server_announces_the_package_version(client):
    from importlib.metadata import version

    assert client.server_info.name == "kernel-eval"
    assert client.server_info.version == version("kernel-eval-mcp") != ""


async def test_run_accuracy_structured_content_matches_its_schema_and_progress_rises(client):
    seen = []

    async def progress(value, total, message):
        seen.append(value)

    tools = {t.name: t for t in (await client.list_tools()).tools}
    result = await client.call_tool(
        "run_accuracy",
        {"reference": str(EXAMPLE / "reference.py"), "candidate": str(EXAMPLE / "candidate.py"), **FAST},
        progress_callback=progress,
    )
    data = structured(result)
    jsonschema.validate(data, tools["run_accuracy"].output_schema)
    assert data["verdict"] == "pass" and result.content[0].text.startswith("PASS (1/1 seeds)")
    assert seen and seen == sorted(seen) and seen[-1] == 1.0


async def test_every_verdict_comes_through(client):
    cases = {
        "fail": VECTOR_ADD_CANDIDATE.replace("x + y, mask=mask", "x - y, mask=mask"),
        "rejected": candidate_with("return x + y"),
        "runtime_error": candidate_with("raise ValueError('boom')"),
        "compile_error": "import nonexistent_module\n" + VECTOR_ADD_CANDIDATE,
    }
    for verdict, candidate in cases.items():
        data = structured(
            await client.call_tool("run_accuracy", {"reference": VECTOR_ADD_REFERENCE, "candidate": candidate, **FAST})
        )
        assert data["verdict"] == verdict, data["summary"]


async def test_compile_kernel_and_resources(client):
    data = structured(
        await client.call_tool(
            "compile_kernel", {"candidate": VECTOR_ADD_CANDIDATE, "reference": VECTOR_ADD_REFERENCE, "backend": "cpu"}
        )
    )
    assert data["ok"] and data["kernels"][0]["name"] == "add_kernel"
    thresholds = json.loads((await client.read_resource("kernel-eval://thresholds")).contents[0].text)
    assert thresholds["three_dim"]["dtypes"]["float16"]["precision"] == 2**-10
    run = structured(
        await client.call_tool(
            "run_accuracy", {"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE, **FAST}
        )
    )
    stored = json.loads((await client.read_resource(f"kernel-eval://runs/{run['run_id']}/result")).contents[0].text)
    assert stored["run_id"] == run["run_id"] and stored["verdict"] == "pass"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE, "bogus": 1}, "bogus: unknown field"),
        ({"reference": VECTOR_ADD_REFERENCE}, "candidate: required"),
        ({"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE, "num_seeds": "many"}, "num_seeds"),
        ({"reference": VECTOR_ADD_REFERENCE, "candidate": str(ROOT / "no_such_file.py")}, "no such file"),
        ({"reference": VECTOR_ADD_REFERENCE, "candidate": "/no/such/file.py"}, "not readable by this server"),
        ({"reference": VECTOR_ADD_REFERENCE, "candidate": str(EXAMPLE)}, "is a directory, not a .py file"),
        ({"reference": VECTOR_ADD_REFERENCE, "candidate": str(ROOT / "README.md")}, "is not a .py file"),
        (
            {"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE, "determinism": "always"},
            "determinism",
        ),
        ({"reference": VECTOR_ADD_REFERENCE, "candidate": "   "}, "candidate is empty"),
        ({"reference": VECTOR_ADD_REFERENCE, "candidate": "#" * (5 << 20)}, "exceed"),
        (
            {"reference": "def broken(:", "candidate": VECTOR_ADD_CANDIDATE, "backend": "cpu"},
            "reference has a syntax error",
        ),
    ],
)
async def test_bad_input_is_a_clear_error_and_the_server_keeps_serving(client, arguments, message):
    result = await client.call_tool("run_accuracy", arguments)
    text = result.content[0].text
    assert result.is_error and message in text and "Traceback" not in text, text
    assert (await client.list_tools()).tools  # still serving


async def test_unknown_run_id_resource_is_an_error(client):
    with pytest.raises(Exception, match="unknown run_id"):
        await client.read_resource("kernel-eval://runs/r-20200101-000000-abcdef/result")
    assert (await client.list_tools()).tools


async def test_cancellation_kills_the_job_and_frees_the_worker(client):
    from sandbox.pool import Pool

    with anyio.move_on_after(2.0):
        await client.call_tool(
            "run_accuracy",
            {
                "reference": VECTOR_ADD_REFERENCE,
                "timeout_s": 300,
                "candidate": candidate_with("while True:\n    pass"),
                **FAST,
            },
        )
    pool = Pool.get("cpu")
    deadline = time.monotonic() + 10
    while pool._pending and time.monotonic() < deadline:
        await anyio.sleep(0.05)
    assert not pool._pending  # the looping job was killed, not left running
    data = structured(
        await client.call_tool(
            "run_accuracy", {"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE, **FAST}
        )
    )
    assert data["verdict"] == "pass"


async def test_tools_list_answers_while_jobs_run_and_eight_concurrent_calls_complete(client):
    results = []

    async def one(i):
        scale = 1.0 + i
        candidate = (
            VECTOR_ADD_CANDIDATE
            if i % 2 == 0
            else VECTOR_ADD_CANDIDATE.replace("x + y, mask", f"x + y * {scale}, mask")
        )
        results.append(
            (
                i,
                structured(
                    await client.call_tool(
                        "run_accuracy", {"reference": VECTOR_ADD_REFERENCE, "candidate": candidate, **FAST}
                    )
                ),
            )
        )

    async with anyio.create_task_group() as tg:
        for i in range(8):
            tg.start_soon(one, i)
        await anyio.sleep(0.2)
        start = time.monotonic()
        assert (await client.list_tools()).tools
        assert time.monotonic() - start < 2.0
    assert sorted(i for i, _ in results) == list(range(8))
    for i, data in results:
        assert data["verdict"] == ("pass" if i % 2 == 0 else "fail"), (i, data["summary"])
    assert len({data["run_id"] for _, data in results}) == 8


# --- over real transports ------------------------------------------------------------------------


def _server_env():
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


async def test_stdio_subprocess():
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcp_server"], env=_server_env(), cwd=str(ROOT))
    async with Client(params, mode="legacy") as c:
        assert {t.name for t in (await c.list_tools()).tools} >= {"run_accuracy", "compile_kernel"}
        data = structured(
            await c.call_tool(
                "run_accuracy", {"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE, **FAST}
            )
        )
        assert data["verdict"] == "pass"


async def test_stdio_server_from_a_directory_with_its_own_tools_py(tmp_path):
    """`python -m mcp_server` puts the working directory on sys.path first: a user's tools.py there
    must neither shadow the server's packages nor run in the server."""
    (tmp_path / "tools.py").write_text("raise SystemExit('the user tools.py ran in the server')\n")
    (tmp_path / "sandbox.py").write_text("raise SystemExit('the user sandbox.py ran in the server')\n")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "mcp_server"], env=_server_env(), cwd=str(tmp_path)
    )
    async with Client(params, mode="legacy") as c:
        data = structured(
            await c.call_tool(
                "run_accuracy", {"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE, **FAST}
            )
        )
        assert data["verdict"] == "pass"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server(request, tmp_path):
    """A loopback HTTP server in its own home: (url, port, token); the token it generated there, or
    None when the test asks for --no-token (param)."""
    no_token = getattr(request, "param", False)
    port = _free_port()
    env = {k: v for k, v in _server_env().items() if k != "KERNEL_EVAL_TOKEN"} | {"KERNEL_EVAL_HOME": str(tmp_path)}
    argv = ["serve", "--transport", "http", "--port", str(port)] + (["--no-token"] if no_token else [])
    proc = subprocess.Popen(
        [sys.executable, "-m", "tools.cli", *argv],
        env=env,
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.2)
    token_file = tmp_path / "http-token"
    yield f"http://127.0.0.1:{port}/mcp", port, None if no_token else token_file.read_text().strip()
    proc.terminate()
    proc.wait(30)


async def test_streamable_http_needs_the_token_it_generated_even_on_loopback(http_server):
    """Every local user reaches a loopback port: without a token of its own the server refuses them."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    url, port, token = http_server
    assert token
    with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the 401 in its own error types
        async with Client(url) as c:
            await c.list_tools()
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
        async with Client(streamable_http_client(url, http_client=http)) as c:
            data = structured(
                await c.call_tool(
                    "run_accuracy", {"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE, **FAST}
                )
            )
            assert data["verdict"] == "pass"
    assert _listening_addresses(port) == {"127.0.0.1"}  # loopback unless told otherwise


def _listening_addresses(port: int) -> set[str]:
    """IPv4 addresses listening on `port`, from /proc/net/tcp (state 0A = LISTEN)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        ip_hex, port_hex = local.split(":")
        if state == "0A" and int(port_hex, 16) == port:
            found.add(".".join(str(b) for b in reversed(bytes.fromhex(ip_hex))))
    return found


# --- the MCP Inspector CLI ------------------------------------------------------------------------

needs_inspector = pytest.mark.skipif(
    not (INSPECTOR / "node_modules" / ".bin" / "mcp-inspector").exists() or shutil.which("npx") is None,
    reason="MCP Inspector not installed (scripts/test.sh installs it into .mcp-inspector with npm)",
)


def inspector(*args) -> dict:
    done = subprocess.run(
        ["npx", "--offline", "mcp-inspector", "--cli", *args],
        cwd=str(INSPECTOR),
        env=_server_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _inspector_call_args():
    return [
        "--method",
        "tools/call",
        "--tool-name",
        "run_accuracy",
        "--tool-arg",
        f"reference={EXAMPLE / 'reference.py'}",
        "--tool-arg",
        f"candidate={EXAMPLE / 'candidate.py'}",
        "--tool-arg",
        "backend=cpu",
        "--tool-arg",
        "num_seeds=1",
    ]


@needs_inspector
async def test_inspector_over_stdio():
    server = [sys.executable, "-m", "mcp_server", "--root", str(ROOT)]  # it runs in the inspector's directory
    listed = inspector(*server, "--method", "tools/list")
    assert {t["name"] for t in listed["tools"]} >= {"run_accuracy", "compile_kernel"}
    called = inspector(*server, *_inspector_call_args())
    assert called["structuredContent"]["verdict"] == "pass" and not called.get("isError")


@needs_inspector
@pytest.mark.parametrize("http_server", [True], indirect=True, ids=["no-token"])  # inspector 0.15 sends no header
async def test_inspector_over_http(http_server):
    url, _, _ = http_server
    listed = inspector(url, "--transport", "http", "--method", "tools/list")
    assert {t["name"] for t in listed["tools"]} >= {"run_accuracy", "compile_kernel"}
    called = inspector(url, "--transport", "http", *_inspector_call_args())
    assert called["structuredContent"]["verdict"] == "pass"


async def test_explain_failure_returns_diagnosis_and_heatmap_image_then_suggest_fix_verifies(client):
    import base64

    bad = VECTOR_ADD_CANDIDATE.replace("(triton.cdiv(n, 256),)", "(n // 256,)")
    run = structured(
        await client.call_tool("run_accuracy", {"reference": VECTOR_ADD_REFERENCE, "candidate": bad, **FAST})
    )
    assert run["verdict"] == "fail"
    explained = await client.call_tool("explain_failure", {"run_id": run["run_id"]})
    data = structured(explained)
    assert data["diagnoses"][0]["pattern"] == "unwritten_output" and explained.content[0].text.startswith(
        "unwritten_output"
    )
    images = [c for c in explained.content if c.type == "image"]
    assert images and images[0].mime_type == "image/png" and base64.b64decode(images[0].data)[:4] == b"\x89PNG"
    resource = await client.read_resource(data["heatmap"])
    assert base64.b64decode(resource.contents[0].blob)[:4] == b"\x89PNG"
    fixed = structured(await client.call_tool("suggest_fix", {"run_id": run["run_id"], "verify": True}))
    assert fixed["fixes"][0]["fix"] == "boundary_mask" and fixed["fixes"][0]["verified"] is True
    assert "triton.cdiv" in fixed["fixes"][0]["patch"]


async def test_explain_and_fix_on_unknown_runs_are_clear_errors(client):
    for tool in ("explain_failure", "suggest_fix"):
        result = await client.call_tool(tool, {"run_id": "r-20200101-000000-abcdef"})
        assert result.is_error and "unknown run_id" in result.content[0].text
    missing = await client.call_tool("suggest_fix", {})
    assert missing.is_error and "run_id: required" in missing.content[0].text


def test_mcp_is_the_exact_version_the_adapter_was_tested_with():
    """registration.py replaces a non-public part of the SDK's tools: an upgrade must be re-tested."""
    from importlib.metadata import version

    from mcp_server.registration import TESTED_MCP_VERSION

    assert version("mcp") == TESTED_MCP_VERSION, "re-test mcp_server/registration.py, then move the pin"
    assert f'"mcp=={TESTED_MCP_VERSION}"' in (ROOT / "pyproject.toml").read_text()


async def test_an_unexpected_crash_gives_the_client_an_incident_id_not_the_text(caplog):
    from mcp.server.mcpserver import MCPServer

    from mcp_server.app import tool_specs
    from mcp_server.registration import ServeContext, make_tool

    spec = next(s for s in tool_specs() if s.name == "explain_failure")

    def boom(request, progress, cancel):
        raise RuntimeError("/secret/server/path exploded")

    spec.run = boom
    server = MCPServer("t", tools=[make_tool(spec, ServeContext(anyio.CapacityLimiter(1), (ROOT,)))])
    async with Client(server, mode="legacy") as c:
        result = await c.call_tool("explain_failure", {"run_id": "r-20200101-000000-abcdef"})
    text = result.content[0].text
    assert result.is_error and "incident" in text and "/secret" not in text and "RuntimeError" not in text
    incident = text.split("incident ")[1].split(",")[0]
    assert any(incident in r.getMessage() and r.exc_info for r in caplog.records)


async def test_mutate_is_a_tool_with_progress(client):
    seen = []

    async def progress(value, total, message):
        seen.append(value)

    tools = {t.name: t for t in (await client.list_tools()).tools}
    result = await client.call_tool(
        "mutate",
        {
            "reference": VECTOR_ADD_REFERENCE,
            "candidate": VECTOR_ADD_CANDIDATE,
            "backend": "cpu",
            "num_seeds": 1,
            "operators": ["drop_load_mask"],
            "max_mutants": 2,
        },
        progress_callback=progress,
    )
    data = structured(result)
    jsonschema.validate(data, tools["mutate"].output_schema)
    assert data["mutants"] and 0.0 <= data["mutation_score"] <= 1.0
    assert result.content[0].text.splitlines()[0] == data["summary"] and seen
