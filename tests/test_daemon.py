"""The CLI's warm daemon, with real processes: a daemon the CLI starts, concurrent calls, the same
output as in-process for good and bad arguments, a fast path that imports neither pydantic nor torch,
a stale socket, idle exit, Ctrl-C, the fallback; bad requests and crashes on an in-process daemon.
Every daemon started here has a short idle timeout and is stopped by its fixture."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import is_root
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with
from tools.cli import forward
from tools.cli.daemon import client, connection
from tools.cli.daemon.location import (
    DaemonPaths,
    code_version,
    daemon_paths,
    environment_fingerprint,
    peer_credentials,
    same_user,
)
from tools.cli.daemon.protocol import CLIENT_MESSAGE, DAEMON_MESSAGE, CommandMessage, StatusMessage
from tools.cli.daemon.server import Daemon

REPO = Path(__file__).resolve().parent.parent
IDLE_S = "60"  # none outlives the module by more than this, even if a teardown failed


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "KERNEL_EVAL_NO_DAEMON"}
    env.update(KERNEL_EVAL_HOME=str(home), KERNEL_EVAL_DAEMON_IDLE_S=IDLE_S, PYTHONPATH=str(REPO), **extra)
    return env


def _cli(args: list[str], env: dict, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tools.cli", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def _status(env: dict, cwd: Path) -> dict:
    return json.loads(_cli(["serve", "--status"], env, cwd, timeout=60).stdout)


def _serving(env: dict, cwd: Path) -> dict:
    """The status of the module's daemon, started again where it left for idleness (IDLE_S: on a loaded machine
    the tests between two that use it can take longer)."""
    status = _status(env, cwd)
    if not status["running"]:
        started = _cli(["serve", "--daemon"], env, cwd, timeout=120)
        assert started.returncode == 0, started.stderr
        status = _status(env, cwd)
    assert status["running"], status
    return status


def _stop_and_reap(env: dict, cwd: Path) -> None:
    """Stop the daemon; if it will not go, kill it: no test leaves one running."""
    status = _status(env, cwd)
    _cli(["serve", "--stop"], env, cwd, timeout=60)
    pid = status.get("pid")
    if pid:
        deadline = time.monotonic() + 20
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (our own child, not yet reaped) is gone for our purposes
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@pytest.fixture(scope="module")
def served():
    """A home and a working directory with task files; its daemon is started by the first CLI call."""
    home = Path(tempfile.mkdtemp(prefix="ke-daemon-"))
    work = home / "work"
    work.mkdir()
    (work / "reference.py").write_text(VECTOR_ADD_REFERENCE)
    (work / "candidate.py").write_text(VECTOR_ADD_CANDIDATE)
    env = _env(home)
    yield env, work
    _stop_and_reap(env, work)
    shutil.rmtree(home, ignore_errors=True)


RUN = ["run", "--reference", "reference.py", "--candidate", "candidate.py", "--backend", "cpu", "--seeds", "5"]


def _comparable(result: dict) -> dict:
    """Without what differs from call to call: ids, timings, the pool slot's uid and its memory limits
    (they add the zygote's own size, which differs between the daemon and this process)."""
    result = dict(result, run_id=None, timings=None)
    varying = ("unprivileged_uid", "rlimit_address_space", "cgroup", "memory_limit")
    result["isolation"] = {k: v for k, v in result["isolation"].items() if k not in varying}
    result["seeds"] = [dict(seed, forward_s=None) for seed in result["seeds"]]
    return result


def _in_process(args: list[str], work: Path, capsys, monkeypatch) -> tuple[int, str, str]:
    """The same command in this process (KERNEL_EVAL_NO_DAEMON=1 here: see conftest)."""
    from tools.cli import main

    monkeypatch.chdir(work)
    capsys.readouterr()
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_cli_starts_a_daemon_then_reuses_it_and_prints_what_in_process_prints(served, capsys, monkeypatch):
    env, work = served
    first = _cli([*RUN, "--json", "--verbose"], env, work)
    assert first.returncode == 0, first.stderr
    assert "kernel-eval: via the daemon (started" in first.stderr
    second = _cli([*RUN, "--json", "--verbose"], env, work)
    assert second.returncode == 0 and "kernel-eval: via the daemon (reused" in second.stderr
    assert "%] " in second.stderr  # progress lines reach the CLI's stderr
    code, out, err = _in_process([*RUN, "--json", "--verbose"], work, capsys, monkeypatch)
    assert code == 0 and "kernel-eval: in-process (KERNEL_EVAL_NO_DAEMON=1)" in err
    assert _comparable(json.loads(second.stdout)) == _comparable(json.loads(out))

    compile_args = ["compile", "--reference", "reference.py", "--candidate", "candidate.py", "--backend", "cpu"]
    via_daemon = _cli(compile_args, env, work)
    assert (via_daemon.returncode, via_daemon.stdout) == _in_process(compile_args, work, capsys, monkeypatch)[:2]
    missing = ["compile", "--candidate", "kernels/mine.py", "--backend", "cpu"]
    via_daemon = _cli(missing, env, work)
    assert (via_daemon.returncode, "", via_daemon.stderr) == _in_process(missing, work, capsys, monkeypatch)
    assert via_daemon.returncode == 2 and f"resolve against {work}" in via_daemon.stderr


HEAVY = ("pydantic", "pydantic_core", "torch", "numpy", "triton")


def _imported(importtime_stderr: str) -> set[str]:
    """The modules a `python -X importtime` run imported, from what it wrote on stderr."""
    return {
        line.rsplit("|", 1)[1].strip() for line in importtime_stderr.splitlines() if line.startswith("import time:")
    }


def test_a_warm_command_imports_neither_pydantic_nor_torch(served):
    env, work = served
    assert _cli(["serve", "--daemon"], env, work).returncode == 0
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tools.cli", *RUN, "--json"],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["verdict"] == "pass"
    imported = _imported(done.stderr)
    assert "tools.cli.forward" in imported  # the measurement sees the CLI's modules
    heavy = {m for m in imported if m.split(".")[0] in HEAVY or m.startswith(("tools.models", "tools.cli.commands"))}
    assert not heavy, f"the fast path imported {sorted(heavy)}"


#: Good and bad arguments of every served command: the daemon prints what an in-process command prints.
SAME_EITHER_WAY = [
    ["compile", "--reference", "reference.py", "--candidate", "candidate.py", "--backend", "cpu"],
    ["run", "--reference", "reference.py", "--candidate", "candidate.py", "--bogus-flag"],
    ["run", "--reference", "reference.py", "--candidate", "candidate.py", "--seeds", "1,,2"],
    ["run", "--reference", "reference.py", "--candidate", "candidate.py", "--tolerance", "fast"],
    ["compile", "--backend", "cpu"],
    ["explain", "--run", "r-20200101-000000-abcdef"],
    ["fix", "--run", "r-20200101-000000-abcdef", "--verify"],
    ["mutate", "--list-operators"],
    ["run", "--help"],
    ["fix"],
]


def test_good_and_bad_arguments_print_the_same_through_the_daemon_as_in_process(served, capsys, monkeypatch):
    env, work = served
    env = dict(env, COLUMNS="97")  # usage and help are wrapped to the CLI's terminal, not the daemon's
    monkeypatch.setenv("COLUMNS", "97")
    assert _cli(["serve", "--daemon"], env, work).returncode == 0
    before = _status(env, work)["calls_served"]
    for args in SAME_EITHER_WAY:
        via_daemon = _cli(args, env, work)
        assert (via_daemon.returncode, via_daemon.stdout, via_daemon.stderr) == _in_process(
            args, work, capsys, monkeypatch
        ), args
    served_there = [a for a in SAME_EITHER_WAY if "--help" not in a]  # help runs in-process (no daemon needed)
    assert _status(env, work)["calls_served"] == before + len(served_there)  # each other was the daemon's
    for bad in SAME_EITHER_WAY[1:5]:  # and the same as a separate `--no-daemon` process prints
        via_daemon, local = _cli(bad, env, work), _cli([*bad, "--no-daemon"], env, work)
        assert via_daemon.returncode == 2 and (via_daemon.stdout, via_daemon.stderr) == (local.stdout, local.stderr)


def test_no_daemon_abbreviated_and_no_usable_daemon_run_in_process(served, tmp_path):
    env, work = served
    unknown = ["explain", "--run", "r-20200101-000000-abcdef", "--verbose"]
    before = _status(env, work)["calls_served"]
    abbreviated = _cli([*unknown, "--no-d"], env, work)
    assert abbreviated.returncode == 2 and "kernel-eval: in-process (--no-daemon)" in abbreviated.stderr
    assert _status(env, work)["calls_served"] == before
    blocked = tmp_path / "home"
    blocked.mkdir()
    (blocked / "daemon").write_text("not a directory")
    fallback = _cli(unknown, _env(blocked), work)
    assert fallback.returncode == 2, fallback.stderr
    assert "kernel-eval: in-process (no daemon: cannot make the daemon directory" in fallback.stderr


def test_help_runs_in_process_and_starts_no_daemon(tmp_path):
    home = tmp_path / "home"
    done = _cli(["run", "--help"], _env(home), tmp_path, timeout=120)
    assert done.returncode == 0 and "--reference" in done.stdout, done.stderr
    assert not (home / "daemon").exists() or not any((home / "daemon").iterdir()), "help started a daemon"


def test_two_cli_calls_are_served_at_once(served):
    env, work = served
    (work / "slow.py").write_text(candidate_with("import time\ntime.sleep(3)\nreturn triton_add(x, y)"))
    args = ["run", "--reference", "reference.py", "--candidate", "slow.py", "--backend", "cpu", "--seeds", "5"]
    args += ["--determinism", "off", "--json"]
    calls = [
        subprocess.Popen(
            [sys.executable, "-m", "tools.cli", *args], env=env, cwd=work, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [call.communicate(timeout=240)[0] for call in calls]
    assert [call.returncode for call in calls] == [0, 0]
    assert all(json.loads(out)["verdict"] == "pass" for out in outputs)
    assert _status(env, work)["peak_active_calls"] >= 2


def test_a_reader_that_goes_away_gets_the_commands_exit_status_not_a_daemon_crash(served):
    env, work = served
    call = subprocess.Popen(
        [sys.executable, "-m", "tools.cli", *RUN], env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert call.stdout is not None and call.stderr is not None
    call.stdout.close()  # `kernel-eval run ... | head -0`: nobody reads what it prints
    err = call.stderr.read().decode()
    assert call.wait(timeout=240) == 0, err  # the verdict's status (pass), as in-process
    assert "closed the connection" not in err and "Traceback" not in err, err


def test_stop_stops_every_daemon_of_the_home_whatever_its_path(tmp_path):
    """A venv activated or called by path gives two PATHs, hence two daemons: --stop ends both."""
    home = tmp_path / "home"
    env = _env(home)
    other = _env(home, PATH=f"{tmp_path}:{env['PATH']}")
    started = [_cli(["serve", "--daemon"], e, tmp_path, timeout=120) for e in (env, other)]
    pids = [json.loads(done.stdout)["pid"] for done in started]
    try:
        assert len(set(pids)) == 2, [done.stderr for done in started]
        done = _cli(["serve", "--stop"], env, tmp_path, timeout=120)
        assert done.returncode == 0 and "stopped 2 daemon(s)" in done.stdout, done.stdout + done.stderr
        _wait_for(lambda: not any(_alive(pid) for pid in pids), 30, "both daemons to exit")
        assert "no daemon was running" in _cli(["serve", "--stop"], env, tmp_path, timeout=60).stdout
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_ctrl_c_in_the_cli_cancels_its_call_in_the_daemon(served):
    env, work = served
    (work / "hang.py").write_text(candidate_with("import time\ntime.sleep(600)\nreturn triton_add(x, y)"))
    before = _serving(env, work)
    args = ["run", "--reference", "reference.py", "--candidate", "hang.py", "--backend", "cpu", "--seeds", "5"]
    call = subprocess.Popen(
        [sys.executable, "-m", "tools.cli", *args],
        env=env,
        cwd=work,
        stderr=subprocess.PIPE,
        text=True,
        # as in a terminal: a suite started in the background (`pytest &` from a script) ignores SIGINT, and its
        # children inherit that, so the CLI would never see the Ctrl-C (the cause of this test's two failures)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        _wait_for(lambda: _status(env, work)["active_calls"] == 1, 120, "the call to start in the daemon")
        time.sleep(1.0)  # its sandbox job is under way
        call.send_signal(signal.SIGINT)
        said = call.communicate(timeout=30)[1]  # stderr read meanwhile
        assert call.returncode == 130 and "interrupted" in said, said
    finally:
        call.kill()
    after = _wait_for(lambda: (s := _status(env, work))["active_calls"] == 0 and s, 45, "the daemon to cancel the call")
    assert after["calls_cancelled"] == before["calls_cancelled"] + 1 and after["pid"] == before["pid"]


def test_a_stale_socket_is_detected_and_replaced(served):
    env, work = served
    status = _serving(env, work)
    os.kill(status["pid"], signal.SIGKILL)
    _wait_for(lambda: not _alive(status["pid"]), 20, "the daemon to die")
    assert Path(status["socket"]).exists()  # left behind: nobody listens on it
    assert _status(env, work)["running"] is False
    again = _cli(["serve", "--daemon"], env, work, timeout=120)  # the same connect() every command uses
    assert again.returncode == 0 and "replaced a stale socket" in again.stderr, again.stderr
    assert json.loads(again.stdout)["pid"] not in (None, status["pid"])


def test_two_clis_starting_at_once_get_one_daemon_which_exits_when_idle(tmp_path):
    home = Path(tempfile.mkdtemp(prefix="ke-idle-"))
    env = _env(home)
    try:
        starts = [
            subprocess.Popen(
                [sys.executable, "-m", "tools.cli", "serve", "--daemon", "--idle-timeout", "3"],
                env=env,
                cwd=tmp_path,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        statuses = [json.loads(start.communicate(timeout=120)[0]) for start in starts]
        assert statuses[0]["running"] and statuses[0]["pid"] == statuses[1]["pid"]
        assert statuses[0]["idle_timeout_s"] == 3
        pid, sock = statuses[0]["pid"], Path(statuses[0]["socket"])
        assert sock.parent.stat().st_mode & 0o777 == 0o700 and sock.stat().st_mode & 0o777 == 0o600
        _wait_for(lambda: not _alive(pid), 60, "the idle daemon to exit")
        assert not sock.exists()
        assert _cli(["serve", "--status"], env, tmp_path).returncode == 1
    finally:
        _stop_and_reap(env, tmp_path)
        shutil.rmtree(home, ignore_errors=True)


@pytest.mark.parametrize("how", ["default home", "home with a trailing slash"])
def test_the_daemon_starts_with_the_default_home_or_one_spelt_otherwise(tmp_path, how):
    """The CLI starts its daemon with the resolved KERNEL_EVAL_HOME set: the daemon must still take
    itself for the code version the CLI expects (it refused to start when the home was not set)."""
    cache = Path(tempfile.mkdtemp(prefix="ke-xdg-"))
    env = _env(cache / "kernel-eval")
    if how == "default home":
        del env["KERNEL_EVAL_HOME"]
        env["XDG_CACHE_HOME"] = str(cache)
    else:
        env["KERNEL_EVAL_HOME"] += "/"
    try:
        started = _cli(["serve", "--daemon"], env, tmp_path, timeout=120)
        assert started.returncode == 0, started.stderr
        status = _status(env, tmp_path)
        assert status["running"] and Path(status["socket"]).parent == cache / "kernel-eval" / "daemon"
    finally:
        _stop_and_reap(env, tmp_path)
        shutil.rmtree(cache, ignore_errors=True)


# --- an in-process daemon: protocol, errors, peers ------------------------------------------------


@contextlib.contextmanager
def _local_daemon(home: Path):
    """A Daemon in this process, whose compile_kernel crashes."""

    def crashing(request, progress, cancel):
        raise RuntimeError("boom: a bug inside the tool")

    paths = DaemonPaths(home.resolve(), "t" * 16)
    daemon = Daemon(paths, idle_timeout_s=60, functions={"compile_kernel": crashing}, warm_up=False)
    daemon.bind()
    thread = threading.Thread(target=daemon.serve, daemon=True)
    thread.start()
    try:
        yield paths
    finally:
        daemon.request_stop()
        thread.join(30)


@pytest.fixture
def local_daemon(tmp_path):
    """On a socket path too long for sun_path (reached through /proc/self/fd)."""
    home = tmp_path / ("deep-" * 12)
    home.mkdir()
    with _local_daemon(home) as paths:
        yield paths


def _raw(paths: DaemonPaths, payload: bytes) -> list[dict]:
    sock = connection.connect_running(paths)
    assert sock is not None
    with sock:
        sock.sendall(payload)
        sock.shutdown(socket.SHUT_WR) if not payload.endswith(b"\n") else None
        return [json.loads(line) for line in sock.makefile("rb")]


def _command(paths: DaemonPaths, argv: list[str], cwd: str = "/") -> list[dict]:
    message = CommandMessage(code=paths.code, home=str(paths.home), argv=argv, cwd=cwd)
    return _raw(paths, message.model_dump_json().encode() + b"\n")


def _printed(replies: list[dict], stream: str) -> str:
    return "".join(r["text"] for r in replies if r["type"] == "output" and r["stream"] == stream)


def test_bad_requests_get_clear_errors_and_the_daemon_keeps_serving(local_daemon):
    paths = local_daemon
    assert len(os.fsencode(paths.socket)) > 108  # reached through /proc/self/fd
    [reply] = _raw(paths, b"this is not json\n")
    assert reply["type"] == "failed" and reply["kind"] == "input" and reply["message"].startswith("bad request")
    [reply] = _raw(paths, b'{"type": "call", "code": "x", "home": "y", "tool": "run_accuracy", "arguments": {}}\n')
    assert reply["kind"] == "input" and "type" in reply["message"]
    [reply] = _raw(paths, StatusMessage(code="0" * 16, home=str(paths.home)).model_dump_json().encode() + b"\n")
    assert reply["kind"] == "refused" and "other code" in reply["message"]
    for argv in (["serve", "--transport", "http"], ["thresholds"], []):  # only the tools' commands run there
        [reply] = _command(paths, argv)
        assert reply["kind"] == "refused" and "serves only the commands compile, run, explain" in reply["message"]
    [reply] = _command(paths, ["compile", "--candidate", "x.py"], cwd="relative/dir")
    assert reply["kind"] == "input" and "not an absolute directory" in reply["message"]
    replies = _command(paths, ["run", "--reference", "r.py", "--seeds", "x"])
    assert [r["type"] for r in replies][0] == "accepted" and replies[-1] == {"type": "exited", "code": 2}
    assert "kernel-eval run: error:" in _printed(replies, "stderr") and _printed(replies, "stdout") == ""
    assert client.status(paths).running


def test_exited_reaches_the_cli_however_late_the_worker_sends_it(local_daemon, monkeypatch):
    """The command's thread marks itself done, then sends Exited; the connection must stay open until it
    has (it was closed as soon as the watcher saw 'done': a CI run lost Exited on a loaded machine)."""
    from tools.cli.daemon import server
    from tools.cli.daemon.protocol import Exited

    def late_exited(conn, reply):
        if isinstance(reply, Exited):
            time.sleep(3 * server.POLL_S)  # longer than the watcher's poll: it sees 'done' first
        send(conn, reply)

    send = server.send
    monkeypatch.setattr(server, "send", late_exited)
    replies = _command(local_daemon, ["run", "--reference", "r.py", "--seeds", "x"])
    assert replies[-1] == {"type": "exited", "code": 2}, replies


def test_a_crash_inside_a_call_is_a_clear_error_and_the_daemon_keeps_running(local_daemon):
    paths = local_daemon
    replies = _command(paths, ["compile", "--candidate", VECTOR_ADD_CANDIDATE, "--backend", "cpu"])
    assert replies[-1] == {"type": "exited", "code": 3}
    error = _printed(replies, "stderr")
    assert error.startswith("kernel-eval compile: error: internal error in the daemon (incident ")
    assert "keeps running" in error and "boom" not in error  # the details stay in the daemon's log
    assert client.status(paths).calls_served == 1


def test_the_fast_path_speaks_the_protocol_models():
    """forward.py writes and reads protocol.py's messages as plain JSON: the models accept what it writes."""
    paths = DaemonPaths(Path("/tmp/h"), "c" * 16)
    reached = connection.Connection(socket.socket(socket.AF_UNIX), started=True, replaced_stale=False)
    with reached.sock:
        message = CLIENT_MESSAGE.validate_python(forward.command_message(paths, ["run", "--seeds", "1"], reached))
    assert isinstance(message, CommandMessage) and message.argv == ["run", "--seeds", "1"] and message.started
    handled = {"accepted", "output", "exited", "failed"}  # the replies _run() reads
    for reply in ({"type": "accepted", "pid": 1}, {"type": "output", "stream": "stderr", "text": "x"}):
        assert DAEMON_MESSAGE.validate_python(reply).type in handled
    assert DAEMON_MESSAGE.validate_python({"type": "exited", "code": 2}).type in handled


def test_peer_credentials_name_the_connecting_user():
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with left, right:
        pid, uid, _ = peer_credentials(left)
        assert (pid, uid) == (os.getpid(), os.geteuid())
        assert same_user(left) and not same_user(left, uid=os.geteuid() + 1)


@pytest.mark.skipif(not is_root(), reason="connecting as another user needs root")
def test_another_user_is_refused_even_when_the_socket_is_reachable():
    home = Path(tempfile.mkdtemp(prefix="ke-peer-"))
    try:
        with _local_daemon(home) as paths:
            home.chmod(0o755)  # open the way, so that SO_PEERCRED is the only guard left
            paths.directory.chmod(0o755)
            paths.socket.chmod(0o666)
            # the daemon answers before reading anything: the peer check comes first
            script = (
                "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\n"
                "print(s.makefile().readline())"
            )
            python = shutil.which("python3", path="/usr/bin:/bin")  # one that user 65534 may run
            if python is None:
                pytest.skip("no system python3 for the other user")
            done = subprocess.run(
                [python, "-I", "-c", script, str(paths.socket)],
                user=65534,
                cwd="/",
                capture_output=True,
                text=True,
                timeout=30,
            )
            assert done.returncode == 0, done.stderr
            reply = json.loads(done.stdout)
            assert reply["kind"] == "refused" and "only the user" in reply["message"]
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_the_code_version_separates_configurations_but_not_the_daemon_switches():
    base = {"PATH": "/usr/bin", "KERNEL_EVAL_RUNS_MAX_BYTES": "1000"}
    assert code_version(base) == code_version({**base, "KERNEL_EVAL_NO_DAEMON": "0", "TERM": "xterm"})
    assert code_version(base) != code_version({**base, "KERNEL_EVAL_RUNS_MAX_BYTES": "2000"})
    assert code_version(base) != code_version({**base, "CUDA_VISIBLE_DEVICES": "1"})
    from sandbox.pool import PASSTHROUGH_ENV

    covered = dict(environment_fingerprint({name: "x" for name in PASSTHROUGH_ENV}))
    assert set(covered) == set(PASSTHROUGH_ENV)  # what the sandbox passes on is part of the key
    assert daemon_paths(Path("/tmp/a")).socket != daemon_paths(Path("/tmp/b")).socket


def test_an_in_process_run_keeps_a_failing_runs_tensors_for_explain(tmp_path):
    """A `--no-daemon` run returns, then its process exits: the tensors of a failing run (whose inputs
    are made once more in a thread pool) must be written before Python's thread pools shut down."""
    env = _env(tmp_path / "home")
    (tmp_path / "ref.py").write_text(VECTOR_ADD_REFERENCE)
    (tmp_path / "cand.py").write_text(candidate_with("return triton_add(x, y) * 1.5"))
    ran = _cli(["run", "--reference", "ref.py", "--candidate", "cand.py", "--no-daemon", "--json"], env, tmp_path)
    assert ran.returncode == 1, ran.stderr
    run_id = json.loads(ran.stdout)["run_id"]
    run_dir = tmp_path / "home" / "runs" / run_id
    assert (run_dir / "tensors.bin").exists(), (run_dir / "tensors.none").read_text()
