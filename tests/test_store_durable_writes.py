"""A torn write is never visible: writer processes killed (SIGKILL) in the middle of writing a file or
a run directory, while this process reads the target the whole time.

Every version a writer produces is self-checking (its length and digest in its first line), so a
reader that ever saw part of one would fail here.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tools.store import files

ROOT = Path(__file__).resolve().parents[1]
KILLS = 6
PAYLOAD = 2 << 20  # written in 4 KiB pieces: a kill lands mid-write

WRITER = r"""
import hashlib, os, shutil, sys
from pathlib import Path
from tools.store import files

mode, target, durable = sys.argv[1], Path(sys.argv[2]), sys.argv[3] == "1"


def version(i):
    body = (f"{os.getpid()}-{i}-".encode() * (PAYLOAD // 16))[:PAYLOAD]
    return f"{len(body)} {hashlib.sha256(body).hexdigest()}\n".encode() + body


def slowly(data):
    def write(fd):
        for at in range(0, len(data), 4096):
            os.write(fd, data[at : at + 4096])
    return write


print("ready", flush=True)
for i in range(10**6):
    if mode == "file":
        files.write_atomic(target, slowly(version(i)), durable=durable)
    else:
        incoming = target.with_name(f"incoming-{os.getpid()}-{i}")
        incoming.mkdir()
        for name in ("task.json", "tensors.bin", "result.json"):
            files.write_atomic(incoming / name, slowly(version(i)), durable=False)
        old = target.with_name(f"old-{os.getpid()}-{i}")
        try:
            os.replace(target, old)  # a run is replaced by moving the old one out first
        except FileNotFoundError:
            pass
        files.publish_dir(incoming, target, durable=durable)
        shutil.rmtree(old, ignore_errors=True)  # bounded disk: one old run at a time
""".replace("PAYLOAD", str(PAYLOAD))


def _whole(data: bytes) -> bool:
    header, _, body = data.partition(b"\n")
    size, digest = header.split()
    return int(size) == len(body) and hashlib.sha256(body).hexdigest() == digest.decode()


def _start(mode: str, target: Path, durable: bool) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, mode, str(target), "1" if durable else "0"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _kill_writers_while_reading(mode: str, target: Path, read) -> int:
    """Start, let write, SIGKILL and restart a writer KILLS times, reading `target` all along."""
    seen = 0
    for kill in range(KILLS):
        proc = _start(mode, target, durable=kill % 2 == 0)
        start, first = time.monotonic(), seen
        try:
            while seen == first and time.monotonic() - start < 30:  # until this writer published once
                seen += read(target)
            deadline = time.monotonic() + 0.05 * (kill + 1)  # then the kill lands at various points
            while time.monotonic() < deadline:
                seen += read(target)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        seen += read(target)
    return seen


def test_a_file_killed_mid_write_is_old_or_new_never_torn(tmp_path):
    target = tmp_path / "12.bin"

    def read(path: Path) -> int:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return 0
        assert _whole(data), f"a torn {path.name} was visible ({len(data)} bytes)"
        return 1

    assert _kill_writers_while_reading("file", target, read) > 0
    leftovers = [p for p in tmp_path.iterdir() if p != target]
    assert all(files.TMP_MARK in p.name for p in leftovers), leftovers  # a dead writer's temporaries only
    assert all(files.is_stale_tmp(p, now=time.time() + files.STALE_TMP_S + 1) for p in leftovers)


def test_a_run_directory_killed_mid_write_is_whole_or_absent(tmp_path):
    target = tmp_path / "r-20261201-000000-abcdef"

    def read(path: Path) -> int:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        except FileNotFoundError:  # not there yet, or moved out by the next writer meanwhile
            return 0
        try:
            names = sorted(os.listdir(fd))
            contents = [(path / n).read_bytes() for n in names]
            # the directory listed was moved out (and is being removed) while it was read: what the path names now
            # is another one, so this listing says nothing of what a reader of the path sees
            if os.stat(path).st_ino != os.fstat(fd).st_ino:
                return 0
        except FileNotFoundError:
            return 0
        finally:
            os.close(fd)
        assert names == ["result.json", "task.json", "tensors.bin"], f"a partial run was visible: {names}"
        assert all(_whole(c) for c in contents), "a run with a torn file was visible"
        return 1

    assert _kill_writers_while_reading("dir", target, read) > 0


def test_durable_writes_reach_the_target(tmp_path):
    target = tmp_path / "seeds.json"
    files.write_atomic(target, b"{}", durable=True)
    files.write_atomic(target, lambda fd: os.write(fd, b'{"secret": [1]}'), durable=True)
    assert target.read_bytes() == b'{"secret": [1]}'
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    files.write_atomic(incoming / "result.json", b"{}", durable=False)
    files.publish_dir(incoming, tmp_path / "run", durable=True)
    assert (tmp_path / "run" / "result.json").read_bytes() == b"{}" and not incoming.exists()
