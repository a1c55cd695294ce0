"""The CLI's fast path: a command the daemon serves is sent to it as typed, and what it prints is printed.

Standard library only: pydantic, the request models and the tools' imports are most of an in-process
CLI's start, and the daemon has them loaded already. The daemon parses the arguments with the same
parser and runs the same code the in-process CLI runs, and sends back what that prints, in order, and
its exit status; so a bad flag reads the same either way. The messages are tools/cli/daemon/protocol.py's
models, written and read here as plain JSON.
"""

from __future__ import annotations

import json
import os
import sys
import time

from sandbox.protocol import EXIT_CODES
from tools.catalogue import served_commands
from tools.cli.daemon import connection
from tools.cli.daemon.location import DaemonPaths, DaemonUnavailable, daemon_paths

#: The commands that run a tool (through the daemon unless told otherwise); the rest run in-process.
SERVED = served_commands()
NO_DAEMON_ENV = "KERNEL_EVAL_NO_DAEMON"
NO_DAEMON_FLAG = "--no-daemon"
EXIT_INTERNAL, EXIT_INTERRUPTED = EXIT_CODES["server"], 130


class RunHere:
    """Run the command in this process; `reason` says why (for --verbose), None for commands never served."""

    def __init__(self, reason: str | None):
        self.reason = reason


def why_not_daemon(no_daemon_flag: bool) -> str | None:
    """Why a served command runs in-process although a daemon may be up; None: it need not."""
    if no_daemon_flag:
        return NO_DAEMON_FLAG
    if os.environ.get(NO_DAEMON_ENV, "").strip() not in ("", "0"):
        return f"{NO_DAEMON_ENV}={os.environ[NO_DAEMON_ENV]}"
    return None


def _asks_no_daemon(args: list[str]) -> bool:
    """--no-daemon, or an abbreviation argparse would take for it (or reject as ambiguous, in-process too)."""
    for arg in args:
        if arg == "--":
            return False
        if arg.startswith("--n") and NO_DAEMON_FLAG.startswith(arg):
            return True
    return False


def _columns() -> int:
    """The terminal width argparse would use here (it formats usage and help to it), for the daemon.

    What shutil.get_terminal_size().columns gives, without importing shutil (~3 ms of this CLI's start)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def command_message(paths: DaemonPaths, argv: list[str], reached: connection.Connection) -> dict:
    """protocol.CommandMessage, as JSON."""
    return {
        "type": "command",
        "code": paths.code,
        "home": str(paths.home),
        "argv": argv,
        "cwd": os.getcwd(),
        "columns": _columns(),
        "started": reached.started,
        "replaced_stale": reached.replaced_stale,
    }


def forward(argv: list[str]) -> int | RunHere:
    """The command's exit status once the daemon ran it, or RunHere (then nothing was printed)."""
    if not argv or argv[0] not in SERVED:
        return RunHere(None)
    if any(a in ("-h", "--help") for a in argv[1:]):  # help needs no daemon (nor starts one)
        return RunHere(None)
    reason = why_not_daemon(_asks_no_daemon(argv[1:]))
    if reason is not None:
        return RunHere(reason)
    command = argv[0]
    try:
        paths = daemon_paths()
        for attempt in range(2):
            reached = connection.connect(paths)
            code = _run(reached, command_message(paths, argv, reached), command, paths.log)
            if code is not None:
                return code
            if not attempt:
                time.sleep(0.2)  # it was exiting (idle): the next connect finds or starts a fresh one
        return RunHere("no daemon: the daemon closed the connection before taking the command")
    except (DaemonUnavailable, OSError) as exc:  # OSError: e.g. this working directory was removed
        return RunHere(f"no daemon: {exc}")
    except KeyboardInterrupt:  # closing the connection cancels the command in the daemon
        print(f"kernel-eval {command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _write(streams: dict, name: str, text: str) -> None:
    """Print what the daemon sent. A reader that went away (`| head`) gets nothing more, and the
    command runs to its end as it would in-process: its exit status is still the command's."""
    stream = streams[name]
    try:
        stream.write(text)
        if stream is sys.stderr:
            stream.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())  # nor does the interpreter's flush at exit complain
        os.close(devnull)
        streams[name] = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process


def _run(reached: connection.Connection, message: dict, command: str, log: object) -> int | None:
    """Send the command and print what comes back; its exit status, or None if the daemon did not take it."""
    streams = {"stdout": sys.stdout, "stderr": sys.stderr}
    accepted = False
    with reached.sock as sock:
        try:
            sock.sendall(json.dumps(message).encode() + b"\n")
            reader = connection.LineReader(sock, connection.MAX_REPLY_BYTES)
            while line := reader.read_line():
                reply = json.loads(line)
                kind = reply["type"]
                if kind == "accepted":
                    accepted = True
                elif kind == "output":
                    _write(streams, reply["stream"], reply["text"])
                elif kind == "exited":
                    return int(reply["code"])
                elif kind == "failed" and reply["kind"] == "refused":
                    raise DaemonUnavailable(f"the daemon refused: {reply['message']}")
                elif kind == "failed":
                    print(f"kernel-eval {command}: error: {reply['message']}", file=sys.stderr)
                    return EXIT_INTERNAL
        except (ConnectionResetError, BrokenPipeError):
            pass
        except connection.MessageTooLarge as exc:
            print(f"kernel-eval {command}: error: the daemon's answer is too large ({exc})", file=sys.stderr)
            return EXIT_INTERNAL
    if not accepted:
        return None
    print(
        f"kernel-eval {command}: error: the daemon closed the connection mid-command (did it crash? see {log})",
        file=sys.stderr,
    )
    return EXIT_INTERNAL
