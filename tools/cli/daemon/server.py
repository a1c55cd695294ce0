"""The daemon: a long-lived local process serving the tools to CLIs over a private Unix socket.

A thread per connection; commands run concurrently (the sandbox pool has slots) in worker threads:
a CLI's argv goes through the in-process CLI's own main() (tools/cli/commands.py), whose tools are
the run(request, progress, cancel) functions the MCP tools call, and what it prints goes back to
that CLI (output.py). While a command runs, its connection is watched: a CLI that goes away (Ctrl-C,
killed) cancels it, so its sandbox job is killed and the slot freed. After `idle_timeout_s` without
calls the daemon removes its socket and exits. A bad request is answered with a Failed message and a
crash inside a command with a clear error (exit 3, an incident id in the log); the daemon keeps serving.
"""

from __future__ import annotations

import logging
import os
import secrets
import select
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ValidationError

from tools import sources
from tools.catalogue import TOOLS
from tools.cli import commands
from tools.cli.daemon import output
from tools.cli.daemon.connection import MAX_REQUEST_BYTES, LineReader, MessageTooLarge
from tools.cli.daemon.location import DaemonPaths, private_directory, same_user, socket_address
from tools.cli.daemon.protocol import (
    CLIENT_MESSAGE,
    Accepted,
    CommandMessage,
    DaemonStatus,
    Exited,
    Failed,
    Output,
    StatusMessage,
    StopMessage,
    Stopping,
    send,
)
from tools.cli.dispatch import Remote, serving
from tools.cli.forward import SERVED
from tools.errors import describe_validation_error

log = logging.getLogger(output.DAEMON_LOGGER)

DEFAULT_IDLE_TIMEOUT_S = 900.0
REQUEST_READ_TIMEOUT_S = 10.0
CANCEL_GRACE_S = 30.0  # a cancelled call's worker gets this long to unwind before it is abandoned
POLL_S = 0.2


class Daemon:
    def __init__(
        self,
        paths: DaemonPaths,
        idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
        functions: dict[str, Callable[..., BaseModel]] | None = None,
        warm_up: bool = True,
    ):
        """`functions` replaces the tools' functions by name (tests: a tool that crashes); `warm_up`
        imports the tools in the background once the socket is up."""
        self.paths = paths
        self.warm_up = warm_up
        self.idle_timeout_s = idle_timeout_s
        self._functions = dict(functions or {})
        self._listener: socket.socket | None = None
        self._socket_inode: int | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._cancels: set[threading.Event] = set()
        self.started_at = time.time()
        self.last_call = time.monotonic()
        self.active = self.peak = self.served = self.cancelled = 0

    # --- life -------------------------------------------------------------------------------------
    def bind(self) -> None:
        private_directory(self.paths.directory)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with socket_address(self.paths.socket) as address:
            listener.bind(address)
        os.chmod(self.paths.socket, 0o600)
        listener.listen(64)
        listener.settimeout(POLL_S)
        self._listener = listener
        self._socket_inode = self.paths.socket.stat().st_ino
        output.install()

    def serve(self) -> None:
        """Accept until stopped or idle; then remove the socket, cancel what runs, close the pools."""
        assert self._listener is not None, "bind() first"
        if self.warm_up:
            threading.Thread(target=self._warm_up, name="warm-up", daemon=True).start()
        try:
            while not self._stop.is_set():
                if self._idle():
                    log.info("no call for %.0f s: exiting", self.idle_timeout_s)
                    break
                try:
                    conn, _ = self._listener.accept()
                except TimeoutError:
                    continue
                with self._lock:  # a connection is activity: the idle check must not close under it
                    self.last_call = time.monotonic()
                threading.Thread(target=self._connection, args=(conn,), daemon=True).start()
        finally:
            self._shut_down()

    def _warm_up(self) -> None:
        """Import the tools (torch, triton) while no call waits, so that the first call does not pay it."""
        for tool in (e.name for e in TOOLS.values() if e.command.served):
            try:
                self._function(tool)
            except Exception:  # noqa: BLE001 - the call that needs it reports the failure
                log.exception("warm-up: cannot load %s", tool)
        try:
            from tools import warm

            warm.warm_start()
        except Exception:  # noqa: BLE001 - likewise
            log.exception("warm-up: cannot start the default backend's sandbox")

    def request_stop(self) -> None:
        self._stop.set()

    def _idle(self) -> bool:
        with self._lock:
            return self.active == 0 and time.monotonic() - self.last_call > self.idle_timeout_s

    def _shut_down(self) -> None:
        self._stop.set()
        self._remove_socket()
        with self._lock:
            cancels = list(self._cancels)
        for cancel in cancels:
            cancel.set()
        deadline = time.monotonic() + CANCEL_GRACE_S
        while time.monotonic() < deadline and self.active:
            time.sleep(0.05)
        pool = sys.modules.get("sandbox.pool")  # none was made if no tool ever loaded it
        if pool is not None:
            pool.Pool.close_all()
        output.uninstall()

    def _remove_socket(self) -> None:
        """Unlink the socket first (a CLI arriving now starts a fresh daemon), only if it is still ours."""
        if self._listener is not None:
            self._listener.close()
        try:
            if self.paths.socket.stat().st_ino == self._socket_inode:
                self.paths.socket.unlink()
        except FileNotFoundError:
            pass

    # --- connections ------------------------------------------------------------------------------
    def _connection(self, conn: socket.socket) -> None:
        with conn:
            try:
                self._serve_connection(conn)
            except OSError:  # the CLI went away while being answered
                pass
            except Exception:  # noqa: BLE001 - one connection's fault must not stop the daemon
                log.exception("connection failed")

    def _serve_connection(self, conn: socket.socket) -> None:
        conn.settimeout(REQUEST_READ_TIMEOUT_S)
        if not same_user(conn):
            send(conn, Failed(kind="refused", message="this daemon serves only the user that started it"))
            return
        try:
            line = LineReader(conn, MAX_REQUEST_BYTES).read_line()
        except (TimeoutError, MessageTooLarge) as exc:
            send(conn, Failed(kind="input", message=f"bad request: {exc or 'no request line in time'}"))
            return
        if not line:
            return
        try:
            message = CLIENT_MESSAGE.validate_json(line)
        except ValidationError as exc:
            send(conn, Failed(kind="input", message=f"bad request: {describe_validation_error(exc)}"))
            return
        if message.code != self.paths.code or message.home != str(self.paths.home):
            send(conn, Failed(kind="refused", message="this daemon serves other code or another home"))
            return
        conn.settimeout(None)
        if isinstance(message, StatusMessage):
            send(conn, self.status())
        elif isinstance(message, StopMessage):
            send(conn, Stopping(pid=os.getpid()))
            self.request_stop()
        elif isinstance(message, CommandMessage):
            self._command(conn, message)

    def status(self) -> DaemonStatus:
        with self._lock:
            return DaemonStatus(
                pid=os.getpid(),
                code=self.paths.code,
                home=str(self.paths.home),
                socket=str(self.paths.socket),
                log=str(self.paths.log),
                started_at=self.started_at,
                idle_timeout_s=self.idle_timeout_s,
                active_calls=self.active,
                peak_active_calls=self.peak,
                calls_served=self.served,
                calls_cancelled=self.cancelled,
            )

    # --- calls ------------------------------------------------------------------------------------
    def _function(self, tool: str) -> Callable[..., BaseModel]:
        if tool not in self._functions:
            self._functions[tool] = TOOLS[tool].load()
        return self._functions[tool]

    def _command(self, conn: socket.socket, message: CommandMessage) -> None:
        if not message.argv or message.argv[0] not in SERVED:
            send(conn, Failed(kind="refused", message=f"this daemon serves only the commands {', '.join(SERVED)}"))
            return
        cwd = Path(message.cwd)
        if not cwd.is_absolute() or not cwd.is_dir():
            send(conn, Failed(kind="input", message=f"bad request: cwd {message.cwd!r} is not an absolute directory"))
            return
        cancel = threading.Event()
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self._cancels.add(cancel)
        try:
            self._run(conn, message, cwd, cancel)
        finally:
            with self._lock:
                self.active -= 1
                self.served += 1
                self.cancelled += cancel.is_set()
                self._cancels.discard(cancel)
                self.last_call = time.monotonic()

    def _run(self, conn: socket.socket, message: CommandMessage, cwd: Path, cancel: threading.Event) -> None:
        """The command in a worker thread, which answers; this thread watches the connection meanwhile."""
        sending = threading.Lock()

        def say(reply: BaseModel) -> None:
            with sending:
                try:
                    send(conn, reply)
                except OSError:  # the CLI is gone: the watcher cancels
                    pass

        say(Accepted(pid=os.getpid()))
        how = "started" if message.started else "reused"
        if message.replaced_stale:
            how += " (replaced a stale socket: its daemon was gone)"
        done = threading.Event()

        def work() -> None:
            code = commands.EXIT_INTERNAL
            with output.to_cli(lambda stream, text: say(Output(stream=stream, text=text))) as (_, stderr):
                remote = Remote(how, str(self.paths.socket), stderr, cancel, self._function)
                try:
                    with serving(remote), sources.working_directory(cwd):
                        code = commands.main(message.argv, columns=message.columns)
                except BaseException as exc:  # noqa: BLE001 - every failure becomes an answer
                    if cancel.is_set():
                        log.info("%s: cancelled (%s)", message.argv[0], type(exc).__name__)
                    else:
                        stderr.write(f"kernel-eval {message.argv[0]}: error: {self._incident(exc)}\n")
            done.set()  # before Exited: the CLI hangs up once it has it, which is no cancellation
            say(Exited(code=code))

        worker = threading.Thread(target=work, name=f"command-{message.argv[0]}", daemon=True)
        worker.start()
        while not done.is_set():
            if not cancel.is_set() and (self._stop.is_set() or (_hung_up(conn) and not done.is_set())):
                log.info("%s: the CLI went away (or the daemon stops): cancelling", message.argv[0])
                cancel.set()
            if cancel.is_set():
                worker.join(CANCEL_GRACE_S)
                return
        worker.join()  # it is sending Exited: the connection is closed once this returns

    def _incident(self, exc: BaseException) -> str:
        """Logs a crash in full; the CLI is told where, not what (its details may be the daemon's)."""
        incident = secrets.token_hex(4)
        log.error("a command failed (incident %s)", incident, exc_info=exc)
        return (
            f"internal error in the daemon (incident {incident}, logged in {self.paths.log}); the daemon keeps running"
        )


def _hung_up(conn: socket.socket) -> bool:
    """True once the CLI closed its end (it sends nothing after its request)."""
    readable, _, _ = select.select([conn], [], [], POLL_S)
    if not readable:
        return False
    try:
        conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except BlockingIOError:
        return False
    except OSError:
        return True
    return True  # end of stream, or bytes out of turn: either way this CLI is done with the call
