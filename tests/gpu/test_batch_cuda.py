"""Batch evaluation on real GPUs (run by the lead on the H200; skipped without CUDA): the mixed batch
on the cuda backend equals its single runs, in this process, on one worker process per GPU (pinned
with CUDA_VISIBLE_DEVICES, each task kept on one GPU) and, with Ray installed, on one actor per GPU."""

from __future__ import annotations

import tempfile

import pytest
import torch

from tests import batch_cases
from tools.batch import run_batch
from tools.batch.local import visible_gpus

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


def test_batch_in_process_equals_single_runs():
    batch_cases.single_results("cuda")
    report = run_batch(batch_cases.requests("cuda"))
    batch_cases.assert_same_as_single(report.items, "cuda")
    assert {i.result.backend.name for i in report.items if i.result and i.result.backend} == {"cuda"}


def test_batch_on_a_worker_process_per_gpu_pinned_and_kept_per_task():
    gpus = visible_gpus()
    pinned = {}

    def on_workers(workers):
        for w in workers:
            with open(f"/proc/{w.pid}/environ", "rb") as f:
                env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
            pinned[w.name] = env[b"CUDA_VISIBLE_DEVICES"].decode()

    report = run_batch(batch_cases.requests("cuda"), devices=gpus, affinity="strict", on_workers=on_workers)
    assert pinned == {f"gpu{d}": d for d in gpus}
    batch_cases.assert_same_as_single(report.items, "cuda")
    by_task: dict[str, set] = {}
    for item, request in zip(report.items, batch_cases.requests("cuda"), strict=True):
        if item.result is not None and item.result.verdict != "compile_error":
            by_task.setdefault(request.reference, set()).add(item.worker)
    assert all(len(w) == 1 for w in by_task.values()), by_task
    if len(gpus) > 1:
        assert len(set().union(*by_task.values())) == 2  # the two tasks on two GPUs


def test_ray_batch_one_actor_per_gpu():
    ray = pytest.importorskip("ray")
    ray.init(
        num_gpus=torch.cuda.device_count(),
        include_dashboard=False,
        log_to_driver=False,
        _temp_dir=tempfile.mkdtemp(prefix="ke-ray-", dir="/tmp"),
    )
    try:
        report = run_batch(batch_cases.requests("cuda"), "ray")
        assert report.workers == [f"ray:gpu{i}" for i in range(torch.cuda.device_count())]
        batch_cases.assert_same_as_single(report.items, "cuda")
    finally:
        ray.shutdown()


def test_timing_inside_a_batch_one_timed_job_per_gpu():
    """Every passing candidate timed by the worker that judged it; the cheat's speedup flagged."""
    from tests import bench_cheats
    from tools.models.accuracy import RunAccuracyRequest
    from tools.models.bench import BenchmarkOptions

    reference = bench_cheats.relu_task(2048, 4096)
    sources = [bench_cheats.HONEST, bench_cheats.CACHED_OUTPUT, bench_cheats.HONEST]
    requests = [RunAccuracyRequest(reference=reference, candidate=c, backend="cuda", num_seeds=2) for c in sources]
    report = run_batch(requests, benchmark=BenchmarkOptions(repetitions=30, warmup=5, input_sets=2))
    verdicts = [i.benchmark.verdict if i.benchmark else None for i in report.items]
    assert [i.verdict for i in report.items] == ["pass"] * 3, [i.result.summary for i in report.items if i.result]
    assert verdicts == ["ok", "flagged", "ok"], [i.benchmark.summary for i in report.items if i.benchmark]
    assert "stale_output" in {f.id for f in report.items[1].benchmark.flags}
