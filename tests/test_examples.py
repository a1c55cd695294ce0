"""Every example in examples/level1/manifest.json through run_accuracy on the cpu backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.accuracy import run_accuracy
from tools.models.accuracy import RunAccuracyRequest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "level1"
MANIFEST = json.loads((EXAMPLES / "manifest.json").read_text())


def run_entry(entry, **options):
    folder = EXAMPLES / entry["problem"]
    return run_accuracy(
        RunAccuracyRequest(
            reference=str(folder / "reference.py"),
            candidate=str(folder / entry["candidate"]),
            backend="cpu",
            input_profile=entry["profile"],
            num_seeds=2,
            **options,
        )
    )


@pytest.mark.parametrize("entry", MANIFEST, ids=lambda e: f"{e['problem']}/{e['candidate']}/{e['profile']}")
def test_example_verdict(entry):
    result = run_entry(entry)
    assert result.verdict == entry["expected_cpu_verdict"], result.summary
    if entry["pattern"] == "rounding_mode_bias":
        assert any("toward zero" in w for w in result.warnings)
    if result.verdict == "rejected":
        assert result.error.type == entry["pattern"]


CANDIDATES = sorted({(e["problem"], e["candidate"]) for e in MANIFEST})


@pytest.mark.parametrize(("problem", "candidate"), CANDIDATES, ids=lambda v: str(v))
def test_example_compiles_for_sm90(problem, candidate):
    """Every example is valid Triton: the offline sm_90 front end must accept each launched kernel."""
    from tools.compile import compile_kernel
    from tools.models.compile import CompileKernelRequest

    folder = EXAMPLES / problem
    result = compile_kernel(
        CompileKernelRequest(candidate=str(folder / candidate), reference=str(folder / "reference.py"), backend="cpu")
    )
    assert result.ok, result.summary
    if candidate != "candidate_torch_op.py":
        assert result.kernels and all(k.compiled for k in result.kernels)


GPU_EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "gpu"
GPU_MANIFEST = json.loads((GPU_EXAMPLES / "manifest.json").read_text())


#: the GPU examples' size constants sized for the interpreter (the tf32 and atomics points hold at any size;
#: a 1024^3 fp32 matmul takes ~17 s a forward there)
INTERPRETER_SIZES = {
    "fp32_matmul_tf32": ("M = N = K = 1024", "M = N = K = 256"),
    "splitk_atomic": ("K = 16384", "K = 4096"),
}


@pytest.mark.parametrize("entry", GPU_MANIFEST, ids=lambda e: f"{e['problem']}/{e['candidate']}")
def test_gpu_only_failures_pass_on_the_interpreter(entry):
    """The interpreter ignores tf32 and runs atomics in a fixed order: these pass on the cpu backend."""
    folder = GPU_EXAMPLES / entry["problem"]
    task_size, smaller = INTERPRETER_SIZES[entry["problem"]]
    reference = (folder / "reference.py").read_text()
    assert task_size in reference
    result = run_accuracy(
        RunAccuracyRequest(
            reference=reference.replace(task_size, smaller),
            candidate=str(folder / entry["candidate"]),
            backend="cpu",
            num_seeds=1,
            # what this checks is the interpreter's numbers: no third forward for the output's provenance
            require_kernel_launch=False,
        )
    )
    assert result.verdict == "pass", result.summary
    assert result.checks.determinism.bitwise_equal
