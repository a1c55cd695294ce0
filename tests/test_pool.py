"""The pool itself: cancellation, backpressure, a dead zygote recycled, the NPU path skip-tested."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
import torch

from sandbox import backends
from sandbox.pool import JobRequest, Pool, PoolBusy, PoolError
from tests.conftest import needs_root
from tests.tasks import VECTOR_ADD_CANDIDATE, candidate_with


def job(candidate=VECTOR_ADD_CANDIDATE):
    inputs = {"s0/init": [], "s0/inputs": [torch.randn(1000), torch.randn(1000)]}
    return JobRequest(
        "candidate", {"candidate.py": candidate}, {}, [1], {"profile": "task", "determinism": False}, inputs=inputs
    )


@pytest.fixture
def pool(tmp_path):
    p = Pool(backends.CPU, slots=1, state_dir=tmp_path, queue_limit=1)
    yield p
    p.close()


def test_cancellation_kills_the_job_quickly(pool):
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    start = time.monotonic()
    result = pool.run(job(candidate_with("while True:\n    pass")), timeout_s=60, cancel=cancel)
    assert result.reason == "cancelled" and time.monotonic() - start < 10
    assert pool.run(job(), timeout_s=30).meta["status"] == "ok"


def test_backpressure_when_the_queue_is_full(pool):
    results = []
    busy = job(candidate_with("import time\ntime.sleep(3)\nreturn triton_add(x, y)"))
    first = threading.Thread(target=lambda: results.append(pool.run(busy, timeout_s=30)))
    first.start()
    time.sleep(0.5)  # the one slot is taken
    second = threading.Thread(target=lambda: results.append(pool.run(job(), timeout_s=30)))
    second.start()  # waits in the queue (limit 1)
    time.sleep(0.3)
    with pytest.raises(PoolBusy, match="wait for 1 sandbox slots"):
        pool.run(job(), timeout_s=30)
    first.join()
    second.join()
    assert [r.meta["status"] for r in results] == ["ok", "ok"]


def test_a_dead_zygote_is_restarted(pool):
    assert pool.run(job(), timeout_s=30).meta["status"] == "ok"
    os.kill(pool.ready_info["pid"], signal.SIGKILL)
    time.sleep(0.2)
    result = pool.run(job(), timeout_s=30)
    assert result.meta["status"] == "ok" and pool.starts == 2


def _kill_zygote_on_start(pool, times: int):
    """on_start hook: SIGKILL the zygote while the job runs, the first `times` jobs."""
    killed = []

    def kill():
        if len(killed) < times:
            time.sleep(0.3)
            os.kill(pool.ready_info["pid"], signal.SIGKILL)
            killed.append(pool.ready_info["pid"])

    return kill


SLOW = candidate_with("import time\ntime.sleep(1.0)\nreturn triton_add(x, y)")


def test_a_zygote_killed_mid_job_is_retried_once(pool):
    result = pool.run(job(SLOW), timeout_s=30, on_start=_kill_zygote_on_start(pool, 1))
    assert result.reason is None and result.meta["status"] == "ok" and pool.starts == 2


def test_a_zygote_that_dies_again_is_the_servers_error_not_a_verdict(pool):
    from tools import faults
    from tools.errors import ServerFault

    with pytest.raises(PoolError, match="died twice"):
        pool.run(job(SLOW), timeout_s=30, on_start=_kill_zygote_on_start(pool, 2))
    assert pool.run(job(), timeout_s=30).meta["status"] == "ok"  # and the next job works
    dead = pool.run(job(), timeout_s=30)
    dead.reason = "zygote_died"
    with pytest.raises(ServerFault, match="not of the kernel"):
        faults.process_fault(dead, 30, "candidate")


def test_auto_backend_picks_what_exists():
    expected = "npu" if backends.npu_available() else "cuda" if backends.cuda_available() else "cpu"
    assert backends.resolve("auto").name == expected
    with pytest.raises(backends.BackendUnavailable, match="unknown backend"):
        backends.resolve("tpu")


@pytest.mark.skipif(backends.npu_available(), reason="torch_npu is installed here")
def test_npu_without_torch_npu_says_how_to_install():
    with pytest.raises(backends.BackendUnavailable, match="separate environment"):
        backends.resolve("npu")


@pytest.mark.npu
@pytest.mark.skipif(not backends.npu_available(), reason="needs torch_npu + triton-ascend and an Ascend NPU")
def test_npu_backend_runs_a_candidate(tmp_path):
    npu = Pool(backends.NPU, slots=1, state_dir=tmp_path)
    try:
        result = npu.run(job(), timeout_s=300)
    finally:
        npu.close()
    assert result.meta["status"] == "ok" and result.meta["launches"] >= 1


def test_run_accuracy_reports_a_recurring_sandbox_death_as_the_servers_error():
    from tests.tasks import VECTOR_ADD_REFERENCE
    from tools.accuracy import run_accuracy
    from tools.errors import ServerFault
    from tools.models.accuracy import RunAccuracyRequest
    from tools.services import services

    def request(candidate):
        return RunAccuracyRequest(
            reference=VECTOR_ADD_REFERENCE,
            candidate=candidate,
            backend="cpu",
            seeds=[5],
            determinism_check=False,
            timeout_s=30,
        )

    assert run_accuracy(request(VECTOR_ADD_CANDIDATE)).verdict == "pass"  # zygote up, golden cached
    shared = Pool.get("cpu", state_dir=services().home)
    killed = []

    def killer():  # SIGKILL the zygote under each running job, twice; bounded
        deadline = time.monotonic() + 60
        while len(killed) < 2 and time.monotonic() < deadline:
            running = [p for p in list(shared._pending.values()) if p.pid and p.proc is shared._proc]
            if running and shared._proc.pid not in killed:
                time.sleep(0.2)
                killed.append(shared._proc.pid)
                os.kill(shared._proc.pid, signal.SIGKILL)
            time.sleep(0.02)

    thread = threading.Thread(target=killer)
    thread.start()
    with pytest.raises(ServerFault, match="not of the kernel"):
        run_accuracy(request(SLOW))
    thread.join()
    assert len(killed) == 2
    assert run_accuracy(request(VECTOR_ADD_CANDIDATE)).verdict == "pass"


def test_every_pool_holds_its_own_uid_block_until_closed(tmp_path):
    from sandbox import uid_range

    first, second = uid_range.claim(4), uid_range.claim(4)
    try:
        if os.geteuid() == 0:
            assert first.first != second.first and abs(first.first - second.first) >= uid_range.RANGE_SIZE
            held = first.first
            first.release()
            third = uid_range.claim(1)  # the released block is free again
            assert third.first == held
            third.release()
        with pytest.raises(ValueError, match="at most 64 sandbox slots"):
            uid_range.claim(uid_range.RANGE_SIZE + 1)
    finally:
        first.release()
        second.release()


@needs_root
def test_a_fork_loop_in_one_pool_leaves_another_pools_jobs_alone(tmp_path):
    """RLIMIT_NPROC counts per uid machine-wide: with both pools' slot 0 on one uid, the second pool's
    job could not start a thread while the first's children lived. Bounded: 400 forks, 15 s."""
    hog = job(
        candidate_with(
            """
import os, time
for _ in range(400):
    try:
        if os.fork() == 0:
            time.sleep(15)
            os._exit(0)
    except OSError:
        break
print("FULL", flush=True)
time.sleep(15)
return triton_add(x, y)
"""
        )
    )
    threads = job(
        candidate_with(
            """
import threading
ts = [threading.Thread(target=lambda: None) for _ in range(8)]
for t in ts:
    t.start()
for t in ts:
    t.join()
return triton_add(x, y)
"""
        )
    )
    a = Pool(backends.CPU, slots=1, state_dir=tmp_path / "a")
    b = Pool(backends.CPU, slots=1, state_dir=tmp_path / "b")
    cancel = threading.Event()
    try:
        b.run(job(), timeout_s=60)  # warm, so the job below starts while the fork loop holds its uid full
        hogging = threading.Thread(target=lambda: a.run(hog, timeout_s=30, cancel=cancel))
        hogging.start()
        time.sleep(4)
        result = b.run(threads, timeout_s=30)
        cancel.set()
        hogging.join()
    finally:
        a.close()
        b.close()
    assert result.meta and result.meta["status"] == "ok", result.stderr[-2000:]


def test_what_a_job_writes_into_its_triton_cache_is_bounded_after_it(tmp_path, monkeypatch):
    """The one host directory a job writes (its source's Triton cache, on compiled backends) took 1 GiB
    that stayed. Bounded: 24 MiB written."""
    from sandbox import pool as pool_module

    monkeypatch.setattr(pool_module, "TRITON_CACHE_CAP_MB", 8)
    monkeypatch.setattr(pool_module, "CACHE_WATCH_EVERY_S", 3600.0)  # what stays after the job, not the watch
    hog = candidate_with(
        """
import os
d = os.environ["TRITON_CACHE_DIR"]
for i in range(24):
    with open(os.path.join(d, f"junk{i}"), "wb") as f:
        f.write(bytes(1 << 20))
print("WROTE", flush=True)
return triton_add(x, y)
"""
    )
    p = Pool(backends.COMPILER, slots=1, state_dir=tmp_path)
    try:
        result = p.run(job(hog), timeout_s=120)
        cache = p._triton_cache_path(job(hog))
    finally:
        p.close()
    assert "WROTE" in result.stdout, result.stderr[-2000:]
    assert not cache.exists() or sum(f.stat().st_size for f in cache.rglob("*")) <= 8 << 20
    isolation = (result.meta or {}).get("isolation", {})
    if os.geteuid() == 0:
        assert "the pool cuts it to 8 MiB" in isolation["triton_cache"]["detail"], isolation
        assert "only writable place" not in isolation["private_tmp"]["detail"]
        assert (cache.parent.stat().st_mode & 0o007) == 0 or not cache.exists()


def test_a_job_filling_its_triton_cache_while_it_runs_is_stopped(tmp_path, monkeypatch):
    """A job's cache on the host was bounded only after it: a job could write for its whole timeout. The pool
    measures it while the job runs and kills the job past the cap. Bounded: at most 64 MiB written, over ~6 s."""
    from sandbox import pool as pool_module
    from tools.faults import process_fault

    monkeypatch.setattr(pool_module, "TRITON_CACHE_CAP_MB", 8)
    hog = candidate_with(
        """
import os, time
d = os.environ["TRITON_CACHE_DIR"]
for i in range(64):
    with open(os.path.join(d, f"junk{i}"), "wb") as f:
        f.write(b"\\x01" * (1 << 20))
    time.sleep(0.1)
print("WROTE ALL", flush=True)
return triton_add(x, y)
"""
    )
    p = Pool(backends.COMPILER, slots=1, state_dir=tmp_path)
    try:
        result = p.run(job(hog), timeout_s=120)
        after = p.run(job(), timeout_s=120)  # the same pool's next job
    finally:
        p.close()
    assert result.reason == "disk_limit" and "WROTE ALL" not in result.stdout, (result.reason, result.stdout[-500:])
    verdict, error = process_fault(result, 120, "candidate")
    assert verdict == "crashed" and error.type == "disk_limit" and "8 MiB" in error.message, error
    assert after.returncode == 0 and after.reason is None, after.stderr[-2000:]


def test_background_work_never_holds_a_slot_a_call_waits_for(pool):
    """Background golden fills ran with the call's timeout in the slots: two slow references held both
    and an honest call waited 43 s. Bounded: the background job sleeps at most 20 s."""
    from sandbox.pool import Deferred

    slow = job(candidate_with("import time\ntime.sleep(20)\nreturn triton_add(x, y)"))
    pool.run(job(), timeout_s=60)  # warm
    background = []
    started = threading.Event()
    worker = threading.Thread(
        target=lambda: background.append(pool.run(slow, timeout_s=60, on_start=started.set, background=True))
    )
    worker.start()
    assert started.wait(30)
    with pytest.raises(Deferred):  # the one slot is taken: background work does not queue
        pool.run(job(), timeout_s=60, background=True)
    begun = time.monotonic()
    result = pool.run(job(), timeout_s=60)  # a call: the background job gives its slot back
    worker.join(30)
    assert result.meta["status"] == "ok" and time.monotonic() - begun < 10
    assert background[0].reason == "cancelled"


def test_a_triton_cache_made_by_one_pool_is_writable_by_the_next(tmp_path):
    """A restarted server claims another uid block: the caches it made before must stay writable to its
    jobs (they are the sandbox's group, not a pool's)."""
    if os.geteuid() != 0:
        pytest.skip("uids and groups are dropped only as root")
    writer = job(
        candidate_with(
            "import os\nopen(os.path.join(os.environ['TRITON_CACHE_DIR'], 'f'), 'a').close()\nprint('WROTE')\n"
            "return triton_add(x, y)"
        )
    )
    holder = Pool(backends.COMPILER, slots=1, state_dir=tmp_path / "other")  # takes a block first
    try:
        holder.run(job(), timeout_s=120)
        results = []
        for _ in range(2):
            p = Pool(backends.COMPILER, slots=1, state_dir=tmp_path)
            try:
                results.append(p.run(writer, timeout_s=120))
            finally:
                p.close()
            holder.close()  # the second pool gets the first pool's block back, or another: either way
    finally:
        holder.close()
    # (the compiler backend launches nothing: the forward's own error after the write does not matter)
    assert ["WROTE" in r.stdout for r in results] == [True, True], [r.meta.get("error") for r in results]
