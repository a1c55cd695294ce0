"""Isolation of one sandboxed job, applied by the forked child to itself before untrusted code runs.

The plan (what to bind, which limits, the seccomp program) is made once in the zygote; each job
applies it after the fork. Every mechanism is attempted and recorded in the job's isolation
report, active or not, with the reason: the result never claims more isolation than it had.

As root, the job is pid 1 of its own pid namespace (see linux.PidNamespaceForker) and gets new
mount, network, IPC and UTS namespaces; a new root on a tmpfs holding read-only binds of the
system and Python directories at their own paths, a fresh /proc, a minimal /dev, a size-limited
/tmp and a read-only /job with the sources; then rlimits, an unprivileged per-slot uid,
no_new_privs and the seccomp filter. Without root only rlimits, no_new_privs, seccomp and the
scrubbed environment apply, and the report says so.
"""

from __future__ import annotations

import glob
import os
import resource
import signal
import sys
from dataclasses import dataclass, field
from typing import NamedTuple

from sandbox.isolation import linux, seccomp

#: Never visible inside, even where their directory is bound.
MASKED_FILES = ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers"]
MASKED_DIRS = ["/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d"]
SYSTEM_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"]
BASE_DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]
SHM_MB = 64  # every job's /dev/shm tmpfs
JOB_FILES_MB = 64  # every job's /job tmpfs (its sources)

RLIMITS = {
    "address_space": resource.RLIMIT_AS,
    "cpu_seconds": resource.RLIMIT_CPU,
    "file_size": resource.RLIMIT_FSIZE,
    "open_files": resource.RLIMIT_NOFILE,
    "processes": resource.RLIMIT_NPROC,
    "core_dump": resource.RLIMIT_CORE,
}


@dataclass
class Plan:
    """What every job of one zygote gets; made once by make_plan()."""

    root_mode: bool  # namespaces and uid drop need root
    readonly_paths: list[str]
    device_patterns: list[str]
    base_devices: list[str]
    newroot: str  # an empty host directory each job mounts its tmpfs root over (privately)
    seccomp_program: bytes | None
    #: the same filter with shared anonymous mmap allowed: for a job whose cgroup counts those pages
    seccomp_shared_program: bytes | None


class CgroupState(NamedTuple):
    """Whether the job's memory and pids cgroup (made by the zygote: sandbox/cgroup.py) is in force, and what it
    is or why not."""

    active: bool
    detail: str


@dataclass
class JobLimits:
    tmp_mb: int = 256
    rlimits: dict[str, int] = field(default_factory=dict)
    uid: int = 60000
    gid: int = 60000
    #: RLIMIT_DATA at what the (device-warm) job holds + this many bytes; 0: none (see data_limit)
    data_budget: int = 0
    #: host directory -> path inside, bound writable (the Triton cache of this candidate's source)
    writable: dict[str, str] = field(default_factory=dict)
    writable_cap_mb: int = 0  # what the pool trims each writable directory to after the job
    #: (in force, what it is or why not): the job's memory and pids cgroup, made by the zygote (sandbox/cgroup.py)
    cgroup: CgroupState = CgroupState(False, "no cgroup")


def _python_paths() -> list[str]:
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # .../sandbox
    paths = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable)), package}
    for entry in sys.path:
        real = os.path.realpath(entry) if entry else ""
        # never a directory holding the package's source tree: that is the server's checkout
        if real and os.path.isdir(real) and not package.startswith(real.rstrip("/") + "/"):
            paths.add(real)
    return sorted(paths)


#: Made fresh in every job's root: never bound from the host, even when sys.path names them.
PRIVATE_PATHS = ("/tmp", "/dev", "/proc", "/job")


def _dedupe(paths: list[str]) -> list[str]:
    """Drop paths inside another listed path (a recursive bind already covers them)."""
    out: list[str] = []
    for p in sorted({os.path.normpath(p) for p in paths if os.path.lexists(p)}):
        if p in PRIVATE_PATHS:
            continue
        if not any(p == q or p.startswith(q.rstrip("/") + "/") for q in out):
            out.append(p)
    return out


def make_plan(state_dir: str, device_patterns: list[str], bind_sys: bool, data_limit: bool = False) -> Plan:
    """`data_limit`: jobs are bounded by RLIMIT_DATA, which does not count a shared mapping of
    /dev/zero (shmem pages), so their /dev has none."""
    newroot = os.path.join(state_dir, "newroot")
    os.makedirs(newroot, mode=0o700, exist_ok=True)
    return Plan(
        root_mode=os.geteuid() == 0,
        readonly_paths=_dedupe(SYSTEM_PATHS + _python_paths() + (["/sys"] if bind_sys else [])),
        device_patterns=device_patterns,
        base_devices=[d for d in BASE_DEVICES if not (data_limit and d == "/dev/zero")],
        newroot=newroot,
        seccomp_program=seccomp.build_filter(),
        seccomp_shared_program=seccomp.build_filter(shared_mappings=True),
    )


class Report:
    """mechanism -> {"active": bool, "detail": str}, sent back with the job's result."""

    def __init__(self):
        self.items: dict[str, dict] = {}

    def ok(self, name: str, detail: str = "") -> None:
        self.items[name] = {"active": True, "detail": detail}

    def no(self, name: str, detail: str) -> None:
        self.items[name] = {"active": False, "detail": detail}


def _ro_bind(source: str, target: str) -> None:
    linux.mount(source, target, None, linux.MS_BIND | linux.MS_REC)
    linux.mount(
        None, target, None, linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV
    )


def _bind_path(root: str, path: str) -> None:
    target = root + path
    if os.path.islink(path):  # /lib -> usr/lib: replicate the link, the target is bound anyway
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.symlink(os.readlink(path), target)
        return
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    _ro_bind(path, target)


def _mask(root: str) -> None:
    for path in MASKED_FILES:
        if os.path.isfile(root + path):
            _ro_bind("/dev/null", root + path)
    for path in MASKED_DIRS:
        if os.path.isdir(root + path):
            linux.mount("tmpfs", root + path, "tmpfs", linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV, "size=4k")


def _make_dev(root: str, plan: Plan) -> None:
    dev = root + "/dev"
    os.mkdir(dev)
    linux.mount("tmpfs", dev, "tmpfs", linux.MS_NOSUID | linux.MS_NOEXEC, "size=64k,mode=0755")
    nodes = list(plan.base_devices)
    for pattern in plan.device_patterns:
        nodes.extend(sorted(glob.glob(pattern)))
    bound_dirs: list[str] = []
    for node in nodes:
        if not os.path.exists(node) or any(node.startswith(d + "/") for d in bound_dirs):
            continue
        target = root + node
        if os.path.isdir(node):  # e.g. /dev/nvidia-caps: bound whole, with what is inside
            os.makedirs(target, exist_ok=True)
            linux.mount(node, target, None, linux.MS_BIND | linux.MS_REC)
            bound_dirs.append(node)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
        linux.mount(node, target, None, linux.MS_BIND)
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        os.symlink(f"/proc/self/fd/{i}", f"{dev}/{name}")
    os.symlink("/proc/self/fd", f"{dev}/fd")
    os.mkdir(f"{dev}/shm")
    linux.mount(
        "tmpfs", f"{dev}/shm", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC, f"size={SHM_MB}m,mode=1777"
    )


OLD_ROOT = "/.old"


def _build_root(plan: Plan) -> None:
    """Everything of the root that is the same for every job, then pivot into it. The host stays
    reachable under OLD_ROOT until _finish_root: only trusted code runs in between."""
    root = plan.newroot
    linux.mount("tmpfs", root, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=1m,mode=0755")
    # /tmp before the binds: a checkout or venv under the host's /tmp is bound inside it
    os.mkdir(root + "/tmp")
    linux.mount("tmpfs", root + "/tmp", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=256m,mode=0700")
    for path in plan.readonly_paths:
        _bind_path(root, path)
    _mask(root)
    os.mkdir(root + "/proc")
    linux.mount("proc", root + "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
    _make_dev(root, plan)
    os.mkdir(root + "/job")
    linux.mount("tmpfs", root + "/job", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, f"size={JOB_FILES_MB}m,mode=0755")
    os.mkdir(root + OLD_ROOT)
    os.chdir(root)
    linux.pivot_root(".", OLD_ROOT.lstrip("/"))
    os.chdir("/")


def _finish_root(limits: JobLimits, files: dict[str, bytes]) -> None:
    """The job's own parts (its Triton cache, /tmp's owner and size, the sources), then the host
    goes away for good and the root turns read-only."""
    for host, inside in limits.writable.items():
        os.makedirs(inside, exist_ok=True)
        linux.mount(OLD_ROOT + host, inside, None, linux.MS_BIND | linux.MS_REC)
        linux.mount(None, inside, None, linux.MS_REMOUNT | linux.MS_BIND | linux.MS_NOSUID | linux.MS_NODEV)
    linux.mount(None, "/tmp", None, linux.MS_REMOUNT | linux.MS_NOSUID | linux.MS_NODEV, f"size={limits.tmp_mb}m")
    os.chown("/tmp", limits.uid, limits.gid)
    for name, data in files.items():
        with open(f"/job/{name}", "wb") as f:
            f.write(data)
    linux.mount(None, "/job", None, linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV)
    linux.umount2(OLD_ROOT, linux.MNT_DETACH)
    os.rmdir(OLD_ROOT)
    linux.mount(None, "/", None, linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV)


def _apply_rlimits(limits: JobLimits, report: Report) -> None:
    for name, value in limits.rlimits.items():
        try:
            resource.setrlimit(RLIMITS[name], (value, value))  # soft = hard: pid 1 ignores soft signals
            report.ok(f"rlimit_{name}", str(value))
        except (ValueError, OSError) as exc:
            report.no(f"rlimit_{name}", str(exc))


def _apply_data_limit(limits: JobLimits, report: Report) -> None:
    """RLIMIT_DATA at what this process holds now (a GPU job: its device context made) + the budget.
    RLIMIT_AS cannot bound a GPU job: its driver reserves address ranges far beyond any budget."""
    if not limits.data_budget:
        return
    try:
        held = linux.status_bytes("VmData")
        resource.setrlimit(resource.RLIMIT_DATA, (held + limits.data_budget, held + limits.data_budget))
        report.ok("rlimit_data", str(held + limits.data_budget))
    except (ValueError, OSError) as exc:
        report.no("rlimit_data", str(exc))


def report_memory_limit(limits: JobLimits, report: Report) -> None:
    """Which bound holds the job's host memory, said as it is: the job's cgroup counts every page of
    every process of it; the address-space limit counts what one process maps; the data limit of a
    GPU job counts its private allocations; pages of a memory file, a SysV segment or a shared
    anonymous mapping neither would count are refused by seccomp; the tmpfs places are sized.
    Call after the rlimits and seccomp are in force."""
    items = report.items
    cgroup = items.get("cgroup", {})
    seccomp_filter = items.get("seccomp", {}).get("active", False)
    isolated_fs = items.get("private_tmp", {}).get("active", False)
    address_space = items.get("rlimit_address_space", {}).get("active", False)
    data = items.get("rlimit_data", {}).get("active", False)
    parts = [cgroup["detail"]] if cgroup.get("active") else []
    if address_space:
        space = limits.rlimits["address_space"] >> 20
        parts.append(f"address space {space} MiB per process (zygote's mappings included)")
    if data:
        budget = limits.data_budget >> 20
        parts.append(f"data {budget} MiB per process beyond what the warm job held (private allocations)")
    if seccomp_filter:
        refused = "memfd_create, SysV shmget" + ("" if cgroup.get("active") else " and shared anonymous mmap")
        parts.append(f"{refused} refused")
    if isolated_fs:
        parts.append(f"/tmp {limits.tmp_mb} MiB and /dev/shm {SHM_MB} MiB tmpfs" + (", no /dev/zero" if data else ""))
    if cgroup.get("active"):  # every page the job's processes make from the job's start on, whatever the process
        report.ok("memory_limit", "; ".join(parts))
    elif not (address_space or data):
        report.no(
            "memory_limit",
            "no address-space or data limit in force and no cgroup: a job can use all host memory"
            + (f" ({'; '.join(parts)})" if parts else ""),
        )
    elif not (seccomp_filter and isolated_fs):
        report.no(
            "memory_limit",
            "; ".join(parts) + ": without root or seccomp, shared memory the limit does not count is open",
        )
    else:
        report.ok("memory_limit", "; ".join(parts))


class Prepared:
    """A process half isolated by prepare(): its namespaces and root are in place, the job's own
    parts not yet. `host(path)` is where a host path is visible meanwhile."""

    def __init__(self, report: Report, isolated_fs: bool):
        self.report = report
        self.isolated_fs = isolated_fs

    def host(self, path: str) -> str:
        return OLD_ROOT + path if self.isolated_fs else path


def prepare(plan: Plan, report: Report | None = None) -> Prepared:
    """What every job gets, done before the job is known (a spare child does it while idle)."""
    report = report or Report()
    os.setsid()
    report.ok("process_group", "own session; killed as a whole")
    if os.getpid() == 1:
        report.ok("pid_namespace", "pid 1 of its own namespace: other processes invisible, all die with it")
    else:
        report.no("pid_namespace", "needs root")
    if not plan.root_mode:
        for name in ("network_namespace", "readonly_root", "private_tmp"):
            report.no(name, f"needs root (running as uid {os.geteuid()})")
        return Prepared(report, False)
    try:
        linux.unshare(linux.CLONE_NEWNS | linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS)
        report.ok("network_namespace", "no interfaces but a down loopback")
        report.ok("ipc_uts_namespaces")
        linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
        _build_root(plan)
        linux.sethostname("sandbox")
        return Prepared(report, True)
    except OSError as exc:
        report.no("readonly_root", f"mount namespace failed: {exc}")
        return Prepared(report, False)


def complete(prepared: Prepared, plan: Plan, limits: JobLimits, files: dict[str, bytes]) -> str:
    """The job's own isolation, after prepare(); returns the directory holding `files`."""
    report = prepared.report
    job_dir = "/job"
    if prepared.isolated_fs:
        try:
            _finish_root(limits, files)
            report.ok("readonly_root", f"{len(plan.readonly_paths)} read-only binds; secrets masked")
            only = "" if limits.writable else ", the only writable place"
            report.ok("private_tmp", f"/tmp tmpfs of {limits.tmp_mb} MiB{only}")
            for inside in limits.writable.values():
                report.ok(
                    "triton_cache",
                    f"{inside}: a host directory, writable, shared with the jobs of the same source (the sandbox's "
                    f"group only); a job that writes past {limits.writable_cap_mb} MiB in it is killed, and the pool "
                    f"cuts it to {limits.writable_cap_mb} MiB after each job",
                )
        except OSError as exc:  # never run the job with the host still reachable
            raise RuntimeError(f"the sandbox's root could not be finished: {exc}") from exc
    else:
        job_dir = _write_files_unisolated(files, limits if plan.root_mode else None)
    _apply_rlimits(limits, report)
    _apply_data_limit(limits, report)
    (report.ok if limits.cgroup.active else report.no)("cgroup", limits.cgroup.detail)
    if plan.root_mode:
        try:
            os.setgroups([])
            os.setresgid(limits.gid, limits.gid, limits.gid)  # glibc applies these to every thread
            os.setresuid(limits.uid, limits.uid, limits.uid)
            report.ok(
                "unprivileged_uid", f"uid {limits.uid} (one per slot, from a block no other pool on the machine uses)"
            )
        except OSError as exc:
            report.no("unprivileged_uid", str(exc))
    else:
        report.no("unprivileged_uid", "not root: runs as the server's own user")
    try:
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)  # after setresuid, which clears it
        report.ok("no_new_privs")
    except OSError as exc:
        report.no("no_new_privs", str(exc))
    # the shared anonymous mmap rule only keeps pages the data limit does not count out: a job's cgroup counts them
    shared = limits.cgroup.active
    program = plan.seccomp_shared_program if shared else plan.seccomp_program
    if program is None:
        report.no("seccomp", "no filter for this architecture")
    else:
        try:
            scope = seccomp.load_filter(program)
            seccomp.loaded(refuses_shared_mappings=not shared)
            mappings = "" if shared else ", shared anonymous mmap"
            report.ok(
                "seccomp",
                f"sockets but AF_UNIX, memfd/SysV shared memory{mappings}, ptrace, namespaces, mounts, bpf, ... denied "
                f"({scope})",
            )
        except OSError as exc:
            report.no("seccomp", str(exc))
    report_memory_limit(limits, report)
    return job_dir


def enter(plan: Plan, limits: JobLimits, files: dict[str, bytes], report: Report) -> str:
    """Isolate the calling (freshly forked) process in one go. Returns the directory holding `files`."""
    return complete(prepare(plan, report), plan, limits, files)


def _write_files_unisolated(files: dict[str, bytes], limits: JobLimits | None) -> str:
    """Without a private root the sources go to a fresh temp dir, owned by the job's uid when
    the job drops to one (else the unprivileged job could not read them)."""
    import tempfile

    job_dir = tempfile.mkdtemp(prefix="kernel-eval-job-")
    for name, data in files.items():
        with open(os.path.join(job_dir, name), "wb") as f:
            f.write(data)
        if limits is not None:
            os.chown(os.path.join(job_dir, name), limits.uid, limits.gid)
    if limits is not None:
        os.chown(job_dir, limits.uid, limits.gid)
    return job_dir
