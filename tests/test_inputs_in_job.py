"""Inputs made inside the jobs from the seed, checked by fingerprint (sandbox/protocol.InputPlan)."""

from __future__ import annotations

import torch

from sandbox.harness import inputs
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE
from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest


def test_fingerprint_sees_one_bit_and_the_structure():
    x = torch.randn(1001, dtype=torch.float16)
    base = inputs.fingerprint([3], [x, 2.0])
    assert inputs.fingerprint([3], [x.clone(), 2.0]) == base
    flipped = x.clone()
    flipped.view(torch.int16)[500] ^= 1
    assert inputs.fingerprint([3], [flipped, 2.0]) != base
    assert inputs.fingerprint([3], [x.reshape(7, 143), 2.0]) != base  # same bits, other shape
    assert inputs.fingerprint([4], [x, 2.0]) != base and inputs.fingerprint([3], [x, 2.5]) != base
    swapped = x.clone()
    swapped[[0, 1]] = swapped[[1, 0]]
    assert x[0] == x[1] or inputs.fingerprint([3], [swapped, 2.0]) != base  # positions count, not only values


def test_fingerprint_counts_every_nan_as_one():
    """A conversion's NaN bits depend on its path (torch's vector loop gives 0xFFFF in bf16, its scalar tail
    0x7FC0), so two jobs converting the same special_values inputs got different bits and a false "get_inputs()
    is not deterministic" warning. A NaN is a NaN; a number changed is still seen."""
    x = torch.randn(3034, dtype=torch.float64)
    x[::37] = float("nan")
    whole = x.to(torch.bfloat16)
    pieces = torch.cat([x[i : i + 7].to(torch.bfloat16) for i in range(0, x.numel(), 7)])
    assert inputs.fingerprint([], [whole]) == inputs.fingerprint([], [pieces])
    payload = whole.clone()
    payload.view(torch.int16)[0::37] = 0x7FC1  # another NaN payload
    assert inputs.fingerprint([], [payload]) == inputs.fingerprint([], [whole])
    changed = whole.clone()
    changed[1] += 1
    assert inputs.fingerprint([], [changed]) != inputs.fingerprint([], [whole])


def test_fingerprint_of_every_dtype_and_large_tensors_in_chunks():
    for dtype in (
        torch.bool,
        torch.int8,
        torch.uint8,
        torch.int32,
        torch.int64,
        torch.bfloat16,
        torch.float64,
        torch.complex64,
        torch.float8_e4m3fn,
    ):
        t = torch.ones(5, dtype=torch.float32).to(dtype)
        assert len(inputs.fingerprint([], [t])) == 32
    big = torch.arange((1 << 22) + 5, dtype=torch.int32)  # more than one chunk
    other = big.clone()
    other[-1] += 1
    assert inputs.fingerprint([], [big]) != inputs.fingerprint([], [other])


def test_make_is_reproducible_and_falls_back_to_the_cpu():
    class Task:
        @staticmethod
        def get_init_inputs():
            return [2]

        @staticmethod
        def get_inputs():
            return [torch.randn(64, generator=torch.Generator().manual_seed(int(torch.randint(0, 9, ()))))]

    options = {"profile": "small_values", "value_range": None}
    a = inputs.make_where_possible(Task, 7, torch.float16, options, "cpu")
    b = inputs.make_where_possible(Task, 7, torch.float16, options, "cpu")
    assert a[2] == "cpu" and inputs.fingerprint(a[0], a[1]) == inputs.fingerprint(b[0], b[1])
    assert a[1][0].dtype == torch.float16 and a[1][0].abs().max() < 2**-3  # the profile applied
    assert inputs.fingerprint(a[0], a[1]) != inputs.fingerprint(*inputs.make(Task, 8, torch.float16, options, "cpu"))


UNREPRODUCIBLE = VECTOR_ADD_REFERENCE.replace(
    "def get_inputs():",
    "import os\n\n\ndef get_inputs():\n    torch.manual_seed(int.from_bytes(os.urandom(4), 'little'))",
)


def test_a_get_inputs_that_ignores_the_seed_gets_its_inputs_sent_and_is_judged_right():
    assert UNREPRODUCIBLE != VECTOR_ADD_REFERENCE
    request = RunAccuracyRequest(reference=UNREPRODUCIBLE, candidate=VECTOR_ADD_CANDIDATE, backend="cpu", seeds=[5])
    first = run_accuracy(request)
    assert first.verdict == "pass", first.summary
    assert any("does not make the same inputs" in w for w in first.warnings), first.warnings
    again = run_accuracy(request)  # remembered: sent as files straight away, no warning any more
    assert again.verdict == "pass" and not any("same inputs" in w for w in again.warnings)
    wrong = VECTOR_ADD_CANDIDATE.replace("x + y, mask=mask", "x - y, mask=mask")
    assert run_accuracy(request.model_copy(update={"candidate": wrong})).verdict == "fail"


def test_the_pool_fills_in_the_background_and_calls_meanwhile_draw_cached_seeds(monkeypatch):
    import time

    from tools import goldens
    from tools.services import services
    from tools.store.seeds import POOL_SIZE

    monkeypatch.setenv(goldens.FILL_ENV, "1")
    reference = VECTOR_ADD_REFERENCE.replace("1000", "999")  # a task of its own: an empty pool
    request = RunAccuracyRequest(reference=reference, candidate=VECTOR_ADD_CANDIDATE, backend="cpu", num_seeds=2)
    first = run_accuracy(request)
    assert first.verdict == "pass" and not first.timings.golden_cached
    from tools.services import resolve_backend

    options = goldens.input_options(None, None, "task")
    task = goldens.ReferenceTask(reference, "reference.py", options, resolve_backend("cpu"), 60, 4096)
    assert goldens.filling(task.key)
    during = run_accuracy(request)  # drawn among the seeds already cached: nothing to wait for
    assert during.timings.golden_cached, during.timings
    deadline = time.monotonic() + 120
    while goldens.filling(task.key) and time.monotonic() < deadline:
        time.sleep(0.1)
    pool = services().seeds.secret(task.key)
    assert len(pool) == POOL_SIZE and all(services().goldens.has(task.key, s) for s in pool)
    assert run_accuracy(request).timings.golden_cached


def test_a_draw_prefers_ready_seeds_only_when_there_are_enough(tmp_path):
    from tools.store.seeds import SeedPool

    pool = SeedPool(tmp_path)
    secret = pool.draw("k", 16)
    ready = set(secret[:3])
    for _ in range(20):
        assert set(pool.draw("k", 3, ready.__contains__)) == ready
    assert len(set().union(*(pool.draw("k", 4, ready.__contains__) for _ in range(30)))) > 4  # not enough ready


def test_cpu_controls_computed_beside_the_candidate_arrive_and_are_cached_whole():
    """ensure(cpu_later=True), as a first call on a GPU runs it (here on the cpu pool, with a backend
    that says its golden runs on the device): goldens at once, CPU controls from a second job."""
    import dataclasses

    from sandbox.backends import CPU
    from tools import goldens
    from tools.services import services

    backend = dataclasses.replace(CPU, golden_on_device=True)
    reference = VECTOR_ADD_REFERENCE.replace("1000", "998")
    task = goldens.ReferenceTask(
        reference, "reference.py", goldens.input_options(None, None, "task"), backend, 60, 4096
    )
    gold = goldens.ensure(services(), task, [31, 32], None, cpu_later=True)
    assert not gold.cached and all(gold.per_seed[s].golden is not None for s in (31, 32))
    gold.wait_cpu()
    assert gold.cpu_pending is None and gold.cpu_note == ""
    for seed in (31, 32):
        entry = gold.per_seed[seed]
        assert entry.cpu.dtype == torch.float32 and torch.allclose(entry.cpu.double(), entry.golden, atol=1e-5)
    services().goldens.flush()
    services().goldens._memory.clear()
    again = goldens.ensure(services(), task, [31, 32], None, cpu_later=True)
    assert again.cached and again.cpu_pending is None and again.per_seed[31].cpu is not None


def test_inputs_that_overflow_torch_itself_are_said_so():
    """large_magnitude on float32 reaches 2^96: x * x overflows torch's own CPU control, which the
    result says instead of leaving it to the kernel."""
    from tests.tasks import candidate_with

    reference = VECTOR_ADD_REFERENCE.replace("return x + y", "return x * y")
    torch_mul = candidate_with("return x * y")  # the control's own op: only the inputs are at stake here
    r = run_accuracy(
        RunAccuracyRequest(
            reference=reference,
            candidate=torch_mul,
            backend="cpu",
            num_seeds=1,
            input_profile="large_magnitude",
            require_kernel_launch=False,
        )
    )
    assert any("the CPU control (torch itself, in the task's dtype) is not finite" in w for w in r.warnings), r.warnings


def test_a_reference_past_the_memory_limit_says_which_limit_and_what_to_change():
    """A 12000^2 float64 input is 1.1 GB: past a 512 MiB job (bounded: the limit stops it at 512 MiB)."""
    import pytest

    from tools.errors import ToolInputError

    big = VECTOR_ADD_REFERENCE.replace(
        "torch.randn(1000), torch.randn(1000)", "torch.randn(12000, 12000, dtype=torch.float64), torch.randn(1)"
    )
    with pytest.raises(ToolInputError) as caught:
        run_accuracy(
            RunAccuracyRequest(reference=big, candidate=VECTOR_ADD_CANDIDATE, backend="cpu", num_seeds=1, memory_mb=512)
        )
    message = str(caught.value)
    assert "memory_mb" in message and "512 MiB" in message, message


def test_a_pass_far_above_the_control_s_error_is_warned_about():
    """A scale off by 4e-6 passes fp32's thresholds at ~100x the error torch makes in fp32: said, with
    whether the source shows a low-precision accumulator (here none)."""
    from tests.tasks import candidate_with

    r = run_accuracy(
        RunAccuracyRequest(
            reference=VECTOR_ADD_REFERENCE,
            candidate=candidate_with("return triton_add(x, y) * (1 + 4e-6)"),
            backend="cpu",
            num_seeds=1,
        )
    )
    assert r.verdict == "pass", r.summary
    assert any("the CPU control's" in w and "no low-precision accumulator" in w for w in r.warnings), r.warnings
    honest = run_accuracy(
        RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=VECTOR_ADD_CANDIDATE, backend="cpu", num_seeds=1)
    )
    assert not any("the CPU control's" in w for w in honest.warnings), honest.warnings


def test_the_warning_names_a_low_precision_accumulator_line():
    from tools.accuracy import _error_above_control
    from tools.models.accuracy import SeedResult
    from tools.models.compare import CompareResult, CpuControl

    source = "import triton.language as tl\n\ndef k():\n    acc = tl.zeros((16,), dtype=tl.float16)\n"
    cpu = CpuControl(mere=1e-8, mare=1e-7, max_diff=0.0, normal_passed=True, mismatch_count=0, nan_count=0)
    out = CompareResult(
        name="output",
        standard="three_dim",
        passed=True,
        dtype="float32",
        threshold=1e-4,
        mere=1e-5,
        mare=1e-4,
        max_diff=0.0,
        mean_diff=0.0,
        mismatch_count=0,
        total_count=8,
        mismatch_ratio=0.0,
        summary="",
        cpu_control=cpu,
    )
    warning = _error_above_control([SeedResult(seed=1, passed=True, summary="", outputs=[out])], source)
    assert warning is not None and "1000x the CPU control's" in warning and "line 4 accumulates" in warning


def test_a_one_sided_error_warning_says_whether_the_source_truncates():
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "examples" / "level1" / "01_square_matmul"
    source = (folder / "candidate_rtz_cast.py").read_text()
    line = next(i + 1 for i, text in enumerate(source.splitlines()) if "# BUG: truncating cast" in text)
    r = run_accuracy(
        RunAccuracyRequest(
            reference=str(folder / "reference.py"),
            candidate=source,
            backend="cpu",
            num_seeds=1,
            determinism_check=False,
        )
    )
    assert any("err toward zero" in w and f"the source truncates at line {line} (" in w for w in r.warnings), r.warnings


def test_a_task_whose_seed_pool_would_take_gigabytes_is_not_filled_ahead(monkeypatch):
    """The fill wrote 2.3 GB for a 4096x8192 task: over FILL_MAX_BYTES the calls compute their own goldens."""
    from tools import goldens
    from tools.services import resolve_backend, services

    monkeypatch.setenv(goldens.FILL_ENV, "1")
    monkeypatch.setattr(goldens, "FILL_MAX_BYTES", 4096)  # the 1000-element task's pool is far above 4 KiB
    reference = VECTOR_ADD_REFERENCE.replace("1000", "997")
    run_accuracy(RunAccuracyRequest(reference=reference, candidate=VECTOR_ADD_CANDIDATE, backend="cpu", num_seeds=1))
    options = goldens.input_options(None, None, "task")
    task = goldens.ReferenceTask(reference, "reference.py", options, resolve_backend("cpu"), 60, 4096)
    assert goldens.fill_pool_in_background(services(), task) is None and not goldens.filling(task.key)
