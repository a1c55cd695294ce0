"""The HTTP server as an attacker and a remote client see it: real servers on loopback, raw requests.

DNS rebinding (a page on evil.example whose name now resolves to 127.0.0.1) sends its own Host and
Origin: refused under any bind address. A non-loopback bind needs a token; the SDK client with the
token works. A client that drops a tools/call frees the job's sandbox slot at once.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client

from mcp_server.http import HttpSecurity, ServeConfigError, is_loopback_bind
from sandbox.pool import default_slots
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "test-token-0123456789abcdef"
FAST = {"backend": "cpu", "num_seeds": 1, "determinism_check": False}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(host: str, token: str | None, *extra: str):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "KERNEL_EVAL_TOKEN"} | {"PYTHONUNBUFFERED": "1"}
    if token:
        env["KERNEL_EVAL_TOKEN"] = token
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_server", "--transport", "http", "--host", host, "--port", str(port), *extra],
        env=env,
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, port
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"server did not start: {proc.stderr.read().decode()[-2000:]}")


@pytest.fixture
def server(request):
    host, token, *extra = request.param
    proc, port = _start(host, token, *extra)
    yield port
    proc.terminate()
    proc.wait(30)


def post(port: int, body: dict, headers: dict | None = None, read: bool = True):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    conn.request("POST", "/mcp", json.dumps(body), base | (headers or {}))
    response = conn.getresponse()
    if not read:
        return conn, response
    data = response.read()
    conn.close()
    return response.status, response.headers, data


REBINDING = [
    {"Host": "evil.example"},
    {"Host": "evil.example:8765", "Origin": "http://evil.example:8765"},
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
]


@pytest.mark.parametrize("server", [("127.1", None), ("0.0.0.0", TOKEN)], indirect=True, ids=["127.1", "0.0.0.0"])
@pytest.mark.parametrize("headers", REBINDING)
def test_dns_rebinding_is_refused_under_any_bind(server, headers):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    status, _, body = post(server, INIT, auth | headers)
    assert status in (403, 421), (status, body)
    assert status == (421 if "Host" in headers else 403)


@pytest.mark.parametrize("server", [("127.1", None, "--no-token")], indirect=True)  # Host/Origin alone
def test_loopback_host_and_origin_spellings_are_served(server):
    for headers in (
        {"Host": f"127.1:{server}"},
        {"Host": f"localhost:{server}", "Origin": f"http://localhost:{server}"},
        {"Host": f"127.0.0.1:{server}", "Origin": "http://127.0.0.1:3000"},
    ):
        status, _, body = post(server, INIT, headers)
        assert status == 200, (headers, status, body)


@pytest.mark.parametrize(
    "server",
    [("0.0.0.0", TOKEN, "--allowed-host", "kernels.lan", "--allowed-origin", "https://ide.example")],
    indirect=True,
)
def test_token_is_required_and_allowed_names_widen(server):
    assert post(server, INIT)[0] == 401
    assert post(server, INIT, {"Authorization": "Bearer wrong-token-0123456789"})[0] == 401
    assert post(server, INIT, {"Authorization": TOKEN})[0] == 401  # no scheme
    good = {"Authorization": f"Bearer {TOKEN}"}
    assert post(server, INIT, good | {"Host": "kernels.lan:1234", "Origin": "https://ide.example"})[0] == 200
    assert post(server, INIT, good | {"Host": "other.lan"})[0] == 421


@pytest.mark.parametrize("server", [("0.0.0.0", TOKEN)], indirect=True)
def test_real_sdk_client_with_the_token(server):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=120) as http:
            async with Client(streamable_http_client(f"http://127.0.0.1:{server}/mcp", http_client=http)) as c:
                result = await c.call_tool(
                    "run_accuracy", {"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE, **FAST}
                )
                assert not result.is_error, result.content[0].text
                return result.structured_content["verdict"]

    assert anyio.run(main) == "pass"


def test_a_non_loopback_bind_without_a_token_refuses_to_start():
    env = {k: v for k, v in os.environ.items() if k != "KERNEL_EVAL_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "mcp_server", "--transport", "http", "--host", "0.0.0.0", "--port", str(_free_port())],
        env=env,
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "KERNEL_EVAL_TOKEN" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_port_in_use_is_a_clear_error_and_the_banner_says_where_and_what_limits():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "mcp_server", "--transport", "http", "--port", str(port)],
            cwd=str(ROOT),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2 and f"127.0.0.1:{port} is in use" in done.stderr, done.stderr
    assert "--port" in done.stderr and "Traceback" not in done.stderr and "Errno" not in done.stderr, done.stderr
    proc, port = _start("127.0.0.1", TOKEN, "--max-memory-mb", "3000", "--max-timeout-s", "30")
    proc.terminate()
    _, stderr = proc.communicate(timeout=30)
    assert f"serving MCP at http://127.0.0.1:{port}/mcp; each job at most 3000 MiB and 30 s" in stderr.decode()


def test_loopback_is_recognised_by_address():
    assert all(is_loopback_bind(h) for h in ("127.0.0.1", "127.1", "127.0.0.2", "::1", "localhost", "::ffff:127.0.0.1"))
    assert not any(is_loopback_bind(h) for h in ("0.0.0.0", "::", "10.0.0.1"))
    with pytest.raises(ServeConfigError, match="KERNEL_EVAL_TOKEN"):
        HttpSecurity.configure("0.0.0.0", None, [], [])
    security = HttpSecurity.configure("10.1.2.3", _token_file(), [], [])
    assert (
        security.host_allowed("10.1.2.3:8765")
        and security.host_allowed("[::1]:80")
        and not security.host_allowed("10.1.2.4")
    )
    assert not security.host_allowed("127.0.0.1@evil.example") and not security.host_allowed("")


def test_an_unreadable_token_file_is_a_clear_error(tmp_path):
    binary = tmp_path / "token"
    binary.write_bytes(b"\xff\xfe" * 20)
    with pytest.raises(ServeConfigError, match="not UTF-8 text"):
        HttpSecurity.configure("10.1.2.3", str(binary), [], [])
    with pytest.raises(ServeConfigError, match="cannot read it"):
        HttpSecurity.configure("10.1.2.3", str(tmp_path / "missing"), [], [])


def _token_file() -> str:
    import tempfile

    fd, path = tempfile.mkstemp()
    os.write(fd, TOKEN.encode() + b"\n")
    os.close(fd)
    return path


# --- disconnects --------------------------------------------------------------------------------------


def _session(port: int) -> dict:
    status, headers, _ = post(port, INIT)
    assert status == 200
    session = {"Mcp-Session-Id": headers["mcp-session-id"], "MCP-Protocol-Version": "2025-06-18"}
    assert post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)[0] == 202
    return session


def _call(port: int, session: dict, call_id: int, arguments: dict):
    body = {
        "jsonrpc": "2.0",
        "id": call_id,
        "method": "tools/call",
        "params": {"name": "run_accuracy", "arguments": arguments},
    }
    return post(port, body, session, read=False)


def _result(response) -> dict:
    for line in response.read().decode().splitlines():
        if line.startswith("data:") and '"result"' in line:
            return json.loads(line[5:])["result"]
    raise AssertionError("no result in the response")


@pytest.mark.parametrize("server", [("127.0.0.1", None, "--no-token")], indirect=True)
def test_a_dropped_call_frees_its_slot_within_a_second(server):
    session = _session(server)
    warm = {"reference": VECTOR_ADD_REFERENCE, "candidate": VECTOR_ADD_CANDIDATE, **FAST}
    conn, response = _call(server, session, 2, warm)
    assert _result(response)["structuredContent"]["verdict"] == "pass"  # the zygote and the golden are warm
    conn.close()
    looping = {
        "reference": VECTOR_ADD_REFERENCE,
        "candidate": candidate_with("while True:\n    pass"),
        "timeout_s": 300,
        **FAST,
    }
    dropped = [_call(server, session, 10 + i, looping) for i in range(default_slots())]  # every sandbox slot busy
    time.sleep(2.0)
    for conn, _ in dropped:
        conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()
    dropped_at = time.monotonic()
    conn, response = _call(server, session, 99, warm)
    result = _result(response)["structuredContent"]
    conn.close()
    assert result["verdict"] == "pass"
    assert result["timings"]["queued_s"] < 2.0, result["timings"]  # the looping jobs were killed, not waited for
    assert time.monotonic() - dropped_at < 30


@pytest.mark.parametrize("server", [("127.0.0.1", None, "--no-token")], indirect=True)
def test_one_clients_cancellation_never_cancels_anothers_call(server):
    """Clients without a session id number their requests alike: a drop is tied to its own HTTP request."""
    url = f"http://127.0.0.1:{server}/mcp"
    looping = {
        "reference": VECTOR_ADD_REFERENCE,
        "candidate": candidate_with("while True:\n    pass"),
        "timeout_s": 300,
        **FAST,
    }
    slow = {
        "reference": VECTOR_ADD_REFERENCE,
        "candidate": candidate_with("import time\ntime.sleep(3)\nreturn triton_add(x, y)"),
        **FAST,
    }
    verdicts = []

    async def dropping():
        async with Client(url) as first:
            with anyio.move_on_after(2.5):  # abandons its call: the HTTP request is closed
                await first.call_tool("run_accuracy", looping)

    async def waiting():
        await anyio.sleep(1.0)
        async with Client(url) as second:  # its first call has the first client's request id
            result = await second.call_tool("run_accuracy", slow)
        verdicts.append(result.content[0].text if result.is_error else result.structured_content["verdict"])

    async def main():
        async with Client(url) as warm:  # zygote and golden ready, so the timing above holds
            await warm.call_tool("run_accuracy", {**slow, "candidate": VECTOR_ADD_CANDIDATE})
        async with anyio.create_task_group() as tg:
            tg.start_soon(dropping)
            tg.start_soon(waiting)

    anyio.run(main)
    assert verdicts == ["pass"], verdicts


def test_a_loopback_server_without_a_token_generates_one_only_its_owner_reads(tmp_path):
    """Any local user reaches a loopback port: the default is a token, made once into the home."""
    security = HttpSecurity.configure("127.0.0.1", None, [], [], home=tmp_path)
    path = tmp_path / "http-token"
    assert security.token and path.read_text().strip() == security.token
    assert os.stat(path).st_mode & 0o777 == 0o600 and str(path) in security.note
    assert HttpSecurity.configure("127.0.0.1", None, [], [], home=tmp_path).token == security.token  # kept
    os.chmod(path, 0o644)  # readable by others: no longer a secret, refused with what to do
    with pytest.raises(ServeConfigError, match="mode 0600"):
        HttpSecurity.configure("127.0.0.1", None, [], [], home=tmp_path)
    opted_out = HttpSecurity.configure("127.0.0.1", None, [], [], home=tmp_path, no_token=True)
    assert opted_out.token is None and "every local user" in opted_out.note
    with pytest.raises(ServeConfigError, match="without authentication"):
        HttpSecurity.configure("0.0.0.0", None, [], [], home=tmp_path, no_token=True)


@pytest.mark.parametrize("server", [("127.0.0.1", None)], indirect=True)
def test_the_default_loopback_server_refuses_a_request_without_the_token(server):
    assert post(server, INIT)[0] == 401
