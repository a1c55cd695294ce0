"""The Ray engine on a real local Ray cluster (ray.init(num_cpus=2): two actors of one sandbox slot
each): the mixed batch equals its single runs, a killed actor's jobs rerun once elsewhere, cancelling
frees every actor. One cluster for the module; none of its processes outlive it."""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time

import pytest

from tests import batch_cases
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with
from tests.test_batch import TIMEOUT_CASE, alive, assert_store_matches, children, wait_gone
from tools.batch import run_batch
from tools.models.accuracy import RunAccuracyRequest

ray = pytest.importorskip("ray", reason="the Ray engine is optional: pip install 'kernel-eval-mcp[ray]'")

pytestmark = pytest.mark.timeout(300)


def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        for child in children(todo.pop()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def ray_processes(pids) -> set[int]:
    """Those of `pids` that are Ray's (gcs_server, raylet, workers): not this test's own sandbox pool."""
    found = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"ray" in f.read():
                    found.add(pid)
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def cluster():
    before = descendants(os.getpid())
    temp = tempfile.mkdtemp(prefix="ke-ray-", dir="/tmp")  # short: Ray's socket paths must fit
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=temp)
    yield
    started = ray_processes(descendants(os.getpid()) - before)
    assert started  # the cluster's own processes, seen
    ray.shutdown()
    assert not wait_gone(started, 30), "Ray processes outlived the cluster"


def actor_pids(workers) -> dict[str, int]:
    return dict(zip((w.name for w in workers), ray.get([w.actor.pid.remote() for w in workers]), strict=True))


def test_ray_batch_equals_single_runs(cluster):
    batch_cases.single_results()  # the baseline first: it shares this machine's two cores otherwise
    report = run_batch(batch_cases.requests(), "ray")
    batch_cases.assert_same_as_single(report.items)
    assert_store_matches(report.items)  # actors on the driver's node share its run store
    assert report.engine == "ray" and sorted(report.workers) == ["ray:cpu0", "ray:cpu1"]
    assert {i.worker for i in report.items if i.result is not None} <= {"ray:cpu0", "ray:cpu1"}


def test_ray_actor_killed_mid_batch_its_jobs_rerun_elsewhere(cluster):
    killed: dict = {}

    def on_workers(workers):
        pids = actor_pids(workers)
        for worker in workers:
            original = worker.submit

            def submit(job, done, worker=worker, original=original):
                original(job, done)
                if job.kind == "run" and job.index == TIMEOUT_CASE and not killed:
                    killed["name"], killed["pid"] = worker.name, pids[worker.name]

                    def kill():
                        killed["zygotes"] = children(killed["pid"])
                        os.kill(killed["pid"], signal.SIGKILL)

                    threading.Timer(1.0, kill).start()

            worker.submit = submit

    report = run_batch(batch_cases.requests(), "ray", on_workers=on_workers)
    batch_cases.assert_same_as_single(report.items)  # nothing lost
    rerun = report.items[TIMEOUT_CASE]
    assert rerun.attempts == 2 and rerun.worker != killed["name"] and killed["name"] in rerun.rerun_reason
    assert any(killed["name"] in line for line in report.reruns)
    assert killed["zygotes"] and not wait_gone(killed["zygotes"])  # the actor's sandbox died with it


def test_ray_cancel_frees_every_actor(cluster):
    cancel = threading.Event()
    pids: dict = {}
    loop = candidate_with("while True:\n    pass")
    requests = [
        RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=c, backend="cpu", seeds=[7], timeout_s=120)
        for c in [VECTOR_ADD_CANDIDATE, loop, loop, loop, loop]
    ]

    def on_workers(workers):
        pids.update(actor_pids(workers))
        threading.Timer(4.0, cancel.set).start()

    started = time.monotonic()
    report = run_batch(requests, "ray", cancel=cancel, on_workers=on_workers)
    assert time.monotonic() - started < 60
    kinds = [i.error.kind if i.error else i.verdict for i in report.items]
    assert kinds.count("cancelled") >= 3 and "timeout" not in kinds, kinds
    sandboxes = {z for pid in pids.values() if alive(pid) for z in children(pid)}
    assert not wait_gone(list(pids.values()) + list(sandboxes)), "an actor outlived the cancelled batch"
    deadline = time.monotonic() + 30
    while ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray.available_resources().get("CPU", 0) == 2  # every actor's CPU is back to the cluster


def test_ray_actor_with_its_own_home_copies_its_runs_into_the_driver_store(cluster, tmp_path):
    from tools.services import services

    actor_home = tmp_path / "node-home"  # what an actor on another node has: a state directory of its own
    requests = [batch_cases.requests()[i] for i in (0, 1)]
    report = run_batch(requests, "ray", ray_actors=1, ray_actor_home=str(actor_home))
    assert [i.verdict for i in report.items] == ["pass", "fail"]
    store = services().runs
    for item in report.items:
        run_id = item.result.run_id
        assert (actor_home / "runs" / run_id).is_dir()  # judged there
        assert store.result(run_id) == item.result.model_dump(mode="json")  # and kept here
        assert store.task(run_id)["candidate"] == requests[item.index].candidate
        assert set(store.tensors(run_id)) >= {"s0/actual", "s0/golden"}
