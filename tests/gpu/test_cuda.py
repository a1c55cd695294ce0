"""The CUDA backend on a real GPU (run by scripts/gpu_check.sh on the H200; skipped without CUDA)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from tests.helpers import assert_nearly_equal
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with
from tools.accuracy import run_accuracy
from tools.compare import compare_tensors
from tools.compile import compile_kernel
from tools.models.accuracy import RunAccuracyRequest
from tools.models.compile import CompileKernelRequest

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]

ROOT = Path(__file__).resolve().parents[2]
LEVEL1 = ROOT / "examples" / "level1"
GPU = ROOT / "examples" / "gpu"
RECORD: dict = {}  # measurements the summary reports (scripts/gpu_check.sh)


def run(folder: Path, candidate: str, **options):
    options.setdefault("num_seeds", 2)
    return run_accuracy(
        RunAccuracyRequest(
            reference=str(folder / "reference.py"), candidate=str(folder / candidate), backend="cuda", **options
        )
    )


def record(name, result):
    output = result.seeds[0].outputs[0] if result.seeds and result.seeds[0].outputs else None
    RECORD[name] = {
        "verdict": result.verdict,
        "summary": result.summary,
        "mere": output.mere if output else None,
        "mare": output.mare if output else None,
        "cpu_mare": output.cpu_control.mare if output and output.cpu_control else None,
        "determinism": result.checks.determinism.model_dump() if result.checks.determinism else None,
        "warnings": result.warnings,
        "total_s": result.timings.total_s,
    }


@pytest.fixture(scope="module", autouse=True)
def _write_record(tmp_path_factory):
    yield
    import os

    out = os.environ.get("GPU_RECORD")
    if out:
        Path(out).write_text(json.dumps(RECORD, indent=2, default=str))


@pytest.mark.parametrize(
    "entry",
    json.loads((LEVEL1 / "manifest.json").read_text()),
    ids=lambda e: f"{e['problem']}/{e['candidate']}/{e['profile']}",
)
def test_level1_examples_on_cuda(entry):
    result = run(LEVEL1 / entry["problem"], entry["candidate"], input_profile=entry["profile"])
    record(f"level1/{entry['problem']}/{entry['candidate']}/{entry['profile']}", result)
    expected = "fail" if entry["gpu_only_failure"] else entry["expected_cpu_verdict"]
    assert result.verdict == expected, result.summary
    assert result.backend.name == "cuda" and not result.backend.interpreter


def test_fp64_golden_runs_on_the_device():
    result = run(LEVEL1 / "19_relu", "candidate.py", num_seeds=1)
    assert result.verdict == "pass" and result.backend.golden_device == "cuda"


def test_comparator_on_device_tensors_matches_cpu():
    gen = torch.Generator().manual_seed(0)
    golden = torch.randn(1 << 20, generator=gen, dtype=torch.float64)
    actual = (golden * (1 + 1e-3 * torch.randn(1 << 20, generator=gen, dtype=torch.float64))).half()
    on_cpu = compare_tensors(actual, golden, golden.half())
    on_gpu = compare_tensors(actual.cuda(), golden.cuda(), golden.half().cuda())
    assert_nearly_equal(on_cpu.model_dump(), on_gpu.model_dump(), rel=1e-5)


def test_compile_kernel_reports_registers_spills_and_shared_memory():
    folder = LEVEL1 / "01_square_matmul"
    result = compile_kernel(
        CompileKernelRequest(
            candidate=str(folder / "candidate.py"), reference=str(folder / "reference.py"), backend="cuda"
        )
    )
    assert result.ok and result.kernels, result.summary
    kernel = result.kernels[0]
    RECORD["compile_kernel"] = [k.model_dump() for k in result.kernels]
    assert kernel.target == "device" and kernel.registers and kernel.registers > 0
    assert kernel.spills is not None and kernel.shared_memory is not None and kernel.num_warps


FAULTY_PRELUDE = """
@triton.jit
def wild_store_kernel(out_ptr, far):
    offsets = far + tl.arange(0, 16)  # far: a terabyte past the buffer, an illegal address
    tl.store(out_ptr + offsets, tl.zeros((16,), dtype=tl.float32))
"""


def test_cuda_fault_is_a_crash_and_the_next_job_passes():
    body = "out = triton_add(x, y)\nwild_store_kernel[(1,)](out, 1 << 40)\ntorch.cuda.synchronize()\nreturn out"
    crashed = run_accuracy(
        RunAccuracyRequest(
            reference=VECTOR_ADD_REFERENCE, candidate=candidate_with(body, FAULTY_PRELUDE), backend="cuda", num_seeds=1
        )
    )
    RECORD["cuda_fault"] = {"verdict": crashed.verdict, "error": crashed.error.model_dump() if crashed.error else None}
    assert crashed.verdict == "crashed", crashed.summary
    after = run_accuracy(
        RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=VECTOR_ADD_CANDIDATE, backend="cuda", num_seeds=1)
    )
    assert after.verdict == "pass", after.summary


def test_large_k_drift_is_caught_and_kahan_fixes_it():
    folder = LEVEL1 / "06_matmul_large_k"
    naive, kahan = run(folder, "candidate.py"), run(folder, "candidate_kahan.py")
    record("large_k/naive", naive)
    record("large_k/kahan", kahan)
    assert naive.verdict == "fail" and kahan.verdict == "pass", (naive.summary, kahan.summary)
    assert kahan.seeds[0].outputs[0].mere < naive.seeds[0].outputs[0].mere / 10


def test_tf32_dot_fails_and_ieee_passes():
    folder = GPU / "fp32_matmul_tf32"
    tf32, ieee = run(folder, "candidate_tf32_default.py"), run(folder, "candidate_ieee.py")
    record("tf32/default", tf32)
    record("tf32/ieee", ieee)
    assert tf32.verdict == "fail" and ieee.verdict == "pass", (tf32.summary, ieee.summary)


def test_splitk_atomics_are_flagged_nondeterministic_and_two_pass_is_not():
    folder = GPU / "splitk_atomic"
    attempts = [run(folder, "candidate_atomic_add.py") for _ in range(3)]
    for i, r in enumerate(attempts):
        record(f"splitk/atomic/{i}", r)
    assert all(r.verdict == "pass" for r in attempts)
    flagged = [r for r in attempts if r.checks.determinism.bitwise_equal is False]
    assert flagged, "three re-runs of split-K atomics were bitwise identical"
    assert any("nondeterministic" in w for w in flagged[0].warnings)
    two_pass = run(folder, "candidate_two_pass.py")
    record("splitk/two_pass", two_pass)
    assert two_pass.verdict == "pass" and two_pass.checks.determinism.bitwise_equal is True


def test_deterministic_reduction_patch_makes_split_k_bitwise_stable():
    from tools.repair.reduction import deterministic_reduction

    folder = GPU / "splitk_atomic"
    patched = deterministic_reduction((folder / "candidate_atomic_add.py").read_text())
    assert patched is not None
    attempts = [
        run_accuracy(
            RunAccuracyRequest(reference=str(folder / "reference.py"), candidate=patched, backend="cuda", num_seeds=2)
        )
        for _ in range(3)
    ]
    for i, r in enumerate(attempts):
        record(f"splitk/patched/{i}", r)
    assert all(r.verdict == "pass" and r.checks.determinism.bitwise_equal is True for r in attempts)


GPU_CORPUS = [
    e for e in json.loads((ROOT / "tests" / "diagnosis_corpus" / "manifest.json").read_text()) if e["gpu_only"]
]


@pytest.mark.parametrize("entry", GPU_CORPUS, ids=lambda e: e["pattern"])
def test_gpu_failures_are_diagnosed_and_fixed(entry):
    from tests.diagnosis_corpus.runner import run_entry

    attempts = 3 if entry["pattern"] == "nondeterminism" else 1  # a re-run can be bitwise equal by chance
    for _ in range(attempts):
        outcome = run_entry(entry, "cuda")
        if outcome.pattern == entry["pattern"]:
            break
    RECORD[f"diagnosis/{entry['pattern']}"] = outcome.__dict__
    assert outcome.verdict == entry["verdict"] and outcome.fixed_verdict == "pass", outcome
    assert outcome.pattern == entry["pattern"], outcome
    assert not outcome.false_diagnoses, outcome
    if entry["patchable"]:
        assert entry["fix"] in outcome.verified_fixes, outcome


def test_inputs_are_made_on_the_gpu_in_a_warm_fully_isolated_job():
    """The data path of issue 10: inputs made on the device from the seed (no inputs file), the job
    forked warm (CUDA context and isolation prepared while idle), seccomp on every thread."""
    from tools import goldens
    from tools.services import resolve_backend, services

    request = RunAccuracyRequest(
        reference=VECTOR_ADD_REFERENCE, candidate=VECTOR_ADD_CANDIDATE, backend="cuda", seeds=[21, 22]
    )
    first, second = run_accuracy(request), run_accuracy(request)
    assert first.verdict == second.verdict == "pass", second.summary
    # a first call computes the CPU controls beside the candidate: they are there all the same
    assert not first.timings.golden_cached and first.seeds[0].outputs[0].cpu_control is not None
    assert not any("no CPU same-precision control" in w for w in first.warnings), first.warnings
    task = goldens.ReferenceTask(
        VECTOR_ADD_REFERENCE,
        "reference.py",
        goldens.input_options(None, None, "task"),
        resolve_backend("cuda"),
        60,
        4096,
    )
    entry = services().goldens.get(task.key, 21)
    assert entry is not None and entry.inputs_device == "cuda" and services().goldens.inputs(task.key, 21) is None
    isolation = second.isolation
    if isolation.get("readonly_root") and isolation["readonly_root"].active:
        assert isolation["seccomp"].active and "every thread" in isolation["seccomp"].detail, isolation["seccomp"]
    wrong = VECTOR_ADD_CANDIDATE.replace("x + y, mask=mask", "x + 2 * y, mask=mask")
    failed = run_accuracy(request.model_copy(update={"candidate": wrong}))
    assert failed.verdict == "fail"
    x, y = services().runs.tensors(failed.run_id)["s0/inputs"]  # a failing run keeps its inputs
    assert torch.allclose(services().runs.tensors(failed.run_id)["s0/golden"], (x + y).double())


STAGED_CASES = [
    lambda: torch.randn(3 * (32 << 20) // 4 + 17, device="cuda"),  # 3 chunks and a tail
    lambda: torch.randn(4096, 4096, device="cuda").t(),  # not contiguous
    lambda: torch.randn(5000, 1000, device="cuda").half(),
    lambda: torch.randn(5000, 1000, device="cuda").bfloat16(),
    lambda: torch.rand(9 << 20, device="cuda") > 0.5,  # bool
    lambda: torch.randint(-(2**62), 2**62, (2 << 20,), device="cuda"),
    lambda: torch.randn(100, device="cuda"),  # below the staging size: a plain copy
]
STAGED_IDS = ["chunks_and_tail", "transposed", "fp16", "bf16", "bool", "int64", "small"]


@pytest.mark.parametrize("make", STAGED_CASES, ids=STAGED_IDS)
def test_staged_device_to_host_copies_are_exact(make):
    from sandbox.harness import common

    value = make()
    expected = value.to("cpu")
    for copy in (common.to_cpu(value), common.host_copy([value])[0]):
        assert copy.device.type == "cpu" and copy.shape == value.shape and copy.dtype == value.dtype
        assert common.bitwise_equal(copy.contiguous(), expected.contiguous())
    assert len(common.stage_buffers()) == 2 and all(b.is_pinned() for b in common.stage_buffers())


@pytest.mark.parametrize("make", STAGED_CASES, ids=STAGED_IDS)
def test_staged_bundle_writes_are_exact(make):
    """Device tensors go straight from the staging buffers into the result file (host_bytes)."""
    from sandbox import result_channel, tensorio
    from sandbox.harness import common

    value = make()
    channel = result_channel.ResultChannel("gpu")
    tensorio.write_bundle(channel.fd, {"v": [value, 3]}, {"ok": True}, tensor_bytes=common.host_bytes)
    meta, values = channel.read(1 << 34)
    channel.close()
    got = values["v"][0]
    assert meta == {"ok": True} and values["v"][1] == 3
    assert got.shape == value.shape and got.dtype == value.dtype
    assert common.bitwise_equal(got, value.to("cpu").contiguous())


INT_MATMUL_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return a.to(torch.int32) @ b.to(torch.int32)


def get_inputs():
    return [torch.randint(-8, 8, (32, 32), dtype=torch.int8), torch.randint(-8, 8, (32, 32), dtype=torch.int8)]


def get_init_inputs():
    return []
"""

INT_MATMUL_CANDIDATE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def int_matmul_kernel(a_ptr, b_ptr, c_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(a_ptr + r[:, None] * N + r[None, :])
    b = tl.load(b_ptr + r[:, None] * N + r[None, :])
    tl.store(c_ptr + r[:, None] * N + r[None, :], tl.dot(a, b, out_dtype=tl.int32))


class ModelNew(nn.Module):
    def forward(self, a, b):
        c = torch.empty((32, 32), device=a.device, dtype=torch.int32)
        int_matmul_kernel[(1,)](a, b, c, N=32)
        return c
"""


def test_an_op_the_gpu_lacks_for_the_dtype_gets_its_golden_on_the_cpu():
    # CUDA has no integer matmul ("addmm_cuda" not implemented for 'Int'): the golden falls back to the CPU
    result = run_accuracy(
        RunAccuracyRequest(reference=INT_MATMUL_REFERENCE, candidate=INT_MATMUL_CANDIDATE, backend="cuda")
    )
    assert result.verdict == "pass", result.summary


INT8_SCALED_GEMM_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, w, scale):
        return (a.to(torch.int32) @ w.to(torch.int32).T).to(scale.dtype) * scale


def get_inputs():
    return [
        torch.randint(-100, 100, (64, 96), dtype=torch.int8),
        torch.randint(-100, 100, (48, 96), dtype=torch.int8),
        torch.rand(48, dtype=torch.float32) + 0.5,
    ]


def get_init_inputs():
    return []
"""

INT8_SCALED_GEMM_CANDIDATE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemm_kernel(a_ptr, w_ptr, s_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k0 in range(START, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        w = tl.load(w_ptr + rn[None, :] * K + kk[:, None], mask=(rn[None, :] < N) & (kk[:, None] < K), other=0)
        acc += tl.dot(a, w)
    s = tl.load(s_ptr + rn, mask=rn < N, other=0.0)
    out = acc.to(tl.float32) * s[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a, w, scale):
        M, K = a.shape
        N = w.shape[0]
        c = torch.empty((M, N), device=a.device, dtype=torch.float32)
        gemm_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](a, w, scale, c, M, N, K, BM=32, BN=32, BK=32)
        return c
"""


def test_an_int8_gemm_with_an_fp32_scale_is_not_suspected_of_tf32():
    """tf32 rounds fp32 dot operands only: a logic error in an int8 GEMM (a K loop that skips its
    first block) must not be put down to tl.dot's precision because a scale vector is fp32."""
    from tools.diagnosis import explain_failure
    from tools.models.diagnosis import ExplainRequest

    correct = run_accuracy(
        RunAccuracyRequest(
            reference=INT8_SCALED_GEMM_REFERENCE,
            candidate=INT8_SCALED_GEMM_CANDIDATE.replace("START", "0"),
            backend="cuda",
        )
    )
    assert correct.verdict == "pass", correct.summary
    buggy = run_accuracy(
        RunAccuracyRequest(
            reference=INT8_SCALED_GEMM_REFERENCE,
            candidate=INT8_SCALED_GEMM_CANDIDATE.replace("START", "BK"),
            backend="cuda",
        )
    )
    assert buggy.verdict == "fail", buggy.summary
    explained = explain_failure(ExplainRequest(run_id=buggy.run_id, heatmap=False))
    patterns = [d.pattern for d in explained.diagnoses]
    assert "reduced_precision_dot" not in patterns, patterns


def test_a_strided_view_is_the_same_view_in_the_re_runs_on_the_gpu():
    """x is a slice of a wider buffer and the launch passes its row stride as C: re-runs on cuda give the
    candidate the same view on the device (not a contiguous copy), so the failure reproduces, a contiguous copy
    passes, and the search finds `x.stride(0)` at the launch."""
    from tools.diagnosis import explain_failure
    from tools.models.diagnosis import ExplainRequest

    folder = ROOT / "tests" / "where_kernels" / "view_scale"
    buggy = run(folder, "bug_row_stride_c.py")
    assert buggy.verdict == "fail", buggy.summary
    explained = explain_failure(ExplainRequest(run_id=buggy.run_id, heatmap=False))
    outcome = next((o for o in explained.experiments if o.id == "contiguous_inputs"), None)
    assert outcome is not None and outcome.confirms == ["layout_mismatch"], explained.summary
    primary = explained.diagnoses[0]
    line = next(
        i + 1 for i, text in enumerate((folder / "candidate.py").read_text().splitlines()) if "x.stride(0)" in text
    )
    assert primary.location is not None and primary.location.line == line, explained.summary
