"""What the CLI and the daemon say to each other: one JSON object per line, each a model below.

A command: the CLI sends CommandMessage (its argv, unparsed); the daemon answers Accepted (from here a
dropped connection cancels the command), then Output chunks (what the command prints, in order, on
stdout or stderr), then one Exited with the exit status. The daemon parses and runs the argv with the
same code as the in-process CLI, so both print the same. No pickles: plain JSON.

The CLI's fast path (tools/cli/forward.py) writes and reads these messages as plain JSON, without
pydantic (tests check that it speaks these models).
"""

from __future__ import annotations

import socket
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

FailureKind = Literal["input", "refused"]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Addressed(_Message):
    """Every request names the code version and home it expects; a daemon of others refuses it."""

    code: str
    home: str


class CommandMessage(_Addressed):
    type: Literal["command"] = "command"
    argv: list[str] = Field(description="The CLI's arguments after the program name, as typed.")
    cwd: str = Field(description="The CLI's working directory: relative source paths resolve against it.")
    columns: int = Field(default=80, ge=20, le=10_000, description="The CLI's terminal width (for usage text).")
    started: bool = Field(default=False, description="The CLI started this daemon for this command.")
    replaced_stale: bool = Field(default=False, description="It did so after removing a dead daemon's socket.")


class StatusMessage(_Addressed):
    type: Literal["status"] = "status"


class StopMessage(_Addressed):
    type: Literal["stop"] = "stop"


ClientMessage = Annotated[CommandMessage | StatusMessage | StopMessage, Field(discriminator="type")]


class Accepted(_Message):
    type: Literal["accepted"] = "accepted"
    pid: int


class Output(_Message):
    """Text the command printed (or a warning a tool logged while serving it), to print as it is."""

    type: Literal["output"] = "output"
    stream: Literal["stdout", "stderr"]
    text: str


class Exited(_Message):
    type: Literal["exited"] = "exited"
    code: int


class Failed(_Message):
    """The daemon did not run the command: `input`, a malformed request; `refused`, run it in-process."""

    type: Literal["failed"] = "failed"
    kind: FailureKind
    message: str


class DaemonStatus(_Message):
    type: Literal["status"] = "status"
    running: bool = True
    pid: int | None = None
    code: str
    home: str
    socket: str
    log: str
    started_at: float | None = None
    idle_timeout_s: float | None = None
    active_calls: int = 0
    peak_active_calls: int = 0
    calls_served: int = 0
    calls_cancelled: int = 0


class Stopping(_Message):
    type: Literal["stopping"] = "stopping"
    pid: int


DaemonMessage = Annotated[Accepted | Output | Exited | Failed | DaemonStatus | Stopping, Field(discriminator="type")]
CLIENT_MESSAGE: TypeAdapter = TypeAdapter(ClientMessage)
DAEMON_MESSAGE: TypeAdapter = TypeAdapter(DaemonMessage)


def send(sock: socket.socket, message: BaseModel) -> None:
    sock.sendall(message.model_dump_json().encode() + b"\n")
