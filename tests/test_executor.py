"""run_accuracy and compile_kernel on real Triton kernels in the interpreter, through the sandbox."""

from __future__ import annotations

import json

import pytest
import torch

from tests.tasks import KERNEL, VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE, candidate_with
from tools.accuracy import run_accuracy
from tools.cli import main as cli
from tools.compile import compile_kernel
from tools.errors import ToolInputError
from tools.models.accuracy import RunAccuracyRequest
from tools.models.compile import CompileKernelRequest
from tools.services import services


def run(candidate=VECTOR_ADD_CANDIDATE, reference=VECTOR_ADD_REFERENCE, **options):
    options.setdefault("backend", "cpu")
    return run_accuracy(RunAccuracyRequest(reference=reference, candidate=candidate, **options))


def test_correct_candidate_passes_on_every_seed_with_checks():
    r = run(num_seeds=3)
    assert r.verdict == "pass" and len(r.seeds) == 3 and all(s.passed for s in r.seeds)
    assert r.backend.name == "cpu" and r.backend.interpreter and r.backend.triton
    assert r.checks.kernel_launches == 4 and r.checks.kernels == {"add_kernel": 4}  # 3 seeds + determinism re-run
    assert r.checks.determinism.bitwise_equal is True and r.checks.poisoned_allocations == 4
    assert r.timings.total_s > 0 and r.timings.candidate_s > 0
    assert r.summary.startswith("PASS (3/3 seeds)")


def test_a_half_precision_input_view_with_a_stride_is_judged():
    """An fp16 channel of interleaved data (a 1-D view of stride 3): the checks that compare inputs' bits (mutation,
    determinism) read it as it is laid out, not as contiguous bytes."""
    reference = VECTOR_ADD_REFERENCE.replace(
        "return [torch.randn(1000), torch.randn(1000)]",
        "return [torch.randn(1000, 3).half()[:, 1], torch.randn(1000).half()]",
    )
    candidate = candidate_with("return triton_add(x.contiguous(), y)")
    r = run(candidate=candidate, reference=reference)
    assert r.verdict == "pass", r.summary


def test_wrong_kernel_fails_with_the_worst_element():
    bad = VECTOR_ADD_CANDIDATE.replace("x + y, mask=mask", "x + y * 1.01, mask=mask")
    r = run(candidate=bad)
    assert r.verdict == "fail" and r.summary.startswith("FAIL (3/3 seeds)")
    output = r.seeds[0].outputs[0]
    assert output.dimensions.normal_range is False and output.worst
    assert "explain_failure" in r.next_step


def test_syntax_error_is_a_compile_error_on_the_candidates_line():
    r = run(candidate=VECTOR_ADD_CANDIDATE.replace("mask = offsets < n", "mask = offsets <"))
    assert r.verdict == "compile_error" and r.error.phase == "syntax"
    assert r.error.line == 11 and r.error.source_line.strip() == "mask = offsets <"


def test_import_error_is_a_compile_error():
    r = run(candidate="import triton_does_not_exist\n" + VECTOR_ADD_CANDIDATE)
    assert r.verdict == "compile_error" and r.error.type == "ModuleNotFoundError" and r.error.line == 1


def test_error_inside_a_kernel_points_at_the_kernels_line():
    bad = VECTOR_ADD_CANDIDATE.replace("tl.arange(0, BLOCK)", "tl.arange(0, BLOCK - 1)")
    r = run(candidate=bad)
    assert r.verdict == "runtime_error"
    assert r.error.line == 10 and "tl.arange(0, BLOCK - 1)" in r.error.source_line
    assert "power of 2" in r.error.message and r.error.hint


def test_missing_model_new_is_a_compile_error():
    r = run(candidate=KERNEL)
    assert r.verdict == "compile_error" and "ModelNew" in r.error.message


def test_hardcoded_cuda_device_gets_a_hint():
    r = run(candidate=candidate_with("out = torch.empty(x.shape, device='cuda')\nreturn out"))
    assert r.verdict == "runtime_error" and "device=x.device" in r.error.hint


def test_pinned_seeds_reproduce_and_hit_the_golden_cache():
    first = run(seeds=[11, 12])
    second = run(seeds=[11, 12])
    assert [s.seed for s in second.seeds] == [11, 12] and second.timings.golden_cached
    assert second.seeds[0].outputs[0].mere == first.seeds[0].outputs[0].mere


def test_fresh_seeds_are_drawn_from_the_secret_pool():
    a, b = run(num_seeds=2), run(num_seeds=2)
    seeds = {s.seed for s in a.seeds} | {s.seed for s in b.seeds}
    assert all(0 < s < 2**31 for s in seeds) and len(seeds) >= 2


def test_bfloat16_on_the_interpreter_is_judged_with_bf16_semantics():
    r = run(dtype="bfloat16")
    assert r.verdict == "pass" and r.seeds[0].outputs[0].dtype == "bfloat16", r.summary


def test_reference_errors_are_the_callers_problem():
    broken = VECTOR_ADD_REFERENCE.replace("return x + y", "return x + z")
    with pytest.raises(ToolInputError, match=r"reference failed in reference forward .* NameError"):
        run(reference=broken)
    with pytest.raises(ToolInputError, match="syntax error"):
        run(reference="def broken(:\n")
    with pytest.raises(ToolInputError, match="no such file"):
        run(candidate="/nonexistent/candidate.py")


def test_unavailable_backend_is_a_clear_error():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(ToolInputError, match="no CUDA device"):
        run(backend="cuda")


def test_input_profiles_and_value_range_reach_the_inputs():
    body = "print('MINMAX', float(x.min()), float(x.max()), bool(torch.isnan(x).any()))\nreturn triton_add(x, y)"
    r = run(candidate=candidate_with(body), num_seeds=1, value_range=(5.0, 6.0), determinism_check=False)
    low, high = (float(v) for v in r.stdout.split("MINMAX")[1].split()[:2])
    assert 5.0 <= low < high <= 6.0
    r = run(candidate=candidate_with(body), num_seeds=1, input_profile="special_values", determinism_check=False)
    assert "True" in r.stdout.split("MINMAX")[1] and r.verdict == "pass"  # NaN where the golden has NaN


MULTI_REFERENCE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x, y):
        return x + y, (x + y) * self.scale


def get_inputs():
    return [torch.randn(300), torch.randn(300)]


def get_init_inputs():
    return [2.0]
"""

MULTI_CANDIDATE = (
    KERNEL
    + """

class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x, y):
        s = triton_add(x, y)
        return s, triton_add(s, s) * (self.scale / 2)
"""
)


def test_multi_output_ops_and_init_inputs():
    r = run(candidate=MULTI_CANDIDATE, reference=MULTI_REFERENCE, num_seeds=1)
    assert r.verdict == "pass", r.summary
    assert [o.name for o in r.seeds[0].outputs] == ["output[0]", "output[1]"]
    wrong_count = MULTI_CANDIDATE.replace("return s, triton_add(s, s) * (self.scale / 2)", "return s")
    r = run(candidate=wrong_count, reference=MULTI_REFERENCE, num_seeds=1)
    assert r.verdict == "fail" and "output_count_mismatch" in r.summary


def test_run_store_keeps_result_task_and_tensors():
    r = run(num_seeds=2, seeds=[3, 4])
    store = services().runs
    assert store.result(r.run_id)["verdict"] == "pass"
    assert store.task(r.run_id)["candidate"] == VECTOR_ADD_CANDIDATE
    tensors = store.tensors(r.run_id)  # a passing run keeps its first seed's outputs, no inputs
    assert set(tensors) == {"s0/actual", "s0/golden", "s0/cpu"}
    assert tensors["s0/golden"].dtype.is_floating_point and tensors["s0/golden"].shape == (1000,)
    # a failing run keeps the first seed and every failing one in full, inputs included
    bad = VECTOR_ADD_CANDIDATE.replace("x + y, mask=mask", "x + y * 1.01, mask=mask")
    failed = run(candidate=bad, num_seeds=2, seeds=[3, 4])
    tensors = store.tensors(failed.run_id)
    assert set(tensors) == {f"s{i}/{part}" for i in (0, 1) for part in ("actual", "golden", "cpu", "inputs")}
    x, y = tensors["s1/inputs"]
    assert torch.allclose(tensors["s1/golden"], (x + y).double())
    with pytest.raises(ToolInputError, match="unknown run_id"):
        store.result("r-20200101-000000-abcdef")
    with pytest.raises(ToolInputError, match="not a run id"):
        store.result("../../etc/passwd")


def test_cli_run_json_matches_the_function(tmp_path, capsys):
    ref, cand = tmp_path / "ref.py", tmp_path / "cand.py"
    ref.write_text(VECTOR_ADD_REFERENCE)
    cand.write_text(VECTOR_ADD_CANDIDATE)
    code = cli(["run", "--reference", str(ref), "--candidate", str(cand), "--backend", "cpu", "--seeds", "5", "--json"])
    out = json.loads(capsys.readouterr().out)
    direct = run(reference=str(ref), candidate=str(cand), seeds=[5]).model_dump(mode="json")
    assert code == 0
    for result in (out, direct):  # what legitimately differs between two runs
        for volatile in ("run_id", "timings", "stdout", "stderr", "isolation"):
            result.pop(volatile)
        for seed in result["seeds"]:
            seed.pop("forward_s")
    assert out == direct
    assert cli(["run", "--reference", str(ref), "--candidate", str(tmp_path / "none.py"), "--backend", "cpu"]) == 2


# --- compile_kernel ----------------------------------------------------------------------------


def compile_(candidate=VECTOR_ADD_CANDIDATE, **options):
    options.setdefault("backend", "cpu")
    return compile_kernel(CompileKernelRequest(candidate=candidate, **options))


def test_compile_ok_lists_kernels_and_caches():
    r = compile_(reference=VECTOR_ADD_REFERENCE)
    assert r.ok and r.kernels_defined == ["add_kernel"] and r.launched
    assert r.kernels[0].name == "add_kernel" and r.kernels[0].compiled and r.kernels[0].target.startswith("sm_90")
    again = compile_(reference=VECTOR_ADD_REFERENCE)
    assert again.cached and again.ok


def test_compile_without_reference_checks_the_import_only():
    r = compile_()
    assert r.ok and not r.launched and any("no reference" in w for w in r.warnings)


def test_compile_reports_what_the_interpreter_accepts_but_triton_rejects():
    bad = VECTOR_ADD_CANDIDATE.replace(
        "    x = tl.load(x_ptr + offsets, mask=mask)",
        "    for i in range(3):\n        if i == 1:\n            break\n    x = tl.load(x_ptr + offsets, mask=mask)",
    )
    assert run(candidate=bad, num_seeds=1).verdict == "pass"  # the interpreter runs it fine
    r = compile_(candidate=bad, reference=VECTOR_ADD_REFERENCE)
    assert r.verdict == "compile_error" and "Break" in r.error.message
    assert r.error.line == 14 and r.error.source_line.strip() == "break"


def test_compile_syntax_error_has_line_and_column():
    r = compile_(candidate="import torch\nx = = 1\n")
    assert r.verdict == "compile_error" and (r.error.line, r.error.column) == (2, 5)


@pytest.mark.slow
def test_compile_estimates_registers_for_sm90():
    r = compile_(reference=VECTOR_ADD_REFERENCE, estimate_resources=True)
    k = r.kernels[0]
    assert r.ok and k.registers and k.registers > 0 and k.spills == 0 and k.shared_memory is not None


def test_results_stay_small_for_agents_even_at_16_seeds():
    bad = VECTOR_ADD_CANDIDATE.replace("x + y, mask=mask", "x + y * 1.01, mask=mask")
    r = run(candidate=bad, num_seeds=16, determinism_check=False)
    assert r.verdict == "fail" and len(r.seeds) == 16
    assert len(r.model_dump_json()) < 40_000  # ~10k tokens
    assert r.seeds[0].outputs[0].worst and not r.seeds[5].outputs[0].worst  # detail kept where it matters


def test_a_reference_that_casts_to_a_fixed_dtype_is_warned_of_its_low_precision_golden():
    # x.float() in the forward makes the golden fp32 (the inputs are float64 for the golden): said so
    casting = VECTOR_ADD_REFERENCE.replace("return x + y", "return x.float() + y.float()")
    assert casting != VECTOR_ADD_REFERENCE
    warned = run(reference=casting, num_seeds=1)
    assert warned.verdict == "pass"
    assert any("the golden is float32, not float64" in w for w in warned.warnings), warned.warnings
    plain = run(num_seeds=1)
    assert not any("not float64" in w for w in plain.warnings), plain.warnings
