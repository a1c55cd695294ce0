"""A memory and pids cgroup per sandboxed job, made by the zygote (root) around each job it starts.

Why: the rlimits bound one process's mappings (RLIMIT_AS, RLIMIT_DATA), not the pages the host
holds for a job: a job's forked children each get their own address space, and the pages of the
result file it writes are no mapping of anyone. A cgroup's memory limit charges every page the
job's processes make (private memory, tmpfs, shared files, page cache) to the job, whatever the
process, and the kernel's OOM killer holds the line; pids.max bounds its processes and threads.

Where: cgroup v1 (separate `memory` and `pids` hierarchies, as on this project's VMs): under the
zygote's own cgroup, `<own memory cgroup>/<base>/job-<id>-<pid>`, the same under pids, where <base> is
`kernel-eval-<pid namespace>-<zygote pid>-<random token>`. cgroup v2: beside the zygote's own cgroup,
`<parent>/<base>/job-<id>-<pid>` (a
cgroup holding processes cannot give children the memory controller), where the parent gives its
children the memory controller and root may write there; elsewhere none, and each job's
isolation report says why. Pages a job charged before it was moved in (the
warm spare's device context) stay with the zygote's cgroup.

The zygote moves the spare's process in before it sends the job's command, so nothing of the job
runs outside; it reads the OOM-kill count when the job ends (the job is then "out_of_memory") and
removes the directory once the job's processes are gone.
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass, field

#: A job's cgroup directory cannot be removed (EBUSY) while the kernel still tears its processes
#: down: the zygote's loop retries it for this long.
REMOVE_FOR_S = 60.0
#: A job whose cgroup held this close to its limit reached it (a page's charge fails past the limit, not at it).
AT_LIMIT_BYTES = 1 << 20


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def own_paths(proc_cgroup: str) -> dict[str, str]:
    """controller ("memory", "pids", or "" for v2's unified tree) -> the cgroup path /proc/<pid>/cgroup names."""
    paths = {}
    for line in proc_cgroup.splitlines():
        number, controllers, path = line.split(":", 2)
        if number == "0" and controllers == "":
            paths[""] = path
        for controller in controllers.split(","):
            if controller in ("memory", "pids"):
                paths[controller] = path
    return paths


def mounts(mountinfo: str) -> dict[str, tuple[str, str]]:
    """controller ("memory", "pids", "" for cgroup2) -> (mount point, the cgroup path it shows as /),
    from the text of /proc/<pid>/mountinfo."""
    found = {}
    for line in mountinfo.splitlines():
        fields = line.split()
        dash = fields.index("-")
        fstype, options = fields[dash + 1], fields[dash + 3].split(",")
        root, point = fields[3], fields[4]
        if fstype == "cgroup2":
            found.setdefault("", (point, root))
        elif fstype == "cgroup":
            for controller in ("memory", "pids"):
                if controller in options:
                    found.setdefault(controller, (point, root))
    return found


def on_mount(mount: tuple[str, str], path: str) -> str | None:
    """Where cgroup `path` is in the file system, through `mount` (None: the mount does not show it)."""
    point, root = mount
    if root != "/" and not (path == root or path.startswith(root.rstrip("/") + "/")):
        return None  # our cgroup is outside what this mount shows
    relative = path[len(root) :] if root != "/" else path
    return os.path.normpath(os.path.join(point, relative.lstrip("/")))


def pid_namespace() -> str:
    """This process's pid namespace (the inode of /proc/self/ns/pid): a pid means a process only within it."""
    try:
        return os.readlink("/proc/self/ns/pid").removeprefix("pid:[").removesuffix("]")
    except OSError:
        return "unknown"


def base_name() -> str:
    """`kernel-eval-<pid namespace>-<zygote pid>-<token>`: whose it is, for sweep_dead, and never a name an
    earlier process of the same pid (in this or another namespace) left behind."""
    return f"kernel-eval-{pid_namespace()}-{os.getpid()}-{secrets.token_hex(4)}"


def sweep_dead(parent: str) -> None:
    """Remove what zygotes of this pid namespace that died without closing left under `parent` (their jobs are
    gone too). A zygote of another namespace (another container on the same cgroup tree) may be alive under a pid
    that is dead or another process here: its base is never touched (nor the old `kernel-eval-<pid>` names,
    whose namespace is unknown)."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    ours = pid_namespace()
    for name in names:
        parts = name.split("-")  # kernel, eval, namespace, pid, token
        if len(parts) != 5 or parts[:2] != ["kernel", "eval"] or parts[2] != ours or not parts[3].isdigit():
            continue
        if os.path.exists(f"/proc/{parts[3]}"):
            continue
        base = os.path.join(parent, name)
        try:
            for job in os.listdir(base):
                if job.startswith("job-"):
                    os.rmdir(os.path.join(base, job))
            os.rmdir(base)
        except OSError:
            pass


def _make_base(own: str, name: str) -> str:
    sweep_dead(own)
    base = os.path.join(own, name)
    os.mkdir(base)  # a fresh name (base_name): never another process's directory adopted
    return base


@dataclass
class JobCgroup:
    """One job's directories (one per hierarchy); `memory_dir` holds its memory files."""

    version: str
    dirs: list[str]
    memory_dir: str
    limit_bytes: int
    pids_max: int

    def oom_kills(self) -> int:
        """How many of the job's processes the OOM killer ended for its limit (0 where unreadable)."""
        name = "memory.oom_control" if self.version == "v1" else "memory.events"
        try:
            for line in _read(os.path.join(self.memory_dir, name)).splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def killed_at_its_limit(self) -> bool:
        """The OOM killer ended a process of the job and the job's own limit was reached: the kernel
        counts kills of this cgroup's processes whatever ran out (the host, an ancestor's limit), so the
        count alone does not make it the job's fault. Reached: the most it held came within
        AT_LIMIT_BYTES of the limit (v1's memory.failcnt stays 0 on a kernel of this project's VMs
        when the swap limit equals the memory limit), or the kernel counted the limit's events."""
        if self.oom_kills() == 0:
            return False
        if self.peak_bytes() >= self.limit_bytes - AT_LIMIT_BYTES:
            return True
        try:
            if self.version == "v1":
                return int(_read(os.path.join(self.memory_dir, "memory.failcnt"))) > 0
            text = _read(os.path.join(self.memory_dir, "memory.events"))
            events = dict(line.split(" ", 1) for line in text.splitlines())
            return int(events.get("oom", "0")) > 0 or int(events.get("max", "0")) > 0
        except (OSError, ValueError):
            return False

    def peak_bytes(self) -> int:
        name = "memory.max_usage_in_bytes" if self.version == "v1" else "memory.peak"
        try:
            return int(_read(os.path.join(self.memory_dir, name)))
        except (OSError, ValueError):
            return 0

    def remove(self) -> bool:
        """True once every directory is gone (the job's processes all ended)."""
        for path in list(self.dirs):
            try:
                os.rmdir(path)
            except FileNotFoundError:
                pass
            except OSError:
                continue
            self.dirs.remove(path)
        return not self.dirs

    def describe(self) -> str:
        memory = f"memory {self.limit_bytes >> 20} MiB over all its processes"
        pids = f"{self.pids_max} pids" if self.pids_max else "no pids controller (RLIMIT_NPROC holds)"
        return f"cgroup {self.version}: {memory}, {pids}"


@dataclass
class JobCgroups:
    """The zygote's parent directories; `place` makes a job's cgroup and moves a process into it."""

    version: str
    memory_base: str
    pids_base: str | None
    leftovers: list[tuple[JobCgroup, float]] = field(default_factory=list)  # (cgroup, give up at)

    @classmethod
    def open(cls) -> tuple[JobCgroups | None, str]:
        """(cgroups, what they are) or (None, why there are none)."""
        if os.geteuid() != 0:
            return None, "not root: no cgroup per job"
        try:
            own, mounted = own_paths(_read("/proc/self/cgroup")), mounts(_read("/proc/self/mountinfo"))
        except (OSError, ValueError, IndexError) as exc:
            return None, f"the process's cgroups are unreadable: {exc}"
        name = base_name()
        if "memory" in own and "memory" in mounted:
            return cls._open_v1(own, mounted, name)
        if "" in own and "" in mounted:
            return cls._open_v2(own[""], mounted[""], name)
        return None, "no memory cgroup controller is mounted"

    @classmethod
    def _open_v1(cls, own, mounts, name) -> tuple[JobCgroups | None, str]:
        memory_own = on_mount(mounts["memory"], own["memory"])
        if memory_own is None:
            return None, "this process's memory cgroup is not visible in /sys/fs/cgroup"
        try:
            memory_base = _make_base(memory_own, name)
        except OSError as exc:
            return None, f"cgroup v1: cannot make a cgroup under {memory_own}: {exc.strerror or exc}"
        pids_base = None
        pids_own = on_mount(mounts["pids"], own["pids"]) if "pids" in own and "pids" in mounts else None
        if pids_own is not None:
            try:
                pids_base = _make_base(pids_own, name)
            except OSError:
                pids_base = None
        return cls("v1", memory_base, pids_base), f"cgroup v1 under {memory_base}"

    @classmethod
    def _open_v2(cls, own_path, mount, name) -> tuple[JobCgroups | None, str]:
        """The jobs' cgroups under the zygote's own where that is the root; else beside it, under its parent:
        a cgroup that holds processes (the server's and the zygote's) cannot give its children the memory
        controller (cgroup v2's no-internal-process rule), while its parent, which gives it to the zygote's
        cgroup, gives it to a sibling too. The jobs then count against the parent's limits, not the server's."""
        own = on_mount(mount, own_path)
        if own is None:
            return None, "this process's cgroup is not visible in the cgroup2 mount"
        parent = own if own_path == "/" else os.path.dirname(own)
        try:
            if "memory" not in _read(os.path.join(parent, "cgroup.subtree_control")).split():
                return None, f"cgroup v2: {parent} does not give its children the memory controller"
            base = _make_base(parent, name)
            wanted = [c for c in ("memory", "pids") if c in _read(os.path.join(base, "cgroup.controllers")).split()]
            _write(os.path.join(base, "cgroup.subtree_control"), " ".join("+" + c for c in wanted))
        except OSError as exc:
            return None, f"cgroup v2: cannot make the jobs' cgroups under {parent} ({exc.strerror or exc})"
        return cls("v2", base, base if "pids" in wanted else None), f"cgroup v2 under {base}"

    def place(self, job: str, pid: int, limit_bytes: int, pids_max: int) -> JobCgroup:
        """A cgroup for `job` with these limits and `pid` in it; OSError if any step fails (what was made
        is removed once nothing is in it)."""
        name = f"job-{job}-{pid}"  # a dead spare's directory, not yet removed, keeps its own name
        memory_dir = os.path.join(self.memory_base, name)
        pids_dir = os.path.join(self.pids_base, name) if self.pids_base else None
        made = JobCgroup(self.version, [], memory_dir, limit_bytes, pids_max if pids_dir else 0)
        try:
            for path in dict.fromkeys(p for p in (memory_dir, pids_dir) if p):
                os.mkdir(path)
                made.dirs.append(path)
            self._limit(made, pids_dir)
            for path in made.dirs:
                _write(os.path.join(path, "cgroup.procs"), str(pid))
        except OSError:
            self.release(made)  # moved into one hierarchy, not the other: removed once the process is gone
            raise
        return made

    def _limit(self, made: JobCgroup, pids_dir: str | None) -> None:
        limit = str(made.limit_bytes)
        if self.version == "v1":
            _write(os.path.join(made.memory_dir, "memory.limit_in_bytes"), limit)
            swap = os.path.join(made.memory_dir, "memory.memsw.limit_in_bytes")
            if os.path.exists(swap):  # only with swap accounting: memory + swap, the same bound
                _write(swap, limit)
        else:
            _write(os.path.join(made.memory_dir, "memory.max"), limit)
            for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):  # the job dies as a whole
                if os.path.exists(os.path.join(made.memory_dir, name)):
                    _write(os.path.join(made.memory_dir, name), value)
        if pids_dir:
            _write(os.path.join(pids_dir, "pids.max"), str(made.pids_max))

    def release(self, made: JobCgroup) -> None:
        """Remove the job's cgroup now or, while its processes are still being torn down, later."""
        if not made.remove():
            self.leftovers.append((made, time.monotonic() + REMOVE_FOR_S))

    def retry_leftovers(self) -> None:
        now = time.monotonic()
        self.leftovers = [(m, until) for m, until in self.leftovers if not m.remove() and now < until]

    def close(self) -> None:
        self.retry_leftovers()
        for base in dict.fromkeys(b for b in (self.memory_base, self.pids_base) if b):
            try:
                os.rmdir(base)
            except OSError:
                pass
