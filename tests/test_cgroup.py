"""The per-job cgroup (sandbox/cgroup.py): finding the process's own cgroup in either version, the
kernel's bound on a real process where this machine lets root make cgroups, and cleaning up."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from sandbox import cgroup

V1_CGROUP = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n1:cpu:/\n0::/\n"
V1_MOUNTINFO = (
    "30 25 0:26 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n"
    "31 25 0:27 / /sys/fs/cgroup/pids rw,relatime shared:10 - cgroup cgroup rw,pids\n"
    "32 25 0:28 / /sys/fs/cgroup/unified rw,relatime shared:11 - cgroup2 cgroup2 rw\n"
)
V2_CGROUP = "0::/system.slice/kernel-eval.service\n"
# a container's cgroup namespace: its mount shows the container's own cgroup as /
V2_MOUNTINFO = "40 30 0:35 /../.. /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
V2_DELEGATED = "40 30 0:35 /system.slice /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


def test_v1_hierarchies_and_their_mount_points_are_found():
    own, mounted = cgroup.own_paths(V1_CGROUP), cgroup.mounts(V1_MOUNTINFO)
    assert own == {"memory": "/process_api/abc", "pids": "/", "": "/"}
    assert cgroup.on_mount(mounted["memory"], own["memory"]) == "/sys/fs/cgroup/memory/process_api/abc"
    assert cgroup.on_mount(mounted["pids"], own["pids"]) == "/sys/fs/cgroup/pids"


def test_v2_paths_are_placed_through_the_mounts_root():
    own = cgroup.own_paths(V2_CGROUP)
    assert own == {"": "/system.slice/kernel-eval.service"}
    delegated = cgroup.mounts(V2_DELEGATED)[""]
    assert cgroup.on_mount(delegated, own[""]) == "/sys/fs/cgroup/kernel-eval.service"
    # a mount whose root is not above the process's cgroup does not show it
    assert cgroup.on_mount(("/sys/fs/cgroup", "/other.slice"), own[""]) is None
    assert cgroup.mounts(V2_MOUNTINFO)[""] == ("/sys/fs/cgroup", "/../..")


def test_what_a_dead_zygote_left_is_swept_and_a_live_ones_kept(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    ns = cgroup.pid_namespace()
    kept = [
        f"kernel-eval-{ns}-{os.getpid()}-00aa11bb",  # alive
        f"kernel-eval-4026530000-{dead.pid}-00aa11bb",  # another pid namespace: its pid means nothing here
        f"kernel-eval-{dead.pid}",  # the old name: whose namespace is unknown
        "someone-else",
    ]
    for name in [f"kernel-eval-{ns}-{dead.pid}-00aa11bb", *kept]:
        (tmp_path / name / "job-1").mkdir(parents=True)
    cgroup.sweep_dead(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)


def test_a_base_name_is_never_one_a_process_of_the_same_pid_left(tmp_path):
    names = {cgroup.base_name() for _ in range(20)}
    assert len(names) == 20 and all(n.startswith(f"kernel-eval-{cgroup.pid_namespace()}-{os.getpid()}-") for n in names)
    (tmp_path / (name := names.pop())).mkdir()
    with pytest.raises(FileExistsError):  # made, never adopted
        cgroup._make_base(str(tmp_path), name)


@pytest.fixture
def cgroups():
    made, why = cgroup.JobCgroups.open()
    if made is None:
        pytest.skip(f"no cgroup per job here: {why}")
    yield made
    made.close()


#: what a hoarder writes: private pages, and shared anonymous pages (shmem, which RLIMIT_DATA does not count: the
#: sandbox allows those mappings only where the job's cgroup counts them, as this shows it does)
HOARDS = {
    "private": "x = bytearray(b'\\x01') * (256 << 20)",
    "shared_anonymous": "import mmap; m = mmap.mmap(-1, 256 << 20, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS); "
    "m.write(b'\\x01' * (256 << 20))",
}


@pytest.mark.parametrize("hoard", sorted(HOARDS))
def test_a_process_placed_in_a_job_cgroup_is_held_to_its_limit_and_the_cgroup_removed(cgroups, hoard):
    """A real process, moved in before it allocates (as the zygote does), writes past 64 MiB: the
    kernel kills it and the count says so. At most 256 MiB is written if the limit failed."""
    go_r, go_w = os.pipe()
    hoarder = subprocess.Popen(
        [sys.executable, "-c", f"import os; os.read({go_r}, 1); {HOARDS[hoard]}"],
        pass_fds=(go_r,),
    )
    made = cgroups.place("t1", hoarder.pid, 64 << 20, 16)
    assert made.describe().startswith(f"cgroup {made.version}: memory 64 MiB")
    os.write(go_w, b"x")
    assert hoarder.wait(timeout=60) == -9
    assert made.oom_kills() >= 1 and made.killed_at_its_limit() and made.peak_bytes() > 0
    cgroups.release(made)
    deadline = time.monotonic() + 10
    while cgroups.leftovers and time.monotonic() < deadline:
        time.sleep(0.1)
        cgroups.retry_leftovers()
    assert not any(os.path.exists(path) for path in (made.memory_dir,)), made.dirs
    os.close(go_r)
    os.close(go_w)


def test_a_job_cgroup_bounds_the_threads_and_processes_a_job_starts(cgroups):
    """pids.max alone: a process placed in a job cgroup of 8 pids starts threads until it cannot; it gets fewer
    than 8 more, where without the limit it would start all 40 it tries (bounded either way)."""
    if cgroups.pids_base is None:
        pytest.skip("no pids controller here: RLIMIT_NPROC holds instead")
    go_r, go_w = os.pipe()
    spawner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import os, threading\nos.read({go_r}, 1)\nstop = threading.Event()\nstarted = 0\n"
            "try:\n    for _ in range(40):\n"
            "        threading.Thread(target=stop.wait, daemon=True).start()\n        started += 1\n"
            "except RuntimeError:\n    pass\nprint(started, flush=True)\nstop.set()\n",
        ],
        pass_fds=(go_r,),
        stdout=subprocess.PIPE,
        text=True,
    )
    made = cgroups.place("t2", spawner.pid, 256 << 20, 8)
    os.write(go_w, b"x")
    out, _ = spawner.communicate(timeout=60)
    os.close(go_r)
    os.close(go_w)
    cgroups.release(made)
    assert spawner.returncode == 0 and int(out.strip()) < 8, out
