"""benchmark_kernel without a device: the cpu answer, request validation, the statistics, the roofline,
the cheat detectors on synthetic timing data, the device lock, and the timing job itself run on the
cpu backend with a host clock (tests only), where cheating candidates must be flagged too."""

from __future__ import annotations

import json
import math
import threading
import time
from pathlib import Path

import anyio
import numpy as np
import pytest
import torch
from mcp import Client

from sandbox import backends
from sandbox.harness import timing
from tests import bench_cheats
from tools import benchmark_kernel as bk
from tools.accuracy import run_accuracy
from tools.bench import detectors, roofline, stats
from tools.bench.device_lock import DeviceLock
from tools.cli import main
from tools.errors import ToolInputError
from tools.models.accuracy import RunAccuracyRequest
from tools.models.bench import BenchmarkRequest, TimedOutputCheck
from tools.services import services
from tools.thresholds import NOISY_CV, TIMED_OUTPUT_RTOL

ROOT = Path(__file__).resolve().parents[1]
LEVEL1 = ROOT / "examples" / "level1"
MATMUL = LEVEL1 / "01_square_matmul"
RELU = LEVEL1 / "19_relu"


# --- cpu: unsupported, with a roofline estimate -------------------------------------------------


def test_cpu_answers_unsupported_with_a_roofline_estimate():
    result = bk.benchmark_kernel(
        BenchmarkRequest(reference=str(MATMUL / "reference.py"), candidate=str(MATMUL / "candidate.py"), backend="cpu")
    )
    assert result.verdict == "unsupported" and result.summary.startswith("UNSUPPORTED")
    assert "interpreter" in result.reason and "backend='cuda'" in result.next_step
    assert result.speedup is None and result.reference is None
    est = result.estimate
    n = 288
    assert est.device == "H200" and est.flops == 2 * n**3 and est.bytes == 3 * n * n * 2  # A, B read; C written
    assert est.dtype == "float16" and est.peak_tflops == 989.5 and est.peak_gbps == 4800
    assert est.memory_bound_ms == pytest.approx(est.bytes / 4800e9 * 1e3)
    assert est.compute_bound_ms == pytest.approx(2 * n**3 / 989.5e12 * 1e3)
    assert est.min_time_ms == max(est.memory_bound_ms, est.compute_bound_ms)
    print(f"estimate: {est.bytes} bytes, {est.flops} FLOPs, >= {est.min_time_ms * 1e3:.3g} us on H200")


def test_a_failed_run_is_not_accurate_on_cpu_too():
    failed = run_accuracy(
        RunAccuracyRequest(
            reference=str(MATMUL / "reference.py"),
            candidate=str(MATMUL / "candidate_fp16_accumulator.py"),
            backend="cpu",
            seeds=[1],
        )
    )
    assert failed.verdict == "fail"
    result = bk.benchmark_kernel(BenchmarkRequest(run_id=failed.run_id, backend="cpu"))
    assert result.verdict == "not_accurate" and result.run_id == failed.run_id and result.estimate is None
    assert "explain_failure" in result.next_step


def test_cli_bench_on_cpu_prints_the_same_json_and_exits_1(capsys):
    code = main(
        ["bench", "--reference", str(RELU / "reference.py"), "--candidate", str(RELU / "candidate.py")]
        + ["--backend", "cpu", "--estimate-device", "H100", "--json"]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["verdict"] == "unsupported"
    assert out["estimate"]["device"] == "H100" and out["estimate"]["flops"] == 0  # elementwise: no FLOPs counted
    assert out["estimate"]["bytes"] == 2 * 64 * 4096 * 4


def test_estimate_device_must_be_a_row_of_the_peak_table():
    with pytest.raises(ToolInputError, match="no row in the peak table.*H200"):
        bk.benchmark_kernel(
            BenchmarkRequest(
                reference=str(RELU / "reference.py"),
                candidate=str(RELU / "candidate.py"),
                backend="cpu",
                estimate_device="TPU",
            )
        )


def test_mcp_tool_answers_unsupported_and_words_bad_arguments():
    from mcp_server.app import build_server

    async def go():
        async with Client(build_server(), mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["benchmark_kernel"].input_schema == BenchmarkRequest.model_json_schema()
            ok = await client.call_tool(
                "benchmark_kernel",
                {"reference": str(RELU / "reference.py"), "candidate": str(RELU / "candidate.py"), "backend": "cpu"},
            )
            bad = await client.call_tool("benchmark_kernel", {"reference": str(RELU / "reference.py")})
            return ok, bad

    ok, bad = anyio.run(go)
    assert not ok.is_error and ok.structured_content["verdict"] == "unsupported"
    assert ok.content[0].text.startswith("UNSUPPORTED")
    assert bad.is_error and "candidate missing" in bad.content[0].text


# --- request validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields, message",
    [
        ({}, "pass run_id, or both reference and candidate"),
        ({"reference": "a.py"}, "candidate missing"),
        ({"run_id": "r-1", "candidate": "c.py"}, "not both"),
        ({"reference": " ", "candidate": "c.py"}, "reference is empty"),
        ({"run_id": "r-1", "repetitions": 2}, "repetitions"),
        ({"run_id": "r-1", "input_sets": 0}, "input_sets"),
        ({"run_id": "r-1", "peak_gbps": -1}, "peak_gbps"),
        ({"run_id": "r-1", "flops": -5}, "flops"),
        ({"run_id": "r-1", "warm_cache": True}, "warm_cache"),
        ({"run_id": "r-1", "dtype": "float16"}, "the run's own dtype apply"),
    ],
)
def test_request_validation(fields, message):
    with pytest.raises(ValueError, match=message):
        BenchmarkRequest.model_validate(fields)


def test_cli_usage_errors_exit_2_with_the_reason(capsys):
    assert main(["bench", "--backend", "cpu"]) == 2
    assert "pass run_id, or both reference and candidate" in capsys.readouterr().err
    assert main(["bench", "--run", "not-a-run"]) == 2
    assert "is not a run id" in capsys.readouterr().err


def _accepted(request: BenchmarkRequest):
    """benchmark_kernel's accuracy gate, on the cpu backend (on a device the same code runs first)."""
    svc = services()
    task = bk._task(request, svc)
    finish = bk._finisher(svc, backends.CPU, time.perf_counter())
    failed = bk._given_run_failed(task, svc, finish)
    return failed or bk._accepted_run(request, task, backends.CPU, svc, None, lambda *a: None, finish)


def test_a_candidate_that_does_not_pass_is_not_timed():
    fp16 = str(MATMUL / "candidate_fp16_accumulator.py")
    given = _accepted(BenchmarkRequest(reference=str(MATMUL / "reference.py"), candidate=fp16, input_sets=1))
    assert given.verdict == "not_accurate" and given.summary.startswith("NOT_ACCURATE FAIL")
    assert "explain_failure" in given.next_step and given.run_id
    by_run = _accepted(BenchmarkRequest(run_id=given.run_id, input_sets=1))  # the stored failing run
    assert by_run.verdict == "not_accurate" and by_run.run_id == given.run_id and "is fail" in by_run.summary


def test_a_passing_run_is_used_with_its_own_seeds():
    run = run_accuracy(
        RunAccuracyRequest(reference=SMALL_RELU, candidate=bench_cheats.HONEST, backend="cpu", seeds=[5, 6, 7])
    )
    assert _accepted(BenchmarkRequest(run_id=run.run_id, input_sets=2)) == (run.run_id, [5, 6])


# --- statistics ---------------------------------------------------------------------------------


def test_summary_statistics_match_numpy():
    rng = np.random.default_rng(0)
    samples = list(rng.lognormal(mean=-3, sigma=0.1, size=101))
    s = stats.summarize(samples)
    assert s.median_ms == pytest.approx(np.median(samples))
    assert s.q1_ms == pytest.approx(np.percentile(samples, 25)) and s.q3_ms == pytest.approx(np.percentile(samples, 75))
    assert s.iqr_ms == pytest.approx(s.q3_ms - s.q1_ms)
    assert s.cv == pytest.approx(np.std(samples, ddof=1) / np.mean(samples))
    sigma = s.iqr_ms / 1.349
    assert s.median_se_ms == pytest.approx(math.hypot(math.sqrt(math.pi / 2) * sigma / math.sqrt(101), 0.0005))
    assert s.samples_ms == samples and s.n == 101


def test_speedup_interval_and_range():
    ref = stats.summarize([1.0, 1.1, 0.9, 1.0, 1.05, 0.95] * 10)
    cand = stats.summarize([0.5, 0.55, 0.45, 0.5, 0.52, 0.48] * 10)
    sp = stats.speedup(ref, cand)
    assert sp.value == pytest.approx(2.0)
    assert sp.low < sp.value < sp.high and math.log(sp.high / sp.value) == pytest.approx(sp.relative_uncertainty)
    assert sp.range_low == pytest.approx(ref.q1_ms / cand.q3_ms) and sp.range_high == pytest.approx(
        ref.q3_ms / cand.q1_ms
    )
    rel = math.hypot(ref.median_se_ms / ref.median_ms, cand.median_se_ms / cand.median_ms)
    assert sp.relative_uncertainty == pytest.approx(1.96 * rel)
    other = stats.speedup(ref, stats.summarize([0.25] * 60))
    assert stats.agree(sp, sp) and not stats.agree(sp, other)


def test_more_repetitions_narrow_the_interval():
    pattern = [0.9, 0.95, 1.0, 1.05, 1.1]  # same spread, 100x the repetitions: a tenth of the standard error
    few, many = stats.summarize(pattern * 4), stats.summarize(pattern * 400)
    assert few.median_se_ms / 12 < many.median_se_ms < few.median_se_ms / 8
    assert stats.summarize([1.0] * 100).median_se_ms == 0.0005  # no spread: the event resolution remains


def test_statistics_refuse_an_empty_sample():
    with pytest.raises(ValueError, match="no timed repetitions"):
        stats.summarize([])


# --- roofline -----------------------------------------------------------------------------------


def test_peak_table_matches_device_names_longest_first():
    assert roofline.peak_for("NVIDIA H200").name == "H200"
    assert roofline.peak_for("NVIDIA H100 80GB HBM3").name == "H100"
    assert roofline.peak_for("NVIDIA H100 PCIe").name == "H100 PCIe"
    assert roofline.peak_for("NVIDIA A100-SXM4-80GB").name == "A100"
    assert roofline.peak_for("Ascend910B") is None


def test_roofline_arithmetic():
    # 4.8 GB on the H200 is 1 ms of memory traffic; 989.5 GFLOP of fp16 is 1 ms of tensor-core work
    r = roofline.build("NVIDIA H200", 4_800_000_000, "b", 989_500_000_000, "f", "float16", None, None)
    assert r.memory_bound_ms == pytest.approx(1.0) and r.compute_bound_ms == pytest.approx(1.0)
    p = roofline.point(r, 2.0)
    assert p.achieved_gbps == pytest.approx(2400) and p.achieved_tflops == pytest.approx(494.75)
    assert p.fraction_of_roofline == pytest.approx(0.5) and not roofline.beyond(p)
    assert roofline.beyond(roofline.point(r, 0.5))
    fp32 = roofline.build("NVIDIA H200", 1, "b", 494_700_000_000, "f", "float32", None, None)
    assert fp32.peak_tflops == 494.7 and fp32.min_time_ms == pytest.approx(1.0)  # TF32: the generous peak
    fp8 = roofline.build("NVIDIA H200", 1, "b", 0, "f", "float8_e4m3fn", None, None)
    assert fp8.dtype == "float8" and fp8.peak_tflops == 1979 and fp8.compute_bound_ms == 0.0


def test_given_peaks_override_and_a_warm_cache_skips_the_bandwidth_bound():
    r = roofline.build("Mystery GPU", 1_000_000_000, "b", 0, "f", "float32", 1000.0, 10.0)
    assert r.peak_source == "given" and r.memory_bound_ms == pytest.approx(1.0)
    warm = roofline.build("NVIDIA H200", 4_800_000_000, "b", 0, "f", "float32", None, None, bandwidth_checked=False)
    assert warm.memory_bound_ms == pytest.approx(1.0) and warm.min_time_ms == 0.0
    unknown = roofline.build("Mystery GPU", 1, "b", 1, "f", "float32", None, None)
    assert unknown.min_time_ms is None and roofline.point(unknown, 1.0).fraction_of_roofline is None


# --- cheat detectors on synthetic timing data ---------------------------------------------------


def _stats(median: float, n: int = 50, spread: float = 0.02):
    return stats.summarize([median * (1 + spread * ((i % 5) - 2) / 2) for i in range(n)])


def test_stale_output_and_timed_output_mismatch():
    assert detectors.stale_output(TimedOutputCheck(repetitions_checked=100)) is None
    flag = detectors.stale_output(TimedOutputCheck(repetitions_checked=100, stale_repetitions=99))
    assert flag.id == "stale_output" and "99 of 100" in flag.message
    assert detectors.timed_output_mismatch(TimedOutputCheck(final_outputs="within_accuracy")) is None
    mismatch = detectors.timed_output_mismatch(TimedOutputCheck(final_outputs="mismatch", detail="seed 3: FAIL"))
    assert mismatch.id == "timed_output_mismatch" and "seed 3" in mismatch.message


def test_beyond_roofline_flags_a_time_the_device_cannot_reach():
    r = roofline.build("NVIDIA H200", 64 << 20, "b", 0, "f", "float32", None, None)  # 64 MiB: ~14 us at 4.8 TB/s
    assert detectors.beyond_roofline(r, _stats(0.020), 1.5) is None  # 20 us: 70% of the roofline
    assert detectors.beyond_roofline(r, _stats(0.0145), 1.5) is None  # within the 10% slack
    flag = detectors.beyond_roofline(r, _stats(0.002), 40.0)
    assert flag.id == "beyond_roofline" and "40x" in flag.message and "memory roofline" in flag.message
    assert flag.evidence["fraction_of_roofline"] == pytest.approx(r.min_time_ms / 0.002, rel=1e-3)


def test_faster_on_repeated_inputs():
    assert detectors.faster_on_repeated_inputs(_stats(0.1), None) is None
    assert detectors.faster_on_repeated_inputs(_stats(0.1), _stats(0.09)) is None  # L2 noise, not skipping
    flag = detectors.faster_on_repeated_inputs(_stats(0.1), _stats(0.004))
    assert flag.id == "faster_on_repeated_inputs" and flag.evidence["ratio"] == pytest.approx(0.04, rel=1e-3)


def test_side_stream_by_launch_streams_or_by_the_synchronised_time_beyond_the_references():
    ref, ref_synced = _stats(0.004), _stats(0.016)  # a synchronize alone costs ~12 us
    honest = detectors.side_stream(_stats(0.100), _stats(0.113), 0, ref, ref_synced)
    tiny = detectors.side_stream(_stats(0.004), _stats(0.017), 0, ref, ref_synced)
    assert honest is None and tiny is None
    # in the sandbox a synchronize can cost ~200 us: a 5 us kernel then takes ~200 us synchronised
    sandboxed = detectors.side_stream(_stats(0.005), _stats(0.205), 0, _stats(0.004), _stats(0.200))
    assert sandboxed is None
    by_gap = detectors.side_stream(_stats(0.004), _stats(0.040), 0, ref, ref_synced)  # 24 us unexplained
    assert by_gap.id == "side_stream" and "device-wide synchronize" in by_gap.message
    assert by_gap.evidence["unexplained_ms"] == pytest.approx(0.024)
    # without the reference's synchronised timing the gap is not judged; launches on other streams still are
    assert detectors.side_stream(_stats(0.004), _stats(0.300), 0) is None
    by_launch = detectors.side_stream(_stats(0.1), _stats(0.1), 3)
    assert "3 kernel launch(es)" in by_launch.message


def test_noisy_measurements_are_warnings():
    assert detectors.noisy("candidate", _stats(0.1)) is None
    assert str(NOISY_CV) in detectors.noisy("candidate", stats.summarize([0.1, 0.2, 0.1, 0.3, 0.1]))


def test_in_job_output_check_tells_stale_outputs_from_rounding():
    torch.manual_seed(0)
    want = torch.randn(64, 64)
    assert not bool(timing._mismatch(want.clone(), want, TIMED_OUTPUT_RTOL))
    assert not bool(timing._mismatch(want * (1 + 1e-6), want, TIMED_OUTPUT_RTOL))  # atomics reordering: same output
    assert bool(timing._mismatch(torch.randn(64, 64), want, TIMED_OUTPUT_RTOL))  # another input's output
    nan = want.clone()
    nan[3, 3] = float("nan")
    assert bool(timing._mismatch(nan, want, TIMED_OUTPUT_RTOL))
    assert bool(timing._mismatch(want[:32], want, TIMED_OUTPUT_RTOL)) and bool(
        timing._mismatch((want, want), (want,), TIMED_OUTPUT_RTOL)
    )


# --- one timed job per device -------------------------------------------------------------------


def test_device_lock_gives_a_timing_job_the_device_to_itself(tmp_path):
    lock = DeviceLock(tmp_path / "device.lock")
    events: list[str] = []
    reader_in = threading.Event()

    def reader(name, hold):
        with lock.shared():
            events.append(f"{name}+")
            reader_in.set()
            time.sleep(hold)
            events.append(f"{name}-")

    def writer():
        reader_in.wait(5)
        with lock.exclusive():
            events.append("T+")
            time.sleep(0.2)
            events.append("T-")

    first = threading.Thread(target=reader, args=("a", 0.3))
    timer = threading.Thread(target=writer)
    first.start()
    timer.start()
    time.sleep(0.1)  # the timing job now waits for a; b arrives after it and must wait for it
    late = threading.Thread(target=reader, args=("b", 0.0))
    late.start()
    for t in (first, timer, late):
        t.join(10)
    assert events == ["a+", "a-", "T+", "T-", "b+", "b-"]


def test_device_lock_wait_is_cancellable(tmp_path):
    lock = DeviceLock(tmp_path / "device.lock")
    cancel = threading.Event()
    with lock.shared():
        cancel.set()
        with pytest.raises(ToolInputError, match="cancelled"):
            with lock.exclusive(cancel):
                pass


# --- the timing job on the cpu backend, host clock (tests only) --------------------------------

SMALL_RELU = bench_cheats.relu_task(64, 256)
#: Flags that compare two timed phases: on a host clock shared with other processes, noise can fire them.
HOST_CLOCK_NOISE = {"faster_on_repeated_inputs", "side_stream", "reference_slowed"}


def _host_clock_bench(candidate: str, kept_outputs: bool = True, **options):
    """run_accuracy on cpu, then the real timing job and analysis with perf_counter as the clock."""
    accepted = run_accuracy(
        RunAccuracyRequest(reference=SMALL_RELU, candidate=candidate, backend="cpu", num_seeds=2, determinism="off")
    )
    assert accepted.verdict == "pass", accepted.summary
    svc = services()
    request = BenchmarkRequest(run_id=accepted.run_id, backend="cpu", repetitions=20, warmup=2, **options)
    task = bk._task(request, svc)
    finish = bk._finisher(svc, backends.CPU, time.perf_counter())
    tensors = svc.runs.tensors(accepted.run_id) if kept_outputs else {}
    args = (request, task, accepted.run_id, task.seeds, tensors, backends.CPU, svc, None, lambda *a: None, finish)
    result = bk._timed(*args, {"host_clock": True, "launch_skip_ms": 100.0})  # the interpreter's forwards: ~10 ms
    print(result.summary, [f.id for f in result.flags], result.output_check)
    return result


def test_host_clock_honest_candidate_is_ok_and_its_timed_outputs_are_the_accepted_ones():
    result = _host_clock_bench(bench_cheats.HONEST)
    # the output checks must hold; the timing comparisons on a shared, loaded host clock may not
    assert not {f.id for f in result.flags} - HOST_CLOCK_NOISE, [f.message for f in result.flags]
    # seed 0's output is kept by the run store (bit for bit), the other seed's is judged against its golden
    assert result.output_check.final_outputs == "within_accuracy" and result.output_check.stale_repetitions == 0
    assert result.output_check.detail.startswith("1 input set(s) bit for bit as accepted, 1 passing the comparator")
    assert result.output_check.repetitions_checked == 20 + 20 + 20  # varied, repeated, synchronised
    assert result.settings.inputs_varied and len(result.settings.seeds) == 2
    assert result.reference.n == result.candidate.n == 20 and result.method.startswith("host_clock")
    assert result.reference_alone is not None and result.reference_alone.n == 20  # timed in its own job
    # the launch as a caller pays it: eager calls back to back, beside the device-time speedup
    launch = result.launch
    assert launch is not None and 0 < launch.candidate_host_us <= launch.candidate_call_us * 1.5
    assert launch.speedup == launch.reference_call_us / launch.candidate_call_us
    assert "calls back to back, launch included" in result.summary


def test_host_clock_reference_slowed_by_the_candidates_import_is_flagged():
    """The joint job imports the candidate after the reference; its import patches the reference's
    forward with a 3 ms sleep. The reference-alone job never loads the candidate."""
    result = _host_clock_bench(bench_cheats.SLOWED_REFERENCE)
    assert result.verdict == "flagged" and "reference_slowed" in {f.id for f in result.flags}
    assert result.reference_alone is not None and result.reference_alone.n == 20
    assert result.reference.median_ms > 3 > result.reference_alone.median_ms  # a 3 ms sleep beside, none alone
    assert result.launch is not None and result.launch.reference_host_us > 3000  # the sleep is in each call
    flag = next(f for f in result.flags if f.id == "reference_slowed")
    assert flag.evidence["ratio"] > 2 and "process of its own" in flag.message


def test_host_clock_a_candidate_that_patches_the_clock_is_timed_with_the_real_one_and_flagged():
    """Its import makes time.perf_counter run back by the time its own forwards take: read through that clock,
    its forwards would take ~0 ms and beat the reference; the job reads the clock bound before any task code."""
    honest = _host_clock_bench(bench_cheats.HONEST)
    result = _host_clock_bench(bench_cheats.PATCHED_CLOCK)
    assert result.verdict == "flagged" and "timer_patched" in {f.id for f in result.flags}, result.summary
    flag = next(f for f in result.flags if f.id == "timer_patched")
    assert flag.evidence["replaced"] == "time.perf_counter"
    # the interpreter's forward against torch's relu: the honest kernel is far slower, and so is the cheat
    assert honest.speedup.value < 0.5 and result.speedup.value < 0.5, (honest.summary, result.summary)
    assert result.candidate.median_ms > 0.3 * honest.candidate.median_ms
    assert "timer_patched" not in {f.id for f in honest.flags}


def test_host_clock_cached_output_is_flagged_stale():
    result = _host_clock_bench(bench_cheats.CACHED_OUTPUT)
    ids = {f.id for f in result.flags}
    assert result.verdict == "flagged" and "stale_output" in ids
    assert result.output_check.stale_repetitions >= 10  # every other input set gets the first one's output


def test_host_clock_skipping_a_reused_buffer_is_flagged():
    result = _host_clock_bench(bench_cheats.SKIP_SAME_BUFFER)
    # it skips on varied and repeated inputs alike (the buffer never moves): the outputs give it away
    assert {"stale_output", "timed_output_mismatch"} <= {f.id for f in result.flags}


def test_host_clock_skipping_unchanged_inputs_is_caught_by_the_repeated_input_timing_alone():
    result = _host_clock_bench(bench_cheats.SKIP_UNCHANGED_INPUT)
    ids = {f.id for f in result.flags}
    assert "faster_on_repeated_inputs" in ids and not ids - HOST_CLOCK_NOISE
    assert result.output_check.stale_repetitions == 0  # its outputs are right: only the time gives it away


def test_host_clock_without_varied_inputs_a_cached_output_goes_unseen_and_the_result_says_so():
    result = _host_clock_bench(bench_cheats.CACHED_OUTPUT, vary_inputs=False)
    assert not {f.id for f in result.flags} - HOST_CLOCK_NOISE  # nothing the outputs could show
    assert any("vary_inputs=false" in w for w in result.warnings)


def test_host_clock_without_kept_outputs_the_reference_and_the_golden_check_the_timed_launches():
    honest = _host_clock_bench(bench_cheats.HONEST, kept_outputs=False)
    assert not {f.id for f in honest.flags} - HOST_CLOCK_NOISE
    assert honest.output_check.final_outputs == "within_accuracy" and honest.output_check.stale_repetitions == 0
    cached = _host_clock_bench(bench_cheats.CACHED_OUTPUT, kept_outputs=False)
    assert {"stale_output", "timed_output_mismatch"} <= {f.id for f in cached.flags}


@pytest.mark.skipif(not backends.npu_available(), reason="needs torch_npu (an Ascend NPU)")
def test_npu_timing_uses_torch_npu_events():
    device = timing._Device("npu")
    start, end = device.event(), device.event()
    start.record()
    end.record()
    device.synchronize()
    assert start.elapsed_time(end) >= 0 and device.name
