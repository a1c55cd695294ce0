"""What the CLI and the daemon say to each other: one JSON object per line, each a model below.

A call: the CLI sends CallMessage; the daemon answers Accepted (the call has started: from here a
dropped connection cancels it), any number of Progress / LogLine, then one Finished or Failed.
No pickles: arguments and results are the tools' own pydantic models as JSON.
"""

from __future__ import annotations

import socket
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

#: Bumped when a message changes shape; part of the code version, so old daemons are never asked.
PROTOCOL = 1
MAX_REQUEST_BYTES = 8 << 20  # sources are capped at 1 MiB each
MAX_REPLY_BYTES = 256 << 20

ToolName = Literal["compile_kernel", "run_accuracy", "explain_failure", "suggest_fix", "mutate"]
FailureKind = Literal["input", "server", "internal", "refused", "cancelled"]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Addressed(_Message):
    """Every request names the code version and home it expects; a daemon of others refuses it."""

    code: str
    home: str


class CallMessage(_Addressed):
    type: Literal["call"] = "call"
    tool: ToolName
    arguments: dict
    cwd: str = Field(description="The CLI's working directory: relative source paths resolve against it.")


class StatusMessage(_Addressed):
    type: Literal["status"] = "status"


class StopMessage(_Addressed):
    type: Literal["stop"] = "stop"


ClientMessage = Annotated[CallMessage | StatusMessage | StopMessage, Field(discriminator="type")]


class Accepted(_Message):
    type: Literal["accepted"] = "accepted"
    pid: int


class Progress(_Message):
    type: Literal["progress"] = "progress"
    fraction: float
    message: str


class LogLine(_Message):
    """A warning the tool logged while serving this call (in-process it would reach stderr)."""

    type: Literal["log"] = "log"
    line: str


class Finished(_Message):
    type: Literal["finished"] = "finished"
    result_json: str = Field(description="The tool's result model, as model_dump_json() writes it.")


class Failed(_Message):
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


DaemonMessage = Annotated[
    Accepted | Progress | LogLine | Finished | Failed | DaemonStatus | Stopping, Field(discriminator="type")
]
CLIENT_MESSAGE: TypeAdapter = TypeAdapter(ClientMessage)
DAEMON_MESSAGE: TypeAdapter = TypeAdapter(DaemonMessage)


class MessageTooLarge(ValueError):
    pass


def send(sock: socket.socket, message: BaseModel) -> None:
    sock.sendall(message.model_dump_json().encode() + b"\n")


class LineReader:
    """Newline-framed messages from a socket, each at most `limit` bytes; b"" at end of stream."""

    def __init__(self, sock: socket.socket, limit: int):
        self.sock, self.limit, self._buffer = sock, limit, bytearray()

    def read_line(self) -> bytes:
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return line
            if len(self._buffer) > self.limit:
                raise MessageTooLarge(f"a message longer than {self.limit} bytes")
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                return b""
            self._buffer += chunk
