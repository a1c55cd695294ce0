"""The zygote: a preloaded fork server. `python -P -m sandbox.zygote --backend cpu --state-dir D`.

It imports torch and triton once (no device context: CUDA/NPU initialise only in the children),
warms the Triton interpreter, then forks one isolated child per job. It never runs user code
itself, and holds nothing secret: the server starts it with a scrubbed environment and sends it
only job directories.

Protocol: JSON lines. Commands on stdin:
    {"op": "run", "job": ID, "dir": PATH, "slot": K, "timeout_s": T, "output_cap": BYTES,
     "result_fd": "/proc/<pool pid>/fd/<n>" (optional: the shared result file, result_channel.py),
     "memory_limit_bytes": B, "pids_max": P (optional: the job's cgroup, sandbox/cgroup.py)}
    {"op": "kill", "job": ID, "reason": "cancelled"}
Events on stdout:
    {"event": "ready", ...}  {"event": "started", "job", "pid", "result_channel": whether the job got it}
    {"event": "exited", "job", "returncode", "signal", "reason", "wall_s", "max_rss_kb",
     "cpu_s", "stdout", "stderr", "stdout_bytes", "stderr_bytes", "memory_peak_bytes"}
    reason "out_of_memory": the OOM killer ended a process of the job for its cgroup's limit.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import select
import selectors
import signal
import socket
import sys
import time

from sandbox import result_channel
from sandbox.cgroup import JobCgroup, JobCgroups
from sandbox.protocol import STACK_GRACE_S, STACK_SIGNAL

CHUNK = 1 << 16
MAX_COMMAND = 1 << 16  # a job's command to its spare: a few hundred bytes of JSON
DEVICE_SPARES = 3  # warm children a device backend keeps ready at least (see Zygote.spare_target)
#: With cgroups, what a spare says once it is warm: only a warm spare is moved into a job's cgroup, so what its
#: warm-up made (a CUDA context's host pages) stays charged to the zygote's cgroup, not to the job's limit.
SPARE_READY = b"ready"
SPARE_READY_TIMEOUT_S = 120.0
SPARE_TRIES = 5  # spares a job is offered to before the zygote reports it cannot start jobs


class Captured:
    """One output stream in bounded memory: its first cap/2 bytes and its last cap/2 bytes.

    A job is never killed for printing (a tl.device_print session prints megabytes); what falls
    between head and tail is dropped and a marker says how much."""

    def __init__(self, cap: int):
        self.keep = max(1, cap // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.keep:  # trim in amortised O(1)
                del self.tail[: len(self.tail) - self.keep]

    def text(self) -> str:
        tail = self.tail[-self.keep :]
        dropped = self.total - len(self.head) - len(tail)
        if dropped <= 0:
            return (self.head + tail).decode("utf-8", "replace")
        marker = (
            f"\n[... {dropped} bytes of output dropped: {self.total} in all, first and last {self.keep} kept ...]\n"
        )
        return self.head.decode("utf-8", "replace") + marker + tail.decode("utf-8", "replace")


def _open_result_file(path) -> int | None:
    """The pool's shared result file (sandbox/result_channel.py), or None: the job writes result.bin."""
    if not isinstance(path, str) or not path.startswith("/proc/"):
        return None
    try:
        return os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return None


def _send_command(fd: int, data: bytes, shared: int | None) -> None:
    """One message to a spare on its command socket, with the shared result file when there is one."""
    sock = socket.socket(fileno=fd)
    try:
        socket.send_fds(sock, [data], [shared] if shared is not None else [])
    finally:
        sock.detach()  # the descriptor stays the caller's


class Job:
    def __init__(self, job_id: str, pid: int, out_fd: int, err_fd: int, timeout_s: float, cap: int):
        self.id = job_id
        self.pid = pid
        self.fds = {out_fd: "stdout", err_fd: "stderr"}
        self.captured = {"stdout": Captured(cap), "stderr": Captured(cap)}
        self.started = time.monotonic()
        self.deadline = self.started + timeout_s
        self.reason: str | None = None  # why we killed it: timeout, cancelled, shutdown
        self.finished = False  # said it wrote its result: reported, killed, only its reaping is left
        self.command_fd: int | None = None  # its command socket, where it says it is done
        self.stack_asked = False  # past its time: asked for its stack, killed STACK_GRACE_S later
        self.cgroup: JobCgroup | None = None


class Zygote:
    def __init__(
        self, plan, forker, out, backend, spares: int = 0, cgroups: tuple[JobCgroups | None, str] = (None, "")
    ):
        self.plan = plan
        self.cgroups, self.cgroup_note = cgroups  # the jobs' cgroups, or None and why not
        self.backend = backend
        self.forker = forker
        self.pid_namespace = forker.pid_namespace
        self.out = out  # the protocol stream
        self.sel = selectors.DefaultSelector()
        self.jobs: dict[int, Job] = {}
        self.by_id: dict[str, Job] = {}
        self.pending = b""
        self.spares: list[tuple[int, int, int, int]] = []  # (pid, command fd, stdout fd, stderr fd)
        # A first call on a device starts three jobs at once (the golden, the CPU control and the
        # candidate): each should find a child that already holds its device context (~1 s to make
        # on the H200). On cpu a child is a fork (~8 ms) and one spare is enough.
        # With more slots than that, spares for half of them (each holds a device context).
        self.spare_target = spares or (DEVICE_SPARES if backend.device != "cpu" else 1)

    def send(self, event: dict) -> None:
        self.out.write(json.dumps(event) + "\n")
        self.out.flush()

    # --- jobs ---------------------------------------------------------------------------------
    def _spawn_spare(self) -> None:
        """Fork a child that waits for its job: the fork (~8 ms for a torch-sized process) then
        happens while the zygote is idle, not while a caller waits."""
        # a socket, not a pipe: the job's command comes with the shared result file's descriptor
        command_w, command_r = (s.detach() for s in socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET))
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = self.forker()
        if pid == 0:
            self._spare_child(command_r, out_w, err_w)  # never returns
        for fd in (command_r, out_w, err_w):
            os.close(fd)
        self.spares.append((pid, command_w, out_r, err_r))

    def _spare_child(self, command_r: int, out_w: int, err_w: int) -> None:
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            devnull = os.open("/dev/null", os.O_RDONLY)
            os.dup2(devnull, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            os.dup2(command_r, 3)
            os.closerange(4, 1 << 16)
            from sandbox.harness import child, device_warm
            from sandbox.isolation import CgroupState, prepare

            prepared = prepare(self.plan)  # while idle: namespaces, root, device context
            device_warm.warm(self.backend)
            if self.cgroups is not None:
                os.write(3, SPARE_READY)
            commands = socket.socket(fileno=3)
            line, fds, _, _ = socket.recv_fds(commands, MAX_COMMAND, 1)
            commands.detach()  # fd 3 stays open: the job says on it when its result is written
            if not line:  # the zygote is gone or retired this spare
                os._exit(0)
            cmd = json.loads(line)
            sys.stdout = open(1, "w", buffering=1, closefd=False)
            sys.stderr = open(2, "w", buffering=1, closefd=False)
            result_fd = fds[0] if fds else None
            cgroup = (
                CgroupState(True, str(cmd["cgroup"]))
                if "cgroup" in cmd
                else CgroupState(False, str(cmd.get("cgroup_error", "")))
            )
            child.run_job(cmd["dir"], self.plan, int(cmd["slot"]), prepared, result_fd, done_fd=3, cgroup=cgroup)
        finally:
            os._exit(4)

    def _place(self, cmd: dict, pid: int) -> tuple[dict, JobCgroup | None]:
        """The job's command as its child gets it: with its cgroup (the process moved in first, so
        nothing of the job runs outside) or the reason it has none."""
        limit = cmd.get("memory_limit_bytes")
        if self.cgroups is None or not isinstance(limit, int):
            return {**cmd, "cgroup_error": self.cgroup_note or "the pool asked for no cgroup"}, None
        try:
            made = self.cgroups.place(str(cmd["job"]), pid, limit, int(cmd.get("pids_max", 0)) or 4096)
        except OSError as exc:
            return {**cmd, "cgroup_error": f"its cgroup could not be made: {exc}"}, None
        return {**cmd, "cgroup": made.describe()}, made

    def start(self, cmd: dict) -> None:
        shared = _open_result_file(cmd.get("result_fd"))
        try:
            for _ in range(SPARE_TRIES):
                if not self.spares:
                    self._spawn_spare()
                pid, command_w, out_r, err_r = self.spares.pop(0)
                if self.cgroups is not None and not _said_ready(command_w):
                    self._retire(pid, command_w, out_r, err_r)
                    continue
                sent, cgroup = self._place(cmd, pid)
                try:
                    _send_command(command_w, json.dumps(sent).encode(), shared)
                    break
                except OSError:  # that spare died: drop it and use another
                    self._retire(pid, command_w, out_r, err_r)
                    if cgroup is not None and self.cgroups is not None:
                        self.cgroups.release(cgroup)
            else:  # no child lives long enough to take a job: the sandbox is broken, not the job
                failed = {"event": "exited", "job": cmd["job"], "returncode": None, "signal": None}
                self.send(failed | {"reason": "zygote_died", "stderr": f"{SPARE_TRIES} sandbox children died unused"})
                return
        finally:
            if shared is not None:
                os.close(shared)  # the child holds its own copy now
        for fd in (out_r, err_r):
            os.set_blocking(fd, False)
        job = Job(cmd["job"], pid, out_r, err_r, float(cmd.get("timeout_s", 120)), int(cmd.get("output_cap", 1 << 20)))
        job.command_fd = command_w
        job.cgroup = cgroup
        self.jobs[pid] = job
        self.by_id[job.id] = job
        self.sel.register(out_r, selectors.EVENT_READ, ("out", job))
        self.sel.register(err_r, selectors.EVENT_READ, ("out", job))
        self.sel.register(command_w, selectors.EVENT_READ, ("done", job))
        self.send({"event": "started", "job": job.id, "pid": pid, "result_channel": shared is not None})

    def _retire(self, pid: int, *fds: int) -> None:
        """A spare that died or never got warm: killed, its descriptors closed (reap() collects it)."""
        for fd in fds:
            os.close(fd)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def _said_done(self, job: Job) -> None:
        """The job's message on its command socket: "done" once its result is written. Then it is
        reported at once and killed: a CUDA process takes ~0.16 s to exit (the driver tears its
        context down), which no caller needs to wait for. Anything else (or nothing) and the job
        is reported when it exits."""
        message = b""
        if job.command_fd is not None:
            try:
                message = os.read(job.command_fd, 4096)
            except OSError:
                pass
        self._close_command(job)
        if message != result_channel.WRITTEN or job.reason is not None or job.finished:
            return
        if self._over_memory(job):  # a process of it was killed for memory: the job failed, whatever it wrote
            self.kill(job, "out_of_memory")
            return
        job.finished = True
        self._drain(job)
        self.send(self._exited(job, 0, None, None))
        self.by_id.pop(job.id, None)
        try:
            os.kill(job.pid, signal.SIGKILL)  # pid 1 of its namespace: everything in it dies
        except ProcessLookupError:
            pass

    def _over_memory(self, job: Job) -> bool:
        return job.cgroup is not None and job.cgroup.killed_at_its_limit()

    def _close_command(self, job: Job) -> None:
        fd = job.command_fd
        if fd is None:
            return
        try:
            self.sel.unregister(fd)
        except (KeyError, ValueError):
            pass
        os.close(fd)
        job.command_fd = None

    def _time_up(self, job: Job, now: float) -> None:
        """First the job's stack on its stderr (faulthandler, sandbox/harness/child.py): the timeout
        then says where it hung; then the kill."""
        if job.stack_asked:
            self.kill(job, "timeout")
            return
        job.stack_asked = True
        job.deadline = now + STACK_GRACE_S
        try:
            os.kill(job.pid, STACK_SIGNAL)
        except ProcessLookupError:
            pass

    def kill(self, job: Job, reason: str) -> None:
        if job.reason is None:
            job.reason = reason
        try:
            os.kill(job.pid, signal.SIGKILL)  # pid 1 of its namespace: everything in it dies
        except ProcessLookupError:
            pass

    def _read_output(self, fd: int, job: Job) -> bool:
        """Drain what is there (at most a few chunks, so one chatty job cannot starve the loop);
        False at EOF."""
        captured = job.captured[job.fds[fd]]
        for _ in range(16):
            try:
                data = os.read(fd, CHUNK)
            except BlockingIOError:
                return True
            if not data:
                return False
            captured.add(data)
        return True

    def _close_output(self, job: Job) -> None:
        for fd in list(job.fds):
            try:
                self.sel.unregister(fd)
            except (KeyError, ValueError):
                pass
            os.close(fd)
        job.fds.clear()

    def _drain(self, job: Job) -> None:
        for fd in list(job.fds):
            for _ in range(64):  # what is left in the pipe, bounded (a stray writer may live on)
                if not self._read_output(fd, job) or not _readable(fd):
                    break
        self._close_output(job)

    def _exited(self, job: Job, returncode: int | None, sig: int | None, usage) -> dict:
        return {
            "event": "exited",
            "job": job.id,
            "returncode": returncode,
            "signal": signal.Signals(sig).name if sig else None,
            "reason": job.reason,
            "wall_s": time.monotonic() - job.started,
            "max_rss_kb": usage.ru_maxrss if usage is not None else 0,
            "cpu_s": usage.ru_utime + usage.ru_stime if usage is not None else 0.0,
            "stdout": job.captured["stdout"].text(),
            "stderr": job.captured["stderr"].text(),
            "stdout_bytes": job.captured["stdout"].total,
            "stderr_bytes": job.captured["stderr"].total,
            "memory_peak_bytes": job.cgroup.peak_bytes() if job.cgroup is not None else None,
        }

    def reap(self) -> None:
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            job = self.jobs.pop(pid, None)
            if job is None:  # a spare that died before it got a job
                for spare in [s for s in self.spares if s[0] == pid]:
                    self.spares.remove(spare)
                    for fd in spare[1:]:
                        os.close(fd)
                continue
            self._close_command(job)
            if job.finished:  # reported when it said done
                self._release_cgroup(job)
                continue
            if job.reason is None and self._over_memory(job):
                job.reason = "out_of_memory"
            self._drain(job)
            self.by_id.pop(job.id, None)
            sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
            self.send(self._exited(job, os.WEXITSTATUS(status) if os.WIFEXITED(status) else None, sig, usage))
            self._release_cgroup(job)

    def _release_cgroup(self, job: Job) -> None:
        if job.cgroup is not None and self.cgroups is not None:
            self.cgroups.release(job.cgroup)
            job.cgroup = None

    # --- commands -----------------------------------------------------------------------------
    def command(self, line: bytes) -> None:
        try:
            cmd = json.loads(line)
        except ValueError:
            return
        if cmd.get("op") == "run":
            self.start(cmd)
        elif cmd.get("op") == "kill":
            job = self.by_id.get(cmd.get("job"))
            if job is not None:
                self.kill(job, cmd.get("reason", "cancelled"))

    def loop(self) -> None:
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        stdin = sys.stdin.buffer.fileno()
        self.sel.register(stdin, selectors.EVENT_READ, ("cmd", None))
        self.sel.register(wake_r, selectors.EVENT_READ, ("wake", None))
        while True:
            now = time.monotonic()
            timeout = min((j.deadline - now for j in self.jobs.values()), default=1.0)
            for key, _ in self.sel.select(timeout=max(0.0, min(timeout, 1.0))):
                kind, job = key.data
                if kind == "cmd":
                    data = os.read(stdin, CHUNK)
                    if not data:
                        self.shutdown()
                        return
                    self.pending += data
                    while b"\n" in self.pending:
                        line, self.pending = self.pending.split(b"\n", 1)
                        self.command(line)
                elif kind == "wake":
                    try:
                        while os.read(wake_r, CHUNK):
                            pass
                    except BlockingIOError:
                        pass
                elif kind == "done":
                    self._said_done(job)
                elif kind == "out" and key.fd in job.fds and not self._read_output(key.fd, job):
                    self.sel.unregister(key.fd)
                    os.close(key.fd)
                    del job.fds[key.fd]
            now = time.monotonic()
            for job in list(self.jobs.values()):
                if now > job.deadline and not job.finished:
                    self._time_up(job, now)
            self.reap()
            if self.cgroups is not None and self.cgroups.leftovers:
                self.cgroups.retry_leftovers()
            while len(self.spares) < self.spare_target and not self.pending:
                self._spawn_spare()

    def shutdown(self) -> None:
        for pid, command_w, out_r, err_r in self.spares:
            for fd in (command_w, out_r, err_r):
                os.close(fd)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.spares.clear()
        for job in list(self.jobs.values()):
            self.kill(job, "shutdown")
        deadline = time.monotonic() + 5
        while self.jobs and time.monotonic() < deadline:
            self.reap()
            time.sleep(0.01)
        if self.cgroups is not None:
            self.cgroups.close()


def _said_ready(command_w: int) -> bool:
    """Wait for a spare's SPARE_READY (at once when it is warm already); False if it died or took too long."""
    if not select.select([command_w], [], [], SPARE_READY_TIMEOUT_S)[0]:
        return False
    try:
        return os.read(command_w, 64) == SPARE_READY
    except OSError:
        return False


def _readable(fd: int) -> bool:
    return bool(select.select([fd], [], [], 0)[0])


def _warm_up(backend) -> None:
    """Import and exercise what every job needs, so children start warm (fork shares it)."""
    import torch
    import triton  # noqa: F401

    from sandbox.harness import child  # noqa: F401  (every job kind and its imports)

    # Exercise what every job does once, so children inherit it warm instead of each paying it:
    torch.overrides.resolve_name(torch.add)  # builds a ~10 ms table on first use
    from sandbox import tensorio
    from sandbox.harness import common

    common.seed_all(0)  # imports numpy.random lazily (~6 ms)
    probe = [torch.zeros(4), torch.ones(4, dtype=torch.float16)]
    common.bitwise_equal(probe[0], common.clone(probe)[0])
    devnull = os.open(os.devnull, os.O_WRONLY)
    tensorio.write_bundle(devnull, {"probe": common.to_cpu(probe)}, {"warm": True})
    os.close(devnull)

    if backend.interpreter:
        from sandbox import warmup

        warmup.run()
    else:  # Triton's cache key hashes its own ~0.5 GB library: once here, not in every job (~0.4 s)
        try:
            from triton.runtime.cache import triton_key

            triton_key()
        except (ImportError, OSError):
            pass


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", required=True)
    parser.add_argument("--state-dir", required=True)
    parser.add_argument("--spares", type=int, default=0, help="warm children to keep ready (0: the backend's default)")
    args = parser.parse_args()
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything printed by imports goes to stderr, never into the protocol
    sys.stdout = sys.stderr

    from sandbox import backends
    from sandbox.isolation import linux, make_plan

    backend = backends.by_name(args.backend)
    _warm_up(backend)
    plan = make_plan(args.state_dir, list(backend.device_patterns), backend.bind_sys, backend.data_limit)
    forker = os.fork
    pid_namespace = False
    if plan.root_mode:
        try:
            forker = linux.PidNamespaceForker().fork
            pid_namespace = True
        except OSError:
            pass
    gc.collect()
    gc.freeze()  # objects made so far are shared by every child: keep them off the GC's pages
    import torch
    import triton

    cgroups = JobCgroups.open() if plan.root_mode else (None, "not root: no cgroup per job")
    zygote = Zygote(plan, _probe_forker(forker, pid_namespace), protocol, backend, args.spares, cgroups)
    zygote.send(
        {
            "event": "ready",
            "pid": os.getpid(),
            "backend": backend.name,
            "torch": torch.__version__,
            "triton": triton.__version__,
            "root_mode": plan.root_mode,
            "pid_namespace": zygote.pid_namespace,
            "cgroup": cgroups[1],
        }
    )
    zygote.loop()
    protocol.flush()
    os._exit(0)  # skip interpreter teardown (nanobind prints leak reports there)


def _probe_forker(forker, pid_namespace):
    """Use the pid-namespace fork if it really works here; else a plain fork (reported)."""
    if not pid_namespace:
        return _Forker(os.fork, False)
    try:
        pid = forker()
    except OSError:
        return _Forker(os.fork, False)
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return _Forker(forker, True)


class _Forker:
    def __init__(self, fn, pid_namespace: bool):
        self.fn = fn
        self.pid_namespace = pid_namespace

    def __call__(self) -> int:
        return self.fn()


if __name__ == "__main__":
    sys.exit(main())
