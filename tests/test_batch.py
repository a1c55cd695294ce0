"""Batch evaluation on the local engine: threads over the pool, worker processes pinned per device
(the multi-GPU path, run here on the cpu backend), the CLI and the MCP tool, against real sandboxes."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import anyio
import jsonschema
import pytest
from mcp import Client

from tests import batch_cases
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with
from tools.batch import run_batch
from tools.cli import main
from tools.models.accuracy import RunAccuracyRequest
from tools.models.batch import BatchItem, RunAccuracyBatchRequest
from tools.services import services

TIMEOUT_CASE = next(i for i, case in enumerate(batch_cases.CASES) if case[0] == "timeout")


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids, seconds: float = 15.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def assert_store_matches(items) -> None:
    """Each item's run is in the run store as run_accuracy stores it: the same result, the same task
    as the request's single run (its sources, names, seeds, backend)."""
    store = services().runs
    for item, single in zip(items, batch_cases.single_results(), strict=True):
        if item.result is None:
            continue
        assert store.result(item.result.run_id) == item.result.model_dump(mode="json")
        task, single_task = store.task(item.result.run_id), store.task(single.run_id)
        if not batch_cases.comparable(single).get("seeds"):
            task.pop("resolved_seeds"), single_task.pop("resolved_seeds")
        assert task == single_task


def test_local_batch_equals_single_runs():
    report = run_batch(batch_cases.requests())
    batch_cases.assert_same_as_single(report.items)
    assert_store_matches(report.items)
    assert report.workers == ["local"] and report.verdicts["pass"] == 4
    assert report.summary.startswith("BATCH 14 requests: 4 pass") and report.candidates_per_minute > 0


def test_worker_process_per_device_keeps_each_task_on_its_worker():
    seen = {}

    def on_workers(workers):
        for w in workers:  # the pinning each worker process (and so its zygote) got
            with open(f"/proc/{w.pid}/environ", "rb") as f:
                env = dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)
            seen[w.name] = env[b"CUDA_VISIBLE_DEVICES"].decode()

    report = run_batch(batch_cases.requests(), devices=["0", "1"], affinity="strict", on_workers=on_workers)
    assert seen == {"gpu0": "0", "gpu1": "1"}
    batch_cases.assert_same_as_single(report.items)
    assert_store_matches(report.items)
    by_task: dict[str, set] = {}
    for item, request in zip(report.items, batch_cases.requests(), strict=True):
        if item.result is not None and item.result.verdict != "compile_error":  # never reaches a worker's pool
            by_task.setdefault(request.reference, set()).add(item.worker)
    assert all(len(workers) == 1 for workers in by_task.values()), by_task
    assert set().union(*by_task.values()) == {"gpu0", "gpu1"}  # two tasks, one per worker


def test_worker_process_killed_mid_batch_its_jobs_rerun_once():
    killed: dict = {}

    def on_workers(workers):
        for worker in workers:
            original = worker.submit

            def submit(job, done, worker=worker, original=original):
                original(job, done)
                if job.kind == "run" and job.index == TIMEOUT_CASE and not killed:
                    killed["name"], killed["zygotes"] = worker.name, []

                    def kill():
                        killed["zygotes"] = children(worker.pid)
                        os.kill(worker.pid, signal.SIGKILL)

                    threading.Timer(1.0, kill).start()

            worker.submit = submit

    report = run_batch(batch_cases.requests(), devices=["0", "1"], on_workers=on_workers)
    batch_cases.assert_same_as_single(report.items)  # nothing lost, every verdict as alone
    rerun = report.items[TIMEOUT_CASE]
    assert rerun.attempts == 2 and killed["name"] in rerun.rerun_reason and rerun.worker != killed["name"]
    assert report.reruns and killed["name"] in report.reruns[0] and "lost" in report.summary
    assert killed["zygotes"] and not wait_gone(killed["zygotes"])  # its sandbox went with it


def test_cancel_stops_the_batch_and_frees_the_slots():
    from sandbox.pool import Pool

    cancel = threading.Event()
    loop = candidate_with("while True:\n    pass")
    requests = [
        RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=c, backend="cpu", seeds=[5], timeout_s=120)
        for c in [VECTOR_ADD_CANDIDATE, loop, loop, loop, VECTOR_ADD_CANDIDATE]
    ]
    threading.Timer(3.0, cancel.set).start()
    started = time.monotonic()
    report = run_batch(requests, cancel=cancel)
    assert time.monotonic() - started < 30
    kinds = [i.error.kind if i.error else i.verdict for i in report.items]
    assert "cancelled" in kinds and "timeout" not in kinds, kinds
    assert not Pool.get("cpu")._pending  # the looping jobs were killed, not left running


def test_benchmark_in_a_batch_times_only_the_passing_candidates():
    """On cpu timing is unsupported: a passing candidate gets benchmark_kernel's honest answer (the
    reason and a roofline estimate), a failing or rejected one no timing at all."""
    from tools.models.bench import BenchmarkOptions

    candidates = [VECTOR_ADD_CANDIDATE, candidate_with("return x + y")]
    requests = [
        RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=c, backend="cpu", seeds=[5]) for c in candidates
    ]
    report = run_batch(requests, benchmark=BenchmarkOptions(repetitions=20))
    passed, rejected = report.items
    assert passed.verdict == "pass" and rejected.verdict == "rejected"
    assert passed.benchmark is not None and passed.benchmark.verdict == "unsupported"
    assert passed.benchmark.run_id == passed.result.run_id and passed.benchmark.estimate.min_time_ms > 0
    assert rejected.benchmark is None


# --- CLI -----------------------------------------------------------------------------------------


def test_cli_batch_json_lines_in_input_order(tmp_path, capsys):
    manifest = tmp_path / "batch.jsonl"
    requests = batch_cases.requests()[:4] + batch_cases.requests()[-1:]
    manifest.write_text("\n".join(r.model_dump_json(exclude_unset=True) for r in requests) + "\n\n")
    assert main(["batch", str(manifest), "--json"]) == 1
    out, err = capsys.readouterr()
    items = [BatchItem.model_validate_json(line) for line in out.splitlines()]
    assert [i.index for i in items] == list(range(5))
    assert [i.verdict for i in items] == [*batch_cases.expected()[:4], "error:input"]
    assert err.count("\n") == 5 and "[5/5]" in err  # progress on stderr, one line per request off a terminal
    assert main(["batch", str(manifest)]) == 1
    table = capsys.readouterr().out
    assert "run_id" in table and "BATCH 5 requests" in table and "candidates/min" in table


def test_cli_batch_bad_manifest_is_a_usage_error(tmp_path, capsys):
    manifest = tmp_path / "bad.jsonl"
    manifest.write_text('{"reference": "r.py"}\nnot json\n')
    assert main(["batch", str(manifest)]) == 2
    err = capsys.readouterr().err
    assert "line 1: candidate: required" in err and "line 2: not JSON" in err and "Traceback" not in err
    assert main(["batch", str(tmp_path / "none.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err


# --- MCP -----------------------------------------------------------------------------------------


def test_batch_request_refuses_candidate_and_empty_sources():
    with pytest.raises(ValueError, match="candidates"):
        RunAccuracyBatchRequest(reference=VECTOR_ADD_REFERENCE, candidate="x.py", candidates=["y.py"])
    with pytest.raises(ValueError, match=r"candidates\[1\] is empty"):
        RunAccuracyBatchRequest(reference=VECTOR_ADD_REFERENCE, candidates=["y.py", " "])
    split = RunAccuracyBatchRequest(reference="r.py", candidates=["a.py", "b.py"], determinism_check=False).requests()
    assert [r.candidate for r in split] == ["a.py", "b.py"] and split[0].determinism == "off"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_run_accuracy_batch_progress_compact_results_and_schema(anyio_backend):
    from mcp_server.app import build_server

    candidates = [VECTOR_ADD_CANDIDATE, candidate_with("return x + y"), "def broken(:\n", VECTOR_ADD_CANDIDATE]
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, message))

    async with Client(build_server(), mode="legacy") as client:
        tool = next(t for t in (await client.list_tools()).tools if t.name == "run_accuracy_batch")
        assert tool.input_schema == RunAccuracyBatchRequest.model_json_schema()
        assert "candidate" not in tool.input_schema["properties"]
        arguments = {"reference": VECTOR_ADD_REFERENCE, "candidates": candidates, "backend": "cpu", "seeds": [3]}
        result = await client.call_tool("run_accuracy_batch", arguments, progress_callback=on_progress)
        assert not result.is_error, result.content[0].text
        data = result.structured_content
        jsonschema.validate(data, tool.output_schema)
        assert [c["verdict"] for c in data["candidates"]] == ["pass", "rejected", "compile_error", "pass"]
        assert all(c["benchmark_verdict"] is None for c in data["candidates"])  # no timing asked for
        assert data["best"] == 0 and result.content[0].text.startswith("BATCH 4 requests")
        done = [m for _, m in progress if " done: " in m]
        assert len(done) == 4 and [v for v, _ in progress] == sorted(v for v, _ in progress)
        run_id = data["candidates"][1]["run_id"]
        full = json.loads((await client.read_resource(f"kernel-eval://runs/{run_id}/result")).contents[0].text)
        assert full["verdict"] == "rejected" and full["checks"]["kernel_launches"] == 0
        timed = await client.call_tool(
            "run_accuracy_batch", arguments | {"candidates": candidates[:2], "benchmark": {"repetitions": 20}}
        )
        jsonschema.validate(timed.structured_content, tool.output_schema)
        first, second = timed.structured_content["candidates"]
        assert first["benchmark_verdict"] == "unsupported" and "cpu" in first["benchmark_summary"]
        assert second["benchmark_verdict"] is None and first["speedup"] is None
        bad = await client.call_tool("run_accuracy_batch", {"reference": VECTOR_ADD_REFERENCE, "candidates": []})
        assert bad.is_error and "candidates" in bad.content[0].text


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_run_accuracy_batch_cancellation_kills_every_job(anyio_backend):
    from mcp_server.app import build_server
    from sandbox.pool import Pool

    loop = candidate_with("while True:\n    pass")
    arguments = {"reference": VECTOR_ADD_REFERENCE, "candidates": [loop] * 4, "backend": "cpu", "timeout_s": 300}
    async with Client(build_server(), mode="legacy") as client:
        with anyio.move_on_after(4.0):
            await client.call_tool("run_accuracy_batch", arguments | {"seeds": [4]})
        pool = Pool.get("cpu")
        deadline = time.monotonic() + 15
        while pool._pending and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        assert not pool._pending  # every looping candidate was killed
        again = await client.call_tool(
            "run_accuracy_batch",
            {"reference": VECTOR_ADD_REFERENCE, "candidates": [VECTOR_ADD_CANDIDATE], "backend": "cpu"},
        )
        assert again.structured_content["verdicts"] == {"pass": 1}


def test_a_request_that_fails_inside_the_server_is_reported_and_the_batch_finishes(monkeypatch):
    """A fault of this server on one request (a bundle the reader choked on was one) must not kill the
    engine's worker thread: the batch reports every request. The fault is injected: no input reaches it."""
    import tools.batch.jobs as jobs

    real = jobs.run_accuracy

    def faulty(request, *args):
        if "FAULT" in request.candidate:
            raise TypeError("an internal fault")
        return real(request, *args)

    monkeypatch.setattr(jobs, "run_accuracy", faulty)
    candidates = [VECTOR_ADD_CANDIDATE, "# FAULT\n" + VECTOR_ADD_CANDIDATE, VECTOR_ADD_CANDIDATE]
    done = threading.Event()
    report = {}

    def batch():
        report["r"] = run_batch(
            [
                RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=c, backend="cpu", num_seeds=1)
                for c in candidates
            ]
        )
        done.set()

    threading.Thread(target=batch, daemon=True).start()
    assert done.wait(300), "the batch never finished"
    items = report["r"].items
    assert [i.result.verdict if i.result else i.error.kind for i in items] == ["pass", "server_fault", "pass"]
    assert "an internal fault" in items[1].error.message
