"""Hostile candidates: each attack is contained, and the next job still works.

Every attack is bounded even if a limit failed (loop counts, sizes), so a broken sandbox cannot
take the test machine down with it.
"""

from __future__ import annotations

import os
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from tests.conftest import needs_root
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with
from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest

REPO = pathlib.Path(__file__).resolve().parents[1]


def attack(candidate: str, **options):
    options.setdefault("num_seeds", 1)
    options.setdefault("determinism_check", False)
    options.setdefault("timeout_s", 30)
    return run_accuracy(
        RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=candidate, backend="cpu", **options)
    )


def assert_healthy():
    result = attack(VECTOR_ADD_CANDIDATE)
    assert result.verdict == "pass", result.summary


@pytest.fixture(autouse=True)
def next_job_works():
    yield
    assert_healthy()


# --- time ----------------------------------------------------------------------------------------


def test_infinite_loop_times_out():
    r = attack(candidate_with("while True:\n    pass"), timeout_s=3)
    assert r.verdict == "timeout" and "3 s" in r.error.message


def test_a_hanging_kernel_times_out_at_its_line():
    """Before the kill the job dumps its stack: the timeout names the candidate's line that spins."""
    spin = """
@triton.jit
def spin_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    i = 0
    while i < n:
        acc += 1.0
    tl.store(out_ptr + offs, acc, mask=offs < n)
"""
    candidate = candidate_with(
        "out = torch.empty_like(x)\nspin_kernel[(4,)](x, out, x.numel(), BLOCK=256)\nreturn out", spin
    )
    r = attack(candidate, timeout_s=3)
    # the stack is a sample: the loop's test or its body
    assert r.verdict == "timeout" and r.error.source_line.strip() in ("while i < n:", "acc += 1.0"), r.error
    assert "(in spin_kernel)" in r.error.message and r.error.traceback[-1].endswith("in spin_kernel")
    assert "Current thread" not in r.stderr and "sandbox/harness" not in r.stderr  # the dump names server files


def test_sleep_times_out():
    r = attack(candidate_with("import time\ntime.sleep(600)\nreturn triton_add(x, y)"), timeout_s=2)
    assert r.verdict == "timeout"


# --- resources ------------------------------------------------------------------------------------


def test_memory_bomb_hits_the_memory_limit():
    body = """
import torch
hoard = []
for _ in range(24):  # at most 6 GiB even if the limit failed
    hoard.append(torch.ones(64 << 20))  # 256 MiB each, touched
return triton_add(x, y)
"""
    r = attack(candidate_with(body), memory_mb=1024)
    assert r.verdict in ("runtime_error", "crashed"), r.summary
    assert "memory" in (r.error.message + (r.error.hint or "")).lower()


def _needs_a_cgroup_per_job():
    item = attack(VECTOR_ADD_CANDIDATE).isolation.get("cgroup")
    if item is None or not item.active:
        pytest.skip(f"no cgroup per job here: {item.detail if item else 'not reported'}")
    return item


def test_a_jobs_forked_children_share_one_memory_limit():
    """RLIMIT_AS bounds each process: ten children of 400 MiB each fit it but not the job's cgroup.
    At most 4 GiB is touched, for 3 s, if the cgroup failed."""
    cgroup = _needs_a_cgroup_per_job()
    body = """
import os, time
pids = []
for _ in range(10):
    pid = os.fork()
    if pid == 0:
        hoard = bytearray(b"\\x01") * (400 << 20)  # written: every page is the job's
        time.sleep(3)
        os._exit(0)
    pids.append(pid)
ended = [os.waitpid(pid, 0)[1] for pid in pids]
print("children ok", sum(status == 0 for status in ended))
return triton_add(x, y)
"""
    r = attack(candidate_with(body), memory_mb=512)
    assert r.verdict == "crashed" and r.error.type == "out_of_memory", (r.verdict, r.summary, r.stdout)
    assert "MiB" in r.error.message and "memory_mb" in r.error.hint, r.error
    assert re.search(r"memory \d+ MiB over all its processes, (\d+ pids|no pids controller)", cgroup.detail), cgroup
    assert "pids controller" in cgroup.detail or int(re.search(r"(\d+) pids", cgroup.detail)[1]) > 0
    # every job's cgroup is gone once its processes are (the kernel tears a namespace down asynchronously)
    from sandbox.pool import Pool

    base = Pool.get("cpu").ready_info["cgroup"].split(" under ")[-1]
    deadline = time.monotonic() + 10
    while any(n.startswith("job-") for n in os.listdir(base)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [n for n in os.listdir(base) if n.startswith("job-")], os.listdir(base)


def test_writing_past_the_memory_limit_into_the_result_file_is_stopped():
    """The pool's result file is shared memory the job writes: no mapping counts it, its cgroup does.
    At most 3 GiB is written if the cgroup failed."""
    _needs_a_cgroup_per_job()
    body = """
import os
fd = next(int(n) for n in os.listdir("/proc/self/fd") if "kernel-eval-result" in os.readlink(f"/proc/self/fd/{n}"))
chunk = b"\\x01" * (64 << 20)
written = 0
try:
    for _ in range(48):
        written += os.pwrite(fd, chunk, written)
finally:
    print("written MiB", written >> 20)
return triton_add(x, y)
"""
    r = attack(candidate_with(body), memory_mb=512)
    assert r.verdict in ("crashed", "runtime_error"), (r.verdict, r.summary)
    written = [int(line.split()[-1]) for line in r.stdout.splitlines() if line.startswith("written MiB")]
    assert not written or written[0] < 3072, r.stdout


def _sandbox_uid(uid: int) -> bool:
    """One of the uids of this process's cpu pool (other pools on the machine have blocks of their own)."""
    from sandbox.pool import Pool

    block = Pool.get("cpu")._uids
    return block is not None and block.first <= uid < block.first + block.size


def test_a_caller_cannot_raise_memory_or_time_past_the_operators_ceilings(monkeypatch):
    """memory_mb up to 1 TiB and timeout_s up to an hour were the caller's to choose. At most 3 GiB is
    touched and 20 s slept if the ceilings failed."""
    monkeypatch.setenv("KERNEL_EVAL_MAX_MEMORY_MB", "1024")
    monkeypatch.setenv("KERNEL_EVAL_MAX_TIMEOUT_S", "4")
    hoard = """
import torch
hoard = []
for _ in range(12):
    hoard.append(torch.ones(64 << 20))  # 256 MiB each, touched
return triton_add(x, y)
"""
    r = attack(candidate_with(hoard), memory_mb=1 << 20)
    assert r.verdict in ("runtime_error", "crashed"), r.summary
    assert any("memory_mb 1048576 is above the operator's ceiling" in w for w in r.warnings), r.warnings
    start = time.monotonic()
    r = attack(candidate_with("import time\ntime.sleep(20)\nreturn triton_add(x, y)"), timeout_s=10**6)
    assert r.verdict == "timeout" and time.monotonic() - start < 15, r.summary
    assert any("timeout_s 1e+06 is above" in w and "got 4 s" in w for w in r.warnings), r.warnings
    # the default timeout (120 s) is lowered too, without a note: the caller never asked for it
    request = RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=VECTOR_ADD_CANDIDATE, backend="cpu")
    assert request.timeout_s == 4 and request.limit_notes == []


def test_the_server_refuses_a_ceiling_no_job_could_run_under():
    out = subprocess.run(
        [sys.executable, "-m", "mcp_server", "--max-memory-mb", "100"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 2 and "KERNEL_EVAL_MAX_MEMORY_MB='100' must be a finite number >= 256" in out.stderr


@needs_root
def test_fork_bomb_is_capped_and_cleaned_up():
    body = """
import os, time
children = 0
try:
    for _ in range(400):  # bounded
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
finally:
    print("forked", children)
return triton_add(x, y)
"""
    r = attack(candidate_with(body))
    assert r.verdict == "runtime_error" and r.error.type in ("BlockingIOError", "OSError"), r.summary
    forked = int(r.stdout.split("forked")[1].split()[0])
    assert forked < 400
    # the whole pid namespace died with the job: no uid of this pool has processes of this checkout's
    # Python left (other pools on the machine run under other uids); the kernel reaps
    # a dead namespace asynchronously: poll, bounded
    deadline = time.monotonic() + 10
    while True:
        rows = subprocess.run(["ps", "-e", "-o", "uid=,pid=,stat=,args="], capture_output=True, text=True).stdout
        left = [row for row in rows.splitlines() if _sandbox_uid(int(row.split()[0])) and sys.executable in row]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert not left, left


def test_thread_flood_is_capped():
    body = """
import threading, time
started = 0
stop = threading.Event()
try:
    for _ in range(3000):  # bounded
        t = threading.Thread(target=stop.wait, daemon=True)
        t.start()
        started += 1
finally:
    stop.set()
    print("threads", started)
return triton_add(x, y)
"""
    r = attack(candidate_with(body))
    assert r.verdict == "runtime_error", r.summary
    assert int(r.stdout.split("threads")[1].split()[0]) < 3000


def test_filling_the_disk_stops_at_the_private_tmp():
    free_before = os.statvfs("/").f_bavail
    body = """
written = 0
try:
    with open("/tmp/fill", "wb") as f:
        for _ in range(64):  # at most 2 GiB
            f.write(b"x" * (32 << 20))
            written += 32
finally:
    print("written_mib", written)
return triton_add(x, y)
"""
    r = attack(candidate_with(body))
    assert r.verdict == "runtime_error" and "No space left" in r.error.message, r.summary
    assert int(r.stdout.split("written_mib")[1].split()[0]) <= 256
    assert os.statvfs("/").f_bavail >= free_before - (64 << 20) // os.statvfs("/").f_frsize


def test_output_flood_is_kept_in_bounded_memory_and_never_killed():
    body = "print('FIRST')\nfor _ in range(5000):\n    print('x' * 1000)\nprint('LAST')\nreturn triton_add(x, y)"
    r = attack(candidate_with(body))  # > 4 MiB of stdout: a tl.device_print session
    assert r.verdict == "pass", r.summary  # the kernel's verdict, not a kill
    assert r.stdout.startswith("FIRST") and r.stdout.rstrip().endswith("LAST") and "dropped" in r.stdout
    assert len(r.stdout) < 8192


# --- confidentiality ------------------------------------------------------------------------------


def _print_reads(paths) -> str:
    return f"""
for path in {paths!r}:
    try:
        with open(path, "rb") as f:
            print("READ", path, len(f.read()))
    except OSError as e:
        print("DENIED", path, type(e).__name__)
return triton_add(x, y)
"""


@needs_root
def test_reading_shadow_and_server_files_fails(kernel_home):
    canary = pathlib.Path(kernel_home) / "canary-secret.txt"
    canary.write_text("hunter2")
    ssh = pathlib.Path.home() / ".ssh" / "kernel-eval-canary"
    paths = ["/etc/shadow", str(canary), str(REPO / "pyproject.toml"), str(REPO / "tools" / "accuracy.py"), str(ssh)]
    r = attack(candidate_with(_print_reads(paths)))
    assert r.verdict == "pass"
    for path in paths[1:]:
        assert f"DENIED {path}" in r.stdout, r.stdout
    assert "READ /etc/shadow 0" in r.stdout or "DENIED /etc/shadow" in r.stdout


@needs_root
def test_environment_secrets_do_not_reach_the_sandbox(monkeypatch, tmp_path):
    from sandbox.backends import CPU
    from sandbox.pool import JobRequest, Pool

    monkeypatch.setenv("KERNEL_EVAL_TEST_SECRET", "hunter2")
    pool = Pool(CPU, slots=1, state_dir=tmp_path)  # a fresh zygote, started with the secret around
    body = """
import os
print("ENV", sorted(os.environ))
for pid in ("1", "self"):
    try:
        print("PROC", open(f"/proc/{pid}/environ", "rb").read())
    except OSError as e:
        print("PROC denied", e)
print("PIDS", sorted(p for p in os.listdir("/proc") if p.isdigit()))
return triton_add(x, y)
"""
    try:
        job = pool.run(
            JobRequest(
                "candidate", {"candidate.py": candidate_with(body)}, {}, [1], {"profile": "task"}, inputs=_inputs()
            ),
            timeout_s=30,
        )
    finally:
        pool.close()
    assert job.meta and job.meta["status"] == "ok", job.stderr
    assert "hunter2" not in job.stdout and "KERNEL_EVAL_TEST_SECRET" not in job.stdout
    assert "PIDS ['1']" in job.stdout  # nothing of the host is visible


def _inputs():
    import torch

    return {"s0/init": [], "s0/inputs": [torch.randn(1000), torch.randn(1000)]}


@needs_root
def test_writing_outside_the_job_dir_fails(kernel_home):
    targets = [
        "/usr/kernel-eval-pwned",
        str(REPO / "pwned.txt"),
        str(pathlib.Path(kernel_home) / "pwned"),
        "/etc/pwned",
    ]
    body = f"""
for path in {targets!r}:
    try:
        open(path, "w").write("x")
        print("WROTE", path)
    except OSError as e:
        print("DENIED", path, type(e).__name__)
return triton_add(x, y)
"""
    r = attack(candidate_with(body))
    assert "WROTE" not in r.stdout
    for path in targets:
        assert not os.path.exists(path)


@needs_root
def test_network_is_unreachable():
    hits = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.2)
    port = server.getsockname()[1]

    def accept():
        try:
            hits.append(server.accept())
        except OSError:
            pass

    listener = threading.Thread(target=accept)
    listener.start()
    body = f"""
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2)
    print("CONNECTED")
except OSError as e:
    print("NO NETWORK", type(e).__name__, e.errno)
return triton_add(x, y)
"""
    try:
        r = attack(candidate_with(body))
    finally:
        listener.join()
        server.close()
    assert "NO NETWORK" in r.stdout and not hits


# --- the process itself ---------------------------------------------------------------------------


def test_killing_the_parent_and_process_group_harms_nothing_outside():
    body = f"""
import os, signal
for target in ({os.getpid()}, os.getppid()):  # the server's own pid, and the parent
    try:
        os.kill(target, signal.SIGKILL)
        print("KILLED", target)
    except OSError as e:
        print("NOT KILLED", target, type(e).__name__)
os.killpg(0, signal.SIGKILL)  # its own group: as pid 1 of its namespace it survives even that
return triton_add(x, y)
"""
    r = attack(candidate_with(body))
    assert f"NOT KILLED {os.getpid()} ProcessLookupError" in r.stdout  # the server is not even visible
    assert r.verdict in ("pass", "crashed")


def test_segfault_is_a_crash_with_the_signal_named():
    r = attack(candidate_with("import ctypes\nctypes.string_at(0)\nreturn triton_add(x, y)"))
    assert r.verdict == "crashed" and r.error.type == "SIGSEGV" and "segmentation fault" in r.error.message


def test_os_exit_without_a_result_is_a_crash():
    r = attack(candidate_with("import os\nos._exit(0)"))
    assert r.verdict == "crashed" and "result" in r.error.message


def test_sys_exit_at_import_is_reported_not_obeyed():
    r = attack("import sys\nsys.exit(3)\n" + VECTOR_ADD_CANDIDATE)
    assert r.verdict == "compile_error" and r.error.type == "SystemExit" and r.error.line == 2


@needs_root
def test_new_namespaces_and_ptrace_are_refused():
    body = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("UNSHARE", libc.unshare(0x10000000), ctypes.get_errno())
print("PTRACE", libc.ptrace(0, 0, 0, 0), ctypes.get_errno())
return triton_add(x, y)
"""
    r = attack(candidate_with(body))
    assert "UNSHARE -1 1" in r.stdout and "PTRACE -1 1" in r.stdout  # EPERM


def test_socket_families_but_unix_and_unaccounted_memory_are_refused():
    """vsock reaches the hypervisor and netlink the host's kernel whatever the network namespace;
    a memfd or a SysV segment holds pages no address-space limit counts. At most 64 MiB is written
    if the refusal failed."""
    body = """
import ctypes, os, socket
for name, family in (("VSOCK", 40), ("NETLINK", 16), ("INET6", 10), ("PACKET", 17)):
    try:
        socket.socket(family, socket.SOCK_DGRAM if family == 16 else socket.SOCK_STREAM).close()
        print(name, "OPEN")
    except OSError as e:
        print(name, "REFUSED", e.errno)
a, b = socket.socketpair()  # AF_UNIX stays: nothing outside the job is reachable through it
a.close(); b.close()
try:
    fd = os.memfd_create("hoard")
    for _ in range(64):  # bounded: 64 MiB
        os.write(fd, bytes(1 << 20))
    print("MEMFD WROTE")
except OSError as e:
    print("MEMFD REFUSED", e.errno)
libc = ctypes.CDLL(None, use_errno=True)
print("SHMGET", libc.shmget(0, 1 << 20, 0o1600), ctypes.get_errno())
import mmap
try:
    mmap.mmap(-1, 1 << 20, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS).close()
    print("SHARED_ANON MAPPED")
except OSError as e:
    print("SHARED_ANON REFUSED", e.errno)
mmap.mmap(-1, 1 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS).close()  # what malloc does: allowed
return triton_add(x, y)
"""
    r = attack(candidate_with(body))
    assert r.verdict == "pass", r.summary
    for name in ("VSOCK", "NETLINK", "INET6", "PACKET"):
        assert f"{name} REFUSED 1" in r.stdout, r.stdout
    assert "MEMFD REFUSED 1" in r.stdout and "SHMGET -1 1" in r.stdout, r.stdout
    # a shared anonymous mapping escapes only the data limit: the job's cgroup counts it, and there it is allowed
    # (CUDA graphs need it); with no cgroup in force it is refused
    cgroup = r.isolation.get("cgroup")
    counted = cgroup is not None and cgroup.active
    assert ("SHARED_ANON MAPPED" if counted else "SHARED_ANON REFUSED 1") in r.stdout, (r.stdout, r.isolation)


# --- faking a pass ---------------------------------------------------------------------------------


def test_allocator_reuse_returns_poison_not_stale_data():
    r = attack(candidate_with("out = torch.empty_like(x)\ntriton_add(x, y)\nreturn out"))
    assert r.verdict == "fail" and r.checks.poisoned_allocations >= 1
    assert r.seeds[0].outputs[0].nan_mismatch_count == 1000


def test_zeroing_inputs_is_rejected():
    r = attack(candidate_with("out = triton_add(x, y)\nx.zero_()\nreturn out"))
    assert r.verdict == "rejected" and r.error.type == "input_mutation" and r.checks.input_mutation == [0]


def test_calling_the_torch_op_is_rejected():
    r = attack(candidate_with("return torch.add(x, y)"))
    assert r.verdict == "rejected" and r.error.type == "no_kernel_launched" and "torch.add" in r.summary


def test_a_token_kernel_beside_a_hidden_torch_op_is_rejected():
    """One launch of a Triton kernel on one element, and the output from torch with the torch-function
    hooks switched off: no element of the output depends on what the kernel stored."""
    body = "triton_add(x[:1], y[:1])\nwith torch._C.DisableTorchFunction():\n    return torch.add(x, y)"
    r = attack(candidate_with(body))
    assert r.verdict == "rejected" and r.error.type == "output_not_from_kernels", r.summary
    assert r.checks.provenance.dependent_elements == 0 and r.checks.provenance.nudged_elements > 0


HISTOGRAM_REFERENCE = """
import torch
import torch.nn as nn

N = 3000


class Model(nn.Module):
    def forward(self, x):
        return torch.histc(x, bins=16, min=-4.0, max=4.0)


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
"""

HISTOGRAM_CANDIDATE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    inside = (offs < n) & (x >= -4.0) & (x <= 4.0)
    b = tl.minimum(((x + 4.0) * 2.0).to(tl.int32), 15)
    tl.atomic_add(counts_ptr + b, tl.full([BLOCK], 1.0, tl.float32), mask=inside)


class ModelNew(nn.Module):
    def forward(self, x):
        counts = torch.zeros(16, dtype=torch.float32)
        histogram_kernel[(triton.cdiv(x.numel(), 1024),)](x, counts, x.numel(), BLOCK=1024)
        return counts
"""


def test_an_honest_kernel_that_stores_nothing_because_the_golden_is_empty_is_not_rejected():
    """Every input outside the histogram's range: the kernel's atomics are all masked off, the golden is all zeros,
    and so is the allocation it returns. Provenance cannot tell this from a token kernel: it says so and passes."""
    r = run_accuracy(
        RunAccuracyRequest(
            reference=HISTOGRAM_REFERENCE,
            candidate=HISTOGRAM_CANDIDATE,
            backend="cpu",
            num_seeds=1,
            value_range=(100.0, 200.0),
        )
    )
    assert r.verdict == "pass", r.summary
    assert r.checks.provenance is not None and r.checks.provenance.dependent_elements == 0
    assert "holds one value only" in (r.checks.provenance.note or "")
    inside = run_accuracy(
        RunAccuracyRequest(reference=HISTOGRAM_REFERENCE, candidate=HISTOGRAM_CANDIDATE, backend="cpu", num_seeds=1)
    )
    assert inside.verdict == "pass" and inside.checks.provenance.dependent_elements > 0, inside.summary


@pytest.mark.parametrize(
    "finish",
    [
        "return out",
        "return (out.to(torch.float64) * 1.0).to(torch.float32).contiguous()",  # torch finishes it: still its value
        "res = x + y\nres[:10] = out[:10]\nreturn res",  # mostly torch's: passes, with a warning
    ],
    ids=["kernel", "torch-epilogue", "mostly-torch"],
)
def test_outputs_computed_from_the_kernels_stores_are_not_rejected(finish):
    r = attack(candidate_with("out = triton_add(x, y)\n" + finish))
    assert r.verdict == "pass", r.summary
    fraction = r.checks.provenance.dependent_fraction
    assert fraction == (0.01 if "res" in finish else 1.0)
    assert any("only 1% of the output" in w for w in r.warnings) == ("res" in finish)


def test_an_honest_kernel_whose_every_output_is_nan_is_not_rejected():
    """A nudge leaves NaN and Inf as they are: an output that is all NaN (a row reduction under
    special_values, here NaN inputs) says nothing about where it came from, so provenance is not checked."""
    reference = VECTOR_ADD_REFERENCE.replace(
        "torch.randn(1000), torch.randn(1000)", "torch.full((1000,), float('nan')), torch.randn(1000)"
    )
    r = run_accuracy(
        RunAccuracyRequest(
            reference=reference, candidate=VECTOR_ADD_CANDIDATE, backend="cpu", num_seeds=1, timeout_s=30
        )
    )
    assert r.verdict == "pass", r.summary
    assert not r.checks.provenance.checked and "NaN or Inf" in r.checks.provenance.note


def test_importing_the_reference_fails():
    body = """
try:
    from reference import Model
    print("GOT REFERENCE")
except ImportError:
    print("NO REFERENCE")
import os
print("JOB FILES", sorted(os.listdir(os.path.dirname(__file__))))
return triton_add(x, y)
"""
    r = attack(candidate_with(body))
    assert "NO REFERENCE" in r.stdout and "reference.py" not in r.stdout


def test_returning_a_cached_output_across_seeds_fails():
    prelude = "_CACHE = []"
    body = "if not _CACHE:\n    _CACHE.append(triton_add(x, y))\nreturn _CACHE[0]"
    r = attack(candidate_with(body, prelude), num_seeds=3)
    assert r.verdict == "fail"
    assert [s.passed for s in r.seeds].count(True) == 1


def test_a_complex_output_is_the_candidates_fail_not_a_bad_call():
    r = attack(candidate_with("out = triton_add(x, y)\nreturn torch.complex(out, out)"))
    assert r.verdict == "fail" and r.run_id, r.summary
    assert "complex64 vs expected float32" in r.summary


def test_nan_filled_output_fails():
    r = attack(candidate_with("triton_add(x, y)\nreturn torch.full_like(x, float('nan'))"))
    assert r.verdict == "fail" and r.seeds[0].outputs[0].dimensions.nan_positions is False


@pytest.mark.parametrize(
    "tamper",
    [
        "import sandbox.harness.read_watch as w\nw.ReadWatch.found = lambda self: [{'bogus': 1}]",
        "import sandbox.harness.guards as g\ng.OutputGuards.violations = lambda self: [{'shape': 'x'}]",
        "import sandbox.harness.hooks as h\n"
        "h.ForwardMonitor.start_forward = lambda self: setattr(self, 'poisoned', 'many')",
    ],
    ids=["reads", "writes", "counters"],
)
def test_a_report_the_harness_never_writes_is_rejected_not_a_traceback(tamper):
    r = attack(candidate_with("return triton_add(x, y)", prelude=tamper))
    assert r.verdict == "rejected" and r.error is not None and r.error.type == "malformed_report", r.summary
    assert "changed the sandbox's harness" in r.error.message
    from tools.diagnosis import explain_failure
    from tools.models.diagnosis import ExplainRequest

    explained = explain_failure(ExplainRequest(run_id=r.run_id, heatmap=False))
    assert explained.diagnoses[0].pattern == "runtime_error", explained.summary


def test_scanning_gc_finds_no_golden():
    body = """
import gc
found = [o for o in gc.get_objects() if isinstance(o, torch.Tensor) and o.dtype == torch.float64]
print("FLOAT64 TENSORS", len(found))
return found[0].float() if found else triton_add(x, y) * 0
"""
    r = attack(candidate_with(body))
    assert "FLOAT64 TENSORS 0" in r.stdout and r.verdict == "fail"


@needs_root
def test_isolation_report_lists_every_mechanism_active():
    r = attack(VECTOR_ADD_CANDIDATE)
    expected = {
        "pid_namespace",
        "network_namespace",
        "readonly_root",
        "private_tmp",
        "unprivileged_uid",
        "no_new_privs",
        "seccomp",
        "rlimit_address_space",
        "rlimit_processes",
        "rlimit_file_size",
        "memory_limit",
    }
    assert expected <= {name for name, item in r.isolation.items() if item.active}, r.isolation


def _in_isolated_child(plan, limits, probe) -> dict:
    """`probe(report)` run in a forked child isolated by `plan` and `limits`: what it returns, or {"error": ...}."""
    import json

    from sandbox.isolation import Report, enter

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        try:
            report = Report()
            enter(plan, limits, {}, report)
            os.write(write, json.dumps(probe(report)).encode())
        except BaseException as exc:
            os.write(write, json.dumps({"error": repr(exc)}).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        seen = json.loads(f.read() or "{}")
    os.waitpid(pid, 0)
    return seen


@needs_root
def test_a_checkout_under_host_tmp_is_bound_inside_the_private_tmp(tmp_path_factory):
    """CI clones into /tmp: the package and venv then live under the host's /tmp, which each job
    replaces with its own tmpfs. They must still be visible (read-only) and /tmp still private."""

    from sandbox.isolation import JobLimits, _dedupe, make_plan

    host_tmp = pathlib.Path(tempfile.mkdtemp(dir="/tmp", prefix="kernel-eval-checkout-"))
    (host_tmp / "pkg").mkdir()
    (host_tmp / "pkg" / "marker.txt").write_text("bound")
    (host_tmp / "secret.txt").write_text("host tmp")  # beside the bound dir: must stay hidden
    plan = make_plan(str(tmp_path_factory.mktemp("state")), [], False)
    # as make_plan does with sys.path entries; /tmp itself is never bound
    plan.readonly_paths = _dedupe(plan.readonly_paths + [str(host_tmp / "pkg"), "/tmp"])

    def probe(report) -> dict:
        seen = {
            "report": {k: v["active"] for k, v in report.items.items()},
            "marker": (host_tmp / "pkg" / "marker.txt").read_text(),
            "secret_visible": (host_tmp / "secret.txt").exists(),
            "tmp_writable": open("/tmp/probe", "w").write("x") == 1,
        }
        try:
            (host_tmp / "pkg" / "new").write_text("x")
            seen["pkg_writable"] = True
        except OSError:
            seen["pkg_writable"] = False
        return seen

    seen = _in_isolated_child(plan, JobLimits(tmp_mb=8, uid=61999, gid=61999), probe)
    subprocess.run(["rm", "-rf", str(host_tmp)], check=False)
    assert "error" not in seen, seen
    assert seen["report"]["readonly_root"] and seen["report"]["private_tmp"], seen
    assert seen["marker"] == "bound" and not seen["secret_visible"]
    assert seen["tmp_writable"] and not seen["pkg_writable"]


@needs_root
def test_a_gpu_jobs_data_limit_holds_private_and_shared_memory(tmp_path_factory):
    """A GPU job cannot have an address-space limit (its driver reserves huge ranges): RLIMIT_DATA
    at what it holds + its budget bounds private allocations, seccomp refuses shared anonymous
    mappings and its /dev has no /dev/zero (shared mappings of either escape RLIMIT_DATA). The same
    isolation a cuda job gets, applied here to a forked process. Bounded: at most 512 MiB is taken
    if the limit failed."""

    from sandbox.isolation import JobLimits, make_plan, seccomp

    plan = make_plan(str(tmp_path_factory.mktemp("state")), [], False, data_limit=True)

    def probe(report) -> dict:
        seen = {"report": report.items, "dev_zero": os.path.exists("/dev/zero")}
        try:
            seen["private"] = len(bytearray(512 << 20))
        except MemoryError:
            seen["private"] = "refused"
        seen["small"] = len(bytearray(16 << 20))  # within the budget: honest work runs
        import mmap

        try:
            mmap.mmap(-1, 1 << 20, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS).close()
            seen["shared"] = "mapped"
        except OSError as exc:
            seen["shared"] = exc.errno
        seen["refused_said"] = seccomp.refuses_shared_mappings()  # what the timing job asks before cuda_graphs
        return seen

    seen = _in_isolated_child(plan, JobLimits(tmp_mb=8, uid=61998, gid=61998, data_budget=128 << 20), probe)
    assert "error" not in seen, seen
    assert seen["private"] == "refused" and seen["small"] == 16 << 20, seen
    assert seen["shared"] == 1 and not seen["dev_zero"] and seen["refused_said"], seen  # EPERM
    report = seen["report"]
    assert report["rlimit_data"]["active"] and "rlimit_address_space" not in report, report
    assert report["memory_limit"]["active"], report
    assert "data 128 MiB" in report["memory_limit"]["detail"], report
    assert "no /dev/zero" in report["memory_limit"]["detail"], report


@needs_root
def test_shared_anonymous_mappings_are_allowed_only_where_the_jobs_cgroup_counts_them(tmp_path_factory):
    """The CUDA driver maps shared anonymous host memory for a graph (scripts/gpu_graph_probe.py on an H100: capture
    fails as "out of memory" under the strict filter, passes without its mmap rule). Those pages escape the data
    limit, not a job's cgroup: where the cgroup is in force the filter allows them and says so (here the state the
    zygote hands the job says it is; the mapping is 1 MiB)."""
    import mmap

    from sandbox.isolation import CgroupState, JobLimits, make_plan, seccomp

    plan = make_plan(str(tmp_path_factory.mktemp("state")), [], False, data_limit=True)

    def probe(report) -> dict:
        mmap.mmap(-1, 1 << 20, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS).close()
        return {"report": report.items, "refused_said": seccomp.refuses_shared_mappings()}

    counted = CgroupState(True, "memory 512 MiB (the job's cgroup)")
    limits = JobLimits(tmp_mb=8, uid=61997, gid=61997, data_budget=128 << 20, cgroup=counted)
    seen = _in_isolated_child(plan, limits, probe)
    assert "error" not in seen and seen["refused_said"] is False, seen
    assert "shared anonymous mmap" not in seen["report"]["seccomp"]["detail"], seen["report"]["seccomp"]
    assert "shared anonymous" not in seen["report"]["memory_limit"]["detail"], seen["report"]["memory_limit"]


@needs_root
def test_a_full_disk_costs_the_run_record_not_the_verdict_and_a_full_sandbox_dir_is_the_servers_fault():
    """Once the home was full, every call of every client died writing its files. Bounded: two 1 MiB
    tmpfs mounted over the store's and the sandbox's directories, removed after."""
    from sandbox.isolation import linux
    from tools.errors import ServerFault
    from tools.services import services

    svc = services()
    assert_healthy()  # the pool has started, its directories exist
    mounted = []
    try:
        for target in (svc.runs.root, svc.home / "sandbox-cpu" / "jobs"):
            linux.mount("tmpfs", str(target), "tmpfs", 0, "size=1m")
            mounted.append(target)
            with open(target / "filler", "wb") as f:
                try:
                    f.write(bytes(2 << 20))
                except OSError:
                    pass  # full: what the test wants
            if len(mounted) == 1:
                r = attack(VECTOR_ADD_CANDIDATE)
                assert r.verdict == "pass" and any("was not stored" in w for w in r.warnings), r.warnings
        with pytest.raises(ServerFault, match="a fault of this server, not of the kernel"):
            attack(VECTOR_ADD_CANDIDATE)  # the log says what: "cannot write the job's files ... No space left"
        from tools.cli.commands import main

        sources = {"--reference": VECTOR_ADD_REFERENCE, "--candidate": VECTOR_ADD_CANDIDATE}
        argv = ["run", "--backend", "cpu", "--num-seeds", "1"]
        with tempfile.TemporaryDirectory() as directory:
            for flag, text in sources.items():
                path = pathlib.Path(directory) / f"{flag.strip('-')}.py"
                path.write_text(text)
                argv += [flag, str(path)]
            assert main(argv) == 3  # the server's fault, not a usage error (2) nor a failing kernel (1)
    finally:
        for target in reversed(mounted):
            linux.umount2(str(target), linux.MNT_DETACH)


def test_seed_zeros_tensors_count_against_the_per_run_cap(monkeypatch):
    """Seed 0's tensors skipped the cap (1.34 GB stored for one failing run). The cap is lowered to 1 KiB
    here so that a 1000-element output passes it."""
    import tools.accuracy as accuracy
    from tools.services import services

    monkeypatch.setattr(accuracy, "MAX_STORED_BYTES", 1024)
    r = attack(candidate_with("return triton_add(x, y) * 2"))
    assert r.verdict == "fail"
    store = services().runs
    assert store.tensors(r.run_id) == {} and "seed 0's tensors" in store.tensors_note(r.run_id)


def test_a_kernel_mask_turned_into_floats_by_torch_is_from_the_kernel():
    """A bool or int8 store is flipped by the nudge: a mask computed in Triton and cast by torch counts."""
    kernel = """
@triton.jit
def positive_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, (tl.load(x_ptr + offs, mask=m) > 0).to(tl.int8), mask=m)
"""
    reference = VECTOR_ADD_REFERENCE.replace("return x + y", "return (x > 0).float()")
    body = (
        "flags = torch.empty(x.shape, dtype=torch.int8)\n"
        "positive_kernel[(triton.cdiv(x.numel(), 256),)](x, flags, x.numel(), BLOCK=256)\n"
        "return flags.float()"
    )
    r = run_accuracy(
        RunAccuracyRequest(
            reference=reference, candidate=candidate_with(body, kernel), backend="cpu", num_seeds=1, timeout_s=60
        )
    )
    assert r.verdict == "pass" and r.checks.provenance.dependent_fraction == 1.0, r.summary


def test_a_wrong_buffer_returned_is_an_honest_fail_not_a_rejection():
    """Provenance judges only outputs that pass: a kernel that wrote another buffer than the one returned
    is a bug explain_failure diagnoses (an unwritten output)."""
    r = attack(candidate_with("out = torch.zeros_like(x)\ntriton_add(x, y)\nreturn out"))
    assert r.verdict == "fail" and r.checks.provenance.dependent_fraction == 0.0


def test_a_forward_without_a_launch_beside_a_launch_at_import_is_rejected():
    prelude = "triton_add(torch.ones(4), torch.ones(4))  # at import: the forwards launch nothing"
    r = attack(candidate_with("return x + y", prelude))
    assert r.verdict == "rejected" and r.error.type == "no_kernel_launched", r.summary
    assert r.checks.kernel_launches >= 1 and 0 in r.checks.launches_per_forward


def test_a_tensor_subclass_output_is_refused():
    prelude = "class Liar(torch.Tensor):\n    pass"
    r = attack(candidate_with("return triton_add(x, y).as_subclass(Liar)", prelude))
    assert r.verdict == "runtime_error" and "subclass of torch.Tensor" in r.summary, r.summary


def test_a_report_missing_a_check_it_was_asked_for_is_malformed():
    """A forged result tends to leave out what its writer did not know to fake (here: the provenance)."""
    prelude = (
        "import sandbox.harness.candidate as c\n"
        "_real = c._provenance\n"
        "c._provenance = lambda *a: None\n"
        "import sandbox.tensorio as t\n"
        "_write = t.write_bundle\n"
        "def _forged(fd, values, meta=None, **k):\n"
        "    if meta:\n"
        "        meta.pop('provenance', None)\n"
        "    return _write(fd, values, meta, **k)\n"
        "t.write_bundle = _forged"
    )
    r = attack(candidate_with("return triton_add(x, y)", prelude))
    assert r.verdict == "rejected" and r.error.type == "malformed_report", r.summary


def test_an_output_changed_after_the_forward_returned_is_judged_as_returned():
    """The candidate's own output tensor, edited by a later forward: the harness judges a copy made when
    the forward returned."""
    prelude = "_RETURNED = []"
    body = "for t in _RETURNED:\n    t.add_(1.0)\nout = triton_add(x, y)\n_RETURNED.append(out)\nreturn out"
    r = attack(candidate_with(body, prelude), num_seeds=2)
    assert r.verdict == "pass", r.summary
